#!/bin/bash
# call 154 (2026-11-28): what the channel-first orientation costs a short-K GEMM: the
# same 49152 x 1024 x 512 GEMM with its output row-major (linear, linear_residual) and
# channel-first (conv1d k=1, conv1x1_residual; orient.pat), and gated's split 1x1 conv,
# each tuned over wgmma at budget 12 (the tuner's medians).
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns KGEN_TEMPLATES=$PWD/templates
K=build-dev-bin/kgen
D=docs/bench-2026-11-28/call154
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
for k in k0_linear k1_linear_residual k2_conv1d k3_conv1x1_residual; do
  timeout 100 $K tune $D/orient.pat --arch sm_90 --db /tmp/o.db --kernel $k --where path=wgmma --budget 12 -q > $OUT/$k.txt 2>&1
done
timeout 100 $K tune tools/bench/gated_tanh_residual.pat --unfuse all --arch sm_90 --db /tmp/o.db --kernel k2_conv1x1_split_residual \
    --where path=wgmma --budget 12 -q > $OUT/split.txt 2>&1
$K cache list --db /tmp/o.db 2>&1 | cut -c1-230 > $OUT/winners.txt; cat $OUT/winners.txt
$K cache history --db /tmp/o.db > $OUT/history.txt 2>&1 || true

#!/bin/bash
# call 157 (2026-11-28): (1) what the channel-first orientation costs ConvNeXt's
# K = 2048 linear (orient2.pat), each kernel tuned over wgmma at budget 12 (the
# tuner's medians); (2) ConvNeXt's GELU GEMM (49152 x 2048, K = 512) under three
# tile shapes, each at budget 4, against the tuner's pick (pp 128x128).
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns KGEN_TEMPLATES=$PWD/templates
K=build-dev-bin/kgen
D=docs/bench-2026-11-28/call157
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
for k in k0_linear_scale_residual k1_linear_scale_residual k2_linear k4_matmul; do
  timeout 100 $K tune $D/orient2.pat --arch sm_90 --db /tmp/o.db --kernel $k --where path=wgmma --budget 12 -q > $OUT/$k.txt 2>&1
  echo "$k done at ${SECONDS}s"
done
$K cache list --db /tmp/o.db 2>&1 | cut -c1-230 > $OUT/winners.txt; cut -c1-200 $OUT/winners.txt
C=examples/convnext_block.pat
i=0
for w in "sched=pp BM=128 BN=128" "sched=pp BM=64 BN=256" "sched=ws BM=128 BN=256" "sched=ws BM=256 BN=128"; do
  set -- $w; i=$((i+1))
  timeout 80 $K tune $C --unfuse all --arch sm_90 --db /tmp/g$i.db --kernel k1_gemm_gelu --where path=wgmma --where load=tma \
     --where $1 --where $2 --where $3 --budget 4 -q > /dev/null 2>&1
  echo "== $w (${SECONDS}s)"; $K cache list --db /tmp/g$i.db 2>&1 | cut -c1-200 | tail -n +2
done > $OUT/gelu.txt; cat $OUT/gelu.txt
for j in 1 2 3 4; do $K cache history --db /tmp/g$j.db; done > $OUT/gelu_history.txt 2>&1

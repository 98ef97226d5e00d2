#!/bin/bash
# call 158 (2026-11-28): the producer asks L2 for each tile's residual as the tile's K
# loop starts (gemm.lua res_prefetch).  Checks at B = 2, T = 128 of the four residual
# GEMMs under pp and ws; the two short-K residual GEMMs tuned as in calls 154 and 156;
# ConvNeXt beside PyTorch as in call 149 (fresh DB, budget 6).
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns KGEN_TEMPLATES=$PWD/templates
K=build-dev-bin/kgen
O=docs/bench-2026-11-28/call154/orient.pat
G=tools/bench/gated_tanh_residual.pat
S="--dim B=2 --dim T=128"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
for sc in pp ws; do
  timeout 60 $K check $O $S --arch sm_90 --kernel k1_linear_residual --where path=wgmma --where sched=$sc --configs 6 2>&1 | tail -1
  timeout 60 $K check $O $S --arch sm_90 --kernel k3_conv1x1_residual --where path=wgmma --where sched=$sc --configs 6 2>&1 | tail -1
  timeout 60 $K check $G $S --unfuse all --arch sm_90 --kernel k2_conv1x1_split_residual --where path=wgmma --where sched=$sc --configs 6 2>&1 | tail -1
  timeout 60 $K check examples/convnext_block.pat $S --unfuse all --arch sm_90 --kernel k2_linear_scale_residual \
    --where path=wgmma --where sched=$sc --configs 6 2>&1 | tail -1
done > $OUT/check.txt; cut -c1-150 $OUT/check.txt
echo "checks done at ${SECONDS}s"
timeout 90 $K tune $O --arch sm_90 --db /tmp/o.db --kernel k1_linear_residual --where path=wgmma --budget 12 -q > /dev/null 2>&1
timeout 90 $K tune $G --unfuse all --arch sm_90 --db /tmp/o.db --kernel k2_conv1x1_split_residual --where path=wgmma --budget 12 -q > /dev/null 2>&1
$K cache list --db /tmp/o.db 2>&1 | cut -c1-230 > $OUT/winners_k512.txt; cut -c1-120 $OUT/winners_k512.txt
echo "tunes done at ${SECONDS}s"
rm -f /tmp/t.sqlite
timeout 215 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/t.sqlite --workloads convnext_block_default --budget 6 --tune-timeout 180 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -2
$K cache list --db /tmp/t.sqlite 2>&1 | cut -c1-220 > $OUT/winners.txt; cut -c1-120 $OUT/winners.txt
cp /tmp/a/*.json $OUT/ 2>/dev/null
echo "bench done at ${SECONDS}s"

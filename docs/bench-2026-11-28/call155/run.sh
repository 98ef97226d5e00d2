#!/bin/bash
# call 155 (2026-11-28): the register epilogue's copy-out with every residual run of a
# thread in flight at once (GEMM_RU, up to 16, where it was 4): kgen check of the three
# residual GEMMs of call 154 (pp, ws, sync), their tune at budget 12 against call 154's,
# ConvNeXt's scaled residual linear, then ConvNeXt beside PyTorch if the time allows.
# (The templates were those of branch wip/resid-ru, commit e70b10f.  The checks ran at
# the full shapes, where the host's double reference takes most of a minute each: all
# but the first hit their 40 s limit, and the call used the session's device time.)
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns KGEN_TEMPLATES=$PWD/templates
K=build-dev-bin/kgen
O=docs/bench-2026-11-28/call154/orient.pat
G=tools/bench/gated_tanh_residual.pat
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
for sc in pp ws sync; do
  timeout 40 $K check $O --arch sm_90 --kernel k1_linear_residual --where path=wgmma --where sched=$sc --configs 6 2>&1 | tail -1
  timeout 40 $K check $O --arch sm_90 --kernel k3_conv1x1_residual --where path=wgmma --where sched=$sc --configs 6 2>&1 | tail -1
  timeout 40 $K check $G --unfuse all --arch sm_90 --kernel k2_conv1x1_split_residual --where path=wgmma --where sched=$sc --configs 6 2>&1 | tail -1
done > $OUT/check.txt; cat $OUT/check.txt | cut -c1-150
echo "checks done at ${SECONDS}s"
timeout 80 $K tune $O --arch sm_90 --db /tmp/o.db --kernel k1_linear_residual --where path=wgmma --budget 12 -q > /dev/null 2>&1
timeout 80 $K tune $O --arch sm_90 --db /tmp/o.db --kernel k3_conv1x1_residual --where path=wgmma --budget 12 -q > /dev/null 2>&1
timeout 80 $K tune $G --unfuse all --arch sm_90 --db /tmp/o.db --kernel k2_conv1x1_split_residual --where path=wgmma --budget 12 -q > /dev/null 2>&1
timeout 80 $K tune examples/convnext_block.pat --unfuse all --arch sm_90 --db /tmp/o.db --kernel k2_linear_scale_residual --where path=wgmma --budget 12 -q > /dev/null 2>&1
$K cache list --db /tmp/o.db 2>&1 | cut -c1-230 > $OUT/winners.txt; cat $OUT/winners.txt | cut -c1-120
echo "tunes done at ${SECONDS}s"
if [ $SECONDS -lt 170 ]; then
  rm -f /tmp/t.sqlite
  timeout 260 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/t.sqlite --workloads convnext_block_default --budget 6 --tune-timeout 170 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -2
  cp /tmp/a/*.json $OUT/ 2>/dev/null
fi
echo "done at ${SECONDS}s"

#!/bin/bash
# call 156 (2026-11-28), branch wip/resid-ru, now in main: the next call for that branch (the register epilogue's copy-out with every
# residual run of a thread in flight at once, GEMM_RU up to 16 where it was 4).  Call 155
# ran the checks at the full 49152-row shapes, where the host's double reference alone
# takes most of a minute a check, and spent the session's device time; here the checks
# run at B = 2, T = 128.  (Run with the branch's templates copied beside main's; this
# is that command against main's, which now hold them.)  (tests/check_kernels.sh sm_90 with this branch's templates, on
# the CPU machine, 2026-11-28: 74/74 models, every candidate compiled.)
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns KGEN_TEMPLATES=$PWD/templates
K=build-dev-bin/kgen
O=docs/bench-2026-11-28/call154/orient.pat
G=tools/bench/gated_tanh_residual.pat
S="--dim B=2 --dim T=128"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
for sc in pp ws sync; do
  timeout 60 $K check $O $S --arch sm_90 --kernel k1_linear_residual --where path=wgmma --where sched=$sc --configs 8 2>&1 | tail -1
  timeout 60 $K check $O $S --arch sm_90 --kernel k3_conv1x1_residual --where path=wgmma --where sched=$sc --configs 8 2>&1 | tail -1
  timeout 60 $K check $G $S --unfuse all --arch sm_90 --kernel k2_conv1x1_split_residual --where path=wgmma --where sched=$sc --configs 8 2>&1 | tail -1
  timeout 60 $K check examples/convnext_block.pat --dim B=2 --dim T=128 --unfuse all --arch sm_90 --kernel k2_linear_scale_residual \
    --where path=wgmma --where sched=$sc --configs 8 2>&1 | tail -1
done > $OUT/check.txt; cut -c1-150 $OUT/check.txt
echo "checks done at ${SECONDS}s"
for k in k1_linear_residual k3_conv1x1_residual; do
  timeout 90 $K tune $O --arch sm_90 --db /tmp/o.db --kernel $k --where path=wgmma --budget 12 -q > /dev/null 2>&1
done
timeout 90 $K tune $G --unfuse all --arch sm_90 --db /tmp/o.db --kernel k2_conv1x1_split_residual --where path=wgmma --budget 12 -q > /dev/null 2>&1
timeout 90 $K tune examples/convnext_block.pat --unfuse all --arch sm_90 --db /tmp/o.db --kernel k2_linear_scale_residual --where path=wgmma --budget 12 -q > /dev/null 2>&1
$K cache list --db /tmp/o.db 2>&1 | cut -c1-230 > $OUT/winners.txt; cut -c1-120 $OUT/winners.txt
echo "tunes done at ${SECONDS}s"

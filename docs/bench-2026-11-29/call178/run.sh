#!/bin/bash
# call 178 (2026-11-29, session 37): call 177 found the channels-last conv faster the
# wider a row of channels a block writes (mma BC = 16, 32-byte rows: 0.19 ms; BC = 32:
# 0.134).  bc64.patch (tpl/) lets BC be 64 (128-byte rows); every mma and lanes config at
# BC = 64 checked, then timed by the tuner (exhaustive over them).
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
D=docs/bench-2026-11-29/call178
Y=examples/lynxnet2_block.pat
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
export KGEN_TEMPLATES=$PWD/$D/tpl
$K check $Y --dim B=2 --kernel k2_conv1d --arch sm_90 --configs 40 --where path=mma,lanes --where BC=64 > $OUT/check_bc64.txt 2>&1
tail -1 $OUT/check_bc64.txt
timeout 150 $K tune $Y --kernel k2_conv1d --arch sm_90 --db /tmp/b.db --where path=mma,lanes --where BC=64 --strategy exhaustive -q > /dev/null 2>&1
$K cache show conv1d --db /tmp/b.db > $OUT/bc64_trials.txt 2>&1
echo "bc64 at ${SECONDS}s"

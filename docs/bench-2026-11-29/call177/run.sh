#!/bin/bash
# call 177 (2026-11-29, session 37): why LYNXNet2's depthwise conv lost 36 us when it
# writes channels-last (call 176: path=lanes 0.1270 won, against the channel-first mma's
# 0.0907 in call 174).  The tuner over every mma config with main's templates, the lanes
# path at budget 20, and the mma path again with the blocks' order changed so that the
# channel tile runs fastest (cbfirst.patch, tpl/: the blocks in flight then cover whole
# rows of [B, T, C]), checked first.
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
D=docs/bench-2026-11-29/call177
Y=examples/lynxnet2_block.pat
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
KGEN_TEMPLATES=$PWD/$D/tpl $K check tests/kernels/dwconv_chlast.pat --arch sm_90 --configs 4 > $OUT/check_cbfirst.txt 2>&1
tail -1 $OUT/check_cbfirst.txt
export KGEN_TEMPLATES=$PWD/templates
timeout 150 $K tune $Y --kernel k2_conv1d --arch sm_90 --db /tmp/m.db --where path=mma --strategy exhaustive -q > /dev/null 2>&1
$K cache show conv1d --db /tmp/m.db > $OUT/mma_trials.txt 2>&1
echo "mma at ${SECONDS}s"
timeout 100 $K tune $Y --kernel k2_conv1d --arch sm_90 --db /tmp/l.db --where path=lanes --budget 20 -q > /dev/null 2>&1
$K cache show conv1d --db /tmp/l.db > $OUT/lanes_trials.txt 2>&1
echo "lanes at ${SECONDS}s"
export KGEN_TEMPLATES=$PWD/$D/tpl
timeout 150 $K tune $Y --kernel k2_conv1d --arch sm_90 --db /tmp/c.db --where path=mma --strategy exhaustive -q > /dev/null 2>&1
$K cache show conv1d --db /tmp/c.db > $OUT/mma_cbfirst_trials.txt 2>&1
echo "cbfirst at ${SECONDS}s"

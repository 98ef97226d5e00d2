#!/bin/bash
# call 194 (2026-11-29, session 39): LYNXNet2's depthwise conv at 42fdd73 (the
# channels-last window staged and its y gathered two steps a thread), tuned as the bench
# tunes it (budget 6): the tuner's pick and median.  (The session's device time ran out
# before a block measurement.)
export KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns; K=build-dev-bin/kgen; mkdir -p $OUT
timeout 75 $K tune examples/lynxnet2_block.pat --kernel k2_conv1d --arch sm_90 --db /tmp/cv.db --budget 6 > /dev/null 2>&1; echo "rc $?"
$K cache show conv1d --db /tmp/cv.db > $OUT/conv_trials.txt 2>&1; $K cache list --db /tmp/cv.db | cut -c1-200 | tee $OUT/winner.txt

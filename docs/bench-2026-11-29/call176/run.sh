#!/bin/bash
# call 176 (2026-11-29, session 37): the depthwise conv writes channels-last where its
# input is (the planner gives it the transpose back; dwconv's mma path stages its results
# in shared memory and stores 8 channels a 16-byte store).  First every dwconv candidate
# of the new test and the mma test checked against the double reference, then LYNXNet2
# beside PyTorch: fresh DB, budget 6, tune timeout 245 s (call 174's).
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
$K check tests/kernels/dwconv_chlast.pat --arch sm_90 --configs 6 > $OUT/check_chlast.txt 2>&1
tail -1 $OUT/check_chlast.txt
$K check tests/kernels/dwconv_mma.pat --arch sm_90 --configs 3 --where path=mma > $OUT/check_mma.txt 2>&1
tail -1 $OUT/check_mma.txt
$K check examples/lynxnet2_block.pat --dim B=2 --kernel k2_conv1d --arch sm_90 --configs 6 --where path=mma > $OUT/check_k2.txt 2>&1
tail -1 $OUT/check_k2.txt
echo "checks done at ${SECONDS}s"
rm -f /tmp/t.sqlite /tmp/a/*.json
timeout 300 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/t.sqlite --workloads lynxnet2_block_default --budget 6 --tune-timeout 245 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -2
$K cache list --db /tmp/t.sqlite 2>&1 | cut -c1-230 > $OUT/winners_lynxnet2.txt
cp /tmp/a/*.json $OUT/ 2>/dev/null
echo "lynxnet2 done at ${SECONDS}s"

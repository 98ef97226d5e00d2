#!/bin/bash
# call 196 (2026-11-29, session 40): main at 792cf18 (dwconv mma's taps staged in
# shared memory, rank() counting the last tile whole): LYNXNet2's conv checked at
# B = 2, T = 301 on the mma path, then LYNXNet2 beside PyTorch as in call 191 (fresh
# DB, budget 6, tune timeout 245 s).
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
$K check examples/lynxnet2_block.pat --dim B=2 --dim T=301 --kernel k2_conv1d --arch sm_90 --configs 8 --where path=mma 2>&1 | tail -1 | tee $OUT/checks.txt
rm -f /tmp/t.sqlite /tmp/a/*.json
timeout 300 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/t.sqlite --workloads lynxnet2_block_default --budget 6 --tune-timeout 245 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -2
$K cache list --db /tmp/t.sqlite 2>&1 | cut -c1-230 > $OUT/winners_lynxnet2.txt
$K cache show conv1d --db /tmp/t.sqlite 2>&1 | cut -c1-200 > $OUT/conv_trials.txt
cp /tmp/a/*.json $OUT/ 2>/dev/null
echo "done at ${SECONDS}s"

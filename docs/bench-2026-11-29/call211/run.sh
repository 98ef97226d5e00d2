#!/bin/bash
# call 211 (session 42): LYNXNet2's block again with main's templates (res_pp on the
# residual linear, the conv at BT = 384), fresh DB, budget 6: call 209's figure was
# 1.4994x; torch.compile's own figure moves by 2% between calls.
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns KGEN_TEMPLATES=$PWD/templates
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
timeout 340 python3 tools/bench/bench.py measure --kgen $K --out $OUT/a --db /tmp/t.sqlite \
  --workloads lynxnet2_block_default --budget 6 --tune-timeout 290 --no-max-autotune 2>&1 | tail -2
$K cache list --db /tmp/t.sqlite 2>&1 | cut -c1-230 > $OUT/winners.txt
echo "done at ${SECONDS}s"

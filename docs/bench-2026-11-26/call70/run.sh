#!/bin/bash
# call 70: the four fp32 blocks at B = 1 with this session's changes, beside PyTorch (fresh DB)
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
rm -f /tmp/tune.sqlite
timeout 520 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/tune.sqlite --workloads wavenet_layer_B_1,lynxnet2_block_B_1,convnext_block_B_1,encoder_layer_B_1 --budget 12 --tune-timeout 110 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -5
cp /tmp/a/*.json $OUT/ 2>/dev/null

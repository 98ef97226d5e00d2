#!/bin/bash
# call 71: WaveNet and ConvNeXt f16 with more tuning (call 67's DB), beside PyTorch
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
cp .devdb/tune67.sqlite /tmp/tune.sqlite
timeout 540 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/tune.sqlite --workloads wavenet_layer_default,convnext_block_default --budget 8 --tune-timeout 220 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -3
cp /tmp/a/*.json $OUT/ 2>/dev/null

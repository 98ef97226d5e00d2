#!/bin/bash
# call 67: the fp16 blocks with overlapping launches (pp launched plainly), beside PyTorch (fresh DB)
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
rm -f /tmp/tune.sqlite
timeout 540 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/tune.sqlite --workloads wavenet_layer_default,lynxnet2_block_default,convnext_block_default --budget 5 --tune-timeout 120 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -4
cp /tmp/a/*.json $OUT/ 2>/dev/null; cp /tmp/tune.sqlite $OUT/ 2>/dev/null

#!/bin/bash
# call 56: the encoder layer f16 and sdpa B=4 H=16 T=4096 D=128 beside PyTorch (templates unchanged for sdpa)
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
cp .devdb/tune.sqlite /tmp/tune.sqlite; chmod u+w /tmp/tune.sqlite
timeout 560 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/tune.sqlite --workloads encoder_layer_default,sdpa_B_4_H_16_T_4096_D_128 --budget 6 --tune-timeout 200 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v Warn | tail -6
cp /tmp/tune.sqlite $OUT/
mkdir -p $OUT/a; cp /tmp/a/*.json $OUT/a/ 2>/dev/null
ls -la $OUT

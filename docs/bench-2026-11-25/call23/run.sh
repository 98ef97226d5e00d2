#!/bin/bash
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
cp .devdb/tune.sqlite /tmp/tune.sqlite
python3 tools/bench/bench.py measure --kgen $K --out $OUT/a --db /tmp/tune.sqlite --workloads $1 --budget 4 --tune-timeout ${2:-200} --no-max-autotune 2>&1 | grep -v "^\s*$" | tail -8
cp /tmp/tune.sqlite $OUT/
python3 tools/bench/bench.py render $OUT/a 2>&1 | tail -5

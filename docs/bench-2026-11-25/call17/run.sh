#!/bin/bash
# device call J: the blocks in $1, no checks; the DB comes back even on a timeout
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
cp .devdb/tune.sqlite /tmp/tune.sqlite
mkdir -p $OUT/a
timeout ${4:-480} python3 tools/bench/bench.py measure --kgen $K --out $OUT/a --db /tmp/tune.sqlite --workloads "$1" --budget ${2:-4} --tune-timeout ${3:-100} --no-max-autotune 2>&1 | tee $OUT/bench.txt | grep -v "^\s*$" | grep -v Warn | grep -E "kgen|Error|error" | tail -12
cp /tmp/tune.sqlite $OUT/
rm -rf $OUT/a/*/

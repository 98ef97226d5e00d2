#!/bin/bash
# call 218 (session 43): the large ln_gemm_gelu M=8192 K=4096 N=16384, whose table row was
# attempt 20's (call 78, 2026-11-26), re-measured
# with main at budget 8.
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns KGEN_TEMPLATES=$PWD/templates
K=build-dev-bin/kgen
DB=/tmp/t.sqlite
[ -f build-dev-bin/tune.sqlite ] && cp build-dev-bin/tune.sqlite $DB
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
timeout 400 python3 tools/bench/bench.py measure --kgen $K --out $OUT/a --db $DB \
  --workloads ln_gemm_gelu_M_8192 --budget 8 --tune-timeout 260 --no-max-autotune 2>&1 | tail -2
$K cache list --db $DB 2>&1 | cut -c1-230 > $OUT/winners.txt
echo "done at ${SECONDS}s"

#!/bin/bash
# call 217 (session 43): the plain linear M=8192 K=4096 N=16384, whose table row was still
# attempt 9's (2026-11-22, before the wgmma ping-pong, TMA and the epilogue work), re-measured
# with main at budget 8.
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns KGEN_TEMPLATES=$PWD/templates
K=build-dev-bin/kgen
DB=/tmp/t.sqlite
[ -f build-dev-bin/tune.sqlite ] && cp build-dev-bin/tune.sqlite $DB
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
timeout 420 python3 tools/bench/bench.py measure --kgen $K --out $OUT/a --db $DB \
  --workloads linear_M_8192 --budget 8 --tune-timeout 300 --no-max-autotune 2>&1 | tail -2
$K cache list --db $DB 2>&1 | cut -c1-230 > $OUT/winners.txt
echo "done at ${SECONDS}s"

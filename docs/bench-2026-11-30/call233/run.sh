#!/bin/bash
# call 233: the two short-K target rows (gated_tanh_residual, the small
# ln_gemm_gelu) with main as it is and bench.py's new default --settle 1
# (each contender timed at the clocks a sustained load holds), fresh DB,
# budget 8, no max-autotune, three rounds.
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns KGEN_TEMPLATES=$PWD/templates
K=build-dev-bin/kgen
timeout 380 python3 tools/bench/bench.py measure --kgen $K --out $OUT/a --db /tmp/t.sqlite \
  --workloads gated_tanh,ln_gemm_gelu_M_49152 --budget 8 --tune-timeout 150 \
  --no-max-autotune 2>&1 | tail -4
rm -rf $OUT/a/*/
echo "done at ${SECONDS}s"

#!/bin/bash
# call 64: why the large ln_gemm_gelu's forward (2.107 ms) is 0.43 ms over its kernels' tuned medians: per-kernel profile with and without PDL (call 63's DB, no retuning)
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw --format=csv,noheader
cp .devdb/tune63.sqlite /tmp/tune.sqlite
timeout 200 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/tune.sqlite --workloads ln_gemm_gelu_M_8192,linear_M_8192 --budget 6 --tune-timeout 150 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -2
for d in /tmp/a/ln_gemm_gelu_M_8192* /tmp/a/linear_M_8192*; do for pdl in 1 0; do echo "== $d PDL=$pdl"; KGRT_PDL=$pdl timeout 80 python3 tools/bench/prof.py $d 2>&1 | grep -E "sum of|do_bench|k[0-9]+_" | head -6; done; done | tee $OUT/prof.txt
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,clocks_throttle_reasons.active --format=csv,noheader | tee -a $OUT/prof.txt
cp /tmp/a/*.json $OUT/ 2>/dev/null

#!/bin/bash
# call 68: the staged LayerNorm ranked by its write runs; encoder f16 + f32 (call 66's DB: the GEMMs keep their winners), then the small ln_gemm_gelu and gated with the persistent GEMM launched plainly
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
cp .devdb/tune66.sqlite /tmp/tune.sqlite
timeout 200 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/tune.sqlite --workloads encoder_layer_default,encoder_layer_B_1 --budget 10 --tune-timeout 90 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -3
timeout 300 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/tune.sqlite --workloads gated_tanh,ln_gemm_gelu_M_49152 --budget 8 --tune-timeout 120 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -3
d=/tmp/a/ln_gemm_gelu_M_49152_K_256_N_1024_f16; [ -d $d ] && KGRT_PDL=0 timeout 40 python3 tools/bench/prof.py $d 2>&1 | grep -E "sum of|do_bench|k[0-9]+_" | head -6 | tee $OUT/prof.txt
cp /tmp/a/*.json $OUT/ 2>/dev/null; cp /tmp/tune.sqlite $OUT/ 2>/dev/null

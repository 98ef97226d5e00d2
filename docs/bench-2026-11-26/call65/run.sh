#!/bin/bash
# call 65: pp launched plainly (KG_NO_GRID_DEP); the large ln_gemm_gelu and the encoder beside PyTorch (fresh DB: every template's hash moved)
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
rm -f /tmp/tune.sqlite
timeout 330 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/tune.sqlite --workloads ln_gemm_gelu_M_8192 --budget 6 --tune-timeout 300 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -2
timeout 60 python3 tools/bench/prof.py /tmp/a/ln_gemm_gelu_M_8192_K_4096_N_16384_f16 2>&1 | grep -E "sum of|do_bench|k[0-9]+_" | head -6 | tee $OUT/prof.txt
timeout 170 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/tune.sqlite --workloads encoder_layer_default,encoder_layer_B_1 --budget 6 --tune-timeout 70 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -3
cp /tmp/a/*.json $OUT/ 2>/dev/null; cp /tmp/tune.sqlite $OUT/ 2>/dev/null

#!/bin/bash
# call 78: the large ln_gemm_gelu (M=8192 K=4096 N=16384) on the H200 beside PyTorch, fresh DB
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
rm -f /tmp/t8.sqlite
timeout 560 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a8 --db /tmp/t8.sqlite --workloads ln_gemm_gelu_M_8192 --budget 12 --tune-timeout 300 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -4
d=$(ls -d /tmp/a8/ln_gemm_gelu_M_8192* 2>/dev/null | head -1); [ -n "$d" ] && KGRT_PDL=0 timeout 30 python3 tools/bench/prof.py $d 2>&1 | grep -E "sum of|do_bench|k[0-9]+_" | head -6 | tee $OUT/prof.txt
cp /tmp/a8/*.json $OUT/ 2>/dev/null; cp /tmp/t8.sqlite $OUT/tune78.sqlite

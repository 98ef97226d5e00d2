#!/bin/bash
# call 98: the retiring consumers: tests/gpu_kernels.sh on the GPU, then gated_tanh_residual beside PyTorch (its fused ws configs were all wrong at STAGES=3 before)
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
$K devices | head -3
timeout 200 sh tests/gpu_kernels.sh $K . 2>&1 | tee $OUT/gpu_kernels.txt | cut -c1-200 | tail -14
rm -f /tmp/t.sqlite
timeout 330 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/t.sqlite --workloads gated_tanh --budget 8 --tune-timeout 280 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -3
for d in /tmp/a/*/; do KGRT_PDL=0 timeout 30 python3 tools/bench/prof.py $d 2>&1 | grep -E "sum of|do_bench|k[0-9]+_" | head -8; done | tee $OUT/prof.txt
$K cache list --db /tmp/t.sqlite 2>&1 | cut -c1-220 > $OUT/winners.txt
cp /tmp/a/*.json $OUT/ 2>/dev/null; cp /tmp/t.sqlite $OUT/tune98.sqlite

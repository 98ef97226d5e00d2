#!/bin/bash
# call 54: ln_gemm_gelu, WaveNet (the cost estimate's WM = 2 for the conv) and the fp32 WaveNet beside PyTorch
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
cp .devdb/tune.sqlite /tmp/tune.sqlite; chmod u+w /tmp/tune.sqlite
timeout 560 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/tune.sqlite --workloads ln_gemm_gelu_M_49152,wavenet_layer_default,wavenet_layer_B_1 --budget 6 --tune-timeout 200 --no-max-autotune 2>&1 | grep -v "^\s*$" | tail -6
python3 .devdb/trials.py /tmp/tune.sqlite 'gemm/%' '%' > $OUT/gemm_trials.txt
cp /tmp/tune.sqlite $OUT/
mkdir -p $OUT/a; cp /tmp/a/*.json $OUT/a/ 2>/dev/null
ls -la $OUT

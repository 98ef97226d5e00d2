#!/bin/bash
# call 46: the f16 rows with the register epilogue and the degree-7 GELU, beside PyTorch
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
cp .devdb/tune.sqlite /tmp/tune.sqlite; chmod u+w /tmp/tune.sqlite
timeout 570 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/tune.sqlite --workloads lynxnet2_block_default,convnext_block_default,ln_gemm_gelu_M_49152,gated_tanh,wavenet_layer_default --budget 4 --tune-timeout 90 --no-max-autotune 2>&1 | grep -v "^\s*$" | tail -8
python3 .devdb/trials.py /tmp/tune.sqlite 'gemm/%' '%' > $OUT/gemm_trials.txt
cp /tmp/tune.sqlite $OUT/
mkdir -p $OUT/a; cp /tmp/a/*.json $OUT/a/ 2>/dev/null

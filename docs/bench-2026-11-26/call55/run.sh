#!/bin/bash
# call 55: the four fp32 inference blocks (B=1, T=861) beside PyTorch, tuned at budget 24
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
cp .devdb/tune.sqlite /tmp/tune.sqlite; chmod u+w /tmp/tune.sqlite
timeout 570 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/tune.sqlite --workloads wavenet_layer_B_1,lynxnet2_block_B_1,convnext_block_B_1,encoder_layer_B_1 --budget 24 --tune-timeout 150 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v Warn | tail -8
python3 .devdb/trials.py /tmp/tune.sqlite 'gemm/%' '%' | grep "f32\[1," > $OUT/gemm_trials_f32.txt
cp /tmp/tune.sqlite $OUT/
mkdir -p $OUT/a; cp /tmp/a/*.json $OUT/a/ 2>/dev/null
ls -la $OUT

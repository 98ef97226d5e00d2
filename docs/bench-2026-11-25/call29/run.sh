#!/bin/bash
# device call 29: elementwise VEC=8 and gated_tanh_residual unfused (checks on the GPU),
# then WaveNet, gated_tanh, LYNXNet2, ConvNeXt f16 beside PyTorch
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
cp .devdb/tune.sqlite /tmp/tune.sqlite
{
$K check tests/kernels/elementwise_vec.pat --arch sm_90 --configs 6 --where VEC=8
$K check tests/kernels/elementwise_vec.pat --arch sm_90 --configs 3 --where VEC=8 --dim B=5 --dim C=16 --dim T=136
$K check examples/wavenet_layer.pat --kernel k2_elementwise --arch sm_90 --configs 6 --where VEC=8
$K check examples/wavenet_layer.pat --kernel k2_elementwise --arch sm_90 --configs 3 --where VEC=8 --dtype DT=bf16 --dim T=64
$K check examples/wavenet_layer.pat --unfuse all --arch sm_90 --configs 2 --dim B=2 --dim T=96
$K check tools/bench/gated_tanh_residual.pat --unfuse all --arch sm_90 --configs 3 --dim B=2 --dim T=200
} 2>&1 | tee $OUT/check.txt | grep -v "^k[0-9].* ok " | tail -12
python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/tune.sqlite --workloads gated_tanh,wavenet_layer_default,lynxnet2_block_default,convnext_block_default --budget 4 --tune-timeout 100 --no-max-autotune 2>&1 | grep -v "^\s*$" | tail -4
cp /tmp/tune.sqlite $OUT/
mkdir -p $OUT/a; cp /tmp/a/*.json $OUT/a/
python3 .devdb/trials.py /tmp/tune.sqlite 'elementwise%' '%' > $OUT/ew_trials.txt

#!/bin/bash
# device call 30: gated_tanh_residual optional, the unfused plan's skip written by an
# elementwise kernel (check on the GPU), then gated_tanh and WaveNet f16 beside PyTorch
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
cp .devdb/tune.sqlite /tmp/tune.sqlite
{
$K check tools/bench/gated_tanh_residual.pat --unfuse all --kernel k3_elementwise --arch sm_90 --configs 4
$K check examples/wavenet_layer.pat --unfuse all --kernel k8_elementwise --arch sm_90 --configs 3 --dim B=2 --dim T=96
} 2>&1 | tee $OUT/check.txt | tail -3
python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/tune.sqlite --workloads gated_tanh,wavenet_layer_default --budget 4 --tune-timeout 60 --no-max-autotune 2>&1 | grep -v "^\s*$" | tail -3
cp /tmp/tune.sqlite $OUT/
mkdir -p $OUT/a; cp /tmp/a/*.json $OUT/a/

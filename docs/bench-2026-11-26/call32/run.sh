#!/bin/bash
# device call 32: load=tma (TMA copies through tensor maps) checked on the GPU, then ConvNeXt beside PyTorch
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
rm -f /tmp/tune.sqlite
W="--arch sm_90 --configs 3 --where load=tma"
{
$K check tests/kernels/gemm_linear_f16.pat $W
$K check tests/kernels/gemm_linear_bf16.pat $W
$K check tests/kernels/gemm_matmul_f16.pat $W
$K check tests/kernels/gemm_glu_f16.pat $W
$K check tests/kernels/gemm_gated_f16.pat $W
$K check tests/kernels/gemm_ln_gelu_f16.pat $W
$K check tests/kernels/gemm_conv_f16.pat $W
$K check tests/kernels/gemm_sizes_fused.pat $W
$K check tools/bench/ln_gemm_gelu.pat --dim M=300 --dim K=520 --dim N=1024 --where LNC=2 $W
$K check tools/bench/ln_gemm_gelu.pat --dim M=300 --dim K=136 --dim N=328 --unfuse all --kernel k1_gemm_gelu $W
$K check examples/lynxnet2_block.pat --dim B=2 --dim T=96 --dim C=72 $W
$K check examples/convnext_block.pat --dim B=2 --dim T=100 --unfuse all $W
$K check examples/wavenet_layer.pat --dim B=2 --dim C=64 --dim H=32 --dim T=96 $W
} 2>&1 | tee $OUT/check.txt | grep -E " on sm_90|FAIL|error|wrong" | head -60
timeout 420 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/tune.sqlite --workloads convnext_block_default,lynxnet2_block_default --budget 4 --tune-timeout 150 --no-max-autotune 2>&1 | grep -v "^\s*$" | tail -4
python3 .devdb/trials.py /tmp/tune.sqlite 'gemm/%' '%' > $OUT/gemm_trials.txt
cp /tmp/tune.sqlite $OUT/
mkdir -p $OUT/a; cp /tmp/a/*.json $OUT/a/ 2>/dev/null

#!/bin/bash
# device call 33: load=mcast (TMA multicast in 2-block clusters) and load=tma checked on the GPU,
# then ConvNeXt and LYNXNet2 beside PyTorch
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
rm -f /tmp/tune.sqlite
{
for L in mcast tma; do
W="--arch sm_90 --configs 2 --where load=$L"
$K check tests/kernels/gemm_linear_f16.pat $W
$K check tests/kernels/gemm_linear_bf16.pat $W
$K check tests/kernels/gemm_matmul_f16.pat $W
$K check tests/kernels/gemm_glu_f16.pat $W
$K check tools/bench/ln_gemm_gelu.pat --dim M=300 --dim K=136 --dim N=328 --unfuse all --kernel k1_gemm_gelu $W
$K check tools/bench/ln_gemm_gelu.pat --dim M=1000 --dim K=520 --dim N=1000 --unfuse all --kernel k1_gemm_gelu $W
$K check examples/lynxnet2_block.pat --dim B=2 --dim T=96 --dim C=72 $W
$K check examples/convnext_block.pat --dim B=2 --dim T=100 --unfuse all $W
done
} 2>&1 | tee $OUT/check.txt | grep -E " on sm_90|wrong|error:" | head -40
timeout 440 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/tune.sqlite --workloads convnext_block_default,lynxnet2_block_default --budget 6 --tune-timeout 200 --no-max-autotune 2>&1 | grep -v "^\s*$" | tail -4
python3 .devdb/trials.py /tmp/tune.sqlite 'gemm/%' '%' > $OUT/gemm_trials.txt
cp /tmp/tune.sqlite $OUT/
mkdir -p $OUT/a; cp /tmp/a/*.json $OUT/a/ 2>/dev/null

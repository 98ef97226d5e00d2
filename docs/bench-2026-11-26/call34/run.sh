#!/bin/bash
# device call 34: load=mcast with one release a warp, checked on the GPU; the big GEMMs tuned
# over load=tma and load=mcast; then ConvNeXt and LYNXNet2 beside PyTorch
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
cp .devdb/tune.sqlite /tmp/tune.sqlite; chmod u+w /tmp/tune.sqlite
{
W="--arch sm_90 --configs 2 --where load=mcast"
$K check tests/kernels/gemm_linear_bf16.pat $W
$K check tests/kernels/gemm_matmul_f16.pat $W
$K check tests/kernels/gemm_glu_f16.pat $W
$K check tools/bench/ln_gemm_gelu.pat --dim M=1000 --dim K=520 --dim N=1000 --unfuse all --kernel k1_gemm_gelu $W
$K check examples/lynxnet2_block.pat --dim B=2 --dim T=96 --dim C=72 $W
$K check examples/convnext_block.pat --dim B=2 --dim T=100 --unfuse all $W
} 2>&1 | tee $OUT/check.txt | grep -E " on sm_90|wrong|error:" | head -40
T="--arch sm_90 --db /tmp/tune.sqlite --time 40 --where path=wgmma"
{
for L in mcast tma; do
$K tune examples/convnext_block.pat $T --unfuse all --kernel k3_gemm_gelu --budget 6 --where load=$L
$K tune examples/lynxnet2_block.pat $T --kernel k4_gemm_glu --budget 6 --where load=$L
$K tune examples/lynxnet2_block.pat $T --kernel k6_linear_residual --budget 6 --where load=$L
done
} 2>&1 | grep -E "^k[0-9]|kernels in" | tee $OUT/tune.txt
python3 .devdb/trials.py /tmp/tune.sqlite 'gemm/%' '%' > $OUT/gemm_trials.txt
timeout 200 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/tune.sqlite --workloads convnext_block_default,lynxnet2_block_default --budget 6 --tune-timeout 100 --no-max-autotune 2>&1 | grep -v "^\s*$" | tail -4
cp /tmp/tune.sqlite $OUT/
mkdir -p $OUT/a; cp /tmp/a/*.json $OUT/a/ 2>/dev/null

#!/bin/bash
# call 44: the register epilogue (bias and GELU/GLU on the accumulators, a 16-bit tile): GPU checks, GEMM timings
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
{
W="--arch sm_90 --configs 4 --where path=wgmma"
for m in gemm_linear_f16 gemm_linear_bf16 gemm_glu_f16 gemm_glu_bf16 gemm_ln_gelu_f16 gemm_ln_gelu_bf16 gemm_matmul_f16 gemm_sizes; do
$K check tests/kernels/$m.pat $W
done
$K check tools/bench/ln_gemm_gelu.pat --dim M=1000 --dim K=520 --dim N=1000 --unfuse all --kernel k1_gemm_gelu $W
$K check tools/bench/ln_gemm_gelu.pat --dim M=333 --dim K=136 --dim N=200 --dtype DT=bf16 --unfuse all --kernel k1_gemm_gelu $W
$K check examples/lynxnet2_block.pat --dim B=2 --dim T=96 --dim C=72 $W --kernel k5_gemm_glu
$K check examples/lynxnet2_block.pat --dim B=2 --dim T=96 --dim C=72 $W --kernel k4_gemm_glu
$K check examples/convnext_block.pat --dim B=2 --dim T=100 --unfuse all $W --kernel k3_gemm_gelu
} 2>&1 | tee $OUT/check.txt | grep -E " on sm_90|wrong|error:" | head -40
rm -f /tmp/e.sqlite
T="--arch sm_90 --db /tmp/e.sqlite --time 100 --where path=wgmma --where load=tma --where sched=pp,ws --where BM=64,128 --where BN=128,256"
{
$K tune tools/bench/ln_gemm_gelu.pat --unfuse all --kernel k1_gemm_gelu --dim M=49152 --dim K=512 --dim N=2048 $T --budget 8
$K tune tools/bench/ln_gemm_gelu.pat --unfuse all --kernel k1_gemm_gelu --dim M=49152 --dim K=256 --dim N=1024 $T --budget 8
$K tune examples/lynxnet2_block.pat --kernel k5_gemm_glu $T --budget 6
$K tune tools/bench/linear.pat --dim M=49152 --dim K=512 --dim N=2048 $T --budget 6
} 2>&1 | grep -E "^k[0-9]|error" > $OUT/tune.txt
python3 .devdb/trials.py /tmp/e.sqlite 'gemm/%' '%' > $OUT/trials.txt
awk '{print $1, $6, $7, $9, $10, $11, $15, $(NF-1)}' $OUT/trials.txt | sed 's/#[0-9a-f]*//'

#!/bin/bash
# call 41: the staged epilogue reads all its runs first and runs GELU/GLU's activation a step of 8 at a time:
# GPU checks, the GEMMs of call 39 again, SASS of the new epilogue
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
{
W="--arch sm_90 --configs 3 --where path=wgmma"
$K check tests/kernels/gemm_glu_f16.pat $W
$K check tests/kernels/gemm_glu_bf16.pat $W
$K check tests/kernels/gemm_ln_gelu_f16.pat $W
$K check tests/kernels/gemm_ln_gelu_bf16.pat $W
$K check tests/kernels/gemm_linear_f16.pat $W
$K check tests/kernels/gemm_gated_f16.pat $W
$K check tools/bench/ln_gemm_gelu.pat --dim M=1000 --dim K=520 --dim N=1000 --unfuse all --kernel k1_gemm_gelu $W
$K check examples/lynxnet2_block.pat --dim B=2 --dim T=96 --dim C=72 $W --kernel k5_gemm_glu
$K check examples/lynxnet2_block.pat --dim B=2 --dim T=96 --dim C=72 $W --kernel k4_gemm_glu
$K check examples/convnext_block.pat --dim B=2 --dim T=100 --unfuse all $W --kernel k3_gemm_gelu
} 2>&1 | tee $OUT/check.txt | grep -E " on sm_90|wrong|error:" | head -40
(cuobjdump -sass .devdb/gelu_pp.cubin || nvdisasm .devdb/gelu_pp.cubin) > $OUT/gelu_pp.sass 2>&1
rm -f /tmp/e.sqlite
T="--arch sm_90 --db /tmp/e.sqlite --time 60 --where path=wgmma --where load=tma"
{
for C in "--where sched=pp --where BM=128 --where BN=128 --where STAGES=4" "--where sched=ws --where BM=128 --where BN=256 --where STAGES=3 --where WN=2"; do
$K tune tools/bench/linear.pat --dim M=49152 --dim K=512 --dim N=2048 $T $C --budget 2
$K tune tools/bench/ln_gemm_gelu.pat --unfuse all --kernel k1_gemm_gelu --dim M=49152 --dim K=512 --dim N=2048 $T $C --budget 2
$K tune tools/bench/ln_gemm_gelu.pat --unfuse all --kernel k1_gemm_gelu --dim M=49152 --dim K=256 --dim N=1024 $T $C --budget 2
$K tune examples/lynxnet2_block.pat --kernel k5_gemm_glu $T $C --budget 2
done
} 2>&1 | grep -E "^k[0-9]|error" > $OUT/tune.txt
python3 .devdb/trials.py /tmp/e.sqlite 'gemm/%' '%' > $OUT/trials.txt
cat $OUT/trials.txt

#!/bin/bash
# call 48: the register epilogue with residual adds and channel-first outputs: GPU checks, the residual GEMMs timed
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
{
W="--arch sm_90 --configs 4 --where path=wgmma"
for m in gemm_linear_f16 gemm_linear_bf16 gemm_conv_f16 gemm_conv_bf16 gemm_glu_f16 gemm_ln_gelu_f16 gemm_matmul_f16; do
$K check tests/kernels/$m.pat $W
done
$K check examples/wavenet_layer.pat --dim B=2 --dim C=64 --dim H=32 --dim T=96 $W
$K check examples/wavenet_layer.pat --dim B=2 --dim C=64 --dim H=32 --dim T=96 --dtype DT=bf16 $W
$K check examples/lynxnet2_block.pat --dim B=2 --dim T=96 --dim C=72 $W
$K check examples/convnext_block.pat --dim B=2 --dim T=96 --unfuse all $W
$K check examples/encoder_layer.pat $W
$K check tools/bench/gated_tanh_residual.pat --dim B=2 --dim C=64 --dim T=96 --unfuse all $W
} 2>&1 | tee $OUT/check.txt | grep -E " on sm_90|wrong|error:" | head -40
rm -f /tmp/e.sqlite
T="--arch sm_90 --db /tmp/e.sqlite --time 100 --where path=wgmma --where load=tma --where sched=pp,ws --where BM=128 --where BN=128,256"
{
$K tune examples/lynxnet2_block.pat --kernel k6_linear_residual $T --budget 6
$K tune examples/wavenet_layer.pat --kernel k4_conv1x1_residual $T --budget 6
$K tune examples/convnext_block.pat --unfuse all --kernel k4_linear_scale_residual $T --budget 6
$K tune tools/bench/gated_tanh_residual.pat --unfuse all --kernel k2_conv1d $T --budget 6
} 2>&1 | grep -E "^k[0-9]|error" > $OUT/tune.txt
python3 .devdb/trials.py /tmp/e.sqlite 'gemm/%' '%' > $OUT/trials.txt
awk '{print $1, $9, $10, $11, $15, $(NF-1)}' $OUT/trials.txt | sed 's/#[0-9a-f]*//'

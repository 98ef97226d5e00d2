#!/bin/bash
# device call L: checks of pp, fast transcendentals, glu's affine B rows, hoisted column vectors; then tunes
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
cp .devdb/tune.sqlite /tmp/tune.sqlite
{
for f in tests/kernels/elementwise_mix.pat tests/kernels/elementwise_shapes.pat tests/kernels/gemm_gated_bf16.pat tests/kernels/gemm_gated_f16.pat tests/kernels/gemm_glu_f16.pat tests/kernels/gemm_ln_gelu_bf16.pat tests/kernels/gemm_ln_gelu_f16.pat tests/kernels/gemm_sizes_fused.pat; do
  $K check $f --arch sm_90 --configs 4 -q
done
for dt in f16 bf16; do
  for S in "sched=pp" "sched=ws"; do W="--where path=wgmma --where $S"
  $K check tools/bench/ln_gemm_gelu.pat --arch sm_90 --configs 3 -q --dim M=4000 --dim K=192 --dim N=520 --dtype DT=$dt $W --unfuse all --kernel k1_gemm_gelu
  $K check examples/lynxnet2_block.pat --arch sm_90 --configs 3 -q --dim B=3 --dim T=256 --dim C=72 --dtype DT=$dt $W
  $K check examples/convnext_block.pat --arch sm_90 --configs 3 -q --dim B=4 --dim C=64 --dim F=136 --dim T=136 --dtype DT=$dt $W --unfuse all
  $K check examples/wavenet_layer.pat --arch sm_90 --configs 3 -q --dim B=3 --dim C=40 --dim H=16 --dim T=192 --dim DIL=2 --dtype DT=$dt $W
  done
  W="--where path=wgmma --where sched=sync"
  $K check examples/lynxnet2_block.pat --arch sm_90 --configs 3 -q --dim B=2 --dim T=100 --dim C=72 --dtype DT=$dt $W
  $K check examples/convnext_block.pat --arch sm_90 --configs 3 -q --dim B=3 --dim C=40 --dim F=96 --dim T=37 --dtype DT=$dt $W
done
$K check examples/encoder_layer.pat --arch sm_90 --configs 2 -q --dim B=2 --dim L=40 --dim C=96 --dim HD=48 --dim F=128
} 2>&1 | tee $OUT/check.txt | grep -v "^ok" | grep -v "passes its constraints" | grep -v " 0 wrong results" | tail -20
grep -c " 0 wrong results, 0 over" $OUT/check.txt
T="--arch sm_90 --db /tmp/tune.sqlite --where path=wgmma --budget ${1:-6} --time ${2:-60}"
{
$K tune tools/bench/ln_gemm_gelu.pat $T --unfuse all --kernel k1_gemm_gelu
$K tune examples/lynxnet2_block.pat $T --kernel k4_gemm_glu
$K tune examples/convnext_block.pat $T --unfuse all --kernel k3_gemm_gelu
$K tune examples/wavenet_layer.pat $T --kernel k4_conv1x1_residual
} 2>&1 | grep -E "^k[0-9]|kernels in" | tee $OUT/tune.txt
cp /tmp/tune.sqlite $OUT/

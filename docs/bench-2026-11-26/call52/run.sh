#!/bin/bash
# call 52: A along M by TMA (64-row panels): GPU checks, the 1x1 convs tuned; WaveNet and gated beside PyTorch
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
{
W="--arch sm_90 --configs 6 --where path=wgmma --where load=tma"
for m in gemm_conv_bf16 gemm_split_residual gemm_linear_f16 gemm_glu_f16 gemm_matmul_f16 gemm_linear_bf16; do
$K check tests/kernels/$m.pat $W
done
$K check examples/wavenet_layer.pat --dim B=2 --dim C=64 --dim H=32 --dim T=128 --unfuse all $W
$K check examples/wavenet_layer.pat --dim B=3 --dim C=64 --dim H=32 --dim T=192 --dtype DT=bf16 $W
$K check examples/lynxnet2_block.pat --dim B=2 --dim T=128 --dim C=72 $W
$K check examples/convnext_block.pat --dim B=2 --dim T=128 --unfuse all $W
$K check tools/bench/gated_tanh_residual.pat --dim B=2 --dim C=64 --dim T=192 --unfuse all $W
} 2>&1 | tee $OUT/check.txt | grep -E " on sm_90|wrong|error:" | head -40
rm -f /tmp/e.sqlite
T="--arch sm_90 --db /tmp/e.sqlite --time 100 --where path=wgmma --where load=tma --where sched=pp,ws --where BM=128 --where BN=128,256"
{
timeout 60 $K tune examples/wavenet_layer.pat --kernel k4_conv1x1_residual $T --budget 6
timeout 60 $K tune examples/wavenet_layer.pat --unfuse all --kernel k7_conv1x1_split_residual $T --budget 6
timeout 60 $K tune examples/lynxnet2_block.pat --kernel k4_gemm_glu $T --budget 6
} 2>&1 | grep -E "^k[0-9]|error" > $OUT/tune.txt
python3 .devdb/trials.py /tmp/e.sqlite 'gemm/%' '%' > $OUT/trials.txt
awk '{print $1, $5, $8, $10, $11, $15, $18, $19, $20}' $OUT/trials.txt | sed 's/#[0-9a-f]*//'
cp .devdb/tune.sqlite /tmp/tune.sqlite; chmod u+w /tmp/tune.sqlite
timeout 300 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/tune.sqlite --workloads wavenet_layer_default,gated_tanh --budget 6 --tune-timeout 280 --no-max-autotune 2>&1 | grep -v "^\s*$" | tail -4
python3 .devdb/trials.py /tmp/tune.sqlite 'gemm/%' '%' > $OUT/gemm_trials.txt
cp /tmp/tune.sqlite $OUT/
mkdir -p $OUT/a; cp /tmp/a/*.json $OUT/a/ 2>/dev/null
ls -la $OUT

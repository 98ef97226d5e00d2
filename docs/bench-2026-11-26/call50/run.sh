#!/bin/bash
# call 50: the conv pass with constant shifts (a switch on the first row's tap): GPU checks, its tune; gated and WaveNet beside PyTorch
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
{
W="--arch sm_90 --configs 8 --where path=wgmma --where prologue=smem"
for d in 1 2 12; do
$K check examples/wavenet_layer.pat --kernel k3_conv1d --dim B=2 --dim C=64 --dim H=32 --dim T=128 --dim DIL=$d $W
done
$K check examples/wavenet_layer.pat --kernel k3_conv1d --dim B=2 --dim C=64 --dim H=32 --dim T=256 --dim DIL=4 --dtype DT=bf16 $W
$K check docs/bench-2026-11-26/call50/conv_ks.pat $W
$K check tests/kernels/gemm_conv_bf16.pat $W
$K check tests/kernels/gemm_gated_f16.pat --arch sm_90 --configs 6 --where path=wgmma
} 2>&1 | tee $OUT/check.txt | grep -E " on sm_90|wrong|error:" | head -40
rm -f /tmp/e.sqlite
timeout 150 $K tune examples/wavenet_layer.pat --kernel k3_conv1d --arch sm_90 --db /tmp/e.sqlite --time 100 --where path=wgmma --where prologue=smem --where BM=128 --where BN=128,256 --budget 8 2>&1 | grep -E "^k[0-9]|error" > $OUT/tune.txt
python3 .devdb/trials.py /tmp/e.sqlite 'gemm/%' '%' > $OUT/trials.txt
awk '{print $1, $9, $10, $11, $12, $15, $16, $(NF-1)}' $OUT/trials.txt | sed 's/#[0-9a-f]*//'
cp .devdb/tune.sqlite /tmp/tune.sqlite; chmod u+w /tmp/tune.sqlite
timeout 400 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/tune.sqlite --workloads gated_tanh,wavenet_layer_default --budget 5 --tune-timeout 240 --no-max-autotune 2>&1 | grep -v "^\s*$" | tail -8
python3 .devdb/trials.py /tmp/tune.sqlite 'gemm/%' '%' > $OUT/gemm_trials.txt
cp /tmp/tune.sqlite $OUT/
mkdir -p $OUT/a; cp /tmp/a/*.json $OUT/a/ 2>/dev/null
ls -la $OUT

#!/bin/bash
# call 51: the conv's raw rows by TMA (load=tma): GPU checks, the dilated conv tuned; WaveNet beside PyTorch
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
{
W="--arch sm_90 --configs 8 --where path=wgmma --where prologue=smem --where load=tma"
for d in 1 2 12; do
$K check examples/wavenet_layer.pat --kernel k3_conv1d --dim B=2 --dim C=64 --dim H=32 --dim T=128 --dim DIL=$d $W
done
$K check examples/wavenet_layer.pat --kernel k3_conv1d --dim B=3 --dim C=64 --dim H=32 --dim T=256 --dim DIL=4 --dtype DT=bf16 $W
$K check docs/bench-2026-11-26/call50/conv_ks.pat $W
$K check docs/bench-2026-11-26/call50/conv_ks.pat --arch sm_90 --configs 4 --where path=wgmma --where prologue=smem --where load=cp
$K check tests/kernels/gemm_split_residual.pat --arch sm_90 --configs 6 --where path=wgmma
$K check examples/wavenet_layer.pat --dim B=2 --dim C=64 --dim H=32 --dim T=128 --unfuse all --arch sm_90 --configs 4 --where path=wgmma
} 2>&1 | tee $OUT/check.txt | grep -E " on sm_90|wrong|error:" | head -40
rm -f /tmp/e.sqlite
timeout 170 $K tune examples/wavenet_layer.pat --kernel k3_conv1d --arch sm_90 --db /tmp/e.sqlite --time 100 --where path=wgmma --where prologue=smem --where BM=128 --where BN=128,256 --where sched=ws,pp --budget 10 2>&1 | grep -E "^k[0-9]|error" > $OUT/tune.txt
python3 .devdb/trials.py /tmp/e.sqlite 'gemm/%' '%' > $OUT/trials.txt
awk '{print $5, $8, $10, $11, $15, $18, $19, $20}' $OUT/trials.txt | sed 's/#[0-9a-f]*//'
cp .devdb/tune.sqlite /tmp/tune.sqlite; chmod u+w /tmp/tune.sqlite
timeout 330 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/tune.sqlite --workloads wavenet_layer_default --budget 6 --tune-timeout 300 --no-max-autotune 2>&1 | grep -v "^\s*$" | tail -4
python3 .devdb/trials.py /tmp/tune.sqlite 'gemm/%' '%' > $OUT/gemm_trials.txt
cp /tmp/tune.sqlite $OUT/
mkdir -p $OUT/a; cp /tmp/a/*.json $OUT/a/ 2>/dev/null
ls -la $OUT

#!/bin/bash
# call 49: gated's split on the register epilogue (conv1x1_split_residual, the fused gated GEMM): GPU checks, tunes; Nsight Compute on the dilated conv
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
{
W="--arch sm_90 --configs 6 --where path=wgmma"
$K check examples/wavenet_layer.pat --dim B=2 --dim C=64 --dim H=32 --dim T=96 --unfuse all $W
$K check examples/wavenet_layer.pat --dim B=2 --dim C=64 --dim H=32 --dim T=96 --unfuse all --dtype DT=bf16 $W
$K check examples/wavenet_layer.pat --dim B=2 --dim C=64 --dim H=32 --dim T=100 --unfuse all $W
$K check examples/wavenet_layer.pat --dim B=2 --dim C=64 --dim H=32 --dim T=96 $W
$K check tools/bench/gated_tanh_residual.pat --dim B=2 --dim C=64 --dim T=96 $W
$K check tools/bench/gated_tanh_residual.pat --dim B=2 --dim C=256 --dim T=96 --unfuse all $W
} 2>&1 | tee $OUT/check.txt | grep -E " on sm_90|wrong|error:" | head -40
rm -f /tmp/e.sqlite
T="--arch sm_90 --db /tmp/e.sqlite --time 100 --where path=wgmma --where load=tma --where sched=pp,ws --where BM=128 --where BN=128,256"
{
$K tune examples/wavenet_layer.pat --unfuse all --kernel k7_conv1x1_split_residual $T --budget 6
$K tune tools/bench/gated_tanh_residual.pat --kernel k0_gated_tanh_residual $T --budget 4
} 2>&1 | grep -E "^k[0-9]|error" > $OUT/tune.txt
python3 .devdb/trials.py /tmp/e.sqlite 'gemm/%' '%' > $OUT/trials.txt
awk '{print $1, $9, $10, $11, $15, $(NF-1)}' $OUT/trials.txt | sed 's/#[0-9a-f]*//'
D="--arch sm_90 --configs 1 --where path=wgmma --where BM=128 --where BN=256 --where STAGES=4"
for v in "sync cp" "ws tma"; do set -- $v
timeout 200 ncu --clock-control none --target-processes application-only -k regex:'^k3' -c 1 --set full --import-source yes -o /tmp/d$1 -f \
  $K check examples/wavenet_layer.pat --kernel k3_conv1d $D --where sched=$1 --where load=$2 2>&1 | tail -2
ncu -i /tmp/d$1.ncu-rep --page details > $OUT/dil_$1.txt 2>&1
done
ncu -i /tmp/dws.ncu-rep --page source --csv --print-source sass > $OUT/dil_ws_sass.csv 2>&1
ls -la $OUT

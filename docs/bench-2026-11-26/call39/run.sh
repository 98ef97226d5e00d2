#!/bin/bash
# call 39: where the GELU GEMM's time goes: plain linear vs gemm_gelu at one config, K=512 vs 2048
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
python3 .devdb/ref.py 2>&1 | tee $OUT/ref.txt
rm -f /tmp/e.sqlite
T="--arch sm_90 --db /tmp/e.sqlite --time 60 --where path=wgmma --where load=tma"
{
for C in "--where sched=pp --where BM=128 --where BN=128 --where STAGES=4" "--where sched=ws --where BM=128 --where BN=256 --where STAGES=3 --where WN=2"; do
for KK in 512 2048; do
NN=$((2048 * 512 / KK))
$K tune tools/bench/linear.pat --dim M=49152 --dim K=$KK --dim N=$NN $T $C --budget 2
$K tune tools/bench/ln_gemm_gelu.pat --unfuse all --kernel k1_gemm_gelu --dim M=49152 --dim K=$KK --dim N=$NN $T $C --budget 2
done
done
} 2>&1 | grep -E "^k[0-9]|error" | tee $OUT/tune.txt
python3 .devdb/trials.py /tmp/e.sqlite 'gemm/%' '%' > $OUT/trials.txt
cat $OUT/trials.txt

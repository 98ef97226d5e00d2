#!/bin/bash
# device call 38: load=mcast with release.cta arrives: checked on the GPU, stalls against load=tma,
# and the big GEMMs tuned over load=tma and load=mcast
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
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
A="examples/convnext_block.pat --unfuse all --kernel k3_gemm_gelu --arch sm_90 --configs 1 --where BM=128 --where BN=128 --where STAGES=4 --where sched=pp"
timeout 100 ncu --clock-control none --target-processes application-only -k regex:'^k3' -c 1 \
    --metrics regex:'smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio',sm__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum \
    $K check $A --where load=mcast > $OUT/stall_mcast.txt 2>&1
grep -E "stalled|duration|throughput" $OUT/stall_mcast.txt | awk '$NF+0 > 0.3 || /duration|throughput/' | head -12
T="--arch sm_90 --db /tmp/tune.sqlite --time 40 --where path=wgmma"
{
for L in mcast tma; do
$K tune examples/convnext_block.pat $T --unfuse all --kernel k3_gemm_gelu --budget 6 --where load=$L
$K tune examples/lynxnet2_block.pat $T --kernel k6_linear_residual --budget 6 --where load=$L
done
} 2>&1 | grep -E "^k[0-9]" | tee $OUT/tune.txt
python3 .devdb/trials.py /tmp/tune.sqlite 'gemm/%' '%' > $OUT/gemm_trials.txt

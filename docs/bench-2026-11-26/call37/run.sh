#!/bin/bash
# device call 37: the stall reasons of load=mcast against load=tma (ConvNeXt's GELU GEMM, pp 128x128)
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
A="examples/convnext_block.pat --unfuse all --kernel k3_gemm_gelu --arch sm_90 --configs 1 --where BM=128 --where BN=128 --where STAGES=4 --where sched=pp"
for l in tma mcast; do
  timeout 200 ncu --clock-control none --target-processes application-only -k regex:'^k3' -c 1 \
    --metrics regex:'smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio',smsp__inst_executed.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum \
    $K check $A --where load=$l > $OUT/stall_$l.txt 2>&1
  echo "== $l"; grep -E "stalled|inst_executed|duration|throughput" $OUT/stall_$l.txt | awk '$NF+0 > 0.05 || /duration|inst_exec|throughput/' | head -30
done

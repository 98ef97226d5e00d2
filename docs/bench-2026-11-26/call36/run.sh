#!/bin/bash
# device call 36: why load=mcast is slower: Nsight Compute on ConvNeXt's GELU GEMM, tma against mcast
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
A="examples/convnext_block.pat --unfuse all --kernel k3_gemm_gelu --arch sm_90 --configs 1 --where BM=128 --where BN=128 --where STAGES=4"
for v in "tma pp" "mcast pp" "mcast ws"; do
  set -- $v
  extra=""; [ $2 = ws ] && extra="--where BN=256 --where WN=2"
  [ $2 = ws ] && A="examples/convnext_block.pat --unfuse all --kernel k3_gemm_gelu --arch sm_90 --configs 1 --where BM=128 --where STAGES=4"
  timeout 150 ncu --clock-control none --target-processes application-only -k regex:'^k3' -c 2 \
    --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
    $K check $A --where load=$1 --where sched=$2 $extra > $OUT/ncu_$1_$2.txt 2>&1
  grep -E "Duration|Cluster|Waves|Achieved Occupancy|Compute \(SM\) Throughput|Memory Throughput|Grid Size|Block Limit|Theoretical Occ|Stall|ok |FAIL" $OUT/ncu_$1_$2.txt | head -40
done

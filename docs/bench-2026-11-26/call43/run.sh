#!/bin/bash
# call 43: Nsight Compute of the K=256 GELU GEMM (pp 64x128 and ws 128x256, tma) with per-SASS samples
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
for C in "pp 64 128 4 1" "ws 128 256 3 2"; do
set -- $C
W="--arch sm_90 --configs 1 --where path=wgmma --where load=tma --where sched=$1 --where BM=$2 --where BN=$3 --where STAGES=$4 --where WN=$5"
timeout 200 ncu --clock-control none --target-processes application-only -k regex:'^k1' -c 1 --set full --import-source yes -o /tmp/g$1 -f \
  $K check tools/bench/ln_gemm_gelu.pat --unfuse all --kernel k1_gemm_gelu --dim M=49152 --dim K=256 --dim N=1024 $W 2>&1 | tail -2
ncu -i /tmp/g$1.ncu-rep --page details > $OUT/g$1_details.txt 2>&1
ncu -i /tmp/g$1.ncu-rep --page source --csv --print-source sass > $OUT/g$1_sass.csv 2>&1
done
ls -la $OUT

#!/bin/bash
# call 40: Nsight Compute, full set and per-SASS stalls, of the GELU GEMM (pp 128x128, tma) at 49152x2048x512
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
W="--arch sm_90 --configs 1 --where path=wgmma --where load=tma --where sched=pp --where BM=128 --where BN=128 --where STAGES=4"
timeout 200 ncu --clock-control none --target-processes application-only -k regex:'^k1' -c 1 --set full --import-source yes -o /tmp/gelu -f \
  $K check tools/bench/ln_gemm_gelu.pat --unfuse all --kernel k1_gemm_gelu --dim M=49152 --dim K=512 --dim N=2048 $W 2>&1 | tail -3
ncu -i /tmp/gelu.ncu-rep --page details > $OUT/gelu_details.txt 2>&1
ncu -i /tmp/gelu.ncu-rep --page source --csv --print-source sass > $OUT/gelu_sass.csv 2>&1
timeout 200 ncu --clock-control none --target-processes application-only -k regex:'^k0' -c 1 --set full -o /tmp/lin -f \
  $K check tools/bench/linear.pat --dim M=49152 --dim K=512 --dim N=2048 $W 2>&1 | tail -3
ncu -i /tmp/lin.ncu-rep --page details > $OUT/lin_details.txt 2>&1
ncu -i /tmp/lin.ncu-rep --page source --csv --print-source sass > $OUT/lin_sass.csv 2>&1
ls -la $OUT

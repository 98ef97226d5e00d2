#!/bin/bash
export KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns KGEN_INCLUDE=$PWD/include
K=build-dev-bin/kgen
W=/tmp/bw4; mkdir -p $W $OUT/j
for d in "--dim M=300 --dim K=256 --dim N=328" "--dim M=130 --dim K=1000 --dim N=200" "--dim M=300 --dim K=256 --dim N=328 --dtype DT=bf16"; do
  $K check tools/bench/ln_gemm_gelu.pat $d --arch sm_90 --where ln=fold --where path=wgmma --configs 8 2>&1 | grep -E "FAIL|candidates ok|error" >> $OUT/check.txt
done
for c in "--where WM=2 --where WN=1" "--where WM=1 --where WN=2"; do
  timeout 60 $K tune tools/bench/ln_gemm_gelu.pat --arch sm_90 --db /tmp/p.sqlite --force --budget 1 --json --where path=wgmma --where ln=fold --where BM=128 --where BN=128 --where STAGES=3 --where MINB=2 $c >> $OUT/pin.txt 2>&1
done
timeout 200 python3 tools/bench/bench.py measure --kgen $K --out $W --db /tmp/bench.sqlite --workloads ln_gemm_gelu_M_49152 --budget 32 --no-max-autotune > $OUT/log1.txt 2>&1
cp $W/*.json $OUT/j/

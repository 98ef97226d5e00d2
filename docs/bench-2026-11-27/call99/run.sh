#!/bin/bash
# call 99: conv1x1_split_residual under sched=pp gave wrong results in call 98's tuning (BM=128, STAGES=4): where, and at which sizes
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=.devdb/dbgbin/kgen
G="tools/bench/gated_tanh_residual.pat --unfuse all --kernel k2_conv1x1_split_residual --arch sm_90 --where sched=pp"
c() { timeout 100 $K check "$@" 2>&1 | grep -E "ok |FAIL|wrong|error|^map" | cut -c1-300 | head -${N:-12}; }
{
echo "== B=32 tma 128x128 S4"; c $G --where load=tma --where BM=128 --where BN=128 --where STAGES=4 --configs 1
echo "== B=2 tma 128x128 S4 (map)"; N=30 KGEN_DEBUG_MAP=1 c $G --dim B=2 --where load=tma --where BM=128 --where BN=128 --where STAGES=4 --configs 1
echo "== B=2 tma 128x128 S3"; c $G --dim B=2 --where load=tma --where BM=128 --where BN=128 --where STAGES=3 --configs 1
echo "== B=2 tma 64x128 S4"; c $G --dim B=2 --where load=tma --where BM=64 --where BN=128 --where STAGES=4 --configs 1
echo "== B=2 tma 128x256 S4"; c $G --dim B=2 --where load=tma --where BM=128 --where BN=256 --where STAGES=4 --configs 1
echo "== B=2 cp 128x128 S4"; c $G --dim B=2 --where load=cp --where BM=128 --where BN=128 --where STAGES=4 --configs 1
echo "== test model pp"; c tests/kernels/gemm_split_residual.pat --arch sm_90 --where sched=pp --configs 6
echo "== ln_gemm_gelu pp 128x128 S4"; c tools/bench/ln_gemm_gelu.pat --dim M=3072 --arch sm_90 --where sched=pp --where BM=128 --where BN=128 --where STAGES=4 --configs 2
} 2>&1 | tee $OUT/check.txt

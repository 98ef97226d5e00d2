#!/bin/bash
# call 219 (session 43): is the short-K GEMM held by its epilogue?  The small
# ln_gemm_gelu's GEMM (M=49152 K=256 N=1024, GELU epilogue) against the plain linear of
# the same shape (bias only), each pinned at pp 128x128 STAGES=5, by panel and by tma:
# the tuner's medians.
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns KGEN_TEMPLATES=$PWD/templates
K=$PWD/build-dev-bin/kgen
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
pin="--where path=wgmma --where sched=pp --where BM=128 --where BN=128 --where STAGES=5"
for load in panel tma; do
  rm -f /tmp/a.db /tmp/b.db
  timeout 60 $K tune tools/bench/linear.pat --dim M=49152 --dim K=256 --dim N=1024 --kernel k0_linear \
    --arch sm_90 --db /tmp/a.db $pin --where load=$load --budget 1 -q >/dev/null 2>&1
  echo "linear K=256 $load: $($K cache list --db /tmp/a.db | sed -n 2p | awk '{print $5}')" | tee -a $OUT/pins.txt
  timeout 60 $K tune tools/bench/ln_gemm_gelu.pat --unfuse k0_ln_gemm_gelu --kernel k1_gemm_gelu \
    --arch sm_90 --db /tmp/b.db $pin --where load=$load --budget 1 -q >/dev/null 2>&1
  echo "gemm_gelu K=256 $load: $($K cache list --db /tmp/b.db | sed -n 2p | awk '{print $5}')" | tee -a $OUT/pins.txt
done
echo "done at ${SECONDS}s"

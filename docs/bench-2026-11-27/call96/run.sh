#!/bin/bash
# call 96: the STAGES=3 conv fault: release with MMA q in flight but no MMA overlap (v29), clock64 spins after the consumer full wait (v27b) and the producer empty wait (v28b)
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns
K=.devdb/dbgbin/kgen
D="--dim B=2 --dim C=256 --dim H=64 --dim T=128"
W="--kernel k3_conv1d --arch sm_90 --where load=tma --where sched=ws --where prologue=smem"
c() { timeout 60 $K check examples/wavenet_layer.pat $D $W "$@" 2>&1 | grep -E "ok |FAIL|wrong|rel-L2|error|^map" | cut -c1-330 | head -24; }
{
for v in v29 v27b v28b; do
  export KGEN_TEMPLATES=$PWD/.devdb/tpl_$v
  echo "== $v S3 64x64"; c --where STAGES=3 --where BM=64 --where BN=64 --where WM=1 --configs 2
  echo "== $v S3 128x128"; c --where STAGES=3 --where BM=128 --where BN=128 --configs 2
done
} 2>&1 | tee $OUT/check.txt

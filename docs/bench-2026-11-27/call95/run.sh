#!/bin/bash
# call 95: the STAGES=3 conv fault: a 1 KiB guard after each A stage (v24), a pause after the consumer's full wait (v27), a pause after the producer's empty wait (v28)
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns
K=.devdb/dbgbin/kgen
D="--dim B=2 --dim C=256 --dim H=64 --dim T=128"
W="--kernel k3_conv1d --arch sm_90 --where load=tma --where sched=ws --where prologue=smem"
c() { timeout 60 $K check examples/wavenet_layer.pat $D $W "$@" 2>&1 | grep -E "ok |FAIL|wrong|rel-L2|error|^map" | cut -c1-330 | head -24; }
{
for v in v24 v27 v28; do
  export KGEN_TEMPLATES=$PWD/.devdb/tpl_$v
  echo "== $v S3 64x64"; c --where STAGES=3 --where BM=64 --where BN=64 --where WM=1 --configs 2
  echo "== $v S3 128x128"; c --where STAGES=3 --where BM=128 --where BN=128 --configs 2
done
} 2>&1 | tee $OUT/check.txt

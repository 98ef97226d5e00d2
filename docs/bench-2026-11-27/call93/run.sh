#!/bin/bash
# call 93: the dilated conv's STAGES=3 fault (call 92: right under racecheck's serialisation, so a race): one change at a time
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
D="--dim B=2 --dim C=256 --dim H=64 --dim T=128"
W="--kernel k3_conv1d --arch sm_90 --where load=tma --where sched=ws --where prologue=smem"
c() { timeout 60 $K check examples/wavenet_layer.pat $D $W "$@" 2>&1 | grep -E "ok |FAIL|wrong|rel-L2|error" | cut -c1-330 | head -6; }
{
for v in v1 v2 v3 v7; do
  export KGEN_TEMPLATES=$PWD/.devdb/tpl_$v
  echo "== $v S3 64x64"; c --where STAGES=3 --where BM=64 --where BN=64 --where WM=1 --configs 2
  echo "== $v S3 128x128"; c --where STAGES=3 --where BM=128 --where BN=128 --configs 2
done
} 2>&1 | tee $OUT/check.txt
export KGEN_TEMPLATES=$PWD/templates
echo "== synccheck S4 (passes)"
timeout 100 compute-sanitizer --tool synccheck --print-limit 4 $K check examples/wavenet_layer.pat $D $W --where STAGES=4 --where BM=64 --where BN=64 --where WM=1 --configs 1 2>&1 | grep -E "Barrier|at kg|by thread|Device Frame|SUMMARY| ok |FAIL" | head -12

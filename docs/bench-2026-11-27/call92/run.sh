#!/bin/bash
# call 92: the dilated conv's wrong results under load=tma sched=ws prologue=smem: where the errors lie, LA=1 at STAGES=4, and compute-sanitizer
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns KGEN_TEMPLATES=$PWD/templates
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
D="--dim B=2 --dim C=256 --dim H=64 --dim T=128"
W="--kernel k3_conv1d --arch sm_90 --where load=tma --where sched=ws --where prologue=smem"
c() { timeout 60 $K check examples/wavenet_layer.pat $D $W "$@" 2>&1 | grep -E "ok |FAIL|wrong|rel-L2|error" | cut -c1-400 | head -6; }
{
echo "== S3 64x64"; c --where STAGES=3 --where BM=64 --where BN=64 --where WM=1 --configs 2
echo "== S4 64x64"; c --where STAGES=4 --where BM=64 --where BN=64 --where WM=1 --configs 2
echo "== S3 128x128"; c --where STAGES=3 --where BM=128 --where BN=128 --configs 2
echo "== S4 64x128 MINB2"; c --where STAGES=4 --where BM=64 --where BN=128 --where MINB=2 --configs 2
echo "== LA1 S4 64x64"; KGEN_TEMPLATES=$PWD/.devdb/tpl_la1 c --where STAGES=4 --where BM=64 --where BN=64 --where WM=1 --configs 2
echo "== LA1 S5 64x64"; KGEN_TEMPLATES=$PWD/.devdb/tpl_la1 c --where STAGES=5 --where BM=64 --where BN=64 --where WM=1 --configs 2
echo "== S3 T=256 B=1"; timeout 60 $K check examples/wavenet_layer.pat --dim B=1 --dim C=256 --dim H=64 --dim T=256 $W --where STAGES=3 --where BM=64 --where BN=64 --where WM=1 --configs 1 2>&1 | grep -E "ok |FAIL|wrong|rel-L2" | cut -c1-400 | head -4
} 2>&1 | tee $OUT/check.txt
CS=$(which compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
echo "sanitizer: $CS"
if [ -n "$CS" ]; then
  for tool in memcheck racecheck synccheck; do
    echo "== $tool"
    timeout 150 $CS --tool $tool --print-limit 8 $K check examples/wavenet_layer.pat $D $W --where STAGES=3 --where BM=64 --where BN=64 --where WM=1 --configs 1 2>&1 | grep -v "^\s*$" | cut -c1-300 | head -40
  done 2>&1 | tee $OUT/san.txt
fi

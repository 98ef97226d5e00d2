#!/bin/bash
# call 91: the dilated conv's wrong results under load=tma, sched=ws (call 90): the same configs with the templates of e6dffca (before this session) and now, at full and at smaller dims
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
W="--kernel k3_conv1d --arch sm_90 --where load=tma --where sched=ws --where prologue=smem"
for tpl in .devdb/tpl_e6 templates; do
  export KGEN_TEMPLATES=$PWD/$tpl
  echo "== $tpl"
  timeout 100 $K check examples/wavenet_layer.pat $W --where STAGES=3 --where BM=128 --where BN=128 --configs 2 2>&1 | grep -E " ok | FAIL|wrong|rel-L2" | cut -c1-200 | head -4
  timeout 100 $K check examples/wavenet_layer.pat $W --where STAGES=4 --where WM=2 --configs 1 2>&1 | grep -E " ok | FAIL|wrong|rel-L2" | cut -c1-200 | head -4
  timeout 60 $K check examples/wavenet_layer.pat --dim B=2 --dim C=256 --dim H=64 --dim T=128 $W --where STAGES=3 --configs 3 2>&1 | grep -E " ok | FAIL|wrong|rel-L2" | cut -c1-200 | head -6
  timeout 60 $K check examples/wavenet_layer.pat --dim B=2 --dim C=64 --dim H=32 --dim T=96 $W --where STAGES=3 --configs 3 2>&1 | grep -E " ok | FAIL|wrong|rel-L2" | cut -c1-200 | head -6
done 2>&1 | tee $OUT/check.txt

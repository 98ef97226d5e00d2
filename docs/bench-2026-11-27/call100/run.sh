#!/bin/bash
# call 100: pp conv1x1_split_residual at BM=128: the consumers retiring each tile's MMAs (vA), or their last before the other's turn (vB)
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns
K=.devdb/dbgbin/kgen
G="tools/bench/gated_tanh_residual.pat --unfuse all --kernel k2_conv1x1_split_residual --arch sm_90 --dim B=2"
c() { timeout 100 $K check "$@" 2>&1 | grep -E "ok |FAIL|wrong|error|^map" | cut -c1-300 | head -${N:-12}; }
{
for v in vA vB; do
  export KGEN_TEMPLATES=$PWD/.devdb/tpl_$v
  echo "== $v tma 128x128 S4"; c $G --where sched=pp --where load=tma --where BM=128 --where BN=128 --where STAGES=4 --configs 1
  echo "== $v cp 128x128 S3"; c $G --where sched=pp --where load=cp --where BM=128 --where BN=128 --where STAGES=3 --configs 1
done
export KGEN_TEMPLATES=$PWD/templates
echo "== wavenet k4 conv1x1_residual pp 128"; c examples/wavenet_layer.pat --dim B=2 --arch sm_90 --kernel k4_conv1x1_residual --where sched=pp --where BM=128 --configs 3
echo "== wavenet k4 conv1x1_residual ws 128"; c examples/wavenet_layer.pat --dim B=2 --arch sm_90 --kernel k4_conv1x1_residual --where sched=ws --where BM=128 --configs 3
echo "== split ws 128x128"; c $G --where sched=ws --where BM=128 --where BN=128 --configs 3
} 2>&1 | tee $OUT/check.txt

#!/bin/bash
# call 97: the fix (the consumers retire each tile's MMAs before the next where the producer stores A) against HEAD's templates, over every path whose A stages are stored by threads, at STAGES=3 and 4
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns
K=.devdb/dbgbin/kgen
WD="examples/wavenet_layer.pat --dim B=2 --dim C=512 --dim H=64 --dim T=128 --arch sm_90 --where path=wgmma"
CD="tests/kernels/gemm_ln_gelu_f16.pat --dim M=256 --dim K=768 --arch sm_90"
c() { timeout 90 $K check "$@" 2>&1 | grep -E "ok |FAIL|wrong|error" | cut -c1-250 | head -12; }
for tpl in .devdb/tpl_base templates; do
  export KGEN_TEMPLATES=$PWD/$tpl
  echo "######## $tpl"
  echo "== conv ws tma S3"; c $WD --kernel k3_conv1d --where sched=ws --where load=tma --where prologue=smem --where STAGES=3 --configs 3
  echo "== conv ws tma S4"; c $WD --kernel k3_conv1d --where sched=ws --where load=tma --where prologue=smem --where STAGES=4 --configs 4
  echo "== conv ws cp S3"; c $WD --kernel k3_conv1d --where sched=ws --where load=cp --where prologue=smem --where STAGES=3 --configs 3
  echo "== conv sync S3"; c $WD --kernel k3_conv1d --where sched=sync --where prologue=smem --where STAGES=3 --configs 3
  echo "== gated ws S3"; c $WD --kernel k5_gated_tanh_residual --where sched=ws --where prologue=smem --where STAGES=3 --configs 3
  echo "== gated sync S3"; c $WD --kernel k5_gated_tanh_residual --where sched=sync --where prologue=smem --where STAGES=3 --configs 3
  echo "== ln ws S3"; c $CD --kernel k1_ln_gemm_gelu --where sched=ws --where ln=prepass --where STAGES=3 --configs 3
done 2>&1 | tee $OUT/check.txt

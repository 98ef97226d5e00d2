#!/bin/bash
# call 173 (2026-11-29, session 36): deeper rings for the pp GEMMs.  gemm's space stopped
# at STAGES = 4; tpl/ is templates/ with STAGES 5 and 6 in the space (the constraints
# keep what fits: pp's TMA-store GELU GEMM at 128x128 takes 5).  (1) kgen check of
# the STAGES 5/6 candidates, (2) the tuner's medians pinned, STAGES 4 vs 5, twice.
# Before the call (tpl/ is not kept):
#   D=docs/bench-2026-11-28/call173; mkdir -p $D/tpl && cp -r templates/* $D/tpl/ && patch -p1 -d $D/tpl < $D/stages.patch
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
D=docs/bench-2026-11-28/call173
C=examples/convnext_block.pat
Y=examples/lynxnet2_block.pat
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
export KGEN_TEMPLATES=$PWD/$D/tpl
for args in "$C --dim B=2 --dim T=128 --unfuse all --kernel k1_gemm_gelu --where STAGES=5" \
    "$Y --dim B=2 --dim T=128 --kernel k6_linear_residual --where STAGES=5" "$Y --dim B=2 --dim T=128 --kernel k6_linear_residual --where STAGES=6" \
    "$C --dim B=2 --dim T=128 --kernel k3_linear_scale_residual --where STAGES=5 --where path=wgmma"; do
  out=$(timeout 100 $K check $args --arch sm_90 --configs 8 2>&1 | tail -1)
  echo "$args: $out"
done > $OUT/check.txt 2>&1; cut -c1-300 $OUT/check.txt
echo "checks done at ${SECONDS}s"
i=0
for rep in 1 2; do
  for m in "$C --unfuse all --kernel k1_gemm_gelu|sched=pp load=tma BM=128 BN=128 STAGES=4" "$C --unfuse all --kernel k1_gemm_gelu|sched=pp load=tma BM=128 BN=128 STAGES=5" \
      "$Y --kernel k6_linear_residual|sched=pp load=tma BM=128 BN=128 STAGES=4" "$Y --kernel k6_linear_residual|sched=pp load=tma STAGES=5"; do
    i=$((i+1)); c=${m#*|}; w=""; for kv in $c; do w="$w --where $kv"; done
    timeout 90 $K tune ${m%|*} --arch sm_90 --db /tmp/u$i.db $w --budget 3 -q > /dev/null 2>&1
    echo "${m%|*} | $c: $($K cache list --db /tmp/u$i.db 2>&1 | sed -n 2p | cut -c60-260) (${SECONDS}s)"
  done
done > $OUT/pins.txt 2>&1; cat $OUT/pins.txt

#!/bin/bash
# call 169 (2026-11-28, session 35): the consumers' proxy fence dropped where every copy of
# a stage is a TMA copy (attempt 33).  (1) kgen check on the H200 of the designs it touches
# (tma, panel, mcast, tmares; ws and pp) at small dims; (2) the tuner's medians of pinned
# configs, main's templates (oldtpl/, not committed) and the new ones in turn, twice.
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
D=docs/bench-2026-11-28/call169
C=examples/convnext_block.pat
Y=examples/lynxnet2_block.pat
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
export KGEN_TEMPLATES=$PWD/templates
for args in "$C --dim B=2 --dim T=128 --unfuse all --kernel k1_gemm_gelu" "$C --dim B=2 --dim T=128 --kernel k3_linear_scale_residual" \
    "$Y --dim B=2 --dim T=128 --kernel k4_gemm_glu" "$Y --dim B=2 --dim T=128 --kernel k5_gemm_glu" \
    "$Y --dim B=2 --dim T=128 --kernel k6_linear_residual" "tests/kernels/gemm_residual_tma.pat" \
    "tools/bench/ln_gemm_gelu.pat --dim M=512 --where ln=fold" "examples/wavenet_layer.pat --dim B=2 --dim T=128 --kernel k8_conv1d"; do
  for l in tma panel mcast tmares; do
    out=$(timeout 100 $K check $args --arch sm_90 --where load=$l --configs 4 2>&1 | tail -1)
    echo "$args load=$l: $out"
  done
done > $OUT/check.txt 2>&1; grep -v " 0 wrong results" $OUT/check.txt | cut -c1-250; grep -c "0 wrong results" $OUT/check.txt
echo "checks done at ${SECONDS}s"
i=0
for rep in 1 2; do
  for t in $D/oldtpl $PWD/templates; do
    export KGEN_TEMPLATES=$t
    for m in "$C --unfuse all --kernel k1_gemm_gelu|sched=pp load=tma BM=128 BN=128" "$Y --kernel k6_linear_residual|sched=pp load=tma BM=128 BN=128" \
        "$Y --kernel k4_gemm_glu|sched=ws load=tma BM=128 BN=256 WN=2"; do
      i=$((i+1)); c=${m#*|}; w=""; for kv in $c STAGES=4; do w="$w --where $kv"; done
      timeout 90 $K tune ${m%|*} --arch sm_90 --db /tmp/f$i.db $w --budget 1 -q > /dev/null 2>&1
      echo "$(basename $t) | ${m%|*} | $c: $($K cache list --db /tmp/f$i.db 2>&1 | sed -n 2p | awk '{print $5}') (${SECONDS}s)"
    done
  done
done > $OUT/pins.txt 2>&1; cat $OUT/pins.txt

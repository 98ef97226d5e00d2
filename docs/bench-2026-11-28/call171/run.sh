#!/bin/bash
# next-uniform (written 2026-11-28, session 35; not run: the session's device time was
# spent): the ws/pp consumers' warp index (and pp's warpgroup turn) made warp-uniform by
# __shfl_sync, so that ptxas keeps the K loop's stage index, addresses and wgmma
# descriptors in uniform registers.  Before the call, apply uniform.patch to a copy of
# templates/ beside this file:
#   mkdir -p docs/bench-2026-11-28/next-uniform/tpl && cp -r templates/* docs/bench-2026-11-28/next-uniform/tpl/ &&
#   (cd docs/bench-2026-11-28/next-uniform && patch -p2 -d tpl < uniform.patch)
# then (1) kgen check on the H200 of every ws/pp design the patch touches, and (2) the
# tuner's medians of pinned configs, main's templates and the patched ones in turn, twice.
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
D=docs/bench-2026-11-28/next-uniform
C=examples/convnext_block.pat
Y=examples/lynxnet2_block.pat
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
export KGEN_TEMPLATES=$PWD/$D/tpl
for args in "$C --dim B=2 --dim T=128 --unfuse all --kernel k1_gemm_gelu" "$C --dim B=2 --dim T=128 --kernel k3_linear_scale_residual" \
    "$Y --dim B=2 --dim T=128 --kernel k4_gemm_glu" "$Y --dim B=2 --dim T=128 --kernel k6_linear_residual" \
    "tests/kernels/gemm_residual_tma.pat" "tools/bench/gated_tanh_residual.pat --dim B=2 --dim T=128" \
    "tools/bench/ln_gemm_gelu.pat --dim M=512" "examples/wavenet_layer.pat --dim B=2 --dim T=128 --kernel k8_conv1d"; do
  for s in ws pp; do
    out=$(timeout 100 $K check $args --arch sm_90 --where sched=$s --configs 4 2>&1 | tail -1)
    echo "$args sched=$s: $out"
  done
done > $OUT/check.txt 2>&1; grep -v " 0 wrong results" $OUT/check.txt | cut -c1-250; grep -c "0 wrong results" $OUT/check.txt
echo "checks done at ${SECONDS}s"
i=0
for rep in 1 2; do
  for t in $PWD/templates $PWD/$D/tpl; do
    export KGEN_TEMPLATES=$t
    for m in "$C --unfuse all --kernel k1_gemm_gelu|sched=pp load=tma BM=128 BN=128" "$Y --kernel k6_linear_residual|sched=pp load=tma BM=128 BN=128" \
        "$Y --kernel k4_gemm_glu|sched=ws load=tma BM=128 BN=256 WN=2"; do
      i=$((i+1)); c=${m#*|}; w=""; for kv in $c STAGES=4; do w="$w --where $kv"; done
      timeout 90 $K tune ${m%|*} --arch sm_90 --db /tmp/u$i.db $w --budget 1 -q > /dev/null 2>&1
      echo "$(basename $(dirname $t))/$(basename $t) | ${m%|*} | $c: $($K cache list --db /tmp/u$i.db 2>&1 | sed -n 2p | awk '{print $5}') (${SECONDS}s)"
    done
  done
done > $OUT/pins.txt 2>&1; cat $OUT/pins.txt

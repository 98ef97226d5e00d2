#!/bin/bash
# call 164 (2026-11-28): sched=pp with a team of two consumer warpgroups a tile
# (WM x WN = 2: 64 accumulators a thread, 8 warps an epilogue, two wgmma streams a
# K loop; 5 warpgroups a block).  (1) kgen check at small dims of the GELU GEMMs
# and two residual GEMMs under pp WM = 2 and WN = 2; (2) the tuner's medians of
# one pinned config (budget 1 each) for the GELU GEMMs of ConvNeXt (49152 x 2048,
# K = 512, load=tma) and of the small ln_gemm_gelu (49152 x 1024, K = 256,
# load=panel): pp 128x128 with WM x WN = 1 (main's), WM = 2 and WN = 2.
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns KGEN_TEMPLATES=$PWD/templates
K=build-dev-bin/kgen
O=docs/bench-2026-11-28/call154/orient.pat
L=tools/bench/ln_gemm_gelu.pat
C=examples/convnext_block.pat
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
for w in WM=2 WN=2; do
  for args in "$C --dim B=2 --dim T=128 --unfuse all --kernel k1_gemm_gelu" \
      "$L --dim M=512 --unfuse all --kernel k1_gemm_gelu" \
      "$O --dim B=2 --dim T=128 --kernel k1_linear_residual" "$O --dim B=2 --dim T=128 --kernel k3_conv1x1_residual"; do
    timeout 60 $K check $args --arch sm_90 --where sched=pp --where $w --configs 8 2>&1 | tail -1
  done
done > $OUT/check.txt 2>&1; cut -c1-150 $OUT/check.txt
echo "checks done at ${SECONDS}s"
i=0
for m in "$C --unfuse all --kernel k1_gemm_gelu --where load=tma" "$L --unfuse all --kernel k1_gemm_gelu --where load=panel"; do
  for w in "WM=1 --where WN=1" "WM=2 --where WN=1" "WM=1 --where WN=2"; do
    i=$((i+1))
    timeout 60 $K tune $m --arch sm_90 --db /tmp/q$i.db --where sched=pp --where BM=128 --where BN=128 --where STAGES=4 \
      --where $w --budget 1 -q > /dev/null 2>&1
    echo "== $m $w (${SECONDS}s)"; $K cache list --db /tmp/q$i.db 2>&1 | cut -c1-220 | tail -n +2
  done
done > $OUT/pairs.txt 2>&1; cat $OUT/pairs.txt

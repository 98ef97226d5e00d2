#!/bin/bash
# call 162 (2026-11-28): load=tmares through the ring: after a tile's K tiles the ws producer copies
# the residual's 64-column chunks by TMA into the next ring slots' A parts (no more shared
# memory than load=tma, so STAGES = 4 at 128 x 256, which call 161's separate buffer could
# not have: its pinned STAGES = 3 lost 27 us to call 157's STAGES = 4).  (1) kgen check
# at B = 2, T = 128 of every residual GEMM with load=tmares (12 candidates each);
# (2) the tuner's medians of one pinned ws config under load=tma and load=tmares
# (budget 1 each): ConvNeXt's K = 2048 scaled residual linear row-major and
# channel-first (orient2.pat k0, k1) and in the block (k3); (3) that kernel of the block
# tuned over wgmma at budget 12, load=tmares among the choices.
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns KGEN_TEMPLATES=$PWD/templates
K=build-dev-bin/kgen
O=docs/bench-2026-11-28/call154/orient.pat
O2=docs/bench-2026-11-28/call157/orient2.pat
G=tools/bench/gated_tanh_residual.pat
S="--dim B=2 --dim T=128"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
for args in "$O --kernel k1_linear_residual" "$O --kernel k3_conv1x1_residual" \
    "$G --unfuse all --kernel k2_conv1x1_split_residual" \
    "examples/convnext_block.pat --unfuse all --kernel k2_linear_scale_residual" \
    "$O2 --kernel k0_linear_scale_residual" "$O2 --kernel k1_linear_scale_residual" \
    "examples/lynxnet2_block.pat --kernel k6_linear_residual"; do
  timeout 60 $K check $args $S --arch sm_90 --where load=tmares --configs 12 2>&1 | tail -1
done > $OUT/check.txt 2>&1; cut -c1-150 $OUT/check.txt
timeout 60 $K check $O --dim B=2 --dim T=100 --arch sm_90 --kernel k1_linear_residual --where load=tmares --configs 8 2>&1 | tail -1 >> $OUT/check.txt
tail -1 $OUT/check.txt
echo "checks done at ${SECONDS}s"
P="--where sched=ws --where BM=128 --where BN=256 --where WM=1 --where WN=2 --where STAGES=4"
i=0
for m in "$O2 --kernel k0_linear_scale_residual" "$O2 --kernel k1_linear_scale_residual" \
    "examples/convnext_block.pat --kernel k3_linear_scale_residual"; do
  for l in tma tmares; do
    i=$((i+1))
    timeout 80 $K tune $m --arch sm_90 --db /tmp/p$i.db $P --where load=$l --budget 1 -q > /dev/null 2>&1
    echo "== $m load=$l (${SECONDS}s)"; $K cache list --db /tmp/p$i.db 2>&1 | cut -c1-200 | tail -n +2
  done
done > $OUT/pairs.txt 2>&1; cat $OUT/pairs.txt
timeout 120 $K tune examples/convnext_block.pat --arch sm_90 --db /tmp/f.db --kernel k3_linear_scale_residual --where path=wgmma --budget 12 -q > /dev/null 2>&1
echo "free tune done at ${SECONDS}s"
$K cache list --db /tmp/f.db 2>&1 | cut -c1-230 > $OUT/winners.txt; cut -c1-200 $OUT/winners.txt
$K cache history --db /tmp/f.db > $OUT/history.txt 2>&1

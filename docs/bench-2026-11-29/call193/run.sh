#!/bin/bash
# call 193 (2026-11-29, session 39): dwconv mma's channels-last window staged two steps
# a thread (the 16-byte loads of steps wi and wi + 1, each channel's pair one 32-bit
# shared store parted by byte permutes: half the staging's shared stores), against HEAD
# at f026115 (tplh/, removed after the call).  Both layouts read a channels-last x, so
# both of layouts.pat's convs are timed: k1 (channel-first y) and k3 (channels-last y).
# Checked first: every mma config of dwconv_chlast.pat, LYNXNet2's conv at T = 300 and
# 301, layouts.pat at B = 2, T = 300.
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
D=docs/bench-2026-11-29/call193
L=docs/bench-2026-11-29/call179/layouts.pat
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
export KGEN_TEMPLATES=$PWD/templates
$K check tests/kernels/dwconv_chlast.pat --arch sm_90 --configs 12 --where path=mma > $OUT/check_chlast.txt 2>&1; tail -1 $OUT/check_chlast.txt
for t in 300 301; do
  $K check examples/lynxnet2_block.pat --dim B=2 --dim T=$t --kernel k2_conv1d --arch sm_90 --configs 12 --where path=mma > $OUT/check_k2_$t.txt 2>&1; tail -1 $OUT/check_k2_$t.txt
done
$K check $L --dim B=2 --dim T=300 --arch sm_90 --configs 6 --where path=mma > $OUT/check_layouts.txt 2>&1; tail -1 $OUT/check_layouts.txt
i=0
for r in 1 2; do
  for k in k1_conv1d k3_conv1d; do
    for tp in $D/tplh templates; do
      i=$((i+1)); W="--where path=mma --where BC=32 --where BLOCK=256 --where BT=512"
      KGEN_TEMPLATES=$PWD/$tp timeout 60 $K tune $L --kernel $k --arch sm_90 --db /tmp/r$i.db $W --budget 1 -q > /dev/null 2>&1
      echo "$(basename $tp) $k: $($K cache list --db /tmp/r$i.db 2>&1 | sed -n 2p | awk '{print $5}') at ${SECONDS}s"
    done
  done
done | tee $OUT/pins.txt
echo "done at ${SECONDS}s"

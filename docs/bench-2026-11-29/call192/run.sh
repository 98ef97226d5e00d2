#!/bin/bash
# call 192 (2026-11-29, session 39): the channels-last y of dwconv's mma path gathered two
# steps a thread (each channel's pair t, t + 1 one 32-bit shared load, byte permutes
# parting them), against HEAD's 16-bit gather (tplh/, HEAD's dwconv.lua; removed after
# the call).  Nsight Compute (next-prof) had the channels-last conv issuing 34% more
# shared-memory instructions than the channel-first one, MIO-throttle stalls 3x.
# Checked: every mma config of dwconv_chlast.pat, LYNXNet2's conv at T = 300 and 301
# (odd: the pair's second step past the end).  Then the tuner's medians of layouts.pat's
# k3 (channels-last) at two configs, HEAD and new in turn, twice.
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
D=docs/bench-2026-11-29/call192
L=docs/bench-2026-11-29/call179/layouts.pat
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
export KGEN_TEMPLATES=$PWD/templates
$K check tests/kernels/dwconv_chlast.pat --arch sm_90 --configs 12 --where path=mma > $OUT/check_chlast.txt 2>&1; tail -1 $OUT/check_chlast.txt
for t in 300 301; do
  $K check examples/lynxnet2_block.pat --dim B=2 --dim T=$t --kernel k2_conv1d --arch sm_90 --configs 12 --where path=mma > $OUT/check_k2_$t.txt 2>&1; tail -1 $OUT/check_k2_$t.txt
done
i=0
for r in 1 2; do
  for w in "BC=32 BLOCK=256 BT=512" "BC=32 BLOCK=256 BT=256"; do
    for tp in $D/tplh templates; do
      i=$((i+1)); W="--where path=mma"; for kv in $w; do W="$W --where $kv"; done
      KGEN_TEMPLATES=$PWD/$tp timeout 60 $K tune $L --kernel k3_conv1d --arch sm_90 --db /tmp/r$i.db $W --budget 1 -q > /dev/null 2>&1
      echo "$(basename $tp) $w: $($K cache list --db /tmp/r$i.db 2>&1 | sed -n 2p | awk '{print $5}') at ${SECONDS}s"
    done
  done
done | tee $OUT/pins.txt
echo "done at ${SECONDS}s"

#!/bin/bash
# next40 (written in session 39, not yet run): LYNXNet2's depthwise conv (mma, BC=32
# BLOCK=256), main against three variants, each checked first (LYNXNet2's conv at B = 2,
# T = 301; dwconv_chlast.pat; dwconv_mma.pat), then the tuner's medians in turn, twice:
# - minb5 / minb6 (minb5.patch, 6 by the same line): __launch_bounds__(BLOCK, 5 or 6).
#   ptxas gives BT=512 59 registers, so 4 blocks of 256 threads fit (Nsight Compute,
#   next-prof: occupancy 47%, long-scoreboard stalls first); held it takes 48 or 40, no
#   spills (kgen check --compile-only here, NVRTC 13).
# - wstage (wstage.patch): the block's BC x K taps staged in shared memory beside the
#   window, so each channel's W fragments come from shared memory, not from 12 dependent
#   two-byte global loads a lane a channel; ptxas then takes 39 registers at BT=512.
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
D=docs/bench-2026-11-29/next40  # call 195 ran this from next40
Y=examples/lynxnet2_block.pat
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
mk() { # name patch [minb]
  rm -rf /tmp/$1 && cp -r templates /tmp/$1 && (cd /tmp/$1 && patch -s -p2 < $OLDPWD/$D/$2) || echo "patch $1 failed"
  [ -z "${3:-}" ] || sed -i "s/__launch_bounds__(BLOCK, 5)/__launch_bounds__(BLOCK, $3)/" /tmp/$1/dwconv.lua
}
mk minb5 minb5.patch; mk minb6 minb5.patch 6; mk wstage wstage.patch
for v in minb5 minb6 wstage; do
  for m in "$Y --dim B=2 --dim T=301 --kernel k2_conv1d" tests/kernels/dwconv_chlast.pat tests/kernels/dwconv_mma.pat; do
    KGEN_TEMPLATES=/tmp/$v $K check $m --arch sm_90 --configs 8 --where path=mma 2>&1 | tail -1 | sed "s/^/$v: /"
  done
done | tee $OUT/checks.txt
i=0
for r in 1 2; do
  for w in "BC=32 BLOCK=256 BT=512" "BC=32 BLOCK=256 BT=256"; do
    for tp in $PWD/templates /tmp/minb5 /tmp/minb6 /tmp/wstage; do
      i=$((i+1)); W="--where path=mma"; for kv in $w; do W="$W --where $kv"; done
      KGEN_TEMPLATES=$tp timeout 60 $K tune $Y --kernel k2_conv1d --arch sm_90 --db /tmp/r$i.db $W --budget 1 -q > /dev/null 2>&1
      echo "$(basename $tp) $w: $($K cache list --db /tmp/r$i.db 2>&1 | sed -n 2p | awk '{print $5}') at ${SECONDS}s"
    done
  done
done | tee $OUT/pins.txt
echo "done at ${SECONDS}s"

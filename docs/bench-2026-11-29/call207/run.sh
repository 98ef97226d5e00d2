#!/bin/bash
# call 207 (session 41; next41 of session 40, the patch rebased on ln_dwconv's BC list): LYNXNet2's
# depthwise conv (mma, BC=32 BLOCK=256, taps staged) at BT=384 (bt384.patch: 384 in the
# BT list, the other paths held to powers of two): two tiles of 384 cover T = 768 with
# 3.5% fewer staged halo positions than three of 256, in 2/3 the blocks.  Checked first
# (LYNXNet2's conv at B = 2, T = 301 and at its dims; dwconv_chlast.pat; dwconv_mma.pat),
# then the tuner's medians of BT=256 (main) and BT=384, in turn, twice.  With the patch
# rank() puts BT=384 first at T = 768, so land it only if it wins.
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
D=docs/bench-2026-11-29/next41   # (its bt384.patch)
Y=examples/lynxnet2_block.pat
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
rm -rf /tmp/bt384 && cp -r templates /tmp/bt384 && (cd /tmp/bt384 && patch -s -p2 < $OLDPWD/$D/bt384.patch) || echo "patch failed"
for m in "$Y --unfuse k0_ln_dwconv --kernel k2_conv1d" "$Y --dim B=2 --dim T=301 --unfuse k0_ln_dwconv --kernel k2_conv1d" tests/kernels/dwconv_chlast.pat tests/kernels/dwconv_mma.pat; do
  KGEN_TEMPLATES=/tmp/bt384 $K check $m --arch sm_90 --configs 8 --where path=mma --where BT=384 2>&1 | tail -1
done | tee $OUT/checks.txt
i=0
for r in 1 2; do
  for v in "$PWD/templates 256" "/tmp/bt384 384"; do
    set -- $v; i=$((i+1))
    KGEN_TEMPLATES=$1 timeout 60 $K tune $Y --unfuse k0_ln_dwconv --kernel k2_conv1d --arch sm_90 --db /tmp/r$i.db --where path=mma --where BC=32 --where BLOCK=256 --where BT=$2 --budget 1 -q > /dev/null 2>&1
    echo "BT=$2: $($K cache list --db /tmp/r$i.db 2>&1 | sed -n 2p | awk '{print $5}') at ${SECONDS}s"
  done
done | tee $OUT/pins.txt
echo "done at ${SECONDS}s"

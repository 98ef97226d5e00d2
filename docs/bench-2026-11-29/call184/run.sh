#!/bin/bash
# call 184 (2026-11-29, session 38): the channels-last depthwise conv at BC = 64 (128-byte
# rows; bc64.patch of call 178 in tpl/).  Call 178 timed BC = 64 while nvcc still split the
# 16-byte stores (mma 0.161); with kg.st16 and the in-row staging (call 182) BC = 16 went
# 0.19 -> 0.1075.  Every mma config at BC = 64 checked, then timed by the tuner (exhaustive
# over them), and main's best configs pinned beside them, all in this call.
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns KGEN_INCLUDE=$PWD/include
K=build-dev-bin/kgen
D=docs/bench-2026-11-29/call184
Y=examples/lynxnet2_block.pat
L=docs/bench-2026-11-29/call179/layouts.pat
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
export KGEN_TEMPLATES=$PWD/$D/tpl
$K check $Y --dim B=2 --kernel k2_conv1d --arch sm_90 --configs 40 --where path=mma --where BC=64 > $OUT/check_bc64.txt 2>&1
tail -1 $OUT/check_bc64.txt
timeout 120 $K tune $Y --kernel k2_conv1d --arch sm_90 --db /tmp/b.db --where path=mma --where BC=64 --strategy exhaustive -q > /dev/null 2>&1
$K cache show conv1d --db /tmp/b.db > $OUT/bc64_trials.txt 2>&1
echo "bc64 at ${SECONDS}s"
i=0
for w in "BC=16 BLOCK=128 BT=512" "BC=32 BLOCK=256 BT=256" "BC=64 BLOCK=128 BT=256" "BC=64 BLOCK=256 BT=256"; do
  for k in k1_conv1d k3_conv1d; do
    i=$((i+1)); W="--where path=mma"; for kv in $w; do W="$W --where $kv"; done
    timeout 60 $K tune $L --kernel $k --arch sm_90 --db /tmp/r$i.db $W --budget 1 -q > /dev/null 2>&1
    echo "$k $w: $($K cache list --db /tmp/r$i.db 2>&1 | sed -n 2p | awk '{print $5}')"
  done
done | tee $OUT/pins.txt
echo "done at ${SECONDS}s"

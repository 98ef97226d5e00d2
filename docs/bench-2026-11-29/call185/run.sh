#!/bin/bash
# call 185 (2026-11-29, session 38): every mma config (items=apart) of LYNXNet2's depthwise
# conv timed by the tuner, both layouts of call 179's layouts.pat in one call: k1 writes
# channel-first [B, C, T], k3 channels-last [B, T, C] (the plan since caa5ac2).  Calls 182
# and 184 pinned a few configs only; the bench's budget of 6 tries the first few by rank().
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns KGEN_INCLUDE=$PWD/include
K=build-dev-bin/kgen
L=docs/bench-2026-11-29/call179/layouts.pat
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
for k in k3_conv1d k1_conv1d; do
  timeout 150 $K tune $L --kernel $k --arch sm_90 --db /tmp/$k.db --where path=mma --where items=apart --strategy exhaustive -q > /dev/null 2>&1
  $K cache show conv1d --db /tmp/$k.db > $OUT/$k.txt 2>&1
  echo "$k at ${SECONDS}s: $(grep -c ' ok ' $OUT/$k.txt) ok"
done

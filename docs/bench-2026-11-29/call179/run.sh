#!/bin/bash
# call 179 (2026-11-29, session 37): LYNXNet2's depthwise conv at one config (mma BC=16
# BLOCK=128 BT=512, call 174's winner) writing channel-first (k1 of layouts.pat) and
# channels-last through the staging tile (k3): the tuner's medians, then Nsight Compute
# of both (full set), to see where the channels-last store's time goes.
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns KGEN_TEMPLATES=$PWD/templates
K=build-dev-bin/kgen
D=docs/bench-2026-11-29/call179
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
W="--where path=mma --where BC=16 --where BLOCK=128 --where BT=512"
for k in k1_conv1d k3_conv1d; do
  timeout 60 $K tune $D/layouts.pat --kernel $k --arch sm_90 --db /tmp/p$k.db $W --budget 1 -q > /dev/null 2>&1
  echo "$k: $($K cache list --db /tmp/p$k.db 2>&1 | sed -n 2p | awk '{print $5}')"
done | tee $OUT/pins.txt
timeout 300 ncu --clock-control none --target-processes application-only -k regex:'^k[13]_conv1d' -c 2 --set full \
  -o /tmp/dw -f $K check $D/layouts.pat --arch sm_90 --configs 1 $W > $OUT/ncu_run.txt 2>&1; tail -2 $OUT/ncu_run.txt
ncu -i /tmp/dw.ncu-rep --page details > $OUT/dw_details.txt 2>&1
grep -E "^  k|Duration|DRAM Through|Memory Through|L2 Hit|L1/TEX Hit|Achieved Occ|Theoretical Occ|Issue Slots Busy|Registers Per|Shared Memory Configuration Size|Block Limit" $OUT/dw_details.txt | head -60
echo "done at ${SECONDS}s"

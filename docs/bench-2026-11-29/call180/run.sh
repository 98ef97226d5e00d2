#!/bin/bash
# call 180 (2026-11-29, session 37): call 179's Nsight Compute caught k1 twice; this one
# profiles k3 (the channels-last conv, mma BC=16 BLOCK=128 BT=512, 0.1898 against k1's
# 0.0904 in call 179).  Also the tuner's median of k3 with the staging tile leaving by
# one value a thread (scalar.patch, tpl/) instead of 8 channels a 16-byte store.
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns KGEN_TEMPLATES=$PWD/templates
K=build-dev-bin/kgen
D=docs/bench-2026-11-29/call180
L=docs/bench-2026-11-29/call179/layouts.pat
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
W="--where path=mma --where BC=16 --where BLOCK=128 --where BT=512"
for t in $PWD/templates $PWD/$D/tpl; do
  timeout 60 env KGEN_TEMPLATES=$t $K tune $L --kernel k3_conv1d --arch sm_90 --db /tmp/q$RANDOM.db $W --budget 1 -q > /tmp/o.txt 2>&1
  echo "$t: $(env KGEN_TEMPLATES=$t $K cache list --db $(ls -t /tmp/q*.db | head -1) 2>&1 | sed -n 2p | awk '{print $5}')"
done | tee $OUT/pins.txt
timeout 300 ncu --clock-control none --target-processes application-only -k regex:'^k3_conv1d' -c 1 --set full \
  -o /tmp/dw3 -f $K check $L --kernel k3_conv1d --arch sm_90 --configs 1 $W > $OUT/ncu_run.txt 2>&1; tail -2 $OUT/ncu_run.txt
ncu -i /tmp/dw3.ncu-rep --page details > $OUT/dw3_details.txt 2>&1
grep -E "^  k|Duration|DRAM Through|Memory Through|L2 Hit|L1/TEX Hit|Achieved Occ|Theoretical Occ|Issue Slots Busy|Registers Per|Block Limit|Bank|Uncoalesced|excessive" $OUT/dw3_details.txt | head -60
echo "done at ${SECONDS}s"

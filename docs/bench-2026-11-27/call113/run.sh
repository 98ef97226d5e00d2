#!/bin/bash
# call 113: Nsight Compute of LYNXNet2's depthwise conv on path=mma (84 us against a floor near 47)
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
W="--arch sm_90 --configs 1 --kernel k2_conv1d --where path=mma --where BC=16 --where BLOCK=128 --where BT=512"
timeout 100 ncu --clock-control none --target-processes application-only -k regex:'^k2' -c 1 --set full --import-source yes -o /tmp/dm -f $K check examples/lynxnet2_block.pat $W 2>&1 | tail -1
ncu -i /tmp/dm.ncu-rep --page details > $OUT/dm_details.txt 2>&1
ncu -i /tmp/dm.ncu-rep --page source --csv --print-source sass > /tmp/dm_sass.csv 2>&1; python3 .devdb/sass_sum.py /tmp/dm_sass.csv 40 > $OUT/dm_sum.txt 2>&1
grep -E "Duration|Issue Slots|Registers Per|Achieved Occ|Theoretical Occ|Compute \(SM\)|Memory Throughput|DRAM Through|L2 Hit|L1/TEX Hit|Block Limit" $OUT/dm_details.txt | head -20

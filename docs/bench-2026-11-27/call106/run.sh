#!/bin/bash
# call 106: where LYNXNet2's k=31 depthwise conv (143 us) and ConvNeXt's GELU GEMM (235 us) lose time: a wide tune of the dwconv, then Nsight Compute of each
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
rm -f /tmp/t.sqlite
time (timeout 260 $K tune examples/lynxnet2_block.pat --kernel k2_conv1d --arch sm_90 --db /tmp/t.sqlite --strategy exhaustive --time 240 2>&1 | tail -3)
$K cache show 1 --db /tmp/t.sqlite 2>&1 | cut -c1-200 > $OUT/trials_dw.txt
grep -c ok $OUT/trials_dw.txt; sort -k3 -n $OUT/trials_dw.txt | head -5
W="--arch sm_90 --configs 1 --kernel k2_conv1d --where path=lanes --where BC=16 --where BT=256 --where ITEMS=32"
timeout 120 ncu --clock-control none --target-processes application-only -k regex:'^k2' -c 1 --set full --import-source yes -o /tmp/dw -f $K check examples/lynxnet2_block.pat $W 2>&1 | tail -2
ncu -i /tmp/dw.ncu-rep --page details > $OUT/dw_details.txt 2>&1
ncu -i /tmp/dw.ncu-rep --page source --csv --print-source sass > /tmp/dw_sass.csv 2>&1; python3 .devdb/sass_sum.py /tmp/dw_sass.csv 60 > $OUT/dw_sum.txt 2>&1
W="--arch sm_90 --configs 1 --kernel k1_gemm_gelu --where load=tma --where sched=pp --where BM=128 --where BN=128 --where STAGES=4"
timeout 120 ncu --clock-control none --target-processes application-only -k regex:'^k1' -c 1 --set full --import-source yes -o /tmp/gg -f $K check examples/convnext_block.pat $W 2>&1 | tail -2
ncu -i /tmp/gg.ncu-rep --page details > $OUT/gg_details.txt 2>&1
ncu -i /tmp/gg.ncu-rep --page source --csv --print-source sass > /tmp/gg_sass.csv 2>&1; python3 .devdb/sass_sum.py /tmp/gg_sass.csv 60 > $OUT/gg_sum.txt 2>&1
ls -la $OUT

#!/bin/bash
# call 111: dwconv mma with every window load of a thread in flight before its stores: GPU check and tune; Nsight Compute of ConvNeXt's GELU GEMM (235 us)
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 120 $K check tests/kernels/dwconv_mma.pat --arch sm_90 --where path=mma --configs 6 2>&1 | tee $OUT/check.txt | tail -1
timeout 120 $K check examples/lynxnet2_block.pat --dim B=2 --dim T=300 --arch sm_90 --kernel k2_conv1d --where path=mma --configs 6 2>&1 | tee -a $OUT/check.txt | tail -1
rm -f /tmp/t.sqlite
timeout 110 $K tune examples/lynxnet2_block.pat --kernel k2_conv1d --arch sm_90 --db /tmp/t.sqlite --where path=mma --strategy exhaustive --time 100 2>&1 | tail -2
$K cache show 1 --db /tmp/t.sqlite 2>&1 | cut -c1-200 > $OUT/trials_mma.txt
grep " ok " $OUT/trials_mma.txt | awk '{for(i=1;i<=NF;i++) if($i=="ok") print $(i+1), $0}' | sort -n | head -6 | cut -c1-110
W="--arch sm_90 --configs 1 --unfuse k2_ln_gemm_gelu --kernel k1_gemm_gelu --where load=tma --where sched=pp --where BM=128 --where BN=128 --where STAGES=4"
timeout 120 ncu --clock-control none --target-processes application-only -k regex:'^k1' -c 1 --set full --import-source yes -o /tmp/gg -f $K check examples/convnext_block.pat $W 2>&1 | tail -2
ncu -i /tmp/gg.ncu-rep --page details > $OUT/gg_details.txt 2>&1
ncu -i /tmp/gg.ncu-rep --page source --csv --print-source sass > /tmp/gg_sass.csv 2>&1; python3 .devdb/sass_sum.py /tmp/gg_sass.csv 60 > $OUT/gg_sum.txt 2>&1
grep -E "Duration|Issue Slots|Registers Per|Achieved Occ|Theoretical Occ|Compute \(SM\)|Memory Throughput" $OUT/gg_details.txt | head -12

#!/bin/bash
# call 110: ln_dwconv's mma path warp by warp (no block barrier past the row statistics; each warp's next window loads in flight during its MMAs): GPU check, tune, LYNXNet2 beside PyTorch
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 120 $K check tests/kernels/ln_dwconv.pat --arch sm_90 --configs 4 2>&1 | tee $OUT/check.txt | tail -1
timeout 120 $K check examples/lynxnet2_block.pat --dim B=2 --dim T=300 --arch sm_90 --kernel k0_ln_dwconv --configs 6 2>&1 | tee -a $OUT/check.txt | tail -1
rm -f /tmp/t.sqlite
timeout 110 $K tune examples/lynxnet2_block.pat --kernel k0_ln_dwconv --arch sm_90 --db /tmp/t.sqlite --strategy exhaustive --time 100 2>&1 | tail -2
$K cache show 1 --db /tmp/t.sqlite 2>&1 | cut -c1-200 > $OUT/trials_lndw.txt
grep " ok " $OUT/trials_lndw.txt | awk '{for(i=1;i<=NF;i++) if($i=="ok") print $(i+1), $0}' | sort -n | head -6 | cut -c1-100
W="--arch sm_90 --configs 1 --kernel k0_ln_dwconv --where path=mma --where BC=8 --where BLOCK=256 --where BT=128"
timeout 100 ncu --clock-control none --target-processes application-only -k regex:'^k0' -c 1 --set full -o /tmp/lw -f $K check examples/lynxnet2_block.pat $W 2>&1 | tail -1
ncu -i /tmp/lw.ncu-rep --page details > $OUT/lw_details.txt 2>&1
grep -E "Duration|Throughput|Issue Slots|Registers Per|Achieved Occupancy|Theoretical Occ|Block Limit" $OUT/lw_details.txt | head -20

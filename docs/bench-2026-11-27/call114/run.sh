#!/bin/bash
# call 114: dwconv mma with ITEMS 16-byte window loads of a thread in flight before their stores (a tuning knob): GPU check, every mma config of LYNXNet2's conv
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 100 $K check tests/kernels/dwconv_mma.pat --arch sm_90 --where path=mma --configs 8 2>&1 | tee $OUT/check.txt | tail -1
timeout 100 $K check examples/lynxnet2_block.pat --dim B=2 --dim T=300 --arch sm_90 --kernel k2_conv1d --where path=mma --where ITEMS=2,4,8 --configs 6 2>&1 | tee -a $OUT/check.txt | tail -1
rm -f /tmp/t.sqlite
timeout 230 $K tune examples/lynxnet2_block.pat --kernel k2_conv1d --arch sm_90 --db /tmp/t.sqlite --where path=mma --strategy exhaustive --time 220 2>&1 | tail -1
$K cache show 1 --db /tmp/t.sqlite 2>&1 | cut -c1-200 > $OUT/trials_mma.txt
grep " ok " $OUT/trials_mma.txt | awk '{for(i=1;i<=NF;i++) if($i=="ok") print $(i+1), $0}' | sort -n | head -10 | cut -c1-110
grep -c " ok " $OUT/trials_mma.txt

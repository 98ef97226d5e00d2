#!/bin/bash
# call 101: consumers retiring under A along M too: tests/gpu_kernels.sh, then WaveNet's dilated conv tuned over ws/tma first (as call 90)
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 200 sh tests/gpu_kernels.sh $K . 2>&1 | tee $OUT/gpu_kernels.txt | cut -c1-200 | tail -16
rm -f /tmp/t.sqlite
timeout 200 $K tune examples/wavenet_layer.pat --kernel k3_conv1d --arch sm_90 --db /tmp/t.sqlite --strategy exhaustive --budget 14 --where sched=ws --where load=tma -q 2>&1 | tail -1
$K cache show 1 --db /tmp/t.sqlite 2>&1 | cut -c1-190 > $OUT/trials_k3.txt
grep " ok " $OUT/trials_k3.txt | awk '{for(i=1;i<=NF;i++) if ($i=="ok") print $2,$3,$4,$5,$6,$9,$10,$11,$15,$(i+1)}' | sort -k10 -n | head -5
grep -c "wrong" $OUT/trials_k3.txt
cp /tmp/t.sqlite $OUT/tune101.sqlite

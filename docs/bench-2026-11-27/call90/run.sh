#!/bin/bash
# call 90: WaveNet with its dilated conv (k3_conv1d) tuned over sched=ws, load=tma first (attempt 16's schedule, which budget 6 alone does not reach), the block beside PyTorch at budget 6
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
rm -f /tmp/t.sqlite
timeout 150 $K tune examples/wavenet_layer.pat --kernel k3_conv1d --arch sm_90 --db /tmp/t.sqlite --strategy exhaustive --budget 14 --where sched=ws --where load=tma -q 2>&1 | tail -1
$K cache show 1 --db /tmp/t.sqlite 2>&1 | cut -c1-190 > $OUT/trials_k3.txt
grep " ok " $OUT/trials_k3.txt | awk '{for(i=1;i<=NF;i++) if ($i=="ok") print $2,$3,$4,$5,$6,$9,$10,$11,$15,$(i+1)}' | sort -k10 -n | head -5
timeout 300 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/t.sqlite --workloads wavenet_layer_default --budget 6 --tune-timeout 260 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -2
for d in /tmp/a/wavenet*; do KGRT_PDL=0 timeout 25 python3 tools/bench/prof.py $d 2>&1 | grep -E "sum of|do_bench|k[0-9]+_" | head -9; done | tee $OUT/prof.txt
cp /tmp/a/*.json $OUT/ 2>/dev/null; cp /tmp/t.sqlite $OUT/tune90.sqlite

#!/bin/bash
# call 57 (session 19): fp32 WaveNet B=1: bench at budget 24, the kernels' durations and gaps, ncu of its GEMMs
# (.devdb/prof.py: the first form of tools/bench/prof.py; .devdb/ carried build-dev-bin and the DB)
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 200 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/tune.sqlite --workloads wavenet_layer_B_1 --budget 24 --tune-timeout 150 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v Warn | tail -3
D=/tmp/a/wavenet_layer_B_1_T_861_f32
timeout 120 python3 .devdb/prof.py $D 2>&1 | grep -v Warn | tee $OUT/prof.txt
timeout 150 ncu --clock-control none -k regex:'k3_conv1d|k4_conv1x1|k7_conv1x1' --launch-count 3 --section SpeedOfLight --section Occupancy --section WarpStateStats --section SchedulerStats --section LaunchStats --section ComputeWorkloadAnalysis python3 .devdb/prof.py $D --once > $OUT/ncu.txt 2>&1
grep -E "==PROF==|k3_|k4_|k7_|Duration|Achieved Occupancy|Issue Slots Busy|No Eligible|Warp Cycles Per Issued|Stall|Registers Per|Block Limit|Compute \(SM\) Throughput|Memory Throughput|Executed Ipc A" $OUT/ncu.txt | head -60
$K cache list --db /tmp/tune.sqlite > $OUT/cache_list.txt 2>&1
cp /tmp/a/*.json $OUT/ 2>/dev/null; cp /tmp/tune.sqlite $OUT/

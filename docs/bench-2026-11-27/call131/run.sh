#!/bin/bash
# call 131: call 130's WaveNet DIL = 8 row again with call 126's tuning time (300 s), which
# call 130's 150 s cut short of the unfused gated plan.  The dilated conv (relaid tap-major)
# and the relayout's copy are tuned first, as in call 130.
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
rm -f /tmp/t.sqlite
timeout 100 $K tune examples/wavenet_layer.pat --dim DIL=8 --kernel k7_conv1d --arch sm_90 --db /tmp/t.sqlite --budget 6 --where load=tma -q 2>&1 | tail -1
timeout 30 $K tune examples/wavenet_layer.pat --dim DIL=8 --kernel k4_reshape --arch sm_90 --db /tmp/t.sqlite --budget 4 -q 2>&1 | tail -1
timeout 330 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/t.sqlite --workloads wavenet_layer_DIL_8 --budget 6 --tune-timeout 300 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -2
cp /tmp/a/*.json $OUT/ 2>/dev/null
$K cache list --db /tmp/t.sqlite 2>&1 | cut -c1-220 > $OUT/winners.txt; cat $OUT/winners.txt

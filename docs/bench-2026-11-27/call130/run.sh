#!/bin/bash
# call 130: WaveNet's layer at DIL = 8 beside PyTorch: kgen relays the dilated conv's weight
# tap-major (compiler/layout.c) and the conv runs the tap-major TMA path (attempt 26).  Its conv
# and the relayout's copy are tuned first (load=tma; the copy over both paths), then the bench
# at budget 6 on the same DB; then the default WaveNet (DIL = 2) in the same call.
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
timeout 150 $K tune examples/wavenet_layer.pat --dim DIL=8 --kernel k7_conv1d --arch sm_90 --db /tmp/t.sqlite --budget 8 --where load=tma -q 2>&1 | tail -1
timeout 60 $K tune examples/wavenet_layer.pat --dim DIL=8 --kernel k4_reshape --arch sm_90 --db /tmp/t.sqlite --budget 8 -q 2>&1 | tail -1
timeout 250 python3 tools/bench/bench.py measure --kgen $K --out $OUT/a --db /tmp/t.sqlite --workloads wavenet_layer_DIL_8 --budget 6 --tune-timeout 150 --no-max-autotune 2>&1 | tail -8
timeout 200 python3 tools/bench/bench.py measure --kgen $K --out $OUT/b --db /tmp/t2.sqlite --workloads wavenet_layer_default --budget 6 --tune-timeout 150 --no-max-autotune 2>&1 | tail -8
for f in /tmp/t.sqlite /tmp/t2.sqlite; do echo "== $f"; $K cache list --db $f 2>&1 | cut -c1-220; done

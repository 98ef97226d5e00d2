#!/bin/bash
# call 147 (2026-11-28): WaveNet (default, DIL = 2) beside PyTorch with the unfused gate in the
# condition conv's epilogue (conv1x1_residual_gate), fresh DB, budget 6.
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
rm -f /tmp/t.sqlite
timeout 400 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/t.sqlite --workloads wavenet_layer_default --budget 6 --tune-timeout 360 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -4
$K cache list --db /tmp/t.sqlite 2>&1 | cut -c1-220 > $OUT/winners.txt
cp /tmp/a/*.json $OUT/ 2>/dev/null

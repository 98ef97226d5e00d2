#!/bin/bash
# call 153 (2026-11-28): conv_cond_gate merged: WaveNet at DIL = 8 (x channel-first, the
# fold's K tiles all M-major panels) beside PyTorch, fresh DB, the winners listed.
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns KGEN_TEMPLATES=$PWD/templates
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
rm -f /tmp/t.sqlite
timeout 560 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/t.sqlite --workloads wavenet_layer_DIL_8 --budget 6 --tune-timeout 420 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -3
$K cache list --db /tmp/t.sqlite 2>&1 | cut -c1-220 > $OUT/winners.txt
cp /tmp/a/*.json $OUT/ 2>/dev/null

#!/bin/bash
# call 165 (2026-11-28): gated_tanh_residual and WaveNet beside PyTorch with
# load=tmares among the tuner's choices (5336096); fresh DB each, budget 6.
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
rm -f /tmp/t.sqlite /tmp/a/*.json
timeout 150 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/t.sqlite --workloads gated_tanh --budget 6 --tune-timeout 120 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -2
$K cache list --db /tmp/t.sqlite 2>&1 | cut -c1-230 > $OUT/winners_gated.txt
cp /tmp/a/*.json $OUT/ 2>/dev/null
echo "gated done at ${SECONDS}s"
rm -f /tmp/t.sqlite /tmp/a/*.json
timeout 265 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/t.sqlite --workloads wavenet_layer_default --budget 6 --tune-timeout 230 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -2
$K cache list --db /tmp/t.sqlite 2>&1 | cut -c1-230 > $OUT/winners_wavenet.txt
cp /tmp/a/*.json $OUT/ 2>/dev/null
echo "wavenet done at ${SECONDS}s"

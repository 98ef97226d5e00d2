#!/bin/bash
# call 159 (2026-11-28): WaveNet and LYNXNet2 beside PyTorch with main's templates (the
# residual copy-out with every run in flight, 20a753c); fresh DB each, budget 6.
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
rm -f /tmp/t.sqlite
timeout 268 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/t.sqlite --workloads wavenet_layer_default --budget 6 --tune-timeout 235 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -2
$K cache list --db /tmp/t.sqlite 2>&1 | cut -c1-220 > $OUT/winners_wavenet.txt
cp /tmp/a/*.json $OUT/ 2>/dev/null
echo "wavenet done at ${SECONDS}s"
rm -f /tmp/t.sqlite /tmp/a/*.json
timeout 290 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/t.sqlite --workloads lynxnet2_block_default --budget 6 --tune-timeout 240 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -2
$K cache list --db /tmp/t.sqlite 2>&1 | cut -c1-220 > $OUT/winners_lynxnet2.txt
cp /tmp/a/*.json $OUT/ 2>/dev/null
echo "lynxnet2 done at ${SECONDS}s"

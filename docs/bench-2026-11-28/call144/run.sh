#!/bin/bash
# call 144 (2026-11-28): elementwise order=tile with VEC = 8 (runs of 8 in both passes, 16-byte
# loads and stores): its checks, WaveNet's k2 at every config, then WaveNet beside PyTorch
# (fresh DB, budget 6).
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns KGEN_TEMPLATES=$PWD/templates
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
timeout 60 $K check tests/kernels/elementwise_tile.pat --arch sm_90 --where order=tile --configs 8 2>&1 | tail -1
timeout 60 $K check tests/kernels/elementwise_tile.pat --arch sm_90 --where VEC=8 --configs 8 2>&1 | tail -1
timeout 60 $K check examples/wavenet_layer.pat --dim B=2 --dim T=256 --kernel k2_elementwise --arch sm_90 --configs 40 2>&1 | tail -1
timeout 80 $K tune examples/wavenet_layer.pat --kernel k2_elementwise --where order=tile --arch sm_90 --db /tmp/ew.sqlite \
    --strategy exhaustive > /dev/null 2>&1 || echo "tune ew rc=$?"
$K cache show 1 --db /tmp/ew.sqlite 2>&1 | grep -E "^ *[0-9]" | cut -c1-150
rm -f /tmp/t.sqlite
timeout 330 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/t.sqlite --workloads wavenet_layer_default --budget 6 --tune-timeout 300 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -2
$K cache list --db /tmp/t.sqlite 2>&1 | cut -c1-220 > $OUT/winners.txt
cp /tmp/a/*.json $OUT/ 2>/dev/null

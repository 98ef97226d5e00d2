#!/bin/bash
# call 170 (2026-11-28, session 35): ConvNeXt and LYNXNet2 beside PyTorch with the consumers'
# proxy fence dropped where every copy is TMA (2eab0c3, call 169); fresh DB each,
# budget 6.
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
rm -f /tmp/t.sqlite /tmp/a/*.json
timeout 215 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/t.sqlite --workloads convnext_block_default --budget 6 --tune-timeout 180 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -2
$K cache list --db /tmp/t.sqlite 2>&1 | cut -c1-230 > $OUT/winners_convnext.txt
cp /tmp/a/*.json $OUT/ 2>/dev/null
echo "convnext done at ${SECONDS}s"
rm -f /tmp/t.sqlite /tmp/a/*.json
timeout 260 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/t.sqlite --workloads lynxnet2_block_default --budget 6 --tune-timeout 215 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -2
$K cache list --db /tmp/t.sqlite 2>&1 | cut -c1-230 > $OUT/winners_lynxnet2.txt
cp /tmp/a/*.json $OUT/ 2>/dev/null
echo "lynxnet2 done at ${SECONDS}s"

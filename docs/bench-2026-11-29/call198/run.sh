#!/bin/bash
# call 198 (2026-11-29, session 40): main at 792cf18's templates (the staged-tap conv):
# LYNXNet2 and ConvNeXt beside PyTorch in one call, each from a fresh DB at budget 6
# (LYNXNet2 as in call 196, ConvNeXt as in call 190).
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
rm -f /tmp/t.sqlite /tmp/a/*.json
timeout 270 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/t.sqlite --workloads lynxnet2_block_default --budget 6 --tune-timeout 230 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -1
$K cache list --db /tmp/t.sqlite 2>&1 | cut -c1-230 > $OUT/winners_lynxnet2.txt
cp /tmp/a/*.json $OUT/ 2>/dev/null
echo "lynxnet2 done at ${SECONDS}s"
rm -f /tmp/t.sqlite
timeout $((560 - SECONDS)) python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/t.sqlite --workloads convnext_block_default --budget 6 --tune-timeout 210 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -1
$K cache list --db /tmp/t.sqlite 2>&1 | cut -c1-230 > $OUT/winners_convnext.txt
cp /tmp/a/*.json $OUT/ 2>/dev/null
echo "done at ${SECONDS}s"

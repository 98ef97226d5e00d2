#!/bin/bash
# call 188 (2026-11-29, session 38): ConvNeXt beside PyTorch at main (e17eb9e), to check the
# table's row (call 172, before attempt 35's dwconv.lua changes, which leave ConvNeXt's
# channel-first conv the same code); fresh DB, budget 6, tune timeout 210 s as in call 172.
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
rm -f /tmp/t.sqlite /tmp/a/*.json
timeout 250 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/t.sqlite --workloads convnext_block_default --budget 6 --tune-timeout 210 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -2
$K cache list --db /tmp/t.sqlite 2>&1 | cut -c1-230 > $OUT/winners_convnext.txt
cp /tmp/a/*.json $OUT/ 2>/dev/null
echo "convnext done at ${SECONDS}s"

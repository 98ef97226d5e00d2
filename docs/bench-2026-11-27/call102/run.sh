#!/bin/bash
# call 102: the WaveNet block beside PyTorch with the retiring consumers (its dilated conv pre-tuned in call 101)
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
cp .devdb/tune101.sqlite /tmp/t.sqlite
timeout 330 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/t.sqlite --workloads wavenet_layer_default --budget 6 --tune-timeout 280 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -2
for d in /tmp/a/*/; do KGRT_PDL=0 timeout 30 python3 tools/bench/prof.py $d 2>&1 | grep -E "sum of|do_bench|k[0-9]+_" | head -9; done | tee $OUT/prof.txt
$K cache list --db /tmp/t.sqlite 2>&1 | cut -c1-230 > $OUT/winners.txt
cp /tmp/a/*.json $OUT/ 2>/dev/null; cp /tmp/t.sqlite $OUT/tune102.sqlite

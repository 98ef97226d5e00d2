#!/bin/bash
# call 76: WaveNet and the encoder f16 beside PyTorch with the TMA store, the bias in the accumulators and load=panel (WaveNet from call 75's DB, the encoder from call 66's: the non-GEMM kernels kept)
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
cp .devdb/tune75.sqlite /tmp/t.sqlite
timeout 280 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/t.sqlite --workloads wavenet_layer_default --budget 6 --tune-timeout 240 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -2
cp .devdb/tune66.sqlite /tmp/e.sqlite
timeout 200 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/e.sqlite --workloads encoder_layer_default --budget 6 --tune-timeout 160 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -2
for d in /tmp/a/wavenet*; do KGRT_PDL=0 timeout 25 python3 tools/bench/prof.py $d 2>&1 | grep -E "sum of|do_bench|k[0-9]+_" | head -9; done | tee $OUT/prof.txt
cp /tmp/a/*.json $OUT/ 2>/dev/null

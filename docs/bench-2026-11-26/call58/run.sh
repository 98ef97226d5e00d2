#!/bin/bash
# call 58: PDL (KG_GRID_DEP + programmatic stream serialization): the fp32 blocks beside PyTorch; WaveNet with KGRT_PDL=0 and 1
# (.devdb/prof.py: the first form of tools/bench/prof.py; .devdb/ carried build-dev-bin and the DB)
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
cp .devdb/tune.sqlite /tmp/tune.sqlite; chmod u+w /tmp/tune.sqlite
timeout 400 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/tune.sqlite --workloads wavenet_layer_B_1,lynxnet2_block_B_1,convnext_block_B_1,encoder_layer_B_1 --budget 24 --tune-timeout 150 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -4
D=/tmp/a/wavenet_layer_B_1_T_861_f32
for p in 0 1 0 1; do echo "KGRT_PDL=$p"; KGRT_PDL=$p timeout 100 python3 .devdb/prof.py $D 2>&1 | grep -E "sum of|do_bench|k[0-9]_" | head -9; done | tee $OUT/prof.txt
cp /tmp/a/*.json $OUT/ 2>/dev/null; cp /tmp/tune.sqlite $OUT/

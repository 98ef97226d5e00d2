#!/bin/bash
# call 59: the 3xTF32 split by a mask (2 instructions, not cvt.rna's 5): GPU checks of the f32 blocks, then the fp32 blocks beside PyTorch (fresh DB)
# (.devdb/prof.py: the first form of tools/bench/prof.py; .devdb/ carried build-dev-bin and the DB)
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
for m in wavenet_layer lynxnet2_block convnext_block; do timeout 100 $K check examples/$m.pat --arch sm_90 --configs 4 --dim B=1 --dim T=861 --dtype DT=f32 2>&1 | tail -1; done | tee $OUT/check.txt
timeout 100 $K check examples/encoder_layer.pat --arch sm_90 --configs 4 --dim B=1 --dim L=861 --dtype DT=f32 2>&1 | tail -1 | tee -a $OUT/check.txt
timeout 330 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/tune.sqlite --workloads wavenet_layer_B_1,lynxnet2_block_B_1,convnext_block_B_1,encoder_layer_B_1 --budget 24 --tune-timeout 150 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -4
D=/tmp/a/wavenet_layer_B_1_T_861_f32
timeout 60 python3 .devdb/prof.py $D 2>&1 | grep -E "sum of|do_bench|k[0-9]_" | head -9 | tee $OUT/prof.txt
$K cache list --db /tmp/tune.sqlite > $OUT/cache_list.txt 2>&1
cp /tmp/a/*.json $OUT/ 2>/dev/null; cp /tmp/tune.sqlite $OUT/

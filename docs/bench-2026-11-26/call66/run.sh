#!/bin/bash
# call 66: conv_gelu (the encoder's conv FFN + scale + GELU in one GEMM) and pp launched plainly: GPU check, then the encoder f16 + f32 beside PyTorch (fresh DB)
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
rm -f /tmp/tune.sqlite
for k in k19_conv_gelu k18_layernorm; do timeout 100 $K check examples/encoder_layer.pat --arch sm_90 --configs 8 --kernel $k 2>&1 | tail -9; done | tee $OUT/check.txt
timeout 90 $K check examples/encoder_layer.pat --arch sm_90 --configs 8 --kernel k19_conv_gelu --dim B=1 --dim L=861 --dtype DT=f32 2>&1 | tail -9 | tee -a $OUT/check.txt
timeout 330 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/tune.sqlite --workloads encoder_layer_default,encoder_layer_B_1 --budget 10 --tune-timeout 150 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -3
for d in /tmp/a/encoder*; do [ -d $d ] && KGRT_PDL=0 timeout 40 python3 tools/bench/prof.py $d 2>&1 | grep -E "sum of|do_bench|k[0-9]+_" | head -16; done | tee $OUT/prof.txt
cp /tmp/a/*.json $OUT/ 2>/dev/null; cp /tmp/tune.sqlite $OUT/ 2>/dev/null

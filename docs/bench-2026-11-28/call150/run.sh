#!/bin/bash
# call 150 (2026-11-28): the branch wip/fold (conv_cond_gate: the dilated conv and the
# condition's 1x1 conv as one GEMM, the gate as its epilogue; its templates and patterns
# carried in .devdb/fold, the branch's commit 8c61bbf): kgen check of its TMA path, then
# WaveNet beside PyTorch.  The fetched files are in branch/, out of render's reach: the
# figures are a branch's, with a tune cut short.
# (the device's copy of the tree takes the branch's templates and patterns: bench.py reads
# the tree's)
cp .devdb/fold/templates/*.lua templates/ && cp .devdb/fold/patterns/*.pat patterns/
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
W=examples/wavenet_layer.pat
timeout 60 $K check $W --unfuse all --dim B=2 --dim C=128 --dim H=64 --dim T=128 --kernel k8_conv_cond_gate \
    --arch sm_90 --where load=tma --configs 40 > $OUT/check_c128.txt 2>&1; tail -1 $OUT/check_c128.txt
timeout 60 $K check $W --unfuse all --dim B=2 --dim T=128 --kernel k8_conv_cond_gate \
    --arch sm_90 --where load=tma --configs 10 > $OUT/check_c512.txt 2>&1; tail -1 $OUT/check_c512.txt
rm -f /tmp/t.sqlite
timeout 250 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/t.sqlite --workloads wavenet_layer_default --budget 6 --tune-timeout 200 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -3
$K cache list --db /tmp/t.sqlite 2>&1 | cut -c1-220 > $OUT/winners.txt
cp /tmp/a/*.json $OUT/ 2>/dev/null

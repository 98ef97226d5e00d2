#!/bin/bash
# call 137: dwconv_ln load=pipe with __launch_bounds__(BLOCK, PB), checked (the
# tests/kernels case and ConvNeXt at B = 8, where blocks take several tiles); then
# ConvNeXt and the small ln_gemm_gelu beside PyTorch with the 16-byte stores (kg.st16)
# and pipe, fresh DB, budget 6 (as call 123)
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns KGEN_TEMPLATES=$PWD/templates
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
timeout 100 $K check tests/kernels/dwconv_ln.pat --arch sm_90 --where load=pipe --configs 200 2>&1 | tail -1
timeout 60 $K check examples/convnext_block.pat --dim B=8 --unfuse k2_ln_gemm_gelu --kernel k0_dwconv_ln \
    --where load=pipe --configs 40 --arch sm_90 2>&1 | tail -1
rm -f /tmp/t.sqlite
timeout 230 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/t.sqlite --workloads convnext_block_default --budget 6 --tune-timeout 180 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -2
cp /tmp/a/*.json $OUT/ 2>/dev/null
timeout 150 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/t.sqlite --workloads ln_gemm_gelu_M_49152 --budget 6 --tune-timeout 110 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -2
$K cache list --db /tmp/t.sqlite 2>&1 | cut -c1-220 > $OUT/winners.txt
cp /tmp/a/*.json $OUT/ 2>/dev/null

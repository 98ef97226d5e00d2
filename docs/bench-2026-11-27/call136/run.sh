#!/bin/bash
# call 136: dwconv_ln load=pipe (persistent blocks, the next tile's window by cp.async
# while this one is computed, weights, gamma and beta in registers): every candidate
# checked against the double reference, then ConvNeXt's dwconv_ln tuned over v16 and pipe
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns KGEN_TEMPLATES=$PWD/templates
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
timeout 100 $K check tests/kernels/dwconv_ln.pat --arch sm_90 --where load=pipe --configs 200 2>&1 | grep -v " ok " | tail -8
timeout 60 $K check examples/convnext_block.pat --unfuse k2_ln_gemm_gelu --kernel k0_dwconv_ln --arch sm_90 --where load=pipe --configs 12 2>&1 | tail -3
for ld in v16 pipe; do
  timeout 150 $K tune examples/convnext_block.pat --unfuse k2_ln_gemm_gelu --kernel k0_dwconv_ln --where load=$ld --where xred=shfl --arch sm_90 --db /tmp/dl.sqlite --strategy exhaustive > /tmp/dl.$ld.log 2>&1 || echo "tune $ld rc=$?"
done
$K cache show 1 --db /tmp/dl.sqlite 2>&1 | grep -E "^ *[0-9]" | cut -c1-170 > $OUT/trials.txt; cat $OUT/trials.txt | wc -l

#!/bin/bash
# next (written in session 29, not yet run): dwconv_ln load=pipe with one window buffer
# (NB = 1: the next tile's window issued once the conv has read this one), so that two
# 512-thread blocks fit a multiprocessor at BT = 16 (76 KB each; NB = 2 takes 117 KB).
# Apply dwln_nb.patch first (git apply), rebuild and carry build-dev-bin and .devdb/tplh
# (HEAD's templates).  Checks every NB = 1 candidate, then times NB = 1 against NB = 2
# in one call.
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns KGEN_TEMPLATES=$PWD/templates
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
timeout 100 $K check tests/kernels/dwconv_ln.pat --arch sm_90 --where load=pipe --where NB=1 --configs 200 2>&1 | tail -1
timeout 60 $K check examples/convnext_block.pat --dim B=8 --unfuse k2_ln_gemm_gelu --kernel k0_dwconv_ln \
    --where load=pipe --where NB=1 --configs 40 --arch sm_90 2>&1 | tail -1
timeout 200 $K tune examples/convnext_block.pat --unfuse k2_ln_gemm_gelu --kernel k0_dwconv_ln --where load=pipe \
    --where xred=shfl --arch sm_90 --db /tmp/dl.sqlite --strategy exhaustive > /dev/null 2>&1 || echo "tune rc=$?"
$K cache show 1 --db /tmp/dl.sqlite 2>&1 | grep -E "^ *[0-9]" | cut -c1-170 > $OUT/trials.txt
awk '{for(i=1;i<=NF;i++) if($i=="ok") {print $(i+1), $0; break}}' $OUT/trials.txt | sort -n | head -12

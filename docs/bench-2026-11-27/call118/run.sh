#!/bin/bash
# (.devdb/tpl is written from templates/ by docs/bench-2026-11-27/call117/patch_kq.py, run first in the repository root;
#  call 118 ran it after interleaving the MMAs in templates/gemm.lua, a change not kept)
# call 118: the wgmma K step with the accumulators interleaved (k16 slice outer, the warpgroup's
# m64 blocks inner, so that no two MMAs in a row accumulate into the same registers): call
# 117's counters for the 128x128 GELU GEMM and linear, then the tuner's medians of the same
# configs from the real templates
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
W="--where load=tma --where sched=pp --where path=wgmma --where BM=128 --where BN=128 --where STAGES=4"
run() { echo "== $1"; KGEN_TEMPLATES=$PWD/.devdb/tpl timeout 80 $K check $2 --arch sm_90 $W --configs 1 > /tmp/o.txt 2>&1; grep -E "KQ|ok |wrong" /tmp/o.txt | sort | uniq | head -5 | cut -c1-250; }
run gelu "examples/convnext_block.pat --unfuse k2_ln_gemm_gelu --kernel k1_gemm_gelu"
run linear "docs/bench-2026-11-27/call115/lin512.pat --kernel k0_linear"
export KGEN_TEMPLATES=$PWD/templates
timeout 60 $K tune examples/convnext_block.pat --unfuse k2_ln_gemm_gelu --kernel k1_gemm_gelu --arch sm_90 --db /tmp/a.sqlite $W --budget 1 2>&1 | tail -1
timeout 60 $K tune docs/bench-2026-11-27/call115/lin512.pat --kernel k0_linear --arch sm_90 --db /tmp/a.sqlite $W --budget 1 2>&1 | tail -1
$K cache list --db /tmp/a.sqlite 2>&1 | cut -c1-120

#!/bin/bash
# (.devdb/tpl is written from templates/ by docs/bench-2026-11-27/call117/patch_kq.py, run first in the repository root)
# call 117: call 115's counters in steady state.  The persistent walk runs three times in one
# launch and the third walk's counters are printed (docs/bench-2026-11-27/call117/patch_kq.py); the block's tiles
# are taken as one sequence j = 0 .. 3n - 1, so the two consumers still alternate (call 116
# repeated each consumer's own walk, which let one run a tile ahead and hung at the turn).
# The K loop is split into waits on the full barrier and on the MMAs.
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns KGEN_TEMPLATES=$PWD/.devdb/tpl
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
W="--where load=tma --where sched=pp --where path=wgmma"
run() { echo "== $1 $2"; ww=$W; for c in $2; do ww="$ww --where $c"; done
  timeout 80 $K check $3 --arch sm_90 $ww --configs 1 > /tmp/o.txt 2>&1; grep -E "KQ|ok |wrong" /tmp/o.txt | sort | uniq | head -8 | cut -c1-250; }
run gelu "BM=128 BN=128 STAGES=4" "examples/convnext_block.pat --unfuse k2_ln_gemm_gelu --kernel k1_gemm_gelu"
run linear "BM=128 BN=128 STAGES=4" "docs/bench-2026-11-27/call115/lin512.pat --kernel k0_linear"
run gelu "BM=64 BN=256 STAGES=4" "examples/convnext_block.pat --unfuse k2_ln_gemm_gelu --kernel k1_gemm_gelu"

#!/bin/bash
# (.devdb/tpl was written from templates/ by an earlier form of docs/bench-2026-11-27/call117/patch_kq.py)
# call 116: call 115's counters in steady state, first try: each consumer repeated its own
# walk three times in one launch.  Every check hung (rc 124 at 100 s; an earlier try of this
# call, with counters in the producer too, hung the same way).  The cause: a block of 47 tiles
# gives one consumer 24 and the other 23, so over repeated walks the first would have to run two
# tiles ahead of the other, which the strict turn order forbids: both wait on the turn.  Call 117 walks the block's tiles as one
# sequence instead.
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns KGEN_TEMPLATES=$PWD/.devdb/tpl
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
W="--where load=tma --where sched=pp --where path=wgmma"
for cfg in "BM=128 BN=128 STAGES=4" "BM=64 BN=256 STAGES=4"; do
  ww=$W; for c in $cfg; do ww="$ww --where $c"; done
  echo "== gelu $cfg"
  timeout 100 $K check examples/convnext_block.pat --unfuse k2_ln_gemm_gelu --arch sm_90 --kernel k1_gemm_gelu $ww --configs 1 > /tmp/o1.txt 2>&1; grep -E "KQ|KP" /tmp/o1.txt | sort | uniq | head -12
  echo "== linear $cfg"
  timeout 100 $K check docs/bench-2026-11-27/call115/lin512.pat --arch sm_90 --kernel k0_linear $ww --configs 1 > /tmp/o2.txt 2>&1; grep -E "KQ|KP" /tmp/o2.txt | sort | uniq | head -12
done

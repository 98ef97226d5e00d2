#!/bin/bash
# call 141 (2026-11-28): this run.sh as written in session 29, run unchanged.
# next (written in session 29, not yet run): two changes to dwconv_ln's load=pipe, each a
# patch against 82c26be's templates/dwconv_ln.lua:
#   dwln_nb.patch  - one window buffer (NB = 1: the next tile's window issued once the conv
#                    has read this one), so that two 512-thread blocks fit a
#                    multiprocessor at BT = 16 (76 KB each; NB = 2 takes 117 KB);
#   dwln_swz.patch - the rows' runs of 8 with their halves swapped where bit 5 of the
#                    channel is set, so that the LayerNorm's 16-byte reads are
#                    conflict-free (Nsight Compute, call 134: 2-way).
# Before the call: .devdb/tpl0 = templates/ as committed, .devdb/tplnb and .devdb/tplsw =
# templates/ with each patch applied (cp -r templates .devdb/tplnb; git apply --directory
# ... or patch -d .devdb/tplnb -p2 < dwln_nb.patch); carry build-dev-bin and .devdb.
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
for tp in tplnb tplsw; do
  export KGEN_TEMPLATES=$PWD/.devdb/$tp
  timeout 100 $K check tests/kernels/dwconv_ln.pat --arch sm_90 --where load=pipe --configs 200 2>&1 | tail -1
  timeout 60 $K check examples/convnext_block.pat --dim B=8 --unfuse k2_ln_gemm_gelu --kernel k0_dwconv_ln \
      --where load=pipe --configs 40 --arch sm_90 2>&1 | tail -1
done
t() { # tag templates wheres
  KGEN_TEMPLATES=$PWD/.devdb/$2 timeout 200 $K tune examples/convnext_block.pat --unfuse k2_ln_gemm_gelu \
      --kernel k0_dwconv_ln --where load=pipe --where xred=shfl $3 --arch sm_90 --db /tmp/$1.sqlite \
      --strategy exhaustive > /dev/null 2>&1 || echo "tune $1 rc=$?"
}
t base tpl0 "--where BLOCK=512"
t nb tplnb "--where BLOCK=512"
t sw tplsw "--where BLOCK=512"
for f in /tmp/base.sqlite /tmp/nb.sqlite /tmp/sw.sqlite; do
  echo "== $f"; $K cache show 1 --db $f 2>&1 | grep -E "^ *[0-9]" | cut -c1-170
done

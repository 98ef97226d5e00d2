#!/bin/bash
# call 135: 16-byte stores that nvcc had split into 4-byte ones (dwconv_ln, rownorm,
# elementwise VEC = 8), now one st.global.v4 through kg.st16: HEAD's templates
# (.devdb/tplh) against the working tree's, each kernel's space (pinned to the vector
# design) searched exhaustively on each
# (.devdb/tplh: HEAD's templates, git archive of 77efd40)
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
t() { # tag templates model-and-kernel-and-wheres
  KGEN_TEMPLATES=$PWD/$2 timeout 100 $K tune $3 --arch sm_90 --db /tmp/$1.$(basename $2).sqlite --strategy exhaustive > /tmp/$1.$(basename $2).log 2>&1 || echo "tune $1 $2 rc=$?"
}
for tp in .devdb/tplh templates; do
  t dl $tp "examples/convnext_block.pat --unfuse k2_ln_gemm_gelu --kernel k0_dwconv_ln --where load=v16"
  t lns $tp "tools/bench/ln_gemm_gelu.pat --unfuse all --kernel k0_layernorm --where path=regs"
  t lnl $tp "examples/lynxnet2_block.pat --kernel k0_layernorm --where path=regs"
  t ew $tp "examples/wavenet_layer.pat --kernel k2_elementwise"
done
for f in /tmp/*.sqlite; do echo "== $f"; $K cache list --db $f 2>&1 | tail -n +2 | cut -c1-200; done
for f in /tmp/dl.*.sqlite /tmp/ew.*.sqlite; do echo "== $f"; $K cache show 1 --db $f 2>&1 | grep -E "^ *[0-9]" | sort -k3 -n | head -8 | cut -c1-200; done

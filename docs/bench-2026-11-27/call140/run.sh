#!/bin/bash
# call 140: the LayerNorm sums in 8 partials and a tree (dwconv_ln v16/pipe, rownorm regs):
# dwconv_ln pipe and the LayerNorms against HEAD's templates (.devdb/tplh) in this call;
# then ConvNeXt beside PyTorch (fresh DB, budget 6)
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
export KGEN_TEMPLATES=$PWD/templates
timeout 40 $K check examples/convnext_block.pat --dim B=8 --unfuse k2_ln_gemm_gelu --kernel k0_dwconv_ln --where load=pipe --configs 12 --arch sm_90 2>&1 | tail -1
timeout 40 $K check tests/kernels/rownorm_layernorm.pat --arch sm_90 --where path=regs --configs 6 2>&1 | tail -1
timeout 40 $K check tests/kernels/rownorm_rmsnorm.pat --arch sm_90 --where path=regs --configs 6 2>&1 | tail -1
t() { # tag templates model-and-kernel-and-wheres
  KGEN_TEMPLATES=$PWD/$2 timeout 60 $K tune $3 --arch sm_90 --db /tmp/$1.$(basename $2).sqlite --strategy exhaustive > /dev/null 2>&1 || echo "tune $1 $2 rc=$?"
}
C="examples/convnext_block.pat --unfuse k2_ln_gemm_gelu --kernel k0_dwconv_ln --where xred=shfl --where BLOCK=512"
t dl .devdb/tplh "$C --where load=v16 --where BT=16"
t dl templates "$C --where load=pipe --where BT=32"
for tp in .devdb/tplh templates; do
  t lnl $tp "examples/lynxnet2_block.pat --kernel k0_layernorm --where path=regs --where xred=shfl --where BLOCK=128 --where TPR=32"
  t lns $tp "tools/bench/ln_gemm_gelu.pat --unfuse all --kernel k0_layernorm --where path=regs --where xred=shfl --where BLOCK=128 --where TPR=16"
done
for f in /tmp/dl.*.sqlite /tmp/ln*.sqlite; do echo "== $f"; $K cache show 1 --db $f 2>&1 | grep -E "^ *[0-9]" | cut -c1-150; done
rm -f /tmp/t.sqlite
timeout 230 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/t.sqlite --workloads convnext_block_default --budget 6 --tune-timeout 180 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -2
$K cache list --db /tmp/t.sqlite 2>&1 | cut -c1-220 > $OUT/winners.txt
cp /tmp/a/*.json $OUT/ 2>/dev/null

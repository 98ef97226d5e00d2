#!/bin/bash
# call 138: rownorm's last pass reading gamma and beta 16 bytes a run (RN_VEC), checked
# on the GPU; LYNXNet2's and the small ln_gemm_gelu's LayerNorm, HEAD's templates
# (.devdb/tplh) against the working tree's in this call; then LYNXNet2 beside PyTorch
# (fresh DB, budget 6, as call 124)
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
export KGEN_TEMPLATES=$PWD/templates
for f in rownorm_layernorm rownorm_rmsnorm; do
  timeout 60 $K check tests/kernels/$f.pat --arch sm_90 --where path=regs --configs 12 2>&1 | tail -1
done
timeout 40 $K check examples/lynxnet2_block.pat --dim B=2 --kernel k0_layernorm --arch sm_90 --where path=regs --configs 8 2>&1 | tail -1
t() { # tag templates model-and-kernel-and-wheres
  KGEN_TEMPLATES=$PWD/$2 timeout 60 $K tune $3 --arch sm_90 --db /tmp/$1.$(basename $2).sqlite --strategy exhaustive > /dev/null 2>&1 || echo "tune $1 $2 rc=$?"
}
for tp in .devdb/tplh templates; do
  t lnl $tp "examples/lynxnet2_block.pat --kernel k0_layernorm --where path=regs --where xred=shfl --where BLOCK=128"
  t lns $tp "tools/bench/ln_gemm_gelu.pat --unfuse all --kernel k0_layernorm --where path=regs --where xred=shfl --where BLOCK=128"
done
for f in /tmp/ln*.sqlite; do echo "== $f"; $K cache show 1 --db $f 2>&1 | grep -E "^ *[0-9]" | cut -c1-150; done
rm -f /tmp/t.sqlite
timeout 300 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/t.sqlite --workloads lynxnet2_block_default --budget 6 --tune-timeout 240 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -2
$K cache list --db /tmp/t.sqlite 2>&1 | cut -c1-220 > $OUT/winners.txt
cp /tmp/a/*.json $OUT/ 2>/dev/null

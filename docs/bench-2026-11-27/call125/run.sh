#!/bin/bash
# call 125 (rownorm_rpg.patch beside this file, applied to templates/ of de78bea; not kept): rownorm's new tuning knob RPG (path=regs: RPG rows a thread group takes in turn, the
# next row's loads before this row's work).  (1) kgen check of the norms with RPG = 2 and 4;
# (2) every regs/shfl config of LYNXNet2's LayerNorm (49152 x 1024) and the small ln_gemm_gelu's
# (49152 x 256), exhaustive; the best three of each RPG.
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns KGEN_TEMPLATES=$PWD/templates
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
for f in rownorm_layernorm rownorm_softmax rownorm_rmsnorm; do
  timeout 60 $K check tests/kernels/$f.pat --arch sm_90 --where path=regs --where "RPG=2,4" --configs 4 2>&1 | tail -1
done
best() { grep " ok " $1 | awk '{for(i=1;i<=NF;i++) if($i=="ok") print $(i+1), $0}' | sort -n > /tmp/s.txt
  for r in 1 2 4; do grep "RPG=$r " /tmp/s.txt | head -3 | cut -c1-120; done; }
rm -f /tmp/l1.sqlite /tmp/l2.sqlite
timeout 150 $K tune examples/lynxnet2_block.pat --kernel k0_layernorm --arch sm_90 --db /tmp/l1.sqlite --strategy exhaustive --time 140 --where path=regs --where xred=shfl 2>&1 | tail -1
$K cache show 1 --db /tmp/l1.sqlite 2>&1 | cut -c1-200 > $OUT/trials_lynx_ln.txt; best $OUT/trials_lynx_ln.txt
timeout 120 $K tune tools/bench/ln_gemm_gelu.pat --unfuse all --kernel k0_layernorm --arch sm_90 --db /tmp/l2.sqlite --strategy exhaustive --time 110 --where path=regs --where xred=shfl 2>&1 | tail -1
$K cache show 1 --db /tmp/l2.sqlite 2>&1 | cut -c1-200 > $OUT/trials_lgg_ln.txt; best $OUT/trials_lgg_ln.txt

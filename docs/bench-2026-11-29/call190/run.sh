#!/bin/bash
# call 190 (2026-11-29, session 39), the working tree's templates (gemm.lua's STAGES
# list with 5): the pp gemm_glu of LYNXNet2 (its residual linear takes no fifth stage) and ConvNeXt at STAGES=4 and 5, pinned, one
# trial each (the tuner's median), in turn twice; ConvNeXt's GELU GEMM also by mcast at 5
# and at pp 64x256 STAGES=3 (m64n256: less shared-memory traffic a MAC, more L2); then
# the ConvNeXt block.
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
C=examples/convnext_block.pat
Y=examples/lynxnet2_block.pat
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
pin() { # tag model-and-kernel wheres...
  local tag=$1 m=$2 W=""; shift 2
  for kv in "$@"; do W="$W --where $kv"; done
  timeout 90 $K tune $m --arch sm_90 --db /tmp/p.db $W --budget 1 -q > /dev/null 2>&1
  echo "$tag $*: rc $? $($K cache list --db /tmp/p.db 2>/dev/null | sed -n 2p | awk '{print $5}') at ${SECONDS}s"
  rm -f /tmp/p.db
}
PP="sched=pp BM=128 BN=128 WM=1 WN=1"
{
for r in 1 2; do
  for s in 4 5; do
    pin glu$r "$Y --kernel k3_gemm_glu" $PP load=tma STAGES=$s
    pin glu$r "$Y --kernel k3_gemm_glu" $PP load=mcast STAGES=$s
  done
done
pin gelu "$C --unfuse all --kernel k1_gemm_gelu" $PP load=mcast STAGES=5
pin gelu "$C --unfuse all --kernel k1_gemm_gelu" $PP load=tma STAGES=5
pin gelu "$C --unfuse all --kernel k1_gemm_gelu" sched=pp BM=64 BN=256 WM=1 WN=1 load=tma STAGES=3
} | tee $OUT/pins.txt
# then ConvNeXt beside PyTorch as in call 188 (fresh DB, budget 6, tune timeout 210 s)
rm -f /tmp/t.sqlite /tmp/a/*.json
timeout 280 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/t.sqlite --workloads convnext_block_default --budget 6 --tune-timeout 210 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -2
$K cache list --db /tmp/t.sqlite 2>&1 | cut -c1-230 > $OUT/winners_convnext.txt
cp /tmp/a/*.json $OUT/ 2>/dev/null
echo "done at ${SECONDS}s"

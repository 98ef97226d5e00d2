#!/bin/bash
# call 209 (session 42): load=tmares under sched=pp (res_pp): the residual's tile by TMA
# into the consumer's own tile, added in place, the tile TMA-stored.  Checked first
# (tests/kernels/gemm_residual_tma.pat, LYNXNet2's residual linear at B = 2, T = 301 and
# at B = 4), then the tuner's medians of LYNXNet2's residual linear, pp 128x128, by tma
# (main's pick) and by tmares at STAGES = 4 and 5, in turn, twice; then the block by
# bench.py (fresh DB, budget 6).
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns KGEN_TEMPLATES=$PWD/templates
K=build-dev-bin/kgen
Y=examples/lynxnet2_block.pat
U="--unfuse k0_ln_dwconv --kernel k5_linear_residual"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
{
  $K check tests/kernels/gemm_residual_tma.pat --arch sm_90 --where load=tmares --where sched=pp --configs 16 2>&1 | tail -1
  $K check $Y --dim B=2 --dim T=301 $U --arch sm_90 --where load=tmares --where sched=pp --configs 12 2>&1 | tail -1
  $K check $Y --dim B=4 $U --arch sm_90 --where load=tmares --where sched=pp --configs 8 2>&1 | tail -1
} | tee $OUT/checks.txt
i=0
for r in 1 2; do
  for v in "tma 4" "tmares 4" "tmares 5"; do
    set -- $v; i=$((i+1))
    timeout 60 $K tune $Y $U --arch sm_90 --db /tmp/r$i.db --where sched=pp --where load=$1 --where BM=128 --where BN=128 --where STAGES=$2 --budget 1 -q > /dev/null 2>&1
    echo "$1 STAGES=$2: $($K cache list --db /tmp/r$i.db 2>&1 | sed -n 2p | awk '{print $5}') at ${SECONDS}s"
  done
done | tee $OUT/pins.txt
timeout 330 python3 tools/bench/bench.py measure --kgen $K --out $OUT/a --db /tmp/t.sqlite \
  --workloads lynxnet2_block_default --budget 6 --tune-timeout 300 --no-max-autotune 2>&1 | tail -4
echo "done at ${SECONDS}s"

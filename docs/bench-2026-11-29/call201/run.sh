#!/bin/bash
# call 201 (session 41): ln_dwconv's mma path, second version.  Call 200's ran 0.184 ms
# against the unfused 0.0575 + 0.0856; here each lane reduces its staged 8 channels of
# two steps to a mean and M2 and the BC / 8 lanes holding a step combine them by
# shuffles (no separate pass over the window), and the normalising pass holds a pair
# of steps' mean and rstd in registers over its channels (one float4 read; call 200's
# read four floats 16 bytes apart a lane, 4-way bank conflicts).  Checked first, then
# the tuner's medians of all 12 mma configs; where the best is under 0.130 ms, the
# LYNXNet2 block by bench.py (the tuner then times the fused and the unfused plans).
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns KGEN_TEMPLATES=$PWD/templates
K=build-dev-bin/kgen
Y=examples/lynxnet2_block.pat
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
{
  $K check tests/kernels/ln_dwconv.pat --arch sm_90 --configs 16 2>&1 | tail -1
  $K check $Y --dim B=2 --dim T=301 --kernel k0_ln_dwconv --arch sm_90 --where path=mma --configs 12 2>&1 | tail -1
  $K check $Y --dim B=8 --kernel k0_ln_dwconv --arch sm_90 --where path=mma --configs 12 2>&1 | tail -1
} | tee $OUT/checks.txt
echo "checks done at ${SECONDS}s"
timeout 150 $K tune $Y --kernel k0_ln_dwconv --arch sm_90 --db /tmp/ln.db --where path=mma --budget 12 -q > $OUT/tune_ln.txt 2>&1
$K cache list --db /tmp/ln.db | tee $OUT/list_ln.txt
$K cache show "$($K cache list --db /tmp/ln.db | sed -n 2p | awk '{print $2}')" --db /tmp/ln.db > $OUT/trials_ln.txt 2>&1
cat $OUT/trials_ln.txt
best=$($K cache list --db /tmp/ln.db | sed -n 2p | awk '{print $5}')
echo "best $best at ${SECONDS}s"
if awk "BEGIN{exit !($best < 0.130)}"; then
  timeout 420 python3 tools/bench/bench.py measure --kgen $K --out $OUT/a --db /tmp/t.sqlite \
    --workloads lynxnet2_block_default --budget 6 --tune-timeout 330 --no-max-autotune 2>&1 | tail -25
fi
echo "done at ${SECONDS}s"

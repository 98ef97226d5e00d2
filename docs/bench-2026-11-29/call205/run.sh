#!/bin/bash
# (Not kept: this call ran a working copy of templates/dwconv.lua that was reverted
# after it; performance.md attempt 39 describes the version.)
# call 205 (session 41): ln_dwconv's mma path, fourth version: gamma and beta leave the
# normalising pass, which now stores x * rstd - mean * rstd (one FMA a value; zero
# where the step is padding, since both factors are zero there), and the conv's
# epilogue applies them: y = gamma * conv + bias + beta * (the sum of the taps over
# positions inside x; the whole sum but in row tiles that read padding).  Checked
# first, then the tuner's medians of all 24 mma configs; where the best is under
# 0.135 ms, the LYNXNet2 block by bench.py.
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns KGEN_TEMPLATES=$PWD/templates
K=build-dev-bin/kgen
Y=examples/lynxnet2_block.pat
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
{
  $K check tests/kernels/ln_dwconv.pat --arch sm_90 --configs 16 2>&1 | tail -1
  $K check $Y --dim B=2 --dim T=301 --kernel k0_ln_dwconv --arch sm_90 --where path=mma --configs 24 2>&1 | grep -v " ok "
  $K check $Y --dim B=2 --dim T=40 --kernel k0_ln_dwconv --arch sm_90 --where path=mma --configs 24 2>&1 | tail -1
  $K check $Y --dim B=8 --kernel k0_ln_dwconv --arch sm_90 --where path=mma --where BC=128 --configs 12 2>&1 | tail -1
} | tee $OUT/checks.txt
echo "checks done at ${SECONDS}s"
timeout 200 $K tune $Y --kernel k0_ln_dwconv --arch sm_90 --db /tmp/ln.db --where path=mma --budget 24 -q > $OUT/tune_ln.txt 2>&1
$K cache list --db /tmp/ln.db | tee $OUT/list_ln.txt
$K cache show "$($K cache list --db /tmp/ln.db | sed -n 2p | awk '{print $2}')" --db /tmp/ln.db > $OUT/trials_ln.txt 2>&1
grep -v re-timed $OUT/trials_ln.txt | tail -n +3 | sort -k7 -n | awk '{print $4, $5, $6, $8, $9, $10}' | head -8
best=$($K cache list --db /tmp/ln.db | sed -n 2p | awk '{print $5}')
echo "best $best at ${SECONDS}s"
if awk "BEGIN{exit !($best < 0.135)}"; then
  timeout 330 python3 tools/bench/bench.py measure --kgen $K --out $OUT/a --db /tmp/t.sqlite \
    --workloads lynxnet2_block_default --budget 6 --tune-timeout 260 --no-max-autotune 2>&1 | tail -4
  $K cache list --db /tmp/t.sqlite > $OUT/list.txt 2>&1
  grep -i "ln_dwconv\|conv1d\|layernorm" $OUT/list.txt
  rm -rf $OUT/a/*/
fi
echo "done at ${SECONDS}s"

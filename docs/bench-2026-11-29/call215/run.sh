#!/bin/bash
# call 215 (session 43): ln_dwconv path=rows, second version: each thread's loads of the next
# channel tile in registers, issued before this tile's conv; the statistics two rows a warp;
# __launch_bounds__(BLOCK, PB).  Call 214 ran the first (best 0.1526 ms, BC=128 BLOCK=1024
# BT=384), against the unfused LayerNorm + conv at 0.0566 + 0.0837.  Same checks and tune:
# every rows config of the test kernels and of LYNXNet2's at B = 2, T = 301 and at its dims
# checked first, then the tuner's medians of rows configs at LYNXNet2's dims.
# (Needs rows.patch, beside this script, applied to main: main has no path=rows.)
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns KGEN_TEMPLATES=$PWD/templates
K=build-dev-bin/kgen
Y=examples/lynxnet2_block.pat
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
{
  $K check tests/kernels/ln_dwconv.pat --arch sm_90 --where path=rows --configs 60 2>&1 | tail -3
  $K check $Y --dim B=2 --dim T=301 --kernel k0_ln_dwconv --arch sm_90 --where path=rows --configs 80 2>&1 | tail -1
  $K check $Y --kernel k0_ln_dwconv --arch sm_90 --where path=rows --where PB=1,2 --where BLOCK=512,1024 --configs 12 2>&1 | tail -1
} | tee $OUT/checks.txt
echo "checks done at ${SECONDS}s"
timeout 240 $K tune $Y --kernel k0_ln_dwconv --arch sm_90 --db /tmp/ln.db --where path=rows --budget 24 -q > $OUT/tune_ln.txt 2>&1
$K cache list --db /tmp/ln.db | tee $OUT/list_ln.txt
$K cache show "$($K cache list --db /tmp/ln.db | sed -n 2p | awk '{print $2}')" --db /tmp/ln.db > $OUT/trials_ln.txt 2>&1
grep -v "^ *$" $OUT/trials_ln.txt | cut -c1-150 | head -40
echo "done at ${SECONDS}s"

#!/bin/bash
# call 214 (session 43, first version of emit_rows; call 215 runs the same script on the second): ln_dwconv's path=rows (templates/dwconv.lua emit_rows):
# persistent blocks, a row tile of every channel each; a warp a window row finds the
# row's mean and rstd over all C channels from 16-byte loads held in registers, then the
# window is staged BC channels at a time, normalised in registers, and convolved as the
# plain conv's mma path.  Checked first (every rows config of the test kernels, LYNXNet2's
# at B = 2, T = 301 and at its dims), then the tuner's medians of rows configs at
# LYNXNet2's dims beside the unfused LayerNorm + conv (0.0566 + 0.0837 in call 209).
# (The first version of emit_rows is not kept; call215/rows.patch holds the second.
# Both need that patch applied: main has no path=rows.)
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

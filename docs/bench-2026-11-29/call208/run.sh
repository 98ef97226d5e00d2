#!/bin/bash
# call 208 (session 42, 2026-11-29 19:27 UTC; next42 as written in session 41;
# minutes): main as of 70c5ec6: ln_dwconv's mma path and the
# plain conv's at BT = 384 checked right on the H200 (tests/kernels/ln_dwconv.pat and
# LYNXNet2's kernels at B = 2, T = 301 and at B = 4, T = 768: every BT = 384 config).
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns KGEN_TEMPLATES=$PWD/templates
K=build-dev-bin/kgen
Y=examples/lynxnet2_block.pat
{
  $K check tests/kernels/ln_dwconv.pat --arch sm_90 --where BT=384 --configs 16 2>&1 | tail -1
  $K check $Y --dim B=2 --dim T=301 --kernel k0_ln_dwconv --arch sm_90 --where path=mma --where BT=384 --configs 12 2>&1 | tail -1
  $K check $Y --dim B=4 --kernel k0_ln_dwconv --arch sm_90 --where path=mma --where BT=384 --configs 12 2>&1 | tail -1
  $K check $Y --dim B=4 --unfuse k0_ln_dwconv --kernel k2_conv1d --arch sm_90 --where path=mma --where BT=384 --configs 12 2>&1 | tail -1
} | tee $OUT/checks.txt
echo "done at ${SECONDS}s"

#!/bin/bash
# call 227: ab.py over ConvNeXt's and LYNXNet2's config variants, built
# here (build-dev-bin/var, from call 225's DB with winners set by hand:
# c0/l0 the tuned ones; c1 GELU GEMM mcast, c2 GELU GEMM panel BN=64, c3
# residual linear ws 128x256, c4 c1+c3; l1 GLU GEMMs mcast, l2 GLU GEMMs
# ws 128x256, l3 l1 + residual linear mcast).
export PYTHONUNBUFFERED=1
V=build-dev-bin/var
D=docs/bench-2026-11-30/call227
timeout 280 python3 $D/ab.py $OUT/convnext.json c0=$V/c0 c1=$V/c1 c2=$V/c2 c3=$V/c3 c4=$V/c4 2>&1 | tail -4
timeout 280 python3 $D/ab.py $OUT/lynxnet2.json l0=$V/l0 l1=$V/l1 l2=$V/l2 l3=$V/l3 2>&1 | tail -4
echo "done at ${SECONDS}s"

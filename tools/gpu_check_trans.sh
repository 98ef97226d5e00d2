#!/bin/sh
# tools/gpu_check_trans.sh -- kgen check --arch sm_90 on a CUDA machine over
# the models whose GEMMs read A along M (the transposed-tile path of
# templates/gemm.lua), at small dims: T=100 takes the scalar loads, T=128
# the 16-byte ones.  Run from the repository root with build-dev-bin/kgen
# (see tools/gpu_build.sh); prints one summary line per model.
export KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns KGEN_INCLUDE=$PWD/include
K=build-dev-bin/kgen
for args in "examples/wavenet_layer.pat --dim B=2 --dim C=64 --dim H=32 --dim T=100" \
            "examples/wavenet_layer.pat --dim B=2 --dim C=64 --dim H=32 --dim T=128" \
            "examples/lynxnet2_block.pat --dim B=2 --dim T=72 --dim C=64" \
            "examples/encoder_layer.pat --dim B=2 --dim L=40 --dim C=48 --dim HD=24 --dim F=64" \
            "tools/bench/gated_tanh_residual.pat --dim B=2 --dim C=64 --dim T=96"; do
  $K check $args --arch sm_90 --configs 6 -q 2>&1 | grep -E "FAIL|candidates ok" | head -8
done

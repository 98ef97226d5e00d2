#!/bin/bash
# Session 27: run as call 119 (docs/bench-2026-11-27/call119), then landed in templates/ by 7f0e9c3.
# Prepared in session 26 (2026-11-27), not yet run: the next step of attempt 24.
# pp_colvecs.patch (templates/gemm.lua): under sched=pp without load=panel, each consumer keeps
# its tile's column vectors (bias, gemm_glu's gate bias, the layer scale) in shared memory and
# loads the next tile's during this tile's epilogue, so the set-up before the turn wait reads
# them at once (attempt 24 measured it at 3.5K cycles a 128x128 tile, 6.6K at 64x256).
# It compiles for every pp kernel of check_kernels (linear, gemm_glu, linear_scale_residual,
# the 1x1 conv with a channel-first output, gemm_gelu); it has not run on a GPU.
# Apply it first:  git apply docs/bench-2026-11-27/next-pp-colvecs/pp_colvecs.patch
# Prediction (attempt 24): the GELU GEMM 0.244 -> about 0.21 ms at 128x128; the plain linear
# unchanged (tensor-core bound).
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
# every pp candidate right first
for a in "tests/kernels/gemm_linear_f16.pat --kernel k2_linear" \
         "examples/lynxnet2_block.pat --dim B=2 --dim T=96 --dim C=72 --kernel k4_gemm_glu" \
         "examples/convnext_block.pat --dim B=2 --dim T=96 --kernel k3_linear_scale_residual" \
         "examples/wavenet_layer.pat --dim B=2 --dim C=64 --dim H=32 --dim T=96 --kernel k4_conv1x1_residual" \
         "tools/bench/ln_gemm_gelu.pat --dim M=300 --dim K=128 --dim N=328 --unfuse all --kernel k1_gemm_gelu"; do
  $K check $a --arch sm_90 --configs 8 --where sched=pp 2>&1 | tail -1
done
# the tuner's medians beside the same configs without the patch (git stash to compare)
W="--where path=wgmma --where sched=pp --where load=tma --where STAGES=4"
rm -f /tmp/a.sqlite
for t in "BM=128 BN=128" "BM=64 BN=256"; do
  ww=$W; for c in $t; do ww="$ww --where $c"; done
  $K tune examples/convnext_block.pat --unfuse k2_ln_gemm_gelu --kernel k1_gemm_gelu --arch sm_90 --db /tmp/a.sqlite $ww --budget 1 --force 2>&1 | tail -1
done
$K cache show 1 --db /tmp/a.sqlite 2>&1 | cut -c1-220   # every trial, with its median

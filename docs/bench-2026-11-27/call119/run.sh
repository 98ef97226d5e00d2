#!/bin/bash
# call 119: next-pp-colvecs (docs/bench-2026-11-27/next-pp-colvecs) run for the first time.
# Set-up, in the repository root: cp -r templates .devdb/tplcv, then
#   git apply --directory=.devdb/tplcv -p2 --unsafe-paths docs/bench-2026-11-27/next-pp-colvecs/pp_colvecs.patch
# and the SASS of the 128x128 GELU GEMM (kgen gen ... -o .devdb/gen, nvcc -cubin -arch sm_90a -O3)
# with and without the patch, for the epilogue's instructions.
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
# every pp candidate right first, with the patch
for a in "tests/kernels/gemm_linear_f16.pat --kernel k2_linear" \
         "examples/lynxnet2_block.pat --dim B=2 --dim T=96 --dim C=72 --kernel k4_gemm_glu" \
         "examples/convnext_block.pat --dim B=2 --dim T=96 --kernel k3_linear_scale_residual" \
         "examples/wavenet_layer.pat --dim B=2 --dim C=64 --dim H=32 --dim T=96 --kernel k4_conv1x1_residual" \
         "tools/bench/ln_gemm_gelu.pat --dim M=300 --dim K=128 --dim N=328 --unfuse all --kernel k1_gemm_gelu"; do
  KGEN_TEMPLATES=$PWD/.devdb/tplcv timeout 120 $K check $a --arch sm_90 --configs 8 --where sched=pp 2>&1 | tail -1
done
# the tuner's medians, without (templates/) and with (.devdb/tplcv) the patch, alternating
W="--where path=wgmma --where sched=pp --where load=tma --where STAGES=4"
for rep in 1 2; do
for tp in templates .devdb/tplcv; do
  for t in "BM=128 BN=128" "BM=64 BN=256"; do
    ww=$W; for c in $t; do ww="$ww --where $c"; done
    echo "== $tp $t"
    KGEN_TEMPLATES=$PWD/$tp timeout 60 $K tune examples/convnext_block.pat --unfuse k2_ln_gemm_gelu --kernel k1_gemm_gelu --arch sm_90 --db /tmp/r$rep.$(basename $tp).sqlite $ww --budget 1 --force 2>&1 | tail -1
    KGEN_TEMPLATES=$PWD/$tp timeout 60 $K tune docs/bench-2026-11-27/call115/lin512.pat --kernel k0_linear --arch sm_90 --db /tmp/r$rep.$(basename $tp).sqlite $ww --budget 1 --force 2>&1 | tail -1
  done
done
done
for f in /tmp/r*.sqlite; do echo "== $f"; $K cache show 1 --db $f 2>&1 | grep -E "^ *[0-9]|ms" | cut -c1-200; $K cache show 2 --db $f 2>&1 | grep -E "^ *[0-9]|ms" | cut -c1-200; done
which cuobjdump nvdisasm
for c in .devdb/gen/gelu.cubin .devdb/gencv/gelucv.cubin; do timeout 60 cuobjdump -sass $c > $OUT/$(basename $c .cubin).sass 2>&1; wc -l $OUT/$(basename $c .cubin).sass; done

#!/bin/bash
# call 122: (1) tests/gpu_kernels.sh and kgen check of every GELU kernel with .devdb/tpl6 = templates/
# (pp_colvecs landed) with the GELU's Q of degree 6 in place of 9 (templates/lib.lua, a weighted
# minimax fit: 6.2e-6 relative where |GELU| > 6.1e-5 in f32 on the host); (2) the tuner's medians of
# call 121's three GELU GEMMs, degree 9 (templates/) against degree 6 (.devdb/tpl6), alternating.
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
C=docs/bench-2026-11-27/call120
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
export KGEN_TEMPLATES=$PWD/.devdb/tpl6
timeout 240 sh tests/gpu_kernels.sh $K . 2>&1 | tee $OUT/gpu_kernels.txt | cut -c1-200 | tail -16
for a in tests/kernels/gemm_ln_gelu_f16.pat tests/kernels/gemm_ln_gelu_bf16.pat tests/kernels/gemm_ln_gelu_fold.pat tests/kernels/gemm_sizes_fused.pat \
         "examples/convnext_block.pat --dim B=2 --dim T=96" "tools/bench/ln_gemm_gelu.pat --dim M=300 --dim K=128 --dim N=328 --unfuse all"; do
  timeout 60 $K check $a --arch sm_90 --configs 6 2>&1 | tail -1
done
W="--where path=wgmma --where sched=pp --where BM=128 --where BN=128 --where STAGES=4 --arch sm_90 --budget 1 --force"
t() { # name templates model-and-kernel load
  echo "== $1 $2 $4"; KGEN_TEMPLATES=$PWD/$2 timeout 60 $K tune $3 --db /tmp/$1.$(basename $2).sqlite $W --where load=$4 2>&1 | tail -1
}
for rep in 1 2; do
  for tp in templates .devdb/tpl6; do
    t k512 $tp "examples/convnext_block.pat --unfuse k2_ln_gemm_gelu --kernel k1_gemm_gelu" tma
    t k64 $tp "$C/gelu64.pat --kernel k0_gemm_gelu" tma
    t k256 $tp "tools/bench/ln_gemm_gelu.pat --unfuse all --kernel k1_gemm_gelu" panel
  done
done
for f in /tmp/k*.sqlite; do echo "== $f"; $K cache show 1 --db $f 2>&1 | grep -E "^ *[0-9]" | cut -c1-200; done

#!/bin/bash
# call 121: is the GELU epilogue bound by its instruction count?  Sensitivity, not for keeping:
# .devdb/tplv1 = templates/ with kg_gelu_n (templates/lib.lua) replaced by the tanh form on
# tanh.approx.f32 (u = x * fmaf(0.0356774081f * x, x, 0.7978845608f); t = tanh.approx(u); h = 0.5f * x; x = fmaf(h, t, h)) (6 instructions a value against 13), against the real templates and the plain
# linear of the same shape and config.  Shapes: ConvNeXt's GELU GEMM (49152 x 2048, K = 512),
# the same at K = 64 (call 120's gelu64/lin64: one K step, the epilogue and the store bound it),
# and the small ln_gemm_gelu's GEMM (49152 x 1024, K = 256, its winner's load=panel).
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
C=docs/bench-2026-11-27/call120
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
W="--where path=wgmma --where sched=pp --where BM=128 --where BN=128 --where STAGES=4 --arch sm_90 --budget 1 --force"
t() { # name templates model-and-kernel load
  echo "== $1 $2 $4"; KGEN_TEMPLATES=$PWD/$2 timeout 60 $K tune $3 --db /tmp/$1.$(basename $2).sqlite $W --where load=$4 2>&1 | tail -1
}
for rep in 1 2; do
  for tp in templates .devdb/tplv1; do
    t k512 $tp "examples/convnext_block.pat --unfuse k2_ln_gemm_gelu --kernel k1_gemm_gelu" tma
    t k64 $tp "$C/gelu64.pat --kernel k0_gemm_gelu" tma
    t k256 $tp "tools/bench/ln_gemm_gelu.pat --unfuse all --kernel k1_gemm_gelu" panel
  done
  t k512 templates "docs/bench-2026-11-27/call115/lin512.pat --kernel k0_linear" tma
  t k64 templates "$C/lin64.pat --kernel k0_linear" tma
done
for f in /tmp/k*.sqlite; do echo "== $f"; for i in 1 2; do $K cache show $i --db $f 2>&1 | grep -E "^ *[0-9]" | cut -c1-200; done; done

#!/bin/bash
# call 123: the GELU's Q of degree 6 (templates/lib.lua, now in templates/) against degree 9
# (.devdb/tplcv = templates/ of 16c4b25 with pp_colvecs applied); then ConvNeXt and the small
# ln_gemm_gelu beside PyTorch.  (Call 122 ran tests/gpu_kernels.sh with degree 6: all 14 ok;
# its timings were cut off by the call's limit.)
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
C=docs/bench-2026-11-27/call120
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
W="--where path=wgmma --where sched=pp --where BM=128 --where BN=128 --where STAGES=4 --arch sm_90 --budget 1 --force"
t() { # name templates model-and-kernel load
  KGEN_TEMPLATES=$PWD/$2 timeout 40 $K tune $3 --db /tmp/$1.$(basename $2).sqlite $W --where load=$4 > /dev/null 2>&1
}
for tp in .devdb/tplcv templates; do
  t k512 $tp "examples/convnext_block.pat --unfuse k2_ln_gemm_gelu --kernel k1_gemm_gelu" tma
  t k64 $tp "$C/gelu64.pat --kernel k0_gemm_gelu" tma
  t k256 $tp "tools/bench/ln_gemm_gelu.pat --unfuse all --kernel k1_gemm_gelu" panel
done
for f in /tmp/k*.sqlite; do echo "== $f"; $K cache show 1 --db $f 2>&1 | grep -E "^ *[0-9]" | cut -c1-200; done
export KGEN_TEMPLATES=$PWD/templates
rm -f /tmp/t.sqlite
timeout 230 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/t.sqlite --workloads convnext_block_default --budget 6 --tune-timeout 180 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -2
cp /tmp/a/*.json $OUT/ 2>/dev/null
timeout 150 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/t.sqlite --workloads ln_gemm_gelu_M_49152 --budget 6 --tune-timeout 110 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -2
$K cache list --db /tmp/t.sqlite 2>&1 | cut -c1-220 > $OUT/winners.txt
cp /tmp/a/*.json $OUT/ 2>/dev/null

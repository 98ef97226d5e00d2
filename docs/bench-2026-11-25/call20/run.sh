#!/bin/bash
# device call N: rownorm's tile path with 16-byte row loads: checks, then the tuner's own order (rank)
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
cp .devdb/tune.sqlite /tmp/tune.sqlite
{
for dt in f16 bf16; do
  for bt in "BLOCK=128 TPR=16" "BLOCK=256 TPR=16" "BLOCK=512 TPR=16" "BLOCK=256 TPR=32" "BLOCK=64 TPR=8"; do
    set -- $bt
    $K check examples/convnext_block.pat --unfuse all --kernel k2_layernorm --arch sm_90 --configs 2 -q --dim B=3 --dim T=96 --dtype DT=$dt --where path=tile --where $1 --where $2
    $K check examples/convnext_block.pat --unfuse all --kernel k2_layernorm --arch sm_90 --configs 2 -q --dim B=2 --dim T=37 --dtype DT=$dt --where path=tile --where $1 --where $2
  done
done
$K check examples/convnext_block.pat --unfuse all --kernel k2_layernorm --arch sm_90 --configs 6 -q --dim B=2 --dim T=136
} 2>&1 | tee $OUT/check.txt | grep -v "^ok" | grep -v "passes its constraints" | grep -v " 0 wrong results" | tail -20
grep -c " 0 wrong results, 0 over" $OUT/check.txt
T="--arch sm_90 --db /tmp/tune.sqlite --budget ${1:-6} --time ${2:-60}"
{
$K tune examples/convnext_block.pat $T --unfuse all --kernel k2_layernorm
$K tune examples/lynxnet2_block.pat $T --kernel k0_layernorm
$K tune tools/bench/ln_gemm_gelu.pat $T --unfuse all --kernel k0_layernorm
} 2>&1 | grep -E "^k[0-9]|kernels in" | tee $OUT/tune.txt
cp /tmp/tune.sqlite $OUT/

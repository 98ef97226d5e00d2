#!/bin/bash
# device call 25: dwconv path=lanes (check, tune), LYNXNet2 + ConvNeXt bench
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
cp .devdb/tune.sqlite /tmp/tune.sqlite
{
for dt in f16 bf16 f32; do
  $K check examples/lynxnet2_block.pat --kernel k2_conv1d --arch sm_90 --configs 8 -q --dtype DT=$dt --where path=lanes
  $K check examples/lynxnet2_block.pat --kernel k2_conv1d --arch sm_90 --configs 8 -q --dim B=2 --dim T=37 --dtype DT=$dt --where path=lanes
done
$K check tests/kernels/dwconv_transposed.pat --arch sm_90 --configs 6 -q --where path=lanes
for dt in f16 bf16; do
  $K check examples/convnext_block.pat --kernel k0_conv1d --arch sm_90 --configs 6 -q --dim B=2 --dim T=37 --dtype DT=$dt
done
} 2>&1 | tee $OUT/check.txt | grep -v "^ok" | grep -v "passes its constraints" | grep -v " 0 wrong results" | tail -20
grep -c " 0 wrong results, 0 over" $OUT/check.txt
T="--arch sm_90 --db /tmp/tune.sqlite --budget 14 --time 80"
{
$K tune examples/lynxnet2_block.pat $T --kernel k2_conv1d
$K tune examples/convnext_block.pat $T --kernel k0_conv1d
} 2>&1 | grep -E "^k[0-9]|kernels in" | tee $OUT/tune.txt
python3 .devdb/trials.py /tmp/tune.sqlite 'dwconv%' '%' > $OUT/dw_trials.txt
cp /tmp/tune.sqlite $OUT/
python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/tune.sqlite --workloads lynxnet2_block_default,convnext_block_default --budget 4 --tune-timeout 200 --no-max-autotune 2>&1 | grep -v "^\s*$" | tail -3
cp /tmp/tune.sqlite $OUT/
mkdir -p $OUT/a; cp /tmp/a/*.json $OUT/a/
python3 tools/bench/bench.py render /tmp/a 2>&1 | tail -3

#!/bin/bash
# device call 22: dwconv items=run checks, dwconv tunes, ConvNeXt bench
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
[ -f .devdb/tune.sqlite ] && cp .devdb/tune.sqlite /tmp/tune.sqlite
{
for dt in f16 bf16; do
  $K check examples/lynxnet2_block.pat --kernel k2_conv1d --arch sm_90 --configs 8 -q --dtype DT=$dt --where items=run
  $K check examples/lynxnet2_block.pat --kernel k2_conv1d --arch sm_90 --configs 8 -q --dim B=2 --dim T=37 --dtype DT=$dt --where items=run
  $K check examples/convnext_block.pat --kernel k0_conv1d --arch sm_90 --configs 8 -q --dtype DT=$dt --where items=run
  $K check examples/convnext_block.pat --kernel k0_conv1d --arch sm_90 --configs 8 -q --dim B=2 --dim T=37 --dtype DT=$dt --where items=run
done
$K check examples/convnext_block.pat --kernel k0_conv1d --arch sm_90 --configs 4 -q --dtype DT=f32 --dim B=1 --dim T=861 --where items=run
} 2>&1 | tee $OUT/check.txt | grep -v "^ok" | grep -v "passes its constraints" | grep -v " 0 wrong results" | tail -20
grep -c " 0 wrong results, 0 over" $OUT/check.txt
T="--arch sm_90 --db /tmp/tune.sqlite --budget 10 --time 60"
{
$K tune examples/lynxnet2_block.pat $T --kernel k2_conv1d
$K tune examples/convnext_block.pat $T --kernel k0_conv1d
} 2>&1 | grep -E "^k[0-9]|kernels in" | tee $OUT/tune.txt
python3 .devdb/trials.py /tmp/tune.sqlite '%conv1d%' '%' > $OUT/dw_trials.txt
head -30 $OUT/dw_trials.txt
cp /tmp/tune.sqlite $OUT/
python3 tools/bench/bench.py measure --kgen $K --out $OUT/a --db /tmp/tune.sqlite --workloads convnext_block_default --budget 4 --tune-timeout 240 --no-max-autotune 2>&1 | tail -8
cp /tmp/tune.sqlite $OUT/
python3 tools/bench/bench.py render $OUT/a 2>&1 | tail -5

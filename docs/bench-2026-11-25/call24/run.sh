#!/bin/bash
# device call 24: dwconv weights in shared memory (check, tune, bench), ncu of kgen's kernels, torch.compile's kernels
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
cp .devdb/tune.sqlite /tmp/tune.sqlite
{
for dt in f16 bf16; do
  for it in run apart; do
  $K check examples/lynxnet2_block.pat --kernel k2_conv1d --arch sm_90 --configs 6 -q --dtype DT=$dt --where items=$it
  $K check examples/lynxnet2_block.pat --kernel k2_conv1d --arch sm_90 --configs 6 -q --dim B=2 --dim T=37 --dtype DT=$dt --where items=$it
  $K check examples/convnext_block.pat --kernel k0_conv1d --arch sm_90 --configs 6 -q --dim B=2 --dim T=37 --dtype DT=$dt --where items=$it
  done
done
$K check examples/convnext_block.pat --kernel k0_conv1d --arch sm_90 --configs 4 -q --dtype DT=f32 --dim B=1 --dim T=861
} 2>&1 | tee $OUT/check.txt | grep -v "^ok" | grep -v "passes its constraints" | grep -v " 0 wrong results" | tail -20
grep -c " 0 wrong results, 0 over" $OUT/check.txt
T="--arch sm_90 --db /tmp/tune.sqlite --budget 10 --time 60"
{
$K tune examples/lynxnet2_block.pat $T --kernel k2_conv1d
$K tune examples/convnext_block.pat $T --kernel k0_conv1d
} 2>&1 | grep -E "^k[0-9]|kernels in" | tee $OUT/tune.txt
cp /tmp/tune.sqlite $OUT/
python3 tools/bench/bench.py measure --kgen $K --out $OUT/a --db /tmp/tune.sqlite --workloads convnext_block_default,lynxnet2_block_default,wavenet_layer_default --budget 4 --tune-timeout 200 --no-max-autotune 2>&1 | grep -v "^\s*$" | tail -4
cp /tmp/tune.sqlite $OUT/
python3 tools/bench/bench.py render $OUT/a 2>&1 | tail -4
for w in convnext_block lynxnet2_block wavenet_layer; do
  d=$OUT/a/${w}_default_dims_f16
  timeout 100 ncu --clock-control none --target-processes application-only -k regex:'^k[0-9]' -c 12 \
    --section SpeedOfLight --section WarpStateStats --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis \
    python3 .devdb/prof.py kgen $d > $OUT/ncu_$w.txt 2>&1
  timeout 120 python3 .devdb/prof.py compile $d > $OUT/compile_$w.txt 2>&1
  rm -f $d/kgen -r
done
tail -3 $OUT/ncu_convnext_block.txt

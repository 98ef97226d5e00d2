#!/bin/bash
# device call 26: elementwise 32-bit indices (check), WaveNet f16 + fp32 B=1 blocks bench
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
cp .devdb/tune.sqlite /tmp/tune.sqlite
{
$K check examples/wavenet_layer.pat --kernel k2_elementwise --arch sm_90 --configs 4 -q
$K check examples/wavenet_layer.pat --kernel k2_elementwise --arch sm_90 --configs 4 -q --dim B=1 --dim T=861 --dtype DT=f32
$K check examples/lynxnet2_block.pat --kernel k2_conv1d --arch sm_90 --configs 4 -q --dim B=1 --dim T=861 --dtype DT=f32
} 2>&1 | tee $OUT/check.txt | grep -v "^ok" | grep -v " 0 wrong results" | tail -8
grep -c " 0 wrong results, 0 over" $OUT/check.txt
python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/tune.sqlite --workloads $1 --budget 4 --tune-timeout ${2:-100} --no-max-autotune 2>&1 | grep -v "^\s*$" | tail -5
cp /tmp/tune.sqlite $OUT/
mkdir -p $OUT/a; cp /tmp/a/*.json $OUT/a/
python3 tools/bench/bench.py render /tmp/a 2>&1 | tail -5

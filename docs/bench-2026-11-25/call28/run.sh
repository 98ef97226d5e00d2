#!/bin/bash
# device call 28: wider wgmma tunes of the big GEMMs (STAGES, BM=256), LYNXNet2 + ConvNeXt bench
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
cp .devdb/tune.sqlite /tmp/tune.sqlite
T="--arch sm_90 --db /tmp/tune.sqlite --time 50 --where path=wgmma"
{
$K tune examples/lynxnet2_block.pat $T --kernel k4_gemm_glu --budget 14 --where sched=ws
$K tune examples/lynxnet2_block.pat $T --kernel k6_linear_residual --budget 10
$K tune examples/convnext_block.pat $T --unfuse all --kernel k3_gemm_gelu --budget 14
} 2>&1 | grep -E "^k[0-9]|kernels in" | tee $OUT/tune.txt
python3 .devdb/trials.py /tmp/tune.sqlite 'gemm/%' '%' > $OUT/gemm_trials.txt
cp /tmp/tune.sqlite $OUT/
python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/tune.sqlite --workloads lynxnet2_block_default,convnext_block_default --budget 4 --tune-timeout 60 --no-max-autotune 2>&1 | grep -v "^\s*$" | tail -3
cp /tmp/tune.sqlite $OUT/
mkdir -p $OUT/a; cp /tmp/a/*.json $OUT/a/

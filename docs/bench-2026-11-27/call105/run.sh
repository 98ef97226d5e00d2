#!/bin/bash
# call 105: tests/gpu_kernels.sh as committed, with the kgen that re-checks its re-timings
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
time (timeout 400 sh tests/gpu_kernels.sh $K . 2>&1 | tee $OUT/gpu_kernels.txt | cut -c1-200; echo "rc=$?")
rm -f /tmp/t.sqlite
timeout 120 $K tune examples/wavenet_layer.pat --dim B=2 --dim T=256 --kernel k4_conv1x1_residual --arch sm_90 --db /tmp/t.sqlite --budget 8 2>&1 | tail -3
$K cache show 1 --db /tmp/t.sqlite 2>&1 | cut -c1-200 | tail -14 | tee $OUT/trials.txt

#!/bin/bash
# call 151 (2026-11-28): conv_cond_gate merged (main 12d5142): tests/gpu_kernels.sh whole
# on the H200 (its fold lines: the DIL = 2 K-major and the DIL = 8 M-major TMA paths),
# then kgen check of the fold at WaveNet's dims with DIL = 8.
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns KGEN_TEMPLATES=$PWD/templates
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
time (timeout 380 sh tests/gpu_kernels.sh $K $PWD > $OUT/gpu_kernels.txt 2>&1; echo "gpu_kernels rc=$?")
grep -E "^ok|^FAILED" $OUT/gpu_kernels.txt
timeout 120 $K check examples/wavenet_layer.pat --unfuse all --dim B=2 --dim T=256 --dim DIL=8 --kernel k7_conv_cond_gate \
    --arch sm_90 --where load=tma --configs 30 > $OUT/check_dil8.txt 2>&1; tail -1 $OUT/check_dil8.txt

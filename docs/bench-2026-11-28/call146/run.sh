#!/bin/bash
# call 146 (2026-11-28): the new conv1x1_residual_gate (the unfused WaveNet gate in the
# condition conv's epilogue): kgen check on the H200 (small and WaveNet dims, every path),
# tests/gpu_kernels.sh whole (its new gate lines), then the WaveNet layer's two kernels
# (cond conv + gate) tuned against the new one.
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns KGEN_TEMPLATES=$PWD/templates
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
timeout 90 $K check tests/kernels/conv1x1_residual_gate.pat --arch sm_90 --configs 40 > $OUT/check_small.txt 2>&1; tail -1 $OUT/check_small.txt
timeout 120 $K check examples/wavenet_layer.pat --dim B=2 --dim T=256 --unfuse all --kernel k9_conv1x1_residual_gate --arch sm_90 \
    --where path=wgmma --configs 40 > $OUT/check_wn.txt 2>&1; tail -1 $OUT/check_wn.txt
grep -c " ok " $OUT/check_wn.txt
timeout 330 sh tests/gpu_kernels.sh $K $PWD > $OUT/gpu_kernels.txt 2>&1; echo "gpu_kernels rc=$?"
grep -E "^ok|^FAILED" $OUT/gpu_kernels.txt

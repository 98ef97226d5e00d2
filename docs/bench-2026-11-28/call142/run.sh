#!/bin/bash
# call 142 (2026-11-28): WaveNet's dilated conv on a channel-last x (compiler/layout.c), which
# its elementwise kernel writes by the new order=tile; dwconv_ln's rows swizzled (v16 checked).
# tests/gpu_kernels.sh whole (its WaveNet lines renumbered, the new tile and channel-last lines);
# the elementwise kernel's every config, flat against tile.
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns KGEN_TEMPLATES=$PWD/templates
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
timeout 60 $K check tests/kernels/dwconv_ln.pat --arch sm_90 --where load=v16 --configs 40 2>&1 | tail -1
timeout 330 sh tests/gpu_kernels.sh $K $PWD > $OUT/gpu_kernels.txt 2>&1; echo "gpu_kernels rc=$?"
grep -E "^ok|^FAILED" $OUT/gpu_kernels.txt
timeout 100 $K tune examples/wavenet_layer.pat --kernel k2_elementwise --arch sm_90 --db /tmp/ew.sqlite \
    --strategy exhaustive > /dev/null 2>&1 || echo "tune ew rc=$?"
$K cache show 1 --db /tmp/ew.sqlite 2>&1 | grep -E "^ *[0-9]" | cut -c1-150

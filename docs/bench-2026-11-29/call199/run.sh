#!/bin/bash
# call 199 (2026-11-29, session 40): LYNXNet2's LayerNorm (57 us, 201 MB moved: 3.5
# TB/s), every path=regs xred=shfl config timed by the tuner (exhaustive), to see
# whether rank()'s first (BLOCK=128 TPR=32, the bench's pick) is the fastest.
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
Y=examples/lynxnet2_block.pat
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
timeout 170 $K tune $Y --kernel k0_layernorm --arch sm_90 --db /tmp/ln.db --where path=regs --where xred=shfl --strategy exhaustive -q > /dev/null 2>&1
echo "tune rc $? at ${SECONDS}s"
$K cache show layernorm --db /tmp/ln.db 2>&1 | cut -c1-200 | tee $OUT/ln_trials.txt | sort -k7 -g | head -8
echo "done at ${SECONDS}s"

#!/bin/bash
# call 210 (session 42): res_pp on a channel-first output (ConvNeXt's residual linear,
# out [B, C, T]): the tile in panels of 64 rows (t) by the tile's columns, the residual
# by TMA into them, the TMA store.  Checked first (tests/kernels/gemm_residual_tma.pat,
# both kernels; ConvNeXt's residual linear at B = 2, T = 192 and at B = 4), then the
# tuner's medians of ConvNeXt's residual linear, pp 128x128 STAGES = 4, by tma (main's
# pick) and by tmares, in turn; then the block by bench.py (fresh DB, budget 6).
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns KGEN_TEMPLATES=$PWD/templates
K=build-dev-bin/kgen
Y=examples/convnext_block.pat
U="--unfuse k2_ln_gemm_gelu --kernel k2_linear_scale_residual"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
{
  $K check tests/kernels/gemm_residual_tma.pat --arch sm_90 --where load=tmares --where sched=pp --configs 16 2>&1 | tail -1
  $K check $Y --dim B=2 --dim T=192 $U --arch sm_90 --where load=tmares --where sched=pp --configs 12 2>&1 | tail -1
  $K check $Y --dim B=4 $U --arch sm_90 --where load=tmares --where sched=pp --configs 6 2>&1 | tail -1
} | tee $OUT/checks.txt
i=0
for v in tma tmares; do
  i=$((i+1))
  timeout 60 $K tune $Y $U --arch sm_90 --db /tmp/r$i.db --where sched=pp --where load=$v --where BM=128 --where BN=128 --where STAGES=4 --budget 1 -q > /dev/null 2>&1
  echo "$v STAGES=4: $($K cache list --db /tmp/r$i.db 2>&1 | sed -n 2p | awk '{print $5}') at ${SECONDS}s"
done | tee $OUT/pins.txt
timeout $((570 - SECONDS)) python3 tools/bench/bench.py measure --kgen $K --out $OUT/a --db /tmp/t.sqlite \
  --workloads convnext_block_default --budget 6 --tune-timeout 210 --no-max-autotune 2>&1 | tail -2
echo "done at ${SECONDS}s"

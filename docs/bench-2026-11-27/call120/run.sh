#!/bin/bash
# call 120: pp_colvecs landed in templates/ (call 119: GELU GEMM 0.243 -> 0.217 ms, linear 0.182 -> 0.176).
# (1) the GELU epilogue alone: the 49152 x 2048 GEMM at K = 64 (one K step, so the epilogue and the
#     store bound it), GELU against plain, same config; (2) ConvNeXt and the small ln_gemm_gelu beside PyTorch.
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
D=docs/bench-2026-11-27/call120
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
W="--where path=wgmma --where sched=pp --where load=tma --where BM=128 --where BN=128 --where STAGES=2"
for rep in 1 2; do
  timeout 40 $K tune $D/gelu64.pat --kernel k0_gemm_gelu --arch sm_90 --db /tmp/iso.sqlite $W --budget 1 --force 2>&1 | tail -1
  timeout 40 $K tune $D/lin64.pat --kernel k0_linear --arch sm_90 --db /tmp/iso.sqlite $W --budget 1 --force 2>&1 | tail -1
done
for i in 1 2; do $K cache show $i --db /tmp/iso.sqlite 2>&1 | grep -E "^ *[0-9]" | cut -c1-200; done
rm -f /tmp/t.sqlite
timeout 230 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/t.sqlite --workloads convnext_block_default --budget 6 --tune-timeout 180 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -2
timeout 200 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/t.sqlite --workloads ln_gemm_gelu_M_49152 --budget 6 --tune-timeout 150 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -2
$K cache list --db /tmp/t.sqlite 2>&1 | cut -c1-220 > $OUT/winners.txt
cp /tmp/a/*.json $OUT/ 2>/dev/null

#!/bin/bash
# call 69: rownorm's regs path with 16-byte rows (RN_VEC): GPU checks, then the small ln_gemm_gelu (call 68's DB) and LYNXNet2 f16 (call 67's DB) beside PyTorch
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
{
timeout 60 $K check examples/lynxnet2_block.pat --arch sm_90 --configs 12 --kernel k0_layernorm --where path=regs 2>&1 | tail -4
timeout 60 $K check examples/lynxnet2_block.pat --arch sm_90 --configs 12 --kernel k0_layernorm --where path=regs --dtype DT=bf16 --dim B=3 --dim T=37 2>&1 | tail -2
timeout 60 $K check examples/lynxnet2_block.pat --arch sm_90 --configs 12 --kernel k0_layernorm --where path=regs --dtype DT=f32 --dim B=1 --dim T=861 2>&1 | tail -2
timeout 60 $K check tools/bench/ln_gemm_gelu.pat --unfuse all --arch sm_90 --configs 12 --kernel k0_layernorm --where path=regs 2>&1 | tail -4
timeout 60 $K check examples/encoder_layer.pat --arch sm_90 --configs 12 --kernel k0_layernorm --where path=regs 2>&1 | tail -2
} | tee $OUT/check.txt
cp .devdb/tune68.sqlite /tmp/t68.sqlite
timeout 200 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/t68.sqlite --workloads ln_gemm_gelu_M_49152 --budget 10 --tune-timeout 150 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -2
cp .devdb/tune67.sqlite /tmp/t67.sqlite
timeout 230 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/t67.sqlite --workloads lynxnet2_block_default --budget 6 --tune-timeout 200 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -2
cp /tmp/a/*.json $OUT/ 2>/dev/null

#!/bin/bash
# call 79: the GELU blocks with the one-MUFU GELU: ConvNeXt (its two GEMMs first tuned over load=panel, 4 trials each) and the encoder beside PyTorch
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
cp .devdb/tune77.sqlite /tmp/t.sqlite
for k in k3_gemm_gelu k4_linear_scale_residual; do
  timeout 70 $K tune examples/convnext_block.pat --unfuse all --kernel $k --arch sm_90 --db /tmp/t.sqlite --where load=panel --budget 4 -q 2>&1 | tail -1
done
timeout 250 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/t.sqlite --workloads convnext_block_default --budget 6 --tune-timeout 210 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -2
timeout 170 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/t.sqlite --workloads encoder_layer_default --budget 6 --tune-timeout 130 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -2
for d in /tmp/a/*; do KGRT_PDL=0 timeout 25 python3 tools/bench/prof.py $d 2>&1 | grep -E "sum of|do_bench|k[0-9]+_" | head -16; done | tee $OUT/prof.txt
cp /tmp/a/*.json $OUT/ 2>/dev/null; cp /tmp/t.sqlite $OUT/tune79.sqlite

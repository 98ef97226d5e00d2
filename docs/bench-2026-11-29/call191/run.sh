#!/bin/bash
# call 191 (2026-11-29, session 39): main at d08fbc4 (gemm's fifth ring stage; dwconv's
# rank() of 939bb2a): LYNXNet2 beside PyTorch as in call 182 (fresh DB, budget 6, tune
# timeout 245 s), then the small ln_gemm_gelu as in call 137 (budget 6, tune timeout 110 s).
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
rm -f /tmp/t.sqlite /tmp/a/*.json
timeout 300 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/t.sqlite --workloads lynxnet2_block_default --budget 6 --tune-timeout 245 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -2
$K cache list --db /tmp/t.sqlite 2>&1 | cut -c1-230 > $OUT/winners_lynxnet2.txt
echo "lynxnet2 done at ${SECONDS}s"
rm -f /tmp/t.sqlite
timeout 150 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/t.sqlite --workloads ln_gemm_gelu_M_49152 --budget 6 --tune-timeout 110 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -2
$K cache list --db /tmp/t.sqlite 2>&1 | cut -c1-230 > $OUT/winners_lngg.txt
cp /tmp/a/*.json $OUT/ 2>/dev/null
echo "done at ${SECONDS}s"

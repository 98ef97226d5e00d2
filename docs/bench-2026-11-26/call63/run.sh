#!/bin/bash
# call 63: the large ln_gemm_gelu with time for the unfused plan's GEMM to finish (call 62's DB), then gated and the small ln_gemm_gelu
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
cp .devdb/tune62.sqlite /tmp/tune.sqlite
timeout 330 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/tune.sqlite --workloads ln_gemm_gelu_M_8192 --budget 6 --tune-timeout 300 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -2
timeout 240 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/tune.sqlite --workloads gated_tanh,ln_gemm_gelu_M_49152 --budget 8 --tune-timeout 100 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -3
python3 -c "
import sqlite3; c=sqlite3.connect('/tmp/tune.sqlite')
for r in c.execute(\"select substr(k.op,1,24), substr(k.shape,1,60), t.config, t.median_ms, t.rel_err, t.status from trials t join kernels k on k.id=t.kernel_id order by k.op, k.shape, t.median_ms\"): print(*r)" > $OUT/trials.txt
cp /tmp/a/*.json $OUT/ 2>/dev/null; cp /tmp/tune.sqlite $OUT/ 2>/dev/null

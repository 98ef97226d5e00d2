#!/bin/bash
# call 62: the transposed LayerNorm staged through its tile; encoder f16 + f32 beside PyTorch (call 61's DB), then the large ln_gemm_gelu and its plain linear
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
cp .devdb/tune61.sqlite /tmp/tune.sqlite
timeout 90 $K check examples/encoder_layer.pat --arch sm_90 --configs 12 --kernel k18_layernorm 2>&1 | tail -13 | tee $OUT/check.txt
timeout 90 $K check examples/encoder_layer.pat --arch sm_90 --configs 12 --kernel k18_layernorm --dim B=1 --dim L=861 --dtype DT=f32 2>&1 | tail -13 | tee -a $OUT/check.txt
timeout 200 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/tune.sqlite --workloads encoder_layer_default,encoder_layer_B_1 --budget 10 --tune-timeout 150 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -3
for d in /tmp/a/encoder*; do KGRT_PDL=0 timeout 40 python3 tools/bench/prof.py $d 2>&1 | grep -E "sum of|do_bench|k[0-9]+_" | head -16; done | tee $OUT/prof.txt
timeout 280 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/tune.sqlite --workloads ln_gemm_gelu_M_8192,linear_M_8192 --budget 6 --tune-timeout 120 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -3
python3 -c "
import sqlite3; c=sqlite3.connect('/tmp/tune.sqlite')
for r in c.execute(\"select substr(k.op,1,24), substr(k.shape,1,60), t.config, t.median_ms, t.rel_err, t.status from trials t join kernels k on k.id=t.kernel_id order by k.op, k.shape, t.median_ms\"): print(*r)" > $OUT/trials.txt
cp /tmp/a/*.json $OUT/ 2>/dev/null; cp /tmp/tune.sqlite $OUT/ 2>/dev/null

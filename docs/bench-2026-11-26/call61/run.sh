#!/bin/bash
# call 61: the encoder's FFN conv and LayerNorm take the transposes after them: GPU check, then the encoder f16 + f32 beside PyTorch (fresh DB)
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
for k in k18_layernorm k19_conv1d k20_elementwise; do timeout 100 $K check examples/encoder_layer.pat --arch sm_90 --configs 6 --kernel $k 2>&1 | tail -7; done | tee $OUT/check.txt
timeout 400 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/tune.sqlite --workloads encoder_layer_default,encoder_layer_B_1 --budget 10 --tune-timeout 180 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -6
for d in /tmp/a/encoder*; do timeout 40 python3 tools/bench/prof.py $d 2>&1 | grep -E "sum of|do_bench|k[0-9]+_" | head -16; done | tee $OUT/prof.txt
python3 -c "
import sqlite3; c=sqlite3.connect('/tmp/tune.sqlite')
for r in c.execute(\"select substr(k.op,1,24), substr(k.shape,1,60), t.config, t.median_ms, t.rel_err, t.status from trials t join kernels k on k.id=t.kernel_id order by k.op, k.shape, t.median_ms\"): print(*r)" > $OUT/trials.txt
cp /tmp/a/*.json $OUT/ 2>/dev/null; cp /tmp/tune.sqlite $OUT/ 2>/dev/null

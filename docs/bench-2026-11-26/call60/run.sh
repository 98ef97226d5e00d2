#!/bin/bash
# call 60: load=cp4 (mma's f32 A along M by 4-byte cp.async) + the masked split + PDL: GPU checks, then the fp32 blocks beside PyTorch (fresh DB)
# (.devdb/prof.py: the first form of tools/bench/prof.py; .devdb/ carried build-dev-bin and the DB)
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
for m in wavenet_layer lynxnet2_block; do timeout 90 $K check examples/$m.pat --arch sm_90 --configs 4 --dim B=1 --dim T=861 --dtype DT=f32 > /tmp/check_$m.txt 2>&1; grep -c "load=cp4" /tmp/check_$m.txt; tail -1 /tmp/check_$m.txt; done | tee $OUT/check.txt
grep -h "load=cp4" /tmp/check_*.txt | head -30 >> $OUT/check.txt
timeout 330 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/tune.sqlite --workloads wavenet_layer_B_1,lynxnet2_block_B_1,convnext_block_B_1,encoder_layer_B_1 --budget 24 --tune-timeout 150 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -4
D=/tmp/a/wavenet_layer_B_1_T_861_f32
KGRT_PDL=0 timeout 60 python3 .devdb/prof.py $D 2>&1 | grep -E "sum of|do_bench|k[0-9]_" | head -9 | tee $OUT/prof.txt
sqlite3 -separator ' ' /tmp/tune.sqlite "select substr(k.op,1,24), substr(k.shape,1,40), t.config, t.median_ms, t.rel_err, t.status from trials t join kernels k on k.id=t.kernel_id where k.dtype='f32' order by k.op, k.shape, t.median_ms" > $OUT/trials.txt 2>&1 || python3 -c "
import sqlite3; c=sqlite3.connect('/tmp/tune.sqlite')
for r in c.execute(\"select substr(k.op,1,24), substr(k.shape,1,40), t.config, t.median_ms, t.rel_err, t.status from trials t join kernels k on k.id=t.kernel_id order by k.op, k.shape, t.median_ms\"): print(*r)" > $OUT/trials.txt
cp /tmp/a/*.json $OUT/ 2>/dev/null

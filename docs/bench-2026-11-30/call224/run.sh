#!/bin/bash
# call 224 (session 44, 2026-11-30): bench.py timing its contenders in turn,
# --rounds 5 (each figure the median of 5 rounds' medians; every round's in
# the JSON's ms_rounds), both blocks on call 222's DB, to see whether the
# spread of calls 221 to 223 (ConvNeXt 0.4008 to 0.4451 ms, the same kernels
# and configs) lies within one process.
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns KGEN_TEMPLATES=$PWD/templates
K=build-dev-bin/kgen
DB=/tmp/t.sqlite
cp build-dev-bin/tune.sqlite $DB
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,power.draw --format=csv,noheader
timeout 280 python3 tools/bench/bench.py measure --kgen $K --out $OUT/a --db $DB \
  --workloads convnext_block_default,lynxnet2_block_default --budget 6 --tune-timeout 120 \
  --no-max-autotune --rounds 5 2>&1 | tail -2
rm -rf $OUT/a/*/
python3 -c "
import json, glob
for f in sorted(glob.glob('$OUT/a/*.json')):
    d = json.load(open(f))
    print(d['workload'], {k: [round(x, 4) for x in v] for k, v in d['ms_rounds'].items()})
"
echo "done at ${SECONDS}s"

#!/bin/bash
# call 223 (session 44, 2026-11-30): the spread of the block figures.  Call
# 221 drew ConvNeXt at 0.4008 ms and call 222, a minute later on the same
# machine with the same kernels and configs, 0.4247.  Here both blocks
# twice in turn on call 222's DB (every kernel tuned: no tuning load
# between the measurements), the GPU's clocks, temperature and power
# before each run.
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns KGEN_TEMPLATES=$PWD/templates
K=build-dev-bin/kgen
DB=/tmp/t.sqlite
cp build-dev-bin/tune.sqlite $DB
for r in 1 2; do
  nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw,clocks_throttle_reasons.active --format=csv,noheader
  timeout 250 python3 tools/bench/bench.py measure --kgen $K --out $OUT/r$r --db $DB \
    --workloads convnext_block_default,lynxnet2_block_default --budget 6 --tune-timeout 120 \
    --no-max-autotune 2>&1 | tail -2
  echo "run $r done at ${SECONDS}s"
done

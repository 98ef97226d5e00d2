#!/bin/bash
# call 226: the blocks timed with and without --settle (each contender run
# 1 s back to back before each timing), five rounds each, on call 225's
# DB (tuned on a machine of this kind; the tune here only finds its
# trials), with nvidia-smi's SM clock, power and throttle reasons in each
# JSON's "clocks".
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns KGEN_TEMPLATES=$PWD/templates
K=build-dev-bin/kgen
cp build-dev-bin/tune225.sqlite /tmp/db.sqlite
for s in 0 1; do
  timeout 280 python3 tools/bench/bench.py measure --kgen $K --out $OUT/s$s --db /tmp/db.sqlite \
    --workloads convnext_block_default,lynxnet2_block_default --budget 6 --tune-timeout 120 \
    --no-max-autotune --rounds 5 --settle $s 2>&1 | tail -4
  rm -rf $OUT/s$s/*/
done
echo "done at ${SECONDS}s"

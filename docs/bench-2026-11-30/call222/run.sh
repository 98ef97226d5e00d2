#!/bin/bash
# call 222 (session 44, 2026-11-30): main with slack.patch (call 220) applied
# to templates/gemm.lua; NW (call 221) not kept.  LYNXNet2 and ConvNeXt in
# one bench.py run, on call 221's DB (ConvNeXt's GEMMs tuned there with the
# patch; its dwconv_ln tuned again, the template back to main's).
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns KGEN_TEMPLATES=$PWD/templates
K=build-dev-bin/kgen
DB=/tmp/t.sqlite
[ -f build-dev-bin/tune.sqlite ] && cp build-dev-bin/tune.sqlite $DB
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
timeout 560 python3 tools/bench/bench.py measure --kgen $K --out $OUT/a --db $DB \
  --workloads lynxnet2_block_default,convnext_block_default --budget 6 --tune-timeout 300 \
  --no-max-autotune 2>&1 | tail -3
cp $DB $OUT/tune.sqlite
echo "done at ${SECONDS}s"

#!/bin/bash
# next43 (written in session 42, not run: its device time was spent): main's blocks
# measured with a tuning DB that outlives the call.  Two calls, each one block, fresh DB
# the first time: `bash docs/bench-2026-11-29/next43/run.sh lynxnet2`, then `... convnext`
# (each about 5 minutes).  The DB comes back as $OUT/tune.sqlite: copy it to
# build-dev-bin/tune.sqlite (ignored, carried with the binary) so that a later call
# re-measures a block in about a minute instead of tuning it again.
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns KGEN_TEMPLATES=$PWD/templates
K=build-dev-bin/kgen
DB=/tmp/t.sqlite
[ -f build-dev-bin/tune.sqlite ] && cp build-dev-bin/tune.sqlite $DB
case ${1:-lynxnet2} in
  lynxnet2) W=lynxnet2_block_default ;;
  convnext) W=convnext_block_default ;;
  *) echo "usage: $0 lynxnet2|convnext" >&2; exit 2 ;;
esac
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
timeout 560 python3 tools/bench/bench.py measure --kgen $K --out $OUT/a --db $DB \
  --workloads $W --budget 6 --tune-timeout 420 --no-max-autotune 2>&1 | tail -2
$K cache list --db $DB 2>&1 | cut -c1-230 > $OUT/winners.txt
cp $DB $OUT/tune.sqlite
echo "done at ${SECONDS}s"

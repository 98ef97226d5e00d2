#!/bin/bash
# next44/onerun.sh (written in session 43, not run): the whole table as one run of
# tools/bench, on the device tool's 8-GPU machine (kind nvidia-h200-x8), each workload
# on one GPU (bench.py measure --gpus 8; the split: `--dry-run`).  Main as it is, no
# patch.  Estimated 6 to 7 minutes: the blocks' tunes are the longest (LYNXNet2 239 s
# and ConvNeXt 186 s in calls 212 and 213), and every GPU gets one block first.
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns KGEN_TEMPLATES=$PWD/templates
K=build-dev-bin/kgen
DB=/tmp/t.sqlite
[ -f build-dev-bin/tune.sqlite ] && cp build-dev-bin/tune.sqlite $DB
nvidia-smi --query-gpu=index,name,pci.bus_id,clocks.sm,clocks.max.sm --format=csv,noheader
$K devices --json
python3 tools/bench/bench.py measure --kgen $K --out $OUT/a --db $DB --gpus 8 --dry-run
timeout 560 python3 tools/bench/bench.py measure --kgen $K --out $OUT/a --db $DB \
  --gpus 8 --budget 6 --tune-timeout 300 --no-max-autotune 2>&1 | tail -45
cp $DB $OUT/tune.sqlite
echo "done at ${SECONDS}s"

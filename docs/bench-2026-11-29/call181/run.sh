#!/bin/bash
# call 181 (2026-11-29, session 37): call 180's profile showed the channels-last conv's
# 16-byte stores split by nvcc into four 4-byte ones (3x the store sectors; the pitfall
# of attempt 27); the staging tile now leaves by kg.st16.  Checked (every mma config of
# the new test), the tuner's medians of k3 of call 179's layouts.pat at two configs, then
# LYNXNet2 beside PyTorch as call 176 (fresh DB, budget 6, tune timeout 245 s).
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
L=docs/bench-2026-11-29/call179/layouts.pat
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
$K check tests/kernels/dwconv_chlast.pat --arch sm_90 --configs 8 --where path=mma > $OUT/check_chlast.txt 2>&1
tail -1 $OUT/check_chlast.txt
i=0
for w in "BC=16 BLOCK=128 BT=512" "BC=32 BLOCK=256 BT=256"; do
  i=$((i+1)); W="--where path=mma"; for kv in $w; do W="$W --where $kv"; done
  timeout 60 $K tune $L --kernel k3_conv1d --arch sm_90 --db /tmp/r$i.db $W --budget 1 -q > /dev/null 2>&1
  echo "k3 $w: $($K cache list --db /tmp/r$i.db 2>&1 | sed -n 2p | awk '{print $5}')"
done | tee $OUT/pins.txt
rm -f /tmp/t.sqlite /tmp/a/*.json
timeout 300 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/t.sqlite --workloads lynxnet2_block_default --budget 6 --tune-timeout 245 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -2
$K cache list --db /tmp/t.sqlite 2>&1 | cut -c1-230 > $OUT/winners_lynxnet2.txt
cp /tmp/a/*.json $OUT/ 2>/dev/null
echo "lynxnet2 done at ${SECONDS}s"

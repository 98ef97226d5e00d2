#!/bin/bash
# call 182 (2026-11-29, session 37): the channels-last conv's results now staged in the
# window's own rows (each warp writes a row tile's results over inputs no later tile
# reads), so the kernel needs no more shared memory than the channel-first one (call 181:
# 0.1124 with a second tile).  Checked (every mma config of the new test), the tuner's
# medians of layouts.pat's k1 (channel-first) and k3 (channels-last) at three configs,
# then LYNXNet2 beside PyTorch as call 176 (fresh DB, budget 6, tune timeout 245 s).
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
L=docs/bench-2026-11-29/call179/layouts.pat
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
$K check tests/kernels/dwconv_chlast.pat --arch sm_90 --configs 8 --where path=mma > $OUT/check_chlast.txt 2>&1
tail -1 $OUT/check_chlast.txt
$K check examples/lynxnet2_block.pat --dim B=2 --kernel k2_conv1d --arch sm_90 --configs 8 --where path=mma > $OUT/check_k2.txt 2>&1
tail -1 $OUT/check_k2.txt
i=0
for w in "BC=16 BLOCK=128 BT=512" "BC=16 BLOCK=256 BT=512" "BC=32 BLOCK=256 BT=256"; do
  for k in k1_conv1d k3_conv1d; do
    i=$((i+1)); W="--where path=mma"; for kv in $w; do W="$W --where $kv"; done
    timeout 60 $K tune $L --kernel $k --arch sm_90 --db /tmp/r$i.db $W --budget 1 -q > /dev/null 2>&1
    echo "$k $w: $($K cache list --db /tmp/r$i.db 2>&1 | sed -n 2p | awk '{print $5}')"
  done
done | tee $OUT/pins.txt
rm -f /tmp/t.sqlite /tmp/a/*.json
timeout 300 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/t.sqlite --workloads lynxnet2_block_default --budget 6 --tune-timeout 245 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -2
$K cache list --db /tmp/t.sqlite 2>&1 | cut -c1-230 > $OUT/winners_lynxnet2.txt
cp /tmp/a/*.json $OUT/ 2>/dev/null
echo "lynxnet2 done at ${SECONDS}s"

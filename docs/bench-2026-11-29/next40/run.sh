#!/bin/bash
# next40 (written in session 39, not yet run): (1) the depthwise conv's mma kernel held to
# 5 and 6 blocks a multiprocessor by __launch_bounds__ (minb5.patch; 6 by the same line
# with 6), against main: at BC=32 BLOCK=256 BT=512 ptxas takes 59 registers, so 4 blocks
# of 256 threads fit (Nsight Compute, next-prof: occupancy 47%, long-scoreboard stalls
# first); held to 5 it takes 48, to 6 40, neither spilling (kgen check --compile-only
# here, NVRTC 13).  The tuner's medians of LYNXNet2's conv at two configs, in turn.
# (2) LYNXNet2 beside PyTorch at main (fresh DB, budget 6, tune timeout 245 s).
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
D=docs/bench-2026-11-29/next40
Y=examples/lynxnet2_block.pat
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
for mb in 5 6; do
  rm -rf /tmp/tpl$mb && cp -r templates /tmp/tpl$mb && (cd /tmp/tpl$mb && patch -s -p2 < $OLDPWD/$D/minb5.patch) &&
    sed -i "s/__launch_bounds__(BLOCK, 5)/__launch_bounds__(BLOCK, $mb)/" /tmp/tpl$mb/dwconv.lua
  KGEN_TEMPLATES=/tmp/tpl$mb $K check $Y --dim B=2 --dim T=301 --kernel k2_conv1d --arch sm_90 --configs 8 --where path=mma 2>&1 | tail -1
done
i=0
for r in 1 2; do
  for w in "BC=32 BLOCK=256 BT=512" "BC=32 BLOCK=256 BT=256"; do
    for tp in $PWD/templates /tmp/tpl5 /tmp/tpl6; do
      i=$((i+1)); W="--where path=mma"; for kv in $w; do W="$W --where $kv"; done
      KGEN_TEMPLATES=$tp timeout 60 $K tune $Y --kernel k2_conv1d --arch sm_90 --db /tmp/r$i.db $W --budget 1 -q > /dev/null 2>&1
      echo "$(basename $tp) $w: $($K cache list --db /tmp/r$i.db 2>&1 | sed -n 2p | awk '{print $5}') at ${SECONDS}s"
    done
  done
done | tee $OUT/pins.txt
export KGEN_TEMPLATES=$PWD/templates
rm -f /tmp/t.sqlite /tmp/a/*.json
timeout 300 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/t.sqlite --workloads lynxnet2_block_default --budget 6 --tune-timeout 245 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -2
$K cache list --db /tmp/t.sqlite 2>&1 | cut -c1-230 > $OUT/winners_lynxnet2.txt
cp /tmp/a/*.json $OUT/ 2>/dev/null
echo "done at ${SECONDS}s"

#!/bin/bash
# call 202 (session 41): ln_dwconv's mma path, third version: the staging's rounds
# unrolled by 2 (two rounds' loads in flight: at BC = 128, BLOCK = 512 a thread takes
# five), and the second cluster barrier split (arrive after the peers' statistics are
# read, wait before the block exits).  unroll4.patch: four rounds.  Each checked
# (LYNXNet2's at B = 2, T = 301, every mma config), then the tuner's medians of the six
# mma configs rank() puts first, in turn.
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
Y=examples/lynxnet2_block.pat
D=docs/bench-2026-11-29/call202
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
rm -rf /tmp/u4 && cp -r templates /tmp/u4 && (cd /tmp/u4 && patch -s -p2 < $OLDPWD/$D/unroll4.patch) || echo "patch failed"
KGEN_TEMPLATES=$PWD/templates $K check tests/kernels/ln_dwconv.pat --arch sm_90 --configs 16 2>&1 | tail -1 | tee $OUT/checks.txt
i=0
for v in "$PWD/templates u2" "/tmp/u4 u4"; do
  set -- $v; i=$((i+1))
  KGEN_TEMPLATES=$1 $K check $Y --dim B=2 --dim T=301 --kernel k0_ln_dwconv --arch sm_90 --where path=mma --configs 12 2>&1 | tail -1 | tee -a $OUT/checks.txt
  KGEN_TEMPLATES=$1 timeout 120 $K tune $Y --kernel k0_ln_dwconv --arch sm_90 --db /tmp/r$i.db --where path=mma --budget 6 -q > /dev/null 2>&1
  $K cache show "$($K cache list --db /tmp/r$i.db | sed -n 2p | awk '{print $2}')" --db /tmp/r$i.db > $OUT/trials_$2.txt 2>&1
  echo "$2: $($K cache list --db /tmp/r$i.db | sed -n 2p | awk '{print $5, $8, $9, $10, $11}') at ${SECONDS}s"
  grep -v re-timed $OUT/trials_$2.txt | tail -n +3
done
echo "done at ${SECONDS}s"

#!/bin/bash
# call 203 (session 41): ln_dwconv's mma path in clusters of up to 16 blocks (past the
# portable 8: runtime/cuda.c now opts every kernel in on sm_90), so that BC = 64
# (blocks of 48 KB at BT = 256, four a multiprocessor) runs beside BC = 128 (90 KB,
# two); the cluster's partial statistics joined one block at a time (Chan's update),
# not held in an array (77 registers at 16 blocks; now 35 to 45).  Checked first, then
# the tuner's medians of all 24 mma configs.
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns KGEN_TEMPLATES=$PWD/templates
K=build-dev-bin/kgen
Y=examples/lynxnet2_block.pat
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
{
  $K check tests/kernels/ln_dwconv.pat --arch sm_90 --configs 16 2>&1 | tail -1
  $K check $Y --dim B=2 --dim T=301 --kernel k0_ln_dwconv --arch sm_90 --where path=mma --configs 24 2>&1 | grep -v " ok "
  $K check $Y --dim B=8 --kernel k0_ln_dwconv --arch sm_90 --where path=mma --where BC=64 --configs 12 2>&1 | tail -1
} | tee $OUT/checks.txt
echo "checks done at ${SECONDS}s"
timeout 200 $K tune $Y --kernel k0_ln_dwconv --arch sm_90 --db /tmp/ln.db --where path=mma --budget 24 -q > $OUT/tune_ln.txt 2>&1
$K cache list --db /tmp/ln.db | tee $OUT/list_ln.txt
$K cache show "$($K cache list --db /tmp/ln.db | sed -n 2p | awk '{print $2}')" --db /tmp/ln.db > $OUT/trials_ln.txt 2>&1
grep -v re-timed $OUT/trials_ln.txt | tail -n +3 | sort -k7 -n | awk '{print $4, $5, $6, $8, $9, $10}'
echo "done at ${SECONDS}s"

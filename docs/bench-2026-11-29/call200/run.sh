#!/bin/bash
# call 200 (session 41): pattern ln_dwconv, LYNXNet2's LayerNorm and depthwise conv
# as one kernel (templates/dwconv.lua, path=mma in clusters of C / BC blocks that
# share each window row's partial statistics through distributed shared memory).
# Checked first (tests/kernels/ln_dwconv.pat, every config; LYNXNet2's at B = 2, T =
# 301 and at B = 8, every mma config), then the tuner's medians of all 12 mma configs
# at LYNXNet2's dims beside the unfused plan's LayerNorm and conv (their rank()
# firsts, the bench's picks) in the same call.
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns KGEN_TEMPLATES=$PWD/templates
K=build-dev-bin/kgen
Y=examples/lynxnet2_block.pat
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
{
  $K check tests/kernels/ln_dwconv.pat --arch sm_90 --configs 40 2>&1 | tail -1
  $K check $Y --dim B=2 --dim T=301 --kernel k0_ln_dwconv --arch sm_90 --where path=mma --configs 12 2>&1 | tail -13
  $K check $Y --dim B=8 --kernel k0_ln_dwconv --arch sm_90 --where path=mma --configs 12 2>&1 | tail -13
} | tee $OUT/checks.txt
echo "checks done at ${SECONDS}s"
timeout 150 $K tune $Y --kernel k0_ln_dwconv --arch sm_90 --db /tmp/ln.db --where path=mma --budget 12 -q > $OUT/tune_ln.txt 2>&1
$K cache list --db /tmp/ln.db > $OUT/list_ln.txt 2>&1
$K cache show "$($K cache list --db /tmp/ln.db | sed -n 2p | awk '{print $2}')" --db /tmp/ln.db > $OUT/trials_ln.txt 2>&1
timeout 90 $K tune $Y --unfuse k0_ln_dwconv --kernel k0_layernorm --arch sm_90 --db /tmp/un.db --budget 2 -q > $OUT/tune_un.txt 2>&1
timeout 60 $K tune $Y --unfuse k0_ln_dwconv --kernel k2_conv1d --arch sm_90 --db /tmp/un.db --where path=mma --where BC=32 --where BLOCK=256 --where BT=256 --budget 1 -q >> $OUT/tune_un.txt 2>&1
$K cache list --db /tmp/un.db > $OUT/list_un.txt 2>&1
cat $OUT/list_ln.txt $OUT/list_un.txt
cat $OUT/trials_ln.txt
echo "done at ${SECONDS}s"

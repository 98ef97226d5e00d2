#!/bin/bash
# call 186 (2026-11-29, session 38): the channels-last conv stores from registers.  Where
# every warp can take whole groups of 8 channels (BLOCK / 32 <= BC / 8), a warp keeps a
# group's mma results in registers and stores each step's 8 channels with one 16-byte
# store: no staging in the window's rows, no block barrier after the MMAs.  Other configs
# keep the staged store (call 185: best 0.1038, channel-first 0.0908).  Every mma config
# of tests/kernels/dwconv_chlast.pat and LYNXNet2's conv (B = 2) checked; then every mma
# config of layouts.pat's k3 (channels-last) and k1 (channel-first) timed by the tuner;
# then BC = 64 (tpl/: bc64.patch of call 184 over this template).
# templates/ was main's with regstore.patch applied; tpl/ was that copy with bc64.patch.
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns KGEN_INCLUDE=$PWD/include
K=build-dev-bin/kgen
D=docs/bench-2026-11-29/call186
L=docs/bench-2026-11-29/call179/layouts.pat
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
$K check tests/kernels/dwconv_chlast.pat --arch sm_90 --configs 60 --where path=mma > $OUT/check_chlast.txt 2>&1
tail -1 $OUT/check_chlast.txt
$K check examples/lynxnet2_block.pat --dim B=2 --kernel k2_conv1d --arch sm_90 --configs 60 --where path=mma > $OUT/check_k2.txt 2>&1
tail -1 $OUT/check_k2.txt
for k in k3_conv1d k1_conv1d; do
  timeout 150 $K tune $L --kernel $k --arch sm_90 --db /tmp/$k.db --where path=mma --where items=apart --strategy exhaustive -q > /dev/null 2>&1
  $K cache show conv1d --db /tmp/$k.db > $OUT/$k.txt 2>&1
  echo "$k at ${SECONDS}s: $(grep -c ' ok ' $OUT/$k.txt) ok"
done
export KGEN_TEMPLATES=$PWD/$D/tpl
$K check $L --kernel k3_conv1d --dim B=2 --arch sm_90 --configs 40 --where path=mma --where BC=64 > $OUT/check_bc64.txt 2>&1
tail -1 $OUT/check_bc64.txt
timeout 100 $K tune $L --kernel k3_conv1d --arch sm_90 --db /tmp/b64.db --where path=mma --where BC=64 --strategy exhaustive -q > /dev/null 2>&1
$K cache show conv1d --db /tmp/b64.db > $OUT/k3_bc64.txt 2>&1
echo "done at ${SECONDS}s"

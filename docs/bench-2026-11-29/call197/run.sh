#!/bin/bash
# call 197 (2026-11-29, session 40): sched=pp's residual GEMMs staging their tile
# unpadded in swizzled 64-column panels (res_swz, rsw.patch against 792cf18), so that
# LYNXNet2's residual linear takes a fifth ring stage at 128 x 128.  First checked on
# the H200 (LYNXNet2's k5 at its dims and at B = 2, T = 301; the encoder's two
# residual linears), then tuner medians pinned, in turn, twice: main (rsw.patch
# reversed) at STAGES = 4 against res_swz at 4 and 5, by tma and by mcast.
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
D=docs/bench-2026-11-29/call197
Y=examples/lynxnet2_block.pat
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
rm -rf /tmp/old && cp -r templates /tmp/old && (cd /tmp/old && patch -s -R -p2 < $OLDPWD/$D/rsw.patch) || echo "reverse patch failed"
export KGEN_TEMPLATES=$PWD/templates
{
$K check $Y --kernel k5_linear_residual --arch sm_90 --where sched=pp --configs 16
$K check $Y --dim B=2 --dim T=301 --kernel k5_linear_residual --arch sm_90 --where sched=pp --configs 16
for k in k16_linear_residual k20_linear_residual; do $K check examples/encoder_layer.pat --kernel $k --arch sm_90 --where sched=pp --configs 8; done
} 2>&1 | grep -v " ok " | tee $OUT/checks.txt
i=0
for r in 1 2; do
  for ld in tma mcast; do
    for v in "/tmp/old 4" "$PWD/templates 4" "$PWD/templates 5"; do
      set -- $v; i=$((i+1))
      KGEN_TEMPLATES=$1 timeout 90 $K tune $Y --kernel k5_linear_residual --arch sm_90 --db /tmp/r$i.db --where sched=pp --where load=$ld --where BM=128 --where BN=128 --where STAGES=$2 --where WN=1 --where WM=1 --budget 1 -q > /dev/null 2>&1
      echo "$(basename $(dirname $1/x))/$(basename $1) $ld STAGES=$2: $($K cache list --db /tmp/r$i.db 2>&1 | sed -n 2p | awk '{print $5}') at ${SECONDS}s"
    done
  done
done | tee $OUT/pins.txt
echo "done at ${SECONDS}s"

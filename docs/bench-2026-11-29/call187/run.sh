#!/bin/bash
# call 187 (2026-11-29, session 38): call 186's register store (regstore.patch) held to
# fewer registers.  At BT >= 256 it took 146 registers, and the configs that took it ran
# slower than staged only there (0.14 against 0.11; at BT = 128, 80 registers, the same).
# tpl/: regstore.patch + bc64.patch + __launch_bounds__(BLOCK, 768 / BLOCK) on the
# kernels that take it (80 registers, some spilled); tpl2/: the same at 512 / BLOCK (128).
# (tpl.patch: tpl/dwconv.lua against main's, lib.lua as regstore.patch has it; tpl2.patch:
# tpl2/ against tpl/.)  Each checked (every mma config of the channels-last kernels), then the tuner exhaustive
# over BC = 32 and 64 (the staged configs among them are the controls).
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns KGEN_INCLUDE=$PWD/include
K=build-dev-bin/kgen
D=docs/bench-2026-11-29/call187
L=docs/bench-2026-11-29/call179/layouts.pat
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
for t in tpl tpl2; do
  export KGEN_TEMPLATES=$PWD/$D/$t
  $K check tests/kernels/dwconv_chlast.pat --arch sm_90 --configs 80 --where path=mma > $OUT/check_chlast_$t.txt 2>&1
  tail -1 $OUT/check_chlast_$t.txt
  $K check $L --dim B=2 --kernel k3_conv1d --arch sm_90 --configs 80 --where path=mma > $OUT/check_k3_$t.txt 2>&1
  tail -1 $OUT/check_k3_$t.txt
  timeout 110 $K tune $L --kernel k3_conv1d --arch sm_90 --db /tmp/$t.db --where path=mma --where items=apart --where BC=32,64 --strategy exhaustive -q > /dev/null 2>&1
  $K cache show conv1d --db /tmp/$t.db > $OUT/k3_$t.txt 2>&1
  echo "$t at ${SECONDS}s: $(grep -c ' ok ' $OUT/k3_$t.txt) ok"
done

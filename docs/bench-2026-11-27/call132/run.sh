#!/bin/bash
# call 132: the tap-major conv with a channel-last x (convt_k: K-major TMA chunks, the tap's
# shift on an outer axis, any dilation).  Checks of tests/kernels/gemm_convt.pat's y5, y6
# (k10, k13); then the tuner's medians at WaveNet's DIL = 2 shape (dilk.pat: y given
# channel-last), and what y channel-last would cost its producer: x + s written [B, T, C]
# (ewt.pat) beside [B, C, T] (ew.pat).
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
D=docs/bench-2026-11-27/call132
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
for k in k10_conv1d k13_conv1d; do
  timeout 60 $K check tests/kernels/gemm_convt.pat --arch sm_90 --kernel $k --where path=wgmma --where load=tma --configs 8 > $OUT/check_tma_$k.txt 2>&1; tail -1 $OUT/check_tma_$k.txt
  timeout 30 $K check tests/kernels/gemm_convt.pat --arch sm_90 --kernel $k --where load=panel --configs 3 > $OUT/check_panel_$k.txt 2>&1; tail -1 $OUT/check_panel_$k.txt
done
timeout 60 $K check tests/kernels/gemm_convt.pat --arch sm_90 --configs 2 > $OUT/check_any.txt 2>&1; tail -1 $OUT/check_any.txt
timeout 40 $K check $D/dilk.pat --arch sm_90 --dim B=2 --dim T=256 --kernel k5_conv1d --where load=tma --configs 4 > $OUT/check_dilk.txt 2>&1; tail -1 $OUT/check_dilk.txt
timeout 120 $K tune $D/dilk.pat --kernel k5_conv1d --arch sm_90 --db $OUT/t.sqlite --budget 8 --where load=tma -q 2>&1 | tail -1
timeout 40 $K tune $D/ewt.pat --arch sm_90 --db $OUT/t.sqlite --budget 6 -q 2>&1 | tail -1
timeout 40 $K tune $D/ew.pat --arch sm_90 --db $OUT/t.sqlite --budget 6 -q 2>&1 | tail -1
$K cache list --db $OUT/t.sqlite 2>&1 | cut -c1-220
python3 -c "
import sqlite3,sys
for r in sqlite3.connect(sys.argv[1]).execute('select k.op, t.status, t.median_ms, t.config from trials t join kernels k on k.id=t.kernel_id order by k.op, t.median_ms'):
  print(*[str(x)[:200] for x in r])
" $OUT/t.sqlite

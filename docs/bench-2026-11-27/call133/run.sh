#!/bin/bash
# call 133: call 132's channel-last tap-major conv with its consumers retiring each tile's MMAs
# before the next tile's (as for A read along M, attempt 22): the check at B = 2, T = 256 that
# found 6 wrong of 8, and the tuner at WaveNet's shape (dilk.pat, DIL = 2).
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
D=docs/bench-2026-11-27/call132
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
timeout 50 $K check $D/dilk.pat --arch sm_90 --dim B=2 --dim T=256 --kernel k5_conv1d --where load=tma --configs 8 > $OUT/check_dilk.txt 2>&1; tail -1 $OUT/check_dilk.txt
timeout 30 $K check $D/dilk.pat --arch sm_90 --dim B=2 --dim T=256 --kernel k5_conv1d --where load=panel --configs 3 > $OUT/check_dilk_panel.txt 2>&1; tail -1 $OUT/check_dilk_panel.txt
timeout 110 $K tune $D/dilk.pat --kernel k5_conv1d --arch sm_90 --db $OUT/t.sqlite --budget 8 --where load=tma -q 2>&1 | tail -1
python3 -c "
import sqlite3,sys
for r in sqlite3.connect(sys.argv[1]).execute('select k.op, t.status, t.median_ms, t.config from trials t join kernels k on k.id=t.kernel_id order by k.op, t.median_ms'):
  print(*[str(x)[:200] for x in r])
" $OUT/t.sqlite

#!/bin/bash
# call 128: the dilated conv tap-major (kind "convt", templates/gemm.lua): every K tile of A one
# TMA box of x shifted by its tap, no pass.  Checks on small shapes, then the tuner's medians of
# WaveNet's dilated conv with its weight relaid tap-major (dilr.pat) beside the shift-pass conv
# at its best config (dil.pat, attempt 25's 0.3910 ms).
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
# (tests/kernels/gemm_convt.pat was then this directory's gemm_convt.pat)
D=docs/bench-2026-11-27/call128
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
timeout 150 $K check tests/kernels/gemm_convt.pat --arch sm_90 --where path=wgmma --where load=tma --configs 8 > $OUT/check_tma.txt 2>&1; tail -1 $OUT/check_tma.txt
timeout 60 $K check tests/kernels/gemm_convt.pat --arch sm_90 --configs 3 > $OUT/check_any.txt 2>&1; tail -1 $OUT/check_any.txt
timeout 60 $K check $D/dilr.pat --arch sm_90 --dim B=2 --dim T=256 --kernel k4_conv1d --where load=tma --configs 6 > $OUT/check_dilr.txt 2>&1; tail -1 $OUT/check_dilr.txt
timeout 60 $K tune $D/dil.pat --kernel k0_conv1d --arch sm_90 --db $OUT/base.sqlite --budget 1 --force --where load=tma --where sched=ws --where prologue=smem --where BM=128 --where BN=256 --where WM=2 --where STAGES=4 -q 2>&1 | tail -1
timeout 200 $K tune $D/dilr.pat --kernel k4_conv1d --arch sm_90 --db $OUT/t.sqlite --budget 14 --where load=tma -q 2>&1 | tail -1
timeout 40 $K tune $D/dilr.pat --kernel k1_reshape --arch sm_90 --db $OUT/t.sqlite --budget 4 -q 2>&1 | tail -1
for f in $OUT/base.sqlite $OUT/t.sqlite; do echo "== $f"; $K cache show 1 --db $f 2>&1 | grep -E "^ *[0-9]" | cut -c1-220; done
python3 -c "
import sqlite3,sys
for f in sys.argv[1:]:
  print('==',f)
  for r in sqlite3.connect(f).execute('select k.op, t.status, t.median_ms, t.config from trials t join kernels k on k.id=t.kernel_id order by t.median_ms'):
    print(*r)
" $OUT/base.sqlite $OUT/t.sqlite

#!/bin/bash
# call 129: the tap-major conv (kind "convt") where its TMA boxes start on 16 bytes (dilation and
# padding multiples of 8; call 128's odd starts were illegal instructions).  Checks, then
# WaveNet's dilated conv shape at dilation 8: the shift-pass conv (dil8.pat, its best config of
# attempt 25 at dilation 2) beside the tap-major conv with its weight relaid (dil8r.pat).
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
# (tests/kernels/gemm_convt.pat was then this directory's gemm_convt.pat)
D=docs/bench-2026-11-27/call129
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
for k in k3_conv1d k5_conv1d; do
  timeout 100 $K check tests/kernels/gemm_convt.pat --arch sm_90 --kernel $k --where path=wgmma --where load=tma --configs 8 > $OUT/check_tma_$k.txt 2>&1; tail -1 $OUT/check_tma_$k.txt
  timeout 60 $K check tests/kernels/gemm_convt.pat --arch sm_90 --kernel $k --where load=panel --configs 3 > $OUT/check_panel_$k.txt 2>&1; tail -1 $OUT/check_panel_$k.txt
done
timeout 90 $K check tests/kernels/gemm_convt.pat --arch sm_90 --configs 3 > $OUT/check_any.txt 2>&1; tail -1 $OUT/check_any.txt
timeout 60 $K check $D/dil8r.pat --arch sm_90 --dim B=2 --dim T=256 --kernel k4_conv1d --where load=tma --configs 6 > $OUT/check_dil8r.txt 2>&1; tail -1 $OUT/check_dil8r.txt
timeout 60 $K tune $D/dil8.pat --kernel k0_conv1d --arch sm_90 --db $OUT/base.sqlite --budget 1 --force --where load=tma --where sched=ws --where prologue=smem --where BM=128 --where BN=256 --where WM=2 --where STAGES=4 -q 2>&1 | tail -1
timeout 200 $K tune $D/dil8r.pat --kernel k4_conv1d --arch sm_90 --db $OUT/t.sqlite --budget 14 --where load=tma -q 2>&1 | tail -1
python3 -c "
import sqlite3,sys
for f in sys.argv[1:]:
  print('==',f)
  for r in sqlite3.connect(f).execute('select k.op, t.status, t.median_ms, t.config, t.error from trials t join kernels k on k.id=t.kernel_id order by t.median_ms'):
    print(*[str(x)[:200] for x in r])
" $OUT/base.sqlite $OUT/t.sqlite

#!/bin/bash
# call 168 (2026-11-28, session 35): call 167's per-instruction stall samples of ConvNeXt's
# GELU GEMM (pp tma 128x128 STAGES=4) again, the whole SASS table kept (gg_sass.csv) so
# that the samples can be summed by region of the kernel here.
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns KGEN_TEMPLATES=$PWD/templates
K=build-dev-bin/kgen
C=examples/convnext_block.pat
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
A="$C --unfuse all --kernel k1_gemm_gelu --arch sm_90 --configs 1 --where sched=pp --where load=tma --where BM=128 --where BN=128 --where STAGES=4 --where WM=1 --where WN=1"
timeout 200 ncu --clock-control none --target-processes application-only -k regex:'^k1' -c 1 \
  --section WarpStateStats --section SourceCounters -o /tmp/gg -f $K check $A > $OUT/ncu_run.txt 2>&1
tail -1 $OUT/ncu_run.txt
ncu -i /tmp/gg.ncu-rep --page source --csv --print-source sass > $OUT/gg_sass.csv 2>&1
ls -la $OUT; head -c 600 $OUT/gg_sass.csv

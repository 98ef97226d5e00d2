#!/bin/bash
# call 167 (2026-11-28, session 35): call 166's pinned configs again (it passed nine
# --where options, one more than kgen takes; path and MINB now left free: sched=pp/ws
# imply wgmma), and Nsight Compute's per-instruction stall samples of ConvNeXt's GELU
# GEMM (pp tma 128x128 STAGES=4), whose tensor pipe call 166 found 57% active.
# sass_sum.py / sass_sum2.py (calls 134 and 139): the top stalled instructions, and the
# samples by reason (the call ran identical copies beside this file, since removed).
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns KGEN_TEMPLATES=$PWD/templates
K=build-dev-bin/kgen
C=examples/convnext_block.pat
Y=examples/lynxnet2_block.pat
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
A="$C --unfuse all --kernel k1_gemm_gelu --arch sm_90 --configs 1 --where sched=pp --where load=tma --where BM=128 --where BN=128 --where STAGES=4 --where WM=1 --where WN=1"
timeout 200 ncu --clock-control none --target-processes application-only -k regex:'^k1' -c 1 \
  --section WarpStateStats --section SourceCounters --section SpeedOfLight \
  -o /tmp/gg -f $K check $A > $OUT/ncu_run.txt 2>&1; tail -1 $OUT/ncu_run.txt
ncu -i /tmp/gg.ncu-rep --page source --csv --print-source sass > /tmp/gg_sass.csv 2>&1
python3 docs/bench-2026-11-27/call134/sass_sum.py /tmp/gg_sass.csv 70 > $OUT/gg_sum.txt 2>&1
python3 docs/bench-2026-11-27/call139/sass_sum2.py /tmp/gg_sass.csv > $OUT/gg_reasons.txt 2>&1
head -45 $OUT/gg_sum.txt | cut -c1-150
echo "ncu done at ${SECONDS}s"
i=0
for m in "$C --unfuse all --kernel k1_gemm_gelu" "$Y --kernel k4_gemm_glu" "$Y --kernel k6_linear_residual"; do
  cfgs=("sched=pp load=tma BM=128 BN=128 WM=1 WN=1" "sched=pp load=mcast BM=128 BN=128 WM=1 WN=1"
        "sched=ws load=tma BM=128 BN=256 WM=1 WN=2" "sched=ws load=mcast BM=128 BN=256 WM=1 WN=2"
        "sched=ws load=tma BM=256 BN=128 WM=2 WN=1")
  case $m in *residual*) cfgs+=("sched=ws load=tmares BM=128 BN=256 WM=1 WN=2") ;; esac
  for c in "${cfgs[@]}"; do
    i=$((i+1))
    w=""; for kv in $c STAGES=4; do w="$w --where $kv"; done
    timeout 90 $K tune $m --arch sm_90 --db /tmp/p$i.db $w --budget 1 -q > /tmp/p$i.log 2>&1
    echo "== $m | $c (${SECONDS}s)"; $K cache list --db /tmp/p$i.db 2>&1 | cut -c1-110 | tail -n +2
    [ -s /tmp/p$i.log ] && tail -2 /tmp/p$i.log
  done
done > $OUT/pins.txt 2>&1; cat $OUT/pins.txt
echo "done at ${SECONDS}s"

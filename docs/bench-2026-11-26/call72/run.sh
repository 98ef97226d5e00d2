#!/bin/bash
# call 72: the small ln_gemm_gelu's GELU GEMM (49152x1024x256) -- every pp config's time, and Nsight Compute (full, per-SASS samples) of pp 128x128 tma 4 stages, beside the plain linear
# (.devdb/gg.pat is docs/bench-2026-11-26/call72/gg.pat; .devdb/sass_sum.py is call72/sass_sum.py)
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/trials.txt
D="--dim M=49152 --dim K=256 --dim N=1024"
timeout 150 $K tune .devdb/gg.pat $D --arch sm_90 --db /tmp/gg.sqlite --strategy exhaustive --budget 40 --where path=wgmma --where sched=pp,ws --where load=tma,mcast --where STAGES=3,4 -q 2>&1 | tail -3
timeout 60 $K tune tools/bench/linear.pat $D --arch sm_90 --db /tmp/gg.sqlite --strategy exhaustive --budget 10 --where path=wgmma --where sched=pp --where load=tma --where STAGES=4 -q 2>&1 | tail -3
for i in 1 2; do $K cache show $i --db /tmp/gg.sqlite 2>&1; done | cut -c1-170 | tee -a $OUT/trials.txt
W="--arch sm_90 --configs 1 --where path=wgmma --where load=tma --where sched=pp --where BM=128 --where BN=128 --where STAGES=4"
timeout 150 ncu --clock-control none --target-processes application-only -k regex:'^k0' -c 1 --set full --import-source yes -o /tmp/gg -f $K check .devdb/gg.pat $D $W 2>&1 | tail -2
ncu -i /tmp/gg.ncu-rep --page details > $OUT/gg_details.txt 2>&1
ncu -i /tmp/gg.ncu-rep --page source --csv --print-source sass > /tmp/gg_sass.csv 2>&1; python3 .devdb/sass_sum.py /tmp/gg_sass.csv 90 > $OUT/gg_sum.txt 2>&1; gzip -c /tmp/gg_sass.csv > $OUT/gg_sass.csv.gz
timeout 120 ncu --clock-control none --target-processes application-only -k regex:'^k0' -c 1 --set full -o /tmp/lin -f $K check tools/bench/linear.pat $D $W 2>&1 | tail -2
ncu -i /tmp/lin.ncu-rep --page details > $OUT/lin_details.txt 2>&1
ls -la $OUT

#!/bin/bash
# call 84: Nsight Compute of the fused ln=fold pp panel kernel beside the unfused GELU GEMM (panel), small ln_gemm_gelu shape
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
D="--dim M=49152 --dim K=256 --dim N=1024"
W="--arch sm_90 --configs 1 --where load=panel --where sched=pp --where BM=128 --where BN=128 --where STAGES=4"
timeout 150 ncu --clock-control none --target-processes application-only -k regex:'^k0' -c 1 --set full --import-source yes -o /tmp/ln -f $K check tools/bench/ln_gemm_gelu.pat $D $W --where ln=fold 2>&1 | tail -2
ncu -i /tmp/ln.ncu-rep --page details > $OUT/ln_details.txt 2>&1
ncu -i /tmp/ln.ncu-rep --page source --csv --print-source sass > /tmp/ln_sass.csv 2>&1; python3 .devdb/sass_sum.py /tmp/ln_sass.csv 100 > $OUT/ln_sum.txt 2>&1
timeout 150 ncu --clock-control none --target-processes application-only -k regex:'^k0' -c 1 --set full --import-source yes -o /tmp/gg -f $K check .devdb/gg.pat $D $W 2>&1 | tail -2
ncu -i /tmp/gg.ncu-rep --page details > $OUT/gg_details.txt 2>&1
ncu -i /tmp/gg.ncu-rep --page source --csv --print-source sass > /tmp/gg_sass.csv 2>&1; python3 .devdb/sass_sum.py /tmp/gg_sass.csv 100 > $OUT/gg_sum.txt 2>&1
ls -la $OUT

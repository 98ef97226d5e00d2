#!/bin/bash
# call 85: STAGES 5 and 6 on the wgmma producer's ring: the GELU GEMM 49152x1024x256 by panel at 128x128 and 64x256, the fused ln=fold kernel at STAGES 4 and 5
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
D="--dim M=49152 --dim K=256 --dim N=1024"
S="--arch sm_90 --strategy exhaustive -q"
timeout 60 $K check .devdb/gg.pat --dim M=1000 --dim K=192 --dim N=576 --arch sm_90 --configs 4 --where STAGES=5,6 2>&1 | tail -1 | tee $OUT/check.txt
timeout 150 $K tune .devdb/gg.pat $D $S --db /tmp/gg.sqlite --budget 12 --where load=panel,tma --where sched=pp --where BM=128,64 --where BN=128,256 --where STAGES=4,5,6 2>&1 | tail -1
timeout 100 $K tune tools/bench/ln_gemm_gelu.pat $D $S --kernel k0_ln_gemm_gelu --db /tmp/ln.sqlite --budget 6 --where ln=fold --where sched=pp --where STAGES=4,5 2>&1 | tail -1
$K cache show 1 --db /tmp/gg.sqlite 2>&1 | cut -c1-180 > $OUT/trials_gg.txt
$K cache show 1 --db /tmp/ln.sqlite 2>&1 | cut -c1-180 > $OUT/trials_ln.txt
grep -h " ok " $OUT/trials_*.txt | awk '{print $2,$3,$4,$8,$9,$10,$15,$(NF-2),$(NF-1)}' | sort -u

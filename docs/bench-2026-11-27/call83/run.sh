#!/bin/bash
# call 83: ln=fold under sched=pp with load=panel (B's panel scaled by gamma once a block, row sums beside the MMAs): GPU checks, the fused kernel tuned, the small ln_gemm_gelu beside PyTorch
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
W="--arch sm_90 --configs 8 --where sched=pp --where ln=fold"
{
timeout 100 $K check tests/kernels/gemm_ln_gelu_fold.pat $W 2>&1 | grep -E " ok | FAIL|candidates"
timeout 60 $K check tests/kernels/gemm_ln_gelu_f16.pat --kernel k0_ln_gemm_gelu $W 2>&1 | tail -1
timeout 60 $K check tools/bench/ln_gemm_gelu.pat --dim M=3000 --dim K=256 --dim N=1024 $W 2>&1 | tail -1
timeout 60 $K check tests/kernels/gemm_ln_gelu_fold.pat --arch sm_90 --configs 4 2>&1 | tail -1
} 2>&1 | tee $OUT/check.txt
rm -f /tmp/t.sqlite
S="--arch sm_90 --db /tmp/t.sqlite --strategy exhaustive -q"
timeout 120 $K tune tools/bench/ln_gemm_gelu.pat --kernel k0_ln_gemm_gelu $S --budget 24 --where sched=pp --where ln=fold --where STAGES=4,6 2>&1 | tail -1
timeout 90 $K tune tools/bench/ln_gemm_gelu.pat --unfuse all --kernel k1_gemm_gelu $S --budget 8 --where sched=pp --where load=panel --where STAGES=4,6 --where BM=128 --where BN=128,256 2>&1 | tail -1
for i in 1 2 3; do $K cache show $i --db /tmp/t.sqlite 2>&1 | cut -c1-180; done > $OUT/trials.txt
grep -h " ok " $OUT/trials.txt | sort -k12 | head -30
timeout 200 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/t.sqlite --workloads ln_gemm_gelu_M_49152 --budget 8 --tune-timeout 100 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -3
d=/tmp/a/ln_gemm_gelu_M_49152_K_256_N_1024_f16; [ -d $d ] && KGRT_PDL=0 timeout 40 python3 tools/bench/prof.py $d 2>&1 | grep -E "sum of|do_bench|k[0-9]+_" | head -6 | tee $OUT/prof.txt
cp /tmp/a/*.json $OUT/ 2>/dev/null; cp /tmp/t.sqlite $OUT/tune83.sqlite

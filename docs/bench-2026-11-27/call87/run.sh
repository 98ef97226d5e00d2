#!/bin/bash
# call 87: where does ln=fold under pp pay? The fused kernel (fold, pp, panel) against the unfused plan's LayerNorm + GELU GEMM at N = 256 and 512 (M = 49152, K = 256), by the tuner's medians in one call (bench.py has no such workload)
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 60 $K check tests/kernels/gemm_ln_gelu_fold.pat --arch sm_90 --where sched=pp --where ln=fold --configs 6 2>&1 | tail -1 | tee $OUT/check.txt
S="--arch sm_90 --db /tmp/t.sqlite --strategy exhaustive -q"
for n in 256 512; do
  D="--dim M=49152 --dim K=256 --dim N=$n"
  rm -f /tmp/t.sqlite
  timeout 60 $K tune tools/bench/ln_gemm_gelu.pat $D --kernel k0_ln_gemm_gelu $S --budget 6 --where sched=pp --where ln=fold --where STAGES=4 2>&1 | tail -1
  timeout 60 $K tune tools/bench/ln_gemm_gelu.pat $D --unfuse all --kernel k1_gemm_gelu $S --budget 6 --where sched=pp --where load=panel --where STAGES=4 2>&1 | tail -1
  for i in 1 2; do $K cache show $i --db /tmp/t.sqlite 2>&1 | cut -c1-180; done > $OUT/trials_$n.txt
  grep -h " ok " $OUT/trials_$n.txt | awk '{print $2,$3,$10,$11,$(NF-2)}' | sort -k5 | head -4
  timeout 60 $K tune tools/bench/ln_gemm_gelu.pat $D --unfuse all --kernel k0_layernorm $S --budget 8 2>&1 | tail -1
  $K cache show 3 --db /tmp/t.sqlite 2>&1 | cut -c1-180 >> $OUT/trials_$n.txt
done
grep -h " ok " $OUT/trials_*.txt | awk '{print $2,$3,$10,$11,$(NF-2)}' | sort -k5 | head -30

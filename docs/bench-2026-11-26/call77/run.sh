#!/bin/bash
# call 77: GELU with one MUFU op (2^-Q(|x|), degree 9): accuracy on the GPU, GPU checks, the GELU GEMM 49152x1024x256 old vs new lib, the small ln_gemm_gelu beside PyTorch
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
.devdb/gelu_acc | tee $OUT/gelu_acc.txt
export KGEN_TEMPLATES=$PWD/templates
W="--arch sm_90 --configs 6"
{
timeout 60 $K check .devdb/gg.pat --dim M=200 --dim K=256 --dim N=320 $W --where load=panel 2>&1 | tail -1
timeout 60 $K check .devdb/gg.pat --dim M=1000 --dim K=192 --dim N=576 --dtype DT=bf16 $W 2>&1 | tail -1
timeout 60 $K check tests/kernels/gemm_ln_gelu_f16.pat $W 2>&1 | tail -1
timeout 90 $K check examples/convnext_block.pat --dim B=2 --dim C=64 --dim F=256 --dim T=100 $W 2>&1 | tail -1
timeout 90 $K check examples/encoder_layer.pat --dim B=2 --dim L=40 --dim C=64 --dim HD=32 --dim F=256 $W 2>&1 | tail -1
timeout 60 $K check tests/kernels/elementwise_mix.pat --arch sm_90 --configs 3 2>&1 | tail -1
} 2>&1 | tee $OUT/check.txt
D="--dim M=49152 --dim K=256 --dim N=1024"
S="--arch sm_90 --strategy exhaustive --budget 20 --where sched=pp --where load=panel --where STAGES=4,6 --where BM=128 --where BN=128,256 -q"
for v in old new; do
  [ $v = old ] && export KGEN_TEMPLATES=$PWD/.devdb/tpl_old || export KGEN_TEMPLATES=$PWD/templates
  timeout 90 $K tune .devdb/gg.pat $D $S --db /tmp/gg_$v.sqlite 2>&1 | tail -1
  $K cache show 1 --db /tmp/gg_$v.sqlite 2>&1 | cut -c1-170 > $OUT/trials_$v.txt
done
export KGEN_TEMPLATES=$PWD/templates
for v in old new new2; do
  [ $v = old ] && export KGEN_TEMPLATES=$PWD/.devdb/tpl_old || export KGEN_TEMPLATES=$PWD/templates
  timeout 40 $K tune .devdb/gg.pat $D --arch sm_90 --strategy exhaustive --budget 1 --where sched=pp --where load=panel --where STAGES=4 --where BM=128 --where BN=128 -q --db /tmp/gg2_$v.sqlite 2>&1 | tail -1
done
grep -h " ok " $OUT/trials_*.txt | awk '{print $3,$10,$11,$14,$(NF-4)}' | head -20
export KGEN_TEMPLATES=$PWD/templates
cp .devdb/tune75.sqlite /tmp/t.sqlite
timeout 200 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/t.sqlite --workloads ln_gemm_gelu_M_49152 --budget 10 --tune-timeout 110 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -3
d=/tmp/a/ln_gemm_gelu_M_49152_K_256_N_1024_f16; [ -d $d ] && KGRT_PDL=0 timeout 40 python3 tools/bench/prof.py $d 2>&1 | grep -E "sum of|do_bench|k[0-9]+_" | head -6 | tee $OUT/prof.txt
cp /tmp/a/*.json $OUT/ 2>/dev/null; cp /tmp/t.sqlite $OUT/tune77.sqlite

#!/bin/bash
# call 74: load=panel (B's K panel kept by a persistent block) -- GPU checks at odd dims, the GELU GEMM and the plain linear at 49152x1024x256 over pp tma/panel, then the small ln_gemm_gelu and gated beside PyTorch (call 73's DB)
# (.devdb/gg.pat is docs/bench-2026-11-26/call72/gg.pat; .devdb/sass_sum.py is call72/sass_sum.py)
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
W="--arch sm_90 --where load=panel"
{
timeout 60 $K check .devdb/gg.pat --dim M=200 --dim K=256 --dim N=320 $W --configs 20 2>&1 | tail -1
timeout 60 $K check .devdb/gg.pat --dim M=1000 --dim K=192 --dim N=576 --dtype DT=bf16 $W --configs 20 2>&1 | tail -1
timeout 60 $K check tools/bench/linear.pat --dim B=3 --dim M=130 --dim K=128 --dim N=192 $W --configs 20 2>&1 | tail -1
timeout 90 $K check examples/lynxnet2_block.pat --dim B=2 --dim T=100 --dim C=192 $W --configs 20 2>&1 | tail -1
timeout 90 $K check examples/encoder_layer.pat --dim B=2 --dim L=40 --dim C=64 --dim HD=32 --dim F=256 $W --configs 10 2>&1 | tail -1
timeout 90 $K check examples/convnext_block.pat --dim B=2 --dim C=64 --dim F=256 --dim T=100 $W --configs 20 2>&1 | tail -1
timeout 60 $K check examples/wavenet_layer.pat --dim B=2 --dim C=64 --dim H=64 --dim T=128 $W --configs 20 2>&1 | tail -1
} 2>&1 | tee $OUT/check.txt
D="--dim M=49152 --dim K=256 --dim N=1024"
timeout 120 $K tune .devdb/gg.pat $D --arch sm_90 --db /tmp/gg.sqlite --strategy exhaustive --budget 40 --where sched=pp --where load=tma,panel --where STAGES=4 -q 2>&1 | tail -2
timeout 100 $K tune tools/bench/linear.pat $D --arch sm_90 --db /tmp/gg.sqlite --strategy exhaustive --budget 40 --where sched=pp --where load=tma,panel --where STAGES=4 -q 2>&1 | tail -2
for i in 1 2; do $K cache show $i --db /tmp/gg.sqlite 2>&1; done | cut -c1-170 > $OUT/trials.txt
cp .devdb/tune73.sqlite /tmp/t.sqlite
timeout 240 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/t.sqlite --workloads ln_gemm_gelu_M_49152,gated_tanh --budget 10 --tune-timeout 110 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -3
d=/tmp/a/ln_gemm_gelu_M_49152_K_256_N_1024_f16; [ -d $d ] && KGRT_PDL=0 timeout 40 python3 tools/bench/prof.py $d 2>&1 | grep -E "sum of|do_bench|k[0-9]+_" | head -6 | tee $OUT/prof.txt
cp /tmp/a/*.json $OUT/ 2>/dev/null; cp /tmp/t.sqlite $OUT/tune74.sqlite

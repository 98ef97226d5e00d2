#!/bin/bash
# call 73: the register epilogue's TMA store and its bias in the accumulators -- GPU checks of every wgmma load=tma kernel at odd dims (f16, bf16, a batch axis, gemm_glu, conv_gelu), then the GELU GEMM and the plain linear at 49152x1024x256 tuned over pp/ws tma, and the small ln_gemm_gelu beside PyTorch
# (.devdb/gg.pat is docs/bench-2026-11-26/call72/gg.pat; .devdb/sass_sum.py is call72/sass_sum.py)
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
W="--arch sm_90 --where path=wgmma --where load=tma"
{
timeout 90 $K check .devdb/gg.pat --dim M=200 --dim K=256 --dim N=320 $W --configs 60 2>&1 | tail -1
timeout 90 $K check .devdb/gg.pat --dim M=200 --dim K=192 --dim N=576 --dtype DT=bf16 $W --configs 60 2>&1 | tail -1
timeout 90 $K check tools/bench/linear.pat --dim B=3 --dim M=130 --dim K=128 --dim N=192 $W --configs 60 2>&1 | tail -1
timeout 90 $K check examples/lynxnet2_block.pat --dim B=2 --dim T=100 --dim C=192 $W --configs 30 2>&1 | tail -1
timeout 90 $K check examples/encoder_layer.pat --dim B=2 --dim L=40 --dim C=64 --dim HD=32 --dim F=256 $W --configs 20 2>&1 | tail -1
timeout 90 $K check examples/convnext_block.pat --dim B=2 --dim C=64 --dim F=256 --dim T=100 $W --configs 20 2>&1 | tail -1
timeout 60 $K check examples/wavenet_layer.pat --dim B=2 --dim C=64 --dim H=64 --dim T=128 $W --configs 20 2>&1 | tail -1
} 2>&1 | tee $OUT/check.txt
D="--dim M=49152 --dim K=256 --dim N=1024"
timeout 150 $K tune .devdb/gg.pat $D --arch sm_90 --db /tmp/gg.sqlite --strategy exhaustive --budget 40 --where path=wgmma --where sched=pp,ws --where load=tma --where STAGES=3,4 -q 2>&1 | tail -2
timeout 90 $K tune tools/bench/linear.pat $D --arch sm_90 --db /tmp/gg.sqlite --strategy exhaustive --budget 12 --where path=wgmma --where sched=pp --where load=tma --where STAGES=4 -q 2>&1 | tail -2
for i in 1 2; do $K cache show $i --db /tmp/gg.sqlite 2>&1; done | cut -c1-170 | tee $OUT/trials.txt | grep -E "sched=pp|sched=ws" | sort -k17 -n | head -0
cp .devdb/tune68.sqlite /tmp/t68.sqlite
timeout 200 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/t68.sqlite --workloads ln_gemm_gelu_M_49152 --budget 10 --tune-timeout 150 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -2
d=/tmp/a/ln_gemm_gelu_M_49152_K_256_N_1024_f16; [ -d $d ] && KGRT_PDL=0 timeout 40 python3 tools/bench/prof.py $d 2>&1 | grep -E "sum of|do_bench|k[0-9]+_" | head -6 | tee $OUT/prof.txt
cp /tmp/a/*.json $OUT/ 2>/dev/null; cp /tmp/t68.sqlite $OUT/tune73.sqlite

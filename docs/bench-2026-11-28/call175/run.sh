#!/bin/bash
# call 175 (2026-11-29, session 36): Nsight Compute (full set) of ConvNeXt's GELU GEMM,
# pp tma 128x128 STAGES=4, with the consumers' warp index warp-uniform (ecbd8b9): the
# same measurement as call 166 made before it, for the tensor pipe's share and the stalls.
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns KGEN_TEMPLATES=$PWD/templates
K=build-dev-bin/kgen
C=examples/convnext_block.pat
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
A="$C --unfuse all --kernel k1_gemm_gelu --arch sm_90 --configs 1 --where sched=pp --where load=tma --where BM=128 --where BN=128 --where STAGES=4 --where WM=1 --where WN=1"
timeout 200 ncu --clock-control none --target-processes application-only -k regex:'^k1' -c 1 --set full \
  -o /tmp/gg -f $K check $A > $OUT/ncu_run.txt 2>&1; tail -2 $OUT/ncu_run.txt
ncu -i /tmp/gg.ncu-rep --page details > $OUT/gg_details.txt 2>&1
grep -E "Duration|Frequency|Throughput|Pipe|Tensor|Issue|Eligible|Stall|Registers|L2 Hit|Achieved Occ" $OUT/gg_details.txt | head -60
echo "done at ${SECONDS}s"

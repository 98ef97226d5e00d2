#!/bin/bash
# call 166 (2026-11-28, session 35): the big GEMMs' tile and load choices again, now that
# they run at 490-630 TF/s (attempt 16's mcast verdict was at 340-440): the tuner's medians
# of pinned configs (budget 1 each) for ConvNeXt's GELU GEMM (49152 x 2048, K = 512),
# LYNXNet2's first gemm_glu (K = 1024, N = 2048) and its linear_residual (K = 1024):
# pp 128x128 by tma and by mcast, ws 128x256 and 256x128 by tma, ws 128x256 by mcast
# (tmares for the residual); then Nsight Compute (full set) of the GELU GEMM's pp tma.
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns KGEN_TEMPLATES=$PWD/templates
K=build-dev-bin/kgen
C=examples/convnext_block.pat
Y=examples/lynxnet2_block.pat
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
i=0
for m in "$C --unfuse all --kernel k1_gemm_gelu" "$Y --kernel k4_gemm_glu" "$Y --kernel k6_linear_residual"; do
  cfgs=("sched=pp load=tma BM=128 BN=128 WM=1 WN=1" "sched=pp load=mcast BM=128 BN=128 WM=1 WN=1"
        "sched=ws load=tma BM=128 BN=256 WM=1 WN=2" "sched=ws load=mcast BM=128 BN=256 WM=1 WN=2"
        "sched=ws load=tma BM=256 BN=128 WM=2 WN=1")
  case $m in *residual*) cfgs+=("sched=ws load=tmares BM=128 BN=256 WM=1 WN=2") ;; esac
  for c in "${cfgs[@]}"; do
    i=$((i+1))
    w=""; for kv in $c path=wgmma STAGES=4 MINB=1; do w="$w --where $kv"; done
    timeout 90 $K tune $m --arch sm_90 --db /tmp/p$i.db $w --budget 1 -q > /tmp/p$i.log 2>&1
    echo "== $m | $c (${SECONDS}s)"; $K cache list --db /tmp/p$i.db 2>&1 | cut -c1-110 | tail -n +2
    [ -s /tmp/p$i.log ] && tail -2 /tmp/p$i.log
  done
done > $OUT/pins.txt 2>&1; cat $OUT/pins.txt
echo "pins done at ${SECONDS}s"
A="$C --unfuse all --kernel k1_gemm_gelu --arch sm_90 --configs 1 --where sched=pp --where load=tma --where BM=128 --where BN=128 --where STAGES=4 --where WM=1 --where WN=1"
timeout 200 ncu --clock-control none --target-processes application-only -k regex:'^k1' -c 1 --set full \
  -o /tmp/gg -f $K check $A > $OUT/ncu_run.txt 2>&1; tail -2 $OUT/ncu_run.txt
ncu -i /tmp/gg.ncu-rep --page details > $OUT/gg_details.txt 2>&1
ncu -i /tmp/gg.ncu-rep --page raw --csv > $OUT/gg_raw.csv 2>&1
grep -E "Duration|Throughput|Pipe|Tensor|Issue|Eligible|Stall|Registers|L2 Hit|Achieved Occ" $OUT/gg_details.txt | head -60
echo "done at ${SECONDS}s"

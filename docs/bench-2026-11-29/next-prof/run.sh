#!/bin/bash
# next-prof (written in session 38, not yet run): Nsight Compute of LYNXNet2's depthwise
# conv at its best config of either layout (call 185: mma BC=32 BLOCK=256 BT=512, 0.0907
# channel-first, 0.1038 channels-last), k1 and k3 of call 179's layouts.pat, to see what
# the channels-last store's 13 us are: DRAM bytes written (partial lines written twice?),
# L2 store sectors and requests, the barrier and the staging's shared loads.
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns KGEN_TEMPLATES=$PWD/templates KGEN_INCLUDE=$PWD/include
K=build-dev-bin/kgen
L=docs/bench-2026-11-29/call179/layouts.pat
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
W="--where path=mma --where BC=32 --where BLOCK=256 --where BT=512"
for k in k1 k3; do
  timeout 240 ncu --clock-control none --target-processes application-only -k regex:"^${k}_conv1d" -c 1 --set full \
    -o /tmp/$k -f $K check $L --kernel ${k}_conv1d --arch sm_90 --configs 1 $W > $OUT/ncu_$k.txt 2>&1
  tail -1 $OUT/ncu_$k.txt
  ncu -i /tmp/$k.ncu-rep --page details > $OUT/${k}_details.txt 2>&1
  ncu -i /tmp/$k.ncu-rep --page raw --csv > $OUT/${k}_raw.csv 2>&1
  grep -E "Duration|DRAM Through|Memory Through|L2 Hit|Achieved Occ|Issue Slots Busy|Registers Per|Bank|excessive|sectors" $OUT/${k}_details.txt | head -30
done
for k in k1 k3; do
  echo "== $k"
  python3 - "$OUT/${k}_raw.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
hdr, vals = rows[0], rows[-1]
for want in ("dram__bytes_write.sum", "dram__bytes_read.sum", "lts__t_sectors_op_write.sum",
             "lts__t_requests_op_write.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
             "smsp__inst_executed.sum", "gpu__time_duration.sum"):
    for h, v in zip(hdr, vals):
        if h == want:
            print(f"{want}: {v}")
PY
done
echo "done at ${SECONDS}s"

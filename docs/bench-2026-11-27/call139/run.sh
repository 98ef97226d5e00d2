#!/bin/bash
# call 139: Nsight Compute of dwconv_ln load=pipe (BT = 32 and 16, BLOCK = 512): where the
# persistent block's cycles go; and gpu_kernels.sh's new dwconv_ln pipe line
# (.devdb/sass_sum.py, the stall samples by instruction: a copy is in ../call134; sass_sum2.py, by
# reason, is copied beside this file)
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
for bt in 32 16; do
  W="--arch sm_90 --configs 1 --unfuse k2_ln_gemm_gelu --kernel k0_dwconv_ln --where load=pipe --where xred=shfl --where BLOCK=512 --where BT=$bt --where PB=1"
  timeout 120 ncu --clock-control none --target-processes application-only -k regex:'^k0' -c 1 --set full --import-source yes -o /tmp/dp$bt -f $K check examples/convnext_block.pat $W 2>&1 | tail -1
  ncu -i /tmp/dp$bt.ncu-rep --page details > $OUT/dp${bt}_details.txt 2>&1
  ncu -i /tmp/dp$bt.ncu-rep --page source --csv --print-source sass > /tmp/dp${bt}_sass.csv 2>&1
  python3 .devdb/sass_sum.py /tmp/dp${bt}_sass.csv 50 > $OUT/dp${bt}_sum.txt 2>&1
  python3 .devdb/sass_sum2.py /tmp/dp${bt}_sass.csv > $OUT/dp${bt}_stalls.txt 2>&1
done
timeout 60 $K check examples/convnext_block.pat --dim B=8 --unfuse k2_ln_gemm_gelu --kernel k0_dwconv_ln --where load=pipe --where BLOCK=256 --configs 6 --arch sm_90 2>&1 | tail -1

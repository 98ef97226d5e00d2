#!/bin/bash
# call 134: Nsight Compute of ConvNeXt's dwconv_ln (load=v16, tile, shfl) at BT = 16 and 32,
# BLOCK = 512: what holds the 100 MB transform at 1.5 TB/s
# (.devdb/sass_sum.py, which sums the stall samples by instruction, is copied beside this file)
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
for bt in 16 32; do
  W="--arch sm_90 --configs 1 --unfuse k2_ln_gemm_gelu --kernel k0_dwconv_ln --where load=v16 --where xred=shfl --where BLOCK=512 --where BT=$bt"
  timeout 120 ncu --clock-control none --target-processes application-only -k regex:'^k0' -c 1 --set full --import-source yes -o /tmp/dl$bt -f $K check examples/convnext_block.pat $W 2>&1 | tail -3
  ncu -i /tmp/dl$bt.ncu-rep --page details > $OUT/dl${bt}_details.txt 2>&1
  ncu -i /tmp/dl$bt.ncu-rep --page source --csv --print-source sass > /tmp/dl${bt}_sass.csv 2>&1
  python3 .devdb/sass_sum.py /tmp/dl${bt}_sass.csv 60 > $OUT/dl${bt}_sum.txt 2>&1
done
ls -la $OUT

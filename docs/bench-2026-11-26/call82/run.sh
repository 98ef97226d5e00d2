#!/bin/bash
# call 82: dwconv_ln with its buffer in dynamic shared memory on CUDA (BT = 32 at C = 512) and xred=smem|shfl: GPU check, every config timed, ConvNeXt beside PyTorch (call 81's DB)
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 60 $K check tests/kernels/dwconv_ln.pat --arch sm_90 --configs 6 2>&1 | tail -1 | tee $OUT/check.txt
cp .devdb/tune81.sqlite /tmp/t.sqlite
timeout 120 $K tune examples/convnext_block.pat --unfuse all --kernel k0_dwconv_ln --arch sm_90 --db /tmp/t.sqlite --strategy exhaustive --budget 52 -q 2>&1 | tail -1
id=$($K cache list --db /tmp/t.sqlite 2>&1 | grep dwconv_ln | head -1 | awk '{print $1}'); [ -n "$id" ] && $K cache show $id --db /tmp/t.sqlite 2>&1 | cut -c1-160 > $OUT/trials_dwconv_ln.txt
timeout 150 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/t.sqlite --workloads convnext_block_default --budget 6 --tune-timeout 120 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -2
for d in /tmp/a/*; do KGRT_PDL=0 timeout 20 python3 tools/bench/prof.py $d 2>&1 | grep -E "sum of|do_bench|k[0-9]+_" | head -8; done | tee $OUT/prof.txt
cp /tmp/a/*.json $OUT/ 2>/dev/null; cp /tmp/t.sqlite $OUT/tune82.sqlite

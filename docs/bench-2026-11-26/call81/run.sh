#!/bin/bash
# call 81: dwconv_ln with the conv a channel a thread (window row and weights in registers) and stage=smem|regs: GPU check, every config timed, ConvNeXt beside PyTorch (call 80's DB)
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 60 $K check tests/kernels/dwconv_ln.pat --arch sm_90 --configs 8 2>&1 | tail -1 | tee $OUT/check.txt
cp .devdb/tune80.sqlite /tmp/t.sqlite
timeout 120 $K tune examples/convnext_block.pat --unfuse all --kernel k0_dwconv_ln --arch sm_90 --db /tmp/t.sqlite --strategy exhaustive --budget 45 -q 2>&1 | tail -1
id=$($K cache list --db /tmp/t.sqlite 2>&1 | grep dwconv_ln | head -1 | awk '{print $1}'); [ -n "$id" ] && $K cache show $id --db /tmp/t.sqlite 2>&1 | cut -c1-160 > $OUT/trials_dwconv_ln.txt
timeout 200 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/t.sqlite --workloads convnext_block_default --budget 6 --tune-timeout 170 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -2
for d in /tmp/a/*; do KGRT_PDL=0 timeout 25 python3 tools/bench/prof.py $d 2>&1 | grep -E "sum of|do_bench|k[0-9]+_" | head -8; done | tee $OUT/prof.txt
cp /tmp/a/*.json $OUT/ 2>/dev/null; cp /tmp/t.sqlite $OUT/tune81.sqlite

#!/bin/bash
# call 80: dwconv_ln (the depthwise conv and the LayerNorm after it in one kernel): GPU checks, then ConvNeXt beside PyTorch
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
{
timeout 90 $K check tests/kernels/dwconv_ln.pat --arch sm_90 --configs 8 2>&1 | tail -1
timeout 90 $K check examples/convnext_block.pat --unfuse all --dim B=2 --dim C=64 --dim F=256 --dim T=100 --arch sm_90 --configs 4 2>&1 | tail -1
timeout 60 $K check examples/convnext_block.pat --unfuse all --kernel k0_dwconv_ln --arch sm_90 --configs 30 2>&1 | tail -1
} 2>&1 | tee $OUT/check.txt
cp .devdb/tune79.sqlite /tmp/t.sqlite
timeout 330 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/t.sqlite --workloads convnext_block_default --budget 6 --tune-timeout 290 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -3
for d in /tmp/a/*; do KGRT_PDL=0 timeout 25 python3 tools/bench/prof.py $d 2>&1 | grep -E "sum of|do_bench|k[0-9]+_" | head -8; done | tee $OUT/prof.txt
$K cache list --db /tmp/t.sqlite 2>&1 | grep -i "dwconv_ln" | head -3 > $OUT/winners.txt
id=$($K cache list --db /tmp/t.sqlite 2>&1 | grep dwconv_ln | head -1 | awk '{print $1}'); [ -n "$id" ] && $K cache show $id --db /tmp/t.sqlite 2>&1 | cut -c1-160 > $OUT/trials_dwconv_ln.txt
cp /tmp/a/*.json $OUT/ 2>/dev/null; cp /tmp/t.sqlite $OUT/tune80.sqlite

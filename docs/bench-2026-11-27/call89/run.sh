#!/bin/bash
# call 89: dwconv_ln load=v16 with 8 window loads in flight a thread (not kept: 60.96 us against call 88's 60.13): GPU checks, the v16 configs timed, ConvNeXt beside PyTorch (call 88's DB for the GEMMs)
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
{
timeout 60 $K check tests/kernels/dwconv_ln.pat --arch sm_90 --where load=v16 --configs 8 2>&1 | tail -1
timeout 60 $K check tests/kernels/dwconv_ln.pat --arch sm_90 --configs 3 2>&1 | tail -1
} 2>&1 | tee $OUT/check.txt
cp .devdb/tune88.sqlite /tmp/t.sqlite; chmod u+w /tmp/t.sqlite
timeout 120 $K tune examples/convnext_block.pat --unfuse all --kernel k0_dwconv_ln --arch sm_90 --db /tmp/t.sqlite --strategy exhaustive --budget 30 --where load=v16 -q 2>&1 | tail -1
id=$($K cache list --db /tmp/t.sqlite 2>&1 | grep dwconv_ln | head -1 | awk '{print $1}'); $K cache show $id --db /tmp/t.sqlite 2>&1 | cut -c1-160 > $OUT/trials_dwconv_ln.txt
grep " ok " $OUT/trials_dwconv_ln.txt | awk '{for(i=1;i<=NF;i++) if ($i=="ok") print $2,$3,$4,$5,$6,$(i+1)}' | sort -k6 -n | head -8
timeout 200 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/t.sqlite --workloads convnext_block_default --budget 6 --tune-timeout 150 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -2
for d in /tmp/a/*/; do KGRT_PDL=0 timeout 30 python3 tools/bench/prof.py $d 2>&1 | grep -E "sum of|do_bench|k[0-9]+_" | head -8; done | tee $OUT/prof.txt
cp /tmp/a/*.json $OUT/ 2>/dev/null

#!/bin/bash
# call 88: dwconv_ln load=v16 (the window copied 16 bytes at a time as it lies in x, rows read once into registers, 16-byte stores): GPU checks, every config of ConvNeXt's dwconv_ln timed, ConvNeXt beside PyTorch
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
{
timeout 60 $K check tests/kernels/dwconv_ln.pat --arch sm_90 --where load=v16 --configs 8 2>&1 | grep -E " ok | FAIL|candidates" | cut -c1-150
timeout 60 $K check tests/kernels/dwconv_ln.pat --arch sm_90 --configs 4 2>&1 | tail -1
timeout 90 $K check examples/convnext_block.pat --dim B=2 --dim C=64 --dim F=256 --dim T=96 --unfuse all --arch sm_90 --configs 4 2>&1 | tail -1
} 2>&1 | tee $OUT/check.txt
rm -f /tmp/t.sqlite
timeout 150 $K tune examples/convnext_block.pat --unfuse all --kernel k0_dwconv_ln --arch sm_90 --db /tmp/t.sqlite --strategy exhaustive --budget 60 --where path=tile -q 2>&1 | tail -1
$K cache show 1 --db /tmp/t.sqlite 2>&1 | cut -c1-160 > $OUT/trials_dwconv_ln.txt
grep " ok " $OUT/trials_dwconv_ln.txt | awk '{for(i=1;i<=NF;i++) if ($i=="ok") print $2,$3,$4,$5,$6,$(i+1)}' | sort -k6 -n | head -12
timeout 240 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/t.sqlite --workloads convnext_block_default --budget 6 --tune-timeout 200 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -2
for d in /tmp/a/*/; do KGRT_PDL=0 timeout 30 python3 tools/bench/prof.py $d 2>&1 | grep -E "sum of|do_bench|k[0-9]+_" | head -8; done | tee $OUT/prof.txt
cp /tmp/a/*.json $OUT/ 2>/dev/null; cp /tmp/t.sqlite $OUT/tune88.sqlite

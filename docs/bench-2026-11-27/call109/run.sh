#!/bin/bash
# call 109: ln_dwconv with its row statistics in one pass from registers and the next chunk's loads in flight during the MMAs: GPU check, tune, LYNXNet2 beside PyTorch
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 120 $K check tests/kernels/ln_dwconv.pat --arch sm_90 --configs 4 2>&1 | tee $OUT/check.txt | tail -1
timeout 120 $K check examples/lynxnet2_block.pat --dim B=2 --dim T=300 --arch sm_90 --kernel k0_ln_dwconv --configs 6 2>&1 | tee -a $OUT/check.txt | tail -1
rm -f /tmp/t.sqlite
timeout 110 $K tune examples/lynxnet2_block.pat --kernel k0_ln_dwconv --arch sm_90 --db /tmp/t.sqlite --strategy exhaustive --time 100 2>&1 | tail -2
$K cache show 1 --db /tmp/t.sqlite 2>&1 | cut -c1-200 > $OUT/trials_lndw.txt
grep " ok " $OUT/trials_lndw.txt | awk '{for(i=1;i<=NF;i++) if($i=="ok") print $(i+1), $0}' | sort -n | head -6 | cut -c1-100
rm -f /tmp/t2.sqlite
timeout 320 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/t2.sqlite --workloads lynxnet2_block_default --budget 6 --tune-timeout 290 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -3
for d in /tmp/a/*/; do KGRT_PDL=0 timeout 30 python3 tools/bench/prof.py $d 2>&1 | grep -E "sum of|do_bench|k[0-9]+_" | head -8; done | tee $OUT/prof.txt
cp /tmp/a/*.json $OUT/ 2>/dev/null

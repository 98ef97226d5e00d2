#!/bin/bash
# call 112: every wgmma config of two short-K GEMMs (gated's split 1x1 conv, 137 us; ConvNeXt's GELU GEMM, 235 us), to see whether the tuner's small budgets miss a faster one
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name --format=csv,noheader
rm -f /tmp/s.sqlite /tmp/g.sqlite
timeout 250 $K tune tools/bench/gated_tanh_residual.pat --unfuse all --kernel k2_conv1x1_split_residual --arch sm_90 --db /tmp/s.sqlite --where path=wgmma --strategy exhaustive --time 240 2>&1 | tail -1
$K cache show 1 --db /tmp/s.sqlite 2>&1 | cut -c1-260 > $OUT/trials_split.txt
grep " ok " $OUT/trials_split.txt | awk '{for(i=1;i<=NF;i++) if($i=="ok") print $(i+1), $0}' | sort -n | head -8 | cut -c1-200
timeout 250 $K tune examples/convnext_block.pat --unfuse k2_ln_gemm_gelu --kernel k1_gemm_gelu --arch sm_90 --db /tmp/g.sqlite --where path=wgmma --strategy exhaustive --time 240 2>&1 | tail -1
$K cache show 1 --db /tmp/g.sqlite 2>&1 | cut -c1-260 > $OUT/trials_gelu.txt
grep " ok " $OUT/trials_gelu.txt | awk '{for(i=1;i<=NF;i++) if($i=="ok") print $(i+1), $0}' | sort -n | head -8 | cut -c1-200

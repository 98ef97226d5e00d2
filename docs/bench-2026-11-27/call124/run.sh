#!/bin/bash
# call 124: atan from one MUFU op (templates/lib.lua kg_atan_f / kg_atan_n: a degree-5 fit, 4.4e-6
# relative, 13 instructions and no branch, where atanf takes a degree-7 polynomial and a branch).
# (1) kgen check of the kernels with atan; (2) the tuner's medians of LYNXNet2's first GLU GEMM
# (49152 x 2048 -> 1024 values, K = 1024) with atanf (.devdb/tpl6 = templates/ of 7f0e9c3) and
# with kg_atan_n (templates/), alternating; (3) LYNXNet2 beside PyTorch.
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
export KGEN_TEMPLATES=$PWD/templates
for a in tests/kernels/gemm_glu_f16.pat tests/kernels/elementwise_shapes.pat \
         "examples/lynxnet2_block.pat --dim B=2 --dim T=96 --dim C=72"; do
  timeout 45 $K check $a --arch sm_90 --configs 4 2>&1 | tail -1 | cut -c1-250
done
t() { # name templates where...
  local n=$1 tp=$2; shift 2
  KGEN_TEMPLATES=$PWD/$tp timeout 35 $K tune examples/lynxnet2_block.pat --kernel k4_gemm_glu --arch sm_90 --budget 1 --force \
    --db /tmp/$n.$(basename $tp).sqlite --where path=wgmma --where load=tma --where STAGES=4 "$@" > /dev/null 2>&1
}
for tp in .devdb/tpl6 templates; do
  t pp $tp --where sched=pp --where BM=128 --where BN=128
  t ws $tp --where sched=ws --where BM=128 --where BN=256 --where WN=2
done
for f in /tmp/pp.*.sqlite /tmp/ws.*.sqlite; do echo "== $f"; $K cache show 1 --db $f 2>&1 | grep -E "^ *[0-9]" | cut -c1-200; done
rm -f /tmp/t2.sqlite
timeout 300 python3 tools/bench/bench.py measure --kgen $K --out /tmp/a --db /tmp/t2.sqlite --workloads lynxnet2_block_default --budget 6 --tune-timeout 270 --no-max-autotune 2>&1 | grep -v "^\s*$" | grep -v -i Warn | tail -2
$K cache list --db /tmp/t2.sqlite 2>&1 | cut -c1-220 > $OUT/winners.txt
cp /tmp/a/*.json $OUT/ 2>/dev/null

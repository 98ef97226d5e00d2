#!/bin/bash
# call 230: is kgen's GEMM less work per joule than cuBLAS's?  The plain
# linear at ConvNeXt's first GEMM's shape (M = 49152, K = 512, N = 2048, no
# GELU), tuned by kgen (budget 6), then timed by call 227's ab.py beside
# torch.compile's (cuBLAS's mm), in turn, as before and settled, with the
# SM clock of each timing: under the 700 W cap the faster one does more
# work per joule.
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns KGEN_TEMPLATES=$PWD/templates
K=build-dev-bin/kgen
timeout 240 $K tune tools/bench/linear.pat --dim M=49152 --dim K=512 --dim N=2048 --arch sm_90 \
  --db /tmp/l.sqlite --budget 6 -q 2>&1 | tail -2
$K build tools/bench/linear.pat --dim M=49152 --dim K=512 --dim N=2048 --arch sm_90 --db /tmp/l.sqlite -o /tmp/lin -q
timeout 200 python3 docs/bench-2026-11-30/call227/ab.py $OUT/linear.json lin=/tmp/lin 2>&1 | grep -v -i warn
echo "done at ${SECONDS}s"

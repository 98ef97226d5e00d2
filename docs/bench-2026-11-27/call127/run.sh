#!/bin/bash
# call 127: does the pp schedule hide the GELU epilogue at all?  The GELU GEMM and the plain
# linear (49152 x 2048, K = 512) at the same configs, pp against ws (ws: the consumers share one
# tile and the epilogue overlaps nothing in its block).
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
W="--where path=wgmma --where load=tma --where STAGES=4 --arch sm_90 --budget 1 --force"
t() { local n=$1; shift
  timeout 40 $K tune examples/convnext_block.pat --unfuse k2_ln_gemm_gelu --kernel k1_gemm_gelu --db /tmp/g.$n.sqlite $W "$@" > /dev/null 2>&1
  timeout 40 $K tune docs/bench-2026-11-27/call115/lin512.pat --kernel k0_linear --db /tmp/l.$n.sqlite $W "$@" > /dev/null 2>&1; }
t pp128 --where sched=pp --where BM=128 --where BN=128
t ws128x256 --where sched=ws --where BM=128 --where BN=256 --where WN=2 --where MINB=1
t ws128 --where sched=ws --where BM=128 --where BN=128 --where WN=1 --where MINB=1
for f in /tmp/g.*.sqlite /tmp/l.*.sqlite; do echo "== $f"; $K cache show 1 --db $f 2>&1 | grep -E "^ *[0-9]" | cut -c1-200; done

#!/bin/bash
# call 183 (2026-11-29, session 37): LYNXNet2's block under main's plan (build-old-bin:
# kgen at 8402e6c, the conv writing channel-first and the first gemm_glu reading it along
# M) and the new one (build-dev-bin: the conv writing channels-last), in one process on
# the same inputs (ab.py).  Each kernel pinned at its winner of calls 174 and 182 (one
# tuner trial each, one DB; the kernels the plans share have the same cache key).
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns KGEN_INCLUDE=$PWD/include
K=build-dev-bin/kgen
KO=build-old-bin/kgen
Y=examples/lynxnet2_block.pat
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
pin() {
  local bin=$1 kern=$2 W=""; shift 2
  for kv in "$@"; do W="$W --where $kv"; done
  timeout 60 $bin tune $Y --kernel $kern --arch sm_90 --db /tmp/ab.db $W --budget 1 -q > /dev/null 2>&1
  echo "$bin $kern: rc $? at ${SECONDS}s"
}
{
pin $KO k0_layernorm path=regs xred=shfl BLOCK=128 TPR=32
pin $KO k2_conv1d path=mma BC=16 BLOCK=128 BT=512
pin $KO k4_gemm_glu sched=ws load=tma BM=128 BN=256 WN=2 STAGES=4
pin $KO k5_gemm_glu sched=pp load=mcast BM=128 BN=128 STAGES=4
pin $KO k6_linear_residual sched=pp load=mcast BM=128 BN=128 STAGES=4
pin $K k2_conv1d path=mma BC=16 BLOCK=128 BT=512
} | tee $OUT/pins.txt
$K cache list --db /tmp/ab.db 2>&1 | cut -c1-230 > $OUT/pinned.txt
$KO build $Y --arch sm_90 --db /tmp/ab.db -o /tmp/old -q && $K build $Y --arch sm_90 --db /tmp/ab.db -o /tmp/new -q &&
  python3 docs/bench-2026-11-29/call183/ab.py /tmp/old /tmp/new 2>&1 | grep -v -i warn | tee $OUT/ab.txt
echo "done at ${SECONDS}s"

#!/bin/bash
# call 189 (2026-11-29, session 39), the working tree's templates:
# 1. ConvNeXt's GELU GEMM (pp tma 128x128) at STAGES=4 and 5 (5 added to gemm.lua's list:
#    with wait<1> a consumer holds two slots, so the producer runs STAGES - 2 K tiles
#    ahead), pinned, one trial each, in turn twice;
# 2. dwconv_ln (ConvNeXt) with shared memory (red.patch, not kept: BLOCK=512 BT=16 PB=2
#    ran 0.0640 against 0.0493 for BT=32 PB=1) for the rows' reductions only where they use
#    it: shfl at TPR <= 32 takes none, which lets BLOCK=512 BT=16 PB=2 (two blocks, 32
#    warps a multiprocessor) fit; checked at B=8 (several tiles a block), then every
#    pipe shfl config timed (exhaustive);
# 3. LYNXNet2's channels-last conv tuned as the bench tunes it (budget 6), to see the
#    tuner's pick under 939bb2a's rank().
export PYTHONUNBUFFERED=1 KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns
K=build-dev-bin/kgen
C=examples/convnext_block.pat
Y=examples/lynxnet2_block.pat
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
pin() { # db model-and-kernel wheres...
  local db=$1 m=$2 W=""; shift 2
  for kv in "$@"; do W="$W --where $kv"; done
  timeout 90 $K tune $m --arch sm_90 --db /tmp/$db.db $W --budget 1 -q > /dev/null 2>&1
  echo "$db $*: rc $? $($K cache list --db /tmp/$db.db 2>/dev/null | sed -n 2p | awk '{print $5}') at ${SECONDS}s"
  rm -f /tmp/$db.db
}
G="$C --unfuse all --kernel k1_gemm_gelu"
for r in 1 2; do
  for s in 4 5; do pin gg$s$r "$G" sched=pp load=tma BM=128 BN=128 WM=1 WN=1 STAGES=$s; done
done | tee $OUT/gelu_stages.txt
D="$C --unfuse k2_ln_gemm_gelu --kernel k0_dwconv_ln"
timeout 60 $K check $D --dim B=8 --arch sm_90 --where load=pipe --where xred=shfl --where PB=2 --configs 20 2>&1 | tail -2 | tee $OUT/dl_check.txt
timeout 150 $K tune $D --arch sm_90 --db /tmp/dl.db --strategy exhaustive --where load=pipe --where xred=shfl > /dev/null 2>&1; echo "dl tune rc $? at ${SECONDS}s"
best() { awk '{for (i = 1; i <= NF; i++) if ($i == "ok") { print $(i + 1), $0; break }}' "$1" | sort -g | head -${2:-8}; }
$K cache show dwconv_ln --db /tmp/dl.db > $OUT/dl_trials.txt 2>&1; best $OUT/dl_trials.txt
timeout 120 $K tune $Y --kernel k2_conv1d --arch sm_90 --db /tmp/cv.db --budget 6 > /dev/null 2>&1; echo "conv tune rc $? at ${SECONDS}s"
$K cache show conv1d --db /tmp/cv.db > $OUT/conv_trials.txt 2>&1; best $OUT/conv_trials.txt; $K cache list --db /tmp/cv.db | cut -c1-200
echo "done at ${SECONDS}s"

#!/bin/sh
# gpu_kernels.sh KGEN SOURCE_DIR -- kgen check on an sm_90 GPU, for what
# only a run on the hardware can show: the wgmma rings under a tight
# schedule, and the kernels whose results were once checked by hand there.
# Exits 77 (skipped) without a CUDA device of sm_90.
set -u
kgen=$1
src=$2
if ! "$kgen" devices | grep -q '^cuda  *[0-9].* sm_90'; then
    echo "no sm_90 CUDA device: skipped"; exit 77
fi
failed=0
# run NAME WANT ARGS...: kgen check ARGS must pass WANT candidates or more
# and find no wrong result
run() {
    name=$1 want=$2
    shift 2
    out=$("$kgen" check "$@" --arch sm_90 2>&1)
    n=$(echo "$out" | tail -n 1 | sed -n 's/.* \([0-9]*\) candidates ok.*/\1/p')
    if echo "$out" | tail -n 1 | grep -q ' 0 compile errors, 0 launch errors, 0 wrong results' &&
       [ "${n:-0}" -ge "$want" ]; then
        echo "ok   $name ($n candidates)"
    else
        failed=$((failed + 1))
        echo "FAILED: $name"; echo "$out"
    fi
}
# A read along M or stored by the producer warpgroup (the conv's shifts,
# gated's prologue) in a ring of 3 and 4 stages over 8 to 24 K tiles: the
# consumers must retire each tile's MMAs before the next tile's
# (templates/gemm.lua, wgmma_ws_consumer); these configs failed before
# (the dilated conv on a channel-first x is tests/kernels/gemm_conv_dil.pat:
# WaveNet's own reads x channel-last at these dims, and its kernels after
# k2 are renumbered)
w=$src/examples/wavenet_layer.pat
cdil=$src/tests/kernels/gemm_conv_dil.pat
ws="--where path=wgmma --where sched=ws --where prologue=smem"
run "conv ws tma STAGES=3" 3 "$cdil" --dim C=256 --dim T=128 --kernel k0_conv1d \
    $ws --where load=tma --where STAGES=3 --configs 3
run "conv ws tma STAGES=4" 3 "$cdil" --dim C=512 --dim T=128 --kernel k0_conv1d \
    $ws --where load=tma --where STAGES=4 --configs 3
run "conv ws cp STAGES=3" 3 "$cdil" --dim C=512 --dim T=128 --kernel k0_conv1d \
    $ws --where load=cp --where STAGES=3 --configs 3
run "gated ws STAGES=3" 3 "$w" --dim B=2 --dim C=512 --dim H=64 --dim T=128 \
    --kernel k10_gated_tanh_residual $ws --where STAGES=3 --configs 3
# A read along M by TMA or cp.async alone: the 1x1 convs at BM = 128 with
# one consumer warpgroup failed at STAGES=3 under ws and always under pp
run "1x1 conv ws BM=128 STAGES=3" 3 "$w" --dim B=2 --kernel k9_conv1x1_residual \
    --where path=wgmma --where sched=ws --where BM=128 --where WM=1 --where STAGES=3 --configs 3
run "split 1x1 conv pp BM=128" 3 "$src/tools/bench/gated_tanh_residual.pat" --dim B=2 --unfuse all \
    --kernel k2_conv1x1_split_residual --where sched=pp --where BM=128 --configs 3
# the unfused layer's gate in the condition conv's epilogue: both halves
# staged channel-first, the residual added to each on the copy-out, gated
# in pairs (the register epilogue under pp and ws, the staged one at sync;
# T = 96, where conv_cond_gate does not match)
for sc in pp ws sync; do
    run "gate $sc" 4 "$w" --dim B=2 --dim C=512 --dim H=64 --dim T=96 --unfuse all \
        --kernel k4_conv1x1_residual_gate --where path=wgmma --where sched=$sc --configs 4
done
# conv_cond_gate by TMA: the dilated conv's K tiles K-major (x channel-last,
# DIL = 2) or M-major (DIL = 8), the condition's M-major, one ring
for k in k7_conv_cond_gate k12_conv_cond_gate; do
    run "fold $k" 8 "$src/tests/kernels/conv_cond_gate.pat" --kernel $k --where load=tma --configs 8
done
run "ln ws STAGES=3" 3 "$src/tests/kernels/gemm_ln_gelu_f16.pat" --dim M=256 --dim K=768 \
    --kernel k1_ln_gemm_gelu --where sched=ws --where ln=prepass --where STAGES=3 --configs 3
# the tap-major conv's A by TMA boxes shifted by each tap (kind convt): a box
# that does not start on 16 bytes is an illegal instruction on the H200
# (k10: x channel-last, K-major boxes, any dilation; at C = 512 its 24 K
# tiles wrap the ring, where the consumers must retire each tile's MMAs:
# 6 of 8 configs were wrong without it)
for k in k3_conv1d k5_conv1d k10_conv1d; do
    run "convt tma $k" 6 "$src/tests/kernels/gemm_convt.pat" --kernel $k --where path=wgmma \
        --where load=tma --configs 6
done
run "convt channel-last C=512" 6 "$src/tests/kernels/gemm_convt.pat" --dim C=512 --dim T=256 \
    --kernel k10_conv1d --where path=wgmma --where load=tma --configs 8
# the depthwise conv on the tensor cores (dwconv path=mma): its fragments'
# layout is only right if the hardware's mma agrees
run "dwconv mma" 12 "$src/tests/kernels/dwconv_mma.pat" --where path=mma --configs 3
run "LYNXNet2 dwconv mma" 4 "$src/examples/lynxnet2_block.pat" --dim B=2 --dim T=300 --unfuse k0_ln_dwconv --kernel k2_conv1d \
    --where path=mma --configs 4
# (T = 301: the channels-last store's pair of steps ends past Tout)
run "LYNXNet2 dwconv mma, odd T" 4 "$src/examples/lynxnet2_block.pat" --dim B=2 --dim T=301 --unfuse k0_ln_dwconv --kernel k2_conv1d \
    --where path=mma --configs 4
# ln_dwconv's clusters (their barriers, the peers' statistics through
# distributed shared memory, and clusters of 16 blocks, which runtime/cuda.c
# allows): every kernel of tests/kernels/ln_dwconv.pat, and LYNXNet2's at
# T = 301 (the last row tile past Tout) in clusters of 8 and 16
run "ln_dwconv" 16 "$src/tests/kernels/ln_dwconv.pat" --configs 4
run "LYNXNet2 ln_dwconv mma" 8 "$src/examples/lynxnet2_block.pat" --dim B=2 --dim T=301 --kernel k0_ln_dwconv \
    --where path=mma --configs 24
# dwconv_ln's persistent blocks (load=pipe): at B = 8 each block takes two
# tiles or more, so the second window buffer and the cp.async groups in
# flight across tiles are used
run "dwconv_ln pipe" 3 "$src/examples/convnext_block.pat" --dim B=8 --unfuse k2_ln_gemm_gelu \
    --kernel k0_dwconv_ln --where load=pipe --where BLOCK=256 --configs 6
# elementwise order=tile (a transposed write through shared memory), and
# WaveNet's layer at its channel count with the dilated conv on the
# channel-last x that tile writes
run "elementwise tile" 12 "$src/tests/kernels/elementwise_tile.pat" --where order=tile --configs 4
run "WaveNet channel-last x" 8 "$w" --dim B=2 --dim T=256 --configs 2
run "WaveNet conv, x channel-last by TMA" 4 "$w" --dim B=2 --dim T=256 --kernel k8_conv1d \
    --where path=wgmma --where load=tma --configs 4
# the residual through the ws ring by TMA (load=tmares): row-major and
# channel-first residuals, gated's split (the chunks past C read zeros) and
# ConvNeXt's scaled residual linear, whose 128 x 256 tiles fill a ring of 4
run "residual by TMA" 8 "$src/tests/kernels/gemm_residual_tma.pat" --where load=tmares --configs 6
run "split 1x1 conv tmares" 4 "$src/tools/bench/gated_tanh_residual.pat" --dim B=2 --dim T=128 --unfuse all \
    --kernel k2_conv1x1_split_residual --where load=tmares --configs 4
run "ConvNeXt residual linear tmares" 4 "$src/examples/convnext_block.pat" --dim B=2 --dim T=128 \
    --kernel k3_linear_scale_residual --where load=tmares --configs 4
# the residual by TMA into a pp consumer's own tile (res_pp), added there
# and stored by TMA: row-major (LYNXNet2's residual linear, a ring of 5)
# and channel-first (ConvNeXt's, in panels of 64 rows)
run "residual into the pp tile" 8 "$src/tests/kernels/gemm_residual_tma.pat" --where load=tmares --where sched=pp \
    --configs 6
run "LYNXNet2 residual linear pp tmares" 4 "$src/examples/lynxnet2_block.pat" --dim B=2 --dim T=301 \
    --unfuse k0_ln_dwconv --kernel k5_linear_residual --where load=tmares --where sched=pp --configs 6
run "ConvNeXt residual linear pp tmares" 4 "$src/examples/convnext_block.pat" --dim B=2 --dim T=128 \
    --kernel k3_linear_scale_residual --where load=tmares --where sched=pp --configs 6
# rings of five stages under pp (the GELU GEMM by cp, tma and panel; the
# GLU GEMM by multicast): K tiles wrap the ring in every tile
run "GELU GEMM pp STAGES=5" 6 "$src/examples/convnext_block.pat" --dim B=2 --dim T=128 --unfuse all \
    --kernel k1_gemm_gelu --where sched=pp --where STAGES=5 --configs 2
run "gemm_glu pp mcast STAGES=5" 3 "$src/examples/lynxnet2_block.pat" --dim B=2 --dim T=300 \
    --kernel k1_gemm_glu --where sched=pp --where load=mcast --where STAGES=5 --configs 3
# the models first checked by hand on the GPU
for f in gemm_ln_gelu_fold dwconv_ln gemm_conv_f16 gemm_gated_f16 gemm_glu_f16; do
    run "$f" 1 "$src/tests/kernels/$f.pat" --configs 2
done
[ "$failed" -eq 0 ]

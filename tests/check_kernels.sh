#!/bin/sh
# check_kernels.sh KGEN SOURCE_DIR MODE -- kgen check over every model of
# tests/kernels/ and every example (at small dims, since the reference runs
# in double on the CPU).
#   MODE opencl   run every sampled candidate on OpenCL (PoCL here) and
#                 compare with the double reference
#   MODE sm_80 | sm_90   compile every sampled candidate with NVRTC
# Exits 77 (skipped) when the mode's tool is missing: no OpenCL device, or
# kgen built without CUDA.
set -u
kgen=$1
src=$2
mode=$3
# configs a design point: 4, and 2 for sm_80, whose compile mostly repeats
# the mma path that sm_90 compiles too (CI's run of all three modes must fit
# its 90 minutes on two cores; sm_80 at 4 took 18 of them on 2026-11-28)
configs=${KGEN_CHECK_CONFIGS:-4}
case $mode in
    opencl) args="--arch opencl" ;;
    sm_80) args="--arch $mode --compile-only"; configs=${KGEN_CHECK_CONFIGS:-2} ;;
    sm_*) args="--arch $mode --compile-only" ;;
    *) echo "usage: $0 KGEN SOURCE_DIR opencl|sm_XX" >&2; exit 2 ;;
esac
if [ "$mode" = opencl ] && ! "$kgen" devices | grep -q '^opencl  *[0-9]'; then
    echo "no OpenCL device: skipped"; exit 77
fi
small() {
    case $(basename "$1" .pat) in
        wavenet_layer) echo "--dim B=2 --dim C=16 --dim H=8 --dim T=37" ;;
        lynxnet2_block) echo "--dim B=2 --dim T=33 --dim C=16" ;;
        convnext_block) echo "--dim B=2 --dim C=16 --dim F=24 --dim T=19" ;;
        encoder_layer) echo "--dim B=2 --dim L=9 --dim C=24 --dim HD=12 --dim F=32" ;;
    esac
}
failed=0
total=0
# verdict WHAT OK_TEXT [DETAIL]: one check's line, from the reasons in $bad
# (empty: it passed); DETAIL is printed under a failure
verdict() {
    if [ -n "$bad" ]; then
        failed=$((failed + 1))
        echo "FAILED: $1:$bad"
        [ $# -lt 3 ] || echo "$3"
    else
        echo "ok   $1: $2"
    fi
}
# refused ARGS...: `kgen space ARGS` passes no config
refused() {
    case $("$kgen" space "$@" 2>&1 | tail -n 1) in *": 0 of "*) return 0 ;; esac
    return 1
}
# has_all TAG FILE PATTERN...: adds TAG:PATTERN to $bad for each fixed
# string PATTERN that FILE lacks
has_all() {
    tag=$1 file=$2
    shift 2
    for p in "$@"; do
        grep -qF "$p" "$file" 2>/dev/null || bad="$bad $tag:$p"
    done
}
for f in "$src"/tests/kernels/*.pat "$src"/examples/*.pat; do
    [ -f "$f" ] || continue
    total=$((total + 1))
    # shellcheck disable=SC2046
    out=$("$kgen" check "$f" $args --configs "$configs" -q $(small "$f") 2>&1)
    rc=$?
    if [ $rc -eq 3 ] && [ "${mode#sm_}" != "$mode" ]; then
        echo "$out"; echo "kgen built without CUDA: skipped"; exit 77
    fi
    if [ $rc -ne 0 ]; then
        failed=$((failed + 1))
        echo "FAILED: kgen check ${f#"$src"/} $args"
        echo "$out"
    else
        echo "ok   ${f#"$src"/}: $(echo "$out" | tail -n 1)"
    fi
done
# --where restricts the space: on sm_90 only wgmma candidates of the GEMM
# are compiled, and fewer configs pass than without it (sched=sync as well,
# so that --configs 3 gives exactly three; two --where combine)
if [ "$mode" = sm_90 ]; then
    total=$((total + 1))
    f=$src/tests/kernels/gemm_linear_f16.pat
    kn="--kernel k2_linear"
    out=$("$kgen" check "$f" $args $kn --configs 3 --where path=wgmma --where sched=sync 2>&1)
    all=$("$kgen" space gemm "$f" --arch sm_90 $kn 2>&1 | tail -n 1)
    some=$("$kgen" space gemm "$f" --arch sm_90 $kn --where path=wgmma 2>&1 | tail -n 1)
    # shellcheck disable=SC2086
    if [ "$(echo "$out" | grep -c 'ok .*path=wgmma')" -ne 3 ] ||
       echo "$out" | grep -q 'path=mma\|path=simt' ||
       [ "${all%% of *}" = "${some%% of *}" ] ||
       "$kgen" check "$f" $args --where path 2>/dev/null; then
        failed=$((failed + 1))
        echo "FAILED: --where path=wgmma"; echo "$out"; echo "$all"; echo "$some"
    else
        echo "ok   --where path=wgmma: $some"
    fi
fi
# gen --where writes the first config that satisfies it: one wgmma source
# of the gated kernel with MINB=2.  At T % 8 == 0 (16-byte aligned runs
# along T) it takes the vectorised epilogue (one 16-byte residual load per
# run) and the paired f16 tanh prologue; at T = 100 neither.
if [ "$mode" = sm_90 ]; then
    total=$((total + 1))
    g=$src/tools/bench/gated_tanh_residual.pat
    gd=$(mktemp -d)
    bad=
    for T in 96 100; do
        rm -rf "$gd/out"
        "$kgen" gen "$g" --dim B=2 --dim C=64 --dim T=$T --backend cuda --arch sm_90 \
            -o "$gd/out" --where path=wgmma --where prologue=regs --where MINB=2 >/dev/null 2>&1 || bad="$bad gen$T"
        n=$(ls "$gd/out" 2>/dev/null | wc -l)
        cu="$gd/out/k0_gated_tanh_residual.none.cp.wgmma.regs.sync.cu"
        [ "$n" -eq 1 ] && grep -q '^#define MINB 2$' "$cu" || bad="$bad where$T"
        v=$(grep -c 'uint4 rxv\|tanh.approx.f16x2' "$cu")
        if [ $T = 96 ] && [ "$v" -lt 2 ]; then bad="$bad vec96"; fi
        if [ $T = 100 ] && [ "$v" -ne 0 ]; then bad="$bad vec100"; fi
    done
    rm -rf "$gd"
    verdict "gen --where / vectorised epilogue" "gated epilogue and prologue vectorised at T=96 only"
fi
# wgmma reads an A whose rows are contiguous (a conv over [B, C, T]) through
# a descriptor of M-major panels (trans-a = 1, no ldmatrix.trans), and with
# prologue=smem applies gated's prologue and LayerNorm (K-major x, and the
# transposed x of ConvNeXt) in place in shared memory.  prologue=smem needs
# a prologue and 16-byte runs: none for a plain linear, none at T = 100.
if [ "$mode" = sm_90 ]; then
    total=$((total + 1))
    ad=$(mktemp -d)
    bad=
    w=$src/examples/wavenet_layer.pat
    "$kgen" gen "$w" --dim B=2 --dim C=64 --dim H=32 --dim T=96 --backend cuda --arch sm_90 \
        -o "$ad/w" --kernel k4_conv1x1_residual --where path=wgmma >/dev/null 2>&1 || bad="$bad gen-conv"
    cu="$ad/w/k4_conv1x1_residual.none.cp.wgmma.regs.sync.cu"
    grep -q 'p, 1, 1, 1, 0;' "$cu" && ! grep -q 'kg_gemm_ldsm4t(af' "$cu" || bad="$bad conv-desc"
    g=$src/tools/bench/gated_tanh_residual.pat
    "$kgen" gen "$g" --dim B=2 --dim C=64 --dim T=96 --backend cuda --arch sm_90 \
        -o "$ad/g" --where path=wgmma --where prologue=smem >/dev/null 2>&1 || bad="$bad gen-gated"
    cu="$ad/g/k0_gated_tanh_residual.none.cp.wgmma.smem.sync.cu"
    grep -q 'p, 1, 1, 1, 0;' "$cu" &&
        grep -q '\*p = zq;' "$cu" || bad="$bad gated-asmem"
    "$kgen" gen "$g" --dim B=2 --dim C=64 --dim T=100 --backend cuda --arch sm_90 \
        -o "$ad/g100" --where path=wgmma --where prologue=smem >/dev/null 2>&1 && bad="$bad gated-T100"
    refused gemm "$src/tests/kernels/gemm_linear_f16.pat" --arch sm_90 \
        --kernel k2_linear --where prologue=smem || bad="$bad linear-asmem"
    for a in "$g --dim B=2 --dim C=64 --dim T=96" \
             "$src/tools/bench/ln_gemm_gelu.pat --dim M=300 --dim K=256 --dim N=328" \
             "$src/examples/convnext_block.pat --dim B=2 --dim C=64 --dim F=128 --dim T=72 --kernel k2_ln_gemm_gelu"; do
        # shellcheck disable=SC2086
        out=$("$kgen" check $a $args --configs 3 --where path=wgmma --where prologue=smem --where sched=sync 2>&1)
        [ "$(echo "$out" | grep -c 'ok .*prologue=smem')" -eq 3 ] || { bad="$bad check"; echo "$out"; }
    done
    rm -rf "$ad"
    verdict "wgmma A through descriptors" "M-major panels, prologues in place"
fi
# A dilated conv over [B, C, T] with T % 8 == 0 reaches wgmma through the
# same M-major panels: with prologue=smem the raw rows of each K tile land
# once by cp.async and a pass shifts each tap into the panel (kg_cv_shift;
# dilation 1 pads by 1, so the shift's base is 7 halves into the aligned
# rows).  A row tile must stay within one batch entry (T % BM == 0): at
# T = 192 BM = 64 passes and BM = 128 does not; at T = 37 (runs not
# aligned) no config does.  Both schedules compile at dilations 1 and 12.
if [ "$mode" = sm_90 ]; then
    total=$((total + 1))
    cd_=$(mktemp -d)
    bad=
    w=$src/examples/wavenet_layer.pat
    wk="--kernel k3_conv1d --dim B=2 --dim C=16 --dim H=8"
    # shellcheck disable=SC2086
    "$kgen" gen "$w" $wk --dim T=64 --dim DIL=1 --backend cuda --arch sm_90 -o "$cd_/c" \
        --where path=wgmma --where prologue=smem >/dev/null 2>&1 || bad="$bad gen"
    for sc in sync ws; do
        cu="$cd_/c/k3_conv1d.none.cp.wgmma.smem.$sc.cu"
        for p in 'kg_cv_shift(p[0], p[1], sh & 7)' '#define GEMM_CV_SH0 7' 'p, 1, 1, 1, 0;'; do
            grep -qF "$p" "$cu" 2>/dev/null || bad="$bad $sc:$p"
        done
    done
    grep -qF 'kg_mb_arrive(&gemm_full[xs]);' "$cd_/c/k3_conv1d.none.cp.wgmma.smem.ws.cu" 2>/dev/null ||
        bad="$bad ws-arrive"
    for tb in "192 64 some" "192 128 none" "37 64 none"; do
        # shellcheck disable=SC2086
        set -- $tb
        # shellcheck disable=SC2086
        n=$("$kgen" space gemm "$w" --arch sm_90 $wk --dim T=$1 --where prologue=smem \
            --where BM=$2 2>&1 | tail -n 1)
        case $3:$n in none:*": 0 of "*|some:*" on sm_90: "[1-9]*) ;; *) bad="$bad T$1-BM$2" ;; esac
    done
    for dil in 1 12; do
        # shellcheck disable=SC2086
        out=$("$kgen" check "$w" $wk --dim T=128 --dim DIL=$dil $args --configs 2 \
            --where path=wgmma --where prologue=smem 2>&1)
        [ "$(echo "$out" | grep -c 'ok .*prologue=smem')" -ge 4 ] || { bad="$bad check-dil$dil"; echo "$out"; }
    done
    rm -rf "$cd_"
    verdict "wgmma dilated conv panels" "raw rows staged, taps shifted in place, T % BM enforced"
fi
# load=tma for an A read along M (a 1x1 conv over [B, C, T]): a TMA copy of
# each 64-row panel, 128-byte swizzled as the cp.async panels are, from a
# map of (t, c, b) where T is a multiple of 64; else the producer's
# cp.async.  The dilated conv's raw rows go by one unswizzled box.
if [ "$mode" = sm_90 ]; then
    total=$((total + 1))
    td=$(mktemp -d)
    bad=
    w=$src/examples/wavenet_layer.pat
    # (the dilated conv on a channel-first x: WaveNet's reads x channel-last
    # where T and C are multiples of 64, and its kernels after k2 are
    # renumbered: the 1x1 conv is k9 there)
    cdil=$src/tests/kernels/gemm_conv_dil.pat
    W="--backend cuda --arch sm_90 --where path=wgmma --where load=tma --where sched=pp"
    # shellcheck disable=SC2086
    {
    "$kgen" gen "$w" --dim B=2 --dim C=64 --dim H=32 --dim T=128 --kernel k9_conv1x1_residual $W -o "$td/a" &&
    "$kgen" gen "$w" --dim B=2 --dim C=64 --dim H=32 --dim T=96 --kernel k4_conv1x1_residual $W -o "$td/b" &&
    "$kgen" gen "$cdil" --dim C=64 --dim T=128 --kernel k0_conv1d $W -o "$td/c"
    } >/dev/null 2>&1 || bad="$bad gen"
    has_all panels "$(ls "$td"/a/*.cu 2>/dev/null)" 'const __grid_constant__ kg_tmap kg_tmA' \
        'kg_tma3(as_w + p * 4096, &kg_tmA, (int)(r % 128L), (int)k0, (int)(r / 128L), &gemm_full[ws]);' \
        'kg_mb_init(&gemm_full[s], 1);'
    ! grep -q 'kg_gemm_cp16(as_w' "$(ls "$td"/a/*.cu 2>/dev/null)" || bad="$bad panels:cp16"
    has_all t96 "$(ls "$td"/b/*.cu 2>/dev/null)" 'kg_gemm_cp16(as_w'
    ! grep -q 'kg_tmA' "$(ls "$td"/b/*.cu 2>/dev/null)" || bad="$bad t96:tmA"
    has_all raw "$(ls "$td"/c/*.cu 2>/dev/null)" 'kg_tma3(fs_w, &kg_tmX,' \
        'kg_mb_wait(&gemm_raw[xs], ((it + (unsigned)kx) / STAGES) & 1u);' 'kg_mb_init(&gemm_raw[s], 1);'
    # the raw rows' box: at most 256 values, so BM = 256 has no load=tma config
    refused gemm "$cdil" --arch sm_90 --kernel k0_conv1d --dim C=512 --dim T=1536 --where load=tma \
        --where BM=256 || bad="$bad raw-box"
    refused gemm "$cdil" --arch sm_90 --kernel k0_conv1d --dim C=512 --dim T=1536 --where load=tma \
        --where BM=128 && bad="$bad raw-bm128"
    rm -rf "$td"
    verdict "wgmma TMA of A along M" "64-row panels by TMA where T % 64 == 0, the conv's raw rows in one box"
fi
# sched=ws: a producer warpgroup feeds the stages through mbarriers
# (cp.async arrives on them itself; gated's prologue arrives after its pass)
# and, with two consumer warpgroups, hands them its registers by
# setmaxnreg.  Its copy loops take one address per thread and K tile.  It
# compiles for a linear, the 1x1 conv (M-major panels), gated and
# LayerNorm of an x contiguous along K (row statistics by the whole block,
# warp per row, then the producer's pass over each landed tile); it is
# refused for ln=fold, a transposed LayerNorm input (ConvNeXt), off wgmma,
# and for an A that wgmma reads from registers (T = 100).  The sync
# schedules' prepass takes the same warp-per-row statistics.
if [ "$mode" = sm_90 ]; then
    total=$((total + 1))
    wd=$(mktemp -d)
    bad=
    lf=$src/tests/kernels/gemm_linear_f16.pat
    "$kgen" gen "$lf" --backend cuda --arch sm_90 --kernel k2_linear -o "$wd/l" \
        --where sched=ws --where load=cp --where WM=2 --where WN=1 >/dev/null 2>&1 || bad="$bad gen-linear"
    cu=$(ls "$wd"/l/*.ws.cu 2>/dev/null)
    for p in 'cp.async.mbarrier.arrive.noinc' 'mbarrier.try_wait.parity' 'setmaxnreg.inc' \
             'const int ri0 = tid >> 3, ch = tid & 7;' '^#define WM 2$'; do
        grep -q "$p" "$cu" 2>/dev/null || bad="$bad linear:$p"
    done
    g=$src/tools/bench/gated_tanh_residual.pat
    "$kgen" gen "$g" --dim B=2 --dim C=64 --dim T=96 --backend cuda --arch sm_90 \
        -o "$wd/g" --where sched=ws --where load=cp >/dev/null 2>&1 || bad="$bad gen-gated"
    cu="$wd/g/k0_gated_tanh_residual.none.cp.wgmma.smem.ws.cu"
    grep -q 'kg_mb_arrive(&gemm_full\[xs\]);' "$cu" && grep -q '\*p = zq;' "$cu" &&
        ! grep -q 'kg_mb_cp_arrive(&' "$cu" || bad="$bad gated"
    # A stored by the producer or read along M: the consumers retire each
    # tile's MMAs before the next tile's (a tight ring read stale A on the
    # H200 without it); A along K keeps one tile's MMAs in flight
    grep -A1 'if (kt > 0) kg_mb_arrive(&gemm_empty' "$cu" | grep -q 'kg_wg_wait<0>();' ||
        bad="$bad gated-retire"
    "$kgen" gen "$src/tools/bench/linear.pat" --backend cuda --arch sm_90 -o "$wd/lk" \
        --where sched=ws --where load=cp >/dev/null 2>&1 || bad="$bad gen-linear-k"
    grep -A1 'if (kt > 0) kg_mb_arrive(&gemm_empty' "$wd"/lk/*.ws.cu | grep -q 'kg_wg_wait<0>();' &&
        bad="$bad linear-retire"
    "$kgen" gen "$src/examples/wavenet_layer.pat" --dim B=2 --dim C=64 --dim H=32 --dim T=128 --backend cuda \
        --arch sm_90 --kernel k9_conv1x1_residual -o "$wd/c1" --where sched=ws --where load=tma \
        --where prologue=regs >/dev/null 2>&1 || bad="$bad gen-conv1x1"
    grep -A1 'if (kt > 0) kg_mb_arrive(&gemm_empty' "$wd"/c1/*.ws.cu | grep -q 'kg_wg_wait<0>();' ||
        bad="$bad conv1x1-retire"
    # (the tap-major conv with x channel-last: A along K, but its shifted
    # boxes were wrong on the H200 without the retire, performance.md 26)
    "$kgen" gen "$src/tests/kernels/gemm_convt.pat" --backend cuda --arch sm_90 --kernel k10_conv1d \
        -o "$wd/ct" --where sched=ws --where load=tma >/dev/null 2>&1 || bad="$bad gen-convt"
    grep -A1 'if (kt > 0) kg_mb_arrive(&gemm_empty' "$wd"/ct/*.ws.cu | grep -q 'kg_wg_wait<0>();' ||
        bad="$bad convt-retire"
    "$kgen" gen "$g" --dim B=2 --dim C=64 --dim T=100 --backend cuda --arch sm_90 \
        -o "$wd/g100" --where sched=ws --where load=cp >/dev/null 2>&1 && bad="$bad gated-T100"
    for w in "path=mma" "path=simt"; do
        refused gemm "$lf" --arch sm_90 --kernel k2_linear --where sched=ws --where load=cp --where $w || bad="$bad $w"
    done
    ln=$src/tools/bench/ln_gemm_gelu.pat
    refused gemm "$ln" --arch sm_90 --where sched=ws --where load=cp --where ln=fold || bad="$bad ln-fold"
    refused gemm "$src/examples/convnext_block.pat" --arch sm_90 --kernel k2_ln_gemm_gelu \
        --where sched=ws --where load=cp || bad="$bad ln-transposed"
    "$kgen" gen "$ln" --backend cuda --arch sm_90 -o "$wd/ln" --where sched=ws --where load=cp --where WM=2 \
        >/dev/null 2>&1 || bad="$bad gen-ln"
    cu="$wd/ln/k0_ln_gemm_gelu.prepass.cp.wgmma.smem.ws.cu"
    for p in 'kg_bar_sync(4, GEMM_NT + 128);' '__shfl_xor_sync' 'fmaf(fmaf(xv, a, c), gv\[u\], bv\[u\])' \
             'kg_mb_arrive(&gemm_full\[xs\]);'; do
        grep -q "$p" "$cu" 2>/dev/null || bad="$bad ln:$p"
    done
    # a cluster of LNC blocks shares a row tile's statistics; gamma and
    # beta come with each A tile by cp.async
    "$kgen" gen "$ln" --backend cuda --arch sm_90 -o "$wd/lc" --where sched=ws --where load=cp --where LNC=2 \
        >/dev/null 2>&1 || bad="$bad gen-lnc"
    cu="$wd/lc/k0_ln_gemm_gelu.prepass.cp.wgmma.smem.ws.cu"
    has_all lnc "$cu" '__cluster_dims__(LNC, 1, 1)' 'kg_ln_cluster_sync();' 'kg_ln_ld_peer(kg_ln_peer(&gemm_mean' \
        'kg_gemm_cp16(gemm_gb + ws * 128' '(gemm_gb + xs * 128 + ch * 8)'
    refused gemm "$ln" --arch sm_90 --where sched=sync --where LNC=2 || bad="$bad lnc-sync"
    # shellcheck disable=SC2086
    out=$("$kgen" check "$ln" --dim M=300 --dim K=520 --dim N=1024 $args --configs 2 \
        --where sched=ws --where load=cp --where LNC=4 2>&1)
    [ "$(echo "$out" | grep -c 'ok .*LNC=4')" -eq 2 ] || { bad="$bad check-lnc"; echo "$out"; }
    "$kgen" gen "$ln" --backend cuda --arch sm_90 -o "$wd/lm" --where path=mma --where ln=prepass \
        >/dev/null 2>&1 || bad="$bad gen-ln-mma"
    grep -q '__shfl_xor_sync' "$wd/lm/k0_ln_gemm_gelu.prepass.cp.mma.regs.sync.cu" 2>/dev/null ||
        bad="$bad ln-mma-stats"
    for a in "$lf --kernel k2_linear" "$g --dim B=2 --dim C=64 --dim T=96" \
             "$src/examples/wavenet_layer.pat --dim B=2 --dim C=64 --dim H=32 --dim T=96 --kernel k4_conv1x1_residual" \
             "$ln --dim M=300 --dim K=256 --dim N=328"; do
        # shellcheck disable=SC2086
        out=$("$kgen" check $a $args --configs 3 --where sched=ws --where load=cp 2>&1)
        [ "$(echo "$out" | grep -c 'ok .*sched=ws')" -eq 3 ] || { bad="$bad check"; echo "$out"; }
    done
    rm -rf "$wd"
    verdict "wgmma sched=ws" "producer warpgroup, mbarriers, setmaxnreg"
fi
# sched=pp: a persistent block of a producer and two consumer warpgroups
# that take alternate tiles, so that one runs its epilogue while the other
# runs its MMAs.  A turn mbarrier orders the consumers' K loops (the full
# barriers' parity is only sound one phase ahead); each consumer stages its
# epilogue through its own f32 tile, 64 rows a pass, behind its own named
# barrier; the grid is one block an SM at most.  It compiles for a linear,
# the 1x1 conv (M-major panels and output), gated's prologue, gemm_glu, with
# more stages than K tiles, and is refused for LayerNorm, WM or WN > 1 and
# MINB = 2.
if [ "$mode" = sm_90 ]; then
    total=$((total + 1))
    wd=$(mktemp -d)
    bad=
    lf=$src/tests/kernels/gemm_linear_f16.pat
    "$kgen" gen "$lf" --backend cuda --arch sm_90 --kernel k2_linear -o "$wd/l" \
        --where sched=pp --where load=cp >/dev/null 2>&1 || bad="$bad gen-linear"
    cu=$(ls "$wd"/l/*.pp.cu 2>/dev/null)
    has_all linear "$cu" 'kg_mb_wait(&gemm_turn[cw], (turn & 1u) ^ (cw == 0 ? 1u : 0u));' \
        'kg_mb_arrive(&gemm_turn[cw ^ 1]);' '#define GEMM_CSYNC() kg_bar_sync(5 + cw, GEMM_NT)' \
        'for (long t = GEMM_PB + cw * GEMM_PG; t < GEMM_TILES; t += 2 * GEMM_PG) {' '#define GEMM_PB KG_BID(0)' \
        'float *const gemm_ct = gemm_ep + cw * GEMM_EST;' 'setmaxnreg.inc'
    # gemm_glu's paired B rows by the producer: one address per thread
    "$kgen" gen "$src/examples/lynxnet2_block.pat" --dim B=2 --dim T=96 --dim C=72 --kernel k2_gemm_glu \
        --backend cuda --arch sm_90 -o "$wd/glu" --where sched=pp --where load=cp >/dev/null 2>&1 || bad="$bad gen-glu"
    grep -qF 'p + GEMM_GLU_R(i) * 72' "$wd"/glu/*.pp.cu 2>/dev/null || bad="$bad glu-affine"
    ln=$src/tools/bench/ln_gemm_gelu.pat
    for w in "ln=prepass" "WM=2" "MINB=2"; do
        refused gemm "$ln" --arch sm_90 --where sched=pp --where load=cp --where $w || bad="$bad refused:$w"
    done
    for a in "$lf --kernel k2_linear" "$src/tools/bench/gated_tanh_residual.pat --dim B=2 --dim C=64 --dim T=96" \
             "$src/examples/wavenet_layer.pat --dim B=2 --dim C=64 --dim H=32 --dim T=96 --kernel k4_conv1x1_residual" \
             "$src/examples/lynxnet2_block.pat --dim B=2 --dim T=96 --dim C=72 --kernel k2_gemm_glu" \
             "$ln --dim M=300 --dim K=128 --dim N=328 --unfuse all --kernel k1_gemm_gelu --where STAGES=4"; do
        # shellcheck disable=SC2086
        out=$("$kgen" check $a $args --configs 3 --where sched=pp --where load=cp 2>&1)
        [ "$(echo "$out" | grep -c 'ok .*sched=pp')" -ge 2 ] || { bad="$bad check"; echo "$out"; }
    done
    rm -rf "$wd"
    verdict "wgmma sched=pp" "persistent, two consumers on alternate tiles, ordered by a turn barrier"
fi
# load=tma: the ws and pp producers copy through tensor maps the runtime
# encodes at launch (launch()'s tmaps, kernel parameters after the
# tensors).  A plain GEMM takes both tiles by TMA: thread 0 alone walks the
# ring and the full barrier waits for its one arrival and the bytes; with a
# prologue (LayerNorm) A still lands by the producer's cp.async and the
# barrier counts 128 arrivals and thread 0's.  gemm_glu's B takes one copy
# from each half of the weight per group, a batched matmul a third
# coordinate.  Refused for sched=sync and off wgmma.
if [ "$mode" = sm_90 ]; then
    total=$((total + 1))
    wd=$(mktemp -d)
    bad=
    ln=$src/tools/bench/ln_gemm_gelu.pat
    "$kgen" gen "$ln" --dim M=300 --dim K=128 --dim N=328 --unfuse all --kernel k1_gemm_gelu \
        --backend cuda --arch sm_90 -o "$wd/p" --where sched=pp --where load=tma >/dev/null 2>&1 ||
        bad="$bad gen-pp"
    cu=$(ls "$wd"/p/*.tma.wgmma.regs.pp.cu 2>/dev/null)
    has_all pp "$cu" 'const __grid_constant__ kg_tmap kg_tmA,' 'const __grid_constant__ kg_tmap kg_tmB' \
        '    , const __grid_constant__ kg_tmap kg_tmO' 'cp.async.bulk.tensor.2d.global.shared::cta.bulk_group' \
        'kg_mb_init(&gemm_full[s], 1);' 'fence.mbarrier_init.release.cluster;' '      if (tid == 0) {' \
        'kg_mb_expect(&gemm_full[ws], (unsigned)((BM * BK + BN * BK) * sizeof(*bs_w)));' \
        'kg_tma2(as_w, &kg_tmA, (int)k0, (int)(m0), &gemm_full[ws]);' \
        'kg_tma2(bs_w, &kg_tmB, (int)k0, (int)(n0), &gemm_full[ws]);'
    grep -q 'kg_gemm_cp16(s\|kg_mb_cp_arrive(&gemm' "$cu" && bad="$bad pp:cp.async"
    "$kgen" gen "$ln" --backend cuda --arch sm_90 -o "$wd/ln" --where sched=ws --where load=tma \
        >/dev/null 2>&1 || bad="$bad gen-ln"
    has_all ln "$wd/ln/k0_ln_gemm_gelu.prepass.tma.wgmma.smem.ws.cu" 'kg_mb_init(&gemm_full[s], 129);' \
        'kg_mb_arrive(&gemm_full[xs]);' 'kg_tma2(bs_w, &kg_tmB, (int)k0, (int)(n0), &gemm_full[ws]);' \
        'kg_gemm_cp16(s + i * (GEMM_LT / 8) * 64'
    "$kgen" gen "$src/examples/lynxnet2_block.pat" --kernel k2_gemm_glu --backend cuda --arch sm_90 \
        -o "$wd/glu" --where sched=pp --where load=tma >/dev/null 2>&1 || bad="$bad gen-glu"
    has_all glu "$(ls "$wd"/glu/*.pp.cu 2>/dev/null)" \
        'kg_tma3(bs_w + g * GEMM_GLU_G * BK, &kg_tmB, (int)k0, (int)(n0 + g * (GEMM_GLU_G / 2)), 0, &gemm_full[ws]);' \
        'kg_tma3(bs_w + (g * GEMM_GLU_G + GEMM_GLU_G / 2) * BK, &kg_tmB, (int)k0, (int)(n0 + g * (GEMM_GLU_G / 2)), 1, &gemm_full[ws]);'
    mm=$src/tests/kernels/gemm_matmul_f16.pat
    "$kgen" gen "$mm" --kernel k4_matmul --backend cuda --arch sm_90 -o "$wd/mm" --where sched=ws \
        --where load=tma >/dev/null 2>&1 || bad="$bad gen-matmul"
    has_all matmul "$(ls "$wd"/mm/*.ws.cu 2>/dev/null)" \
        'kg_tma3(bs_w, &kg_tmB, (int)k0, (int)(n0), (int)z, &gemm_full[ws]);'
    for w in "sched=sync" "path=mma"; do
        refused gemm "$ln" --arch sm_90 --where load=tma --where $w || bad="$bad refused:$w"
    done
    # load=mcast: pairs of blocks (a cluster) over row tiles 2i, 2i + 1,
    # each copying its half of the B tile into both; a stage is released on
    # both blocks' barriers, a warp at a time; refused where A has a prologue
    "$kgen" gen "$ln" --dim M=300 --dim K=128 --dim N=328 --unfuse all --kernel k1_gemm_gelu \
        --backend cuda --arch sm_90 -o "$wd/mc" --where sched=pp --where load=mcast >/dev/null 2>&1 ||
        bad="$bad gen-mcast"
    has_all mcast "$(ls "$wd"/mc/*.mcast.wgmma.regs.pp.cu 2>/dev/null)" '#define GEMM_MCCL __cluster_dims__(2, 1, 1)' \
        'kg_tma2m(bs_w + GEMM_MCR * (BN / 2) * BK, &kg_tmB, (int)k0, (int)(n0 + GEMM_MCR * (BN / 2)), &gemm_full[ws], (unsigned short)3);' \
        'kg_mb_init(&gemm_empty[s], 2 * (GEMM_NT / 32));' 'kg_mb_arrive2(&gemm_empty[' \
        'kg_mb_wait_cl(&gemm_empty[ws]' 'const long m0 = ((first + tile % (8L * GEMM_TILES_N) % gs) * 2 + GEMM_MCR) * BM;' \
        'for (long t = GEMM_PB; t < GEMM_TILES; t += GEMM_PG) {' '  kg_cl_sync();'
    refused gemm "$ln" --arch sm_90 --where load=mcast || bad="$bad refused:mcast-ln"
    for a in "$ln --dim M=300 --dim K=136 --dim N=328 --unfuse all --kernel k1_gemm_gelu" \
             "$src/examples/lynxnet2_block.pat --dim B=2 --dim T=96 --dim C=72 --kernel k2_gemm_glu" \
             "$mm --kernel k4_matmul" "$ln --dim M=300 --dim K=256 --dim N=328"; do
        # shellcheck disable=SC2086
        out=$("$kgen" check $a $args --configs 2 --where load=tma 2>&1)
        [ "$(echo "$out" | grep -c 'ok .*load=tma')" -ge 2 ] || { bad="$bad check"; echo "$out"; }
    done
    for a in "$ln --dim M=300 --dim K=136 --dim N=328 --unfuse all --kernel k1_gemm_gelu" \
             "$src/tests/kernels/gemm_glu_f16.pat --kernel k0_gemm_glu" "$mm --kernel k4_matmul"; do
        # shellcheck disable=SC2086
        out=$("$kgen" check $a $args --configs 1 --where load=mcast 2>&1)
        [ "$(echo "$out" | grep -c 'ok .*load=mcast')" -ge 1 ] || { bad="$bad check-mcast"; echo "$out"; }
    done
    rm -rf "$wd"
    verdict "wgmma load=tma/mcast" "tensor maps, one thread's copies, bytes on the full barrier, pairs sharing B"
fi
# load=tmares: after a tile's K tiles the ws producer copies the residual's
# 64-column chunks into the next ring slots by TMA (one box each, on the
# slot's full barrier); the copy-out reads them there and hands the slots
# back, and both roles step the ring past them.  Refused without a
# residual and where the chunks outnumber the stages.
if [ "$mode" = sm_90 ]; then
    total=$((total + 1))
    wd=$(mktemp -d)
    bad=
    rt=$src/tests/kernels/gemm_residual_tma.pat
    "$kgen" gen "$rt" --kernel k1_conv1x1_residual --backend cuda --arch sm_90 -o "$wd/r" \
        --where load=tmares >/dev/null 2>&1 || bad="$bad gen"
    has_all tmares "$(ls "$wd"/r/*.tmares.wgmma.regs.ws.cu 2>/dev/null)" \
        'const __grid_constant__ kg_tmap kg_tmR)' \
        'kg_mb_expect(&gemm_full[ws], (unsigned)(BM * 64 * sizeof(__half)));' \
        'kg_tma3(gemm_as + ws * BM * BK, &kg_tmR, (int)(m0 % 128L), (int)(n0 + 64 * rc), (int)(m0 / 128L), &gemm_full[ws]);' \
        'kg_mb_wait(&gemm_full[q % STAGES], (q / STAGES) & 1u);' \
        'rv[u] = *(const uint4 *)(gemm_as + (it + (unsigned)GEMM_KT + (unsigned)(nl0 / 64)) % STAGES * (BM * BK) +' \
        'kg_mb_arrive(&gemm_empty[(it + (unsigned)GEMM_KT + (unsigned)rc) % STAGES]);' \
        'it += (unsigned)(GEMM_KT + GEMM_BNL / 64);'
    refused gemm "$src/tests/kernels/gemm_linear_f16.pat" --arch sm_90 --where load=tmares ||
        bad="$bad refused:no-residual"
    refused gemm "$rt" --arch sm_90 --where load=tmares --where BN=256 --where STAGES=3 ||
        bad="$bad refused:chunks"
    # shellcheck disable=SC2086
    out=$("$kgen" check "$rt" $args --configs 4 --where load=tmares 2>&1)
    [ "$(echo "$out" | grep -c 'ok .*load=tmares')" -ge 8 ] || { bad="$bad check"; echo "$out"; }
    rm -rf "$wd"
    verdict "wgmma load=tmares" "the residual's chunks through the ring by TMA, read and handed back"
fi
# load=tmares under pp (res_pp): the producer copies a tile's residual into
# its consumer's own tile once that consumer's last store has read it
# (gemm_rfree), on the tile's gemm_rfull; the epilogue adds each output to
# it in place and stores the tile by TMA, then hands it back.  A row-major
# output in 64-column panels, a channel-first one in 64-row panels (t, the
# channels, b).  Refused for gated's split and where a channel-first row
# tile would cross a batch entry.
if [ "$mode" = sm_90 ]; then
    total=$((total + 1))
    wd=$(mktemp -d)
    bad=
    rt=$src/tests/kernels/gemm_residual_tma.pat
    "$kgen" gen "$rt" --backend cuda --arch sm_90 -o "$wd/r" --where load=tmares --where sched=pp \
        >/dev/null 2>&1 || bad="$bad gen"
    for k in k0_linear_residual k1_conv1x1_residual; do
        has_all "$k" "$wd/r/$k.none.tmares.wgmma.regs.pp.cu" \
            'gemm_turn[2], gemm_rfull[2], gemm_rfree[2];' \
            'kg_mb_wait(&gemm_rfree[pc], ((pj >> 1) & 1u) ^ 1u);' \
            'kg_mb_expect(&gemm_rfull[pc], (unsigned)(BM * GEMM_BNL * sizeof(__half)));' \
            'kg_mb_wait(&gemm_rfull[cw], ((it / (unsigned)GEMM_KT) >> 1) & 1u);' \
            'kg_mb_arrive(&gemm_rfree[cw]);'
    done
    has_all rows "$wd/r/k0_linear_residual.none.tmares.wgmma.regs.pp.cu" \
        'kg_tma2(rt + p * (BM * 128), &kg_tmR, (int)(n0 + p * 64), (int)m0, &gemm_rfull[pc]);' \
        'const float2 rr = __half22float2(*rp), oo = __half22float2(__floats2half2_rn(' \
        'kg_tma_st2(&kg_tmO, (const unsigned char *)gemm_ct + p * (BM * 128), (int)(n0 + p * 64), (int)m0);'
    has_all chfirst "$wd/r/k1_conv1x1_residual.none.tmares.wgmma.regs.pp.cu" \
        'kg_tma3(rt + p * (GEMM_BNL * 128), &kg_tmR, (int)(m0 % 128L + p * 64), (int)n0, (int)(m0 / 128L), &gemm_rfull[pc]);' \
        'rp[(0)] = __float2half_rn(__half2float(rp[(0)]) + __half2float(o[(0)]));' \
        'kg_tma_st3(&kg_tmO, (const unsigned char *)gemm_ct + p * (GEMM_BNL * 128), (int)(m0 % 128L + p * 64), (int)n0, (int)(m0 / 128L));'
    refused gemm "$src/tools/bench/gated_tanh_residual.pat" --dim B=2 --dim T=128 --unfuse all \
        --kernel k2_conv1x1_split_residual --arch sm_90 --where load=tmares --where sched=pp || bad="$bad refused:gated"
    refused gemm "$rt" --dim T=64 --kernel k1_conv1x1_residual --arch sm_90 --where load=tmares --where sched=pp \
        --where BM=128 || bad="$bad refused:batch"
    refused gemm "$rt" --dim T=64 --kernel k0_linear_residual --arch sm_90 --where load=tmares --where sched=pp \
        --where BM=128 && bad="$bad refused:rows"
    # rank(): LYNXNet2's residual linear by it at STAGES = 5 first, as it
    # ran fastest on the H200 (0.162 ms against tma's 0.174; attempt 40)
    best=$("$kgen" space gemm "$src/examples/lynxnet2_block.pat" --unfuse k0_ln_dwconv --kernel k5_linear_residual \
        --arch sm_90 --rank 1 2>&1 | grep -E '^ +1 ' | sort -k2 -g | head -n 1)
    case $best in *"load=tmares path=wgmma prologue=regs sched=pp "*" STAGES=5 "*) ;; *) bad="$bad rank:$best" ;; esac
    # shellcheck disable=SC2086
    out=$("$kgen" check "$rt" $args --configs 4 --where load=tmares --where sched=pp 2>&1)
    [ "$(echo "$out" | grep -c 'ok .*load=tmares.*sched=pp')" -ge 8 ] || { bad="$bad check"; echo "$out"; }
    rm -rf "$wd"
    verdict "wgmma load=tmares (pp)" "the residual by TMA into the consumer's tile, added in place, stored by TMA"
fi
# The ws and pp consumers fence the async proxy after a stage's full wait
# only where some copy of the stage writes it through the generic proxy
# (cp.async, or the producer's pass over a landed tile: gated's prologue):
# there wgmma's reads must be ordered after those writes.  Where every copy
# is a TMA copy (load=tma, panel) the barrier's completion orders them and
# the fence, a MEMBAR a K tile, goes (performance.md attempt 33).
if [ "$mode" = sm_90 ]; then
    total=$((total + 1))
    wd=$(mktemp -d)
    bad=
    "$kgen" gen "$src/tests/kernels/gemm_linear_f16.pat" --backend cuda --arch sm_90 -o "$wd/l" \
        >/dev/null 2>&1 || bad="$bad gen-linear"
    "$kgen" gen "$src/tools/bench/gated_tanh_residual.pat" --backend cuda --arch sm_90 -o "$wd/g" \
        --where prologue=smem >/dev/null 2>&1 || bad="$bad gen-gated"
    # fenced FILE: 1 where the consumer's full wait is followed by the fence,
    # 0 where it is not, empty where the file or the wait is missing
    fwait='kg_mb_wait(&gemm_full[cs], (q / STAGES) & 1u);'
    fenced() {
        [ -f "$1" ] && grep -qF "$fwait" "$1" || return 0
        grep -F -A1 "$fwait" "$1" | grep -c 'kg_wg_fence_async();'
    }
    # (each case: the directory, the design point's file suffix, the answer)
    for c in "l cp.wgmma.regs.ws 1" "l cp.wgmma.regs.pp 1" "l tma.wgmma.regs.ws 0" \
        "l tma.wgmma.regs.pp 0" "l panel.wgmma.regs.pp 0" "g tma.wgmma.smem.ws 1" "g tma.wgmma.smem.pp 1"; do
        # shellcheck disable=SC2086
        set -- $c
        [ "$(fenced "$(ls "$wd/$1"/*."$2".cu 2>/dev/null | head -n 1)")" = "$3" ] || bad="$bad $1/$2:$3"
    done
    rm -rf "$wd"
    verdict "wgmma proxy fence" "after the full wait where a stage has a generic-proxy write, not where every copy is TMA"
fi
# The ws and pp consumers take their warp index (and pp its warpgroup's
# turn) through __shfl_sync from lane 0: ptxas then knows them warp-uniform
# and keeps the K loop's stage index, tile addresses and wgmma descriptors
# in uniform registers, without an R2UR per descriptor (performance.md
# attempt 34: 153 -> 104 instructions per 16 wgmmas in ConvNeXt's GELU GEMM).
if [ "$mode" = sm_90 ]; then
    total=$((total + 1))
    wd=$(mktemp -d)
    bad=
    "$kgen" gen "$src/tests/kernels/gemm_linear_f16.pat" --backend cuda --arch sm_90 -o "$wd/l" \
        >/dev/null 2>&1 || bad="$bad gen"
    uwarp='warp = __shfl_sync(0xffffffffu, tid >> 5, 0), wq = warp & 3;'
    has_all ws "$(ls "$wd"/l/*.tma.wgmma.regs.ws.cu 2>/dev/null | head -n 1)" "$uwarp"
    has_all pp "$(ls "$wd"/l/*.tma.wgmma.regs.pp.cu 2>/dev/null | head -n 1)" "$uwarp" \
        'const int cw = __shfl_sync(0xffffffffu, (int)threadIdx.x / GEMM_NT, 0);'
    rm -rf "$wd"
    verdict "wgmma uniform warp index" "the consumers' warp index and turn taken from lane 0"
fi
# kg.fastmath: CUDA kernels that store only f16/bf16 take GELU, sigmoid and
# tanh from ex2.approx and rcp.approx (kg_gelu_f, ...); f32 results, and
# OpenCL, keep erff, expf and tanhf.
if [ "$mode" = sm_90 ]; then
    total=$((total + 1))
    wd=$(mktemp -d)
    bad=
    ln=$src/tools/bench/ln_gemm_gelu.pat
    "$kgen" gen "$ln" --dim M=64 --dim K=64 --dim N=64 --unfuse all --kernel k1_gemm_gelu --backend cuda \
        --arch sm_90 -o "$wd/h" >/dev/null 2>&1 || bad="$bad gen-f16"
    grep -q 'kg_gelu_f(h)' "$wd"/h/*.cu 2>/dev/null && ! grep -q 'erff(' "$wd"/h/*.cu || bad="$bad f16"
    "$kgen" gen "$ln" --dim M=64 --dim K=64 --dim N=64 --dtype DT=f32 --unfuse all --kernel k1_gemm_gelu \
        --backend cuda --arch sm_90 -o "$wd/f" >/dev/null 2>&1 || bad="$bad gen-f32"
    grep -q 'erff(' "$wd"/f/*.cu 2>/dev/null && ! grep -q 'kg_gelu_f(h)' "$wd"/f/*.cu || bad="$bad f32"
    "$kgen" gen "$src/examples/lynxnet2_block.pat" --dim B=2 --dim T=96 --dim C=72 --kernel k2_gemm_glu \
        --backend opencl -o "$wd/o" >/dev/null 2>&1 || bad="$bad gen-opencl"
    ! grep -q 'kg_sigmoid_f' "$wd"/o/* 2>/dev/null || bad="$bad opencl"
    rm -rf "$wd"
    verdict "fast transcendentals" "16-bit results only, CUDA only"
fi
# wgmma's register epilogue: bias, scale and GELU or GLU run on the
# accumulators, each column group a step of the activation at a time where
# it has such a form (GELU; LYNXNet2's atan-GLU has none), and leave through
# a 16-bit tile laid out along the output's contiguous axis, a residual
# added on the copy-out (LYNXNet2's last linear along its rows, WaveNet's
# 1x1 conv channel-first).  Gated's split (the fused gated GEMM, and the
# unfused layer's conv1x1_split_residual) picks each run's output by its
# column: the residual half to out, scaled, the rest to skip.  The
# unfused layer's gate (conv1x1_residual_gate) stages both halves and adds
# the residual to each on the copy-out, then gates them in pairs.  Runs
# that are not 16-byte aligned (T = 100) keep the f32 tile.
if [ "$mode" = sm_90 ]; then
    total=$((total + 1))
    wd=$(mktemp -d)
    bad=
    W="--backend cuda --arch sm_90 --where path=wgmma --where sched=pp --where load=tma"
    ln=$src/tools/bench/ln_gemm_gelu.pat
    ly=$src/examples/lynxnet2_block.pat
    wn=$src/examples/wavenet_layer.pat
    # shellcheck disable=SC2086
    {
    "$kgen" gen "$ln" --dim M=256 --dim K=64 --dim N=128 --unfuse all --kernel k1_gemm_gelu $W -o "$wd/g" &&
    "$kgen" gen "$ly" --dim B=2 --dim T=96 --dim C=72 --kernel k2_gemm_glu $W -o "$wd/u" &&
    "$kgen" gen "$ly" --dim B=2 --dim T=96 --dim C=72 --kernel k3_linear_residual $W -o "$wd/r" &&
    "$kgen" gen "$wn" --dim B=2 --dim C=64 --dim H=32 --dim T=96 --kernel k4_conv1x1_residual $W -o "$wd/w" &&
    "$kgen" gen "$src/tools/bench/gated_tanh_residual.pat" --dim B=2 --dim C=64 --dim T=96 $W -o "$wd/s" &&
    "$kgen" gen "$wn" --dim B=2 --dim C=64 --dim H=32 --dim T=96 --unfuse all --kernel k5_conv1x1_split_residual \
        $W -o "$wd/p" &&
    "$kgen" gen "$wn" --dim B=2 --dim C=64 --dim H=32 --dim T=96 --unfuse all --kernel k4_conv1x1_residual_gate \
        $W -o "$wd/q" &&
    "$kgen" gen "$wn" --dim B=2 --dim C=64 --dim H=32 --dim T=100 --unfuse all --kernel k4_conv1x1_residual_gate \
        --backend cuda --arch sm_90 --where path=wgmma -o "$wd/q100" &&
    "$kgen" gen "$wn" --dim B=2 --dim C=64 --dim H=32 --dim T=100 --kernel k4_conv1x1_residual \
        --backend cuda --arch sm_90 --where path=wgmma -o "$wd/w100"
    } >/dev/null 2>&1 || bad="$bad gen"
    has_all gelu "$(ls "$wd"/g/*.cu 2>/dev/null)" 'kg_gelu_n<GEMM_MI * 4>(x);' \
        '#define GEMM_HS (GEMM_BNL + 8)' 'float rc_b[GEMM_NIL][2];' '= __floats2half2_rn(x[mi * 4 + h * 2]'
    has_all glu "$(ls "$wd"/u/*.cu 2>/dev/null)" 'g[mi * 4 + q] = acc[mi][ni + GEMM_NIL][q];' \
        'acc[mi][ni][q] = ni < GEMM_NIL ? rc_b[ni][q & 1] : rc_g[ni - GEMM_NIL][q & 1];' \
        'for (int i = 0; i < GEMM_MI * 4; i++) x[i] *= g[i];'
    has_all residual "$(ls "$wd"/r/*.cu 2>/dev/null)" '#define GEMM_HS (GEMM_BNL + 8)' \
        'rv[u] = *(const uint4 *)(' 'for (int j = 0; j < 8; j++) pk_o[(j)] = __float2half_rn(__half2float(xr[(j)]) +'
    has_all channel-first "$(ls "$wd"/w/*.cu 2>/dev/null)" '#define GEMM_HS (BM + 8)' \
        'hp[((ni * 8 + 1) * GEMM_HS + mi * 64 + h * 8)] = __float2half_rn(x[mi * 4 + h * 2 + 1]);'
    for f in "$wd"/s/*.cu "$wd"/p/*.cu; do
        has_all split "$f" '#define GEMM_HS (BM + 8)' 'if (e < BM * GEMM_BNL / 8 && mb < GEMM_M && nb < 64L)' \
            'if (nb < 64L) {' '* ((float)0x1.6a09e667f3bcdp-1));' '          else *(uint4 *)(a'
    done
    has_all gate "$(ls "$wd"/q/*.cu 2>/dev/null)" '#define GEMM_EST (GEMM_BNL * GEMM_HS)' \
        'hp[((GEMM_BNL + ni * 8 + 1) * GEMM_HS + mi * 64 + h * 8)] = __float2half_rn(g[mi * 4 + h * 2 + 1]);' \
        'fv[u] = *(const uint4 *)((__half *)gemm_ct + GEMM_BNL * GEMM_HS + nl0 * GEMM_HS + ri0);' \
        'rf[u] = *(const uint4 *)(' 'asm("tanh.approx.f16x2 %0, %1;" : "=r"(tf) : "r"(fw[j]));'
    for f in "$wd"/w100/*.cu "$wd"/q100/*.cu; do
        has_all staged "$f" '#define GEMM_CT(r, c) gemm_ct[GEMM_CTO(r, c)]'
        ! grep -q 'GEMM_HS' "$f" || bad="$bad staged:$f"
    done
    for f in "$wd"/g/*.cu "$wd"/r/*.cu "$wd"/w/*.cu "$wd"/s/*.cu "$wd"/p/*.cu "$wd"/q/*.cu; do
        ! grep -q 'GEMM_CTO' "$f" || bad="$bad registers:$f"
    done
    rm -rf "$wd"
    verdict "wgmma register epilogue" "bias, scale, GELU/GLU on the accumulators, residual on the copy-out, gated's split by column, the gate's halves paired; unaligned runs staged"
fi
# conv_cond_gate on sm_90: the producer's two pairs of tensor maps, the
# dilated conv's boxes by tap (channel-last at DIL = 2, channel-first at
# DIL = 8) and the condition's panels, and the consumers' MMAs (transposed
# A for the condition's K tiles; for all of them at DIL = 8)
if [ "$mode" = sm_90 ]; then
    total=$((total + 1))
    wd=$(mktemp -d)
    bad=
    cg=$src/tests/kernels/conv_cond_gate.pat
    W="--backend cuda --arch sm_90 --where path=wgmma --where sched=pp --where load=tma"
    # shellcheck disable=SC2086
    {
    "$kgen" gen "$cg" --kernel k7_conv_cond_gate $W -o "$wd/k" &&
    "$kgen" gen "$cg" --kernel k12_conv_cond_gate $W -o "$wd/m"
    } >/dev/null 2>&1 || bad="$bad gen"
    for f in "$wd"/k/*.cu "$wd"/m/*.cu; do
        has_all maps "$f" 'const __grid_constant__ kg_tmap kg_tmA2,' 'if (k0 < 192L) {' \
            '&kg_tmA2, (int)(r % 64L), (int)(k0 - 192L), (int)(r / 64L), &gemm_full[ws]);' \
            '&kg_tmB2, (int)(k0 - 192L),' 'kg_wg_mmat(&acc[mi][0][0], ad + 128 * j, bd + 2 * j);'
    done
    has_all k-major "$(ls "$wd"/k/*.cu 2>/dev/null)" \
        '&kg_tmA, (int)(k0 % 64), (int)(r % 64L) + tap * 2 - 2, (int)(r / 64L), &gemm_full[ws]);' \
        'kg_wg_mma(&acc[mi][0][0], ad + 2 * j, bd + 2 * j);'
    has_all m-major "$(ls "$wd"/m/*.cu 2>/dev/null)" \
        '&kg_tmA, (int)(r % 64L) + tap * 8 - 8, (int)(k0 % 64), (int)(r / 64L), &gemm_full[ws]);'
    ! grep -q 'kg_wg_mma(&acc' "$wd"/m/*.cu || bad="$bad m-major:k-step"
    refused gemm "$cg" --kernel k7_conv_cond_gate --arch sm_90 --where load=panel ||
        bad="$bad panel"
    rm -rf "$wd"
    verdict "conv_cond_gate TMA" "two pairs of maps, boxes by tap (K-major or M-major), the condition's panels transposed"
fi
# rownorm's tile: 16-bit rows that are adjacent and aligned (a LayerNorm
# over C of [B, C, T], as ConvNeXt's was before dwconv_ln took it) load 8
# rows by one 16-byte load, guarded by the block's rows dividing T; f32
# keeps the scalar loop.  rank() puts tile first for such rows and regs
# first for contiguous ones.
if [ "$mode" = sm_90 ]; then
    total=$((total + 1))
    wd=$(mktemp -d)
    bad=
    cx=$wd/tln.pat
    cat > "$cx" <<'PAT'
model tln
dim B = 2, C = 512, T = 96
dtype DT = f16
input  x : DT[B, C, T]
weight g : DT[C]
weight b : DT[C]
y = layernorm(transpose(x, 1, 2), g, b, axis=-1, eps=1e-6)
output y
PAT
    "$kgen" gen "$cx" --kernel k1_layernorm --backend cuda --arch sm_90 \
        -o "$wd/h" --where path=tile >/dev/null 2>&1 || bad="$bad gen-f16"
    grep -qF '#if (BLOCK / TPR) % 8 == 0 && 96 % (BLOCK / TPR) == 0' "$wd"/h/*.cu 2>/dev/null &&
        grep -qF 'v = *(const uint4 *)(' "$wd"/h/*.cu || bad="$bad f16"
    "$kgen" gen "$cx" --dtype DT=f32 --kernel k1_layernorm --backend cuda \
        --arch sm_90 -o "$wd/f" --where path=tile >/dev/null 2>&1 || bad="$bad gen-f32"
    ! grep -q 'uint4' "$wd"/f/*.cu 2>/dev/null || bad="$bad f32"
    # shellcheck disable=SC2086
    out=$("$kgen" check "$cx" --kernel k1_layernorm $args --configs 3 \
        --where path=tile --where BLOCK=128 --where TPR=16 2>&1)
    echo "$out" | grep -q 'ok .*path=tile' || { bad="$bad check"; echo "$out"; }
    first() { "$kgen" space rownorm "$@" --arch sm_90 --rank 1 2>&1 | grep -E '^ +1 ' | sort -k2 -g | head -n 1; }
    case $(first "$cx" --kernel k1_layernorm) in *path=tile*) ;; *) bad="$bad rank-strided" ;; esac
    case $(first "$src/examples/lynxnet2_block.pat" --unfuse k0_ln_dwconv --kernel k0_layernorm) in *path=regs*) ;; *) bad="$bad rank-rows" ;; esac
    rm -rf "$wd"
    verdict "rownorm tile and rank" "16-byte row loads where aligned, tile first for strided rows"
fi
# dwconv items=run: a thread's ITEMS consecutive outputs from one run of
# inputs in registers, lanes on consecutive channels (odd window rows);
# every dwconv test kernel under it (strides, dilation, padding, f32, f16,
# bf16, channels-last), and on CUDA 8 16-bit results leave in one 16-byte
# store.
total=$((total + 1))
bad=
for f in "$src"/tests/kernels/dwconv_basic.pat "$src"/tests/kernels/dwconv_transposed.pat; do
    # shellcheck disable=SC2086
    out=$("$kgen" check "$f" $args --configs 4 --where items=run 2>&1)
    echo "$out" | tail -n 1 | grep -q ' 0 compile errors, 0 launch errors, 0 wrong results' &&
        ! echo "$out" | grep -q 'FAIL' || { bad="$bad $(basename "$f")"; echo "$out"; }
done
if [ "$mode" = sm_90 ]; then
    wd=$(mktemp -d)
    # (a channel-first f16 conv: LYNXNet2's writes channels-last, a value a store)
    "$kgen" gen "$src/tests/kernels/dwconv_mma.pat" --kernel k4_conv1d --backend cuda --arch sm_90 \
        -o "$wd" --where items=run >/dev/null 2>&1 || bad="$bad gen"
    grep -qF '#define WS (WIN | 1)' "$wd"/*.cu 2>/dev/null &&
        grep -qF '__stwb((uint4 *)(a3 + ((b * 16L + c) * 200L + tr + i8)), make_uint4(kg_pk_f16(' "$wd"/*.cu ||
        bad="$bad run-store"
    rm -rf "$wd"
fi
verdict "dwconv items=run" "consecutive outputs from registers"
# elementwise index arithmetic in 32 bits where every index fits: the
# WaveNet layer's broadcast add over [B, C, T] splits its index with 32-bit
# divisions, no 64-bit one left (each is a dozen instructions).  VEC = 8
# (CUDA): runs of 8 along the last axis move 16 bytes at a time where they
# run with stride 1 from an aligned start (x, r, the split w1, both
# outputs), element by element elsewhere (the transposed y), and never
# hoisted out of a concat's branch (x read shifted there); OpenCL has no
# VEC = 8 config.
total=$((total + 1))
bad=
if [ "$mode" = sm_90 ]; then
    wd=$(mktemp -d)
    "$kgen" gen "$src/examples/wavenet_layer.pat" --kernel k2_elementwise --backend cuda --arch sm_90 \
        -o "$wd" >/dev/null 2>&1 || bad="$bad gen"
    grep -qF 'unsigned q1 = (unsigned)i;' "$wd"/*.cu 2>/dev/null || bad="$bad narrow"
    grep -qE '[/%] [0-9]+L\)' "$wd"/*.cu 2>/dev/null && bad="$bad wide-division"
    rm -rf "$wd"
    wd=$(mktemp -d)
    "$kgen" gen "$src/tests/kernels/elementwise_vec.pat" --backend cuda --arch sm_90 -o "$wd" \
        >/dev/null 2>&1 || bad="$bad gen-vec"
    v=$(sed -n '/#if VEC > 1/,/#else/p' "$wd"/*.cu 2>/dev/null)
    for want in 'const uint4 \*)(a0 + (((q2 / 24u)) \* 960L + ((q2 % 24u)) \* 40L + rv)))\[0\]' \
                'const uint4 \*)(a2 + (rv)))\[1\]' \
                'const uint4 \*)(a4 + (40 + ' \
                '((uint4 \*)(a6 + ' '((uint4 \*)(a7 + ' \
                'a3\[.*(rv + J)) \* 24L'; do
        echo "$v" | grep -q "$want" || bad="$bad vec:$want"
    done
    echo "$v" | grep -q 'uint4 \*)(a0 + .*24u)) [+-] ' && bad="$bad hoisted-from-concat"
    rm -rf "$wd"
    # shellcheck disable=SC2086
    "$kgen" check "$src/tests/kernels/elementwise_vec.pat" $args --configs 3 --where VEC=8 2>&1 |
        tail -n 1 | grep -q ' 3 candidates ok, 0 compile errors' || bad="$bad compile-vec"
else
    refused elementwise "$src/tests/kernels/elementwise_vec.pat" --arch opencl --where VEC=8 ||
        bad="$bad opencl-vec"
fi
verdict "elementwise VEC and 32-bit indices" "16-byte runs where aligned, no 64-bit division where every index fits"

# Elementwise order=tile (tests/kernels/elementwise_tile.pat): the kernels
# that write a transpose of what they read pass under it on each backend
# (dims off the 64-wide tile, two outputs in two dtypes, rank 4), the one
# that reads along its output's last axis has no tile config, and the code
# goes through shared memory in two passes split by one barrier.  On CUDA
# VEC = 8 takes runs of 8 in both passes where the last two axes allow
# (k1, k2), with 16-byte loads and stores; k4's last axis (100) does not.
total=$((total + 1))
bad=
# shellcheck disable=SC2086
out=$("$kgen" check "$src/tests/kernels/elementwise_tile.pat" $args --configs 2 --where order=tile 2>&1)
for k in k1 k2 k4; do
    echo "$out" | grep -q "^${k}_elementwise .* ok .*order=tile" || bad="$bad $k"
done
echo "$out" | grep -q '^k5_elementwise .*no config' || bad="$bad k5-constraint"
echo "$out" | tail -n 1 | grep -q ' 6 candidates ok, 0 compile errors, 0 launch errors, 0 wrong results' ||
    bad="$bad summary"
wd=$(mktemp -d)
case $mode in opencl) gargs="--backend opencl" ;; *) gargs="--backend cuda --arch $mode" ;; esac
# shellcheck disable=SC2086
"$kgen" gen "$src/tests/kernels/elementwise_tile.pat" --kernel k1_elementwise $gargs --where order=tile \
    -o "$wd" >/dev/null 2>&1 || bad="$bad gen"
nb=2   # (one a variant: VEC = 8 and VEC = 1; OpenCL has VEC = 1 alone)
[ "$mode" = opencl ] && nb=1
[ "$(grep -c '^  *KG_BARRIER();' "$wd"/* 2>/dev/null)" = $nb ] || bad="$bad barrier"
has_all tile "$(ls "$wd"/* 2>/dev/null | head -n 1)" 'kg_tile[4160]' 'if (tp >= 104u || tq >= 72u) continue;' \
    'kg_tile[0 + (e / 64u) * 65u + e % 64u] = ' 'kg_tile[0 + (e % 64u) * 65u + e / 64u]'
if [ "$mode" != opencl ]; then
    # shellcheck disable=SC2086
    "$kgen" gen "$src/tests/kernels/elementwise_tile.pat" --kernel k1_elementwise $gargs --where order=tile \
        --where VEC=8 -o "$wd/v" >/dev/null 2>&1 || bad="$bad gen-vec"
    has_all tile-vec "$(ls "$wd"/v/* 2>/dev/null | head -n 1)" \
        '((uint4 *)v1)[0] = ((const uint4 *)(a0 + ' 'kg_tile[0 + (e / 8u) * 65u + (e % 8u) * 8u + J] = ' \
        '__stwb((uint4 *)((uint4 *)(a2 + '
    # shellcheck disable=SC2086
    refused elementwise "$src/tests/kernels/elementwise_tile.pat" --kernel k4_elementwise $args \
        --where order=tile --where VEC=8 || bad="$bad k4-vec"
fi
rm -rf "$wd"
verdict "elementwise order=tile" "transposed writes through a shared tile, refused where nothing runs across"

# dwconv path=lanes: channels-last inputs only, lanes along the contiguous
# channels, each thread streaming its run of inputs from global memory; the
# channels-last kernels pass under it (f16 with padding, f32 with stride 3
# and dilation 3), and the channel-major ones (T > 1) and 7 channels (under
# 16 a row) have no config.
total=$((total + 1))
bad=
# shellcheck disable=SC2086
out=$("$kgen" check "$src/tests/kernels/dwconv_transposed.pat" $args --configs 4 --where path=lanes 2>&1)
for k in k1_conv1d k4_conv1d; do
    echo "$out" | grep -q "^$k .* ok .*path=lanes" || bad="$bad $k"
done
echo "$out" | grep -q '^k6_conv1d .*no config' || bad="$bad k6-constraint"
echo "$out" | tail -n 1 | grep -q ' 0 compile errors, 0 launch errors, 0 wrong results' || bad="$bad summary"
# shellcheck disable=SC2086
out2=$("$kgen" check "$src/tests/kernels/dwconv_basic.pat" $args --configs 2 --where path=lanes 2>&1)
for k in k1_conv1d k2_conv1d k3_conv1d k4_conv1d; do
    echo "$out2" | grep -q "^$k .*no config" || bad="$bad $k-channel-major"
done
[ -n "$bad" ] && echo "$out" && echo "$out2"
verdict "dwconv path=lanes" "channels-last runs streamed from global memory"
# dwconv path=mma (CUDA sm_80+): the depthwise conv as Hankel-by-Toeplitz
# products on mma.sync m16n8k16.  Every kernel of dwconv_mma.pat compiles
# under it (K = 31 channels-last, bf16 with dilation 2, K = 7, K = 1) but
# the one of stride 2; it is refused for OpenCL and f32; LYNXNet2's K = 31 conv
# takes three k steps of 16 and ranks it first on sm_90.
if [ "${mode#sm_}" != "$mode" ]; then
    total=$((total + 1))
    bad=
    # shellcheck disable=SC2086
    out=$("$kgen" check "$src/tests/kernels/dwconv_mma.pat" $args --configs 3 --where path=mma 2>&1)
    for k in k1_conv1d k2_conv1d k3_conv1d k4_conv1d; do
        echo "$out" | grep -q "^$k .* ok .*path=mma" || bad="$bad $k"
    done
    echo "$out" | tail -n 1 | grep -q ' 0 compile errors, 0 launch errors, 0 wrong results' || bad="$bad summary"
    refused dwconv "$src/tests/kernels/dwconv_mma.pat" --kernel k1_conv1d --arch opencl --where path=mma ||
        bad="$bad opencl"
    echo "$out" | grep -q '^k5_conv1d .*no config' || bad="$bad stride"
    refused dwconv "$src/tests/kernels/dwconv_basic.pat" --kernel k0_conv1d --arch sm_90 --where path=mma ||
        bad="$bad f32"
    vd=$(mktemp -d)
    "$kgen" gen "$src/examples/lynxnet2_block.pat" --backend cuda --arch sm_90 --unfuse k0_ln_dwconv --kernel k2_conv1d \
        --where path=mma -o "$vd" >/dev/null 2>&1
    # the taps staged in shared memory beside the window, W's fragments
    # built from there (attempt 38)
    has_all gen "$vd"/k2_conv1d.apart.mma.cu '#define KS 3' 'mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32' \
        '__shared__ unsigned short wsm[BC * 31];' \
        'wsm[e] = c < 1024L ? ((const unsigned short *)a1)[(long)(c) * 31L + (long)(e % 31)] : (unsigned short)0;' \
        'v |= (unsigned)wr[ci * 31 + d / 1] << (16 * j);'
    rm -rf "$vd"
    best=$("$kgen" space dwconv "$src/examples/lynxnet2_block.pat" --unfuse k0_ln_dwconv --kernel k2_conv1d \
        --arch sm_90 --rank 1 2>&1 |
        grep -E '^ +1 ' | sort -k2 -g | head -n 1)
    case $best in *path=mma*) ;; *) bad="$bad rank" ;; esac
    # rank(): T = 768 in whole tiles before 512 (a half-empty last tile),
    # 256 ran 11% faster than 512 (attempt 38), and two tiles of 384 (less
    # halo) 3 to 4% faster than three of 256 (attempt 39); at T = 4096 512
    # stays first.  BT = 384 is mma's alone (the other paths' BT are
    # powers of two)
    case $best in *" BC=32 BLOCK=256 BT=384 "*) ;; *) bad="$bad rank-tail:$best" ;; esac
    refused dwconv "$src/examples/lynxnet2_block.pat" --unfuse k0_ln_dwconv --kernel k2_conv1d --arch opencl \
        --where BT=384 || bad="$bad bt384-off-mma"
    best=$("$kgen" space dwconv "$src/examples/lynxnet2_block.pat" --dim T=4096 --unfuse k0_ln_dwconv \
        --kernel k2_conv1d --arch sm_90 \
        --rank 1 2>&1 | grep -E '^ +1 .*path=mma')
    case $best in *" BT=512 "*) ;; *) bad="$bad rank-4096:$best" ;; esac
    [ -n "$bad" ] && echo "$out"
    verdict "dwconv path=mma" "the depthwise conv on the tensor cores"
fi
# A fifth ring stage: wgmma's pp GEMMs take it, and it ranks first for
# ConvNeXt's GELU GEMM, where it ran about 1% faster; mma refuses it, never
# measured there (docs/performance.md attempt 37).
if [ "$mode" = sm_90 ]; then
    total=$((total + 1))
    bad=
    c=$src/examples/convnext_block.pat
    r1=$("$kgen" space gemm "$c" --unfuse all --kernel k1_gemm_gelu --arch sm_90 --where sched=pp \
        --where load=tma --rank 1 2>&1 | grep -E '^ +1 ')
    case $r1 in *" STAGES=5 "*) ;; *) bad="$bad rank:$r1" ;; esac
    refused gemm "$c" --unfuse all --kernel k1_gemm_gelu --arch sm_90 --where path=mma \
        --where STAGES=5 || bad="$bad mma"
    refused gemm "$c" --unfuse all --kernel k1_gemm_gelu --arch sm_90 --where path=mma \
        --where STAGES=4 && bad="$bad mma-4"
    verdict "gemm STAGES=5" "a fifth ring stage on wgmma's pp, none on mma"
fi
# dwconv writing channels-last (the planner gives a conv on a channels-last
# view the transpose back; tests/kernels/dwconv_chlast.pat): path=mma stages
# its results in the window's rows and stores 8 channels of a step with one
# 16-byte store (__stwb: nvcc split a plain uint4 store into four, 3x the
# store sectors, docs/performance.md attempt 35), a thread two steps from
# one 32-bit load a channel parted by byte permutes, and stages its window
# two steps a thread the same way (attempt 37); the f16 and bf16 kernels
# compile under it, and the f32 one has no mma config.
if [ "${mode#sm_}" != "$mode" ]; then
    total=$((total + 1))
    bad=
    d=$src/tests/kernels/dwconv_chlast.pat
    # shellcheck disable=SC2086
    out=$("$kgen" check "$d" $args --configs 3 --where path=mma 2>&1)
    for k in k1_conv1d k4_conv1d; do
        echo "$out" | grep -q "^$k .* ok .*path=mma" || bad="$bad $k"
    done
    echo "$out" | grep -q '^k7_conv1d .*no config' || bad="$bad f32"
    vd=$(mktemp -d)
    "$kgen" gen "$d" --backend cuda --arch "$mode" --kernel k1_conv1d --where path=mma -o "$vd" >/dev/null 2>&1 ||
        bad="$bad gen"
    has_all chlast "$vd"/k1_conv1d.apart.mma.cu '__syncwarp();' 'const unsigned short *col = win + cv * 8 * WS + tt;' \
        '__stwb((uint4 *)(yr + ((long)(b) * 12000L + (long)(c) + (long)(t) * 40L)), make_uint4(' \
        'for (int j = 0; j < 8; j++) w[j] = *(const unsigned *)(col + j * WS);' \
        '*(unsigned *)(wc + (2 * j + 1) * WS) = __byte_perm(h0[j], h1[j], 0x7632);' \
        'if (wi + 1 < WV && c < 40L && p + 1 >= 0 && p + 1 < 300L) r1 = *(const uint4 *)(xr + ' \
        'if (t + 1 < 300L) __stwb((uint4 *)(yr + ((long)(b) * 12000L + (long)(c) + (long)(t + 1) * 40L)), make_uint4(__byte_perm(w[0], w[1], 0x7632)'
    rm -rf "$vd"
    # rank(): the best-ranked mma config writes rows of 64 bytes (BC = 32
    # at f16), which ran faster than 32 (docs/performance.md attempt 36)
    r1=$("$kgen" space dwconv "$d" --kernel k1_conv1d --arch "$mode" --rank 1 2>&1 | grep -E '^ +1 .*path=mma')
    case $r1 in *" BC=32 "*) ;; *) bad="$bad rank:$r1" ;; esac
    verdict "dwconv channels-last y" "results staged in the window's rows, 16-byte stores" "$out"
fi
# f32 GEMMs take the tensor cores too (3xTF32 on mma.sync m16n8k8): every
# GEMM kernel of the WaveNet layer in f32 compiles on path=mma, and its
# dilated conv (A read along T) uses the transposed tile with scalar
# fragment loads, the TF32 split and the m16n8k8 MMA.
if [ "${mode#sm_}" != "$mode" ]; then
    total=$((total + 1))
    w=$src/examples/wavenet_layer.pat
    wd=$(mktemp -d)
    bad=
    # shellcheck disable=SC2046
    out=$("$kgen" check "$w" $args --configs 3 --dtype DT=f32 --where path=mma $(small "$w") 2>&1) ||
        bad="$bad check"
    n=$(echo "$out" | grep -c ' ok .*path=mma')
    [ "$n" -ge 12 ] || bad="$bad mma-candidates=$n"
    # shellcheck disable=SC2046
    "$kgen" gen "$w" --dtype DT=f32 $(small "$w") --backend cuda --arch "$mode" \
        -o "$wd/out" --where path=mma >/dev/null 2>&1 || bad="$bad gen"
    cu="$wd/out/k3_conv1d.none.cp.mma.regs.sync.cu"
    grep -q 'm16n8k8.row.col.f32.tf32.tf32.f32' "$cu" 2>/dev/null || bad="$bad no-tf32-mma"
    grep -q 'cvt.rna.tf32.f32' "$cu" 2>/dev/null || bad="$bad no-split"
    grep -q 'ap\[4 \* GEMM_BMP\]' "$cu" 2>/dev/null || bad="$bad no-trans-tile"
    rm -rf "$wd"
    verdict "f32 on path=mma" "$n candidates (3xTF32), the conv through the transposed tile" "$out"
fi
# f32 attention takes the tensor cores (3xTF32 m16n8k8 on the mma path):
# every sdpa kernel of the f32 test models and of the encoder in f32
# compiles there, for every head dim of the tests (24 to 192).
if [ "${mode#sm_}" != "$mode" ]; then
    total=$((total + 1))
    bad=
    n=0
    nk=0
    for f in "$src"/tests/kernels/sdpa_causal.pat "$src"/tests/kernels/sdpa_floatmask.pat \
             "$src"/examples/encoder_layer.pat; do
        dims=
        [ "$(basename "$f")" = encoder_layer.pat ] && dims="--dtype DT=f32 $(small "$f")"
        # shellcheck disable=SC2086
        for k in $("$kgen" plan "$f" $dims 2>/dev/null | awk '$2 ~ /^k[0-9]+_sdpa$/ { print $2 }'); do
            # shellcheck disable=SC2086
            out=$("$kgen" check "$f" $dims $args --kernel "$k" --where path=mma --configs 2 2>&1) ||
                bad="$bad $(basename "$f" .pat):$k"
            nk=$((nk + 1))
            n=$((n + $(echo "$out" | grep -c ' ok .*path=mma')))
        done
    done
    sd=$(mktemp -d)
    # shellcheck disable=SC2046
    "$kgen" gen "$src/examples/encoder_layer.pat" --dtype DT=f32 $(small "$src/examples/encoder_layer.pat") \
        --backend cuda --arch "$mode" -o "$sd/out" --kernel k13_sdpa --where path=mma >/dev/null 2>&1 ||
        bad="$bad gen"
    grep -q 'm16n8k8.row.col.f32.tf32.tf32.f32' "$sd/out/k13_sdpa.mma.cu" 2>/dev/null || bad="$bad no-tf32-mma"
    rm -rf "$sd"
    [ "$nk" -ge 7 ] && [ "$n" -ge "$nk" ] || bad="$bad kernels=$nk candidates=$n"
    verdict "f32 sdpa on path=mma" "$n candidates of $nk kernels (3xTF32)"
fi
# split-K over a thread-block cluster (SPLITK, mma path): on sm_90 the
# WaveNet layer's dilated conv in f32 at the inference shape (M = 861)
# compiles with SPLITK 2 and 4 and carries __cluster_dims__; sm_80 has no
# clusters, so no config passes there.  (load=cp: the design point whose
# source the grep reads; load=cp4 draws its own four.)
if [ "${mode#sm_}" != "$mode" ]; then
    total=$((total + 1))
    w=$src/examples/wavenet_layer.pat
    wk="--dtype DT=f32 --dim B=1 --dim T=861 --kernel k3_conv1d --where path=mma --where SPLITK=2,4 --where load=cp"
    bad=
    # shellcheck disable=SC2086
    out=$("$kgen" check "$w" $wk $args --configs 4 2>&1)
    rc=$?
    n=$(echo "$out" | grep -c ' ok .*SPLITK=[24]')
    if [ "$mode" = sm_80 ]; then
        [ $rc -ne 0 ] && echo "$out" | grep -q 'no config' || bad="$bad sm_80-split"
    else
        [ $rc -eq 0 ] && [ "$n" -eq 4 ] || bad="$bad candidates=$n"
        sd=$(mktemp -d)
        # shellcheck disable=SC2086
        "$kgen" gen "$w" $wk --backend cuda --arch "$mode" -o "$sd/out" >/dev/null 2>&1 || bad="$bad gen"
        grep -q '__cluster_dims__(SPLITK, 1, 1)' "$sd/out/k3_conv1d.none.cp.mma.regs.sync.cu" 2>/dev/null &&
            grep -q '^#define SPLITK [24]$' "$sd/out/k3_conv1d.none.cp.mma.regs.sync.cu" || bad="$bad no-cluster"
        rm -rf "$sd"
    fi
    verdict "split-K (SPLITK)" "$n candidates on $mode" "$out"
fi
# dwconv_ln's load=v16 (CUDA's tile path, x along T and out along C in
# aligned runs of 8): the window copied and the output stored 16 bytes at a
# time (one st.global.v4 through __stwb: a uint4 read back from a local
# array was split into 4-byte stores).  tests/kernels/dwconv_ln.pat's y8
# and y9 take it and compile; y7, whose T of 37 is no multiple of 8, does
# not; OpenCL has no such path.  load=pipe, v16 in persistent blocks: the
# windows by cp.async, PB blocks' registers bounded, gamma and beta held.
if [ "$mode" = sm_90 ]; then
    total=$((total + 1))
    d=$src/tests/kernels/dwconv_ln.pat
    bad=
    out=$("$kgen" check "$d" $args --where load=v16 --configs 2 2>&1)
    [ "$(echo "$out" | grep -c 'ok .*load=v16')" -ge 4 ] || bad="$bad candidates"
    echo "$out" | grep -q 'k0_dwconv_ln .*no config' || bad="$bad k0-not-refused"
    refused dwconv_ln "$d" --arch opencl --kernel k5_dwconv_ln --where load=v16 || bad="$bad opencl"
    vd=$(mktemp -d)
    "$kgen" gen "$d" --backend cuda --arch sm_90 --kernel k5_dwconv_ln -o "$vd/out" --where load=v16 \
        --where path=tile >/dev/null 2>&1 || bad="$bad gen"
    has_all v16 "$(ls "$vd"/out/*.cu 2>/dev/null | head -n 1)" '*(uint4 *)(hb + c * SH + 8 * j) = v;' \
        'float vv[NG][8];' '__stwb((uint4 *)(a5 + (long)(b) * 2560L + (long)(t) * 64L + (long)(gi * 8)), make_uint4(kg_pk_f16('
    out=$("$kgen" check "$d" $args --where load=pipe --configs 2 2>&1)
    [ "$(echo "$out" | grep -c 'ok .*load=pipe')" -ge 4 ] || bad="$bad pipe-candidates"
    refused dwconv_ln "$d" --arch opencl --kernel k5_dwconv_ln --where load=pipe || bad="$bad pipe-opencl"
    "$kgen" gen "$d" --backend cuda --arch sm_90 --kernel k5_dwconv_ln -o "$vd/pipe" --where load=pipe \
        --where path=tile >/dev/null 2>&1 || bad="$bad pipe-gen"
    has_all pipe "$(ls "$vd"/pipe/*.cu 2>/dev/null | head -n 1)" '__launch_bounds__(BLOCK, PB)' \
        'kg_dl_cp16((par ? win0 : win1) + c * SH + 8 * j' 'kg_dl_wait1();' 'const uint4 gr = gq[i], br = bq[i];'
    rm -rf "$vd"
    verdict "dwconv_ln load=v16, pipe" "16-byte window rows and stores; the next window in flight" "$out"
fi
# ln_dwconv's mma path (sm_90: the clusters of C / BC blocks over one row
# tile share each window row's partial statistics through distributed
# shared memory): every f16 and bf16 kernel of tests/kernels/ln_dwconv.pat
# compiles under it and the f32 one is refused, as is sm_80 (no clusters);
# LYNXNet2's k0 ranks clusters of 8 first (BC = 128; clusters of 16 ran
# slower, attempt 39) while its plain conv, unfused, keeps BC <= 32; the
# source carries its cluster dims, the lanes' combine by shuffles, the
# peers' reads and the wait before the block exits.
if [ "$mode" = sm_90 ]; then
    total=$((total + 1))
    bad=
    ly=$src/examples/lynxnet2_block.pat
    # shellcheck disable=SC2086
    out=$("$kgen" check "$src/tests/kernels/ln_dwconv.pat" $args --where path=mma --configs 3 2>&1)
    for k in k0_ln_dwconv k1_ln_dwconv k4_ln_dwconv; do
        echo "$out" | grep -q "^$k .* ok .*path=mma" || bad="$bad $k"
    done
    echo "$out" | grep -q '^k2_ln_dwconv .*no config' || bad="$bad f32"
    echo "$out" | tail -n 1 | grep -q ' 0 compile errors, 0 launch errors, 0 wrong results' || bad="$bad summary"
    refused dwconv "$ly" --kernel k0_ln_dwconv --arch sm_80 --where path=mma || bad="$bad sm_80"
    refused dwconv "$ly" --unfuse k0_ln_dwconv --kernel k2_conv1d --arch sm_90 --where BC=64 || bad="$bad plain-BC64"
    best=$("$kgen" space dwconv "$ly" --kernel k0_ln_dwconv --arch sm_90 --rank 1 2>&1 |
        grep -E '^ +1 ' | sort -k2 -g | head -n 1)
    case $best in *"path=mma BC=128 BLOCK=512 BT=256 "*) ;; *) bad="$bad rank:$best" ;; esac
    vd=$(mktemp -d)
    "$kgen" gen "$ly" --backend cuda --arch sm_90 --kernel k0_ln_dwconv --where path=mma --where BC=128 \
        -o "$vd" >/dev/null 2>&1 || bad="$bad gen"
    has_all gen "$(ls "$vd"/*.cu 2>/dev/null | head -n 1)" '__cluster_dims__(1024 / BC, 1, 1)' \
        '__shfl_xor_sync(0xffffffffu, ma, o)' 'kg_dw_ld_peer4(kg_dw_peer(lnp + 4 * j, (unsigned)k))' \
        'barrier.cluster.arrive.release.aligned;' 'barrier.cluster.wait.acquire.aligned;'
    rm -rf "$vd"
    verdict "ln_dwconv path=mma" "LayerNorm and depthwise conv in clusters" "$out"
fi
echo "$((total - failed))/$total models pass kgen check ($mode)"
[ "$failed" -eq 0 ]

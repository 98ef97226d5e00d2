#!/bin/sh
# tests/build_examples.sh KGEN SOURCE_DIR MODE [BUILD_DIR]
#   -- kgen build end to end (issue 5).
#
# MODE opencl: every example is built for OpenCL at small dims, linked
#   with examples/fused_demo.c and run on PoCL as a stack of layers against
#   kgen's double reference; a tuned DB gives tuned configs, an untuned
#   shape the nearest tuned shape's config, two shapes one library with two
#   variants; the launchers' error codes (tests/launcher_errors.c); a
#   failed build leaves OUTDIR as it was.
# MODE sm_90: every example is built for sm_90 at its default dims (NVRTC,
#   no GPU), nm shows the forward function and every launcher, and the
#   demo links against libfused.a and libfused.so.
# MODE cmake: BUILD_DIR is installed into a prefix and tests/cmake_user, a
#   user project, generates and links a fused library through
#   find_package(kgen) and kgen_add_fused_library, then runs it on PoCL.
# $DEMO_FLAGS: extra compiler flags for programs linked with the runtime
# (the sanitizers, when kgen was built with them).  Exit 77: skipped.
set -eu
KGEN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC=$2
MODE=$3
BUILD=${4:-}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
export KGEN_TEMPLATES="$SRC/templates" KGEN_PATTERNS="$SRC/patterns"
export KGEN_CACHE="$W/no-such-cache.sqlite"
CC=${CC:-cc}
FLAGS=${DEMO_FLAGS:-}
LIBS="-lpthread -ldl -lm"
if nm "$(dirname "$KGEN")/libkgrt.a" 2>/dev/null | grep ' U clGetPlatformIDs' >/dev/null
then
    LIBS="-lOpenCL $LIBS"
fi
fail() { echo "FAIL: $*" >&2; exit 1; }

dims() {
    case $1 in
        wavenet_layer) echo "--dim B=2 --dim C=16 --dim H=8 --dim T=37" ;;
        lynxnet2_block) echo "--dim B=2 --dim T=33 --dim C=16" ;;
        convnext_block) echo "--dim B=2 --dim C=16 --dim F=24 --dim T=19" ;;
        encoder_layer) echo "--dim B=2 --dim L=9 --dim C=24 --dim HD=12 --dim F=32" ;;
    esac
}
layers() {
    case $1 in
        wavenet_layer) echo 3 ;;
        *) echo 2 ;;
    esac
}

# demo OUTDIR REF: link the example program with OUTDIR's library and run it
demo() {
    # shellcheck disable=SC2086
    $CC -std=c11 -O1 $FLAGS -I"$1" "$SRC/examples/fused_demo.c" \
        "$1/libfused.a" $LIBS -o "$1/demo" || fail "demo does not link ($1)"
    st=0
    "$1/demo" "$2" --reps 2 >"$1/demo.out" 2>&1 || st=$?
    cat "$1/demo.out"
    if [ $st -eq 3 ]; then
        echo "no OpenCL device: skipped"
        exit 77
    fi
    [ $st -eq 0 ] || fail "demo $1 exit $st"
    grep -q '^check .* ok$' "$1/demo.out" || fail "demo $1 printed no check"
    ! grep -q MISMATCH "$1/demo.out" || fail "demo $1 mismatch"
    grep -q '^time ' "$1/demo.out" || fail "demo $1 printed no time"
}

case $MODE in
opencl)
    for m in wavenet_layer lynxnet2_block convnext_block encoder_layer; do
        echo "== $m (opencl)"
        # shellcheck disable=SC2046
        "$KGEN" run "$SRC/examples/$m.pat" --ref $(dims $m) \
            --save "$W/$m.ref" --layers "$(layers $m)" -q
        # shellcheck disable=SC2046
        "$KGEN" build "$SRC/examples/$m.pat" --arch opencl $(dims $m) \
            -o "$W/$m" || fail "build $m"
        for f in fused.h fused.c libfused.a libfused.so provenance.txt \
                 kgen/kgrt.h kgen/kgrt_fused.h; do
            [ -s "$W/$m/$f" ] || fail "$m: no $f"
        done
        ls "$W" | grep -q kgen-build && fail "a temporary directory is left"
        demo "$W/$m" "$W/$m.ref"
    done

    # relaid TAG DIMS CONV PLAN_ERE WHAT: WaveNet at DIMS, where kgen plan's
    # output must match PLAN_ERE (else "the dilated conv's WHAT"), the conv
    # kernel CONV must rank a TMA path without a prologue pass first on
    # sm_90, and the OpenCL build must agree with the reference over two
    # layers
    relaid() {
        wv="$SRC/examples/wavenet_layer.pat $2"
        # shellcheck disable=SC2086
        "$KGEN" plan $wv | grep -Eq "$4" || fail "the dilated conv's $5"
        # shellcheck disable=SC2086
        "$KGEN" space gemm $wv --kernel "$3" --arch sm_90 --rank 1 |
            grep -q 'load=tma path=wgmma prologue=regs' ||
            fail "$1: the relaid conv has no TMA path without a pass on sm_90"
        # shellcheck disable=SC2086
        "$KGEN" run $wv --ref --save "$W/$1.ref" --layers 2 -q
        # shellcheck disable=SC2086
        "$KGEN" build $wv --arch opencl -o "$W/$1" || fail "build $1"
        demo "$W/$1" "$W/$1.ref"
    }
    echo "== wavenet_layer, dilation 8: its conv's weight relaid tap-major"
    # (the plan relays it under templates/gemm.lua's convt_box conditions:
    # the relaid conv must have the tap-major TMA path, which needs no
    # prologue pass, where the (channel, tap) conv's TMA path needs one)
    relaid dil8 "--dim B=2 --dim C=64 --dim H=8 --dim T=64 --dim DIL=8" k7_conv1d \
        ' copy  *copy ' "weight was not relaid"
    echo "== wavenet_layer, dilation 2: its conv's x channel-last, written by the elementwise kernel"
    relaid dil2 "--dim B=2 --dim C=64 --dim H=8 --dim T=128" k8_conv1d \
        '^ +out: transpose@24:14 f16\[2, 128, 64\]$' "x was not written channel-last"
    echo "== the same two layers unfused: the dilated conv and the condition's conv as one GEMM"
    # (conv_cond_gate, at these multiples of 64: its K runs over both convs,
    # its epilogue gates; the relaid weight and the channel-last x as above)
    # folded TAG CONV T DIL: relaid's TAG layer at T and DIL, unfused
    folded() {
        wv="$SRC/examples/wavenet_layer.pat --dim B=2 --dim C=64 --dim H=8 --dim T=$3 --dim DIL=$4"
        # shellcheck disable=SC2086
        "$KGEN" build $wv --arch opencl --unfuse all -o "$W/$1.unf" >"$W/$1.unf.txt" ||
            fail "$1: unfused build"
        grep -q "^int wavenet_layer_$2_conv_cond_gate(" "$W/$1.unf/fused.h" ||
            fail "$1: unfused, no conv_cond_gate kernel"
        demo "$W/$1.unf" "$W/$1.ref"
    }
    folded dil8 k7 64 8
    folded dil2 k8 128 2

    echo "== tuned, nearest-tuned and two-variant builds"
    WN="$SRC/examples/wavenet_layer.pat --dim B=2 --dim C=16 --dim H=8"
    # shellcheck disable=SC2086
    "$KGEN" tune $WN --dim T=37 --arch opencl --db "$W/t.sqlite" \
        --budget 3 -q >/dev/null || fail "tune"
    # shellcheck disable=SC2086
    "$KGEN" build $WN --dim T=37 --arch opencl --db "$W/t.sqlite" \
        -o "$W/tuned" >"$W/tuned.txt" || fail "tuned build"
    cat "$W/tuned.txt"
    # 5 kernels fused, 6 where the tuner found gated_tanh_residual faster
    # unfused
    grep -Eq '\((5|6) tuned, 0 from a nearby tuned shape, 0 untuned' "$W/tuned.txt" \
        || fail "the tuned build did not use the DB's winners"
    grep -q 'tuned: run 1' "$W/tuned/provenance.txt" || fail "provenance"
    # shellcheck disable=SC2086
    "$KGEN" build $WN --dim T=41 --arch opencl --db "$W/t.sqlite" \
        -o "$W/near" >"$W/near.txt" || fail "nearest build"
    cat "$W/near.txt"
    grep -Eq '[0-9] tuned, [1-6] from a nearby tuned shape' "$W/near.txt" \
        || fail "an untuned shape did not take the nearest tuned config"
    grep -q 'nearest tuned shape' "$W/near/provenance.txt" || fail "provenance"
    # shellcheck disable=SC2086
    "$KGEN" run $WN --dim T=41 --ref --save "$W/t41.ref" --layers 2 -q
    demo "$W/near" "$W/t41.ref"
    # shellcheck disable=SC2086
    "$KGEN" build $WN --dim T=37,41 --arch opencl --db "$W/t.sqlite" \
        -o "$W/two" >"$W/two.txt" || fail "two-variant build"
    grep -Eq '(5|6) kernels x 2 variants' "$W/two.txt" || fail "two variants"
    demo "$W/two" "$W/t41.ref"
    demo "$W/two" "$W/wavenet_layer.ref"

    echo "== the WaveNet layer with gated_tanh_residual unfused"
    # the gate in the condition's 1x1 conv (conv1x1_residual_gate), then the
    # 1x1 conv whose epilogue writes the scaled residual and the skip half
    # (conv1x1_split_residual)
    # shellcheck disable=SC2086
    "$KGEN" build $WN --dim T=41 --arch opencl --unfuse all -o "$W/unf" >"$W/unf.txt" ||
        fail "unfused build"
    grep -q '5 kernels x 1 variant' "$W/unf.txt" || fail "unfused: not 5 kernels"
    grep -q '^int wavenet_layer_k4_conv1x1_residual_gate(' "$W/unf/fused.h" ||
        fail "unfused: no conv1x1_residual_gate kernel"
    demo "$W/unf" "$W/t41.ref"

    echo "== launcher errors"
    # shellcheck disable=SC2086
    $CC -std=c11 $FLAGS -I"$W/wavenet_layer" "$SRC/tests/launcher_errors.c" \
        "$W/wavenet_layer/libfused.a" $LIBS -o "$W/le" || fail "link"
    "$W/le" || fail "launcher errors"

    echo "== a failed build leaves OUTDIR alone"
    cp "$W/wavenet_layer/fused.h" "$W/before.h"
    printf 'model broken\ninput x : f16[4]\ny = nosuchop(x)\noutput y\n' \
        >"$W/broken.pat"
    st=0
    "$KGEN" build "$W/broken.pat" --arch opencl -o "$W/wavenet_layer" \
        2>"$W/broken.err" || st=$?
    [ $st -eq 2 ] || fail "a bad model: exit $st, wanted 2"
    grep -q 'broken.pat:3:5: error' "$W/broken.err" || fail "no located error"
    cmp -s "$W/before.h" "$W/wavenet_layer/fused.h" || fail "OUTDIR changed"
    st=0
    "$KGEN" build "$SRC/examples/wavenet_layer.pat" --arch sm_9x -o "$W/x" \
        2>/dev/null || st=$?
    [ $st -eq 2 ] || fail "a bad --arch: exit $st"
    [ ! -e "$W/x" ] || fail "a bad --arch wrote OUTDIR"
    ;;

sm_90)
    for m in wavenet_layer lynxnet2_block convnext_block encoder_layer; do
        echo "== $m (sm_90, default dims)"
        st=0
        "$KGEN" build "$SRC/examples/$m.pat" --arch sm_90 -o "$W/$m" \
            >"$W/$m.txt" 2>&1 || st=$?
        cat "$W/$m.txt"
        if [ $st -eq 3 ]; then
            echo "kgen has no NVRTC: skipped"
            exit 77
        fi
        [ $st -eq 0 ] || fail "build $m exit $st"
        nm "$W/$m/libfused.a" >"$W/$m.nm"
        grep -q " T ${m}_forward\$" "$W/$m.nm" || fail "$m: no ${m}_forward"
        grep -q " T ${m}_forward_v\$" "$W/$m.nm" || fail "$m: no forward_v"
        grep -q " T ${m}_workspace_size\$" "$W/$m.nm" || fail "no workspace"
        grep -q " T kgrt_fused_launch\$" "$W/$m.nm" || fail "no runtime"
        n=0
        for f in $(grep -o "^int ${m}_k[0-9]*_[a-z0-9_]*(" "$W/$m/fused.h" |
                   tr -d '(' | sed 's/^int //'); do
            grep -q " T $f\$" "$W/$m.nm" || fail "$m: launcher $f missing"
            n=$((n + 1))
        done
        [ $n -gt 0 ] || fail "$m: no launchers in fused.h"
        echo "$n launchers"
        grep -q 'CUBIN\|cubin' "$W/$m/fused.c" || fail "no CUBIN"
        # the untuned GEMMs of LYNXNet2 and ConvNeXt copy by TMA: each
        # kernel's tensor maps (A's and B's, K innermost) are in its table
        case $m in lynxnet2_block|convnext_block)
            grep -q '_tmaps\[\] = {' "$W/$m/fused.c" || fail "$m: no tensor maps"
            grep -q '_tmaps, *$' "$W/$m/fused.c" || fail "$m: a kernel without its maps" ;;
        esac
        # shellcheck disable=SC2086
        $CC -std=c11 $FLAGS -I"$W/$m" "$SRC/examples/fused_demo.c" \
            "$W/$m/libfused.a" $LIBS -o "$W/$m/demo" || fail "link .a"
        # shellcheck disable=SC2086
        $CC -std=c11 $FLAGS -I"$W/$m" "$SRC/examples/fused_demo.c" \
            -L"$W/$m" -lfused $LIBS -o "$W/$m/demo_so" || fail "link .so"
    done
    ;;

cmake)
    [ -n "$BUILD" ] || fail "cmake mode needs the build directory"
    cmake --install "$BUILD" --prefix "$W/inst" >/dev/null || fail "install"
    "$W/inst/bin/kgen" run "$SRC/examples/wavenet_layer.pat" --ref \
        --dim B=2 --dim C=16 --dim H=8 --dim T=37 --save "$W/wn.ref" \
        --layers 2 -q
    cmake -S "$SRC/tests/cmake_user" -B "$W/user" \
        -DCMAKE_PREFIX_PATH="$W/inst" -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_C_FLAGS="$FLAGS" -DCMAKE_EXE_LINKER_FLAGS="$FLAGS" \
        -DKGEN_MODEL="$SRC/examples/wavenet_layer.pat" -DKGEN_ARCH=opencl \
        -DKGEN_DIMS="B=2;C=16;H=8;T=37" >"$W/cfg.txt" 2>&1 ||
        { cat "$W/cfg.txt"; fail "configure the user project"; }
    cmake --build "$W/user" >"$W/bld.txt" 2>&1 ||
        { cat "$W/bld.txt"; fail "build the user project"; }
    grep -q 'kgen build' "$W/bld.txt" || fail "the custom command did not run"
    st=0
    "$W/user/demo" "$W/wn.ref" --reps 2 >"$W/user.out" 2>&1 || st=$?
    cat "$W/user.out"
    [ $st -ne 3 ] || exit 77
    [ $st -eq 0 ] || fail "user demo exit $st"
    grep -q '^check out .* ok$' "$W/user.out" || fail "user demo check"
    ;;
*)
    fail "unknown mode $MODE"
    ;;
esac
echo "build_examples $MODE: ok"

#!/usr/bin/env bash
# demo.sh -- the main job: install what is missing, build kgen (Release) in
# build/, show `kgen plan` for every example model in examples/, and check
# each plan with the double-precision reference interpreter (the fused plan
# must compute what the model computes; small dims keep this fast on a CPU).
# Then the whole path for the default example (a stack of WaveNet layers):
# kgen tune on the device (CUDA when `kgen devices` finds one, at inference
# shape; else OpenCL, PoCL on the CPU, at small dims), kgen build into
# build/demo/wavenet_layer, and examples/fused_demo.c linked with its
# libfused.a, which checks its outputs against the reference and prints its
# time per call.  Exits non-zero if the build, any plan or any check fails.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/deps.sh
jobs=$(nproc)

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DKGEN_WERROR=OFF \
      -DKGEN_SANITIZE=OFF
cmake --build build -j"$jobs"

shopt -s nullglob
examples=(examples/*.pat)
if [ ${#examples[@]} -eq 0 ]; then
    echo "demo.sh: no examples/*.pat to plan" >&2
    exit 1
fi

failed=0
for f in "${examples[@]}"; do
    echo
    echo "==> build/kgen plan $f"
    if ! build/kgen plan "$f"; then
        echo "demo.sh: kgen plan $f failed" >&2
        failed=$((failed + 1))
    fi
done

# Reduced dims per example for the reference check (the defaults are
# training-size shapes: hundreds of GFLOP in double on a CPU).
declare -A small=(
    [wavenet_layer]="--dim B=2 --dim C=32 --dim H=16 --dim T=61"
    [lynxnet2_block]="--dim B=2 --dim T=86 --dim C=32"
    [convnext_block]="--dim B=2 --dim C=32 --dim F=64 --dim T=48"
    [encoder_layer]="--dim B=2 --dim L=17 --dim C=48 --dim HD=24 --dim F=96"
)
for f in "${examples[@]}"; do
    name=$(basename "$f" .pat)
    dims=${small[$name]:-}
    echo
    echo "==> build/kgen run $f --ref --plan $dims"
    # shellcheck disable=SC2086
    if ! build/kgen run "$f" --ref --plan $dims; then
        echo "demo.sh: the fused plan of $f does not match the reference" >&2
        failed=$((failed + 1))
    fi
done

# tune, build and run the default example
demo=build/demo
mkdir -p "$demo"
libs="-lpthread -ldl -lm"
# grep without -q reads all of nm's output (no SIGPIPE under pipefail)
if nm build/libkgrt.a 2>/dev/null | grep ' U clGetPlatformIDs' >/dev/null; then
    libs="-lOpenCL $libs"
fi
if build/kgen devices 2>/dev/null | grep '^cuda *[0-9]' >/dev/null; then
    arch=$(build/kgen devices | awk '$1 == "cuda" { for (i = 1; i <= NF; i++)
        if ($i ~ /^sm_[0-9]+[af]?$/) { print $i; exit } }')
    dims="--dim B=1 --dim T=861"
else
    arch=opencl
    dims=${small[wavenet_layer]}
fi
db="$demo/tuning.sqlite"
echo
echo "==> build/kgen tune examples/wavenet_layer.pat --arch $arch $dims --budget 4"
# shellcheck disable=SC2086
build/kgen tune examples/wavenet_layer.pat --arch "$arch" $dims --db "$db" \
    --budget 4 -q || { echo "demo.sh: tune failed" >&2; failed=$((failed + 1)); }
echo
echo "==> build/kgen build examples/wavenet_layer.pat --arch $arch $dims -o $demo/wavenet_layer"
# shellcheck disable=SC2086
if build/kgen build examples/wavenet_layer.pat --arch "$arch" $dims --db "$db" \
       -o "$demo/wavenet_layer" &&
   build/kgen run examples/wavenet_layer.pat --ref $dims \
       --save "$demo/wavenet_layer.ref" --layers 4 &&
   cc -std=c11 -O2 -I"$demo/wavenet_layer" examples/fused_demo.c \
       "$demo/wavenet_layer/libfused.a" $libs -o "$demo/fused_demo"; then
    echo
    echo "==> $demo/fused_demo $demo/wavenet_layer.ref"
    "$demo/fused_demo" "$demo/wavenet_layer.ref" ||
        { echo "demo.sh: fused_demo failed" >&2; failed=$((failed + 1)); }
else
    echo "demo.sh: building the default example failed" >&2
    failed=$((failed + 1))
fi
echo
if [ "$failed" -ne 0 ]; then
    echo "demo.sh: $failed steps failed" >&2
    exit 1
fi
echo "demo.sh: planned and checked ${#examples[@]} examples; tuned, built" \
     "and ran wavenet_layer for $arch"


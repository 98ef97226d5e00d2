#!/usr/bin/env bash
# demo.sh -- the main job: install what is missing, build kgen (Release) in
# build/, show `kgen plan` for every example model in examples/, and check
# each plan with the double-precision reference interpreter (the fused plan
# must compute what the model computes; small dims keep this fast on a CPU).
# Exits non-zero if the build, any plan or any check fails.
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
echo
if [ "$failed" -ne 0 ]; then
    echo "demo.sh: $failed of ${#examples[@]} examples failed" >&2
    exit 1
fi
echo "demo.sh: planned and checked ${#examples[@]} examples"

#!/usr/bin/env bash
# demo.sh -- the main job: install what is missing, build kgen (Release) in
# build/, and show `kgen plan` for every example model in examples/.
# Exits non-zero if the build or any plan fails.
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
echo
if [ "$failed" -ne 0 ]; then
    echo "demo.sh: $failed of ${#examples[@]} examples failed" >&2
    exit 1
fi
echo "demo.sh: planned ${#examples[@]} examples"

#!/usr/bin/env bash
# test.sh -- the whole test suite, as CI runs it (.ci/run):
#   1. build/       warnings as errors; ctest
#   2. build-asan/  warnings as errors, ASan + UBSan (leaks detected); ctest
#   3. build-fuzz/  clang + libFuzzer; fuzz the parser and semantic checker
#                   for FUZZ_SECONDS (default 60) from the seed corpus
# Any failing step fails the script.  On 2 cores it takes a few minutes plus
# FUZZ_SECONDS.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/deps.sh
jobs=$(nproc)
fuzz_seconds=${FUZZ_SECONDS:-60}

step() { printf '\n=== %s\n' "$*"; }

step "build/: warnings as errors"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DKGEN_WERROR=ON \
      -DKGEN_SANITIZE=OFF
cmake --build build -j"$jobs"
ctest --test-dir build --output-on-failure -j"$jobs"

step "build-asan/: AddressSanitizer + UndefinedBehaviorSanitizer"
export ASAN_OPTIONS=detect_leaks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DKGEN_WERROR=ON \
      -DKGEN_SANITIZE=ON
cmake --build build-asan -j"$jobs"
# The kernels label (every template candidate on PoCL, NVRTC for two
# arches) checks generated code, not kgen's C: it runs once, above.
ctest --test-dir build-asan --output-on-failure -j"$jobs" -LE kernels

step "build-fuzz/: libFuzzer on parse + sema for ${fuzz_seconds}s"
CC=clang cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKGEN_FUZZ=ON -DKGEN_BUILD_TESTS=OFF
cmake --build build-fuzz -j"$jobs" --target fuzz_parse

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus" "$work/artifacts"
shopt -s nullglob
for f in tools/fuzz/corpus/* examples/*.pat tests/golden/*.pat tests/bad/*.pat; do
    [ -f "$f" ] && cp "$f" "$work/corpus/$(echo "$f" | tr / _)"
done
# A smaller ASan quarantine keeps the fuzzer's RSS well under -rss_limit_mb.
status=0
KGEN_SOURCE_DIR="$PWD" ASAN_OPTIONS=detect_leaks=1:quarantine_size_mb=64 \
build-fuzz/tools/fuzz/fuzz_parse \
    -max_total_time="$fuzz_seconds" -rss_limit_mb=512 -timeout=2 \
    -dict=tools/fuzz/pat.dict -artifact_prefix="$work/artifacts/" \
    -print_final_stats=1 "$work/corpus" || status=$?
artifacts=("$work"/artifacts/*)
if [ "$status" -ne 0 ] || [ ${#artifacts[@]} -ne 0 ]; then
    mkdir -p build-fuzz/artifacts
    cp "${artifacts[@]}" build-fuzz/artifacts/ 2>/dev/null || true
    echo "test.sh: the fuzzer failed (exit $status); inputs kept in" \
         "build-fuzz/artifacts/: ${artifacts[*]##*/}" >&2
    exit 1
fi

step "all tests passed"

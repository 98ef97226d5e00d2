#!/usr/bin/env bash
# deps.sh -- install the Debian packages kgen needs to build and test.
#
# Checks each package with dpkg-query and calls apt-get only when something
# is missing, so a second run is quiet and takes well under a second.  Runs
# as root, or through sudo when that exists.  On a system without dpkg it
# lists what to install and leaves it to you.  KGEN_SKIP_DEPS=1 skips it.
#
# Why each package: cmake/build-essential/pkg-config build kgen;
# liblua5.4-dev runs the kernel templates; libsqlite3-dev is the tuning
# cache; libcmocka-dev the unit tests; ocl-icd-opencl-dev + opencl-headers
# + pocl-opencl-icd (+ clinfo to look) give an OpenCL device on the CPU;
# clang + libclang-rt-14-dev (Debian 12's home of libclang_rt.fuzzer and
# the clang sanitizer runtimes) build the fuzzer; python3 runs tools/.
set -euo pipefail

packages=(
    cmake build-essential pkg-config
    liblua5.4-dev libsqlite3-dev libcmocka-dev
    ocl-icd-opencl-dev opencl-headers pocl-opencl-icd clinfo
    clang libclang-rt-14-dev
    python3
)

if [ "${KGEN_SKIP_DEPS:-0}" = 1 ]; then
    exit 0
fi

if ! command -v dpkg-query >/dev/null 2>&1; then
    echo "deps.sh: not a Debian system; make sure these (or your system's" \
         "equivalents) are installed: ${packages[*]}" >&2
    exit 0
fi

missing=()
for p in "${packages[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
    if [ "$status" != "install ok installed" ]; then
        missing+=("$p")
    fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
    as_root=()
elif command -v sudo >/dev/null 2>&1; then
    as_root=(sudo)
else
    echo "deps.sh: missing packages: ${missing[*]}" >&2
    echo "deps.sh: run as root (or install sudo) to install them" >&2
    exit 1
fi

echo "deps.sh: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"

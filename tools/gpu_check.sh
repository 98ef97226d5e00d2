#!/bin/sh
# gpu_check.sh -- kgen check with CUDA on the GPU machine (the device tool):
# every example at small dims (tile tails) and at its real channel sizes
# with a smaller batch and time (the double-precision reference runs on the
# CPU), and every model of tests/kernels/.  Build here first:
#   cmake -S . -B build-dev -DCMAKE_BUILD_TYPE=Release -DKGEN_STATIC_DEPS=ON \
#         -DKGEN_WITH_OPENCL=OFF -DKGEN_BUILD_TESTS=OFF
#   cmake --build build-dev -j
# then run this from the repository root there, with build-dev carried.
# Writes the log to ${OUT:-.}/gpu_check.log; exits non-zero on any failure.
set -u
arch=${ARCH:-sm_90}
kgen=${KGEN:-build-dev/kgen}
out=${OUT:-.}/gpu_check.log
configs=${CONFIGS:-4}
export KGEN_TEMPLATES="$PWD/templates" KGEN_PATTERNS="$PWD/patterns"
failed=0
run() {
    echo "\$ kgen check $*" >> "$out"
    "$kgen" check "$@" --arch "$arch" --configs "$configs" -q >> "$out" 2>&1
    rc=$?
    tail -n 1 "$out"
    [ $rc -eq 0 ] || failed=$((failed + 1))
}
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader;
  "$kgen" --version; "$kgen" devices; } > "$out" 2>&1
cat "$out"
run examples/wavenet_layer.pat --dim B=2 --dim C=16 --dim H=8 --dim T=37
run examples/wavenet_layer.pat --dim B=2 --dim T=256
run examples/lynxnet2_block.pat --dim B=2 --dim T=33 --dim C=16
run examples/lynxnet2_block.pat --dim B=2 --dim T=128
run examples/convnext_block.pat --dim B=2 --dim C=16 --dim F=24 --dim T=19
run examples/convnext_block.pat --dim B=2 --dim T=128
run examples/encoder_layer.pat --dim B=2 --dim L=9 --dim C=24 --dim HD=12 --dim F=32
run examples/encoder_layer.pat --dim B=4
for f in tests/kernels/*.pat; do run "$f"; done
echo "failed runs: $failed" | tee -a "$out"
[ "$failed" -eq 0 ]

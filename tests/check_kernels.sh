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
configs=${KGEN_CHECK_CONFIGS:-4}
case $mode in
    opencl) args="--arch opencl" ;;
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
echo "$((total - failed))/$total models pass kgen check ($mode)"
[ "$failed" -eq 0 ]

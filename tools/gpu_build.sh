#!/bin/sh
# tools/gpu_build.sh OUTDIR -- issue 5's checks on a CUDA machine (the H200
# through the device tool), with kgen built here for it:
#   cmake -S . -B build-dev -DCMAKE_BUILD_TYPE=Release -DKGEN_STATIC_DEPS=ON \
#         -DKGEN_WITH_OPENCL=OFF -DKGEN_BUILD_TESTS=OFF
#   cp build-dev/kgen build-dev/libkgrt.a build-dev-bin/
# For WaveNet and LYNXNet2 at inference shape (B=1, T=861, fp16): tune
# (BUDGET trials per kernel, default 4), build for sm_90, run
# examples/fused_demo.c as a stack of layers against the double reference,
# run tests/launcher_errors.c on CUDA, and load libfused.so from PyTorch with
# tools/fused_torch.py.  Logs go to OUTDIR.
set -u
out=$1
kgen=${KGEN:-$PWD/build-dev-bin/kgen}
w=$(mktemp -d)
export KGEN_TEMPLATES="$PWD/templates" KGEN_PATTERNS="$PWD/patterns" \
       KGEN_INCLUDE="$PWD/include"
mkdir -p "$out"
status=0
# every log ends up in OUTDIR/log.txt (the device tool returns few files)
trap 'for f in "$out"/*.txt; do [ "$f" = "$out/log.txt" ] || [ "$f" = "$out/summary.txt" ] || { echo "==> ${f##*/}"; cat "$f"; rm -f "$f"; }; done >>"$out/log.txt"' EXIT
note() { echo "$*" | tee -a "$out/summary.txt"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader \
    >>"$out/summary.txt" 2>&1
for m in wavenet_layer:3 lynxnet2_block:2; do
    name=${m%:*}
    layers=${m#*:}
    dims="--dim B=1 --dim T=861"
    t0=$(date +%s)
    # shellcheck disable=SC2086
    "$kgen" tune "examples/$name.pat" --arch sm_90 $dims --db "$w/tune.sqlite" \
        --budget "${BUDGET:-4}" -q >"$out/$name.tune.txt" 2>&1 ||
        note "$name: tune exit $?"
    # shellcheck disable=SC2086
    "$kgen" build "examples/$name.pat" --arch sm_90 $dims \
        --db "$w/tune.sqlite" -o "$w/$name" >"$out/$name.build.txt" 2>&1 ||
        { note "$name: build exit $?"; status=1; continue; }
    cp "$w/$name/provenance.txt" "$out/$name.provenance.txt"
    # shellcheck disable=SC2086
    "$kgen" run "examples/$name.pat" --ref $dims --save "$w/$name.ref" \
        --layers "$layers" -q || { note "$name: ref failed"; status=1; }
    cc -std=c11 -O2 -I"$w/$name" examples/fused_demo.c "$w/$name/libfused.a" \
        -lpthread -ldl -lm -o "$w/$name/demo" || { status=1; continue; }
    "$w/$name/demo" "$w/$name.ref" --reps 20 >"$out/$name.demo.txt" 2>&1 ||
        { note "$name: demo exit $?"; status=1; }
    note "$name: $(grep -c ' ok$' "$out/$name.demo.txt") outputs ok," \
         "$(grep -c MISMATCH "$out/$name.demo.txt") mismatches," \
         "$(($(date +%s) - t0)) s"
    python3 tools/fused_torch.py "$w/$name" "$name" --dim B=1 --dim T=861 \
        >"$out/$name.torch.txt" 2>&1 || { note "$name: torch exit $?"; status=1; }
done
# launcher error codes with real CUDA pointers
"$kgen" build examples/wavenet_layer.pat --arch sm_90 --dim B=2 --dim C=16 \
    --dim H=8 --dim T=37 -o "$w/small" -q >>"$out/errors.txt" 2>&1 &&
cc -std=c11 -I"$w/small" tests/launcher_errors.c "$w/small/libfused.a" \
    -lpthread -ldl -o "$w/le" && "$w/le" >>"$out/errors.txt" 2>&1 ||
    { note "launcher errors failed"; status=1; }
note "status $status"
rm -rf "$w"
exit $status

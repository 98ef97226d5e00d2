#!/bin/sh
# tools/gpu_check_sdpa.sh -- kgen check --arch sm_90 on a CUDA machine over
# every sdpa kernel of tests/kernels/ and of the encoder (f16, and f32 at
# the inference shape B=1, L=861), on templates/sdpa.lua's mma path only:
# f16/bf16 through m16n8k16, f32 through 3xTF32 m16n8k8; then the key
# splits over a cluster (SPLIT) at lengths where they apply.  The head dims
# (12 to 192), the masks, causal, and the partial tiles of L and S are the
# test models'.  Run from the repository root with build-dev-bin/kgen (see
# tools/gpu_build.sh); prints one summary line per kernel and exits non-zero
# if any candidate fails.
export KGEN_TEMPLATES=$PWD/templates KGEN_PATTERNS=$PWD/patterns KGEN_INCLUDE=$PWD/include
K=${KGEN:-build-dev-bin/kgen}
configs=${CONFIGS:-6}
failed=0
check() {
  out=$($K check "$@" --arch sm_90 --where path=mma --configs "$configs" -q 2>&1)
  rc=$?
  echo "$* : $(echo "$out" | tail -n 1)"
  if [ $rc -ne 0 ]; then echo "$out" | grep -v ' ok ' | head -20; failed=$((failed + 1)); fi
}
sdpa_kernels() {
  $K plan "$@" 2>/dev/null | awk '$2 ~ /^k[0-9]+_sdpa$/ { print $2 }'
}
for f in tests/kernels/sdpa_*.pat; do
  for k in $(sdpa_kernels "$f"); do check "$f" --kernel "$k"; done
done
enc=examples/encoder_layer.pat
for dims in "--dim B=2 --dim L=40 --dim C=48 --dim HD=24 --dim F=64" "--dim B=1 --dim L=861"; do
  for dt in f16 f32; do
    # shellcheck disable=SC2086
    for k in $(sdpa_kernels $enc $dims --dtype DT=$dt); do
      check $enc $dims --dtype DT=$dt --kernel "$k"
    done
  done
done
# split over the keys (SPLIT 2 and 4: a cluster combines them), where the
# constraints allow it: the encoder's keypad mask at L=200 (a partial key
# tile) and 861, causal and not at T=300 and head dims 64 and 192
for dt in f16 f32; do
  for L in 200 861; do check $enc --dim B=1 --dim L=$L --dtype DT=$dt --kernel k13_sdpa --where SPLIT=2,4; done
  for m in sdpa sdpa_causal; do
    for D in 64 192; do
      check tools/bench/$m.pat --dim B=1 --dim H=2 --dim T=300 --dim D=$D --dtype DT=$dt --where SPLIT=2,4
    done
  done
done
echo "failed: $failed"
[ "$failed" -eq 0 ]

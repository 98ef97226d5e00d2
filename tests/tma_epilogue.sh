#!/bin/sh
# tma_epilogue.sh KGEN SOURCE_DIR -- gemm's TMA store and load=panel
# (templates/gemm.lua, docs/templates.md): the kernels that may take them,
# the one that may not (a B that changes with the batch entry keeps no
# panel), the code each emits, and that it compiles for sm_90 with NVRTC
# (the rest of the test runs without; a kgen built without CUDA skips that
# step only).  Also ln=fold under sched=pp: only with load=panel (B's
# panel scaled by gamma once a block) and the register epilogue (not
# where N leaves runs of 8 unaligned), its pieces in the code.
set -u
kgen=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
fail() { echo "FAILED: $*"; failed=1; }
export KGEN_TEMPLATES="$src/templates" KGEN_PATTERNS="$src/patterns"
m=$work/tma_epi.pat
cat > "$m" <<'PAT'
model tma_epi
dim M = 200, K = 256, N = 320, Z = 3
dtype DT = f16

input  x  : DT[1, M, K]
weight w  : DT[N, K]
weight b  : DT[N]
input  a  : DT[Z, M, K]
input  bt : DT[Z, N, K]
weight g  : DT[K]
weight be : DT[K]
weight w3 : DT[33, K]
weight b3 : DT[33]

y1 = gelu(linear(x, w, b))
y2 = matmul(a, transpose(bt, 1, 2))
y3 = gelu(linear(layernorm(x, g, be, axis=-1), w, b))
y4 = gelu(linear(layernorm(x, g, be, axis=-1), w3, b3))
output y1, y2, y3, y4
PAT
kernels=$("$kgen" plan "$m" 2>&1 | awk '/ gemm /{print $2}')
gg=$(echo "$kernels" | grep '_gemm_gelu$' | grep -v ln_)
mm=$(echo "$kernels" | grep matmul)
ln=$(echo "$kernels" | grep ln_gemm_gelu | head -n 1)
ln33=$(echo "$kernels" | grep ln_gemm_gelu | sed -n 2p)
[ -n "$gg" ] && [ -n "$mm" ] && [ -n "$ln" ] && [ -n "$ln33" ] ||
    { echo "$kernels"; fail "plan: no gemm_gelu, matmul and two ln_gemm_gelu kernels"; exit 1; }

# configs of kernel $1 passing the constraints under the --where options after it
passing() {
    k=$1; shift
    "$kgen" space gemm "$m" --kernel "$k" --arch sm_90 "$@" 2>&1 |
        sed -n 's/.* on sm_90: \([0-9]*\) of .*/\1/p'
}
n=$(passing "$gg" --where load=panel)
[ "${n:-0}" -gt 0 ] || fail "space: no load=panel config for $gg (${n:-none})"
n=$(passing "$mm" --where load=panel)
[ "${n:-x}" = 0 ] || fail "space: $n load=panel configs for $mm, whose B changes with the batch entry"
n=$(passing "$mm" --where load=tma)
[ "${n:-0}" -gt 0 ] || fail "space: no load=tma config for $mm"
n=$(passing "$ln" --where ln=fold --where sched=pp)
[ "${n:-0}" -gt 0 ] || fail "space: no ln=fold config under sched=pp for $ln"
n=$(passing "$ln" --where ln=fold --where sched=pp --where load=tma,cp,mcast)
[ "${n:-x}" = 0 ] || fail "space: $n ln=fold configs under sched=pp without load=panel for $ln"
n=$(passing "$ln33" --where ln=fold --where sched=pp)
[ "${n:-x}" = 0 ] || fail "space: $n ln=fold configs under sched=pp for $ln33, whose 33 columns leave no register epilogue"
n=$(passing "$ln" --where ln=prepass --where sched=pp)
[ "${n:-x}" = 0 ] || fail "space: $n ln=prepass configs under sched=pp for $ln"

# the emitted code: the panel's barrier and the TMA store under panel; the
# store under tma (ws); neither under cp
gen() {
    rm -rf "$work/gen"
    "$kgen" gen "$m" --backend cuda --arch sm_90 -o "$work/gen" -q --kernel "$gg" "$@" ||
        fail "kgen gen $*"
    cat "$work/gen/$gg".*.cu 2>/dev/null
}
store='cp.async.bulk.tensor.2d.global.shared::cta.bulk_group'
out=$(gen --where load=panel --where sched=pp)
echo "$out" | grep -q 'gemm_bfull' || fail "load=panel: no B panel barrier in $gg"
echo "$out" | grep -qF "$store" || fail "load=panel: no TMA store in $gg"
out=$(gen --where load=tma --where sched=ws)
echo "$out" | grep -qF "$store" || fail "load=tma, sched=ws: no TMA store in $gg"
echo "$out" | grep -q 'gemm_bfull' && fail "load=tma: a B panel barrier in $gg"
out=$(gen --where load=cp --where sched=pp)
echo "$out" | grep -qF "$store" && fail "load=cp: a TMA store in $gg"

# ln=fold under pp: B's panel scaled once by both consumers behind their
# own barrier, the row sums from each landed A stage, the correction on the
# accumulators (two FMAs), the bias in the column sums, not the accumulators
rm -rf "$work/gen"
"$kgen" gen "$m" --backend cuda --arch sm_90 -o "$work/gen" -q --kernel "$ln" \
    --where ln=fold --where sched=pp || fail "kgen gen $ln ln=fold sched=pp"
out=$(cat "$work/gen/$ln".*.cu 2>/dev/null)
for p in 'kg_bar_sync(7, 2 * GEMM_NT);' 'gemm_cb[fj] = cb + (n < GEMM_N ?' 'f_q[u & 3] = fmaf(xv, xv, f_q[u & 3]);' \
         'gemm_fm[cw][fr_row] = rstd * mu;' 'fmaf(fr_r[mi][q >> 1], acc[mi][ni][q], fmaf(-fr_m[mi][q >> 1], fc_w[q & 1], fc_b[q & 1]))' \
         "$store"; do
    echo "$out" | grep -qF "$p" || fail "ln=fold, sched=pp: no '$p' in $ln"
done
echo "$out" | grep -q '= rc_b\[' && fail "ln=fold, sched=pp: the bias in the accumulators of $ln"

# and NVRTC compiles them
out=$("$kgen" check "$m" --arch sm_90 --compile-only --kernel "$gg" --where load=panel,tma \
      --where sched=pp,ws --configs 4 2>&1)
rc=$?
if [ $rc -eq 3 ]; then
    echo "kgen built without CUDA: the compile step skipped"
elif [ $rc -ne 0 ] || ! echo "$out" | grep -q ' 0 compile errors' ||
     echo "$out" | grep -q ' 0 candidates ok'; then
    echo "$out"; fail "kgen check --compile-only $gg"
fi
out=$("$kgen" check "$m" --arch sm_90 --compile-only --kernel "$ln" --where ln=fold --where sched=pp \
      --configs 3 2>&1)
rc=$?
if [ $rc -ne 3 ] && { [ $rc -ne 0 ] || ! echo "$out" | grep -q ' 0 compile errors' ||
                      echo "$out" | grep -q ' 0 candidates ok'; }; then
    echo "$out"; fail "kgen check --compile-only $ln ln=fold sched=pp"
fi
[ $failed -eq 0 ] && echo "tma_epilogue: ok"
exit $failed

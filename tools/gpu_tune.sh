#!/bin/sh
# tools/gpu_tune.sh OUTDIR MODEL.pat... -- `kgen tune --arch sm_90` over
# models at their default dims on a CUDA machine (the H200 through the device
# tool), one DB for all, a JSON summary and the wall time per model.
#   KGEN      the kgen binary (default build-dev-bin/kgen, built with
#             -DKGEN_STATIC_DEPS=ON so it runs without Lua/SQLite there)
#   STRATEGY  exhaustive|random|anneal (default: kgen's choice)
#   BUDGET    trials per kernel (default 30)
#   DB        the tuning DB (default OUTDIR/tune.sqlite)
set -u
out=$1
shift
kgen=${KGEN:-build-dev-bin/kgen}
db=${DB:-$out/tune.sqlite}
export KGEN_TEMPLATES="$PWD/templates" KGEN_PATTERNS="$PWD/patterns"
mkdir -p "$out"
strategy=${STRATEGY:+--strategy $STRATEGY}
for m in "$@"; do
    name=$(basename "$m" .pat)${STRATEGY:+-$STRATEGY}
    t0=$(date +%s.%N)
    # shellcheck disable=SC2086
    "$kgen" tune "$m" --arch sm_90 --db "$db" --budget "${BUDGET:-30}" \
        $strategy ${EXTRA:-} --json -q >"$out/$name.json" 2>"$out/$name.err"
    rc=$?
    t1=$(date +%s.%N)
    echo "$name rc=$rc seconds=$(python3 -c "print(round($t1 - $t0, 1))")" | tee -a "$out/summary.txt"
done
"$kgen" cache list --db "$db" >"$out/list.txt" 2>&1

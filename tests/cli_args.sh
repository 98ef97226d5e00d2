#!/bin/sh
# cli_args.sh KGEN SOURCE_DIR -- what the commands do with an output
# directory whose parents are missing, and with a --kernel that names no
# kernel of the plan.
#   gen -o a/b/c creates a/b (mkdir -p of the parent); a gen that fails
#   leaves no directory behind, not even the parents it made; -o under a
#   regular file is an error.
#   --kernel NAME that the plan lacks: gen, check, tune and space exit 2
#   and name the kernels there are (a typo used to succeed doing nothing);
#   space prints nothing before that error.
set -u
kgen=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
m=$src/examples/wavenet_layer.pat
fail() { echo "FAILED: $1"; failed=1; }

"$kgen" gen "$m" --backend opencl -o "$work/p/q/out" -q &&
    [ "$(ls "$work/p/q/out" | wc -l)" -eq 8 ] || fail "gen -o with missing parents"
"$kgen" gen "$m" --backend opencl --kernel k8_conv1d --where path=wgmma -o "$work/r/s/out" -q \
    >/dev/null 2>&1 && fail "gen of a config OpenCL lacks succeeded"
[ -e "$work/r" ] && fail "a failed gen left $work/r behind"
: > "$work/file"
"$kgen" gen "$m" --backend opencl -o "$work/file/out" -q >/dev/null 2>&1
[ $? -eq 2 ] || fail "gen -o under a regular file: exit 2"
[ "$(ls "$work" | wc -l)" -eq 2 ] || fail "stray files: $(ls "$work")"

for c in "gen --backend opencl -o $work/k" "check --arch opencl" \
         "tune --arch opencl --db $work/t.sqlite" "space gemm"; do
    # shellcheck disable=SC2086
    case $c in
        space*) err=$("$kgen" space gemm "$m" --kernel k8_conv 2>&1 >/dev/null) ;;
        *) err=$("$kgen" $c "$m" --kernel k8_conv 2>&1 >/dev/null) ;;
    esac
    rc=$?
    if [ $rc -ne 2 ] || ! echo "$err" | grep -q \
        "^kgen: error: --kernel k8_conv: wavenet_layer plans no such kernel (k0_linear, .*k8_conv1d"; then
        fail "${c%% *} --kernel k8_conv: exit $rc: $err"
    fi
done
# space plans the model before it prints anything: nothing on stdout
out=$("$kgen" space gemm "$m" --kernel k8_conv 2>/dev/null)
[ -z "$out" ] || fail "space --kernel k8_conv printed before its error: $out"
[ -e "$work/k" ] && fail "gen --kernel k8_conv wrote $work/k"
[ -e "$work/t.sqlite" ] && fail "tune --kernel k8_conv created its DB"
[ $failed -eq 0 ] && echo "ok   output parents, failed gen cleanup, unknown --kernel"
[ $failed -eq 0 ]

#!/bin/sh
# grid_dep.sh KGEN SOURCE_DIR -- the launch-overlap contract of the
# templates (docs/templates.md, kg.prelude): in every CUDA kernel kgen
# generates, for the examples and the kernel-test models, the body's first
# statement is KG_GRID_DEP(); (KG_NO_GRID_DEP(); for a persistent kernel,
# which the runtime must launch plainly), and sm_90's prelude defines it as
# griddepcontrol.wait.  The runtime launches such kernels with programmatic
# stream serialization (docs/build.md), so a kernel that touched memory
# before the wait would race the kernel before it.
set -u
kgen=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
kernels=0
plain=0
for f in "$src"/examples/*.pat "$src"/tests/kernels/*.pat; do
    n=$(basename "$f" .pat)
    if ! "$kgen" gen "$f" --backend cuda --arch sm_90 -o "$work/$n" -q; then
        echo "FAILED: kgen gen $n"; failed=1; continue
    fi
    for cu in "$work/$n"/*.cu; do
        # after each KG_KERNEL signature, the line after its opening brace
        out=$(awk '
            /^KG_KERNEL / { sig = 1; next }
            sig && /^\{$/ { sig = 0; body = 1; next }
            body { body = 0; n++
                   if ($0 == "  KG_NO_GRID_DEP();") { np++; next }
                   if ($0 != "  KG_GRID_DEP();") { print "bad: " $0; exit } }
            END { print "kernels " n + 0 " " np + 0 }' "$cu")
        case $out in
        bad:*) echo "FAILED: $cu: first statement is not KG_GRID_DEP(): ${out#bad: }"
               failed=1 ;;
        "kernels 0 0") echo "FAILED: $cu: no kernel found"; failed=1 ;;
        *) set -- ${out#kernels }
           kernels=$((kernels + $1)); plain=$((plain + $2))
           # a persistent kernel (KG_NO_GRID_DEP) is gemm's sched=pp alone
           if [ "$2" -gt 0 ] && ! grep -q 'GEMM_PB' "$cu"; then
               echo "FAILED: $cu: KG_NO_GRID_DEP in a kernel that is not persistent"
               failed=1
           fi ;;
        esac
        if ! grep -q 'griddepcontrol.wait' "$cu"; then
            echo "FAILED: $cu: the prelude has no griddepcontrol.wait"; failed=1
        fi
    done
done
echo "$kernels kernels start with KG_GRID_DEP() or, $plain of them persistent, KG_NO_GRID_DEP()"
[ "$failed" -eq 0 ] && [ "$kernels" -gt 0 ]

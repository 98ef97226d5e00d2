#!/bin/sh
# grid_dep.sh KGEN SOURCE_DIR -- the launch-overlap contract of the
# templates (docs/templates.md, kg.prelude): in every CUDA kernel kgen
# generates, for the examples and the kernel-test models, the body's first
# statement is KG_GRID_DEP();, and sm_90's prelude defines it as
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
            body { body = 0; n++; if ($0 != "  KG_GRID_DEP();") { print "bad: " $0; exit } }
            END { print "kernels " n + 0 }' "$cu")
        case $out in
        bad:*) echo "FAILED: $cu: first statement is not KG_GRID_DEP(): ${out#bad: }"
               failed=1 ;;
        "kernels 0") echo "FAILED: $cu: no kernel found"; failed=1 ;;
        *) kernels=$((kernels + ${out#kernels })) ;;
        esac
        if ! grep -q 'griddepcontrol.wait' "$cu"; then
            echo "FAILED: $cu: the prelude has no griddepcontrol.wait"; failed=1
        fi
    done
done
echo "$kernels kernels start with KG_GRID_DEP()"
[ "$failed" -eq 0 ] && [ "$kernels" -gt 0 ]

#!/bin/sh
# gen_determinism.sh KGEN SOURCE_DIR -- kgen gen writes byte-identical
# sources in two separate processes (Lua's string hashing is seeded per
# process; RELIABILITY B5), for every example and both backends.
set -u
kgen=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
for f in "$src"/examples/*.pat; do
    for b in cuda opencl; do
        n=$(basename "$f" .pat)
        "$kgen" gen "$f" --backend "$b" -o "$work/$n-$b-1" -q || failed=1
        "$kgen" gen "$f" --backend "$b" -o "$work/$n-$b-2" -q || failed=1
        if ! diff -r "$work/$n-$b-1" "$work/$n-$b-2" > /dev/null; then
            echo "FAILED: $n $b differs between runs"; failed=1
        else
            echo "ok   $n $b: $(ls "$work/$n-$b-1" | wc -l) files, identical"
        fi
    done
done
[ "$failed" -eq 0 ]

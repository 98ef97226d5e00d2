#!/bin/sh
# plan_examples.sh KGEN SOURCE_DIR -- run `KGEN plan` on every
# SOURCE_DIR/examples/*.pat; fail if any of them fails.  Exits 77 (CTest:
# skipped) when there is no example to plan.
set -u
if [ $# -ne 2 ]; then
    echo "usage: $0 KGEN SOURCE_DIR" >&2
    exit 2
fi
kgen=$1
src=$2
found=0
failed=0
for f in "$src"/examples/*.pat; do
    [ -f "$f" ] || continue
    found=$((found + 1))
    echo "== kgen plan ${f#"$src"/}"
    if ! "$kgen" plan "$f"; then
        echo "FAILED: kgen plan $f" >&2
        failed=$((failed + 1))
    fi
done
if [ "$found" -eq 0 ]; then
    echo "no examples/*.pat under $src: nothing to plan" >&2
    exit 77
fi
echo "$((found - failed))/$found examples planned"
[ "$failed" -eq 0 ]

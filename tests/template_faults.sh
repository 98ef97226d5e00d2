#!/bin/sh
# template_faults.sh KGEN SOURCE_DIR -- templates that fail in every way get
# a located error and never crash kgen (RELIABILITY.md B1-B3, B6).  Each
# case replaces elementwise.lua in a copy of the templates directory.
set -u
kgen=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/m.pat" <<'PAT'
model m
dim N = 37
input x : f32[N]
y = exp(x) * 2
output y
PAT
failed=0
# run NAME EXPECTED_TEXT COMMAND...: kgen must exit 1 or 2 (not crash) and
# print EXPECTED_TEXT
run() {
    name=$1 want=$2
    shift 2
    out=$("$@" 2>&1)
    rc=$?
    if [ $rc -ne 1 ] && [ $rc -ne 2 ]; then
        echo "FAILED $name: exit $rc"; echo "$out"; failed=$((failed + 1)); return
    fi
    if ! printf '%s' "$out" | grep -q -- "$want"; then
        echo "FAILED $name: no '$want' in:"; echo "$out"; failed=$((failed + 1)); return
    fi
    echo "ok   $name"
}
fault() {
    mkdir -p "$work/$1"
    cp "$src/templates/lib.lua" "$work/$1/"
    sed "$2" "$src/templates/elementwise.lua" > "$work/$1/elementwise.lua"
}
# B6: generated code that does not compile: the log points into the template
fault compile 's|long base = KG_BID(0)|long base = KG_BID(0) +* |'
run compile_opencl "FAIL compile" "$kgen" check "$work/m.pat" --arch opencl --templates "$work/compile" --configs 1
run compile_opencl_line "templates/elementwise.lua:" "$kgen" check "$work/m.pat" --arch opencl --templates "$work/compile" --configs 1
if "$kgen" devices | grep -q "^cuda.*compile" || true; then
    out=$("$kgen" check "$work/m.pat" --arch sm_90 --compile-only --templates "$work/compile" --configs 1 2>&1)
    rc=$?
    if [ $rc -ne 3 ]; then   # 3: built without CUDA
        run compile_cuda "templates/elementwise.lua:" "$kgen" check "$work/m.pat" --arch sm_90 --compile-only --templates "$work/compile" --configs 1
    fi
fi
# B1: a runtime error in emit, with the template line and the context
fault error 's|^function T.emit(spec, design)|function T.emit(spec, design)\n  local t = nil; local z = t.field|'
run error_gen "templates/elementwise.lua:[0-9]*: attempt to index" "$kgen" gen "$work/m.pat" --backend opencl -o "$work/out" --templates "$work/error"
run error_context "expanding .*m.pat:4:5" "$kgen" gen "$work/m.pat" --backend opencl -o "$work/out" --templates "$work/error"
[ -e "$work/out" ] && { echo "FAILED error_nothing_written: $work/out exists"; failed=$((failed + 1)); }
# B2: an endless loop, also one that catches its own timeout
fault loop 's|^function T.emit(spec, design)|function T.emit(spec, design)\n  while true do pcall(function() while true do end end) end|'
run loop "time budget" "$kgen" gen "$work/m.pat" --backend opencl -o "$work/out" --templates "$work/loop"
# B3: a memory bomb
fault memory 's|^function T.emit(spec, design)|function T.emit(spec, design)\n  local t = {} for i = 1, 1e9 do t[i] = string.rep("x", 1000000) .. i end|'
run memory "256 MiB" "$kgen" gen "$work/m.pat" --backend opencl -o "$work/out" --templates "$work/memory"
# a template that declines the kernel
fault declines 's|^function T.supports(spec)|function T.supports(spec)\n  do return false, "no thanks" end|'
run declines "no thanks" "$kgen" gen "$work/m.pat" --backend opencl -o "$work/out" --templates "$work/declines"
# an escape attempt fails inside the sandbox
fault escape 's|^function T.emit(spec, design)|function T.emit(spec, design)\n  os.execute("touch /tmp/kgen-escaped")|'
run escape "attempt to index a nil value (global 'os')" "$kgen" gen "$work/m.pat" --backend opencl -o "$work/out" --templates "$work/escape"
[ "$failed" -eq 0 ] && echo "all template faults handled"
[ "$failed" -eq 0 ]

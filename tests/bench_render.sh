#!/bin/sh
# bench_render.sh SOURCE_DIR -- tools/bench/bench.py render, which needs no
# GPU and no PyTorch: a speed-up is cut to two decimals, never rounded up to
# a target (1.4956x prints 1.49x, an exact 1.5x prints 1.50x), the
# newest result of a workload on the device wins, and the SM clocks
# sampled while a row was timed follow the table.
set -u
src=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/old" "$work/new"
row() { # dir file workload date kgen compile
    cat > "$1/$2.json" <<JSON
{"workload": "$3", "device": "GPU X", "torch": "t", "date": "$4", "flops": 1000000000,
 "bytes": 1000000, "dtype": "f16", "tune_rc": 0, "provenance": "",
 "check": [{"output": "out", "rel_l2": 0.0002, "max_abs": 0.0004, "tol": 0.01, "ok": true}],
 "ms": {"kgen": $5, "eager": 1.0, "compile": $6}}
JSON
}
row "$work/old" a "block A" "2026-01-01 00:00 UTC" 0.3 0.6
row "$work/new" a "block A" "2026-01-02 00:00 UTC" 0.3995 0.5975
row "$work/new" b "block B" "2026-01-02 00:00 UTC" 0.4 0.6
cat > "$work/new/c.json" <<JSON
{"workload": "block C", "device": "GPU X", "torch": "t", "date": "2026-01-02 00:00 UTC",
 "flops": 1000000000, "bytes": 1000000, "dtype": "f16", "tune_rc": 0, "provenance": "",
 "check": [{"output": "out", "rel_l2": 0.0002, "max_abs": 0.0004, "tol": 0.01, "ok": true}],
 "ms": {"kgen": 0.4, "eager": 1.0, "compile": 0.6}, "settle_s": 1,
 "clocks": {"kgen": [{"mhz": 1405, "mhz_min": 1350, "w_max": 700, "reasons": "0x4", "samples": 3},
                     {"mhz": 1410, "mhz_min": 1400, "w_max": 700, "reasons": "0x4", "samples": 3}],
            "eager": [null, null],
            "compile": [{"mhz": 1755, "mhz_min": 1700, "w_max": 690, "reasons": "0x4", "samples": 4},
                        {"mhz": 1740, "mhz_min": 1700, "w_max": 690, "reasons": "0x4", "samples": 4}]}}
JSON
echo '{"variants": {}, "check": {}}' > "$work/new/not_a_row.json"   # an experiment's JSON beside the rows
out=$(python3 "$src/tools/bench/bench.py" render "$work/old" "$work/new" --device "GPU X") ||
    { echo "FAILED: render exited $?"; exit 1; }
failed=0
expect() { # pattern what
    if ! echo "$out" | grep -q "$1"; then echo "FAILED: $2"; failed=1; fi
}
expect '^| block A .* 1\.49x (compile) ' "1.4956x must print as 1.49x"
expect '^| block B .* 1\.50x (compile) ' "an exact 1.5x must print as 1.50x"
expect 'block C: kgen 1405/1410, compile 1755/1740 (settle 1 s)' \
    "a row's clocks (kgen's and its best peer's, each round) under the table"
if echo "$out" | grep -q 'block [AB]: kgen'; then
    echo "FAILED: clocks printed for a row that has none"; failed=1
fi
if echo "$out" | grep -q '2\.00x'; then echo "FAILED: the older result of block A was kept"; failed=1; fi
[ "$failed" -eq 0 ] && echo "ok: bench render"
[ "$failed" -eq 0 ]

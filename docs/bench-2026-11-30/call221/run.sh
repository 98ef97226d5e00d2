#!/bin/bash
# call 221 (session 44, 2026-11-30): dwconv_ln's pipe with a ring of NW
# windows (NW = 3: two tiles in flight while one is computed), and
# slack.patch (call 220) applied to templates/gemm.lua.  First the
# checks of every pipe candidate at a ragged length and at the block's
# dims, then every pipe config timed by the tuner (exhaustive), then the
# ConvNeXt block by bench.py on that DB.
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns KGEN_TEMPLATES=$PWD/templates
K=build-dev-bin/kgen
Y=examples/convnext_block.pat
U="--unfuse k2_ln_gemm_gelu --kernel k0_dwconv_ln"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
{
  timeout 120 $K check $Y --dim B=2 --dim T=200 $U --arch sm_90 --where load=pipe --configs 40 2>&1 | grep -v " ok " | tail -3
  timeout 120 $K check $Y $U --arch sm_90 --where load=pipe --where NW=3 --configs 6 2>&1 | tail -8
} | tee $OUT/checks.txt
echo "checks at ${SECONDS}s"
DB=/tmp/t.sqlite
[ -f build-dev-bin/tune.sqlite ] && cp build-dev-bin/tune.sqlite $DB
timeout 150 $K tune $Y $U --arch sm_90 --db $DB --where load=pipe --where xred=shfl --strategy exhaustive \
  --budget 100 -q > $OUT/tune_dl.txt 2>&1
python3 - $DB <<'PY' | tee $OUT/dl_trials.txt
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
for c, m, s in db.execute("select config, median_ms, status from trials where template = 'dwconv_ln' "
                          "and run_id = (select max(run_id) from trials where template = 'dwconv_ln') order by median_ms"):
    print(f"{m if m is None else round(m, 4)}  {s}  {c}")
PY
echo "dwconv_ln tuned at ${SECONDS}s"
timeout $((560 - SECONDS)) python3 tools/bench/bench.py measure --kgen $K --out $OUT/a --db $DB \
  --workloads convnext_block_default --budget 6 --tune-timeout 300 --no-max-autotune 2>&1 | tail -2
cp $DB $OUT/tune.sqlite
echo "done at ${SECONDS}s"

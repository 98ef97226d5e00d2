#!/bin/bash
# next45 (written in session 44, run as call 225 in session 45): where the blocks' spread comes
# from (attempt 42: the same kernels and configs drew 1.29x to 1.51x).  On
# whatever machine the call gets: the GPU's clocks, power, temperature and
# throttle reasons sampled every 200 ms into $OUT/smi.csv throughout;
# every kernel tuned on this machine into a fresh DB, then both blocks
# timed in turn over five rounds.  Compare the tuned medians with the
# carried DB's (build-dev-bin/tune.sqlite, tuned elsewhere) kernel by
# kernel, and the rounds' times with the clocks sampled beside them.
# Expect about 8 minutes; ConvNeXt alone (--workloads convnext_block_default)
# if the first call runs out.
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns KGEN_TEMPLATES=$PWD/templates
K=build-dev-bin/kgen
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active \
  --format=csv -lms 200 > $OUT/smi.csv &
SMI=$!
timeout 540 python3 tools/bench/bench.py measure --kgen $K --out $OUT/a --db /tmp/fresh.sqlite \
  --workloads convnext_block_default,lynxnet2_block_default --budget 6 --tune-timeout 300 \
  --no-max-autotune --rounds 5 2>&1 | tail -2
kill $SMI
rm -rf $OUT/a/*/
cp /tmp/fresh.sqlite $OUT/tune.sqlite
python3 - build-dev-bin/tune.sqlite /tmp/fresh.sqlite <<'PY'
import sqlite3, sys
def winners(f):
    db = sqlite3.connect(f)
    q = ("select k.op, k.shape, w.config, w.median_ms from winners w "
         "join kernels k on k.id = w.kernel_id")
    return {(o, s): (c, m) for o, s, c, m in db.execute(q)}
old, new = winners(sys.argv[1]), winners(sys.argv[2])
for key in sorted(new):
    c, m = new[key]
    oc, om = old.get(key, ("-", None))
    print(key[0], key[1], "| here", round(m, 4), c, "| carried", om and round(om, 4), "" if oc == c else oc)
PY
echo "done at ${SECONDS}s"

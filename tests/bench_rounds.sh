#!/bin/sh
# bench_rounds.sh SOURCE_DIR -- tools/bench/bench.py's in_turn, which times
# the contenders of a workload (kgen, eager, torch.compile, ...) in turn,
# --rounds times over, with a fake timer in place of triton's do_bench (no
# GPU, no PyTorch): the contenders alternate, each is timed once a round,
# and each figure is the median of its own rounds.
set -u
src=$1
python3 - "$src/tools/bench" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import bench

order = []
clock = iter([5.0, 1.0, 9.0, 4.0, 2.0, 8.0, 6.0, 3.0, 7.0])


def fake(fn):
    order.append(fn())
    return next(clock)


runs = [("kgen", lambda: "k"), ("eager", lambda: "e"), ("compile", lambda: "c")]
ms, rounds = bench.in_turn(runs, 3, bench=fake)
bad = []
if "".join(order) != "keckeckec":
    bad.append("order " + "".join(order))
if rounds != {"kgen": [5.0, 4.0, 6.0], "eager": [1.0, 2.0, 3.0], "compile": [9.0, 8.0, 7.0]}:
    bad.append("rounds %r" % rounds)
if ms != {"kgen": 5.0, "eager": 2.0, "compile": 8.0}:
    bad.append("medians %r" % ms)
ms1, _ = bench.in_turn(runs, 1, bench=lambda fn: 0.5)
if ms1 != {"kgen": 0.5, "eager": 0.5, "compile": 0.5}:
    bad.append("one round %r" % ms1)
if bad:
    print("FAILED: bench rounds: " + "; ".join(bad))
    sys.exit(1)
print("ok: bench rounds")
PY

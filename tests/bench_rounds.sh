#!/bin/sh
# bench_rounds.sh SOURCE_DIR -- tools/bench/bench.py's in_turn, which times
# the contenders of a workload (kgen, eager, torch.compile, ...) in turn,
# --rounds times over, with a fake timer in place of triton's do_bench (no
# GPU, no PyTorch): the contenders alternate, each is timed once a round,
# and each figure is the median of its own rounds; --settle runs each
# contender just before its timing; nvidia-smi's samples are parsed and
# each timing gets the clocks of the samples taken during it.
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
# --settle: each contender run just before its own timing; the windows
# name each timing in order
seen, windows = [], []
bench.in_turn(runs, 2, bench=lambda fn: seen.append("t" + fn()) or 1.0,
              settle=lambda fn: seen.append("s" + fn()), windows=windows)
if seen != ["sk", "tk", "se", "te", "sc", "tc"] * 2:
    bad.append("settle order %r" % seen)
if [(w[0], w[1]) for w in windows] != [(l, i) for i in range(2)
                                       for l in ("kgen", "eager", "compile")]:
    bad.append("windows %r" % windows)
if any(w[2] > w[3] for w in windows):
    bad.append("window ends before it starts %r" % windows)

# nvidia-smi's samples, and the ones a timing's window holds
a = bench.smi_sample("2026/11/30 05:11:26.003, 1275, 657.20, 0x0000000000000004")
b = bench.smi_sample("2026/11/30 05:11:26.203, 1890, 689.62, 0x0000000000000000")
c = bench.smi_sample("2026/11/30 05:11:27.805, 1980, 343.20, 0x0000000000000000")
if not a or abs(b[0] - a[0] - 0.2) > 1e-6 or a[1:] != (1275.0, 657.2, 4):
    bad.append("smi sample %r %r" % (a, b))
if bench.smi_sample("[N/A], 1980, 80, 0x0") is not None or \
        bench.smi_sample("timestamp, clocks.sm") is not None:
    bad.append("a malformed nvidia-smi line read as a sample")
st = bench.clock_stats([a, b, c], a[0], b[0] + 0.1)
if st != {"mhz": 1582, "mhz_min": 1275, "w_max": 690, "reasons": "0x4",
          "samples": 2}:
    bad.append("clock stats %r" % st)
if bench.clock_stats([a, b, c], c[0] + 1, c[0] + 2) is not None:
    bad.append("clock stats of an empty window")
txt = bench.clocks_text({"clocks": {"kgen": [st, None], "eager": [None]}})
if txt != "SM clock while timed: kgen 1582 MHz, 690 W max, power-capped in 1 of 1":
    bad.append("clocks text %r" % txt)
if bad:
    print("FAILED: bench rounds: " + "; ".join(bad))
    sys.exit(1)
print("ok: bench rounds")
PY

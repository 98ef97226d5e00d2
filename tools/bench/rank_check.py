#!/usr/bin/env python3
"""How well a template's rank() orders the configs a tuning DB measured.

    rank_check.py --db DB --op OP [--kgen KGEN] -- MODEL.pat --kernel K [kgen space options]

OP is the kernel's op as `kgen cache list` prints it (e.g.
gemm/conv1x1_residual#bc4c6cd81f970ed1). Takes the template hash with the
most trials of OP, the fastest ok median of each config, and `kgen space
TEMPLATE MODEL --rank` for the estimate of each; prints the Spearman
correlation and, per design point, the measured time of its best-ranked
config against the best measured (what the tuner's first batch would find).
"""
import argparse, re, sqlite3, subprocess, sys


def ranks(xs):
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    r = [0] * len(xs)
    for k, i in enumerate(order):
        r[i] = k
    return r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--db", required=True)
    ap.add_argument("--op", required=True)
    ap.add_argument("--kgen", default="kgen")
    ap.add_argument("--where", default="", help="keep configs containing this text (e.g. path=wgmma)")
    ap.add_argument("space", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    args = [x for x in a.space if x != "--"]
    db = sqlite3.connect(a.db)
    row = db.execute("SELECT t.template_hash FROM trials t JOIN kernels k ON k.id = t.kernel_id "
                     "WHERE k.op = ? GROUP BY t.template_hash ORDER BY count(*) DESC LIMIT 1",
                     (a.op,)).fetchone()
    if not row:
        sys.exit("no trials of %s in %s" % (a.op, a.db))
    norm = lambda c: " ".join(sorted(c.split()))
    meas = {}
    for cfg, ms in db.execute(
            "SELECT t.config, min(t.median_ms) FROM trials t JOIN kernels k ON k.id = t.kernel_id "
            "WHERE k.op = ? AND t.template_hash = ? AND t.status = 'ok' GROUP BY t.config",
            (a.op, row[0])):
        if a.where in cfg:
            meas[norm(cfg)] = ms
    template = a.op.split("/")[0]
    out = subprocess.run([a.kgen, "space", template] + args + ["--rank", "100000"],
                         capture_output=True, text=True, check=True).stdout
    cost = {}
    for line in out.splitlines():
        m = re.match(r"\s+\d+\s+([0-9.e+]+)\s+(\S+=.*)$", line)
        if m:
            cost[norm(m.group(2))] = float(m.group(1))
    both = [(cost[c], meas[c], c) for c in meas if c in cost]
    if len(both) < 3:
        sys.exit("only %d measured configs have an estimate" % len(both))
    rc, rm = ranks([b[0] for b in both]), ranks([b[1] for b in both])
    n = len(both)
    rho = 1 - 6 * sum((x - y) ** 2 for x, y in zip(rc, rm)) / (n * (n * n - 1))
    print("%s: %d configs measured, Spearman %.2f" % (a.op, n, rho))
    points = {}
    for c, m, cfg in both:
        key = " ".join(w for w in cfg.split() if re.match(r"\S+=[a-z]", w))
        points.setdefault(key, []).append((c, m))
    for key, g in sorted(points.items()):
        top = min(g)[1]
        best = min(x[1] for x in g)
        print("  %-48s %3d measured  best-ranked %.4f ms  best %.4f ms  (%.2fx)" %
              (key, len(g), top, best, top / best))


if __name__ == "__main__":
    main()

# summarise an ncu --page source --csv --print-source sass file: the columns,
# the totals of each numeric column, and the top instructions by samples
import csv, sys, re
rows = list(csv.reader(open(sys.argv[1], errors="replace")))
hi = next(i for i, r in enumerate(rows) if any("Source" == c or "Source" in c for c in r) and len(r) > 5)
hdr = rows[hi]; body = [r for r in rows[hi + 1:] if len(r) == len(hdr)]
print("# columns:", hdr)
def num(s):
    try: return float(s.replace(",", ""))
    except: return None
samp = next((i for i, c in enumerate(hdr) if "Sampling (All" in c), None)
src = next(i for i, c in enumerate(hdr) if c == "Source" or "Source" in c)
ex = next((i for i, c in enumerate(hdr) if c.startswith("Instructions Executed")), None)
tot = {}
for r in body:
    for i, c in enumerate(hdr):
        v = num(r[i])
        if v is not None: tot[c] = tot.get(c, 0) + v
print("# totals:")
for c, v in tot.items():
    if v: print("  %-60s %g" % (c, v))
stallc = [i for i, c in enumerate(hdr) if c.lower().startswith("stall") or "(Not Issued)" in c]
print("# index samples executed source | stalls")
for n, r in enumerate(body):
    r.append(str(n))
top = sorted(body, key=lambda r: -(num(r[samp]) or 0))[:int(sys.argv[2]) if len(sys.argv) > 2 else 60]
for r in sorted(top, key=lambda r: int(r[-1])):
    st = sorted(((num(r[i]) or 0, hdr[i]) for i in stallc), reverse=True)[:3]
    print("%5s %6s %8s %-60s %s" % (r[-1], r[samp], r[ex] if ex is not None else "", r[src][:60],
          " ".join("%s=%g" % (re.sub(r"[^a-z_]", "", h.lower())[:14], v) for v, h in st if v)))

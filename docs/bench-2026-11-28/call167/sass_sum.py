import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
n = int(sys.argv[2]) if len(sys.argv) > 2 else 60
hdr = None
for i, r in enumerate(rows):
    if 'Source' in r and any('Stall' in c for c in r):
        hdr = i; break
if hdr is None:
    print("no header"); print(rows[:5]); sys.exit()
h = rows[hdr]
src = h.index('Source')
cols = [i for i, c in enumerate(h) if c.startswith('Warp Stall Sampling (All')]
ex = [i for i, c in enumerate(h) if c.startswith('Instructions Executed')]
data = []
for r in rows[hdr + 1:]:
    if len(r) <= max(cols + [src]): continue
    try: s = float(r[cols[0]].replace(',', '') or 0)
    except ValueError: continue
    e = r[ex[0]] if ex else ''
    data.append((s, r[0], r[src], e))
tot = sum(d[0] for d in data)
print("total stall samples", tot, "instructions", len(data))
for s, a, t, e in sorted(data, reverse=True)[:n]:
    print(f"{s:8.0f} {100*s/tot:5.1f}% {a:>6} exec={e:>8} {t}")

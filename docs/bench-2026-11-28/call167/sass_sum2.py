import csv, sys, collections
rows = list(csv.reader(open(sys.argv[1])))
hdr = next(i for i, r in enumerate(rows) if 'Source' in r and any('Stall' in c for c in r))
h = rows[hdr]
src = h.index('Source')
stall = [(i, c) for i, c in enumerate(h) if c.startswith('stall_') or ('Warp Stall Sampling' in c)]
print("columns:", [c for _, c in stall][:40])
tot = collections.Counter()
for r in rows[hdr + 1:]:
    if len(r) < len(h): continue
    for i, c in stall:
        try: tot[c] += float(r[i].replace(',', '') or 0)
        except ValueError: pass
for c, v in tot.most_common(40): print(f"{v:10.0f} {c}")

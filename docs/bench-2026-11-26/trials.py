import sqlite3, sys
db, op, shape = sys.argv[1], sys.argv[2], sys.argv[3]
c = sqlite3.connect(db)
for r in c.execute("select k.op, k.dtype, t.config, round(t.median_ms,4), t.status from trials t join kernels k on k.id=t.kernel_id where k.op like ? and k.shape like ? order by k.op, k.dtype, t.median_ms", (op, shape)):
    print(*r)

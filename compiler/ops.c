/*
 * ops.c -- the op table of ops.def, with each signature string parsed once
 * into Param records, and the dtype table.
 *
 * Signatures are data so that argument binding, "unknown attribute" and
 * arity diagnostics, defaults and axis normalisation are one generic piece
 * of code in sema.c rather than a switch per op.
 */
#include "kgen.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name;
    OpClass cls;
    int nres;
    unsigned flags;
    const char *sig;
} raw_ops[] = {
#define OP(ID, NAME, CLASS, NRES, FLAGS, SIG) {NAME, CLASS, NRES, FLAGS, SIG},
#include "ops.def"
};

static OpInfo infos[OP_COUNT];
static bool ready;

/* "name:kind[=default]" -> Param.  The table is ours, so a malformed entry
 * is a kgen bug. */
static void parse_param(Param *p, const char *s, size_t n, const char *op)
{
    static char pool[4096];
    static size_t used;
    const char *colon = memchr(s, ':', n);
    if (!colon)
        die("ops.def: %s: parameter without kind", op);
    size_t nl = (size_t)(colon - s);
    if (used + nl + 1 > sizeof pool)
        die("ops.def: name pool full");
    memcpy(pool + used, s, nl);
    pool[used + nl] = 0;
    p->name = pool + used;
    used += nl + 1;
    const char *k = colon + 1, *end = s + n;
    const char *eq = memchr(k, '=', (size_t)(end - k));
    const char *kend = eq ? eq : end;
    char kind[4] = {0};
    if (kend - k > 2)
        die("ops.def: %s: bad kind", op);
    memcpy(kind, k, (size_t)(kend - k));
    bool q = kind[1] == '?';
    switch (kind[0]) {
    case 'T': p->kind = kind[1] == '*' ? P_TENSOR_LIST : q ? P_OPT_TENSOR : P_TENSOR; break;
    case 'i': p->kind = P_INT; break;
    case 'a': p->kind = P_AXIS; break;
    case 'f': p->kind = P_FLOAT; break;
    case 'b': p->kind = P_BOOL; break;
    case 's': p->kind = P_STR; break;
    case 'd': p->kind = P_DTYPE; break;
    case 'I': p->kind = P_INTS; break;
    default: die("ops.def: %s: unknown kind '%s'", op, kind);
    }
    p->optional = q;
    p->def.hole = -1;
    if (!eq)
        return;
    p->optional = p->has_default = true;
    char v[64] = {0};
    size_t vl = (size_t)(end - eq - 1);
    if (vl >= sizeof v)
        die("ops.def: default too long");
    memcpy(v, eq + 1, vl);
    switch (p->kind) {
    case P_INT: case P_AXIS:
        p->def.kind = A_INT; p->def.i = strtoll(v, NULL, 10); break;
    case P_FLOAT:
        p->def.kind = A_FLOAT; p->def.f = strtod(v, NULL); break;
    case P_BOOL:
        p->def.kind = A_BOOL; p->def.i = !strcmp(v, "true"); break;
    case P_STR:
        if (used + vl + 1 > sizeof pool)
            die("ops.def: name pool full");
        memcpy(pool + used, v, vl + 1);
        p->def.kind = A_STR; p->def.s = pool + used; used += vl + 1;
        break;
    default:
        die("ops.def: %s: no default allowed for %s", op, p->name);
    }
}

static void init(void)
{
    if (ready)
        return;
    for (int i = 0; i < OP_COUNT; i++) {
        OpInfo *o = &infos[i];
        o->name = raw_ops[i].name;
        o->cls = raw_ops[i].cls;
        o->nres = raw_ops[i].nres;
        o->flags = raw_ops[i].flags;
        const char *s = raw_ops[i].sig;
        while (*s) {
            while (*s == ' ' || *s == ',')
                s++;
            size_t n = strcspn(s, ",");
            while (n && s[n - 1] == ' ')
                n--;
            if (o->nparams == KG_MAX_PARAMS)
                die("ops.def: %s has too many parameters", o->name);
            Param *p = &o->params[o->nparams++];
            parse_param(p, s, n, o->name);
            if (p->kind <= P_TENSOR_LIST)
                o->ntensor++;
            s += n;
        }
    }
    ready = true;
}

const OpInfo *op_info(int op)
{
    if (op < 0 || op >= OP_COUNT)
        die("bad op %d", op);
    init();
    return &infos[op];
}

int op_lookup(const char *name, size_t len)
{
    for (int i = 0; i < OP_COUNT; i++)
        if (strlen(raw_ops[i].name) == len && !memcmp(raw_ops[i].name, name, len))
            return i;
    return -1;
}

int op_param(int op, const char *name)
{
    const OpInfo *o = op_info(op);
    for (int i = 0; i < o->nparams; i++)
        if (!strcmp(o->params[i].name, name))
            return i;
    return -1;
}

/* Optimal string alignment distance, capped: names are short. */
static int distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    if (n > 32 || m > 32)
        return 99;
    int d[34][34];
    for (size_t i = 0; i <= n; i++) d[i][0] = (int)i;
    for (size_t j = 0; j <= m; j++) d[0][j] = (int)j;
    for (size_t i = 1; i <= n; i++)
        for (size_t j = 1; j <= m; j++) {
            int c = a[i - 1] != b[j - 1];
            int v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v) v = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + c < v) v = d[i - 1][j - 1] + c;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    return d[n][m];
}

const char *op_suggest(const char *name)
{
    const char *best = NULL;
    int bd = strlen(name) >= 6 ? 3 : 2;   /* best distance must be below */
    for (int i = 0; i < OP_COUNT; i++) {
        int dd = distance(name, raw_ops[i].name);
        if (dd < bd) {
            bd = dd;
            best = raw_ops[i].name;
        }
    }
    return best;
}

static const struct { const char *name; int size; bool is_float; } dtypes[] = {
    [DT_BOOL] = {"bool", 1, false}, [DT_I32] = {"i32", 4, false},
    [DT_F16] = {"f16", 2, true},    [DT_BF16] = {"bf16", 2, true},
    [DT_F32] = {"f32", 4, true},
};

const char *dtype_name(DType t)
{
    return t == DT_WEAK ? "scalar" : dtypes[t].name;
}

int dtype_lookup(const char *name)
{
    for (int i = 0; i < DT_COUNT; i++)
        if (!strcmp(name, dtypes[i].name))
            return i;
    return -1;
}

int dtype_size(DType t) { return t == DT_WEAK ? 8 : dtypes[t].size; }
bool dtype_is_float(DType t) { return t == DT_WEAK || dtypes[t].is_float; }

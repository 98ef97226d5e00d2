/*
 * sema.c -- the third stage: an AST to a typed dataflow graph.
 *
 * Statements are checked in order; names are bound in one symbol table.
 * Declarations (dims, dtypes, inputs, weights, params, op variables) are
 * unique; assigned names may be rebound, each binding a new SSA version
 * ("h", then "h#2"), so a name always means its latest definition.  Hence the
 * graph is acyclic by construction and g->nodes is already in topological
 * order.
 *
 * Models get concrete shapes: dims are bound from their defaults and
 * --dim/--dtype and every axis is a positive int64 (all arithmetic checked).
 * Pattern files go through the same rules with dims unknown: an unknown axis
 * is UNK (-1), checks involving UNK pass, and the declared expression of each
 * input axis is kept in Value.sym for the matcher to unify.
 */
#include "kgen.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define UNK (-1)

typedef enum { SY_DIM, SY_DTYPE, SY_VALUE, SY_PARAM, SY_OPVAR } SymKind;

typedef struct Sym {
    const char *name;
    SymKind kind;
    int index;                 /* dims/dtypes/params/opvars index */
    Value *v;                  /* SY_VALUE: the latest binding */
    Loc loc;                   /* first definition */
    bool declared;             /* input/weight (cannot be reassigned) */
    bool poisoned;             /* its definition failed: uses are silent */
    bool is_weight;            /* declared by `weight` */
    int versions;
} Sym;

typedef struct Sema {
    Diag *d;
    Arena *a;
    Graph *g;
    Override *ov;
    int nov;
    Sym *tab;                  /* open addressing */
    int tabcap, tabn;
    Stmt *cur;                 /* the statement being checked */
    /* name -> location of its first assignment, for "used before" */
    Sym *later;
    int latercap;
    Loc *output_locs;          /* where each output was named */
    int cap_output_locs;
} Sema;

/* ---- symbol table ---------------------------------------------------- */

static Sym *lookup_in(Sym *tab, int cap, const char *name)
{
    if (!cap)
        return NULL;
    uint64_t h = hash64(name, strlen(name), 0);
    for (int i = (int)(h & (uint64_t)(cap - 1));; i = (i + 1) & (cap - 1)) {
        if (!tab[i].name)
            return NULL;
        if (!strcmp(tab[i].name, name))
            return &tab[i];
    }
}

static Sym *insert_in(Arena *a, Sym **tabp, int *capp, int *np, const char *name)
{
    if ((*np + 1) * 2 > *capp) {
        int ncap = *capp ? *capp * 2 : 64;
        Sym *nt = arena_alloc(a, (size_t)ncap * sizeof *nt);
        for (int i = 0; i < *capp; i++) {
            Sym *s = &(*tabp)[i];
            if (!s->name)
                continue;
            uint64_t h = hash64(s->name, strlen(s->name), 0);
            int j = (int)(h & (uint64_t)(ncap - 1));
            while (nt[j].name)
                j = (j + 1) & (ncap - 1);
            nt[j] = *s;
        }
        *tabp = nt;
        *capp = ncap;
    }
    uint64_t h = hash64(name, strlen(name), 0);
    int i = (int)(h & (uint64_t)(*capp - 1));
    while ((*tabp)[i].name)
        i = (i + 1) & (*capp - 1);
    (*np)++;
    (*tabp)[i].name = name;
    return &(*tabp)[i];
}

static Sym *lookup(Sema *S, const char *name)
{
    return lookup_in(S->tab, S->tabcap, name);
}

static const char *sym_kind_name(const Sym *s)
{
    switch (s->kind) {
    case SY_DIM: return "dim";
    case SY_DTYPE: return "dtype";
    case SY_PARAM: return "param";
    case SY_OPVAR: return "op variable";
    case SY_VALUE:
        return !s->declared ? "value" : s->is_weight ? "weight" : "input";
    }
    return "name";
}

/* "an input", "a dim": the kind with its article, for messages. */
static const char *a_kind(const Sym *s)
{
    switch (s->kind) {
    case SY_DIM: return "a dim";
    case SY_DTYPE: return "a dtype";
    case SY_PARAM: return "a param";
    case SY_OPVAR: return "an op variable";
    case SY_VALUE:
        return !s->declared ? "a value" : s->is_weight ? "a weight" : "an input";
    }
    return "a name";
}

/* Declare name; on a clash report both places and return NULL. */
static Sym *declare(Sema *S, const char *name, Loc loc, SymKind kind)
{
    Sym *old = lookup(S, name);
    if (old) {
        diag_error(S->d, loc, "redefinition of %s '%s'", sym_kind_name(old), name);
        diag_note(S->d, old->loc, "previous definition of '%s' is here", name);
        return NULL;
    }
    int n = 0;
    (void)n;
    Sym *s = insert_in(S->a, &S->tab, &S->tabcap, &S->tabn, name);
    s->kind = kind;
    s->loc = loc;
    return s;
}

/* ---- values and nodes ------------------------------------------------ */

static Value *new_value(Sema *S, ValueKind k, Loc loc)
{
    Graph *g = S->g;
    Value *v = arena_alloc(S->a, sizeof *v);
    v->id = g->nvalues;
    v->kind = k;
    v->loc = loc;
    v->dtvar = -1;
    v->hole = -1;
    ARENA_PUSH(S->a, g->values, g->nvalues, g->cap_values, v);
    return v;
}

/* A number in an expression; is_int: written as an integer, which matters
 * for promotion (i32 * 2 is i32, i32 * 2.0 is f32, as in PyTorch). */
static Value *new_const(Sema *S, double x, bool is_int, Loc loc)
{
    Value *v = new_value(S, V_CONST, loc);
    v->dt = DT_WEAK;
    v->cval = x;
    v->cint = is_int;
    return v;
}

int64_t numel(const Value *v)
{
    int64_t n = 1;
    for (int i = 0; i < v->rank; i++) {
        if (v->shape[i] < 0)
            return UNK;
        if (__builtin_mul_overflow(n, v->shape[i], &n))
            return INT64_MAX;
    }
    return n;
}

const char *value_label(Arena *a, const Value *v)
{
    if (v->name)
        return v->version > 1 ? arena_printf(a, "%s#%d", v->name, v->version)
                              : v->name;
    if (v->kind == V_CONST)
        return arena_printf(a, "%g", v->cval);
    if (v->def)
        return arena_printf(a, "%s@%d:%d", op_info(v->def->op)->name,
                            v->loc.line, v->loc.col);
    return arena_printf(a, "%%%d", v->id);
}

static const char *shape_str(Arena *a, const Value *v)
{
    Str s = {0};
    str_printf(&s, "%s[", v->dtvar >= 0 ? "?" : dtype_name(v->dt));
    for (int i = 0; i < v->rank; i++) {
        if (v->shape[i] == UNK)
            str_printf(&s, "%s?", i ? ", " : "");
        else
            str_printf(&s, "%s%lld", i ? ", " : "", (long long)v->shape[i]);
    }
    str_printf(&s, "]");
    char *r = arena_strdup(a, s.buf);
    str_free(&s);
    return r;
}

/* "'x' f16[32, 512] (x.pat:11:1)": a value for a message. */
static const char *describe_value(Sema *S, const Value *v)
{
    if (v->kind == V_CONST)
        return arena_printf(S->a, "scalar %g", v->cval);
    return arena_printf(S->a, "'%s' %s (%s:%d:%d)", value_label(S->a, v),
                        shape_str(S->a, v), v->loc.file ? v->loc.file->path : "?",
                        v->loc.line, v->loc.col);
}

/* ---- dim expressions ------------------------------------------------- */

/* Evaluate a dim expression.  Returns false after reporting an error; sets
 * *unknown (patterns) when a dim without a value is involved. */
static bool eval_dim(Sema *S, const Expr *e, int64_t *out, bool *unknown)
{
    int64_t l, r;
    switch (e->kind) {
    case E_NUM:
        if (!e->is_int) {
            diag_error(S->d, e->loc, "dims must be integers, not %g", e->num);
            return false;
        }
        *out = e->ival;
        return true;
    case E_NAME: {
        Sym *s = lookup(S, e->name);
        if (!s) {
            diag_error(S->d, e->loc, "undefined dim '%s'", e->name);
            return false;
        }
        if (s->kind != SY_DIM) {
            diag_error(S->d, e->loc, "'%s' is %s, not a dim", e->name,
                       a_kind(s));
            return false;
        }
        DimVar *dv = &S->g->dims[s->index];
        if (!dv->bound) {
            if (!unknown && S->g->is_pattern)
                diag_error(S->d, e->loc, "pattern dim '%s' cannot be used "
                           "here: this must be a known integer", e->name);
            if (!unknown)      /* (in a model its definition failed) */
                return false;
            *unknown = true;
            *out = UNK;
            return true;
        }
        *out = dv->value;
        return true;
    }
    case E_NEG:
        if (!eval_dim(S, e->lhs, &l, unknown))
            return false;
        *out = l == INT64_MIN ? INT64_MAX : -l;
        return true;
    case E_BINOP: {
        if (!eval_dim(S, e->lhs, &l, unknown) || !eval_dim(S, e->rhs, &r, unknown))
            return false;
        if (unknown && *unknown) {
            *out = UNK;
            return true;
        }
        bool ovf = false;
        switch (e->op) {
        case '+': ovf = __builtin_add_overflow(l, r, out); break;
        case '-': ovf = __builtin_sub_overflow(l, r, out); break;
        case '*': ovf = __builtin_mul_overflow(l, r, out); break;
        case '/':
            if (r == 0) {
                diag_error(S->d, e->loc, "division by zero in a dim expression");
                return false;
            }
            if (l % r != 0) {
                diag_error(S->d, e->loc,
                           "dim expression %lld / %lld is not an integer",
                           (long long)l, (long long)r);
                return false;
            }
            *out = l / r;
            break;
        }
        if (ovf) {
            diag_error(S->d, e->loc, "dim expression overflows 64 bits");
            return false;
        }
        return true;
    }
    case E_CALL:
        diag_error(S->d, e->loc, "a dim expression may use only dims, integers "
                   "and + - * /, not a call to '%s'", e->name);
        return false;
    default:
        diag_error(S->d, e->loc, "expected a dim expression");
        return false;
    }
}

/* A shape axis: positive and at most INT32_MAX. */
static bool eval_axis_dim(Sema *S, const Expr *e, int64_t *out, bool pattern)
{
    bool unknown = false;
    if (!eval_dim(S, e, out, pattern ? &unknown : NULL))
        return false;
    if (unknown)
        return true;
    if (*out <= 0) {
        diag_error(S->d, e->loc, "dim is %lld; dims must be positive",
                   (long long)*out);
        return false;
    }
    if (*out > INT32_MAX) {
        diag_error(S->d, e->loc, "dim is %lld, more than the limit %d",
                   (long long)*out, INT32_MAX);
        return false;
    }
    return true;
}

/* Every tensor must fit in KG_MAX_BYTES. */
static bool check_size(Sema *S, const Value *v, Loc loc)
{
    int64_t n = 1, bytes;
    for (int i = 0; i < v->rank; i++) {
        if (v->shape[i] == UNK)
            return true;
        if (__builtin_mul_overflow(n, v->shape[i], &n))
            n = INT64_MAX;
    }
    if (__builtin_mul_overflow(n, (int64_t)dtype_size(v->dt), &bytes) ||
        (uint64_t)bytes > KG_MAX_BYTES) {
        double lg = log2((double)dtype_size(v->dt));   /* no saturation */
        for (int i = 0; i < v->rank; i++)
            lg += log2((double)v->shape[i]);
        diag_error(S->d, loc, "tensor '%s' %s needs 2^%.0f bytes (limit 2^40)",
                   value_label(S->a, v), shape_str(S->a, v), lg);
        return false;
    }
    return true;
}

/* ---- dtype promotion (PyTorch's rules for the dtypes kgen has) -------- */

static int dt_rank(DType t)
{
    switch (t) {
    case DT_BOOL: return 0;
    case DT_I32: return 1;
    case DT_F16: case DT_BF16: return 2;
    case DT_F32: return 3;
    default: return -1;
    }
}

static DType promote(const Value *a, const Value *b)
{
    if (a->dt == DT_WEAK && b->dt == DT_WEAK)
        return DT_WEAK;
    if (a->dt == DT_WEAK || b->dt == DT_WEAK) {
        const Value *t = a->dt == DT_WEAK ? b : a, *c = a->dt == DT_WEAK ? a : b;
        if (dtype_is_float(t->dt))
            return t->dt;
        if (c->cint)
            return t->dt == DT_BOOL ? DT_I32 : t->dt;
        return DT_F32;
    }
    if (a->dt == b->dt)
        return a->dt;
    if ((a->dt == DT_F16 && b->dt == DT_BF16) || (a->dt == DT_BF16 && b->dt == DT_F16))
        return DT_F32;
    return dt_rank(a->dt) >= dt_rank(b->dt) ? a->dt : b->dt;
}

/* ---- shape rules ------------------------------------------------------ */

typedef struct Call {
    int op;
    const Expr *e;             /* the call (or operator) */
    Value *in[64];             /* tensor arguments; T* lists up to 64 */
    int nin;
    Loc inloc[64];
    Attr attr[KG_MAX_PARAMS];
    Node *node;
} Call;

static bool fail(Sema *S, Loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static bool fail(Sema *S, Loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_verror(S->d, "error", loc, fmt, ap);
    va_end(ap);
    return false;
}

static bool same_dim(int64_t a, int64_t b)
{
    return a == UNK || b == UNK || a == b;
}

static Attr *attr_of(Call *c, const char *name)
{
    int p = op_param(c->op, name);
    if (p < 0)
        die("op %s has no parameter %s", op_info(c->op)->name, name);
    return &c->attr[p];
}

/* Normalise an axis attribute against a rank (rank+1 for unsqueeze). */
static bool norm_axis(Sema *S, Call *c, Attr *at, int rank)
{
    if (at->kind != A_INT || at->hole >= 0)
        return true;
    int64_t ax = at->i;
    if (ax < -rank || ax >= rank)
        return fail(S, at->loc.file ? at->loc : c->e->loc,
                    "%s: axis %lld is out of range for a rank-%d tensor "
                    "(expected %d..%d)", op_info(c->op)->name, (long long)ax,
                    rank, -rank, rank - 1);
    at->i = ax < 0 ? ax + rank : ax;
    return true;
}

static Value *result(Sema *S, Call *c, DType dt, int rank, const int64_t *shape)
{
    Value *v = new_value(S, V_NODE, c->e->loc);
    v->dt = dt;
    v->rank = rank;
    if (shape)
        memcpy(v->shape, shape, (size_t)rank * sizeof *shape);
    return v;
}

/* Broadcast a and b (numpy rules) into out; false after an error. */
static bool broadcast(Sema *S, Call *c, const Value *a, const Value *b,
                      int *rank, int64_t *out)
{
    int r = a->rank > b->rank ? a->rank : b->rank;
    for (int i = 0; i < r; i++) {
        int ia = i - (r - a->rank), ib = i - (r - b->rank);
        int64_t da = ia >= 0 ? a->shape[ia] : 1, db = ib >= 0 ? b->shape[ib] : 1;
        if (da == 1) out[i] = db;
        else if (db == 1) out[i] = da;
        else if (da == UNK || db == UNK) out[i] = da == UNK ? db : da;
        else if (da == db) out[i] = da;
        else
            return fail(S, c->e->loc,
                        "%s: shapes do not broadcast: %s and %s differ in axis "
                        "%d (%lld vs %lld)", op_info(c->op)->name,
                        describe_value(S, a), describe_value(S, b), i,
                        (long long)da, (long long)db);
    }
    *rank = r;
    return true;
}

static bool need_float(Sema *S, Call *c, const Value *v, const char *what)
{
    if (v->dtvar >= 0 || dtype_is_float(v->dt))
        return true;
    return fail(S, c->e->loc, "%s: %s must be a float tensor, got %s",
                op_info(c->op)->name, what, describe_value(S, v));
}

static bool same_dtype(Sema *S, Call *c, const Value *a, const Value *b)
{
    if (!b || a->dt == b->dt || a->dtvar >= 0 || b->dtvar >= 0)
        return true;
    return fail(S, c->e->loc, "%s: dtype mismatch: %s vs %s",
                op_info(c->op)->name, describe_value(S, a), describe_value(S, b));
}

static bool need_rank(Sema *S, Call *c, const Value *v, int lo, int hi,
                      const char *what)
{
    if (v->rank >= lo && v->rank <= hi)
        return true;
    if (lo == hi)
        return fail(S, c->e->loc, "%s: %s must have rank %d, got %s",
                    op_info(c->op)->name, what, lo, describe_value(S, v));
    return fail(S, c->e->loc, "%s: %s must have rank %d to %d, got %s",
                op_info(c->op)->name, what, lo, hi, describe_value(S, v));
}

static bool dim_match(Sema *S, Call *c, const char *what, const Value *a,
                      int ia, const Value *b, int ib)
{
    if (same_dim(a->shape[ia], b->shape[ib]))
        return true;
    return fail(S, c->e->loc, "%s: %s mismatch %lld (%s) vs %lld (%s)",
                op_info(c->op)->name, what, (long long)a->shape[ia],
                describe_value(S, a), (long long)b->shape[ib],
                describe_value(S, b));
}

static bool int_attr(const Attr *at, int64_t *v)
{
    if (at->kind != A_INT || at->hole >= 0 || (at->expr && at->i == UNK))
        return false;
    *v = at->i;
    return true;
}

static bool rule_elementwise(Sema *S, Call *c)
{
    const OpInfo *o = op_info(c->op);
    Value *x = c->in[0];
    int64_t shape[KG_MAX_RANK];
    int rank = x->rank;
    memcpy(shape, x->shape, sizeof shape);
    DType dt = x->dt;
    switch (o->cls) {
    case OC_UNARY:
        if (c->op == OP_CAST) {
            Attr *t = attr_of(c, "dtype");
            dt = (DType)t->i;
            Value *v = result(S, c, dt, rank, shape);
            v->dtvar = t->hole >= 0 ? (int)t->hole : -1;
            return true;
        }
        if (c->op == OP_GELU) {
            Attr *ap = attr_of(c, "approximate");
            if (ap->hole < 0 && strcmp(ap->s, "none") && strcmp(ap->s, "tanh"))
                return fail(S, ap->loc, "gelu: approximate must be \"none\" or "
                            "\"tanh\", not \"%s\"",
                            diag_escape(S->a, ap->s, strlen(ap->s), 40));
        }
        if (c->op == OP_DROPOUT) {
            Attr *p = attr_of(c, "p");
            if (p->hole < 0 && !(p->f >= 0 && p->f < 1))
                return fail(S, p->loc, "dropout: p must be in [0, 1), not %g", p->f);
        }
        if (c->op == OP_NEG && dt == DT_BOOL && x->dtvar < 0)
            return fail(S, c->e->loc, "neg of a bool tensor %s: write "
                        "1 - x or cast it first", describe_value(S, x));
        if (!dtype_is_float(dt) && x->dtvar < 0 && c->op != OP_NEG &&
            c->op != OP_ABS && c->op != OP_RELU && c->op != OP_DROPOUT)
            dt = DT_F32;
        if (x->kind == V_CONST)
            return fail(S, c->e->loc, "%s of a constant: write the number",
                        o->name);
        break;
    case OC_BINARY: {
        Value *b = c->in[1];
        if (x->kind == V_CONST && b->kind == V_CONST)
            return fail(S, c->e->loc, "%s: at least one operand must be a "
                        "tensor", o->name);
        if (!broadcast(S, c, x, b, &rank, shape))
            return false;
        dt = promote(x, b);
        if (c->op == OP_DIV && !dtype_is_float(dt))
            dt = DT_F32;
        Value *v = result(S, c, dt, rank, shape);
        v->dtvar = x->kind == V_CONST ? b->dtvar : x->dtvar;
        return true;
    }
    case OC_PRELU: {
        Value *a = c->in[1];
        Attr *ax = attr_of(c, "axis");
        if (!need_float(S, c, x, "x") || !norm_axis(S, c, ax, x->rank) ||
            !need_rank(S, c, a, 1, 1, "the slope a") || !same_dtype(S, c, x, a))
            return false;
        if (a->shape[0] != 1 && !same_dim(a->shape[0], x->shape[ax->i]))
            return fail(S, c->e->loc, "prelu: a has %lld slopes but axis %lld "
                        "of %s has %lld", (long long)a->shape[0],
                        (long long)ax->i, describe_value(S, x),
                        (long long)x->shape[ax->i]);
        break;
    }
    case OC_MASKED: {
        Value *m = c->in[1];
        if (m->dt != DT_BOOL && m->dtvar < 0)
            return fail(S, c->e->loc, "masked_fill: the mask must be bool, got %s",
                        describe_value(S, m));
        int r2;
        int64_t s2[KG_MAX_RANK];
        if (!broadcast(S, c, x, m, &r2, s2))
            return false;
        for (int i = 0; i < r2; i++)
            if (r2 != rank || !same_dim(s2[i], shape[i]))
                return fail(S, c->e->loc, "masked_fill: the mask %s would "
                            "broadcast %s to a larger shape",
                            describe_value(S, m), describe_value(S, x));
        break;
    }
    default:
        die("not elementwise");
    }
    Value *v = result(S, c, dt, rank, shape);
    v->dtvar = x->dtvar;
    return true;
}

static bool rule_reduce(Sema *S, Call *c)
{
    Value *x = c->in[0];
    Attr *ax = attr_of(c, "axis");
    if (x->rank == 0)
        return fail(S, c->e->loc, "%s of a scalar", op_info(c->op)->name);
    if (!norm_axis(S, c, ax, x->rank))
        return false;
    int64_t shape[KG_MAX_RANK];
    int rank = 0;
    bool keep = c->op == OP_SOFTMAX || c->op == OP_LAYERNORM ||
                c->op == OP_RMSNORM || attr_of(c, "keepdim")->i;
    for (int i = 0; i < x->rank; i++) {
        if (i == ax->i && c->op != OP_SOFTMAX && c->op != OP_LAYERNORM &&
            c->op != OP_RMSNORM) {
            if (keep)
                shape[rank++] = 1;
            continue;
        }
        shape[rank++] = x->shape[i];
    }
    DType dt = x->dt;
    if (c->op != OP_MAX && c->op != OP_SUM && !need_float(S, c, x, "x"))
        return false;
    if (c->op == OP_SUM && dt == DT_BOOL)
        dt = DT_I32;
    if (c->op == OP_LAYERNORM || c->op == OP_RMSNORM) {
        for (int i = 1; i < c->nin; i++) {
            Value *w = c->in[i];
            if (!w)
                continue;
            const char *what = i == 1 ? "gamma" : "beta";
            if (!need_rank(S, c, w, 1, 1, what) || !same_dtype(S, c, x, w) ||
                !dim_match(S, c, "normalised size", w, 0, x, (int)ax->i))
                return false;
        }
        Attr *eps = attr_of(c, "eps");
        if (eps->hole < 0 && !(eps->f >= 0 && isfinite(eps->f)))
            return fail(S, eps->loc, "%s: eps must be finite and >= 0, not %g",
                        op_info(c->op)->name, eps->f);
    }
    Value *v = result(S, c, dt, rank, shape);
    v->dtvar = x->dtvar;
    return true;
}

static bool rule_linear(Sema *S, Call *c)
{
    Value *x = c->in[0], *w = c->in[1], *b = c->in[2];
    if (!need_rank(S, c, x, 1, KG_MAX_RANK, "x") ||
        !need_rank(S, c, w, 2, 2, "the weight w [N, K]") ||
        !same_dtype(S, c, x, w) || !same_dtype(S, c, x, b) ||
        !need_float(S, c, x, "x") ||
        !dim_match(S, c, "K", x, x->rank - 1, w, 1))
        return false;
    if (b && (!need_rank(S, c, b, 1, 1, "the bias b [N]") ||
              !dim_match(S, c, "N", w, 0, b, 0)))
        return false;
    int64_t shape[KG_MAX_RANK];
    memcpy(shape, x->shape, sizeof shape);
    shape[x->rank - 1] = w->shape[0];
    Value *v = result(S, c, x->dt, x->rank, shape);
    v->dtvar = x->dtvar;
    return true;
}

/* torch.matmul: 1-D operands are promoted and the added axis removed after;
 * batch axes broadcast. */
static bool rule_matmul(Sema *S, Call *c)
{
    Value *a = c->in[0], *b = c->in[1];
    if (!need_rank(S, c, a, 1, KG_MAX_RANK, "a") ||
        !need_rank(S, c, b, 1, KG_MAX_RANK, "b") || !same_dtype(S, c, a, b) ||
        !need_float(S, c, a, "a"))
        return false;
    int ka = a->rank - 1, kb = b->rank == 1 ? 0 : b->rank - 2;
    if (!same_dim(a->shape[ka], b->shape[kb]))
        return fail(S, c->e->loc, "matmul: K mismatch %lld (%s) vs %lld (%s)",
                    (long long)a->shape[ka], describe_value(S, a),
                    (long long)b->shape[kb], describe_value(S, b));
    Value ba = {.rank = a->rank > 2 ? a->rank - 2 : 0, .loc = a->loc,
                .name = a->name, .dt = a->dt};
    Value bb = {.rank = b->rank > 2 ? b->rank - 2 : 0, .loc = b->loc,
                .name = b->name, .dt = b->dt};
    memcpy(ba.shape, a->shape, sizeof ba.shape);
    memcpy(bb.shape, b->shape, sizeof bb.shape);
    int rank;
    int64_t shape[KG_MAX_RANK + 1];
    if (!broadcast(S, c, &ba, &bb, &rank, shape)) {
        return false;
    }
    if (a->rank >= 2)
        shape[rank++] = a->shape[a->rank - 2];
    if (b->rank >= 2)
        shape[rank++] = b->shape[b->rank - 1];
    Value *v = result(S, c, a->dt, rank, shape);
    v->dtvar = a->dtvar;
    return true;
}

static bool rule_conv1d(Sema *S, Call *c)
{
    Value *x = c->in[0], *w = c->in[1], *b = c->in[2];
    if (!need_rank(S, c, x, 3, 3, "x [B, Cin, T]") ||
        !need_rank(S, c, w, 3, 3, "the weight w [Cout, Cin/groups, K]") ||
        !same_dtype(S, c, x, w) || !same_dtype(S, c, x, b) ||
        !need_float(S, c, x, "x"))
        return false;
    int64_t g = 1, st = 1, pad = 0, dil = 1, k;
    bool kg = int_attr(attr_of(c, "groups"), &g);
    bool ks = int_attr(attr_of(c, "stride"), &st);
    bool kp = int_attr(attr_of(c, "padding"), &pad);
    bool kd = int_attr(attr_of(c, "dilation"), &dil);
    Attr *kat = attr_of(c, "kernel");
    if ((kg && g < 1) || (ks && st < 1) || (kd && dil < 1) || (kp && pad < 0))
        return fail(S, c->e->loc, "conv1d: groups, stride and dilation must be "
                    ">= 1 and padding >= 0 (got groups=%lld stride=%lld "
                    "dilation=%lld padding=%lld)", (long long)g, (long long)st,
                    (long long)dil, (long long)pad);
    if (kat->kind == A_INT && int_attr(kat, &k) && !same_dim(k, w->shape[2]))
        return fail(S, kat->loc, "conv1d: kernel=%lld but the weight %s has "
                    "kernel size %lld", (long long)k, describe_value(S, w),
                    (long long)w->shape[2]);
    int64_t cin = x->shape[1], cout = w->shape[0];
    if (kg && cin != UNK && cin % g)
        return fail(S, c->e->loc, "conv1d: groups=%lld does not divide the %lld "
                    "input channels of %s", (long long)g, (long long)cin,
                    describe_value(S, x));
    if (kg && cout != UNK && cout % g)
        return fail(S, c->e->loc, "conv1d: groups=%lld does not divide the %lld "
                    "output channels of %s", (long long)g, (long long)cout,
                    describe_value(S, w));
    if (kg && cin != UNK && w->shape[1] != UNK && w->shape[1] != cin / g)
        return fail(S, c->e->loc, "conv1d: channel mismatch: %s has %lld "
                    "channels, so with groups=%lld the weight %s needs %lld "
                    "per group, not %lld", describe_value(S, x), (long long)cin,
                    (long long)g, describe_value(S, w), (long long)(cin / g),
                    (long long)w->shape[1]);
    if (b && (!need_rank(S, c, b, 1, 1, "the bias b [Cout]") ||
              !dim_match(S, c, "Cout", w, 0, b, 0)))
        return false;
    int64_t shape[3] = {x->shape[0], cout, UNK};
    int64_t t = x->shape[2], kk = w->shape[2];
    if (t != UNK && kk != UNK && ks && kp && kd) {
        int64_t span = dil * (kk - 1) + 1;
        int64_t len = t + 2 * pad - span;
        if (len < 0)
            return fail(S, c->e->loc, "conv1d: the input length %lld with "
                        "padding %lld is shorter than the kernel span %lld",
                        (long long)t, (long long)pad, (long long)span);
        shape[2] = len / st + 1;
    }
    Value *v = result(S, c, x->dt, 3, shape);
    v->dtvar = x->dtvar;
    return true;
}

static bool rule_sdpa(Sema *S, Call *c)
{
    Value *q = c->in[0], *k = c->in[1], *v = c->in[2], *m = c->in[3];
    if (!need_rank(S, c, q, 2, KG_MAX_RANK, "q") ||
        !need_rank(S, c, k, q->rank, q->rank, "k (same rank as q)") ||
        !need_rank(S, c, v, q->rank, q->rank, "v (same rank as q)") ||
        !same_dtype(S, c, q, k) || !same_dtype(S, c, q, v) ||
        !need_float(S, c, q, "q"))
        return false;
    int r = q->rank;
    for (int i = 0; i < r - 2; i++)
        if (!dim_match(S, c, "batch axis", q, i, k, i) ||
            !dim_match(S, c, "batch axis", q, i, v, i))
            return false;
    if (!dim_match(S, c, "head dim", q, r - 1, k, r - 1) ||
        !dim_match(S, c, "sequence length", k, r - 2, v, r - 2))
        return false;
    int64_t shape[KG_MAX_RANK];
    memcpy(shape, q->shape, sizeof shape);
    shape[r - 1] = v->shape[r - 1];
    if (m) {
        Value sc = {.rank = r, .dt = q->dt, .loc = c->e->loc};
        memcpy(sc.shape, q->shape, sizeof sc.shape);
        sc.shape[r - 1] = k->shape[r - 2];
        int r2;
        int64_t s2[KG_MAX_RANK];
        if (m->dt != DT_BOOL && !same_dtype(S, c, q, m))
            return false;
        if (!broadcast(S, c, &sc, m, &r2, s2))
            return false;
        if (r2 != r)
            return fail(S, c->e->loc, "sdpa: the mask %s has more axes than the "
                        "scores", describe_value(S, m));
    }
    Value *o = result(S, c, q->dt, r, shape);
    o->dtvar = q->dtvar;
    return true;
}

static bool rule_layout(Sema *S, Call *c)
{
    if (c->nin == 0)           /* concat([]) */
        return fail(S, c->e->loc, "%s of an empty list", op_info(c->op)->name);
    Value *x = c->in[0];
    int64_t shape[KG_MAX_RANK];
    memcpy(shape, x->shape, sizeof shape);
    switch (c->op) {
    case OP_TRANSPOSE: {
        Attr *a0 = attr_of(c, "dim0"), *a1 = attr_of(c, "dim1");
        if (!norm_axis(S, c, a0, x->rank) || !norm_axis(S, c, a1, x->rank))
            return false;
        if (a0->hole < 0 && a1->hole < 0 && a0->i > a1->i) {
            Attr t = *a0;      /* canonical: transpose(x, 3, 2) is (x, 2, 3) */
            *a0 = *a1;
            *a1 = t;
        }
        int64_t t = shape[a0->i];
        shape[a0->i] = shape[a1->i];
        shape[a1->i] = t;
        result(S, c, x->dt, x->rank, shape)->dtvar = x->dtvar;
        return true;
    }
    case OP_UNSQUEEZE: {
        Attr *ax = attr_of(c, "axis");
        if (x->rank == KG_MAX_RANK)
            return fail(S, c->e->loc, "unsqueeze: rank would exceed %d", KG_MAX_RANK);
        if (!norm_axis(S, c, ax, x->rank + 1))
            return false;
        for (int i = x->rank; i > ax->i; i--)
            shape[i] = shape[i - 1];
        shape[ax->i] = 1;
        result(S, c, x->dt, x->rank + 1, shape)->dtvar = x->dtvar;
        return true;
    }
    case OP_RESHAPE: {
        Attr *sh = attr_of(c, "shape");
        if (sh->n > KG_MAX_RANK || sh->n == 0)
            return fail(S, sh->loc, "reshape: %d axes; expected 1 to %d",
                        sh->n, KG_MAX_RANK);
        int infer = -1;
        int64_t prod = 1;
        bool unknown = false;
        for (int i = 0; i < sh->n; i++) {
            shape[i] = sh->ints[i];
            if (shape[i] == -1 && !(sh->expr && sh->expr->args[i]->kind != E_NUM)) {
                if (infer >= 0)
                    return fail(S, sh->loc, "reshape: only one axis may be -1");
                infer = i;
            } else if (shape[i] == UNK) {
                unknown = true;
            } else if (shape[i] <= 0) {
                return fail(S, sh->loc, "reshape: axis %d is %lld; axes must be "
                            "positive (or one -1)", i, (long long)shape[i]);
            } else if (__builtin_mul_overflow(prod, shape[i], &prod)) {
                return fail(S, sh->loc, "reshape: the shape overflows");
            }
        }
        int64_t n = numel(x);
        if (n != UNK && !unknown) {
            if (infer >= 0) {
                if (n % prod)
                    return fail(S, sh->loc, "reshape: cannot infer the -1 axis: "
                                "%lld elements of %s are not a multiple of %lld",
                                (long long)n, describe_value(S, x), (long long)prod);
                shape[infer] = n / prod;
            } else if (prod != n) {
                return fail(S, sh->loc, "reshape: %s has %lld elements but the "
                            "new shape has %lld", describe_value(S, x),
                            (long long)n, (long long)prod);
            }
        } else if (infer >= 0) {
            shape[infer] = UNK;
        }
        result(S, c, x->dt, sh->n, shape)->dtvar = x->dtvar;
        return true;
    }
    case OP_SPLIT: {
        Attr *sz = attr_of(c, "sizes"), *ax = attr_of(c, "axis"),
             *pa = attr_of(c, "parts");
        if (x->rank == 0)
            return fail(S, c->e->loc, "split of a scalar");
        if (!norm_axis(S, c, ax, x->rank))
            return false;
        if ((sz->kind == A_NONE) == (pa->kind == A_NONE))
            return fail(S, c->e->loc, "split: give either the sizes "
                        "(split(x, [a, b], axis=)) or parts=N");
        int64_t total = x->shape[ax->i];
        if (pa->kind != A_NONE) {
            int64_t n;
            if (!int_attr(pa, &n))
                return fail(S, pa->loc, "split: parts must be a known integer");
            if (n < 1 || n > 64)
                return fail(S, pa->loc, "split: parts=%lld; expected 1 to 64",
                            (long long)n);
            if (total != UNK && total % n)
                return fail(S, pa->loc, "split: %lld parts do not divide axis "
                            "%lld of %s (%lld)", (long long)n, (long long)ax->i,
                            describe_value(S, x), (long long)total);
            for (int i = 0; i < n; i++) {
                shape[ax->i] = total == UNK ? UNK : total / n;
                result(S, c, x->dt, x->rank, shape)->dtvar = x->dtvar;
            }
            if (total != UNK && pa->hole < 0) {
                /* canonical form: parts=2 of 2C is sizes [C, C], so one
                 * pattern written with sizes matches both spellings */
                sz->kind = A_INTS;
                sz->n = (int)n;
                sz->ints = arena_alloc(S->a, (size_t)n * sizeof *sz->ints);
                for (int i = 0; i < n; i++)
                    sz->ints[i] = total / n;
                sz->loc = pa->loc;
                sz->hole = -1;
                *pa = (Attr){.kind = A_NONE, .hole = -1};
            }
            return true;
        }
        if (sz->n < 1 || sz->n > 64)
            return fail(S, sz->loc, "split: %d sizes; expected 1 to 64", sz->n);
        int64_t sum = 0;
        bool unknown = false;
        for (int i = 0; i < sz->n; i++) {
            if (sz->ints[i] == UNK) {
                unknown = true;
                continue;
            }
            if (sz->ints[i] <= 0)
                return fail(S, sz->loc, "split: size %lld; sizes must be positive",
                            (long long)sz->ints[i]);
            sum += sz->ints[i];
        }
        if (!unknown && total != UNK && sum != total)
            return fail(S, sz->loc, "split: the sizes add up to %lld but axis "
                        "%lld of %s is %lld", (long long)sum, (long long)ax->i,
                        describe_value(S, x), (long long)total);
        for (int i = 0; i < sz->n; i++) {
            shape[ax->i] = sz->ints[i];
            result(S, c, x->dt, x->rank, shape)->dtvar = x->dtvar;
        }
        return true;
    }
    case OP_CONCAT: {
        Attr *ax = attr_of(c, "axis");
        if (x->rank == 0)
            return fail(S, c->e->loc, "concat of scalars");
        if (!norm_axis(S, c, ax, x->rank))
            return false;
        int64_t total = 0;
        for (int i = 0; i < c->nin; i++) {
            Value *y = c->in[i];
            if (y->kind == V_CONST || y->rank != x->rank)
                return fail(S, c->inloc[i], "concat: rank mismatch: %s vs %s",
                            describe_value(S, x), describe_value(S, y));
            if (!same_dtype(S, c, x, y))
                return false;
            for (int j = 0; j < x->rank; j++)
                if (j != ax->i &&
                    !dim_match(S, c, arena_printf(S->a, "size of axis %d", j),
                               x, j, y, j))
                    return false;
            if (total != UNK)
                total = y->shape[ax->i] == UNK ? UNK : total + y->shape[ax->i];
        }
        shape[ax->i] = total;
        result(S, c, x->dt, x->rank, shape)->dtvar = x->dtvar;
        return true;
    }
    }
    die("bad layout op");
}

static bool apply_rule(Sema *S, Call *c)
{
    for (int i = 0; i < c->nin; i++)
        if (c->in[i] && c->in[i]->kind == V_CONST &&
            !(op_info(c->op)->cls == OC_BINARY))
            return fail(S, c->inloc[i], "%s: expected a tensor, found the "
                        "number %g", op_info(c->op)->name, c->in[i]->cval);
    switch (op_info(c->op)->cls) {
    case OC_UNARY: case OC_BINARY: case OC_PRELU: case OC_MASKED:
        return rule_elementwise(S, c);
    case OC_REDUCE: case OC_ROWNORM:
        return rule_reduce(S, c);
    case OC_GEMM:
        return c->op == OP_LINEAR ? rule_linear(S, c)
             : c->op == OP_MATMUL ? rule_matmul(S, c) : rule_conv1d(S, c);
    case OC_LAYOUT:
        return rule_layout(S, c);
    case OC_FUSED:
        return rule_sdpa(S, c);
    }
    return false;
}

/* ---- expressions ------------------------------------------------------ */

typedef struct Results {
    Value **v;
    int n;
} Results;

static Value *eval(Sema *S, const Expr *e);

static bool is_pattern(Sema *S) { return S->g->is_pattern; }

/* A float literal: number, -number, inf, nan, -inf. */
static bool float_lit(const Expr *e, double *out)
{
    if (e->kind == E_NUM) {
        *out = e->num;
        return true;
    }
    if (e->kind == E_NAME && !strcmp(e->name, "inf")) {
        *out = INFINITY;
        return true;
    }
    if (e->kind == E_NAME && !strcmp(e->name, "nan")) {
        *out = NAN;
        return true;
    }
    if (e->kind == E_NEG && float_lit(e->lhs, out)) {
        *out = -*out;
        return true;
    }
    return false;
}

/* A `param` hole named by e, or -1. */
static int hole_of(Sema *S, const Expr *e)
{
    if (e->kind != E_NAME || !is_pattern(S))
        return -1;
    Sym *s = lookup(S, e->name);
    return s && s->kind == SY_PARAM ? s->index : -1;
}

/* Convert an attribute argument to an Attr of the parameter's kind. */
static bool to_attr(Sema *S, int op, const Param *p, const Expr *e, Attr *at)
{
    memset(at, 0, sizeof *at);
    at->hole = hole_of(S, e);
    at->loc = e->loc;
    at->expr = is_pattern(S) ? e : NULL;
    if (at->hole >= 0) {
        at->kind = p->kind == P_FLOAT ? A_FLOAT : p->kind == P_STR ? A_STR
                 : p->kind == P_BOOL ? A_BOOL : A_INT;
        at->i = UNK;
        return true;
    }
    const char *opn = op_info(op)->name;
    if ((p->kind == P_INT || p->kind == P_AXIS) &&
        (e->kind == E_STR || e->kind == E_LIST || e->kind == E_CALL ||
         (e->kind == E_NUM && !e->is_int)))
        return fail(S, e->loc, "%s: %s must be an integer%s%s", opn, p->name,
                    e->kind == E_NUM ? arena_printf(S->a, ", not %g", e->num) : "",
                    p->kind == P_INT ? " (dims and + - * / allowed)" : "");
    switch (p->kind) {
    case P_INT: {
        bool unknown = false;
        int64_t v;
        if (!eval_dim(S, e, &v, is_pattern(S) ? &unknown : NULL))
            return false;
        at->kind = A_INT;
        at->i = unknown ? UNK : v;
        if (!unknown && (v > INT32_MAX || v < -(int64_t)INT32_MAX))
            return fail(S, e->loc, "%s: %s=%lld is out of range", opn, p->name,
                        (long long)v);
        return true;
    }
    case P_AXIS: {
        int64_t v;
        if (!eval_dim(S, e, &v, NULL))
            return false;
        at->kind = A_INT;
        at->i = v;
        if (v > 64 || v < -64)
            return fail(S, e->loc, "%s: axis %lld is out of range", opn, (long long)v);
        return true;
    }
    case P_FLOAT:
        if (!float_lit(e, &at->f))
            return fail(S, e->loc, "%s: %s must be a number", opn, p->name);
        at->kind = A_FLOAT;
        return true;
    case P_BOOL:
        if (e->kind != E_NAME || (strcmp(e->name, "true") && strcmp(e->name, "false")))
            return fail(S, e->loc, "%s: %s must be true or false", opn, p->name);
        at->kind = A_BOOL;
        at->i = e->name[0] == 't';
        return true;
    case P_STR:
        if (e->kind != E_STR)
            return fail(S, e->loc, "%s: %s must be a string such as \"%s\"", opn,
                        p->name, p->has_default ? p->def.s : "text");
        at->kind = A_STR;
        at->s = e->name;
        return true;
    case P_DTYPE: {
        if (e->kind != E_NAME)
            return fail(S, e->loc, "%s: expected a dtype", opn);
        int t = dtype_lookup(e->name);
        at->kind = A_DTYPE;
        if (t >= 0) {
            at->i = t;
            return true;
        }
        Sym *s = lookup(S, e->name);
        if (!s || s->kind != SY_DTYPE)
            return fail(S, e->loc, "%s: '%s' is not a dtype (f16, bf16, f32, "
                        "i32, bool or a declared dtype name)", opn, e->name);
        DTypeVar *dv = &S->g->dtypes[s->index];
        if (dv->bound) {
            at->i = dv->dt;
        } else {
            at->i = DT_F32;
            at->hole = s->index;   /* a dtype variable, for the matcher */
        }
        return true;
    }
    case P_INTS: {
        if (e->kind != E_LIST)
            return fail(S, e->loc, "%s: %s must be a list such as [B, C]", opn,
                        p->name);
        at->kind = A_INTS;
        at->n = e->nargs;
        at->ints = arena_alloc(S->a, (size_t)(e->nargs + 1) * sizeof *at->ints);
        for (int i = 0; i < e->nargs; i++) {
            bool unknown = false;
            if (!eval_dim(S, e->args[i], &at->ints[i],
                          is_pattern(S) ? &unknown : NULL))
                return false;
            if (unknown)
                at->ints[i] = UNK;
        }
        return true;
    }
    default:
        die("to_attr on a tensor parameter");
    }
}

static Node *add_node(Sema *S, Call *c, int opvar)
{
    Graph *g = S->g;
    Node *n = arena_alloc(S->a, sizeof *n);
    n->id = g->nnodes;
    n->op = c->op;
    n->opvar = opvar;
    n->loc = c->e->loc;
    n->kernel = -1;
    n->line_first = S->cur ? S->cur->loc.line : c->e->loc.line;
    n->line_last = S->cur ? S->cur->line_last : c->e->loc.line;
    n->nin = c->nin;
    n->in = arena_alloc(S->a, (size_t)(c->nin + 1) * sizeof *n->in);
    memcpy(n->in, c->in, (size_t)c->nin * sizeof *n->in);
    n->nattr = opvar >= 0 ? KG_MAX_PARAMS : op_info(c->op)->nparams;
    n->attr = arena_alloc(S->a, (size_t)(n->nattr + 1) * sizeof *n->attr);
    memcpy(n->attr, c->attr, (size_t)n->nattr * sizeof *n->attr);
    ARENA_PUSH(S->a, g->nodes, g->nnodes, g->cap_nodes, n);
    return n;
}

static const char *param_names(Sema *S, const OpInfo *o)
{
    Str s = {0};
    for (int i = 0; i < o->nparams; i++)
        str_printf(&s, "%s%s", i ? ", " : "", o->params[i].name);
    char *r = arena_strdup(S->a, s.buf ? s.buf : "");
    str_free(&s);
    return r;
}

/* A call: bind arguments to the signature, check them, apply the rule. */
static bool eval_call(Sema *S, const Expr *e, Results *res)
{
    int op = op_lookup(e->name, strlen(e->name));
    int opvar = -1;
    if (op < 0 && is_pattern(S)) {
        Sym *s = lookup(S, e->name);
        if (s && s->kind == SY_OPVAR && s->poisoned)
            return false;      /* its declaration's error says it all */
        if (s && s->kind == SY_OPVAR) {
            opvar = s->index;
            op = S->g->opvars[opvar].ops[0];
        }
    }
    if (op < 0) {
        const char *sug = op_suggest(e->name);
        if (sug)
            return fail(S, e->loc, "unknown op '%s' (did you mean '%s'?)",
                        e->name, sug);
        return fail(S, e->loc, "unknown op '%s'", e->name);
    }
    const OpInfo *o = op_info(op);
    const Expr *bound[KG_MAX_PARAMS] = {0};
    Loc where[KG_MAX_PARAMS];
    int next = 0;
    for (int i = 0; i < e->nargs; i++) {
        int p;
        if (e->kw[i]) {
            p = op_param(op, e->kw[i]);
            if (p < 0)
                return fail(S, e->kwloc[i], "%s has no argument '%s' (it takes: "
                            "%s)", o->name, e->kw[i], param_names(S, o));
            if (bound[p])
                return fail(S, e->kwloc[i], "%s: argument '%s' given twice",
                            o->name, e->kw[i]);
        } else {
            p = next++;
            if (p >= o->nparams)
                return fail(S, e->args[i]->loc, "%s takes at most %d argument%s "
                            "(%s), got %d", o->name, o->nparams,
                            o->nparams == 1 ? "" : "s",
                            param_names(S, o), e->nargs);
        }
        bound[p] = e->args[i];
        where[p] = e->args[i]->loc;
    }
    Call c = {.op = op, .e = e};
    for (int p = 0; p < o->nparams; p++) {
        const Param *pp = &o->params[p];
        const Expr *a = bound[p];
        if (!a) {
            if (!pp->optional)
                return fail(S, e->loc, "%s: missing argument '%s' (it takes: %s)",
                            o->name, pp->name, param_names(S, o));
            if (pp->has_default) {
                c.attr[p] = pp->def;
                c.attr[p].hole = -1;
                c.attr[p].loc = e->loc;
            } else {
                c.attr[p].hole = -1;
            }
            if (pp->kind == P_OPT_TENSOR)
                c.in[c.nin++] = NULL;
            continue;
        }
        if (pp->kind == P_TENSOR_LIST) {
            if (a->kind != E_LIST)
                return fail(S, a->loc, "%s: %s must be a list of tensors such "
                            "as [a, b]", o->name, pp->name);
            if (a->nargs > 64)
                return fail(S, a->loc, "%s: at most 64 tensors", o->name);
            for (int j = 0; j < a->nargs; j++) {
                Value *v = eval(S, a->args[j]);
                if (!v)
                    return false;
                c.inloc[c.nin] = a->args[j]->loc;
                c.in[c.nin++] = v;
            }
            continue;
        }
        if (pp->kind == P_TENSOR || pp->kind == P_OPT_TENSOR) {
            Value *v = eval(S, a);
            if (!v)
                return false;
            c.inloc[c.nin] = where[p];
            c.in[c.nin++] = v;
            continue;
        }
        if (!to_attr(S, op, pp, a, &c.attr[p]))
            return false;
    }
    int before = S->g->nvalues;
    if (!apply_rule(S, &c))
        return false;
    Node *n = add_node(S, &c, opvar);
    n->nout = S->g->nvalues - before;
    n->out = arena_alloc(S->a, (size_t)n->nout * sizeof *n->out);
    for (int i = 0; i < n->nout; i++) {
        Value *v = S->g->values[before + i];
        if (!check_size(S, v, e->loc))
            return false;
        v->def = n;
        v->def_res = i;
        n->out[i] = v;
    }
    res->v = n->out;
    res->n = n->nout;
    return true;
}

static Value *eval_op(Sema *S, int op, const Expr *e, Value *a, Value *b)
{
    Call c = {.op = op, .e = e, .nin = b ? 2 : 1};
    c.in[0] = a;
    c.in[1] = b;
    c.inloc[0] = e->lhs->loc;
    if (b)
        c.inloc[1] = e->rhs->loc;
    for (int i = 0; i < KG_MAX_PARAMS; i++)
        c.attr[i].hole = -1;
    int before = S->g->nvalues;
    if (!apply_rule(S, &c))
        return NULL;
    Node *n = add_node(S, &c, -1);
    Value *v = S->g->values[before];
    if (!check_size(S, v, e->loc))
        return NULL;
    n->nout = 1;
    n->out = arena_alloc(S->a, sizeof *n->out);
    n->out[0] = v;
    v->def = n;
    return v;
}

static Value *eval(Sema *S, const Expr *e)
{
    switch (e->kind) {
    case E_NUM:
        return new_const(S, e->num, e->is_int, e->loc);
    case E_STR:
        fail(S, e->loc, "expected a tensor, found a string");
        return NULL;
    case E_LIST:
        fail(S, e->loc, "expected a tensor, found a list");
        return NULL;
    case E_NAME: {
        double x;
        if (float_lit(e, &x))
            return new_const(S, x, false, e->loc);
        Sym *s = lookup(S, e->name);
        if (!s) {
            /* every assignment of a name that is not bound yet comes later
             * (or is this very statement, as in a = x + a) */
            Sym *l = lookup_in(S->later, S->latercap, e->name);
            if (l) {
                fail(S, e->loc, "'%s' is used before its definition", e->name);
                diag_note(S->d, l->loc, "'%s' is defined here", e->name);
            } else {
                fail(S, e->loc, "undefined name '%s'", e->name);
            }
            return NULL;
        }
        if (s->poisoned)
            return NULL;       /* the definition's error says it all */
        if (s->kind == SY_VALUE)
            return s->v;
        if (s->kind == SY_PARAM) {
            Value *v = new_const(S, NAN, false, e->loc);
            v->hole = s->index;
            return v;
        }
        fail(S, e->loc, "'%s' is %s, not a tensor; %s", e->name,
             a_kind(s), s->kind == SY_DIM
                 ? "dims appear only in shapes and integer arguments"
                 : "it cannot be used as a value");
        return NULL;
    }
    case E_NEG: {
        Value *x = eval(S, e->lhs);
        if (!x)
            return NULL;
        if (x->kind == V_CONST && x->hole < 0)
            return new_const(S, -x->cval, x->cint, e->loc);
        return eval_op(S, OP_NEG, e, x, NULL);
    }
    case E_BINOP: {
        Value *l = eval(S, e->lhs), *r = l ? eval(S, e->rhs) : NULL;
        if (!r)
            return NULL;
        if (l->kind == V_CONST && r->kind == V_CONST) {
            if (l->hole >= 0 || r->hole >= 0) {
                fail(S, e->loc, "an operation on pattern params alone cannot "
                     "be matched");
                return NULL;
            }
            double x = l->cval, y = r->cval;
            return new_const(S, e->op == '+' ? x + y : e->op == '-' ? x - y
                              : e->op == '*' ? x * y : x / y,
                             l->cint && r->cint && e->op != '/', e->loc);
        }
        int op = e->op == '+' ? OP_ADD : e->op == '-' ? OP_SUB
               : e->op == '*' ? OP_MUL : OP_DIV;
        return eval_op(S, op, e, l, r);
    }
    case E_CALL: {
        Results res;
        if (!eval_call(S, e, &res))
            return NULL;
        if (res.n != 1) {
            fail(S, e->loc, "%s gives %d results here; assign them to names "
                 "first (a, b = %s(...))", e->name, res.n, e->name);
            return NULL;
        }
        return res.v[0];
    }
    }
    return NULL;
}

/* ---- statements ------------------------------------------------------- */

/* The last --dim/--dtype for name wins, as with most command lines. */
static Override *find_override(Sema *S, const char *name, bool is_dtype)
{
    Override *last = NULL;
    for (int i = 0; i < S->nov; i++)
        if (S->ov[i].is_dtype == is_dtype && !strcmp(S->ov[i].name, name)) {
            S->ov[i].used = true;
            last = &S->ov[i];
        }
    return last;
}

static void stmt_dim(Sema *S, Stmt *st)
{
    Graph *g = S->g;
    for (int i = 0; i < st->nnames; i++) {
        /* the default is evaluated before the name exists, so `dim C = C`
         * is an undefined dim, not a read of itself */
        DimVar dv = {.name = st->names[i], .loc = st->name_locs[i]};
        Override *ov = find_override(S, st->names[i], false);
        if (is_pattern(S)) {
            if (st->values[i])
                fail(S, st->values[i]->loc, "pattern dims are unified with the "
                     "model's; they take no value");
        } else if (ov) {
            char *end;
            errno = 0;
            long long v = strtoll(ov->value, &end, 10);
            if (errno || *end || end == ov->value || v <= 0 || v > INT32_MAX)
                fail(S, (Loc){0}, "--dim %s=%s: expected an integer from 1 to %d",
                     ov->name, ov->value, INT32_MAX);
            else
                dv.value = v, dv.bound = true;
        } else if (st->values[i]) {
            int64_t v;
            if (eval_axis_dim(S, st->values[i], &v, false))
                dv.value = v, dv.bound = true;
        } else {
            fail(S, st->name_locs[i], "dim '%s' has no value; give one here "
                 "(dim %s = 64) or with --dim %s=64", st->names[i],
                 st->names[i], st->names[i]);
        }
        Sym *s = declare(S, st->names[i], st->name_locs[i], SY_DIM);
        if (!s)
            continue;
        s->index = g->ndims;
        ARENA_PUSH(S->a, g->dims, g->ndims, g->cap_dims, dv);
    }
}

static void stmt_dtype(Sema *S, Stmt *st)
{
    Graph *g = S->g;
    Sym *s = declare(S, st->names[0], st->name_locs[0], SY_DTYPE);
    if (!s)
        return;
    DTypeVar dv = {.name = st->names[0], .loc = st->name_locs[0]};
    Override *ov = find_override(S, st->names[0], true);
    const char *val = ov ? ov->value : st->value_name;
    if (val) {
        int t = dtype_lookup(val);
        if (is_pattern(S))
            fail(S, st->value_loc, "pattern dtypes are variables; they take no "
                 "value");
        else if (t < 0 && ov)
            fail(S, (Loc){0}, "--dtype %s=%s: expected f16, bf16, f32, i32 or "
                 "bool", ov->name, ov->value);
        else if (t < 0)
            fail(S, st->value_loc, "unknown dtype '%s' (expected f16, bf16, f32, "
                 "i32 or bool)", val);
        else
            dv.dt = (DType)t, dv.bound = true;
    } else if (!is_pattern(S)) {
        fail(S, st->name_locs[0], "dtype '%s' has no value; write dtype %s = "
             "f16 or pass --dtype %s=f16", st->names[0], st->names[0],
             st->names[0]);
    }
    s->index = g->ndtypes;
    ARENA_PUSH(S->a, g->dtypes, g->ndtypes, g->cap_dtypes, dv);
}

static void input_checked(Sema *S, Stmt *st);

/* Declare the name first, so that a bad type does not also make every use
 * of the name an error. */
static void stmt_input(Sema *S, Stmt *st)
{
    if (lookup(S, st->names[0])) {
        input_checked(S, st);      /* reports the redefinition */
        return;
    }
    input_checked(S, st);
    if (!lookup(S, st->names[0])) {
        Sym *s = insert_in(S->a, &S->tab, &S->tabcap, &S->tabn, st->names[0]);
        s->kind = SY_VALUE;
        s->loc = st->name_locs[0];
        s->declared = s->poisoned = true;
        s->is_weight = st->kind == S_WEIGHT;
    }
}

static void input_checked(Sema *S, Stmt *st)
{
    Graph *g = S->g;
    Value *v = new_value(S, st->kind == S_INPUT ? V_INPUT : V_WEIGHT,
                         st->name_locs[0]);
    v->name = st->names[0];
    v->version = 1;
    const TypeExpr *ty = &st->type;
    int t = dtype_lookup(ty->dtype);
    if (t >= 0) {
        v->dt = (DType)t;
    } else {
        Sym *s = lookup(S, ty->dtype);
        if (!s || s->kind != SY_DTYPE) {
            fail(S, ty->dtype_loc, "unknown dtype '%s' (expected f16, bf16, f32, "
                 "i32, bool or a declared dtype name)", ty->dtype);
            return;
        }
        DTypeVar *dv = &g->dtypes[s->index];
        if (dv->bound)
            v->dt = dv->dt;
        else
            v->dtvar = s->index, v->dt = DT_F32;
    }
    if (ty->ndims > KG_MAX_RANK) {
        fail(S, ty->dims[KG_MAX_RANK]->loc, "%d axes; at most %d are supported",
             ty->ndims, KG_MAX_RANK);
        return;
    }
    v->rank = ty->ndims;
    for (int i = 0; i < ty->ndims; i++) {
        if (!eval_axis_dim(S, ty->dims[i], &v->shape[i], is_pattern(S)))
            return;
        if (is_pattern(S))
            v->sym[i] = ty->dims[i];
    }
    if (!check_size(S, v, st->name_locs[0]))
        return;
    Sym *s = declare(S, st->names[0], st->name_locs[0], SY_VALUE);
    if (!s)
        return;
    s->v = v;
    s->declared = true;
    s->is_weight = st->kind == S_WEIGHT;
    s->versions = 1;
    ARENA_PUSH(S->a, g->inputs, g->ninputs, g->cap_inputs, v);
}

static void stmt_opvar(Sema *S, Stmt *st)
{
    Graph *g = S->g;
    if (!is_pattern(S)) {
        fail(S, st->loc, "'op' variables are allowed only in pattern files");
        return;
    }
    Sym *s = declare(S, st->names[0], st->name_locs[0], SY_OPVAR);
    if (!s)
        return;
    s->poisoned = true;        /* until every op of the set checks out */
    OpVar ov = {.name = st->names[0], .loc = st->name_locs[0]};
    ov.ops = arena_alloc(S->a, (size_t)st->nopset * sizeof *ov.ops);
    for (int i = 0; i < st->nopset; i++) {
        int op = op_lookup(st->opset[i], strlen(st->opset[i]));
        if (op < 0) {
            const char *sug = op_suggest(st->opset[i]);
            fail(S, st->opset_locs[i], "unknown op '%s'%s%s%s", st->opset[i],
                 sug ? " (did you mean '" : "", sug ? sug : "", sug ? "'?)" : "");
            return;
        }
        const OpInfo *a = op_info(op), *b = op_info(ov.ops[0]);
        if (i > 0 && (a->cls != b->cls || a->nparams != b->nparams ||
                      a->nres != b->nres)) {
            fail(S, st->opset_locs[i], "'%s' does not take the same arguments "
                 "as '%s'; an op variable needs ops of one signature",
                 a->name, b->name);
            return;
        }
        ov.ops[ov.nops++] = op;
    }
    s->index = g->nopvars;
    s->poisoned = false;
    ARENA_PUSH(S->a, g->opvars, g->nopvars, g->cap_opvars, ov);
}

/* After a failed right side, the assigned names exist but are poisoned. */
static void poison(Sema *S, Stmt *st)
{
    for (int i = 0; i < st->nnames; i++) {
        Sym *s = lookup(S, st->names[i]);
        if (s && (s->kind != SY_VALUE || s->declared))
            continue;
        if (!s) {
            s = insert_in(S->a, &S->tab, &S->tabcap, &S->tabn, st->names[i]);
            s->kind = SY_VALUE;
            s->loc = st->name_locs[i];
        }
        s->poisoned = true;
    }
}

static void stmt_assign(Sema *S, Stmt *st)
{
    Results res = {0};
    Value *one;
    if (st->rhs->kind == E_CALL) {
        if (!eval_call(S, st->rhs, &res)) {
            poison(S, st);
            return;
        }
    } else {
        if (!(one = eval(S, st->rhs))) {
            poison(S, st);
            return;
        }
        res.v = &one;
        res.n = 1;
    }
    if (res.n != st->nnames) {
        fail(S, st->loc, "%d name%s assigned but the right side gives %d "
             "result%s", st->nnames, st->nnames == 1 ? "" : "s", res.n,
             res.n == 1 ? "" : "s");
        poison(S, st);
        return;
    }
    for (int i = 0; i < st->nnames; i++) {
        for (int j = 0; j < i; j++)
            if (!strcmp(st->names[i], st->names[j])) {
                fail(S, st->name_locs[i], "'%s' is assigned twice in one "
                     "statement", st->names[i]);
                poison(S, st);
            return;
            }
        Value *v = res.v[i];
        if (v->kind == V_CONST) {
            fail(S, st->rhs->loc, "'%s' would be a constant; write the number "
                 "where it is used", st->names[i]);
            poison(S, st);
            return;
        }
        Sym *s = lookup(S, st->names[i]);
        if (s && (s->kind != SY_VALUE || s->declared)) {
            fail(S, st->name_locs[i], "cannot assign to %s '%s'",
                 sym_kind_name(s), st->names[i]);
            diag_note(S->d, s->loc, "'%s' is declared here", st->names[i]);
            return;
        }
        if (v->name && v->kind != V_NODE) {
            fail(S, st->rhs->loc, "'%s' = '%s' only renames %s; use '%s' "
                 "directly", st->names[i], v->name,
                 v->kind == V_INPUT ? "an input" : "a weight", v->name);
            poison(S, st);
            return;
        }
        if (v->name) {
            fail(S, st->rhs->loc, "'%s' = '%s' only renames a value; use '%s' "
                 "directly", st->names[i], v->name, v->name);
            poison(S, st);
            return;
        }
        if (!s) {
            s = insert_in(S->a, &S->tab, &S->tabcap, &S->tabn, st->names[i]);
            s->kind = SY_VALUE;
            s->loc = st->name_locs[i];
        }
        s->poisoned = false;
        v->name = st->names[i];
        v->version = ++s->versions;
        v->loc = st->name_locs[i];
        s->v = v;
    }
}

static void stmt_output(Sema *S, Stmt *st)
{
    Graph *g = S->g;
    for (int i = 0; i < st->nnames; i++) {
        Sym *s = lookup(S, st->names[i]);
        if (!s) {
            fail(S, st->name_locs[i], "output '%s' is never defined",
                 st->names[i]);
            continue;
        }
        if (s->poisoned)
            continue;
        if (s->kind != SY_VALUE) {
            fail(S, st->name_locs[i], "output '%s' is %s, not a value",
                 st->names[i], a_kind(s));
            continue;
        }
        if (s->declared) {
            fail(S, st->name_locs[i], "output '%s' is %s; outputs must be "
                 "computed", st->names[i], a_kind(s));
            continue;
        }
        Value *v = s->v;
        if (v->is_output) {
            fail(S, st->name_locs[i], "'%s' is output twice", st->names[i]);
            diag_note(S->d, S->output_locs[v->output_index],
                      "'%s' is first output here", st->names[i]);
            continue;
        }
        int k = g->noutputs;
        ARENA_PUSH(S->a, S->output_locs, k, S->cap_output_locs, st->name_locs[i]);
        v->is_output = true;
        v->output_index = g->noutputs;
        ARENA_PUSH(S->a, g->outputs, g->noutputs, g->cap_outputs, v);
    }
}

/* Drop nodes whose results reach no output; warn about named ones. */
static void remove_dead(Sema *S)
{
    Graph *g = S->g;
    bool *live = arena_alloc(S->a, (size_t)g->nnodes + 1);
    bool *vlive = arena_alloc(S->a, (size_t)g->nvalues + 1);
    for (int i = 0; i < g->noutputs; i++)
        vlive[g->outputs[i]->id] = true;
    for (int i = g->nnodes - 1; i >= 0; i--) {
        Node *n = g->nodes[i];
        for (int j = 0; j < n->nout; j++)
            live[i] |= vlive[n->out[j]->id];
        if (live[i])
            for (int j = 0; j < n->nin; j++)
                if (n->in[j])
                    vlive[n->in[j]->id] = true;
    }
    int k = 0, warned_line = -1;
    for (int i = 0; i < g->nnodes; i++) {
        Node *n = g->nodes[i];
        if (live[i]) {
            n->id = k;
            g->nodes[k++] = n;
            continue;
        }
        for (int j = 0; j < n->nout; j++)
            if (n->out[j]->name && !is_pattern(S) &&
                n->line_first != warned_line) {
                diag_warning(S->d, n->out[j]->loc, "'%s' is computed but "
                             "never used", value_label(S->a, n->out[j]));
                warned_line = n->line_first;
            }
    }
    g->nnodes = k;
    for (int i = 0; i < g->ninputs; i++)
        if (!vlive[g->inputs[i]->id] && !is_pattern(S))
            diag_warning(S->d, g->inputs[i]->loc, "%s '%s' is never used",
                         g->inputs[i]->kind == V_INPUT ? "input" : "weight",
                         g->inputs[i]->name);
    for (int i = 0; i < g->nnodes; i++) {
        Node *n = g->nodes[i];
        for (int j = 0; j < n->nin; j++)
            if (n->in[j])
                ARENA_PUSH(S->a, n->in[j]->uses, n->in[j]->nuses,
                           n->in[j]->cap_uses, n);
    }
}

Graph *sema(const Ast *ast, Override *ov, int nov, Diag *d, Arena *a)
{
    if (d->nerrors)
        return NULL;
    Sema S = {.d = d, .a = a, .ov = ov, .nov = nov};
    Graph *g = S.g = arena_alloc(a, sizeof *g);
    g->file = ast->file;
    if (ast->nstmts == 0)
        return NULL;
    Stmt *first = ast->stmts[0];
    if (first->kind != S_MODEL && first->kind != S_PATTERN) {
        fail(&S, first->loc, "a file starts with 'model NAME' (or 'pattern "
             "NAME' in a pattern file)");
        return NULL;
    }
    g->is_pattern = first->kind == S_PATTERN;
    g->name = first->names[0];
    g->name_loc = first->name_locs[0];
    /* Where each assigned name is first defined, for "used before". */
    int ln = 0;
    for (int i = 0; i < ast->nstmts; i++) {
        Stmt *st = ast->stmts[i];
        if (st->kind != S_ASSIGN)
            continue;
        for (int j = 0; j < st->nnames; j++)
            if (!lookup_in(S.later, S.latercap, st->names[j]))
                insert_in(a, &S.later, &S.latercap, &ln, st->names[j])->loc =
                    st->name_locs[j];
    }
    int pcap = 0, plcap = 0;
    for (int i = 0; i < ast->nstmts && !d->stopped; i++) {
        Stmt *st = S.cur = ast->stmts[i];
        switch (st->kind) {
        case S_MODEL:
        case S_PATTERN:
            if (i > 0) {
                fail(&S, st->loc, "a file holds one %s",
                     g->is_pattern ? "pattern" : "model");
                diag_note(d, first->loc, "the %s is named here",
                          g->is_pattern ? "pattern" : "model");
            }
            if (st->nnames != 1)
                fail(&S, st->name_locs[1], "one name expected");
            break;
        case S_TEMPLATE:
            if (!g->is_pattern)
                fail(&S, st->loc, "'template' is allowed only in pattern files");
            else if (g->template_name)
                fail(&S, st->loc, "the template is already named");
            else
                g->template_name = st->names[0];
            break;
        case S_OPTIONAL:
            if (!g->is_pattern)
                fail(&S, st->loc, "'optional' is allowed only in pattern files");
            else if (g->optional)
                fail(&S, st->loc, "the pattern is already optional");
            else
                g->optional = true;
            break;
        case S_DIM: stmt_dim(&S, st); break;
        case S_DTYPE: stmt_dtype(&S, st); break;
        case S_INPUT: case S_WEIGHT: stmt_input(&S, st); break;
        case S_PARAM:
            if (!g->is_pattern) {
                fail(&S, st->loc, "'param' is allowed only in pattern files");
                break;
            }
            for (int j = 0; j < st->nnames; j++) {
                Sym *s = declare(&S, st->names[j], st->name_locs[j], SY_PARAM);
                if (!s)
                    continue;
                s->index = g->nparams;
                int n2 = g->nparams;
                ARENA_PUSH(a, g->param_locs, n2, plcap, st->name_locs[j]);
                ARENA_PUSH(a, g->params, g->nparams, pcap, st->names[j]);
            }
            break;
        case S_OPVAR: stmt_opvar(&S, st); break;
        case S_ASSIGN: stmt_assign(&S, st); break;
        case S_OUTPUT: stmt_output(&S, st); break;
        }
    }
    S.cur = NULL;
    for (int i = 0; i < nov; i++)
        if (!ov[i].used)
            fail(&S, (Loc){0}, "--%s %s=%s: the %s has no %s '%s'",
                 ov[i].is_dtype ? "dtype" : "dim", ov[i].name, ov[i].value,
                 g->is_pattern ? "pattern" : "model",
                 ov[i].is_dtype ? "dtype" : "dim", ov[i].name);
    if (g->is_pattern && !g->template_name && !d->nerrors)
        fail(&S, g->name_loc, "pattern '%s' names no template (add 'template "
             "NAME')", g->name);
    if (!g->noutputs && !d->nerrors)
        fail(&S, g->name_loc, "%s '%s' has no output (add 'output NAME')",
             g->is_pattern ? "pattern" : "model", g->name);
    if (d->nerrors)
        return NULL;
    remove_dead(&S);
    return g;
}

/* ---- -d dump ----------------------------------------------------------- */

static void dump_attr(FILE *fp, const Attr *at)
{
    switch (at->kind) {
    case A_INT: fprintf(fp, "%lld", (long long)at->i); break;
    case A_FLOAT: fprintf(fp, "%.17g", at->f); break;
    case A_BOOL: fprintf(fp, "%s", at->i ? "true" : "false"); break;
    case A_STR: fprintf(fp, "\"%s\"", at->s); break;
    case A_DTYPE: fprintf(fp, "%s", dtype_name((DType)at->i)); break;
    case A_INTS:
        fputc('[', fp);
        for (int i = 0; i < at->n; i++)
            fprintf(fp, "%s%lld", i ? ", " : "", (long long)at->ints[i]);
        fputc(']', fp);
        break;
    case A_NONE: break;
    }
}

void graph_dump(FILE *fp, const Graph *g)
{
    Arena *a = arena_new();
    fprintf(fp, "%s %s\n", g->is_pattern ? "pattern" : "model", g->name);
    for (int i = 0; i < g->ninputs; i++) {
        Value *v = g->inputs[i];
        fprintf(fp, "  %-6s %s : %s\n", v->kind == V_INPUT ? "input" : "weight",
                v->name, shape_str(a, v));
    }
    for (int i = 0; i < g->nnodes; i++) {
        Node *n = g->nodes[i];
        const OpInfo *o = op_info(n->op);
        fprintf(fp, "  ");
        for (int j = 0; j < n->nout; j++)
            fprintf(fp, "%s%s:%s", j ? ", " : "", value_label(a, n->out[j]),
                    shape_str(a, n->out[j]));
        fprintf(fp, " = %s(", n->opvar >= 0 ? g->opvars[n->opvar].name : o->name);
        bool first = true;
        for (int j = 0; j < n->nin; j++) {
            fprintf(fp, "%s%s", first ? "" : ", ",
                    n->in[j] ? value_label(a, n->in[j]) : "-");
            first = false;
        }
        for (int p = 0; p < o->nparams; p++) {
            const Attr *at = &n->attr[p];
            if (at->kind == A_NONE)
                continue;
            fprintf(fp, "%s%s=", first ? "" : ", ", o->params[p].name);
            if (at->hole >= 0 && g->is_pattern && at->kind != A_DTYPE)
                fprintf(fp, "%s", g->params[at->hole]);
            else
                dump_attr(fp, at);
            first = false;
        }
        fprintf(fp, ")    # line %d\n", n->line_first);
    }
    fprintf(fp, "  output");
    for (int i = 0; i < g->noutputs; i++)
        fprintf(fp, "%s %s", i ? "," : "", value_label(a, g->outputs[i]));
    fprintf(fp, "\n");
    arena_free(a);
}

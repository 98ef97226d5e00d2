/*
 * interp.c -- the double-precision reference interpreter.
 *
 * Evaluates a checked model graph on seeded random inputs and weights, every
 * value held as a row-major array of doubles.  It is the golden reference
 * every generated kernel is checked against, so each op follows PyTorch's
 * definition (NaN propagation included) and nothing is rounded except where
 * the model says so: inputs and weights are rounded to their declared dtype
 * when they are generated, and `cast` rounds to its target dtype.
 *
 * Two evaluation orders compute the same numbers up to double rounding:
 *  - op by op (no plan): g->nodes in topological order, one whole tensor per
 *    node;
 *  - kernel by kernel (a plan), each kernel the way its generated code will:
 *    an elementwise kernel element by element, mapping each output index
 *    back through the ops and folded layout ops inside it (ew_eval); a fused
 *    kernel through a direct reference of its fused algorithm (online
 *    softmax, LayerNorm folded into the GEMM, GLU column pairing, ...).
 * Comparing the two is what makes the planner's fusion decisions testable.
 *
 * Invariants: vt[v->id] is the tensor of value v once computed, with v's
 * shape; each value is computed at most once; a tensor is freed after the
 * last step (node or kernel) that reads it unless it is a graph output; after
 * interp_run nothing is left but the copies in outs.  Input the interpreter
 * cannot handle is an error message in err, never a crash; a broken
 * invariant of kgen itself (a parameter name missing from ops.def) dies.
 */
#include "kgen.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum {
    EW_MAX_DEPTH = 2048,       /* deepest op chain inside one elementwise
                                  kernel (ew_eval recurses once per op) */
    ATTN_BLOCK = 64,           /* keys per step of the online softmax */
};

typedef struct Interp {
    const Graph *g;
    Tensor **vt;               /* per value id: its tensor, NULL until computed */
    int *last;                 /* per value id: last step reading it, -1 none */
    Str *err;                  /* messages; may be NULL */
    uint64_t seed;             /* of the random inputs */
    int64_t sstride;           /* > 1: heavy ops compute only sampled rows */
    const Tensor *given;       /* per g->inputs: data to use (n > 0), or
                                  NULL: random */
} Interp;

/* Row sampling (interp_kernel_sampled): linear, matmul, conv1d and sdpa
 * compute one output row in about sstride, always the first and the last
 * (tile tails live there), and leave NaN in the others.  NaN propagates
 * through every later op, so a finite reference element was computed
 * exactly as in a full run. */
static bool row_wanted(const Interp *I, int64_t r, int64_t rows)
{
    if (I->sstride <= 1 || r == 0 || r == rows - 1)
        return true;
    uint64_t h = (uint64_t)r * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
    return h % (uint64_t)I->sstride == 0;
}

/* ---------------------------------------------------------------------------
 * Messages, shapes and index arithmetic
 * ------------------------------------------------------------------------- */

__attribute__((format(printf, 3, 4)))
static int fail(Interp *I, const Node *n, const char *fmt, ...)
{
    if (!I->err)
        return -1;
    const char *path = I->g->file && I->g->file->path ? I->g->file->path
                                                      : I->g->name;
    if (n)
        str_printf(I->err, "%s:%d: reference interpreter: %s: ",
                   path ? path : "?", n->loc.line, op_info(n->op)->name);
    else
        str_printf(I->err, "%s: reference interpreter: ", path ? path : "?");
    va_list ap;
    va_start(ap, fmt);
    str_vprintf(I->err, fmt, ap);
    va_end(ap);
    return -1;
}

/* Printable names and shapes for messages, returned by value so that they
 * can be used inside one printf call. */
typedef struct { char s[KG_MAX_IDENT + 24]; } Label;
typedef struct { char s[KG_MAX_RANK * 22 + 4]; } ShapeStr;

static Label label(const Value *v)
{
    Label l;
    if (!v)
        snprintf(l.s, sizeof l.s, "(absent)");
    else if (v->name && v->version > 1)
        snprintf(l.s, sizeof l.s, "%.*s#%d", KG_MAX_IDENT, v->name, v->version);
    else if (v->name)
        snprintf(l.s, sizeof l.s, "%.*s", KG_MAX_IDENT, v->name);
    else
        snprintf(l.s, sizeof l.s, "%%%d", v->id);
    return l;
}

static const char *kname(const Kernel *k)
{
    return k->name ? k->name : "(unnamed)";
}

static ShapeStr shape_str(int rank, const int64_t *shape)
{
    ShapeStr r;
    size_t len = 0;
    r.s[len++] = '[';
    r.s[len] = 0;
    for (int d = 0; d < rank && d < KG_MAX_RANK; d++)
        len += (size_t)snprintf(r.s + len, sizeof r.s - len, "%s%lld",
                                d ? ", " : "", (long long)shape[d]);
    snprintf(r.s + len, sizeof r.s - len, "]");
    return r;
}

static bool same_shape(int ra, const int64_t *a, int rb, const int64_t *b)
{
    if (ra != rb)
        return false;
    for (int d = 0; d < ra; d++)
        if (a[d] != b[d])
            return false;
    return true;
}

static int64_t prod(int n, const int64_t *shape)
{
    int64_t p = 1;
    for (int d = 0; d < n; d++)
        p *= shape[d];         /* shapes were checked when allocated */
    return p;
}

static void row_strides(int rank, const int64_t *shape, int64_t *st)
{
    int64_t s = 1;
    for (int d = rank - 1; d >= 0; d--) {
        st[d] = s;
        s *= shape[d];
    }
}

static int64_t lin_index(int rank, const int64_t *shape, const int64_t *idx)
{
    int64_t l = 0;
    for (int d = 0; d < rank; d++)
        l = l * shape[d] + idx[d];
    return l;
}

/* Only called for tensors with at least one element: no shape is 0. */
static void delin(int64_t lin, int rank, const int64_t *shape, int64_t *idx)
{
    for (int d = rank - 1; d >= 0; d--) {
        idx[d] = lin % shape[d];
        lin /= shape[d];
    }
}

/* numpy broadcasting: shape (rank) aligned at the right of oshape (orank). */
static bool bcast_ok(int rank, const int64_t *shape, int orank,
                     const int64_t *oshape)
{
    if (rank > orank)
        return false;
    for (int a = 0; a < rank; a++) {
        int64_t s = shape[a], o = oshape[a + orank - rank];
        if (s != 1 && s != o)
            return false;
    }
    return true;
}

/* Strides, per axis of an orank-axis broadcast shape, of the first tn axes
 * of a tensor (shape, strides st) aligned at the right; 0 where broadcast. */
static void bstrides(int tn, const int64_t *shape, const int64_t *st,
                     int orank, int64_t *out)
{
    for (int d = 0; d < orank; d++) {
        int a = d - (orank - tn);
        out[d] = a < 0 || shape[a] == 1 ? 0 : st[a];
    }
}

static void bcast_strides(int rank, const int64_t *shape, int orank,
                          int64_t *out)
{
    int64_t st[KG_MAX_RANK];
    row_strides(rank, shape, st);
    bstrides(rank, shape, st, orank, out);
}

/* The offset of the lin-th index of shape (n axes) under strides st. */
static int64_t offset_of(int64_t lin, int n, const int64_t *shape,
                         const int64_t *st)
{
    int64_t off = 0;
    for (int d = n - 1; d >= 0; d--) {
        off += lin % shape[d] * st[d];
        lin /= shape[d];
    }
    return off;
}

/* A row-major walk over shape with the offsets of up to three operands. */
typedef struct Iter {
    int rank;
    int64_t shape[KG_MAX_RANK], idx[KG_MAX_RANK];
    int64_t st[3][KG_MAX_RANK];
    int64_t off[3];
} Iter;

static void iter_init(Iter *it, int rank, const int64_t *shape)
{
    memset(it, 0, sizeof *it);
    it->rank = rank;
    memcpy(it->shape, shape, (size_t)rank * sizeof *shape);
}

static void iter_next(Iter *it)
{
    for (int d = it->rank - 1; d >= 0; d--) {
        for (int k = 0; k < 3; k++)
            it->off[k] += it->st[k][d];
        if (++it->idx[d] < it->shape[d])
            return;
        for (int k = 0; k < 3; k++)
            it->off[k] -= it->st[k][d] * it->shape[d];
        it->idx[d] = 0;
    }
}

/* ---------------------------------------------------------------------------
 * Tensors
 * ------------------------------------------------------------------------- */

static Tensor *tensor_new(Interp *I, const Node *n, DType dt, int rank,
                          const int64_t *shape)
{
    if (rank < 0 || rank > KG_MAX_RANK) {
        fail(I, n, "rank %d is not supported", rank);
        return NULL;
    }
    int64_t cnt = 1;
    for (int d = 0; d < rank; d++)
        if (shape[d] < 0 || __builtin_mul_overflow(cnt, shape[d], &cnt) ||
            (uint64_t)cnt > KG_MAX_BYTES / sizeof(double)) {
            fail(I, n, "a tensor of shape %s is too large for the reference "
                 "interpreter", shape_str(rank, shape).s);
            return NULL;
        }
    Tensor *t = calloc(1, sizeof *t);
    double *data = malloc((size_t)(cnt ? cnt : 1) * sizeof(double));
    if (!t || !data) {
        free(t);
        free(data);
        fail(I, n, "out of memory for a tensor of shape %s",
             shape_str(rank, shape).s);
        return NULL;
    }
    t->dt = dt;
    t->rank = rank;
    memcpy(t->shape, shape, (size_t)rank * sizeof *shape);
    t->n = cnt;
    t->data = data;
    return t;
}

static void tensor_del(Tensor *t)
{
    if (t) {
        free(t->data);
        free(t);
    }
}

void tensor_free(Tensor *t)
{
    if (!t)
        return;
    free(t->data);
    memset(t, 0, sizeof *t);
}

/* Allocate the tensor of value v (uninitialised data). */
static Tensor *store(Interp *I, const Node *n, const Value *v)
{
    if (!v) {
        fail(I, n, "missing result value");
        return NULL;
    }
    if (v->id < 0 || v->id >= I->g->nvalues)
        die("value id %d out of range", v->id);
    if (I->vt[v->id]) {
        fail(I, n, "'%s' is computed twice (the plan covers its op twice?)",
             label(v).s);
        return NULL;
    }
    Tensor *t = tensor_new(I, n, v->dt, v->rank, v->shape);
    I->vt[v->id] = t;
    return t;
}

/* The tensor of an operand: computed earlier, or a constant made now. */
static Tensor *get(Interp *I, const Node *n, const Value *v)
{
    if (!v) {
        fail(I, n, "a required operand is absent");
        return NULL;
    }
    if (v->id < 0 || v->id >= I->g->nvalues)
        die("value id %d out of range", v->id);
    if (I->vt[v->id])
        return I->vt[v->id];
    if (v->kind == V_CONST) {
        Tensor *t = store(I, n, v);
        if (t)
            for (int64_t i = 0; i < t->n; i++)
                t->data[i] = v->cval;
        return t;
    }
    fail(I, n, "'%s' is read before it is computed", label(v).s);
    return NULL;
}

/* Free what no later step reads. */
static void release(Interp *I, const Value *v, int step)
{
    if (v && I->vt[v->id] && !v->is_output && I->last[v->id] <= step) {
        tensor_del(I->vt[v->id]);
        I->vt[v->id] = NULL;
    }
}

static void release_node(Interp *I, const Node *n, int step)
{
    for (int i = 0; i < n->nin; i++)
        release(I, n->in[i], step);
    for (int i = 0; i < n->nout; i++)
        release(I, n->out[i], step);
}

/* ---------------------------------------------------------------------------
 * Rounding to a dtype, and the random inputs
 * ------------------------------------------------------------------------- */

/* Round x to the nearest (ties to even) number with mant fraction bits and
 * minimum normal exponent emin; above maxv it overflows to infinity. */
static double round_fp(double x, int mant, int emin, double maxv)
{
    if (!isfinite(x) || x == 0)
        return x;
    int e;
    frexp(x, &e);              /* |x| = f * 2^e, f in [0.5, 1) */
    int ex = e - 1 < emin ? emin : e - 1;
    double q = ldexp(1.0, ex - mant);   /* the spacing at x */
    double r = rint(x / q) * q;         /* exact scaling; rint ties to even */
    return fabs(r) > maxv ? copysign(INFINITY, x) : r;
}

/* What a device holds after storing x as dt (PyTorch's .to(dt)). */
static double round_to(int dt, double x)
{
    switch (dt) {
    case DT_BOOL:
        return x != 0;         /* NaN is true, as in PyTorch */
    case DT_I32:
        /* Truncation toward zero.  Out of range is undefined in PyTorch;
         * here it saturates and NaN gives 0, as the GPU's cvt.rzi does. */
        if (isnan(x))
            return 0;
        x = trunc(x);
        return x > INT32_MAX ? INT32_MAX : x < INT32_MIN ? INT32_MIN : x;
    case DT_F16:
        return round_fp(x, 10, -14, 65504.0);
    case DT_BF16:
        return round_fp(x, 7, -126, 0x1.fep127);
    case DT_F32:
        return (double)(float)x; /* C rounds to nearest even, overflow inf */
    default:
        return x;              /* DT_WEAK: a Python scalar, kept exact */
    }
}

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double rand_unit(uint64_t *s)       /* uniform in [0, 1) */
{
    return (double)(splitmix64(s) >> 11) * 0x1.0p-53;
}

/* The data of an input or weight: one splitmix64 stream per value, seeded by
 * its name and the run's seed, so any evaluation order sees the same data.
 *  - floats: uniform in [-1, 1); weights of rank >= 2 scaled by
 *    1/sqrt(fan_in), fan_in = the product of all axes but the first, which
 *    keeps activations O(1) through deep models; then rounded to the dtype;
 *  - bool: true with probability 0.2, except that the first element of every
 *    row (along the last axis) is false, so a key-padding mask never masks a
 *    whole row and attention stays finite;
 *  - i32: uniform integers in [-8, 8]. */
static int gen_input(Interp *I, const Value *v)
{
    Tensor *t = store(I, NULL, v);
    if (!t)
        return -1;
    const char *name = v->name ? v->name : "";
    uint64_t s = hash64(name, strlen(name), 0) ^ I->seed;
    double scale = 1.0;
    if (v->kind == V_WEIGHT && v->rank >= 2) {
        int64_t fan_in = prod(v->rank - 1, v->shape + 1);
        scale = fan_in > 0 ? 1.0 / sqrt((double)fan_in) : 1.0;
    }
    int64_t row = v->rank ? v->shape[v->rank - 1] : 1;
    for (int64_t i = 0; i < t->n; i++) {
        double u = rand_unit(&s);
        switch (v->dt) {
        case DT_BOOL:
            t->data[i] = i % row == 0 ? 0.0 : u < 0.2;
            break;
        case DT_I32:
            t->data[i] = floor(u * 17.0) - 8.0;
            break;
        default:
            t->data[i] = round_to(v->dt, (2.0 * u - 1.0) * scale);
            break;
        }
    }
    return 0;
}

/* ---------------------------------------------------------------------------
 * Attributes
 * ------------------------------------------------------------------------- */

/* An attribute by parameter name, the signature's default when absent. */
static const Attr *attr_get(const Node *n, const char *name)
{
    int i = op_param(n->op, name);
    if (i < 0 || i >= n->nattr)
        die("op %s has no parameter '%s'", op_info(n->op)->name, name);
    const Param *p = &op_info(n->op)->params[i];
    if (n->attr[i].kind == A_NONE && p->has_default)
        return &p->def;
    return &n->attr[i];
}

static int64_t attr_int(const Node *n, const char *name, int64_t def)
{
    const Attr *a = attr_get(n, name);
    return a->kind == A_INT || a->kind == A_BOOL || a->kind == A_DTYPE ? a->i
                                                                       : def;
}

static double attr_float(const Node *n, const char *name, double def)
{
    const Attr *a = attr_get(n, name);
    return a->kind == A_FLOAT ? a->f : a->kind == A_INT ? (double)a->i : def;
}

static int attr_axis(Interp *I, const Node *n, const char *name, int rank,
                     int *axis)
{
    const Attr *a = attr_get(n, name);
    if (a->kind != A_INT)
        return fail(I, n, "missing axis '%s'", name);
    int64_t x = a->i < 0 ? a->i + rank : a->i;
    if (x < 0 || x >= rank)
        return fail(I, n, "%s=%lld is out of range for rank %d", name,
                    (long long)a->i, rank);
    *axis = (int)x;
    return 0;
}

/* The arguments of an op that can sit inside an elementwise kernel, read
 * once per node rather than once per element. */
typedef struct ElemArgs {
    bool gelu_tanh;            /* gelu: approximate="tanh" */
    double slope;              /* leaky_relu */
    int to;                    /* cast: target DType */
    double fill;               /* masked_fill */
    int axis;                  /* prelu channel, unsqueeze/split/concat axis,
                                  transpose dim0 */
    int axis2;                 /* transpose dim1 */
} ElemArgs;

/* Every tensor parameter present, results as the signature says. */
static int check_arity(Interp *I, const Node *n)
{
    const OpInfo *oi = op_info(n->op);
    if (oi->nparams > 0 && oi->params[0].kind == P_TENSOR_LIST) {
        if (n->nin < 1)
            return fail(I, n, "no tensors to work on");
        for (int i = 0; i < n->nin; i++)
            if (!n->in[i])
                return fail(I, n, "tensor %d of the list is absent", i);
    } else {
        /* trailing optional tensors may be left out of in[] altogether */
        for (int i = 0; i < oi->ntensor; i++)
            if (oi->params[i].kind == P_TENSOR && (i >= n->nin || !n->in[i]))
                return fail(I, n, "tensor '%s' is absent", oi->params[i].name);
    }
    if (n->nout < 1 || (oi->nres >= 0 && n->nout != oi->nres))
        return fail(I, n, "%d results, expected %d", n->nout, oi->nres);
    for (int i = 0; i < n->nout; i++)
        if (!n->out[i])
            return fail(I, n, "result %d is missing", i);
    return 0;
}

static int node_args(Interp *I, const Node *n, ElemArgs *ea)
{
    memset(ea, 0, sizeof *ea);
    const Value *x = n->in[0], *y = n->out[0];
    switch (n->op) {
    case OP_GELU: {
        const Attr *a = attr_get(n, "approximate");
        const char *s = a->kind == A_STR && a->s ? a->s : "none";
        if (strcmp(s, "none") && strcmp(s, "tanh"))
            return fail(I, n, "approximate=\"%s\" is neither \"none\" nor "
                        "\"tanh\"", s);
        ea->gelu_tanh = !strcmp(s, "tanh");
        return 0;
    }
    case OP_LEAKY_RELU:
        ea->slope = attr_float(n, "negative_slope", 0.01);
        return 0;
    case OP_CAST:
        ea->to = (int)attr_int(n, "dtype", -1);
        if (ea->to < 0 || ea->to >= DT_COUNT)
            return fail(I, n, "cast without a valid dtype");
        return 0;
    case OP_MASKED_FILL: {
        const Attr *a = attr_get(n, "value");
        if (a->kind != A_FLOAT && a->kind != A_INT)
            return fail(I, n, "missing fill value");
        ea->fill = attr_float(n, "value", 0);
        return 0;
    }
    case OP_PRELU:
        return attr_axis(I, n, "axis", x->rank, &ea->axis);
    case OP_TRANSPOSE:
        if (attr_axis(I, n, "dim0", x->rank, &ea->axis) ||
            attr_axis(I, n, "dim1", x->rank, &ea->axis2))
            return -1;
        return 0;
    case OP_UNSQUEEZE:
        return attr_axis(I, n, "axis", y->rank, &ea->axis);
    case OP_SPLIT:
        return attr_axis(I, n, "axis", x->rank, &ea->axis);
    case OP_CONCAT:
        return attr_axis(I, n, "axis", y->rank, &ea->axis);
    default:
        return 0;
    }
}

/* split's results or concat's inputs (the parts, named `part`) against the
 * whole (named `wname`): the same rank, the same extent on every axis but
 * `axis`, and extents along `axis` that add up to the whole's */
static int check_parts(Interp *I, const Node *n, const Value *whole,
                       Value *const *parts, int nparts, int axis,
                       const char *part, const char *wname)
{
    int64_t sum = 0;
    for (int i = 0; i < nparts; i++) {
        const Value *o = parts[i];
        if (o->rank != whole->rank)
            return fail(I, n, "%s %d has rank %d, %s %d", part, i, o->rank,
                        wname, whole->rank);
        for (int d = 0; d < whole->rank; d++)
            if (d != axis && o->shape[d] != whole->shape[d])
                return fail(I, n, "%s %s does not fit %s %s", part,
                            shape_str(o->rank, o->shape).s, wname,
                            shape_str(whole->rank, whole->shape).s);
        sum += o->shape[axis];
    }
    if (sum != whole->shape[axis])
        return fail(I, n, "%ss cover %lld of %lld along axis %d", part,
                    (long long)sum, (long long)whole->shape[axis], axis);
    return 0;
}

/* Shape checks of the ops both evaluation paths share, on Value shapes (a
 * tensor always has its value's shape), so neither path can index out of
 * bounds whatever sema produced. */
static int check_elem(Interp *I, const Node *n, const ElemArgs *ea)
{
    const Value *x = n->in[0], *y = n->out[0];
    const OpInfo *oi = op_info(n->op);
    switch (n->op) {
    case OP_PRELU: {
        const Value *a = n->in[1];
        if (!same_shape(x->rank, x->shape, y->rank, y->shape))
            return fail(I, n, "result %s differs from input %s",
                        shape_str(y->rank, y->shape).s,
                        shape_str(x->rank, x->shape).s);
        int64_t na = prod(a->rank, a->shape);
        if (na != 1 && na != x->shape[ea->axis])
            return fail(I, n, "slope %s for %lld channels",
                        shape_str(a->rank, a->shape).s,
                        (long long)x->shape[ea->axis]);
        return 0;
    }
    case OP_TRANSPOSE: {
        int64_t s[KG_MAX_RANK];
        memcpy(s, x->shape, sizeof s);
        s[ea->axis] = x->shape[ea->axis2];
        s[ea->axis2] = x->shape[ea->axis];
        if (!same_shape(x->rank, s, y->rank, y->shape))
            return fail(I, n, "result %s is not a transpose of %s",
                        shape_str(y->rank, y->shape).s,
                        shape_str(x->rank, x->shape).s);
        return 0;
    }
    case OP_UNSQUEEZE: {
        int64_t s[KG_MAX_RANK];
        int r = 0;
        for (int d = 0; d < y->rank; d++)
            if (d != ea->axis)
                s[r++] = y->shape[d];
        if (y->shape[ea->axis] != 1 || !same_shape(r, s, x->rank, x->shape))
            return fail(I, n, "result %s is not %s with a new axis %d",
                        shape_str(y->rank, y->shape).s,
                        shape_str(x->rank, x->shape).s, ea->axis);
        return 0;
    }
    case OP_RESHAPE:
        if (prod(x->rank, x->shape) != prod(y->rank, y->shape))
            return fail(I, n, "cannot reshape %s to %s",
                        shape_str(x->rank, x->shape).s,
                        shape_str(y->rank, y->shape).s);
        return 0;
    case OP_SPLIT:
        return check_parts(I, n, x, n->out, n->nout, ea->axis, "result", "input");
    case OP_CONCAT:
        return check_parts(I, n, y, n->in, n->nin, ea->axis, "input", "result");
    default:
        break;
    }
    if (oi->cls == OC_UNARY) {
        if (!same_shape(x->rank, x->shape, y->rank, y->shape))
            return fail(I, n, "result %s differs from input %s",
                        shape_str(y->rank, y->shape).s,
                        shape_str(x->rank, x->shape).s);
        return 0;
    }
    if (oi->cls == OC_BINARY || oi->cls == OC_MASKED) {
        for (int i = 0; i < 2; i++) {
            const Value *a = n->in[i];
            if (!bcast_ok(a->rank, a->shape, y->rank, y->shape))
                return fail(I, n, "'%s' %s does not broadcast to %s",
                            label(a).s, shape_str(a->rank, a->shape).s,
                            shape_str(y->rank, y->shape).s);
        }
        return 0;
    }
    die("check_elem: op %s", oi->name);
}

/* ---------------------------------------------------------------------------
 * Scalar meaning of the elementwise ops (shared by both paths: the index
 * mapping differs, the arithmetic must not)
 * ------------------------------------------------------------------------- */

static double gelu(double x, bool tanh_approx)
{
    if (tanh_approx)
        return 0.5 * x *
               (1.0 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
    return x * 0.5 * (1.0 + erf(x / 1.4142135623730951));
}

static double unary(int op, const ElemArgs *ea, double x)
{
    switch (op) {
    case OP_NEG:        return -x;
    case OP_EXP:        return exp(x);
    case OP_LOG:        return log(x);
    case OP_SQRT:       return sqrt(x);
    case OP_RSQRT:      return 1.0 / sqrt(x);
    case OP_ABS:        return fabs(x);
    case OP_TANH:       return tanh(x);
    case OP_SIGMOID:    return 1.0 / (1.0 + exp(-x));
    case OP_RELU:       return x > 0 || isnan(x) ? x : 0.0;
    case OP_SILU:       return x / (1.0 + exp(-x));
    case OP_GELU:       return gelu(x, ea->gelu_tanh);
    case OP_ATAN:       return atan(x);
    case OP_SOFTSIGN:   return x / (1.0 + fabs(x));
    case OP_LEAKY_RELU: return x > 0 ? x : x * ea->slope; /* NaN stays NaN */
    case OP_ERF:        return erf(x);
    case OP_CAST:       return round_to(ea->to, x);
    case OP_DROPOUT:    return x;   /* inference */
    default:
        die("unary: op %s", op_info(op)->name);
    }
}

static double binary(int op, double a, double b)
{
    switch (op) {
    case OP_ADD:     return a + b;
    case OP_SUB:     return a - b;
    case OP_MUL:     return a * b;
    case OP_DIV:     return a / b;
    /* torch.maximum/minimum propagate NaN */
    case OP_MAXIMUM: return isnan(a) || isnan(b) ? NAN : a > b ? a : b;
    case OP_MINIMUM: return isnan(a) || isnan(b) ? NAN : a < b ? a : b;
    case OP_POW:     return pow(a, b);
    default:
        die("binary: op %s", op_info(op)->name);
    }
}

static double prelu(double x, double a)
{
    return x >= 0 ? x : a * x;
}

/* ---------------------------------------------------------------------------
 * Op by op: one whole tensor per node
 * ------------------------------------------------------------------------- */

static int op_unary(Interp *I, const Node *n, const ElemArgs *ea)
{
    Tensor *x = get(I, n, n->in[0]);
    Tensor *y = x ? store(I, n, n->out[0]) : NULL;
    if (!y)
        return -1;
    for (int64_t i = 0; i < y->n; i++)
        y->data[i] = unary(n->op, ea, x->data[i]);
    return 0;
}

static int op_binary(Interp *I, const Node *n)
{
    Tensor *a = get(I, n, n->in[0]);
    Tensor *b = a ? get(I, n, n->in[1]) : NULL;
    Tensor *y = b ? store(I, n, n->out[0]) : NULL;
    if (!y)
        return -1;
    Iter it;
    iter_init(&it, y->rank, y->shape);
    bcast_strides(a->rank, a->shape, y->rank, it.st[0]);
    bcast_strides(b->rank, b->shape, y->rank, it.st[1]);
    for (int64_t i = 0; i < y->n; i++, iter_next(&it))
        y->data[i] = binary(n->op, a->data[it.off[0]], b->data[it.off[1]]);
    return 0;
}

static int op_masked_fill(Interp *I, const Node *n, const ElemArgs *ea)
{
    Tensor *x = get(I, n, n->in[0]);
    Tensor *m = x ? get(I, n, n->in[1]) : NULL;
    Tensor *y = m ? store(I, n, n->out[0]) : NULL;
    if (!y)
        return -1;
    Iter it;
    iter_init(&it, y->rank, y->shape);
    bcast_strides(x->rank, x->shape, y->rank, it.st[0]);
    bcast_strides(m->rank, m->shape, y->rank, it.st[1]);
    for (int64_t i = 0; i < y->n; i++, iter_next(&it))
        y->data[i] = m->data[it.off[1]] != 0 ? ea->fill : x->data[it.off[0]];
    return 0;
}

static int op_prelu(Interp *I, const Node *n, const ElemArgs *ea)
{
    Tensor *x = get(I, n, n->in[0]);
    Tensor *a = x ? get(I, n, n->in[1]) : NULL;
    Tensor *y = a ? store(I, n, n->out[0]) : NULL;
    if (!y)
        return -1;
    int64_t C = x->shape[ea->axis];
    int64_t inner = prod(x->rank - ea->axis - 1, x->shape + ea->axis + 1);
    for (int64_t i = 0; i < y->n; i++) {
        int64_t c = a->n == 1 ? 0 : i / inner % C;
        y->data[i] = prelu(x->data[i], a->data[c]);
    }
    return 0;
}

/* outer x len x inner around one axis. */
static void around(const Tensor *x, int axis, int64_t *outer, int64_t *len,
                   int64_t *inner)
{
    *outer = prod(axis, x->shape);
    *len = x->shape[axis];
    *inner = prod(x->rank - axis - 1, x->shape + axis + 1);
}

static int op_reduce(Interp *I, const Node *n)
{
    Tensor *x = get(I, n, n->in[0]);
    if (!x)
        return -1;
    int axis;
    if (attr_axis(I, n, "axis", x->rank, &axis))
        return -1;
    int64_t outer, len, inner;
    around(x, axis, &outer, &len, &inner);
    const Value *vy = n->out[0];
    if (prod(vy->rank, vy->shape) != outer * inner)
        return fail(I, n, "result %s does not fit reducing %s over axis %d",
                    shape_str(vy->rank, vy->shape).s,
                    shape_str(x->rank, x->shape).s, axis);
    Tensor *y = store(I, n, vy);
    if (!y)
        return -1;
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < inner; i++) {
            const double *p = x->data + o * len * inner + i;
            double acc = n->op == OP_MAX ? -INFINITY : 0.0;
            bool nan = false;
            for (int64_t j = 0; j < len; j++) {
                double v = p[j * inner];
                if (n->op == OP_MAX) {
                    nan |= isnan(v);
                    acc = v > acc ? v : acc;
                } else
                    acc += v;
            }
            if (n->op == OP_MEAN)
                acc /= (double)len;
            y->data[o * inner + i] = nan ? NAN : acc;
        }
    return 0;
}

/* softmax, layernorm, rmsnorm: one row at a time along the axis. */
static int op_rownorm(Interp *I, const Node *n)
{
    Tensor *x = get(I, n, n->in[0]);
    if (!x)
        return -1;
    int axis;
    if (attr_axis(I, n, "axis", x->rank, &axis))
        return -1;
    int64_t outer, len, inner;
    around(x, axis, &outer, &len, &inner);
    const Tensor *gamma = NULL, *beta = NULL;
    if (n->op != OP_SOFTMAX && n->nin > 1 && n->in[1] &&
        !(gamma = get(I, n, n->in[1])))
        return -1;
    if (n->op == OP_LAYERNORM && n->nin > 2 && n->in[2] &&
        !(beta = get(I, n, n->in[2])))
        return -1;
    if ((gamma && gamma->n != len) || (beta && beta->n != len))
        return fail(I, n, "gamma/beta do not have %lld elements",
                    (long long)len);
    const Value *vy = n->out[0];
    if (!same_shape(vy->rank, vy->shape, x->rank, x->shape))
        return fail(I, n, "result %s differs from input %s",
                    shape_str(vy->rank, vy->shape).s,
                    shape_str(x->rank, x->shape).s);
    double eps = n->op == OP_SOFTMAX ? 0.0 : attr_float(n, "eps", 0.0);
    Tensor *y = store(I, n, vy);
    if (!y)
        return -1;
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < inner; i++) {
            int64_t base = o * len * inner + i;
            const double *p = x->data + base;
            double *q = y->data + base;
            if (n->op == OP_SOFTMAX) {
                /* Stable: subtract the max.  A row of -inf gives
                 * -inf - -inf = NaN everywhere, as PyTorch does. */
                double m = -INFINITY, s = 0;
                for (int64_t j = 0; j < len; j++)
                    m = p[j * inner] > m ? p[j * inner] : m;
                for (int64_t j = 0; j < len; j++)
                    s += q[j * inner] = exp(p[j * inner] - m);
                for (int64_t j = 0; j < len; j++)
                    q[j * inner] /= s;
            } else if (n->op == OP_LAYERNORM) {
                double mean = 0, var = 0;
                for (int64_t j = 0; j < len; j++)
                    mean += p[j * inner];
                mean /= (double)len;
                for (int64_t j = 0; j < len; j++)
                    var += (p[j * inner] - mean) * (p[j * inner] - mean);
                var /= (double)len;     /* biased, as PyTorch */
                double sd = sqrt(var + eps);
                for (int64_t j = 0; j < len; j++)
                    q[j * inner] = (p[j * inner] - mean) / sd *
                                       (gamma ? gamma->data[j] : 1.0) +
                                   (beta ? beta->data[j] : 0.0);
            } else {
                double ms = 0;
                for (int64_t j = 0; j < len; j++)
                    ms += p[j * inner] * p[j * inner];
                double rms = sqrt(ms / (double)len + eps);
                for (int64_t j = 0; j < len; j++)
                    q[j * inner] = p[j * inner] / rms *
                                   (gamma ? gamma->data[j] : 1.0);
            }
        }
    return 0;
}

/* linear(x[..., K], w[N, K] or w[K], b?[N]) = x . w^T + b */
static int op_linear(Interp *I, const Node *n)
{
    Tensor *x = get(I, n, n->in[0]);
    Tensor *w = x ? get(I, n, n->in[1]) : NULL;
    if (!w)
        return -1;
    Tensor *b = NULL;
    if (n->nin > 2 && n->in[2] && !(b = get(I, n, n->in[2])))
        return -1;
    if (x->rank < 1 || w->rank < 1 || w->rank > 2)
        return fail(I, n, "linear of %s by %s", shape_str(x->rank, x->shape).s,
                    shape_str(w->rank, w->shape).s);
    int64_t K = x->shape[x->rank - 1];
    int64_t N = w->rank == 2 ? w->shape[0] : 1;
    if (w->shape[w->rank - 1] != K || (b && b->n != N))
        return fail(I, n, "x %s, w %s, b %s do not agree",
                    shape_str(x->rank, x->shape).s,
                    shape_str(w->rank, w->shape).s,
                    b ? shape_str(b->rank, b->shape).s : "(none)");
    int64_t es[KG_MAX_RANK];
    int er = x->rank - 1;
    memcpy(es, x->shape, (size_t)er * sizeof *es);
    if (w->rank == 2)
        es[er++] = N;
    const Value *vy = n->out[0];
    if (!same_shape(er, es, vy->rank, vy->shape))
        return fail(I, n, "result %s, expected %s",
                    shape_str(vy->rank, vy->shape).s, shape_str(er, es).s);
    Tensor *y = store(I, n, vy);
    if (!y)
        return -1;
    int64_t rows = prod(x->rank - 1, x->shape);
    for (int64_t r = 0; r < rows; r++)
        for (int64_t j = 0; j < N; j++) {
            if (!row_wanted(I, r, rows)) {
                y->data[r * N + j] = NAN;
                continue;
            }
            const double *xr = x->data + r * K, *wr = w->data + j * K;
            double acc = 0;
            for (int64_t k = 0; k < K; k++)
                acc += xr[k] * wr[k];
            y->data[r * N + j] = acc + (b ? b->data[j] : 0.0);
        }
    return 0;
}

/* torch.matmul: 1-D a is [1, K] and 1-D b is [K, 1] with that axis dropped
 * from the result; leading (batch) axes broadcast. */
static int op_matmul(Interp *I, const Node *n)
{
    Tensor *a = get(I, n, n->in[0]);
    Tensor *b = a ? get(I, n, n->in[1]) : NULL;
    if (!b)
        return -1;
    int ra = a->rank, rb = b->rank;
    if (ra < 1 || rb < 1)
        return fail(I, n, "matmul of a scalar");
    int64_t M = ra >= 2 ? a->shape[ra - 2] : 1, K = a->shape[ra - 1];
    int64_t Kb = rb >= 2 ? b->shape[rb - 2] : b->shape[0];
    int64_t N = rb >= 2 ? b->shape[rb - 1] : 1;
    int na = ra > 2 ? ra - 2 : 0, nbb = rb > 2 ? rb - 2 : 0;
    int nb = na > nbb ? na : nbb;
    int64_t bshape[KG_MAX_RANK + 2];
    bool ok = K == Kb;
    for (int d = 0; d < nb && ok; d++) {
        int da = d - (nb - na), db = d - (nb - nbb);
        int64_t sa = da >= 0 ? a->shape[da] : 1, sb = db >= 0 ? b->shape[db] : 1;
        ok = sa == sb || sa == 1 || sb == 1;
        bshape[d] = sa == 1 ? sb : sa;
    }
    if (!ok)
        return fail(I, n, "cannot multiply %s by %s",
                    shape_str(ra, a->shape).s, shape_str(rb, b->shape).s);
    int er = nb;
    if (ra >= 2)
        bshape[er++] = M;
    if (rb >= 2)
        bshape[er++] = N;
    const Value *vy = n->out[0];
    if (!same_shape(er, bshape, vy->rank, vy->shape))
        return fail(I, n, "result %s, expected %s",
                    shape_str(vy->rank, vy->shape).s,
                    shape_str(er, bshape).s);
    Tensor *y = store(I, n, vy);
    if (!y)
        return -1;
    int64_t sta[KG_MAX_RANK], stb[KG_MAX_RANK], fa[KG_MAX_RANK],
        fb[KG_MAX_RANK];
    row_strides(ra, a->shape, fa);
    row_strides(rb, b->shape, fb);
    bstrides(na, a->shape, fa, nb, sta);
    bstrides(nbb, b->shape, fb, nb, stb);
    int64_t nbatch = prod(nb, bshape);
    for (int64_t bi = 0; bi < nbatch; bi++) {
        const double *pa = a->data + offset_of(bi, nb, bshape, sta);
        const double *pb = b->data + offset_of(bi, nb, bshape, stb);
        double *py = y->data + bi * M * N;
        for (int64_t i = 0; i < M * N; i++)
            py[i] = 0;
        for (int64_t i = 0; i < M; i++) {
            if (!row_wanted(I, bi * M + i, nbatch * M)) {
                for (int64_t j = 0; j < N; j++)
                    py[i * N + j] = NAN;
                continue;
            }
            for (int64_t k = 0; k < K; k++) {
                double av = pa[i * K + k];
                for (int64_t j = 0; j < N; j++)
                    py[i * N + j] += av * pb[k * N + j];
            }
        }
    }
    return 0;
}

/* conv1d(x[B, Cin, T] or [Cin, T], w[Cout, Cin/groups, K], b?[Cout]) with
 * zero padding, as torch.nn.functional.conv1d. */
static int op_conv1d(Interp *I, const Node *n)
{
    Tensor *x = get(I, n, n->in[0]);
    Tensor *w = x ? get(I, n, n->in[1]) : NULL;
    if (!w)
        return -1;
    Tensor *b = NULL;
    if (n->nin > 2 && n->in[2] && !(b = get(I, n, n->in[2])))
        return -1;
    int64_t stride = attr_int(n, "stride", 1), pad = attr_int(n, "padding", 0);
    int64_t dil = attr_int(n, "dilation", 1), G = attr_int(n, "groups", 1);
    if ((x->rank != 2 && x->rank != 3) || w->rank != 3)
        return fail(I, n, "conv1d of %s by %s", shape_str(x->rank, x->shape).s,
                    shape_str(w->rank, w->shape).s);
    bool batched = x->rank == 3;
    int64_t B = batched ? x->shape[0] : 1;
    int64_t Cin = x->shape[x->rank - 2], T = x->shape[x->rank - 1];
    int64_t Cout = w->shape[0], Cg = w->shape[1], K = w->shape[2];
    int64_t kattr = attr_int(n, "kernel", K);
    if (stride < 1 || pad < 0 || dil < 1 || G < 1 || Cin % G || Cout % G ||
        Cg != Cin / G || kattr != K || (b && b->n != Cout))
        return fail(I, n, "x %s, w %s, kernel=%lld stride=%lld padding=%lld "
                    "dilation=%lld groups=%lld do not agree",
                    shape_str(x->rank, x->shape).s,
                    shape_str(w->rank, w->shape).s, (long long)kattr,
                    (long long)stride, (long long)pad, (long long)dil,
                    (long long)G);
    int64_t span = dil * (K - 1) + 1;
    int64_t To = (T + 2 * pad - span) / stride + 1;
    int64_t es[3] = {B, Cout, To};
    const Value *vy = n->out[0];
    if (T + 2 * pad < span ||
        !same_shape(x->rank, batched ? es : es + 1, vy->rank, vy->shape))
        return fail(I, n, "result %s, expected %s",
                    shape_str(vy->rank, vy->shape).s,
                    shape_str(x->rank, batched ? es : es + 1).s);
    Tensor *y = store(I, n, vy);
    if (!y)
        return -1;
    int64_t Cog = Cout / G;
    for (int64_t bb = 0; bb < B; bb++)
        for (int64_t co = 0; co < Cout; co++) {
            int64_t g = co / Cog;
            const double *wr = w->data + co * Cg * K;
            const double *xb = x->data + (bb * Cin + g * Cg) * T;
            double *yr = y->data + (bb * Cout + co) * To;
            for (int64_t t = 0; t < To; t++) {
                if (!row_wanted(I, bb * To + t, B * To)) {
                    yr[t] = NAN;
                    continue;
                }
                double acc = b ? b->data[co] : 0.0;
                for (int64_t c = 0; c < Cg; c++)
                    for (int64_t k = 0; k < K; k++) {
                        int64_t ti = t * stride - pad + k * dil;
                        if (ti >= 0 && ti < T)
                            acc += wr[c * K + k] * xb[c * T + ti];
                    }
                yr[t] = acc;
            }
        }
    return 0;
}

static int op_layout(Interp *I, const Node *n, const ElemArgs *ea)
{
    Tensor *x = n->op == OP_CONCAT ? NULL : get(I, n, n->in[0]);
    if (n->op != OP_CONCAT && !x)
        return -1;
    switch (n->op) {
    case OP_TRANSPOSE: {
        Tensor *y = store(I, n, n->out[0]);
        if (!y)
            return -1;
        int64_t st[KG_MAX_RANK];
        row_strides(x->rank, x->shape, st);
        Iter it;
        iter_init(&it, y->rank, y->shape);
        memcpy(it.st[0], st, sizeof st);
        it.st[0][ea->axis] = st[ea->axis2];
        it.st[0][ea->axis2] = st[ea->axis];
        for (int64_t i = 0; i < y->n; i++, iter_next(&it))
            y->data[i] = x->data[it.off[0]];
        return 0;
    }
    case OP_RESHAPE:
    case OP_UNSQUEEZE: {
        Tensor *y = store(I, n, n->out[0]);
        if (!y)
            return -1;
        memcpy(y->data, x->data, (size_t)y->n * sizeof(double));
        return 0;
    }
    case OP_SPLIT: {
        int64_t outer, len, inner, off = 0;
        around(x, ea->axis, &outer, &len, &inner);
        for (int r = 0; r < n->nout; r++) {
            Tensor *y = store(I, n, n->out[r]);
            if (!y)
                return -1;
            int64_t sz = y->shape[ea->axis];
            for (int64_t o = 0; o < outer; o++)
                memcpy(y->data + o * sz * inner,
                       x->data + (o * len + off) * inner,
                       (size_t)(sz * inner) * sizeof(double));
            off += sz;
        }
        return 0;
    }
    case OP_CONCAT: {
        for (int i = 0; i < n->nin; i++)
            if (!get(I, n, n->in[i]))
                return -1;
        Tensor *y = store(I, n, n->out[0]);
        if (!y)
            return -1;
        int64_t outer, len, inner, off = 0;
        around(y, ea->axis, &outer, &len, &inner);
        for (int i = 0; i < n->nin; i++) {
            const Tensor *s = I->vt[n->in[i]->id];
            int64_t sz = s->shape[ea->axis];
            for (int64_t o = 0; o < outer; o++)
                memcpy(y->data + (o * len + off) * inner,
                       s->data + o * sz * inner,
                       (size_t)(sz * inner) * sizeof(double));
            off += sz;
        }
        return 0;
    }
    default:
        die("op_layout: op %s", op_info(n->op)->name);
    }
}

/* ---------------------------------------------------------------------------
 * Attention: shared set-up and scoring, then the two softmax algorithms
 * ------------------------------------------------------------------------- */

/*
 * The mask of sdpa follows PyTorch's attn_mask:
 *  - a bool mask is TRUE where a key TAKES PART in attention; a false key's
 *    score becomes `fill` (-inf for the sdpa op);
 *  - a mask of any other dtype is ADDED to the scores;
 *  - causal masks key j for query i when j > i (top-left aligned, as
 *    torch's is_causal).
 * Either mask broadcasts numpy-style to [batch..., L, S].  The one
 * exception is the fused "sdpa" pattern, whose `mask` input is a key-padding
 * mask [B, S], TRUE on padding (masked_fill's convention, as the
 * pattern writes it), which the pattern reshapes to [B, 1, 1, S].  A row in
 * which every key is masked out gives NaN, as softmax over all -inf does.
 * scores = (q . k^T) * scale, scale defaulting to 1/sqrt(D).
 */
typedef struct Attn {
    const Tensor *q, *k, *v, *mask;
    Tensor *out;
    int nb;                    /* batch axes of the result */
    int64_t bshape[KG_MAX_RANK], nbatch;
    int64_t L, S, D, E;
    int64_t qst[KG_MAX_RANK], kst[KG_MAX_RANK], vst[KG_MAX_RANK];
    int64_t mst[KG_MAX_RANK];  /* mask strides over [batch..., L, S] */
    bool additive;             /* mask added to the scores */
    bool keep_true;            /* bool mask: true keeps a key (PyTorch) */
    double fill;               /* score of a key a bool mask masks out */
    double scale;
    bool causal;
    const Interp *I;           /* for row sampling */
} Attn;

static int attn_setup(Interp *I, const Node *n, Attn *A, const Value *vout,
                      bool keypad)
{
    const Tensor *q = A->q, *k = A->k, *v = A->v, *m = A->mask;
    if (q->rank < 2 || k->rank < 2 || v->rank < 2 || vout->rank < 2)
        return fail(I, n, "attention operands need at least 2 axes");
    A->L = q->shape[q->rank - 2];
    A->D = q->shape[q->rank - 1];
    A->S = k->shape[k->rank - 2];
    A->E = v->shape[v->rank - 1];
    A->nb = vout->rank - 2;
    memcpy(A->bshape, vout->shape, (size_t)A->nb * sizeof(int64_t));
    A->nbatch = prod(A->nb, A->bshape);
    if (k->shape[k->rank - 1] != A->D || v->shape[v->rank - 2] != A->S ||
        vout->shape[A->nb] != A->L || vout->shape[A->nb + 1] != A->E ||
        !bcast_ok(q->rank - 2, q->shape, A->nb, A->bshape) ||
        !bcast_ok(k->rank - 2, k->shape, A->nb, A->bshape) ||
        !bcast_ok(v->rank - 2, v->shape, A->nb, A->bshape))
        return fail(I, n, "q %s, k %s, v %s and result %s do not agree",
                    shape_str(q->rank, q->shape).s,
                    shape_str(k->rank, k->shape).s,
                    shape_str(v->rank, v->shape).s,
                    shape_str(vout->rank, vout->shape).s);
    int64_t st[KG_MAX_RANK];
    row_strides(q->rank, q->shape, st);
    bstrides(q->rank - 2, q->shape, st, A->nb, A->qst);
    row_strides(k->rank, k->shape, st);
    bstrides(k->rank - 2, k->shape, st, A->nb, A->kst);
    row_strides(v->rank, v->shape, st);
    bstrides(v->rank - 2, v->shape, st, A->nb, A->vst);
    if (m) {
        int mr = m->rank;
        int64_t ms[KG_MAX_RANK], ss[KG_MAX_RANK];
        memcpy(ms, m->shape, (size_t)mr * sizeof *ms);
        if (keypad && mr == 2 && A->nb >= 1 && A->nb + 2 <= KG_MAX_RANK) {
            /* [B, S] seen as [B, 1, ..., 1, S]: same row-major strides */
            mr = A->nb + 2;
            for (int d = 1; d < mr - 1; d++)
                ms[d] = 1;
            ms[mr - 1] = m->shape[1];
        }
        memcpy(ss, A->bshape, (size_t)A->nb * sizeof *ss);
        ss[A->nb] = A->L;
        ss[A->nb + 1] = A->S;
        if (!bcast_ok(mr, ms, A->nb + 2, ss))
            return fail(I, n, "mask %s does not broadcast to the scores %s",
                        shape_str(m->rank, m->shape).s,
                        shape_str(A->nb + 2, ss).s);
        row_strides(mr, ms, st);
        bstrides(mr, ms, st, A->nb + 2, A->mst);
        A->additive = m->dt != DT_BOOL;
    }
    return 0;
}

/* The score of query i against key j; mrow is the mask's batch offset. */
static double attn_score(const Attn *A, const double *qi, const double *kj,
                         int64_t mrow, int64_t i, int64_t j)
{
    double s = 0;
    for (int64_t d = 0; d < A->D; d++)
        s += qi[d] * kj[d];
    s *= A->scale;
    if (A->mask) {
        double mv = A->mask->data[mrow + i * A->mst[A->nb] +
                                  j * A->mst[A->nb + 1]];
        if (A->additive)
            s += mv;
        else if ((mv != 0) != A->keep_true)
            s = A->fill;
    }
    if (A->causal && j > i)
        s = -INFINITY;
    return s;
}

/* The op's definition: all scores of a row, a two-pass stable softmax, then
 * the weighted sum of v. */
static void attn_twopass(const Attn *A, double *s)
{
    for (int64_t bi = 0; bi < A->nbatch; bi++) {
        const double *qb = A->q->data + offset_of(bi, A->nb, A->bshape, A->qst);
        const double *kb = A->k->data + offset_of(bi, A->nb, A->bshape, A->kst);
        const double *vb = A->v->data + offset_of(bi, A->nb, A->bshape, A->vst);
        int64_t mrow = A->mask ? offset_of(bi, A->nb, A->bshape, A->mst) : 0;
        for (int64_t i = 0; i < A->L; i++) {
            double m = -INFINITY, sum = 0;
            if (A->I && !row_wanted(A->I, bi * A->L + i, A->nbatch * A->L)) {
                for (int64_t e = 0; e < A->E; e++)
                    A->out->data[(bi * A->L + i) * A->E + e] = NAN;
                continue;
            }
            for (int64_t j = 0; j < A->S; j++) {
                s[j] = attn_score(A, qb + i * A->D, kb + j * A->D, mrow, i, j);
                m = s[j] > m ? s[j] : m;
            }
            for (int64_t j = 0; j < A->S; j++)
                sum += s[j] = exp(s[j] - m);  /* all -inf: NaN */
            double *o = A->out->data + (bi * A->L + i) * A->E;
            for (int64_t e = 0; e < A->E; e++)
                o[e] = 0;
            for (int64_t j = 0; j < A->S; j++) {
                double p = s[j] / sum;
                for (int64_t e = 0; e < A->E; e++)
                    o[e] += p * vb[j * A->E + e];
            }
        }
    }
}

/* The fused kernel's algorithm: one pass over the keys in blocks of
 * ATTN_BLOCK with a running max m, a running sum l and an accumulator
 * rescaled by exp(m_old - m_new) whenever the max grows.  Blocks in which
 * every key so far is masked are skipped; a row with no unmasked key gives
 * NaN, as the two-pass softmax of all -inf does. */
static void attn_online(const Attn *A, double *s, double *acc)
{
    for (int64_t bi = 0; bi < A->nbatch; bi++) {
        const double *qb = A->q->data + offset_of(bi, A->nb, A->bshape, A->qst);
        const double *kb = A->k->data + offset_of(bi, A->nb, A->bshape, A->kst);
        const double *vb = A->v->data + offset_of(bi, A->nb, A->bshape, A->vst);
        int64_t mrow = A->mask ? offset_of(bi, A->nb, A->bshape, A->mst) : 0;
        for (int64_t i = 0; i < A->L; i++) {
            double m = -INFINITY, l = 0;
            for (int64_t e = 0; e < A->E; e++)
                acc[e] = 0;
            for (int64_t j0 = 0; j0 < A->S; j0 += ATTN_BLOCK) {
                int64_t j1 = j0 + ATTN_BLOCK < A->S ? j0 + ATTN_BLOCK : A->S;
                double mb = -INFINITY;
                for (int64_t j = j0; j < j1; j++) {
                    s[j - j0] = attn_score(A, qb + i * A->D, kb + j * A->D,
                                           mrow, i, j);
                    mb = s[j - j0] > mb ? s[j - j0] : mb;
                }
                double mn = mb > m ? mb : m;
                if (mn == -INFINITY)
                    continue;           /* everything so far masked out */
                double alpha = exp(m - mn);   /* m = -inf: 0 */
                l *= alpha;
                for (int64_t e = 0; e < A->E; e++)
                    acc[e] *= alpha;
                for (int64_t j = j0; j < j1; j++) {
                    double p = exp(s[j - j0] - mn);
                    l += p;
                    for (int64_t e = 0; e < A->E; e++)
                        acc[e] += p * vb[j * A->E + e];
                }
                m = mn;
            }
            double *o = A->out->data + (bi * A->L + i) * A->E;
            for (int64_t e = 0; e < A->E; e++)
                o[e] = m == -INFINITY ? NAN : acc[e] / l;
        }
    }
}

/* sdpa(q, k, v, mask?, scale?, causal) called as an op. */
static int op_sdpa(Interp *I, const Node *n)
{
    Attn A = {0};
    if (!(A.q = get(I, n, n->in[0])) || !(A.k = get(I, n, n->in[1])) ||
        !(A.v = get(I, n, n->in[2])))
        return -1;
    if (n->nin > 3 && n->in[3] && !(A.mask = get(I, n, n->in[3])))
        return -1;
    if (attn_setup(I, n, &A, n->out[0], false))
        return -1;
    A.fill = -INFINITY;
    A.keep_true = true;
    A.scale = attr_float(n, "scale", 1.0 / sqrt((double)A.D));
    A.causal = attr_int(n, "causal", 0) != 0;
    A.I = I;
    if (!(A.out = store(I, n, n->out[0])))
        return -1;
    double *s = malloc((size_t)(A.S ? A.S : 1) * sizeof *s);
    if (!s)
        return fail(I, n, "out of memory");
    attn_twopass(&A, s);
    free(s);
    return 0;
}

/* One node, op by op. */
static int eval_node(Interp *I, const Node *n)
{
    if (check_arity(I, n))
        return -1;
    const OpInfo *oi = op_info(n->op);
    ElemArgs ea;
    switch (n->op) {
    case OP_SUM: case OP_MEAN: case OP_MAX:
        return op_reduce(I, n);
    case OP_SOFTMAX: case OP_LAYERNORM: case OP_RMSNORM:
        return op_rownorm(I, n);
    case OP_LINEAR:
        return op_linear(I, n);
    case OP_MATMUL:
        return op_matmul(I, n);
    case OP_CONV1D:
        return op_conv1d(I, n);
    case OP_SDPA:
        return op_sdpa(I, n);
    default:
        break;
    }
    if (oi->cls != OC_UNARY && oi->cls != OC_BINARY && oi->cls != OC_PRELU &&
        oi->cls != OC_MASKED && oi->cls != OC_LAYOUT)
        return fail(I, n, "the reference interpreter does not know this op");
    if (node_args(I, n, &ea) || check_elem(I, n, &ea))
        return -1;
    switch (oi->cls) {
    case OC_UNARY:  return op_unary(I, n, &ea);
    case OC_BINARY: return op_binary(I, n);
    case OC_PRELU:  return op_prelu(I, n, &ea);
    case OC_MASKED: return op_masked_fill(I, n, &ea);
    default:        return op_layout(I, n, &ea);
    }
}

static int run_nodes(Interp *I, const Kernel *k)
{
    for (int i = 0; i < k->nnodes; i++)
        if (eval_node(I, k->nodes[i]))
            return -1;
    return 0;
}

/* ---------------------------------------------------------------------------
 * Elementwise kernels, element by element
 * ------------------------------------------------------------------------- */

typedef struct Ew {
    Interp *I;
    signed char *role;         /* per node id: EW_* */
    ElemArgs *args;            /* per node id, for EW_INSIDE nodes */
    int64_t *memo_at;          /* per value id: memoised linear index, or -1 */
    double *memo;              /* per value id: its value there */
} Ew;

enum { EW_OUTSIDE, EW_INSIDE, EW_FALLBACK };

static bool ew_op(int op)
{
    OpClass c = op_info(op)->cls;
    return c == OC_UNARY || c == OC_BINARY || c == OC_PRELU ||
           c == OC_MASKED || op == OP_TRANSPOSE || op == OP_UNSQUEEZE ||
           op == OP_RESHAPE || op == OP_SPLIT || op == OP_CONCAT;
}

/* The index of operand u (broadcast to oshape) for the output index idx. */
static void bmap(const Value *u, int orank, const int64_t *idx, int64_t *j)
{
    for (int a = 0; a < u->rank; a++)
        j[a] = u->shape[a] == 1 ? 0 : idx[a + orank - u->rank];
}

/*
 * The value of v at index idx (in v's shape), computed the way a generated
 * elementwise kernel computes it: read a tensor that exists (a kernel input
 * or a value evaluated op by op), take a constant, or apply v's op to its
 * operands at the indices the op maps idx to.  A one-entry memo per value
 * (keyed by linear index) keeps DAGs with shared operands linear.
 * Everything was checked by ew_prepare, so nothing here can fail.
 */
static double ew_eval(Ew *E, const Value *v, const int64_t *idx)
{
    const Tensor *t = E->I->vt[v->id];
    if (t)
        return t->data[lin_index(t->rank, t->shape, idx)];
    if (v->kind == V_CONST)
        return v->cval;
    int64_t lin = lin_index(v->rank, v->shape, idx);
    if (E->memo_at[v->id] == lin)
        return E->memo[v->id];
    const Node *n = v->def;
    const ElemArgs *ea = &E->args[n->id];
    int64_t j[KG_MAX_RANK];
    double r;
    switch (n->op) {
    case OP_TRANSPOSE:
        memcpy(j, idx, (size_t)v->rank * sizeof *j);
        j[ea->axis] = idx[ea->axis2];
        j[ea->axis2] = idx[ea->axis];
        r = ew_eval(E, n->in[0], j);
        break;
    case OP_UNSQUEEZE: {
        int d = 0;
        for (int a = 0; a < v->rank; a++)
            if (a != ea->axis)
                j[d++] = idx[a];
        r = ew_eval(E, n->in[0], j);
        break;
    }
    case OP_RESHAPE:
        delin(lin, n->in[0]->rank, n->in[0]->shape, j);
        r = ew_eval(E, n->in[0], j);
        break;
    case OP_SPLIT: {
        memcpy(j, idx, (size_t)v->rank * sizeof *j);
        for (int q = 0; q < v->def_res; q++)
            j[ea->axis] += n->out[q]->shape[ea->axis];
        r = ew_eval(E, n->in[0], j);
        break;
    }
    case OP_CONCAT: {
        memcpy(j, idx, (size_t)v->rank * sizeof *j);
        int i = 0;
        while (j[ea->axis] >= n->in[i]->shape[ea->axis]) {
            j[ea->axis] -= n->in[i]->shape[ea->axis];
            i++;
        }
        r = ew_eval(E, n->in[i], j);
        break;
    }
    case OP_PRELU: {
        const Value *a = n->in[1];
        int64_t c[KG_MAX_RANK] = {0};
        if (prod(a->rank, a->shape) != 1)
            delin(idx[ea->axis], a->rank, a->shape, c);
        r = prelu(ew_eval(E, n->in[0], idx), ew_eval(E, a, c));
        break;
    }
    case OP_MASKED_FILL:
        bmap(n->in[1], v->rank, idx, j);
        if (ew_eval(E, n->in[1], j) != 0) {
            r = ea->fill;
        } else {
            bmap(n->in[0], v->rank, idx, j);
            r = ew_eval(E, n->in[0], j);
        }
        break;
    default:
        if (op_info(n->op)->cls == OC_UNARY) {
            r = unary(n->op, ea, ew_eval(E, n->in[0], idx));
        } else {
            bmap(n->in[0], v->rank, idx, j);
            double a = ew_eval(E, n->in[0], j);
            bmap(n->in[1], v->rank, idx, j);
            r = binary(n->op, a, ew_eval(E, n->in[1], j));
        }
        break;
    }
    E->memo_at[v->id] = lin;
    E->memo[v->id] = r;
    return r;
}

/* Materialise value v (computed inside the kernel) element by element. */
static int ew_materialise(Ew *E, const Value *v)
{
    if (E->I->vt[v->id])
        return 0;
    if (v->kind == V_CONST)
        return get(E->I, v->def, v) ? 0 : -1;
    /* registered only once filled: ew_eval reads registered tensors */
    Tensor *t = tensor_new(E->I, v->def, v->dt, v->rank, v->shape);
    if (!t)
        return -1;
    int64_t idx[KG_MAX_RANK];
    for (int64_t i = 0; i < t->n; i++) {
        delin(i, t->rank, t->shape, idx);
        t->data[i] = ew_eval(E, v, idx);
    }
    E->I->vt[v->id] = t;
    return 0;
}

/* Classify and check the kernel's nodes so that ew_eval cannot fail: each
 * operand of an EW_INSIDE node is a constant, an existing tensor or the
 * result of a node of this kernel (EW_FALLBACK nodes run op by op first, in
 * topological order, so their results exist before anything reads them). */
static int ew_prepare(Ew *E, const Kernel *k, int *depth)
{
    Interp *I = E->I;
    int maxdepth = 0;
    for (int i = 0; i < k->nnodes; i++) {
        const Node *n = k->nodes[i];
        E->role[n->id] = ew_op(n->op) ? EW_INSIDE : EW_FALLBACK;
    }
    for (int i = 0; i < k->nnodes; i++) {
        const Node *n = k->nodes[i];
        if (E->role[n->id] != EW_INSIDE)
            continue;
        if (check_arity(I, n) || node_args(I, n, &E->args[n->id]) ||
            check_elem(I, n, &E->args[n->id]))
            return -1;
        int d = 1;
        for (int a = 0; a < n->nin; a++) {
            const Value *u = n->in[a];
            if (!u || u->kind == V_CONST || I->vt[u->id])
                continue;
            if (u->kind != V_NODE || !u->def || E->role[u->def->id] == EW_OUTSIDE)
                return fail(I, n, "'%s' is read before it is computed",
                            label(u).s);
            if (E->role[u->def->id] == EW_INSIDE &&
                depth[u->def->id] + 1 > d)
                d = depth[u->def->id] + 1;
        }
        depth[n->id] = d;
        maxdepth = d > maxdepth ? d : maxdepth;
    }
    if (maxdepth > EW_MAX_DEPTH)
        return fail(I, NULL, "kernel %s chains %d elementwise ops, more than "
                    "the reference interpreter evaluates (%d)",
                    kname(k), maxdepth, EW_MAX_DEPTH);
    for (int i = 0; i < k->nout; i++) {
        const Value *v = k->out[i];
        if (!v || I->vt[v->id] || v->kind == V_CONST)
            continue;
        if (v->kind != V_NODE || !v->def || E->role[v->def->id] == EW_OUTSIDE)
            return fail(I, NULL, "kernel %s: output '%s' is not computed by "
                        "the kernel", kname(k), label(v).s);
    }
    return 0;
}

static int run_elemwise(Interp *I, const Kernel *k)
{
    const Graph *g = I->g;
    Ew E = {I, NULL, NULL, NULL, NULL};
    int *depth = calloc((size_t)g->nnodes + 1, sizeof *depth);
    E.role = calloc((size_t)g->nnodes + 1, sizeof *E.role);
    E.args = calloc((size_t)g->nnodes + 1, sizeof *E.args);
    E.memo_at = malloc(((size_t)g->nvalues + 1) * sizeof *E.memo_at);
    E.memo = malloc(((size_t)g->nvalues + 1) * sizeof *E.memo);
    int rc = -1;
    if (!depth || !E.role || !E.args || !E.memo_at || !E.memo) {
        fail(I, NULL, "out of memory");
        goto done;
    }
    for (int i = 0; i < g->nvalues; i++)
        E.memo_at[i] = -1;
    if (ew_prepare(&E, k, depth))
        goto done;
    /* Ops an elementwise kernel cannot evaluate per element: whole tensors
     * first, their operands materialised from the element-wise DAG. */
    for (int i = 0; i < k->nnodes; i++) {
        const Node *n = k->nodes[i];
        if (E.role[n->id] != EW_FALLBACK)
            continue;
        for (int a = 0; a < n->nin; a++)
            if (n->in[a] && n->in[a]->kind == V_NODE && n->in[a]->def &&
                E.role[n->in[a]->def->id] == EW_INSIDE &&
                ew_materialise(&E, n->in[a]))
                goto done;
        if (eval_node(I, n))
            goto done;
    }
    for (int i = 0; i < k->nout; i++)
        if (k->out[i] && ew_materialise(&E, k->out[i]))
            goto done;
    rc = 0;
done:
    free(depth);
    free(E.role);
    free(E.args);
    free(E.memo_at);
    free(E.memo);
    return rc;
}

/* ---------------------------------------------------------------------------
 * Fused kernels: a direct reference of each pattern's algorithm
 * ------------------------------------------------------------------------- */

static const Node *kernel_node(const Kernel *k, int op)
{
    for (int i = 0; i < k->nnodes; i++)
        if (k->nodes[i]->op == op)
            return k->nodes[i];
    return NULL;
}

/* The index of the bound pattern param `name`, or -1. */
static int pat_param(const Match *m, const char *name)
{
    const Graph *pg = m->pat->g;
    for (int i = 0; i < pg->nparams; i++)
        if (!strcmp(pg->params[i], name) &&
            (!m->param_bound || m->param_bound[i]))
            return i;
    return -1;
}

/* A captured number as the factor it multiplies by: a param that the
 * pattern uses as a divisor (s / scale) gives 1/value.  -1 if unbound. */
static int param_factor(const Match *m, const char *name, double *f)
{
    int i = pat_param(m, name);
    if (i < 0)
        return -1;
    *f = m->param[i];
    const Graph *pg = m->pat->g;
    for (int j = 0; j < pg->nnodes; j++) {
        const Node *n = pg->nodes[j];
        if (n->op == OP_DIV && n->nin > 1 && n->in[1] &&
            n->in[1]->kind == V_CONST && n->in[1]->hole == i)
            *f = 1.0 / *f;
    }
    return 0;
}

/* Look up pattern values; report the first required one that is missing. */
static int bind(Interp *I, const Kernel *k, const char *const *names,
                const bool *required, int count, const Tensor **t,
                const Value **v)
{
    for (int i = 0; i < count; i++) {
        v[i] = match_value(k->match, names[i]);
        t[i] = NULL;
        if (!v[i]) {
            if (required[i])
                return fail(I, NULL, "kernel %s: pattern %s binds no '%s'",
                            kname(k), k->match->pat->g->name,
                            names[i]);
            continue;
        }
        /* results (outputs of the pattern) are made by the caller */
        bool result = v[i]->kind == V_NODE && v[i]->def &&
                      I->vt[v[i]->id] == NULL &&
                      (!strcmp(names[i], "out") || !strcmp(names[i], "skip"));
        if (!result && !(t[i] = get(I, NULL, v[i])))
            return -1;
    }
    return 0;
}

#define SHAPE(T) shape_str((T)->rank, (T)->shape).s

/* x[B,C,T], y[B,2Cz,T], w[N,Cz,1], b?[N]:
 *   z = sigmoid(y[:, :Cz]) * tanh(y[:, Cz:]);  o = b + w . z (one loop);
 *   out = (x + o[:, :C]) * scale;  skip = o[:, C:]. */
static int fused_gated_tanh(Interp *I, const Kernel *k)
{
    static const char *const names[] = {"x", "y", "w", "b", "out", "skip"};
    static const bool req[] = {true, true, true, false, true, false};
    const Tensor *t[6];
    const Value *v[6];
    if (bind(I, k, names, req, 6, t, v))
        return -1;
    double scale;
    if (param_factor(k->match, "scale", &scale))
        return fail(I, NULL, "kernel %s: no `scale` param bound", kname(k));
    const Tensor *x = t[0], *y = t[1], *w = t[2], *b = t[3];
    const Value *vo = v[4], *vs = v[5];
    if (x->rank != 3 || y->rank != 3 || w->rank < 2 || w->rank > 3)
        return fail(I, NULL, "kernel %s: x %s, y %s, w %s", kname(k), SHAPE(x),
                    SHAPE(y), SHAPE(w));
    int64_t B = x->shape[0], C = x->shape[1], T = x->shape[2];
    int64_t Cz = y->shape[1] / 2, N = w->shape[0];
    if (y->shape[0] != B || y->shape[2] != T || y->shape[1] % 2 ||
        w->shape[1] != Cz || (w->rank == 3 && w->shape[2] != 1) || C > N ||
        (b && b->n != N) || !same_shape(vo->rank, vo->shape, 3, x->shape) ||
        (vs && (vs->rank != 3 || vs->shape[0] != B || vs->shape[1] != N - C ||
                vs->shape[2] != T)))
        return fail(I, NULL, "kernel %s: x %s, y %s, w %s do not agree",
                    kname(k), SHAPE(x), SHAPE(y), SHAPE(w));
    Tensor *out = store(I, NULL, vo);
    Tensor *skip = out && vs ? store(I, NULL, vs) : NULL;
    if (!out || (vs && !skip))
        return -1;
    double *z = malloc((size_t)(Cz ? Cz : 1) * sizeof *z);
    double *o = malloc((size_t)(N ? N : 1) * sizeof *o);
    if (!z || !o) {
        free(z);
        free(o);
        return fail(I, NULL, "out of memory");
    }
    ElemArgs none = {0};
    for (int64_t bb = 0; bb < B; bb++)
        for (int64_t tt = 0; tt < T; tt++) {
            const double *yb = y->data + bb * 2 * Cz * T + tt;
            for (int64_t c = 0; c < Cz; c++)
                z[c] = unary(OP_SIGMOID, &none, yb[c * T]) *
                       unary(OP_TANH, &none, yb[(Cz + c) * T]);
            for (int64_t nn = 0; nn < N; nn++) {
                double acc = b ? b->data[nn] : 0.0;
                for (int64_t c = 0; c < Cz; c++)
                    acc += w->data[nn * Cz + c] * z[c];
                o[nn] = acc;
            }
            for (int64_t nn = 0; nn < C; nn++) {
                int64_t at = (bb * C + nn) * T + tt;
                out->data[at] = (x->data[at] + o[nn]) * scale;
            }
            if (skip)
                for (int64_t nn = C; nn < N; nn++)
                    skip->data[(bb * (N - C) + nn - C) * T + tt] = o[nn];
        }
    free(z);
    free(o);
    return 0;
}

/* gelu(layernorm(x) . w^T + b) with the LayerNorm folded into the GEMM:
 * per row the GEMM of raw x against w*gamma accumulates with sum(x) and
 * sum(x^2); the epilogue corrects it with the row's mean and rstd:
 *   h[n] = rstd * (acc[n] - mean * sum_k w[n,k] gamma[k])
 *          + sum_k w[n,k] beta[k] + b[n]. */
static int fused_ln_gemm_gelu(Interp *I, const Kernel *k)
{
    static const char *const names[] = {"x", "gamma", "beta", "w", "b", "out"};
    static const bool req[] = {true, false, false, true, false, true};
    const Tensor *t[6];
    const Value *v[6];
    if (bind(I, k, names, req, 6, t, v))
        return -1;
    const Tensor *x = t[0], *gam = t[1], *bet = t[2], *w = t[3], *b = t[4];
    const Value *vo = v[5];
    const Match *m = k->match;
    const Node *ln = kernel_node(k, OP_LAYERNORM), *ge = kernel_node(k, OP_GELU);
    double eps;
    int pe = pat_param(m, "eps");
    if (pe >= 0)
        eps = m->param[pe];
    else if (ln)
        eps = attr_float(ln, "eps", 1e-5);
    else
        return fail(I, NULL, "kernel %s: no eps", kname(k));
    bool tanh_approx;
    int pa = pat_param(m, "approximate");
    if (pa >= 0 && m->param_attr && m->param_attr[pa].kind == A_STR &&
        m->param_attr[pa].s)
        tanh_approx = !strcmp(m->param_attr[pa].s, "tanh");
    else if (ge) {
        ElemArgs ea;
        if (node_args(I, ge, &ea))
            return -1;
        tanh_approx = ea.gelu_tanh;
    } else
        return fail(I, NULL, "kernel %s: no gelu approximation", kname(k));
    if (x->rank < 1 || w->rank != 2)
        return fail(I, NULL, "kernel %s: x %s, w %s", kname(k), SHAPE(x),
                    SHAPE(w));
    int64_t K = x->shape[x->rank - 1], N = w->shape[0];
    int64_t es[KG_MAX_RANK];
    memcpy(es, x->shape, sizeof es);
    es[x->rank - 1] = N;
    if (w->shape[1] != K || (gam && gam->n != K) || (bet && bet->n != K) ||
        (b && b->n != N) || !same_shape(x->rank, es, vo->rank, vo->shape))
        return fail(I, NULL, "kernel %s: x %s, w %s, result %s do not agree",
                    kname(k), SHAPE(x), SHAPE(w),
                    shape_str(vo->rank, vo->shape).s);
    Tensor *out = store(I, NULL, vo);
    if (!out)
        return -1;
    double *wg = malloc((size_t)(N * K > 0 ? N * K : 1) * sizeof *wg);
    double *cg = malloc((size_t)(N ? N : 1) * sizeof *cg);
    double *cb = malloc((size_t)(N ? N : 1) * sizeof *cb);
    if (!wg || !cg || !cb) {
        free(wg);
        free(cg);
        free(cb);
        return fail(I, NULL, "out of memory");
    }
    for (int64_t nn = 0; nn < N; nn++) {
        double sg = 0, sb = 0;
        for (int64_t kk = 0; kk < K; kk++) {
            double wv = w->data[nn * K + kk];
            wg[nn * K + kk] = wv * (gam ? gam->data[kk] : 1.0);
            sg += wg[nn * K + kk];
            sb += wv * (bet ? bet->data[kk] : 0.0);
        }
        cg[nn] = sg;
        cb[nn] = sb + (b ? b->data[nn] : 0.0);
    }
    int64_t rows = prod(x->rank - 1, x->shape);
    for (int64_t r = 0; r < rows; r++) {
        const double *xr = x->data + r * K;
        double s1 = 0, s2 = 0;
        for (int64_t kk = 0; kk < K; kk++) {
            s1 += xr[kk];
            s2 += xr[kk] * xr[kk];
        }
        double mean = s1 / (double)K;
        double var = s2 / (double)K - mean * mean;
        double rstd = 1.0 / sqrt((var > 0 ? var : 0) + eps);
        for (int64_t nn = 0; nn < N; nn++) {
            const double *wr = wg + nn * K;
            double acc = 0;
            for (int64_t kk = 0; kk < K; kk++)
                acc += xr[kk] * wr[kk];
            double h = rstd * (acc - mean * cg[nn]) + cb[nn];
            out->data[r * N + nn] = gelu(h, tanh_approx);
        }
    }
    free(wg);
    free(cg);
    free(cb);
    return 0;
}

/* h = x . w^T + b with w[2N, K]; out[., n] = h[., n] * act(h[., N + n]),
 * columns n and N + n computed together in one pass. */
static int fused_gemm_glu(Interp *I, const Kernel *k)
{
    static const char *const names[] = {"x", "w", "b", "out"};
    static const bool req[] = {true, true, false, true};
    const Tensor *t[4];
    const Value *v[4];
    if (bind(I, k, names, req, 4, t, v))
        return -1;
    const Tensor *x = t[0], *w = t[1], *b = t[2];
    const Value *vo = v[3];
    const Match *m = k->match;
    const Graph *pg = m->pat->g;
    int act = -1;
    for (int i = 0; i < pg->nopvars && m->opvar; i++)
        if (!strcmp(pg->opvars[i].name, "ACT") || pg->nopvars == 1)
            act = m->opvar[i];
    for (int i = 0; i < k->nnodes && act < 0; i++)
        if (op_info(k->nodes[i]->op)->cls == OC_UNARY)
            act = k->nodes[i]->op;
    if (act < 0 || act >= OP_COUNT || op_info(act)->cls != OC_UNARY)
        return fail(I, NULL, "kernel %s: no unary activation", kname(k));
    ElemArgs ea = {0};
    const Node *an = kernel_node(k, act);
    if (an && node_args(I, an, &ea))
        return -1;
    if (x->rank < 1 || w->rank != 2)
        return fail(I, NULL, "kernel %s: x %s, w %s", kname(k), SHAPE(x),
                    SHAPE(w));
    int64_t K = x->shape[x->rank - 1], N = w->shape[0] / 2;
    int64_t es[KG_MAX_RANK];
    memcpy(es, x->shape, sizeof es);
    es[x->rank - 1] = N;
    if (w->shape[1] != K || w->shape[0] % 2 || (b && b->n != 2 * N) ||
        !same_shape(x->rank, es, vo->rank, vo->shape))
        return fail(I, NULL, "kernel %s: x %s, w %s, result %s do not agree",
                    kname(k), SHAPE(x), SHAPE(w),
                    shape_str(vo->rank, vo->shape).s);
    Tensor *out = store(I, NULL, vo);
    if (!out)
        return -1;
    int64_t rows = prod(x->rank - 1, x->shape);
    for (int64_t r = 0; r < rows; r++) {
        const double *xr = x->data + r * K;
        for (int64_t nn = 0; nn < N; nn++) {
            const double *wo = w->data + nn * K, *wa = w->data + (N + nn) * K;
            double ho = 0, ha = 0;
            for (int64_t kk = 0; kk < K; kk++) {
                ho += xr[kk] * wo[kk];
                ha += xr[kk] * wa[kk];
            }
            ho += b ? b->data[nn] : 0.0;
            ha += b ? b->data[N + nn] : 0.0;
            out->data[r * N + nn] = ho * unary(act, &ea, ha);
        }
    }
    return 0;
}

/* Flash attention: see attn_online; the mask is a key-padding [B, S]
 * (true = padding) unless the kernel is a direct call of the sdpa op. */
static int fused_sdpa(Interp *I, const Kernel *k)
{
    static const char *const names[] = {"q", "k", "v", "mask", "out"};
    static const bool req[] = {true, true, true, false, true};
    const Tensor *t[5];
    const Value *v[5];
    if (bind(I, k, names, req, 5, t, v))
        return -1;
    Attn A = {0};
    A.q = t[0];
    A.k = t[1];
    A.v = t[2];
    A.mask = t[3];
    const Node *op = kernel_node(k, OP_SDPA);
    const Node *mf = kernel_node(k, OP_MASKED_FILL);
    if (attn_setup(I, NULL, &A, v[4], op == NULL))
        return -1;
    A.fill = mf ? attr_float(mf, "value", -INFINITY) : -INFINITY;
    if (param_factor(k->match, "scale", &A.scale) != 0) {
        if (!op)
            return fail(I, NULL, "kernel %s: no `scale` param bound",
                        kname(k));
        A.scale = attr_float(op, "scale", 1.0 / sqrt((double)A.D));
    }
    A.causal = op && attr_int(op, "causal", 0) != 0;
    if (!(A.out = store(I, NULL, v[4])))
        return -1;
    double *s = malloc(ATTN_BLOCK * sizeof *s);
    double *acc = malloc((size_t)(A.E ? A.E : 1) * sizeof *acc);
    if (!s || !acc) {
        free(s);
        free(acc);
        return fail(I, NULL, "out of memory");
    }
    attn_online(&A, s, acc);
    free(s);
    free(acc);
    return 0;
}

static int run_fused(Interp *I, const Kernel *k)
{
    const Match *m = k->match;
    if (!m || !m->pat || !m->pat->g || !m->pat->g->name)
        return fail(I, NULL, "fused kernel %s has no match",
                    kname(k));
    const char *p = m->pat->g->name;
    if (!strcmp(p, "gated_tanh_residual"))
        return fused_gated_tanh(I, k);
    if (!strcmp(p, "ln_gemm_gelu"))
        return fused_ln_gemm_gelu(I, k);
    if (!strcmp(p, "gemm_glu"))
        return fused_gemm_glu(I, k);
    if (!strcmp(p, "sdpa"))
        return fused_sdpa(I, k);
    return run_nodes(I, k);    /* a new pattern: its ops, one by one */
}

static int run_kernel(Interp *I, const Kernel *k)
{
    int rc;
    switch (k->kind) {
    case K_GENERIC: case K_VIEW: case K_COPY:
        rc = run_nodes(I, k);
        break;
    case K_ELEMWISE:
        rc = run_elemwise(I, k);
        break;
    case K_FUSED:
        rc = run_fused(I, k);
        break;
    default:
        return fail(I, NULL, "kernel %s has unknown kind %d",
                    kname(k), (int)k->kind);
    }
    if (rc)
        return rc;
    for (int i = 0; i < k->nout; i++)
        if (k->out[i] && !I->vt[k->out[i]->id] && k->out[i]->kind != V_CONST)
            return fail(I, NULL, "kernel %s did not compute its output '%s'",
                        kname(k), label(k->out[i]).s);
    return 0;
}

static void release_kernel(Interp *I, const Kernel *k, int step)
{
    for (int i = 0; i < k->nnodes; i++)
        release_node(I, k->nodes[i], step);
    for (int i = 0; i < k->nin; i++)
        release(I, k->in[i], step);
    for (int i = 0; i < k->nout; i++)
        release(I, k->out[i], step);
}

/* ---------------------------------------------------------------------------
 * Entry points
 * ------------------------------------------------------------------------- */

int interp_run(const Graph *g, const Plan *p, uint64_t seed, Tensor *outs,
               Str *err)
{
    return interp_run_given(g, p, seed, NULL, outs, err);
}

int interp_run_given(const Graph *g, const Plan *p, uint64_t seed,
                     const Tensor *given, Tensor *outs, Str *err)
{
    Interp I = {g, NULL, NULL, err, seed, 1, given};
    int rc = -1, nsteps = p ? p->nk : g->nnodes;
    int *step = NULL;
    if (g->noutputs > 0 && !outs)
        return fail(&I, NULL, "no room for the outputs");
    if (g->noutputs > 0)
        memset(outs, 0, (size_t)g->noutputs * sizeof *outs);
    if (p && p->g && p->g != g)
        return fail(&I, NULL, "the plan is for another graph");
    I.vt = calloc((size_t)g->nvalues + 1, sizeof *I.vt);
    I.last = malloc(((size_t)g->nvalues + 1) * sizeof *I.last);
    step = malloc(((size_t)g->nnodes + 1) * sizeof *step);
    if (!I.vt || !I.last || !step) {
        fail(&I, NULL, "out of memory");
        goto done;
    }
    for (int i = 0; i < g->nvalues; i++)
        if (!g->values[i] || g->values[i]->id != i)
            die("value %d has id %d", i, g->values[i] ? g->values[i]->id : -1);
    for (int i = 0; i < g->nnodes; i++) {
        if (g->nodes[i]->id != i)
            die("node %d has id %d", i, g->nodes[i]->id);
        step[i] = p ? -1 : i;
    }
    for (int s = 0; p && s < p->nk; s++)
        for (int i = 0; i < p->k[s]->nnodes; i++) {
            const Node *n = p->k[s]->nodes[i];
            if (step[n->id] >= 0) {
                fail(&I, n, "the plan covers this op twice");
                goto done;
            }
            step[n->id] = s;
        }
    for (int i = 0; i < g->nvalues; i++) {
        const Value *v = g->values[i];
        I.last[i] = -1;
        for (int u = 0; u < v->nuses; u++)
            if (step[v->uses[u]->id] > I.last[i])
                I.last[i] = step[v->uses[u]->id];
    }
    for (int i = 0; i < g->ninputs; i++) {
        const Tensor *gv = given ? &given[i] : NULL;
        if (gv && gv->data) {
            Tensor *t = store(&I, NULL, g->inputs[i]);
            if (!t)
                goto done;
            if (gv->n != t->n) {
                fail(&I, NULL, "input %s: %lld elements given, %lld expected",
                     g->inputs[i]->name, (long long)gv->n, (long long)t->n);
                goto done;
            }
            memcpy(t->data, gv->data, (size_t)t->n * sizeof(double));
        } else if (gen_input(&I, g->inputs[i])) {
            goto done;
        }
    }
    for (int s = 0; s < nsteps; s++) {
        if (p) {
            if (run_kernel(&I, p->k[s]))
                goto done;
            release_kernel(&I, p->k[s], s);
        } else {
            if (eval_node(&I, g->nodes[s]))
                goto done;
            release_node(&I, g->nodes[s], s);
        }
    }
    for (int i = 0; i < g->noutputs; i++) {
        const Tensor *t = get(&I, NULL, g->outputs[i]);
        if (!t)
            goto done;
        Tensor *o = &outs[i];
        o->data = malloc((size_t)(t->n ? t->n : 1) * sizeof(double));
        if (!o->data) {
            fail(&I, NULL, "out of memory");
            goto done;
        }
        memcpy(o->data, t->data, (size_t)t->n * sizeof(double));
        o->dt = g->outputs[i]->dt;
        o->rank = t->rank;
        memcpy(o->shape, t->shape, sizeof o->shape);
        o->n = t->n;
    }
    rc = 0;
done:
    if (rc)
        for (int i = 0; i < g->noutputs; i++)
            tensor_free(&outs[i]);
    for (int i = 0; I.vt && i < g->nvalues; i++)
        tensor_del(I.vt[i]);
    free(I.vt);
    free(I.last);
    free(step);
    return rc;
}

/* Random data for value v, made exactly as interp_run makes an input's:
 * seeded by its name and seed, rounded to its dtype. */
int interp_random(const Graph *g, const Value *v, uint64_t seed, Tensor *out,
                  Str *err)
{
    Interp I = {g, NULL, NULL, err, seed, 1, NULL};
    memset(out, 0, sizeof *out);
    I.vt = calloc((size_t)g->nvalues + 1, sizeof *I.vt);
    if (!I.vt)
        return fail(&I, NULL, "out of memory");
    int rc = gen_input(&I, v);
    if (rc == 0) {
        *out = *I.vt[v->id];
        free(I.vt[v->id]);     /* the Tensor shell; out owns the data */
    }
    free(I.vt);
    return rc;
}

/* The reference of one kernel: its nodes evaluated op by op (the graph's
 * meaning, not a fused algorithm) on the given inputs, one per k->in in
 * order; out receives one tensor per k->out. */
int interp_kernel(const Plan *p, const Kernel *k, const Tensor *in, Tensor *out,
                  Str *err)
{
    return interp_kernel_sampled(p, k, in, out, 1, err);
}

int interp_kernel_sampled(const Plan *p, const Kernel *k, const Tensor *in,
                          Tensor *out, int64_t stride, Str *err)
{
    const Graph *g = p->g;
    Interp I = {g, NULL, NULL, err, 0, stride, NULL};
    int rc = -1;
    memset(out, 0, (size_t)k->nout * sizeof *out);
    I.vt = calloc((size_t)g->nvalues + 1, sizeof *I.vt);
    I.last = malloc(((size_t)g->nvalues + 1) * sizeof *I.last);
    if (!I.vt || !I.last) {
        fail(&I, NULL, "out of memory");
        goto done;
    }
    for (int i = 0; i < g->nvalues; i++)
        I.last[i] = INT32_MAX;                 /* keep everything */
    for (int i = 0; i < k->nin; i++) {
        const Value *v = k->in[i];
        if (in[i].n != numel(v)) {
            fail(&I, NULL, "kernel %s: input %d has %lld elements, not %lld",
                 kname(k), i, (long long)in[i].n, (long long)numel(v));
            goto done;
        }
        Tensor *t = tensor_new(&I, NULL, v->dt, v->rank, v->shape);
        if (!t)
            goto done;
        memcpy(t->data, in[i].data, (size_t)t->n * sizeof *t->data);
        I.vt[v->id] = t;
    }
    if (run_nodes(&I, k))
        goto done;
    for (int i = 0; i < k->nout; i++) {
        const Tensor *t = I.vt[k->out[i]->id];
        if (!t) {
            fail(&I, NULL, "kernel %s: output %d was not computed", kname(k), i);
            goto done;
        }
        out[i] = *t;
        out[i].data = malloc((size_t)(t->n ? t->n : 1) * sizeof(double));
        if (!out[i].data) {
            fail(&I, NULL, "out of memory");
            goto done;
        }
        memcpy(out[i].data, t->data, (size_t)t->n * sizeof(double));
    }
    rc = 0;
done:
    if (rc)
        for (int i = 0; i < k->nout; i++)
            tensor_free(&out[i]);
    for (int i = 0; I.vt && i < g->nvalues; i++)
        tensor_del(I.vt[i]);
    free(I.vt);
    free(I.last);
    return rc;
}

/* Relative L2 error over the finite positions, after checking that the
 * non-finite ones agree exactly.  Sums are scaled by the largest magnitude
 * so that huge values do not overflow the squares. */
double tensor_rel_err(const Tensor *a, const Tensor *b, double *max_abs)
{
    if (max_abs)
        *max_abs = INFINITY;
    if (!a || !b || !same_shape(a->rank, a->shape, b->rank, b->shape) ||
        a->n != b->n)
        return INFINITY;
    double big = 0, mad = 0;
    for (int64_t i = 0; i < a->n; i++) {
        double x = a->data[i], y = b->data[i];
        if (!isfinite(x) || !isfinite(y)) {
            if (isnan(x) && isnan(y))
                continue;
            if (x == y)        /* the same infinity */
                continue;
            return INFINITY;
        }
        double d = fabs(x - y);
        if (!isfinite(d))
            return INFINITY;   /* finite values a full range apart */
        mad = d > mad ? d : mad;
        big = fabs(x) > big ? fabs(x) : big;
    }
    if (max_abs)
        *max_abs = mad;
    if (mad == 0)
        return 0;
    double sc = big > mad ? big : mad, na = 0, nd = 0;
    for (int64_t i = 0; i < a->n; i++) {
        double x = a->data[i], y = b->data[i];
        if (!isfinite(x) || !isfinite(y))
            continue;
        na += (x / sc) * (x / sc);
        nd += ((x - y) / sc) * ((x - y) / sc);
    }
    double norm = sqrt(na);
    return sqrt(nd) / (norm > DBL_MIN ? norm : DBL_MIN);
}

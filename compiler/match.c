/*
 * match.c -- the fourth stage: find the fusion patterns in a model graph.
 *
 * The matcher knows no pattern by name.  It unifies a pattern graph (read
 * from the pattern files) with the model graph, starting at the first
 * output and walking producers:
 *   - a pattern input binds to any model value of its rank and dtype (a
 *     pattern `weight` only to a model weight), and each axis's declared dim
 *     expression is solved against the model's size (`2*C` = 1024 gives C);
 *   - a pattern node matches a model node of the same op (or one op of an
 *     `op` variable) with equal attributes; `param` holes capture numbers and
 *     strings; commutative ops (add, mul, maximum, minimum) try both operand
 *     orders, with full backtracking;
 *   - a value inside the match may not escape: every use of it must be in
 *     the match and it must not be a model output, and no pattern input may
 *     depend on a matched node (the fused kernel must be schedulable).
 * Goals are kept on an explicit stack so that a choice made for one operand
 * can be undone when a later goal fails.
 */
#include "kgen.h"

#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_GOALS 512
#define MAX_TRAIL 4096

typedef struct Goal {
    const Value *pv;           /* pattern value */
    Value *mv;                 /* model value */
} Goal;

typedef enum { TR_VAL, TR_NODE, TR_DIM, TR_PARAM, TR_OPVAR, TR_DTVAR, TR_DEFER } TrKind;

typedef struct Trail {
    TrKind kind;
    int index;
} Trail;

typedef struct Deferred {
    const Expr *e;
    int64_t target;
} Deferred;

typedef struct Matcher {
    const Graph *g;            /* model */
    const Pattern *pat;
    const Graph *pg;           /* pattern graph */
    Match *m;
    int *owner;                /* model node id -> pattern node id + 1 */
    Trail trail[MAX_TRAIL];
    int ntrail;
    Deferred defer[64];
    int ndefer;
    bool overflow;             /* trail full: give up this attempt */
    Goal *stack;               /* goal regions, one per pending node */
    int sp, cap;
    const Node **dfs;          /* depends_on_match's stack */
    char *seen;                /* depends_on_match's marks, by node id */
} Matcher;

static void push_trail(Matcher *M, TrKind k, int i)
{
    if (M->ntrail == MAX_TRAIL) {
        M->overflow = true;
        return;
    }
    M->trail[M->ntrail++] = (Trail){k, i};
}

static void undo(Matcher *M, int mark)
{
    Match *m = M->m;
    while (M->ntrail > mark) {
        Trail t = M->trail[--M->ntrail];
        switch (t.kind) {
        case TR_VAL: m->val[t.index] = NULL; break;
        case TR_NODE:
            M->owner[m->node[t.index]->id] = 0;
            m->node[t.index] = NULL;
            break;
        case TR_DIM: m->dim_bound[t.index] = false; break;
        case TR_PARAM: m->param_bound[t.index] = false; break;
        case TR_OPVAR: m->opvar[t.index] = -1; break;
        case TR_DTVAR: m->dtvar_bound[t.index] = false; break;
        case TR_DEFER: M->ndefer--; break;
        }
    }
}

/* ---- dims ------------------------------------------------------------ */

static int dim_index(const Graph *pg, const char *name)
{
    for (int i = 0; i < pg->ndims; i++)
        if (!strcmp(pg->dims[i].name, name))
            return i;
    return -1;
}

/* Evaluate e under the current bindings; false if some dim is unbound. */
static bool try_eval(Matcher *M, const Expr *e, int64_t *out)
{
    int64_t l, r;
    switch (e->kind) {
    case E_NUM:
        *out = e->ival;
        return true;
    case E_NAME: {
        int i = dim_index(M->pg, e->name);
        if (i < 0 || !M->m->dim_bound[i])
            return false;
        *out = M->m->dim[i];
        return true;
    }
    case E_NEG:
        if (!try_eval(M, e->lhs, &l))
            return false;
        *out = -l;
        return true;
    case E_BINOP:
        if (!try_eval(M, e->lhs, &l) || !try_eval(M, e->rhs, &r))
            return false;
        switch (e->op) {
        case '+': *out = l + r; return true;
        case '-': *out = l - r; return true;
        case '*': *out = l * r; return true;
        default:
            if (r == 0 || l % r)
                return false;
            *out = l / r;
            return true;
        }
    default:
        return false;
    }
}

/* Make e equal target.  1: holds (maybe after binding a dim); 0: cannot
 * hold; -1: undecided yet (more than one unbound dim). */
static int solve(Matcher *M, const Expr *e, int64_t target)
{
    int64_t v;
    if (try_eval(M, e, &v))
        return v == target;
    switch (e->kind) {
    case E_NAME: {
        int i = dim_index(M->pg, e->name);
        if (i < 0 || target <= 0)
            return 0;
        M->m->dim[i] = target;
        M->m->dim_bound[i] = true;
        push_trail(M, TR_DIM, i);
        return 1;
    }
    case E_NEG:
        return solve(M, e->lhs, -target);
    case E_BINOP: {
        int64_t l, r;
        bool hl = try_eval(M, e->lhs, &l), hr = try_eval(M, e->rhs, &r);
        switch (e->op) {
        case '+':
            if (hl) return solve(M, e->rhs, target - l);
            if (hr) return solve(M, e->lhs, target - r);
            return -1;
        case '-':
            if (hl) return solve(M, e->rhs, l - target);
            if (hr) return solve(M, e->lhs, target + r);
            return -1;
        case '*':
            if (hl) return l != 0 && target % l == 0 ? solve(M, e->rhs, target / l) : 0;
            if (hr) return r != 0 && target % r == 0 ? solve(M, e->lhs, target / r) : 0;
            return -1;
        default:
            if (hr) {
                int64_t t;
                if (__builtin_mul_overflow(target, r, &t))
                    return 0;
                /* l / r == target exactly, so l == target * r */
                return solve(M, e->lhs, t);
            }
            return -1;
        }
    }
    default:
        return 0;
    }
}

static bool unify_dim(Matcher *M, const Expr *e, int64_t target)
{
    int r = solve(M, e, target);
    if (r >= 0)
        return r == 1;
    if (M->ndefer == (int)(sizeof M->defer / sizeof *M->defer))
        return false;
    M->defer[M->ndefer++] = (Deferred){e, target};
    push_trail(M, TR_DEFER, 0);
    return true;
}

/* Settle deferred dim equations; false if one fails or stays open. */
static bool settle(Matcher *M)
{
    bool progress = true;
    while (progress) {
        progress = false;
        bool open = false;
        for (int i = 0; i < M->ndefer; i++) {
            int64_t v;
            if (try_eval(M, M->defer[i].e, &v)) {
                if (v != M->defer[i].target)
                    return false;
                continue;
            }
            int r = solve(M, M->defer[i].e, M->defer[i].target);
            if (r == 0)
                return false;
            if (r == 1)
                progress = true;
            else
                open = true;
        }
        if (!progress && open)
            return false;
    }
    return true;
}

/* ---- attributes and values ------------------------------------------- */

static bool same_attr(const Attr *a, const Attr *b)
{
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case A_NONE: return true;
    case A_INT: case A_BOOL: case A_DTYPE: return a->i == b->i;
    case A_FLOAT: return a->f == b->f || (isnan(a->f) && isnan(b->f));
    case A_STR: return !strcmp(a->s, b->s);
    case A_INTS:
        if (a->n != b->n)
            return false;
        for (int i = 0; i < a->n; i++)
            if (a->ints[i] != b->ints[i])
                return false;
        return true;
    }
    return false;
}

static bool bind_dtype(Matcher *M, int var, DType dt)
{
    Match *m = M->m;
    if (m->dtvar_bound[var])
        return m->dtvar[var] == dt;
    m->dtvar[var] = dt;
    m->dtvar_bound[var] = true;
    push_trail(M, TR_DTVAR, var);
    return true;
}

static bool unify_attr(Matcher *M, const Attr *pa, const Attr *ma, bool is_dtype)
{
    Match *m = M->m;
    if (pa->hole >= 0 && is_dtype)
        return ma->kind == A_DTYPE && bind_dtype(M, pa->hole, (DType)ma->i);
    if (pa->hole >= 0) {
        int h = pa->hole;
        if (ma->kind == A_NONE)
            return false;
        if (m->param_bound[h])
            return same_attr(&m->param_attr[h], ma);
        m->param_attr[h] = *ma;
        m->param[h] = ma->kind == A_FLOAT ? ma->f : (double)ma->i;
        m->param_bound[h] = true;
        push_trail(M, TR_PARAM, h);
        return true;
    }
    if (pa->kind == A_INT && pa->expr && pa->i == -1 && ma->kind == A_INT)
        return unify_dim(M, pa->expr, ma->i);
    if (pa->kind == A_INTS && pa->expr && ma->kind == A_INTS) {
        if (pa->n != ma->n)
            return false;
        for (int i = 0; i < pa->n; i++) {
            if (pa->ints[i] == -1) {
                if (!unify_dim(M, pa->expr->args[i], ma->ints[i]))
                    return false;
            } else if (pa->ints[i] != ma->ints[i]) {
                return false;
            }
        }
        return true;
    }
    return same_attr(pa, ma);
}

static bool run_goals(Matcher *M, Goal *goals, int n);

static bool bind_val(Matcher *M, const Value *pv, Value *mv)
{
    M->m->val[pv->id] = mv;
    push_trail(M, TR_VAL, pv->id);
    return !M->overflow;
}

/* A pattern input, param or constant against a model value. */
static bool unify_leaf(Matcher *M, const Value *pv, Value *mv)
{
    Match *m = M->m;
    if (pv->kind == V_CONST) {
        if (mv->kind != V_CONST)
            return false;
        if (pv->hole < 0)
            return pv->cval == mv->cval || (isnan(pv->cval) && isnan(mv->cval));
        int h = pv->hole;
        if (m->param_bound[h])
            return m->param[h] == mv->cval;
        m->param[h] = mv->cval;
        m->param_attr[h] = (Attr){.kind = A_FLOAT, .f = mv->cval, .hole = -1};
        m->param_bound[h] = true;
        push_trail(M, TR_PARAM, h);
        return true;
    }
    /* pattern input or weight */
    if (mv->kind == V_CONST || mv->rank != pv->rank)
        return false;
    if (pv->kind == V_WEIGHT && mv->kind != V_WEIGHT)
        return false;
    if (pv->dtvar >= 0 ? !bind_dtype(M, pv->dtvar, mv->dt) : pv->dt != mv->dt)
        return false;
    for (int i = 0; i < pv->rank; i++)
        if (pv->sym[i] && !unify_dim(M, pv->sym[i], mv->shape[i]))
            return false;
    return true;
}

/* Pattern node pn against model node mn: op and attributes; the operands
 * become new goals. */
static bool unify_node(Matcher *M, const Node *pn, Node *mn, Goal *rest, int n)
{
    Match *m = M->m;
    if (m->node[pn->id])
        return m->node[pn->id] == mn && run_goals(M, rest, n);
    if (mn->kernel != -1 || M->owner[mn->id])
        return false;
    if (pn->opvar >= 0) {
        const OpVar *ov = &M->pg->opvars[pn->opvar];
        bool ok = false;
        for (int i = 0; i < ov->nops; i++)
            ok |= ov->ops[i] == mn->op;
        if (!ok)
            return false;
        if (m->opvar[pn->opvar] >= 0 && m->opvar[pn->opvar] != mn->op)
            return false;
        if (m->opvar[pn->opvar] < 0) {
            m->opvar[pn->opvar] = mn->op;
            push_trail(M, TR_OPVAR, pn->opvar);
        }
    } else if (pn->op != mn->op) {
        return false;
    }
    if (pn->nin != mn->nin || pn->nout != mn->nout)
        return false;
    const OpInfo *o = op_info(mn->op);
    for (int p = 0; p < o->nparams; p++) {
        if (o->params[p].kind <= P_TENSOR_LIST)
            continue;
        Attr ma = mn->attr[p];
        /* a model's conv1d without `kernel` has its weight's K: it matches
         * a pattern's `kernel=1` or `kernel=KS` as if it had written it */
        if (mn->op == OP_CONV1D && ma.kind == A_NONE && pn->attr[p].kind != A_NONE &&
            !strcmp(o->params[p].name, "kernel") && mn->nin > 1 && mn->in[1])
            ma = (Attr){.kind = A_INT, .i = mn->in[1]->shape[mn->in[1]->rank - 1], .hole = -1};
        if (!unify_attr(M, &pn->attr[p], &ma, o->params[p].kind == P_DTYPE))
            return false;
    }
    m->node[pn->id] = mn;
    M->owner[mn->id] = pn->id + 1;
    push_trail(M, TR_NODE, pn->id);
    if (n + pn->nin > MAX_GOALS || M->overflow)
        return false;
    for (int i = 0; i < pn->nin; i++)
        if ((pn->in[i] == NULL) != (mn->in[i] == NULL))
            return false;
    int orders = (o->flags & OF_COMMUT) && pn->nin == 2 ? 2 : 1;
    if (M->sp + n + pn->nin > M->cap)
        return false;
    Goal *goals = M->stack + M->sp;    /* this level's region */
    M->sp += n + pn->nin;
    bool found = false;
    for (int ord = 0; ord < orders && !found; ord++) {
        int mark = M->ntrail;
        memcpy(goals, rest, (size_t)n * sizeof *goals);
        int k = n;
        for (int i = pn->nin - 1; i >= 0; i--) {
            if (!pn->in[i])
                continue;
            int j = ord ? 1 - i : i;
            goals[k++] = (Goal){pn->in[i], mn->in[j]};
        }
        found = run_goals(M, goals, k);
        if (!found)
            undo(M, mark);
    }
    M->sp -= n + pn->nin;
    return found;
}

static bool finish(Matcher *M);

static bool run_goals(Matcher *M, Goal *goals, int n)
{
    if (M->overflow)
        return false;
    if (n == 0)
        return finish(M);
    Goal g = goals[n - 1];
    Match *m = M->m;
    const Value *pv = g.pv;
    Value *mv = g.mv;
    if (m->val[pv->id])
        return m->val[pv->id] == mv && run_goals(M, goals, n - 1);
    int mark = M->ntrail;
    if (pv->kind != V_NODE) {
        if (unify_leaf(M, pv, mv) && bind_val(M, pv, mv) &&
            run_goals(M, goals, n - 1))
            return true;
        undo(M, mark);
        return false;
    }
    if (mv->kind != V_NODE || mv->def_res != pv->def_res)
        return false;
    if (!bind_val(M, pv, mv))
        return false;
    if (unify_node(M, pv->def, mv->def, goals, n - 1))
        return true;
    undo(M, mark);
    return false;
}

/* Does v (transitively) depend on a node of this match?  Only producers
 * with ids of at least lo can.  Iterative: models may be long chains. */
static bool depends_on_match(Matcher *M, const Value *v, int lo)
{
    if (v->kind != V_NODE)
        return false;
    int top = 0;
    M->dfs[top++] = v->def;
    while (top > 0) {
        const Node *n = M->dfs[--top];
        if (n->id < lo || M->seen[n->id])
            continue;
        if (M->owner[n->id])
            return true;
        M->seen[n->id] = 1;
        for (int i = 0; i < n->nin; i++)
            if (n->in[i] && n->in[i]->kind == V_NODE)
                M->dfs[top++] = n->in[i]->def;
    }
    return false;
}

/* The whole pattern is bound: check dims, escapes and schedulability. */
static bool finish(Matcher *M)
{
    Match *m = M->m;
    const Graph *pg = M->pg;
    if (!settle(M))
        return false;
    for (int i = 0; i < pg->noutputs; i++) {
        const Value *po = pg->outputs[i];
        Node *mn = m->node[po->def->id];
        if (!mn)
            return false;
        m->val[po->id] = mn->out[po->def_res];
    }
    int lo = M->g->nnodes;
    for (int i = 0; i < pg->nnodes; i++) {
        const Node *pn = pg->nodes[i];
        Node *mn = m->node[pn->id];
        if (!mn)
            return false;
        if (mn->id < lo)
            lo = mn->id;
        for (int r = 0; r < pn->nout; r++) {
            if (pn->out[r]->is_output)
                continue;
            const Value *mv = mn->out[r];
            if (mv->is_output)
                return false;
            for (int u = 0; u < mv->nuses; u++)
                if (!M->owner[mv->uses[u]->id])
                    return false;
        }
    }
    memset(M->seen, 0, (size_t)M->g->nnodes + 1);
    for (int i = 0; i < pg->ninputs; i++) {
        const Value *mv = m->val[pg->inputs[i]->id];
        if (mv && depends_on_match(M, mv, lo))
            return false;
    }
    return true;
}

static Match *new_match(const Pattern *pat, Arena *a)
{
    const Graph *pg = pat->g;
    Match *m = arena_alloc(a, sizeof *m);
    m->pat = pat;
    m->val = arena_alloc(a, (size_t)(pg->nvalues + 1) * sizeof *m->val);
    m->node = arena_alloc(a, (size_t)(pg->nnodes + 1) * sizeof *m->node);
    m->dim = arena_alloc(a, (size_t)(pg->ndims + 1) * sizeof *m->dim);
    m->dim_bound = arena_alloc(a, (size_t)(pg->ndims + 1));
    m->param = arena_alloc(a, (size_t)(pg->nparams + 1) * sizeof *m->param);
    m->param_attr = arena_alloc(a, (size_t)(pg->nparams + 1) * sizeof *m->param_attr);
    m->param_bound = arena_alloc(a, (size_t)(pg->nparams + 1));
    m->opvar = arena_alloc(a, (size_t)(pg->nopvars + 1) * sizeof *m->opvar);
    for (int i = 0; i < pg->nopvars; i++)
        m->opvar[i] = -1;
    m->dtvar = arena_alloc(a, (size_t)(pg->ndtypes + 1) * sizeof *m->dtvar);
    m->dtvar_bound = arena_alloc(a, (size_t)(pg->ndtypes + 1));
    return m;
}

Match **match_all(Graph *g, const PatternSet *ps, const bool *decline,
                  Arena *a, int *nmatch)
{
    Match **out = NULL;
    int n = 0, cap = 0;
    int *owner = calloc((size_t)g->nnodes + 1, sizeof *owner);
    size_t edges = 1;
    for (int i = 0; i < g->nnodes; i++)
        edges += (size_t)g->nodes[i]->nin;
    int gcap = (KG_MAX_PATTERN_OPS + 1) * MAX_GOALS;
    Goal *stack = malloc((size_t)gcap * sizeof *stack);
    const Node **dfs = malloc(edges * sizeof *dfs);
    char *seen = malloc((size_t)g->nnodes + 1);
    if (!owner || !stack || !dfs || !seen)
        die("out of memory");
    for (int pi = 0; pi < ps->n; pi++) {
        const Pattern *pat = ps->p[pi];
        const Graph *pg = pat->g;
        const Value *root = pg->outputs[0];
        Matcher M = {.g = g, .pat = pat, .pg = pg, .owner = owner,
                     .stack = stack, .cap = gcap, .dfs = dfs, .seen = seen};
        Match *m = new_match(pat, a);
        for (int i = g->nnodes - 1; i >= 0; i--) {
            Node *mn = g->nodes[i];
            if (mn->kernel != -1 || mn->nout <= root->def_res ||
                (root->def->opvar < 0 && mn->op != root->def->op) ||
                (pg->optional && decline && decline[mn->id]))
                continue;
            M.m = m;
            M.ntrail = M.ndefer = M.sp = 0;
            M.overflow = false;
            Goal goal = {root, mn->out[root->def_res]};
            if (!run_goals(&M, &goal, 1)) {
                undo(&M, 0);
                continue;
            }
            m->root = mn->id;
            for (int j = 0; j < pg->nnodes; j++) {
                m->node[j]->kernel = -2 - n;
                owner[m->node[j]->id] = 0;
            }
            ARENA_PUSH(a, out, n, cap, m);
            m = new_match(pat, a);
        }
    }
    free(owner);
    free(stack);
    free(dfs);
    free(seen);
    *nmatch = n;
    return out;
}

Value *match_value(const Match *m, const char *name)
{
    const Graph *pg = m->pat->g;
    for (int i = 0; i < pg->nvalues; i++) {
        const Value *v = pg->values[i];
        if (v->name && !strcmp(v->name, name) &&
            (v->kind == V_INPUT || v->kind == V_WEIGHT || v->is_output))
            return m->val[v->id];
    }
    return NULL;
}

/* ---- loading pattern files --------------------------------------------- */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int cmp_pattern(const void *a, const void *b)
{
    const Pattern *x = *(const Pattern *const *)a, *y = *(const Pattern *const *)b;
    if (x->priority != y->priority)
        return y->priority - x->priority;
    return strcmp(x->variant, y->variant);
}

/* Every node must hang from the outputs, and every input must be used;
 * otherwise the matcher could not reach it from the first output. */
static bool check_pattern(const Graph *pg, Diag *d)
{
    if (pg->nnodes > KG_MAX_PATTERN_OPS) {
        diag_error(d, pg->name_loc, "pattern '%s' has %d ops; a pattern may "
                   "have at most %d", pg->name, pg->nnodes, KG_MAX_PATTERN_OPS);
        return false;
    }
    if (pg->outputs[0]->kind != V_NODE) {
        diag_error(d, pg->outputs[0]->loc, "a pattern's first output must be "
                   "computed by an op");
        return false;
    }
    char *reach = calloc((size_t)pg->nnodes + 1, 1);
    if (!reach)
        die("out of memory");
    reach[pg->outputs[0]->def->id] = 1;
    for (int i = pg->nnodes - 1; i >= 0; i--) {
        if (!reach[i])
            continue;
        const Node *n = pg->nodes[i];
        for (int j = 0; j < n->nin; j++)
            if (n->in[j] && n->in[j]->kind == V_NODE)
                reach[n->in[j]->def->id] = 1;
    }
    bool ok = true;
    for (int i = 0; i < pg->nnodes && ok; i++)
        if (!reach[i]) {
            diag_error(d, pg->nodes[i]->loc, "this op does not feed the "
                       "pattern's first output; the matcher starts there and "
                       "could not reach it");
            ok = false;
        }
    for (int i = 0; i < pg->ninputs && ok; i++)
        if (!pg->inputs[i]->nuses) {
            diag_error(d, pg->inputs[i]->loc, "pattern input '%s' is never used",
                       pg->inputs[i]->name);
            ok = false;
        }
    free(reach);
    return ok;
}

PatternSet *patterns_load(const char *dir, Diag *d, Arena *a)
{
    DIR *dp = opendir(dir);
    if (!dp) {
        diag_file_error(d, dir, "cannot open the pattern directory (use "
                        "--patterns DIR or $KGEN_PATTERNS)");
        return NULL;
    }
    char **names = NULL;
    int n = 0, cap = 0;
    struct dirent *de;
    while ((de = readdir(dp))) {
        size_t l = strlen(de->d_name);
        if (l > 4 && !strcmp(de->d_name + l - 4, ".pat") && de->d_name[0] != '.')
            ARENA_PUSH(a, names, n, cap, arena_strdup(a, de->d_name));
    }
    closedir(dp);
    if (n)
        qsort(names, (size_t)n, sizeof *names, cmp_str);
    PatternSet *ps = arena_alloc(a, sizeof *ps);
    int pcap = 0;
    for (int i = 0; i < n; i++) {
        const char *path = arena_printf(a, "%s/%s", dir, names[i]);
        size_t size;
        char *text = read_file(path, KG_MAX_INPUT, &size);
        if (!text) {
            diag_file_error(d, path, "cannot read pattern file");
            continue;
        }
        SrcFile *f = arena_alloc(a, sizeof *f);
        f->path = path;
        f->text = arena_strndup(a, text, size);
        f->len = size;
        free(text);
        Ast *ast = parse(f, d, a);
        if (d->nerrors)
            continue;
        Graph *pg = sema(ast, NULL, 0, d, a);
        if (!pg)
            continue;
        if (!pg->is_pattern) {
            diag_error(d, pg->name_loc, "files in the pattern directory start "
                       "with 'pattern NAME'");
            continue;
        }
        if (!check_pattern(pg, d))
            continue;
        Pattern *p = arena_alloc(a, sizeof *p);
        p->g = pg;
        p->path = path;
        p->variant = arena_strndup(a, names[i], strlen(names[i]) - 4);
        p->priority = pg->nnodes;
        ARENA_PUSH(a, ps->p, ps->n, pcap, p);
    }
    if (d->nerrors)
        return NULL;
    if (ps->n)
        qsort(ps->p, (size_t)ps->n, sizeof *ps->p, cmp_pattern);
    return ps;
}

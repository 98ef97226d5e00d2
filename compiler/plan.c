/*
 * plan.c -- the fifth stage: cover the whole graph with kernels.
 *
 * In order of preference:
 *   1. pattern matches become fused kernels (their template);
 *   2. elementwise ops, and the layout ops that follow an elementwise op,
 *      group into generated elementwise kernels (layout ops become index
 *      remapping inside them), except a layout op on a value layout.c
 *      marked stored, which is a view of what the group writes;
 *   3. a layout op on anything else is a view (strides and an offset over
 *      its input's memory, no kernel) when it can be, otherwise a copy;
 *      one with a model output among its results starts an elementwise
 *      group instead (a kernel must write the caller's tensor);
 *   4. every other op is a generic kernel of its own: contractions on the
 *      gemm template (depthwise conv1d on dwconv), norms and softmax on
 *      rownorm, reductions on reduce, sdpa on sdpa; such a kernel may take
 *      the transpose that follows it (takes_transpose) and write its result
 *      in that order.
 * Invariants: every node of the graph is in exactly one kernel; a kernel
 * writes every model output that a node computes; the kernel
 * graph is acyclic (merges are checked, and the final topological sort
 * would die on a cycle); kernels are listed in an executable order.
 */
#include "kgen.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct Planner {
    Plan *p;
    Graph *g;
    Arena *a;
    int *stamp;                /* DFS visit marks by node id */
    const Node **dfs;          /* DFS stack: every node's inputs once */
    int gen;
    bool *member;              /* node id -> in the group being tested */
} Planner;

static Kernel *new_kernel(Planner *P, KernelKind kind, const char *op,
                          const char *tmpl)
{
    Plan *p = P->p;
    Kernel *k = arena_alloc(P->a, sizeof *k);
    k->id = p->nk;
    k->kind = kind;
    k->op = op;
    k->template_name = tmpl;
    ARENA_PUSH(P->a, p->k, p->nk, p->cap_k, k);
    return k;
}

static void add_node(Planner *P, Kernel *k, Node *n)
{
    n->kernel = k->id;
    ARENA_PUSH(P->a, k->nodes, k->nnodes, k->cap_nodes, n);
}

static Kernel *kernel_of(Planner *P, const Value *v)
{
    if (v->kind != V_NODE || v->def->kernel < 0)
        return NULL;
    return P->p->k[v->def->kernel];
}

/* ---- acyclic merging ---------------------------------------------------- */

/* Does walking producers from n reach a member node?  Only nodes with ids
 * >= lo can (the graph is in topological order).  Iterative, with an
 * explicit stack: a long chain must not exhaust the C stack. */
static bool reaches_member(Planner *P, const Node *n, int lo)
{
    int top = 0;
    P->dfs[top++] = n;
    while (top > 0) {
        const Node *m = P->dfs[--top];
        if (m->id < lo || P->stamp[m->id] == P->gen)
            continue;
        if (P->member[m->id])
            return true;
        P->stamp[m->id] = P->gen;
        for (int i = 0; i < m->nin; i++)
            if (m->in[i] && m->in[i]->kind == V_NODE)
                P->dfs[top++] = m->in[i]->def;
    }
    return false;
}

/* Would putting n together with the groups ks[0..nk) make a cycle?  With
 * one group, only n's own inputs can close one; merging several groups
 * needs every external input checked. */
static bool can_merge(Planner *P, Kernel **ks, int nk, Node *n)
{
    int size = 1;
    for (int i = 0; i < nk; i++)
        size += ks[i]->nnodes;
    if (size > KG_MAX_GROUP)
        return false;          /* start a new kernel: keep generated code sane */
    int lo = n->id;
    for (int i = 0; i < nk; i++)
        for (int j = 0; j < ks[i]->nnodes; j++) {
            P->member[ks[i]->nodes[j]->id] = true;
            if (ks[i]->nodes[j]->id < lo)
                lo = ks[i]->nodes[j]->id;
        }
    P->member[n->id] = true;
    P->gen++;
    bool ok = true;
    for (int i = 0; i < n->nin && ok; i++) {
        Value *v = n->in[i];
        if (v && v->kind == V_NODE && !P->member[v->def->id])
            ok = !reaches_member(P, v->def, lo);
    }
    for (int i = 0; nk > 1 && i < nk && ok; i++)
        for (int j = 0; j < ks[i]->nnodes && ok; j++) {
            Node *m = ks[i]->nodes[j];
            for (int q = 0; q < m->nin && ok; q++) {
                Value *v = m->in[q];
                if (v && v->kind == V_NODE && !P->member[v->def->id])
                    ok = !reaches_member(P, v->def, lo);
            }
        }
    for (int i = 0; i < nk; i++)
        for (int j = 0; j < ks[i]->nnodes; j++)
            P->member[ks[i]->nodes[j]->id] = false;
    P->member[n->id] = false;
    return ok;
}

static int cmp_node(const void *a, const void *b)
{
    const Node *x = *(const Node *const *)a, *y = *(const Node *const *)b;
    return x->id - y->id;
}

/* Move every node of src into dst (src is left empty and dropped later). */
static void absorb(Planner *P, Kernel *dst, Kernel *src)
{
    for (int i = 0; i < src->nnodes; i++)
        add_node(P, dst, src->nodes[i]);
    src->nnodes = 0;
    qsort(dst->nodes, (size_t)dst->nnodes, sizeof *dst->nodes, cmp_node);
}

/* ---- views ---------------------------------------------------------------- */

static void contiguous(const Value *v, int64_t *st)
{
    int64_t s = 1;
    for (int i = v->rank - 1; i >= 0; i--) {
        st[i] = s;
        s *= v->shape[i];
    }
}

/* Strides that view x (with strides st) as y's shape without copying, or
 * false if no such strides exist.  Walks x's axes from the innermost,
 * cutting them into chunks that are contiguous among themselves, and maps
 * each chunk onto the y axes holding the same number of elements. */
static bool reshape_strides(const Value *x, const int64_t *st, const Value *y,
                            int64_t *out)
{
    if (x->rank == 0) {
        for (int i = 0; i < y->rank; i++)
            out[i] = 1;
        return true;
    }
    int vd = y->rank - 1;
    int64_t base = st[x->rank - 1], tn = 1, vn = 1;
    for (int td = x->rank - 1; td >= 0; td--) {
        tn *= x->shape[td];
        bool cut = td == 0 || (x->shape[td - 1] != 1 &&
                               st[td - 1] != tn * base);
        if (!cut)
            continue;
        while (vd >= 0 && (vn < tn || y->shape[vd] == 1)) {
            out[vd] = vn * base;
            vn *= y->shape[vd];
            vd--;
        }
        if (vn != tn)
            return false;
        if (td > 0) {
            base = st[td - 1];
            tn = vn = 1;
        }
    }
    return vd == -1;
}

/* Give value v the layout of a view of x by layout op n; false: a copy. */
static bool view_layout(Planner *P, Node *n, int r)
{
    Plan *p = P->p;
    Value *x = n->in[0], *y = n->out[r];
    int64_t *xs = p->strides[x->id], *ys = p->strides[y->id];
    int64_t off = p->offset[x->id];
    switch (n->op) {
    case OP_TRANSPOSE: {
        int a = (int)n->attr[op_param(n->op, "dim0")].i;
        int b = (int)n->attr[op_param(n->op, "dim1")].i;
        memcpy(ys, xs, sizeof p->strides[0]);
        ys[a] = xs[b];
        ys[b] = xs[a];
        break;
    }
    case OP_UNSQUEEZE: {
        int ax = (int)n->attr[op_param(n->op, "axis")].i;
        for (int i = 0, k = 0; i < y->rank; i++)
            ys[i] = i == ax ? (k < x->rank ? xs[k] * x->shape[k] : 1) : xs[k++];
        break;
    }
    case OP_SPLIT: {
        int ax = (int)n->attr[op_param(n->op, "axis")].i;
        memcpy(ys, xs, sizeof p->strides[0]);
        for (int i = 0; i < r; i++)
            off += n->out[i]->shape[ax] * xs[ax];
        break;
    }
    case OP_RESHAPE: {
        int64_t st[KG_MAX_RANK];
        if (!reshape_strides(x, xs, y, st))
            return false;      /* a copy: y keeps its contiguous strides */
        memcpy(ys, st, sizeof st);
        break;
    }
    default:
        return false;
    }
    p->offset[y->id] = off;
    p->base[y->id] = p->base[x->id] ? p->base[x->id] : x;
    return true;
}

static bool is_view_op(int op)
{
    return op == OP_TRANSPOSE || op == OP_UNSQUEEZE || op == OP_SPLIT ||
           op == OP_RESHAPE;
}

/* Does transpose n join the kernel that computes its input, which then
 * writes the transposed order?  A contraction's epilogue stores along
 * either axis at the same cost, so a GEMM always takes the transpose that
 * is its result's only reader: the reader gets a contiguous tensor.  A
 * norm writes its rows strided then, so it takes one only for a reader
 * that gains most from it: conv1d over [B, C, T] (groups 1, kernel > 1),
 * whose implicit GEMM reads contiguous time steps as wide copies and
 * channel-last rows a value at a time.  A depthwise conv takes the
 * transpose that turns its result back channel-last where its input is
 * channel-last (a transposed view with channel stride 1): the model runs
 * channel-last around the conv, as LYNXNet2 does, and the reader (its
 * linear) then gets a contiguous reduction axis instead of one read along
 * M (docs/performance.md, attempt 35). */
static bool takes_transpose(Planner *P, const Node *n)
{
    const Value *x = n->in[0], *y = n->out[0];
    if (n->op != OP_TRANSPOSE || x->kind != V_NODE || x->is_output ||
        x->nuses != 1 || y->is_output || P->p->base[x->id])
        return false;
    const Kernel *k = kernel_of(P, x);
    if (!k || k->kind != K_GENERIC || k->nnodes != 1)
        return false;
    if (!strcmp(k->template_name, "gemm"))
        return true;
    if (!strcmp(k->template_name, "dwconv")) {
        const Value *in = x->def->in[0];
        const int64_t *s = P->p->strides[in->id];
        int a = (int)n->attr[op_param(n->op, "dim0")].i;
        int b = (int)n->attr[op_param(n->op, "dim1")].i;
        return a == 1 && b == 2 && in->shape[1] > 1 && s[1] == 1;
    }
    if (strcmp(k->template_name, "rownorm") || y->nuses < 1)
        return false;
    for (int u = 0; u < y->nuses; u++) {
        const Node *c = y->uses[u];
        if (c->op != OP_CONV1D || c->in[0] != y || c->nin < 2 ||
            !c->in[1] || c->in[1]->rank != 3 || c->in[1]->shape[2] < 2 ||
            c->attr[op_param(c->op, "groups")].i != 1)
            return false;
    }
    return true;
}

/* ---- costs ----------------------------------------------------------------- */

static double node_flops(const Node *n)
{
    const Value *o = n->out[0];
    double out = (double)numel(o);
    switch (n->op) {
    case OP_LINEAR: {
        double k = (double)n->in[1]->shape[1];
        return 2 * out * k + (n->in[2] ? out : 0);
    }
    case OP_MATMUL: {
        const Value *a = n->in[0];
        return 2 * out * (double)a->shape[a->rank - 1];
    }
    case OP_CONV1D: {
        const Value *w = n->in[1];
        return 2 * out * (double)w->shape[1] * (double)w->shape[2] +
               (n->in[2] ? out : 0);
    }
    case OP_SDPA: {
        const Value *q = n->in[0], *k = n->in[1];
        double s = (double)k->shape[k->rank - 2], d = (double)q->shape[q->rank - 1];
        double rows = (double)numel(q) / d;
        return rows * s * (2 * d + 2 * (double)o->shape[o->rank - 1] + 5);
    }
    case OP_SOFTMAX: return 5 * out;
    case OP_LAYERNORM: case OP_RMSNORM: return 8 * out;
    case OP_SUM: case OP_MEAN: case OP_MAX: return (double)numel(n->in[0]);
    default:
        if (op_info(n->op)->flags & OF_ELEM)
            return out;
        return 0;                          /* layout */
    }
}

static double bytes_of(const Value *v)
{
    return (double)numel(v) * dtype_size(v->dt);
}

/* Fill a kernel's inputs, outputs, cost and lines from its nodes. */
static void finish_kernel(Planner *P, Kernel *k)
{
    Graph *g = P->g;
    (void)g;
    for (int i = 0; i < k->nnodes; i++)
        P->member[k->nodes[i]->id] = true;
    P->gen++;
    k->line_first = INT32_MAX;
    for (int i = 0; i < k->nnodes; i++) {
        Node *n = k->nodes[i];
        for (int j = 0; j < n->nin; j++) {
            Value *v = n->in[j];
            if (!v || v->kind == V_CONST ||
                (v->kind == V_NODE && P->member[v->def->id]))
                continue;
            bool seen = false;
            for (int q = 0; q < k->nin && !seen; q++)
                seen = k->in[q] == v;
            if (!seen)
                ARENA_PUSH(P->a, k->in, k->nin, k->cap_in, v);
        }
        for (int j = 0; j < n->nout; j++) {
            Value *v = n->out[j];
            bool outside = v->is_output;
            for (int u = 0; u < v->nuses && !outside; u++)
                outside = !P->member[v->uses[u]->id];
            if (outside)
                ARENA_PUSH(P->a, k->out, k->nout, k->cap_out, v);
        }
        if (k->kind != K_VIEW)
            k->flops += node_flops(n);
        for (int l = n->line_first; l <= n->line_last; l++) {
            bool seen = false;
            for (int q = 0; q < k->nlines && !seen; q++)
                seen = k->lines[q] == l;
            if (!seen)
                ARENA_PUSH(P->a, k->lines, k->nlines, k->cap_lines, l);
        }
        if (n->line_first < k->line_first)
            k->line_first = n->line_first;
        if (n->line_last > k->line_last)
            k->line_last = n->line_last;
    }
    for (int i = 0; i < k->nnodes; i++)
        P->member[k->nodes[i]->id] = false;
    /* a view moves nothing; everything else reads its inputs and writes its
     * outputs at least once */
    if (k->kind != K_VIEW) {
        /* views of one tensor are one read of (at most) that tensor */
        for (int i = 0; i < k->nin; i++) {
            const Value *mem = P->p->base[k->in[i]->id];
            mem = mem ? mem : k->in[i];
            bool first = true;
            double sum = 0;
            for (int j = 0; j < k->nin; j++) {
                const Value *m2 = P->p->base[k->in[j]->id];
                if ((m2 ? m2 : k->in[j]) != mem)
                    continue;
                first &= j >= i;
                sum += bytes_of(k->in[j]);
            }
            if (first)
                k->bytes += sum < bytes_of(mem) ? sum : bytes_of(mem);
        }
        for (int i = 0; i < k->nout; i++)
            k->bytes += bytes_of(k->out[i]);
    }
    for (int i = 1; i < k->nlines; i++)           /* insertion sort */
        for (int j = i; j > 0 && k->lines[j - 1] > k->lines[j]; j--) {
            int t = k->lines[j];
            k->lines[j] = k->lines[j - 1];
            k->lines[j - 1] = t;
        }
}

static const char *generic_template(const Node *n)
{
    switch (n->op) {
    case OP_LINEAR: case OP_MATMUL: return "gemm";
    case OP_CONV1D: {
        int64_t g = n->attr[op_param(n->op, "groups")].i;
        return g > 1 && g == n->in[0]->shape[1] && g == n->out[0]->shape[1]
                   ? "dwconv" : "gemm";
    }
    case OP_SOFTMAX: case OP_LAYERNORM: case OP_RMSNORM: return "rownorm";
    case OP_SUM: case OP_MEAN: case OP_MAX: return "reduce";
    case OP_SDPA: return "sdpa";
    default: return "copy";
    }
}

/* ---- the planner ------------------------------------------------------------ */

/* A binary min-heap of kernel indices keyed by their first node's id. */
static int heap_key(const Plan *p, int i) { return p->k[i]->nodes[0]->id; }

static void heap_push(int *h, int *n, int v, const Plan *p)
{
    int i = (*n)++;
    h[i] = v;
    while (i > 0 && heap_key(p, h[(i - 1) / 2]) > heap_key(p, h[i])) {
        int t = h[i];
        h[i] = h[(i - 1) / 2];
        h[(i - 1) / 2] = t;
        i = (i - 1) / 2;
    }
}

static int heap_pop(int *h, int *n, const Plan *p)
{
    int top = h[0];
    h[0] = h[--*n];
    for (int i = 0;;) {
        int l = 2 * i + 1, r = l + 1, m = i;
        if (l < *n && heap_key(p, h[l]) < heap_key(p, h[m])) m = l;
        if (r < *n && heap_key(p, h[r]) < heap_key(p, h[m])) m = r;
        if (m == i)
            break;
        int t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
    return top;
}

static void order_kernels(Planner *P)
{
    Plan *p = P->p;
    int nk = 0;
    for (int i = 0; i < p->nk; i++)
        if (p->k[i]->nnodes)
            p->k[nk++] = p->k[i];
    p->nk = nk;
    for (int i = 0; i < nk; i++)
        for (int j = 0; j < p->k[i]->nnodes; j++)
            p->k[i]->nodes[j]->kernel = i;
    /* Kahn's algorithm, always taking the ready kernel whose first node is
     * earliest (a min-heap on that id), so the order follows the source
     * where it can.  Edges run from a producer kernel to each consumer. */
    int *indeg = calloc((size_t)nk + 1, sizeof *indeg);
    int *heap = calloc((size_t)nk + 1, sizeof *heap);
    int *ecount = calloc((size_t)nk + 2, sizeof *ecount);
    if (!indeg || !heap || !ecount)
        die("out of memory");
    int nedges = 0;
    for (int i = 0; i < nk; i++)
        for (int j = 0; j < p->k[i]->nin; j++)
            if (p->k[i]->in[j]->kind == V_NODE) {
                ecount[p->k[i]->in[j]->def->kernel + 1]++;
                indeg[i]++;
                nedges++;
            }
    for (int i = 0; i < nk; i++)
        ecount[i + 1] += ecount[i];
    int *edge = calloc((size_t)nedges + 1, sizeof *edge);
    int *fill = calloc((size_t)nk + 1, sizeof *fill);
    if (!edge || !fill)
        die("out of memory");
    for (int i = 0; i < nk; i++)
        for (int j = 0; j < p->k[i]->nin; j++)
            if (p->k[i]->in[j]->kind == V_NODE) {
                int src = p->k[i]->in[j]->def->kernel;
                edge[ecount[src] + fill[src]++] = i;
            }
    int nheap = 0;
    Kernel **order = arena_alloc(P->a, (size_t)(nk + 1) * sizeof *order);
    for (int i = 0; i < nk; i++)
        if (indeg[i] == 0)
            heap_push(heap, &nheap, i, p);
    for (int n = 0; n < nk; n++) {
        if (nheap == 0)
            die("plan: the kernel graph has a cycle");
        int best = heap_pop(heap, &nheap, p);
        order[n] = p->k[best];
        for (int e = ecount[best]; e < ecount[best + 1]; e++)
            if (--indeg[edge[e]] == 0)
                heap_push(heap, &nheap, edge[e], p);
    }
    free(indeg);
    free(heap);
    free(ecount);
    free(edge);
    free(fill);
    for (int i = 0; i < nk; i++) {
        p->k[i] = order[i];
        p->k[i]->id = i;
        for (int j = 0; j < p->k[i]->nnodes; j++)
            p->k[i]->nodes[j]->kernel = i;
        const char *what = p->k[i]->op;
        p->k[i]->name = arena_printf(P->a, "k%d_%s", i, what);
    }
}

Plan *plan_build(Graph *g, const PatternSet *ps, const bool *decline, Arena *a)
{
    Plan *p = arena_alloc(a, sizeof *p);
    p->g = g;
    Planner P = {.p = p, .g = g, .a = a};
    P.stamp = arena_alloc(a, (size_t)(g->nnodes + 1) * sizeof *P.stamp);
    P.member = arena_alloc(a, (size_t)(g->nnodes + 1));
    size_t edges = 1;
    for (int i = 0; i < g->nnodes; i++)
        edges += (size_t)g->nodes[i]->nin;
    P.dfs = arena_alloc(a, edges * sizeof *P.dfs);
    p->strides = arena_alloc(a, (size_t)(g->nvalues + 1) * sizeof *p->strides);
    p->offset = arena_alloc(a, (size_t)(g->nvalues + 1) * sizeof *p->offset);
    p->base = arena_alloc(a, (size_t)(g->nvalues + 1) * sizeof *p->base);
    for (int i = 0; i < g->nvalues; i++)
        contiguous(g->values[i], p->strides[i]);
    for (int i = 0; i < g->nnodes; i++)
        g->nodes[i]->kernel = -1;

    p->matches = ps ? match_all(g, ps, decline, a, &p->nmatches) : NULL;
    for (int i = 0; i < p->nmatches; i++) {
        Match *m = p->matches[i];
        Kernel *k = new_kernel(&P, K_FUSED, m->pat->g->name,
                               m->pat->g->template_name);
        k->match = m;
        for (int j = 0; j < m->pat->g->nnodes; j++)
            add_node(&P, k, m->node[j]);
        qsort(k->nodes, (size_t)k->nnodes, sizeof *k->nodes, cmp_node);
    }
    for (int i = 0; i < g->nnodes; i++) {
        Node *n = g->nodes[i];
        if (n->kernel != -1 && n->kernel >= 0)
            continue;
        const OpInfo *o = op_info(n->op);
        bool elem = (o->flags & OF_ELEM) || n->op == OP_CONCAT;
        bool view = is_view_op(n->op);
        if (elem || view) {
            /* the elementwise groups that produce n's inputs (none for a
               layout op on a value layout.c wants stored: that op is a
               view of what the group writes) */
            Kernel *ks[64];
            int nk = 0;
            for (int j = 0; j < n->nin && nk < 64 && !(view && n->in[0]->stored); j++) {
                Kernel *k = n->in[j] ? kernel_of(&P, n->in[j]) : NULL;
                if (!k || k->kind != K_ELEMWISE)
                    continue;
                bool dup = false;
                for (int q = 0; q < nk; q++)
                    dup |= ks[q] == k;
                if (!dup)
                    ks[nk++] = k;
            }
            if (nk && can_merge(&P, ks, nk, n)) {
                add_node(&P, ks[0], n);
                for (int q = 1; q < nk; q++)
                    absorb(&P, ks[0], ks[q]);
                continue;
            }
            /* only some of them: the first that is safe */
            bool placed = false;
            for (int q = 0; q < nk && !placed && nk > 1; q++)
                if (can_merge(&P, &ks[q], 1, n)) {
                    add_node(&P, ks[q], n);
                    placed = true;
                }
            if (placed)
                continue;
            /* a layout op with a model output among its results: a kernel
               must write that output into the caller's tensor, so the op
               starts an elementwise group (its consumers may join it)
               instead of becoming a view no kernel writes; so does one
               whose result layout.c wants stored, where it could not join
               the group that makes its input (a fused kernel made it) */
            bool to_output = false;
            for (int r = 0; r < n->nout; r++)
                to_output |= n->out[r]->is_output || n->out[r]->stored;
            if (elem || to_output) {
                add_node(&P, new_kernel(&P, K_ELEMWISE, "elementwise",
                                        "elementwise"), n);
                continue;
            }
            if (takes_transpose(&P, n)) {
                add_node(&P, kernel_of(&P, n->in[0]), n);
                continue;
            }
            bool ok = true;
            for (int r = 0; r < n->nout && ok; r++)
                ok = view_layout(&P, n, r);
            Kernel *k = ok ? new_kernel(&P, K_VIEW, o->name, "-")
                           : new_kernel(&P, K_COPY, o->name, "copy");
            add_node(&P, k, n);
            continue;
        }
        add_node(&P, new_kernel(&P, K_GENERIC, o->name, generic_template(n)), n);
    }
    for (int i = 0; i < p->nk; i++)
        if (p->k[i]->nnodes)
            finish_kernel(&P, p->k[i]);
    order_kernels(&P);
    for (int i = 0; i < g->nnodes; i++)
        if (g->nodes[i]->kernel < 0)
            die("plan: node %d is in no kernel", i);
    for (int i = 0; i < g->noutputs; i++)
        if (p->base[g->outputs[i]->id])
            die("plan: output %s is a view no kernel writes",
                g->outputs[i]->name);
    return p;
}

bool kernel_optional(const Kernel *k)
{
    return k->kind == K_FUSED && k->match && k->match->pat->g->optional;
}

static void decline_match(const Match *m, bool *root, bool *nodes)
{
    root[m->root] = true;
    for (int j = 0; j < m->pat->g->nnodes; j++)
        nodes[m->node[j]->id] = true;
}

Plan *plan_unfused(Plan *p, const PatternSet *ps, const bool *decline,
                   const char *unfuse, Arena *a)
{
    Graph *g = p->g;
    if (!decline && !*unfuse) {
        fprintf(stderr, "kgen: error: --unfuse needs all, none or kernel "
                "names\n");
        return NULL;
    }
    bool *root = arena_alloc(a, (size_t)g->nnodes + 1);
    bool *nodes = arena_alloc(a, (size_t)g->nnodes + 1);
    int n = 0;
    if (decline || !strcmp(unfuse, "all")) {
        for (int i = 0; i < p->nk; i++)
            if (kernel_optional(p->k[i]) &&
                (!decline || decline[p->k[i]->match->root])) {
                decline_match(p->k[i]->match, root, nodes);
                n++;
            }
    } else {
        const char *s = unfuse;
        while (*s) {
            size_t len = strcspn(s, ",");
            const Kernel *k = NULL;
            for (int i = 0; i < p->nk && !k; i++)
                if (strlen(p->k[i]->name) == len &&
                    !strncmp(p->k[i]->name, s, len))
                    k = p->k[i];
            if (!k) {
                fprintf(stderr, "kgen: error: --unfuse %.*s: the plan that "
                        "fuses every match has no kernel of that name (kgen "
                        "plan lists them)\n", (int)len, s);
                return NULL;
            }
            if (!kernel_optional(k)) {
                fprintf(stderr, "kgen: error: --unfuse %s: only a kernel of "
                        "an optional pattern can be unfused\n", k->name);
                return NULL;
            }
            decline_match(k->match, root, nodes);
            n++;
            s += len;
            if (*s)
                s++;
        }
    }
    if (!n)
        return p;
    Plan *q = plan_build(g, ps, root, a);
    q->unfused = nodes;
    return q;
}

const char *kernel_kind_name(KernelKind k)
{
    static const char *names[] = {"fused", "elementwise", "generic", "view",
                                  "copy"};
    return names[k];
}

/* ---- output -------------------------------------------------------------------- */

/* "h#2 f16[64, 768, 512]", and for a view the memory it reads:
 * " (view of h, strides [393216, 1, 768])". */
static const char *tensor_str(Arena *a, const Plan *p, const Value *v)
{
    Str s = {0};
    str_printf(&s, "%s %s[", value_label(a, v), dtype_name(v->dt));
    for (int i = 0; i < v->rank; i++)
        str_printf(&s, "%s%lld", i ? ", " : "", (long long)v->shape[i]);
    str_printf(&s, "]");
    const Value *base = p->base[v->id];
    if (base) {
        str_printf(&s, " (view of %s, strides [", value_label(a, base));
        for (int i = 0; i < v->rank; i++)
            str_printf(&s, "%s%lld", i ? ", " : "",
                       (long long)p->strides[v->id][i]);
        str_printf(&s, "]");
        if (p->offset[v->id])
            str_printf(&s, ", offset %lld", (long long)p->offset[v->id]);
        str_printf(&s, ")");
    }
    char *r = arena_strdup(a, s.buf);
    str_free(&s);
    return r;
}

static const char *human(Arena *a, double x, const char *unit)
{
    static const char *pre[] = {"", "K", "M", "G", "T", "P"};
    int i = 0;
    while (x >= 1000 && i < 5) {
        x /= 1000;
        i++;
    }
    const char *sep = *pre[i] || *unit ? " " : "";
    return arena_printf(a, i ? "%.3g%s%s%s" : "%.0f%s%s%s", x, sep, pre[i], unit);
}

static const char *lines_str(Arena *a, const Kernel *k)
{
    Str s = {0};
    for (int i = 0; i < k->nlines;) {
        int j = i;
        while (j + 1 < k->nlines && k->lines[j + 1] == k->lines[j] + 1)
            j++;
        if (j > i)
            str_printf(&s, "%s%d-%d", s.len ? "," : "", k->lines[i], k->lines[j]);
        else
            str_printf(&s, "%s%d", s.len ? "," : "", k->lines[i]);
        i = j + 1;
    }
    char *r = arena_strdup(a, s.buf ? s.buf : "");
    str_free(&s);
    return r;
}

void plan_print(FILE *fp, const Plan *p, Arena *a)
{
    const Graph *g = p->g;
    int counts[5] = {0};
    double flops = 0, bytes = 0;
    for (int i = 0; i < p->nk; i++) {
        counts[p->k[i]->kind]++;
        flops += p->k[i]->flops;
        bytes += p->k[i]->bytes;
    }
    fprintf(fp, "model %s (%s): %d ops in %d kernels: %d fused, %d elementwise, "
            "%d generic, %d copies; %d views\n", g->name, g->file->path,
            g->nnodes, p->nk - counts[K_VIEW], counts[K_FUSED],
            counts[K_ELEMWISE], counts[K_GENERIC], counts[K_COPY],
            counts[K_VIEW]);
    fprintf(fp, "\n%-3s %-28s %-11s %-11s %12s %12s %8s  %s\n", "#", "kernel",
            "kind", "template", "FLOP", "min bytes", "FLOP/B", "lines");
    for (int i = 0; i < p->nk; i++) {
        const Kernel *k = p->k[i];
        fprintf(fp, "%-3d %-28s %-11s %-11s %12s %12s %8.1f  %s\n", k->id,
                k->name, kernel_kind_name(k->kind), k->template_name,
                human(a, k->flops, ""), human(a, k->bytes, "B"),
                k->bytes > 0 ? k->flops / k->bytes : 0.0, lines_str(a, k));
        if (k->kind == K_FUSED)
            fprintf(fp, "      pattern %s (%s)%s\n", k->match->pat->g->name,
                    k->match->pat->path, kernel_optional(k)
                    ? ", optional: kgen tune also times it unfused" : "");
        fprintf(fp, "      in:  ");
        for (int j = 0; j < k->nin; j++)
            fprintf(fp, "%s%s", j ? ", " : "", tensor_str(a, p, k->in[j]));
        fprintf(fp, "\n      out: ");
        for (int j = 0; j < k->nout; j++)
            fprintf(fp, "%s%s", j ? ", " : "", tensor_str(a, p, k->out[j]));
        fprintf(fp, "\n");
    }
    fprintf(fp, "\ntotal: %s FLOP, %s moved at least, %.1f FLOP/B\n",
            human(a, flops, ""), human(a, bytes, "B"),
            bytes > 0 ? flops / bytes : 0.0);
    fprintf(fp, "left to the host runtime: none\n");
}

static void json_tensor(FILE *fp, Arena *a, const Plan *p, const Value *v)
{
    fprintf(fp, "{\"name\": ");
    json_write_str(fp, value_label(a, v));
    fprintf(fp, ", \"dtype\": \"%s\", \"shape\": [", dtype_name(v->dt));
    for (int i = 0; i < v->rank; i++)
        fprintf(fp, "%s%lld", i ? ", " : "", (long long)v->shape[i]);
    fprintf(fp, "], \"strides\": [");
    for (int i = 0; i < v->rank; i++)
        fprintf(fp, "%s%lld", i ? ", " : "", (long long)p->strides[v->id][i]);
    fprintf(fp, "]");
    if (p->base[v->id]) {
        fprintf(fp, ", \"view_of\": ");
        json_write_str(fp, value_label(a, p->base[v->id]));
        fprintf(fp, ", \"offset\": %lld", (long long)p->offset[v->id]);
    }
    fprintf(fp, "}");
}

static void json_num(FILE *fp, double x)
{
    if (x == floor(x) && fabs(x) < 9e15)
        fprintf(fp, "%.0f", x);
    else
        fprintf(fp, "%.6g", x);
}

void plan_json(FILE *fp, const Plan *p, Arena *a)
{
    const Graph *g = p->g;
    fprintf(fp, "{\n  \"model\": ");
    json_write_str(fp, g->name);
    fprintf(fp, ",\n  \"file\": ");
    json_write_str(fp, g->file->path);
    fprintf(fp, ",\n  \"ops\": %d,\n  \"kernels\": [", g->nnodes);
    for (int i = 0; i < p->nk; i++) {
        const Kernel *k = p->k[i];
        fprintf(fp, "%s\n    {\"index\": %d, \"name\": ", i ? "," : "", k->id);
        json_write_str(fp, k->name);
        fprintf(fp, ", \"kind\": \"%s\", \"op\": ", kernel_kind_name(k->kind));
        json_write_str(fp, k->op);
        fprintf(fp, ", \"template\": ");
        json_write_str(fp, k->template_name);
        if (k->kind == K_FUSED) {
            const Match *m = k->match;
            fprintf(fp, ", \"pattern\": ");
            json_write_str(fp, m->pat->g->name);
            fprintf(fp, ", \"pattern_file\": ");
            json_write_str(fp, m->pat->path);
            fprintf(fp, ", \"bindings\": {");
            const Graph *pg = m->pat->g;
            int nb = 0;
            for (int j = 0; j < pg->ndims; j++) {
                fprintf(fp, "%s", nb++ ? ", " : "");
                json_write_str(fp, pg->dims[j].name);
                fprintf(fp, ": %lld", (long long)m->dim[j]);
            }
            for (int j = 0; j < pg->nparams; j++) {
                fprintf(fp, "%s", nb++ ? ", " : "");
                json_write_str(fp, pg->params[j]);
                fprintf(fp, ": ");
                if (m->param_attr[j].kind == A_STR)
                    json_write_str(fp, m->param_attr[j].s);
                else if (!isfinite(m->param[j]))   /* JSON has no inf */
                    json_write_str(fp, isnan(m->param[j]) ? "nan"
                                 : m->param[j] > 0 ? "inf" : "-inf");
                else
                    fprintf(fp, "%.17g", m->param[j]);
            }
            for (int j = 0; j < pg->nopvars; j++) {
                fprintf(fp, "%s", nb++ ? ", " : "");
                json_write_str(fp, pg->opvars[j].name);
                fprintf(fp, ": ");
                json_write_str(fp, op_info(m->opvar[j])->name);
            }
            for (int j = 0; j < pg->ninputs; j++) {
                fprintf(fp, "%s", nb++ ? ", " : "");
                json_write_str(fp, pg->inputs[j]->name);
                fprintf(fp, ": ");
                json_write_str(fp, value_label(a, m->val[pg->inputs[j]->id]));
            }
            fprintf(fp, "}");
        }
        fprintf(fp, ",\n     \"inputs\": [");
        for (int j = 0; j < k->nin; j++) {
            fprintf(fp, "%s", j ? ", " : "");
            json_tensor(fp, a, p, k->in[j]);
        }
        fprintf(fp, "],\n     \"outputs\": [");
        for (int j = 0; j < k->nout; j++) {
            fprintf(fp, "%s", j ? ", " : "");
            json_tensor(fp, a, p, k->out[j]);
        }
        fprintf(fp, "],\n     \"ops\": [");
        for (int j = 0; j < k->nnodes; j++)
            fprintf(fp, "%s\"%s\"", j ? ", " : "", op_info(k->nodes[j]->op)->name);
        fprintf(fp, "], \"flops\": ");
        json_num(fp, k->flops);
        fprintf(fp, ", \"bytes\": ");
        json_num(fp, k->bytes);
        fprintf(fp, ", \"intensity\": %.6g, \"lines\": [",
                k->bytes > 0 ? k->flops / k->bytes : 0.0);
        for (int j = 0; j < k->nlines; j++)
            fprintf(fp, "%s%d", j ? ", " : "", k->lines[j]);
        fprintf(fp, "]}");
    }
    fprintf(fp, "\n  ],\n  \"host\": []\n}\n");
}

void plan_dump(FILE *fp, const Plan *p)
{
    Arena *a = arena_new();
    fprintf(fp, "# after plan: %d kernels\n", p->nk);
    for (int i = 0; i < p->nk; i++) {
        const Kernel *k = p->k[i];
        fprintf(fp, "  %s [%s, %s]\n", k->name, kernel_kind_name(k->kind),
                k->template_name);
        for (int j = 0; j < k->nnodes; j++) {
            const Node *n = k->nodes[j];
            fprintf(fp, "    ");
            for (int r = 0; r < n->nout; r++)
                fprintf(fp, "%s%s", r ? ", " : "", value_label(a, n->out[r]));
            fprintf(fp, " = %s(", op_info(n->op)->name);
            for (int q = 0; q < n->nin; q++)
                fprintf(fp, "%s%s", q ? ", " : "",
                        n->in[q] ? value_label(a, n->in[q]) : "-");
            fprintf(fp, ")");
            if (k->kind == K_VIEW) {
                const Value *v = n->out[0];
                fprintf(fp, "    strides [");
                for (int q = 0; q < v->rank; q++)
                    fprintf(fp, "%s%lld", q ? ", " : "",
                            (long long)p->strides[v->id][q]);
                fprintf(fp, "] offset %lld", (long long)p->offset[v->id]);
            }
            fprintf(fp, "\n");
        }
    }
    arena_free(a);
}

/*
 * layout.c -- layout choices made on the graph before matching and
 * planning: a tensor stored in the order its reader's kernel runs fastest,
 * at the cost of a copy kernel the plan then holds.
 *
 * One choice so far: a conv1d weight relaid tap-major.  conv1d's weight
 * [Cout, Cin, K] is contiguous along (channel, tap), so the gemm template
 * runs the K axis in that order and builds each K tile of A by a pass
 * that shifts x's rows by their taps.  Stored [Cout, K, Cin] (and seen by
 * the conv through a transpose), the weight lets K run over (tap,
 * channel): a K tile is then one tap's channels, which on sm_90 is one
 * TMA box of x a panel with no pass (templates/gemm.lua, kind "convt";
 * docs/performance.md attempt 26: 0.2656 against 0.3835 ms at WaveNet's
 * shape).  The rewrite is
 *
 *     conv1d(x, w, ...)  ->  conv1d(x, transpose(reshape(reshape(
 *                              transpose(w, 1, 2), [Cout, K * Cin]),
 *                              [Cout, K, Cin]), 1, 2), ...)
 *
 * where the inner reshape cannot be a view of the transposed w, so the
 * planner gives it a copy kernel (3 MB and about 12 us at WaveNet's size),
 * and the rest are views.  It applies only where that path does (see
 * conv_tapmajor below): elsewhere the conv would pay the copy for nothing.
 * Where the dilation or the padding is not a multiple of 8 (WaveNet's
 * dilations 1, 2 and 4), x's rows shifted by a tap start off 16 bytes and
 * no TMA box can copy them.  Channel-last x ([B, T, C], contiguous along
 * the channels) has no such limit: a K tile of one tap is then 64 channels
 * of consecutive rows, one box at any shift (convt_box "k"; attempt 26:
 * 0.2508 against 0.3910 ms at WaveNet's DIL = 2).  Where x comes from an
 * elementwise op and the conv is its only reader, the rewrite is
 *
 *     conv1d(x, ...)  ->  conv1d(transpose(xt, 1, 2), ...),
 *                         xt = transpose(x, 1, 2), stored
 *
 * with the weight relaid as above.  The planner puts the first transpose in
 * x's elementwise kernel, which then writes xt channel-last (its order=tile
 * at about the cost of writing x), and the second is a view (`stored`).
 *
 * The values and nodes added carry the conv's source location, so plans
 * and errors point at the user's line.
 */
#include "kgen.h"

#include <string.h>

static int64_t attr_int(const Node *n, const char *name, int64_t def)
{
    const Attr *a = &n->attr[op_param(n->op, name)];
    return a->kind == A_NONE ? def : a->i;
}

static bool is_layout(int op)
{
    return op == OP_TRANSPOSE || op == OP_RESHAPE || op == OP_UNSQUEEZE ||
           op == OP_SPLIT || op == OP_CONCAT;
}

/* What both rewrites need: a 16-bit conv1d of one group, stride 1 and
 * more than one tap, with Cin and the output length multiples of 64 (a K
 * tile within one tap, a 64-row panel within one batch entry), and a
 * weight the user did not already give as a view. */
static bool conv_relayable(const Node *n)
{
    if (n->op != OP_CONV1D || n->nin < 2 || !n->in[0] || !n->in[1])
        return false;
    const Value *x = n->in[0], *w = n->in[1], *y = n->out[0];
    if (x->rank != 3 || w->rank != 3 || y->rank != 3)
        return false;
    if ((x->dt != DT_F16 && x->dt != DT_BF16) || w->dt != x->dt)
        return false;
    if (w->kind == V_NODE && is_layout(w->def->op))
        return false;
    return attr_int(n, "groups", 1) == 1 && attr_int(n, "stride", 1) == 1 &&
           w->shape[2] > 1 && x->shape[1] % 64 == 0 && y->shape[2] % 64 == 0;
}

/* Does conv n gain from its weight stored tap-major?  The conditions are
 * templates/gemm.lua's convt_box ("m"): conv_relayable's, an x that is
 * contiguous along T (an input, or the result of a kernel, not a view),
 * T a multiple of 8, and the dilation and padding multiples of 8 (a TMA
 * box must start on 16 bytes along T). */
static bool conv_tapmajor(const Node *n)
{
    if (!conv_relayable(n))
        return false;
    const Value *x = n->in[0];
    if (x->kind == V_NODE && is_layout(x->def->op))
        return false;
    return x->shape[2] % 8 == 0 && attr_int(n, "dilation", 1) % 8 == 0 &&
           attr_int(n, "padding", 0) % 8 == 0;
}

/* Does conv n gain from x channel-last as well (see the top)?  convt_box
 * "k": any dilation, where x is an elementwise result that n alone
 * reads.  Where conv_tapmajor holds, x stays as it is. */
static bool conv_channel_last(const Node *n)
{
    if (!conv_relayable(n) || conv_tapmajor(n))
        return false;
    const Value *x = n->in[0];
    return x->kind == V_NODE && (op_info(x->def->op)->flags & OF_ELEM) &&
           x->nuses == 1 && !x->is_output;
}

typedef struct Rewriter {
    Graph *g;
    Arena *a;
    Node **nodes;              /* the new node order */
    int n, cap;
    struct { Value *w, *view; } *done; /* weights relaid so far: a weight */
    int ndone, cap_done;               /* read by two convs is copied once */
} Rewriter;

/* A layout node of op on x with result shape[rank], at conv c's place;
 * use: add it to x's uses (the first node takes c's place there instead). */
static Value *layout_node(Rewriter *R, int op, Value *x, int rank,
                          const int64_t *shape, const Node *c, bool use)
{
    Graph *g = R->g;
    Node *n = arena_alloc(R->a, sizeof *n);
    Value *v = arena_alloc(R->a, sizeof *v);
    n->op = op;
    n->opvar = -1;
    n->loc = c->loc;
    n->line_first = c->line_first;
    n->line_last = c->line_last;
    n->kernel = -1;
    n->nin = 1;
    n->in = arena_alloc(R->a, 2 * sizeof *n->in);
    n->in[0] = x;
    n->nattr = op_info(op)->nparams;
    n->attr = arena_alloc(R->a, (size_t)(n->nattr + 1) * sizeof *n->attr);
    for (int i = 0; i < n->nattr; i++)
        n->attr[i].hole = -1;
    if (op == OP_TRANSPOSE) {
        n->attr[op_param(op, "dim0")] = (Attr){ .kind = A_INT, .i = 1, .hole = -1 };
        n->attr[op_param(op, "dim1")] = (Attr){ .kind = A_INT, .i = 2, .hole = -1 };
    } else {
        Attr *s = &n->attr[op_param(op, "shape")];
        s->kind = A_INTS;
        s->n = rank;
        s->ints = arena_alloc(R->a, (size_t)rank * sizeof *s->ints);
        memcpy(s->ints, shape, (size_t)rank * sizeof *s->ints);
    }
    v->id = g->nvalues;
    v->kind = V_NODE;
    v->dt = x->dt;
    v->dtvar = -1;
    v->hole = -1;
    v->rank = rank;
    memcpy(v->shape, shape, (size_t)rank * sizeof *v->shape);
    v->def = n;
    v->def_res = 0;
    v->loc = c->loc;
    ARENA_PUSH(R->a, g->values, g->nvalues, g->cap_values, v);
    n->nout = 1;
    n->out = arena_alloc(R->a, sizeof *n->out);
    n->out[0] = v;
    if (use)
        ARENA_PUSH(R->a, x->uses, x->nuses, x->cap_uses, n);
    ARENA_PUSH(R->a, R->nodes, R->n, R->cap, n);
    return v;
}

/* Put conv c's weight w tap-major in front of c, the first new node in
 * c's place among w's uses; returns the view c reads. */
static Value *relay(Rewriter *R, Node *c, Value *w)
{
    int64_t co = w->shape[0], ci = w->shape[1], ks = w->shape[2];
    int64_t t[3] = { co, ks, ci }, flat[2] = { co, ks * ci }, back[3] = { co, ci, ks };
    Value *v = layout_node(R, OP_TRANSPOSE, w, 3, t, c, false);
    for (int u = 0; u < w->nuses; u++)
        if (w->uses[u] == c) {
            w->uses[u] = v->def;
            break;
        }
    v = layout_node(R, OP_RESHAPE, v, 2, flat, c, true);
    v = layout_node(R, OP_RESHAPE, v, 3, t, c, true);
    return layout_node(R, OP_TRANSPOSE, v, 3, back, c, true);
}

/* Give conv c the view of x written channel-last in front of it (x's one
 * use, c, becomes the first transpose). */
static Value *channel_last(Rewriter *R, Node *c, Value *x)
{
    int64_t t[3] = { x->shape[0], x->shape[2], x->shape[1] };
    Value *v = layout_node(R, OP_TRANSPOSE, x, 3, t, c, false);
    x->uses[0] = v->def;
    v->stored = true;
    return layout_node(R, OP_TRANSPOSE, v, 3, x->shape, c, true);
}

int layout_relay_convs(Graph *g, Arena *a)
{
    if (g->is_pattern)
        return 0;
    Rewriter R = { .g = g, .a = a };
    int count = 0;
    for (int i = 0; i < g->nnodes; i++) {
        Node *c = g->nodes[i];
        bool last = conv_channel_last(c);
        if (last) {
            c->in[0] = channel_last(&R, c, c->in[0]);
            ARENA_PUSH(a, c->in[0]->uses, c->in[0]->nuses, c->in[0]->cap_uses, c);
        }
        if (last || conv_tapmajor(c)) {
            Value *w = c->in[1], *t = NULL;
            for (int j = 0; j < R.ndone && !t; j++)
                if (R.done[j].w == w)
                    t = R.done[j].view;
            if (t) {
                for (int u = 0; u < w->nuses; u++)
                    if (w->uses[u] == c) {  /* (w has a use less) */
                        memmove(&w->uses[u], &w->uses[u + 1],
                                (size_t)(w->nuses - u - 1) * sizeof *w->uses);
                        w->nuses--;
                        break;
                    }
            } else {
                t = relay(&R, c, w);
                R.done = arena_grow(a, R.done, &R.cap_done, R.ndone + 1, sizeof *R.done);
                R.done[R.ndone].w = w;
                R.done[R.ndone++].view = t;
            }
            c->in[1] = t;
            ARENA_PUSH(a, t->uses, t->nuses, t->cap_uses, c);
            count++;
        }
        ARENA_PUSH(a, R.nodes, R.n, R.cap, c);
    }
    if (count) {
        g->nodes = R.nodes;
        g->nnodes = R.n;
        g->cap_nodes = R.cap;
        for (int i = 0; i < g->nnodes; i++)
            g->nodes[i]->id = i;
    }
    return count;
}

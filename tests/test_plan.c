/* test_plan.c -- covering a graph with kernels: examples, grouping, views,
 * order, the speed of planning a large model, and optional matches left
 * unfused. */
#include "testutil.h"

#include <time.h>

/* Every node is in exactly one kernel, and every kernel input is produced
 * by an earlier kernel (or is a model input, weight or view of one). */
static void check_plan(const Plan *p)
{
    const Graph *g = p->g;
    int *count = calloc((size_t)g->nnodes + 1, sizeof *count);
    for (int i = 0; i < p->nk; i++) {
        const Kernel *k = p->k[i];
        assert_true(k->nnodes > 0);
        for (int j = 0; j < k->nnodes; j++) {
            count[k->nodes[j]->id]++;
            assert_int_equal(k->nodes[j]->kernel, i);
        }
        for (int j = 0; j < k->nin; j++)
            if (k->in[j]->kind == V_NODE)
                assert_true(k->in[j]->def->kernel < i);
    }
    for (int i = 0; i < g->nnodes; i++)
        assert_int_equal(count[i], 1);
    free(count);
}

static int count_kind(const Plan *p, KernelKind kind, const char *op)
{
    int n = 0;
    for (int i = 0; i < p->nk; i++)
        n += p->k[i]->kind == kind && (!op || !strcmp(p->k[i]->op, op));
    return n;
}

static void test_examples(void **state)
{
    (void)state;
    /* each example's signature fusion, and how many fused kernels in all
     * (the residual adds fuse too: conv1x1_residual, linear_residual,
     * linear_scale_residual; and LYNXNet2's LayerNorm and conv, ln_dwconv) */
    struct { const char *file, *pattern; int n, all; } ex[] = {
        {"examples/wavenet_layer.pat", "gated_tanh_residual", 1, 2},
        {"examples/lynxnet2_block.pat", "gemm_glu", 2, 4},
        {"examples/convnext_block.pat", "ln_gemm_gelu", 1, 2},
        {"examples/encoder_layer.pat", "sdpa", 1, 4},
    };
    for (int e = 0; e < 4; e++) {
        TestCtx c;
        ctx_init(&c);
        char *text = slurp(ex[e].file);
        Plan *p = plan_of(&c, text);
        assert_non_null(p);
        check_plan(p);
        assert_int_equal(count_kind(p, K_FUSED, NULL), ex[e].all);
        assert_int_equal(count_kind(p, K_FUSED, ex[e].pattern), ex[e].n);
        if (e == 3) {          /* the encoder's attention keeps its mask */
            Match *m = NULL;
            for (int i = 0; i < p->nmatches; i++)
                if (!strcmp(p->matches[i]->pat->g->name, "sdpa"))
                    m = p->matches[i];
            assert_non_null(m);
            assert_non_null(match_value(m, "mask"));
            assert_string_equal(match_value(m, "mask")->name, "pad");
        }
        free(text);
        ctx_free(&c);
    }
}

/* A chain and a diamond of elementwise ops are one kernel each; a
 * transpose after an elementwise op is folded in as index remapping. */
static void test_elementwise_groups(void **state)
{
    (void)state;
    TestCtx c;
    ctx_init(&c);
    Plan *p = plan_of(&c, "model m\ndim B = 2, C = 3\ndtype DT = f32\n"
        "input x : DT[B, C]\nweight w : DT[C, C]\n"
        "a = exp(x) * 2\nb = sigmoid(a)\nd = tanh(a) + b\n"
        "e = transpose(d, 0, 1)\nf = linear(transpose(e, 0, 1), w)\n"
        "g = relu(f) - 1\noutput g\n");
    assert_non_null(p);
    check_plan(p);
    assert_int_equal(count_kind(p, K_ELEMWISE, NULL), 2);
    assert_int_equal(count_kind(p, K_GENERIC, NULL), 1);
    assert_int_equal(p->k[0]->kind, K_ELEMWISE);
    assert_int_equal(p->k[0]->nnodes, 7);       /* exp mul sigmoid tanh add 2x transpose */
    assert_int_equal(p->k[0]->nout, 1);
    ctx_free(&c);
}

/* Merging must not create a cycle: y depends on the GEMM which depends on
 * a, so y's add cannot join a's group. */
static void test_no_cycle(void **state)
{
    (void)state;
    TestCtx c;
    ctx_init(&c);
    Plan *p = plan_of(&c, "model m\ndim B = 2, C = 3\ndtype DT = f32\n"
        "input x : DT[B, C]\nweight w : DT[C, C]\n"
        "a = exp(x)\nh = linear(a, w)\ny = a + h\noutput y\n");
    assert_non_null(p);
    check_plan(p);
    assert_int_equal(p->nk, 3);
    ctx_free(&c);
}

static const int64_t *strides_of(const Plan *p, Graph *g, const char *name,
                                 Arena *a)
{
    Value *v = find_value(g, name, a);
    assert_non_null(v);
    return p->strides[v->id];
}

static void test_views(void **state)
{
    (void)state;
    TestCtx c;
    ctx_init(&c);
    Plan *p = plan_of(&c, "model m\ndim B = 2, L = 4, C = 6\ndtype DT = f32\n"
        "input x : DT[B, L, C]\nweight w : DT[3*C, C]\nweight w2 : DT[C, C]\n"
        "q, k, v = split(linear(x, w), [C, C, C], axis=-1)\n"
        "qh = reshape(q, [B, L, 2, 3])\n"
        "qt = transpose(qh, 1, 2)\n"
        "back = reshape(qt, [B, L, C])\n"
        "y = linear(back, w2)\noutput y\n");
    assert_non_null(p);
    check_plan(p);
    Graph *g = p->g;
    const int64_t *s;
    s = strides_of(p, g, "q", c.a);
    assert_int_equal(s[0], 4 * 18); assert_int_equal(s[1], 18); assert_int_equal(s[2], 1);
    assert_int_equal(p->offset[find_value(g, "k", c.a)->id], 6);
    assert_int_equal(p->offset[find_value(g, "v", c.a)->id], 12);
    s = strides_of(p, g, "qh", c.a);
    assert_int_equal(s[1], 18); assert_int_equal(s[2], 3); assert_int_equal(s[3], 1);
    s = strides_of(p, g, "qt", c.a);
    assert_int_equal(s[1], 3); assert_int_equal(s[2], 18);
    assert_int_equal(count_kind(p, K_VIEW, NULL), 3);     /* split, reshape, transpose */
    assert_int_equal(count_kind(p, K_COPY, "reshape"), 1); /* back needs a copy */
    s = strides_of(p, g, "back", c.a);   /* a copy's output is contiguous */
    assert_int_equal(s[0], 24); assert_int_equal(s[1], 6); assert_int_equal(s[2], 1);
    ctx_free(&c);
}

/* A GEMM kernel takes the transpose that is its result's only reader and
 * writes in the transposed order; a norm takes one only for conv1d (groups
 * 1, kernel > 1) readers, so the one before the depthwise conv stays a
 * view; a depthwise conv takes the transpose back to channels-last where
 * its input is a channels-last view, and not where it is channel-first; a
 * transpose with a second reader of its input stays a view. */
static void test_transpose_taken(void **state)
{
    (void)state;
    TestCtx c;
    ctx_init(&c);
    Plan *p = plan_of(&c, "model m\ndim B = 2, L = 5, C = 4, F = 8\ndtype DT = f32\n"
        "input x : DT[B, L, C]\ninput xc : DT[B, C, L]\n"
        "weight w : DT[F, C, 3]\nweight wd : DT[C, 1, 3]\n"
        "h = layernorm(x, axis=-1)\n"
        "ht = transpose(h, 1, 2)\n"
        "f = transpose(conv1d(ht, w, padding=1), 1, 2)\n"
        "g = layernorm(x * 2, axis=-1)\n"
        "d = transpose(conv1d(transpose(g, 1, 2), wd, padding=1, groups=C), 1, 2)\n"
        "e = linear(x, transpose(reshape(wd, [C, 3]), 0, 1))\n"
        "u = transpose(conv1d(xc, wd, padding=1, groups=C), 1, 2)\n"
        "y = f + sum(d, axis=-1, keepdim=true) + sum(e, axis=-1, keepdim=true)\n"
        "y = y + sum(u, axis=-1, keepdim=true)\n"
        "output y\n");
    assert_non_null(p);
    check_plan(p);
    Graph *g = p->g;
    Value *ht = find_value(g, "ht", c.a), *f = find_value(g, "f", c.a);
    const Kernel *kn = p->k[ht->def->kernel], *kc = p->k[f->def->kernel];
    assert_string_equal(kn->op, "layernorm");
    assert_int_equal(kn->nnodes, 2);             /* layernorm, transpose */
    assert_ptr_equal(kn->out[0], ht);
    assert_null(p->base[ht->id]);                /* written, not a view */
    assert_string_equal(kc->op, "conv1d");
    assert_int_equal(kc->nnodes, 2);             /* conv1d, transpose */
    assert_ptr_equal(kc->out[0], f);
    const int64_t *s = strides_of(p, g, "f", c.a);
    assert_int_equal(s[0], 5 * 8); assert_int_equal(s[1], 8); assert_int_equal(s[2], 1);
    /* the norm before the depthwise conv keeps its layout: a view */
    Value *gv = find_value(g, "g", c.a);
    assert_int_equal(p->k[gv->def->kernel]->nnodes, 1);
    /* the depthwise conv of that channels-last view writes d channels-last */
    Value *d = find_value(g, "d", c.a);
    const Kernel *kd = p->k[d->def->kernel];
    assert_string_equal(kd->template_name, "dwconv");
    assert_int_equal(kd->nnodes, 2);             /* conv1d, transpose */
    assert_ptr_equal(kd->out[0], d);
    assert_null(p->base[d->id]);
    s = strides_of(p, g, "d", c.a);
    assert_int_equal(s[0], 5 * 4); assert_int_equal(s[1], 4); assert_int_equal(s[2], 1);
    /* on a channel-first input it writes [B, C, L]: its transpose is a view */
    Value *u = find_value(g, "u", c.a);
    assert_non_null(p->base[u->id]);
    ctx_free(&c);
}

/* A very long elementwise chain is cut into kernels of at most
 * KG_MAX_GROUP ops, and still computes what the graph computes. */
static void test_group_cap(void **state)
{
    (void)state;
    Str s = {0};
    str_printf(&s, "model chain\ndim B = 3\ninput x : f32[B]\nh = exp(x)\n");
    for (int i = 0; i < 1000; i++)
        str_printf(&s, i % 2 ? "h = tanh(h)\n" : "h = h * 0.9 + x\n");
    str_printf(&s, "output h\n");
    TestCtx c;
    ctx_init(&c);
    Plan *p = plan_of(&c, s.buf);
    assert_non_null(p);
    check_plan(p);
    assert_int_equal(p->g->nnodes, 1501);
    assert_int_equal(p->nk, (1501 + KG_MAX_GROUP - 1) / KG_MAX_GROUP);
    for (int i = 0; i < p->nk; i++)
        assert_true(p->k[i]->nnodes <= KG_MAX_GROUP);
    Tensor ref = {0}, fus = {0};
    Str err = {0};
    assert_int_equal(interp_run(p->g, NULL, 7, &ref, &err), 0);
    assert_int_equal(interp_run(p->g, p, 7, &fus, &err), 0);
    double max_abs;
    assert_true(tensor_rel_err(&ref, &fus, &max_abs) < 1e-12);
    tensor_free(&ref);
    tensor_free(&fus);
    str_free(&err);
    str_free(&s);
    ctx_free(&c);
}

/* 20,000 statements plan in well under a second. */
static void test_large_model(void **state)
{
    (void)state;
    Str s = {0};
    str_printf(&s, "model big\ndim B = 4, C = 64\ndtype DT = f16\n"
               "input x : DT[B, C]\nweight w : DT[C, C]\n");
    str_printf(&s, "h = linear(x, w)\n");
    for (int i = 0; i < 20000; i++) {
        switch (i % 4) {
        case 0: str_printf(&s, "h = h * 0.5 + x\n"); break;
        case 1: str_printf(&s, "t%d = tanh(h)\n", i); break;
        case 2: str_printf(&s, "h = linear(t%d, w)\n", i - 1); break;
        default: str_printf(&s, "h = gelu(h, approximate=\"tanh\")\n"); break;
        }
    }
    str_printf(&s, "output h\n");
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    TestCtx c;
    ctx_init(&c);
    Plan *p = plan_of(&c, s.buf);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    assert_non_null(p);
    double sec = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    print_message("planned 20000 statements (%d ops, %d kernels) in %.3f s\n",
                  p->g->nnodes, p->nk, sec);
    check_plan(p);
    /* generous under sanitizers; the plain build is far below 1 s */
    assert_true(sec < (getenv("KGEN_SLOW_TEST") ? 10.0 : 1.0));
    str_free(&s);
    ctx_free(&c);
}

/* LayerNorm -> linear -> GELU, then a mul: ln_gemm_gelu (an optional
 * pattern) and an elementwise kernel; BLOCKS chains two of them. */
#define LN_GEMM_GELU                                                          \
    "model m\ndim B = 2, T = 3, C = 8\ndtype DT = f32\n"                      \
    "input x : DT[B, T, C]\nweight g : DT[C]\nweight be : DT[C]\n"            \
    "weight w : DT[C, C]\nweight bw : DT[C]\n"                                \
    "h = layernorm(x, g, be, eps=1e-5)\n"                                     \
    "y = gelu(linear(h, w, bw))\n"
#define ONE_BLOCK LN_GEMM_GELU "z = y * 2\noutput z\n"
#define BLOCKS LN_GEMM_GELU                                                   \
    "weight g2 : DT[C]\nweight be2 : DT[C]\n"                                 \
    "weight w2 : DT[C, C]\nweight bw2 : DT[C]\n"                              \
    "h2 = layernorm(y, g2, be2, eps=1e-5)\n"                                  \
    "z = gelu(linear(h2, w2, bw2))\noutput z\n"

/* The model planned with every match fused, and the patterns to plan it
 * again with; the test fails on an error. */
static Plan *fused_plan(TestCtx *c, const char *text, PatternSet **ps)
{
    Graph *g = graph_of(c, text, NULL, 0);
    if (!g)
        fail_msg("unexpected errors:\n%s", c->d.buf.buf);
    *ps = patterns_load(patterns_path(), &c->d, c->a);
    assert_non_null(*ps);
    Plan *p = plan_build(g, *ps, NULL, c->a);
    assert_non_null(p);
    check_plan(p);
    return p;
}

static const char *kernel_names(const Plan *p, Arena *a)
{
    Str s = {0};
    for (int i = 0; i < p->nk; i++)
        str_printf(&s, "%s%s", i ? " " : "", p->k[i]->name);
    const char *r = arena_strdup(a, s.buf ? s.buf : "");
    str_free(&s);
    return r;
}

/* The fused plan and the op-by-op reference compute the same. */
static void same_as_reference(const Plan *p)
{
    Tensor ref = {0}, fus = {0};
    Str err = {0};
    assert_int_equal(interp_run(p->g, NULL, 3, &ref, &err), 0);
    if (interp_run(p->g, p, 3, &fus, &err))
        fail_msg("%s", err.buf);
    double max_abs;
    assert_true(tensor_rel_err(&ref, &fus, &max_abs) < 1e-12);
    tensor_free(&ref);
    tensor_free(&fus);
    str_free(&err);
}

/* By default an optional pattern fuses like any other; unfused ("all"),
 * its match's nodes go to the smaller patterns and generic kernels
 * (LayerNorm to rownorm, linear + GELU to gemm_gelu), and only those
 * nodes are marked unfused. */
static void test_unfuse_all(void **state)
{
    (void)state;
    TestCtx c;
    ctx_init(&c);
    PatternSet *ps;
    Plan *p = fused_plan(&c, ONE_BLOCK, &ps);
    assert_string_equal(kernel_names(p, c.a), "k0_ln_gemm_gelu k1_elementwise");
    assert_null(p->unfused);
    assert_true(kernel_optional(p->k[0]));
    assert_false(kernel_optional(p->k[1]));
    assert_int_equal(p->k[0]->match->root,
                     find_value(p->g, "y", c.a)->def->id);

    Plan *q = plan_unfused(p, ps, NULL, "all", c.a);
    assert_non_null(q);
    assert_ptr_not_equal(q, p);
    check_plan(q);
    assert_string_equal(kernel_names(q, c.a),
                        "k0_layernorm k1_gemm_gelu k2_elementwise");
    assert_int_equal(q->k[0]->kind, K_GENERIC);
    assert_string_equal(q->k[0]->template_name, "rownorm");
    assert_int_equal(q->k[1]->kind, K_FUSED);
    assert_string_equal(q->k[1]->template_name, "gemm");
    assert_false(kernel_optional(q->k[1]));    /* gemm_gelu is not optional */
    assert_int_equal(q->k[1]->nnodes, 2);
    assert_non_null(q->unfused);
    for (int i = 0; i < q->g->nnodes; i++) {
        Node *n = q->g->nodes[i];
        assert_int_equal(q->unfused[n->id], n->op != OP_MUL);
    }
    same_as_reference(q);
    ctx_free(&c);
}

/* By kernel name, or by the match's root node (kgen build's choice): only
 * that match is unfused. */
static void test_unfuse_one(void **state)
{
    (void)state;
    for (int by_root = 0; by_root < 2; by_root++) {
        TestCtx c;
        ctx_init(&c);
        PatternSet *ps;
        Plan *p = fused_plan(&c, BLOCKS, &ps);
        assert_string_equal(kernel_names(p, c.a),
                            "k0_ln_gemm_gelu k1_ln_gemm_gelu");
        Plan *q;
        if (by_root) {
            bool *decline = arena_alloc(c.a, (size_t)p->g->nnodes + 1);
            decline[p->k[1]->match->root] = true;
            q = plan_unfused(p, ps, decline, NULL, c.a);
        } else {
            q = plan_unfused(p, ps, NULL, "k1_ln_gemm_gelu", c.a);
        }
        assert_non_null(q);
        check_plan(q);
        assert_string_equal(kernel_names(q, c.a),
                            "k0_ln_gemm_gelu k1_layernorm k2_gemm_gelu");
        assert_true(kernel_optional(q->k[0]));
        for (int i = 0; i < q->nk; i++)
            for (int j = 0; j < q->k[i]->nnodes; j++)
                assert_int_equal(q->unfused[q->k[i]->nodes[j]->id], i > 0);
        same_as_reference(q);
        ctx_free(&c);
    }
}

/* --unfuse names a kernel of the fused plan, of an optional pattern; a
 * model without optional matches plans as before. */
static void test_unfuse_errors(void **state)
{
    (void)state;
    const char *bad[] = {"k9_ln_gemm_gelu", "k1_elementwise",
                         "k0_ln_gemm_gelu,bogus", "k0_ln_gemm_gel"};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        TestCtx c;
        ctx_init(&c);
        PatternSet *ps;
        Plan *p = fused_plan(&c, ONE_BLOCK, &ps);
        assert_null(plan_unfused(p, ps, NULL, bad[k], c.a));
        ctx_free(&c);
    }
    TestCtx c;
    ctx_init(&c);
    PatternSet *ps;
    Plan *p = fused_plan(&c, "model m\ndim B = 2, T = 3, C = 8\ndtype DT = f32\n"
        "input x : DT[B, T, C]\nweight w : DT[C, C]\nweight bw : DT[C]\n"
        "y = gelu(linear(x, w, bw), approximate=\"tanh\")\noutput y\n", &ps);
    assert_string_equal(kernel_names(p, c.a), "k0_gemm_gelu");
    assert_false(kernel_optional(p->k[0]));
    assert_null(plan_unfused(p, ps, NULL, "k0_gemm_gelu", c.a));
    assert_ptr_equal(plan_unfused(p, ps, NULL, "all", c.a), p);
    assert_null(p->unfused);
    ctx_free(&c);
}

/* A conv1d whose template runs faster on a tap-major weight gets it: a
 * copy kernel relays w to [Cout, K, Cin] and the conv reads it through a
 * view with strides [K * Cin, 1, Cin]; the result is the same.  At
 * dilation 2, x goes channel-last as well where an elementwise kernel
 * writes it for the conv alone.  Where neither applies (dilation 2 on an
 * input, x read twice, f32, a transposed x), the graph stays as
 * written. */
#define CONV_MODEL(DT, DIL, X)                                                \
    "model m\ndim B = 2, C = 64, T = 64\ndtype DT = " DT "\n"                \
    "input x : DT[B, C, T]\nweight w : DT[2*C, C, 3]\nweight b : DT[2*C]\n"   \
    "y = conv1d(" X ", w, b, kernel=3, dilation=" DIL ", padding=" DIL ")\n"  \
    "output y\n"

static void test_conv_relaid(void **state)
{
    (void)state;
    TestCtx c;
    ctx_init(&c);
    Graph *g = graph_of(&c, CONV_MODEL("f16", "8", "x"), NULL, 0);
    assert_non_null(g);
    int nn = g->nnodes;
    assert_int_equal(layout_relay_convs(g, c.a), 1);
    assert_int_equal(g->nnodes, nn + 4);
    for (int i = 0; i < g->nnodes; i++)
        assert_int_equal(g->nodes[i]->id, i);
    const Node *conv = g->nodes[g->nnodes - 1];
    assert_int_equal(conv->op, OP_CONV1D);
    Value *w = find_value(g, "w", c.a);
    assert_int_equal(w->nuses, 1);
    assert_int_equal(w->uses[0]->op, OP_TRANSPOSE);
    Plan *p = plan_build(g, NULL, NULL, c.a);
    assert_non_null(p);
    check_plan(p);
    int copies = 0;
    for (int i = 0; i < p->nk; i++)
        copies += p->k[i]->kind == K_COPY;
    assert_int_equal(copies, 1);
    const int64_t *st = p->strides[conv->in[1]->id];
    assert_int_equal(st[0], 3 * 64);
    assert_int_equal(st[1], 1);
    assert_int_equal(st[2], 64);
    same_as_reference(p);
    ctx_free(&c);

    /* one weight read by two convs: one copy for both */
    ctx_init(&c);
    g = graph_of(&c, "model m\ndim B = 2, C = 64, T = 64\ndtype DT = f16\n"
        "input x : DT[B, C, T]\ninput x2 : DT[B, C, T]\nweight w : DT[C, C, 3]\n"
        "y = conv1d(x, w, kernel=3, dilation=8, padding=8)\n"
        "y2 = conv1d(x2, w, kernel=3, dilation=8, padding=8)\nz = y + y2\noutput z\n",
        NULL, 0);
    assert_non_null(g);
    nn = g->nnodes;
    assert_int_equal(layout_relay_convs(g, c.a), 2);
    assert_int_equal(g->nnodes, nn + 4);
    w = find_value(g, "w", c.a);
    assert_int_equal(w->nuses, 1);
    p = plan_build(g, NULL, NULL, c.a);
    assert_non_null(p);
    check_plan(p);
    copies = 0;
    for (int i = 0; i < p->nk; i++)
        copies += p->k[i]->kind == K_COPY;
    assert_int_equal(copies, 1);
    same_as_reference(p);
    ctx_free(&c);

    /* dilation 2 on the result of an elementwise op read by the conv
       alone: x goes channel-last too, written so by its elementwise
       kernel, and the conv reads it through a view */
    ctx_init(&c);
    g = graph_of(&c, "model m\ndim B = 2, C = 64, T = 64\ndtype DT = f16\n"
        "input x : DT[B, C, T]\ninput s : DT[B, C]\nweight w : DT[2*C, C, 3]\n"
        "y = conv1d(x + unsqueeze(s, axis=2), w, kernel=3, dilation=2, padding=2)\n"
        "output y\n", NULL, 0);
    assert_non_null(g);
    nn = g->nnodes;
    assert_int_equal(layout_relay_convs(g, c.a), 1);
    assert_int_equal(g->nnodes, nn + 6);
    conv = g->nodes[g->nnodes - 1];
    assert_int_equal(conv->op, OP_CONV1D);
    const Value *xt = conv->in[0]->def->in[0];
    assert_true(xt->stored);
    assert_int_equal(xt->shape[1], 64);
    p = plan_build(g, NULL, NULL, c.a);
    assert_non_null(p);
    check_plan(p);
    st = p->strides[conv->in[0]->id];
    assert_ptr_equal(p->base[conv->in[0]->id], xt);
    assert_int_equal(st[0], 64 * 64);
    assert_int_equal(st[1], 1);
    assert_int_equal(st[2], 64);
    const Kernel *ek = p->k[xt->def->kernel];
    assert_int_equal(ek->kind, K_ELEMWISE);
    assert_int_equal(ek->nout, 1);
    assert_ptr_equal(ek->out[0], xt);
    same_as_reference(p);
    ctx_free(&c);

    /* the same where a fused kernel makes x (conv1x1_residual): the
       transpose cannot join it, and an elementwise kernel of its own
       writes xt */
    ctx_init(&c);
    g = graph_of(&c, "model m\ndim B = 2, C = 64, T = 64\ndtype DT = f16\n"
        "input x : DT[B, C, T]\ninput u : DT[B, C, T]\nweight wc : DT[C, C, 1]\n"
        "weight bc : DT[C]\nweight w : DT[C, C, 3]\n"
        "y = x + conv1d(u, wc, bc, kernel=1)\n"
        "z = conv1d(y, w, kernel=3, dilation=2, padding=2)\noutput z\n", NULL, 0);
    assert_non_null(g);
    assert_int_equal(layout_relay_convs(g, c.a), 1);
    conv = g->nodes[g->nnodes - 1];
    xt = conv->in[0]->def->in[0];
    assert_true(xt->stored);
    PatternSet *ps = patterns_load(patterns_path(), &c.d, c.a);
    assert_non_null(ps);
    p = plan_build(g, ps, NULL, c.a);
    assert_non_null(p);
    check_plan(p);
    assert_int_equal(p->nmatches, 1);
    assert_ptr_equal(p->base[conv->in[0]->id], xt);
    ek = p->k[xt->def->kernel];
    assert_int_equal(ek->kind, K_ELEMWISE);
    assert_int_equal(ek->nnodes, 1);
    assert_int_equal(p->k[xt->def->in[0]->def->kernel]->kind, K_FUSED);
    same_as_reference(p);
    ctx_free(&c);

    const char *kept[] = {
        CONV_MODEL("f16", "2", "x"),
        /* x's elementwise result read twice, or in f32 */
        "model m\ndim B = 2, C = 64, T = 64\ndtype DT = f16\n"
        "input x : DT[B, C, T]\nweight w : DT[C, C, 3]\nh = x * 2.0\n"
        "y = conv1d(h, w, kernel=3, dilation=2, padding=2)\nz = y + h\noutput z\n",
        CONV_MODEL("f32", "2", "x * 2.0"),
        CONV_MODEL("f32", "8", "x"),
        "model m\ndim B = 2, C = 64, T = 64\ndtype DT = f16\n"
        "input x : DT[B, T, C]\nweight w : DT[2*C, C, 3]\n"
        "y = conv1d(transpose(x, 1, 2), w, kernel=3, dilation=8, padding=8)\n"
        "output y\n",
    };
    for (size_t k = 0; k < sizeof kept / sizeof *kept; k++) {
        ctx_init(&c);
        g = graph_of(&c, kept[k], NULL, 0);
        assert_non_null(g);
        nn = g->nnodes;
        assert_int_equal(layout_relay_convs(g, c.a), 0);
        assert_int_equal(g->nnodes, nn);
        ctx_free(&c);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_examples),
        cmocka_unit_test(test_elementwise_groups),
        cmocka_unit_test(test_no_cycle),
        cmocka_unit_test(test_views),
        cmocka_unit_test(test_transpose_taken),
        cmocka_unit_test(test_group_cap),
        cmocka_unit_test(test_large_model),
        cmocka_unit_test(test_unfuse_all),
        cmocka_unit_test(test_unfuse_one),
        cmocka_unit_test(test_unfuse_errors),
        cmocka_unit_test(test_conv_relaid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

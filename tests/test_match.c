/* test_match.c -- the generic matcher against the shipped pattern files. */
#include "testutil.h"

static Plan *planned(TestCtx *c, const char *text)
{
    Plan *p = plan_of(c, text);
    if (!p)
        fail_msg("unexpected errors:\n%s", c->d.buf.buf);
    return p;
}

static int count_fused(const Plan *p, const char *pattern)
{
    int n = 0;
    for (int i = 0; i < p->nk; i++)
        n += p->k[i]->kind == K_FUSED && !strcmp(p->k[i]->op, pattern);
    return n;
}

#define GLU "model m\ndim B = 2, T = 5, C = 6\ndtype DT = f32\n" \
    "input x : DT[B, T, C]\nweight w : DT[2*C, C]\nweight b : DT[2*C]\n"

/* Operands of a commutative op match in either order; the dim equation
 * 2*N = 12 is solved; the op variable binds to the activation used. */
static void test_glu_variants(void **state)
{
    (void)state;
    const char *bodies[] = {
        "o, g = split(linear(x, w, b), [C, C], axis=-1)\ny = o * atan(g)\n",
        "o, g = split(linear(x, w, b), [C, C], axis=2)\ny = silu(g) * o\n",
        "o, g = split(linear(x, w, b), [C, C], axis=-1)\ny = softsign(g) * o\n",
        "o, g = split(linear(x, w, b), [C, C], axis=-1)\ny = o * sigmoid(g)\n",
    };
    int acts[] = {OP_ATAN, OP_SILU, OP_SOFTSIGN, OP_SIGMOID};
    for (int k = 0; k < 4; k++) {
        TestCtx c;
        ctx_init(&c);
        char text[1024];
        snprintf(text, sizeof text, GLU "%soutput y\n", bodies[k]);
        Plan *p = planned(&c, text);
        assert_int_equal(p->nmatches, 1);
        Match *m = p->matches[0];
        assert_string_equal(m->pat->g->name, "gemm_glu");
        assert_int_equal(m->opvar[0], acts[k]);
        assert_string_equal(match_value(m, "w")->name, "w");
        assert_string_equal(match_value(m, "x")->name, "x");
        for (int i = 0; i < m->pat->g->ndims; i++)
            if (!strcmp(m->pat->g->dims[i].name, "N"))
                assert_int_equal(m->dim[i], 6);
        assert_int_equal(p->nk, 1);
        ctx_free(&c);
    }
}

/* What must not match: an escaping interior value, another activation, a
 * split that does not halve, an input where the pattern wants a weight. */
static void test_glu_non_matches(void **state)
{
    (void)state;
    const char *cases[] = {
        GLU "h = linear(x, w, b)\no, g = split(h, [C, C], axis=-1)\n"
            "y = o * atan(g)\nz = h * 2\noutput y, z\n",
        GLU "o, g = split(linear(x, w, b), [C, C], axis=-1)\ny = o * tanh(g)\n"
            "output y\n",
        GLU "o, g, r = split(linear(x, w, b), [4, 4, 4], axis=-1)\n"
            "y = o * atan(g)\noutput y, r\n",
        GLU "o, g = split(linear(x, w, b), [C, C], axis=-1)\ny = o * atan(g)\n"
            "output y, o\n",
        "model m\ndim B = 2, T = 5, C = 6\ndtype DT = f32\ninput x : DT[B, T, C]\n"
            "input w : DT[2*C, C]\nweight b : DT[2*C]\n"
            "o, g = split(linear(x, w, b), [C, C], axis=-1)\ny = o * atan(g)\n"
            "output y\n",
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        TestCtx c;
        ctx_init(&c);
        Plan *p = planned(&c, cases[k]);
        assert_int_equal(count_fused(p, "gemm_glu"), 0);
        ctx_free(&c);
    }
}

#define WAVENET "model m\ndim B = 2, C = 4, T = 7\ndtype DT = f32\n" \
    "input x : DT[B, C, T]\ninput y : DT[B, 2*C, T]\n" \
    "weight w : DT[2*C, C, 1]\nweight b : DT[2*C]\n"

static void test_gated_tanh(void **state)
{
    (void)state;
    TestCtx c;
    ctx_init(&c);
    Plan *p = planned(&c, WAVENET
        "gate, filt = split(y, [C, C], axis=1)\n"
        "z = tanh(filt) * sigmoid(gate)\n"
        "o = conv1d(z, w, b, kernel=1)\n"
        "res, skip = split(o, [C, C], axis=1)\n"
        "out = 0.5 * (res + x)\n"
        "output out, skip\n");
    assert_int_equal(p->nmatches, 1);
    Match *m = p->matches[0];
    assert_string_equal(m->pat->g->name, "gated_tanh_residual");
    assert_true(m->param[0] == 0.5);
    assert_string_equal(match_value(m, "skip")->name, "skip");
    assert_int_equal(p->nk, 1);
    assert_int_equal(p->k[0]->nout, 2);
    ctx_free(&c);

    /* kernel=3 is not the pattern's 1x1 projection */
    ctx_init(&c);
    p = planned(&c, "model m\ndim B = 2, C = 4, T = 7\ndtype DT = f32\n"
        "input x : DT[B, C, T]\ninput y : DT[B, 2*C, T]\n"
        "weight w : DT[2*C, C, 3]\nweight b : DT[2*C]\n"
        "gate, filt = split(y, [C, C], axis=1)\n"
        "z = sigmoid(gate) * tanh(filt)\n"
        "o = conv1d(z, w, b, kernel=3, padding=1)\n"
        "res, skip = split(o, [C, C], axis=1)\n"
        "out = (x + res) * 0.5\n"
        "output out, skip\n");
    assert_int_equal(p->nmatches, 0);
    ctx_free(&c);
}

#define ATTN "model m\ndim B = 2, H = 2, L = 5, D = 8\ndtype DT = f32\n" \
    "input q : DT[B, H, L, D]\ninput k : DT[B, H, L, D]\ninput v : DT[B, H, L, D]\n" \
    "input pad : bool[B, L]\n"

static void test_sdpa(void **state)
{
    (void)state;
    TestCtx c;
    ctx_init(&c);
    Plan *p = planned(&c, ATTN
        "s = matmul(q, transpose(k, -1, -2)) * 0.25\n"
        "s = masked_fill(s, reshape(pad, [B, 1, 1, L]), -inf)\n"
        "o = matmul(softmax(s, axis=3), v)\noutput o\n");
    assert_int_equal(count_fused(p, "sdpa"), 1);
    Match *m = p->matches[0];
    assert_string_equal(m->pat->variant, "sdpa_keypad");
    assert_string_equal(match_value(m, "mask")->name, "pad");
    assert_true(m->param[0] == 0.25);
    ctx_free(&c);

    ctx_init(&c);
    p = planned(&c, ATTN "s = matmul(q, transpose(k, 2, 3)) * 0.25\n"
                "o = matmul(softmax(s, axis=-1), v)\noutput o\n");
    assert_int_equal(count_fused(p, "sdpa"), 1);
    assert_string_equal(p->matches[0]->pat->variant, "sdpa");
    assert_null(match_value(p->matches[0], "mask"));
    ctx_free(&c);

    /* softmax over the wrong axis is not attention */
    ctx_init(&c);
    p = planned(&c, ATTN "s = matmul(q, transpose(k, 2, 3)) * 0.25\n"
                "o = matmul(softmax(s, axis=2), v)\noutput o\n");
    assert_int_equal(count_fused(p, "sdpa"), 0);
    ctx_free(&c);
}

static void test_ln_gemm_gelu(void **state)
{
    (void)state;
    const char *approx[] = {"none", "tanh"};
    for (int k = 0; k < 2; k++) {
        TestCtx c;
        ctx_init(&c);
        char text[1024];
        snprintf(text, sizeof text,
                 "model m\ndim B = 2, T = 3, C = 8, F = 16\ndtype DT = f32\n"
                 "input x : DT[B, T, C]\nweight g : DT[C]\nweight b : DT[C]\n"
                 "weight w : DT[F, C]\nweight bw : DT[F]\n"
                 "h = layernorm(x, g, b, eps=1e-6)\n"
                 "y = gelu(linear(h, w, bw), approximate=\"%s\")\noutput y\n",
                 approx[k]);
        Plan *p = planned(&c, text);
        assert_int_equal(count_fused(p, "ln_gemm_gelu"), 1);
        Match *m = p->matches[0];
        const Graph *pg = m->pat->g;
        for (int i = 0; i < pg->nparams; i++) {
            if (!strcmp(pg->params[i], "eps"))
                assert_true(m->param[i] == 1e-6);
            if (!strcmp(pg->params[i], "approximate"))
                assert_string_equal(m->param_attr[i].s, approx[k]);
        }
        ctx_free(&c);
    }
}

/* gemm_gelu: a linear with bias, then GELU; the approximation is bound.
 * Not matched: a linear without bias, a linear output used elsewhere. */
static void test_gemm_gelu(void **state)
{
    (void)state;
    const char *approx[] = {"none", "tanh"};
    for (int k = 0; k < 2; k++) {
        TestCtx c;
        ctx_init(&c);
        char text[1024];
        snprintf(text, sizeof text,
                 "model m\ndim B = 2, T = 3, C = 8, F = 16\ndtype DT = f32\n"
                 "input x : DT[B, T, C]\nweight w : DT[F, C]\nweight bw : DT[F]\n"
                 "y = gelu(linear(x, w, bw), approximate=\"%s\")\noutput y\n",
                 approx[k]);
        Plan *p = planned(&c, text);
        assert_int_equal(p->nk, 1);
        assert_int_equal(count_fused(p, "gemm_gelu"), 1);
        Match *m = p->matches[0];
        assert_false(m->pat->g->optional);
        assert_string_equal(match_value(m, "w")->name, "w");
        const Graph *pg = m->pat->g;
        for (int i = 0; i < pg->nparams; i++)
            if (!strcmp(pg->params[i], "approximate"))
                assert_string_equal(m->param_attr[i].s, approx[k]);
        ctx_free(&c);
    }
    const char *cases[] = {
        "y = gelu(linear(x, w))\noutput y\n",
        "h = linear(x, w, bw)\ny = gelu(h)\nz = h * 2\noutput y, z\n",
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        TestCtx c;
        ctx_init(&c);
        char text[1024];
        snprintf(text, sizeof text,
                 "model m\ndim B = 2, T = 3, C = 8, F = 16\ndtype DT = f32\n"
                 "input x : DT[B, T, C]\nweight w : DT[F, C]\nweight bw : DT[F]\n%s",
                 cases[k]);
        Plan *p = planned(&c, text);
        assert_int_equal(count_fused(p, "gemm_gelu"), 0);
        ctx_free(&c);
    }
}

/* A declined root skips the optional pattern there, and only there: the
 * smaller gemm_gelu takes its linear and GELU. */
static void test_decline_optional(void **state)
{
    (void)state;
    TestCtx c;
    ctx_init(&c);
    Graph *g = graph_of(&c,
        "model m\ndim B = 2, T = 3, C = 8\ndtype DT = f32\n"
        "input x : DT[B, T, C]\nweight g : DT[C]\nweight b : DT[C]\n"
        "weight w : DT[C, C]\nweight bw : DT[C]\n"
        "h = layernorm(x, g, b)\ny = gelu(linear(h, w, bw))\n"
        "h2 = layernorm(y, g, b)\nz = gelu(linear(h2, w, bw))\noutput z\n",
        NULL, 0);
    assert_non_null(g);
    PatternSet *ps = patterns_load(patterns_path(), &c.d, c.a);
    assert_non_null(ps);
    int n;
    Match **m = match_all(g, ps, NULL, c.a, &n);
    assert_int_equal(n, 2);
    for (int i = 0; i < 2; i++) {
        assert_string_equal(m[i]->pat->g->name, "ln_gemm_gelu");
        assert_true(m[i]->pat->g->optional);
    }
    int zroot = find_value(g, "z", c.a)->def->id;
    int yroot = find_value(g, "y", c.a)->def->id;
    assert_true(m[0]->root == zroot || m[1]->root == zroot);
    assert_true(m[0]->root == yroot || m[1]->root == yroot);

    bool *decline = arena_alloc(c.a, (size_t)g->nnodes + 1);
    decline[zroot] = true;
    for (int i = 0; i < g->nnodes; i++)
        g->nodes[i]->kernel = -1;    /* as plan_build starts */
    m = match_all(g, ps, decline, c.a, &n);
    assert_int_equal(n, 2);
    int ln = m[0]->pat->g->optional ? 0 : 1;
    assert_string_equal(m[ln]->pat->g->name, "ln_gemm_gelu");
    assert_int_equal(m[ln]->root, yroot);
    assert_string_equal(m[1 - ln]->pat->g->name, "gemm_gelu");
    assert_int_equal(m[1 - ln]->root, zroot);
    Node *norm = find_value(g, "h2", c.a)->def;
    assert_int_equal(norm->kernel, -1);      /* left to the planner */
    ctx_free(&c);
}

/* Pattern files with mistakes are reported like model errors. */
static void test_bad_pattern_dir(void **state)
{
    (void)state;
    char dir[] = "/tmp/kgen-test-patterns-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/bad.pat", dir);
    FILE *fp = fopen(path, "w");
    fputs("pattern p\ntemplate t\ndim N\ninput x : f32[N]\ninput unused : f32[N]\n"
          "y = exp(x)\noutput y\n", fp);
    fclose(fp);
    TestCtx c;
    ctx_init(&c);
    assert_null(patterns_load(dir, &c.d, c.a));
    assert_diag(&c, "bad.pat:5:7: error: pattern input 'unused' is never used");
    ctx_free(&c);
    remove(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_glu_variants),
        cmocka_unit_test(test_glu_non_matches),
        cmocka_unit_test(test_gated_tanh),
        cmocka_unit_test(test_sdpa),
        cmocka_unit_test(test_ln_gemm_gelu),
        cmocka_unit_test(test_gemm_gelu),
        cmocka_unit_test(test_decline_optional),
        cmocka_unit_test(test_bad_pattern_dir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_sema.c -- shape and dtype inference, bindings, and its errors. */
#include "testutil.h"

#define MODEL "model m\ndim B = 2, C = 8, T = 16, K = 3\ndtype DT = f16\n"

static Graph *ok(TestCtx *c, const char *text)
{
    Graph *g = graph_of(c, text, NULL, 0);
    if (!g)
        fail_msg("unexpected errors:\n%s", c->d.buf.buf);
    return g;
}

static void test_shapes(void **state)
{
    (void)state;
    TestCtx c;
    ctx_init(&c);
    Graph *g = ok(&c, MODEL
        "input x : DT[B, C, T]\n"
        "weight w : DT[2*C, C, K]\n"
        "weight wl : DT[4, C]\n"
        "input m : DT[T, T]\n"
        "a = conv1d(x, w, kernel=K, padding=2, dilation=2)\n"        /* T */
        "b = conv1d(x, w, stride=2)\n"                               /* (16-3)/2+1 = 7 */
        "h = linear(transpose(x, 1, 2), wl)\n"                       /* [B, T, 4] */
        "p = matmul(x, m)\n"                                         /* [B, C, T] */
        "v = matmul(m, reshape(x, [B, C, T, 1]))\n"                  /* broadcast */
        "r = reshape(x, [-1, T])\n"
        "s1, s2 = split(a, [C, C], axis=-2)\n"
        "q1, q2, q3, q4 = split(x, parts=4, axis=2)\n"
        "cc = concat([q1, q2, q3], axis=-1)\n"
        "u = unsqueeze(h, axis=-1)\n"
        "sm = sum(x, axis=1, keepdim=true)\n"
        "mx = max(x, axis=0)\n"
        "mv = matmul(m, sum(m, axis=0))\n"                           /* 1-D */
        "output a, b, h, p, v, r, s1, s2, q4, cc, u, sm, mx, mv\n");
    Arena *a = c.a;
    assert_shape(find_value(g, "a", a), 3, 2LL, 16LL, 16LL);
    assert_shape(find_value(g, "b", a), 3, 2LL, 16LL, 7LL);
    assert_shape(find_value(g, "h", a), 3, 2LL, 16LL, 4LL);
    assert_shape(find_value(g, "p", a), 3, 2LL, 8LL, 16LL);
    assert_shape(find_value(g, "v", a), 4, 2LL, 8LL, 16LL, 1LL);
    assert_shape(find_value(g, "r", a), 2, 16LL, 16LL);
    assert_shape(find_value(g, "s2", a), 3, 2LL, 8LL, 16LL);
    assert_shape(find_value(g, "q4", a), 3, 2LL, 8LL, 4LL);
    assert_shape(find_value(g, "cc", a), 3, 2LL, 8LL, 12LL);
    assert_shape(find_value(g, "u", a), 4, 2LL, 16LL, 4LL, 1LL);
    assert_shape(find_value(g, "sm", a), 3, 2LL, 1LL, 16LL);
    assert_shape(find_value(g, "mx", a), 2, 8LL, 16LL);
    assert_shape(find_value(g, "mv", a), 1, 16LL);
    /* axes are normalised */
    Node *n = find_value(g, "s1", a)->def;
    assert_int_equal(n->attr[op_param(OP_SPLIT, "axis")].i, 1);
    ctx_free(&c);
}

static void test_promotion(void **state)
{
    (void)state;
    TestCtx c;
    ctx_init(&c);
    Graph *g = ok(&c, MODEL
        "input h : f16[B]\ninput f : f32[B]\ninput bf : bf16[B]\n"
        "input i : i32[B]\ninput k : bool[B]\n"
        "a = h * 0.5\nb = h + f\nc = h + bf\nd = k + 1\ne = i / i\n"
        "g = i * 1.5\nl = exp(i)\nm = cast(k, DT)\nn = k + k\n"
        "o = i * 2\np = i * 2.0\nq = i * (3 - 1)\n"
        "output a, b, c, d, e, g, l, m, n, o, p, q\n");
    const char *names[] = {"a", "b", "c", "d", "e", "g", "l", "m", "n", "o",
                           "p", "q"};
    DType want[] = {DT_F16, DT_F32, DT_F32, DT_I32, DT_F32, DT_F32, DT_F32,
                    DT_F16, DT_BOOL, DT_I32, DT_F32, DT_I32};
    for (int i = 0; i < 12; i++)
        assert_int_equal(find_value(g, names[i], c.a)->dt, want[i]);
    ctx_free(&c);
}

/* Rebinding a name makes a new SSA version; --dim and --dtype override. */
static void test_versions_and_overrides(void **state)
{
    (void)state;
    TestCtx c;
    ctx_init(&c);
    Override ov[] = {{"C", "9", false, false}, {"DT", "f32", true, false},
                     {"C", "4", false, false}};
    Graph *g = graph_of(&c, MODEL "input x : DT[B, C]\n"
                        "h = x * 2\nh = h + x\nh = relu(h)\noutput h\n", ov, 3);
    assert_non_null(g);
    Value *h3 = find_value(g, "h#3", c.a);
    assert_non_null(h3);
    assert_int_equal(h3->version, 3);
    assert_true(h3->is_output);
    assert_int_equal(h3->def->in[0], find_value(g, "h#2", c.a));
    assert_shape(h3, 2, 2LL, 4LL);
    assert_int_equal(h3->dt, DT_F32);
    ctx_free(&c);
}

/* Dead statements are dropped with a warning. */
static void test_dead_code(void **state)
{
    (void)state;
    TestCtx c;
    ctx_init(&c);
    Graph *g = ok(&c, MODEL "input x : DT[B]\ninput y : DT[B]\n"
                  "dead = exp(x)\no = x * 2\noutput o\n");
    assert_int_equal(g->nnodes, 1);
    assert_diag(&c, "t.pat:6:1: warning: 'dead' is computed but never used");
    assert_diag(&c, "t.pat:5:7: warning: input 'y' is never used");
    ctx_free(&c);
}

static void test_errors(void **state)
{
    (void)state;
    struct { const char *src; const char *msg; } cases[] = {
        {"input x : DT[B, C]\nweight w : DT[4, 7]\ny = linear(x, w)\noutput y\n",
         "t.pat:6:5: error: linear: K mismatch 8 ('x' f16[2, 8] (t.pat:4:7)) vs 7 "
         "('w' f16[4, 7] (t.pat:5:8))"},
        {"input a : DT[B, C]\ninput b : DT[T, C]\ny = matmul(a, b)\noutput y\n",
         "matmul: K mismatch 8"},
        {"input a : DT[B, C]\ninput b : DT[T]\ny = a + b\noutput y\n",
         "add: shapes do not broadcast: 'a' f16[2, 8] (t.pat:4:7) and 'b' f16[16]"},
        {"input a : DT[B, C]\ninput b : f32[C, C]\ny = linear(a, b)\noutput y\n",
         "linear: dtype mismatch"},
        {"input a : DT[B, C]\ninput m : DT[B, C]\ny = masked_fill(a, m, 0)\noutput y\n",
         "masked_fill: the mask must be bool"},
        {"input a : DT[B, C]\ny = softmax(a, axis=2)\noutput y\n",
         "softmax: axis 2 is out of range for a rank-2 tensor (expected -2..1)"},
        {"input a : DT[B, C]\ny, z = split(a, [3, 3], axis=1)\noutput y\n",
         "split: the sizes add up to 6 but axis 1"},
        {"input a : DT[B, C]\ny = reshape(a, [3, 5])\noutput y\n",
         "reshape: 'a' f16[2, 8] (t.pat:4:7) has 16 elements but the new shape has 15"},
        {"input x : DT[B, C, T]\nweight w : DT[C, 3, 1]\ny = conv1d(x, w, groups=2)\n"
         "output y\n", "with groups=2 the weight"},
        {"input a : DT[B, C]\ny = gelu(a, approximate=\"fast\")\noutput y\n",
         "gelu: approximate must be \"none\" or \"tanh\""},
        {"input a : DT[B, C]\ny = matmull(a, a)\noutput y\n",
         "unknown op 'matmull' (did you mean 'matmul'?)"},
        {"input a : DT[B, C]\ny = gelu(a, approx=\"tanh\")\noutput y\n",
         "gelu has no argument 'approx' (it takes: x, approximate)"},
        {"input a : DT[B, C]\ny = linear(a)\noutput y\n",
         "linear: missing argument 'w'"},
        {"input a : DT[B, C]\ninput a : DT[B]\noutput a\n",
         "t.pat:5:7: error: redefinition of input 'a'"},
        {"input a : DT[B, C]\na = a * 2\noutput a\n", "cannot assign to input 'a'"},
        {"y = z + 1\nz = exp(y)\noutput z\n",
         "t.pat:4:5: error: 'z' is used before its definition"},
        {"input a : DT[B, C]\noutput q\n", "output 'q' is never defined"},
        {"dim Z = 0\ninput a : DT[Z]\ny = exp(a)\noutput y\n",
         "t.pat:4:9: error: dim is 0; dims must be positive"},
        {"dim Z = C / 3\n", "dim expression 8 / 3 is not an integer"},
        {"dim Z = 1.5\n", "dims must be integers"},
        {"dim Z = 3000000000\n", "more than the limit"},
        {"input a : f32[65536, 65536, 65536]\ny = exp(a)\noutput y\n",
         "needs 2^50 bytes (limit 2^40)"},
        {"param p\n", "'param' is allowed only in pattern files"},
        {"input a : DT[B, C]\nb = a\noutput b\n", "only renames an input"},
        {"dim Z = Z + 1\n", "t.pat:4:9: error: undefined dim 'Z'"},
        {"input k : bool[B]\ny = -k\noutput y\n", "neg of a bool tensor"},
        {"input a : DT[B, C]\ny = exp(a, a)\noutput y\n",
         "exp takes at most 1 argument (x), got 2"},
        {"input a : DT[B, C]\ny = a * C\noutput y\n",
         "'C' is a dim, not a tensor"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        TestCtx c;
        ctx_init(&c);
        char text[1024];
        snprintf(text, sizeof text, MODEL "%s", cases[k].src);
        Graph *g = graph_of(&c, text, NULL, 0);
        assert_null(g);
        assert_diag(&c, cases[k].msg);
        ctx_free(&c);
    }
}

/* Error and note together for a redefinition. */
static void test_note(void **state)
{
    (void)state;
    TestCtx c;
    ctx_init(&c);
    assert_null(graph_of(&c, MODEL "dim B = 4\n", NULL, 0));
    assert_diag(&c, "t.pat:4:5: error: redefinition of dim 'B'");
    assert_diag(&c, "t.pat:2:5: note: previous definition of 'B' is here");
    ctx_free(&c);
}

static void test_bad_overrides(void **state)
{
    (void)state;
    Override cases[][1] = {{{"B", "0", false, false}}, {{"B", "x", false, false}},
                           {{"Q", "3", false, false}}, {{"DT", "f64", true, false}}};
    const char *msgs[] = {"--dim B=0: expected an integer", "--dim B=x",
                          "--dim Q=3: the model has no dim 'Q'",
                          "--dtype DT=f64: expected f16"};
    for (int k = 0; k < 4; k++) {
        TestCtx c;
        ctx_init(&c);
        assert_null(graph_of(&c, MODEL "input x : DT[B]\ny = exp(x)\noutput y\n",
                             cases[k], 1));
        assert_diag(&c, msgs[k]);
        ctx_free(&c);
    }
}

/* Pattern files: symbolic dims stay unknown, holes and op variables bind. */
static void test_pattern_graph(void **state)
{
    (void)state;
    TestCtx c;
    ctx_init(&c);
    Graph *g = ok(&c, "pattern p\ntemplate t\ndim B, N\ndtype DT\nparam s\n"
                  "op ACT = atan | silu\ninput x : DT[B, 2*N]\n"
                  "a, b = split(x, [N, N], axis=-1)\ny = a * ACT(b) * s\noutput y\n");
    assert_true(g->is_pattern);
    assert_string_equal(g->template_name, "t");
    Value *x = g->inputs[0];
    assert_int_equal(x->shape[1], -1);
    assert_non_null(x->sym[1]);
    assert_int_equal(x->dtvar, 0);
    Value *y = g->outputs[0];
    assert_int_equal(y->rank, 2);
    assert_int_equal(y->def->in[1]->hole, 0);
    ctx_free(&c);
}

/* In a pattern a dim has no value, so it cannot stand for an axis. */
static void test_pattern_axis_dim(void **state)
{
    (void)state;
    TestCtx c;
    ctx_init(&c);
    assert_null(graph_of(&c, "pattern p\ntemplate t\ndim C\ninput x : f32[C]\n"
                         "y = softmax(x, axis=C)\noutput y\n", NULL, 0));
    assert_diag(&c, "t.pat:5:21: error: pattern dim 'C' cannot be used here");
    assert_int_equal(c.d.nerrors, 1);
    ctx_free(&c);
}

/* A failed statement does not cascade into errors about its names. */
static void test_no_cascade(void **state)
{
    (void)state;
    TestCtx c;
    ctx_init(&c);
    assert_null(graph_of(&c, MODEL "input x : DT[B]\na, b = relu(x)\n"
                         "c = x\nd = a + b + c\noutput d, a\n", NULL, 0));
    assert_int_equal(c.d.nerrors, 2);
    ctx_free(&c);
}

/* `optional` marks a pattern the tuner may leave unfused: once, and only
 * in a pattern file. */
static void test_optional(void **state)
{
    (void)state;
    TestCtx c;
    ctx_init(&c);
    Graph *g = ok(&c, "pattern p\ntemplate t\ndim N\ninput x : f32[N]\n"
                  "y = exp(x)\noutput y\n");
    assert_false(g->optional);
    ctx_free(&c);

    ctx_init(&c);
    g = ok(&c, "pattern p\ntemplate t\noptional\ndim N\ninput x : f32[N]\n"
           "y = exp(x)\noutput y\n");
    assert_true(g->optional);
    ctx_free(&c);

    ctx_init(&c);
    assert_null(graph_of(&c, MODEL "optional\ninput x : DT[B]\ny = exp(x)\n"
                         "output y\n", NULL, 0));
    assert_int_equal(c.d.nerrors, 1);
    assert_diag(&c, "t.pat:4:1: error: 'optional' is allowed only in pattern files");
    ctx_free(&c);

    ctx_init(&c);
    assert_null(graph_of(&c, "pattern p\noptional\ntemplate t\noptional\ndim N\n"
                         "input x : f32[N]\ny = exp(x)\noutput y\n", NULL, 0));
    assert_int_equal(c.d.nerrors, 1);
    assert_diag(&c, "t.pat:4:1: error: the pattern is already optional");
    ctx_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shapes),
        cmocka_unit_test(test_promotion),
        cmocka_unit_test(test_versions_and_overrides),
        cmocka_unit_test(test_dead_code),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_note),
        cmocka_unit_test(test_bad_overrides),
        cmocka_unit_test(test_pattern_graph),
        cmocka_unit_test(test_pattern_axis_dim),
        cmocka_unit_test(test_no_cascade),
        cmocka_unit_test(test_optional),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

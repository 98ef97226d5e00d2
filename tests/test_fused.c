/* test_fused.c -- the fused plan computes what the original graph computes.
 *
 * For every example model (at reduced dims, so double-precision evaluation
 * stays fast) and for a small model around every pattern variant, evaluate
 * the graph op by op and the plan kernel by kernel (fused kernels through
 * their own references, elementwise kernels element by element), with
 * several seeds, and require a relative L2 error under 1e-12. */
#include "testutil.h"

/* Evaluate text both ways and compare; returns the number of fused
 * kernels so callers can check the pattern really fired. */
static int agree(const char *text, Override *ov, int nov, const char *what)
{
    TestCtx c;
    ctx_init(&c);
    c.f = (SrcFile){what, text, strlen(text)};
    Ast *ast = parse(&c.f, &c.d, c.a);
    Graph *g = c.d.nerrors ? NULL : sema(ast, ov, nov, &c.d, c.a);
    if (!g)
        fail_msg("%s: %s", what, c.d.buf.buf);
    PatternSet *ps = patterns_load(patterns_path(), &c.d, c.a);
    assert_non_null(ps);
    Plan *p = plan_build(g, ps, NULL, c.a);
    int fused = 0;
    for (int i = 0; i < p->nk; i++)
        fused += p->k[i]->kind == K_FUSED;
    for (uint64_t seed = 1; seed <= 3; seed++) {
        Tensor *ref = calloc((size_t)g->noutputs, sizeof *ref);
        Tensor *fus = calloc((size_t)g->noutputs, sizeof *fus);
        Str err = {0};
        if (interp_run(g, NULL, seed, ref, &err) || interp_run(g, p, seed, fus, &err))
            fail_msg("%s: %s", what, err.buf);
        for (int i = 0; i < g->noutputs; i++) {
            double max_abs = 0;
            double rel = tensor_rel_err(&ref[i], &fus[i], &max_abs);
            if (!(rel < 1e-12))
                fail_msg("%s seed %llu output %s: rel-L2 %g max-abs %g", what,
                         (unsigned long long)seed, g->outputs[i]->name, rel,
                         max_abs);
            /* the comparison is not vacuous: outputs are not all zero */
            double norm = 0;
            for (int64_t j = 0; j < ref[i].n; j++)
                norm += ref[i].data[j] * ref[i].data[j];
            assert_true(norm > 0);
            tensor_free(&ref[i]);
            tensor_free(&fus[i]);
        }
        free(ref);
        free(fus);
        str_free(&err);
    }
    ctx_free(&c);
    return fused;
}

#define DIM(n, v) {.name = n, .value = v}
#define DT_(n, v) {.name = n, .value = v, .is_dtype = true}

static void test_examples(void **state)
{
    (void)state;
    struct {
        const char *file;
        Override ov[8];
        int nov, fused;
    } ex[] = {
        {"examples/wavenet_layer.pat",
         {DIM("B", "2"), DIM("C", "16"), DIM("H", "8"), DIM("T", "21")}, 4, 2},
        {"examples/lynxnet2_block.pat", {DIM("B", "2"), DIM("T", "33"), DIM("C", "16")}, 3, 4},
        {"examples/convnext_block.pat",
         {DIM("B", "2"), DIM("T", "19"), DIM("C", "16"), DIM("F", "24")}, 4, 2},
        {"examples/encoder_layer.pat",
         {DIM("B", "2"), DIM("L", "9"), DIM("C", "24"), DIM("HD", "12"), DIM("F", "32")}, 5, 4},
        /* inference shapes of the comments in the files, f32 */
        {"examples/wavenet_layer.pat",
         {DIM("B", "1"), DIM("C", "8"), DIM("H", "4"), DIM("T", "61"), DT_("DT", "f32")}, 5, 2},
        {"examples/lynxnet2_block.pat",
         {DIM("B", "1"), DIM("T", "86"), DIM("C", "8"), DT_("DT", "f32")}, 4, 4},
    };
    for (size_t e = 0; e < sizeof ex / sizeof *ex; e++) {
        char *text = slurp(ex[e].file);
        assert_int_equal(agree(text, ex[e].ov, ex[e].nov, ex[e].file), ex[e].fused);
        free(text);
    }
}

/* A model around each pattern variant, written differently from the
 * pattern (commuted operands, negative axes) so the bindings matter. */
static void test_patterns(void **state)
{
    (void)state;
    const char *models[] = {
        "model gtr\ndim B = 2, C = 5, T = 17\ndtype DT = f32\n"
        "input x : DT[B, C, T]\ninput y : DT[B, 2*C, T]\n"
        "weight w : DT[2*C, C, 1]\nweight b : DT[2*C]\n"
        "gate, filt = split(y, [C, C], axis=-2)\n"
        "z = tanh(filt) * sigmoid(gate)\n"
        "o = conv1d(z, w, b, kernel=1)\n"
        "res, skip = split(o, [C, C], axis=1)\n"
        "out = 0.7 * (res + x)\noutput skip, out\n",

        "model lgg\ndim B = 2, T = 7, C = 12, F = 9\ndtype DT = f32\n"
        "input x : DT[B, T, C]\nweight g : DT[C]\nweight b : DT[C]\n"
        "weight w : DT[F, C]\nweight bw : DT[F]\n"
        "h = layernorm(x, g, b, axis=2, eps=1e-3)\n"
        "y = gelu(linear(h, w, bw), approximate=\"tanh\")\noutput y\n",

        "model lgg2\ndim B = 1, T = 5, C = 16, F = 8\ndtype DT = bf16\n"
        "input x : DT[B, T, C]\nweight g : DT[C]\nweight b : DT[C]\n"
        "weight w : DT[F, C]\nweight bw : DT[F]\n"
        "h = layernorm(x, g, b)\n"
        "y = gelu(linear(h, w, bw))\noutput y\n",

        "model glu\ndim B = 3, T = 4, C = 6, N = 5\ndtype DT = f16\n"
        "input x : DT[B, T, C]\nweight w1 : DT[2*N, C]\nweight b1 : DT[2*N]\n"
        "weight w2 : DT[2*N, N]\nweight b2 : DT[2*N]\n"
        "weight w3 : DT[2*N, N]\nweight b3 : DT[2*N]\n"
        "weight w4 : DT[2*N, N]\nweight b4 : DT[2*N]\n"
        "o, g = split(linear(x, w1, b1), [N, N], axis=-1)\nh = silu(g) * o\n"
        "o, g = split(linear(h, w2, b2), [N, N], axis=2)\nh = o * softsign(g)\n"
        "o, g = split(linear(h, w3, b3), [N, N], axis=-1)\nh = o * sigmoid(g)\n"
        "o, g = split(linear(h, w4, b4), [N, N], axis=-1)\nh = atan(g) * o\n"
        "output h\n",

        "model att\ndim B = 2, H = 3, L = 7, S = 70, D = 8, E = 6\ndtype DT = f32\n"
        "input q : DT[B, H, L, D]\ninput k : DT[B, H, S, D]\ninput v : DT[B, H, S, E]\n"
        "input pad : bool[B, S]\n"
        "s = matmul(q, transpose(k, -1, -2)) * 0.3\n"
        "s = masked_fill(s, reshape(pad, [B, 1, 1, S]), -inf)\n"
        "o = matmul(softmax(s, axis=-1), v)\noutput o\n",

        "model att2\ndim B = 1, H = 2, L = 65, S = 129, D = 4\ndtype DT = f16\n"
        "input q : DT[B, H, L, D]\ninput k : DT[B, H, S, D]\ninput v : DT[B, H, S, D]\n"
        "s = 0.5 * matmul(q, transpose(k, 2, 3))\n"
        "o = matmul(softmax(s, axis=-1), v)\noutput o\n",

        "model gg\ndim B = 2, T = 5, C = 12, F = 9\ndtype DT = f32\n"
        "input x : DT[B, T, C]\nweight w : DT[F, C]\nweight bw : DT[F]\n"
        "y = gelu(linear(x, w, bw), approximate=\"tanh\")\noutput y\n",

        "model lres\ndim B = 2, T = 5, C = 12, F = 9\ndtype DT = f32\n"
        "input x : DT[B, T, C]\ninput r : DT[B, T, F]\nweight w : DT[F, C]\n"
        "y = linear(x, w) + r\noutput y\n",

        "model cres\ndim B = 2, CI = 6, CO = 10, T = 13\ndtype DT = f16\n"
        "input x : DT[B, CI, T]\ninput r : DT[B, CO, T]\n"
        "weight w : DT[CO, CI, 1]\nweight b : DT[CO]\n"
        "y = conv1d(x, w, b, kernel=1) + r\noutput y\n",

        "model lsr\ndim B = 2, T = 5, C = 12, F = 9\ndtype DT = f32\n"
        "input x : DT[B, T, C]\ninput r : DT[B, T, F]\nweight w : DT[F, C]\n"
        "weight b : DT[F]\nweight g : DT[F]\n"
        "y = g * linear(x, w, b) + r\noutput y\n",

        "model lsrt\ndim B = 2, T = 7, C = 12, F = 9\ndtype DT = bf16\n"
        "input x : DT[B, T, C]\ninput r : DT[B, F, T]\nweight w : DT[F, C]\n"
        "weight b : DT[F]\nweight g : DT[F]\n"
        "y = r + transpose(linear(x, w, b) * g, 2, 1)\noutput y\n",

        "model cg\ndim B = 2, T = 11, C = 6, F = 10\ndtype DT = f32\n"
        "input x : DT[B, T, C]\nweight w : DT[F, C, 5]\nweight b : DT[F]\n"
        "f = transpose(conv1d(transpose(x, -1, -2), w, b, kernel=5, padding=2), 1, 2)\n"
        "y = gelu(0.5 * f, approximate=\"tanh\")\noutput y\n",
    };
    for (size_t i = 0; i < sizeof models / sizeof *models; i++) {
        int fused = agree(models[i], NULL, 0, models[i] + 6);
        assert_int_equal(fused, i == 3 ? 4 : 1);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_examples),
        cmocka_unit_test(test_patterns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

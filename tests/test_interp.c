/*
 * test_interp.c -- the double-precision reference interpreter (interp.c).
 *
 * Inputs are random, so the tests check identities between two ways of
 * computing one thing (matmul vs linear of a transpose, conv1d k=1 vs
 * linear, split+concat vs the input, sdpa vs its softmax composition), the
 * defining properties of an op (softmax rows sum to 1, layernorm rows have
 * mean 0 and variance 1), or recompute the result in C from the inputs,
 * which a model exposes as outputs through dropout (the identity).  With a
 * plan, elementwise kernels (evaluated element by element) and fused
 * kernels (evaluated by their own algorithms) must agree with the op-by-op
 * evaluation; the pattern files for that are written to a temporary
 * directory so these tests do not depend on patterns/.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "kgen.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAXOUT 32

typedef struct Model {
    SrcFile f;
    Diag d;
    Arena *a;
    Graph *g;
    Tensor out[MAXOUT];
} Model;

static char pattern_dir[512];  /* the temporary pattern files */

static Model *load(const char *src, Override *ov, int nov)
{
    Model *m = calloc(1, sizeof *m);
    assert_non_null(m);
    m->f = (SrcFile){"t.pat", src, strlen(src)};
    diag_init(&m->d, stderr);
    m->a = arena_new();
    Ast *ast = parse(&m->f, &m->d, m->a);
    assert_int_equal(m->d.nerrors, 0);
    m->g = sema(ast, ov, nov, &m->d, m->a);
    assert_non_null(m->g);
    assert_true(m->g->noutputs <= MAXOUT);
    return m;
}

static void free_outs(Tensor *t, int n)
{
    for (int i = 0; i < n; i++)
        tensor_free(&t[i]);
}

static void unload(Model *m)
{
    free_outs(m->out, m->g->noutputs);
    diag_free(&m->d);
    arena_free(m->a);
    free(m);
}

static void run_into(Model *m, const Plan *p, uint64_t seed, Tensor *outs)
{
    Str err = {0};
    int rc = interp_run(m->g, p, seed, outs, &err);
    if (rc)
        print_error("interp_run: %s\n", err.buf ? err.buf : "(no message)");
    str_free(&err);
    assert_int_equal(rc, 0);
}

static void run(Model *m, uint64_t seed)
{
    run_into(m, NULL, seed, m->out);
}

static int out_index(const Model *m, const char *name)
{
    for (int i = 0; i < m->g->noutputs; i++)
        if (m->g->outputs[i]->name && !strcmp(m->g->outputs[i]->name, name))
            return i;
    fail_msg("model has no output '%s'", name);
    return -1;
}

static const Tensor *out(const Model *m, const char *name)
{
    return &m->out[out_index(m, name)];
}

static void expect_close(const Tensor *a, const Tensor *b, double tol,
                         const char *what)
{
    double mad;
    double rel = tensor_rel_err(a, b, &mad);
    if (!(rel <= tol))
        fail_msg("%s: relative error %g (max abs %g) > %g", what, rel, mad,
                 tol);
}

#define CLOSE(M, A, B, TOL) expect_close(out(M, A), out(M, B), TOL, A " vs " B)

/* ---------------------------------------------------------------------------
 * Op by op
 * ------------------------------------------------------------------------- */

static void test_identities(void **state)
{
    (void)state;
    Model *m = load("model ident\n"
                    "dim B = 3, C = 5\n"
                    "dtype DT = f32\n"
                    "input x : DT[B, C]\n"
                    "z = x - x\n"
                    "s = softmax(x * 4.0, axis=-1)\n"
                    "s0 = softmax(x, axis=0)\n"
                    "output z, s, s0\n", NULL, 0);
    run(m, 1);
    const Tensor *z = out(m, "z"), *s = out(m, "s"), *s0 = out(m, "s0");
    assert_int_equal(z->n, 15);
    for (int64_t i = 0; i < z->n; i++)
        assert_true(z->data[i] == 0.0 && !signbit(z->data[i]));
    for (int b = 0; b < 3; b++) {
        double sum = 0;
        for (int c = 0; c < 5; c++) {
            assert_true(s->data[b * 5 + c] > 0);
            sum += s->data[b * 5 + c];
        }
        assert_true(fabs(sum - 1) < 1e-15);
    }
    for (int c = 0; c < 5; c++) {
        double sum = 0;
        for (int b = 0; b < 3; b++)
            sum += s0->data[b * 5 + c];
        assert_true(fabs(sum - 1) < 1e-15);
    }
    unload(m);
}

static void test_norms(void **state)
{
    (void)state;
    Model *m = load("model norms\n"
                    "dim B = 2, T = 3, C = 16\n"
                    "dtype DT = f32\n"
                    "input x : DT[B, T, C]\n"
                    "weight g : DT[C]\n"
                    "weight b : DT[C]\n"
                    "y = layernorm(x, axis=-1, eps=0.0)\n"
                    "y1 = layernorm(x, axis=1, eps=0.0)\n"
                    "r = rmsnorm(x, axis=-1, eps=0.0)\n"
                    "yg = layernorm(x, g, b, axis=-1, eps=0.0001)\n"
                    "rg = rmsnorm(x, g, eps=0.001)\n"
                    "xo = dropout(x)\n"
                    "go = dropout(g)\n"
                    "bo = dropout(b)\n"
                    "output y, y1, r, yg, rg, xo, go, bo\n", NULL, 0);
    run(m, 7);
    const Tensor *y = out(m, "y"), *y1 = out(m, "y1"), *r = out(m, "r");
    const Tensor *x = out(m, "xo"), *g = out(m, "go"), *b = out(m, "bo");
    for (int row = 0; row < 6; row++) {
        double mean = 0, var = 0, ms = 0;
        for (int c = 0; c < 16; c++)
            mean += y->data[row * 16 + c] / 16;
        for (int c = 0; c < 16; c++) {
            var += (y->data[row * 16 + c] - mean) *
                   (y->data[row * 16 + c] - mean) / 16;
            ms += r->data[row * 16 + c] * r->data[row * 16 + c] / 16;
        }
        assert_true(fabs(mean) < 1e-14);
        assert_true(fabs(var - 1) < 1e-12);
        assert_true(fabs(ms - 1) < 1e-12);
    }
    for (int bb = 0; bb < 2; bb++)      /* over T, the middle axis */
        for (int c = 0; c < 16; c++) {
            double mean = 0, var = 0;
            for (int t = 0; t < 3; t++)
                mean += y1->data[(bb * 3 + t) * 16 + c] / 3;
            for (int t = 0; t < 3; t++) {
                double d = y1->data[(bb * 3 + t) * 16 + c] - mean;
                var += d * d / 3;
            }
            assert_true(fabs(mean) < 1e-14);
            assert_true(fabs(var - 1) < 1e-10);
        }
    /* with gamma and beta, against the formula */
    Tensor want = *out(m, "yg"), wr = *out(m, "rg");
    double *wd = malloc((size_t)want.n * sizeof *wd);
    double *rd = malloc((size_t)wr.n * sizeof *rd);
    assert_non_null(wd);
    assert_non_null(rd);
    for (int row = 0; row < 6; row++) {
        const double *p = x->data + row * 16;
        double mean = 0, var = 0, ms = 0;
        for (int c = 0; c < 16; c++)
            mean += p[c];
        mean /= 16;
        for (int c = 0; c < 16; c++) {
            var += (p[c] - mean) * (p[c] - mean);
            ms += p[c] * p[c];
        }
        var /= 16;
        ms /= 16;
        for (int c = 0; c < 16; c++) {
            wd[row * 16 + c] =
                (p[c] - mean) / sqrt(var + 1e-4) * g->data[c] + b->data[c];
            rd[row * 16 + c] = p[c] / sqrt(ms + 1e-3) * g->data[c];
        }
    }
    want.data = wd;
    wr.data = rd;
    expect_close(&want, out(m, "yg"), 1e-14, "layernorm with gamma, beta");
    expect_close(&wr, out(m, "rg"), 1e-14, "rmsnorm with gamma");
    free(wd);
    free(rd);
    unload(m);
}

static void test_gemm(void **state)
{
    (void)state;
    Model *m = load("model gemm\n"
                    "dim B = 2, M = 3, K = 4, N = 5\n"
                    "dtype DT = f32\n"
                    "input a : DT[B, M, K]\n"
                    "input b : DT[K, N]\n"
                    "input v : DT[K]\n"
                    "input m2 : DT[N, K]\n"
                    "input a4 : DT[2, 1, M, K]\n"
                    "input b3 : DT[3, K, N]\n"
                    "weight bias : DT[N]\n"
                    "y1 = matmul(a, b)\n"
                    "y2 = linear(a, transpose(b, 0, 1))\n"
                    "l1 = linear(a, m2, bias)\n"
                    "ao = dropout(a)\n"
                    "mo = dropout(m2)\n"
                    "bo = dropout(bias)\n"
                    "vm = matmul(v, b)\n"
                    "vm2 = sum(unsqueeze(v, axis=1) * b, axis=0)\n"
                    "mv = matmul(m2, v)\n"
                    "mv2 = sum(m2 * v, axis=-1)\n"
                    "bb = matmul(a4, b3)\n"
                    "bb2 = sum(unsqueeze(a4, axis=-1) * unsqueeze(b3, axis=-3), axis=-2)\n"
                    "output y1, y2, l1, ao, mo, bo, vm, vm2, mv, mv2, bb, bb2\n",
                    NULL, 0);
    run(m, 3);
    CLOSE(m, "y1", "y2", 1e-15);
    CLOSE(m, "vm", "vm2", 1e-15);
    CLOSE(m, "mv", "mv2", 1e-15);
    CLOSE(m, "bb", "bb2", 1e-15);
    const Tensor *bb = out(m, "bb");
    assert_int_equal(bb->rank, 4);
    assert_int_equal(bb->shape[0], 2);
    assert_int_equal(bb->shape[1], 3);
    /* linear by hand */
    const Tensor *a = out(m, "ao"), *w = out(m, "mo"), *bias = out(m, "bo");
    Tensor want = *out(m, "l1");
    double *d = malloc((size_t)want.n * sizeof *d);
    assert_non_null(d);
    for (int r = 0; r < 6; r++)
        for (int n = 0; n < 5; n++) {
            double acc = 0;
            for (int k = 0; k < 4; k++)
                acc += a->data[r * 4 + k] * w->data[n * 4 + k];
            d[r * 5 + n] = acc + bias->data[n];
        }
    want.data = d;
    expect_close(&want, out(m, "l1"), 1e-15, "linear by hand");
    free(d);
    unload(m);
}

static void test_conv1d(void **state)
{
    (void)state;
    Model *m = load(
        "model conv\n"
        "dim B = 2, C = 4, F = 6, T = 9\n"
        "dtype DT = f32\n"
        "input x : DT[B, C, T]\n"
        "weight w1 : DT[F, C, 1]\n"
        "weight b1 : DT[F]\n"
        "weight w3 : DT[F, 2, 3]\n"
        "y1 = conv1d(x, w1, b1, kernel=1)\n"
        "y2 = transpose(linear(transpose(x, 1, 2), reshape(w1, [F, C]), b1), 1, 2)\n"
        "yg = conv1d(x, w3, stride=2, padding=2, dilation=2, groups=2)\n"
        "x1, x2 = split(x, [2, 2], axis=1)\n"
        "wa, wb = split(w3, [3, 3], axis=0)\n"
        "yg2 = concat([conv1d(x1, wa, stride=2, padding=2, dilation=2), "
        "conv1d(x2, wb, stride=2, padding=2, dilation=2)], axis=1)\n"
        "xo = dropout(x)\n"
        "wo = dropout(w3)\n"
        "output y1, y2, yg, yg2, xo, wo\n", NULL, 0);
    run(m, 5);
    CLOSE(m, "y1", "y2", 1e-15);
    CLOSE(m, "yg", "yg2", 0);
    const Tensor *x = out(m, "xo"), *w = out(m, "wo"), *yg = out(m, "yg");
    assert_int_equal(yg->rank, 3);
    assert_int_equal(yg->shape[2], 5);  /* (9 + 4 - 4 - 1) / 2 + 1 */
    Tensor want = *yg;
    double *d = malloc((size_t)want.n * sizeof *d);
    assert_non_null(d);
    for (int b = 0; b < 2; b++)
        for (int f = 0; f < 6; f++)
            for (int t = 0; t < 5; t++) {
                double acc = 0;
                int g = f / 3;
                for (int c = 0; c < 2; c++)
                    for (int k = 0; k < 3; k++) {
                        int ti = t * 2 - 2 + k * 2;
                        if (ti >= 0 && ti < 9)
                            acc += w->data[(f * 2 + c) * 3 + k] *
                                   x->data[(b * 4 + g * 2 + c) * 9 + ti];
                    }
                d[(b * 6 + f) * 5 + t] = acc;
            }
    want.data = d;
    expect_close(&want, yg, 1e-15, "grouped strided dilated conv1d by hand");
    free(d);
    unload(m);
}

static void test_layout(void **state)
{
    (void)state;
    Model *m = load("model lay\n"
                    "dim B = 2, C = 6, T = 4\n"
                    "dtype DT = f32\n"
                    "input x : DT[B, C, T]\n"
                    "a, b, c = split(x, [1, 2, 3], axis=1)\n"
                    "y = concat([a, b, c], axis=1)\n"
                    "t = transpose(transpose(x, 0, 2), 0, 2)\n"
                    "r = reshape(reshape(x, [B, C*T]), [B, C, T])\n"
                    "u = reshape(unsqueeze(x, axis=1), [B, C, T])\n"
                    "p = transpose(x, 1, 2)\n"
                    "e, f = split(x, parts=2, axis=-1)\n"
                    "xo = dropout(x)\n"
                    "output y, t, r, u, p, f, xo\n", NULL, 0);
    run(m, 11);
    CLOSE(m, "y", "xo", 0);
    CLOSE(m, "t", "xo", 0);
    CLOSE(m, "r", "xo", 0);
    CLOSE(m, "u", "xo", 0);
    const Tensor *x = out(m, "xo"), *p = out(m, "p"), *f = out(m, "f");
    for (int b = 0; b < 2; b++)
        for (int c = 0; c < 6; c++)
            for (int t = 0; t < 4; t++) {
                assert_true(p->data[(b * 4 + t) * 6 + c] ==
                            x->data[(b * 6 + c) * 4 + t]);
                if (t >= 2)
                    assert_true(f->data[(b * 6 + c) * 2 + t - 2] ==
                                x->data[(b * 6 + c) * 4 + t]);
            }
    unload(m);
}

static double gelu_ref(double x)
{
    return 0.5 * x * (1 + erf(x / sqrt(2.0)));
}

static void test_elementwise(void **state)
{
    (void)state;
    Model *m = load(
        "model ew\n"
        "dim B = 4, C = 8\n"
        "dtype DT = f32\n"
        "input x : DT[B, C]\n"
        "input y : DT[B, C]\n"
        "input mk : bool[C]\n"
        "weight sl : DT[C]\n"
        "weight s1 : DT[1]\n"
        "x3 = x * 3.0\n"
        "ge = gelu(x3)\n"
        "gt = gelu(x3, approximate=\"tanh\")\n"
        "o_neg = neg(x)\n"
        "o_exp = exp(x3)\n"
        "o_log = log(abs(x))\n"
        "o_sqrt = sqrt(abs(x))\n"
        "o_rsqrt = rsqrt(abs(x))\n"
        "o_tanh = tanh(x3)\n"
        "o_sig = sigmoid(x3)\n"
        "o_relu = relu(x)\n"
        "o_silu = silu(x3)\n"
        "o_atan = atan(x3)\n"
        "o_ss = softsign(x3)\n"
        "o_lr = leaky_relu(x, negative_slope=0.2)\n"
        "o_erf = erf(x3)\n"
        "o_max = maximum(x, y)\n"
        "o_min = minimum(x, y)\n"
        "o_pow = pow(abs(x), y)\n"
        "o_div = x / y\n"
        "o_pr = prelu(x, sl)\n"
        "o_pr1 = prelu(x, s1)\n"
        "o_mf = masked_fill(x, mk, -2.5)\n"
        "o_sum = sum(x, axis=0)\n"
        "o_mean = mean(x, axis=-1, keepdim=true)\n"
        "o_mx = max(x, axis=1)\n"
        "xo = dropout(x)\n"
        "yo = dropout(y)\n"
        "mo = cast(mk, DT)\n"
        "so = dropout(sl)\n"
        "s1o = dropout(s1)\n"
        "output ge, gt, o_neg, o_exp, o_log, o_sqrt, o_rsqrt, o_tanh, o_sig, "
        "o_relu, o_silu, o_atan, o_ss, o_lr, o_erf, o_max, o_min, o_pow, "
        "o_div, o_pr, o_pr1, o_mf, o_sum, o_mean, o_mx, xo, yo, mo, so, s1o\n",
        NULL, 0);
    run(m, 13);
    const Tensor *x = out(m, "xo"), *y = out(m, "yo"), *mk = out(m, "mo");
    const Tensor *sl = out(m, "so"), *s1 = out(m, "s1o");
    double maxd = 0;
    for (int i = 0; i < 32; i++) {
        double v = x->data[i], w = y->data[i], v3 = v * 3;
        int c = i % 8;
        double d = fabs(out(m, "ge")->data[i] - out(m, "gt")->data[i]);
        maxd = d > maxd ? d : maxd;
        assert_true(fabs(out(m, "ge")->data[i] - gelu_ref(v3)) < 1e-15);
        assert_true(out(m, "o_neg")->data[i] == -v);
        assert_true(fabs(out(m, "o_exp")->data[i] - exp(v3)) < 1e-13);
        assert_true(fabs(out(m, "o_log")->data[i] - log(fabs(v))) < 1e-13);
        assert_true(fabs(out(m, "o_sqrt")->data[i] - sqrt(fabs(v))) < 1e-15);
        assert_true(fabs(out(m, "o_rsqrt")->data[i] * sqrt(fabs(v)) - 1) < 1e-14);
        assert_true(fabs(out(m, "o_tanh")->data[i] - tanh(v3)) < 1e-15);
        assert_true(fabs(out(m, "o_sig")->data[i] - 1 / (1 + exp(-v3))) < 1e-15);
        assert_true(out(m, "o_relu")->data[i] == (v > 0 ? v : 0));
        assert_true(fabs(out(m, "o_silu")->data[i] - v3 / (1 + exp(-v3))) < 1e-15);
        assert_true(fabs(out(m, "o_atan")->data[i] - atan(v3)) < 1e-15);
        assert_true(fabs(out(m, "o_ss")->data[i] - v3 / (1 + fabs(v3))) < 1e-15);
        assert_true(out(m, "o_lr")->data[i] == (v > 0 ? v : 0.2 * v));
        assert_true(fabs(out(m, "o_erf")->data[i] - erf(v3)) < 1e-15);
        assert_true(out(m, "o_max")->data[i] == (v > w ? v : w));
        assert_true(out(m, "o_min")->data[i] == (v < w ? v : w));
        assert_true(fabs(out(m, "o_pow")->data[i] - pow(fabs(v), w)) < 1e-13);
        assert_true(out(m, "o_div")->data[i] == v / w);
        assert_true(out(m, "o_pr")->data[i] == (v >= 0 ? v : sl->data[c] * v));
        assert_true(out(m, "o_pr1")->data[i] == (v >= 0 ? v : s1->data[0] * v));
        assert_true(out(m, "o_mf")->data[i] == (mk->data[c] != 0 ? -2.5 : v));
    }
    /* the tanh approximation stays within 1e-3 of the exact GELU */
    assert_true(maxd > 0 && maxd < 1e-3);
    const Tensor *su = out(m, "o_sum"), *me = out(m, "o_mean"), *mx = out(m, "o_mx");
    assert_int_equal(su->rank, 1);
    assert_int_equal(su->shape[0], 8);
    assert_int_equal(me->rank, 2);
    assert_int_equal(me->shape[1], 1);
    for (int c = 0; c < 8; c++) {
        double s = 0;
        for (int b = 0; b < 4; b++)
            s += x->data[b * 8 + c];
        assert_true(fabs(su->data[c] - s) < 1e-15);
    }
    for (int b = 0; b < 4; b++) {
        double s = 0, best = -INFINITY;
        for (int c = 0; c < 8; c++) {
            s += x->data[b * 8 + c];
            best = x->data[b * 8 + c] > best ? x->data[b * 8 + c] : best;
        }
        assert_true(fabs(me->data[b] - s / 8) < 1e-15);
        assert_true(mx->data[b] == best);
    }
    unload(m);
}

#ifdef __FLT16_MAX__
static double to_f16(double x) { return (double)(_Float16)x; }
#endif

static void test_cast_and_inputs(void **state)
{
    (void)state;
    const char *src = "model rnd\n"
                      "dim B = 64, C = 32, K = 3\n"
                      "dtype DT = f16\n"
                      "input x : DT[B, C]\n"
                      "input m : bool[B, C]\n"
                      "input i : i32[B, C]\n"
                      "input xf : f32[B, C]\n"
                      "weight w : DT[B, C, K]\n"
                      "weight bias : DT[C]\n"
                      "xo = dropout(x)\n"
                      "mo = cast(m, f32)\n"
                      "io = i + 0\n"
                      "wo = dropout(w)\n"
                      "bo = dropout(bias)\n"
                      "xfo = dropout(xf)\n"
                      "h = cast(xf * 70000.0, f16)\n"
                      "hb = cast(xf * 1000.0, bf16)\n"
                      "hi = cast(xf * 20.0, i32)\n"
                      "hz = cast(xf, bool)\n"
                      "output xo, mo, io, wo, bo, xfo, h, hb, hi, hz\n";
    Model *m = load(src, NULL, 0);
    run(m, 42);
    const Tensor *x = out(m, "xo"), *mk = out(m, "mo"), *ii = out(m, "io");
    const Tensor *w = out(m, "wo"), *b = out(m, "bo"), *xf = out(m, "xfo");
    /* f16 inputs: in [-1, 1) and exactly representable */
    for (int64_t k = 0; k < x->n; k++) {
        double v = x->data[k];
        assert_true(v >= -1 && v < 1);
        assert_true(v * 16777216.0 == floor(v * 16777216.0)); /* 2^-24 grid */
        int e;
        frexp(v, &e);
        if (v != 0 && e - 1 >= -14)
            assert_true(ldexp(v, 11 - e) == floor(ldexp(v, 11 - e)));
#ifdef __FLT16_MAX__
        assert_true(to_f16(v) == v);
#endif
    }
    /* bool: about 20% true, never the first element of a row */
    int ntrue = 0;
    for (int64_t k = 0; k < mk->n; k++) {
        ntrue += mk->data[k] != 0;
        if (k % 32 == 0)
            assert_true(mk->data[k] == 0);
    }
    assert_true(ntrue > 0.15 * 2048 && ntrue < 0.25 * 2048);
    /* i32: integers in [-8, 8], both ends reached */
    bool lo = false, hi = false;
    for (int64_t k = 0; k < ii->n; k++) {
        double v = ii->data[k];
        assert_true(v == floor(v) && v >= -8 && v <= 8);
        lo |= v == -8;
        hi |= v == 8;
    }
    assert_true(lo && hi);
    /* weights scaled by 1/sqrt(fan_in), fan_in = C*K; rank 1 unscaled */
    double wmax = 0, bmax = 0;
    for (int64_t k = 0; k < w->n; k++)
        wmax = fabs(w->data[k]) > wmax ? fabs(w->data[k]) : wmax;
    for (int64_t k = 0; k < b->n; k++)
        bmax = fabs(b->data[k]) > bmax ? fabs(b->data[k]) : bmax;
    assert_true(wmax <= 1 / sqrt(96.0) * (1 + 1e-3) && wmax > 0.5 / sqrt(96.0));
    assert_true(bmax <= 1 && bmax > 0.5);
    /* casts */
    const Tensor *h = out(m, "h"), *hb = out(m, "hb"), *hi_ = out(m, "hi");
    const Tensor *hz = out(m, "hz");
    int ninf = 0;
    for (int64_t k = 0; k < h->n; k++) {
        double v = xf->data[k] * 70000.0;
        if (fabs(v) >= 65520) {
            assert_true(isinf(h->data[k]) && signbit(h->data[k]) == signbit(v));
            ninf++;
        } else {
            assert_true(fabs(h->data[k]) <= 65504);
            double ulp = fabs(v) < 0x1p-14 ? 0x1p-24
                                           : ldexp(1, ilogb(v) - 10);
            assert_true(fabs(h->data[k] - v) <= ulp / 2);
        }
#ifdef __FLT16_MAX__
        assert_true(h->data[k] == to_f16(v));
#endif
        double vb = xf->data[k] * 1000.0, r = hb->data[k];
        float rf = (float)r;
        uint32_t bits;
        memcpy(&bits, &rf, sizeof bits);
        assert_true((double)rf == r && (bits & 0xffff) == 0);
        assert_true(fabs(r - vb) <= ldexp(1, ilogb(vb) - 8));
        assert_true(hi_->data[k] == trunc(xf->data[k] * 20.0));
        assert_true(hz->data[k] == (xf->data[k] != 0));
    }
    assert_true(ninf > 0);
    /* the same seed gives the same data, another seed other data, and a
     * value's data depends on its name only, not on the other inputs */
    Tensor again[MAXOUT], other[MAXOUT];
    run_into(m, NULL, 42, again);
    run_into(m, NULL, 43, other);
    expect_close(&again[0], x, 0, "same seed");
    double mad;
    assert_true(tensor_rel_err(&other[0], x, &mad) > 0.1);
    free_outs(again, m->g->noutputs);
    free_outs(other, m->g->noutputs);
    Model *m2 = load("model rnd2\n"
                     "dim B = 64, C = 32\n"
                     "input zz : f32[C]\n"
                     "input x : f16[B, C]\n"
                     "xo = dropout(x) + zz\n"
                     "zo = dropout(zz)\n"
                     "output xo, zo\n", NULL, 0);
    run(m2, 42);
    const Tensor *x2 = out(m2, "xo"), *zz = out(m2, "zo");
    for (int64_t k = 0; k < x2->n; k++)
        assert_true(x2->data[k] - zz->data[k % 32] == x->data[k] ||
                    fabs(x2->data[k] - zz->data[k % 32] - x->data[k]) < 1e-15);
    unload(m2);
    unload(m);
}

static const char *attention_src =
    "model att\n"
    "dim B = 2, H = 2, L = 5, S = 70, D = 4, E = 3\n"
    "dtype DT = f32\n"
    "input q : DT[B, H, L, D]\n"
    "input k : DT[B, H, S, D]\n"
    "input v : DT[B, H, S, E]\n"
    "input pad : bool[B, S]\n"
    "m4 = reshape(pad, [B, 1, 1, S])\n"
    "a1 = sdpa(q, k, v)\n"
    "a2 = matmul(softmax(matmul(q, transpose(k, 2, 3)) * 0.5, axis=-1), v)\n"
    "keep4 = reshape(cast(1.0 - cast(pad, DT), bool), [B, 1, 1, S])\n"
    "a3 = sdpa(q, k, v, mask=keep4, scale=0.25)\n"
    "s3 = masked_fill(matmul(q, transpose(k, 2, 3)) * 0.25, m4, -inf)\n"
    "a4 = matmul(softmax(s3, axis=-1), v)\n"
    "a5 = sdpa(q, k, v, causal=true)\n"
    "full = reshape(cast(cast(pad, DT) * 0.0 + 1.0, bool), [B, 1, 1, S])\n"
    "none = reshape(cast(cast(pad, DT) * 0.0, bool), [B, 1, 1, S])\n"
    "a6 = sdpa(q, k, v, mask=none)\n"
    "a7 = matmul(softmax(masked_fill(matmul(q, transpose(k, 2, 3)), full, -inf), axis=-1), v)\n"
    "fm = reshape(cast(pad, DT) * -3.0, [B, 1, 1, S])\n"
    "a8 = sdpa(q, k, v, mask=fm)\n"
    "a9 = matmul(softmax(matmul(q, transpose(k, 2, 3)) * 0.5 + fm, axis=-1), v)\n"
    "vo = dropout(v)\n"
    "output a1, a2, a3, a4, a5, a6, a7, a8, a9, vo\n";

static void test_sdpa(void **state)
{
    (void)state;
    Model *m = load(attention_src, NULL, 0);
    run(m, 17);
    CLOSE(m, "a1", "a2", 1e-14);   /* default scale 1/sqrt(D) = 0.5 */
    CLOSE(m, "a3", "a4", 1e-14);   /* bool mask: true = attend (PyTorch) */
    CLOSE(m, "a8", "a9", 1e-14);   /* float mask: added to the scores */
    /* the mask matters */
    double mad;
    assert_true(tensor_rel_err(out(m, "a3"), out(m, "a1"), &mad) > 1e-3);
    /* causal: query 0 sees key 0 only */
    const Tensor *a5 = out(m, "a5"), *v = out(m, "vo");
    for (int bh = 0; bh < 4; bh++)
        for (int e = 0; e < 3; e++)
            assert_true(a5->data[bh * 5 * 3 + e] == v->data[bh * 70 * 3 + e]);
    /* every key masked: NaN in both, as PyTorch */
    const Tensor *a6 = out(m, "a6");
    for (int64_t i = 0; i < a6->n; i++)
        assert_true(isnan(a6->data[i]));
    assert_true(tensor_rel_err(a6, out(m, "a7"), &mad) == 0);
    unload(m);
}

static void test_rel_err(void **state)
{
    (void)state;
    double da[4] = {1, 2, NAN, INFINITY}, db[4] = {1, 2.5, NAN, INFINITY};
    Tensor a = {DT_F32, 1, {4}, 4, da}, b = {DT_F32, 1, {4}, 4, db};
    double mad = -1;
    double r = tensor_rel_err(&a, &b, &mad);
    assert_true(fabs(r - 0.5 / sqrt(5.0)) < 1e-15);
    assert_true(mad == 0.5);
    db[3] = -INFINITY;          /* other infinity */
    assert_true(isinf(tensor_rel_err(&a, &b, &mad)));
    db[3] = INFINITY;
    db[2] = 0;                  /* NaN against a number */
    assert_true(isinf(tensor_rel_err(&a, &b, &mad)));
    db[2] = NAN;
    Tensor c = {DT_F32, 2, {2, 2}, 4, db};  /* same count, other shape */
    assert_true(isinf(tensor_rel_err(&a, &c, &mad)));
    double z[2] = {0, 0};
    Tensor za = {DT_F32, 1, {2}, 2, z};
    assert_true(tensor_rel_err(&za, &za, &mad) == 0 && mad == 0);
    assert_true(tensor_rel_err(&a, &a, NULL) == 0);
}

/* A graph the interpreter cannot evaluate is an error, not a crash, and
 * leaves outs empty. */
static void test_errors(void **state)
{
    (void)state;
    Model *m = load("model bad\n"
                    "dim B = 2, K = 3, N = 4\n"
                    "input x : f32[B, K]\n"
                    "weight w : f32[N, K]\n"
                    "y = exp(x)\n"
                    "z = linear(y, w)\n"
                    "output y, z\n", NULL, 0);
    Value *z = m->g->outputs[1];
    z->shape[1] = 7;
    Str err = {0};
    Tensor outs[2];
    assert_int_equal(interp_run(m->g, NULL, 1, outs, &err), -1);
    assert_non_null(err.buf);
    assert_non_null(strstr(err.buf, "linear"));
    assert_null(outs[0].data);
    assert_null(outs[1].data);
    str_free(&err);
    z->shape[1] = 4;
    m->g->inputs[0]->shape[0] = INT64_MAX / 2;  /* too large to allocate */
    assert_int_equal(interp_run(m->g, NULL, 1, outs, &err), -1);
    assert_non_null(strstr(err.buf, "too large"));
    str_free(&err);
    unload(m);
}

/* ---------------------------------------------------------------------------
 * Plans: elementwise kernels element by element, fused kernels by their own
 * algorithm, both against the op-by-op evaluation
 * ------------------------------------------------------------------------- */

static void compare_plan(Model *m, const Plan *p, double tol)
{
    Tensor ref[MAXOUT], got[MAXOUT];
    run_into(m, NULL, 23, ref);
    run_into(m, p, 23, got);
    for (int i = 0; i < m->g->noutputs; i++) {
        char what[128];
        snprintf(what, sizeof what, "%s: output %s, plan vs op by op",
                 m->g->name, m->g->outputs[i]->name);
        expect_close(&ref[i], &got[i], tol, what);
    }
    free_outs(ref, m->g->noutputs);
    free_outs(got, m->g->noutputs);
}

static int count_kernels(const Plan *p, KernelKind kind, const char *pattern,
                         int min_nodes)
{
    int n = 0;
    for (int i = 0; i < p->nk; i++) {
        const Kernel *k = p->k[i];
        if (k->kind != kind || k->nnodes < min_nodes)
            continue;
        if (pattern && strcmp(k->match->pat->g->name, pattern))
            continue;
        n++;
    }
    return n;
}

static void test_plan_elementwise(void **state)
{
    (void)state;
    Model *m = load(
        "model ewplan\n"
        "dim B = 2, C = 6, T = 5\n"
        "dtype DT = f32\n"
        "input x : DT[B, C, T]\n"
        "input y : DT[B, T, C]\n"
        "input s : DT[C]\n"
        "input pad : bool[B, T]\n"
        "a, b = split(x, [2, 4], axis=1)\n"
        "h = concat([neg(b), a * 2.0], axis=1)\n"
        "h = gelu(h, approximate=\"tanh\") + transpose(y, 1, 2) * unsqueeze(s, axis=1)\n"
        "h = reshape(transpose(h, 1, 2), [B, T*C])\n"
        "h = masked_fill(reshape(h, [B, T, C]), unsqueeze(pad, axis=2), 0.0)\n"
        "g = prelu(transpose(h, 1, 2), s, axis=1)\n"
        "u = sigmoid(g) * tanh(g) + cast(cast(g * 100.0, f16), DT) * 0.01\n"
        "r = softmax(u * u, axis=-1) + u\n"
        "out1 = r * 0.5\n"
        "out2 = exp(r) - leaky_relu(u, negative_slope=0.1)\n"
        "output out1, out2, g\n", NULL, 0);
    Arena *a = arena_new();
    PatternSet none = {NULL, 0};
    Plan *p = plan_build(m->g, &none, NULL, a);
    assert_non_null(p);
    assert_true(count_kernels(p, K_ELEMWISE, NULL, 3) > 0);
    compare_plan(m, p, 0);     /* the same arithmetic: bit for bit */
    arena_free(a);
    unload(m);
}

static const char *pattern_files[][2] = {
    {"gated_tanh_residual.pat",
     "pattern gated_tanh_residual\n"
     "template gemm\n"
     "dim B, C, T\n"
     "dtype DT\n"
     "input x : DT[B, C, T]\n"
     "input y : DT[B, 2*C, T]\n"
     "weight w : DT[2*C, C, 1]\n"
     "weight b : DT[2*C]\n"
     "param scale\n"
     "gate, filt = split(y, [C, C], axis=1)\n"
     "z = sigmoid(gate) * tanh(filt)\n"
     "o = conv1d(z, w, b, kernel=1)\n"
     "res, skip = split(o, [C, C], axis=1)\n"
     "out = (x + res) * scale\n"
     "output out, skip\n"},
    {"ln_gemm_gelu.pat",
     "pattern ln_gemm_gelu\n"
     "template gemm\n"
     "dim B, M, K, N\n"
     "dtype DT\n"
     "input x : DT[B, M, K]\n"
     "weight gamma : DT[K]\n"
     "weight beta : DT[K]\n"
     "weight w : DT[N, K]\n"
     "weight b : DT[N]\n"
     "param eps, approximate\n"
     "h = layernorm(x, gamma, beta, axis=-1, eps=eps)\n"
     "out = gelu(linear(h, w, b), approximate=approximate)\n"
     "output out\n"},
    {"gemm_glu.pat",
     "pattern gemm_glu\n"
     "template gemm\n"
     "dim B, M, K, N\n"
     "dtype DT\n"
     "op ACT = atan | silu | softsign | sigmoid\n"
     "input x : DT[B, M, K]\n"
     "weight w : DT[2*N, K]\n"
     "weight b : DT[2*N]\n"
     "h = linear(x, w, b)\n"
     "o, g = split(h, [N, N], axis=-1)\n"
     "out = o * ACT(g)\n"
     "output out\n"},
    {"sdpa.pat",
     "pattern sdpa\n"
     "template attention\n"
     "dim B, H, L, S, D, E\n"
     "dtype DT\n"
     "input q : DT[B, H, L, D]\n"
     "input k : DT[B, H, S, D]\n"
     "input v : DT[B, H, S, E]\n"
     "param scale\n"
     "s = matmul(q, transpose(k, 2, 3)) * scale\n"
     "out = matmul(softmax(s, axis=-1), v)\n"
     "output out\n"},
    {"sdpa_keypad.pat",
     "pattern sdpa\n"
     "template attention\n"
     "dim B, H, L, S, D, E\n"
     "dtype DT\n"
     "input q : DT[B, H, L, D]\n"
     "input k : DT[B, H, S, D]\n"
     "input v : DT[B, H, S, E]\n"
     "input mask : bool[B, S]\n"
     "param scale\n"
     "s = matmul(q, transpose(k, 2, 3)) * scale\n"
     "s = masked_fill(s, reshape(mask, [B, 1, 1, S]), -inf)\n"
     "out = matmul(softmax(s, axis=-1), v)\n"
     "output out\n"},
    /* a pattern interp.c has no reference for: evaluated op by op */
    {"swiglu_tail.pat",
     "pattern swiglu_tail\n"
     "template elementwise\n"
     "dim M, N\n"
     "dtype DT\n"
     "input a : DT[M, N]\n"
     "input b : DT[M, N]\n"
     "out = a * silu(b)\n"
     "output out\n"},
};

static int group_setup(void **state)
{
    (void)state;
    const char *tmp = getenv("TMPDIR");
    snprintf(pattern_dir, sizeof pattern_dir, "%s/kgen-interp-XXXXXX",
             tmp && *tmp && strlen(tmp) < 400 ? tmp : "/tmp");
    if (!mkdtemp(pattern_dir))
        return -1;
    for (size_t i = 0; i < sizeof pattern_files / sizeof *pattern_files; i++) {
        char path[640];
        snprintf(path, sizeof path, "%s/%s", pattern_dir, pattern_files[i][0]);
        FILE *fp = fopen(path, "w");
        if (!fp)
            return -1;
        fputs(pattern_files[i][1], fp);
        fclose(fp);
    }
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof pattern_files / sizeof *pattern_files; i++) {
        char path[640];
        snprintf(path, sizeof path, "%s/%s", pattern_dir, pattern_files[i][0]);
        unlink(path);
    }
    rmdir(pattern_dir);
    return 0;
}

/* Plan src with the patterns of dir; every fused kernel named in want must
 * be there; the plan must agree with the op-by-op evaluation to tol. */
static void check_fused(const char *src, Override *ov, int nov, const char *dir,
                        const char *const *want, int nwant, double tol)
{
    Model *m = load(src, ov, nov);
    Arena *a = arena_new();
    Diag d;
    diag_init(&d, stderr);
    PatternSet *ps = patterns_load(dir, &d, a);
    assert_non_null(ps);
    Plan *p = plan_build(m->g, ps, NULL, a);
    assert_non_null(p);
    for (int i = 0; i < nwant; i++)
        if (count_kernels(p, K_FUSED, want[i], 1) < 1) {
            plan_print(stderr, p, a);
            fail_msg("%s: no fused %s kernel", m->g->name, want[i]);
        }
    compare_plan(m, p, tol);
    diag_free(&d);
    arena_free(a);
    unload(m);
}

static void test_fused_gated_tanh(void **state)
{
    (void)state;
    static const char *const want[] = {"gated_tanh_residual"};
    check_fused("model wn\n"
                "dim B = 2, C = 6, T = 7\n"
                "dtype DT = f16\n"
                "input  y  : DT[B, 2*C, T]\n"
                "input  x  : DT[B, C, T]\n"
                "weight wo : DT[2*C, C, 1]\n"
                "weight bo : DT[2*C]\n"
                "gate, filt = split(y, [C, C], axis=1)\n"
                "z          = tanh(filt) * sigmoid(gate)\n"
                "o          = conv1d(z, wo, bo, kernel=1)\n"
                "res, skip  = split(o, [C, C], axis=1)\n"
                "out        = (res + x) * 0.7071067811865476\n"
                "output out, skip\n", NULL, 0, pattern_dir, want, 1, 1e-14);
}

static void test_fused_ln_gemm_gelu(void **state)
{
    (void)state;
    static const char *const want[] = {"ln_gemm_gelu"};
    static const char *approx[] = {"none", "tanh"};
    for (int i = 0; i < 2; i++) {
        char src[1024];
        snprintf(src, sizeof src,
                 "model cn\n"
                 "dim B = 2, T = 5, C = 16, F = 24\n"
                 "dtype DT = f32\n"
                 "input  x  : DT[B, T, C]\n"
                 "weight g  : DT[C]\n"
                 "weight b  : DT[C]\n"
                 "weight w1 : DT[F, C]\n"
                 "weight b1 : DT[F]\n"
                 "h = layernorm(x, g, b, axis=-1, eps=1e-6)\n"
                 "h = gelu(linear(h, w1, b1), approximate=\"%s\")\n"
                 "out = h * 2.0\n"
                 "output out\n", approx[i]);
        check_fused(src, NULL, 0, pattern_dir, want, 1, 1e-12);
    }
}

static void test_fused_gemm_glu(void **state)
{
    (void)state;
    static const char *const want[] = {"gemm_glu"};
    static const char *act[] = {"atan", "silu", "softsign", "sigmoid"};
    for (int i = 0; i < 4; i++) {
        char src[1024];
        snprintf(src, sizeof src,
                 "model glu\n"
                 "dim B = 2, T = 5, C = 8\n"
                 "dtype DT = bf16\n"
                 "input  x  : DT[B, T, C]\n"
                 "weight w1 : DT[2*C, C]\n"
                 "weight b1 : DT[2*C]\n"
                 "h = linear(x, w1, b1)\n"
                 "o1, g1 = split(h, [C, C], axis=-1)\n"
                 "out = o1 * %s(g1)\n"
                 "output out\n", act[i]);
        check_fused(src, NULL, 0, pattern_dir, want, 1, 1e-14);
    }
}

static void test_fused_sdpa(void **state)
{
    (void)state;
    static const char *const want[] = {"sdpa"};
    /* S = 150: three blocks of the online softmax, the last one partial */
    check_fused("model at\n"
                "dim B = 2, H = 2, L = 6, S = 150, D = 8, E = 4\n"
                "dtype DT = f32\n"
                "input q : DT[B, H, L, D]\n"
                "input k : DT[B, H, S, D]\n"
                "input v : DT[B, H, S, E]\n"
                "input pad : bool[B, S]\n"
                "s = matmul(q, transpose(k, 2, 3)) * 0.35\n"
                "s = masked_fill(s, reshape(pad, [B, 1, 1, S]), -inf)\n"
                "out = matmul(softmax(s, axis=-1), v)\n"
                "output out\n", NULL, 0, pattern_dir, want, 1, 1e-13);
    check_fused("model at2\n"
                "dim B = 1, H = 3, L = 4, S = 64, D = 8, E = 8\n"
                "dtype DT = f16\n"
                "input q : DT[B, H, L, D]\n"
                "input k : DT[B, H, S, D]\n"
                "input v : DT[B, H, S, E]\n"
                "a = matmul(softmax(matmul(q, transpose(k, 2, 3)) * 0.125, axis=-1), v)\n"
                "out = a + q\n"
                "output out\n", NULL, 0, pattern_dir, want, 1, 1e-13);
    /* the first block of keys all masked (skipped by the online softmax),
     * and in `allmasked` every key masked: NaN, as the op-by-op softmax gives */
    check_fused("model at3\n"
                "dim B = 2, H = 1, L = 3, S = 150, D = 4, E = 5\n"
                "dtype DT = f32\n"
                "input q : DT[B, H, L, D]\n"
                "input k : DT[B, H, S, D]\n"
                "input v : DT[B, H, S, E]\n"
                "input p1 : bool[B, 64]\n"
                "input p2 : bool[B, 86]\n"
                "all = cast(cast(p1, DT) * 0.0 + 1.0, bool)\n"
                "mask = concat([all, p2], axis=1)\n"
                "s = matmul(q, transpose(k, 2, 3)) * 0.5\n"
                "s = masked_fill(s, reshape(mask, [B, 1, 1, S]), -inf)\n"
                "out = matmul(softmax(s, axis=-1), v)\n"
                "all2 = concat([all, cast(cast(p2, DT) * 0.0 + 1.0, bool)], axis=1)\n"
                "s2 = matmul(q, transpose(k, 2, 3)) * 0.5\n"
                "s2 = masked_fill(s2, reshape(all2, [B, 1, 1, S]), -inf)\n"
                "allmasked = matmul(softmax(s2, axis=-1), v)\n"
                "output out, allmasked\n", NULL, 0, pattern_dir, want, 1, 1e-13);
}

static void test_fused_unknown_pattern(void **state)
{
    (void)state;
    static const char *const want[] = {"swiglu_tail"};
    check_fused("model sw\n"
                "dim M = 3, N = 4\n"
                "dtype DT = f32\n"
                "input x : DT[M, N]\n"
                "input y : DT[M, N]\n"
                "out = x * silu(y) + 1.0\n"
                "output out\n", NULL, 0, pattern_dir, want, 1, 0);
}

/* Plans made by hand, for the paths of interp.c the planner never takes.
 * Kernel i covers nodes lo[i] .. hi[i]-1; its outputs are the values read
 * outside it. */
static Plan *hand_plan(Graph *g, Arena *a, int nk, const int *lo,
                       const int *hi, KernelKind kind)
{
    Plan *p = arena_alloc(a, sizeof *p);
    p->g = g;
    p->nk = nk;
    p->k = arena_alloc(a, (size_t)nk * sizeof *p->k);
    for (int i = 0; i < nk; i++) {
        Kernel *k = p->k[i] = arena_alloc(a, sizeof *k);
        k->id = i;
        k->kind = kind;
        k->name = arena_printf(a, "hand%d", i);
        for (int j = lo[i]; j < hi[i]; j++) {
            Node *n = g->nodes[j];
            ARENA_PUSH(a, k->nodes, k->nnodes, k->cap_nodes, n);
            for (int r = 0; r < n->nout; r++) {
                Value *v = n->out[r];
                bool escapes = v->is_output;
                for (int u = 0; u < v->nuses; u++)
                    escapes |= v->uses[u]->id < lo[i] || v->uses[u]->id >= hi[i];
                if (escapes)
                    ARENA_PUSH(a, k->out, k->nout, k->cap_out, v);
            }
        }
    }
    return p;
}

static void test_plan_handmade(void **state)
{
    (void)state;
    /* Every node in one elementwise kernel: the split and transposes of the
     * inputs mapped per element, and softmax, matmul and sum (which no
     * generated elementwise kernel computes) evaluated op by op on operands
     * materialised from the element-wise DAG. */
    Model *m = load(
        "model hand\n"
        "dim B = 2, C = 6, T = 5\n"
        "dtype DT = f32\n"
        "input x : DT[B, C, T]\n"
        "input w : DT[T, C]\n"
        "a, b = split(x, [2, 4], axis=1)\n"
        "h = concat([exp(b), a], axis=1)\n"
        "t = transpose(h, 1, 2) * 0.5\n"
        "s = softmax(t, axis=1)\n"
        "r = reshape(unsqueeze(s, axis=0), [B, T, C]) + transpose(x, 1, 2)\n"
        "mm = matmul(r, reshape(w, [C, T]))\n"
        "out = sum(mm, axis=1) * 2.0 + 1.0\n"
        "output out, h\n", NULL, 0);
    Arena *a = arena_new();
    int lo[2] = {0, 0}, hi[2] = {m->g->nnodes, 0};
    Plan *p = hand_plan(m->g, a, 1, lo, hi, K_ELEMWISE);
    assert_int_equal(p->k[0]->nout, 2);
    compare_plan(m, p, 0);
    /* a plan that reads a value before the kernel computing it ran */
    Str err = {0};
    Tensor outs[2];
    int lo2[2] = {1, 0}, hi2[2] = {m->g->nnodes, 1};
    p = hand_plan(m->g, a, 2, lo2, hi2, K_GENERIC);
    assert_int_equal(interp_run(m->g, p, 1, outs, &err), -1);
    assert_non_null(strstr(err.buf, "before it is computed"));
    assert_null(outs[0].data);
    str_free(&err);
    /* a plan that covers a node twice */
    int lo3[2] = {0, 0}, hi3[2] = {m->g->nnodes, 1};
    p = hand_plan(m->g, a, 2, lo3, hi3, K_GENERIC);
    assert_int_equal(interp_run(m->g, p, 1, outs, &err), -1);
    assert_non_null(strstr(err.buf, "twice"));
    str_free(&err);
    /* a fused kernel without a match */
    p = hand_plan(m->g, a, 1, lo, hi, K_FUSED);
    assert_int_equal(interp_run(m->g, p, 1, outs, &err), -1);
    assert_non_null(strstr(err.buf, "no match"));
    str_free(&err);
    arena_free(a);
    unload(m);
}

/* The reference models of ../shared/examples at small sizes: planned with
 * the test's patterns (each must get its fused kernel), then with those of
 * the source tree when it has them. */
static void test_examples(void **state)
{
    (void)state;
    const char *root = getenv("KGEN_SOURCE_DIR");
#ifdef KGEN_SOURCE_DIR
    if (!root)
        root = KGEN_SOURCE_DIR;
#endif
    if (!root)
        skip();
#define OV(N, V) {N, V, false, false}
    static struct {
        const char *file, *fused;
        Override ov[8];
        int nov;
    } ex[] = {
        {"wavenet_layer.pat", "gated_tanh_residual",
         {OV("B", "2"), OV("C", "8"), OV("H", "6"), OV("T", "16")}, 4},
        {"lynxnet2_block.pat", "gemm_glu",
         {OV("B", "2"), OV("T", "40"), OV("C", "16")}, 3},
        {"convnext_block.pat", "ln_gemm_gelu",
         {OV("B", "2"), OV("C", "8"), OV("F", "32"), OV("T", "16")}, 4},
        {"encoder_layer.pat", "sdpa",
         {OV("B", "2"), OV("L", "70"), OV("C", "16"), OV("HD", "8"),
          OV("F", "32")}, 5},
    };
#undef OV
    char repo_patterns[1024];
    snprintf(repo_patterns, sizeof repo_patterns, "%s/patterns", root);
    bool have_repo = access(repo_patterns, R_OK) == 0;
    int done = 0;
    for (size_t i = 0; i < sizeof ex / sizeof *ex; i++) {
        char path[1024];
        size_t size;
        snprintf(path, sizeof path, "%s/examples/%s", root, ex[i].file);
        char *text = read_file(path, KG_MAX_INPUT, &size);
        if (!text) {
            snprintf(path, sizeof path, "%s/../shared/examples/%s", root,
                     ex[i].file);
            text = read_file(path, KG_MAX_INPUT, &size);
        }
        if (!text)
            continue;
        check_fused(text, ex[i].ov, ex[i].nov, pattern_dir, &ex[i].fused, 1,
                    1e-12);
        if (have_repo)
            check_fused(text, ex[i].ov, ex[i].nov, repo_patterns, NULL, 0,
                        1e-12);
        free(text);
        done++;
    }
    if (!done)
        skip();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_identities),
        cmocka_unit_test(test_norms),
        cmocka_unit_test(test_gemm),
        cmocka_unit_test(test_conv1d),
        cmocka_unit_test(test_layout),
        cmocka_unit_test(test_elementwise),
        cmocka_unit_test(test_cast_and_inputs),
        cmocka_unit_test(test_sdpa),
        cmocka_unit_test(test_rel_err),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_plan_elementwise),
        cmocka_unit_test(test_fused_gated_tanh),
        cmocka_unit_test(test_fused_ln_gemm_gelu),
        cmocka_unit_test(test_fused_gemm_glu),
        cmocka_unit_test(test_fused_sdpa),
        cmocka_unit_test(test_fused_unknown_pattern),
        cmocka_unit_test(test_plan_handmade),
        cmocka_unit_test(test_examples),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}

/*
 * verify.c -- run a candidate kernel on seeded inputs and compare it with
 * the double-precision reference (used by `kgen check` and the tuner's
 * device worker).
 *
 * The inputs of a kernel are random data for each base tensor it reads
 * (views gather from their base), uploaded once.  The reference is the
 * kernel's nodes evaluated op by op in double; for a large kernel only a
 * sample of rows (interp_kernel_sampled), compared where it was computed.
 * Outputs are filled with a canary before each run, so an element a kernel
 * forgets to write fails (RELIABILITY E1).
 *
 * Tolerances (docs/templates.md): relative L2 error and max-abs error over
 * the finite positions, by the output's dtype; NaN and Inf positions must
 * agree exactly.
 */
#include "kgen.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "verify.h"

/* f32 arithmetic against double: a few ulp of accumulated rounding over
 * long reductions.  f16/bf16 outputs: the final rounding alone is half an
 * ulp (2^-11 and 2^-8 relative), plus f32 arithmetic. */
Tol verify_tolerance(DType dt)
{
    switch (dt) {
    case DT_F32: return (Tol){2e-5, 1e-4};
    case DT_F16: return (Tol){2e-3, 4e-3};
    case DT_BF16: return (Tol){1.6e-2, 3.2e-2};
    default: return (Tol){0, 0};
    }
}

/* ---- host conversions ------------------------------------------------- */

static uint16_t round_bits(double x, int mant, int ebias, int emax_bits)
{
    /* IEEE binary with `mant` stored bits and exponent bias `ebias`,
     * round to nearest even; sign, inf and NaN handled */
    uint16_t sign = signbit(x) ? (uint16_t)(1u << (mant + emax_bits)) : 0;
    uint16_t expall = (uint16_t)((1u << emax_bits) - 1);
    if (isnan(x))
        return (uint16_t)(sign | (expall << mant) | (1u << (mant - 1)));
    x = fabs(x);
    if (isinf(x))
        return (uint16_t)(sign | (expall << mant));
    if (x == 0)
        return sign;
    int e;
    double f = frexp(x, &e);               /* x = f * 2^e, f in [0.5, 1) */
    int exp = e - 1 + ebias;               /* biased exponent of 1.f form */
    double scaled;
    if (exp <= 0)                          /* subnormal */
        scaled = ldexp(x, ebias - 1 + mant);
    else
        scaled = ldexp(f * 2 - 1, mant);
    double r = nearbyint(scaled);          /* ties to even (default mode) */
    uint32_t m = (uint32_t)r;
    if (exp <= 0) {
        if (m >> mant)                     /* rounded up into the normals */
            return (uint16_t)(sign | (1u << mant));
        return (uint16_t)(sign | m);
    }
    if (m >> mant) {                       /* mantissa overflow */
        m = 0;
        exp++;
    }
    if (exp >= (int)expall)
        return (uint16_t)(sign | (expall << mant));
    return (uint16_t)(sign | ((uint32_t)exp << mant) | m);
}

static double bits_value(uint16_t h, int mant, int ebias, int ebits)
{
    int sign = (h >> (mant + ebits)) & 1;
    int exp = (h >> mant) & ((1 << ebits) - 1);
    int m = h & ((1 << mant) - 1);
    double v;
    if (exp == (1 << ebits) - 1)
        v = m ? NAN : INFINITY;
    else if (exp == 0)
        v = ldexp(m, 1 - ebias - mant);
    else
        v = ldexp(m + (1 << mant), exp - ebias - mant);
    return sign ? -v : v;
}

void to_storage(DType dt, const double *x, int64_t n, void *dst)
{
    for (int64_t i = 0; i < n; i++)
        switch (dt) {
        case DT_F32: ((float *)dst)[i] = (float)x[i]; break;
        case DT_F16: ((uint16_t *)dst)[i] = round_bits(x[i], 10, 15, 5); break;
        case DT_BF16: ((uint16_t *)dst)[i] = round_bits(x[i], 7, 127, 8); break;
        case DT_I32: ((int32_t *)dst)[i] = (int32_t)x[i]; break;
        case DT_BOOL: ((uint8_t *)dst)[i] = x[i] != 0; break;
        default: die("no storage for dtype %d", dt);
        }
}

void from_storage(DType dt, const void *src, int64_t n, double *x)
{
    for (int64_t i = 0; i < n; i++)
        switch (dt) {
        case DT_F32: x[i] = ((const float *)src)[i]; break;
        case DT_F16: x[i] = bits_value(((const uint16_t *)src)[i], 10, 15, 5); break;
        case DT_BF16: x[i] = bits_value(((const uint16_t *)src)[i], 7, 127, 8); break;
        case DT_I32: x[i] = ((const int32_t *)src)[i]; break;
        case DT_BOOL: x[i] = ((const uint8_t *)src)[i]; break;
        default: die("no storage for dtype %d", dt);
        }
}

/* NVRTC writes "file(12): error"; make it "file:12: error" like every
 * other compiler, so template locations read the same on both backends. */
void normalise_log(const char *log, Str *out)
{
    for (const char *p = log; *p;) {
        const char *q = p;
        if (*q == '(') {
            q++;
            while (*q >= '0' && *q <= '9')
                q++;
            if (q > p + 1 && q[0] == ')' && q[1] == ':') {
                str_printf(out, ":%.*s:", (int)(q - p - 1), p + 1);
                p = q + 2;
                continue;
            }
        }
        str_putc(out, *p++);
    }
}


void verify_free(KernelData *kd, const Kernel *k)
{
    for (int i = 0; kd->ref && i < k->nout; i++)
        tensor_free(&kd->ref[i]);
    for (int i = 0; i < kd->nowned; i++)
        kgrt_buffer_free(kd->owned[i]);
    free(kd->ref);
    free(kd->inbuf);
    free(kd->outbuf);
    free(kd->outbytes);
    free(kd->owned);
}

/* The elements of view v read from its base's data. */
static void gather(const Plan *p, const Value *v, const Tensor *base, Tensor *t)
{
    memset(t, 0, sizeof *t);
    t->dt = v->dt;
    t->rank = v->rank;
    memcpy(t->shape, v->shape, sizeof t->shape);
    t->n = numel(v);
    t->data = malloc((size_t)(t->n ? t->n : 1) * sizeof *t->data);
    if (!t->data)
        die("out of memory");
    int64_t idx[KG_MAX_RANK] = {0};
    for (int64_t i = 0; i < t->n; i++) {
        int64_t off = p->offset[v->id];
        for (int d = 0; d < v->rank; d++)
            off += idx[d] * p->strides[v->id][d];
        t->data[i] = base->data[off];
        for (int d = v->rank - 1; d >= 0; d--) {
            if (++idx[d] < v->shape[d])
                break;
            idx[d] = 0;
        }
    }
}

/* Random inputs, the reference, and device buffers for kernel k. */
int verify_prepare(const Plan *p, const Kernel *k, kgrt_device *dev,
                   uint64_t seed, int64_t stride, KernelData *kd, Str *err)
{
    const Graph *g = p->g;
    kd->ref = calloc((size_t)k->nout + 1, sizeof *kd->ref);
    kd->inbuf = calloc((size_t)k->nin + 1, sizeof *kd->inbuf);
    kd->outbuf = calloc((size_t)k->nout + 1, sizeof *kd->outbuf);
    kd->outbytes = calloc((size_t)k->nout + 1, sizeof *kd->outbytes);
    kd->owned = calloc((size_t)(k->nin + k->nout) + 1, sizeof *kd->owned);
    Tensor *in = calloc((size_t)k->nin + 1, sizeof *in);
    Tensor *bases = calloc((size_t)k->nin + 1, sizeof *bases);
    const Value **basev = calloc((size_t)k->nin + 1, sizeof *basev);
    if (!kd->ref || !kd->inbuf || !kd->outbuf || !kd->outbytes || !kd->owned ||
        !in || !bases || !basev)
        die("out of memory");
    int rc = -1, nb = 0;
    for (int i = 0; i < k->nin; i++) {
        const Value *v = k->in[i];
        const Value *b = p->base[v->id] ? p->base[v->id] : v;
        int j = 0;
        while (j < nb && basev[j] != b)
            j++;
        if (j == nb) {
            if (interp_random(g, b, seed, &bases[nb], err))
                goto done;
            basev[nb++] = b;
            size_t bytes = (size_t)bases[j].n * (size_t)dtype_size(b->dt);
            void *host = malloc(bytes ? bytes : 1);
            if (!host)
                die("out of memory");
            to_storage(b->dt, bases[j].data, bases[j].n, host);
            kgrt_buffer *buf = NULL;
            int st = kgrt_buffer_alloc(dev, bytes ? bytes : 1, &buf);
            if (st == KGRT_OK)
                st = kgrt_buffer_write(buf, 0, host, bytes);
            free(host);
            if (buf)
                kd->owned[kd->nowned++] = buf;
            if (st != KGRT_OK) {
                str_printf(err, "device memory: %s", kgrt_last_error());
                goto done;
            }
        }
        kd->inbuf[i] = kd->owned[j];
        if (b == v) {
            in[i] = bases[j];
            in[i].data = malloc((size_t)(bases[j].n ? bases[j].n : 1) * sizeof(double));
            if (!in[i].data)
                die("out of memory");
            memcpy(in[i].data, bases[j].data, (size_t)bases[j].n * sizeof(double));
        } else {
            gather(p, v, &bases[j], &in[i]);
        }
    }
    if (interp_kernel_sampled(p, k, in, kd->ref, stride, err))
        goto done;
    kd->sampled = stride > 1;
    for (int i = 0; kd->sampled && i < k->nout; i++) {
        int64_t known = 0;
        for (int64_t j = 0; j < kd->ref[i].n; j++)
            known += !isnan(kd->ref[i].data[j]);
        if (known < (kd->ref[i].n < 64 ? kd->ref[i].n : 64)) {
            /* the kernel's ops spread the unsampled rows everywhere */
            for (int o = 0; o < k->nout; o++)
                tensor_free(&kd->ref[o]);
            if (interp_kernel(p, k, in, kd->ref, err))
                goto done;
            kd->sampled = false;
        }
    }
    for (int i = 0; i < k->nout; i++) {
        size_t bytes = (size_t)numel(k->out[i]) * (size_t)dtype_size(k->out[i]->dt);
        bytes = (bytes + 127) & ~(size_t)127;      /* whole fill patterns */
        kd->outbytes[i] = bytes;
        if (kgrt_buffer_alloc(dev, bytes, &kd->outbuf[i]) != KGRT_OK) {
            str_printf(err, "device memory: %s", kgrt_last_error());
            goto done;
        }
        kd->owned[kd->nowned++] = kd->outbuf[i];
    }
    rc = 0;
done:
    for (int i = 0; i < k->nin; i++)
        tensor_free(&in[i]);
    for (int i = 0; i < nb; i++)
        tensor_free(&bases[i]);
    free(in);
    free(bases);
    free(basev);
    return rc;
}

kgrt_arg *verify_args(const Kernel *k, KernelData *kd, const Launch *L,
                      int *nargs)
{
    int nt = k->nin + k->nout;
    kgrt_arg *args = calloc((size_t)(nt + L->ntmaps) + 1, sizeof *args);
    if (!args)
        die("out of memory");
    for (int i = 0; i < k->nin; i++)
        args[i] = kgrt_arg_buffer(kd->inbuf[i]);
    for (int i = 0; i < k->nout; i++)
        args[k->nin + i] = kgrt_arg_buffer(kd->outbuf[i]);
    /* a map over an argument that does not exist stays an empty map, which
       the launch refuses */
    for (int i = 0; i < L->ntmaps; i++)
        args[nt + i] = L->tmaps[i].arg < nt
                           ? kgrt_arg_tmap(args[L->tmaps[i].arg], &L->tmaps[i].map)
                           : kgrt_arg_tmap(kgrt_arg_i32(0), &L->tmaps[i].map);
    *nargs = nt + L->ntmaps;
    return args;
}

/* Append to why where a mismatch lies: the worst element's index in
 * shape's coordinates (at[j]: compared value j's element, NULL when every
 * element was compared) with both values, and how many differ by more
 * than lim -- a failing kernel's pattern (one tile, one K step, every
 * row) tells much of where its fault is. */
static void mismatch_where(Str *why, const Tensor *shape, const Tensor *ref,
                           const Tensor *got, const int64_t *at, double lim)
{
    int64_t worst = -1, nbad = 0;
    double wd = -1;
    for (int64_t j = 0; j < ref->n; j++) {
        double d = fabs(ref->data[j] - got->data[j]);
        if (!(d <= lim))
            nbad++;
        if (d > wd) {
            wd = d;
            worst = j;
        }
    }
    if (worst < 0)
        return;
    int64_t e = at ? at[worst] : worst, c[KG_MAX_RANK];
    for (int d = shape->rank - 1; d >= 0; d--) {
        c[d] = shape->shape[d] ? e % shape->shape[d] : 0;
        e = shape->shape[d] ? e / shape->shape[d] : 0;
    }
    str_printf(why, "; worst at [");
    for (int d = 0; d < shape->rank; d++)
        str_printf(why, "%s%lld", d ? ", " : "", (long long)c[d]);
    str_printf(why, "] (ref %.6g, got %.6g); %lld of %lld compared off by more "
               "than %.3g", ref->data[worst], got->data[worst], (long long)nbad,
               (long long)ref->n, lim);
}

/* Fill every output with a canary, launch, read back and compare.
 * 0 all outputs within tolerance; 1 a mismatch (message in why); -1 a
 * launch error. */
int verify_run(const Kernel *k, KernelData *kd, kgrt_device *dev,
               kgrt_kernel *kern, const Launch *L, const void *canary,
               size_t csize, double *worst_rel, double *worst_abs, Str *why)
{
    int na;
    kgrt_arg *args = verify_args(k, kd, L, &na);
    for (int i = 0; i < k->nout; i++)
        if (kgrt_buffer_fill(kd->outbuf[i], canary, csize) != KGRT_OK) {
            str_printf(why, "fill: %s", kgrt_last_error());
            free(args);
            return -1;
        }
    int st = kgrt_launch(kern, L->grid, L->block, L->smem, args, na);
    if (st == KGRT_OK)
        st = kgrt_synchronize(dev);
    free(args);
    kd->status = st;
    if (st != KGRT_OK) {
        str_printf(why, "%s: %s", kgrt_status_string(st), kgrt_last_error());
        return -1;
    }
    int rc = 0;
    for (int i = 0; i < k->nout; i++) {
        const Value *v = k->out[i];
        Tensor got = kd->ref[i];
        got.data = malloc((size_t)(got.n ? got.n : 1) * sizeof(double));
        void *host = malloc(kd->outbytes[i]);
        if (!got.data || !host)
            die("out of memory");
        if (kgrt_buffer_read(kd->outbuf[i], 0, host, kd->outbytes[i]) != KGRT_OK) {
            str_printf(why, "read: %s", kgrt_last_error());
            free(host);
            free(got.data);
            return -1;
        }
        from_storage(v->dt, host, got.n, got.data);
        free(host);
        Tensor ref = kd->ref[i];
        int64_t *at = NULL;    /* sampled: the element each compared one is */
        if (kd->sampled) {
            /* compare where the sampled reference was computed */
            ref.data = malloc((size_t)(ref.n ? ref.n : 1) * sizeof(double));
            at = malloc((size_t)(ref.n ? ref.n : 1) * sizeof *at);
            if (!ref.data || !at)
                die("out of memory");
            int64_t m = 0;
            for (int64_t j = 0; j < got.n; j++)
                if (!isnan(kd->ref[i].data[j])) {
                    ref.data[m] = kd->ref[i].data[j];
                    at[m] = j;
                    got.data[m++] = got.data[j];
                }
            ref.n = got.n = m;
            ref.rank = got.rank = 1;
            ref.shape[0] = got.shape[0] = m;
        }
        double mad, big = 0;
        double rel = tensor_rel_err(&ref, &got, &mad);
        for (int64_t j = 0; j < got.n; j++)
            if (isfinite(ref.data[j]) && fabs(ref.data[j]) > big)
                big = fabs(ref.data[j]);
        Tol tol = verify_tolerance(v->dt);
        double absn = mad / (1 + big);
        if (rel > *worst_rel)
            *worst_rel = rel;
        if (absn > *worst_abs)
            *worst_abs = absn;
        if (!(rel <= tol.rel) || !(absn <= tol.abs)) {
            if (isinf(rel)) {
                int64_t bad = -1;
                for (int64_t j = 0; j < got.n && bad < 0; j++) {
                    double a = ref.data[j], b = got.data[j];
                    if ((isnan(a) != isnan(b)) || (!isnan(a) && a != b &&
                                                   (!isfinite(a) || !isfinite(b))))
                        bad = j;
                }
                str_printf(why, "output %d: non-finite mismatch at element "
                           "%lld (ref %g, got %g)", i, (long long)bad,
                           bad >= 0 ? ref.data[bad] : 0.0,
                           bad >= 0 ? got.data[bad] : 0.0);
            } else {
                str_printf(why, "output %d: rel-L2 %.3g (tolerance %.3g), "
                           "max-abs %.3g of %.3g (tolerance %.3g)", i, rel,
                           tol.rel, mad, big, tol.abs);
                mismatch_where(why, &kd->ref[i], &ref, &got, at, tol.abs * (1 + big));
            }
            rc = 1;
        }
        free(got.data);
        free(at);
        if (kd->sampled)
            free(ref.data);
        if (rc)
            break;
    }
    return rc;
}

/* The tuning knobs of cfg as NVRTC defines ("BM=64") and as OpenCL
 * build options appended to opts (" -D BM=64"). */
void cfg_defines(const Template *t, const int *cfg, Str *opts,
                        const char ***defs, int *ndefs, Arena *a)
{
    int nd = template_ndesign(t), nk = template_nknobs(t);
    *defs = arena_alloc(a, (size_t)(nk + 1) * sizeof **defs);
    *ndefs = 0;
    for (int i = nd; i < nk; i++) {
        const Knob *kb = template_knob(t, i);
        (*defs)[(*ndefs)++] = arena_printf(a, "%s=%s", kb->name, kb->str[cfg[i]]);
        str_printf(opts, " -D %s=%s", kb->name, kb->str[cfg[i]]);
    }
}

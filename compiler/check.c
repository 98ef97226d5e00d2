/*
 * check.c -- `kgen check`: compile template candidates and check what they
 * compute against the double-precision reference.
 *
 * For every kernel of a plan: enumerate the configs that pass the
 * template's constraints, take a sample of each design point (always its
 * first and last config, which hold the smallest and the largest tiles, and
 * some seeded picks between), compile each, run it on seeded random inputs
 * and compare its outputs with the kernel's reference: its nodes evaluated
 * op by op in double on the same inputs.  Outputs are filled with a NaN
 * canary before one run and a 0x5A byte pattern before a second, so an
 * element a kernel forgets to write fails either way (RELIABILITY E1).
 * With --compile-only nothing runs: CUDA candidates compile with NVRTC for
 * --arch without a GPU.
 *
 * Tolerances (docs/templates.md): relative L2 error and max-abs error over
 * the finite positions, by the output's dtype; NaN and Inf positions must
 * agree exactly.
 */
#include "kgen.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <kgen/kgrt.h>

#include "compile.h"

typedef struct Tol {
    double rel;                /* ||got - ref|| / ||ref|| */
    double abs;                /* max |got - ref| / (1 + max |ref|) */
} Tol;

/* f32 arithmetic against double: a few ulp of accumulated rounding over
 * long reductions.  f16/bf16 outputs: the final rounding alone is half an
 * ulp (2^-11 and 2^-8 relative), plus f32 arithmetic. */
static Tol tolerance(DType dt)
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

static void to_storage(DType dt, const double *x, int64_t n, void *dst)
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

static void from_storage(DType dt, const void *src, int64_t n, double *x)
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
static void normalise_log(const char *log, Str *out)
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

/* ---- one kernel --------------------------------------------------------- */

typedef struct Stats {
    int ok, compile_error, launch_error, wrong, skipped;
    int resource;              /* over a hardware limit: skipped, not failed */
    bool env;                  /* the environment failed (no NVRTC...): stop */
} Stats;

typedef struct KernelData {
    Tensor *ref;               /* per k->out */
    kgrt_buffer **inbuf;       /* per k->in: its base tensor's buffer */
    kgrt_buffer **outbuf;
    size_t *outbytes;
    kgrt_buffer **owned;       /* buffers to free */
    int nowned;
} KernelData;

static void data_free(KernelData *kd, const Kernel *k)
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
static int prepare(const Plan *p, const Kernel *k, kgrt_device *dev,
                   uint64_t seed, KernelData *kd, Str *err)
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
    if (interp_kernel(p, k, in, kd->ref, err))
        goto done;
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

/* Fill every output with a canary, launch, read back and compare.
 * 0 all outputs within tolerance; 1 a mismatch (message in why); -1 a
 * launch error. */
static int run_once(const Kernel *k, KernelData *kd, kgrt_device *dev,
                    kgrt_kernel *kern,
                    const Launch *L, const void *canary, size_t csize,
                    double *worst_rel, double *worst_abs, Str *why)
{
    kgrt_arg *args = calloc((size_t)(k->nin + k->nout) + 1, sizeof *args);
    if (!args)
        die("out of memory");
    for (int i = 0; i < k->nout; i++)
        if (kgrt_buffer_fill(kd->outbuf[i], canary, csize) != KGRT_OK) {
            str_printf(why, "fill: %s", kgrt_last_error());
            free(args);
            return -1;
        }
    for (int i = 0; i < k->nin; i++)
        args[i] = kgrt_arg_buffer(kd->inbuf[i]);
    for (int i = 0; i < k->nout; i++)
        args[k->nin + i] = kgrt_arg_buffer(kd->outbuf[i]);
    int st = kgrt_launch(kern, L->grid, L->block, L->smem, args, k->nin + k->nout);
    if (st == KGRT_OK)
        st = kgrt_synchronize(dev);
    free(args);
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
        double mad, big = 0;
        double rel = tensor_rel_err(&kd->ref[i], &got, &mad);
        for (int64_t j = 0; j < got.n; j++)
            if (isfinite(kd->ref[i].data[j]) && fabs(kd->ref[i].data[j]) > big)
                big = fabs(kd->ref[i].data[j]);
        Tol tol = tolerance(v->dt);
        double absn = mad / (1 + big);
        if (rel > *worst_rel)
            *worst_rel = rel;
        if (absn > *worst_abs)
            *worst_abs = absn;
        if (!(rel <= tol.rel) || !(absn <= tol.abs)) {
            if (isinf(rel)) {
                int64_t bad = -1;
                for (int64_t j = 0; j < got.n && bad < 0; j++) {
                    double a = kd->ref[i].data[j], b = got.data[j];
                    if ((isnan(a) != isnan(b)) || (!isnan(a) && a != b &&
                                                   (!isfinite(a) || !isfinite(b))))
                        bad = j;
                }
                str_printf(why, "output %d: non-finite mismatch at element "
                           "%lld (ref %g, got %g)", i, (long long)bad,
                           bad >= 0 ? kd->ref[i].data[bad] : 0.0,
                           bad >= 0 ? got.data[bad] : 0.0);
            } else {
                str_printf(why, "output %d: rel-L2 %.3g (tolerance %.3g), "
                           "max-abs %.3g of %.3g (tolerance %.3g)", i, rel,
                           tol.rel, mad, big, tol.abs);
            }
            rc = 1;
        }
        free(got.data);
        if (rc)
            break;
    }
    return rc;
}

/* Seeded choice of up to want configs of one design point (first and last
 * always). */
static int sample(int n, int want, uint64_t *s, int *pick)
{
    if (n <= want) {
        for (int i = 0; i < n; i++)
            pick[i] = i;
        return n;
    }
    int m = 0;
    pick[m++] = 0;
    pick[m++] = n - 1;
    while (m < want) {
        *s = *s * 6364136223846793005ull + 1442695040888963407ull;
        int c = 1 + (int)((*s >> 33) % (uint64_t)(n - 2));
        bool dup = false;
        for (int i = 0; i < m; i++)
            dup |= pick[i] == c;
        if (!dup)
            pick[m++] = c;
    }
    return m;
}

static void cfg_defines(const Template *t, const int *cfg, Str *opts,
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

static int check_kernel(const Options *o, const Plan *p, Kernel *k,
                        Template *t, kgrt_device *dev, const char *arch,
                        Stats *st, Arena *a)
{
    bool cuda = strcmp(arch, "opencl") != 0;
    int nd = template_ndesign(t), nk = template_nknobs(t);
    Str err = {0};
    int b = template_bind(t, p, k, arch, &err);
    if (b) {
        printf("%-28s FAIL  %s\n", k->name, err.buf);
        st->skipped++;
        str_free(&err);
        return -1;
    }
    /* every config that passes the constraints, per design point */
    int *cfg = calloc((size_t)nk + 1, sizeof *cfg);
    int ncfg = 0, capcfg = 0;
    int **cfgs = NULL;
    do {
        bool ok;
        Str why = {0};
        if (template_check(t, cfg, &ok, &why)) {
            printf("%-28s FAIL  %s\n", k->name, why.buf);
            str_free(&why);
            free(cfg);
            st->skipped++;
            return -1;
        }
        str_free(&why);
        if (ok) {
            int *c = arena_alloc(a, (size_t)(nk + 1) * sizeof *c);
            memcpy(c, cfg, (size_t)nk * sizeof *c);
            ARENA_PUSH(a, cfgs, ncfg, capcfg, c);
        }
    } while (cfg_next(t, cfg, 0, nk));
    free(cfg);
    if (!ncfg) {
        printf("%-28s FAIL  no config of templates/%s.lua passes its "
               "constraints\n", k->name, k->template_name);
        st->skipped++;
        return -1;
    }
    KernelData kd = {0};
    if (dev && prepare(p, k, dev, o->seed, &kd, &err)) {
        printf("%-28s FAIL  %s\n", k->name, err.buf);
        str_free(&err);
        data_free(&kd, k);
        st->skipped++;
        return -1;
    }
    uint64_t rs = o->seed ^ hash64(k->name, strlen(k->name), 7);
    int want = o->configs > 0 ? o->configs : 4;
    int failed = 0;
    for (int lo = 0; lo < ncfg;) {
        int hi = lo;
        while (hi < ncfg && !memcmp(cfgs[hi], cfgs[lo], (size_t)nd * sizeof(int)))
            hi++;
        Str src = {0};
        str_free(&err);
        if (template_emit(t, cfgs[lo], &src, &err)) {
            printf("%-28s FAIL  %s (expanding %s:%d:%d)\n", k->name, err.buf,
                   p->g->file->path, k->nodes[0]->loc.line, k->nodes[0]->loc.col);
            st->compile_error += hi - lo;
            failed++;
            str_free(&src);
            lo = hi;
            continue;
        }
        int *pick = calloc((size_t)want + 2, sizeof *pick);
        int np = sample(hi - lo, want, &rs, pick);
        for (int q = 0; q < np; q++) {
            const int *c = cfgs[lo + pick[q]];
            Str cs = {0}, opts = {0}, why = {0};
            template_cfg_str(t, c, &cs);
            const char **defs;
            int ndefs;
            str_printf(&opts, "-cl-std=CL1.2");
            cfg_defines(t, c, &opts, &defs, &ndefs, a);
            Launch L;
            const char *status = "ok";
            double rel = 0, absn = 0;
            kgrt_module *mod = NULL;
            KgCubin cub = {0};
            if (template_launch(t, c, &L, &why)) {
                status = "FAIL launch()";
                st->launch_error++;
                goto report;
            }
            if (cuda) {
                int crc = kg_nvrtc_compile(src.buf, k->name, arch, defs, ndefs, &cub);
                if (crc == KG_COMPILE_ENV) {
                    fprintf(stderr, "kgen: error: cannot compile CUDA here: %s\n",
                            cub.log ? cub.log : "");
                    st->env = true;
                    kg_cubin_free(&cub);
                    str_free(&cs);
                    str_free(&opts);
                    str_free(&why);
                    free(pick);
                    str_free(&src);
                    data_free(&kd, k);
                    str_free(&err);
                    return -1;
                }
                if (crc == KG_COMPILE_RESOURCE) {
                    status = "skip";
                    str_printf(&why, "over a hardware limit: %s",
                               cub.log ? cub.log : "");
                    st->resource++;
                    goto report;
                }
                if (crc) {
                    status = "FAIL compile";
                    normalise_log(cub.log ? cub.log : "", &why);
                    st->compile_error++;
                    goto report;
                }
                if (!dev) {
                    str_printf(&why, "%d registers, %zu B shared, %zu B local",
                               cub.registers, cub.shared_static, cub.local_bytes);
                    st->ok++;
                    goto report;
                }
                kgrt_image img = {KGRT_IMAGE_CUBIN, cub.cubin, cub.cubin_size, NULL};
                char *log = NULL;
                if (kgrt_module_load(dev, &img, &mod, &log) != KGRT_OK) {
                    status = "FAIL load";
                    str_printf(&why, "%s", kgrt_last_error());
                    st->compile_error++;
                    free(log);
                    goto report;
                }
                free(log);
            } else {
                kgrt_image img = {KGRT_IMAGE_OPENCL_SOURCE, src.buf, src.len, opts.buf};
                char *log = NULL;
                if (kgrt_module_load(dev, &img, &mod, &log) != KGRT_OK) {
                    status = "FAIL compile";
                    str_printf(&why, "%s", log ? log : kgrt_last_error());
                    st->compile_error++;
                    free(log);
                    goto report;
                }
                free(log);
            }
            kgrt_kernel *kern = NULL;
            if (kgrt_kernel_get(mod, k->name, &kern) != KGRT_OK) {
                status = "FAIL compile";
                str_printf(&why, "%s", kgrt_last_error());
                st->compile_error++;
                goto report;
            }
            static const uint32_t nan_canary = 0x7fc07fc0u;   /* NaN as f32 */
            static const uint32_t byte_canary = 0x5a5a5a5au;
            int r = run_once(k, &kd, dev, kern, &L, &nan_canary, 4, &rel, &absn, &why);
            if (r == 0)
                r = run_once(k, &kd, dev, kern, &L, &byte_canary, 4, &rel, &absn, &why);
            if (r < 0 && strstr(why.buf ? why.buf : "", "resource")) {
                status = "skip";       /* too many resources: not sticky */
                st->resource++;
            } else if (r < 0) {
                status = "FAIL launch";
                st->launch_error++;
            } else if (r > 0) {
                status = "FAIL wrong";
                st->wrong++;
            } else {
                st->ok++;
            }
        report:
            if (strncmp(status, "FAIL", 4) == 0)
                failed++;
            if (!o->quiet || strcmp(status, "ok")) {
                printf("%-28s %-13s %s", k->name, status, cs.buf ? cs.buf : "");
                if (dev && !strcmp(status, "ok"))
                    printf("  rel %.2g max %.2g", rel, absn);
                if (why.len)
                    printf("  %s%s", strcmp(status, "ok") ? "\n    " : "",
                           why.buf);
                printf("\n");
            }
            kgrt_module_unload(mod);
            kg_cubin_free(&cub);
            str_free(&cs);
            str_free(&opts);
            str_free(&why);
        }
        free(pick);
        str_free(&src);
        lo = hi;
    }
    data_free(&kd, k);
    str_free(&err);
    return failed ? -1 : 0;
}

int cmd_check(const Options *o)
{
    const char *arch = o->arch ? o->arch
                     : o->backend && !strcmp(o->backend, "cuda") ? "sm_90"
                     : "opencl";
    bool cuda = strcmp(arch, "opencl") != 0;
    if (cuda && strncmp(arch, "sm_", 3)) {
        fprintf(stderr, "kgen: error: --arch %s: expected sm_XX or opencl\n", arch);
        return 2;
    }
    if (!cuda && o->compile_only) {
        fprintf(stderr, "kgen: error: --compile-only is for CUDA: OpenCL "
                "compiles on the device\n");
        return 2;
    }
    Arena *a = arena_new();
    Diag d;
    diag_init(&d, stderr);
    int rc = 2;
    kgrt_device *dev = NULL;
    TemplateCache *tc = template_cache_new(a);
    Plan *p = pipeline_plan(o, &d, a);
    if (!p)
        goto out;
    if (!o->compile_only) {
        int st = kgrt_device_open(cuda ? KGRT_CUDA : KGRT_OPENCL, 0, &dev);
        if (st != KGRT_OK) {
            fprintf(stderr, "kgen: error: no %s device to run on: %s%s\n",
                    cuda ? "CUDA" : "OpenCL", kgrt_last_error(),
                    cuda ? " (--compile-only compiles without one)" : "");
            rc = 3;
            goto out;
        }
    }
    Stats st = {0};
    int kernels = 0, bad = 0;
    for (int i = 0; i < p->nk; i++) {
        Kernel *k = p->k[i];
        if (k->kind == K_VIEW || (o->kernel && strcmp(o->kernel, k->name)))
            continue;
        kernels++;
        Str err = {0};
        Template *t = template_get(tc, templates_dir(o), k->template_name, &err, a);
        if (!t) {
            printf("%-28s FAIL  %s\n", k->name, err.buf);
            st.skipped++;
            bad++;
            str_free(&err);
            continue;
        }
        str_free(&err);
        if (check_kernel(o, p, k, t, dev, arch, &st, a))
            bad++;
        if (st.env) {
            rc = 3;            /* not a candidate's fault (RELIABILITY C4) */
            goto out;
        }
    }
    printf("%s on %s: %d kernels, %d candidates ok, %d compile errors, %d "
           "launch errors, %d wrong results, %d over hardware limits, %d "
           "kernels not checked\n", p->g->name, arch, kernels, st.ok,
           st.compile_error, st.launch_error, st.wrong, st.resource, st.skipped);
    rc = bad ? 1 : 0;
out:
    template_cache_free(tc);
    kgrt_device_close(dev);
    diag_free(&d);
    arena_free(a);
    return rc;
}

/*
 * worker.c -- `kgen __worker`: the tuner's isolated compile and device
 * processes (the protocol is in tune.h).
 *
 * A compile worker expands a candidate's source and compiles it: NVRTC to
 * a CUBIN file for CUDA, clBuildProgram for OpenCL (which also fills the
 * OpenCL implementation's own binary cache for the device worker).  The
 * device worker loads the candidate, checks it against the reference
 * twice (different random inputs, a NaN canary then a byte canary in the
 * outputs) and times it: a warm-up, then repetitions until a minimum
 * measured time, each after overwriting an L2-sized buffer on CUDA; it
 * reports the median, min and max.  A fault that leaves the device
 * unusable (a sticky CUDA error, a wait past the deadline) is reported,
 * then the worker exits so the parent starts a fresh one.
 */
#define _GNU_SOURCE
#include "kgen.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <kgen/kgrt.h>

#include "compile.h"
#include "tune.h"
#include "verify.h"

/* ---- protocol ----------------------------------------------------------- */

void proto_escape(Str *out, const char *s)
{
    for (; s && *s; s++)
        switch (*s) {
        case '\\': str_puts(out, "\\\\"); break;
        case '\t': str_puts(out, "\\t"); break;
        case '\n': str_puts(out, "\\n"); break;
        default: str_putc(out, *s);
        }
}

void proto_unescape(char *s)
{
    char *w = s;
    for (; *s; s++) {
        if (*s == '\\' && s[1]) {
            s++;
            *w++ = *s == 't' ? '\t' : *s == 'n' ? '\n' : *s;
        } else {
            *w++ = *s;
        }
    }
    *w = 0;
}

int proto_split(char *line, char **f, int max)
{
    int n = 0;
    while (n < max) {
        f[n++] = line;
        char *t = strchr(line, '\t');
        if (!t)
            break;
        *t = 0;
        line = t + 1;
    }
    return n;
}

void cfg_to_ids(const int *cfg, int n, Str *out)
{
    for (int i = 0; i < n; i++)
        str_printf(out, "%s%d", i ? "," : "", cfg[i]);
}

int cfg_from_ids(const char *s, int *cfg, int n)
{
    for (int i = 0; i < n; i++) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v < 0 || v > 1000000)
            return -1;
        cfg[i] = (int)v;
        s = end;
        if (i + 1 < n) {
            if (*s != ',')
                return -1;
            s++;
        }
    }
    return *s ? -1 : 0;
}

int64_t reference_stride(const Kernel *k)
{
    /* about 2 GFLOP of double arithmetic per reference */
    double budget = 2e9;
    return k->flops > 2 * budget ? (int64_t)ceil(k->flops / budget) : 1;
}

/* ---- the worker's state ------------------------------------------------- */

typedef struct Worker {
    const Options *o;
    Plan *p;
    TemplateCache *tc;
    const char *arch;
    bool cuda, device;
    kgrt_device *dev;
    kgrt_buffer *flush;        /* overwritten between timed runs (CUDA) */
    int bound;                 /* kernel the templates are bound to, or -1 */
    Template *t;
    int data_kernel;           /* kernel whose data is loaded, or -1 */
    KernelData kd[2];
    Str src;                   /* the last expansion ... */
    Str src_key;               /* ... of this kernel and design point */
    Arena *a;
} Worker;

typedef struct Reply {
    const char *status;
    double median, min, max;
    int reps;
    double rel, abs;
    Str info, err;
    bool fatal;                /* exit after replying */
} Reply;

static void reply(Reply *r)
{
    Str s = {0};
    str_printf(&s, "R\t%s\t%.9g\t%.9g\t%.9g\t%d\t%.6g\t%.6g\t", r->status,
               r->median, r->min, r->max, r->reps, r->rel, r->abs);
    proto_escape(&s, r->info.buf);
    str_putc(&s, '\t');
    /* a compiler log can be long: keep the start, where the errors are */
    if (r->err.len > 4000)
        r->err.buf[4000] = 0;
    proto_escape(&s, r->err.buf);
    str_putc(&s, '\n');
    fwrite(s.buf, 1, s.len, stdout);
    fflush(stdout);
    str_free(&s);
}

static int bind_kernel(Worker *w, int ki, Reply *r)
{
    if (w->bound == ki)
        return 0;
    Kernel *k = w->p->k[ki];
    w->bound = -1;
    str_free(&w->src_key);
    w->t = template_get(w->tc, templates_dir(w->o), k->template_name, &r->err,
                        w->a);
    if (!w->t || template_bind(w->t, w->p, k, w->arch, &r->err)) {
        r->status = ST_COMPILE_ERROR;
        return -1;
    }
    w->bound = ki;
    return 0;
}

/* The expansion of the design point of cfg (tuning knobs stay -D). */
static int source(Worker *w, int ki, const int *cfg, Reply *r)
{
    int nd = template_ndesign(w->t);
    Str key = {0};
    str_printf(&key, "%d:", ki);
    cfg_to_ids(cfg, nd, &key);
    if (w->src_key.buf && !strcmp(key.buf, w->src_key.buf)) {
        str_free(&key);
        return 0;
    }
    str_free(&w->src);
    str_free(&w->src_key);
    if (template_emit(w->t, cfg, &w->src, &r->err)) {
        r->status = ST_COMPILE_ERROR;
        str_free(&key);
        return -1;
    }
    w->src_key = key;
    return 0;
}

static void defines(Worker *w, const int *cfg, Str *opts, const char ***defs,
                    int *ndefs)
{
    str_printf(opts, "-cl-std=CL1.2");
    cfg_defines(w->t, cfg, opts, defs, ndefs, w->a);
}

/* ---- compile ------------------------------------------------------------ */

static void do_compile(Worker *w, int ki, const int *cfg, const char *file,
                       Reply *r)
{
    if (bind_kernel(w, ki, r) || source(w, ki, cfg, r))
        return;
    const char **defs;
    int ndefs;
    Str opts = {0};
    defines(w, cfg, &opts, &defs, &ndefs);
    if (w->cuda) {
        KgCubin cub = {0};
        int rc = kg_nvrtc_compile(w->src.buf, w->p->k[ki]->name, w->arch, defs,
                                  ndefs, &cub);
        if (rc == KG_COMPILE_OK) {
            FILE *fp = fopen(file, "wb");
            if (!fp || fwrite(cub.cubin, 1, cub.cubin_size, fp) != cub.cubin_size) {
                r->status = ST_ENV;
                str_printf(&r->err, "cannot write %s", file);
            }
            if (fp && fclose(fp) && !strcmp(r->status, ST_OK)) {
                r->status = ST_ENV;
                str_printf(&r->err, "cannot write %s", file);
            }
            str_printf(&r->info, "%d registers, %zu B shared, %zu B local",
                       cub.registers, cub.shared_static, cub.local_bytes);
        } else {
            r->status = rc == KG_COMPILE_RESOURCE ? ST_RESOURCE
                      : rc == KG_COMPILE_ENV ? ST_ENV : ST_COMPILE_ERROR;
            normalise_log(cub.log ? cub.log : "", &r->err);
        }
        kg_cubin_free(&cub);
    } else {
        kgrt_image img = {KGRT_IMAGE_OPENCL_SOURCE, w->src.buf, w->src.len,
                          opts.buf};
        kgrt_module *mod = NULL;
        char *log = NULL;
        int st = kgrt_module_load(w->dev, &img, &mod, &log);
        if (st != KGRT_OK) {
            r->status = st == KGRT_ECOMPILE ? ST_COMPILE_ERROR : ST_ENV;
            str_printf(&r->err, "%s", log && *log ? log : kgrt_last_error());
        }
        free(log);
        kgrt_module_unload(mod);
    }
    str_free(&opts);
}

/* ---- check and time ----------------------------------------------------- */

static void classify(const KernelData *kd, Reply *r)
{
    switch (kd->status) {
    case KGRT_ERESOURCE: r->status = ST_RESOURCE; break;
    case KGRT_EOOM: r->status = ST_OOM; break;
    case KGRT_ESTICKY: r->status = ST_STICKY; r->fatal = true; break;
    case KGRT_ETIMEOUT: r->status = ST_GPU_TIMEOUT; r->fatal = true; break;
    default: r->status = ST_LAUNCH_ERROR; break;
    }
}

static int load_data(Worker *w, int ki, Reply *r)
{
    if (w->data_kernel == ki)
        return 0;
    Kernel *k = w->p->k[ki];
    for (int i = 0; i < 2; i++) {
        if (w->data_kernel >= 0)
            verify_free(&w->kd[i], w->p->k[w->data_kernel]);
        memset(&w->kd[i], 0, sizeof w->kd[i]);
    }
    w->data_kernel = -1;
    int64_t stride = reference_stride(k);
    for (int i = 0; i < 2; i++)
        if (verify_prepare(w->p, k, w->dev, w->o->seed + (uint64_t)i, stride,
                           &w->kd[i], &r->err)) {
            r->status = strstr(r->err.buf ? r->err.buf : "", "device memory")
                      ? ST_OOM : ST_ENV;
            for (int j = 0; j <= i; j++)
                verify_free(&w->kd[j], k);
            memset(w->kd, 0, sizeof w->kd);
            return -1;
        }
    w->data_kernel = ki;
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void do_time(Worker *w, Kernel *k, kgrt_kernel *kern, const Launch *L,
                    Reply *r)
{
    KernelData *kd = &w->kd[0];
    int na;
    kgrt_arg *args = verify_args(k, kd, L, &na);
    static const uint32_t junk = 0x01020304u;
    double t0;
    int st = kgrt_launch_timed(kern, L->grid, L->block, L->smem, args, na, &t0);
    double min_total = w->cuda ? 100.0 : 30.0;  /* ms measured, at least */
    int lo = w->cuda ? 10 : 3, hi = w->cuda ? 200 : 25;
    int reps = st == KGRT_OK ? (int)ceil(min_total / (t0 > 1e-4 ? t0 : 1e-4)) : 0;
    reps = reps < lo ? lo : reps > hi ? hi : reps;
    double *ms = calloc((size_t)reps + 1, sizeof *ms);
    if (!ms)
        die("out of memory");
    for (int i = 0; st == KGRT_OK && i < reps; i++) {
        if (w->flush)
            st = kgrt_buffer_fill(w->flush, &junk, sizeof junk);
        if (st == KGRT_OK)
            st = kgrt_launch_timed(kern, L->grid, L->block, L->smem, args, na,
                                   &ms[i]);
    }
    if (st != KGRT_OK) {
        KernelData tmp = {.status = st};
        classify(&tmp, r);
        str_printf(&r->err, "timing: %s: %s", kgrt_status_string(st),
                   kgrt_last_error());
    } else {
        qsort(ms, (size_t)reps, sizeof *ms, cmp_double);
        r->reps = reps;
        r->min = ms[0];
        r->max = ms[reps - 1];
        r->median = reps % 2 ? ms[reps / 2]
                  : 0.5 * (ms[reps / 2 - 1] + ms[reps / 2]);
    }
    free(ms);
    free(args);
}

static void do_measure(Worker *w, int ki, const int *cfg, const char *file,
                       Reply *r)
{
    Kernel *k = w->p->k[ki];
    if (bind_kernel(w, ki, r))
        return;
    Launch L;
    if (template_launch(w->t, cfg, &L, &r->err)) {
        r->status = ST_COMPILE_ERROR;
        return;
    }
    kgrt_module *mod = NULL;
    kgrt_kernel *kern = NULL;
    char *log = NULL;
    int st;
    if (w->cuda) {
        size_t size;
        char *bin = read_file(file, (size_t)1 << 30, &size);
        if (!bin) {
            r->status = ST_ENV;
            str_printf(&r->err, "cannot read %s", file);
            return;
        }
        kgrt_image img = {KGRT_IMAGE_CUBIN, bin, size, NULL};
        st = kgrt_module_load(w->dev, &img, &mod, &log);
        free(bin);
    } else {
        if (source(w, ki, cfg, r))
            return;
        const char **defs;
        int ndefs;
        Str opts = {0};
        defines(w, cfg, &opts, &defs, &ndefs);
        kgrt_image img = {KGRT_IMAGE_OPENCL_SOURCE, w->src.buf, w->src.len,
                          opts.buf};
        st = kgrt_module_load(w->dev, &img, &mod, &log);
        str_free(&opts);
    }
    if (st == KGRT_OK)
        st = kgrt_kernel_get(mod, k->name, &kern);
    if (st != KGRT_OK) {
        r->status = st == KGRT_ECOMPILE || st == KGRT_ENOTFOUND
                  ? ST_COMPILE_ERROR : ST_ENV;
        str_printf(&r->err, "%s", log && *log ? log : kgrt_last_error());
        free(log);
        kgrt_module_unload(mod);
        return;
    }
    free(log);
    if (load_data(w, ki, r))
        goto out;
    {
        static const uint32_t nan_canary = 0x7fc07fc0u;   /* NaN as f32 */
        static const uint32_t byte_canary = 0x5a5a5a5au;
        double rel = 0, absn = 0;
        int v = verify_run(k, &w->kd[0], w->dev, kern, &L, &nan_canary, 4,
                           &rel, &absn, &r->err);
        KernelData *last = &w->kd[0];
        if (v == 0) {
            last = &w->kd[1];
            v = verify_run(k, &w->kd[1], w->dev, kern, &L, &byte_canary, 4,
                           &rel, &absn, &r->err);
        }
        r->rel = rel;
        r->abs = absn;
        if (v < 0) {
            classify(last, r);
            goto out;
        }
        if (v > 0) {
            r->status = ST_WRONG;
            goto out;
        }
        if (w->kd[0].sampled)
            str_printf(&r->info, "reference sampled 1 row in %lld",
                       (long long)reference_stride(k));
    }
    do_time(w, k, kern, &L, r);
out:
    kgrt_module_unload(mod);
}

/* ---- main loop ---------------------------------------------------------- */

int cmd_worker(const Options *o)
{
    Worker w = {.o = o, .bound = -1, .data_kernel = -1};
    w.a = arena_new();
    w.arch = o->arch ? o->arch : "opencl";
    w.cuda = strcmp(w.arch, "opencl") != 0;
    w.device = o->role && !strcmp(o->role, "device");
    Diag d;
    diag_init(&d, stderr);
    Options quiet = *o;
    quiet.verbose = 0;
    w.p = pipeline_plan(&quiet, &d, w.a);
    w.tc = template_cache_new(w.a);
    int rc = 3;
    if (!w.p)
        goto out;
    if (w.device || !w.cuda) {
        if (kgrt_device_open(w.cuda ? KGRT_CUDA : KGRT_OPENCL, o->device,
                             &w.dev) != KGRT_OK) {
            fprintf(stderr, "kgen worker: no device: %s\n", kgrt_last_error());
            goto out;
        }
        kgrt_device_set_timeout(w.dev, o->timeout_ms > 0 ? o->timeout_ms : 10000);
        kgrt_limits lim;
        if (w.device && w.cuda && kgrt_device_limits(w.dev, &lim) == KGRT_OK) {
            size_t bytes = lim.l2_bytes ? 2 * lim.l2_bytes : (size_t)128 << 20;
            bytes = (bytes + 127) & ~(size_t)127;
            if (kgrt_buffer_alloc(w.dev, bytes, &w.flush) != KGRT_OK)
                w.flush = NULL;
        }
    }
    char *line = NULL;
    size_t cap = 0;
    rc = 0;
    while (getline(&line, &cap, stdin) > 0) {
        line[strcspn(line, "\n")] = 0;
        char *f[6];
        int nf = proto_split(line, f, 6);
        int ki = nf == 4 ? atoi(f[1]) : -1;
        Reply r = {.status = ST_OK, .median = -1, .min = -1, .max = -1,
                   .rel = -1, .abs = -1};
        if (strcmp(f[0], "J") || ki < 0 || ki >= w.p->nk) {
            fprintf(stderr, "kgen worker: bad job '%s'\n", line);
            rc = 2;
            break;
        }
        int nk = 0;
        if (bind_kernel(&w, ki, &r) == 0) {
            nk = template_nknobs(w.t);
            int *cfg = arena_alloc(w.a, (size_t)(nk + 1) * sizeof *cfg);
            proto_unescape(f[3]);
            if (cfg_from_ids(f[2], cfg, nk)) {
                r.status = ST_ENV;
                str_printf(&r.err, "bad config '%s'", f[2]);
            } else if (w.device) {
                do_measure(&w, ki, cfg, f[3], &r);
            } else {
                do_compile(&w, ki, cfg, f[3], &r);
            }
        }
        reply(&r);
        str_free(&r.info);
        str_free(&r.err);
        if (r.fatal) {
            _exit(0);   /* the device is unusable: no cleanup through it */
        }
    }
    free(line);
out:
    for (int i = 0; i < 2 && w.data_kernel >= 0; i++)
        verify_free(&w.kd[i], w.p->k[w.data_kernel]);
    kgrt_buffer_free(w.flush);
    kgrt_device_close(w.dev);
    str_free(&w.src);
    str_free(&w.src_key);
    template_cache_free(w.tc);
    diag_free(&d);
    arena_free(w.a);
    return rc;
}

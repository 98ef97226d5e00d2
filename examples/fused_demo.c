/*
 * fused_demo.c -- run a model built by `kgen build` as a stack of layers,
 * check it against kgen's double-precision reference and time it.
 *
 *   kgen run MODEL.pat --ref --save ref.bin --layers 4 [--dim ...]
 *   kgen build MODEL.pat --arch sm_90|opencl -o out [--dim ...]
 *   cc -std=c11 -Iout fused_demo.c out/libfused.a -lpthread -ldl [-lOpenCL]
 *   ./a.out ref.bin [--reps N]
 *
 * The program knows the model only through fused.h (KGEN_MODEL and
 * KGEN_FORWARD_V name the generated model and its forward pass), so one
 * source serves every example.  Layer l reads the inputs shared by all
 * layers, its own weights, and (for l > 0) the first output of layer l-1
 * as its first input, exactly as the reference was computed.  Exit status:
 * 0 when every output is within tolerance, 1 on a mismatch, 3 when there
 * is no device.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fused.h"
#include "kgen/kgrt_fused.h"

typedef struct RefTensor {
    char name[64];
    int layer;
    char dtype[8];
    int rank;
    int64_t shape[KGRT_MAX_RANK];
    size_t bytes;
    unsigned char *data;
} RefTensor;

static RefTensor *ref;
static int nref, layers = 1;

static int load_ref(const char *path)
{
    FILE *fp = fopen(path, "rb");
    char line[512], model[128];
    if (!fp) {
        perror(path);
        return -1;
    }
    if (!fgets(line, sizeof line, fp) || strcmp(line, "KGREF 1\n") ||
        !fgets(line, sizeof line, fp) ||
        sscanf(line, "model %127s layers %d", model, &layers) != 2) {
        fprintf(stderr, "%s: not a kgen reference file\n", path);
        fclose(fp);
        return -1;
    }
    if (strcmp(model, KGEN_MODEL->name)) {
        fprintf(stderr, "%s holds model %s, the library is %s\n", path, model,
                KGEN_MODEL->name);
        fclose(fp);
        return -1;
    }
    while (fgets(line, sizeof line, fp)) {
        RefTensor t;
        int n = 0, off = 0;
        memset(&t, 0, sizeof t);
        if (sscanf(line, "t %63s %d %7s %d%n", t.name, &t.layer, t.dtype,
                   &t.rank, &off) != 4 || t.rank < 0 || t.rank > KGRT_MAX_RANK)
            break;
        for (int d = 0; d < t.rank; d++) {
            long long v;
            if (sscanf(line + off, " %lld%n", &v, &n) != 1)
                break;
            t.shape[d] = v;
            off += n;
        }
        if (sscanf(line + off, " %zu", &t.bytes) != 1 ||
            !(t.data = malloc(t.bytes ? t.bytes : 1)) ||
            fread(t.data, 1, t.bytes, fp) != t.bytes) {
            fprintf(stderr, "%s: truncated\n", path);
            fclose(fp);
            return -1;
        }
        ref = realloc(ref, (size_t)(nref + 1) * sizeof *ref);
        ref[nref++] = t;
    }
    fclose(fp);
    return 0;
}

static RefTensor *find_ref(const char *name, int layer, bool want_f64)
{
    for (int i = 0; i < nref; i++)
        if (!strcmp(ref[i].name, name) &&
            (ref[i].layer == layer || ref[i].layer == -1) &&
            (strcmp(ref[i].dtype, "f64") == 0) == want_f64)
            return &ref[i];
    return NULL;
}

static double half_to_double(uint16_t h)
{
    int e = (h >> 10) & 31, m = h & 1023;
    double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY)
                                                : ldexp(m + 1024, e - 25);
    return h & 0x8000 ? -v : v;
}

static double load_elem(int dtype, const unsigned char *p, size_t i)
{
    switch (dtype) {
    case KGRT_F32: { float f; memcpy(&f, p + 4 * i, 4); return f; }
    case KGRT_F16: { uint16_t h; memcpy(&h, p + 2 * i, 2);
                     return half_to_double(h); }
    case KGRT_BF16: { uint16_t h; uint32_t u; float f;
                      memcpy(&h, p + 2 * i, 2); u = (uint32_t)h << 16;
                      memcpy(&f, &u, 4); return f; }
    case KGRT_I32: { int32_t v; memcpy(&v, p + 4 * i, 4); return v; }
    default: return p[i];
    }
}

static void fail_rt(const char *what, int rc)
{
    fprintf(stderr, "fused_demo: %s: %s (%s)\n", what, kgrt_last_error(),
            kgrt_status_string(rc));
}

int main(int argc, char **argv)
{
    const kgrt_fused_model *m = KGEN_MODEL;
    const kgrt_fused_variant *v = NULL;
    int reps = 20, n = m->nargs, nin = m->nargs - m->noutputs, rc;
    kgrt_device *dev = NULL;
    kgrt_stream *s;
    kgrt_buffer **buf = NULL, *ws = NULL, *outbuf[2][16];
    kgrt_tensor *t = NULL;
    size_t wsbytes = 0;
    int status = 1;

    if (argc < 2) {
        fprintf(stderr, "usage: %s REF.bin [--reps N]\n", argv[0]);
        return 2;
    }
    if (argc >= 4 && !strcmp(argv[2], "--reps"))
        reps = atoi(argv[3]);
    memset(outbuf, 0, sizeof outbuf);
    if (load_ref(argv[1]))
        return 2;
    if ((rc = KGEN_OPEN(&dev)) < 0) {
        fail_rt("no device", rc);
        return 3;
    }
    {
        kgrt_device_info info;
        kgrt_device_get_info(dev, &info);
        printf("%s on %s (%s), %d layer%s\n", m->name, info.name, m->arch,
               layers, layers > 1 ? "s" : "");
    }
    /* the variant whose input shapes the reference has */
    for (int vi = 0; vi < m->nvariants && !v; vi++) {
        bool all = true;
        for (int i = 0; i < nin && all; i++) {
            const kgrt_fused_arg *a = &m->variants[vi].model_args[i];
            RefTensor *r = find_ref(a->name, 0, false);
            all = r && r->rank == a->rank &&
                  !memcmp(r->shape, a->shape, sizeof(int64_t) * (size_t)a->rank);
        }
        if (all)
            v = &m->variants[vi];
    }
    if (!v || m->noutputs > 16) {
        fprintf(stderr, "fused_demo: the reference's shapes match no built "
                "variant\n");
        goto out;
    }
    s = kgrt_device_stream(dev);
    buf = calloc((size_t)(layers * n + 1), sizeof *buf);
    t = calloc((size_t)(layers * n + 1), sizeof *t);
    /* inputs and weights per layer (shared inputs once) */
    for (int l = 0; l < layers; l++)
        for (int i = 0; i < n; i++) {
            const kgrt_fused_arg *a = &v->model_args[i];
            kgrt_tensor *ti = &t[l * n + i];
            ti->dtype = a->dtype;
            ti->rank = a->rank;
            memcpy(ti->shape, a->shape, sizeof ti->shape);
            memcpy(ti->strides, a->strides, sizeof ti->strides);
            if (i >= nin) {
                size_t bytes = kgrt_dtype_size(a->dtype);
                for (int d = 0; d < a->rank; d++)
                    bytes *= (size_t)a->shape[d];
                kgrt_buffer **ob = &outbuf[l % 2][i - nin];
                if (!*ob && (rc = kgrt_buffer_alloc(dev, bytes, ob)) < 0) {
                    fail_rt("alloc", rc);
                    goto out;
                }
                ti->data = kgrt_buffer_native(*ob);
                continue;
            }
            if (i == 0 && l > 0) {     /* the previous layer's first output */
                ti->data = t[(l - 1) * n + nin].data;
                continue;
            }
            RefTensor *r = find_ref(a->name, l, false);
            if (!r) {
                fprintf(stderr, "fused_demo: no %s for layer %d in the "
                        "reference\n", a->name, l);
                goto out;
            }
            if (r->layer == -1 && l > 0) {
                ti->data = t[i].data;  /* shared by every layer */
                continue;
            }
            if ((rc = kgrt_buffer_alloc(dev, r->bytes, &buf[l * n + i])) < 0 ||
                (rc = kgrt_buffer_write(buf[l * n + i], 0, r->data,
                                        r->bytes)) < 0) {
                fail_rt("upload", rc);
                goto out;
            }
            ti->data = kgrt_buffer_native(buf[l * n + i]);
        }
    if ((rc = kgrt_fused_workspace(m, v->dims, &wsbytes)) < 0) {
        fail_rt("workspace", rc);
        goto out;
    }
    if (wsbytes && (rc = kgrt_buffer_alloc(dev, wsbytes, &ws)) < 0) {
        fail_rt("workspace", rc);
        goto out;
    }
    printf("workspace %zu bytes per call\n", wsbytes);

    for (int rep = 0; rep <= reps; rep++) {
        kgrt_event *e0 = NULL, *e1 = NULL;
        double ms = 0;
        if (rep == 1) {        /* rep 0 checks (and loads the modules) */
            kgrt_event_create(dev, &e0);
            kgrt_event_create(dev, &e1);
            kgrt_event_record(e0, s);
        }
        for (int r2 = rep ? reps : 1; r2 > 0; r2--)
            for (int l = 0; l < layers; l++)
                if ((rc = KGEN_FORWARD_V(s, &t[l * n], n,
                                         kgrt_buffer_native(ws), wsbytes)) < 0) {
                    fail_rt("forward", rc);
                    goto out;
                }
        if (rep == 0) {
            if ((rc = kgrt_stream_synchronize(s)) < 0) {
                fail_rt("run", rc);
                goto out;
            }
            /* check the last layer's outputs */
            status = 0;
            for (int o = 0; o < m->noutputs; o++) {
                const kgrt_fused_arg *a = &v->model_args[nin + o];
                RefTensor *r = find_ref(a->name, layers - 1, true);
                size_t cnt = r ? r->bytes / sizeof(double) : 0;
                size_t bytes = cnt * kgrt_dtype_size(a->dtype);
                unsigned char *got = malloc(bytes ? bytes : 1);
                double num = 0, den = 0, maxd = 0, maxr = 0, tol_rel, tol_abs;
                if (!r || !got) {
                    fprintf(stderr, "fused_demo: no reference for %s\n",
                            a->name);
                    free(got);
                    goto out;
                }
                if ((rc = kgrt_buffer_read(outbuf[(layers - 1) % 2][o], 0, got,
                                           bytes)) < 0) {
                    fail_rt("download", rc);
                    free(got);
                    goto out;
                }
                for (size_t i = 0; i < cnt; i++) {
                    double x, y = load_elem(a->dtype, got, i);
                    memcpy(&x, r->data + i * sizeof x, sizeof x);
                    num += (y - x) * (y - x);
                    den += x * x;
                    if (fabs(y - x) > maxd || isnan(y))
                        maxd = isnan(y) ? INFINITY : fabs(y - x);
                    if (fabs(x) > maxr)
                        maxr = fabs(x);
                }
                free(got);
                /* a whole block: several kernels, each rounding its
                 * outputs to the storage dtype (docs/cli.md) */
                tol_rel = a->dtype == KGRT_F32 ? 1e-4 : a->dtype == KGRT_BF16
                                                 ? 6e-2 : 1e-2;
                tol_abs = 4 * tol_rel;
                double rel = den > 0 ? sqrt(num / den) : sqrt(num);
                double abs_n = maxd / (1 + maxr);
                bool ok = rel <= tol_rel && abs_n <= tol_abs;
                printf("check %-8s rel-L2 %.3g (tol %.3g)  max-abs %.3g "
                       "(tol %.3g)  %s\n", a->name, rel, tol_rel, abs_n,
                       tol_abs, ok ? "ok" : "MISMATCH");
                if (!ok)
                    status = 1;
            }
        } else {
            if ((rc = kgrt_event_record(e1, s)) < 0 ||
                (rc = kgrt_event_elapsed(e0, e1, &ms)) < 0) {
                fail_rt("timing", rc);
                kgrt_event_destroy(e0);
                kgrt_event_destroy(e1);
                goto out;
            }
            printf("time %.4f ms per layer (%d forward call%s per stack: "
                   "%.4f ms), mean of %d stacks\n", ms / reps / layers, layers,
                   layers > 1 ? "s" : "", ms / reps, reps);
            kgrt_event_destroy(e0);
            kgrt_event_destroy(e1);
            break;
        }
    }
out:
    if (dev) {
        for (int i = 0; buf && i < layers * n; i++)
            kgrt_buffer_free(buf[i]);
        for (int l = 0; l < 2; l++)
            for (int o = 0; o < 16; o++)
                kgrt_buffer_free(outbuf[l][o]);
        kgrt_buffer_free(ws);
        KGEN_RELEASE(dev);
        kgrt_device_close(dev);
    }
    for (int i = 0; i < nref; i++)
        free(ref[i].data);
    free(ref);
    free(buf);
    free(t);
    return status;
}

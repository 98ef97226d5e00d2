/*
 * kgrt.c -- the runtime's public entry points and its error channel.
 *
 * Every public call checks its arguments here, clears this thread's last
 * error, and dispatches to a backend through kgrt_backend_ops.  The checks
 * that do not depend on the backend live here once: buffer ranges, fill
 * patterns, launch shapes against the device's and the kernel's limits,
 * argument counts and sizes, and the sticky latch (after a device fault
 * every call on that device fails fast with the first fault's message).
 * The runtime never prints and never exits: failures come back as negative
 * kgrt_status values with the reason in a _Thread_local buffer (libgit2's
 * git_error_last), so concurrent callers never see each other's messages.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kgrt_int.h"

static _Thread_local char last_error[1024];

void kgrt_note(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
}

/* kgrt_error (kgrt_int.h), public for libraries built on kgrt such as the
 * launchers kgen generates. */
int kgrt_set_error(int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    return status;
}

void kgrt_clear_error(void)
{
    last_error[0] = '\0';
}

void kgrt_copy(char *dst, size_t n, const char *src)
{
    size_t len;
    if (n == 0)
        return;
    len = src ? strnlen(src, n - 1) : 0;
    if (len)
        memcpy(dst, src, len);
    dst[len] = '\0';
}

char *kgrt_log_dup(const char *text, size_t n)
{
    char *s;
    if (!text)
        return NULL;
    n = strnlen(text, n);
    while (n > 0 && (text[n - 1] == ' ' || text[n - 1] == '\n' ||
                     text[n - 1] == '\r' || text[n - 1] == '\t'))
        n--;
    if (n == 0 || !(s = malloc(n + 1)))
        return NULL;
    memcpy(s, text, n);
    s[n] = '\0';
    return s;
}

void kgrt_log_first_error(const char *log, char *dst, size_t n)
{
    const char *p = log, *first = NULL, *pick = NULL, *end;
    if (n == 0)
        return;
    dst[0] = '\0';
    if (!log)
        return;
    while (*p) {
        end = strchr(p, '\n');
        if (!end)
            end = p + strlen(p);
        if (end > p && !first)
            first = p;
        if (!pick) {
            const char *e = p;
            while (e + 5 <= end && strncmp(e, "error", 5) != 0)
                e++;
            if (e + 5 <= end)
                pick = p;
        }
        p = *end ? end + 1 : end;
    }
    if (!pick)
        pick = first;
    if (!pick)
        return;
    end = strchr(pick, '\n');
    {
        size_t len = end ? (size_t)(end - pick) : strlen(pick);
        if (len > n - 1)
            len = n - 1;
        memcpy(dst, pick, len);
        dst[len] = '\0';
    }
}

size_t kgrt_arg_size(const kgrt_arg *a)
{
    switch (a->kind) {
    case KGRT_ARG_BUFFER: return 8;     /* CUdeviceptr; cl_mem is a pointer */
    case KGRT_ARG_I32: return 4;
    case KGRT_ARG_I64: return 8;
    case KGRT_ARG_F32: return 4;
    case KGRT_ARG_BYTES: return a->size;
    case KGRT_ARG_NATIVE: return 8;     /* CUdeviceptr or cl_mem */
    case KGRT_ARG_TMAP: return 128;     /* CUtensorMap */
    }
    return 0;
}

double kgrt_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

bool kgrt_poll_wait(double start_ms, double timeout_ms, unsigned *sleep_us)
{
    struct timespec ts;
    if (timeout_ms > 0 && kgrt_now_ms() - start_ms >= timeout_ms)
        return false;
    if (*sleep_us < 20)
        *sleep_us = 20;
    ts.tv_sec = 0;
    ts.tv_nsec = (long)*sleep_us * 1000;
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
    if (*sleep_us < 1000)
        *sleep_us *= 2;
    return true;
}

const char *kgrt_last_error(void)
{
    return last_error;
}

size_t kgrt_dtype_size(int dtype)
{
    switch (dtype) {
    case KGRT_BOOL: return 1;
    case KGRT_I32: return 4;
    case KGRT_F16: return 2;
    case KGRT_BF16: return 2;
    case KGRT_F32: return 4;
    }
    return 0;
}

const char *kgrt_dtype_name(int dtype)
{
    switch (dtype) {
    case KGRT_BOOL: return "bool";
    case KGRT_I32: return "i32";
    case KGRT_F16: return "f16";
    case KGRT_BF16: return "bf16";
    case KGRT_F32: return "f32";
    }
    return "unknown";
}

const char *kgrt_status_string(int status)
{
    switch (status) {
    case KGRT_OK: return "success";
    case KGRT_EINVAL: return "invalid argument";
    case KGRT_ENOBACKEND: return "backend not available";
    case KGRT_EDRIVER: return "driver error";
    case KGRT_ENOMEM: return "out of memory";
    case KGRT_ENODEVICE: return "no such device";
    case KGRT_ECOMPILE: return "build failed";
    case KGRT_EIMAGE: return "image not loadable on this device";
    case KGRT_ENOTFOUND: return "kernel not found";
    case KGRT_ERESOURCE: return "too many resources requested for launch";
    case KGRT_ELAUNCH: return "launch failed";
    case KGRT_ESTICKY: return "device fault (context unusable)";
    case KGRT_ETIMEOUT: return "timed out";
    case KGRT_EOOM: return "out of device memory";
    case KGRT_EDTYPE: return "wrong dtype";
    case KGRT_ERANK: return "wrong rank";
    case KGRT_ESHAPE: return "shape not built";
    case KGRT_ESTRIDE: return "unsupported strides";
    case KGRT_EALIGN: return "misaligned data";
    case KGRT_EALIAS: return "overlapping arguments";
    case KGRT_EWORKSPACE: return "workspace too small";
    }
    return "unknown status";
}

static const kgrt_backend_ops *backend_ops(kgrt_backend b)
{
    switch (b) {
    case KGRT_CUDA: return &kgrt_cuda_ops;
    case KGRT_OPENCL: return &kgrt_opencl_ops;
    }
    return NULL;
}

const char *kgrt_backend_name(kgrt_backend b)
{
    const kgrt_backend_ops *ops = backend_ops(b);
    return ops ? ops->name : "unknown";
}

int kgrt_device_count(kgrt_backend b)
{
    const kgrt_backend_ops *ops = backend_ops(b);
    kgrt_clear_error();
    if (!ops)
        return kgrt_error(KGRT_EINVAL, "invalid backend %d", (int)b);
    return ops->device_count();
}

int kgrt_device_info_get(kgrt_backend b, int index, kgrt_device_info *out)
{
    const kgrt_backend_ops *ops = backend_ops(b);
    int rc;
    kgrt_clear_error();
    if (out)
        memset(out, 0, sizeof *out);
    if (!ops)
        return kgrt_error(KGRT_EINVAL, "invalid backend %d", (int)b);
    if (!out)
        return kgrt_error(KGRT_EINVAL, "kgrt_device_info_get: out is NULL");
    if (index < 0)
        return kgrt_error(KGRT_EINVAL, "%s device index %d is negative",
                          ops->name, index);
    rc = ops->device_info(index, out);
    if (rc < 0) {
        memset(out, 0, sizeof *out);
        return rc;
    }
    out->backend = b;
    out->index = index;
    return KGRT_OK;
}

/* ---- the sticky latch ---------------------------------------------------- */

/* KGRT_ESTICKY if d has faulted before (the message names the first fault). */
static int check_sticky(kgrt_device *d)
{
    if (atomic_load_explicit(&d->sticky, memory_order_acquire))
        return kgrt_error(KGRT_ESTICKY, "%s device %d is unusable after an "
                          "earlier fault: %s", d->ops->name, d->info.index,
                          d->sticky_msg);
    return KGRT_OK;
}

/* Pass a backend status through, latching the device on KGRT_ESTICKY. */
static int note_status(kgrt_device *d, int rc)
{
    if (rc == KGRT_ESTICKY) {
        int expected = 0;
        static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
        pthread_mutex_lock(&lock);
        if (!atomic_load_explicit(&d->sticky, memory_order_relaxed)) {
            kgrt_copy(d->sticky_msg, sizeof d->sticky_msg, last_error);
            atomic_compare_exchange_strong(&d->sticky, &expected, 1);
        }
        pthread_mutex_unlock(&lock);
    }
    return rc;
}

/* ---- devices ------------------------------------------------------------- */

int kgrt_device_open(kgrt_backend b, int index, kgrt_device **out)
{
    const kgrt_backend_ops *ops = backend_ops(b);
    kgrt_device *d = NULL;
    int rc;
    kgrt_clear_error();
    if (out)
        *out = NULL;
    if (!ops)
        return kgrt_error(KGRT_EINVAL, "invalid backend %d", (int)b);
    if (!out)
        return kgrt_error(KGRT_EINVAL, "kgrt_device_open: out is NULL");
    if (index < 0)
        return kgrt_error(KGRT_EINVAL, "%s device index %d is negative",
                          ops->name, index);
    rc = ops->device_open(index, &d);
    if (rc < 0)
        return rc;
    d->ops = ops;
    d->info.backend = b;
    d->info.index = index;
    atomic_store(&d->timeout_ms, 0.0);
    atomic_store(&d->sticky, 0);
    d->stream0.dev = d;
    d->stream0.owned = false;
    pthread_mutex_init(&d->cache_lock, NULL);
    d->cache = NULL;
    d->cached = d->in_use = 0;
    {
        const char *env = getenv("KGRT_CACHE");
        d->caching = !(env && strcmp(env, "0") == 0);
    }
    *out = d;
    return KGRT_OK;
}

int kgrt_device_open_default(kgrt_backend b, kgrt_device **out)
{
    const char *env = getenv("KGRT_DEVICE");
    char *end = NULL;
    long index = 0;
    if (env && *env) {
        errno = 0;
        index = strtol(env, &end, 10);
        if (errno || *end || index < 0 || index > 1 << 20) {
            if (out)
                *out = NULL;
            return kgrt_error(KGRT_EINVAL, "KGRT_DEVICE='%s' is not a device "
                              "index", env);
        }
    }
    return kgrt_device_open(b, (int)index, out);
}

void kgrt_device_close(kgrt_device *d)
{
    if (!d)
        return;
    kgrt_device_empty_cache(d);
    pthread_mutex_destroy(&d->cache_lock);
    d->ops->device_close(d);
}

int kgrt_device_get_info(kgrt_device *d, kgrt_device_info *out)
{
    kgrt_clear_error();
    if (out)
        memset(out, 0, sizeof *out);
    if (!d || !out)
        return kgrt_error(KGRT_EINVAL, "kgrt_device_get_info: NULL argument");
    *out = d->info;
    return KGRT_OK;
}

int kgrt_device_limits(kgrt_device *d, kgrt_limits *out)
{
    kgrt_clear_error();
    if (out)
        memset(out, 0, sizeof *out);
    if (!d || !out)
        return kgrt_error(KGRT_EINVAL, "kgrt_device_limits: NULL argument");
    *out = d->limits;
    return KGRT_OK;
}

int kgrt_device_set_timeout(kgrt_device *d, double ms)
{
    kgrt_clear_error();
    if (!d)
        return kgrt_error(KGRT_EINVAL, "kgrt_device_set_timeout: device is "
                          "NULL");
    if (!(ms >= 0))   /* also rejects NaN */
        return kgrt_error(KGRT_EINVAL, "timeout %g ms is negative", ms);
    atomic_store(&d->timeout_ms, ms);
    return KGRT_OK;
}

int kgrt_synchronize(kgrt_device *d)
{
    int rc;
    kgrt_clear_error();
    if (!d)
        return kgrt_error(KGRT_EINVAL, "kgrt_synchronize: device is NULL");
    if ((rc = check_sticky(d)) < 0)
        return rc;
    return note_status(d, d->ops->synchronize(d));
}

/* ---- memory -------------------------------------------------------------- */

/* The caching allocator.  Sizes round up to 512 bytes, and above 1 MiB to
 * 2 MiB, so that blocks are reused across similar requests; a cached block
 * serves a request of at least half its size (the best fit wins). */
static size_t round_size(size_t bytes)
{
    size_t q = bytes <= (1u << 20) ? 512 : (2u << 20);
    return bytes > SIZE_MAX - q ? bytes : (bytes + q - 1) / q * q;
}

static kgrt_buffer *cache_take(kgrt_device *d, size_t cap)
{
    kgrt_buffer **pp, **best = NULL;
    kgrt_buffer *b = NULL;
    pthread_mutex_lock(&d->cache_lock);
    for (pp = &d->cache; *pp; pp = &(*pp)->next_free)
        if ((*pp)->cap >= cap && (*pp)->cap / 2 <= cap &&
            (!best || (*pp)->cap < (*best)->cap))
            best = pp;
    if (best) {
        b = *best;
        *best = b->next_free;
        b->next_free = NULL;
        d->cached -= b->cap;
        d->in_use += b->cap;
    }
    pthread_mutex_unlock(&d->cache_lock);
    return b;
}

int kgrt_device_empty_cache(kgrt_device *d)
{
    kgrt_buffer *b, *next;
    kgrt_clear_error();
    if (!d)
        return kgrt_error(KGRT_EINVAL, "kgrt_device_empty_cache: device is "
                          "NULL");
    pthread_mutex_lock(&d->cache_lock);
    b = d->cache;
    d->cache = NULL;
    d->cached = 0;
    pthread_mutex_unlock(&d->cache_lock);
    for (; b; b = next) {
        next = b->next_free;
        d->ops->buffer_free(b);
    }
    return KGRT_OK;
}

int kgrt_device_memory(kgrt_device *d, size_t *in_use, size_t *cached)
{
    kgrt_clear_error();
    if (!d)
        return kgrt_error(KGRT_EINVAL, "kgrt_device_memory: device is NULL");
    pthread_mutex_lock(&d->cache_lock);
    if (in_use)
        *in_use = d->in_use;
    if (cached)
        *cached = d->cached;
    pthread_mutex_unlock(&d->cache_lock);
    return KGRT_OK;
}

int kgrt_buffer_alloc(kgrt_device *d, size_t bytes, kgrt_buffer **out)
{
    kgrt_buffer *b = NULL;
    size_t cap;
    int rc;
    kgrt_clear_error();
    if (out)
        *out = NULL;
    if (!d || !out)
        return kgrt_error(KGRT_EINVAL, "kgrt_buffer_alloc: NULL argument");
    if (bytes == 0)
        return kgrt_error(KGRT_EINVAL, "kgrt_buffer_alloc: 0 bytes");
    if ((rc = check_sticky(d)) < 0)
        return rc;
    if (d->limits.max_alloc && bytes > d->limits.max_alloc)
        return kgrt_error(KGRT_EOOM, "%zu bytes exceed the largest buffer "
                          "%s device %d can allocate (%zu)", bytes,
                          d->ops->name, d->info.index, d->limits.max_alloc);
    cap = d->caching ? round_size(bytes) : bytes;
    if (d->limits.max_alloc && cap > d->limits.max_alloc)
        cap = bytes;
    if (d->caching && (b = cache_take(d, cap)) != NULL) {
        b->size = bytes;
        *out = b;
        return KGRT_OK;
    }
    rc = d->ops->buffer_alloc(d, cap, &b);
    if (rc == KGRT_EOOM && d->caching && d->cached) {
        kgrt_device_empty_cache(d);
        rc = d->ops->buffer_alloc(d, cap, &b);
    }
    if ((rc = note_status(d, rc)) < 0)
        return rc;
    b->dev = d;
    b->size = bytes;
    b->cap = cap;
    b->next_free = NULL;
    pthread_mutex_lock(&d->cache_lock);
    d->in_use += cap;
    pthread_mutex_unlock(&d->cache_lock);
    *out = b;
    return KGRT_OK;
}

void kgrt_buffer_free(kgrt_buffer *b)
{
    kgrt_device *d;
    if (!b)
        return;
    d = b->dev;
    pthread_mutex_lock(&d->cache_lock);
    d->in_use -= b->cap;
    if (d->caching && !atomic_load(&d->sticky)) {
        b->next_free = d->cache;
        d->cache = b;
        d->cached += b->cap;
        b = NULL;
    }
    pthread_mutex_unlock(&d->cache_lock);
    if (b)
        d->ops->buffer_free(b);
}

void *kgrt_buffer_native(const kgrt_buffer *b)
{
    return b ? b->dev->ops->buffer_native(b) : NULL;
}

size_t kgrt_buffer_size(const kgrt_buffer *b)
{
    return b ? b->size : 0;
}

static int check_range(const char *fn, kgrt_buffer *b, size_t offset,
                       const void *p, size_t bytes)
{
    if (!b || (!p && bytes))
        return kgrt_error(KGRT_EINVAL, "%s: NULL argument", fn);
    if (offset > b->size || bytes > b->size - offset)
        return kgrt_error(KGRT_EINVAL, "%s: bytes [%zu, %zu+%zu) outside "
                          "the buffer of %zu", fn, offset, offset, bytes,
                          b->size);
    return check_sticky(b->dev);
}

int kgrt_buffer_write(kgrt_buffer *b, size_t offset, const void *src,
                      size_t bytes)
{
    int rc;
    kgrt_clear_error();
    if ((rc = check_range("kgrt_buffer_write", b, offset, src, bytes)) < 0)
        return rc;
    if (bytes == 0)
        return KGRT_OK;
    return note_status(b->dev,
                       b->dev->ops->buffer_write(b, offset, src, bytes));
}

int kgrt_buffer_read(kgrt_buffer *b, size_t offset, void *dst, size_t bytes)
{
    int rc;
    kgrt_clear_error();
    if ((rc = check_range("kgrt_buffer_read", b, offset, dst, bytes)) < 0)
        return rc;
    if (bytes == 0)
        return KGRT_OK;
    return note_status(b->dev, b->dev->ops->buffer_read(b, offset, dst, bytes));
}

int kgrt_buffer_fill(kgrt_buffer *b, const void *pattern, size_t pattern_size)
{
    int rc;
    kgrt_clear_error();
    if (!b || !pattern)
        return kgrt_error(KGRT_EINVAL, "kgrt_buffer_fill: NULL argument");
    if (pattern_size == 0 || pattern_size > 128 ||
        (pattern_size & (pattern_size - 1)) || b->size % pattern_size)
        return kgrt_error(KGRT_EINVAL, "kgrt_buffer_fill: pattern size %zu "
                          "is not a power of two <= 128 dividing the buffer "
                          "size %zu", pattern_size, b->size);
    if ((rc = check_sticky(b->dev)) < 0)
        return rc;
    return note_status(b->dev,
                       b->dev->ops->buffer_fill(b, pattern, pattern_size));
}

/* ---- modules and kernels --------------------------------------------------- */

int kgrt_module_load(kgrt_device *d, const kgrt_image *img, kgrt_module **out,
                     char **log)
{
    kgrt_module *m = NULL;
    int rc;
    kgrt_clear_error();
    if (out)
        *out = NULL;
    if (log)
        *log = NULL;
    if (!d || !img || !out)
        return kgrt_error(KGRT_EINVAL, "kgrt_module_load: NULL argument");
    if (!img->data || (img->kind == KGRT_IMAGE_CUBIN && img->size == 0))
        return kgrt_error(KGRT_EINVAL, "kgrt_module_load: empty image");
    if ((rc = check_sticky(d)) < 0)
        return rc;
    rc = note_status(d, d->ops->module_load(d, img, &m, log));
    if (rc < 0)
        return rc;
    m->dev = d;
    m->kernels = NULL;
    pthread_mutex_init(&m->lock, NULL);
    *out = m;
    return KGRT_OK;
}

void kgrt_module_unload(kgrt_module *m)
{
    kgrt_kernel *k, *next;
    if (!m)
        return;
    for (k = m->kernels; k; k = next) {
        next = k->next;
        free(k->name);
        m->dev->ops->kernel_release(k);
    }
    pthread_mutex_destroy(&m->lock);
    m->dev->ops->module_unload(m);
}

int kgrt_kernel_get(kgrt_module *m, const char *name, kgrt_kernel **out)
{
    kgrt_kernel *k;
    char *copy;
    int rc = KGRT_OK;
    kgrt_clear_error();
    if (out)
        *out = NULL;
    if (!m || !name || !out)
        return kgrt_error(KGRT_EINVAL, "kgrt_kernel_get: NULL argument");
    if (!name[0])
        return kgrt_error(KGRT_EINVAL, "kgrt_kernel_get: empty name");
    if ((rc = check_sticky(m->dev)) < 0)
        return rc;
    pthread_mutex_lock(&m->lock);
    for (k = m->kernels; k; k = k->next)
        if (!strcmp(k->name, name))
            goto found;
    if (!(copy = strdup(name))) {
        rc = kgrt_error(KGRT_ENOMEM, "out of memory");
        goto cleanup;
    }
    k = NULL;
    rc = note_status(m->dev, m->dev->ops->kernel_get(m, name, &k));
    if (rc < 0) {
        free(copy);
        goto cleanup;
    }
    k->mod = m;
    k->name = copy;
    k->next = m->kernels;
    m->kernels = k;
found:
    *out = k;
cleanup:
    pthread_mutex_unlock(&m->lock);
    return rc;
}

int kgrt_kernel_get_attrs(kgrt_kernel *k, kgrt_kernel_attrs *out)
{
    kgrt_clear_error();
    if (out)
        memset(out, 0, sizeof *out);
    if (!k || !out)
        return kgrt_error(KGRT_EINVAL, "kgrt_kernel_get_attrs: NULL argument");
    *out = k->attrs;
    return KGRT_OK;
}

static const char *arg_kind_name(kgrt_arg_kind kind)
{
    switch (kind) {
    case KGRT_ARG_BUFFER: return "buffer";
    case KGRT_ARG_I32: return "i32";
    case KGRT_ARG_I64: return "i64";
    case KGRT_ARG_F32: return "f32";
    case KGRT_ARG_BYTES: return "bytes";
    case KGRT_ARG_NATIVE: return "native";
    case KGRT_ARG_TMAP: return "tensor map";
    }
    return "?";
}

/* What cuTensorMapEncodeTiled would refuse, said in our words. */
static int check_tmap(const char *name, int i, const kgrt_tmap *m)
{
    size_t es = kgrt_dtype_size(m->dtype);
    if (m->rank < 1 || m->rank > KGRT_TMAP_RANK || !es)
        return kgrt_error(KGRT_EINVAL, "%s: argument %d: a tensor map of rank "
                          "%d over dtype %d", name, i, m->rank, m->dtype);
    if (m->swizzle != 0 && m->swizzle != 32 && m->swizzle != 64 &&
        m->swizzle != 128)
        return kgrt_error(KGRT_EINVAL, "%s: argument %d: swizzle %d", name, i,
                          m->swizzle);
    if (m->off % 16)
        return kgrt_error(KGRT_EINVAL, "%s: argument %d: the tensor map "
                          "starts %llu bytes in, not a multiple of 16", name,
                          i, (unsigned long long)m->off);
    for (int d = 0; d < m->rank; d++) {
        if (m->dims[d] < 1 || m->dims[d] > (1ull << 32) || m->box[d] < 1 ||
            m->box[d] > 256)
            return kgrt_error(KGRT_EINVAL, "%s: argument %d: tensor map dim "
                              "%d is %llu with a box of %u", name, i, d,
                              (unsigned long long)m->dims[d], m->box[d]);
        if (d > 0 && (m->strides[d - 1] % 16 || m->strides[d - 1] == 0))
            return kgrt_error(KGRT_EINVAL, "%s: argument %d: tensor map "
                              "stride %d is %llu bytes, not a non-zero "
                              "multiple of 16", name, i, d,
                              (unsigned long long)m->strides[d - 1]);
    }
    if (m->swizzle && m->box[0] * es > (size_t)m->swizzle)
        return kgrt_error(KGRT_EINVAL, "%s: argument %d: a box row of %zu "
                          "bytes is wider than the %d-byte swizzle", name, i,
                          m->box[0] * es, m->swizzle);
    return KGRT_OK;
}

/* The backend-independent checks of a launch. */
static int check_launch(kgrt_kernel *k, const unsigned grid[3],
                        const unsigned block[3], size_t dyn,
                        const kgrt_arg *args, int nargs)
{
    kgrt_device *d;
    const kgrt_limits *lim;
    unsigned long long threads;
    int i, rc;

    if (!k || !grid || !block || nargs < 0 || (nargs > 0 && !args))
        return kgrt_error(KGRT_EINVAL, "kgrt_launch: NULL argument");
    d = k->mod->dev;
    lim = &d->limits;
    for (i = 0; i < 3; i++)
        if (grid[i] == 0 || block[i] == 0)
            return kgrt_error(KGRT_EINVAL, "%s: grid %ux%ux%u block %ux%ux%u "
                              "has an empty axis", k->name, grid[0], grid[1],
                              grid[2], block[0], block[1], block[2]);
    for (i = 0; i < nargs; i++) {
        const kgrt_arg *a = &args[i];
        switch (a->kind) {
        case KGRT_ARG_BUFFER:
            if (!a->buf)
                return kgrt_error(KGRT_EINVAL, "%s: argument %d is a NULL "
                                  "buffer", k->name, i);
            if (a->buf->dev != d)
                return kgrt_error(KGRT_EINVAL, "%s: argument %d is a buffer "
                                  "of another device", k->name, i);
            break;
        case KGRT_ARG_I32: case KGRT_ARG_I64: case KGRT_ARG_F32:
            break;
        case KGRT_ARG_BYTES:
            if (!a->bytes || a->size == 0)
                return kgrt_error(KGRT_EINVAL, "%s: argument %d: empty "
                                  "bytes", k->name, i);
            break;
        case KGRT_ARG_NATIVE:
            if (!a->bytes)
                return kgrt_error(KGRT_EINVAL, "%s: argument %d is a NULL "
                                  "pointer", k->name, i);
            if (a->size && lim->base_align > 1 && a->size % lim->base_align)
                return kgrt_error(KGRT_EINVAL, "%s: argument %d: offset %zu "
                                  "is not a multiple of the device's base "
                                  "alignment %zu", k->name, i, a->size,
                                  lim->base_align);
            break;
        case KGRT_ARG_TMAP:
            if (d->info.backend != KGRT_CUDA)
                return kgrt_error(KGRT_EINVAL, "%s: argument %d: tensor maps "
                                  "are CUDA's", k->name, i);
            if (!a->tmap || (!a->buf && !a->bytes))
                return kgrt_error(KGRT_EINVAL, "%s: argument %d: a tensor "
                                  "map needs memory and a layout", k->name, i);
            if (a->buf && a->buf->dev != d)
                return kgrt_error(KGRT_EINVAL, "%s: argument %d is a buffer "
                                  "of another device", k->name, i);
            if ((rc = check_tmap(k->name, i, a->tmap)) < 0)
                return rc;
            break;
        default:
            return kgrt_error(KGRT_EINVAL, "%s: argument %d has an invalid "
                              "kind %d", k->name, i, (int)a->kind);
        }
    }
    if (k->nparams >= 0) {
        if (nargs != k->nparams)
            return kgrt_error(KGRT_EINVAL, "%s takes %d arguments, %d given",
                              k->name, k->nparams, nargs);
        for (i = 0; i < nargs; i++)
            if (k->param_size && k->param_size[i] &&
                k->param_size[i] != kgrt_arg_size(&args[i]))
                return kgrt_error(KGRT_EINVAL, "%s: argument %d is %s (%zu "
                                  "bytes) but the kernel's parameter has %zu",
                                  k->name, i, arg_kind_name(args[i].kind),
                                  kgrt_arg_size(&args[i]), k->param_size[i]);
    }

    threads = (unsigned long long)block[0] * block[1] * block[2];
    for (i = 0; i < 3; i++) {
        if (lim->max_block[i] && block[i] > lim->max_block[i])
            return kgrt_error(KGRT_ERESOURCE, "%s: block %ux%ux%u: axis %c "
                              "over the device's maximum %u", k->name,
                              block[0], block[1], block[2], "xyz"[i],
                              lim->max_block[i]);
        if (lim->max_grid[i] && grid[i] > lim->max_grid[i])
            return kgrt_error(KGRT_ERESOURCE, "%s: grid %ux%ux%u: axis %c "
                              "over the device's maximum %u", k->name,
                              grid[0], grid[1], grid[2], "xyz"[i],
                              lim->max_grid[i]);
    }
    if (lim->max_threads_per_block > 0 &&
        threads > (unsigned long long)lim->max_threads_per_block)
        return kgrt_error(KGRT_ERESOURCE, "%s: block %ux%ux%u = %llu threads "
                          "over the device's maximum %d", k->name, block[0],
                          block[1], block[2], threads,
                          lim->max_threads_per_block);
    if (k->attrs.max_threads_per_block > 0 &&
        threads > (unsigned long long)k->attrs.max_threads_per_block)
        return kgrt_error(KGRT_ERESOURCE, "%s: block %ux%ux%u = %llu threads "
                          "over the kernel's maximum %d (registers %d)",
                          k->name, block[0], block[1], block[2], threads,
                          k->attrs.max_threads_per_block, k->attrs.registers);
    if (lim->max_shared_per_block &&
        (dyn > lim->max_shared_per_block ||
         k->attrs.shared_static > lim->max_shared_per_block - dyn))
        return kgrt_error(KGRT_ERESOURCE, "%s: %zu bytes of static and %zu of "
                          "dynamic shared memory over the device's maximum "
                          "%zu", k->name, k->attrs.shared_static, dyn,
                          lim->max_shared_per_block);
    return check_sticky(d);
}

/* The launch log: a FILE once set, by kgrt_set_launch_log or from
 * $KGRT_LAUNCH_LOG at the first launch.  log_on lets every launch test it
 * without the lock. */
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t log_once = PTHREAD_ONCE_INIT;
static FILE *log_fp;
static atomic_bool log_on;

static int open_log(const char *path)
{
    FILE *fp = NULL;
    if (path && *path) {
        if (strcmp(path, "-") == 0 || strcmp(path, "stderr") == 0)
            fp = stderr;
        else if (!(fp = fopen(path, "a")))
            return kgrt_error(KGRT_EINVAL, "launch log %s: %s", path,
                              strerror(errno));
    }
    if (log_fp && log_fp != stderr)
        fclose(log_fp);
    log_fp = fp;
    atomic_store(&log_on, fp != NULL);
    return KGRT_OK;
}

static void log_from_env(void)
{
    pthread_mutex_lock(&log_lock);
    open_log(getenv("KGRT_LAUNCH_LOG"));
    pthread_mutex_unlock(&log_lock);
}

int kgrt_set_launch_log(const char *path)
{
    int rc;
    kgrt_clear_error();
    pthread_once(&log_once, log_from_env);
    pthread_mutex_lock(&log_lock);
    rc = open_log(path);
    pthread_mutex_unlock(&log_lock);
    return rc;
}

static bool logging(void)
{
    pthread_once(&log_once, log_from_env);
    return atomic_load(&log_on);
}

static void log_launch(const kgrt_kernel *k, const unsigned grid[3],
                       const unsigned block[3], double ms)
{
    pthread_mutex_lock(&log_lock);
    if (log_fp) {
        fprintf(log_fp, "kgrt: %s grid %u,%u,%u block %u,%u,%u %.4f ms\n",
                k->name, grid[0], grid[1], grid[2], block[0], block[1],
                block[2], ms);
        fflush(log_fp);
    }
    pthread_mutex_unlock(&log_lock);
}

static int launch(kgrt_kernel *k, kgrt_stream *s, const unsigned grid[3],
                  const unsigned block[3], size_t dyn, const kgrt_arg *args,
                  int nargs, double *ms, unsigned flags)
{
    kgrt_device *d;
    double t = 0;
    int rc;
    if ((rc = check_launch(k, grid, block, dyn, args, nargs)) < 0)
        return rc;
    d = k->mod->dev;
    if (!s)
        s = &d->stream0;
    if (s->dev != d)
        return kgrt_error(KGRT_EINVAL, "%s: the stream belongs to another "
                          "device", k->name);
    if (!ms && logging())
        ms = &t;
    rc = note_status(d, d->ops->launch(k, s->native, grid, block, dyn, args,
                                       nargs, ms, ms ? 0 : flags));
    if (rc == KGRT_OK && ms == &t)
        log_launch(k, grid, block, t);
    return rc;
}

int kgrt_launch(kgrt_kernel *k, const unsigned grid[3], const unsigned block[3],
                size_t dynamic_shared, const kgrt_arg *args, int nargs)
{
    kgrt_clear_error();
    return launch(k, NULL, grid, block, dynamic_shared, args, nargs, NULL, 0);
}

int kgrt_launch_on(kgrt_kernel *k, kgrt_stream *s, const unsigned grid[3],
                   const unsigned block[3], size_t dynamic_shared,
                   const kgrt_arg *args, int nargs)
{
    kgrt_clear_error();
    return launch(k, s, grid, block, dynamic_shared, args, nargs, NULL, 0);
}

int kgrt_launch_flags(kgrt_kernel *k, kgrt_stream *s, const unsigned grid[3],
                      const unsigned block[3], size_t dynamic_shared,
                      const kgrt_arg *args, int nargs, unsigned flags)
{
    kgrt_clear_error();
    return launch(k, s, grid, block, dynamic_shared, args, nargs, NULL, flags);
}

int kgrt_launch_timed(kgrt_kernel *k, const unsigned grid[3],
                      const unsigned block[3], size_t dynamic_shared,
                      const kgrt_arg *args, int nargs, double *ms)
{
    int rc;
    kgrt_clear_error();
    if (ms)
        *ms = 0;
    if (!ms)
        return kgrt_error(KGRT_EINVAL, "kgrt_launch_timed: ms is NULL");
    rc = launch(k, NULL, grid, block, dynamic_shared, args, nargs, ms, 0);
    if (rc < 0)
        *ms = 0;
    return rc;
}

/* ---- streams and events -------------------------------------------------- */

kgrt_stream *kgrt_device_stream(kgrt_device *d)
{
    return d ? &d->stream0 : NULL;
}

kgrt_device *kgrt_stream_device(const kgrt_stream *s)
{
    return s ? s->dev : NULL;
}

static int stream_new(kgrt_device *d, void *wrap, bool create,
                      kgrt_stream **out)
{
    kgrt_stream *s;
    int rc;
    kgrt_clear_error();
    if (out)
        *out = NULL;
    if (!d || !out)
        return kgrt_error(KGRT_EINVAL, "kgrt_stream: NULL argument");
    if ((rc = check_sticky(d)) < 0)
        return rc;
    if (!(s = calloc(1, sizeof *s)))
        return kgrt_error(KGRT_ENOMEM, "out of memory");
    s->dev = d;
    s->owned = create;
    if ((rc = note_status(d, d->ops->stream_create(d, wrap, create,
                                                   &s->native))) < 0) {
        free(s);
        return rc;
    }
    *out = s;
    return KGRT_OK;
}

int kgrt_stream_create(kgrt_device *d, kgrt_stream **out)
{
    return stream_new(d, NULL, true, out);
}

int kgrt_stream_wrap(kgrt_device *d, void *native, kgrt_stream **out)
{
    return stream_new(d, native, false, out);
}

void kgrt_stream_destroy(kgrt_stream *s)
{
    if (!s || s == &s->dev->stream0)
        return;
    s->dev->ops->stream_destroy(s->dev, s->native, s->owned);
    free(s);
}

int kgrt_stream_synchronize(kgrt_stream *s)
{
    int rc;
    kgrt_clear_error();
    if (!s)
        return kgrt_error(KGRT_EINVAL, "kgrt_stream_synchronize: stream is "
                          "NULL");
    if ((rc = check_sticky(s->dev)) < 0)
        return rc;
    return note_status(s->dev, s->dev->ops->stream_sync(s->dev, s->native));
}

int kgrt_event_create(kgrt_device *d, kgrt_event **out)
{
    kgrt_event *e;
    kgrt_clear_error();
    if (out)
        *out = NULL;
    if (!d || !out)
        return kgrt_error(KGRT_EINVAL, "kgrt_event_create: NULL argument");
    if (!(e = calloc(1, sizeof *e)))
        return kgrt_error(KGRT_ENOMEM, "out of memory");
    e->dev = d;
    *out = e;
    return KGRT_OK;
}

void kgrt_event_destroy(kgrt_event *e)
{
    if (!e)
        return;
    if (e->native)
        e->dev->ops->event_destroy(e->dev, e->native);
    free(e);
}

int kgrt_event_record(kgrt_event *e, kgrt_stream *s)
{
    void *ev = NULL;
    int rc;
    kgrt_clear_error();
    if (!e || !s)
        return kgrt_error(KGRT_EINVAL, "kgrt_event_record: NULL argument");
    if (s->dev != e->dev)
        return kgrt_error(KGRT_EINVAL, "kgrt_event_record: the event and "
                          "the stream belong to different devices");
    if ((rc = check_sticky(e->dev)) < 0)
        return rc;
    if ((rc = note_status(e->dev, e->dev->ops->event_record(e->dev, s->native,
                                                            &ev))) < 0)
        return rc;
    if (e->native)
        e->dev->ops->event_destroy(e->dev, e->native);
    e->native = ev;
    return KGRT_OK;
}

int kgrt_event_synchronize(kgrt_event *e)
{
    kgrt_clear_error();
    if (!e)
        return kgrt_error(KGRT_EINVAL, "kgrt_event_synchronize: event is "
                          "NULL");
    if (!e->native)
        return kgrt_error(KGRT_EINVAL, "kgrt_event_synchronize: the event "
                          "was never recorded");
    return note_status(e->dev, e->dev->ops->event_sync(e->dev, e->native));
}

int kgrt_event_elapsed(kgrt_event *start, kgrt_event *end, double *ms)
{
    kgrt_clear_error();
    if (ms)
        *ms = 0;
    if (!start || !end || !ms)
        return kgrt_error(KGRT_EINVAL, "kgrt_event_elapsed: NULL argument");
    if (!start->native || !end->native)
        return kgrt_error(KGRT_EINVAL, "kgrt_event_elapsed: an event was "
                          "never recorded");
    if (start->dev != end->dev)
        return kgrt_error(KGRT_EINVAL, "kgrt_event_elapsed: events of "
                          "different devices");
    return note_status(start->dev,
                       start->dev->ops->event_elapsed(start->dev, start->native,
                                                      end->native, ms));
}

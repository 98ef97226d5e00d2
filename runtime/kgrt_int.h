/*
 * kgrt_int.h -- private to runtime/: the backend vtable, the common heads
 * of the runtime's objects, and error helpers.
 *
 * kgrt.c owns the public entry points, the argument checks every backend
 * would otherwise repeat (ranges, launch shapes against the limits, the
 * sticky-device latch), the per-module kernel table and the per-thread
 * error message.  Each backend file (cuda.c, opencl.c) fills one
 * kgrt_backend_ops and allocates its objects as a struct whose first member
 * is the common head below (struct cu_buffer { kgrt_buffer base; ... }), so
 * a kgrt_buffer * converts to the backend's type and back.
 *
 * Backend functions get arguments already checked by kgrt.c (pointers not
 * NULL, index >= 0, ranges within buffers, launch shapes within limits)
 * and report failures through kgrt_error().
 */
#ifndef KGEN_KGRT_INT_H
#define KGEN_KGRT_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "kgen/kgrt.h"

typedef struct kgrt_backend_ops kgrt_backend_ops;

struct kgrt_stream {
    kgrt_device *dev;
    void *native;                    /* CUstream / cl_command_queue */
    bool owned;                      /* created here: destroy the native */
};

struct kgrt_event {
    kgrt_device *dev;
    void *native;                    /* CUevent / cl_event; NULL: not
                                        recorded yet */
};

struct kgrt_device {
    const kgrt_backend_ops *ops;     /* set by kgrt.c after open */
    kgrt_device_info info;           /* filled by the backend's open */
    kgrt_limits limits;              /* filled by the backend's open */
    _Atomic double timeout_ms;       /* 0: waits are unbounded */
    atomic_int sticky;               /* set once: the device has faulted */
    char sticky_msg[256];            /* written before sticky is set */
    kgrt_stream stream0;             /* the device's own stream: native set
                                        by the backend's open */
    /* the caching allocator (kgrt.c) */
    pthread_mutex_t cache_lock;
    kgrt_buffer *cache;              /* free blocks, a list */
    size_t cached, in_use;           /* bytes */
    bool caching;
};

struct kgrt_buffer {
    kgrt_device *dev;
    size_t size;                     /* as asked */
    size_t cap;                      /* as allocated */
    kgrt_buffer *next_free;          /* in dev->cache */
};

struct kgrt_kernel {
    kgrt_module *mod;
    kgrt_kernel *next;               /* the module's list */
    char *name;
    kgrt_kernel_attrs attrs;         /* filled by the backend */
    int nparams;                     /* -1 when the backend cannot tell */
    size_t *param_size;              /* nparams entries when known (owned
                                        by the backend's kernel) */
    bool grid_dep;                   /* its PTX waits for the grid before
                                        it (KG_GRID_DEP): fused.c launches
                                        it with KGRT_LAUNCH_AFTER */
};

struct kgrt_module {
    kgrt_device *dev;
    pthread_mutex_t lock;            /* guards kernels */
    kgrt_kernel *kernels;
};

struct kgrt_backend_ops {
    const char *name;                         /* "cuda", "opencl" */
    /* >= 0 devices, or a negative status; on 0 the reason is set. */
    int (*device_count)(void);
    /* KGRT_OK or a negative status; index may be >= the count. */
    int (*device_info)(int index, kgrt_device_info *out);

    /* Allocate and fill a device (info, limits); index may be too high
     * (KGRT_ENODEVICE).  kgrt.c sets ops, index and backend. */
    int (*device_open)(int index, kgrt_device **out);
    void (*device_close)(kgrt_device *d);
    /* Waits honour d->timeout_ms. */
    int (*synchronize)(kgrt_device *d);

    int (*buffer_alloc)(kgrt_device *d, size_t bytes, kgrt_buffer **out);
    void (*buffer_free)(kgrt_buffer *b);
    int (*buffer_write)(kgrt_buffer *b, size_t off, const void *src, size_t n);
    int (*buffer_read)(kgrt_buffer *b, size_t off, void *dst, size_t n);
    /* psize a power of two <= 128 dividing b->size. */
    int (*buffer_fill)(kgrt_buffer *b, const void *pattern, size_t psize);

    /* img->kind is checked by the backend; log may be NULL. */
    int (*module_load)(kgrt_device *d, const kgrt_image *img,
                       kgrt_module **out, char **log);
    void (*module_unload)(kgrt_module *m);    /* kernels already released */
    /* Allocate a kernel and fill attrs, nparams, param_size. */
    int (*kernel_get)(kgrt_module *m, const char *name, kgrt_kernel **out);
    void (*kernel_release)(kgrt_kernel *k);
    void *(*buffer_native)(const kgrt_buffer *b);

    /* Streams: create a native stream (wrap == NULL and create), or check
     * and retain a foreign one; destroy what stream_create made. */
    int (*stream_create)(kgrt_device *d, void *wrap, bool create,
                         void **native);
    void (*stream_destroy)(kgrt_device *d, void *native, bool owned);
    int (*stream_sync)(kgrt_device *d, void *native);   /* honours timeout */
    /* A new native event after the work queued on stream so far. */
    int (*event_record)(kgrt_device *d, void *stream, void **ev);
    int (*event_sync)(kgrt_device *d, void *ev);
    int (*event_elapsed)(kgrt_device *d, void *a, void *b, double *ms);
    void (*event_destroy)(kgrt_device *d, void *ev);

    /* Launch on stream (a native handle); with ms != NULL wait for it and
     * time it.  flags: KGRT_LAUNCH_* below. */
    int (*launch)(kgrt_kernel *k, void *stream, const unsigned grid[3],
                  const unsigned block[3], size_t dynamic_shared,
                  const kgrt_arg *args, int nargs, double *ms,
                  unsigned flags);
};

/* The kernel may begin launching while the kernel before it in the stream
 * still runs (CUDA's programmatic stream serialization, sm_90 and newer):
 * for kernels whose every block first waits for that grid to finish
 * (templates/lib.lua's KG_GRID_DEP).  A backend that cannot overlap
 * launches ignores it, and so does a timed launch. */
#define KGRT_LAUNCH_AFTER 1u

/* kgrt_launch_on with flags: the fused forward's launches (fused.c). */
int kgrt_launch_flags(kgrt_kernel *k, kgrt_stream *s, const unsigned grid[3],
                      const unsigned block[3], size_t dynamic_shared,
                      const kgrt_arg *args, int nargs, unsigned flags);

extern const kgrt_backend_ops kgrt_cuda_ops;
extern const kgrt_backend_ops kgrt_opencl_ops;

/* Set this thread's last error and return status (for `return kgrt_error(...)`);
 * the public kgrt_set_error under the name the backends use. */
#define kgrt_error kgrt_set_error
/* Set the message without a status (the "why zero devices" case). */
void kgrt_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void kgrt_clear_error(void);

/* Copy src into dst[n], truncating; dst is always NUL-terminated. */
void kgrt_copy(char *dst, size_t n, const char *src);

/* A malloc'd copy of a compiler log with trailing blank space removed;
 * NULL when it is empty (or on allocation failure). */
char *kgrt_log_dup(const char *text, size_t n);
/* The first line of log that says "error" (else its first non-empty line),
 * copied into dst[n]; "" for NULL. */
void kgrt_log_first_error(const char *log, char *dst, size_t n);

/* Bytes a kgrt_arg occupies as a kernel parameter. */
size_t kgrt_arg_size(const kgrt_arg *a);

/* Monotonic wall time in milliseconds, and one step of a polling wait that
 * sleeps 20 us at first and backs off to 1 ms.  Returns false once
 * timeout_ms (> 0) has passed since start_ms. */
double kgrt_now_ms(void);
bool kgrt_poll_wait(double start_ms, double timeout_ms, unsigned *sleep_us);

#endif

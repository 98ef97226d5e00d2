/*
 * kgrt_int.h -- private to runtime/: the backend vtable and error helpers.
 *
 * kgrt.c owns the public entry points and the per-thread error message; each
 * backend file (cuda.c, opencl.c) fills one kgrt_backend_ops.  Backend
 * functions get arguments already checked by kgrt.c (index >= 0, out not
 * NULL) and report failures through kgrt_error().
 */
#ifndef KGEN_KGRT_INT_H
#define KGEN_KGRT_INT_H

#include <stddef.h>

#include "kgen/kgrt.h"

typedef struct kgrt_backend_ops {
    const char *name;                         /* "cuda", "opencl" */
    /* >= 0 devices, or a negative status; on 0 the reason is set. */
    int (*device_count)(void);
    /* KGRT_OK or a negative status; index may be >= the count. */
    int (*device_info)(int index, kgrt_device_info *out);
} kgrt_backend_ops;

extern const kgrt_backend_ops kgrt_cuda_ops;
extern const kgrt_backend_ops kgrt_opencl_ops;

/* Set this thread's last error and return status (for `return kgrt_error(...)`). */
int kgrt_error(int status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Set the message without a status (the "why zero devices" case). */
void kgrt_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void kgrt_clear_error(void);

/* Copy src into dst[n], truncating; dst is always NUL-terminated. */
void kgrt_copy(char *dst, size_t n, const char *src);

#endif

/*
 * kgrt.c -- the runtime's public entry points and its error channel.
 *
 * Every public call checks its arguments here, clears this thread's last
 * error, and dispatches to a backend through kgrt_backend_ops.  The runtime
 * never prints and never exits: failures come back as negative kgrt_status
 * values with the reason in a _Thread_local buffer (libgit2's
 * git_error_last), so concurrent callers never see each other's messages.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "kgrt_int.h"

static _Thread_local char last_error[512];

int kgrt_error(int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    return status;
}

void kgrt_note(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
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

const char *kgrt_last_error(void)
{
    return last_error;
}

const char *kgrt_status_string(int status)
{
    switch (status) {
    case KGRT_OK: return "success";
    case KGRT_EINVAL: return "invalid argument";
    case KGRT_ENOBACKEND: return "backend not available";
    case KGRT_EDRIVER: return "driver error";
    case KGRT_ENOMEM: return "out of memory";
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

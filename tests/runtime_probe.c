/*
 * runtime_probe.c -- kgrt as a libfused user sees it.
 *
 * A plain C program that includes only <kgen/kgrt.h> and links only kgrt
 * (so the public header stands alone and kgrt needs nothing of the
 * compiler).  It lists every backend's devices, or why there are none, and
 * fails only when the runtime breaks its own contract: a count or info call
 * that fails without a message, a device whose info cannot be read, or an
 * empty device name.  Having no device at all is not a failure.
 */
#include <stdio.h>
#include <string.h>

#include <kgen/kgrt.h>

static int probe(kgrt_backend b)
{
    const char *name = kgrt_backend_name(b);
    int n = kgrt_device_count(b), i, bad = 0;

    if (n < 0 || n == 0) {
        const char *why = kgrt_last_error();
        printf("%-7s %s%s%s\n", name, n < 0 ? kgrt_status_string(n) : "no device",
               ": ", why);
        if (!why[0]) {
            fprintf(stderr, "%s: count %d without a message\n", name, n);
            return 1;
        }
        return 0;
    }
    for (i = 0; i < n; i++) {
        kgrt_device_info info;
        int rc = kgrt_device_info_get(b, i, &info);
        if (rc != KGRT_OK) {
            fprintf(stderr, "%s:%d: %s: %s\n", name, i, kgrt_status_string(rc),
                    kgrt_last_error());
            bad = 1;
            continue;
        }
        printf("%-7s %d  %s  %s  %.1f GiB  %s\n", name, i, info.name, info.arch,
               (double)info.mem_bytes / (1024.0 * 1024 * 1024), info.driver);
        if (!info.name[0] || !info.arch[0] || info.index != i ||
            info.backend != b) {
            fprintf(stderr, "%s:%d: incomplete device info\n", name, i);
            bad = 1;
        }
    }
    return bad;
}

int main(void)
{
    int bad = 0;
    bad |= probe(KGRT_CUDA);
    bad |= probe(KGRT_OPENCL);
    return bad;
}

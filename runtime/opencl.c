/*
 * opencl.c -- the OpenCL backend of kgrt, through the ICD loader.
 *
 * Devices of every platform are numbered in one sequence, in the order the
 * loader reports platforms and each platform its devices; PoCL on the CPU is
 * the device CI tests on.  Enumeration caches nothing: the list is re-read
 * on every query, which is cheap next to any real OpenCL work.
 *
 * An open device is a context of its own and one in-order command queue
 * with profiling enabled, so kernel times come from the queue's event
 * timestamps.  Kernel arguments live in the cl_kernel object, so a launch
 * sets them and enqueues under the kernel's mutex.  Failures are classified
 * by where they happen: enqueue-time resource errors (work-group size,
 * CL_OUT_OF_RESOURCES) are KGRT_ERESOURCE, a kernel that ends with an error
 * status is KGRT_ELAUNCH.  Without KGEN_WITH_OPENCL the backend exists but
 * reports KGRT_ENOBACKEND.
 */
#include "kgrt_int.h"

#ifdef KGEN_WITH_OPENCL

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#ifndef CL_PLATFORM_NOT_FOUND_KHR
#define CL_PLATFORM_NOT_FOUND_KHR -1001   /* cl_khr_icd */
#endif
#define KG_CL_DEVICE_WARP_SIZE_NV 0x4003        /* cl_nv_device_attribute_query */
#define KG_CL_DEVICE_WAVEFRONT_WIDTH_AMD 0x4043 /* cl_amd_device_attribute_query */

typedef struct ocl_device {
    kgrt_device base;
    cl_device_id dev;
    cl_context ctx;
    cl_command_queue queue;
} ocl_device;

typedef struct ocl_buffer {
    kgrt_buffer base;
    cl_mem mem;
} ocl_buffer;

typedef struct ocl_module {
    kgrt_module base;
    cl_program prog;
} ocl_module;

typedef struct ocl_kernel {
    kgrt_kernel base;
    cl_kernel kern;
    pthread_mutex_t lock;      /* arguments are state of the cl_kernel */
} ocl_kernel;

#define DEV(d) ((ocl_device *)(d))

/* Every OpenCL 1.2 error code, by name. */
#define CL_ERRORS(X) \
    X(CL_DEVICE_NOT_FOUND) X(CL_DEVICE_NOT_AVAILABLE) \
    X(CL_COMPILER_NOT_AVAILABLE) X(CL_MEM_OBJECT_ALLOCATION_FAILURE) \
    X(CL_OUT_OF_RESOURCES) X(CL_OUT_OF_HOST_MEMORY) \
    X(CL_PROFILING_INFO_NOT_AVAILABLE) X(CL_MEM_COPY_OVERLAP) \
    X(CL_IMAGE_FORMAT_MISMATCH) X(CL_IMAGE_FORMAT_NOT_SUPPORTED) \
    X(CL_BUILD_PROGRAM_FAILURE) X(CL_MAP_FAILURE) \
    X(CL_MISALIGNED_SUB_BUFFER_OFFSET) \
    X(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST) \
    X(CL_COMPILE_PROGRAM_FAILURE) X(CL_LINKER_NOT_AVAILABLE) \
    X(CL_LINK_PROGRAM_FAILURE) X(CL_DEVICE_PARTITION_FAILED) \
    X(CL_KERNEL_ARG_INFO_NOT_AVAILABLE) X(CL_INVALID_VALUE) \
    X(CL_INVALID_DEVICE_TYPE) X(CL_INVALID_PLATFORM) X(CL_INVALID_DEVICE) \
    X(CL_INVALID_CONTEXT) X(CL_INVALID_QUEUE_PROPERTIES) \
    X(CL_INVALID_COMMAND_QUEUE) X(CL_INVALID_HOST_PTR) \
    X(CL_INVALID_MEM_OBJECT) X(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR) \
    X(CL_INVALID_IMAGE_SIZE) X(CL_INVALID_SAMPLER) X(CL_INVALID_BINARY) \
    X(CL_INVALID_BUILD_OPTIONS) X(CL_INVALID_PROGRAM) \
    X(CL_INVALID_PROGRAM_EXECUTABLE) X(CL_INVALID_KERNEL_NAME) \
    X(CL_INVALID_KERNEL_DEFINITION) X(CL_INVALID_KERNEL) \
    X(CL_INVALID_ARG_INDEX) X(CL_INVALID_ARG_VALUE) X(CL_INVALID_ARG_SIZE) \
    X(CL_INVALID_KERNEL_ARGS) X(CL_INVALID_WORK_DIMENSION) \
    X(CL_INVALID_WORK_GROUP_SIZE) X(CL_INVALID_WORK_ITEM_SIZE) \
    X(CL_INVALID_GLOBAL_OFFSET) X(CL_INVALID_EVENT_WAIT_LIST) \
    X(CL_INVALID_EVENT) X(CL_INVALID_OPERATION) X(CL_INVALID_GL_OBJECT) \
    X(CL_INVALID_BUFFER_SIZE) X(CL_INVALID_MIP_LEVEL) \
    X(CL_INVALID_GLOBAL_WORK_SIZE) X(CL_INVALID_PROPERTY) \
    X(CL_INVALID_IMAGE_DESCRIPTOR) X(CL_INVALID_COMPILER_OPTIONS) \
    X(CL_INVALID_LINKER_OPTIONS) X(CL_INVALID_DEVICE_PARTITION_COUNT) \
    X(CL_PLATFORM_NOT_FOUND_KHR)

static _Thread_local char cl_errbuf[32];

/* The name of an OpenCL error code ("CL_INVALID_WORK_GROUP_SIZE"). */
static const char *cl_errname(cl_int e)
{
    switch (e) {
#define CASE(name) case name: return #name;
    CL_ERRORS(CASE)
#undef CASE
    }
    snprintf(cl_errbuf, sizeof cl_errbuf, "OpenCL error %d", (int)e);
    return cl_errbuf;
}

/* The status of a failed call outside launches and builds. */
static int cl_status(cl_int e)
{
    switch (e) {
    case CL_OUT_OF_HOST_MEMORY:
        return KGRT_ENOMEM;
    case CL_MEM_OBJECT_ALLOCATION_FAILURE:
    case CL_INVALID_BUFFER_SIZE:
        return KGRT_EOOM;
    }
    return KGRT_EDRIVER;
}

static int cl_fail(const char *what, cl_int e)
{
    return kgrt_error(cl_status(e), "%s: %s", what, cl_errname(e));
}

/* ---- enumeration --------------------------------------------------------- */

/* The platform list; *np = 0 and the reason noted when there is none. */
static int get_platforms(cl_platform_id **out, cl_uint *np)
{
    cl_int e;

    *out = NULL;
    *np = 0;
    e = clGetPlatformIDs(0, NULL, np);
    if (e == CL_PLATFORM_NOT_FOUND_KHR || (e == CL_SUCCESS && *np == 0)) {
        *np = 0;
        kgrt_note("no OpenCL platform (no ICD installed, e.g. "
                  "pocl-opencl-icd)");
        return KGRT_OK;
    }
    if (e != CL_SUCCESS)
        return kgrt_error(KGRT_EDRIVER, "clGetPlatformIDs failed: %s",
                          cl_errname(e));
    *out = calloc(*np, sizeof **out);
    if (!*out)
        return kgrt_error(KGRT_ENOMEM, "out of memory listing OpenCL "
                          "platforms");
    e = clGetPlatformIDs(*np, *out, NULL);
    if (e != CL_SUCCESS) {
        free(*out);
        *out = NULL;
        *np = 0;
        return kgrt_error(KGRT_EDRIVER, "clGetPlatformIDs failed: %s",
                          cl_errname(e));
    }
    return KGRT_OK;
}

/* Devices of one platform; 0 when it has none (or fails: noted). */
static cl_uint platform_ndev(cl_platform_id p)
{
    cl_uint nd = 0;
    cl_int e = clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, NULL, &nd);
    if (e == CL_DEVICE_NOT_FOUND)
        return 0;
    if (e != CL_SUCCESS) {
        kgrt_note("clGetDeviceIDs failed: %s", cl_errname(e));
        return 0;
    }
    return nd;
}

static int opencl_device_count(void)
{
    cl_platform_id *plat = NULL;
    cl_uint np = 0, i;
    long total = 0;
    int rc = get_platforms(&plat, &np);

    if (rc < 0 || np == 0)
        goto cleanup;
    for (i = 0; i < np; i++)
        total += platform_ndev(plat[i]);
    if (total == 0 && !kgrt_last_error()[0])
        kgrt_note("%u OpenCL platform(s) but no device", (unsigned)np);
    rc = total > 0x7fffffff ? 0x7fffffff : (int)total;
cleanup:
    free(plat);
    return rc;
}

/* Find device index (over all platforms).  KGRT_OK, or out_of_range (with
 * the message set) when there is no such device, or another status. */
static int find_device(int index, int out_of_range, cl_platform_id *pout,
                       cl_device_id *dout)
{
    cl_platform_id *plat = NULL;
    cl_device_id *devs = NULL;
    cl_uint np = 0, nd = 0, i;
    cl_int e;
    int local = index;
    int rc = get_platforms(&plat, &np);

    if (rc < 0)
        goto cleanup;
    for (i = 0; i < np; i++) {
        nd = platform_ndev(plat[i]);
        if ((cl_uint)local < nd)
            break;
        local -= (int)nd;
    }
    if (i == np) {
        if (np == 0)
            rc = kgrt_error(out_of_range, "opencl device index %d out of "
                            "range (0 devices: %s)", index,
                            kgrt_last_error());
        else
            rc = kgrt_error(out_of_range, "opencl device index %d out of "
                            "range (%d devices)", index, index - local);
        goto cleanup;
    }
    devs = calloc(nd, sizeof *devs);
    if (!devs) {
        rc = kgrt_error(KGRT_ENOMEM, "out of memory listing OpenCL devices");
        goto cleanup;
    }
    if ((e = clGetDeviceIDs(plat[i], CL_DEVICE_TYPE_ALL, nd, devs, NULL)) !=
        CL_SUCCESS) {
        rc = kgrt_error(KGRT_EDRIVER, "clGetDeviceIDs: %s", cl_errname(e));
        goto cleanup;
    }
    *pout = plat[i];
    *dout = devs[local];
    rc = KGRT_OK;
cleanup:
    free(devs);
    free(plat);
    return rc;
}

/* Copy a string-valued device or platform property into dst[n], trimming
 * the spaces some drivers pad names with. */
static cl_int info_str(cl_device_id dev, cl_platform_id plat, cl_uint what,
                       char *dst, size_t n)
{
    size_t len = 0, start = 0;
    char *tmp;
    cl_int e = dev ? clGetDeviceInfo(dev, what, 0, NULL, &len)
                   : clGetPlatformInfo(plat, what, 0, NULL, &len);
    if (e != CL_SUCCESS)
        return e;
    tmp = calloc(len + 1, 1);
    if (!tmp)
        return CL_OUT_OF_HOST_MEMORY;
    e = dev ? clGetDeviceInfo(dev, what, len, tmp, NULL)
            : clGetPlatformInfo(plat, what, len, tmp, NULL);
    if (e == CL_SUCCESS) {
        len = strlen(tmp);
        while (len > 0 && (tmp[len - 1] == ' ' || tmp[len - 1] == '\n'))
            tmp[--len] = '\0';
        while (tmp[start] == ' ')
            start++;
        kgrt_copy(dst, n, tmp + start);
    }
    free(tmp);
    return e;
}

static int fill_info(int index, cl_platform_id plat, cl_device_id dev,
                     kgrt_device_info *out)
{
    char pname[64] = "", dver[64] = "";
    cl_ulong mem = 0;
    cl_int e;

    if ((e = info_str(dev, NULL, CL_DEVICE_NAME, out->name,
                      sizeof out->name)) != CL_SUCCESS ||
        (e = info_str(dev, NULL, CL_DRIVER_VERSION, dver, sizeof dver)) !=
            CL_SUCCESS ||
        (e = info_str(NULL, plat, CL_PLATFORM_NAME, pname, sizeof pname)) !=
            CL_SUCCESS ||
        (e = clGetDeviceInfo(dev, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof mem, &mem,
                             NULL)) != CL_SUCCESS)
        return kgrt_error(e == CL_OUT_OF_HOST_MEMORY ? KGRT_ENOMEM
                                                     : KGRT_EDRIVER,
                          "opencl device %d: %s", index, cl_errname(e));
    kgrt_copy(out->arch, sizeof out->arch, "opencl");
    out->mem_bytes = mem;
    snprintf(out->driver, sizeof out->driver, "%s %s", pname, dver);
    return KGRT_OK;
}

static int opencl_device_info(int index, kgrt_device_info *out)
{
    cl_platform_id plat;
    cl_device_id dev;
    int rc = find_device(index, KGRT_EINVAL, &plat, &dev);
    if (rc < 0)
        return rc;
    return fill_info(index, plat, dev, out);
}

static unsigned clamp_uint(unsigned long long v)
{
    return v > 0xffffffffu ? 0xffffffffu : (unsigned)v;
}

static int fill_limits(ocl_device *d)
{
    kgrt_limits *lim = &d->base.limits;
    cl_ulong local = 0, cache = 0, maxalloc = 0;
    size_t wg = 0, items[3] = { 0, 0, 0 };
    cl_uint cu = 0, dims = 0, simd = 0, i;
    char ext[4096] = "";
    cl_int e;

    if ((e = clGetDeviceInfo(d->dev, CL_DEVICE_LOCAL_MEM_SIZE, sizeof local,
                             &local, NULL)) != CL_SUCCESS ||
        (e = clGetDeviceInfo(d->dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof wg,
                             &wg, NULL)) != CL_SUCCESS ||
        (e = clGetDeviceInfo(d->dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cu,
                             &cu, NULL)) != CL_SUCCESS ||
        (e = clGetDeviceInfo(d->dev, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS,
                             sizeof dims, &dims, NULL)) != CL_SUCCESS ||
        (e = clGetDeviceInfo(d->dev, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE,
                             sizeof cache, &cache, NULL)) != CL_SUCCESS ||
        (e = clGetDeviceInfo(d->dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE,
                             sizeof maxalloc, &maxalloc, NULL)) != CL_SUCCESS)
        return cl_fail("clGetDeviceInfo", e);
    if (dims >= 3) {
        size_t *all = calloc(dims, sizeof *all);
        if (!all)
            return kgrt_error(KGRT_ENOMEM, "out of memory");
        e = clGetDeviceInfo(d->dev, CL_DEVICE_MAX_WORK_ITEM_SIZES,
                            dims * sizeof *all, all, NULL);
        memcpy(items, all, sizeof items);
        free(all);
        if (e != CL_SUCCESS)
            return cl_fail("clGetDeviceInfo", e);
    }
    /* A warp/wavefront width only through the vendors' extensions. */
    info_str(d->dev, NULL, CL_DEVICE_EXTENSIONS, ext, sizeof ext);
    if (strstr(ext, "cl_nv_device_attribute_query"))
        clGetDeviceInfo(d->dev, KG_CL_DEVICE_WARP_SIZE_NV, sizeof simd, &simd,
                        NULL);
    else if (strstr(ext, "cl_amd_device_attribute_query"))
        clGetDeviceInfo(d->dev, KG_CL_DEVICE_WAVEFRONT_WIDTH_AMD, sizeof simd,
                        &simd, NULL);

    lim->max_shared_per_block = (size_t)local;
    lim->max_threads_per_block = wg > 0x7fffffff ? 0x7fffffff : (int)wg;
    lim->max_registers_per_block = 0;
    lim->warp_or_simd = (int)simd;
    lim->compute_units = (int)cu;
    for (i = 0; i < 3; i++) {
        lim->max_block[i] = clamp_uint(items[i]);
        lim->max_grid[i] = 0;    /* only size_t bounds the global size */
    }
    lim->l2_bytes = (size_t)cache;
    lim->max_alloc = (size_t)maxalloc;
    {
        cl_uint bits = 0;
        clGetDeviceInfo(d->dev, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof bits,
                        &bits, NULL);
        lim->base_align = bits >= 8 ? bits / 8 : 1;
    }
    return KGRT_OK;
}

/* ---- devices --------------------------------------------------------------- */

static void opencl_device_close(kgrt_device *base)
{
    ocl_device *d = DEV(base);
    if (d->queue) {
        clFinish(d->queue);
        clReleaseCommandQueue(d->queue);
    }
    if (d->ctx)
        clReleaseContext(d->ctx);
    free(d);
}

static int opencl_device_open(int index, kgrt_device **out)
{
    cl_platform_id plat;
    cl_device_id dev;
    cl_context_properties props[3];
    ocl_device *d = NULL;
    cl_int e = CL_SUCCESS;
    int rc = find_device(index, KGRT_ENODEVICE, &plat, &dev);

    if (rc < 0)
        return rc;
    if (!(d = calloc(1, sizeof *d)))
        return kgrt_error(KGRT_ENOMEM, "out of memory");
    d->dev = dev;
    if ((rc = fill_info(index, plat, dev, &d->base.info)) < 0 ||
        (rc = fill_limits(d)) < 0)
        goto cleanup;
    props[0] = CL_CONTEXT_PLATFORM;
    props[1] = (cl_context_properties)plat;
    props[2] = 0;
    d->ctx = clCreateContext(props, 1, &dev, NULL, NULL, &e);
    if (!d->ctx) {
        rc = cl_fail("clCreateContext", e);
        goto cleanup;
    }
    d->queue = clCreateCommandQueue(d->ctx, dev, CL_QUEUE_PROFILING_ENABLE,
                                    &e);
    if (!d->queue) {
        rc = cl_fail("clCreateCommandQueue", e);
        goto cleanup;
    }
    d->base.stream0.native = d->queue;
    *out = &d->base;
    return KGRT_OK;
cleanup:
    opencl_device_close(&d->base);
    return rc;
}

/* Wait for ev, bounded by the device's timeout.  A command that ended with
 * an error status is KGRT_ELAUNCH. */
static int wait_event(ocl_device *d, cl_command_queue q, cl_event ev,
                      const char *what)
{
    double timeout = atomic_load(&d->base.timeout_ms), start;
    unsigned sleep_us = 0;
    cl_int st = CL_QUEUED, e;

    if (timeout <= 0) {
        e = clWaitForEvents(1, &ev);
        if (e == CL_SUCCESS)
            return KGRT_OK;
        if (clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st,
                           &st, NULL) == CL_SUCCESS && st < 0)
            return kgrt_error(KGRT_ELAUNCH, "%s ended with %s", what,
                              cl_errname(st));
        return kgrt_error(KGRT_ELAUNCH, "%s: clWaitForEvents: %s", what,
                          cl_errname(e));
    }
    if ((e = clFlush(q)) != CL_SUCCESS)
        return kgrt_error(KGRT_ELAUNCH, "%s: clFlush: %s", what,
                          cl_errname(e));
    start = kgrt_now_ms();
    for (;;) {
        e = clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st,
                           &st, NULL);
        if (e != CL_SUCCESS)
            return cl_fail("clGetEventInfo", e);
        if (st == CL_COMPLETE)
            return KGRT_OK;
        if (st < 0)
            return kgrt_error(KGRT_ELAUNCH, "%s ended with %s", what,
                              cl_errname(st));
        if (!kgrt_poll_wait(start, timeout, &sleep_us))
            return kgrt_error(KGRT_ETIMEOUT, "%s still running after %g ms",
                              what, timeout);
    }
}

static int opencl_synchronize(kgrt_device *base)
{
    ocl_device *d = DEV(base);
    cl_event ev = NULL;
    cl_int e;
    int rc;

    if (atomic_load(&base->timeout_ms) <= 0) {
        e = clFinish(d->queue);
        if (e != CL_SUCCESS)
            return kgrt_error(KGRT_ELAUNCH, "clFinish: %s", cl_errname(e));
        return KGRT_OK;
    }
    e = clEnqueueMarkerWithWaitList(d->queue, 0, NULL, &ev);
    if (e != CL_SUCCESS)
        return cl_fail("clEnqueueMarkerWithWaitList", e);
    rc = wait_event(d, d->queue, ev, "queued work");
    clReleaseEvent(ev);
    return rc;
}

/* ---- streams and events ------------------------------------------------- */

static int opencl_stream_create(kgrt_device *base, void *wrap, bool create,
                                void **native)
{
    ocl_device *d = DEV(base);
    cl_command_queue q;
    cl_context ctx = NULL;
    cl_int e = CL_SUCCESS;
    if (!create) {
        q = (cl_command_queue)wrap;
        if (!q)
            return kgrt_error(KGRT_EINVAL, "kgrt_stream_wrap: an OpenCL "
                              "queue cannot be NULL");
        e = clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof ctx, &ctx,
                                  NULL);
        if (e != CL_SUCCESS)
            return cl_fail("clGetCommandQueueInfo", e);
        if (ctx != d->ctx)
            return kgrt_error(KGRT_EINVAL, "kgrt_stream_wrap: the queue "
                              "belongs to another OpenCL context");
        clRetainCommandQueue(q);
        *native = q;
        return KGRT_OK;
    }
    q = clCreateCommandQueue(d->ctx, d->dev, CL_QUEUE_PROFILING_ENABLE, &e);
    if (!q)
        return cl_fail("clCreateCommandQueue", e);
    *native = q;
    return KGRT_OK;
}

static void opencl_stream_destroy(kgrt_device *base, void *native, bool owned)
{
    (void)base;
    (void)owned;               /* a wrapped queue was retained */
    clReleaseCommandQueue((cl_command_queue)native);
}

static int opencl_stream_sync(kgrt_device *base, void *native)
{
    cl_command_queue q = (cl_command_queue)native;
    cl_event ev = NULL;
    cl_int e = clEnqueueMarkerWithWaitList(q, 0, NULL, &ev);
    int rc;
    if (e != CL_SUCCESS)
        return cl_fail("clEnqueueMarkerWithWaitList", e);
    rc = wait_event(DEV(base), q, ev, "queued work");
    clReleaseEvent(ev);
    return rc;
}

static int opencl_event_record(kgrt_device *base, void *stream, void **out)
{
    cl_event ev = NULL;
    cl_int e = clEnqueueMarkerWithWaitList((cl_command_queue)stream, 0, NULL,
                                           &ev);
    (void)base;
    if (e != CL_SUCCESS)
        return cl_fail("clEnqueueMarkerWithWaitList", e);
    clFlush((cl_command_queue)stream);
    *out = ev;
    return KGRT_OK;
}

static int opencl_event_sync(kgrt_device *base, void *ev)
{
    cl_command_queue q = NULL;
    clGetEventInfo((cl_event)ev, CL_EVENT_COMMAND_QUEUE, sizeof q, &q, NULL);
    return wait_event(DEV(base), q ? q : DEV(base)->queue, (cl_event)ev,
                      "event");
}

static int opencl_event_elapsed(kgrt_device *base, void *a, void *b,
                                double *ms)
{
    cl_ulong t0 = 0, t1 = 0;
    cl_int e;
    int rc;
    if ((rc = opencl_event_sync(base, b)) < 0 ||
        (rc = opencl_event_sync(base, a)) < 0)
        return rc;
    if ((e = clGetEventProfilingInfo((cl_event)a, CL_PROFILING_COMMAND_END,
                                     sizeof t0, &t0, NULL)) != CL_SUCCESS ||
        (e = clGetEventProfilingInfo((cl_event)b, CL_PROFILING_COMMAND_END,
                                     sizeof t1, &t1, NULL)) != CL_SUCCESS)
        return cl_fail("clGetEventProfilingInfo", e);
    *ms = t1 > t0 ? (double)(t1 - t0) * 1e-6 : 0.0;
    return KGRT_OK;
}

static void opencl_event_destroy(kgrt_device *base, void *ev)
{
    (void)base;
    clReleaseEvent((cl_event)ev);
}

/* ---- memory ---------------------------------------------------------------- */

static int opencl_buffer_alloc(kgrt_device *base, size_t bytes,
                               kgrt_buffer **out)
{
    ocl_buffer *b = calloc(1, sizeof *b);
    cl_int e = CL_SUCCESS;
    if (!b)
        return kgrt_error(KGRT_ENOMEM, "out of memory");
    b->mem = clCreateBuffer(DEV(base)->ctx, CL_MEM_READ_WRITE, bytes, NULL, &e);
    if (!b->mem) {
        free(b);
        return kgrt_error(cl_status(e), "clCreateBuffer(%zu bytes): %s",
                          bytes, cl_errname(e));
    }
    *out = &b->base;
    return KGRT_OK;
}

static void opencl_buffer_free(kgrt_buffer *base)
{
    ocl_buffer *b = (ocl_buffer *)base;
    clReleaseMemObject(b->mem);
    free(b);
}

static void *opencl_buffer_native(const kgrt_buffer *b)
{
    return ((const ocl_buffer *)b)->mem;
}

static int opencl_buffer_write(kgrt_buffer *base, size_t off, const void *src,
                               size_t n)
{
    ocl_buffer *b = (ocl_buffer *)base;
    cl_int e = clEnqueueWriteBuffer(DEV(base->dev)->queue, b->mem, CL_TRUE, off,
                                    n, src, 0, NULL, NULL);
    return e == CL_SUCCESS ? KGRT_OK : cl_fail("clEnqueueWriteBuffer", e);
}

static int opencl_buffer_read(kgrt_buffer *base, size_t off, void *dst,
                              size_t n)
{
    ocl_buffer *b = (ocl_buffer *)base;
    cl_int e = clEnqueueReadBuffer(DEV(base->dev)->queue, b->mem, CL_TRUE, off,
                                   n, dst, 0, NULL, NULL);
    return e == CL_SUCCESS ? KGRT_OK : cl_fail("clEnqueueReadBuffer", e);
}

static int opencl_buffer_fill(kgrt_buffer *base, const void *pattern,
                              size_t psize)
{
    ocl_buffer *b = (ocl_buffer *)base;
    cl_event ev = NULL;
    cl_int e = clEnqueueFillBuffer(DEV(base->dev)->queue, b->mem, pattern,
                                   psize, 0, base->size, 0, NULL, &ev);
    if (e != CL_SUCCESS)
        return cl_fail("clEnqueueFillBuffer", e);
    e = clWaitForEvents(1, &ev);
    clReleaseEvent(ev);
    return e == CL_SUCCESS ? KGRT_OK : cl_fail("clEnqueueFillBuffer", e);
}

/* ---- modules and kernels ------------------------------------------------------ */

/* The program's build log for the device, malloc'd; NULL when empty. */
static char *build_log(cl_program prog, cl_device_id dev)
{
    size_t len = 0;
    char *raw, *log;
    if (clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, 0, NULL,
                              &len) != CL_SUCCESS || len == 0)
        return NULL;
    if (!(raw = calloc(len + 1, 1)))
        return NULL;
    if (clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, len, raw,
                              NULL) != CL_SUCCESS) {
        free(raw);
        return NULL;
    }
    log = kgrt_log_dup(raw, len);
    free(raw);
    return log;
}

static int opencl_module_load(kgrt_device *base, const kgrt_image *img,
                              kgrt_module **out, char **logp)
{
    ocl_device *d = DEV(base);
    ocl_module *m = NULL;
    const char *src = img->data;
    size_t len = img->size ? img->size : strlen(src);
    char *log = NULL, first[256];
    cl_int e = CL_SUCCESS;
    int rc;

    if (img->kind != KGRT_IMAGE_OPENCL_SOURCE)
        return kgrt_error(KGRT_EINVAL, "opencl device %d loads OpenCL "
                          "source only, not a CUDA %s", base->info.index,
                          img->kind == KGRT_IMAGE_PTX ? "PTX" : "CUBIN");
    if (!(m = calloc(1, sizeof *m)))
        return kgrt_error(KGRT_ENOMEM, "out of memory");
    m->prog = clCreateProgramWithSource(d->ctx, 1, &src, &len, &e);
    if (!m->prog) {
        rc = cl_fail("clCreateProgramWithSource", e);
        goto cleanup;
    }
    e = clBuildProgram(m->prog, 1, &d->dev, img->options, NULL, NULL);
    log = build_log(m->prog, d->dev);
    if (e != CL_SUCCESS) {
        kgrt_log_first_error(log, first, sizeof first);
        switch (e) {
        case CL_BUILD_PROGRAM_FAILURE:
        case CL_INVALID_BUILD_OPTIONS:
            rc = KGRT_ECOMPILE;
            break;
        case CL_COMPILER_NOT_AVAILABLE:
            rc = KGRT_EIMAGE;
            break;
        default:
            rc = cl_status(e);
        }
        kgrt_error(rc, "clBuildProgram: %s%s%s%s%s", cl_errname(e),
                   e == CL_INVALID_BUILD_OPTIONS ? ": options " : "",
                   e == CL_INVALID_BUILD_OPTIONS && img->options ? img->options
                                                                 : "",
                   first[0] ? ": " : "", first);
        goto cleanup;
    }
    if (logp) {
        *logp = log;
        log = NULL;
    }
    free(log);
    *out = &m->base;
    return KGRT_OK;
cleanup:
    if (logp) {
        *logp = log;
        log = NULL;
    }
    free(log);
    if (m->prog)
        clReleaseProgram(m->prog);
    free(m);
    return rc;
}

static void opencl_module_unload(kgrt_module *base)
{
    ocl_module *m = (ocl_module *)base;
    clReleaseProgram(m->prog);
    free(m);
}

static int opencl_kernel_get(kgrt_module *mbase, const char *name,
                             kgrt_kernel **out)
{
    ocl_module *m = (ocl_module *)mbase;
    ocl_device *d = DEV(mbase->dev);
    ocl_kernel *k = calloc(1, sizeof *k);
    size_t wg = 0;
    cl_ulong lmem = 0, pmem = 0;
    cl_uint nargs = 0;
    cl_int e = CL_SUCCESS;

    if (!k)
        return kgrt_error(KGRT_ENOMEM, "out of memory");
    k->kern = clCreateKernel(m->prog, name, &e);
    if (!k->kern) {
        free(k);
        if (e == CL_INVALID_KERNEL_NAME)
            return kgrt_error(KGRT_ENOTFOUND, "no kernel '%s' in the module "
                              "(%s)", name, cl_errname(e));
        return cl_fail("clCreateKernel", e);
    }
    if ((e = clGetKernelWorkGroupInfo(k->kern, d->dev, CL_KERNEL_WORK_GROUP_SIZE,
                                      sizeof wg, &wg, NULL)) != CL_SUCCESS ||
        (e = clGetKernelWorkGroupInfo(k->kern, d->dev, CL_KERNEL_LOCAL_MEM_SIZE,
                                      sizeof lmem, &lmem, NULL)) !=
            CL_SUCCESS ||
        (e = clGetKernelWorkGroupInfo(k->kern, d->dev,
                                      CL_KERNEL_PRIVATE_MEM_SIZE, sizeof pmem,
                                      &pmem, NULL)) != CL_SUCCESS ||
        (e = clGetKernelInfo(k->kern, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs,
                             NULL)) != CL_SUCCESS) {
        clReleaseKernel(k->kern);
        free(k);
        return cl_fail("clGetKernelWorkGroupInfo", e);
    }
    k->base.attrs.registers = -1;
    k->base.attrs.shared_static = (size_t)lmem;
    k->base.attrs.local_bytes = (size_t)pmem;
    k->base.attrs.max_threads_per_block = wg > 0x7fffffff ? 0x7fffffff
                                                          : (int)wg;
    k->base.nparams = (int)nargs;
    k->base.param_size = NULL;  /* needs -cl-kernel-arg-info; sizes are
                                   checked by clSetKernelArg instead */
    pthread_mutex_init(&k->lock, NULL);
    *out = &k->base;
    return KGRT_OK;
}

static void opencl_kernel_release(kgrt_kernel *base)
{
    ocl_kernel *k = (ocl_kernel *)base;
    clReleaseKernel(k->kern);
    pthread_mutex_destroy(&k->lock);
    free(k);
}

/* Set argument i; a native cl_mem at a non-zero offset becomes a
 * sub-buffer, returned in *sub for the caller to release after the
 * enqueue. */
static int set_arg(ocl_kernel *k, int i, const kgrt_arg *a, cl_mem *sub)
{
    const void *p = NULL;
    size_t n = kgrt_arg_size(a);
    cl_mem mem;
    cl_int e;
    *sub = NULL;
    switch (a->kind) {
    case KGRT_ARG_NATIVE:
        mem = (cl_mem)a->bytes;
        n = sizeof(cl_mem);
        if (a->size) {
            size_t size = 0;
            cl_buffer_region r;
            e = clGetMemObjectInfo(mem, CL_MEM_SIZE, sizeof size, &size, NULL);
            if (e != CL_SUCCESS)
                return kgrt_error(KGRT_EINVAL, "%s: argument %d: "
                                  "clGetMemObjectInfo: %s", k->base.name, i,
                                  cl_errname(e));
            if (a->size >= size)
                return kgrt_error(KGRT_EINVAL, "%s: argument %d: offset %zu "
                                  "beyond the buffer's %zu bytes",
                                  k->base.name, i, a->size, size);
            r.origin = a->size;
            r.size = size - a->size;
            *sub = clCreateSubBuffer(mem, CL_MEM_READ_WRITE,
                                     CL_BUFFER_CREATE_TYPE_REGION, &r, &e);
            if (!*sub)
                return kgrt_error(KGRT_EINVAL, "%s: argument %d: "
                                  "clCreateSubBuffer at %zu: %s",
                                  k->base.name, i, a->size, cl_errname(e));
            p = sub;
        } else {
            p = &a->bytes;
        }
        break;
    case KGRT_ARG_BUFFER: p = &((ocl_buffer *)a->buf)->mem; n = sizeof(cl_mem);
        break;
    case KGRT_ARG_I32: p = &a->i32; break;
    case KGRT_ARG_I64: p = &a->i64; break;
    case KGRT_ARG_F32: p = &a->f32; break;
    case KGRT_ARG_BYTES: p = a->bytes; break;
    case KGRT_ARG_TMAP:        /* kgrt.c refuses these before a launch */
        return kgrt_error(KGRT_EINVAL, "%s: argument %d: tensor maps are "
                          "CUDA's", k->base.name, i);
    }
    e = clSetKernelArg(k->kern, (cl_uint)i, n, p);
    if (e != CL_SUCCESS)
        return kgrt_error(KGRT_EINVAL, "%s: argument %d (%zu bytes): "
                          "clSetKernelArg: %s", k->base.name, i, n,
                          cl_errname(e));
    return KGRT_OK;
}

static int opencl_launch(kgrt_kernel *base, void *stream,
                         const unsigned grid[3], const unsigned block[3],
                         size_t dyn, const kgrt_arg *args, int nargs,
                         double *ms, unsigned flags)
{
    (void)flags;                       /* OpenCL queues launch in order */
    ocl_kernel *k = (ocl_kernel *)base;
    ocl_device *d = DEV(base->mod->dev);
    cl_command_queue q = (cl_command_queue)stream;
    cl_mem stack_sub[64], *sub = stack_sub;
    size_t gws[3], lws[3];
    cl_uint dims = 3, i;
    cl_event ev = NULL;
    cl_ulong t0 = 0, t1 = 0;
    cl_int e = CL_SUCCESS;
    int rc = KGRT_OK;

    if (dyn)
        return kgrt_error(KGRT_EINVAL, "%s: OpenCL has no dynamic shared "
                          "memory (%zu bytes asked); size __local arrays "
                          "with build options", base->name, dyn);
    for (i = 0; i < 3; i++) {
        gws[i] = (size_t)grid[i] * block[i];
        lws[i] = block[i];
    }
    while (dims > 1 && gws[dims - 1] == 1)
        dims--;

    if (nargs > 64 && !(sub = calloc((size_t)nargs, sizeof *sub)))
        return kgrt_error(KGRT_ENOMEM, "out of memory");
    memset(sub, 0, (size_t)(nargs < 64 ? 64 : nargs) * sizeof *sub);
    pthread_mutex_lock(&k->lock);
    for (i = 0; i < (cl_uint)nargs && rc == KGRT_OK; i++)
        rc = set_arg(k, (int)i, &args[i], &sub[i]);
    if (rc == KGRT_OK)
        e = clEnqueueNDRangeKernel(q, k->kern, dims, NULL, gws, lws, 0,
                                   NULL, ms ? &ev : NULL);
    pthread_mutex_unlock(&k->lock);
    for (i = 0; i < (cl_uint)nargs; i++)
        if (sub[i])
            clReleaseMemObject(sub[i]);   /* the queue keeps it alive */
    if (sub != stack_sub)
        free(sub);
    if (rc < 0)
        return rc;

    switch (e) {
    case CL_SUCCESS:
        break;
    case CL_INVALID_WORK_GROUP_SIZE:
    case CL_INVALID_WORK_ITEM_SIZE:
    case CL_INVALID_GLOBAL_WORK_SIZE:
    case CL_OUT_OF_RESOURCES:
        return kgrt_error(KGRT_ERESOURCE, "%s: grid %ux%ux%u block %ux%ux%u: "
                          "clEnqueueNDRangeKernel: %s", base->name, grid[0],
                          grid[1], grid[2], block[0], block[1], block[2],
                          cl_errname(e));
    case CL_MEM_OBJECT_ALLOCATION_FAILURE:
        return kgrt_error(KGRT_EOOM, "%s: clEnqueueNDRangeKernel: %s",
                          base->name, cl_errname(e));
    case CL_INVALID_KERNEL_ARGS:
        return kgrt_error(KGRT_EINVAL, "%s: clEnqueueNDRangeKernel: %s (an "
                          "argument is not set)", base->name, cl_errname(e));
    default:
        return kgrt_error(KGRT_ELAUNCH, "%s: clEnqueueNDRangeKernel: %s",
                          base->name, cl_errname(e));
    }
    if (!ms)
        return KGRT_OK;

    rc = wait_event(d, q, ev, base->name);
    if (rc == KGRT_OK) {
        if ((e = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START,
                                         sizeof t0, &t0, NULL)) !=
                CL_SUCCESS ||
            (e = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END,
                                         sizeof t1, &t1, NULL)) != CL_SUCCESS)
            rc = cl_fail("clGetEventProfilingInfo", e);
        else
            *ms = t1 > t0 ? (double)(t1 - t0) * 1e-6 : 0.0;
    }
    clReleaseEvent(ev);   /* legal while the command runs (time-out) */
    return rc;
}

#else /* !KGEN_WITH_OPENCL */

static int no_opencl(void)
{
    return kgrt_error(KGRT_ENOBACKEND, "kgen built without OpenCL");
}

static int opencl_device_count(void)
{
    return no_opencl();
}

static int opencl_device_info(int index, kgrt_device_info *out)
{
    (void)index;
    (void)out;
    return no_opencl();
}

static int opencl_device_open(int index, kgrt_device **out)
{
    (void)index;
    (void)out;
    return no_opencl();
}

/* Without a device nothing below is ever reached. */
static void opencl_device_close(kgrt_device *d) { (void)d; }
static int opencl_synchronize(kgrt_device *d) { (void)d; return no_opencl(); }
static int opencl_buffer_alloc(kgrt_device *d, size_t n, kgrt_buffer **out)
{
    (void)d; (void)n; (void)out;
    return no_opencl();
}
static void opencl_buffer_free(kgrt_buffer *b) { (void)b; }
static int opencl_buffer_write(kgrt_buffer *b, size_t off, const void *src,
                               size_t n)
{
    (void)b; (void)off; (void)src; (void)n;
    return no_opencl();
}
static int opencl_buffer_read(kgrt_buffer *b, size_t off, void *dst, size_t n)
{
    (void)b; (void)off; (void)dst; (void)n;
    return no_opencl();
}
static int opencl_buffer_fill(kgrt_buffer *b, const void *p, size_t n)
{
    (void)b; (void)p; (void)n;
    return no_opencl();
}
static int opencl_module_load(kgrt_device *d, const kgrt_image *img,
                              kgrt_module **out, char **log)
{
    (void)d; (void)img; (void)out; (void)log;
    return no_opencl();
}
static void opencl_module_unload(kgrt_module *m) { (void)m; }
static int opencl_kernel_get(kgrt_module *m, const char *name,
                             kgrt_kernel **out)
{
    (void)m; (void)name; (void)out;
    return no_opencl();
}
static void opencl_kernel_release(kgrt_kernel *k) { (void)k; }
static int opencl_launch(kgrt_kernel *k, void *stream, const unsigned grid[3],
                         const unsigned block[3], size_t dyn,
                         const kgrt_arg *args, int nargs, double *ms,
                         unsigned flags)
{
    (void)k; (void)stream; (void)grid; (void)block; (void)dyn; (void)args;
    (void)nargs; (void)ms; (void)flags;
    return no_opencl();
}
static void *opencl_buffer_native(const kgrt_buffer *b)
{
    (void)b;
    return NULL;
}
static int opencl_stream_create(kgrt_device *d, void *wrap, bool create,
                                void **native)
{
    (void)d; (void)wrap; (void)create; (void)native;
    return no_opencl();
}
static void opencl_stream_destroy(kgrt_device *d, void *native, bool owned)
{
    (void)d; (void)native; (void)owned;
}
static int opencl_stream_sync(kgrt_device *d, void *native)
{
    (void)d; (void)native;
    return no_opencl();
}
static int opencl_event_record(kgrt_device *d, void *stream, void **ev)
{
    (void)d; (void)stream; (void)ev;
    return no_opencl();
}
static int opencl_event_sync(kgrt_device *d, void *ev)
{
    (void)d; (void)ev;
    return no_opencl();
}
static int opencl_event_elapsed(kgrt_device *d, void *a, void *b, double *ms)
{
    (void)d; (void)a; (void)b; (void)ms;
    return no_opencl();
}
static void opencl_event_destroy(kgrt_device *d, void *ev)
{
    (void)d; (void)ev;
}

#endif

const kgrt_backend_ops kgrt_opencl_ops = {
    .name = "opencl",
    .device_count = opencl_device_count,
    .device_info = opencl_device_info,
    .device_open = opencl_device_open,
    .device_close = opencl_device_close,
    .synchronize = opencl_synchronize,
    .buffer_alloc = opencl_buffer_alloc,
    .buffer_free = opencl_buffer_free,
    .buffer_write = opencl_buffer_write,
    .buffer_read = opencl_buffer_read,
    .buffer_fill = opencl_buffer_fill,
    .module_load = opencl_module_load,
    .module_unload = opencl_module_unload,
    .kernel_get = opencl_kernel_get,
    .kernel_release = opencl_kernel_release,
    .buffer_native = opencl_buffer_native,
    .stream_create = opencl_stream_create,
    .stream_destroy = opencl_stream_destroy,
    .stream_sync = opencl_stream_sync,
    .event_record = opencl_event_record,
    .event_sync = opencl_event_sync,
    .event_elapsed = opencl_event_elapsed,
    .event_destroy = opencl_event_destroy,
    .launch = opencl_launch,
};

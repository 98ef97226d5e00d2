/*
 * opencl.c -- the OpenCL backend of kgrt, through the ICD loader.
 *
 * Devices of every platform are numbered in one sequence, in the order the
 * loader reports platforms and each platform its devices; PoCL on the CPU is
 * the device CI tests on.  Nothing is cached: the list is re-read on every
 * query, which is cheap next to any real OpenCL work and always current.
 * Without KGEN_WITH_OPENCL the backend exists but reports KGRT_ENOBACKEND.
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

static const char *cl_errname(cl_int e, char *buf, size_t n)
{
    switch (e) {
    case CL_DEVICE_NOT_FOUND: return "CL_DEVICE_NOT_FOUND";
    case CL_DEVICE_NOT_AVAILABLE: return "CL_DEVICE_NOT_AVAILABLE";
    case CL_OUT_OF_RESOURCES: return "CL_OUT_OF_RESOURCES";
    case CL_OUT_OF_HOST_MEMORY: return "CL_OUT_OF_HOST_MEMORY";
    case CL_INVALID_VALUE: return "CL_INVALID_VALUE";
    case CL_INVALID_PLATFORM: return "CL_INVALID_PLATFORM";
    case CL_INVALID_DEVICE: return "CL_INVALID_DEVICE";
    case CL_PLATFORM_NOT_FOUND_KHR: return "CL_PLATFORM_NOT_FOUND_KHR";
    }
    snprintf(buf, n, "OpenCL error %d", (int)e);
    return buf;
}

/* The platform list; *np = 0 and the reason noted when there is none. */
static int get_platforms(cl_platform_id **out, cl_uint *np)
{
    cl_int e;
    char buf[32];

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
                          cl_errname(e, buf, sizeof buf));
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
                          cl_errname(e, buf, sizeof buf));
    }
    return KGRT_OK;
}

/* Devices of one platform; 0 when it has none (or fails: noted). */
static cl_uint platform_ndev(cl_platform_id p)
{
    cl_uint nd = 0;
    char buf[32];
    cl_int e = clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, NULL, &nd);
    if (e == CL_DEVICE_NOT_FOUND)
        return 0;
    if (e != CL_SUCCESS) {
        kgrt_note("clGetDeviceIDs failed: %s", cl_errname(e, buf, sizeof buf));
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

static int opencl_device_info(int index, kgrt_device_info *out)
{
    cl_platform_id *plat = NULL;
    cl_device_id *devs = NULL;
    cl_uint np = 0, nd = 0, i;
    cl_ulong mem = 0;
    cl_int e;
    char pname[64] = "", dver[64] = "", buf[32];
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
        rc = kgrt_error(KGRT_EINVAL, "opencl device index %d out of range "
                        "(%d devices)", index, index - local);
        goto cleanup;
    }
    devs = calloc(nd, sizeof *devs);
    if (!devs) {
        rc = kgrt_error(KGRT_ENOMEM, "out of memory listing OpenCL devices");
        goto cleanup;
    }
    if ((e = clGetDeviceIDs(plat[i], CL_DEVICE_TYPE_ALL, nd, devs, NULL)) !=
            CL_SUCCESS ||
        (e = info_str(devs[local], NULL, CL_DEVICE_NAME, out->name,
                      sizeof out->name)) != CL_SUCCESS ||
        (e = info_str(devs[local], NULL, CL_DRIVER_VERSION, dver,
                      sizeof dver)) != CL_SUCCESS ||
        (e = info_str(NULL, plat[i], CL_PLATFORM_NAME, pname,
                      sizeof pname)) != CL_SUCCESS ||
        (e = clGetDeviceInfo(devs[local], CL_DEVICE_GLOBAL_MEM_SIZE,
                             sizeof mem, &mem, NULL)) != CL_SUCCESS) {
        rc = kgrt_error(e == CL_OUT_OF_HOST_MEMORY ? KGRT_ENOMEM
                                                   : KGRT_EDRIVER,
                        "opencl device %d: %s", index,
                        cl_errname(e, buf, sizeof buf));
        goto cleanup;
    }
    kgrt_copy(out->arch, sizeof out->arch, "opencl");
    out->mem_bytes = mem;
    snprintf(out->driver, sizeof out->driver, "%s %s", pname, dver);
    rc = KGRT_OK;
cleanup:
    free(devs);
    free(plat);
    return rc;
}

#else /* !KGEN_WITH_OPENCL */

static int opencl_device_count(void)
{
    return kgrt_error(KGRT_ENOBACKEND, "kgen built without OpenCL");
}

static int opencl_device_info(int index, kgrt_device_info *out)
{
    (void)index;
    (void)out;
    return kgrt_error(KGRT_ENOBACKEND, "kgen built without OpenCL");
}

#endif

const kgrt_backend_ops kgrt_opencl_ops = {
    .name = "opencl",
    .device_count = opencl_device_count,
    .device_info = opencl_device_info,
};

/*
 * cuda.c -- the CUDA backend of kgrt, through the driver API.
 *
 * libcuda is never linked: it is loaded once with dlopen("libcuda.so.1"),
 * so kgen and every libfused user run on machines without an NVIDIA driver
 * and simply see zero CUDA devices.  The few prototypes and constants used
 * are declared here rather than taken from cuda.h, so kgrt builds without
 * the CUDA toolkit.  Loading and cuInit happen once per process
 * (pthread_once); the outcome, including the reason for having no device,
 * is kept and copied into the caller's per-thread error on every query.
 * The library handle is never closed: unloading a GPU driver while other
 * code may hold its contexts is not safe.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "kgrt_int.h"

/* From cuda.h; the ABI of these has been stable since CUDA 3.2. */
typedef int CUresult;
typedef int CUdevice;
enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_NO_DEVICE = 100,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
};

static struct {
    void *lib;
    CUresult (*cuInit)(unsigned flags);
    CUresult (*cuDriverGetVersion)(int *version);
    CUresult (*cuDeviceGetCount)(int *count);
    CUresult (*cuDeviceGet)(CUdevice *dev, int ordinal);
    CUresult (*cuDeviceGetName)(char *name, int len, CUdevice dev);
    CUresult (*cuDeviceGetAttribute)(int *value, int attrib, CUdevice dev);
    CUresult (*cuDeviceTotalMem_v2)(size_t *bytes, CUdevice dev);
    CUresult (*cuGetErrorName)(CUresult err, const char **name); /* optional */
    int status;                /* KGRT_OK once the driver is usable */
    int ndev;                  /* devices, when status is KGRT_OK */
    int version;               /* cuDriverGetVersion: 12040 for 12.4 */
    char why[384];             /* why status < 0 or ndev == 0 */
} cu;

static pthread_once_t cu_once = PTHREAD_ONCE_INIT;

static const char *cu_errname(CUresult r, char *buf, size_t n)
{
    const char *name = NULL;
    if (cu.cuGetErrorName && cu.cuGetErrorName(r, &name) == CUDA_SUCCESS &&
        name)
        return name;
    snprintf(buf, n, "CUDA error %d", r);
    return buf;
}

/* Resolve one driver entry point; false (with cu.why set) if missing. */
static bool cu_sym(void **fn, const char *name)
{
    *fn = dlsym(cu.lib, name);
    if (!*fn)
        snprintf(cu.why, sizeof cu.why,
                 "libcuda.so.1 lacks %s: NVIDIA driver too old", name);
    return *fn != NULL;
}

static void cu_load(void)
{
    const char *err;
    char buf[32];
    CUresult r;

    cu.status = KGRT_EDRIVER;
    cu.lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!cu.lib) {
        err = dlerror();
        cu.status = KGRT_OK; /* no driver is not an error: zero devices */
        if (!err || strstr(err, "No such file"))
            snprintf(cu.why, sizeof cu.why,
                     "libcuda.so.1 not found: no NVIDIA driver");
        else
            snprintf(cu.why, sizeof cu.why,
                     "libcuda.so.1 could not be loaded: %s", err);
        return;
    }
    cu_sym((void **)&cu.cuGetErrorName, "cuGetErrorName");
    cu.why[0] = '\0';
    if (!cu_sym((void **)&cu.cuInit, "cuInit") ||
        !cu_sym((void **)&cu.cuDriverGetVersion, "cuDriverGetVersion") ||
        !cu_sym((void **)&cu.cuDeviceGetCount, "cuDeviceGetCount") ||
        !cu_sym((void **)&cu.cuDeviceGet, "cuDeviceGet") ||
        !cu_sym((void **)&cu.cuDeviceGetName, "cuDeviceGetName") ||
        !cu_sym((void **)&cu.cuDeviceGetAttribute, "cuDeviceGetAttribute") ||
        !cu_sym((void **)&cu.cuDeviceTotalMem_v2, "cuDeviceTotalMem_v2"))
        return;

    if (cu.cuDriverGetVersion(&cu.version) != CUDA_SUCCESS)
        cu.version = 0;
    r = cu.cuInit(0);
    if (r == CUDA_ERROR_NO_DEVICE) {
        cu.status = KGRT_OK;
        snprintf(cu.why, sizeof cu.why,
                 "no CUDA device (cuInit: CUDA_ERROR_NO_DEVICE)");
        return;
    }
    if (r != CUDA_SUCCESS) {
        snprintf(cu.why, sizeof cu.why, "cuInit failed: %s",
                 cu_errname(r, buf, sizeof buf));
        return;
    }
    r = cu.cuDeviceGetCount(&cu.ndev);
    if (r != CUDA_SUCCESS) {
        cu.ndev = 0;
        snprintf(cu.why, sizeof cu.why, "cuDeviceGetCount failed: %s",
                 cu_errname(r, buf, sizeof buf));
        return;
    }
    cu.status = KGRT_OK;
    if (cu.ndev == 0)
        snprintf(cu.why, sizeof cu.why, "no CUDA device");
}

static int cuda_device_count(void)
{
    pthread_once(&cu_once, cu_load);
    if (cu.status < 0)
        return kgrt_error(cu.status, "%s", cu.why);
    if (cu.ndev == 0)
        kgrt_note("%s", cu.why);
    return cu.ndev;
}

static int cuda_device_info(int index, kgrt_device_info *out)
{
    CUdevice dev;
    CUresult r;
    int major = 0, minor = 0;
    size_t bytes = 0;
    char buf[32];

    pthread_once(&cu_once, cu_load);
    if (cu.status < 0)
        return kgrt_error(cu.status, "%s", cu.why);
    if (index >= cu.ndev)
        return kgrt_error(KGRT_EINVAL,
                          "cuda device index %d out of range (%d devices%s%s)",
                          index, cu.ndev, cu.ndev ? "" : ": ",
                          cu.ndev ? "" : cu.why);
    if ((r = cu.cuDeviceGet(&dev, index)) != CUDA_SUCCESS ||
        (r = cu.cuDeviceGetName(out->name, (int)sizeof out->name, dev)) !=
            CUDA_SUCCESS ||
        (r = cu.cuDeviceGetAttribute(
             &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev)) !=
            CUDA_SUCCESS ||
        (r = cu.cuDeviceGetAttribute(
             &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev)) !=
            CUDA_SUCCESS ||
        (r = cu.cuDeviceTotalMem_v2(&bytes, dev)) != CUDA_SUCCESS)
        return kgrt_error(KGRT_EDRIVER, "cuda device %d: %s", index,
                          cu_errname(r, buf, sizeof buf));
    out->name[sizeof out->name - 1] = '\0';
    snprintf(out->arch, sizeof out->arch, "sm_%d%d", major % 100, minor % 10);
    out->mem_bytes = bytes;
    snprintf(out->driver, sizeof out->driver, "CUDA driver %d.%d",
             cu.version / 1000, cu.version % 1000 / 10);
    return KGRT_OK;
}

const kgrt_backend_ops kgrt_cuda_ops = {
    .name = "cuda",
    .device_count = cuda_device_count,
    .device_info = cuda_device_info,
};

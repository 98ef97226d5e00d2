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
 *
 * A device is the GPU's primary context (cuDevicePrimaryCtxRetain), shared
 * with the CUDA runtime and so with PyTorch, and one non-blocking stream.
 * Every call pushes that context and pops it again, so the caller's current
 * context is left as it was and any thread may call.  Copies are issued on
 * the device's stream and then synchronised, so they are ordered after
 * earlier launches.  Errors are classified by CUresult (cu_class): faults
 * that poison the context are KGRT_ESTICKY, and kgrt.c latches the device.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kgrt_int.h"

/* From cuda.h; the ABI of these has been stable since CUDA 4 (the _v2
 * entry points since CUDA 3.2/4.0). */
typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUevent_st *CUevent;

/* cuLaunchKernelEx's configuration (CUDA 11.8), with the one attribute
 * used: CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION. */
typedef struct CUlaunchAttribute {
    int id;
    char pad[8 - sizeof(int)];
    union {
        char pad[64];
        unsigned programmatic;       /* programmaticStreamSerializationAllowed */
    } value;
} CUlaunchAttribute;

typedef struct CUlaunchConfig {
    unsigned gridDimX, gridDimY, gridDimZ;
    unsigned blockDimX, blockDimY, blockDimZ;
    unsigned sharedMemBytes;
    CUstream hStream;
    CUlaunchAttribute *attrs;
    unsigned numAttrs;
} CUlaunchConfig;

enum { CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION = 6 };

enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_INVALID_VALUE = 1,
    CUDA_ERROR_OUT_OF_MEMORY = 2,
    CUDA_ERROR_NO_DEVICE = 100,
    CUDA_ERROR_INVALID_IMAGE = 200,
    CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
    CUDA_ERROR_ECC_UNCORRECTABLE = 214,
    CUDA_ERROR_INVALID_PTX = 218,
    CUDA_ERROR_JIT_COMPILER_NOT_FOUND = 221,
    CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222,
    CUDA_ERROR_JIT_COMPILATION_DISABLED = 223,
    CUDA_ERROR_NOT_FOUND = 500,
    CUDA_ERROR_NOT_READY = 600,
    CUDA_ERROR_ILLEGAL_ADDRESS = 700,
    CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701,
    CUDA_ERROR_LAUNCH_TIMEOUT = 702,
    CUDA_ERROR_ASSERT = 710,
    CUDA_ERROR_HARDWARE_STACK_ERROR = 714,
    CUDA_ERROR_ILLEGAL_INSTRUCTION = 715,
    CUDA_ERROR_MISALIGNED_ADDRESS = 716,
    CUDA_ERROR_INVALID_ADDRESS_SPACE = 717,
    CUDA_ERROR_INVALID_PC = 718,
    CUDA_ERROR_LAUNCH_FAILED = 719,
    CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE = 720,
    CUDA_ERROR_TENSOR_MEMORY_LEAK = 721,
    CUDA_ERROR_INVALID_CLUSTER_SIZE = 912,

    CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
    CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X = 2,      /* Y = 3, Z = 4 */
    CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = 5,       /* Y = 6, Z = 7 */
    CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10,
    CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK = 12,
    CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
    CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE = 38,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,

    CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0,
    CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
    CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3,
    CU_FUNC_ATTRIBUTE_NUM_REGS = 4,
    CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
    CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED = 14,

    CU_JIT_INFO_LOG_BUFFER = 3,
    CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
    CU_JIT_ERROR_LOG_BUFFER = 5,
    CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,

    CU_STREAM_NON_BLOCKING = 1,
    CU_EVENT_DEFAULT = 0,
    CU_EVENT_DISABLE_TIMING = 2,
};

#define DEFAULT_DYNAMIC_SHARED (48 * 1024)  /* without the opt-in attribute */
#define JIT_LOG_BYTES (16 * 1024)

static struct {
    void *lib;
    /* enumeration */
    CUresult (*cuInit)(unsigned flags);
    CUresult (*cuDriverGetVersion)(int *version);
    CUresult (*cuDeviceGetCount)(int *count);
    CUresult (*cuDeviceGet)(CUdevice *dev, int ordinal);
    CUresult (*cuDeviceGetName)(char *name, int len, CUdevice dev);
    CUresult (*cuDeviceGetAttribute)(int *value, int attrib, CUdevice dev);
    CUresult (*cuDeviceTotalMem_v2)(size_t *bytes, CUdevice dev);
    CUresult (*cuDeviceGetPCIBusId)(char *id, int len, CUdevice dev);
    /* execution */
    CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *ctx, CUdevice dev);
    CUresult (*cuDevicePrimaryCtxRelease)(CUdevice dev);
    CUresult (*cuCtxPushCurrent_v2)(CUcontext ctx);
    CUresult (*cuCtxPopCurrent_v2)(CUcontext *ctx);
    CUresult (*cuStreamCreate)(CUstream *s, unsigned flags);
    CUresult (*cuStreamDestroy_v2)(CUstream s);
    CUresult (*cuStreamSynchronize)(CUstream s);
    CUresult (*cuMemAlloc_v2)(CUdeviceptr *p, size_t bytes);
    CUresult (*cuMemFree_v2)(CUdeviceptr p);
    CUresult (*cuMemcpyHtoDAsync_v2)(CUdeviceptr dst, const void *src,
                                     size_t n, CUstream s);
    CUresult (*cuMemcpyDtoHAsync_v2)(void *dst, CUdeviceptr src, size_t n,
                                     CUstream s);
    CUresult (*cuMemsetD8Async)(CUdeviceptr p, unsigned char v, size_t n,
                                CUstream s);
    CUresult (*cuMemsetD16Async)(CUdeviceptr p, unsigned short v, size_t n,
                                 CUstream s);
    CUresult (*cuMemsetD32Async)(CUdeviceptr p, unsigned v, size_t n,
                                 CUstream s);
    CUresult (*cuModuleLoadDataEx)(CUmodule *m, const void *image,
                                   unsigned nopt, int *opts, void **vals);
    CUresult (*cuModuleUnload)(CUmodule m);
    CUresult (*cuModuleGetFunction)(CUfunction *f, CUmodule m,
                                    const char *name);
    CUresult (*cuFuncGetAttribute)(int *v, int attrib, CUfunction f);
    CUresult (*cuFuncSetAttribute)(CUfunction f, int attrib, int v);
    CUresult (*cuLaunchKernel)(CUfunction f, unsigned gx, unsigned gy,
                               unsigned gz, unsigned bx, unsigned by,
                               unsigned bz, unsigned shared, CUstream s,
                               void **params, void **extra);
    CUresult (*cuEventCreate)(CUevent *e, unsigned flags);
    CUresult (*cuEventDestroy_v2)(CUevent e);
    CUresult (*cuEventRecord)(CUevent e, CUstream s);
    CUresult (*cuEventQuery)(CUevent e);
    CUresult (*cuEventSynchronize)(CUevent e);
    CUresult (*cuEventElapsedTime)(float *ms, CUevent a, CUevent b);
    /* optional */
    CUresult (*cuGetErrorName)(CUresult err, const char **name);
    CUresult (*cuGetErrorString)(CUresult err, const char **str);
    CUresult (*cuFuncGetParamInfo)(CUfunction f, size_t i, size_t *off,
                                   size_t *size);       /* CUDA 12.4 */
    CUresult (*cuTensorMapEncodeTiled)(void *map, int dtype, unsigned rank,
                                       void *addr, const uint64_t *dims,
                                       const uint64_t *strides,
                                       const uint32_t *box,
                                       const uint32_t *estrides,
                                       int interleave, int swizzle, int l2,
                                       int oob);        /* CUDA 12.0 */
    CUresult (*cuLaunchKernelEx)(const CUlaunchConfig *config, CUfunction f,
                                 void **params, void **extra); /* 11.8 */
    int status;                /* KGRT_OK once the driver is usable */
    int ndev;                  /* devices, when status is KGRT_OK */
    int version;               /* cuDriverGetVersion: 12040 for 12.4 */
    char why[384];             /* why status < 0 or ndev == 0 */
    char exec_why[384];        /* non-empty: devices cannot be opened */
} cu;

static pthread_once_t cu_once = PTHREAD_ONCE_INIT;

typedef struct cu_device {
    kgrt_device base;
    CUdevice dev;
    CUcontext ctx;             /* the primary context, retained */
    CUstream stream;
    bool after;                /* KGRT_LAUNCH_AFTER is honoured: sm_90 or
                                  newer, cuLaunchKernelEx, and KGRT_PDL
                                  is not "0" */
} cu_device;

typedef struct cu_buffer {
    kgrt_buffer base;
    CUdeviceptr ptr;
} cu_buffer;

typedef struct cu_module {
    kgrt_module base;
    CUmodule mod;
} cu_module;

typedef struct cu_kernel {
    kgrt_kernel base;
    CUfunction fn;
    pthread_mutex_t lock;      /* guards dyn_max */
    size_t dyn_max;            /* dynamic shared memory allowed so far */
} cu_kernel;

#define DEV(d) ((cu_device *)(d))

static _Thread_local char cu_errbuf[32];

static const char *cu_errname(CUresult r)
{
    const char *name = NULL;
    if (cu.cuGetErrorName && cu.cuGetErrorName(r, &name) == CUDA_SUCCESS &&
        name)
        return name;
    snprintf(cu_errbuf, sizeof cu_errbuf, "CUDA error %d", r);
    return cu_errbuf;
}

static const char *cu_errstr(CUresult r)
{
    const char *s = NULL;
    if (cu.cuGetErrorString && cu.cuGetErrorString(r, &s) == CUDA_SUCCESS &&
        s)
        return s;
    return "";
}

/* How a caller should treat a failed CUresult (kgrt.h, "Statuses"). */
static int cu_class(CUresult r)
{
    switch (r) {
    case CUDA_ERROR_OUT_OF_MEMORY:
        return KGRT_EOOM;
    case CUDA_ERROR_INVALID_IMAGE:
    case CUDA_ERROR_NO_BINARY_FOR_GPU:
    case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
    case CUDA_ERROR_JIT_COMPILER_NOT_FOUND:
    case CUDA_ERROR_JIT_COMPILATION_DISABLED:
        return KGRT_EIMAGE;
    case CUDA_ERROR_INVALID_PTX:
        return KGRT_ECOMPILE;
    case CUDA_ERROR_NOT_FOUND:
        return KGRT_ENOTFOUND;
    case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:
    case CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE:
    case CUDA_ERROR_INVALID_CLUSTER_SIZE:
        return KGRT_ERESOURCE;
    case CUDA_ERROR_ECC_UNCORRECTABLE:
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_TENSOR_MEMORY_LEAK:
        return KGRT_ESTICKY;
    }
    return KGRT_EDRIVER;
}

/* Set the error for a failed driver call as status st, and return it. */
static int cu_fail_as(int st, const char *what, CUresult r)
{
    const char *s = cu_errstr(r);
    return kgrt_error(st, "%s: %s%s%s", what, cu_errname(r), s[0] ? ": " : "",
                      s);
}

static int cu_fail(const char *what, CUresult r)
{
    return cu_fail_as(cu_class(r), what, r);
}

/* ---- loading the driver ------------------------------------------------- */

/* Resolve one driver entry point (or the first of two names); false, with
 * why set, if missing. */
static bool cu_sym(void **fn, const char *name, const char *alt, char *why,
                   size_t n)
{
    *fn = dlsym(cu.lib, name);
    if (!*fn && alt)
        *fn = dlsym(cu.lib, alt);
    if (!*fn && why)
        snprintf(why, n, "libcuda.so.1 lacks %s: NVIDIA driver too old", name);
    return *fn != NULL;
}

#define SYM(f) cu_sym((void **)&cu.f, #f, NULL, cu.why, sizeof cu.why)
#define XSYM(f, alt) \
    cu_sym((void **)&cu.f, #f, alt, cu.exec_why, sizeof cu.exec_why)
/* Prefer the newer entry point v2 of field f, else f's own name. */
#define XSYM2(f, v2) \
    cu_sym((void **)&cu.f, v2, #f, cu.exec_why, sizeof cu.exec_why)

static void cu_load(void)
{
    const char *err;
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
    cu_sym((void **)&cu.cuGetErrorName, "cuGetErrorName", NULL, NULL, 0);
    cu_sym((void **)&cu.cuGetErrorString, "cuGetErrorString", NULL, NULL, 0);
    cu_sym((void **)&cu.cuFuncGetParamInfo, "cuFuncGetParamInfo", NULL, NULL,
           0);
    cu_sym((void **)&cu.cuTensorMapEncodeTiled, "cuTensorMapEncodeTiled",
           NULL, NULL, 0);
    cu_sym((void **)&cu.cuLaunchKernelEx, "cuLaunchKernelEx", NULL, NULL, 0);
    cu_sym((void **)&cu.cuDeviceGetPCIBusId, "cuDeviceGetPCIBusId", NULL, NULL,
           0);
    if (!SYM(cuInit) || !SYM(cuDriverGetVersion) || !SYM(cuDeviceGetCount) ||
        !SYM(cuDeviceGet) || !SYM(cuDeviceGetName) ||
        !SYM(cuDeviceGetAttribute) || !SYM(cuDeviceTotalMem_v2))
        return;
    /* Devices can be listed without these; opening one needs them all. */
    (void)(XSYM(cuDevicePrimaryCtxRetain, NULL) &&
           XSYM2(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2") &&
           XSYM(cuCtxPushCurrent_v2, NULL) && XSYM(cuCtxPopCurrent_v2, NULL) &&
           XSYM(cuStreamCreate, NULL) && XSYM(cuStreamDestroy_v2, NULL) &&
           XSYM(cuStreamSynchronize, NULL) && XSYM(cuMemAlloc_v2, NULL) &&
           XSYM(cuMemFree_v2, NULL) && XSYM(cuMemcpyHtoDAsync_v2, NULL) &&
           XSYM(cuMemcpyDtoHAsync_v2, NULL) && XSYM(cuMemsetD8Async, NULL) &&
           XSYM(cuMemsetD16Async, NULL) && XSYM(cuMemsetD32Async, NULL) &&
           XSYM(cuModuleLoadDataEx, NULL) && XSYM(cuModuleUnload, NULL) &&
           XSYM(cuModuleGetFunction, NULL) && XSYM(cuFuncGetAttribute, NULL) &&
           XSYM(cuFuncSetAttribute, NULL) && XSYM(cuLaunchKernel, NULL) &&
           XSYM(cuEventCreate, NULL) && XSYM(cuEventDestroy_v2, NULL) &&
           XSYM(cuEventRecord, NULL) && XSYM(cuEventQuery, NULL) &&
           XSYM(cuEventSynchronize, NULL) &&
           XSYM2(cuEventElapsedTime, "cuEventElapsedTime_v2"));

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
        snprintf(cu.why, sizeof cu.why, "cuInit failed: %s", cu_errname(r));
        return;
    }
    r = cu.cuDeviceGetCount(&cu.ndev);
    if (r != CUDA_SUCCESS) {
        cu.ndev = 0;
        snprintf(cu.why, sizeof cu.why, "cuDeviceGetCount failed: %s",
                 cu_errname(r));
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

/* Device index must exist: else out_of_range with the reason. */
static int check_index(int index, int out_of_range)
{
    pthread_once(&cu_once, cu_load);
    if (cu.status < 0)
        return kgrt_error(cu.status, "%s", cu.why);
    if (index >= cu.ndev)
        return kgrt_error(out_of_range,
                          "cuda device index %d out of range (%d devices%s%s)",
                          index, cu.ndev, cu.ndev ? "" : ": ",
                          cu.ndev ? "" : cu.why);
    return KGRT_OK;
}

static int cuda_device_info(int index, kgrt_device_info *out)
{
    CUdevice dev;
    CUresult r;
    int major = 0, minor = 0, rc;
    size_t bytes = 0;

    if ((rc = check_index(index, KGRT_EINVAL)) < 0)
        return rc;
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
                          cu_errname(r));
    out->name[sizeof out->name - 1] = '\0';
    snprintf(out->arch, sizeof out->arch, "sm_%d%d", major % 100, minor % 10);
    out->mem_bytes = bytes;
    snprintf(out->driver, sizeof out->driver, "CUDA driver %d.%d",
             cu.version / 1000, cu.version % 1000 / 10);
    /* optional: a driver without it leaves the bus id unknown */
    if (!cu.cuDeviceGetPCIBusId ||
        cu.cuDeviceGetPCIBusId(out->bus_id, (int)sizeof out->bus_id, dev) !=
            CUDA_SUCCESS)
        out->bus_id[0] = '\0';
    out->bus_id[sizeof out->bus_id - 1] = '\0';
    return KGRT_OK;
}

/* ---- devices -------------------------------------------------------------- */

static int push(cu_device *d)
{
    CUresult r = cu.cuCtxPushCurrent_v2(d->ctx);
    return r == CUDA_SUCCESS ? KGRT_OK : cu_fail("cuCtxPushCurrent", r);
}

static void pop(void)
{
    CUcontext c;
    cu.cuCtxPopCurrent_v2(&c);
}

static int fill_limits(cu_device *d)
{
    static const int attr[] = {
        CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
        CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
        CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK,
        CU_DEVICE_ATTRIBUTE_WARP_SIZE,
        CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
        CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE,
        CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X,
        CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X + 1,
        CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X + 2,
        CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X,
        CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X + 1,
        CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X + 2,
    };
    int v[sizeof attr / sizeof attr[0]];
    kgrt_limits *lim = &d->base.limits;
    size_t i;
    CUresult r;

    for (i = 0; i < sizeof attr / sizeof attr[0]; i++) {
        v[i] = 0;
        if ((r = cu.cuDeviceGetAttribute(&v[i], attr[i], d->dev)) !=
            CUDA_SUCCESS)
            return cu_fail("cuDeviceGetAttribute", r);
        if (v[i] < 0)
            v[i] = 0;
    }
    lim->max_shared_per_block = (size_t)v[0];
    lim->max_threads_per_block = v[1];
    lim->max_registers_per_block = v[2];
    lim->warp_or_simd = v[3];
    lim->compute_units = v[4];
    lim->l2_bytes = (size_t)v[5];
    lim->base_align = 1;
    for (i = 0; i < 3; i++) {
        lim->max_block[i] = (unsigned)v[6 + i];
        lim->max_grid[i] = (unsigned)v[9 + i];
    }
    lim->max_alloc = (size_t)d->base.info.mem_bytes;
    return KGRT_OK;
}

static void cuda_device_close(kgrt_device *base)
{
    cu_device *d = DEV(base);
    if (d->ctx) {
        if (d->stream && push(d) == KGRT_OK) {
            cu.cuStreamDestroy_v2(d->stream);
            pop();
        }
        cu.cuDevicePrimaryCtxRelease(d->dev);
    }
    free(d);
}

static int cuda_device_open(int index, kgrt_device **out)
{
    cu_device *d;
    CUresult r;
    int rc;

    if ((rc = check_index(index, KGRT_ENODEVICE)) < 0)
        return rc;
    if (cu.exec_why[0])
        return kgrt_error(KGRT_EDRIVER, "%s", cu.exec_why);
    if (!(d = calloc(1, sizeof *d)))
        return kgrt_error(KGRT_ENOMEM, "out of memory");
    if ((r = cu.cuDeviceGet(&d->dev, index)) != CUDA_SUCCESS) {
        free(d);
        return cu_fail("cuDeviceGet", r);
    }
    if ((rc = cuda_device_info(index, &d->base.info)) < 0 ||
        (rc = fill_limits(d)) < 0) {
        free(d);
        return rc;
    }
    if ((r = cu.cuDevicePrimaryCtxRetain(&d->ctx, d->dev)) != CUDA_SUCCESS) {
        free(d);
        return cu_fail("cuDevicePrimaryCtxRetain", r);
    }
    if ((rc = push(d)) < 0)
        goto cleanup;
    r = cu.cuStreamCreate(&d->stream, CU_STREAM_NON_BLOCKING);
    pop();
    if (r != CUDA_SUCCESS) {
        d->stream = NULL;
        rc = cu_fail("cuStreamCreate", r);
        goto cleanup;
    }
    d->base.stream0.native = d->stream;
    {
        const char *e = getenv("KGRT_PDL");
        d->after = cu.cuLaunchKernelEx && atoi(d->base.info.arch + 3) >= 90 &&
                   !(e && strcmp(e, "0") == 0);
    }
    *out = &d->base;
    return KGRT_OK;
cleanup:
    cuda_device_close(&d->base);
    return rc;
}

/* Wait for everything recorded before ev (on the device's stream), bounded
 * by the device's timeout.  The context must be current. */
static int wait_event(cu_device *d, CUevent ev, const char *what)
{
    double timeout = atomic_load(&d->base.timeout_ms), start;
    unsigned sleep_us = 0;
    CUresult r;

    if (timeout <= 0) {
        r = cu.cuEventSynchronize(ev);
        return r == CUDA_SUCCESS ? KGRT_OK : cu_fail(what, r);
    }
    start = kgrt_now_ms();
    while ((r = cu.cuEventQuery(ev)) == CUDA_ERROR_NOT_READY)
        if (!kgrt_poll_wait(start, timeout, &sleep_us))
            return kgrt_error(KGRT_ETIMEOUT, "%s still running after %g ms",
                              what, timeout);
    return r == CUDA_SUCCESS ? KGRT_OK : cu_fail(what, r);
}

/* Synchronise the stream, honouring the timeout.  Context current. */
static int sync_stream(cu_device *d, CUstream stream, const char *what)
{
    CUevent ev;
    CUresult r;
    int rc;

    if (atomic_load(&d->base.timeout_ms) <= 0) {
        r = cu.cuStreamSynchronize(stream);
        return r == CUDA_SUCCESS ? KGRT_OK : cu_fail(what, r);
    }
    if ((r = cu.cuEventCreate(&ev, CU_EVENT_DISABLE_TIMING)) != CUDA_SUCCESS)
        return cu_fail("cuEventCreate", r);
    if ((r = cu.cuEventRecord(ev, stream)) != CUDA_SUCCESS)
        rc = cu_fail("cuEventRecord", r);
    else
        rc = wait_event(d, ev, what);
    cu.cuEventDestroy_v2(ev);
    return rc;
}

static int cuda_synchronize(kgrt_device *base)
{
    cu_device *d = DEV(base);
    int rc = push(d);
    if (rc < 0)
        return rc;
    rc = sync_stream(d, d->stream, "cuStreamSynchronize");
    pop();
    return rc;
}

/* ---- streams and events ------------------------------------------------- */

static int cuda_stream_create(kgrt_device *base, void *wrap, bool create,
                              void **native)
{
    cu_device *d = DEV(base);
    CUstream s = NULL;
    CUresult r;
    int rc;
    if (!create) {
        *native = wrap;        /* a CUstream of the primary context */
        return KGRT_OK;
    }
    if ((rc = push(d)) < 0)
        return rc;
    r = cu.cuStreamCreate(&s, CU_STREAM_NON_BLOCKING);
    pop();
    if (r != CUDA_SUCCESS)
        return cu_fail("cuStreamCreate", r);
    *native = s;
    return KGRT_OK;
}

static void cuda_stream_destroy(kgrt_device *base, void *native, bool owned)
{
    cu_device *d = DEV(base);
    if (!owned || push(d) < 0)
        return;
    cu.cuStreamDestroy_v2((CUstream)native);
    pop();
}

static int cuda_stream_sync(kgrt_device *base, void *native)
{
    cu_device *d = DEV(base);
    int rc = push(d);
    if (rc < 0)
        return rc;
    rc = sync_stream(d, (CUstream)native, "cuStreamSynchronize");
    pop();
    return rc;
}

static int cuda_event_record(kgrt_device *base, void *stream, void **out)
{
    cu_device *d = DEV(base);
    CUevent ev = NULL;
    CUresult r;
    int rc = push(d);
    if (rc < 0)
        return rc;
    if ((r = cu.cuEventCreate(&ev, CU_EVENT_DEFAULT)) != CUDA_SUCCESS)
        rc = cu_fail("cuEventCreate", r);
    else if ((r = cu.cuEventRecord(ev, (CUstream)stream)) != CUDA_SUCCESS) {
        rc = cu_fail("cuEventRecord", r);
        cu.cuEventDestroy_v2(ev);
        ev = NULL;
    }
    pop();
    *out = ev;
    return rc;
}

static int cuda_event_sync(kgrt_device *base, void *ev)
{
    cu_device *d = DEV(base);
    int rc = push(d);
    if (rc < 0)
        return rc;
    rc = wait_event(d, (CUevent)ev, "cuEventSynchronize");
    pop();
    return rc;
}

static int cuda_event_elapsed(kgrt_device *base, void *a, void *b, double *ms)
{
    cu_device *d = DEV(base);
    float t = 0;
    CUresult r;
    int rc = push(d);
    if (rc < 0)
        return rc;
    if ((rc = wait_event(d, (CUevent)b, "cuEventSynchronize")) == KGRT_OK) {
        r = cu.cuEventElapsedTime(&t, (CUevent)a, (CUevent)b);
        rc = r == CUDA_SUCCESS ? KGRT_OK : cu_fail("cuEventElapsedTime", r);
    }
    pop();
    *ms = t;
    return rc;
}

static void cuda_event_destroy(kgrt_device *base, void *ev)
{
    if (push(DEV(base)) < 0)
        return;
    cu.cuEventDestroy_v2((CUevent)ev);
    pop();
}

static void *cuda_buffer_native(const kgrt_buffer *b)
{
    return (void *)(uintptr_t)((const cu_buffer *)b)->ptr;
}

/* ---- memory ------------------------------------------------------------------ */

static int cuda_buffer_alloc(kgrt_device *base, size_t bytes,
                             kgrt_buffer **out)
{
    cu_device *d = DEV(base);
    cu_buffer *b = calloc(1, sizeof *b);
    CUresult r;
    int rc;

    if (!b)
        return kgrt_error(KGRT_ENOMEM, "out of memory");
    if ((rc = push(d)) < 0) {
        free(b);
        return rc;
    }
    r = cu.cuMemAlloc_v2(&b->ptr, bytes);
    pop();
    if (r != CUDA_SUCCESS) {
        free(b);
        return kgrt_error(cu_class(r), "cuMemAlloc(%zu bytes): %s", bytes,
                          cu_errname(r));
    }
    *out = &b->base;
    return KGRT_OK;
}

static void cuda_buffer_free(kgrt_buffer *base)
{
    cu_buffer *b = (cu_buffer *)base;
    if (push(DEV(base->dev)) == KGRT_OK) {
        cu.cuMemFree_v2(b->ptr);
        pop();
    }
    free(b);
}

static int cuda_buffer_write(kgrt_buffer *base, size_t off, const void *src,
                             size_t n)
{
    cu_device *d = DEV(base->dev);
    CUresult r;
    int rc = push(d);
    if (rc < 0)
        return rc;
    r = cu.cuMemcpyHtoDAsync_v2(((cu_buffer *)base)->ptr + off, src, n,
                                d->stream);
    if (r == CUDA_SUCCESS)
        r = cu.cuStreamSynchronize(d->stream);
    pop();
    return r == CUDA_SUCCESS ? KGRT_OK : cu_fail("cuMemcpyHtoD", r);
}

static int cuda_buffer_read(kgrt_buffer *base, size_t off, void *dst, size_t n)
{
    cu_device *d = DEV(base->dev);
    CUresult r;
    int rc = push(d);
    if (rc < 0)
        return rc;
    r = cu.cuMemcpyDtoHAsync_v2(dst, ((cu_buffer *)base)->ptr + off, n,
                                d->stream);
    if (r == CUDA_SUCCESS)
        r = cu.cuStreamSynchronize(d->stream);
    pop();
    return r == CUDA_SUCCESS ? KGRT_OK : cu_fail("cuMemcpyDtoH", r);
}

/* Patterns of 1, 2 and 4 bytes (and longer ones that repeat their first 4
 * bytes) are memsets; others are copied from a host buffer of repeats. */
static int cuda_buffer_fill(kgrt_buffer *base, const void *pattern,
                            size_t psize)
{
    cu_device *d = DEV(base->dev);
    CUdeviceptr p = ((cu_buffer *)base)->ptr;
    size_t n = base->size, chunk, off, i;
    unsigned char *host = NULL;
    bool periodic = psize >= 4;
    uint32_t v32;
    uint16_t v16;
    CUresult r = CUDA_SUCCESS;
    int rc = push(d);

    if (rc < 0)
        return rc;
    for (i = 4; periodic && i < psize; i += 4)
        periodic = !memcmp((const char *)pattern + i, pattern, 4);
    if (psize == 1) {
        r = cu.cuMemsetD8Async(p, *(const unsigned char *)pattern, n,
                               d->stream);
    } else if (psize == 2) {
        memcpy(&v16, pattern, 2);
        r = cu.cuMemsetD16Async(p, v16, n / 2, d->stream);
    } else if (periodic) {
        memcpy(&v32, pattern, 4);
        r = cu.cuMemsetD32Async(p, v32, n / 4, d->stream);
    } else {
        chunk = n < ((size_t)1 << 22) ? n : ((size_t)1 << 22);
        if (!(host = malloc(chunk))) {
            pop();
            return kgrt_error(KGRT_ENOMEM, "out of memory");
        }
        for (i = 0; i < chunk; i += psize)
            memcpy(host + i, pattern, psize);
        for (off = 0; off < n && r == CUDA_SUCCESS; off += chunk)
            r = cu.cuMemcpyHtoDAsync_v2(p + off, host,
                                        n - off < chunk ? n - off : chunk,
                                        d->stream);
    }
    if (r == CUDA_SUCCESS)
        r = cu.cuStreamSynchronize(d->stream);
    pop();
    free(host);
    return r == CUDA_SUCCESS ? KGRT_OK : cu_fail("kgrt_buffer_fill", r);
}

/* ---- modules and kernels ------------------------------------------------------- */

/* "error log\ninfo log", malloc'd; NULL when both are empty. */
static char *jit_log(const char *err, const char *info)
{
    size_t ne = strlen(err), ni = strlen(info);
    char *both = malloc(ne + ni + 2), *log;
    if (!both)
        return NULL;
    memcpy(both, err, ne);
    both[ne] = ne && ni ? '\n' : '\0';
    memcpy(both + ne + (ne && ni), info, ni);
    both[ne + (ne && ni) + ni] = '\0';
    log = kgrt_log_dup(both, ne + ni + 1);
    free(both);
    return log;
}

static uint64_t rd_le(const unsigned char *p, int n)
{
    uint64_t v = 0;
    while (n-- > 0)
        v = v << 8 | p[n];
    return v;
}

/* The driver takes no size with an image, so check that what its header
 * describes lies within the bytes given: an ELF's section and program
 * header tables, a fatbin's header and payload. */
static bool image_fits(const unsigned char *b, size_t n)
{
    if (n >= 64 && !memcmp(b, "\177ELF", 4) && b[4] == 2 && b[5] == 1) {
        uint64_t shoff = rd_le(b + 0x28, 8), shent = rd_le(b + 0x3a, 2);
        uint64_t shnum = rd_le(b + 0x3c, 2), phoff = rd_le(b + 0x20, 8);
        uint64_t phent = rd_le(b + 0x36, 2), phnum = rd_le(b + 0x38, 2);
        return shoff <= n && shnum * shent <= n - shoff && phoff <= n &&
               phnum * phent <= n - phoff;
    }
    /* fatbin: u32 magic 0xBA55ED50, u16 version, u16 header size, u64
     * payload size. */
    if (n >= 16 && rd_le(b, 4) == 0xBA55ED50u) {
        uint64_t hdr = rd_le(b + 6, 2), payload = rd_le(b + 8, 8);
        return hdr <= n && payload <= n - hdr;
    }
    return false;
}

static int cuda_module_load(kgrt_device *base, const kgrt_image *img,
                            kgrt_module **out, char **logp)
{
    cu_device *d = DEV(base);
    cu_module *m = NULL;
    char *copy = NULL, *log = NULL, *errlog = NULL, *infolog = NULL;
    char first[256];
    const void *data = img->data;
    int opts[4] = { CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                    CU_JIT_ERROR_LOG_BUFFER,
                    CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES };
    void *vals[4];
    CUresult r;
    int rc;

    if (img->kind != KGRT_IMAGE_CUBIN && img->kind != KGRT_IMAGE_PTX)
        return kgrt_error(KGRT_EINVAL, "cuda device %d loads a CUBIN or PTX, "
                          "not OpenCL source", base->info.index);
    if (img->kind == KGRT_IMAGE_CUBIN && !image_fits(data, img->size))
        return kgrt_error(KGRT_EIMAGE, "not a CUBIN: no ELF or fatbin "
                          "header, or one that points past its %zu bytes",
                          img->size);
    /* PTX text must end in NUL for the driver. */
    if (img->kind == KGRT_IMAGE_PTX && img->size &&
        ((const char *)data)[img->size - 1] != '\0') {
        if (!(copy = malloc(img->size + 1)))
            return kgrt_error(KGRT_ENOMEM, "out of memory");
        memcpy(copy, data, img->size);
        copy[img->size] = '\0';
        data = copy;
    }
    m = calloc(1, sizeof *m);
    errlog = calloc(1, JIT_LOG_BYTES);
    infolog = calloc(1, JIT_LOG_BYTES);
    if (!m || !errlog || !infolog) {
        rc = kgrt_error(KGRT_ENOMEM, "out of memory");
        goto cleanup;
    }
    vals[0] = infolog;
    vals[1] = (void *)(uintptr_t)(JIT_LOG_BYTES - 1);
    vals[2] = errlog;
    vals[3] = (void *)(uintptr_t)(JIT_LOG_BYTES - 1);
    if ((rc = push(d)) < 0)
        goto cleanup;
    r = cu.cuModuleLoadDataEx(&m->mod, data, 4, opts, vals);
    pop();
    log = jit_log(errlog, infolog);
    if (r != CUDA_SUCCESS) {
        kgrt_log_first_error(log, first, sizeof first);
        rc = kgrt_error(cu_class(r) == KGRT_EDRIVER ? KGRT_EIMAGE : cu_class(r),
                        "cuModuleLoadData(%s): %s: %s%s%s",
                        img->kind == KGRT_IMAGE_PTX ? "PTX" : "CUBIN",
                        cu_errname(r), cu_errstr(r), first[0] ? ": " : "",
                        first);
        goto cleanup;
    }
    *out = &m->base;
    m = NULL;
    rc = KGRT_OK;
cleanup:
    if (logp) {
        *logp = log;
        log = NULL;
    }
    free(log);
    free(m);
    free(copy);
    free(errlog);
    free(infolog);
    return rc;
}

static void cuda_module_unload(kgrt_module *base)
{
    cu_module *m = (cu_module *)base;
    if (push(DEV(base->dev)) == KGRT_OK) {
        cu.cuModuleUnload(m->mod);
        pop();
    }
    free(m);
}

/* The kernel's parameter sizes (CUDA 12.4+ drivers); -1 when unknown. */
static int param_info(cu_kernel *k)
{
    size_t off, size, cap = 0, *sizes = NULL;
    int n = 0;
    CUresult r;

    if (!cu.cuFuncGetParamInfo)
        return -1;
    for (;;) {
        r = cu.cuFuncGetParamInfo(k->fn, (size_t)n, &off, &size);
        if (r != CUDA_SUCCESS)
            break;
        if ((size_t)n == cap) {
            size_t *grown = realloc(sizes, (cap ? cap * 2 : 8) * sizeof *sizes);
            if (!grown) {
                free(sizes);
                return -1;
            }
            sizes = grown;
            cap = cap ? cap * 2 : 8;
        }
        sizes[n++] = size;
    }
    if (r != CUDA_ERROR_INVALID_VALUE) {     /* not "past the last one" */
        free(sizes);
        return -1;
    }
    k->base.param_size = sizes;
    return n;
}

static int cuda_kernel_get(kgrt_module *mbase, const char *name,
                           kgrt_kernel **out)
{
    cu_module *m = (cu_module *)mbase;
    cu_kernel *k = calloc(1, sizeof *k);
    int regs = 0, shared = 0, local = 0, maxthr = 0, rc;
    CUresult r;

    if (!k)
        return kgrt_error(KGRT_ENOMEM, "out of memory");
    if ((rc = push(DEV(mbase->dev))) < 0) {
        free(k);
        return rc;
    }
    r = cu.cuModuleGetFunction(&k->fn, m->mod, name);
    if (r == CUDA_ERROR_NOT_FOUND) {
        rc = kgrt_error(KGRT_ENOTFOUND, "no kernel '%s' in the module "
                        "(CUDA_ERROR_NOT_FOUND; is it extern \"C\"?)", name);
        goto cleanup;
    }
    if (r != CUDA_SUCCESS) {
        rc = cu_fail("cuModuleGetFunction", r);
        goto cleanup;
    }
    if ((r = cu.cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS,
                                   k->fn)) != CUDA_SUCCESS ||
        (r = cu.cuFuncGetAttribute(&shared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
                                   k->fn)) != CUDA_SUCCESS ||
        (r = cu.cuFuncGetAttribute(&local, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES,
                                   k->fn)) != CUDA_SUCCESS ||
        (r = cu.cuFuncGetAttribute(&maxthr,
                                   CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                                   k->fn)) != CUDA_SUCCESS) {
        rc = cu_fail("cuFuncGetAttribute", r);
        goto cleanup;
    }
    /* sm_90 runs clusters of up to 16 blocks, past the portable 8, where
     * the kernel opts in (its __cluster_dims__ says how many it takes:
     * ln_dwconv's take C / BC).  Where the driver refuses, such a kernel's
     * launch fails and is reported as any launch error. */
    if (atoi(mbase->dev->info.arch + 3) >= 90)
        (void)cu.cuFuncSetAttribute(
            k->fn, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1);
    k->base.attrs.registers = regs;
    k->base.attrs.shared_static = shared > 0 ? (size_t)shared : 0;
    k->base.attrs.local_bytes = local > 0 ? (size_t)local : 0;
    k->base.attrs.max_threads_per_block = maxthr;
    k->base.nparams = param_info(k);
    k->dyn_max = k->base.attrs.shared_static < DEFAULT_DYNAMIC_SHARED
                     ? DEFAULT_DYNAMIC_SHARED - k->base.attrs.shared_static
                     : 0;
    pthread_mutex_init(&k->lock, NULL);
    pop();
    *out = &k->base;
    return KGRT_OK;
cleanup:
    pop();
    free(k);
    return rc;
}

static void cuda_kernel_release(kgrt_kernel *base)
{
    cu_kernel *k = (cu_kernel *)base;
    pthread_mutex_destroy(&k->lock);
    free(k->base.param_size);
    free(k);
}

/* Opt the kernel in to dyn bytes of dynamic shared memory if it needs more
 * than it has been allowed so far.  Context current. */
static int allow_dynamic_shared(cu_kernel *k, size_t dyn)
{
    CUresult r = CUDA_SUCCESS;
    pthread_mutex_lock(&k->lock);
    if (dyn > k->dyn_max) {
        r = cu.cuFuncSetAttribute(k->fn,
                                  CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                  (int)dyn);
        if (r == CUDA_SUCCESS)
            k->dyn_max = dyn;
    }
    pthread_mutex_unlock(&k->lock);
    if (r == CUDA_SUCCESS)
        return KGRT_OK;
    return cu_fail_as(r == CUDA_ERROR_INVALID_VALUE ? KGRT_ERESOURCE
                                                    : cu_class(r),
                      "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)", r);
}

#define STACK_ARGS 64
#define MAX_TMAPS 8

/* A CUtensorMap: 128 bytes, 64-byte aligned at least. */
typedef struct cu_tmap {
    _Alignas(128) uint64_t q[16];
} cu_tmap;

/* Encode a's tensor map over address base (its byte offset added). */
static int encode_tmap(const char *name, int i, const kgrt_arg *a,
                       CUdeviceptr base, cu_tmap *out)
{
    const kgrt_tmap *m = a->tmap;
    /* CU_TENSOR_MAP_DATA_TYPE_ FLOAT16, BFLOAT16, FLOAT32; SWIZZLE_ NONE,
       32B, 64B, 128B; L2_PROMOTION_L2_256B */
    int dt = m->dtype == KGRT_F16 ? 6 : m->dtype == KGRT_BF16 ? 9
           : m->dtype == KGRT_F32 ? 7 : -1;
    int sw = m->swizzle == 128 ? 3 : m->swizzle == 64 ? 2
           : m->swizzle == 32 ? 1 : 0;
    uint32_t es[KGRT_TMAP_RANK] = { 1, 1, 1, 1, 1 };
    CUresult r;
    if (!cu.cuTensorMapEncodeTiled)
        return kgrt_error(KGRT_EDRIVER, "%s: argument %d: the driver has no "
                          "cuTensorMapEncodeTiled (CUDA 12 or newer)", name, i);
    if (dt < 0)
        return kgrt_error(KGRT_EINVAL, "%s: argument %d: no tensor map of "
                          "dtype %d", name, i, m->dtype);
    memset(out, 0, sizeof *out);
    r = cu.cuTensorMapEncodeTiled(out, dt, (unsigned)m->rank,
                                  (void *)(uintptr_t)(base + a->size + m->off),
                                  m->dims, m->strides, m->box, es, 0, sw, 3,
                                  0);
    if (r != CUDA_SUCCESS)
        return kgrt_error(KGRT_EINVAL, "%s: argument %d: "
                          "cuTensorMapEncodeTiled: %s", name, i,
                          cu_errname(r));
    return KGRT_OK;
}

static int cuda_launch(kgrt_kernel *base, void *stream,
                       const unsigned grid[3], const unsigned block[3],
                       size_t dyn, const kgrt_arg *args, int nargs, double *ms,
                       unsigned flags)
{
    cu_kernel *k = (cu_kernel *)base;
    cu_device *d = DEV(base->mod->dev);
    CUstream st = (CUstream)stream;
    void *stack_params[STACK_ARGS], **params = stack_params;
    CUdeviceptr stack_native[STACK_ARGS], *native = stack_native;
    cu_tmap tmaps[MAX_TMAPS];
    int ntmaps = 0;
    CUevent ev[2] = { NULL, NULL };
    float elapsed = 0;
    CUresult r;
    int i, rc;

    if (nargs > STACK_ARGS &&
        (!(params = malloc((size_t)nargs * sizeof *params)) ||
         !(native = malloc((size_t)nargs * sizeof *native)))) {
        free(params == stack_params ? NULL : params);
        return kgrt_error(KGRT_ENOMEM, "out of memory");
    }
    /* (the context is current from here: tensor maps are encoded in it) */
    if ((rc = push(d)) < 0)
        goto out;
    for (i = 0; i < nargs; i++) {
        const kgrt_arg *a = &args[i];
        switch (a->kind) {
        case KGRT_ARG_BUFFER: params[i] = &((cu_buffer *)a->buf)->ptr; break;
        case KGRT_ARG_I32: params[i] = (void *)&a->i32; break;
        case KGRT_ARG_I64: params[i] = (void *)&a->i64; break;
        case KGRT_ARG_F32: params[i] = (void *)&a->f32; break;
        case KGRT_ARG_BYTES: params[i] = (void *)a->bytes; break;
        case KGRT_ARG_NATIVE:
            native[i] = (CUdeviceptr)(uintptr_t)a->bytes + a->size;
            params[i] = &native[i];
            break;
        case KGRT_ARG_TMAP:
            if (ntmaps == MAX_TMAPS) {
                rc = kgrt_error(KGRT_EINVAL, "%s: more than %d tensor maps",
                                base->name, MAX_TMAPS);
                goto cleanup;
            }
            if ((rc = encode_tmap(base->name, i, a,
                                  a->buf ? ((cu_buffer *)a->buf)->ptr
                                         : (CUdeviceptr)(uintptr_t)a->bytes,
                                  &tmaps[ntmaps])) < 0)
                goto cleanup;
            params[i] = &tmaps[ntmaps++];
            break;
        }
    }
    if ((rc = allow_dynamic_shared(k, dyn)) < 0)
        goto cleanup;
    if (ms) {
        if ((r = cu.cuEventCreate(&ev[0], CU_EVENT_DEFAULT)) != CUDA_SUCCESS ||
            (r = cu.cuEventCreate(&ev[1], CU_EVENT_DEFAULT)) != CUDA_SUCCESS ||
            (r = cu.cuEventRecord(ev[0], st)) != CUDA_SUCCESS) {
            rc = cu_fail("cuEventCreate/Record", r);
            goto cleanup;
        }
    }
    if ((flags & KGRT_LAUNCH_AFTER) && d->after && !ms) {
        CUlaunchAttribute at;
        CUlaunchConfig cf = { grid[0], grid[1], grid[2], block[0], block[1],
                              block[2], (unsigned)dyn, st, &at, 1 };
        memset(&at, 0, sizeof at);
        at.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
        at.value.programmatic = 1;
        r = cu.cuLaunchKernelEx(&cf, k->fn, params, NULL);
    } else {
        r = cu.cuLaunchKernel(k->fn, grid[0], grid[1], grid[2], block[0],
                              block[1], block[2], (unsigned)dyn, st, params,
                              NULL);
    }
    if (r != CUDA_SUCCESS) {
        /* An invalid configuration the checks in kgrt.c did not catch. */
        const char *s = cu_errstr(r);
        rc = r == CUDA_ERROR_INVALID_VALUE ? KGRT_ERESOURCE
             : cu_class(r) == KGRT_EDRIVER ? KGRT_ELAUNCH
                                           : cu_class(r);
        kgrt_error(rc, "%s: grid %ux%ux%u block %ux%ux%u shared %zu: "
                   "cuLaunchKernel: %s%s%s", base->name, grid[0], grid[1],
                   grid[2], block[0], block[1], block[2], dyn, cu_errname(r),
                   s[0] ? ": " : "", s);
        goto cleanup;
    }
    rc = KGRT_OK;
    if (ms) {
        if ((r = cu.cuEventRecord(ev[1], st)) != CUDA_SUCCESS) {
            rc = cu_fail("cuEventRecord", r);
            goto cleanup;
        }
        if ((rc = wait_event(d, ev[1], base->name)) < 0)
            goto cleanup;
        if ((r = cu.cuEventElapsedTime(&elapsed, ev[0], ev[1])) !=
            CUDA_SUCCESS) {
            rc = cu_fail("cuEventElapsedTime", r);
            goto cleanup;
        }
        *ms = elapsed;
    }
cleanup:
    if (ev[0])
        cu.cuEventDestroy_v2(ev[0]);
    if (ev[1])
        cu.cuEventDestroy_v2(ev[1]);
    pop();
out:
    if (params != stack_params)
        free(params);
    if (native != stack_native)
        free(native);
    return rc;
}

const kgrt_backend_ops kgrt_cuda_ops = {
    .name = "cuda",
    .device_count = cuda_device_count,
    .device_info = cuda_device_info,
    .device_open = cuda_device_open,
    .device_close = cuda_device_close,
    .synchronize = cuda_synchronize,
    .buffer_alloc = cuda_buffer_alloc,
    .buffer_free = cuda_buffer_free,
    .buffer_write = cuda_buffer_write,
    .buffer_read = cuda_buffer_read,
    .buffer_fill = cuda_buffer_fill,
    .module_load = cuda_module_load,
    .module_unload = cuda_module_unload,
    .kernel_get = cuda_kernel_get,
    .kernel_release = cuda_kernel_release,
    .buffer_native = cuda_buffer_native,
    .stream_create = cuda_stream_create,
    .stream_destroy = cuda_stream_destroy,
    .stream_sync = cuda_stream_sync,
    .event_record = cuda_event_record,
    .event_sync = cuda_event_sync,
    .event_elapsed = cuda_event_elapsed,
    .event_destroy = cuda_event_destroy,
    .launch = cuda_launch,
};

/*
 * kgen/kgrt.h -- the kgen runtime: backends and devices.
 *
 * kgrt is the small library that libfused.a (the output of `kgen build`)
 * and the kgen tuner use to reach a GPU.  It never prints and never exits:
 * every call returns a status (a negative kgrt_status on failure) and leaves
 * a human-readable reason in a per-thread buffer read by kgrt_last_error().
 *
 * Backends:
 *   CUDA    the driver API, loaded at run time with dlopen("libcuda.so.1"),
 *           so a program linked with kgrt runs on machines without a driver
 *           (it just sees zero CUDA devices).
 *   OpenCL  the ICD loader (libOpenCL.so), when kgrt was built with it
 *           (KGEN_WITH_OPENCL).  Device indices run over all platforms in
 *           the order the loader reports them.
 *
 * Thread safety: every function may be called from any thread.  The last
 * error message is per thread; it is cleared at the start of each call that
 * can fail and is only meaningful right after such a call returned a
 * negative status, or 0 from kgrt_device_count().
 */
#ifndef KGEN_KGRT_H
#define KGEN_KGRT_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    KGRT_OK = 0,
    KGRT_EINVAL = -1,          /* a bad argument: NULL, index out of range */
    KGRT_ENOBACKEND = -2,      /* kgrt was built without this backend */
    KGRT_EDRIVER = -3,         /* the driver or ICD reported an error */
    KGRT_ENOMEM = -4,          /* out of host memory */
} kgrt_status;

typedef enum {
    KGRT_CUDA = 0,
    KGRT_OPENCL = 1,
} kgrt_backend;

#define KGRT_BACKEND_COUNT 2

typedef struct kgrt_device_info {
    kgrt_backend backend;
    int index;                 /* 0-based, within the backend */
    char name[256];            /* as the driver names it */
    char arch[32];             /* "sm_90" for CUDA, "opencl" for OpenCL */
    unsigned long long mem_bytes; /* global memory */
    char driver[128];          /* driver name and version, for cache keys */
} kgrt_device_info;

/* "cuda", "opencl"; "unknown" for any other value. */
const char *kgrt_backend_name(kgrt_backend b);

/* Number of devices (>= 0) or a negative kgrt_status.  On 0 or on error,
 * kgrt_last_error() says why, e.g. "libcuda.so.1 not found: no NVIDIA
 * driver", "no OpenCL platform", "kgen built without OpenCL". */
int kgrt_device_count(kgrt_backend b);

/* Fill *out for device index of backend b.  KGRT_OK or a negative status;
 * *out is zeroed on failure. */
int kgrt_device_info_get(kgrt_backend b, int index, kgrt_device_info *out);

/* The reason for this thread's last failure; "" when there is none.  Never
 * NULL.  The string stays valid until this thread's next kgrt call. */
const char *kgrt_last_error(void);

/* A short description of a status: "invalid argument", ... */
const char *kgrt_status_string(int status);

#ifdef __cplusplus
}
#endif

#endif

/*
 * kgen/kgrt.h -- the kgen runtime: devices, memory, modules and launches.
 *
 * kgrt is the small library that libfused.a (the output of `kgen build`)
 * and the kgen tuner use to reach a GPU.  It never prints and never exits:
 * every call returns a status (a negative kgrt_status on failure) and leaves
 * a human-readable reason in a per-thread buffer read by kgrt_last_error().
 *
 * Backends:
 *   CUDA    the driver API, loaded at run time with dlopen("libcuda.so.1"),
 *           so a program linked with kgrt runs on machines without a driver
 *           (it just sees zero CUDA devices).  A device is the GPU's
 *           *primary* context (the one the CUDA runtime and PyTorch use),
 *           so their device pointers can be passed to kernels as they are,
 *           plus one non-blocking stream owned by the kgrt_device.
 *   OpenCL  the ICD loader (libOpenCL.so), when kgrt was built with it
 *           (KGEN_WITH_OPENCL).  Device indices run over all platforms in
 *           the order the loader reports them.  A device is a context and
 *           one in-order command queue with profiling enabled.
 *
 * Objects come in create/destroy pairs (open/close, alloc/free, load/unload);
 * a destroy accepts NULL, and an out-parameter is NULL after a failure.
 * Kernels belong to their module: kgrt_kernel_get() returns the same object
 * for the same name, and kgrt_module_unload() frees them.  Destroy buffers
 * and modules before closing their device.
 *
 * Work on a device runs in order: kgrt_launch() is asynchronous, buffer
 * reads, writes and fills are blocking and ordered after earlier launches,
 * kgrt_launch_timed() and kgrt_synchronize() wait.
 *
 * Thread safety: every function may be called from any thread; the objects
 * of one device may be used from several threads at once (launches of one
 * kernel are serialised internally on OpenCL, where arguments live in the
 * kernel object).  The last error message is per thread; it is cleared at
 * the start of each call that can fail and is only meaningful right after
 * such a call returned a negative status, or 0 from kgrt_device_count().
 */
#ifndef KGEN_KGRT_H
#define KGEN_KGRT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Statuses.  A caller that tunes or validates kernels classifies failures
 * by these (docs: RELIABILITY D1-D3, D8):
 *   ECOMPILE   the image did not build (OpenCL clBuildProgram, CUDA PTX
 *              JIT); the build log says why.  Try the next candidate.
 *   EIMAGE     the image cannot run here at all: no CUBIN for this GPU,
 *              PTX newer than the driver, a corrupt image.  An environment
 *              problem, not the candidate's.
 *   ERESOURCE  a launch asked for more than the kernel or device allows:
 *              threads per block, block or grid dimensions, shared memory,
 *              registers (CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES,
 *              CL_INVALID_WORK_GROUP_SIZE, CL_OUT_OF_RESOURCES at enqueue).
 *              Not sticky: the device stays usable.
 *   ELAUNCH    the launch was refused for another reason, or an OpenCL
 *              kernel ended with an error status.  Not known to be sticky.
 *   ESTICKY    the kernel faulted (illegal or misaligned address, trap,
 *              device-side assert, illegal instruction ...).  The CUDA
 *              context is unusable from then on; every later call on this
 *              device returns ESTICKY.  Only a fresh process recovers.
 *   ETIMEOUT   a wait passed the device's timeout (kgrt_device_set_timeout);
 *              the kernel may still be running.  Treat like ESTICKY: abandon
 *              the process rather than the device.
 *   EOOM       device memory exhausted (or a buffer over the device's
 *              maximum allocation).
 *   ENOTFOUND  no kernel of that name in the module.
 *   ENODEVICE  kgrt_device_open: no such device (no driver, index too high).
 */
typedef enum {
    KGRT_OK = 0,
    KGRT_EINVAL = -1,          /* a bad argument: NULL, index out of range */
    KGRT_ENOBACKEND = -2,      /* kgrt was built without this backend */
    KGRT_EDRIVER = -3,         /* the driver or ICD reported an error */
    KGRT_ENOMEM = -4,          /* out of host memory */
    KGRT_ENODEVICE = -5,       /* no such device */
    KGRT_ECOMPILE = -6,        /* the image failed to build */
    KGRT_EIMAGE = -7,          /* the image cannot be loaded on this device */
    KGRT_ENOTFOUND = -8,       /* no kernel of that name */
    KGRT_ERESOURCE = -9,       /* too many resources for the launch */
    KGRT_ELAUNCH = -10,        /* launch refused or failed, not sticky */
    KGRT_ESTICKY = -11,        /* device fault: the context is unusable */
    KGRT_ETIMEOUT = -12,       /* a wait passed the device's timeout */
    KGRT_EOOM = -13,           /* out of device memory */
    /* the launchers of a generated library (fused.h) */
    KGRT_EDTYPE = -14,         /* a tensor of the wrong dtype */
    KGRT_ERANK = -15,          /* a tensor of the wrong rank */
    KGRT_ESHAPE = -16,         /* a shape the library was not built for */
    KGRT_ESTRIDE = -17,        /* strides (a layout) the kernel cannot read */
    KGRT_EALIGN = -18,         /* data not aligned as the kernel needs */
    KGRT_EALIAS = -19,         /* an output overlaps another argument */
    KGRT_EWORKSPACE = -20,     /* the workspace is missing or too small */
} kgrt_status;

/* Element types, in kgen's order (bool is one byte, f16 and bf16 two). */
typedef enum {
    KGRT_BOOL = 0,
    KGRT_I32 = 1,
    KGRT_F16 = 2,
    KGRT_BF16 = 3,
    KGRT_F32 = 4,
} kgrt_dtype;

#define KGRT_MAX_RANK 8

/*
 * A tensor descriptor, as the launchers of a generated library take them:
 * PyTorch's view of a tensor.  Element (i0, i1, ...) lives at byte
 *     data + offset + (i0*strides[0] + i1*strides[1] + ...) * dtype size
 * where data is a CUDA device address (a CUdeviceptr cast to a pointer, or
 * tensor.data_ptr()) or an OpenCL cl_mem, and offset a byte offset into it
 * (on OpenCL the way to address part of a buffer).  Strides count
 * elements.
 */
typedef struct kgrt_tensor {
    void *data;
    size_t offset;
    int32_t dtype;             /* kgrt_dtype */
    int32_t rank;
    int64_t shape[KGRT_MAX_RANK];
    int64_t strides[KGRT_MAX_RANK];
} kgrt_tensor;

/* Bytes per element of a kgrt_dtype; 0 for an unknown one. */
size_t kgrt_dtype_size(int dtype);
const char *kgrt_dtype_name(int dtype);

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
    char bus_id[32];           /* the PCI bus id, the same in every process
                                  whatever CUDA_VISIBLE_DEVICES renumbers
                                  ("0000:19:00.0"); "" where the backend
                                  cannot say (OpenCL) */
} kgrt_device_info;

/* What a launch may ask for.  0 where a backend cannot say. */
typedef struct kgrt_limits {
    size_t max_shared_per_block;  /* CUDA: with opt-in; OpenCL: local memory */
    int max_threads_per_block;    /* threads (work-items) in one block */
    int max_registers_per_block;  /* 32-bit registers; 0 on OpenCL */
    int warp_or_simd;             /* CUDA warp size; OpenCL: NVIDIA/AMD
                                     extension value, else 0 */
    int compute_units;            /* SMs / OpenCL compute units */
    unsigned max_block[3];        /* per-axis block (work-group) size */
    unsigned max_grid[3];         /* per-axis number of blocks */
    size_t l2_bytes;              /* last-level cache, for flushing it */
    size_t max_alloc;             /* largest single buffer */
    size_t base_align;            /* bytes: where a sub-range of a native
                                     buffer may start (OpenCL's
                                     MEM_BASE_ADDR_ALIGN; 1 on CUDA) */
} kgrt_limits;

typedef struct kgrt_device kgrt_device;
typedef struct kgrt_buffer kgrt_buffer;  /* CUdeviceptr / cl_mem */
typedef struct kgrt_module kgrt_module;
typedef struct kgrt_kernel kgrt_kernel;
typedef struct kgrt_stream kgrt_stream;  /* CUstream / cl_command_queue */
typedef struct kgrt_event kgrt_event;    /* CUevent / a marker cl_event */

typedef enum {
    KGRT_IMAGE_CUBIN,          /* an ELF cubin (or a fatbin) */
    KGRT_IMAGE_PTX,            /* PTX text, JIT-compiled by the driver */
    KGRT_IMAGE_OPENCL_SOURCE,  /* OpenCL C, built with clBuildProgram */
} kgrt_image_kind;

typedef struct kgrt_image {
    kgrt_image_kind kind;
    const void *data;
    size_t size;               /* bytes; for text, 0 means NUL-terminated */
    const char *options;       /* OpenCL build options, e.g. "-D BM=64
                                  -cl-std=CL1.2"; ignored for CUDA */
} kgrt_image;

/* Resource use of a compiled kernel; -1 (registers) or 0 where a backend
 * cannot say. */
typedef struct kgrt_kernel_attrs {
    int registers;             /* per thread; -1 on OpenCL */
    size_t shared_static;      /* static shared (__local) bytes */
    size_t local_bytes;        /* per-thread local/private (spill) bytes */
    int max_threads_per_block; /* for this kernel on this device */
} kgrt_kernel_attrs;

typedef enum {
    KGRT_ARG_BUFFER,           /* buf */
    KGRT_ARG_I32,              /* i32 */
    KGRT_ARG_I64,              /* i64 */
    KGRT_ARG_F32,              /* f32 */
    KGRT_ARG_BYTES,            /* size bytes at `bytes`, passed as they are:
                                  a struct by value, or a native handle
                                  such as a CUdeviceptr from PyTorch
                                  (&ptr, 8) or a cl_mem (&mem, sizeof mem) */
    KGRT_ARG_NATIVE,           /* memory the caller owns: a CUdeviceptr or a
                                  cl_mem (`bytes`) plus a byte offset
                                  (`size`); on OpenCL a non-zero offset
                                  becomes a sub-buffer, so it must be a
                                  multiple of limits.base_align */
    KGRT_ARG_TMAP,             /* CUDA only: a 128-byte tensor map (TMA)
                                  over the memory of a buffer (`buf`) or
                                  a CUdeviceptr (`bytes`) plus a byte
                                  offset (`size`), laid out by `tmap`;
                                  encoded at launch */
} kgrt_arg_kind;

/* The layout a KGRT_ARG_TMAP describes: a tiled tensor map of rank 1..5
 * over the memory an argument points to, dims innermost first.  off is
 * added to that address (bytes); strides[i] is the byte step of dims[i+1]
 * (multiples of 16, as is the address); box is the tile one copy moves. */
#define KGRT_TMAP_RANK 5
typedef struct kgrt_tmap {
    int dtype;                 /* kgrt_dtype of the elements */
    int rank;
    uint64_t dims[KGRT_TMAP_RANK];
    uint64_t strides[KGRT_TMAP_RANK - 1];
    uint32_t box[KGRT_TMAP_RANK];
    uint64_t off;
    int swizzle;               /* bytes: 0 (none), 32, 64 or 128 */
} kgrt_tmap;

typedef struct kgrt_arg {
    kgrt_arg_kind kind;
    kgrt_buffer *buf;
    int32_t i32;
    int64_t i64;
    float f32;
    const void *bytes;
    size_t size;
    const kgrt_tmap *tmap;     /* KGRT_ARG_TMAP */
} kgrt_arg;

static inline kgrt_arg kgrt_arg_buffer(kgrt_buffer *b)
{
    kgrt_arg a = { KGRT_ARG_BUFFER, b, 0, 0, 0.0f, NULL, 0, NULL };
    return a;
}
static inline kgrt_arg kgrt_arg_i32(int32_t v)
{
    kgrt_arg a = { KGRT_ARG_I32, NULL, v, 0, 0.0f, NULL, 0, NULL };
    return a;
}
static inline kgrt_arg kgrt_arg_i64(int64_t v)
{
    kgrt_arg a = { KGRT_ARG_I64, NULL, 0, v, 0.0f, NULL, 0, NULL };
    return a;
}
static inline kgrt_arg kgrt_arg_f32(float v)
{
    kgrt_arg a = { KGRT_ARG_F32, NULL, 0, 0, v, NULL, 0, NULL };
    return a;
}
static inline kgrt_arg kgrt_arg_bytes(const void *p, size_t n)
{
    kgrt_arg a = { KGRT_ARG_BYTES, NULL, 0, 0, 0.0f, p, n, NULL };
    return a;
}

/* handle: the CUdeviceptr value cast to a pointer, or the cl_mem. */
static inline kgrt_arg kgrt_arg_native(void *handle, size_t offset)
{
    kgrt_arg a = { KGRT_ARG_NATIVE, NULL, 0, 0, 0.0f, handle, offset, NULL };
    return a;
}

/* A tensor map of layout m over the memory of `base` (a buffer or a
 * native argument: its offset is kept); m must outlive the launch. */
static inline kgrt_arg kgrt_arg_tmap(kgrt_arg base, const kgrt_tmap *m)
{
    kgrt_arg a = { KGRT_ARG_TMAP, base.kind == KGRT_ARG_BUFFER ? base.buf : NULL,
                   0, 0, 0.0f, base.kind == KGRT_ARG_NATIVE ? base.bytes : NULL,
                   base.kind == KGRT_ARG_NATIVE ? base.size : 0, m };
    return a;
}

/* ---- backends and devices ------------------------------------------- */

/* "cuda", "opencl"; "unknown" for any other value. */
const char *kgrt_backend_name(kgrt_backend b);

/* Number of devices (>= 0) or a negative kgrt_status.  On 0 or on error,
 * kgrt_last_error() says why, e.g. "libcuda.so.1 not found: no NVIDIA
 * driver", "no OpenCL platform", "kgen built without OpenCL". */
int kgrt_device_count(kgrt_backend b);

/* Fill *out for device index of backend b.  KGRT_OK or a negative status;
 * *out is zeroed on failure. */
int kgrt_device_info_get(kgrt_backend b, int index, kgrt_device_info *out);

/* Open device index of backend b.  KGRT_ENODEVICE when there is no such
 * device (the message says why: no driver, no platform, index too high). */
int kgrt_device_open(kgrt_backend b, int index, kgrt_device **out);
/* Open the device that $KGRT_DEVICE names (an index, default 0) of
 * backend b, the way generated libraries pick their device. */
int kgrt_device_open_default(kgrt_backend b, kgrt_device **out);
/* Releases the device's cached buffers too; every buffer, module and
 * stream of it must have been freed. */
void kgrt_device_close(kgrt_device *d);
int kgrt_device_get_info(kgrt_device *d, kgrt_device_info *out);
int kgrt_device_limits(kgrt_device *d, kgrt_limits *out);

/* Bound every wait (kgrt_synchronize, kgrt_launch_timed) by ms
 * milliseconds of wall time; 0 (the default) waits for ever.  A wait that
 * runs out returns KGRT_ETIMEOUT (the basis of a soft deadline; the kernel
 * keeps running, so the caller should abandon the process). */
int kgrt_device_set_timeout(kgrt_device *d, double ms);

/* Wait until all work queued on the device has finished.  A fault of an
 * earlier asynchronous launch surfaces here (KGRT_ESTICKY, KGRT_ELAUNCH). */
int kgrt_synchronize(kgrt_device *d);

/* ---- memory ----------------------------------------------------------- */

/* Buffers come from a caching allocator: kgrt_buffer_free keeps the memory
 * on the device for the next allocation of a similar size (sizes round up
 * to 512 bytes, above 1 MiB to 2 MiB; a cached block serves a request of
 * at least half its size).  An allocation that fails for lack of device
 * memory releases the cache and tries once more.  $KGRT_CACHE=0 turns
 * caching off. */
int kgrt_buffer_alloc(kgrt_device *d, size_t bytes, kgrt_buffer **out);
void kgrt_buffer_free(kgrt_buffer *b);
/* Give the cached (free) blocks back to the driver. */
int kgrt_device_empty_cache(kgrt_device *d);
/* Bytes in live buffers and in cached free blocks. */
int kgrt_device_memory(kgrt_device *d, size_t *in_use, size_t *cached);
/* The native handle: a CUdeviceptr cast to a pointer, or the cl_mem; for
 * tensor descriptors (kgrt_arg_native) and interop.  NULL for NULL. */
void *kgrt_buffer_native(const kgrt_buffer *b);
size_t kgrt_buffer_size(const kgrt_buffer *b);        /* 0 for NULL */
/* Blocking copies; offset + bytes must lie within the buffer. */
int kgrt_buffer_write(kgrt_buffer *b, size_t offset, const void *src,
                      size_t bytes);
int kgrt_buffer_read(kgrt_buffer *b, size_t offset, void *dst, size_t bytes);
/* Repeat a pattern over the whole buffer (e.g. a NaN canary); blocking.
 * pattern_size is a power of two <= 128 that divides the buffer's size. */
int kgrt_buffer_fill(kgrt_buffer *b, const void *pattern, size_t pattern_size);

/* ---- modules and kernels ---------------------------------------------- */

/* Load a CUBIN or PTX (CUDA) or build OpenCL source.  If log is not NULL,
 * *log receives the build or JIT log (malloc'd, the caller frees it) on
 * success and on failure, or NULL when the compiler said nothing.  A build
 * error is KGRT_ECOMPILE; its first error line is also in the message. */
int kgrt_module_load(kgrt_device *d, const kgrt_image *img, kgrt_module **out,
                     char **log);
void kgrt_module_unload(kgrt_module *m);

/* The kernel `name` of m (unmangled: extern "C" for CUDA), owned by m.
 * KGRT_ENOTFOUND when the module has none. */
int kgrt_kernel_get(kgrt_module *m, const char *name, kgrt_kernel **out);
int kgrt_kernel_get_attrs(kgrt_kernel *k, kgrt_kernel_attrs *out);

/* Launch k on its device's stream/queue.  grid = blocks (work-groups) per
 * axis, block = threads (work-items) per block; OpenCL's global size is
 * grid*block.  dynamic_shared is CUDA's dynamic shared memory (raised above
 * 48 KiB automatically); it must be 0 on OpenCL.  Arguments are checked
 * against the kernel where the backend can tell (OpenCL always, CUDA with
 * a 12.4+ driver): a wrong count or size is KGRT_EINVAL.  Launch shapes
 * over the kernel's or device's limits are KGRT_ERESOURCE, before the
 * driver is called. */
int kgrt_launch(kgrt_kernel *k, const unsigned grid[3], const unsigned block[3],
                size_t dynamic_shared, const kgrt_arg *args, int nargs);

/* kgrt_launch, then wait for that launch alone and return its device time
 * in *ms (CUDA events; OpenCL profiling), > 0. */
int kgrt_launch_timed(kgrt_kernel *k, const unsigned grid[3],
                      const unsigned block[3], size_t dynamic_shared,
                      const kgrt_arg *args, int nargs, double *ms);

/* ---- streams and events ---------------------------------------------- */

/* The device's own stream (the one kgrt_launch uses); owned by d. */
kgrt_stream *kgrt_device_stream(kgrt_device *d);
/* A new stream (CUDA: non-blocking; OpenCL: an in-order profiling queue). */
int kgrt_stream_create(kgrt_device *d, kgrt_stream **out);
/* Use a stream someone else owns: a CUstream (e.g. PyTorch's
 * torch.cuda.current_stream().cuda_stream; NULL is the legacy default
 * stream) or a cl_command_queue of d's context (retained).  Destroying the
 * wrapper leaves the native stream alone. */
int kgrt_stream_wrap(kgrt_device *d, void *native, kgrt_stream **out);
void kgrt_stream_destroy(kgrt_stream *s);
int kgrt_stream_synchronize(kgrt_stream *s);
kgrt_device *kgrt_stream_device(const kgrt_stream *s);

int kgrt_event_create(kgrt_device *d, kgrt_event **out);
void kgrt_event_destroy(kgrt_event *e);
/* Mark the point after everything queued on s so far. */
int kgrt_event_record(kgrt_event *e, kgrt_stream *s);
int kgrt_event_synchronize(kgrt_event *e);
/* Milliseconds between two recorded events, once both have completed. */
int kgrt_event_elapsed(kgrt_event *start, kgrt_event *end, double *ms);

/* kgrt_launch on stream s (NULL: the device's own). */
int kgrt_launch_on(kgrt_kernel *k, kgrt_stream *s, const unsigned grid[3],
                   const unsigned block[3], size_t dynamic_shared,
                   const kgrt_arg *args, int nargs);

/* Per-launch timing log: with a path ("-" for stderr), every launch is
 * timed (it waits for the kernel) and a line "kgrt: KERNEL grid X,Y,Z
 * block X,Y,Z MS ms" is appended; NULL turns it off.  $KGRT_LAUNCH_LOG
 * sets it at the first launch. */
int kgrt_set_launch_log(const char *path);

/* ---- errors ----------------------------------------------------------- */

/* The reason for this thread's last failure; "" when there is none.  Never
 * NULL.  The string stays valid until this thread's next kgrt call.  It
 * names the driver's error ("cuLaunchKernel: CUDA_ERROR_ILLEGAL_ADDRESS:
 * an illegal memory access was encountered", "clEnqueueNDRangeKernel:
 * CL_INVALID_WORK_GROUP_SIZE"). */
const char *kgrt_last_error(void);

/* Set this thread's last error (for libraries built on kgrt, such as the
 * launchers kgen generates) and return status. */
int kgrt_set_error(int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* A short description of a status: "invalid argument", ... */
const char *kgrt_status_string(int status);

#ifdef __cplusplus
}
#endif

#endif

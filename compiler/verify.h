/*
 * verify.h -- checking a candidate kernel against the reference
 * (verify.c), shared by `kgen check` and the tuner's device worker.
 */
#ifndef KGEN_VERIFY_H
#define KGEN_VERIFY_H

#include <kgen/kgrt.h>

#include "kgen.h"

typedef struct Tol {
    double rel;                /* ||got - ref|| / ||ref|| */
    double abs;                /* max |got - ref| / (1 + max |ref|) */
} Tol;

/* One kernel's inputs on the device and its reference on the host. */
typedef struct KernelData {
    Tensor *ref;               /* per k->out */
    bool sampled;              /* ref holds NaN where it was not computed */
    kgrt_buffer **inbuf;       /* per k->in: its base tensor's buffer */
    kgrt_buffer **outbuf;
    size_t *outbytes;
    kgrt_buffer **owned;       /* buffers to free */
    int nowned;
    int status;                /* kgrt status of the last verify_run launch */
} KernelData;

Tol verify_tolerance(DType dt);
void to_storage(DType dt, const double *x, int64_t n, void *dst);
void from_storage(DType dt, const void *src, int64_t n, double *x);
/* NVRTC's "file(12): error" as "file:12: error". */
void normalise_log(const char *log, Str *out);

/* Seeded random inputs, the reference (row-sampled when stride > 1) and
 * device buffers for kernel k.  0, or -1 with the reason in err. */
int verify_prepare(const Plan *p, const Kernel *k, kgrt_device *dev,
                   uint64_t seed, int64_t stride, KernelData *kd, Str *err);
void verify_free(KernelData *kd, const Kernel *k);
/* The launch arguments of k over kd's buffers: its tensors, then L's
 * tensor maps (*nargs in all; free() the array). */
kgrt_arg *verify_args(const Kernel *k, KernelData *kd, const Launch *L,
                      int *nargs);
/* Fill the outputs with canary, launch, wait, read back and compare.
 * 0 within tolerance; 1 a mismatch (why says where); -1 the launch or a
 * copy failed (kd->status holds the kgrt status).  worst_* keep the
 * largest errors seen. */
int verify_run(const Kernel *k, KernelData *kd, kgrt_device *dev,
               kgrt_kernel *kern, const Launch *L, const void *canary,
               size_t csize, double *worst_rel, double *worst_abs, Str *why);

/* The tuning knobs of cfg as NVRTC defines ("BM=64", in a) and appended to
 * opts as OpenCL build options (" -D BM=64"). */
void cfg_defines(const Template *t, const int *cfg, Str *opts,
                 const char ***defs, int *ndefs, Arena *a);

#endif

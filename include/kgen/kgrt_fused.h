/*
 * kgen/kgrt_fused.h -- the tables `kgen build` generates (fused.c) and the
 * runtime calls that check, dispatch and launch them.
 *
 * A generated library describes its model as constant data: per built
 * shape (a variant: one binding of the model's dims) every kernel with its
 * embedded image (CUBIN + PTX, or OpenCL source and build options), launch
 * geometry, the exact layout of each argument, its config and provenance,
 * and the forward pass as a list of launches whose arguments are either
 * the caller's tensors or offsets into the caller's workspace.  The code
 * that reads the tables lives here once (runtime/fused.c), not in every
 * generated file.  Hand-written code uses fused.h, not this header.
 */
#ifndef KGEN_KGRT_FUSED_H
#define KGEN_KGRT_FUSED_H

#include "kgen/kgrt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What every CUDA tensor's first element must be aligned to (vector and
 * cp.async loads); OpenCL offsets follow the device's base alignment. */
#define KGRT_FUSED_ALIGN 16
/* Devices one process can use a generated library on at once. */
#define KGRT_FUSED_DEVICES 16
/* Workspace offsets are multiples of this. */
#define KGRT_FUSED_WS_ALIGN 4096

/* One kernel parameter: a (view of a) tensor, as the kernel was compiled
 * to read it.  offset (elements) is where the view starts in the memory
 * the parameter points to. */
typedef struct kgrt_fused_arg {
    const char *name;          /* the model's value, e.g. "y#2" */
    int dtype, rank, output;
    int64_t shape[KGRT_MAX_RANK];
    int64_t strides[KGRT_MAX_RANK];
    int64_t offset;
} kgrt_fused_arg;

/* A tensor map the kernel takes after its tensors: map's layout over the
 * memory of its tensor argument arg, encoded at each launch. */
typedef struct kgrt_fused_tmap {
    int arg;
    kgrt_tmap map;
} kgrt_fused_tmap;

/* Modules loaded for one device; filled on first use. */
typedef struct kgrt_fused_slot {
    kgrt_device *dev;
    kgrt_module *mod;
    kgrt_kernel *kern;
} kgrt_fused_slot;

/* One kernel at one variant. */
typedef struct kgrt_fused_kernel {
    const char *name;          /* the entry point, e.g. "k3_conv1d" */
    const char *arch;          /* "sm_90" or "opencl" */
    const unsigned char *cubin;
    size_t cubin_size;
    const char *ptx;           /* NUL-terminated; NULL for OpenCL */
    const char *cl_source;     /* OpenCL only */
    const char *cl_options;
    unsigned grid[3], block[3];
    size_t smem;
    int nargs;
    const kgrt_fused_arg *args;
    int ntmaps;                /* passed after the nargs tensors */
    const kgrt_fused_tmap *tmaps;
    const char *config;        /* "BM=128 BN=64 ..." */
    const char *provenance;    /* where the config came from */
    kgrt_fused_slot *slots;    /* KGRT_FUSED_DEVICES entries (mutable) */
} kgrt_fused_kernel;

/* One launch of the forward pass: each kernel argument is the caller's
 * tensor model_arg[i] (>= 0) or workspace memory at ws_offset[i]. */
typedef struct kgrt_fused_step {
    const kgrt_fused_kernel *kernel;
    const int *model_arg;
    const size_t *ws_offset;
} kgrt_fused_step;

typedef struct kgrt_fused_variant {
    const int64_t *dims;       /* per model dim */
    const kgrt_fused_arg *model_args; /* inputs, weights, outputs */
    size_t workspace;          /* bytes */
    int nsteps;
    const kgrt_fused_step *steps;
} kgrt_fused_variant;

typedef struct kgrt_fused_model {
    const char *name;
    kgrt_backend backend;
    const char *arch;
    int ndims;
    const char *const *dim_names;
    int nargs, noutputs;       /* model tensors; the last noutputs are
                                  outputs */
    int nvariants;
    const kgrt_fused_variant *variants;
    const char *provenance;    /* the whole build, one line per kernel */
} kgrt_fused_model;

/* Launch one kernel: pick the variant whose argument shapes match t, check
 * dtype, rank, shape, strides, alignment and aliasing, load the image
 * once per device, launch on s (NULL: the device's stream is not known:
 * s is required). */
int kgrt_fused_launch(const kgrt_fused_kernel *const *variants, int nvariants,
                      kgrt_stream *s, const kgrt_tensor *const *t, int n);

/* Run the forward pass on s: t holds the model's inputs, weights and
 * outputs in declaration order (contiguous); ws is device memory (a
 * CUDA address or a cl_mem) of at least kgrt_fused_workspace bytes. */
int kgrt_fused_forward(const kgrt_fused_model *m, kgrt_stream *s,
                       const kgrt_tensor *t, int n, void *ws, size_t ws_bytes);

/* The workspace of the variant with these dims (m->ndims values). */
int kgrt_fused_workspace(const kgrt_fused_model *m, const int64_t *dims,
                         size_t *bytes);

/* Unload the modules this model loaded on d (before closing d; not while
 * launches on d are in flight in other threads). */
void kgrt_fused_release(const kgrt_fused_model *m, kgrt_device *d);

#ifdef __cplusplus
}
#endif

#endif

/*
 * compile.h -- the compile stage: CUDA C to CUBIN + PTX with NVRTC.
 *
 * kg_nvrtc_compile() turns one CUDA C source (a template expansion with its
 * tuning knobs as -D defines) into a CUBIN for the target arch and the PTX
 * of the same compile, which the driver can JIT on newer GPUs, and reports
 * the kernel's resource use.  No GPU is needed.  Everything is guarded by
 * KGEN_WITH_CUDA; without it every call fails with KG_COMPILE_ENV and says
 * that kgen was built without CUDA.
 *
 * Thread safety: kg_nvrtc_compile may run in several threads at once (each
 * call owns its NVRTC program).
 */
#ifndef KGEN_COMPILE_H
#define KGEN_COMPILE_H

#include <stddef.h>

/* Results of one compile.  Every pointer is malloc'd (kg_cubin_free). */
typedef struct KgCubin {
    void *cubin;               /* ELF for `arch`; NULL on failure */
    size_t cubin_size;
    char *ptx;                 /* NUL-terminated; .target is `arch` */
    size_t ptx_size;           /* strlen(ptx) + 1 */
    char *log;                 /* NVRTC + ptxas log, or why the call
                                  failed; NULL when empty */
    int registers;             /* per thread; max over the entry points */
    size_t shared_static;      /* static shared memory bytes (max) */
    size_t local_bytes;        /* stack frame incl. spills, per thread (max) */
} KgCubin;

/* kg_nvrtc_compile's results (negative: failure, out->log says why). */
enum {
    KG_COMPILE_OK = 0,
    KG_COMPILE_ERROR = -1,     /* the source does not compile: the log has
                                  the compiler's messages (a candidate's
                                  compile_error) */
    KG_COMPILE_ENV = -2,       /* not the source's fault: built without
                                  CUDA, an arch NVRTC does not know, NVRTC
                                  itself failed, out of memory (env_error) */
    KG_COMPILE_RESOURCE = -3,  /* ptxas: the kernel exceeds a hardware limit
                                  (too much shared, local or parameter
                                  space; resource_skip) */
};

/*
 * Compile src (name is its file name in diagnostics, e.g. "gemm.cu"; a
 * #line in src overrides it) for arch "sm_80", "sm_90", "sm_90a", ...
 * A source containing the line "#define KG_ARCH_SPECIFIC 1" is compiled for
 * the arch's "a" variant (sm_90 -> sm_90a: wgmma), which runs on that
 * compute capability only.
 * defines are "NAME=VALUE" (or "NAME") strings passed as -D.  Options:
 * --std=c++17, -arch=<arch>, -lineinfo, ptxas -v, and -I the CUDA include
 * directory (for cuda_fp16.h, cuda_bf16.h): the configure-time toolkit
 * (KGEN_CUDA_INCLUDE_DIR), else $CUDA_HOME/include, else
 * /usr/local/cuda/include, the first that has cuda_fp16.h.
 * *out is always initialised; free it with kg_cubin_free whatever the
 * result.  Returns KG_COMPILE_OK or one of the negative results above.
 */
int kg_nvrtc_compile(const char *src, const char *name, const char *arch,
                     const char *const *defines, int ndefines, KgCubin *out);
void kg_cubin_free(KgCubin *c);                 /* accepts NULL; zeroes */

/* "13.0"; "none" when built without CUDA. */
const char *kg_nvrtc_version(void);

/* The CUDA include directory kg_nvrtc_compile uses; NULL when none. */
const char *kg_cuda_include_dir(void);

/*
 * Resource use of entry function `kernel` (NULL: the maximum over all
 * entry points) read from a CUBIN's ELF: registers from .nv.info
 * (EIATTR_REGCOUNT), per-thread stack from EIATTR_FRAME_SIZE, static shared
 * memory from the size of .nv.shared.<kernel> (on sm_90 and later this
 * includes the 1 KiB the system reserves).  0, or -1 when the data is not
 * an ELF cubin or the kernel is not in it.  Any out-pointer may be NULL.
 * Safe on arbitrary bytes.
 */
int kg_cubin_resources(const void *cubin, size_t size, const char *kernel,
                       int *registers, size_t *shared_static,
                       size_t *local_bytes);

#endif

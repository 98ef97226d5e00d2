/*
 * compile.c -- the compile stage: CUDA C to CUBIN + PTX with NVRTC.
 *
 * One NVRTC compile with -arch=sm_XX yields both the CUBIN for that arch
 * and the PTX it was assembled from (.target sm_XX), which the driver can
 * JIT on any newer GPU, so each candidate is compiled once.  Resource use
 * comes from ptxas's verbose report in the program log, or, when the log
 * has none, from the CUBIN's ELF (.nv.info), parsed by kg_cubin_resources,
 * which is also usable alone on a CUBIN from anywhere.
 *
 * NVRTC 13 quirk: with --ptxas-options=-v, a failing ptxas leaves only its
 * info lines in the log and drops its error line ("uses too much shared
 * data").  A compile that fails with no error in its log is therefore run
 * again without -v to get the message.
 *
 * Results are classified for the tuner (compile.h): the source's own
 * errors, ptxas resource overflows, and environment problems that no
 * candidate can fix.  Bad source never crashes anything: NVRTC reports it
 * and the log travels back to the caller.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compile.h"

#ifdef KGEN_WITH_CUDA
#include <nvrtc.h>
#endif

#define MAX_DEFINES 4096

/* ---- small helpers --------------------------------------------------------- */

static char *xvprintf(const char *fmt, va_list ap)
{
    va_list aq;
    int n;
    char *s;
    va_copy(aq, ap);
    n = vsnprintf(NULL, 0, fmt, aq);
    va_end(aq);
    if (n < 0 || !(s = malloc((size_t)n + 1)))
        return NULL;
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    return s;
}

/* Replace c->log with a formatted message; return rc. */
static int fail(KgCubin *c, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(KgCubin *c, int rc, const char *fmt, ...)
{
    va_list ap;
    free(c->log);
    va_start(ap, fmt);
    c->log = xvprintf(fmt, ap);
    va_end(ap);
    return rc;
}

void kg_cubin_free(KgCubin *c)
{
    if (!c)
        return;
    free(c->cubin);
    free(c->ptx);
    free(c->log);
    memset(c, 0, sizeof *c);
}

/* ---- the CUDA include directory -------------------------------------------- */

static pthread_once_t include_once = PTHREAD_ONCE_INIT;
static char include_dir[4096];

/* Use dir if it has cuda_fp16.h; 1 if taken. */
static int try_dir(const char *dir)
{
    char path[sizeof include_dir + 16];
    size_t n = dir ? strlen(dir) : 0;
    if (n == 0 || n >= sizeof include_dir)
        return 0;
    memcpy(path, dir, n);
    memcpy(path + n, "/cuda_fp16.h", sizeof "/cuda_fp16.h");
    if (access(path, R_OK) != 0)
        return 0;
    memcpy(include_dir, dir, n + 1);
    return 1;
}

static void find_include_dir(void)
{
    const char *home = getenv("CUDA_HOME");
    char buf[sizeof include_dir];
#ifdef KGEN_CUDA_INCLUDE_DIR
    if (try_dir(KGEN_CUDA_INCLUDE_DIR))
        return;
#endif
    if (home && home[0] && strlen(home) + sizeof "/include" <= sizeof buf) {
        snprintf(buf, sizeof buf, "%s/include", home);
        if (try_dir(buf))
            return;
    }
    try_dir("/usr/local/cuda/include");
}

const char *kg_cuda_include_dir(void)
{
    pthread_once(&include_once, find_include_dir);
    return include_dir[0] ? include_dir : NULL;
}

/* ---- the CUBIN's ELF ---------------------------------------------------- */

static uint64_t rd(const unsigned char *p, int n)
{
    uint64_t v = 0;
    while (n-- > 0)
        v = v << 8 | p[n];
    return v;
}

typedef struct Elf {
    const unsigned char *b;
    size_t size;
    uint64_t shoff, shentsize, shnum, shstrndx;
} Elf;

typedef struct Sec {
    uint64_t name, type, offset, size, link, entsize;
} Sec;

static int elf_sec(const Elf *e, uint64_t i, Sec *s)
{
    const unsigned char *h = e->b + e->shoff + i * e->shentsize;
    s->name = rd(h, 4);
    s->type = rd(h + 4, 4);
    s->offset = rd(h + 0x18, 8);
    s->size = rd(h + 0x20, 8);
    s->link = rd(h + 0x28, 4);
    s->entsize = rd(h + 0x38, 8);
    /* NOBITS (8) occupies no file space; anything else must fit. */
    if (s->type != 8 && (s->offset > e->size || s->size > e->size - s->offset))
        return -1;
    return 0;
}

/* The NUL-terminated string at off in string section strsec; NULL if the
 * bytes run out first. */
static const char *elf_str(const Elf *e, const Sec *strsec, uint64_t off)
{
    const char *s;
    if (strsec->type == 8 || off >= strsec->size)
        return NULL;
    s = (const char *)e->b + strsec->offset + off;
    return memchr(s, '\0', strsec->size - off) ? s : NULL;
}

int kg_cubin_resources(const void *cubin, size_t size, const char *kernel,
                       int *registers, size_t *shared_static,
                       size_t *local_bytes)
{
    Elf e;
    Sec shstr, s, symtab = {0}, strtab = {0}, info = {0};
    uint64_t i, ksym = UINT64_MAX, off;
    int have_symtab = 0, have_info = 0, regs = 0;
    size_t shared = 0, local = 0;
    static const char prefix[] = ".nv.shared.";

    if (registers)
        *registers = 0;
    if (shared_static)
        *shared_static = 0;
    if (local_bytes)
        *local_bytes = 0;
    e.b = cubin;
    e.size = size;
    if (!cubin || size < 64 || memcmp(e.b, "\177ELF", 4) != 0 ||
        e.b[4] != 2 || e.b[5] != 1)          /* 64-bit little-endian */
        return -1;
    e.shoff = rd(e.b + 0x28, 8);
    e.shentsize = rd(e.b + 0x3a, 2);
    e.shnum = rd(e.b + 0x3c, 2);
    e.shstrndx = rd(e.b + 0x3e, 2);
    if (e.shentsize < 64 || e.shnum == 0 || e.shoff > size ||
        e.shnum > (size - e.shoff) / e.shentsize || e.shstrndx >= e.shnum ||
        elf_sec(&e, e.shstrndx, &shstr) < 0)
        return -1;

    for (i = 0; i < e.shnum; i++) {
        const char *name;
        if (elf_sec(&e, i, &s) < 0)
            return -1;
        if (!(name = elf_str(&e, &shstr, s.name)))
            continue;
        if (s.type == 2 && !have_symtab) {          /* SHT_SYMTAB */
            if (s.link >= e.shnum || elf_sec(&e, s.link, &strtab) < 0)
                return -1;
            symtab = s;
            have_symtab = 1;
        } else if (!strcmp(name, ".nv.info")) {
            info = s;
            have_info = 1;
        } else if (!strncmp(name, prefix, sizeof prefix - 1) &&
                   strncmp(name + sizeof prefix - 1, "reserved", 8) != 0) {
            if (kernel ? !strcmp(name + sizeof prefix - 1, kernel)
                       : s.size > shared)
                shared = (size_t)s.size;
        }
    }
    if (kernel) {
        if (!have_symtab || symtab.entsize < 24)
            return -1;
        for (i = 0; i < symtab.size / symtab.entsize; i++) {
            const unsigned char *sym =
                e.b + symtab.offset + i * symtab.entsize;
            const char *name = elf_str(&e, &strtab, rd(sym, 4));
            if (name && (sym[4] & 0xf) == 2 && !strcmp(name, kernel)) {
                ksym = i;                           /* STT_FUNC */
                break;
            }
        }
        if (ksym == UINT64_MAX)
            return -1;
    }
    /* .nv.info: records of {u8 format, u8 attribute, ...}; format 4
     * (EIFMT_SVAL) carries a u16 size and that many bytes, the others
     * are 4 bytes in all.  REGCOUNT (0x2f) and FRAME_SIZE (0x11) hold
     * {u32 symbol, u32 value}. */
    for (off = 0; have_info && info.type != 8 && off + 4 <= info.size;) {
        const unsigned char *r = e.b + info.offset + off;
        uint64_t len = r[0] == 4 ? rd(r + 2, 2) : 0;
        if (r[0] == 4 && len > info.size - off - 4)
            break;
        if (r[0] == 4 && len >= 8 && (r[1] == 0x2f || r[1] == 0x11) &&
            (ksym == UINT64_MAX || rd(r + 4, 4) == ksym)) {
            uint64_t v = rd(r + 8, 4);
            if (r[1] == 0x2f && v > (uint64_t)regs)
                regs = (int)v;
            if (r[1] == 0x11 && v > local)
                local = (size_t)v;
        }
        off += 4 + len;
    }
    if (registers)
        *registers = regs;
    if (shared_static)
        *shared_static = shared;
    if (local_bytes)
        *local_bytes = local;
    return 0;
}

#ifdef KGEN_WITH_CUDA

/* ---- reading ptxas's report ----------------------------------------------- */

/* The number that ends just before p in a line that starts at line. */
static unsigned long num_before(const char *line, const char *p)
{
    const char *s = p;
    while (s > line && s[-1] >= '0' && s[-1] <= '9')
        s--;
    return s < p ? strtoul(s, NULL, 10) : 0;
}

/* Fill registers, shared_static and local_bytes (max over functions) from
 * the ptxas -v lines of log; 1 if a register count was found. */
static int parse_ptxas(const char *log, KgCubin *c)
{
    const char *line = log, *end, *p;
    int found = 0;
    if (!log)
        return 0;
    for (; *line; line = *end ? end + 1 : end) {
        end = strchr(line, '\n');
        if (!end)
            end = line + strlen(line);
        if (strncmp(line, "ptxas", 5) != 0)
            continue;
        p = strstr(line, "Used ");
        if (p && p < end && strstr(p, " registers")) {
            long r = strtol(p + 5, NULL, 10);
            if (r > c->registers)
                c->registers = (int)r;
            found = 1;
        }
        p = strstr(line, " bytes smem");
        if (p && p < end && num_before(line, p) > c->shared_static)
            c->shared_static = num_before(line, p);
        p = strstr(line, " bytes stack frame");
        if (p && p < end && num_before(line, p) > c->local_bytes)
            c->local_bytes = num_before(line, p);
    }
    return found;
}

/* A ptxas error that is a hardware limit, not a bug in the source. */
static int is_resource_error(const char *log)
{
    const char *p = log;
    while (p && (p = strstr(p, "ptxas error")) != NULL) {
        const char *end = strchr(p, '\n');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        char line[512];
        if (n >= sizeof line)
            n = sizeof line - 1;
        memcpy(line, p, n);
        line[n] = '\0';
        if (strstr(line, "too much") || strstr(line, "too many"))
            return 1;
        p += 11;
    }
    return 0;
}

/* ---- NVRTC -------------------------------------------------------------------- */

static pthread_once_t version_once = PTHREAD_ONCE_INIT;
static char version[32] = "unknown";

static void read_version(void)
{
    int major = 0, minor = 0;
    if (nvrtcVersion(&major, &minor) == NVRTC_SUCCESS)
        snprintf(version, sizeof version, "%d.%d", major, minor);
}

const char *kg_nvrtc_version(void)
{
    pthread_once(&version_once, read_version);
    return version;
}

/* sm_ followed by 2 or 3 digits and an optional a/f suffix. */
/* The line by which a source asks for its arch's "a" variant. */
#define ARCH_SPECIFIC "\n#define KG_ARCH_SPECIFIC 1\n"

static int valid_arch(const char *arch)
{
    size_t n = 0;
    if (!arch || strncmp(arch, "sm_", 3) != 0)
        return 0;
    arch += 3;
    while (arch[n] >= '0' && arch[n] <= '9')
        n++;
    if (n < 2 || n > 3)
        return 0;
    arch += n;
    return arch[0] == '\0' ||
           ((arch[0] == 'a' || arch[0] == 'f') && arch[1] == '\0');
}

/* "sm_75 sm_80 ..." for error messages. */
static void supported_archs(char *buf, size_t n)
{
    int count = 0, *archs, i;
    size_t len = 0;
    buf[0] = '\0';
    if (nvrtcGetNumSupportedArchs(&count) != NVRTC_SUCCESS || count <= 0 ||
        !(archs = calloc((size_t)count, sizeof *archs)))
        return;
    if (nvrtcGetSupportedArchs(archs) == NVRTC_SUCCESS)
        for (i = 0; i < count && len + 8 < n; i++)
            len += (size_t)snprintf(buf + len, n - len, "%ssm_%d",
                                    i ? " " : "", archs[i]);
    free(archs);
}

/* The program's log, malloc'd, trailing blank space removed; NULL when
 * empty. */
static char *program_log(nvrtcProgram prog)
{
    size_t n = 0;
    char *log;
    if (nvrtcGetProgramLogSize(prog, &n) != NVRTC_SUCCESS || n <= 1 ||
        !(log = malloc(n)))
        return NULL;
    if (nvrtcGetProgramLog(prog, log) != NVRTC_SUCCESS) {
        free(log);
        return NULL;
    }
    log[n - 1] = '\0';
    n = strlen(log);
    while (n > 0 && (log[n - 1] == '\n' || log[n - 1] == ' ' ||
                     log[n - 1] == '\r'))
        log[--n] = '\0';
    if (n == 0) {
        free(log);
        return NULL;
    }
    return log;
}

/* One compile of src with opts.  Fills *prog (to destroy) and *log. */
static nvrtcResult run_nvrtc(const char *src, const char *name,
                             const char **opts, int nopts, nvrtcProgram *prog,
                             char **log)
{
    nvrtcResult r;
    *prog = NULL;
    *log = NULL;
    r = nvrtcCreateProgram(prog, src, name, 0, NULL, NULL);
    if (r != NVRTC_SUCCESS) {
        *prog = NULL;
        return r;
    }
    r = nvrtcCompileProgram(*prog, nopts, opts);
    *log = program_log(*prog);
    return r;
}

int kg_nvrtc_compile(const char *src, const char *name, const char *arch,
                     const char *const *defines, int ndefines, KgCubin *out)
{
    const char **opts = NULL;
    char **owned = NULL, archopt[32], archs[512];
    const char *inc;
    nvrtcProgram prog = NULL;
    nvrtcResult r;
    size_t n = 0;
    int nopts = 0, nowned = 0, rc, i, verbose_at;

    if (!out)
        return KG_COMPILE_ENV;
    memset(out, 0, sizeof *out);
    if (!src)
        return fail(out, KG_COMPILE_ENV, "kg_nvrtc_compile: source is NULL");
    if (ndefines < 0 || ndefines > MAX_DEFINES || (ndefines && !defines))
        return fail(out, KG_COMPILE_ENV, "kg_nvrtc_compile: bad defines "
                    "(%d)", ndefines);
    if (!valid_arch(arch)) {
        supported_archs(archs, sizeof archs);
        return fail(out, KG_COMPILE_ENV, "invalid CUDA arch '%s': expected "
                    "sm_XX[a|f]%s%s", arch ? arch : "(null)",
                    archs[0] ? "; NVRTC " : "", archs);
    }
    if (!name || !name[0])
        name = "kernel.cu";

    opts = calloc((size_t)ndefines + 8, sizeof *opts);
    owned = calloc((size_t)ndefines + 2, sizeof *owned);
    if (!opts || !owned) {
        rc = fail(out, KG_COMPILE_ENV, "out of memory");
        goto cleanup;
    }
    /* A source that uses the arch-specific instructions of its target
     * (sm_90's wgmma) says so; a plain sm_XX then compiles as sm_XXa, whose
     * CUBIN runs on that compute capability only. */
    snprintf(archopt, sizeof archopt, "-arch=%s%s", arch,
             strstr(src, ARCH_SPECIFIC) && !strpbrk(arch + 3, "af") ? "a" : "");
    opts[nopts++] = "--std=c++17";
    opts[nopts++] = archopt;
    opts[nopts++] = "-lineinfo";
    if ((inc = kg_cuda_include_dir()) != NULL) {
        size_t len = strlen(inc) + 3;
        if (!(owned[nowned] = malloc(len))) {
            rc = fail(out, KG_COMPILE_ENV, "out of memory");
            goto cleanup;
        }
        snprintf(owned[nowned], len, "-I%s", inc);
        opts[nopts++] = owned[nowned++];
    }
    for (i = 0; i < ndefines; i++) {
        size_t len;
        if (!defines[i] || !defines[i][0]) {
            rc = fail(out, KG_COMPILE_ENV, "kg_nvrtc_compile: define %d is "
                      "empty", i);
            goto cleanup;
        }
        len = strlen(defines[i]) + 3;
        if (!(owned[nowned] = malloc(len))) {
            rc = fail(out, KG_COMPILE_ENV, "out of memory");
            goto cleanup;
        }
        snprintf(owned[nowned], len, "-D%s", defines[i]);
        opts[nopts++] = owned[nowned++];
    }
    verbose_at = nopts;
    opts[nopts++] = "--ptxas-options=-v";

    r = run_nvrtc(src, name, opts, nopts, &prog, &out->log);
    if (r == NVRTC_ERROR_COMPILATION &&
        (!out->log || !strstr(out->log, "error"))) {
        /* The -v quirk (see the top): compile again for the message. */
        char *verbose = out->log;
        nvrtcDestroyProgram(&prog);
        nopts = verbose_at;
        r = run_nvrtc(src, name, opts, nopts, &prog, &out->log);
        if (!out->log) {
            out->log = verbose;
            verbose = NULL;
        }
        free(verbose);
    }
    if (r == NVRTC_ERROR_COMPILATION) {
        rc = is_resource_error(out->log) ? KG_COMPILE_RESOURCE
                                         : KG_COMPILE_ERROR;
        if (!out->log)
            fail(out, rc, "%s: compilation failed without a log", name);
        goto cleanup;
    }
    if (r == NVRTC_ERROR_INVALID_OPTION) {
        char *log = out->log;
        supported_archs(archs, sizeof archs);
        out->log = NULL;
        rc = fail(out, KG_COMPILE_ENV, "NVRTC %s rejected the options for "
                  "%s%s%s%s%s", kg_nvrtc_version(), arch,
                  log ? ": " : "", log ? log : "",
                  archs[0] ? "; supported: " : "", archs);
        free(log);
        goto cleanup;
    }
    if (r != NVRTC_SUCCESS) {
        char *log = out->log;
        out->log = NULL;
        rc = fail(out, KG_COMPILE_ENV, "NVRTC %s: %s%s%s", kg_nvrtc_version(),
                  nvrtcGetErrorString(r), log ? ": " : "", log ? log : "");
        free(log);
        goto cleanup;
    }

    if ((r = nvrtcGetCUBINSize(prog, &n)) != NVRTC_SUCCESS || n == 0 ||
        !(out->cubin = malloc(n)) ||
        (r = nvrtcGetCUBIN(prog, out->cubin)) != NVRTC_SUCCESS) {
        rc = fail(out, KG_COMPILE_ENV, "nvrtcGetCUBIN for %s: %s", arch,
                  r != NVRTC_SUCCESS ? nvrtcGetErrorString(r)
                  : n ? "out of memory" : "empty");
        goto cleanup;
    }
    out->cubin_size = n;
    n = 0;
    if ((r = nvrtcGetPTXSize(prog, &n)) != NVRTC_SUCCESS || n <= 1 ||
        !(out->ptx = malloc(n)) ||
        (r = nvrtcGetPTX(prog, out->ptx)) != NVRTC_SUCCESS) {
        rc = fail(out, KG_COMPILE_ENV, "nvrtcGetPTX for %s: %s", arch,
                  r != NVRTC_SUCCESS ? nvrtcGetErrorString(r)
                  : n > 1 ? "out of memory" : "empty");
        goto cleanup;
    }
    out->ptx[n - 1] = '\0';
    out->ptx_size = n;
    if (!parse_ptxas(out->log, out))
        kg_cubin_resources(out->cubin, out->cubin_size, NULL, &out->registers,
                           &out->shared_static, &out->local_bytes);
    rc = KG_COMPILE_OK;

cleanup:
    if (rc != KG_COMPILE_OK) {
        free(out->cubin);
        free(out->ptx);
        out->cubin = NULL;
        out->ptx = NULL;
        out->cubin_size = out->ptx_size = 0;
        out->registers = 0;
        out->shared_static = out->local_bytes = 0;
    }
    if (prog)
        nvrtcDestroyProgram(&prog);
    for (i = 0; owned && i < nowned; i++)
        free(owned[i]);
    free(owned);
    free(opts);
    return rc;
}

#else /* !KGEN_WITH_CUDA */

const char *kg_nvrtc_version(void)
{
    return "none";
}

int kg_nvrtc_compile(const char *src, const char *name, const char *arch,
                     const char *const *defines, int ndefines, KgCubin *out)
{
    (void)src;
    (void)name;
    (void)arch;
    (void)defines;
    (void)ndefines;
    if (!out)
        return KG_COMPILE_ENV;
    memset(out, 0, sizeof *out);
    return fail(out, KG_COMPILE_ENV, "kgen built without CUDA (NVRTC): "
                "CUDA kernels cannot be compiled; reconfigure with the CUDA "
                "toolkit (-DKGEN_WITH_CUDA=ON)");
}

#endif

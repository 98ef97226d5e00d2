/*
 * check.c -- `kgen check`: compile template candidates and check what they
 * compute against the double-precision reference.
 *
 * For every kernel of a plan: enumerate the configs that pass the
 * template's constraints, take a sample of each design point (always its
 * first and last config, which hold the smallest and the largest tiles, and
 * some seeded picks between), compile each, run it on seeded random inputs
 * and compare its outputs with the kernel's reference: its nodes evaluated
 * op by op in double on the same inputs.  Outputs are filled with a NaN
 * canary before one run and a 0x5A byte pattern before a second, so an
 * element a kernel forgets to write fails either way (RELIABILITY E1).
 * With --compile-only nothing runs: CUDA candidates compile with NVRTC for
 * --arch without a GPU.
 *
 * Tolerances (docs/templates.md): relative L2 error and max-abs error over
 * the finite positions, by the output's dtype; NaN and Inf positions must
 * agree exactly.
 */
#include "kgen.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <kgen/kgrt.h>

#include "compile.h"
#include "verify.h"

/* ---- one kernel --------------------------------------------------------- */

typedef struct Stats {
    int ok, compile_error, launch_error, wrong, skipped;
    int resource;              /* over a hardware limit: skipped, not failed */
    bool env;                  /* the environment failed (no NVRTC...): stop */
} Stats;

/* Seeded choice of up to want configs of one design point (first and last
 * always). */
static int sample(int n, int want, uint64_t *s, int *pick)
{
    if (n <= want) {
        for (int i = 0; i < n; i++)
            pick[i] = i;
        return n;
    }
    int m = 0;
    pick[m++] = 0;
    pick[m++] = n - 1;
    while (m < want) {
        *s = *s * 6364136223846793005ull + 1442695040888963407ull;
        int c = 1 + (int)((*s >> 33) % (uint64_t)(n - 2));
        bool dup = false;
        for (int i = 0; i < m; i++)
            dup |= pick[i] == c;
        if (!dup)
            pick[m++] = c;
    }
    return m;
}

static int check_kernel(const Options *o, const Plan *p, Kernel *k,
                        Template *t, kgrt_device *dev, const char *arch,
                        Stats *st, Arena *a)
{
    bool cuda = strcmp(arch, "opencl") != 0;
    int nd = template_ndesign(t);
    Str err = {0};
    int **cfgs = NULL, ncfg = 0;
    if (tune_space(t, p, k, arch, o, &cfgs, &ncfg, &err, a)) {
        printf("%-28s FAIL  %s\n", k->name, err.buf);
        st->skipped++;
        str_free(&err);
        return -1;
    }
    if (!ncfg) {
        printf("%-28s FAIL  no config of templates/%s.lua passes its "
               "constraints\n", k->name, k->template_name);
        st->skipped++;
        return -1;
    }
    KernelData kd = {0};
    if (dev && verify_prepare(p, k, dev, o->seed, 1, &kd, &err)) {
        printf("%-28s FAIL  %s\n", k->name, err.buf);
        str_free(&err);
        verify_free(&kd, k);
        st->skipped++;
        return -1;
    }
    uint64_t rs = o->seed ^ hash64(k->name, strlen(k->name), 7);
    int want = o->configs > 0 ? o->configs : 4;
    int failed = 0;
    for (int lo = 0; lo < ncfg;) {
        int hi = lo;
        while (hi < ncfg && !memcmp(cfgs[hi], cfgs[lo], (size_t)nd * sizeof(int)))
            hi++;
        Str src = {0};
        str_free(&err);
        if (template_emit(t, cfgs[lo], &src, &err)) {
            printf("%-28s FAIL  %s (expanding %s:%d:%d)\n", k->name, err.buf,
                   p->g->file->path, k->nodes[0]->loc.line, k->nodes[0]->loc.col);
            st->compile_error += hi - lo;
            failed++;
            str_free(&src);
            lo = hi;
            continue;
        }
        int *pick = calloc((size_t)want + 2, sizeof *pick);
        int np = sample(hi - lo, want, &rs, pick);
        for (int q = 0; q < np; q++) {
            const int *c = cfgs[lo + pick[q]];
            Str cs = {0}, opts = {0}, why = {0};
            template_cfg_str(t, c, &cs);
            const char **defs;
            int ndefs;
            str_printf(&opts, "-cl-std=CL1.2");
            cfg_defines(t, c, &opts, &defs, &ndefs, a);
            Launch L;
            const char *status = "ok";
            double rel = 0, absn = 0;
            kgrt_module *mod = NULL;
            KgCubin cub = {0};
            if (template_launch(t, c, &L, &why)) {
                status = "FAIL launch()";
                st->launch_error++;
                goto report;
            }
            if (cuda) {
                int crc = kg_nvrtc_compile(src.buf, k->name, arch, defs, ndefs, &cub);
                if (crc == KG_COMPILE_ENV) {
                    fprintf(stderr, "kgen: error: cannot compile CUDA here: %s\n",
                            cub.log ? cub.log : "");
                    st->env = true;
                    kg_cubin_free(&cub);
                    str_free(&cs);
                    str_free(&opts);
                    str_free(&why);
                    free(pick);
                    str_free(&src);
                    verify_free(&kd, k);
                    str_free(&err);
                    return -1;
                }
                if (crc == KG_COMPILE_RESOURCE) {
                    status = "skip";
                    str_printf(&why, "over a hardware limit: %s",
                               cub.log ? cub.log : "");
                    st->resource++;
                    goto report;
                }
                if (crc) {
                    status = "FAIL compile";
                    normalise_log(cub.log ? cub.log : "", &why);
                    st->compile_error++;
                    goto report;
                }
                if (!dev) {
                    str_printf(&why, "%d registers, %zu B shared, %zu B local",
                               cub.registers, cub.shared_static, cub.local_bytes);
                    st->ok++;
                    goto report;
                }
                kgrt_image img = {KGRT_IMAGE_CUBIN, cub.cubin, cub.cubin_size, NULL};
                char *log = NULL;
                if (kgrt_module_load(dev, &img, &mod, &log) != KGRT_OK) {
                    status = "FAIL load";
                    str_printf(&why, "%s", kgrt_last_error());
                    st->compile_error++;
                    free(log);
                    goto report;
                }
                free(log);
            } else {
                kgrt_image img = {KGRT_IMAGE_OPENCL_SOURCE, src.buf, src.len, opts.buf};
                char *log = NULL;
                if (kgrt_module_load(dev, &img, &mod, &log) != KGRT_OK) {
                    status = "FAIL compile";
                    str_printf(&why, "%s", log ? log : kgrt_last_error());
                    st->compile_error++;
                    free(log);
                    goto report;
                }
                free(log);
            }
            kgrt_kernel *kern = NULL;
            if (kgrt_kernel_get(mod, k->name, &kern) != KGRT_OK) {
                status = "FAIL compile";
                str_printf(&why, "%s", kgrt_last_error());
                st->compile_error++;
                goto report;
            }
            static const uint32_t nan_canary = 0x7fc07fc0u;   /* NaN as f32 */
            static const uint32_t byte_canary = 0x5a5a5a5au;
            int r = verify_run(k, &kd, dev, kern, &L, &nan_canary, 4, &rel, &absn, &why);
            if (r == 0)
                r = verify_run(k, &kd, dev, kern, &L, &byte_canary, 4, &rel, &absn, &why);
            if (r < 0 && strstr(why.buf ? why.buf : "", "resource")) {
                status = "skip";       /* too many resources: not sticky */
                st->resource++;
            } else if (r < 0) {
                status = "FAIL launch";
                st->launch_error++;
            } else if (r > 0) {
                status = "FAIL wrong";
                st->wrong++;
            } else {
                st->ok++;
            }
        report:
            if (strncmp(status, "FAIL", 4) == 0)
                failed++;
            if (!o->quiet || strcmp(status, "ok")) {
                printf("%-28s %-13s %s", k->name, status, cs.buf ? cs.buf : "");
                if (dev && !strcmp(status, "ok"))
                    printf("  rel %.2g max %.2g", rel, absn);
                if (why.len)
                    printf("  %s%s", strcmp(status, "ok") ? "\n    " : "",
                           why.buf);
                printf("\n");
            }
            kgrt_module_unload(mod);
            kg_cubin_free(&cub);
            str_free(&cs);
            str_free(&opts);
            str_free(&why);
        }
        free(pick);
        str_free(&src);
        lo = hi;
    }
    verify_free(&kd, k);
    str_free(&err);
    return failed ? -1 : 0;
}

int cmd_check(const Options *o)
{
    const char *arch = o->arch ? o->arch
                     : o->backend && !strcmp(o->backend, "cuda") ? "sm_90"
                     : "opencl";
    bool cuda = strcmp(arch, "opencl") != 0;
    if (cuda && strncmp(arch, "sm_", 3)) {
        fprintf(stderr, "kgen: error: --arch %s: expected sm_XX or opencl\n", arch);
        return 2;
    }
    if (!cuda && o->compile_only) {
        fprintf(stderr, "kgen: error: --compile-only is for CUDA: OpenCL "
                "compiles on the device\n");
        return 2;
    }
    Arena *a = arena_new();
    Diag d;
    diag_init(&d, stderr);
    int rc = 2;
    kgrt_device *dev = NULL;
    TemplateCache *tc = template_cache_new(a);
    Plan *p = pipeline_plan(o, &d, a);
    if (!p)
        goto out;
    if (!o->compile_only) {
        int st = kgrt_device_open(cuda ? KGRT_CUDA : KGRT_OPENCL, 0, &dev);
        if (st != KGRT_OK) {
            fprintf(stderr, "kgen: error: no %s device to run on: %s%s\n",
                    cuda ? "CUDA" : "OpenCL", kgrt_last_error(),
                    cuda ? " (--compile-only compiles without one)" : "");
            rc = 3;
            goto out;
        }
    }
    Stats st = {0};
    int kernels = 0, bad = 0;
    for (int i = 0; i < p->nk; i++) {
        Kernel *k = p->k[i];
        if (k->kind == K_VIEW || (o->kernel && strcmp(o->kernel, k->name)))
            continue;
        kernels++;
        Str err = {0};
        Template *t = template_get(tc, templates_dir(o), k->template_name, &err, a);
        if (!t) {
            printf("%-28s FAIL  %s\n", k->name, err.buf);
            st.skipped++;
            bad++;
            str_free(&err);
            continue;
        }
        str_free(&err);
        if (check_kernel(o, p, k, t, dev, arch, &st, a))
            bad++;
        if (st.env) {
            rc = 3;            /* not a candidate's fault (RELIABILITY C4) */
            goto out;
        }
    }
    printf("%s on %s: %d kernels, %d candidates ok, %d compile errors, %d "
           "launch errors, %d wrong results, %d over hardware limits, %d "
           "kernels not checked\n", p->g->name, arch, kernels, st.ok,
           st.compile_error, st.launch_error, st.wrong, st.resource, st.skipped);
    rc = bad ? 1 : 0;
out:
    template_cache_free(tc);
    kgrt_device_close(dev);
    diag_free(&d);
    arena_free(a);
    return rc;
}

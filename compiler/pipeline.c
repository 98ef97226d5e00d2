/*
 * pipeline.c -- the stages in order, and the commands built on them.
 *
 *   read -> parse -> sema -> layout -> match -> plan  (kgen plan)
 *                                  \-> interp          (kgen run --ref)
 *
 * Each stage takes the previous one's result and a Diag; a stage that
 * reports an error ends the pipeline, and nothing is written anywhere.
 * Exit codes: 0 success, 1 a check failed, 2 bad input or usage.
 */
#include "kgen.h"
#include "tune.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *patterns_dir(const Options *o)
{
    if (o->patterns_dir)
        return o->patterns_dir;
    const char *env = getenv("KGEN_PATTERNS");
    if (env && *env)
        return env;
#ifdef KGEN_SOURCE_DIR
    static char buf[4096];
    snprintf(buf, sizeof buf, "%s/patterns", KGEN_SOURCE_DIR);
    if (access(buf, R_OK) == 0)
        return buf;
#endif
#ifdef KGEN_DATADIR
    return KGEN_DATADIR "/patterns";
#else
    return "patterns";
#endif
}

static SrcFile *load_source(const char *path, size_t max, Diag *d, Arena *a)
{
    size_t size = 0;
    errno = 0;
    char *text = read_file(path, max, &size);
    struct stat st;
    if (!text && errno == EFBIG && (stat(path, &st) != 0 || !S_ISREG(st.st_mode)))
        errno = EFBIG + 1000;  /* a stream: what was read is not its size */
    if (!text) {
        if (errno == EFBIG && max >= (1u << 20))
            diag_file_error(d, path, "file is %zu MiB, limit %zu MiB "
                            "(--max-input)", (size + (1u << 20) - 1) >> 20,
                            max >> 20);
        else if (errno == EFBIG)
            diag_file_error(d, path, "file is %zu bytes, limit %zu bytes "
                            "(--max-input)", size, max);
        else if (errno == EFBIG + 1000)
            diag_file_error(d, path, "input is over the limit %zu %s "
                            "(--max-input)", max >= (1u << 20) ? max >> 20 : max,
                            max >= (1u << 20) ? "MiB" : "bytes");
        else
            diag_file_error(d, path, "cannot read: %s", strerror(errno));
        return NULL;
    }
    SrcFile *f = arena_alloc(a, sizeof *f);
    f->path = arena_strdup(a, path);
    f->text = arena_strndup(a, text, size);
    f->len = size;
    free(text);
    return f;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* -v: one line per stage on stderr, with the time it took. */
static void step(const Options *o, double *t, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void step(const Options *o, double *t, const char *fmt, ...)
{
    double t1 = now();
    if (o->verbose > 0 && !o->quiet) {
        va_list ap;
        va_start(ap, fmt);
        fprintf(stderr, "kgen: ");
        vfprintf(stderr, fmt, ap);
        fprintf(stderr, " (%.2f ms)\n", 1e3 * (t1 - *t));
        va_end(ap);
    }
    *t = t1;
}

static bool want_dump(const Options *o, const char *stage)
{
    return o->dump && (!strcmp(o->dump, stage) || !strcmp(o->dump, "all"));
}

Graph *pipeline_graph(const Options *o, Diag *d, Arena *a)
{
    double t = now();
    SrcFile *f = load_source(o->path, o->max_input, d, a);
    if (!f)
        return NULL;
    step(o, &t, "read %s: %zu bytes", f->path, f->len);
    Ast *ast = parse(f, d, a);
    if (d->nerrors)
        return NULL;
    step(o, &t, "parsed %d statements", ast->nstmts);
    Graph *g = sema(ast, o->ov, o->nov, d, a);
    if (!g)
        return NULL;
    step(o, &t, "checked model %s: %d ops, %d values, %d inputs and weights, "
         "%d outputs", g->name, g->nnodes, g->nvalues, g->ninputs, g->noutputs);
    if (g->is_pattern) {
        diag_error(d, g->name_loc, "this is a pattern file; kgen %s takes a "
                   "model", o->cmd);
        return NULL;
    }
    if (want_dump(o, "parse")) {
        fprintf(stdout, "# after parse and sema\n");
        graph_dump(stdout, g);
    }
    return g;
}

static bool has_kernel(const Plan *p, const char *name)
{
    for (int i = 0; i < p->nk; i++)
        if (p->k[i]->kind != K_VIEW && !strcmp(p->k[i]->name, name))
            return true;
    return false;
}

Plan *pipeline_plan(const Options *o, Diag *d, Arena *a)
{
    Graph *g = pipeline_graph(o, d, a);
    if (!g)
        return NULL;
    double t = now();
    PatternSet *ps = patterns_load(patterns_dir(o), d, a);
    if (!ps)
        return NULL;
    step(o, &t, "loaded %d patterns from %s", ps->n, patterns_dir(o));
    int nr = layout_relay_convs(g, a);
    if (nr)
        step(o, &t, "relaid %d conv weight%s tap-major", nr, nr == 1 ? "" : "s");
    Plan *p = plan_build(g, ps, NULL, a);
    if (o->decline || (o->unfuse && strcmp(o->unfuse, "none"))) {
        p = plan_unfused(p, ps, o->decline, o->unfuse, a);
        if (!p)
            return NULL;
    }
    step(o, &t, "matched %d pattern instance%s and planned %d kernels",
         p->nmatches, p->nmatches == 1 ? "" : "s", p->nk);
    if (o->kernel && !has_kernel(p, o->kernel)) {
        /* a misspelt --kernel would otherwise tune, check or write nothing
           and succeed */
        Str names = {0};
        for (int i = 0; i < p->nk; i++)
            if (p->k[i]->kind != K_VIEW)
                str_printf(&names, "%s%s", names.len ? ", " : "", p->k[i]->name);
        fprintf(stderr, "kgen: error: --kernel %s: %s plans no such kernel (%s)\n",
                o->kernel, g->name, names.buf ? names.buf : "none");
        str_free(&names);
        return NULL;
    }
    if (want_dump(o, "match")) {
        fprintf(stdout, "# after match: %d match%s\n", p->nmatches,
                p->nmatches == 1 ? "" : "es");
        for (int i = 0; i < p->nmatches; i++) {
            Match *m = p->matches[i];
            fprintf(stdout, "  %s (%s):", m->pat->g->name, m->pat->variant);
            for (int j = 0; j < m->pat->g->nnodes; j++)
                fprintf(stdout, " %s@%d:%d", op_info(m->node[j]->op)->name,
                        m->node[j]->loc.line, m->node[j]->loc.col);
            fprintf(stdout, "\n");
        }
    }
    if (want_dump(o, "plan"))
        plan_dump(stdout, p);
    return p;
}

/* ---- commands ------------------------------------------------------------ */

/* Each kernel's tuning space after the template's constraints, and a
 * rough estimate of an exhaustive tune: a compile (about 1 s with NVRTC or
 * PoCL) per config spread over the compile workers, plus the runs. */
static void plan_spaces(const Options *o, const Plan *p, Arena *a)
{
    const char *arch = o->arch ? o->arch : "opencl";
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int jobs = o->jobs > 0 ? o->jobs : ncpu > 8 ? 8 : ncpu < 1 ? 1 : (int)ncpu;
    TemplateCache *tc = template_cache_new(a);
    printf("\ntuning space on %s (after constraints; estimate for an exhaustive "
           "tune with %d compile workers):\n", arch, jobs);
    int total = 0;
    for (int i = 0; i < p->nk; i++) {
        Kernel *k = p->k[i];
        if (k->kind == K_VIEW)
            continue;
        Str err = {0};
        Template *t = template_get(tc, templates_dir(o), k->template_name, &err, a);
        int **cfgs, n = 0;
        if (!t || tune_space(t, p, k, arch, o, &cfgs, &n, &err, a)) {
            printf("  %-28s -  %s\n", k->name, err.buf ? err.buf : "");
            str_free(&err);
            continue;
        }
        str_free(&err);
        total += n;
        printf("  %-28s %6d configs  ~%.0f s\n", k->name, n,
               n * (1.0 / jobs + 0.1));
    }
    printf("  %-28s %6d configs  ~%.0f s (kgen tune picks annealing with a "
           "budget above 64 configs)\n", "total", total, total * (1.0 / jobs + 0.1));
    template_cache_free(tc);
}

static int cmd_plan(const Options *o)
{
    Arena *a = arena_new();
    Diag d;
    diag_init(&d, stderr);
    Plan *p = pipeline_plan(o, &d, a);
    int rc = p ? 0 : 2;
    if (p) {
        if (o->json)
            plan_json(stdout, p, a);
        else {
            plan_print(stdout, p, a);
            plan_spaces(o, p, a);
        }
    }
    diag_free(&d);
    arena_free(a);
    return rc;
}

static void print_tensor_summary(const char *name, const Tensor *t)
{
    double sum = 0, asum = 0, mn = INFINITY, mx = -INFINITY;
    int64_t nonfinite = 0;
    for (int64_t i = 0; i < t->n; i++) {
        double x = t->data[i];
        if (!isfinite(x)) {
            nonfinite++;
            continue;
        }
        sum += x;
        asum += fabs(x);
        if (x < mn) mn = x;
        if (x > mx) mx = x;
    }
    printf("%-10s %s[", name, dtype_name(t->dt));
    for (int i = 0; i < t->rank; i++)
        printf("%s%lld", i ? ", " : "", (long long)t->shape[i]);
    printf("]  mean %.10g  mean|x| %.10g  min %.6g  max %.6g", sum / (double)t->n,
           asum / (double)t->n, mn, mx);
    if (nonfinite)
        printf("  non-finite %lld", (long long)nonfinite);
    printf("\n");
}

static int cmd_run(const Options *o)
{
    if (!o->ref) {
        fprintf(stderr, "kgen: error: run needs --ref (device runs come with "
                "kgen build)\n");
        return 2;
    }
    Arena *a = arena_new();
    Diag d;
    diag_init(&d, stderr);
    int rc = 2;
    Plan *p = NULL;
    Graph *g = o->fused ? NULL : pipeline_graph(o, &d, a);
    if (o->fused && (p = pipeline_plan(o, &d, a)))
        g = p->g;
    if (!g)
        goto out;
    if (o->save) {
        rc = ref_save(o, g);
        goto out;
    }
    Tensor *ref = calloc((size_t)g->noutputs, sizeof *ref);
    Tensor *fus = calloc((size_t)g->noutputs, sizeof *fus);
    Str err = {0};
    rc = 1;
    if (interp_run(g, NULL, o->seed, ref, &err) != 0) {
        fprintf(stderr, "kgen: error: %s\n", err.buf);
    } else {
        printf("reference (op by op, double, seed %llu):\n",
               (unsigned long long)o->seed);
        for (int i = 0; i < g->noutputs; i++)
            print_tensor_summary(value_label(a, g->outputs[i]), &ref[i]);
        rc = 0;
        if (p && interp_run(g, p, o->seed, fus, &err) != 0) {
            fprintf(stderr, "kgen: error: fused plan: %s\n", err.buf);
            rc = 1;
        } else if (p) {
            printf("fused plan (%d kernels) against the reference:\n", p->nk);
            for (int i = 0; i < g->noutputs; i++) {
                double max_abs = 0;
                double rel = tensor_rel_err(&ref[i], &fus[i], &max_abs);
                bool ok = rel < 1e-12;
                printf("%-10s rel-L2 %.3g  max-abs %.3g  %s\n",
                       value_label(a, g->outputs[i]), rel, max_abs,
                       ok ? "ok" : "MISMATCH");
                if (!ok)
                    rc = 1;
            }
        }
        for (int i = 0; i < g->noutputs; i++) {
            tensor_free(&ref[i]);
            tensor_free(&fus[i]);
        }
    }
    str_free(&err);
    free(ref);
    free(fus);
out:
    diag_free(&d);
    arena_free(a);
    return rc;
}

static void usage(FILE *fp)
{
    fprintf(fp,
        "usage: kgen COMMAND [options]\n"
        "\n"
        "  plan  MODEL.pat [--dim N=V]... [--dtype N=T]... [--json] [-d STAGE]\n"
        "                     what will be fused, and how\n"
        "  run   MODEL.pat --ref [--plan] [--seed N] [--dim N=V]... [--dtype N=T]...\n"
        "        [--save FILE [--layers N]]\n"
        "                     evaluate in double precision on the CPU; --plan also\n"
        "                     evaluates the fused plan and compares; --save\n"
        "                     writes inputs, weights and reference outputs\n"
        "                     (of N stacked layers) for examples/fused_demo\n"
        "  gen   MODEL.pat --backend cuda|opencl [--arch sm_90] -o DIR\n"
        "                     write the expanded kernel sources, for reading\n"
        "  space TEMPLATE [MODEL.pat [--kernel NAME]] [--arch A] [--rank N]\n"
        "                     a template's design and tuning space, and how\n"
        "                     many configs pass a kernel's constraints;\n"
        "                     --rank: the N best by the template's cost\n"
        "                     estimate, per design point (the tuner's first\n"
        "                     samples)\n"
        "  check MODEL.pat [--arch opencl|sm_90] [--kernel NAME] [--configs N]\n"
        "        [--compile-only] [--seed N]\n"
        "                     compile sampled candidates of every kernel, run\n"
        "                     them and compare with the double reference\n"
        "  tune  MODEL.pat --arch sm_90|opencl [--db FILE] [--device N]\n"
        "        [--strategy exhaustive|random|anneal] [--budget N] [--time S]\n"
        "        [--force] [--compile-only] [--jobs N] [--timeout MS] [--json]\n"
        "                     search every kernel's space on the device, validate\n"
        "                     and time each candidate, keep every trial in the cache\n"
        "  cache list|show KERNEL|history [KERNEL]|regressions [--threshold P]\n"
        "        |export [-o FILE]|import FILE|check [--db FILE] [--json]\n"
        "                     query and maintain the tuning cache\n"
        "  devices [--json]   usable backends and devices\n"
        "  build MODEL.pat --arch sm_90|opencl -o DIR [--db FILE]\n"
        "        [--dim N=V[,V...]]... [--no-lib]\n"
        "                     fused.h + fused.c + libfused.a + libfused.so: the\n"
        "                     tuned kernels, typed launchers and MODEL_forward\n"
        "\n"
        "options:\n"
        "  --patterns DIR     pattern files (default: $KGEN_PATTERNS, else the\n"
        "                     source tree's patterns/, else the installed ones)\n"
        "  --max-input BYTES  largest model file accepted (default 16 MiB)\n"
        "  --templates DIR    templates (default: $KGEN_TEMPLATES, else the\n"
        "                     source tree's templates/, else the installed ones)\n"
        "  -d parse|match|plan|all   dump the graph after that stage\n"
        "  --where KNOB=V[,V...]  (gen, space, check, tune) only the configs\n"
        "                     whose KNOB is one of the values, e.g. path=wgmma\n"
        "  --db FILE          tuning cache (default: $KGEN_CACHE, else\n"
        "                     $XDG_CACHE_HOME/kgen/tuning.sqlite)\n"
        "  --strict-db        a corrupt cache is an error (exit 4), not moved aside\n"
        "  --unfuse all|none|KERNEL[,KERNEL...]  (plan, run, gen, space, check,\n"
        "                     tune, build) leave those matches of optional\n"
        "                     patterns unfused (kernel names of the fused plan)\n"
        "  -v, -q             more / less progress output\n"
        "  --version, --help\n");
}

static bool add_override(Options *o, const char *arg, bool is_dtype, Arena *a)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg || !eq[1]) {
        fprintf(stderr, "kgen: error: --%s %s: expected NAME=VALUE\n",
                is_dtype ? "dtype" : "dim", arg);
        return false;
    }
    Override *nv = arena_alloc(a, (size_t)(o->nov + 1) * sizeof *nv);
    if (o->nov)
        memcpy(nv, o->ov, (size_t)o->nov * sizeof *nv);
    nv[o->nov].name = arena_strndup(a, arg, (size_t)(eq - arg));
    nv[o->nov].value = arena_strdup(a, eq + 1);
    nv[o->nov].is_dtype = is_dtype;
    o->ov = nv;
    o->nov++;
    return true;
}

char **kgen_argv;              /* for the tuner's workers (tune.c) */
int kgen_argc;

int kgen_main(int argc, char **argv)
{
    kgen_argv = argv;
    kgen_argc = argc;
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    Arena *a = arena_new();
    Options o = {.cmd = argv[1], .max_input = KG_MAX_INPUT, .seed = 1};
    int rc = 2;
    if (!strcmp(o.cmd, "--help") || !strcmp(o.cmd, "-h") || !strcmp(o.cmd, "help")) {
        usage(stdout);
        rc = 0;
        goto out;
    }
    if (!strcmp(o.cmd, "--version")) {
#ifdef KGEN_VERSION
        printf("kgen %s\n", KGEN_VERSION);
#endif
        rc = 0;
        goto out;
    }
    for (int i = 2; i < argc; i++) {
        const char *s = argv[i];
        const char *val = NULL;
        /* options with a value: --opt V or --opt=V */
        static const char *with_value[] = {"--dim", "--dtype", "--seed",
            "--patterns", "--max-input", "-d", "--templates", "--arch",
            "--backend", "-o", "--kernel", "--configs", "--db", "--strategy",
            "--budget", "--time", "--device", "--jobs", "--timeout",
            "--threshold", "--role", "--save", "--layers", "--where", "--rank",
            "--unfuse"};
        for (size_t k = 0; k < sizeof with_value / sizeof *with_value; k++) {
            size_t n = strlen(with_value[k]);
            if (!strncmp(s, with_value[k], n) && (s[n] == 0 || s[n] == '=')) {
                if (s[n] == '=')
                    val = s + n + 1;
                else if (i + 1 < argc)
                    val = argv[++i];
                else {
                    fprintf(stderr, "kgen: error: %s needs a value\n", s);
                    goto out;
                }
                s = with_value[k];
                break;
            }
        }
        if (!strcmp(s, "--dim") || !strcmp(s, "--dtype")) {
            if (!add_override(&o, val, s[3] == 't', a))
                goto out;
        } else if (!strcmp(s, "--seed")) {
            char *end;
            o.seed = strtoull(val, &end, 10);
            if (*end || end == val) {
                fprintf(stderr, "kgen: error: --seed %s: expected an integer\n", val);
                goto out;
            }
        } else if (!strcmp(s, "--patterns")) {
            o.patterns_dir = val;
        } else if (!strcmp(s, "--max-input")) {
            char *end;
            unsigned long long v = strtoull(val, &end, 10);
            if (*end || end == val || v == 0) {
                fprintf(stderr, "kgen: error: --max-input %s: expected bytes\n", val);
                goto out;
            }
            o.max_input = (size_t)v;
        } else if (!strcmp(s, "-d")) {
            if (strcmp(val, "parse") && strcmp(val, "match") &&
                strcmp(val, "plan") && strcmp(val, "all")) {
                fprintf(stderr, "kgen: error: -d %s: expected parse, match, plan "
                        "or all\n", val);
                goto out;
            }
            o.dump = val;
        } else if (!strcmp(s, "--templates")) {
            o.templates_dir = val;
        } else if (!strcmp(s, "--arch")) {
            o.arch = val;
        } else if (!strcmp(s, "--backend")) {
            if (strcmp(val, "cuda") && strcmp(val, "opencl")) {
                fprintf(stderr, "kgen: error: --backend %s: expected cuda or "
                        "opencl\n", val);
                goto out;
            }
            o.backend = val;
        } else if (!strcmp(s, "-o")) {
            o.out_dir = val;
        } else if (!strcmp(s, "--kernel")) {
            o.kernel = val;
        } else if (!strcmp(s, "--where")) {
            const char *eq = strchr(val, '=');
            if (!eq || eq == val || !eq[1] || strchr(val, ' ')) {
                fprintf(stderr, "kgen: error: --where %s: expected "
                        "KNOB=VALUE[,VALUE...]\n", val);
                goto out;
            }
            if (o.nwhere == (int)(sizeof o.where / sizeof *o.where)) {
                fprintf(stderr, "kgen: error: more than %d --where options\n",
                        (int)(sizeof o.where / sizeof *o.where));
                goto out;
            }
            o.where[o.nwhere++] = val;
        } else if (!strcmp(s, "--configs") || !strcmp(s, "--rank")) {
            char *end;
            long v = strtol(val, &end, 10);
            if (*end || end == val || v < 1 || v > 100000) {
                fprintf(stderr, "kgen: error: %s %s: expected 1 to 100000\n",
                        s, val);
                goto out;
            }
            *(s[2] == 'c' ? &o.configs : &o.rank) = (int)v;
        } else if (!strcmp(s, "--db")) {
            o.db = val;
        } else if (!strcmp(s, "--strategy")) {
            o.strategy = val;
        } else if (!strcmp(s, "--role")) {
            o.role = val;
        } else if (!strcmp(s, "--save")) {
            o.save = val;
        } else if (!strcmp(s, "--layers")) {
            char *end;
            long v = strtol(val, &end, 10);
            if (*end || end == val || v < 1 || v > 1000) {
                fprintf(stderr, "kgen: error: --layers %s: expected 1 to "
                        "1000\n", val);
                goto out;
            }
            o.layers = (int)v;
        } else if (!strcmp(s, "--unfuse")) {
            o.unfuse = val;
        } else if (!strcmp(s, "--unfused-only")) {
            o.unfused_only = true;
        } else if (!strcmp(s, "--no-lib")) {
            o.no_lib = true;
        } else if (!strcmp(s, "--budget") || !strcmp(s, "--device") ||
                   !strcmp(s, "--jobs")) {
            char *end;
            long v = strtol(val, &end, 10);
            bool dev = s[2] == 'd';
            if (*end || end == val || v < (dev ? 0 : 1) || v > 1000000) {
                fprintf(stderr, "kgen: error: %s %s: expected a%s integer\n", s,
                        val, dev ? " non-negative" : " positive");
                goto out;
            }
            *(s[2] == 'b' ? &o.budget : dev ? &o.device : &o.jobs) = (int)v;
        } else if (!strcmp(s, "--time") || !strcmp(s, "--timeout") ||
                   !strcmp(s, "--threshold")) {
            char *end;
            double v = strtod(val, &end);
            if (*end == '%' && s[3] == 'h')
                end++;
            if (*end || end == val || !(v > 0) || v > 1e9) {
                fprintf(stderr, "kgen: error: %s %s: expected a positive "
                        "number\n", s, val);
                goto out;
            }
            *(s[3] == 'h' ? &o.threshold : s[6] ? &o.timeout_ms : &o.time_s) = v;
        } else if (!strcmp(s, "--force")) {
            o.force = true;
        } else if (!strcmp(s, "--strict-db")) {
            o.strict_db = true;
        } else if (!strcmp(s, "--compile-only")) {
            o.compile_only = true;
        } else if (!strcmp(s, "--json")) {
            o.json = true;
        } else if (!strcmp(s, "--ref")) {
            o.ref = true;
        } else if (!strcmp(s, "--plan")) {
            o.fused = true;
        } else if (!strcmp(s, "-v")) {
            o.verbose++;
        } else if (!strcmp(s, "-q")) {
            o.quiet = true;
        } else if (s[0] == '-' && s[1]) {
            fprintf(stderr, "kgen: error: unknown option '%s'\n", s);
            goto out;
        } else if (!strcmp(o.cmd, "space") && !o.template_arg) {
            o.template_arg = s;
        } else if (!o.path) {
            o.path = s;
        } else if (!strcmp(o.cmd, "cache") && !o.arg2) {
            o.arg2 = s;
        } else {
            fprintf(stderr, "kgen: error: unexpected argument '%s'\n", s);
            goto out;
        }
    }
    if (!strcmp(o.cmd, "devices")) {
        rc = cmd_devices(o.json);
        goto out;
    }
    if (!strcmp(o.cmd, "space")) {
        rc = cmd_space(&o);
        goto out;
    }
    if (!strcmp(o.cmd, "gen") && o.path) {
        rc = cmd_gen(&o);
        goto out;
    }
    if (!strcmp(o.cmd, "check") && o.path) {
        rc = cmd_check(&o);
        goto out;
    }
    if (!strcmp(o.cmd, "cache")) {
        rc = cmd_cache(&o);
        goto out;
    }
    if (!strcmp(o.cmd, "tune") && o.path) {
        rc = cmd_tune(&o);
        goto out;
    }
    if (!strcmp(o.cmd, "__worker") && o.path) {
        rc = cmd_worker(&o);
        goto out;
    }
    if (!strcmp(o.cmd, "build") && o.path) {
        rc = cmd_build(&o);
        goto out;
    }
    if (strcmp(o.cmd, "plan") && strcmp(o.cmd, "run") && strcmp(o.cmd, "gen") &&
        strcmp(o.cmd, "check") && strcmp(o.cmd, "tune") &&
        strcmp(o.cmd, "__worker") && strcmp(o.cmd, "build")) {
        fprintf(stderr, "kgen: error: unknown command '%s'\n", o.cmd);
        usage(stderr);
        goto out;
    }
    if (!o.path) {
        fprintf(stderr, "kgen: error: %s needs a model file\n", o.cmd);
        goto out;
    }
    rc = !strcmp(o.cmd, "plan") ? cmd_plan(&o) : cmd_run(&o);
out:
    arena_free(a);
    return rc;
}

/*
 * gen.c -- from a plan to kernel sources: `kgen gen` writes them, `kgen
 * space` shows a template's design and tuning space and how much of it
 * survives a kernel's constraints.
 *
 * A generated file holds one design point of one kernel.  Its header names
 * the template and the kernel, then gives every tuning knob a default with
 * #ifndef (the first config that passes the constraints), so the file
 * compiles on its own while the tuner compiles other configs with -D.
 * Nothing is written unless every kernel expands: sources go to a
 * temporary directory that is renamed into place at the end.
 */
#include "kgen.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *templates_dir(const Options *o)
{
    if (o->templates_dir)
        return o->templates_dir;
    const char *env = getenv("KGEN_TEMPLATES");
    if (env && *env)
        return env;
#ifdef KGEN_SOURCE_DIR
    static char buf[4096];
    snprintf(buf, sizeof buf, "%s/templates", KGEN_SOURCE_DIR);
    if (access(buf, R_OK) == 0)
        return buf;
#endif
#ifdef KGEN_DATADIR
    return KGEN_DATADIR "/templates";
#else
    return "templates";
#endif
}

/* Advance cfg over knobs [lo, hi) like an odometer; false when done. */
bool cfg_next(const Template *t, int *cfg, int lo, int hi)
{
    for (int i = hi - 1; i >= lo; i--) {
        if (++cfg[i] < template_knob(t, i)->n)
            return true;
        cfg[i] = 0;
    }
    return false;
}

/* After a rejection that read the knobs in `read`, move cfg over knobs
 * [lo, hi) to the last config that agrees with it on every knob up to the
 * last one read, so that cfg_next goes on past every config the rejection
 * holds for. */
static void cfg_skip(const Template *t, int *cfg, uint64_t read, int lo, int hi)
{
    int last = lo - 1;
    for (int i = lo; i < hi; i++)
        if (i >= 64 || (read >> i & 1))
            last = i;
    for (int i = last + 1; i < hi; i++)
        cfg[i] = template_knob(t, i)->n - 1;
}

/* The rejections of a walk, kept to reject again without constraints():
 * for each set of knobs a rejection read, a hash set of the values it
 * held them at (mixed radix over those knobs: the whole space's count of
 * configs, which the walk could not get through if it were near 2^64,
 * bounds it). */
typedef struct Nogood {
    uint64_t mask;
    uint64_t *key;             /* value + 1; 0 empty */
    size_t n, cap;             /* cap a power of two */
} Nogood;

typedef struct Nogoods {
    Nogood *m;
    int n, cap;
} Nogoods;

static uint64_t nogood_key(const Template *t, const int *cfg, uint64_t mask)
{
    uint64_t k = 0;
    for (int i = 0; i < template_nknobs(t); i++)
        if (i >= 64 || (mask >> i & 1))
            k = k * (uint64_t)template_knob(t, i)->n + (uint64_t)cfg[i];
    return k + 1;
}

static size_t nogood_slot(const Nogood *g, uint64_t k)
{
    size_t h = (size_t)((k * 0x9e3779b97f4a7c15ull) >> 17) & (g->cap - 1);
    while (g->key[h] && g->key[h] != k)
        h = (h + 1) & (g->cap - 1);
    return h;
}

static void nogood_insert(Nogood *g, uint64_t k)
{
    if (2 * (g->n + 1) > g->cap) {
        Nogood big = {g->mask, NULL, 0, g->cap ? 2 * g->cap : 64};
        big.key = calloc(big.cap, sizeof *big.key);
        if (!big.key)
            die("out of memory");
        for (size_t i = 0; i < g->cap; i++)
            if (g->key[i])
                big.key[nogood_slot(&big, g->key[i])] = g->key[i];
        big.n = g->n;
        free(g->key);
        *g = big;
    }
    size_t h = nogood_slot(g, k);
    if (!g->key[h]) {
        g->key[h] = k;
        g->n++;
    }
}

/* Does a kept rejection hold for cfg?  *read: its knobs. */
static bool nogood_match(const Nogoods *ng, const Template *t, const int *cfg,
                         uint64_t *read)
{
    for (int i = 0; i < ng->n; i++) {
        const Nogood *g = &ng->m[i];
        if (g->key[nogood_slot(g, nogood_key(t, cfg, g->mask))]) {
            *read = g->mask;
            return true;
        }
    }
    return false;
}

static void nogood_add(Nogoods *ng, const Template *t, const int *cfg,
                       uint64_t read)
{
    int i = 0;
    while (i < ng->n && ng->m[i].mask != read)
        i++;
    if (i == ng->n) {
        if (ng->n == ng->cap) {
            ng->cap = ng->cap ? 2 * ng->cap : 16;
            ng->m = realloc(ng->m, (size_t)ng->cap * sizeof *ng->m);
            if (!ng->m)
                die("out of memory");
        }
        ng->m[ng->n++] = (Nogood){read, NULL, 0, 0};
    }
    nogood_insert(&ng->m[i], nogood_key(t, cfg, read));
}

/* The odometer over knobs [lo, n): a rejection holds for every config
 * that agrees with it on the knobs its constraints() read, so the walk
 * skips the knobs after the last of those (cfg_skip) and keeps the
 * rejection, which rejects the later configs that agree with it without a
 * call into Lua: a GEMM's space (560 million configs) took one call for
 * each of about a million steps. */
int cfg_each(Template *t, int *cfg, int lo, CfgFn fn, void *ctx, Str *err)
{
    int nk = template_nknobs(t), rc = 0;
    for (int i = lo; i < nk; i++)
        cfg[i] = 0;
    Nogoods ng = {0};
    do {
        uint64_t read;
        if (nogood_match(&ng, t, cfg, &read)) {
            cfg_skip(t, cfg, read, lo, nk);
            continue;
        }
        bool ok;
        Str why = {0};
        if (template_check(t, cfg, &ok, &why, &read)) {
            str_printf(err, "%s", why.buf ? why.buf : "");
            str_free(&why);
            rc = -1;
            break;
        }
        str_free(&why);
        if (!ok) {
            nogood_add(&ng, t, cfg, read);
            cfg_skip(t, cfg, read, lo, nk);
        } else if (fn(ctx, cfg)) {
            rc = 1;
            break;
        }
    } while (cfg_next(t, cfg, lo, nk));
    for (int i = 0; i < ng.n; i++)
        free(ng.m[i].key);
    free(ng.m);
    return rc;
}

/* Templates by name, loaded once per command. */
struct TemplateCache {
    Template **t;
    int n, cap;
    Arena *a;
};

TemplateCache *template_cache_new(Arena *a)
{
    TemplateCache *c = arena_alloc(a, sizeof *c);
    c->a = a;
    return c;
}

void template_cache_free(TemplateCache *c)
{
    for (int i = 0; c && i < c->n; i++)
        template_free(c->t[i]);
}

Template *template_get(TemplateCache *c, const char *dir, const char *name,
                       Str *err, Arena *a)
{
    for (int i = 0; i < c->n; i++)
        if (!strcmp(template_name(c->t[i]), name))
            return c->t[i];
    Template *t = template_load(dir, name, err, a);
    if (t)
        ARENA_PUSH(a, c->t, c->n, c->cap, t);
    return t;
}


static const char *arch_of(const Options *o)
{
    if (o->arch)
        return o->arch;
    if (o->backend && !strcmp(o->backend, "cuda"))
        return "sm_90";
    return "opencl";
}

typedef struct FirstValid {
    Template *t;
    const Options *o;
} FirstValid;

static int first_where(void *ctx, const int *cfg)
{
    FirstValid *f = ctx;
    return config_where(f->t, cfg, f->o);
}

/* The first config with design values from cfg[0..ndesign) whose tuning
 * passes the constraints and every --where (left in cfg); -1 none, -2 a
 * template error (in err). */
static int first_valid(Template *t, int *cfg, const Options *o, Str *err)
{
    FirstValid f = {t, o};
    int rc = cfg_each(t, cfg, template_ndesign(t), first_where, &f, err);
    return rc < 0 ? -2 : rc == 1 ? 0 : -1;
}

static void header(Str *s, const Template *t, const Plan *p, const Kernel *k,
                   const int *cfg, const char *arch)
{
    int nd = template_ndesign(t), nk = template_nknobs(t);
    str_printf(s, "/* generated by kgen from templates/%s.lua — do not edit\n"
               " * model %s, kernel %s (%s, lines %d-%d), arch %s\n",
               template_name(t), p->g->file->path, k->name, k->op,
               k->line_first, k->line_last, arch);
    str_printf(s, " * design:");
    for (int i = 0; i < nd; i++)
        str_printf(s, " %s=%s", template_knob(t, i)->name,
                   template_knob(t, i)->str[cfg[i]]);
    str_printf(s, "%s\n * tuning knobs default to the first config that "
               "passes the constraints;\n * the tuner compiles others with "
               "-D NAME=VALUE. */\n", nd ? "" : " (none)");
    for (int i = nd; i < nk; i++)
        str_printf(s, "#ifndef %s\n#define %s %s\n#endif\n",
                   template_knob(t, i)->name, template_knob(t, i)->name,
                   template_knob(t, i)->str[cfg[i]]);
}

static int write_file(const char *path, const char *text, size_t n)
{
    FILE *fp = fopen(path, "wb");
    if (!fp)
        return -1;
    size_t w = fwrite(text, 1, n, fp);
    int rc = fclose(fp);
    return w == n && rc == 0 ? 0 : -1;
}

static void remove_tree(const char *dir)
{
    DIR *dp = opendir(dir);
    if (!dp)
        return;
    struct dirent *de;
    while ((de = readdir(dp))) {
        if (de->d_name[0] == '.')
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        unlink(path);
    }
    closedir(dp);
    rmdir(dir);
}

int cmd_gen(const Options *o)
{
    if (!o->out_dir) {
        fprintf(stderr, "kgen: error: gen needs -o DIR\n");
        return 2;
    }
    const char *arch = arch_of(o);
    if (strcmp(arch, "opencl") && strncmp(arch, "sm_", 3)) {
        fprintf(stderr, "kgen: error: --arch %s: expected sm_XX or opencl\n", arch);
        return 2;
    }
    bool cuda = strcmp(arch, "opencl") != 0;
    Arena *a = arena_new();
    Diag d;
    diag_init(&d, stderr);
    TemplateCache *tc = template_cache_new(a);
    int rc = 2, written = 0;
    char tmp[4200] = "";
    char *made = NULL;                 /* the outermost parent of -o created here */
    Plan *p = pipeline_plan(o, &d, a);
    if (!p)
        goto out;
    snprintf(tmp, sizeof tmp, "%s.kgen-tmp-%d", o->out_dir, (int)getpid());
    if (mkdir_parents(o->out_dir, &made, a) || mkdir(tmp, 0777) != 0) {
        fprintf(stderr, "kgen: error: cannot create %s: %s\n", tmp, strerror(errno));
        tmp[0] = 0;
        goto out;
    }
    rc = 1;
    for (int i = 0; i < p->nk; i++) {
        Kernel *k = p->k[i];
        if (k->kind == K_VIEW || (o->kernel && strcmp(o->kernel, k->name)))
            continue;
        Str err = {0};
        Template *t = template_get(tc, templates_dir(o), k->template_name, &err, a);
        int b = t ? template_bind(t, p, k, arch, &err) : -1;
        if (b) {
            fprintf(stderr, "kgen: error: kernel %s (%s:%d): %s\n", k->name,
                    p->g->file->path, k->line_first, err.buf ? err.buf : "");
            str_free(&err);
            goto out;
        }
        int nd = template_ndesign(t), nk = template_nknobs(t);
        int *cfg = calloc((size_t)nk + 1, sizeof *cfg);
        int points = 0;
        do {
            int v = first_valid(t, cfg, o, &err);
            if (v == -2) {
                Str c = {0};
                template_cfg_str(t, cfg, &c);
                fprintf(stderr, "kgen: error: %s (expanding %s:%d:%d, kernel %s, "
                        "config %s)\n", err.buf, p->g->file->path, k->nodes[0]->loc.line,
                        k->nodes[0]->loc.col, k->name, c.buf ? c.buf : "");
                str_free(&c);
                free(cfg);
                str_free(&err);
                goto out;
            }
            if (v == -1)
                continue;                      /* design point not viable */
            Str src = {0};
            header(&src, t, p, k, cfg, arch);
            if (template_emit(t, cfg, &src, &err)) {
                fprintf(stderr, "kgen: error: %s (expanding %s:%d:%d, kernel %s)\n",
                        err.buf, p->g->file->path, k->nodes[0]->loc.line,
                        k->nodes[0]->loc.col, k->name);
                str_free(&src);
                free(cfg);
                str_free(&err);
                goto out;
            }
            Str name = {0};
            str_printf(&name, "%s/%s", tmp, k->name);
            for (int j = 0; j < nd; j++)
                str_printf(&name, ".%s", template_knob(t, j)->str[cfg[j]]);
            str_printf(&name, cuda ? ".cu" : ".cl");
            if (write_file(name.buf, src.buf, src.len)) {
                fprintf(stderr, "kgen: error: cannot write %s: %s\n", name.buf,
                        strerror(errno));
                str_free(&src);
                str_free(&name);
                free(cfg);
                goto out;
            }
            points++;
            written++;
            str_free(&src);
            str_free(&name);
        } while (cfg_next(t, cfg, 0, nd));
        free(cfg);
        str_free(&err);
        if (!points) {
            fprintf(stderr, "kgen: error: kernel %s: no config of templates/%s.lua "
                    "passes its constraints for %s\n", k->name,
                    k->template_name, arch);
            goto out;
        }
    }
    /* everything expanded: move into place */
    remove_tree(o->out_dir);
    if (rename(tmp, o->out_dir) != 0) {
        fprintf(stderr, "kgen: error: cannot create %s: %s\n", o->out_dir,
                strerror(errno));
        goto out;
    }
    tmp[0] = 0;
    if (!o->quiet)
        printf("wrote %d source files to %s\n", written, o->out_dir);
    rc = 0;
out:
    if (tmp[0])
        remove_tree(tmp);
    if (rc)
        rmdir_made(o->out_dir, made, a);
    template_cache_free(tc);
    diag_free(&d);
    arena_free(a);
    return rc;
}

/* a config that passes, with the template's cost estimate */
typedef struct Ranked {
    int *cfg;
    double cost;
    int seq;                   /* the space's order, for ties */
} Ranked;

static int rank_nd;            /* design knobs, for by_point_cost */
static int by_point_cost(const void *x, const void *y)
{
    const Ranked *a = x, *b = y;
    int d = memcmp(a->cfg, b->cfg, (size_t)rank_nd * sizeof(int));
    if (d)
        return d < 0 ? -1 : 1;
    int c = template_rank_cmp(a->cost, b->cost);
    return c ? c : (a->seq > b->seq) - (a->seq < b->seq);
}

/* --rank N: the N best-ranked configs of each design point, the order in
 * which the tuner's first batch samples them (tune.c, start_batch) */
static void print_ranked(Template *t, Ranked *r, int nr, int n)
{
    rank_nd = template_ndesign(t);
    qsort(r, (size_t)nr, sizeof *r, by_point_cost);
    if (nr && isnan(r[0].cost)) {
        printf("  templates/%s.lua has no rank(): the tuner samples design "
               "points uniformly\n", template_name(t));
        return;
    }
    for (int i = 0, k = 0; i < nr; i++) {
        if (i && memcmp(r[i].cfg, r[i - 1].cfg, (size_t)rank_nd * sizeof(int)))
            k = 0;
        if (k++ >= n)
            continue;
        Str s = {0};
        template_cfg_str(t, r[i].cfg, &s);
        printf("  %3d  %-10.4g %s\n", k, r[i].cost, s.buf ? s.buf : "");
        str_free(&s);
    }
}

/* `kgen space TEMPLATE [MODEL.pat] [--arch A] [--rank N]` */
int cmd_space(const Options *o)
{
    if (!o->template_arg) {
        fprintf(stderr, "kgen: error: space needs a template name\n");
        return 2;
    }
    Arena *a = arena_new();
    Str err = {0};
    int rc = 2;
    Diag d;
    diag_init(&d, stderr);
    Template *t = template_load(templates_dir(o), o->template_arg, &err, a);
    if (!t) {
        fprintf(stderr, "kgen: error: %s\n", err.buf);
        goto out;
    }
    /* the model first: a bad model or --kernel is an error before any
     * output */
    Plan *p = NULL;
    if (o->path && !(p = pipeline_plan(o, &d, a)))
        goto out;
    int nd = template_ndesign(t), nk = template_nknobs(t);
    double total = 1;
    printf("template %s (templates/%s.lua)\n", template_name(t), template_name(t));
    for (int i = 0; i < nk; i++) {
        const Knob *k = template_knob(t, i);
        if (i == 0 && nd)
            printf("design:\n");
        if (i == nd)
            printf("tuning:\n");
        printf("  %-12s", k->name);
        for (int j = 0; j < k->n; j++)
            printf("%s%s", j ? ", " : "", k->str[j]);
        printf("\n");
        total *= k->n;
    }
    printf("%.0f configs before constraints\n", total);
    rc = 0;
    if (!p)
        goto out;
    const char *arch = arch_of(o);
    int found = 0;
    for (int i = 0; i < p->nk; i++) {
        Kernel *kk = p->k[i];
        if (strcmp(kk->template_name, template_name(t)) ||
            (o->kernel && strcmp(o->kernel, kk->name)))
            continue;
        found++;
        str_free(&err);
        int b = template_bind(t, p, kk, arch, &err);
        if (b) {
            printf("%s: %s\n", kk->name, err.buf);
            if (b < 0)
                rc = 1;
            continue;
        }
        int **cfgs, ncfg;
        if (space_list(t, o, &cfgs, &ncfg, &err, a)) {
            fprintf(stderr, "kgen: error: %s\n", err.buf ? err.buf : "");
            rc = 1;
            continue;
        }
        Ranked *r = NULL;
        int nr = 0, cap = 0;
        for (int j = 0; o->rank && j < ncfg; j++) {
            Ranked x = {cfgs[j], 0, j};
            str_free(&err);
            if (template_rank(t, cfgs[j], &x.cost, &err)) {
                fprintf(stderr, "kgen: error: %s\n", err.buf);
                rc = 1;
                break;
            }
            ARENA_PUSH(a, r, nr, cap, x);
        }
        printf("%s (%s, lines %d-%d) on %s: %lld of %lld configs pass the "
               "constraints\n", kk->name, kk->op, kk->line_first, kk->line_last,
               arch, (long long)ncfg, (long long)total);
        if (o->rank)
            print_ranked(t, r, nr, o->rank);
    }
    if (!found)
        printf("no kernel of %s uses template %s%s%s\n", p->g->name,
               template_name(t), o->kernel ? " under the name " : "",
               o->kernel ? o->kernel : "");
out:
    template_free(t);
    str_free(&err);
    diag_free(&d);
    arena_free(a);
    return rc;
}

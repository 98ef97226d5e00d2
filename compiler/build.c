/*
 * build.c -- kgen build: the tuned plan as a library.
 *
 *   kgen build MODEL.pat --arch sm_90|opencl [--db FILE] [--dim N=V[,V...]]
 *              -o OUTDIR [--no-lib]
 *
 * Every binding of the model's dims (a variant; --dim T=861,2048 builds
 * two) is planned, and each kernel of each variant gets one config: the
 * tuning cache's winner for its exact key, else the winner of the nearest
 * tuned shape of the same computation (when it passes the template's
 * constraints at this shape), else the template's first valid config.
 * Winners measured with another version of the template are stale and
 * never used.  The config's source is compiled (NVRTC: CUBIN + PTX) or
 * kept as OpenCL source, and written into fused.c as constant tables
 * (kgen/kgrt_fused.h) with one typed launcher per kernel and the model's
 * forward pass, whose intermediates live in a caller-provided workspace
 * laid out by liveness.  fused.c is compiled with the system C compiler
 * ($CC, else cc) into libfused.a (with the kgrt runtime inside) and
 * libfused.so.  Everything is written to a temporary directory first and
 * moved into OUTDIR at the end, so a failed build leaves OUTDIR as it was.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <kgen/kgrt_fused.h>

#include "cache.h"
#include "compile.h"
#include "kgen.h"
#include "unfuse.h"
#include "verify.h"

#define MAX_VARIANTS 64

typedef struct BKernel {       /* one kernel of one variant */
    Kernel *k;
    int *cfg;
    const char *config;        /* "BM=64 ..." */
    const char *prov;          /* where the config came from */
    Launch L;
    Str src;                   /* the expansion */
    Str clopts;                /* OpenCL build options */
    KgCubin bin;               /* CUDA */
} BKernel;

typedef struct Variant {
    Override *ov;
    int nov;
    Plan *p;
    BKernel *bk;               /* per p->k */
    int64_t *ws_off;           /* per value id: workspace offset, -1 none */
    size_t ws;
    int64_t *dims;             /* per graph dim */
} Variant;

typedef struct Build {
    const Options *o;
    Arena *a;
    const char *arch;
    bool cuda;
    KgDb *db;
    TemplateCache *tc;
    Variant v[MAX_VARIANTS];
    int nv;
    int ntuned, nnear, ndefault;
} Build;

/* ---- variants --------------------------------------------------------- */

/* Expand --dim N=V1,V2 into one override list per combination. */
static int expand_variants(Build *B)
{
    const Options *o = B->o;
    int total = 1;
    for (int i = 0; i < o->nov; i++) {
        int n = 1;
        for (const char *c = o->ov[i].value; *c; c++)
            n += *c == ',';
        if (o->ov[i].is_dtype && n > 1) {
            fprintf(stderr, "kgen: error: --dtype %s=%s: one dtype per build\n",
                    o->ov[i].name, o->ov[i].value);
            return -1;
        }
        total *= n;
        if (total > MAX_VARIANTS) {
            fprintf(stderr, "kgen: error: more than %d shape variants asked "
                    "for\n", MAX_VARIANTS);
            return -1;
        }
    }
    for (int v = 0; v < total; v++) {
        Variant *V = &B->v[v];
        int rest = v;
        V->nov = o->nov;
        V->ov = arena_alloc(B->a, (size_t)(o->nov + 1) * sizeof *V->ov);
        for (int i = o->nov - 1; i >= 0; i--) {
            const char *val = o->ov[i].value;
            int n = 1, pick;
            for (const char *c = val; *c; c++)
                n += *c == ',';
            pick = rest % n;
            rest /= n;
            for (int j = 0; j < pick; j++)
                val = strchr(val, ',') + 1;
            const char *end = strchr(val, ',');
            V->ov[i] = o->ov[i];
            V->ov[i].value = end ? arena_strndup(B->a, val, (size_t)(end - val))
                                 : val;
        }
    }
    B->nv = total;
    return 0;
}

/* ---- config choice ---------------------------------------------------- */

static int cfg_parse(const Template *t, const char *s, int *cfg)
{
    int nk = template_nknobs(t);
    for (int i = 0; i < nk; i++) {
        const Knob *kb = template_knob(t, i);
        size_t nl = strlen(kb->name);
        const char *p = s;
        cfg[i] = -1;
        while ((p = strstr(p, kb->name)) != NULL) {
            if ((p == s || p[-1] == ' ') && p[nl] == '=')
                break;
            p += nl;
        }
        if (!p)
            return -1;
        p += nl + 1;
        size_t vl = strcspn(p, " ");
        for (int j = 0; j < kb->n; j++)
            if (strlen(kb->str[j]) == vl && !strncmp(kb->str[j], p, vl))
                cfg[i] = j;
        if (cfg[i] < 0)
            return -1;
    }
    return 0;
}

/* Numbers of a shape key, for the distance between two shapes; -1 when
 * the keys differ in anything but their numbers. */
static double shape_distance(const char *a, const char *b)
{
    double d = 0;
    while (*a && *b) {
        if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
            char *ea, *eb;
            double x = strtod(a, &ea), y = strtod(b, &eb);
            if (x > 0 && y > 0)
                d += fabs(log(x / y));
            else if (x != y)
                d += 50;
            a = ea;
            b = eb;
        } else if (*a++ != *b++) {
            return -1;
        }
    }
    return *a || *b ? -1 : d;
}

/* Does cfg pass the constraints? */
static bool cfg_ok(Template *t, const int *cfg)
{
    bool ok = false;
    Str why = {0};
    int rc = template_check(t, cfg, &ok, &why, NULL);
    str_free(&why);
    return rc == 0 && ok;
}

/* the build's default: the best-ranked config that passes, the first on
 * ties or without rank() */
typedef struct BestRanked {
    Template *t;
    int *out, nk;
    double best;
    bool found;
    Str err;
} BestRanked;

static int best_ranked(void *ctx, const int *cfg)
{
    BestRanked *b = ctx;
    double cost;
    if (template_rank(b->t, cfg, &cost, &b->err))
        return -1;
    if (!b->found || template_rank_cmp(cost, b->best) < 0) {
        memcpy(b->out, cfg, (size_t)b->nk * sizeof *cfg);
        b->best = cost;
        b->found = true;
    }
    return 0;
}

static const char *winner_prov(Build *B, const DbWinner *w, const char *how)
{
    return arena_printf(B->a, "%s: run %lld, %s, driver %s, %s, %.4f ms "
                        "(%s)", how, (long long)w->run, w->device, w->driver,
                        w->compiler, w->median_ms, w->created);
}

static int choose(Build *B, Plan *p, Kernel *k, Template *t, BKernel *bk)
{
    int nk = template_nknobs(t);
    const char *op, *shape, *dtype;
    char thash[32];
    DbWinner *w = NULL;
    int nw = 0;

    bk->cfg = arena_alloc(B->a, (size_t)(nk + 1) * sizeof *bk->cfg);
    kernel_key(p, k, &op, &shape, &dtype, B->a);
    snprintf(thash, sizeof thash, "%016llx",
             (unsigned long long)template_hash(t));
    if (B->db) {
        nw = db_winners(B->db, op, NULL, dtype, B->arch, thash, &w, B->a);
        if (nw < 0) {
            fprintf(stderr, "kgen: warning: %s (tuning DB %s): building "
                    "without it\n", db_error(B->db), db_path(B->db));
            nw = 0;
        }
    }
    /* the exact shape, newest run first */
    for (int i = 0; i < nw; i++)
        if (!strcmp(w[i].shape, shape) && !cfg_parse(t, w[i].config, bk->cfg) &&
            cfg_ok(t, bk->cfg)) {
            bk->prov = winner_prov(B, &w[i], "tuned");
            B->ntuned++;
            return 0;
        }
    /* the nearest tuned shape whose config fits this one */
    for (;;) {
        int best = -1;
        double bd = 0;
        for (int i = 0; i < nw; i++) {
            double d = w[i].shape ? shape_distance(w[i].shape, shape) : -1;
            if (d >= 0 && (best < 0 || d < bd)) {
                best = i;
                bd = d;
            }
        }
        if (best < 0)
            break;
        if (!cfg_parse(t, w[best].config, bk->cfg) && cfg_ok(t, bk->cfg)) {
            bk->prov = winner_prov(B, &w[best], arena_printf(B->a,
                "untuned shape; config of the nearest tuned shape %s",
                w[best].shape));
            B->nnear++;
            return 0;
        }
        w[best].shape = NULL;
    }
    /* the tuner's default: the best-ranked valid config, the first on
     * ties or without rank() */
    int *cfg = arena_alloc(B->a, (size_t)(nk + 1) * sizeof *cfg);
    BestRanked br = {t, bk->cfg, nk, NAN, false, {0}};
    if (cfg_each(t, cfg, 0, best_ranked, &br, &br.err)) {
        fprintf(stderr, "kgen: error: kernel %s: %s\n", k->name,
                br.err.buf ? br.err.buf : "");
        str_free(&br.err);
        return -1;
    }
    double best = br.best;
    bool found = br.found;
    if (found) {
        bk->prov = isnan(best) ? "untuned: the template's first valid config"
                               : "untuned: the template's best-ranked config";
        B->ndefault++;
        return 0;
    }
    fprintf(stderr, "kgen: error: kernel %s (%s:%d): no config of template "
            "%s passes its constraints\n", k->name, p->g->file->path,
            k->line_first, template_name(t));
    return -1;
}

/* ---- one kernel: config, expansion, compile ---------------------------- */

static int build_kernel(Build *B, Variant *V, int ki)
{
    Plan *p = V->p;
    Kernel *k = p->k[ki];
    BKernel *bk = &V->bk[ki];
    Str err = {0};
    int rc = -1;

    bk->k = k;
    if (k->kind == K_VIEW)
        return 0;
    Template *t = template_get(B->tc, templates_dir(B->o), k->template_name,
                               &err, B->a);
    if (!t || template_bind(t, p, k, B->arch, &err)) {
        fprintf(stderr, "kgen: error: kernel %s (%s:%d): %s\n", k->name,
                p->g->file->path, k->line_first, err.buf ? err.buf : "");
        goto out;
    }
    if (choose(B, p, k, t, bk))
        goto out;
    Str cs = {0};
    template_cfg_str(t, bk->cfg, &cs);
    bk->config = arena_strdup(B->a, cs.buf ? cs.buf : "");
    str_free(&cs);
    if (template_launch(t, bk->cfg, &bk->L, &err) ||
        template_emit(t, bk->cfg, &bk->src, &err)) {
        fprintf(stderr, "kgen: error: kernel %s (%s:%d) [%s]: %s\n", k->name,
                p->g->file->path, k->line_first, bk->config,
                err.buf ? err.buf : "");
        goto out;
    }
    const char **defs;
    int ndefs;
    str_printf(&bk->clopts, "-cl-std=CL1.2");
    cfg_defines(t, bk->cfg, &bk->clopts, &defs, &ndefs, B->a);
    if (B->cuda) {
        int c = kg_nvrtc_compile(bk->src.buf, k->name, B->arch, defs, ndefs,
                                 &bk->bin);
        if (c != KG_COMPILE_OK) {
            Str log = {0};
            normalise_log(bk->bin.log ? bk->bin.log : "", &log);
            fprintf(stderr, "kgen: error: kernel %s [%s] does not compile for "
                    "%s:\n%s\n", k->name, bk->config, B->arch,
                    log.buf ? log.buf : "");
            str_free(&log);
            rc = c == KG_COMPILE_ENV ? -3 : -1;
            goto out;
        }
    }
    if (B->o->verbose)
        fprintf(stderr, "kgen: %s: %s [%s] (%s)\n", k->name,
                template_name(t), bk->config, bk->prov);
    rc = 0;
out:
    str_free(&err);
    return rc;
}

/* ---- workspace by liveness --------------------------------------------- */

static const Value *mem_of(const Plan *p, const Value *v)
{
    return p->base[v->id] ? p->base[v->id] : v;
}

static bool is_model_tensor(const Value *v)
{
    return v->kind == V_INPUT || v->kind == V_WEIGHT || v->is_output;
}

typedef struct Buf {
    const Value *v;
    int first, last;
    size_t size, off;
} Buf;

static int cmp_buf_size(const void *x, const void *y)
{
    const Buf *a = x, *b = y;
    if (a->size != b->size)
        return a->size < b->size ? 1 : -1;
    return a->v->id - b->v->id;
}

static void plan_workspace(Build *B, Variant *V)
{
    Plan *p = V->p;
    Graph *g = p->g;
    Buf *buf = arena_alloc(B->a, (size_t)(g->nvalues + 1) * sizeof *buf);
    int *idx = arena_alloc(B->a, (size_t)(g->nvalues + 1) * sizeof *idx);
    int nb = 0;

    V->ws_off = arena_alloc(B->a, (size_t)(g->nvalues + 1) * sizeof *V->ws_off);
    for (int i = 0; i < g->nvalues; i++) {
        V->ws_off[i] = -1;
        idx[i] = -1;
    }
    for (int s = 0; s < p->nk; s++) {
        const Kernel *k = p->k[s];
        if (k->kind == K_VIEW)
            continue;
        for (int j = 0; j < k->nout + k->nin; j++) {
            const Value *v = mem_of(p, j < k->nout ? k->out[j]
                                                  : k->in[j - k->nout]);
            if (is_model_tensor(v) || v->kind == V_CONST)
                continue;
            if (idx[v->id] < 0) {
                idx[v->id] = nb;
                buf[nb].v = v;
                buf[nb].first = s;
                buf[nb].size = ((size_t)numel(v) * (size_t)dtype_size(v->dt) +
                                KGRT_FUSED_WS_ALIGN - 1) /
                               KGRT_FUSED_WS_ALIGN * KGRT_FUSED_WS_ALIGN;
                nb++;
            }
            buf[idx[v->id]].last = s;
        }
    }
    qsort(buf, (size_t)nb, sizeof *buf, cmp_buf_size);
    V->ws = 0;
    for (int i = 0; i < nb; i++) {
        /* the lowest offset clear of every placed buffer alive with it */
        size_t off = 0;
        bool moved = true;
        while (moved) {
            moved = false;
            for (int j = 0; j < i; j++)
                if (buf[j].first <= buf[i].last && buf[i].first <= buf[j].last &&
                    buf[j].off < off + buf[i].size &&
                    off < buf[j].off + buf[j].size) {
                    off = buf[j].off + buf[j].size;
                    moved = true;
                }
        }
        buf[i].off = off;
        V->ws_off[buf[i].v->id] = (int64_t)off;
        if (off + buf[i].size > V->ws)
            V->ws = off + buf[i].size;
    }
}

/* ---- emitting fused.c and fused.h -------------------------------------- */

static const char *const c_keywords[] = {
    "auto", "break", "case", "char", "const", "continue", "default", "do",
    "double", "else", "enum", "extern", "float", "for", "goto", "if",
    "inline", "int", "long", "register", "restrict", "return", "short",
    "signed", "sizeof", "static", "struct", "switch", "typedef", "union",
    "unsigned", "void", "volatile", "while", "bool", "true", "false",
    "stream", "workspace", "workspace_bytes", "t", "n", "NULL",
};

/* A C identifier for a value: "y#2" -> "y_2", "linear@23:7" ->
 * "linear_23_7"; keywords and the launchers' own names get a '_'. */
static const char *c_ident(Arena *a, const char *name)
{
    size_t n = strlen(name);
    char *s = arena_alloc(a, n + 3);
    size_t j = 0;
    if (!n || isdigit((unsigned char)name[0]))
        s[j++] = 'v';
    for (size_t i = 0; i < n; i++)
        s[j++] = isalnum((unsigned char)name[i]) ? name[i] : '_';
    s[j] = '\0';
    for (size_t i = 0; i < sizeof c_keywords / sizeof *c_keywords; i++)
        if (!strcmp(s, c_keywords[i])) {
            s[j++] = '_';
            s[j] = '\0';
        }
    return s;
}

static void emit_bytes(Str *c, const char *name, const void *data, size_t n,
                       bool nul)
{
    const unsigned char *b = data;
    str_printf(c, "static const unsigned char %s[] = {", name);
    for (size_t i = 0; i < n; i++)
        str_printf(c, "%s%u,", i % 24 ? "" : "\n", b[i]);
    if (nul)
        str_puts(c, "0,");
    str_puts(c, "\n};\n");
}

static void emit_cstr(Str *c, const char *s)
{
    str_putc(c, '"');
    for (; s && *s; s++) {
        if (*s == '"' || *s == '\\')
            str_printf(c, "\\%c", *s);
        else if (*s == '\n')
            str_puts(c, "\\n");
        else if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
            str_printf(c, "\\%03o", (unsigned char)*s);
        else
            str_putc(c, *s);
    }
    str_putc(c, '"');
}

static void emit_i64s(Str *c, const int64_t *x, int n)
{
    str_putc(c, '{');
    for (int i = 0; i < n; i++)
        str_printf(c, "%s%lld", i ? "," : "", (long long)x[i]);
    if (!n)
        str_putc(c, '0');
    str_putc(c, '}');
}

static void emit_arg(Str *c, Arena *a, const Plan *p, const Value *v,
                     bool output, bool contiguous)
{
    int64_t st[KG_MAX_RANK];
    int64_t off = 0;
    if (contiguous || !p->base[v->id]) {
        int64_t m = 1;
        for (int d = v->rank - 1; d >= 0; d--) {
            st[d] = m;
            m *= v->shape[d];
        }
    } else {
        memcpy(st, p->strides[v->id], sizeof st);
        off = p->offset[v->id];
    }
    str_puts(c, "  { ");
    emit_cstr(c, value_label(a, v));
    str_printf(c, ", %d, %d, %d, ", (int)v->dt, v->rank, output ? 1 : 0);
    emit_i64s(c, v->shape, v->rank);
    str_puts(c, ", ");
    emit_i64s(c, st, v->rank);
    str_printf(c, ", %lld },\n", (long long)off);
}

/* Index of v among the model's tensors (inputs, weights, outputs). */
static int model_index(const Graph *g, const Value *v)
{
    for (int i = 0; i < g->ninputs; i++)
        if (g->inputs[i] == v)
            return i;
    for (int i = 0; i < g->noutputs; i++)
        if (g->outputs[i] == v)
            return g->ninputs + i;
    return -1;
}

static void emit_variant(Build *B, int vi, Str *c, Str *prov)
{
    Variant *V = &B->v[vi];
    Plan *p = V->p;
    Graph *g = p->g;
    int nsteps = 0;

    str_printf(c, "\n/* ---- variant %d:", vi);
    for (int d = 0; d < g->ndims; d++)
        str_printf(c, " %s=%lld", g->dims[d].name, (long long)V->dims[d]);
    str_puts(c, " ---- */\n");
    for (int ki = 0; ki < p->nk; ki++) {
        BKernel *bk = &V->bk[ki];
        Kernel *k = p->k[ki];
        char nm[96];
        if (k->kind == K_VIEW)
            continue;
        nsteps++;
        snprintf(nm, sizeof nm, "v%d_k%d", vi, ki);
        if (B->cuda) {
            emit_bytes(c, arena_printf(B->a, "%s_cubin", nm), bk->bin.cubin,
                       bk->bin.cubin_size, false);
            emit_bytes(c, arena_printf(B->a, "%s_ptx", nm), bk->bin.ptx,
                       strlen(bk->bin.ptx), true);
        } else {
            emit_bytes(c, arena_printf(B->a, "%s_src", nm), bk->src.buf,
                       bk->src.len, true);
        }
        str_printf(c, "static const kgrt_fused_arg %s_args[] = {\n", nm);
        for (int j = 0; j < k->nin; j++)
            emit_arg(c, B->a, p, k->in[j], false, false);
        for (int j = 0; j < k->nout; j++)
            emit_arg(c, B->a, p, k->out[j], true, false);
        str_printf(c, "};\nstatic kgrt_fused_slot %s_slots[KGRT_FUSED_DEVICES];"
                   "\n", nm);
        if (bk->L.ntmaps) {
            str_printf(c, "static const kgrt_fused_tmap %s_tmaps[] = {\n", nm);
            for (int j = 0; j < bk->L.ntmaps; j++) {
                const LaunchTmap *tm = &bk->L.tmaps[j];
                const kgrt_tmap *m = &tm->map;
                str_printf(c, "  { %d, { %d, %d, {", tm->arg, m->dtype, m->rank);
                for (int d = 0; d < KGRT_TMAP_RANK; d++)
                    str_printf(c, "%s%lluu", d ? ", " : "",
                               (unsigned long long)m->dims[d]);
                str_puts(c, "}, {");
                for (int d = 0; d < KGRT_TMAP_RANK - 1; d++)
                    str_printf(c, "%s%lluu", d ? ", " : "",
                               (unsigned long long)m->strides[d]);
                str_puts(c, "}, {");
                for (int d = 0; d < KGRT_TMAP_RANK; d++)
                    str_printf(c, "%s%uu", d ? ", " : "", m->box[d]);
                str_printf(c, "}, %lluu, %d } },\n", (unsigned long long)m->off,
                           m->swizzle);
            }
            str_puts(c, "};\n");
        }
        const char *pv = arena_printf(B->a, "%s %s [%s]: %s", k->name,
                                      k->template_name, bk->config, bk->prov);
        str_printf(prov, "variant %d: %s\n", vi, pv);
        str_printf(c, "static const kgrt_fused_kernel %s = {\n  ", nm);
        emit_cstr(c, k->name);
        str_puts(c, ", ");
        emit_cstr(c, B->arch);
        if (B->cuda)
            str_printf(c, ",\n  %s_cubin, sizeof %s_cubin, (const char *)%s_ptx,"
                       " NULL, NULL,\n", nm, nm, nm);
        else {
            str_printf(c, ",\n  NULL, 0, NULL, (const char *)%s_src, ", nm);
            emit_cstr(c, bk->clopts.buf);
            str_puts(c, ",\n");
        }
        str_printf(c, "  {%u, %u, %u}, {%u, %u, %u}, %zu,\n  %d, %s_args, %d, ",
                   bk->L.grid[0], bk->L.grid[1], bk->L.grid[2],
                   bk->L.block[0], bk->L.block[1], bk->L.block[2], bk->L.smem,
                   k->nin + k->nout, nm, bk->L.ntmaps);
        if (bk->L.ntmaps)
            str_printf(c, "%s_tmaps,\n  ", nm);
        else
            str_puts(c, "NULL,\n  ");
        emit_cstr(c, bk->config);
        str_puts(c, ",\n  ");
        emit_cstr(c, pv);
        str_printf(c, ",\n  %s_slots,\n};\n", nm);
        /* where the forward pass finds each argument */
        str_printf(c, "static const int %s_marg[] = {", nm);
        for (int j = 0; j < k->nin + k->nout; j++) {
            const Value *v = mem_of(p, j < k->nin ? k->in[j] : k->out[j - k->nin]);
            str_printf(c, "%d,", model_index(g, v));
        }
        str_printf(c, "};\nstatic const size_t %s_wsoff[] = {", nm);
        for (int j = 0; j < k->nin + k->nout; j++) {
            const Value *v = mem_of(p, j < k->nin ? k->in[j] : k->out[j - k->nin]);
            str_printf(c, "%lld,", (long long)(V->ws_off[v->id] < 0
                                                   ? 0 : V->ws_off[v->id]));
        }
        str_puts(c, "};\n");
    }
    str_printf(c, "static const kgrt_fused_step v%d_steps[] = {\n", vi);
    for (int ki = 0; ki < p->nk; ki++)
        if (p->k[ki]->kind != K_VIEW)
            str_printf(c, "  { &v%d_k%d, v%d_k%d_marg, v%d_k%d_wsoff },\n", vi,
                       ki, vi, ki, vi, ki);
    str_printf(c, "};\nstatic const int64_t v%d_dims[] = ", vi);
    emit_i64s(c, V->dims, g->ndims);
    str_printf(c, ";\nstatic const kgrt_fused_arg v%d_model_args[] = {\n", vi);
    for (int i = 0; i < g->ninputs; i++)
        emit_arg(c, B->a, p, g->inputs[i], false, true);
    for (int i = 0; i < g->noutputs; i++)
        emit_arg(c, B->a, p, g->outputs[i], true, true);
    str_puts(c, "};\n");
    (void)nsteps;
}

static void emit_header_doc(Build *B, Str *h, int ki)
{
    const Plan *p0 = B->v[0].p;
    const Kernel *k = p0->k[ki];
    str_printf(h, "/*\n * %s: %s kernel (%s template), %s lines %d-%d.\n",
               k->name, kernel_kind_name(k->kind), k->template_name,
               p0->g->file->path, k->line_first, k->line_last);
    for (int vi = 0; vi < B->nv; vi++) {
        const Plan *p = B->v[vi].p;
        const Kernel *kv = p->k[ki];
        const BKernel *bk = &B->v[vi].bk[ki];
        str_printf(h, " * variant %d:", vi);
        for (int j = 0; j < kv->nin + kv->nout; j++) {
            const Value *v = j < kv->nin ? kv->in[j] : kv->out[j - kv->nin];
            str_printf(h, "%s %s %s[", j ? "," : "", value_label(B->a, v),
                       dtype_name(v->dt));
            for (int d = 0; d < v->rank; d++)
                str_printf(h, "%s%lld", d ? "," : "", (long long)v->shape[d]);
            str_putc(h, ']');
            if (p->base[v->id]) {
                str_puts(h, " strides [");
                for (int d = 0; d < v->rank; d++)
                    str_printf(h, "%s%lld", d ? "," : "",
                               (long long)p->strides[v->id][d]);
                str_printf(h, "] offset %lld", (long long)p->offset[v->id]);
            }
        }
        str_printf(h, "\n *   config %s\n *   %s\n", bk->config, bk->prov);
    }
    str_puts(h, " */\n");
}

static int emit_sources(Build *B, const char *dir)
{
    const Plan *p0 = B->v[0].p;
    const Graph *g = p0->g;
    const char *m = c_ident(B->a, g->name);
    Str c = {0}, h = {0}, prov = {0}, fparams = {0}, fnames = {0};
    int nmodel = g->ninputs + g->noutputs, rc = -1;
    time_t now = time(NULL);
    char when[64];
    struct tm tm;

    gmtime_r(&now, &tm);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    str_printf(&prov, "%s built by kgen %s on %s for %s from %s; tuning DB %s\n",
               g->name, KGEN_VERSION, when, B->arch, g->file->path,
               B->db ? db_path(B->db) : "(none)");

    str_printf(&c, "/* generated by kgen %s from %s for %s -- do not edit */\n"
               "#include \"fused.h\"\n#include \"kgen/kgrt_fused.h\"\n",
               KGEN_VERSION, g->file->path, B->arch);
    for (int vi = 0; vi < B->nv; vi++)
        emit_variant(B, vi, &c, &prov);
    str_puts(&c, "\nstatic const kgrt_fused_variant variants[] = {\n");
    for (int vi = 0; vi < B->nv; vi++)
        str_printf(&c, "  { v%d_dims, v%d_model_args, %zu, "
                   "(int)(sizeof v%d_steps / sizeof *v%d_steps), v%d_steps },\n",
                   vi, vi, B->v[vi].ws, vi, vi, vi);
    str_puts(&c, "};\nstatic const char *const dim_names[] = {");
    for (int d = 0; d < g->ndims; d++) {
        emit_cstr(&c, g->dims[d].name);
        str_putc(&c, ',');
    }
    if (!g->ndims)
        str_puts(&c, "NULL");
    str_printf(&c, "};\nconst kgrt_fused_model %s_model = {\n  ", m);
    emit_cstr(&c, g->name);
    str_printf(&c, ", %s, ", B->cuda ? "KGRT_CUDA" : "KGRT_OPENCL");
    emit_cstr(&c, B->arch);
    str_printf(&c, ", %d, dim_names, %d, %d, %d, variants,\n  ", g->ndims,
               nmodel, g->noutputs, B->nv);
    emit_cstr(&c, prov.buf);
    str_puts(&c, "\n};\n");

    /* fused.h */
    str_printf(&h,
        "/*\n * fused.h -- generated by kgen %s from %s for %s on %s; do not "
        "edit.\n *\n"
        " * Typed launchers for the kernels of model %s and its forward pass.\n"
        " * Tensors are kgrt_tensor descriptors (kgen/kgrt.h): data pointer "
        "(CUDA\n * address or cl_mem), byte offset, dtype, rank, shape, "
        "strides in elements.\n"
        " * Every call checks its tensors against the shapes the library was "
        "built\n * for (the variants below) and returns 0 or a negative "
        "kgrt_status with\n * the reason in kgrt_last_error(): KGRT_EDTYPE, "
        "KGRT_ERANK, KGRT_ESHAPE,\n * KGRT_ESTRIDE, KGRT_EALIGN (CUDA data "
        "must be %d-byte aligned), KGRT_EALIAS\n * (an output overlapping "
        "another argument), KGRT_EWORKSPACE.  Work is queued\n * on the "
        "stream and runs asynchronously.\n *\n * Built shapes:\n",
        KGEN_VERSION, g->file->path, B->arch, when, g->name, KGRT_FUSED_ALIGN);
    for (int vi = 0; vi < B->nv; vi++) {
        str_printf(&h, " *   variant %d:", vi);
        for (int d = 0; d < g->ndims; d++)
            str_printf(&h, " %s=%lld", g->dims[d].name,
                       (long long)B->v[vi].dims[d]);
        str_printf(&h, " (workspace %zu bytes)\n", B->v[vi].ws);
    }
    str_printf(&h, " */\n#ifndef KGEN_FUSED_%s_H\n#define KGEN_FUSED_%s_H\n\n"
               "#include <stddef.h>\n#include <stdint.h>\n\n"
               "#include \"kgen/kgrt.h\"\n\n#ifdef __cplusplus\nextern \"C\" "
               "{\n#endif\n\n", m, m);
    str_printf(&h, "/* Open the device this library was built for: "
               "$KGRT_DEVICE (default 0)\n * of the %s backend. */\n"
               "int %s_open(kgrt_device **out);\n"
               "/* Unload this library's modules from d (before "
               "kgrt_device_close). */\nvoid %s_release(kgrt_device *d);\n"
               "/* Which config each kernel runs and where it came from "
               "(tuning run,\n * device, driver, compiler), one line per "
               "kernel and variant. */\nconst char *%s_provenance(void);\n"
               "const char *%s_last_error(void);\n\n",
               B->cuda ? "CUDA" : "OpenCL", m, m, m, m);
    /* the forward pass */
    str_printf(&h, "/*\n * The whole model: inputs and weights (contiguous) "
               "in, outputs written.\n * workspace: device memory (CUDA "
               "address or cl_mem) of at least\n * %s_workspace_size() bytes "
               "for these dims.\n */\nint %s_forward(kgrt_stream *stream",
               m, m);
    /* the forward pass's tensors: inputs and weights, then outputs */
    for (int i = 0; i < nmodel; i++) {
        const Value *v = i < g->ninputs ? g->inputs[i]
                                        : g->outputs[i - g->ninputs];
        const char *id = c_ident(B->a, v->name ? v->name : "out");
        str_printf(&fparams, ",\n    const kgrt_tensor *%s", id);
        str_printf(&fnames, "%s%s", i ? ", " : "", id);
    }
    str_puts(&h, fparams.buf);
    str_printf(&h, ",\n    void *workspace, size_t workspace_bytes);\n"
               "/* The same with the %d tensors in an array, in that order "
               "(for ctypes). */\nint %s_forward_v(kgrt_stream *stream, "
               "const kgrt_tensor *t, int n,\n    void *workspace, size_t "
               "workspace_bytes);\nint %s_workspace_size(", nmodel, m, m);
    for (int d = 0; d < g->ndims; d++)
        str_printf(&h, "int64_t %s, ", c_ident(B->a, g->dims[d].name));
    str_puts(&h, "size_t *bytes);\n\n");

    /* launchers */
    str_puts(&c, "\n/* ---- launchers ---- */\n");
    for (int ki = 0; ki < p0->nk; ki++) {
        const Kernel *k = p0->k[ki];
        if (k->kind == K_VIEW)
            continue;
        emit_header_doc(B, &h, ki);
        Str params = {0}, list = {0};
        for (int j = 0; j < k->nin + k->nout; j++) {
            const Value *v = j < k->nin ? k->in[j] : k->out[j - k->nin];
            const char *id = c_ident(B->a, value_label(B->a, v));
            for (int q = 0; q < j; q++) {
                const Value *u = q < k->nin ? k->in[q] : k->out[q - k->nin];
                if (!strcmp(c_ident(B->a, value_label(B->a, u)), id))
                    id = arena_printf(B->a, "%s_%d", id, j);
            }
            str_printf(&params, ",\n    const kgrt_tensor *%s", id);
            str_printf(&list, "%s%s", j ? ", " : "", id);
        }
        str_printf(&h, "int %s_%s(kgrt_stream *stream%s);\n\n", m, k->name,
                   params.buf);
        str_printf(&c, "static const kgrt_fused_kernel *const %s_v[] = {", k->name);
        for (int vi = 0; vi < B->nv; vi++)
            str_printf(&c, "&v%d_k%d,", vi, ki);
        str_printf(&c, "};\nint %s_%s(kgrt_stream *stream%s)\n{\n"
                   "    const kgrt_tensor *t[] = { %s };\n"
                   "    return kgrt_fused_launch(%s_v, %d, stream, t, %d);\n}\n",
                   m, k->name, params.buf, list.buf, k->name, B->nv,
                   k->nin + k->nout);
        str_free(&params);
        str_free(&list);
    }
    str_printf(&h, "extern const struct kgrt_fused_model %s_model;\n"
               "#ifndef KGEN_MODEL\n#define KGEN_MODEL (&%s_model)\n"
               "#define KGEN_FORWARD_V %s_forward_v\n#define KGEN_OPEN %s_open\n"
               "#define KGEN_RELEASE %s_release\n#define KGEN_PROVENANCE "
               "%s_provenance\n#endif\n\n#ifdef __cplusplus\n}\n#endif\n\n"
               "#endif\n", m, m, m, m, m, m);

    /* the model's entry points */
    str_printf(&c, "\n/* ---- the model ---- */\nint %s_open(kgrt_device **out)\n"
               "{\n    return kgrt_device_open_default(%s, out);\n}\n"
               "void %s_release(kgrt_device *d)\n{\n    kgrt_fused_release("
               "&%s_model, d);\n}\nconst char *%s_provenance(void)\n{\n    "
               "return %s_model.provenance;\n}\nconst char *%s_last_error(void)"
               "\n{\n    return kgrt_last_error();\n}\n", m,
               B->cuda ? "KGRT_CUDA" : "KGRT_OPENCL", m, m, m, m, m);
    str_printf(&c, "int %s_forward_v(kgrt_stream *stream, const kgrt_tensor "
               "*t, int n,\n    void *workspace, size_t workspace_bytes)\n{\n"
               "    return kgrt_fused_forward(&%s_model, stream, t, n, "
               "workspace,\n                              workspace_bytes);\n}\n",
               m, m);
    str_printf(&c, "int %s_forward(kgrt_stream *stream%s,\n    void "
               "*workspace, size_t workspace_bytes)\n{\n"
               "    const kgrt_tensor *p[] = { %s", m, fparams.buf, fnames.buf);
    str_printf(&c, " };\n    kgrt_tensor t[%d];\n    for (int i = 0; i < %d; "
               "i++) {\n        if (!p[i])\n            return kgrt_set_error("
               "KGRT_EINVAL, \"%s_forward: tensor %%d is NULL\", i);\n"
               "        t[i] = *p[i];\n    }\n    return kgrt_fused_forward("
               "&%s_model, stream, t, %d, workspace,\n"
               "                              workspace_bytes);\n}\n",
               nmodel, nmodel, m, m, nmodel);
    str_printf(&c, "int %s_workspace_size(", m);
    for (int d = 0; d < g->ndims; d++)
        str_printf(&c, "int64_t %s, ", c_ident(B->a, g->dims[d].name));
    str_puts(&c, "size_t *bytes)\n{\n    const int64_t d[] = { ");
    for (int d = 0; d < g->ndims; d++)
        str_printf(&c, "%s%s", d ? ", " : "", c_ident(B->a, g->dims[d].name));
    if (!g->ndims)
        str_puts(&c, "0");
    str_printf(&c, " };\n    (void)d;\n    return kgrt_fused_workspace(&%s_model, "
               "d, bytes);\n}\n", m);

    const char *files[3] = {"fused.c", "fused.h", "provenance.txt"};
    Str *text[3] = {&c, &h, &prov};
    for (int i = 0; i < 3; i++) {
        char *path = arena_printf(B->a, "%s/%s", dir, files[i]);
        FILE *fp = fopen(path, "wb");
        if (!fp || fwrite(text[i]->buf, 1, text[i]->len, fp) != text[i]->len ||
            fclose(fp)) {
            fprintf(stderr, "kgen: error: cannot write %s: %s\n", path,
                    strerror(errno));
            goto out;
        }
    }
    rc = 0;
out:
    str_free(&c);
    str_free(&h);
    str_free(&prov);
    str_free(&fparams);
    str_free(&fnames);
    return rc;
}

/* ---- the library --------------------------------------------------------- */

static int run_cmd(char *const argv[], bool verbose)
{
    if (verbose) {
        fprintf(stderr, "kgen:");
        for (int i = 0; argv[i]; i++)
            fprintf(stderr, " %s", argv[i]);
        fputc('\n', stderr);
    }
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        execvp(argv[0], argv);
        fprintf(stderr, "kgen: error: cannot run %s: %s\n", argv[0],
                strerror(errno));
        _exit(127);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return -1;
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
        return 0;
    fprintf(stderr, "kgen: error: %s failed (%s %d)\n", argv[0],
            WIFEXITED(st) ? "exit" : "signal",
            WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
    return -1;
}

static const char *exe_dir(Arena *a)
{
    char buf[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0)
        return ".";
    buf[n] = '\0';
    char *slash = strrchr(buf, '/');
    if (slash)
        *slash = '\0';
    return arena_strdup(a, buf);
}

static const char *first_file(Arena *a, const char *const *cand, int n)
{
    for (int i = 0; i < n; i++)
        if (cand[i] && access(cand[i], R_OK) == 0)
            return arena_strdup(a, cand[i]);
    return NULL;
}

/* libkgrt.a and the directory holding kgen/kgrt.h: $KGEN_RUNTIME_LIB and
 * $KGEN_INCLUDE, else next to the kgen binary (a build tree), else the
 * install prefix relative to it, else where it was configured to go. */
static int find_runtime(Arena *a, const char **lib, const char **inc)
{
    const char *ed = exe_dir(a), *e;
    const char *libs[] = {
        (e = getenv("KGEN_RUNTIME_LIB")) && *e ? e : NULL,
        arena_printf(a, "%s/libkgrt.a", ed),
        arena_printf(a, "%s/../lib/libkgrt.a", ed),
        arena_printf(a, "%s/../lib64/libkgrt.a", ed),
#ifdef KGEN_LIBDIR
        KGEN_LIBDIR "/libkgrt.a",
#endif
    };
    const char *incs[] = {
        (e = getenv("KGEN_INCLUDE")) && *e ? arena_printf(a, "%s/kgen/kgrt.h", e)
                                          : NULL,
        arena_printf(a, "%s/../include/kgen/kgrt.h", ed),
#ifdef KGEN_SOURCE_DIR
        KGEN_SOURCE_DIR "/include/kgen/kgrt.h",
#endif
#ifdef KGEN_INCLUDEDIR
        KGEN_INCLUDEDIR "/kgen/kgrt.h",
#endif
    };
    *lib = first_file(a, libs, (int)(sizeof libs / sizeof *libs));
    const char *h = first_file(a, incs, (int)(sizeof incs / sizeof *incs));
    if (!*lib || !h) {
        fprintf(stderr, "kgen: error: cannot find the kgrt runtime (%s); set "
                "KGEN_RUNTIME_LIB to libkgrt.a and KGEN_INCLUDE to the "
                "directory holding kgen/kgrt.h\n",
                !*lib ? "libkgrt.a" : "kgen/kgrt.h");
        return -1;
    }
    char *d = arena_strdup(a, h);
    d[strlen(d) - strlen("/kgen/kgrt.h")] = '\0';
    *inc = d;
    return 0;
}

static int copy_file(const char *from, const char *to)
{
    size_t n;
    char *text = read_file(from, 64u << 20, &n);
    if (!text)
        return -1;
    FILE *fp = fopen(to, "wb");
    int rc = fp && fwrite(text, 1, n, fp) == n ? 0 : -1;
    if (fp && fclose(fp))
        rc = -1;
    free(text);
    return rc;
}

static int make_lib(Build *B, const char *dir,
                    const char *rtlib)
{
    Arena *a = B->a;
    const char *cc = getenv("CC");
    if (!cc || !*cc)
        cc = "cc";
    const char *obj = arena_printf(a, "%s/fused.o", dir);
    const char *rtdir = arena_printf(a, "%s/rt", dir);
    char *const compile[] = {(char *)cc, "-std=c11", "-O2", "-fPIC",
        (char *)arena_printf(a, "-I%s", dir), "-c",
        (char *)arena_printf(a, "%s/fused.c", dir), "-o", (char *)obj, NULL};
    if (run_cmd(compile, B->o->verbose))
        return -1;
    /* libfused.a: fused.o and the runtime's objects, so a program links one
     * archive */
    if (mkdir(rtdir, 0777) && errno != EEXIST)
        return -1;
    const char *rtcopy = arena_printf(a, "%s/libkgrt.a", rtdir);
    if (copy_file(rtlib, rtcopy))
        return -1;
    char *const extract[] = {"sh", "-c", (char *)arena_printf(a,
        "cd '%s' && ar x libkgrt.a && rm libkgrt.a && for f in *.o; do "
        "mv \"$f\" \"kgrt_$f\"; done", rtdir), NULL};
    if (run_cmd(extract, B->o->verbose))
        return -1;
    char *const archive[] = {"sh", "-c", (char *)arena_printf(a,
        "ar rcs '%s/libfused.a' '%s' '%s'/*.o", dir, obj, rtdir), NULL};
    if (run_cmd(archive, B->o->verbose))
        return -1;
    char *const shared[] = {(char *)cc, "-shared", "-o",
        (char *)arena_printf(a, "%s/libfused.so", dir), (char *)obj,
        "-Wl,--whole-archive", (char *)rtlib, "-Wl,--no-whole-archive",
#ifdef KGEN_RT_OPENCL
        "-lOpenCL",
#endif
        "-lpthread", "-ldl", NULL};
    if (run_cmd(shared, B->o->verbose))
        return -1;
    char *const clean[] = {"rm", "-rf", (char *)rtdir, (char *)obj, NULL};
    return run_cmd(clean, false);
}

/* Move every file of tmp into out (created if needed). */
static int publish(const char *tmp, const char *out, Arena *a)
{
    DIR *d;
    struct dirent *e;
    if (mkdir(out, 0777) && errno != EEXIST) {
        fprintf(stderr, "kgen: error: cannot create %s: %s\n", out,
                strerror(errno));
        return -1;
    }
    mkdir(arena_printf(a, "%s/kgen", out), 0777);
    const char *sub[] = {"", "/kgen"};
    for (int s = 0; s < 2; s++) {
        const char *from = arena_printf(a, "%s%s", tmp, sub[s]);
        if (!(d = opendir(from)))
            continue;
        while ((e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.' || !strcmp(e->d_name, "kgen"))
                continue;
            const char *src = arena_printf(a, "%s/%s", from, e->d_name);
            const char *dst = arena_printf(a, "%s%s/%s", out, sub[s], e->d_name);
            if (rename(src, dst)) {
                fprintf(stderr, "kgen: error: cannot move %s to %s: %s\n", src,
                        dst, strerror(errno));
                closedir(d);
                return -1;
            }
        }
        closedir(d);
    }
    return 0;
}

/* ---- the command --------------------------------------------------------- */

static bool same_structure(const Plan *a, const Plan *b)
{
    if (a->nk != b->nk)
        return false;
    for (int i = 0; i < a->nk; i++)
        if (strcmp(a->k[i]->name, b->k[i]->name) ||
            a->k[i]->nin != b->k[i]->nin || a->k[i]->nout != b->k[i]->nout)
            return false;
    return true;
}

/* sm_ + at least two digits + an optional a or f suffix. */
static bool cuda_arch_ok(const char *arch)
{
    size_t nd;
    if (strncmp(arch, "sm_", 3))
        return false;
    nd = strspn(arch + 3, "0123456789");
    arch += 3 + nd;
    return nd >= 2 && (!*arch || ((*arch == 'a' || *arch == 'f') && !arch[1]));
}

/* Matches of optional patterns: fused, or unfused where the tuner found the
 * unfused kernels faster (unfuse.c), for every shape variant alike.  An
 * explicit --unfuse has already decided. */
static int choose_unfused(Build *B)
{
    const Options *o = B->o;
    bool optional = false;
    for (int i = 0; i < B->v[0].p->nk; i++)
        optional |= kernel_optional(B->v[0].p->k[i]);
    if (!optional || !B->db || o->unfuse)
        return 0;
    Plan **fused = arena_alloc(B->a, (size_t)B->nv * sizeof *fused);
    Plan **split = arena_alloc(B->a, (size_t)B->nv * sizeof *split);
    for (int vi = 0; vi < B->nv; vi++) {
        Options ov = *o;
        Diag d;
        ov.ov = B->v[vi].ov;
        ov.nov = B->v[vi].nov;
        ov.unfuse = "all";
        diag_init(&d, stderr);
        fused[vi] = B->v[vi].p;
        split[vi] = pipeline_plan(&ov, &d, B->a);
        diag_free(&d);
        if (!split[vi])
            return -1;
    }
    bool *decline = arena_alloc(B->a, (size_t)fused[0]->g->nnodes + 1);
    UnfuseChoice *uc;
    int nuc = unfuse_choose(B->db, B->tc, o, fused, split, B->nv, B->arch,
                            decline, &uc, B->a);
    if (!o->quiet && nuc) {
        printf("optional fusions, by the tuned times:\n");
        unfuse_print(uc, nuc);
    }
    bool any = false;
    for (int i = 0; i < nuc; i++)
        any |= uc[i].unfuse;
    if (!any)
        return 0;
    for (int vi = 0; vi < B->nv; vi++) {
        Options ov = *o;
        Diag d;
        ov.ov = B->v[vi].ov;
        ov.nov = B->v[vi].nov;
        ov.decline = decline;
        diag_init(&d, stderr);
        B->v[vi].p = pipeline_plan(&ov, &d, B->a);
        diag_free(&d);
        if (!B->v[vi].p)
            return -1;
        if (vi && !same_structure(B->v[0].p, B->v[vi].p)) {
            fprintf(stderr, "kgen: error: variant %d plans different kernels "
                    "than variant 0; build those shapes separately\n", vi);
            return -1;
        }
    }
    return 0;
}

int cmd_build(const Options *o)
{
    Arena *a = arena_new();
    Build B = {.o = o, .a = a};
    const char *tmp = NULL, *rtlib = NULL, *inc = NULL;
    char *made = NULL;          /* the outermost parent of -o created here */
    int rc = 2;

    if (!o->arch || !o->out_dir) {
        fprintf(stderr, "kgen: error: build needs --arch sm_XX|opencl and -o "
                "OUTDIR\n");
        goto out;
    }
    B.arch = o->arch;
    B.cuda = strcmp(o->arch, "opencl") != 0;
    if (B.cuda && !cuda_arch_ok(o->arch)) {
        fprintf(stderr, "kgen: error: --arch %s: expected sm_XX or opencl\n",
                o->arch);
        goto out;
    }
    if (B.cuda && !strcmp(kg_nvrtc_version(), "none")) {
        fprintf(stderr, "kgen: error: --arch %s needs NVRTC, and this kgen "
                "was built without CUDA\n", o->arch);
        rc = 3;
        goto out;
    }
    if (find_runtime(a, &rtlib, &inc)) {
        rc = 3;
        goto out;
    }
    if (expand_variants(&B))
        goto out;
    for (int vi = 0; vi < B.nv; vi++) {
        Options ov = *o;
        Diag d;
        ov.ov = B.v[vi].ov;
        ov.nov = B.v[vi].nov;
        diag_init(&d, stderr);
        B.v[vi].p = pipeline_plan(&ov, &d, a);
        diag_free(&d);
        if (!B.v[vi].p)
            goto out;
        if (vi && !same_structure(B.v[0].p, B.v[vi].p)) {
            fprintf(stderr, "kgen: error: variant %d plans different kernels "
                    "than variant 0; build those shapes separately\n", vi);
            goto out;
        }
        Graph *g = B.v[vi].p->g;
        B.v[vi].dims = arena_alloc(a, (size_t)(g->ndims + 1) * sizeof(int64_t));
        for (int d2 = 0; d2 < g->ndims; d2++)
            B.v[vi].dims[d2] = g->dims[d2].value;
        for (int i = 0; i < g->noutputs; i++)
            if (B.v[vi].p->base[g->outputs[i]->id] ||
                g->outputs[i]->kind != V_NODE) {
                fprintf(stderr, "%s: error: output %s is a view or an input; "
                        "kgen build needs outputs a kernel writes (add a "
                        "contiguous() copy)\n", g->file->path,
                        g->outputs[i]->name);
                goto out;
            }
    }
    for (int vi = 1; vi < B.nv; vi++)
        for (int u = 0; u < vi; u++)
            if (!memcmp(B.v[vi].dims, B.v[u].dims,
                        (size_t)B.v[0].p->g->ndims * sizeof(int64_t))) {
                fprintf(stderr, "kgen: error: variants %d and %d have the "
                        "same dims\n", u, vi);
                goto out;
            }

    const char *dbpath = o->db ? o->db : db_default_path(a);
    if (access(dbpath, F_OK) == 0) {
        B.db = db_open(dbpath, false, o->strict_db);
        if (!B.db && o->strict_db) {
            rc = DB_EXIT;
            goto out;
        }
    } else if (o->db) {
        fprintf(stderr, "kgen: error: tuning DB %s: %s\n", o->db,
                strerror(errno));
        goto out;
    }
    B.tc = template_cache_new(a);
    if (choose_unfused(&B))
        goto out;
    for (int vi = 0; vi < B.nv; vi++) {
        Plan *p = B.v[vi].p;
        B.v[vi].bk = arena_alloc(a, (size_t)(p->nk + 1) * sizeof *B.v[vi].bk);
        for (int ki = 0; ki < p->nk; ki++) {
            int r = build_kernel(&B, &B.v[vi], ki);
            if (r) {
                rc = r == -3 ? 3 : 1;
                goto out;
            }
        }
        plan_workspace(&B, &B.v[vi]);
    }

    /* write into a temporary directory beside OUTDIR, then move */
    {
        char *t = arena_printf(a, "%s.kgen-build-XXXXXX", o->out_dir);
        size_t n = strlen(t);
        while (n > 0 && t[n - 1] != 'X')
            n--;
        if (mkdir_parents(o->out_dir, &made, a) || !mkdtemp(t)) {
            fprintf(stderr, "kgen: error: cannot create a directory beside "
                    "%s: %s\n", o->out_dir, strerror(errno));
            rc = 1;
            goto out;
        }
        tmp = t;
    }
    mkdir(arena_printf(a, "%s/kgen", tmp), 0777);
    if (copy_file(arena_printf(a, "%s/kgen/kgrt.h", inc),
                  arena_printf(a, "%s/kgen/kgrt.h", tmp)) ||
        copy_file(arena_printf(a, "%s/kgen/kgrt_fused.h", inc),
                  arena_printf(a, "%s/kgen/kgrt_fused.h", tmp))) {
        fprintf(stderr, "kgen: error: cannot copy the runtime headers from "
                "%s\n", inc);
        rc = 1;
        goto out;
    }
    if (emit_sources(&B, tmp)) {
        rc = 1;
        goto out;
    }
    if (!o->no_lib && make_lib(&B, tmp, rtlib)) {
        rc = 1;
        goto out;
    }
    if (publish(tmp, o->out_dir, a)) {
        rc = 1;
        goto out;
    }
    if (!o->quiet) {
        const Graph *g = B.v[0].p->g;
        int nk = 0;
        for (int ki = 0; ki < B.v[0].p->nk; ki++)
            nk += B.v[0].p->k[ki]->kind != K_VIEW;
        printf("built %s for %s: %d kernels x %d variant%s (%d tuned, %d from "
               "a nearby tuned shape, %d untuned defaults)\n", g->name, B.arch,
               nk, B.nv, B.nv == 1 ? "" : "s", B.ntuned, B.nnear, B.ndefault);
        for (int vi = 0; vi < B.nv; vi++) {
            printf("  variant %d:", vi);
            for (int d2 = 0; d2 < g->ndims; d2++)
                printf(" %s=%lld", g->dims[d2].name,
                       (long long)B.v[vi].dims[d2]);
            printf("  workspace %zu bytes\n", B.v[vi].ws);
        }
        printf("  %s/fused.h, fused.c%s\n", o->out_dir,
               o->no_lib ? "" : ", libfused.a, libfused.so");
    }
    rc = 0;
out:
    if (tmp) {
        char *const rm[] = {"rm", "-rf", (char *)tmp, NULL};
        run_cmd(rm, false);
    }
    if (rc)
        rmdir_made(o->out_dir, made, a);
    for (int vi = 0; vi < B.nv; vi++)
        for (int ki = 0; B.v[vi].bk && ki < B.v[vi].p->nk; ki++) {
            str_free(&B.v[vi].bk[ki].src);
            str_free(&B.v[vi].bk[ki].clopts);
            kg_cubin_free(&B.v[vi].bk[ki].bin);
        }
    template_cache_free(B.tc);
    db_close(B.db);
    arena_free(a);
    return rc;
}

/* ---- reference data for the example program ------------------------------ */

static int put_tensor(FILE *fp, const char *name, int layer, const char *dt,
                      const Tensor *t, const void *bytes, size_t n)
{
    fprintf(fp, "t %s %d %s %d", name, layer, dt, t->rank);
    for (int d = 0; d < t->rank; d++)
        fprintf(fp, " %lld", (long long)t->shape[d]);
    fprintf(fp, " %zu\n", n);
    return fwrite(bytes, 1, n, fp) == n ? 0 : -1;
}

static int put_storage(FILE *fp, const Value *v, int layer, const Tensor *t)
{
    size_t n = (size_t)t->n * (size_t)dtype_size(v->dt);
    void *buf = malloc(n ? n : 1);
    if (!buf)
        return -1;
    to_storage(v->dt, t->data, t->n, buf);
    int rc = put_tensor(fp, v->name, layer, dtype_name(v->dt), t, buf, n);
    free(buf);
    return rc;
}

/* kgen run MODEL --ref --save FILE [--layers L]: the model's inputs and
 * weights as stored on the device (per layer for a stack, where layer l+1
 * reads layer l's first output, rounded to its dtype, as its first input)
 * and the reference outputs of the last layer in double precision. */
int ref_save(const Options *o, const Graph *g)
{
    int L = o->layers > 0 ? o->layers : 1, rc = 1;
    Tensor *given = calloc((size_t)g->ninputs + 1, sizeof *given);
    Tensor *outs = calloc((size_t)g->noutputs + 1, sizeof *outs);
    char *tmp = malloc(strlen(o->save) + 8);
    Str err = {0};
    FILE *fp = NULL;

    if (!given || !outs || !tmp)
        die("out of memory");
    sprintf(tmp, "%s.tmp", o->save);
    if (L > 1) {
        const Value *in = g->ninputs ? g->inputs[0] : NULL;
        const Value *out = g->noutputs ? g->outputs[0] : NULL;
        if (!in || !out || in->kind != V_INPUT || in->dt != out->dt ||
            in->rank != out->rank ||
            memcmp(in->shape, out->shape, sizeof(int64_t) * (size_t)in->rank)) {
            fprintf(stderr, "kgen: error: --layers %d: the first input and the "
                    "first output of %s differ in shape or dtype, so layers "
                    "do not stack\n", L, g->name);
            rc = 2;
            goto out;
        }
    }
    if (!(fp = fopen(tmp, "wb"))) {
        fprintf(stderr, "kgen: error: cannot write %s: %s\n", tmp,
                strerror(errno));
        goto out;
    }
    fprintf(fp, "KGREF 1\nmodel %s layers %d\n", g->name, L);
    for (int l = 0; l < L; l++) {
        for (int i = 0; i < g->ninputs; i++) {
            const Value *v = g->inputs[i];
            if (v->kind == V_INPUT && l > 0)
                continue;      /* shared, or the previous layer's output */
            tensor_free(&given[i]);
            if (interp_random(g, v, o->seed + (v->kind == V_WEIGHT ? (uint64_t)l
                                                                   : 0),
                              &given[i], &err)) {
                fprintf(stderr, "kgen: error: %s\n", err.buf);
                goto out;
            }
            if (put_storage(fp, v, v->kind == V_WEIGHT ? l : -1, &given[i]))
                goto werr;
        }
        for (int i = 0; i < g->noutputs; i++)
            tensor_free(&outs[i]);
        if (interp_run_given(g, NULL, o->seed, given, outs, &err)) {
            fprintf(stderr, "kgen: error: %s\n", err.buf);
            goto out;
        }
        if (l + 1 < L) {
            /* the next layer reads this output as stored on the device */
            Tensor *t = &given[0];
            size_t n = (size_t)outs[0].n * (size_t)dtype_size(g->inputs[0]->dt);
            void *buf = malloc(n ? n : 1);
            if (!buf)
                die("out of memory");
            to_storage(g->inputs[0]->dt, outs[0].data, outs[0].n, buf);
            from_storage(g->inputs[0]->dt, buf, outs[0].n, t->data);
            free(buf);
        }
    }
    for (int i = 0; i < g->noutputs; i++)
        if (put_tensor(fp, g->outputs[i]->name, L - 1, "f64", &outs[i],
                       outs[i].data, (size_t)outs[i].n * sizeof(double)))
            goto werr;
    if (fclose(fp)) {
        fp = NULL;
        goto werr;
    }
    fp = NULL;
    if (rename(tmp, o->save)) {
        fprintf(stderr, "kgen: error: cannot write %s: %s\n", o->save,
                strerror(errno));
        goto out;
    }
    if (!o->quiet)
        printf("saved %s: %d inputs and weights per layer, %d layer%s, %d "
               "reference outputs\n", o->save, g->ninputs, L, L > 1 ? "s" : "",
               g->noutputs);
    rc = 0;
    goto out;
werr:
    fprintf(stderr, "kgen: error: cannot write %s: %s\n", tmp, strerror(errno));
out:
    if (fp)
        fclose(fp);
    if (rc)
        unlink(tmp);
    for (int i = 0; i < g->ninputs; i++)
        tensor_free(&given[i]);
    for (int i = 0; i < g->noutputs; i++)
        tensor_free(&outs[i]);
    free(given);
    free(outs);
    free(tmp);
    str_free(&err);
    return rc;
}

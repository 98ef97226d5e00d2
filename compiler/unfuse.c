/*
 * unfuse.c -- fused or not, for the matches of optional patterns.
 *
 * A pattern file that says `optional` (ln_gemm_gelu) is a fusion that does
 * not always pay: one kernel doing LayerNorm, GEMM and GELU saves the
 * normalised activations' round trip through memory, but its GEMM waits on
 * the normalisation, and a LayerNorm kernel before a plain GEMM can be
 * faster.  `kgen tune` therefore times both plans, the one that fuses every
 * match and the one that leaves every optional match unfused, and the
 * choice is made here, match by match, from the cached winners:
 *
 *   fused  = the fused kernel's time
 *   split  = the summed times of the unfused plan's kernels that hold a
 *            node of the match
 *
 * summed over the shape variants of a build.  Where the unfused plan's
 * kernels also take nodes the fused plan gives to other kernels (the
 * unfused gate of gated_tanh_residual joins the condition's 1x1 conv in
 * conv1x1_residual_gate), both sides grow until they cover the same
 * nodes: the fused side takes every kernel of its plan that holds a node
 * of a split-side kernel, and the other way round, so that each side's
 * time is that of the same work.  The split wins only when it
 * is faster and every kernel of both sides has a winner for the exact
 * shape; anything untuned keeps the fusion.  `kgen build` calls the same
 * function, so it builds the plan the tuner reported.
 */
#include "unfuse.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

double kernel_tuned_ms(KgDb *db, TemplateCache *tc, const Options *o,
                       const Plan *p, const Kernel *k, const char *arch,
                       Arena *a)
{
    if (k->kind == K_VIEW)
        return 0;
    if (!db)
        return NAN;
    Str err = {0};
    Template *t = template_get(tc, templates_dir(o), k->template_name, &err, a);
    str_free(&err);
    if (!t)
        return NAN;
    const char *op, *shape, *dtype;
    kernel_key(p, k, &op, &shape, &dtype, a);
    char thash[32];
    snprintf(thash, sizeof thash, "%016llx",
             (unsigned long long)template_hash(t));
    DbWinner *w = NULL;
    int n = db_winners(db, op, shape, dtype, arch, thash, &w, a);
    return n > 0 && w[0].median_ms > 0 ? w[0].median_ms : NAN;
}

/* Do kernels k and l share a node? */
static bool shares(const Kernel *k, const Kernel *l)
{
    for (int i = 0; i < k->nnodes; i++)
        for (int j = 0; j < l->nnodes; j++)
            if (k->nodes[i]->id == l->nodes[j]->id)
                return true;
    return false;
}

/* Grow the kernel sets inf (of plan f) and ins (of plan s) until every
 * kernel of either plan that shares a node with one of the other side's
 * is in: both then cover the same nodes.  inf starts with the fused
 * kernel alone. */
static void cover(const Plan *f, const Plan *s, bool *inf, bool *ins)
{
    for (bool grew = true; grew;) {
        grew = false;
        for (int j = 0; j < s->nk; j++)
            for (int i = 0; i < f->nk && !ins[j]; i++)
                if (inf[i] && shares(f->k[i], s->k[j]))
                    ins[j] = grew = true;
        for (int i = 0; i < f->nk; i++)
            for (int j = 0; j < s->nk && !inf[i]; j++)
                if (ins[j] && shares(f->k[i], s->k[j]))
                    inf[i] = grew = true;
    }
}

/* The summed tuned times of the kernels of p marked in in (NAN if one is
 * untuned); their names, " + "-joined, to names when given. */
static double sum_ms(KgDb *db, TemplateCache *tc, const Options *o,
                     const Plan *p, const bool *in, const char *arch,
                     Str *names, Arena *a)
{
    double ms = 0;
    for (int j = 0; j < p->nk; j++) {
        if (!in[j])
            continue;
        ms += kernel_tuned_ms(db, tc, o, p, p->k[j], arch, a);
        if (names && p->k[j]->kind != K_VIEW)
            str_printf(names, "%s%s", names->len ? " + " : "", p->k[j]->name);
    }
    return ms;
}

int unfuse_choose(KgDb *db, TemplateCache *tc, const Options *o,
                  Plan *const *fused, Plan *const *split, int nv,
                  const char *arch, bool *decline, UnfuseChoice **out,
                  Arena *a)
{
    const Plan *p0 = fused[0];
    int n = 0;
    for (int i = 0; i < p0->nk; i++)
        n += kernel_optional(p0->k[i]);
    UnfuseChoice *c = arena_alloc(a, (size_t)(n + 1) * sizeof *c);
    n = 0;
    for (int i = 0; i < p0->nk; i++) {
        const Kernel *k0 = p0->k[i];
        if (!kernel_optional(k0))
            continue;
        UnfuseChoice *u = &c[n++];
        u->kernel = k0->name;
        u->root = k0->match->root;
        u->fused_ms = u->split_ms = 0;
        Str parts = {0}, fparts = {0};
        for (int v = 0; v < nv; v++) {
            /* the same kernel in variant v: same structure, same index */
            if (i >= fused[v]->nk || !kernel_optional(fused[v]->k[i])) {
                u->fused_ms = NAN;
                continue;
            }
            const Plan *f = fused[v], *s = split[v];
            bool *inf = arena_alloc(a, (size_t)f->nk * sizeof *inf);
            bool *ins = arena_alloc(a, (size_t)(s->nk + 1) * sizeof *ins);
            inf[i] = true;
            cover(f, s, inf, ins);
            u->fused_ms += sum_ms(db, tc, o, f, inf, arch, v ? NULL : &fparts, a);
            u->split_ms += sum_ms(db, tc, o, s, ins, arch, v ? NULL : &parts, a);
        }
        u->parts = arena_strdup(a, parts.buf ? parts.buf : "");
        /* the fused side's other kernels, if the cover took any */
        u->fparts = strchr(fparts.buf ? fparts.buf : "", '+') ?
                    arena_strdup(a, fparts.buf) : NULL;
        str_free(&parts);
        str_free(&fparts);
        u->unfuse = u->split_ms < u->fused_ms;   /* false when either is NAN */
        if (u->unfuse)
            decline[u->root] = true;
    }
    *out = c;
    return n;
}

void unfuse_print(const UnfuseChoice *c, int n)
{
    for (int i = 0; i < n; i++) {
        const UnfuseChoice *u = &c[i];
        char f[32] = "untuned", s[32] = "untuned";
        if (!isnan(u->fused_ms))
            snprintf(f, sizeof f, "%.4f ms", u->fused_ms);
        if (!isnan(u->split_ms))
            snprintf(s, sizeof s, "%.4f ms", u->split_ms);
        printf("%-28s %s: fused %s%s%s%s, unfused (%s) %s\n", u->kernel,
               u->unfuse ? "unfused" : "fused", u->fparts ? "(" : "",
               u->fparts ? u->fparts : "", u->fparts ? ") " : "", f,
               u->parts, s);
    }
}

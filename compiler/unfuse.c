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
 * summed over the shape variants of a build.  The split wins only when it
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

/* Does kernel k hold a node of match m? */
static bool holds(const Kernel *k, const Match *m)
{
    for (int i = 0; i < k->nnodes; i++)
        for (int j = 0; j < m->pat->g->nnodes; j++)
            if (k->nodes[i]->id == m->node[j]->id)
                return true;
    return false;
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
        Str parts = {0};
        for (int v = 0; v < nv; v++) {
            /* the same kernel in variant v: same structure, same index */
            if (i >= fused[v]->nk || !kernel_optional(fused[v]->k[i])) {
                u->fused_ms = NAN;
                continue;
            }
            const Kernel *kv = fused[v]->k[i];
            u->fused_ms += kernel_tuned_ms(db, tc, o, fused[v], kv, arch, a);
            for (int j = 0; j < split[v]->nk; j++) {
                const Kernel *ks = split[v]->k[j];
                if (!holds(ks, kv->match))
                    continue;
                u->split_ms += kernel_tuned_ms(db, tc, o, split[v], ks, arch, a);
                if (v == 0 && ks->kind != K_VIEW)
                    str_printf(&parts, "%s%s", parts.len ? " + " : "", ks->name);
            }
        }
        u->parts = arena_strdup(a, parts.buf ? parts.buf : "");
        str_free(&parts);
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
        printf("%-28s %s: fused %s, unfused (%s) %s\n", u->kernel,
               u->unfuse ? "unfused" : "fused", f, u->parts, s);
    }
}

/*
 * unfuse.h -- fused or not: the choice for each match of an optional
 * pattern (unfuse.c), made by `kgen tune` after it has timed both plans and
 * by `kgen build` from the same cached winners.
 */
#ifndef KGEN_UNFUSE_H
#define KGEN_UNFUSE_H

#include "cache.h"
#include "kgen.h"

typedef struct UnfuseChoice {
    const char *kernel;        /* the fused kernel, as the fused plan names it */
    const char *parts;         /* the kernels that replace it, " + "-joined */
    const char *fparts;        /* NULL, or the fused side's kernels where
                                  it takes more than the fused kernel (the
                                  split side's kernels hold their nodes too) */
    double fused_ms, split_ms; /* cached winners' times; NAN: not all tuned */
    int root;                  /* the match's root node id */
    bool unfuse;               /* split_ms < fused_ms, both known */
} UnfuseChoice;

/* The cached winner's time of kernel k of p for arch, measured with the
 * template's current source, at exactly k's shape: 0 for a view, NAN when
 * none is cached. */
double kernel_tuned_ms(KgDb *db, TemplateCache *tc, const Options *o,
                       const Plan *p, const Kernel *k, const char *arch,
                       Arena *a);

/* Compare, for each fused kernel of an optional pattern in fused[0], its
 * time summed over the nv shape variants fused[v] with the summed time of
 * the kernels of split[v] (every optional match unfused) that hold its
 * nodes, both sides grown until they cover the same nodes (unfuse.c).
 * Sets decline[root] (by node id, nnodes + 1 entries) where the split is
 * faster and every time involved is known.  The choices go to *out (in
 * a); returns their count. */
int unfuse_choose(KgDb *db, TemplateCache *tc, const Options *o,
                  Plan *const *fused, Plan *const *split, int nv,
                  const char *arch, bool *decline, UnfuseChoice **out,
                  Arena *a);

/* Print the choices (a line each) to stdout. */
void unfuse_print(const UnfuseChoice *c, int n);

#endif

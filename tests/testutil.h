/*
 * testutil.h -- helpers shared by the cmocka tests: build graphs and plans
 * from .pat text held in the test, with diagnostics captured in a buffer.
 */
#ifndef KGEN_TESTUTIL_H
#define KGEN_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "kgen.h"

typedef struct TestCtx {
    Arena *a;
    Diag d;
    SrcFile f;
} TestCtx;

static inline void ctx_init(TestCtx *c)
{
    c->a = arena_new();
    diag_init(&c->d, NULL);
}

static inline void ctx_free(TestCtx *c)
{
    diag_free(&c->d);
    arena_free(c->a);
}

/* Parse and check text as "t.pat"; NULL on error (message in c->d.buf). */
static inline Graph *graph_of(TestCtx *c, const char *text, Override *ov, int nov)
{
    c->f = (SrcFile){"t.pat", text, strlen(text)};
    Ast *ast = parse(&c->f, &c->d, c->a);
    if (c->d.nerrors)
        return NULL;
    return sema(ast, ov, nov, &c->d, c->a);
}

static inline const char *patterns_path(void)
{
    static char buf[4096];
    const char *src = getenv("KGEN_SOURCE_DIR");
    snprintf(buf, sizeof buf, "%s/patterns", src ? src : ".");
    return buf;
}

static inline Plan *plan_of(TestCtx *c, const char *text)
{
    Graph *g = graph_of(c, text, NULL, 0);
    if (!g)
        return NULL;
    PatternSet *ps = patterns_load(patterns_path(), &c->d, c->a);
    if (!ps)
        return NULL;
    return plan_build(g, ps, NULL, c->a);
}

/* A file of the source tree, read whole (caller frees). */
static inline char *slurp(const char *rel)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", getenv("KGEN_SOURCE_DIR"), rel);
    size_t n;
    char *s = read_file(path, 1 << 24, &n);
    if (!s)
        fail_msg("cannot read %s", path);
    return s;
}

/* The message buffer must contain s. */
#define assert_diag(c, s)                                                     \
    do {                                                                      \
        const char *buf_ = (c)->d.buf.buf ? (c)->d.buf.buf : "";              \
        if (!strstr(buf_, (s)))                                               \
            fail_msg("expected diagnostic containing \"%s\", got:\n%s", (s),  \
                     buf_);                                                   \
    } while (0)

static inline Value *find_value(Graph *g, const char *label, Arena *a)
{
    for (int i = 0; i < g->nvalues; i++)
        if (g->values[i]->name && !strcmp(value_label(a, g->values[i]), label))
            return g->values[i];
    return NULL;
}

static inline void assert_shape(const Value *v, int rank, ...)
{
    assert_non_null(v);
    assert_int_equal(v->rank, rank);
    va_list ap;
    va_start(ap, rank);
    for (int i = 0; i < rank; i++)
        assert_int_equal(v->shape[i], va_arg(ap, long long));
    va_end(ap);
}

#endif

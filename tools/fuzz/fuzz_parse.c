/*
 * fuzz_parse.c -- libFuzzer harness for the parser, the semantic checker,
 * the matcher and the planner.
 *
 * A fuzzed model is matched against the shipped patterns and planned; a
 * fuzzed pattern file is matched against the example models, so the
 * matcher meets patterns nobody wrote on purpose.
 * Each input is a .pat file named "fuzz.pat".  The invariant (RELIABILITY.md
 * A13) is that kgen either accepts the file or explains why with at least
 * one located diagnostic ("fuzz.pat:LINE[:COL]: error: ..."); crashes,
 * sanitizer reports, leaks, hangs (-timeout) and memory blow-ups (-rss_limit_mb)
 * are caught by libFuzzer itself.  A violated invariant aborts, so libFuzzer
 * saves the input as a crash-* artifact.
 *
 * Build and run: see tools/fuzz/CMakeLists.txt and scripts/test.sh.
 */
#include "kgen.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Does text hold "fuzz.pat:" DIGITS [":" DIGITS] ": error: "? */
static bool has_located_error(const char *text)
{
    static const char file[] = "fuzz.pat:";
    for (const char *p = text ? strstr(text, file) : NULL; p;
         p = strstr(p + 1, file)) {
        const char *q = p + sizeof file - 1;
        if (*q < '0' || *q > '9')
            continue;
        while (*q >= '0' && *q <= '9')
            q++;
        if (q[0] == ':' && q[1] >= '0' && q[1] <= '9') {
            q++;
            while (*q >= '0' && *q <= '9')
                q++;
        }
        if (strncmp(q, ": error: ", 9) == 0)
            return true;
    }
    return false;
}

/* The shipped patterns and the example models, loaded once.  They live for
 * the whole process (a deliberate, bounded leak of the fixture). */
static Arena *fixture;
static PatternSet *patterns;
static Graph *examples[8];
static int nexamples;

static void load_fixture(void)
{
    if (fixture)
        return;
    fixture = arena_new();
    const char *src = getenv("KGEN_SOURCE_DIR");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/patterns", src ? src : ".");
    Diag d;
    diag_init(&d, NULL);
    patterns = patterns_load(dir, &d, fixture);
    static const char *files[] = {"wavenet_layer", "lynxnet2_block",
                                  "convnext_block", "encoder_layer"};
    for (int i = 0; i < 4; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/examples/%s.pat", src ? src : ".",
                 files[i]);
        size_t n;
        char *text = read_file(path, 1 << 20, &n);
        if (!text)
            continue;
        SrcFile *f = arena_alloc(fixture, sizeof *f);
        f->path = arena_strdup(fixture, path);
        f->text = arena_strndup(fixture, text, n);
        f->len = n;
        free(text);
        Ast *ast = parse(f, &d, fixture);
        Graph *g = d.nerrors ? NULL : sema(ast, NULL, 0, &d, fixture);
        if (g)
            examples[nexamples++] = g;
    }
    diag_free(&d);
}

/* Match and plan: a model against the patterns, a pattern against the
 * examples (each plan_build resets the nodes' kernel marks). */
static void match_and_plan(Graph *g, Arena *a)
{
    load_fixture();
    if (!g->is_pattern) {
        plan_build(g, patterns, NULL, a);
        return;
    }
    Pattern pat = {.g = g, .path = "fuzz.pat", .variant = "fuzz",
                   .priority = g->nnodes};
    Pattern *pp = &pat;
    PatternSet one = {.p = &pp, .n = 1};
    /* a pattern the loader would refuse is not matched */
    if (g->noutputs == 0 || g->outputs[0]->kind != V_NODE ||
        g->nnodes > KG_MAX_PATTERN_OPS)
        return;
    for (int i = 0; i < g->ninputs; i++)
        if (!g->inputs[i]->nuses)
            return;
    for (int i = 0; i < nexamples; i++)
        plan_build(examples[i], &one, NULL, a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > (1u << 20))
        return -1;             /* not added to the corpus */

    char *buf = malloc(size + 1);
    if (!buf)
        return 0;
    if (size)
        memcpy(buf, data, size);
    buf[size] = '\0';

    SrcFile f = { "fuzz.pat", buf, size };
    Diag d;
    diag_init(&d, NULL);       /* NULL fp: diagnostics only into d.buf */
    Arena *a = arena_new();

    Ast *ast = parse(&f, &d, a);
    if (d.nerrors == 0) {
        Graph *g = sema(ast, NULL, 0, &d, a);
        if (!g && d.nerrors == 0)
            abort();           /* sema failed without saying why */
        if (g)
            match_and_plan(g, a);
    }
    if (d.nerrors > 0 && !has_located_error(d.buf.buf))
        abort();               /* an error without a location */

    diag_free(&d);
    arena_free(a);
    free(buf);
    return 0;
}

/*
 * fuzz_parse.c -- libFuzzer harness for the parser and the semantic checker.
 *
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
    }
    if (d.nerrors > 0 && !has_located_error(d.buf.buf))
        abort();               /* an error without a location */

    diag_free(&d);
    arena_free(a);
    free(buf);
    return 0;
}

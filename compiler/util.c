/*
 * util.c -- the arena every compiler stage allocates from, growable strings,
 * whole-file reads and die().
 *
 * The arena hands out zeroed memory from large blocks and frees it all at
 * once.  With KGEN_ARENA_MALLOC set in the environment every allocation is a
 * separate malloc, so ASan and valgrind see each object on its own.
 */
#include "kgen.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct Block {
    struct Block *next;
    size_t used, size;
    max_align_t data[];
} Block;

struct Arena {
    Block *head;
    bool each_malloc;          /* KGEN_ARENA_MALLOC: one block per object */
};

Arena *arena_new(void)
{
    Arena *a = calloc(1, sizeof *a);
    if (!a)
        die("out of memory");
    a->each_malloc = getenv("KGEN_ARENA_MALLOC") != NULL;
    return a;
}

void arena_free(Arena *a)
{
    if (!a)
        return;
    for (Block *b = a->head, *next; b; b = next) {
        next = b->next;
        free(b);
    }
    free(a);
}

void *arena_alloc(Arena *a, size_t n)
{
    size_t align = sizeof(max_align_t);
    n = (n + align - 1) / align * align;
    if (n == 0)
        n = align;
    Block *b = a->head;
    if (a->each_malloc || !b || b->size - b->used < n) {
        size_t size = a->each_malloc ? n : (n > 60000 ? n : 64000);
        b = malloc(sizeof *b + size);
        if (!b)
            die("out of memory (%zu bytes)", n);
        b->size = size;
        b->used = 0;
        b->next = a->head;
        a->head = b;
    }
    void *p = (char *)b->data + b->used;
    b->used += n;
    memset(p, 0, n);
    return p;
}

char *arena_strndup(Arena *a, const char *s, size_t n)
{
    char *p = arena_alloc(a, n + 1);
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

char *arena_strdup(Arena *a, const char *s)
{
    return arena_strndup(a, s, strlen(s));
}

char *arena_printf(Arena *a, const char *fmt, ...)
{
    va_list ap, aq;
    va_start(ap, fmt);
    va_copy(aq, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        die("bad format");
    char *p = arena_alloc(a, (size_t)n + 1);
    vsnprintf(p, (size_t)n + 1, fmt, aq);
    va_end(aq);
    return p;
}

void *arena_grow(Arena *a, void *p, int *cap, int n, size_t elem)
{
    if (n <= *cap)
        return p;
    int ncap = *cap ? *cap : 4;
    while (ncap < n) {
        if (ncap > INT32_MAX / 2)
            die("array too large");
        ncap *= 2;
    }
    void *q = arena_alloc(a, (size_t)ncap * elem);
    if (p)
        memcpy(q, p, (size_t)*cap * elem);
    *cap = ncap;
    return q;
}

/* room for n more characters and the NUL */
static void str_reserve(Str *s, size_t n)
{
    if (s->len + n + 1 <= s->cap)
        return;
    size_t cap = s->cap ? s->cap : 256;
    while (cap < s->len + n + 1)
        cap *= 2;
    char *p = realloc(s->buf, cap);
    if (!p)
        die("out of memory");
    s->buf = p;
    s->cap = cap;
}

void str_vprintf(Str *s, const char *fmt, va_list ap)
{
    va_list aq;
    va_copy(aq, ap);
    int n = vsnprintf(NULL, 0, fmt, aq);
    va_end(aq);
    if (n < 0)
        die("bad format");
    str_reserve(s, (size_t)n);
    vsnprintf(s->buf + s->len, (size_t)n + 1, fmt, ap);
    s->len += (size_t)n;
}

void str_printf(Str *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    str_vprintf(s, fmt, ap);
    va_end(ap);
}

/* The lexer builds string literals a character at a time: no vsnprintf
 * per character (a 10 MiB literal took 0.4 s that way). */
void str_putc(Str *s, char c)
{
    str_reserve(s, 1);
    s->buf[s->len++] = c;
    s->buf[s->len] = '\0';
}

void str_puts(Str *s, const char *t)
{
    t = t ? t : "";
    str_putn(s, t, strlen(t));
}

/* at most n characters of t, up to its NUL (as "%.*s") */
void str_putn(Str *s, const char *t, size_t n)
{
    const char *z = memchr(t, '\0', n);
    if (z)
        n = (size_t)(z - t);
    str_reserve(s, n);
    memcpy(s->buf + s->len, t, n);
    s->len += n;
    s->buf[s->len] = '\0';
}

void str_free(Str *s)
{
    free(s->buf);
    s->buf = NULL;
    s->len = s->cap = 0;
}

_Noreturn void die_at(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s:%d: kgen internal error: ", file, line);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    abort();
}

char *read_file(const char *path, size_t max, size_t *size)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    struct stat st;
    if (fstat(fileno(fp), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(fp);
        errno = EISDIR;
        return NULL;
    }
    if (fstat(fileno(fp), &st) == 0 && S_ISREG(st.st_mode) &&
        (uint64_t)st.st_size > max) {
        *size = (size_t)st.st_size;
        fclose(fp);
        errno = EFBIG;
        return NULL;
    }
    /* Read in chunks: pipes and /dev files report no size. */
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    if (!buf)
        die("out of memory");
    for (;;) {
        if (len + 1 >= cap) {
            cap *= 2;
            char *p = realloc(buf, cap);
            if (!p)
                die("out of memory");
            buf = p;
        }
        size_t n = fread(buf + len, 1, cap - len - 1, fp);
        len += n;
        if (len > max) {
            *size = len;
            free(buf);
            fclose(fp);
            errno = EFBIG;
            return NULL;
        }
        if (n == 0)
            break;
    }
    int err = ferror(fp);
    fclose(fp);
    if (err) {
        free(buf);
        errno = EIO;
        return NULL;
    }
    buf[len] = 0;
    *size = len;
    return buf;
}

uint64_t hash64(const void *p, size_t n, uint64_t seed)
{
    const unsigned char *s = p;
    uint64_t h = 0xcbf29ce484222325ull ^ seed;
    for (size_t i = 0; i < n; i++) {
        h ^= s[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

/* A JSON string: quotes, backslashes and control bytes escaped; valid UTF-8
 * passes through; a byte that is not valid UTF-8 becomes U+FFFD, so the
 * output is valid JSON whatever the input (paths, driver strings). */
void json_write_str(FILE *fp, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    fputc('"', fp);
    while (*p) {
        unsigned c = *p;
        if (c == '"' || c == '\\') {
            fprintf(fp, "\\%c", c);
            p++;
        } else if (c < 0x20 || c == 0x7f) {
            fprintf(fp, "\\u%04x", c);
            p++;
        } else if (c < 0x80) {
            fputc((int)c, fp);
            p++;
        } else {
            int n = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c <= 0xDF ? 2 : 0;
            int k = 1;
            while (n && k < n && (p[k] & 0xC0) == 0x80)
                k++;
            if (n && k == n) {
                fwrite(p, 1, (size_t)n, fp);
                p += n;
            } else {
                fputs("\\ufffd", fp);
                p++;
            }
        }
    }
    fputc('"', fp);
}

/* Create the missing directories above path, outermost first, as `mkdir
   -p` would for its parent.  *made is the outermost one created (NULL when
   none was), for rmdir_made to take back after a failure. */
int mkdir_parents(const char *path, char **made, Arena *a)
{
    *made = NULL;
    char *p = arena_strdup(a, path);
    char *end = strrchr(p, '/');
    if (!end || end == p)
        return 0;
    *end = 0;
    for (char *s = p + 1;; s++) {
        if (*s && *s != '/')
            continue;
        char c = *s;
        *s = 0;
        struct stat st;
        if (stat(p, &st) != 0) {
            if (mkdir(p, 0777) != 0 && errno != EEXIST)
                return -1;
            if (!*made)
                *made = arena_strdup(a, p);
        } else if (!S_ISDIR(st.st_mode)) {
            errno = ENOTDIR;
            return -1;
        }
        *s = c;
        if (!c)
            return 0;
    }
}

/* Remove the directories mkdir_parents made for path, innermost first;
   only empty ones go. */
void rmdir_made(const char *path, const char *made, Arena *a)
{
    if (!made)
        return;
    char *p = arena_strdup(a, path);
    size_t n = strlen(made);
    for (char *end; (end = strrchr(p, '/')) && end > p;) {
        *end = 0;
        if (strlen(p) < n)
            break;
        rmdir(p);
    }
}

/*
 * diag.c -- diagnostics for the user's input.
 *
 * Every message has the form "file:line:col: error: text", then the source
 * line and a caret under the column (chibicc's verror_at).  Raw bytes are
 * escaped so a message never carries invalid UTF-8 or control characters to
 * the terminal.  After max_errors errors the Diag is `stopped` and callers
 * unwind; everything printed is also kept in `buf` for tests.
 */
#include "kgen.h"

#include <string.h>

void diag_init(Diag *d, FILE *fp)
{
    memset(d, 0, sizeof *d);
    d->fp = fp;
    d->max_errors = KG_MAX_ERRORS;
}

void diag_free(Diag *d)
{
    str_free(&d->buf);
}

static void emit(Diag *d, const char *text, size_t n)
{
    if (d->fp)
        fwrite(text, 1, n, d->fp);
}

/* Append an escaped copy of s[0..n) to out. */
static void escape_into(Str *out, const char *s, size_t n, size_t max)
{
    for (size_t i = 0; i < n; i++) {
        if (i == max) {
            str_printf(out, "...");
            break;
        }
        unsigned char c = (unsigned char)s[i];
        if (c == '\t')
            str_putc(out, ' ');
        else if (c >= 0x20 && c < 0x7f)
            str_putc(out, (char)c);
        else
            str_printf(out, "\\x%02X", c);
    }
}

char *diag_escape(Arena *a, const char *s, size_t n, size_t max)
{
    Str t = {0};
    escape_into(&t, s, n, max);
    char *r = arena_strndup(a, t.buf ? t.buf : "", t.len);
    str_free(&t);
    return r;
}

/* The source line of loc, with a caret under the column.  Long lines are
 * shown as a window around the column. */
static void show_line(Str *out, Loc loc)
{
    const char *text = loc.file->text;
    size_t len = loc.file->len;
    size_t off = loc.off <= len ? loc.off : len;
    size_t start = off, end = off;
    while (start > 0 && text[start - 1] != '\n' && text[start - 1] != '\r')
        start--;
    while (end < len && text[end] != '\n' && text[end] != '\r')
        end++;
    if (start == 0 && len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3)) {
        start = 3;             /* the BOM is not part of line 1 */
        if (off < start)
            off = start;
        if (end < start)
            end = start;
    }
    size_t from = start, to = end;
    if (off - from > 60)
        from = off - 40;
    if (to - off > 80)
        to = off + 60;
    Str line = {0};
    if (from > start)
        str_printf(&line, "...");
    size_t caret = line.len;
    escape_into(&line, text + from, off - from, SIZE_MAX);
    caret = line.len;
    escape_into(&line, text + off, to - off, SIZE_MAX);
    if (to < end)
        str_printf(&line, "...");
    str_printf(out, "  %s\n  %*s^\n", line.buf ? line.buf : "", (int)caret, "");
    str_free(&line);
}

void diag_verror(Diag *d, const char *kind, Loc loc, const char *fmt,
                 va_list ap)
{
    bool is_error = strcmp(kind, "error") == 0;
    if (d->stopped)
        return;
    if (is_error && d->nerrors >= d->max_errors) {
        d->stopped = true;
        const char *msg = "kgen: too many errors; stopping\n";
        str_printf(&d->buf, "%s", msg);
        emit(d, msg, strlen(msg));
        return;
    }
    size_t start = d->buf.len;
    if (loc.file)
        str_printf(&d->buf, "%s:%d:%d: %s: ", loc.file->path, loc.line,
                   loc.col, kind);
    else
        str_printf(&d->buf, "kgen: %s: ", kind);
    str_vprintf(&d->buf, fmt, ap);
    str_putc(&d->buf, '\n');
    if (loc.file && loc.line > 0)
        show_line(&d->buf, loc);
    emit(d, d->buf.buf + start, d->buf.len - start);
    if (is_error)
        d->nerrors++;
    else if (strcmp(kind, "warning") == 0)
        d->nwarnings++;
}

void diag_error(Diag *d, Loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_verror(d, "error", loc, fmt, ap);
    va_end(ap);
}

void diag_warning(Diag *d, Loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_verror(d, "warning", loc, fmt, ap);
    va_end(ap);
}

void diag_note(Diag *d, Loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_verror(d, "note", loc, fmt, ap);
    va_end(ap);
}

void diag_file_error(Diag *d, const char *path, const char *fmt, ...)
{
    if (d->stopped)
        return;
    size_t start = d->buf.len;
    va_list ap;
    va_start(ap, fmt);
    str_printf(&d->buf, "%s: error: ", path);
    str_vprintf(&d->buf, fmt, ap);
    str_putc(&d->buf, '\n');
    va_end(ap);
    emit(d, d->buf.buf + start, d->buf.len - start);
    d->nerrors++;
}

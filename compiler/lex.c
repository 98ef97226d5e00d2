/*
 * lex.c -- the first stage: bytes to tokens.
 *
 * Invariants: every byte of the file is either part of a token, whitespace,
 * a comment or reported; the token array always ends with T_EOF; newlines
 * inside ( ) or [ ] are not tokens, so expressions may wrap.  The input is
 * validated as UTF-8 everywhere (comments too), NUL is refused, and LF, CRLF
 * and CR all end a line, so line numbers agree with any editor.
 */
#include "kgen.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>


static Loc loc_at(Lexer *L, size_t off)
{
    return (Loc){L->f, L->line, (int)(off - L->line_start) + 1, (uint32_t)off};
}

/* Hand a token to lexer_next (one token per scan step). */
static void push(Lexer *L, Token t)
{
    L->tok = t;
    L->have = true;
    L->last = t.kind;
    L->any = true;
}

/* Length of a valid UTF-8 sequence at s (non-ASCII lead), or 0 if invalid:
 * overlong forms, surrogates and code points past U+10FFFF are invalid. */
static int utf8_len(const unsigned char *s, size_t avail)
{
    unsigned c = s[0];
    int n;
    unsigned min;
    if (c >= 0xC2 && c <= 0xDF) n = 2, min = 0x80;
    else if (c >= 0xE0 && c <= 0xEF) n = 3, min = 0x800;
    else if (c >= 0xF0 && c <= 0xF4) n = 4, min = 0x10000;
    else return 0;
    if ((size_t)n > avail)
        return 0;
    unsigned cp = c & (0x7F >> n);
    for (int i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return n;
}

/* Bytes taken by a bad sequence at s: the byte and the continuation bytes
 * after it, so a mangled character is one error, not several. */
static int bad_len(const unsigned char *s, size_t avail)
{
    size_t n = 1;
    while (n < avail && n < 4 && (s[n] & 0xC0) == 0x80)
        n++;
    return (int)n;
}

static void newline(Lexer *L, size_t next)
{
    L->line++;
    L->line_start = next;
}

/* Skip a comment up to (not including) the line end, validating it. */
static void skip_comment(Lexer *L)
{
    const unsigned char *s = (const unsigned char *)L->f->text;
    size_t len = L->f->len;
    while (L->pos < len && s[L->pos] != '\n' && s[L->pos] != '\r') {
        unsigned char c = s[L->pos];
        if (c == 0) {
            diag_error(L->d, loc_at(L, L->pos), "NUL byte in input");
            L->pos++;
        } else if (c < 0x80) {
            L->pos++;
        } else {
            int n = utf8_len(s + L->pos, len - L->pos);
            if (!n) {
                diag_error(L->d, loc_at(L, L->pos), "invalid UTF-8 byte 0x%02X",
                           c);
                n = bad_len(s + L->pos, len - L->pos);
            }
            L->pos += (size_t)n;
        }
    }
}

static void lex_number(Lexer *L)
{
    const char *s = L->f->text;
    size_t len = L->f->len, start = L->pos, p = L->pos;
    bool is_int = true;
    while (p < len && isdigit((unsigned char)s[p]))
        p++;
    if (p < len && s[p] == '.') {
        is_int = false;
        p++;
        while (p < len && isdigit((unsigned char)s[p]))
            p++;
    }
    if (p < len && (s[p] == 'e' || s[p] == 'E')) {
        size_t q = p + 1;
        if (q < len && (s[q] == '+' || s[q] == '-'))
            q++;
        if (q < len && isdigit((unsigned char)s[q])) {
            is_int = false;
            p = q;
            while (p < len && isdigit((unsigned char)s[p]))
                p++;
        }
    }
    Token t = {.kind = T_NUM, .loc = loc_at(L, start), .s = s + start,
               .len = (int)(p - start), .is_int = is_int};
    if (p < len && (isalpha((unsigned char)s[p]) || s[p] == '_')) {
        size_t q = p;
        while (q < len && (isalnum((unsigned char)s[q]) || s[q] == '_'))
            q++;
        diag_error(L->d, t.loc, "malformed number '%s'",
                   diag_escape(L->a, s + start, q - start, 40));
        p = q;
    } else if (p - start > 400) {
        diag_error(L->d, t.loc, "number is %zu characters long, limit 400",
                   p - start);
    } else {
        char buf[512];
        memcpy(buf, s + start, p - start);
        buf[p - start] = 0;
        errno = 0;
        t.num = strtod(buf, NULL);
        if (is_int) {
            errno = 0;
            unsigned long long v = strtoull(buf, NULL, 10);
            if (errno == ERANGE || v > (unsigned long long)INT64_MAX)
                t.overflow = true;
            else
                t.ival = (int64_t)v;
        }
    }
    L->pos = p;
    push(L, t);
}

static void lex_ident(Lexer *L)
{
    const char *s = L->f->text;
    size_t len = L->f->len, start = L->pos, p = L->pos;
    while (p < len && (isalnum((unsigned char)s[p]) || s[p] == '_'))
        p++;
    Token t = {.kind = T_IDENT, .loc = loc_at(L, start), .len = (int)(p - start)};
    if (p - start > KG_MAX_IDENT) {
        diag_error(L->d, t.loc,
                   "identifier '%s' is %zu characters long, limit %d",
                   diag_escape(L->a, s + start, p - start, 32), p - start,
                   KG_MAX_IDENT);
        t.s = arena_strndup(L->a, s + start, KG_MAX_IDENT);
    } else {
        t.s = arena_strndup(L->a, s + start, p - start);
    }
    L->pos = p;
    push(L, t);
}

/* "text": no line breaks, \" and \\ escapes, printable ASCII only (strings
 * end up in generated source as attribute values). */
static void lex_string(Lexer *L)
{
    const char *s = L->f->text;
    size_t len = L->f->len, start = L->pos, p = L->pos + 1;
    Str val = {0};
    bool bad = false;
    for (;;) {
        if (p >= len || s[p] == '\n' || s[p] == '\r') {
            diag_error(L->d, loc_at(L, start),
                       "unterminated string started here");
            break;
        }
        unsigned char c = (unsigned char)s[p];
        if (c == '"') {
            p++;
            break;
        }
        if (c == '\\' && p + 1 < len && (s[p + 1] == '"' || s[p + 1] == '\\')) {
            str_putc(&val, s[p + 1]);
            p += 2;
            continue;
        }
        if ((c < 0x20 || c >= 0x7f) && !bad) {
            diag_error(L->d, loc_at(L, p),
                       "strings may hold printable ASCII only, not byte 0x%02X",
                       c);
            bad = true;
        }
        str_putc(&val, (char)c);
        p++;
    }
    Token t = {.kind = T_STR, .loc = loc_at(L, start), .len = (int)(p - start)};
    t.s = arena_strndup(L->a, val.buf ? val.buf : "", val.len);
    str_free(&val);
    L->pos = p;
    push(L, t);
}

void lexer_init(Lexer *L, const SrcFile *f, Diag *d, Arena *a)
{
    memset(L, 0, sizeof *L);
    L->f = f;
    L->d = d;
    L->a = a;
    L->line = 1;
    L->last = T_NEWLINE;
    const unsigned char *s = (const unsigned char *)f->text;
    if (f->len >= 3 && s[0] == 0xEF && s[1] == 0xBB && s[2] == 0xBF)
        L->pos = L->line_start = 3;
}

/* Scan until one token is ready.  After the end, T_EOF forever. */
Token lexer_next(Lexer *L)
{
    const unsigned char *s = (const unsigned char *)L->f->text;
    size_t len = L->f->len;
    Diag *d = L->d;
    L->have = false;
    while (!L->have) {
        if (L->pos >= len || d->stopped) {
            /* inside an unclosed bracket the parser must meet T_EOF, so that
             * it reports the bracket where it was opened */
            if (L->any && L->last != T_NEWLINE && L->last != T_EOF &&
                L->depth == 0 && !d->stopped)
                push(L, (Token){.kind = T_NEWLINE, .loc = loc_at(L, L->pos)});
            else
                push(L, (Token){.kind = T_EOF, .loc = loc_at(L, L->pos)});
            break;
        }
        unsigned char c = s[L->pos];
        size_t at = L->pos;
        if (c == '\n' || c == '\r') {
            L->pos += (c == '\r' && L->pos + 1 < len && s[L->pos + 1] == '\n') ? 2 : 1;
            if (L->depth == 0 && L->any && L->last != T_NEWLINE)
                push(L, (Token){.kind = T_NEWLINE, .loc = loc_at(L, at), .len = 1});
            newline(L, L->pos);
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\f' || c == '\v') {
            L->pos++;
            continue;
        }
        if (c == '#') {
            skip_comment(L);
            continue;
        }
        if (isdigit(c) || (c == '.' && L->pos + 1 < len && isdigit(s[L->pos + 1]))) {
            lex_number(L);
            continue;
        }
        if (isalpha(c) || c == '_') {
            lex_ident(L);
            continue;
        }
        if (c == '"') {
            lex_string(L);
            continue;
        }
        TokKind k;
        switch (c) {
        case '(': k = T_LPAREN; L->depth++; break;
        case '[': k = T_LBRACK; L->depth++; break;
        case ')': k = T_RPAREN; if (L->depth > 0) L->depth--; break;
        case ']': k = T_RBRACK; if (L->depth > 0) L->depth--; break;
        case ',': k = T_COMMA; break;
        case '=': k = T_EQ; break;
        case ':': k = T_COLON; break;
        case '+': k = T_PLUS; break;
        case '-': k = T_MINUS; break;
        case '*': k = T_STAR; break;
        case '/': k = T_SLASH; break;
        case '|': k = T_BAR; break;
        default: {
            int n = 1;
            if (c == 0) {
                diag_error(d, loc_at(L, at), "NUL byte in input");
            } else if (c >= 0x80) {
                n = utf8_len(s + at, len - at);
                if (!n) {
                    diag_error(d, loc_at(L, at), "invalid UTF-8 byte 0x%02X", c);
                    n = bad_len(s + at, len - at);
                } else {
                    diag_error(d, loc_at(L, at),
                               "unexpected non-ASCII character '%s'",
                               diag_escape(L->a, (const char *)s + at, (size_t)n, 8));
                }
            } else if (c < 0x20 || c == 0x7f) {
                diag_error(d, loc_at(L, at), "unexpected control byte 0x%02X", c);
            } else {
                diag_error(d, loc_at(L, at), "unexpected character '%c'", c);
            }
            L->pos += (size_t)n;
            continue;
        }
        }
        push(L, (Token){.kind = k, .loc = loc_at(L, at), .len = 1});
        L->pos++;
    }
    return L->tok;
}

/* The whole token array at once (tests, tools); ends with T_EOF. */
Token *lex(const SrcFile *f, Diag *d, Arena *a, int *ntok)
{
    Lexer L;
    lexer_init(&L, f, d, a);
    Token *toks = NULL;
    int n = 0, cap = 0;
    for (;;) {
        Token t = lexer_next(&L);
        ARENA_PUSH(a, toks, n, cap, t);
        if (t.kind == T_EOF)
            break;
    }
    *ntok = n;
    return toks;
}

const char *tok_kind_name(TokKind k)
{
    static const char *names[] = {
        [T_EOF] = "end of file", [T_NEWLINE] = "end of line",
        [T_IDENT] = "name", [T_NUM] = "number", [T_STR] = "string",
        [T_LPAREN] = "'('", [T_RPAREN] = "')'", [T_LBRACK] = "'['",
        [T_RBRACK] = "']'", [T_COMMA] = "','", [T_EQ] = "'='",
        [T_COLON] = "':'", [T_PLUS] = "'+'", [T_MINUS] = "'-'",
        [T_STAR] = "'*'", [T_SLASH] = "'/'", [T_BAR] = "'|'",
    };
    return names[k];
}

/* test_lex.c -- the lexer: tokens, locations, line endings, bad bytes. */
#include "testutil.h"

static Token *lex_text(TestCtx *c, const char *text, size_t len, int *n)
{
    c->f = (SrcFile){"t.pat", text, len};
    return lex(&c->f, &c->d, c->a, n);
}

static void test_tokens(void **state)
{
    (void)state;
    TestCtx c;
    ctx_init(&c);
    int n;
    const char *s = "y = f(x, 2*C, eps=1e-5) # c\n";
    Token *t = lex_text(&c, s, strlen(s), &n);
    TokKind want[] = {T_IDENT, T_EQ, T_IDENT, T_LPAREN, T_IDENT, T_COMMA,
                      T_NUM, T_STAR, T_IDENT, T_COMMA, T_IDENT, T_EQ, T_NUM,
                      T_RPAREN, T_NEWLINE, T_EOF};
    assert_int_equal(n, (int)(sizeof want / sizeof *want));
    for (int i = 0; i < n; i++)
        assert_int_equal(t[i].kind, want[i]);
    assert_true(t[6].is_int);
    assert_int_equal(t[6].ival, 2);
    assert_false(t[12].is_int);
    assert_true(t[12].num == 1e-5);
    assert_int_equal(t[12].loc.col, 19);
    assert_int_equal(c.d.nerrors, 0);
    ctx_free(&c);
}

/* Newlines inside brackets are not statement ends. */
static void test_wrapped_lines(void **state)
{
    (void)state;
    TestCtx c;
    ctx_init(&c);
    int n, nl = 0;
    const char *s = "y = f(a,\n  b)\nz = [1,\n2]\n";
    Token *t = lex_text(&c, s, strlen(s), &n);
    for (int i = 0; i < n; i++)
        nl += t[i].kind == T_NEWLINE;
    assert_int_equal(nl, 2);
    ctx_free(&c);
}

/* LF, CRLF and CR all end lines; a BOM is skipped and columns start at 1. */
static void test_line_endings(void **state)
{
    (void)state;
    const char *texts[] = {"a\nb\nc", "a\r\nb\r\nc", "a\rb\rc", "\xEF\xBB\xBF" "a\nb\r\nc"};
    for (size_t k = 0; k < 4; k++) {
        TestCtx c;
        ctx_init(&c);
        int n;
        Token *t = lex_text(&c, texts[k], strlen(texts[k]), &n);
        int seen = 0;
        for (int i = 0; i < n; i++)
            if (t[i].kind == T_IDENT) {
                assert_int_equal(t[i].loc.line, seen + 1);
                assert_int_equal(t[i].loc.col, 1);
                seen++;
            }
        assert_int_equal(seen, 3);
        assert_int_equal(c.d.nerrors, 0);
        ctx_free(&c);
    }
}

static void test_bad_bytes(void **state)
{
    (void)state;
    struct { const char *text; size_t len; const char *msg; } cases[] = {
        {"a = \xC0\xAF\n", 7, "t.pat:1:5: error: invalid UTF-8 byte 0xC0"},
        {"# ok \xE2\x82\n", 8, "t.pat:1:6: error: invalid UTF-8 byte 0xE2"},
        {"a\n\xED\xA0\x80\n", 6, "t.pat:2:1: error: invalid UTF-8 byte 0xED"},
        {"a\0b\n", 4, "t.pat:1:2: error: NUL byte in input"},
        {"a = $\n", 6, "t.pat:1:5: error: unexpected character '$'"},
        {"s = \"abc\n", 9, "t.pat:1:5: error: unterminated string started here"},
        {"x = 12ab\n", 9, "t.pat:1:5: error: malformed number '12ab'"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        TestCtx c;
        ctx_init(&c);
        int n;
        lex_text(&c, cases[k].text, cases[k].len, &n);
        assert_int_equal(c.d.nerrors, 1);
        assert_diag(&c, cases[k].msg);
        ctx_free(&c);
    }
}

/* Identifiers longer than 64 bytes are refused; the message is truncated. */
static void test_long_identifier(void **state)
{
    (void)state;
    TestCtx c;
    ctx_init(&c);
    char buf[200];
    memset(buf, 'a', 100);
    buf[100] = 0;
    int n;
    lex_text(&c, buf, 100, &n);
    assert_int_equal(c.d.nerrors, 1);
    assert_diag(&c, "is 100 characters long, limit 64");
    assert_true(strlen(c.d.buf.buf) < 400);
    ctx_free(&c);
}

static void test_int_overflow(void **state)
{
    (void)state;
    TestCtx c;
    ctx_init(&c);
    int n;
    const char *s = "99999999999999999999999 9223372036854775807";
    Token *t = lex_text(&c, s, strlen(s), &n);
    assert_true(t[0].overflow);
    assert_false(t[1].overflow);
    assert_int_equal(t[1].ival, INT64_MAX);
    ctx_free(&c);
}

/* Control bytes and non-ASCII text in messages are escaped. */
static void test_escape(void **state)
{
    (void)state;
    Arena *a = arena_new();
    assert_string_equal(diag_escape(a, "a\x01\xff", 3, 10), "a\\x01\\xFF");
    assert_string_equal(diag_escape(a, "abcdef", 6, 3), "abc...");
    arena_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tokens),
        cmocka_unit_test(test_wrapped_lines),
        cmocka_unit_test(test_line_endings),
        cmocka_unit_test(test_bad_bytes),
        cmocka_unit_test(test_long_identifier),
        cmocka_unit_test(test_int_overflow),
        cmocka_unit_test(test_escape),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

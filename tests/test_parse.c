/* test_parse.c -- the parser: statements, precedence, recovery, limits. */
#include "testutil.h"

static Ast *parse_text(TestCtx *c, const char *text)
{
    c->f = (SrcFile){"t.pat", text, strlen(text)};
    return parse(&c->f, &c->d, c->a);
}

static void test_statements(void **state)
{
    (void)state;
    TestCtx c;
    ctx_init(&c);
    Ast *ast = parse_text(&c,
        "model m\n"
        "dim B = 2, C = 2*B, T\n"
        "dtype DT = f16\n"
        "input x : DT[B, C]\n"
        "weight w : f32[C,\n   C]\n"
        "a, b = split(x, [B, B], axis=1)\n"
        "output a, b\n");
    assert_int_equal(c.d.nerrors, 0);
    assert_int_equal(ast->nstmts, 7);
    assert_int_equal(ast->stmts[1]->kind, S_DIM);
    assert_int_equal(ast->stmts[1]->nnames, 3);
    assert_null(ast->stmts[1]->values[2]);
    assert_int_equal(ast->stmts[4]->kind, S_WEIGHT);
    assert_int_equal(ast->stmts[4]->type.ndims, 2);
    assert_int_equal(ast->stmts[4]->line_last, 6);
    Stmt *s = ast->stmts[5];
    assert_int_equal(s->kind, S_ASSIGN);
    assert_int_equal(s->nnames, 2);
    assert_int_equal(s->rhs->kind, E_CALL);
    assert_int_equal(s->rhs->nargs, 3);
    assert_null(s->rhs->kw[0]);
    assert_string_equal(s->rhs->kw[2], "axis");
    ctx_free(&c);
}

/* a - b * -c + d parses as ((a - (b * (-c))) + d). */
static void test_precedence(void **state)
{
    (void)state;
    TestCtx c;
    ctx_init(&c);
    Ast *ast = parse_text(&c, "y = a - b * -c + d\n");
    Expr *e = ast->stmts[0]->rhs;
    assert_int_equal(e->kind, E_BINOP);
    assert_int_equal(e->op, '+');
    assert_int_equal(e->lhs->op, '-');
    assert_int_equal(e->lhs->rhs->op, '*');
    assert_int_equal(e->lhs->rhs->rhs->kind, E_NEG);
    ctx_free(&c);
    ctx_init(&c);
    ast = parse_text(&c, "y = x * -1e-5\n");
    e = ast->stmts[0]->rhs;
    assert_int_equal(e->rhs->kind, E_NUM);              /* folded */
    assert_true(e->rhs->num == -1e-5);
    ctx_free(&c);
}

static void test_nesting_limit(void **state)
{
    (void)state;
    TestCtx c;
    ctx_init(&c);
    size_t n = 100000;
    char *s = malloc(n + 16);
    memcpy(s, "y = ", 4);
    memset(s + 4, '(', n);
    strcpy(s + 4 + n, "x\n");
    parse_text(&c, s);
    assert_int_equal(c.d.nerrors, 1);
    assert_diag(&c, "t.pat:1:261: error: nesting deeper than 256");
    free(s);
    ctx_free(&c);
}

/* An unclosed bracket is reported where it was opened. */
static void test_unclosed(void **state)
{
    (void)state;
    TestCtx c;
    ctx_init(&c);
    parse_text(&c, "model m\ny = f(a,\n  b\n\n");
    assert_diag(&c, "t.pat:2:6: error: unclosed '(' opened here");
    ctx_free(&c);
}

/* One error per statement, several statements, then the cap. */
static void test_recovery_and_cap(void **state)
{
    (void)state;
    TestCtx c;
    ctx_init(&c);
    parse_text(&c, "model m\ny = = 1\nz = )\noutput\n");
    assert_int_equal(c.d.nerrors, 3);
    assert_diag(&c, "t.pat:2:5: error: expected an expression, found '='");
    assert_diag(&c, "t.pat:3:5: error: expected an expression, found ')'");
    assert_diag(&c, "t.pat:4:7: error: expected a name to output");
    ctx_free(&c);

    ctx_init(&c);
    Str s = {0};
    for (int i = 0; i < 50; i++)
        str_printf(&s, "y%d = )\n", i);
    parse_text(&c, s.buf);
    assert_int_equal(c.d.nerrors, KG_MAX_ERRORS);
    assert_diag(&c, "too many errors");
    str_free(&s);
    ctx_free(&c);
}

static void test_reserved_names(void **state)
{
    (void)state;
    const char *cases[][2] = {
        {"model m\ninput int : f32[2]\n", "'int' is reserved"},
        {"model m\ninput kernel : f32[2]\n", "'kernel' is reserved"},
        {"model m\ninput __global__ : f32[2]\n", "names starting with '__'"},
        {"model m\nkg_x = a\n", "'kg_x': names starting with"},
        {"model m\ninput dim : f32[2]\n", "'dim' is a keyword"},
        {"model m\nf(x)\n", "a call must be assigned to a name"},
        {"model m\ny = f(a=1, 2)\n", "positional argument after a keyword"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        TestCtx c;
        ctx_init(&c);
        parse_text(&c, cases[k][0]);
        assert_int_equal(c.d.nerrors, 1);
        assert_diag(&c, cases[k][1]);
        ctx_free(&c);
    }
}

static void test_empty(void **state)
{
    (void)state;
    const char *cases[] = {"", "   \n# only a comment\n", "\xEF\xBB\xBF"};
    for (size_t k = 0; k < 3; k++) {
        TestCtx c;
        ctx_init(&c);
        parse_text(&c, cases[k]);
        assert_diag(&c, "t.pat:1:1: error: no model defined");
        ctx_free(&c);
    }
}

/* The exact shape of a diagnostic: location, the line, a caret under the
 * column; CRLF line ends do not show up in the quoted line. */
static void test_caret(void **state)
{
    (void)state;
    TestCtx c;
    ctx_init(&c);
    parse_text(&c, "model m\r\n  y = f(a,, b)\r\n");
    assert_string_equal(c.d.buf.buf,
        "t.pat:2:11: error: expected an expression, found ','\n"
        "    y = f(a,, b)\n"
        "            ^\n");
    ctx_free(&c);
}

/* `optional` takes no operand; as a keyword it is never a name. */
static void test_optional(void **state)
{
    (void)state;
    TestCtx c;
    ctx_init(&c);
    Ast *ast = parse_text(&c, "pattern p\ntemplate t\noptional\ndim N\n"
                          "input x : f32[N]\ny = exp(x)\noutput y\n");
    assert_int_equal(c.d.nerrors, 0);
    assert_int_equal(ast->nstmts, 7);
    assert_int_equal(ast->stmts[2]->kind, S_OPTIONAL);
    assert_int_equal(ast->stmts[2]->loc.line, 3);
    assert_int_equal(ast->stmts[3]->kind, S_DIM);
    ctx_free(&c);

    ctx_init(&c);
    parse_text(&c, "pattern p\ntemplate t\noptional yes\n");
    assert_int_equal(c.d.nerrors, 1);
    assert_diag(&c, "t.pat:3:10: error: expected end of line, found 'yes'");
    ctx_free(&c);

    ctx_init(&c);
    parse_text(&c, "model m\ninput optional : f32[2]\n");
    assert_int_equal(c.d.nerrors, 1);
    assert_diag(&c, "t.pat:2:7: error: 'optional' is a keyword and cannot be "
                "used as a name");
    ctx_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_statements),
        cmocka_unit_test(test_precedence),
        cmocka_unit_test(test_nesting_limit),
        cmocka_unit_test(test_unclosed),
        cmocka_unit_test(test_recovery_and_cap),
        cmocka_unit_test(test_reserved_names),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_caret),
        cmocka_unit_test(test_optional),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * parse.c -- the second stage: tokens to an AST of statements.
 *
 * A recursive-descent parser over one statement per line.  Every rule below
 * carries its grammar above it.  On an error the statement is dropped and
 * parsing resumes at the next line, so one run reports several errors.
 * Recursion is bounded by KG_MAX_NEST, so hostile nesting cannot overflow
 * the C stack.
 *
 *   file   = { stmt NEWLINE }
 *   stmt   = "model" NAME | "pattern" NAME | "template" NAME | "optional"
 *          | "dim" dimdecl { "," dimdecl }          dimdecl = NAME [ "=" expr ]
 *          | "dtype" NAME [ "=" NAME ]
 *          | ( "input" | "weight" ) NAME ":" type
 *          | "param" NAME { "," NAME }
 *          | "op" NAME "=" NAME { "|" NAME }
 *          | "output" NAME { "," NAME }
 *          | NAME { "," NAME } "=" expr
 *   type   = NAME "[" [ expr { "," expr } ] "]"
 */
#include "kgen.h"

#include <string.h>

typedef struct Parser {
    const SrcFile *f;
    Diag *d;
    Arena *a;
    Lexer lex;
    Token tok[2];              /* the current token and the next */
    Token *t;                  /* = tok: t[0] current, t[1] lookahead */
    Token prev;                /* the token before the current one */
    int depth;                 /* expression nesting */
    bool fail;                 /* the current statement had an error */
} Parser;

static const char *keywords[] = {
    "model", "pattern", "template", "dim", "dtype", "input", "weight",
    "param", "op", "output", "optional",
};

/* Names that may never be declared: statement keywords, literals, dtype
 * names, and every keyword of the C, CUDA and OpenCL C code kgen generates
 * from these names (so nothing user-controlled can change its meaning). */
static const char *reserved[] = {
    "true", "false", "inf", "nan", "f16", "bf16", "f32", "i32", "bool",
    "auto", "break", "case", "char", "const", "continue", "default", "do",
    "double", "else", "enum", "extern", "float", "for", "goto", "if",
    "inline", "int", "long", "register", "restrict", "return", "short",
    "signed", "sizeof", "static", "struct", "switch", "typedef", "union",
    "unsigned", "void", "volatile", "while", "kernel", "global", "local",
    "constant", "private", "half", "uchar", "ushort", "uint", "ulong",
    "size_t", "NULL", "main", "asm", "template", "typename", "class",
    "namespace", "new", "delete", "this", "operator", "friend", "virtual",
    "public", "protected", "using", "try", "catch", "throw", "mutable",
    "explicit", "export", "decltype", "constexpr", "nullptr", "alignas",
    "alignof", "noexcept", "static_assert", "thread_local", "typeid",
    "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "dim3",
    "read_only", "write_only", "read_write", "image1d_t", "image2d_t",
    "image3d_t", "sampler_t", "event_t", "ptrdiff_t", "intptr_t",
    "uintptr_t", "complex", "imaginary",
};

/* OpenCL and CUDA vector types: float4, half2, uchar16, ... */
static bool is_vector_type(const char *s)
{
    static const char *base[] = {"char", "uchar", "short", "ushort", "int",
        "uint", "long", "ulong", "float", "double", "half", "bool",
        "longlong", "ulonglong"};
    for (size_t i = 0; i < sizeof base / sizeof *base; i++) {
        size_t n = strlen(base[i]);
        if (!strncmp(s, base[i], n) && s[n]) {
            const char *d = s + n;
            while (*d >= '0' && *d <= '9')
                d++;
            if (!*d)
                return true;
        }
    }
    return false;
}

static bool is_keyword(const char *s)
{
    for (size_t i = 0; i < sizeof keywords / sizeof *keywords; i++)
        if (!strcmp(s, keywords[i]))
            return true;
    return false;
}

static void error_at(Parser *P, Loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void error_at(Parser *P, Loc loc, const char *fmt, ...)
{
    if (P->fail)
        return;                /* one error per statement */
    va_list ap;
    va_start(ap, fmt);
    diag_verror(P->d, "error", loc, fmt, ap);
    va_end(ap);
    P->fail = true;
}

static const char *describe(Parser *P, const Token *t)
{
    switch (t->kind) {
    case T_IDENT:
        return arena_printf(P->a, "'%s'", t->s);
    case T_NUM:
        return arena_printf(P->a, "number '%s'",
                            diag_escape(P->a, t->s, (size_t)t->len, 24));
    case T_STR:
        return "a string";
    default:
        return tok_kind_name(t->kind);
    }
}

static bool at(Parser *P, TokKind k) { return P->t->kind == k; }

static void advance(Parser *P)
{
    if (P->tok[0].kind == T_EOF)
        return;
    P->prev = P->tok[0];
    P->tok[0] = P->tok[1];
    P->tok[1] = lexer_next(&P->lex);
}

static bool accept(Parser *P, TokKind k)
{
    if (!at(P, k))
        return false;
    advance(P);
    return true;
}

static bool expect(Parser *P, TokKind k, const char *what)
{
    if (accept(P, k))
        return true;
    error_at(P, P->t->loc, "expected %s, found %s", what, describe(P, P->t));
    return false;
}

/* A declared name: an identifier that is neither keyword nor reserved. */
static const char *decl_name(Parser *P, Loc *loc)
{
    if (!at(P, T_IDENT)) {
        error_at(P, P->t->loc, "expected a name, found %s", describe(P, P->t));
        return NULL;
    }
    const char *s = P->t->s;
    *loc = P->t->loc;
    if (is_keyword(s)) {
        error_at(P, *loc, "'%s' is a keyword and cannot be used as a name", s);
        return NULL;
    }
    for (size_t i = 0; i < sizeof reserved / sizeof *reserved; i++)
        if (!strcmp(s, reserved[i])) {
            error_at(P, *loc, "'%s' is reserved and cannot be used as a name",
                     s);
            return NULL;
        }
    if (is_vector_type(s)) {
        error_at(P, *loc, "'%s' is reserved (a vector type of the generated "
                 "code) and cannot be used as a name", s);
        return NULL;
    }
    if (!strncmp(s, "__", 2) || (s[0] == '_' && s[1] >= 'A' && s[1] <= 'Z') ||
        !strncmp(s, "kg_", 3) || !strncmp(s, "kgen_", 5) ||
        !strncmp(s, "kgrt_", 5)) {
        error_at(P, *loc,
                 "'%s': names starting with '__', '_' and a capital, 'kg_', "
                 "'kgen_' or 'kgrt_' are reserved", s);
        return NULL;
    }
    advance(P);
    return s;
}

static Expr *new_expr(Parser *P, ExprKind k, Loc loc)
{
    Expr *e = arena_alloc(P->a, sizeof *e);
    e->kind = k;
    e->loc = loc;
    return e;
}

static Expr *expr(Parser *P);
static bool set_depth(Parser *P, Expr *e, int child);

/* Enter one level of nesting; false (with an error) past the limit. */
static bool enter(Parser *P)
{
    if (++P->depth > KG_MAX_NEST) {
        error_at(P, P->t->loc, "nesting deeper than %d", KG_MAX_NEST);
        return false;
    }
    return true;
}

/* The closing bracket of one opened at open; the error names the opener. */
static bool close_bracket(Parser *P, TokKind k, Loc open, bool comma)
{
    if (accept(P, k))
        return true;
    const char *c = k == T_RPAREN ? "')'" : "']'";
    const char *o = k == T_RPAREN ? "(" : "[";
    if (at(P, T_EOF)) {
        error_at(P, open, "unclosed '%s' opened here", o);
    } else {
        error_at(P, P->t->loc, "expected %s%s, found %s", c,
                 comma ? " or ','" : "", describe(P, P->t));
        if (P->fail)
            diag_note(P->d, open, "to match this '%s'", o);
    }
    return false;
}

/* list   = "[" [ expr { "," expr } [","] ] "]"
 * args   = [ arg { "," arg } [","] ]      arg = [ NAME "=" ] expr */
static Expr *seq(Parser *P, Expr *e, TokKind close, bool call)
{
    Loc open = P->t->loc;
    advance(P);
    int cap = 0;
    int kwcap = 0, locap = 0;
    while (!at(P, close)) {
        if (at(P, T_EOF))
            break;
        const char *kw = NULL;
        Loc kwloc = P->t->loc;
        if (call && at(P, T_IDENT) && P->t[1].kind == T_EQ) {
            kw = P->t->s;
            advance(P);
            advance(P);
        } else if (call && e->nargs > 0 && e->kw[e->nargs - 1]) {
            error_at(P, P->t->loc,
                     "positional argument after a keyword argument");
            return NULL;
        }
        if (e->nargs == KG_MAX_LIST) {
            error_at(P, P->t->loc, "more than %d elements in one %s",
                     KG_MAX_LIST, call ? "call" : "list");
            return NULL;
        }
        Expr *arg = expr(P);
        if (!arg)
            return NULL;
        if (arg->depth >= e->depth)
            e->depth = arg->depth;
        int n = e->nargs;
        if (call) {
            ARENA_PUSH(P->a, e->kw, n, kwcap, kw);
            n = e->nargs;
            ARENA_PUSH(P->a, e->kwloc, n, locap, kwloc);
        }
        ARENA_PUSH(P->a, e->args, e->nargs, cap, arg);
        if (!accept(P, T_COMMA))
            break;
    }
    if (!close_bracket(P, close, open, true))
        return NULL;
    return set_depth(P, e, e->depth) ? e : NULL;
}

/* primary = NUMBER | STRING | NAME | NAME "(" args ")" | "(" expr ")"
 *         | list */
static Expr *primary(Parser *P)
{
    Token tk = *P->t;          /* advance() overwrites the current token */
    Token *t = &tk;
    switch (t->kind) {
    case T_NUM: {
        if (t->overflow) {
            error_at(P, t->loc, "integer '%s' does not fit in 64 bits",
                     diag_escape(P->a, t->s, (size_t)t->len, 32));
            return NULL;
        }
        Expr *e = new_expr(P, E_NUM, t->loc);
        e->num = t->num;
        e->is_int = t->is_int;
        e->ival = t->ival;
        advance(P);
        return e;
    }
    case T_STR: {
        Expr *e = new_expr(P, E_STR, t->loc);
        e->name = t->s;
        advance(P);
        return e;
    }
    case T_IDENT: {
        advance(P);
        if (!at(P, T_LPAREN)) {
            Expr *e = new_expr(P, E_NAME, t->loc);
            e->name = t->s;
            return e;
        }
        if (!enter(P))
            return NULL;
        Expr *e = new_expr(P, E_CALL, t->loc);
        e->name = t->s;
        e = seq(P, e, T_RPAREN, true);
        P->depth--;
        return e;
    }
    case T_LPAREN: {
        Loc open = t->loc;
        if (!enter(P))
            return NULL;
        advance(P);
        Expr *e = expr(P);
        if (e && !close_bracket(P, T_RPAREN, open, false))
            e = NULL;
        P->depth--;
        return e;
    }
    case T_LBRACK: {
        if (!enter(P))
            return NULL;
        Expr *e = seq(P, new_expr(P, E_LIST, t->loc), T_RBRACK, false);
        P->depth--;
        return e;
    }
    default:
        error_at(P, t->loc, "expected an expression, found %s", describe(P, t));
        return NULL;
    }
}

/* unary = "-" unary | primary */
static Expr *unary(Parser *P)
{
    if (!at(P, T_MINUS))
        return primary(P);
    Loc loc = P->t->loc;
    if (!enter(P))
        return NULL;
    advance(P);
    Expr *x = unary(P);
    P->depth--;
    if (!x)
        return NULL;
    if (x->kind == E_NUM) {        /* fold -3, -1e-5 */
        x->num = -x->num;
        x->ival = -x->ival;
        x->loc = loc;
        return x;
    }
    Expr *e = new_expr(P, E_NEG, loc);
    e->lhs = x;
    return set_depth(P, e, x->depth) ? e : NULL;
}

/* The height of a new node over its children; an error past KG_MAX_NEST.
 * Chains of operators count too (a + b + c + ... is a left-deep tree), so
 * sema, the matcher and the interpreter never recurse deeper than this. */
static bool set_depth(Parser *P, Expr *e, int child)
{
    e->depth = child + 1;
    if (e->depth <= KG_MAX_NEST)
        return true;
    error_at(P, e->loc, "expression nests deeper than %d operations; split "
             "it into several statements", KG_MAX_NEST);
    return false;
}

static Expr *binop(Parser *P, char op, Loc loc, Expr *l, Expr *r)
{
    Expr *e = new_expr(P, E_BINOP, loc);
    e->op = op;
    e->lhs = l;
    e->rhs = r;
    return set_depth(P, e, l->depth > r->depth ? l->depth : r->depth) ? e : NULL;
}

/* term = unary { ( "*" | "/" ) unary } */
static Expr *term(Parser *P)
{
    Expr *e = unary(P);
    while (e && (at(P, T_STAR) || at(P, T_SLASH))) {
        char op = at(P, T_STAR) ? '*' : '/';
        Loc loc = P->t->loc;
        advance(P);
        Expr *r = unary(P);
        e = r ? binop(P, op, loc, e, r) : NULL;
    }
    return e;
}

/* expr = term { ( "+" | "-" ) term } */
static Expr *expr(Parser *P)
{
    Expr *e = term(P);
    while (e && (at(P, T_PLUS) || at(P, T_MINUS))) {
        char op = at(P, T_PLUS) ? '+' : '-';
        Loc loc = P->t->loc;
        advance(P);
        Expr *r = term(P);
        e = r ? binop(P, op, loc, e, r) : NULL;
    }
    return e;
}

static void push_name(Parser *P, Stmt *s, int *cap, int *lcap, const char *n,
                      Loc loc)
{
    int k = s->nnames;
    ARENA_PUSH(P->a, s->name_locs, k, *lcap, loc);
    ARENA_PUSH(P->a, s->names, s->nnames, *cap, n);
}

/* NAME { "," NAME } */
static bool name_list(Parser *P, Stmt *s)
{
    int cap = 0, lcap = 0;
    do {
        Loc loc;
        const char *n = decl_name(P, &loc);
        if (!n)
            return false;
        push_name(P, s, &cap, &lcap, n, loc);
    } while (accept(P, T_COMMA));
    return true;
}

/* type = NAME "[" [ expr { "," expr } ] "]" */
static bool type(Parser *P, TypeExpr *ty)
{
    if (!at(P, T_IDENT)) {
        error_at(P, P->t->loc, "expected a dtype such as f16 or DT[...], "
                 "found %s", describe(P, P->t));
        return false;
    }
    ty->dtype = P->t->s;
    ty->dtype_loc = P->t->loc;
    advance(P);
    if (!at(P, T_LBRACK)) {
        error_at(P, P->t->loc, "expected '[' and the shape after the dtype, "
                 "found %s", describe(P, P->t));
        return false;
    }
    Expr *l = primary(P);
    if (!l)
        return false;
    ty->dims = l->args;
    ty->ndims = l->nargs;
    return true;
}

static Stmt *stmt(Parser *P)
{
    Stmt *s = arena_alloc(P->a, sizeof *s);
    s->loc = P->t->loc;
    Token *kw = P->t;
    const char *k = kw->kind == T_IDENT ? kw->s : "";
    bool is_kw = kw->kind == T_IDENT && is_keyword(k) &&
                 !(kw[1].kind == T_EQ || kw[1].kind == T_COMMA);
    if (is_kw)
        advance(P);
    if (!is_kw) {
        /* NAME { "," NAME } "=" expr */
        s->kind = S_ASSIGN;
        if (at(P, T_IDENT) && P->t[1].kind == T_LPAREN) {
            error_at(P, P->t->loc, "a call must be assigned to a name: "
                     "write 'y = %s(...)'", P->t->s);
            return NULL;
        }
        if (!name_list(P, s))
            return NULL;
        if (!expect(P, T_EQ, "'=' after the assigned names"))
            return NULL;
        s->rhs = expr(P);
        return s->rhs ? s : NULL;
    }
    if (!strcmp(k, "model") || !strcmp(k, "pattern") || !strcmp(k, "template")) {
        s->kind = k[0] == 'm' ? S_MODEL : k[0] == 'p' ? S_PATTERN : S_TEMPLATE;
        return name_list(P, s) ? s : NULL;
    }
    if (!strcmp(k, "optional")) {
        s->kind = S_OPTIONAL;  /* takes nothing: the line must end here */
        return s;
    }
    if (!strcmp(k, "dim")) {
        s->kind = S_DIM;
        int cap = 0, lcap = 0, vcap = 0;
        do {
            Loc loc;
            const char *n = decl_name(P, &loc);
            if (!n)
                return NULL;
            Expr *v = NULL;
            if (accept(P, T_EQ) && !(v = expr(P)))
                return NULL;
            int k2 = s->nnames;
            ARENA_PUSH(P->a, s->values, k2, vcap, v);
            push_name(P, s, &cap, &lcap, n, loc);
        } while (accept(P, T_COMMA));
        return s;
    }
    if (!strcmp(k, "dtype")) {
        s->kind = S_DTYPE;
        int cap = 0, lcap = 0;
        Loc loc;
        const char *n = decl_name(P, &loc);
        if (!n)
            return NULL;
        push_name(P, s, &cap, &lcap, n, loc);
        if (accept(P, T_EQ)) {
            if (!at(P, T_IDENT)) {
                error_at(P, P->t->loc, "expected a dtype (f16, bf16, f32, i32, "
                         "bool), found %s", describe(P, P->t));
                return NULL;
            }
            s->value_name = P->t->s;
            s->value_loc = P->t->loc;
            advance(P);
        }
        return s;
    }
    if (!strcmp(k, "input") || !strcmp(k, "weight")) {
        s->kind = k[0] == 'i' ? S_INPUT : S_WEIGHT;
        int cap = 0, lcap = 0;
        Loc loc;
        const char *n = decl_name(P, &loc);
        if (!n)
            return NULL;
        push_name(P, s, &cap, &lcap, n, loc);
        if (!expect(P, T_COLON, "':' and a type such as DT[B, C]"))
            return NULL;
        return type(P, &s->type) ? s : NULL;
    }
    if (!strcmp(k, "param")) {
        s->kind = S_PARAM;
        return name_list(P, s) ? s : NULL;
    }
    if (!strcmp(k, "output")) {
        s->kind = S_OUTPUT;
        int cap = 0, lcap = 0;
        do {
            if (!at(P, T_IDENT)) {
                error_at(P, P->t->loc, "expected a name to output, found %s",
                         describe(P, P->t));
                return NULL;
            }
            push_name(P, s, &cap, &lcap, P->t->s, P->t->loc);
            advance(P);
        } while (accept(P, T_COMMA));
        return s;
    }
    /* "op" NAME "=" NAME { "|" NAME } */
    s->kind = S_OPVAR;
    int cap = 0, lcap = 0;
    Loc loc;
    const char *n = decl_name(P, &loc);
    if (!n)
        return NULL;
    push_name(P, s, &cap, &lcap, n, loc);
    if (!expect(P, T_EQ, "'=' and a list of ops such as 'atan | silu'"))
        return NULL;
    int ocap = 0, olcap = 0;
    do {
        if (!at(P, T_IDENT)) {
            error_at(P, P->t->loc, "expected an op name, found %s",
                     describe(P, P->t));
            return NULL;
        }
        int m = s->nopset;
        ARENA_PUSH(P->a, s->opset_locs, m, olcap, P->t->loc);
        ARENA_PUSH(P->a, s->opset, s->nopset, ocap, P->t->s);
        advance(P);
    } while (accept(P, T_BAR));
    return s;
}

static uint32_t bom_len(const SrcFile *f)
{
    return f->len >= 3 && !memcmp(f->text, "\xEF\xBB\xBF", 3) ? 3 : 0;
}

Ast *parse(const SrcFile *f, Diag *d, Arena *a)
{
    Ast *ast = arena_alloc(a, sizeof *ast);
    ast->file = f;
    Parser P = {.f = f, .d = d, .a = a};
    lexer_init(&P.lex, f, d, a);
    P.t = P.tok;
    P.tok[0] = lexer_next(&P.lex);
    P.tok[1] = lexer_next(&P.lex);
    int cap = 0;
    while (!at(&P, T_EOF) && !d->stopped) {
        if (accept(&P, T_NEWLINE))
            continue;
        P.fail = false;
        P.depth = 0;
        Stmt *s = stmt(&P);
        if (s && !at(&P, T_NEWLINE) && !at(&P, T_EOF))
            error_at(&P, P.t->loc, "expected end of line, found %s",
                     describe(&P, P.t));
        if (s && !P.fail) {
            s->line_last = P.prev.loc.line;
            ARENA_PUSH(a, ast->stmts, ast->nstmts, cap, s);
        }
        while (!at(&P, T_NEWLINE) && !at(&P, T_EOF))
            advance(&P);
    }
    if (ast->nstmts == 0 && d->nerrors == 0)
        diag_error(d, (Loc){f, 1, 1, bom_len(f)},
                   "no model defined: the file has no statements");
    return ast;
}

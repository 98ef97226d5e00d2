/*
 * kgen.h -- the compiler's internal header.
 *
 * One banner section per compiler file, in pipeline order; the header is the
 * table of contents of compiler/.  Compiler data (tokens, AST, graphs, plans)
 * lives in an Arena that is freed at once; nothing in here is freed piecewise.
 * The only public API is include/kgen/kgen.h; everything here may change.
 */
#ifndef KGEN_INTERNAL_H
#define KGEN_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "kgen/kgrt.h"

#define KG_MAX_RANK 8          /* tensors have at most this many axes */
#define KG_MAX_NEST 256        /* deepest bracket/expression nesting accepted */
#define KG_MAX_LIST 256        /* elements of one list or call */
#define KG_MAX_IDENT 64        /* identifiers: [A-Za-z_][A-Za-z0-9_]{0,63} */
#define KG_MAX_INPUT (16u << 20) /* default --max-input: 16 MiB */
#define KG_MAX_ERRORS 20       /* diagnostics printed before giving up */
#define KG_MAX_BYTES (1ull << 40) /* one tensor may need at most 1 TiB */
#define KG_MAX_GROUP 256       /* ops in one generated elementwise kernel */
#define KG_MAX_PATTERN_OPS 64  /* ops in one pattern file */

/* ======================================================================
 * util.c -- arena, growable strings, fatal internal errors
 * ====================================================================== */

typedef struct Arena Arena;
Arena *arena_new(void);
void arena_free(Arena *a);                    /* accepts NULL */
void *arena_alloc(Arena *a, size_t n);        /* zeroed; never NULL */
char *arena_strndup(Arena *a, const char *s, size_t n);
char *arena_strdup(Arena *a, const char *s);
char *arena_printf(Arena *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Grow an arena array to hold at least n elements (amortised doubling). */
void *arena_grow(Arena *a, void *p, int *cap, int n, size_t elem);
#define ARENA_PUSH(A, ARR, N, CAP, X)                                         \
    do {                                                                      \
        (ARR) = arena_grow((A), (ARR), &(CAP), (N) + 1, sizeof *(ARR));       \
        (ARR)[(N)++] = (X);                                                   \
    } while (0)

typedef struct Str {
    char *buf;                                /* NUL-terminated, malloc'd */
    size_t len, cap;
} Str;
void str_printf(Str *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void str_vprintf(Str *s, const char *fmt, va_list ap);
void str_putc(Str *s, char c);
void str_puts(Str *s, const char *t);
void str_putn(Str *s, const char *t, size_t n);   /* text without NULs */
void str_free(Str *s);

/* A broken invariant inside kgen itself: print where and abort (QBE's die). */
_Noreturn void die_at(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
#define die(...) die_at(__FILE__, __LINE__, __VA_ARGS__)

/* Read a whole file; NULL with errno set on failure or when over max bytes
 * (errno = EFBIG, *size set to the real size). */
char *read_file(const char *path, size_t max, size_t *size);
uint64_t hash64(const void *p, size_t n, uint64_t seed); /* FNV-1a, 64 bit */
void json_write_str(FILE *fp, const char *s);  /* a quoted JSON string */
int mkdir_parents(const char *path, char **made, Arena *a);   /* mkdir -p of path's parent */
void rmdir_made(const char *path, const char *made, Arena *a); /* undo it after a failure */

/* ======================================================================
 * diag.c -- user-facing diagnostics: file:line:col, the line, a caret
 * ====================================================================== */

typedef struct SrcFile {
    const char *path;          /* as the user named it */
    const char *text;          /* contents, NUL-terminated */
    size_t len;
} SrcFile;

typedef struct Loc {
    const SrcFile *file;       /* NULL: no location (a command-line error) */
    int line, col;             /* 1-based; col counts bytes */
    uint32_t off;              /* byte offset of the location */
} Loc;

typedef struct Diag {
    FILE *fp;                  /* where to print; NULL: only into buf */
    Str buf;                   /* everything printed, for tests */
    int nerrors, nwarnings;
    int max_errors;            /* stop after this many (KG_MAX_ERRORS) */
    bool stopped;              /* the cap was reached: callers unwind */
} Diag;

void diag_init(Diag *d, FILE *fp);
void diag_free(Diag *d);
void diag_error(Diag *d, Loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void diag_warning(Diag *d, Loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void diag_note(Diag *d, Loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void diag_verror(Diag *d, const char *kind, Loc loc, const char *fmt,
                 va_list ap);
/* A file-level error: "path: error: msg" with no line. */
void diag_file_error(Diag *d, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Escape raw bytes for a message: printable ASCII as is, others \xNN;
 * at most max bytes of input, then "...". */
char *diag_escape(Arena *a, const char *s, size_t n, size_t max);

/* ======================================================================
 * lex.c -- bytes to tokens
 *
 * Statements end at newlines, except inside ( ) and [ ], where newlines are
 * skipped.  The lexer validates UTF-8 everywhere (comments included),
 * accepts LF, CRLF and CR line ends and a leading BOM, and rejects NUL.
 * ====================================================================== */

typedef enum {
    T_EOF, T_NEWLINE, T_IDENT, T_NUM, T_STR,
    T_LPAREN, T_RPAREN, T_LBRACK, T_RBRACK,
    T_COMMA, T_EQ, T_COLON, T_PLUS, T_MINUS, T_STAR, T_SLASH, T_BAR,
} TokKind;

typedef struct Token {
    TokKind kind;
    Loc loc;
    const char *s;             /* T_IDENT: the name; T_STR: unquoted text */
    int len;                   /* length of the source spelling */
    double num;                /* T_NUM */
    bool is_int;               /* T_NUM written without '.', 'e' */
    int64_t ival;              /* T_NUM when is_int and it fits */
    bool overflow;             /* T_NUM integer that does not fit int64 */
} Token;

/* The lexer hands out one token at a time, so memory does not grow with
 * the number of tokens; the parser keeps two. */
typedef struct Lexer {
    const SrcFile *f;
    Diag *d;
    Arena *a;
    size_t pos;
    int line;
    size_t line_start;         /* offset of the current line's first byte */
    int depth;                 /* open ( and [ */
    Token tok;                 /* the token just scanned */
    bool have;                 /* tok is ready */
    TokKind last;              /* kind of the previous token */
    bool any;                  /* a token other than a line end was seen */
} Lexer;

void lexer_init(Lexer *L, const SrcFile *f, Diag *d, Arena *a);
Token lexer_next(Lexer *L);
/* All tokens at once, ending with T_EOF (for tests). */
Token *lex(const SrcFile *f, Diag *d, Arena *a, int *ntok);
const char *tok_kind_name(TokKind k);

/* ======================================================================
 * parse.c -- tokens to an AST of statements
 * ====================================================================== */

typedef enum {
    E_NUM,                     /* num / ival / is_int */
    E_STR,                     /* name = the string */
    E_NAME,                    /* name */
    E_CALL,                    /* name(args), kw[i] names keyword args */
    E_LIST,                    /* [args] */
    E_BINOP,                   /* lhs op rhs, op one of + - * / */
    E_NEG,                     /* -lhs */
} ExprKind;

typedef struct Expr Expr;
struct Expr {
    ExprKind kind;
    Loc loc;                   /* first token (the operator for E_BINOP) */
    double num;
    bool is_int;
    int64_t ival;
    const char *name;
    char op;                   /* E_BINOP: '+', '-', '*', '/' */
    Expr *lhs, *rhs;
    Expr **args;               /* E_CALL, E_LIST */
    const char **kw;           /* E_CALL: keyword of arg i, or NULL */
    Loc *kwloc;                /* E_CALL: location of keyword i */
    int nargs;
    int depth;                 /* height of this tree; at most KG_MAX_NEST,
                                  so every later walk recurses boundedly */
};

typedef enum {
    S_MODEL,                   /* model NAME */
    S_PATTERN,                 /* pattern NAME            (pattern files) */
    S_TEMPLATE,                /* template NAME           (pattern files) */
    S_OPTIONAL,                /* optional                (pattern files) */
    S_DIM,                     /* dim A = e, B = e, C      (defaults optional) */
    S_DTYPE,                   /* dtype DT = f16  |  dtype DT (pattern var) */
    S_INPUT,                   /* input NAME : TYPE */
    S_WEIGHT,                  /* weight NAME : TYPE */
    S_PARAM,                   /* param A, B              (pattern holes) */
    S_OPVAR,                   /* op ACT = atan | silu    (pattern op sets) */
    S_OUTPUT,                  /* output A, B */
    S_ASSIGN,                  /* A, B = expr */
} StmtKind;

typedef struct TypeExpr {
    const char *dtype;         /* a dtype name or a dtype variable */
    Loc dtype_loc;
    Expr **dims;               /* dim expressions */
    int ndims;
} TypeExpr;

typedef struct Stmt {
    StmtKind kind;
    Loc loc;                   /* the statement's first token */
    const char **names;        /* declared / assigned / listed names */
    Loc *name_locs;
    Expr **values;             /* S_DIM: default of names[i] or NULL */
    int nnames;
    const char *value_name;    /* S_DTYPE: the dtype; NULL for a variable */
    Loc value_loc;
    const char **opset;        /* S_OPVAR: the op names */
    Loc *opset_locs;
    int nopset;
    TypeExpr type;             /* S_INPUT, S_WEIGHT */
    Expr *rhs;                 /* S_ASSIGN */
    int line_last;             /* last source line (statements may wrap) */
} Stmt;

typedef struct Ast {
    const SrcFile *file;
    Stmt **stmts;
    int nstmts;
} Ast;

/* Parse a whole file.  Returns an Ast even after errors (check d). */
Ast *parse(const SrcFile *f, Diag *d, Arena *a);

/* ======================================================================
 * ops.c -- the op table (ops.def) and parsed signatures
 * ====================================================================== */

typedef enum {
#define OP(ID, NAME, CLASS, NRES, FLAGS, SIG) OP_##ID,
#include "ops.def"
    OP_COUNT
} OpId;

typedef enum {
    OC_UNARY, OC_BINARY, OC_PRELU, OC_MASKED, OC_REDUCE, OC_ROWNORM,
    OC_GEMM, OC_LAYOUT, OC_FUSED,
} OpClass;

enum { OF_ELEM = 1, OF_COMMUT = 2 };

typedef enum {
    DT_BOOL, DT_I32, DT_F16, DT_BF16, DT_F32,
    DT_COUNT,
    DT_WEAK = DT_COUNT,        /* a bare number in an expression (PyTorch's
                                  Python scalar: the tensor's dtype wins) */
} DType;

const char *dtype_name(DType t);
int dtype_lookup(const char *name);          /* -1 if not a dtype */
int dtype_size(DType t);                     /* bytes per element */
bool dtype_is_float(DType t);

typedef enum {
    P_TENSOR, P_OPT_TENSOR, P_TENSOR_LIST,
    P_INT, P_AXIS, P_FLOAT, P_BOOL, P_STR, P_DTYPE, P_INTS,
} ParamKind;

typedef enum { A_NONE, A_INT, A_FLOAT, A_BOOL, A_STR, A_DTYPE, A_INTS } AttrKind;

typedef struct Attr {
    AttrKind kind;             /* A_NONE: optional and absent */
    int64_t i;                 /* A_INT (axes normalised), A_BOOL, A_DTYPE */
    double f;                  /* A_FLOAT */
    const char *s;             /* A_STR */
    int64_t *ints;             /* A_INTS */
    int n;
    /* pattern graphs only: */
    const Expr *expr;          /* the source expression (symbolic dims) */
    int hole;                  /* index of a `param` hole, or -1 */
    Loc loc;
} Attr;

typedef struct Param {
    const char *name;
    ParamKind kind;
    bool optional;             /* may be absent (T?, "?" or has a default) */
    bool has_default;
    Attr def;                  /* the default, when has_default */
} Param;

#define KG_MAX_PARAMS 8

typedef struct OpInfo {
    const char *name;
    OpClass cls;
    int nres;                  /* -1: decided by the arguments */
    unsigned flags;
    int nparams;
    Param params[KG_MAX_PARAMS];
    int ntensor;               /* tensor parameters (T, T?) before others */
} OpInfo;

const OpInfo *op_info(int op);
int op_lookup(const char *name, size_t len); /* -1 if unknown */
/* The op name closest to name (edit distance <= 2), or NULL. */
const char *op_suggest(const char *name);
/* The parameter index named name in op, or -1. */
int op_param(int op, const char *name);

/* ======================================================================
 * sema.c -- AST to a typed graph
 *
 * Models get concrete shapes (dims bound from defaults, --dim and --dtype).
 * Pattern files get ranks and symbolic dims (each Value keeps the Expr of
 * every axis that is known from a declaration), which is all the matcher
 * needs: the model is already checked.
 * ====================================================================== */

typedef struct Node Node;
typedef struct Value Value;

typedef enum { V_INPUT, V_WEIGHT, V_CONST, V_NODE } ValueKind;

struct Value {
    int id;                    /* index in Graph.values */
    ValueKind kind;
    const char *name;          /* the user's name, or NULL for temporaries */
    int version;               /* 1 for the first binding of name, 2, ... */
    DType dt;
    int dtvar;                 /* pattern: dtype variable index, or -1 */
    int rank;
    int64_t shape[KG_MAX_RANK];/* models: concrete */
    const Expr *sym[KG_MAX_RANK]; /* patterns: declared dim expr or NULL */
    double cval;               /* V_CONST */
    bool cint;                 /* V_CONST written as an integer */
    int hole;                  /* pattern V_CONST: `param` index, or -1 */
    Node *def;                 /* V_NODE: producer */
    int def_res;               /* V_NODE: which result of def */
    Node **uses;               /* consumer nodes (with repeats) */
    int nuses, cap_uses;
    bool is_output;
    int output_index;          /* position in `output`, when is_output */
    bool stored;               /* layout.c: its kernel writes it in its own
                                  shape, and a layout op on it is a view */
    Loc loc;                   /* where it was defined */
};

struct Node {
    int id;                    /* index in Graph.nodes: topological order */
    int op;                    /* OpId */
    int opvar;                 /* pattern: `op` variable index, or -1 */
    Value **in;                /* tensor params in order (NULL: absent T?) or
                                  the list of a T* op */
    int nin;
    Value **out;
    int nout;
    Attr *attr;                /* per signature param; tensor ones A_NONE */
    int nattr;                 /* entries of attr: the op's params, or
                                  KG_MAX_PARAMS for a pattern's `op`
                                  variable (its op varies) */
    Loc loc;                   /* the call or operator */
    int line_first, line_last; /* source lines of the statement */
    int kernel;                /* plan: index of its kernel, -1 before */
};

typedef struct DimVar {
    const char *name;
    Loc loc;
    int64_t value;             /* models: bound value */
    bool bound;
} DimVar;

typedef struct DTypeVar {
    const char *name;
    Loc loc;
    DType dt;                  /* models: bound dtype */
    bool bound;
} DTypeVar;

typedef struct OpVar {
    const char *name;
    Loc loc;
    int *ops;                  /* OpIds the variable may stand for */
    int nops;
} OpVar;

typedef struct Graph {
    const SrcFile *file;
    const char *name;          /* model or pattern name */
    bool is_pattern;
    const char *template_name; /* pattern: `template` */
    bool optional;             /* pattern: `optional` (the tuner may unfuse it) */
    Loc name_loc;
    DimVar *dims; int ndims, cap_dims;
    DTypeVar *dtypes; int ndtypes, cap_dtypes;
    const char **params; Loc *param_locs; int nparams; /* pattern holes */
    OpVar *opvars; int nopvars, cap_opvars;
    Value **values; int nvalues, cap_values;
    Node **nodes; int nnodes, cap_nodes;       /* in topological order */
    Value **inputs; int ninputs, cap_inputs;   /* inputs then weights, as
                                                  declared */
    Value **outputs; int noutputs, cap_outputs;
} Graph;

/* A command-line binding: --dim NAME=V or --dtype NAME=T. */
typedef struct Override {
    const char *name;
    const char *value;
    bool is_dtype;
    bool used;                 /* set by sema: the name exists */
} Override;

/* Build the graph of a parsed file.  NULL after errors (reported to d). */
Graph *sema(const Ast *ast, Override *ov, int nov, Diag *d, Arena *a);
int64_t numel(const Value *v);               /* product of the shape */
/* A value's name for messages: "x", "h#2" for the second binding, or "%7". */
const char *value_label(Arena *a, const Value *v);
void graph_dump(FILE *fp, const Graph *g);

/* ======================================================================
 * match.c -- generic fusion matcher over pattern graphs
 * ====================================================================== */

typedef struct Pattern {
    Graph *g;                  /* is_pattern; template_name set */
    const char *path;          /* the pattern file */
    const char *variant;       /* the file's stem, e.g. "sdpa_keypad" */
    int priority;              /* more nodes first; then file name */
} Pattern;

typedef struct PatternSet {
    Pattern **p;
    int n;
} PatternSet;

/* Load every *.pat of dir as patterns (sorted by file name). Errors in a
 * pattern file are reported like model errors.  NULL on error. */
PatternSet *patterns_load(const char *dir, Diag *d, Arena *a);

typedef struct Match {
    const Pattern *pat;
    Value **val;               /* per pattern value id: model value or NULL */
    Node **node;               /* per pattern node id: model node */
    int64_t *dim;              /* per pattern dim: bound value */
    bool *dim_bound;
    double *param;             /* per pattern param: captured number */
    Attr *param_attr;          /* per pattern param: captured attribute */
    bool *param_bound;
    int *opvar;                /* per pattern op variable: the OpId */
    DType *dtvar;              /* per pattern dtype variable */
    bool *dtvar_bound;
    int root;                  /* id of the model node of the first output */
} Match;

/* Find non-overlapping matches of every pattern in g, largest first.
 * Matched nodes get their `kernel` field set to -2 - match index.  An
 * optional pattern's match rooted at node id r is skipped where decline
 * (indexed by node id; NULL declines nothing) holds for r, and the smaller
 * patterns may then take its nodes. */
Match **match_all(Graph *g, const PatternSet *ps, const bool *decline,
                  Arena *a, int *nmatch);
/* The model value bound to the pattern input / output / param named name. */
Value *match_value(const Match *m, const char *name);

/* ======================================================================
 * plan.c -- cover the graph with kernels
 * ====================================================================== */

typedef enum {
    K_FUSED,                   /* a pattern match, its template */
    K_ELEMWISE,                /* a chain/DAG of elementwise ops (with index
                                  remapping layout ops folded in) */
    K_GENERIC,                 /* one non-elementwise op: gemm, reduction */
    K_VIEW,                    /* a layout op that moves no data */
    K_COPY,                    /* a layout op that must copy */
} KernelKind;

typedef struct Kernel {
    int id;
    KernelKind kind;
    const char *name;          /* e.g. "k3_gated_tanh_residual" */
    const char *op;            /* pattern name, "elementwise" or the op */
    const char *template_name; /* the template that implements it */
    Match *match;              /* K_FUSED */
    Node **nodes; int nnodes, cap_nodes;  /* topological order */
    Value **in; int nin, cap_in;          /* values read from outside */
    Value **out; int nout, cap_out;       /* values visible outside */
    double flops;
    double bytes;              /* minimum bytes moved: inputs + outputs */
    int line_first, line_last;
    int *lines; int nlines, cap_lines;    /* every source line covered */
} Kernel;

typedef struct Plan {
    Graph *g;
    bool *unfused;             /* by node id: a node of a match the plan left
                                  unfused (--unfuse); NULL when none */
    Match **matches; int nmatches;
    Kernel **k; int nk, cap_k; /* execution order */
    /* Memory layout of every value (by Value.id): kernel outputs are
     * contiguous; a view shares its base's memory through strides and an
     * element offset. */
    int64_t (*strides)[KG_MAX_RANK];
    int64_t *offset;
    Value **base;              /* the value whose memory a view reads */
} Plan;

/* layout.c: give each conv1d that gains from it a weight relaid tap-major
 * (a copy, then views), and x channel-last where its elementwise kernel
 * can write it so; returns how many convs changed.  Before match and
 * plan. */
int layout_relay_convs(Graph *g, Arena *a);

/* decline: see match_all (NULL: fuse every match). */
Plan *plan_build(Graph *g, const PatternSet *ps, const bool *decline, Arena *a);
/* p planned again with some matches of optional patterns left unfused:
 * those rooted where decline holds (by node id), or else those unfuse names
 * ("all", or kernel names of p, the plan that fuses everything); the nodes
 * they covered are marked in the result's `unfused`.  p (every match fused)
 * must not be used afterwards.  p itself when no optional match is chosen;
 * NULL after an error, on stderr. */
Plan *plan_unfused(Plan *p, const PatternSet *ps, const bool *decline,
                   const char *unfuse, Arena *a);
/* Is k a fused kernel of an optional pattern? */
bool kernel_optional(const Kernel *k);
const char *kernel_kind_name(KernelKind k);
void plan_print(FILE *fp, const Plan *p, Arena *a);   /* the table */
void plan_json(FILE *fp, const Plan *p, Arena *a);
void plan_dump(FILE *fp, const Plan *p);              /* -d plan */

/* ======================================================================
 * expand.c -- Lua templates to source (the only file that includes lua.h)
 *
 * A template (templates/NAME.lua, with templates/lib.lua as the global kg)
 * returns { name, backends, design, tuning, constraints, launch, emit
 * [, supports] }; see docs/templates.md.  kgen enumerates the knobs; a
 * config is one value index per knob, design knobs first.
 * ====================================================================== */

typedef struct Knob {
    const char *name;
    bool design;               /* a strategy choice (else a tuning knob) */
    int n;
    double *num;               /* numeric values (NaN for strings) */
    const char **str;          /* every value as text */
} Knob;

/* A tensor map the kernel takes after its tensors (launch()'s tmaps):
 * map's layout over the memory of kernel argument arg. */
#define MAX_TMAPS 4
typedef struct LaunchTmap {
    int arg;                   /* 0-based, among the tensors */
    kgrt_tmap map;
} LaunchTmap;

typedef struct Launch {
    unsigned grid[3];          /* blocks / work-groups per axis */
    unsigned block[3];         /* threads / work-items per block */
    size_t smem;               /* dynamic shared memory, bytes */
    int ntmaps;
    LaunchTmap tmaps[MAX_TMAPS];
} Launch;

typedef struct Template Template;

/* Load templates/NAME.lua from dir; NULL with the message in err. */
Template *template_load(const char *dir, const char *name, Str *err, Arena *a);
void template_free(Template *t);           /* accepts NULL; closes Lua */
int template_nknobs(const Template *t);
int template_ndesign(const Template *t);
const Knob *template_knob(const Template *t, int i);
uint64_t template_hash(const Template *t); /* template + lib source */
const char *template_name(const Template *t);
bool template_has_backend(const Template *t, const char *backend);
/* Describe kernel k to the template for arch ("sm_90", "opencl").
 * 0 bound; 1 the template's supports() declines (reason in err); -1 error. */
int template_bind(Template *t, const Plan *p, const Kernel *k,
                  const char *arch, Str *err);
/* constraints(spec, cfg): *ok, the reason of a rejection, and in *read
 * (may be NULL) a bit for each knob, by index, that the call read: a
 * rejection holds for every config that agrees on those knobs. */
int template_check(Template *t, const int *cfg, bool *ok, Str *reason,
                   uint64_t *read);
int template_launch(Template *t, const int *cfg, Launch *out, Str *err);
/* rank(spec, cfg), the template's relative cost estimate (lower first);
 * NAN when the template has none, -1 on an error */
int template_rank(Template *t, const int *cfg, double *cost, Str *err);
/* -1, 0, 1 as cost a sorts before, with, after b (NAN last) */
int template_rank_cmp(double a, double b);
int template_emit(Template *t, const int *cfg, Str *src, Str *err);
void template_cfg_str(const Template *t, const int *cfg, Str *out);
int template_eval(Template *t, const char *code, Str *out, Str *err);

/* ======================================================================
 * interp.c -- double-precision reference interpreter
 * ====================================================================== */

typedef struct Tensor {
    DType dt;
    int rank;
    int64_t shape[KG_MAX_RANK];
    int64_t n;                 /* elements */
    double *data;              /* row-major, malloc'd */
} Tensor;

/* Evaluate g with seeded random inputs and weights.  With p == NULL, op by
 * op; with a plan, kernel by kernel (fused kernels through their own
 * reference, elementwise kernels element by element).  outs receives
 * g->noutputs tensors (caller frees with tensor_free).  0 on success; on
 * failure -1 with a message in err. */
int interp_run(const Graph *g, const Plan *p, uint64_t seed, Tensor *outs,
               Str *err);
/* interp_run with given data for some inputs: given[i] (per g->inputs,
 * data != NULL) replaces the random tensor of input i. */
int interp_run_given(const Graph *g, const Plan *p, uint64_t seed,
                     const Tensor *given, Tensor *outs, Str *err);
void tensor_free(Tensor *t);
/* Random data for one value, as interp_run makes inputs (seeded by name). */
int interp_random(const Graph *g, const Value *v, uint64_t seed, Tensor *out,
                  Str *err);
/* One kernel's reference: its nodes op by op on inputs given per k->in. */
int interp_kernel(const Plan *p, const Kernel *k, const Tensor *in, Tensor *out,
                  Str *err);
/* The same with row sampling: linear, matmul, conv1d and sdpa compute about
 * one row in `stride` (always the first and last) and leave NaN elsewhere,
 * so a large kernel's reference costs a fraction of the full one.  Finite
 * elements of the result are exact; NaN ones were not computed (or are
 * NaN in the full reference too). */
int interp_kernel_sampled(const Plan *p, const Kernel *k, const Tensor *in,
                          Tensor *out, int64_t stride, Str *err);
/* Relative L2 error of b against a and the max abs difference; NaN and Inf
 * must occur in the same places (else returns INFINITY). */
double tensor_rel_err(const Tensor *a, const Tensor *b, double *max_abs);

/* ======================================================================
 * pipeline.c -- the stages in order, and the commands built on them
 * ====================================================================== */

typedef struct Options {
    const char *cmd;           /* plan, run, ... */
    const char *path;          /* the model */
    Override *ov; int nov;
    const char *patterns_dir;  /* --patterns, $KGEN_PATTERNS, built-in */
    size_t max_input;          /* --max-input */
    bool json;
    bool ref;                  /* run --ref */
    bool fused;                /* run --plan: evaluate the fused plan too */
    uint64_t seed;
    const char *dump;          /* -d: "parse", "match", "plan", "all" */
    const char *templates_dir; /* --templates, $KGEN_TEMPLATES, built-in */
    const char *arch;          /* --arch sm_90 | opencl */
    const char *backend;       /* --backend cuda | opencl */
    const char *out_dir;       /* -o */
    const char *template_arg;  /* space TEMPLATE */
    const char *kernel;        /* --kernel NAME */
    bool compile_only;         /* --compile-only */
    int configs;               /* --configs N: sample per design point */
    int rank;                  /* space --rank N: best-ranked per design point */
    const char *where[8];      /* --where KNOB=V[,V...]: only those configs */
    int nwhere;
    int verbose;               /* -v */
    bool quiet;                /* -q */
    /* tune, cache */
    const char *db;            /* --db FILE */
    const char *strategy;      /* --strategy exhaustive|random|anneal */
    int budget;                /* --budget N trials per kernel, 0 default */
    double time_s;             /* --time SECONDS for the whole run, 0 none */
    bool force;                /* --force: re-measure cached trials */
    int device;                /* --device N */
    int jobs;                  /* --jobs N compile workers, 0 default */
    double timeout_ms;         /* --timeout MS per kernel run, 0 default */
    bool strict_db;            /* --strict-db: a corrupt DB is an error */
    double threshold;          /* --threshold P (percent) for regressions */
    const char *role;          /* __worker --role compile|device */
    const char *arg2;          /* cache: the subcommand's argument */
    bool no_lib;               /* build --no-lib: sources only */
    const char *save;          /* run --save FILE: reference data */
    int layers;                /* run --layers N: a stack of the model */
    /* --unfuse all|none|KERNEL[,KERNEL...]: plan those matches of optional
     * patterns unfused (kernel names of the plan that fuses everything) */
    const char *unfuse;
    bool unfused_only;         /* tune --unfused-only: only the kernels that
                                  replace an unfused match */
    const bool *decline;       /* by node id: set by build's choice; wins
                                  over unfuse */
} Options;

/* Load, parse, check, match and plan a model; NULL after reporting errors. */
Graph *pipeline_graph(const Options *o, Diag *d, Arena *a); /* to sema */
Plan *pipeline_plan(const Options *o, Diag *d, Arena *a);
int kgen_main(int argc, char **argv);      /* the CLI; returns exit code */
int cmd_devices(bool json);                /* devices.c: kgen devices */

/* gen.c -- kgen gen, kgen space */
typedef struct TemplateCache TemplateCache;
const char *templates_dir(const Options *o);
bool cfg_next(const Template *t, int *cfg, int lo, int hi);
/* fn(ctx, cfg) for every config that passes the template's constraints,
 * with cfg[0..lo) as given and knobs [lo, n) in cfg_next's order; fn
 * returns nonzero to stop, and cfg then holds the config it stopped at.
 * 0 done, 1 stopped by fn, -1 a template error (in err). */
typedef int (*CfgFn)(void *ctx, const int *cfg);
int cfg_each(Template *t, int *cfg, int lo, CfgFn fn, void *ctx, Str *err);
TemplateCache *template_cache_new(Arena *a);
void template_cache_free(TemplateCache *c);    /* closes every template */
Template *template_get(TemplateCache *c, const char *dir, const char *name,
                       Str *err, Arena *a);
int cmd_gen(const Options *o);
int cmd_space(const Options *o);

/* build.c -- kgen build: fused.h, fused.c, libfused.a, libfused.so */
int cmd_build(const Options *o);
/* kgen run --save FILE [--layers N]: inputs, weights, reference outputs. */
int ref_save(const Options *o, const Graph *g);

/* check.c -- kgen check: candidates against the reference on a device */
int cmd_check(const Options *o);

/* tune.c -- kgen tune; cachecmd.c -- kgen cache */
int cmd_tune(const Options *o);
int cmd_cache(const Options *o);
/* The configs of kernel k that pass the template's constraints and every
 * --where restriction of o (each nknobs ints in a).  -1 with the reason in
 * err. */
int tune_space(Template *t, const Plan *p, const Kernel *k, const char *arch,
               const Options *o, int ***cfgs, int *ncfg, Str *err, Arena *a);
/* The same for a template already bound to its kernel. */
int space_list(Template *t, const Options *o, int ***cfgs, int *ncfg,
               Str *err, Arena *a);
/* Does cfg satisfy every --where KNOB=V[,V...] of o? */
bool config_where(const Template *t, const int *cfg, const Options *o);
/* The kernel's cache key: op (template/op#hash of its computation), shape
 * and dtype. */
void kernel_key(const Plan *p, const Kernel *k, const char **op,
                const char **shape, const char **dtype, Arena *a);

#endif

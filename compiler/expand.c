/*
 * expand.c -- the sixth stage: Lua templates to kernel source.  The only
 * file of kgen that includes lua.h.
 *
 * Each template runs in a lua_State of its own, built as a sandbox:
 *   - only the base, string, table and math libraries, minus everything
 *     that reaches outside (load, dofile, loadfile, require, collectgarbage,
 *     string.dump, math.random) or is nondeterministic (next; pairs is
 *     replaced by one that visits keys in sorted order);
 *   - chunks load as text only ("t"), so no bytecode;
 *   - the string metatable is locked (__metatable), so templates cannot
 *     change what "str":method() does;
 *   - an allocator with a memory cap (LUA_ERRMEM past it) and a count hook
 *     with an instruction and wall-clock budget; the hook fires again every
 *     HOOK_EVERY instructions, so a template that catches the error with
 *     pcall is stopped again at once, and C re-checks the budget after
 *     every call, so a swallowed error still fails the expansion;
 *   - every call goes through lua_pcall with a traceback handler; errors
 *     read "templates/X.lua:LINE: message" plus the traceback, and callers
 *     add what was being expanded.
 * Invariants: expansion is deterministic (same template, spec and config
 * give byte-identical source in any process); a failing template never
 * takes kgen down, and lua_close always runs.
 */
#include "kgen.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#define HOOK_EVERY 10000               /* instructions between hook calls */
#define BUDGET_INSTR 100000000LL       /* per call into the template */
#define BUDGET_SECONDS 2.0
#define MEM_LIMIT ((size_t)256 << 20)

struct Template {
    lua_State *L;
    const char *name;                  /* "gemm" */
    const char *chunk;                 /* "templates/gemm.lua" */
    int ref;                           /* the returned table */
    int spec;                          /* the bound spec (LUA_NOREF) */
    Knob *knobs;                       /* design knobs, then tuning knobs */
    int nknobs, ndesign, cap_knobs;
    const char **backends;
    int nbackends;
    uint64_t hash;                     /* template + library source */
    size_t mem, mem_limit;
    long long instr;
    double deadline;
    bool over_budget;
    uint64_t read;                     /* knobs constraints() has read */
    Arena *a;
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- the sandbox ----------------------------------------------------- */

static void *l_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    Template *t = ud;
    if (!ptr)
        osize = 0;
    if (nsize == 0) {
        free(ptr);
        t->mem -= osize;
        return NULL;
    }
    if (nsize > osize && t->mem + (nsize - osize) > t->mem_limit)
        return NULL;                   /* LUA_ERRMEM */
    void *p = realloc(ptr, nsize);
    if (p)
        t->mem = t->mem - osize + nsize;
    return p;
}

static Template *self(lua_State *L)
{
    return *(Template **)lua_getextraspace(L);
}

static void hook(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    Template *t = self(L);
    t->instr += HOOK_EVERY;
    if (t->instr > BUDGET_INSTR || now() > t->deadline) {
        t->over_budget = true;
        char msg[128];         /* lua_pushfstring knows no %lld */
        snprintf(msg, sizeof msg, "template exceeded its time budget (%lld "
                 "instructions or %.0f s)", (long long)BUDGET_INSTR,
                 BUDGET_SECONDS);
        luaL_error(L, "%s", msg);
    }
}

static void arm(Template *t)
{
    t->instr = 0;
    t->over_budget = false;
    t->deadline = now() + BUDGET_SECONDS;
}

/* The message handler: the error as text, plus a traceback. */
static int msgh(lua_State *L)
{
    const char *msg = lua_tostring(L, 1);
    if (!msg)
        msg = lua_pushfstring(L, "(error object is a %s value)",
                              luaL_typename(L, 1));
    luaL_traceback(L, L, msg, 1);
    return 1;
}

/* Call the function below nargs arguments with the handler; 0 or -1 with
 * the message in err.  Results (nres) stay on the stack on success. */
static int call(Template *t, int nargs, int nres, Str *err)
{
    lua_State *L = t->L;
    int base = lua_gettop(L) - nargs;
    lua_pushcfunction(L, msgh);
    lua_insert(L, base);
    arm(t);
    int rc = lua_pcall(L, nargs, nres, base);
    lua_remove(L, base);
    if (rc == LUA_OK && t->over_budget) {
        lua_pop(L, nres);              /* the template swallowed the error */
        str_printf(err, "%s: template exceeded its time budget (caught by "
                   "pcall, still stopped)", t->chunk);
        return -1;
    }
    if (rc == LUA_OK)
        return 0;
    if (rc == LUA_ERRMEM)
        str_printf(err, "%s: template exceeded %zu MiB of memory", t->chunk,
                   t->mem_limit >> 20);
    else
        str_printf(err, "%s", lua_tostring(L, -1) ? lua_tostring(L, -1)
                                                  : "(no message)");
    lua_pop(L, 1);
    return -1;
}

/* kg.line(): a #line directive for the caller's current template line, so
 * compiler messages point back into the template. */
static int kg_line(lua_State *L)
{
    lua_Debug ar;
    if (!lua_getstack(L, 1, &ar) || !lua_getinfo(L, "Sl", &ar))
        return luaL_error(L, "kg.line: no caller");
    lua_pushfstring(L, "#line %d \"%s\"\n", ar.currentline, ar.short_src);
    return 1;
}

/* kg.hex(x): the exact float as a C hexadecimal literal (deterministic,
 * lossless), e.g. 0x1.6a09e667f3bcdp-1 */
static int kg_hex(lua_State *L)
{
    double x = luaL_checknumber(L, 1);
    char buf[64];
    if (isnan(x))
        snprintf(buf, sizeof buf, "NAN");
    else if (isinf(x))
        snprintf(buf, sizeof buf, x > 0 ? "INFINITY" : "(-INFINITY)");
    else
        snprintf(buf, sizeof buf, "%a", x);
    lua_pushstring(L, buf);
    return 1;
}

/* pcall and xpcall that cannot swallow a budget or memory error: once a
 * template is over its budget, the error passes through every protected
 * call up to kgen (RELIABILITY B2: a loop around pcall must not spin). */
static int sb_pcall(lua_State *L)
{
    luaL_checkany(L, 1);
    int st = lua_pcall(L, lua_gettop(L) - 1, LUA_MULTRET, 0);
    if (st != LUA_OK && (self(L)->over_budget || st == LUA_ERRMEM))
        return lua_error(L);
    lua_pushboolean(L, st == LUA_OK);
    lua_insert(L, 1);
    return lua_gettop(L);
}

static int sb_xpcall(lua_State *L)
{
    int n = lua_gettop(L);
    luaL_checktype(L, 2, LUA_TFUNCTION);
    lua_pushvalue(L, 1);               /* [f, h, args..., f] */
    lua_pushvalue(L, 2);               /* [f, h, args..., f, h] */
    lua_replace(L, 1);                 /* [h, h, args..., f] */
    lua_replace(L, 2);                 /* [h, f, args...] */
    int st = lua_pcall(L, n - 2, LUA_MULTRET, 1);
    if (st != LUA_OK && (self(L)->over_budget || st == LUA_ERRMEM))
        return lua_error(L);
    lua_pushboolean(L, st == LUA_OK);
    lua_replace(L, 1);
    return lua_gettop(L);
}

static const luaL_Reg kg_lib[] = {
    {"line", kg_line},
    {"hex", kg_hex},
    {NULL, NULL},
};

/* Replaces pairs (key order of next depends on a per-process hash seed)
 * and removes what a template must not reach. */
static const char prelude[] =
    "local next, type, sort, tostring = next, type, table.sort, tostring\n"
    "local getmetatable = getmetatable\n"
    "local function before(a, b)\n"
    "  local ta, tb = type(a), type(b)\n"
    "  if ta ~= tb then return ta < tb end\n"
    "  if ta == 'number' or ta == 'string' then return a < b end\n"
    "  return tostring(a) < tostring(b)\n"
    "end\n"
    "function pairs(t)\n"
    "  local mt = getmetatable(t)\n"
    "  if type(mt) == 'table' and mt.__pairs then return mt.__pairs(t) end\n"
    "  local keys = {}\n"
    "  for k in next, t do keys[#keys + 1] = k end\n"
    "  sort(keys, before)\n"
    "  local i = 0\n"
    "  return function()\n"
    "    i = i + 1\n"
    "    local k = keys[i]\n"
    "    if k ~= nil then return k, t[k] end\n"
    "  end, t, nil\n"
    "end\n";

static const char *const banned[] = {
    "load", "loadfile", "dofile", "require", "collectgarbage", "next",
    "print", "module", NULL,
};

static int open_sandbox(Template *t, Str *err)
{
    lua_State *L = lua_newstate(l_alloc, t);
    if (!L) {
        str_printf(err, "cannot create a Lua state");
        return -1;
    }
    t->L = L;
    *(Template **)lua_getextraspace(L) = t;
    static const luaL_Reg libs[] = {
        {LUA_GNAME, luaopen_base}, {LUA_STRLIBNAME, luaopen_string},
        {LUA_TABLIBNAME, luaopen_table}, {LUA_MATHLIBNAME, luaopen_math},
    };
    for (size_t i = 0; i < sizeof libs / sizeof *libs; i++) {
        luaL_requiref(L, libs[i].name, libs[i].func, 1);
        lua_pop(L, 1);
    }
    lua_sethook(L, hook, LUA_MASKCOUNT, HOOK_EVERY);
    if (luaL_loadbufferx(L, prelude, sizeof prelude - 1, "=prelude", "t") ||
        call(t, 0, 0, err))
        return -1;
    for (int i = 0; banned[i]; i++) {
        lua_pushnil(L);
        lua_setglobal(L, banned[i]);
    }
    lua_pushcfunction(L, sb_pcall);
    lua_setglobal(L, "pcall");
    lua_pushcfunction(L, sb_xpcall);
    lua_setglobal(L, "xpcall");
    lua_getglobal(L, "string");
    lua_pushnil(L);
    lua_setfield(L, -2, "dump");
    lua_pop(L, 1);
    lua_getglobal(L, "math");
    lua_pushnil(L);
    lua_setfield(L, -2, "random");
    lua_pushnil(L);
    lua_setfield(L, -2, "randomseed");
    lua_pop(L, 1);
    /* lock the shared string metatable */
    lua_pushliteral(L, "");
    if (lua_getmetatable(L, -1)) {
        lua_pushboolean(L, 0);
        lua_setfield(L, -2, "__metatable");
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    return 0;
}

/* Load file dir/name as chunk "templates/name" and run it; its result is
 * left on the stack. */
static int run_file(Template *t, const char *dir, const char *file,
                    uint64_t *hash, Str *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    size_t n;
    char *src = read_file(path, 1 << 20, &n);
    if (!src) {
        str_printf(err, "templates/%s: cannot read %s: %s", file, path,
                   strerror(errno));
        return -1;
    }
    *hash = hash64(src, n, *hash);
    char chunk[300];
    snprintf(chunk, sizeof chunk, "@templates/%s", file);
    int rc = luaL_loadbufferx(t->L, src, n, chunk, "t");
    free(src);
    if (rc != LUA_OK) {
        str_printf(err, "%s", lua_tostring(t->L, -1));
        lua_pop(t->L, 1);
        return -1;
    }
    return call(t, 0, 1, err);
}

/* ---- reading the template's table --------------------------------------- */

static int knob_cmp(const void *a, const void *b)
{
    return strcmp(((const Knob *)a)->name, ((const Knob *)b)->name);
}

/* Read field `field` (a table name -> list of values) into knobs. */
static int read_knobs(Template *t, const char *field, bool design, Str *err)
{
    lua_State *L = t->L;
    lua_getfield(L, -1, field);
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        return 0;
    }
    if (!lua_istable(L, -1)) {
        str_printf(err, "%s: '%s' must be a table of name = {values}",
                   t->chunk, field);
        lua_pop(L, 1);
        return -1;
    }
    int first = t->nknobs;
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        if (lua_type(L, -2) != LUA_TSTRING || !lua_istable(L, -1)) {
            str_printf(err, "%s: %s entries must be name = {values}", t->chunk,
                       field);
            lua_pop(L, 3);
            return -1;
        }
        Knob k = {.name = arena_strdup(t->a, lua_tostring(L, -2)),
                  .design = design};
        int n = (int)luaL_len(L, -1);
        if (n < 1 || n > 64) {
            str_printf(err, "%s: %s.%s needs 1 to 64 values", t->chunk,
                       field, k.name);
            lua_pop(L, 3);
            return -1;
        }
        k.n = n;
        k.num = arena_alloc(t->a, (size_t)n * sizeof *k.num);
        k.str = arena_alloc(t->a, (size_t)n * sizeof *k.str);
        for (int i = 0; i < n; i++) {
            lua_rawgeti(L, -1, i + 1);
            if (lua_type(L, -1) == LUA_TNUMBER) {
                k.num[i] = lua_tonumber(L, -1);
                k.str[i] = arena_printf(t->a, "%.17g", k.num[i]);
            } else if (lua_type(L, -1) == LUA_TSTRING && design) {
                k.str[i] = arena_strdup(t->a, lua_tostring(L, -1));
                k.num[i] = NAN;
            } else {
                str_printf(err, "%s: %s.%s[%d] must be a %s", t->chunk, field,
                           k.name, i + 1, design ? "number or string" : "number");
                lua_pop(L, 4);
                return -1;
            }
            lua_pop(L, 1);
        }
        ARENA_PUSH(t->a, t->knobs, t->nknobs, t->cap_knobs, k);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    /* lua_next order is not deterministic: sort by name */
    if (t->nknobs > first)
        qsort(t->knobs + first, (size_t)(t->nknobs - first), sizeof *t->knobs,
              knob_cmp);
    if (design)
        t->ndesign = t->nknobs;
    return 0;
}

static int read_template(Template *t, Str *err)
{
    lua_State *L = t->L;
    if (!lua_istable(L, -1)) {
        str_printf(err, "%s: a template returns a table, not a %s", t->chunk,
                   luaL_typename(L, -1));
        return -1;
    }
    lua_getfield(L, -1, "name");
    if (!lua_isstring(L, -1) || strcmp(lua_tostring(L, -1), t->name)) {
        str_printf(err, "%s: the table's name must be \"%s\"", t->chunk,
                   t->name);
        lua_pop(L, 1);
        return -1;
    }
    lua_pop(L, 1);
    static const char *fns[] = {"constraints", "launch", "emit"};
    for (int i = 0; i < 3; i++) {
        lua_getfield(L, -1, fns[i]);
        bool ok = lua_isfunction(L, -1);
        lua_pop(L, 1);
        if (!ok) {
            str_printf(err, "%s: '%s' must be a function", t->chunk, fns[i]);
            return -1;
        }
    }
    lua_getfield(L, -1, "backends");
    if (!lua_istable(L, -1)) {
        str_printf(err, "%s: 'backends' must be a list such as {\"cuda\", "
                   "\"opencl\"}", t->chunk);
        lua_pop(L, 1);
        return -1;
    }
    int nb = (int)luaL_len(L, -1), cap = 0;
    for (int i = 1; i <= nb && i <= 8; i++) {
        lua_rawgeti(L, -1, i);
        if (lua_isstring(L, -1))
            ARENA_PUSH(t->a, t->backends, t->nbackends, cap,
                       arena_strdup(t->a, lua_tostring(L, -1)));
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    if (read_knobs(t, "design", true, err) || read_knobs(t, "tuning", false, err))
        return -1;
    return 0;
}

Template *template_load(const char *dir, const char *name, Str *err, Arena *a)
{
    for (const char *c = name; *c; c++)
        if (!(*c == '_' || (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9'))) {
            str_printf(err, "bad template name '%s'", name);
            return NULL;
        }
    Template *t = arena_alloc(a, sizeof *t);
    t->a = a;
    t->name = arena_strdup(a, name);
    t->chunk = arena_printf(a, "templates/%s.lua", name);
    t->mem_limit = MEM_LIMIT;
    t->ref = t->spec = LUA_NOREF;
    if (open_sandbox(t, err))
        goto fail;
    lua_State *L = t->L;
    /* the helper library becomes the global kg (with the C helpers) */
    uint64_t h = 0;
    if (run_file(t, dir, "lib.lua", &h, err))
        goto fail;
    if (!lua_istable(L, -1)) {
        str_printf(err, "templates/lib.lua must return a table");
        goto fail;
    }
    luaL_setfuncs(L, kg_lib, 0);
    lua_setglobal(L, "kg");
    char file[128];
    snprintf(file, sizeof file, "%s.lua", name);
    if (run_file(t, dir, file, &h, err))
        goto fail;
    t->hash = h;
    if (read_template(t, err))
        goto fail;
    t->ref = luaL_ref(L, LUA_REGISTRYINDEX);
    return t;
fail:
    template_free(t);
    return NULL;
}

void template_free(Template *t)
{
    if (t && t->L) {
        lua_close(t->L);
        t->L = NULL;
    }
}

int template_nknobs(const Template *t) { return t->nknobs; }
int template_ndesign(const Template *t) { return t->ndesign; }
const Knob *template_knob(const Template *t, int i) { return &t->knobs[i]; }
uint64_t template_hash(const Template *t) { return t->hash; }
const char *template_name(const Template *t) { return t->name; }

bool template_has_backend(const Template *t, const char *backend)
{
    for (int i = 0; i < t->nbackends; i++)
        if (!strcmp(t->backends[i], backend))
            return true;
    return false;
}

/* ---- the spec: what a template is told about a kernel ---------------------- */

static void set_str(lua_State *L, const char *k, const char *v)
{
    lua_pushstring(L, v);
    lua_setfield(L, -2, k);
}

static void set_num(lua_State *L, const char *k, double v)
{
    lua_pushnumber(L, v);
    lua_setfield(L, -2, k);
}

static void set_int(lua_State *L, const char *k, int64_t v)
{
    lua_pushinteger(L, (lua_Integer)v);
    lua_setfield(L, -2, k);
}

static void push_ints(lua_State *L, const int64_t *v, int n)
{
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        lua_pushinteger(L, (lua_Integer)v[i]);
        lua_rawseti(L, -2, i + 1);
    }
}

static void push_attr(lua_State *L, const Attr *at)
{
    switch (at->kind) {
    case A_INT: lua_pushinteger(L, (lua_Integer)at->i); break;
    case A_FLOAT: lua_pushnumber(L, at->f); break;
    case A_BOOL: lua_pushboolean(L, (int)at->i); break;
    case A_STR: lua_pushstring(L, at->s); break;
    case A_DTYPE: lua_pushstring(L, dtype_name((DType)at->i)); break;
    case A_INTS: push_ints(L, at->ints, at->n); break;
    default: lua_pushnil(L); break;
    }
}

/* One value as seen by the kernel: dtype, shape, and for arguments their
 * layout.  Its table index in spec.values is *vidx. */
typedef struct SpecBuild {
    const Plan *p;
    const Kernel *k;
    int *vid;                          /* Value.id -> spec.values index */
    int nvals;
    int *arg;                          /* Value.id -> spec.args index */
} SpecBuild;

static int value_index(lua_State *L, SpecBuild *B, const Value *v)
{
    if (B->vid[v->id])
        return B->vid[v->id];
    int idx = B->vid[v->id] = ++B->nvals;
    lua_getfield(L, -1, "values");
    lua_createtable(L, 0, 8);
    set_int(L, "id", idx);
    set_str(L, "dtype", v->kind == V_CONST ? "scalar" : dtype_name(v->dt));
    push_ints(L, v->shape, v->rank);
    lua_setfield(L, -2, "shape");
    set_int(L, "rank", v->rank);
    if (v->kind == V_CONST)
        set_num(L, "const", v->cval);
    if (B->arg[v->id])
        set_int(L, "arg", B->arg[v->id]);
    lua_rawseti(L, -2, idx);
    lua_pop(L, 1);
    return idx;
}

static void push_arg(lua_State *L, SpecBuild *B, const Value *v, int index,
                     bool output)
{
    Arena *tmp = arena_new();
    const Plan *p = B->p;
    lua_createtable(L, 0, 12);
    set_int(L, "index", index);
    set_str(L, "cname", arena_printf(tmp, "a%d", index - 1));
    set_str(L, "name", value_label(tmp, v));
    set_str(L, "dtype", dtype_name(v->dt));
    push_ints(L, v->shape, v->rank);
    lua_setfield(L, -2, "shape");
    push_ints(L, p->strides[v->id], v->rank);
    lua_setfield(L, -2, "strides");
    set_int(L, "rank", v->rank);
    set_int(L, "offset", p->offset[v->id]);
    set_int(L, "numel", numel(v));
    lua_pushboolean(L, output);
    lua_setfield(L, -2, "output");
    bool contiguous = p->offset[v->id] == 0;
    int64_t s = 1;
    for (int i = v->rank - 1; i >= 0; i--) {
        if (v->shape[i] != 1 && p->strides[v->id][i] != s)
            contiguous = false;
        s *= v->shape[i];
    }
    lua_pushboolean(L, contiguous);
    lua_setfield(L, -2, "contiguous");
    arena_free(tmp);
}

/* The limits a template sees: shared memory and threads per block, and
 * the compute units (SMs) of the arch's common data-centre part, for
 * rank()'s estimate of waves (nominal, so that the order does not depend
 * on which device of the arch runs the tuner) */
static const char *backend_arch_limits(const char *arch, int64_t *smem,
                                       int64_t *threads, int64_t *units)
{
    *threads = 1024;
    if (!strncmp(arch, "sm_", 3)) {
        int sm = atoi(arch + 3);
        *smem = sm >= 90 ? 232448 : sm >= 80 ? 166912 : 101376;
        *units = sm >= 90 ? 132 : sm == 80 ? 108 : 80;
        return "cuda";
    }
    *smem = 32768;                     /* OpenCL's guaranteed minimum */
    *units = 16;
    return "opencl";
}

/* Build the spec table for kernel k and keep it as the bound spec. */
int template_bind(Template *t, const Plan *p, const Kernel *k,
                  const char *arch, Str *err)
{
    lua_State *L = t->L;
    const Graph *g = p->g;
    if (t->spec != LUA_NOREF)
        luaL_unref(L, LUA_REGISTRYINDEX, t->spec);
    t->spec = LUA_NOREF;
    int64_t smem, threads, units;
    const char *backend = backend_arch_limits(arch, &smem, &threads, &units);
    if (!template_has_backend(t, backend)) {
        str_printf(err, "%s has no %s backend", t->chunk, backend);
        return -1;
    }
    SpecBuild B = {.p = p, .k = k};
    B.vid = calloc((size_t)g->nvalues + 1, sizeof *B.vid);
    B.arg = calloc((size_t)g->nvalues + 1, sizeof *B.arg);
    if (!B.vid || !B.arg)
        die("out of memory");
    lua_createtable(L, 0, 24);
    set_str(L, "kernel", k->name);
    set_str(L, "kind", kernel_kind_name(k->kind));
    set_str(L, "op", k->op);
    set_str(L, "template", k->template_name);
    set_str(L, "backend", backend);
    set_str(L, "arch", arch);
    lua_createtable(L, 0, 3);
    set_int(L, "smem", smem);
    set_int(L, "threads", threads);
    set_int(L, "units", units);
    lua_setfield(L, -2, "limits");
    /* arguments: inputs, then outputs */
    lua_createtable(L, k->nin + k->nout, 0);
    lua_createtable(L, k->nin, 0);
    lua_createtable(L, k->nout, 0);
    int na = 0;
    for (int i = 0; i < k->nin + k->nout; i++) {
        bool out = i >= k->nin;
        const Value *v = out ? k->out[i - k->nin] : k->in[i];
        B.arg[v->id] = ++na;
        push_arg(L, &B, v, na, out);
        lua_pushvalue(L, -1);
        lua_rawseti(L, out ? -3 : -4, out ? i - k->nin + 1 : i + 1);
        lua_rawseti(L, -4, na);
    }
    lua_setfield(L, -4, "outputs");
    lua_setfield(L, -3, "inputs");
    lua_setfield(L, -2, "args");
    /* the subgraph: values and nodes in topological order */
    lua_newtable(L);
    lua_setfield(L, -2, "values");
    lua_createtable(L, k->nnodes, 0);
    for (int i = 0; i < k->nnodes; i++) {
        const Node *n = k->nodes[i];
        const OpInfo *o = op_info(n->op);
        lua_createtable(L, 0, 6);
        set_str(L, "op", o->name);
        set_int(L, "line", n->line_first);
        lua_createtable(L, n->nin, 0);
        for (int j = 0; j < n->nin; j++) {
            if (n->in[j]) {
                lua_pushvalue(L, -4);          /* spec, for value_index */
                int idx = value_index(L, &B, n->in[j]);
                lua_pop(L, 1);
                lua_pushinteger(L, idx);
            } else {
                lua_pushboolean(L, 0);         /* an absent optional tensor */
            }
            lua_rawseti(L, -2, j + 1);
        }
        lua_setfield(L, -2, "args");
        lua_createtable(L, n->nout, 0);
        for (int j = 0; j < n->nout; j++) {
            lua_pushvalue(L, -4);
            int idx = value_index(L, &B, n->out[j]);
            lua_pop(L, 1);
            lua_pushinteger(L, idx);
            lua_rawseti(L, -2, j + 1);
        }
        lua_setfield(L, -2, "results");
        lua_newtable(L);
        for (int q = 0; q < o->nparams; q++)
            if (o->params[q].kind > P_TENSOR_LIST && n->attr[q].kind != A_NONE) {
                push_attr(L, &n->attr[q]);
                lua_setfield(L, -2, o->params[q].name);
            }
        lua_setfield(L, -2, "attrs");
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "nodes");
    /* a fused kernel's bindings, by the pattern's names */
    if (k->kind == K_FUSED) {
        const Match *m = k->match;
        const Graph *pg = m->pat->g;
        set_str(L, "pattern", pg->name);
        set_str(L, "variant", m->pat->variant);
        lua_newtable(L);
        for (int i = 0; i < pg->nvalues; i++) {
            const Value *pv = pg->values[i];
            const Value *mv = m->val[pv->id];
            if (!pv->name || !mv || !(pv->kind == V_INPUT ||
                                      pv->kind == V_WEIGHT || pv->is_output))
                continue;
            if (B.arg[mv->id]) {
                lua_getfield(L, -2, "args");
                lua_rawgeti(L, -1, B.arg[mv->id]);
                lua_setfield(L, -3, pv->name);
                lua_pop(L, 1);
            }
        }
        lua_setfield(L, -2, "bind");
        lua_newtable(L);
        for (int i = 0; i < pg->ndims; i++)
            if (m->dim_bound[i])
                set_int(L, pg->dims[i].name, m->dim[i]);
        lua_setfield(L, -2, "dims");
        lua_newtable(L);
        for (int i = 0; i < pg->nparams; i++)
            if (m->param_bound[i]) {
                push_attr(L, &m->param_attr[i]);
                lua_setfield(L, -2, pg->params[i]);
            }
        lua_setfield(L, -2, "params");
        lua_newtable(L);
        for (int i = 0; i < pg->nopvars; i++)
            if (m->opvar[i] >= 0)
                set_str(L, pg->opvars[i].name, op_info(m->opvar[i])->name);
        lua_setfield(L, -2, "ops");
    }
    free(B.vid);
    free(B.arg);
    t->spec = luaL_ref(L, LUA_REGISTRYINDEX);
    /* optional supports(spec): can this template do this kernel at all? */
    lua_rawgeti(L, LUA_REGISTRYINDEX, t->ref);
    lua_getfield(L, -1, "supports");
    lua_remove(L, -2);
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        return 0;
    }
    lua_rawgeti(L, LUA_REGISTRYINDEX, t->spec);
    if (call(t, 1, 2, err))
        return -1;
    if (!lua_toboolean(L, -2)) {
        str_printf(err, "%s does not support kernel %s: %s", t->chunk, k->name,
                   lua_isstring(L, -1) ? lua_tostring(L, -1) : "(no reason)");
        lua_pop(L, 2);
        return 1;
    }
    lua_pop(L, 2);
    return 0;
}

/* Push the config table: every knob by name (design values as given). */
static void push_cfg(Template *t, const int *cfg, bool design_only)
{
    lua_State *L = t->L;
    lua_createtable(L, 0, t->nknobs);
    for (int i = 0; i < (design_only ? t->ndesign : t->nknobs); i++) {
        const Knob *k = &t->knobs[i];
        if (isnan(k->num[cfg[i]]))
            lua_pushstring(L, k->str[cfg[i]]);
        else if (k->num[cfg[i]] == floor(k->num[cfg[i]]) &&
                 fabs(k->num[cfg[i]]) < 1e15)
            lua_pushinteger(L, (lua_Integer)k->num[cfg[i]]);
        else
            lua_pushnumber(L, k->num[cfg[i]]);
        lua_setfield(L, -2, k->name);
    }
}

void template_cfg_str(const Template *t, const int *cfg, Str *out)
{
    for (int i = 0; i < t->nknobs; i++)
        str_printf(out, "%s%s=%s", i ? " " : "", t->knobs[i].name,
                   t->knobs[i].str[cfg[i]]);
}

/* Push method `fn` of the template and the bound spec, its first argument. */
static void push_method(Template *t, const char *fn)
{
    lua_State *L = t->L;
    if (t->spec == LUA_NOREF)
        die("template %s called without a bound spec", t->name);
    lua_rawgeti(L, LUA_REGISTRYINDEX, t->ref);
    lua_getfield(L, -1, fn);
    lua_remove(L, -2);
    lua_rawgeti(L, LUA_REGISTRYINDEX, t->spec);
}

/* Call method `fn` of the template with (spec, cfg). */
static int method(Template *t, const char *fn, const int *cfg, bool design_only,
                  int nres, Str *err)
{
    push_method(t, fn);
    push_cfg(t, cfg, design_only);
    return call(t, 2, nres, err);
}

/* The config table constraints() sees: an empty proxy whose __index reads
 * the real table (upvalue 1) and sets the bit of each knob read in the
 * template's mask (upvalue 2), so that the scanners know which knobs a
 * rejection depends on.  pairs() (the prelude's, which honours __pairs)
 * reads every knob. */
static int watch_index(lua_State *L)
{
    Template *t = lua_touserdata(L, lua_upvalueindex(2));
    const char *key = lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : NULL;
    for (int i = 0; key && i < t->nknobs && i < 64; i++)
        if (!strcmp(key, t->knobs[i].name)) {
            t->read |= (uint64_t)1 << i;
            break;
        }
    lua_pushvalue(L, 2);
    lua_rawget(L, lua_upvalueindex(1));
    return 1;
}

static int watch_pairs(lua_State *L)
{
    Template *t = lua_touserdata(L, lua_upvalueindex(2));
    t->read = ~(uint64_t)0;
    lua_getglobal(L, "pairs");
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_call(L, 1, 3);
    return 3;
}

/* Push the proxy of cfg (watch_index) and clear the template's mask. */
static void push_watched_cfg(Template *t, const int *cfg)
{
    lua_State *L = t->L;
    lua_newtable(L);                           /* the proxy */
    lua_createtable(L, 0, 2);                  /* its metatable */
    push_cfg(t, cfg, false);
    lua_pushvalue(L, -1);
    lua_pushlightuserdata(L, t);
    lua_pushcclosure(L, watch_index, 2);
    lua_setfield(L, -3, "__index");
    lua_pushlightuserdata(L, t);
    lua_pushcclosure(L, watch_pairs, 2);
    lua_setfield(L, -2, "__pairs");
    lua_setmetatable(L, -2);
    t->read = t->nknobs > 64 ? ~(uint64_t)0 : 0;
}

int template_check(Template *t, const int *cfg, bool *ok, Str *reason,
                   uint64_t *read)
{
    lua_State *L = t->L;
    push_method(t, "constraints");
    push_watched_cfg(t, cfg);
    if (call(t, 2, 2, reason))
        return -1;
    *ok = lua_toboolean(L, -2);
    if (!*ok && lua_isstring(L, -1))
        str_printf(reason, "%s", lua_tostring(L, -1));
    lua_pop(L, 2);
    if (read)
        *read = t->read;
    return 0;
}

/* The template's rank(spec, cfg), a relative cost estimate: NAN when it
 * has none; -1 on an error or a result that is not a number. */
int template_rank(Template *t, const int *cfg, double *cost, Str *err)
{
    lua_State *L = t->L;
    *cost = NAN;
    lua_rawgeti(L, LUA_REGISTRYINDEX, t->ref);
    lua_getfield(L, -1, "rank");
    bool has = lua_isfunction(L, -1);
    lua_pop(L, 2);
    if (!has)
        return 0;
    if (method(t, "rank", cfg, false, 1, err))
        return -1;
    int isnum;
    double v = lua_tonumberx(L, -1, &isnum);
    lua_pop(L, 1);
    if (!isnum || isnan(v)) {
        str_printf(err, "%s: rank() must return a number", t->chunk);
        return -1;
    }
    *cost = v;
    return 0;
}

int template_rank_cmp(double a, double b)
{
    if (isnan(a) || isnan(b))
        return isnan(a) - isnan(b);
    return (a > b) - (a < b);
}

static int read_dim3(lua_State *L, const char *field, unsigned out[3])
{
    lua_getfield(L, -1, field);
    if (!lua_istable(L, -1)) {
        lua_pop(L, 1);
        return -1;
    }
    for (int i = 0; i < 3; i++) {
        lua_rawgeti(L, -1, i + 1);
        lua_Integer v = lua_isinteger(L, -1) ? lua_tointeger(L, -1)
                      : lua_isnil(L, -1) ? 1 : -1;
        lua_pop(L, 1);
        if (v < 0 || v > 0x7fffffff) {
            lua_pop(L, 1);
            return -1;
        }
        out[i] = (unsigned)v;
    }
    lua_pop(L, 1);
    return 0;
}

/* Integers 1..n of the array field `field` of the table on top into out
 * (n values); the count, or -1. */
static int read_u64s(lua_State *L, const char *field, uint64_t *out, int n)
{
    int c = 0;
    lua_getfield(L, -1, field);
    if (!lua_istable(L, -1)) {
        lua_pop(L, 1);
        return -1;
    }
    for (int i = 0; i < n + 1; i++) {
        lua_rawgeti(L, -1, i + 1);
        bool nil = lua_isnil(L, -1);
        lua_Integer v = lua_isinteger(L, -1) ? lua_tointeger(L, -1) : -1;
        lua_pop(L, 1);
        if (nil)
            break;
        if (v < 0 || i == n) {
            c = -1;
            break;
        }
        out[c++] = (uint64_t)v;
    }
    lua_pop(L, 1);
    return c;
}

/* launch()'s optional tmaps: { {arg = i, dtype = "f16", dims = {...},
 * strides = {...} (bytes), box = {...}, off = bytes, swizzle = 128}, ... }
 * (dims innermost first) */
static int read_tmaps(lua_State *L, Launch *out)
{
    lua_getfield(L, -1, "tmaps");
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        return 0;
    }
    int rc = lua_istable(L, -1) ? 0 : -1;
    for (int i = 0; rc == 0; i++) {
        lua_rawgeti(L, -1, i + 1);
        if (lua_isnil(L, -1)) {
            lua_pop(L, 1);
            break;
        }
        if (i == MAX_TMAPS || !lua_istable(L, -1)) {
            lua_pop(L, 1);
            rc = -1;
            break;
        }
        LaunchTmap *tm = &out->tmaps[out->ntmaps++];
        uint64_t dims[KGRT_TMAP_RANK], strides[KGRT_TMAP_RANK], box[KGRT_TMAP_RANK];
        memset(tm, 0, sizeof *tm);
        lua_getfield(L, -1, "arg");
        tm->arg = lua_isinteger(L, -1) ? (int)lua_tointeger(L, -1) - 1 : -1;
        lua_getfield(L, -2, "off");
        lua_Integer off = lua_isinteger(L, -1) ? lua_tointeger(L, -1) : 0;
        lua_getfield(L, -3, "swizzle");
        tm->map.swizzle = lua_isinteger(L, -1) ? (int)lua_tointeger(L, -1) : 0;
        lua_getfield(L, -4, "dtype");
        const char *dt = lua_tostring(L, -1);
        tm->map.dtype = !dt ? -1 : !strcmp(dt, "f16") ? KGRT_F16
                      : !strcmp(dt, "bf16") ? KGRT_BF16
                      : !strcmp(dt, "f32") ? KGRT_F32 : -1;
        lua_pop(L, 4);
        int nd = read_u64s(L, "dims", dims, KGRT_TMAP_RANK);
        int ns = read_u64s(L, "strides", strides, KGRT_TMAP_RANK - 1);
        int nb = read_u64s(L, "box", box, KGRT_TMAP_RANK);
        lua_pop(L, 1);
        if (tm->arg < 0 || off < 0 || tm->map.dtype < 0 || nd < 1 ||
            ns != nd - 1 || nb != nd) {
            rc = -1;
            break;
        }
        tm->map.rank = nd;
        tm->map.off = (uint64_t)off;
        for (int d = 0; d < nd; d++) {
            tm->map.dims[d] = dims[d];
            tm->map.box[d] = (uint32_t)(box[d] > 0xffff ? 0 : box[d]);
            if (d > 0)
                tm->map.strides[d - 1] = strides[d - 1];
        }
    }
    lua_pop(L, 1);
    return rc;
}

int template_launch(Template *t, const int *cfg, Launch *out, Str *err)
{
    lua_State *L = t->L;
    if (method(t, "launch", cfg, false, 1, err))
        return -1;
    memset(out, 0, sizeof *out);
    int rc = 0;
    if (!lua_istable(L, -1) || read_dim3(L, "grid", out->grid) ||
        read_dim3(L, "block", out->block)) {
        str_printf(err, "%s: launch() must return {grid = {x, y, z}, block = "
                   "{x, y, z}, smem = bytes} with non-negative integers",
                   t->chunk);
        rc = -1;
    } else {
        lua_getfield(L, -1, "smem");
        out->smem = lua_isinteger(L, -1) && lua_tointeger(L, -1) > 0
                        ? (size_t)lua_tointeger(L, -1) : 0;
        lua_pop(L, 1);
        if (read_tmaps(L, out)) {
            str_printf(err, "%s: launch()'s tmaps must be at most %d tables "
                       "{arg = i, dtype = \"f16\"|\"bf16\"|\"f32\", dims = "
                       "{...}, strides = {...}, box = {...}[, off = bytes]"
                       "[, swizzle = bytes]}", t->chunk, MAX_TMAPS);
            rc = -1;
        }
    }
    lua_pop(L, 1);
    return rc;
}

int template_emit(Template *t, const int *cfg, Str *src, Str *err)
{
    lua_State *L = t->L;
    if (method(t, "emit", cfg, true, 1, err))
        return -1;
    size_t n;
    const char *s = lua_tolstring(L, -1, &n);
    if (!s || lua_type(L, -1) != LUA_TSTRING) {
        str_printf(err, "%s: emit() must return the source as a string",
                   t->chunk);
        lua_pop(L, 1);
        return -1;
    }
    str_printf(src, "%.*s", (int)n, s);
    lua_pop(L, 1);
    return 0;
}

/* Run a chunk of Lua text in the template's sandbox (tests). */
int template_eval(Template *t, const char *code, Str *out, Str *err)
{
    lua_State *L = t->L;
    if (luaL_loadbufferx(L, code, strlen(code), "=eval", "t") != LUA_OK) {
        str_printf(err, "%s", lua_tostring(L, -1));
        lua_pop(L, 1);
        return -1;
    }
    if (call(t, 0, 1, err))
        return -1;
    const char *s = luaL_tolstring(L, -1, NULL);
    str_printf(out, "%s", s);
    lua_pop(L, 2);
    return 0;
}

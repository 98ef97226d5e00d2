/* test_expand.c -- the Lua template sandbox (RELIABILITY.md B1-B5) and the
 * template contract. */
#include "testutil.h"

#include <sys/stat.h>

static char dir[64];

/* A template directory with the real lib.lua and one template file. */
static void put(const char *name, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
}

static int setup(void **state)
{
    (void)state;
    strcpy(dir, "/tmp/kgen-test-templates-XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    char *lib = slurp("templates/lib.lua");
    put("lib.lua", lib);
    free(lib);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

#define MINIMAL(name) \
    "return { name = \"" name "\", backends = { \"opencl\" }, design = {},\n" \
    "  tuning = { B = { 1, 2 } },\n" \
    "  constraints = function(spec, cfg) return true end,\n" \
    "  launch = function(spec, cfg) return { grid = {1,1,1}, block = {1,1,1} } end,\n" \
    "  emit = function(spec, design) return 'x' end }\n"

/* Evaluate code inside a freshly loaded minimal template's sandbox. */
static int eval(const char *code, Str *out, Str *err)
{
    Arena *a = arena_new();
    put("m.lua", MINIMAL("m"));
    Template *t = template_load(dir, "m", err, a);
    if (!t)
        fail_msg("load: %s", err->buf);
    int rc = template_eval(t, code, out, err);
    template_free(t);
    arena_free(a);
    return rc;
}

static void want_value(const char *code, const char *want)
{
    Str out = {0}, err = {0};
    if (eval(code, &out, &err))
        fail_msg("%s: %s", code, err.buf);
    if (strcmp(out.buf, want))
        fail_msg("%s gave %s, not %s", code, out.buf, want);
    str_free(&out);
    str_free(&err);
}

static void want_error(const char *code, const char *msg)
{
    Str out = {0}, err = {0};
    if (!eval(code, &out, &err))
        fail_msg("%s succeeded with %s", code, out.buf);
    if (!strstr(err.buf, msg))
        fail_msg("%s: error \"%s\" lacks \"%s\"", code, err.buf, msg);
    str_free(&out);
    str_free(&err);
}

/* B4: every way out is nil or raises. */
static void test_escapes(void **state)
{
    (void)state;
    const char *absent[] = {"io", "os", "require", "package", "debug", "load",
        "loadfile", "dofile", "collectgarbage", "next", "print",
        "string.dump", "math.random", "math.randomseed", "utf8", "coroutine"};
    for (size_t i = 0; i < sizeof absent / sizeof *absent; i++) {
        char code[128];
        snprintf(code, sizeof code, "return %s == nil", absent[i]);
        want_value(code, "true");
    }
    want_value("return getmetatable('')", "false");
    want_error("getmetatable('').__index = {}", "attempt to index");
    want_error("setmetatable('', {})", "bad argument");
    want_value("return ('abc'):upper()", "ABC");
}

/* B2: budgets, including a template that catches the budget error. */
static void test_budget(void **state)
{
    (void)state;
    want_error("while true do end", "time budget");
    want_error("while true do pcall(function() while true do end end) end",
                 "time budget");
    want_error("while true do xpcall(function() while true do end end, "
               "function(e) return e end) end", "time budget");
    want_error("local function f() return 1 + f() end return f()",
                 "stack overflow");
    /* ordinary errors are still caught */
    want_value("return select('#', pcall(error, 'x'))", "2");
    want_value("local ok, e = pcall(error, 'boom', 0) return e", "boom");
    want_value("local ok, e = xpcall(error, function(m) return 'h:' .. m end, "
               "'z', 0) return e", "h:z");
}

/* B3: memory bombs fail cleanly and the state still closes. */
static void test_memory(void **state)
{
    (void)state;
    want_error("return #string.rep('x', 2^30)", "256 MiB");
    want_error("return #string.rep('x', 2^31)", "too large");
    /* allocations that add up, 4 MiB each so that the cap, not the 2 s budget,
     * stops them even under ASan on a loaded machine (four million {i}
     * tables did not) */
    want_error("local t = {} for i = 1, 1e9 do t[i] = string.rep('x', 1 << 22) .. i end",
               "256 MiB");
}

/* B1: errors name the template file and line; odd error objects too. */
static void test_errors(void **state)
{
    (void)state;
    Str err = {0};
    Arena *a = arena_new();
    put("bad.lua", "local T = " MINIMAL("bad") "\n");
    put("bad.lua",
        "return { name = \"bad\", backends = { \"opencl\" },\n"
        "  constraints = function() return true end,\n"
        "  launch = function() return {} end,\n"
        "  emit = function(spec, d)\n"
        "    local x = nil\n"
        "    return x.field\n"
        "  end }\n");
    Template *t = template_load(dir, "bad", &err, a);
    assert_non_null(t);
    /* emit needs a bound spec: bind through a real plan */
    TestCtx c;
    ctx_init(&c);
    Plan *p = plan_of(&c, "model m\ndim N = 4\ninput x : f32[N]\ny = exp(x)\noutput y\n");
    assert_non_null(p);
    p->k[0]->template_name = "bad";
    assert_int_equal(template_bind(t, p, p->k[0], "opencl", &err), 0);
    int cfg[1] = {0};
    Str src = {0};
    assert_int_equal(template_emit(t, cfg, &src, &err), -1);
    assert_non_null(strstr(err.buf, "templates/bad.lua:6: attempt to index a nil value"));
    assert_non_null(strstr(err.buf, "stack traceback"));
    Launch L;
    str_free(&err);
    assert_int_equal(template_launch(t, cfg, &L, &err), -1);
    assert_non_null(strstr(err.buf, "launch() must return"));
    template_free(t);
    ctx_free(&c);
    str_free(&err);
    str_free(&src);

    want_error("error({})", "(error object is a table value)");
    want_error("error(nil)", "(error object is a nil value)");

    put("syn.lua", "return {\n  name = 'syn',\n  oops = = 1 }\n");
    assert_null(template_load(dir, "syn", &err, a));
    assert_non_null(strstr(err.buf, "templates/syn.lua:3:"));
    str_free(&err);
    put("bin.lua", "\x1bLua\x54\x00garbage");
    assert_null(template_load(dir, "bin", &err, a));
    assert_non_null(strstr(err.buf, "binary"));
    str_free(&err);
    put("num.lua", "return 42\n");
    assert_null(template_load(dir, "num", &err, a));
    assert_non_null(strstr(err.buf, "returns a table, not a number"));
    str_free(&err);
    put("noemit.lua", "return { name = 'noemit', backends = {}, constraints = "
        "function() end, launch = function() end }\n");
    assert_null(template_load(dir, "noemit", &err, a));
    assert_non_null(strstr(err.buf, "'emit' must be a function"));
    str_free(&err);
    assert_null(template_load(dir, "missing", &err, a));
    assert_non_null(strstr(err.buf, "cannot read"));
    str_free(&err);
    arena_free(a);
}

/* B5: the same expansion in two states (different hash seeds) is byte
 * identical; pairs visits keys in sorted order. */
static void test_determinism(void **state)
{
    (void)state;
    const char *code =
        "local t = {} for i = 1, 200 do t['k' .. i] = i end\n"
        "local s = {} for k, v in pairs(t) do s[#s + 1] = k end\n"
        "return table.concat(s, ',')";
    Str a1 = {0}, a2 = {0}, err = {0};
    assert_int_equal(eval(code, &a1, &err), 0);
    assert_int_equal(eval(code, &a2, &err), 0);
    assert_string_equal(a1.buf, a2.buf);
    assert_true(!strncmp(a1.buf, "k1,k10,k100,k101", 16));
    str_free(&a1);
    str_free(&a2);
    str_free(&err);
}

/* The knobs are enumerated by kgen in name order, design first. */
static void test_knobs(void **state)
{
    (void)state;
    put("k.lua", "return { name = 'k', backends = { 'cuda', 'opencl' },\n"
        " design = { path = { 'simt', 'mma' } },\n"
        " tuning = { ZZ = { 1, 2, 3 }, AA = { 8, 16 } },\n"
        " constraints = function(s, c) return c.AA * c.ZZ <= 32, 'too big' end,\n"
        " launch = function(s, c) return { grid = { 1, 1, 1 }, block = { c.AA, 1, 1 } } end,\n"
        " emit = function(s, d) return '// ' .. d.path end }\n");
    Str err = {0};
    Arena *a = arena_new();
    Template *t = template_load(dir, "k", &err, a);
    assert_non_null(t);
    assert_int_equal(template_nknobs(t), 3);
    assert_int_equal(template_ndesign(t), 1);
    assert_string_equal(template_knob(t, 0)->name, "path");
    assert_string_equal(template_knob(t, 1)->name, "AA");
    assert_string_equal(template_knob(t, 2)->name, "ZZ");
    assert_true(template_has_backend(t, "cuda"));
    TestCtx c;
    ctx_init(&c);
    Plan *p = plan_of(&c, "model m\ndim N = 4\ninput x : f32[N]\ny = exp(x)\noutput y\n");
    assert_int_equal(template_bind(t, p, p->k[0], "sm_90", &err), 0);
    int cfg[3] = {0, 0, 0}, pass = 0, all = 0;
    do {
        bool ok;
        Str why = {0};
        assert_int_equal(template_check(t, cfg, &ok, &why, NULL), 0);
        pass += ok;
        all++;
        str_free(&why);
    } while (cfg_next(t, cfg, 0, 3));
    assert_int_equal(all, 12);
    assert_int_equal(pass, 10);            /* 16 * 3 > 32 fails, twice */
    int c2[3] = {1, 1, 0};
    Launch L;
    assert_int_equal(template_launch(t, c2, &L, &err), 0);
    assert_int_equal(L.block[0], 16);
    Str src = {0};
    assert_int_equal(template_emit(t, c2, &src, &err), 0);
    assert_string_equal(src.buf, "// mma");
    str_free(&src);
    template_free(t);
    ctx_free(&c);
    str_free(&err);
    arena_free(a);
}

/* launch()'s tmaps: the tensor maps a kernel takes after its tensors, in
 * kgrt's layout (dims innermost first, strides and offset in bytes); a
 * malformed entry is the template's fault. */
static void test_launch_tmaps(void **state)
{
    (void)state;
    put("tm.lua", "return { name = 'tm', backends = { 'cuda' },\n"
        " tuning = { V = { 0, 1, 2, 3 } },\n"
        " constraints = function(s, c) return true end,\n"
        " launch = function(s, c)\n"
        "   local t = { arg = 2, dtype = 'bf16', dims = { 64, 300, 3 },\n"
        "               strides = { 128, 38400 }, box = { 64, 128, 1 }, off = 32, swizzle = 128 }\n"
        "   if c.V == 1 then t.strides = { 128 } end\n"
        "   if c.V == 2 then t.dtype = 'i32' end\n"
        "   return { grid = { 1, 1, 1 }, block = { 1, 1, 1 },\n"
        "            tmaps = c.V == 3 and { t, t, t, t, t } or { t } }\n"
        " end,\n"
        " emit = function(s, d) return '' end }\n");
    Str err = {0};
    Arena *a = arena_new();
    Template *t = template_load(dir, "tm", &err, a);
    assert_non_null(t);
    TestCtx c;
    ctx_init(&c);
    Plan *p = plan_of(&c, "model m\ndim N = 4\ninput x : f32[N]\ny = exp(x)\noutput y\n");
    assert_int_equal(template_bind(t, p, p->k[0], "sm_90", &err), 0);
    int cfg[1] = {0};
    Launch L;
    assert_int_equal(template_launch(t, cfg, &L, &err), 0);
    assert_int_equal(L.ntmaps, 1);
    assert_int_equal(L.tmaps[0].arg, 1);
    assert_int_equal(L.tmaps[0].map.dtype, KGRT_BF16);
    assert_int_equal(L.tmaps[0].map.rank, 3);
    assert_int_equal(L.tmaps[0].map.dims[1], 300);
    assert_int_equal(L.tmaps[0].map.strides[1], 38400);
    assert_int_equal(L.tmaps[0].map.box[1], 128);
    assert_int_equal(L.tmaps[0].map.off, 32);
    assert_int_equal(L.tmaps[0].map.swizzle, 128);
    for (cfg[0] = 1; cfg[0] < 4; cfg[0]++) {   /* strides short, dtype, too many */
        str_free(&err);
        assert_int_equal(template_launch(t, cfg, &L, &err), -1);
        assert_non_null(strstr(err.buf, "launch()'s tmaps"));
    }
    template_free(t);
    ctx_free(&c);
    str_free(&err);
    arena_free(a);
}

/* cfg_each's fn: the configs it is given (stop: only the first) */
typedef struct Seen {
    int cfg[12][3], n;
    bool stop;
} Seen;

static int seen_add(void *ctx, const int *cfg)
{
    Seen *s = ctx;
    assert_true(s->n < 12);
    memcpy(s->cfg[s->n++], cfg, sizeof s->cfg[0]);
    return s->stop;
}

/* constraints() reports the knobs it read; the walk, which skips and
 * keeps each rejection by those knobs, passes the configs the odometer
 * over every config passes, in its order, and calls constraints() once
 * for each config that no earlier rejection decides. */
static void test_constraint_reads(void **state)
{
    (void)state;
    put("w.lua", "return { name = 'w', backends = { 'cuda' },\n"
        " design = { path = { 'simt', 'mma' } },\n"
        " tuning = { ZZ = { 1, 2, 3 }, AA = { 8, 16 } },\n"
        " constraints = function(s, c)\n"
        "   if c.path == 'mma' then return false, 'no mma' end\n"
        "   if c.AA == 16 then\n"
        "     local n = 0 for k in pairs(c) do n = n + 1 end\n"
        "     return n == 3 and c.ZZ < 3, 'pairs'\n"
        "   end\n"
        "   return true end,\n"
        " launch = function(s, c) return { grid = { 1, 1, 1 }, block = { 1, 1, 1 } } end,\n"
        " emit = function(s, d) return '' end }\n");
    Str err = {0};
    Arena *a = arena_new();
    Template *t = template_load(dir, "w", &err, a);
    assert_non_null(t);
    TestCtx c;
    ctx_init(&c);
    Plan *p = plan_of(&c, "model m\ndim N = 4\ninput x : f32[N]\ny = exp(x)\noutput y\n");
    assert_int_equal(template_bind(t, p, p->k[0], "sm_90", &err), 0);
    /* knobs: path, AA, ZZ */
    bool ok;
    uint64_t read;
    Str why = {0};
    int mma[3] = {1, 1, 2}, simt8[3] = {0, 0, 2}, simt16[3] = {0, 1, 2};
    assert_int_equal(template_check(t, mma, &ok, &why, &read), 0);
    assert_false(ok);
    assert_int_equal(read, 1);             /* path only */
    assert_int_equal(template_check(t, simt8, &ok, &why, &read), 0);
    assert_true(ok);
    assert_int_equal(read, 3);             /* path, AA */
    assert_int_equal(template_check(t, simt16, &ok, &why, &read), 0);
    assert_false(ok);                      /* ZZ = 3 */
    assert_int_equal(read, ~(uint64_t)0);  /* pairs() reads every knob */
    str_free(&why);
    /* the walk: what the odometer over all 12 configs passes, in its order */
    int want[12][3], nwant = 0, cfg[3] = {0, 0, 0};
    do {
        assert_int_equal(template_check(t, cfg, &ok, &why, NULL), 0);
        if (ok)
            memcpy(want[nwant++], cfg, sizeof cfg);
    } while (cfg_next(t, cfg, 0, 3));
    str_free(&why);
    assert_int_equal(nwant, 5);
    Seen seen = {0};
    memset(cfg, 0, sizeof cfg);
    assert_int_equal(cfg_each(t, cfg, 0, seen_add, &seen, &err), 0);
    assert_int_equal(seen.n, nwant);
    assert_memory_equal(seen.cfg, want, (size_t)nwant * sizeof want[0]);
    /* with path fixed (a design point): mma has none, simt the same five */
    int d[3] = {1, 0, 0};
    seen.n = 0;
    assert_int_equal(cfg_each(t, d, 1, seen_add, &seen, &err), 0);
    assert_int_equal(seen.n, 0);
    d[0] = 0;
    assert_int_equal(cfg_each(t, d, 1, seen_add, &seen, &err), 0);
    assert_int_equal(seen.n, 5);
    /* fn stops the walk at the first */
    seen.n = 0;
    seen.stop = true;
    assert_int_equal(cfg_each(t, d, 1, seen_add, &seen, &err), 1);
    assert_int_equal(seen.n, 1);
    assert_memory_equal(seen.cfg[0], want[0], sizeof want[0]);
    template_free(t);
    /* a rejection that read ZZ alone rejects ZZ = 2 again under every AA
     * without a call (rank() returns the calls so far) */
    put("v.lua", "local calls = 0\n"
        "return { name = 'v', backends = { 'cuda' },\n"
        " design = { path = { 'a' } },\n"
        " tuning = { AA = { 1, 2, 3 }, ZZ = { 1, 2, 3 } },\n"
        " constraints = function(s, c) calls = calls + 1 return c.ZZ ~= 2, 'ZZ' end,\n"
        " rank = function(s, c) return calls end,\n"
        " launch = function(s, c) return { grid = { 1, 1, 1 }, block = { 1, 1, 1 } } end,\n"
        " emit = function(s, d) return '' end }\n");
    t = template_load(dir, "v", &err, a);
    assert_non_null(t);
    assert_int_equal(template_bind(t, p, p->k[0], "sm_90", &err), 0);
    seen.n = 0;
    seen.stop = false;
    memset(cfg, 0, sizeof cfg);
    assert_int_equal(cfg_each(t, cfg, 0, seen_add, &seen, &err), 0);
    assert_int_equal(seen.n, 6);
    for (int i = 0; i < seen.n; i++)
        assert_int_not_equal(seen.cfg[i][2], 1);    /* ZZ's index 1: 2 */
    double calls;
    assert_int_equal(template_rank(t, cfg, &calls, &err), 0);
    assert_true(calls == 7);               /* 9 configs, two decided */
    template_free(t);
    ctx_free(&c);
    str_free(&err);
    arena_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_escapes),
        cmocka_unit_test(test_budget),
        cmocka_unit_test(test_memory),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_knobs),
        cmocka_unit_test(test_launch_tmaps),
        cmocka_unit_test(test_constraint_reads),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

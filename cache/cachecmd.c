/*
 * cachecmd.c -- `kgen cache`: query and maintain the tuning cache.
 *
 *   list                 the winner of every kernel key and fingerprint
 *   show PATTERN         every trial of the kernels whose op contains
 *                        PATTERN (or whose id is PATTERN)
 *   history [PATTERN]    a kernel's best time in each run, with the kgen
 *                        version, device and driver of the run
 *   regressions [--threshold P]
 *                        per kernel and device: the latest run's best time
 *                        against the best of every earlier run; exit 1 when
 *                        one got slower by more than P percent (default 5)
 *   export [-o FILE]     the winners with their provenance, as JSON
 *   import FILE          winners exported elsewhere, recorded as an
 *                        imported run (never over a faster local winner)
 *   check                PRAGMA integrity_check, application id, schema
 *
 * Exit status: 0, 1 (a regression; an integrity problem), 2 (usage, a bad
 * import file), 4 (the DB cannot be opened).
 */
#define _GNU_SOURCE
#include "cache.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

/* ---- output helpers ----------------------------------------------------- */

static void json_str(FILE *fp, const char *s)
{
    fputc('"', fp);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(fp, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", fp);
        else if (c == '\t')
            fputs("\\t", fp);
        else if (c < 0x20)
            fprintf(fp, "\\u%04x", c);
        else
            fputc(c, fp);
    }
    fputc('"', fp);
}

static const char *text(sqlite3_stmt *st, int i)
{
    const unsigned char *s = sqlite3_column_text(st, i);
    return s ? (const char *)s : "";
}

static double real(sqlite3_stmt *st, int i)
{
    return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN
         : sqlite3_column_double(st, i);
}

static void json_num(FILE *fp, double v)
{
    if (isnan(v))
        fputs("null", fp);
    else
        fprintf(fp, "%.9g", v);
}

static sqlite3_stmt *query(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        fprintf(stderr, "kgen: error: tuning DB: %s\n", sqlite3_errmsg(db));
        sqlite3_finalize(st);
        return NULL;
    }
    return st;
}

/* First line of s, at most n characters, for tables. */
static const char *first_line(const char *s, char *buf, size_t n)
{
    size_t len = strcspn(s, "\n");
    if (len >= n)
        len = n - 1;
    memcpy(buf, s, len);
    buf[len] = 0;
    return buf;
}

/* ---- list, show, history ------------------------------------------------ */

static int cache_list(sqlite3 *db, bool json)
{
    sqlite3_stmt *st = query(db,
        "SELECT k.id, k.op, k.shape, k.dtype, k.arch, w.config, w.median_ms, "
        "w.default_ms, r.device, r.driver, r.kgen_version, r.started, "
        "w.fingerprint, t.template FROM winners w JOIN kernels k ON k.id = "
        "w.kernel_id JOIN runs r ON r.id = w.run_id JOIN trials t ON t.id = "
        "w.trial_id ORDER BY k.op, k.shape, r.started");
    if (!st)
        return 4;
    int n = 0;
    if (json)
        printf("[");
    else
        printf("%-4s %-44s %-6s %-6s %10s %8s  %-40s %s\n", "id", "op", "dtype",
               "arch", "ms", "speedup", "config", "device");
    while (sqlite3_step(st) == SQLITE_ROW) {
        double ms = real(st, 6), def = real(st, 7);
        if (json) {
            printf("%s\n  {\"id\": %lld, \"op\": ", n ? "," : "",
                   (long long)sqlite3_column_int64(st, 0));
            json_str(stdout, text(st, 1));
            printf(", \"shape\": ");
            json_str(stdout, text(st, 2));
            printf(", \"dtype\": \"%s\", \"arch\": \"%s\", \"config\": ",
                   text(st, 3), text(st, 4));
            json_str(stdout, text(st, 5));
            printf(", \"ms\": ");
            json_num(stdout, ms);
            printf(", \"default_ms\": ");
            json_num(stdout, def);
            printf(", \"device\": ");
            json_str(stdout, text(st, 8));
            printf(", \"driver\": ");
            json_str(stdout, text(st, 9));
            printf(", \"kgen_version\": \"%s\", \"tuned\": \"%s\", "
                   "\"fingerprint\": \"%s\"}", text(st, 10), text(st, 11),
                   text(st, 12));
        } else {
            char sp[16] = "-";
            if (!isnan(def) && ms > 0)
                snprintf(sp, sizeof sp, "%.2fx", def / ms);
            printf("%-4lld %-44s %-6s %-6s %10.4f %8s  %-40s %s\n",
                   (long long)sqlite3_column_int64(st, 0), text(st, 1),
                   text(st, 3), text(st, 4), ms, sp, text(st, 5), text(st, 8));
        }
        n++;
    }
    sqlite3_finalize(st);
    if (json)
        printf("\n]\n");
    else if (!n)
        printf("no winners yet (run kgen tune)\n");
    return 0;
}

static void bind_pattern(sqlite3_stmt *st, int i, const char *pat)
{
    char *like = sqlite3_mprintf("%%%s%%", pat ? pat : "");
    sqlite3_bind_text(st, i, like, -1, sqlite3_free);
}

static int cache_show(sqlite3 *db, const char *pat, bool json)
{
    if (!pat) {
        fprintf(stderr, "kgen: error: cache show needs a kernel (an op "
                "substring or a kernel id from cache list)\n");
        return 2;
    }
    sqlite3_stmt *st = query(db,
        "SELECT k.id, k.op, k.shape, t.run_id, t.config, t.status, "
        "t.median_ms, t.min_ms, t.max_ms, t.reps, t.rel_err, t.abs_err, "
        "t.error, t.retime, t.fingerprint, t.created FROM trials t JOIN "
        "kernels k ON k.id = t.kernel_id WHERE k.op LIKE ?1 OR k.id = ?2 "
        "ORDER BY k.id, t.id");
    if (!st)
        return 4;
    bind_pattern(st, 1, pat);
    char *end;
    long long id = strtoll(pat, &end, 10);
    sqlite3_bind_int64(st, 2, *end ? -1 : id);
    int n = 0;
    long long last = -1;
    if (json)
        printf("[");
    while (sqlite3_step(st) == SQLITE_ROW) {
        long long kid = sqlite3_column_int64(st, 0);
        if (json) {
            printf("%s\n  {\"kernel_id\": %lld, \"op\": ", n ? "," : "", kid);
            json_str(stdout, text(st, 1));
            printf(", \"run\": %lld, \"config\": ",
                   (long long)sqlite3_column_int64(st, 3));
            json_str(stdout, text(st, 4));
            printf(", \"status\": \"%s\", \"median_ms\": ", text(st, 5));
            json_num(stdout, real(st, 6));
            printf(", \"min_ms\": ");
            json_num(stdout, real(st, 7));
            printf(", \"max_ms\": ");
            json_num(stdout, real(st, 8));
            printf(", \"reps\": %d, \"rel_err\": ", sqlite3_column_int(st, 9));
            json_num(stdout, real(st, 10));
            printf(", \"abs_err\": ");
            json_num(stdout, real(st, 11));
            printf(", \"retime\": %s, \"error\": ",
                   sqlite3_column_int(st, 13) ? "true" : "false");
            json_str(stdout, text(st, 12));
            printf(", \"fingerprint\": \"%s\", \"created\": \"%s\"}",
                   text(st, 14), text(st, 15));
        } else {
            if (kid != last) {
                printf("%skernel %lld: %s %s\n", n ? "\n" : "", kid,
                       text(st, 1), text(st, 2));
                printf("  %-5s %-44s %-20s %10s %10s %10s %5s %9s\n", "run",
                       "config", "status", "median ms", "min", "max", "reps",
                       "rel-err");
                last = kid;
            }
            char e[100];
            printf("  %-5lld %-44s %-20s %10.4f %10.4f %10.4f %5d %9.2g%s\n",
                   (long long)sqlite3_column_int64(st, 3), text(st, 4),
                   text(st, 5), real(st, 6), real(st, 7), real(st, 8),
                   sqlite3_column_int(st, 9), real(st, 10),
                   sqlite3_column_int(st, 13) ? " (re-timed)" : "");
            if (*text(st, 12))
                printf("        %s\n", first_line(text(st, 12), e, sizeof e));
        }
        n++;
    }
    sqlite3_finalize(st);
    if (json)
        printf("\n]\n");
    else if (!n) {
        fprintf(stderr, "kgen: error: no kernel matches '%s'\n", pat);
        return 1;
    }
    return 0;
}

/* Best valid time per kernel and run, oldest run first. */
static const char *history_sql =
    "SELECT k.id, k.op, k.shape, k.arch, r.id, r.started, r.kgen_version, "
    "r.device, r.driver, min(t.median_ms), count(*) FROM trials t JOIN "
    "kernels k ON k.id = t.kernel_id JOIN runs r ON r.id = t.run_id WHERE "
    "t.status = 'ok' AND t.median_ms IS NOT NULL AND (?1 IS NULL OR k.op "
    "LIKE ?1) GROUP BY k.id, r.id ORDER BY k.id, r.id";

static int cache_history(sqlite3 *db, const char *pat, bool json)
{
    sqlite3_stmt *st = query(db, history_sql);
    if (!st)
        return 4;
    if (pat)
        bind_pattern(st, 1, pat);
    int n = 0;
    long long last = -1;
    if (json)
        printf("[");
    while (sqlite3_step(st) == SQLITE_ROW) {
        long long kid = sqlite3_column_int64(st, 0);
        if (json) {
            printf("%s\n  {\"kernel_id\": %lld, \"op\": ", n ? "," : "", kid);
            json_str(stdout, text(st, 1));
            printf(", \"run\": %lld, \"started\": \"%s\", \"kgen_version\": "
                   "\"%s\", \"device\": ", (long long)sqlite3_column_int64(st, 4),
                   text(st, 5), text(st, 6));
            json_str(stdout, text(st, 7));
            printf(", \"driver\": ");
            json_str(stdout, text(st, 8));
            printf(", \"best_ms\": ");
            json_num(stdout, real(st, 9));
            printf(", \"valid_trials\": %d}", sqlite3_column_int(st, 10));
        } else {
            if (kid != last) {
                printf("%skernel %lld: %s %s %s\n", n ? "\n" : "", kid,
                       text(st, 1), text(st, 2), text(st, 3));
                last = kid;
            }
            printf("  run %-5lld %s  kgen %-8s %10.4f ms  (%d valid)  %s, %s\n",
                   (long long)sqlite3_column_int64(st, 4), text(st, 5),
                   text(st, 6), real(st, 9), sqlite3_column_int(st, 10),
                   text(st, 7), text(st, 8));
        }
        n++;
    }
    sqlite3_finalize(st);
    if (json)
        printf("\n]\n");
    else if (!n)
        printf("no valid trials yet\n");
    return 0;
}

/* ---- regressions -------------------------------------------------------- */

static int cache_regressions(sqlite3 *db, double threshold, bool json)
{
    /* per kernel and device: the newest run with a valid trial, its best
     * time, and the best time of every earlier run on that device */
    sqlite3_stmt *st = query(db,
        "WITH best AS (SELECT t.kernel_id AS kid, r.device AS device, "
        "  t.run_id AS run, min(t.median_ms) AS ms FROM trials t JOIN runs r "
        "  ON r.id = t.run_id WHERE t.status = 'ok' AND t.median_ms IS NOT "
        "  NULL GROUP BY t.kernel_id, r.device, t.run_id), "
        "latest AS (SELECT kid, device, max(run) AS run FROM best GROUP BY "
        "  kid, device) "
        "SELECT k.id, k.op, k.shape, l.device, l.run, b.ms, "
        "  (SELECT min(p.ms) FROM best p WHERE p.kid = l.kid AND p.device = "
        "   l.device AND p.run < l.run), "
        "  (SELECT p.run FROM best p WHERE p.kid = l.kid AND p.device = "
        "   l.device AND p.run < l.run ORDER BY p.ms LIMIT 1) "
        "FROM latest l JOIN best b ON b.kid = l.kid AND b.device = l.device "
        "AND b.run = l.run JOIN kernels k ON k.id = l.kid ORDER BY k.op");
    if (!st)
        return 4;
    int n = 0, bad = 0;
    if (json)
        printf("[");
    else
        printf("%-4s %-44s %10s %10s %8s  %s\n", "id", "op", "latest ms",
               "best ms", "change", "");
    while (sqlite3_step(st) == SQLITE_ROW) {
        double now = real(st, 5), prev = real(st, 6);
        double change = isnan(prev) ? 0 : (now / prev - 1) * 100;
        bool reg = !isnan(prev) && change > threshold;
        bad += reg;
        if (json) {
            printf("%s\n  {\"kernel_id\": %lld, \"op\": ", n ? "," : "",
                   (long long)sqlite3_column_int64(st, 0));
            json_str(stdout, text(st, 1));
            printf(", \"device\": ");
            json_str(stdout, text(st, 3));
            printf(", \"latest_run\": %lld, \"latest_ms\": ",
                   (long long)sqlite3_column_int64(st, 4));
            json_num(stdout, now);
            printf(", \"best_ms\": ");
            json_num(stdout, prev);
            printf(", \"best_run\": %lld, \"change_percent\": %.2f, "
                   "\"regression\": %s}", (long long)sqlite3_column_int64(st, 7),
                   change, reg ? "true" : "false");
        } else {
            char p[32] = "-", c[32] = "-";
            if (!isnan(prev)) {
                snprintf(p, sizeof p, "%.4f", prev);
                snprintf(c, sizeof c, "%+.1f%%", change);
            }
            printf("%-4lld %-44s %10.4f %10s %8s  %s\n",
                   (long long)sqlite3_column_int64(st, 0), text(st, 1), now, p,
                   c, reg ? "REGRESSION" : "");
        }
        n++;
    }
    sqlite3_finalize(st);
    if (json)
        printf("\n]\n");
    else
        printf("%d kernels, %d slower than their previous best by more than "
               "%g%%\n", n, bad, threshold);
    return bad ? 1 : 0;
}

/* ---- export and import -------------------------------------------------- */

static int cache_export(sqlite3 *db, const char *out)
{
    FILE *fp = out ? fopen(out, "w") : stdout;
    if (!fp) {
        fprintf(stderr, "kgen: error: cannot write %s\n", out);
        return 2;
    }
    sqlite3_stmt *st = query(db,
        "SELECT k.op, k.shape, k.dtype, k.arch, w.fingerprint, t.template, "
        "t.template_hash, w.config, w.median_ms, w.default_ms, t.rel_err, "
        "r.device, r.driver, r.compiler, r.kgen_version, r.host, r.started, "
        "r.model FROM winners w JOIN kernels k ON k.id = w.kernel_id JOIN "
        "trials t ON t.id = w.trial_id JOIN runs r ON r.id = w.run_id ORDER "
        "BY k.op, k.shape");
    if (!st) {
        if (out)
            fclose(fp);
        return 4;
    }
    static const char *const names[] = {"op", "shape", "dtype", "arch",
        "fingerprint", "template", "template_hash", "config", "median_ms",
        "default_ms", "rel_err", "device", "driver", "compiler",
        "kgen_version", "host", "tuned", "model"};
    fprintf(fp, "{\"kgen_cache_export\": 1, \"schema\": %d, \"winners\": [",
            DB_SCHEMA);
    int n = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        fprintf(fp, "%s\n  {", n++ ? "," : "");
        for (int i = 0; i < 18; i++) {
            fprintf(fp, "%s\"%s\": ", i ? ", " : "", names[i]);
            if (i >= 8 && i <= 10)
                json_num(fp, real(st, i));
            else
                json_str(fp, text(st, i));
        }
        fputc('}', fp);
    }
    fprintf(fp, "\n]}\n");
    sqlite3_finalize(st);
    if (out && fclose(fp)) {
        fprintf(stderr, "kgen: error: cannot write %s\n", out);
        return 2;
    }
    if (out)
        fprintf(stderr, "exported %d winners to %s\n", n, out);
    return 0;
}

/* A small JSON reader for the export format: an object whose "winners" is
 * an array of flat objects of strings and numbers. */
typedef struct Json {
    const char *s, *p, *file;
    char err[256];
} Json;

static void skip_ws(Json *j)
{
    while (isspace((unsigned char)*j->p))
        j->p++;
}

static bool jfail(Json *j, const char *what)
{
    if (!*j->err) {
        int line = 1, col = 1;
        for (const char *q = j->s; q < j->p; q++, col++)
            if (*q == '\n') {
                line++;
                col = 0;
            }
        snprintf(j->err, sizeof j->err, "%s:%d:%d: error: %s", j->file, line,
                 col, what);
    }
    return false;
}

static bool jlit(Json *j, char c)
{
    skip_ws(j);
    if (*j->p != c) {
        char m[32];
        snprintf(m, sizeof m, "expected '%c'", c);
        return jfail(j, m);
    }
    j->p++;
    return true;
}

static bool jstring(Json *j, Str *out)
{
    if (!jlit(j, '"'))
        return false;
    for (;;) {
        char c = *j->p++;
        if (!c)
            return jfail(j, "unterminated string");
        if (c == '"')
            return true;
        if (c == '\\') {
            c = *j->p++;
            switch (c) {
            case 'n': str_putc(out, '\n'); break;
            case 't': str_putc(out, '\t'); break;
            case '"': case '\\': case '/': str_putc(out, c); break;
            case 'u': {
                unsigned v = 0;
                for (int i = 0; i < 4; i++, j->p++) {
                    if (!isxdigit((unsigned char)*j->p))
                        return jfail(j, "bad \\u escape");
                    v = v * 16 + (unsigned)(isdigit((unsigned char)*j->p)
                        ? *j->p - '0' : (tolower((unsigned char)*j->p) - 'a' + 10));
                }
                str_putc(out, v < 0x80 && v ? (char)v : '?');
                break;
            }
            default: return jfail(j, "bad escape");
            }
        } else {
            str_putc(out, c);
        }
    }
}

/* A value as text: strings unquoted, numbers and null as written. */
static bool jscalar(Json *j, Str *out, bool *is_null)
{
    skip_ws(j);
    *is_null = false;
    if (*j->p == '"')
        return jstring(j, out);
    if (!strncmp(j->p, "null", 4)) {
        j->p += 4;
        *is_null = true;
        return true;
    }
    char *end;
    strtod(j->p, &end);
    if (end == j->p)
        return jfail(j, "expected a string, a number or null");
    str_putn(out, j->p, (size_t)(end - j->p));
    j->p = end;
    return true;
}

enum { NFIELDS = 18 };
static const char *const fields[NFIELDS] = {"op", "shape", "dtype", "arch",
    "fingerprint", "template", "template_hash", "config", "median_ms",
    "default_ms", "rel_err", "device", "driver", "compiler", "kgen_version",
    "host", "tuned", "model"};

static int import_one(KgDb *kdb, const char *file, Str *v, int *imported)
{
    for (int i = 0; i < 8; i++)
        if (!v[i].buf || !*v[i].buf) {
            fprintf(stderr, "kgen: error: %s: a winner without \"%s\"\n", file,
                    fields[i]);
            return 2;
        }
    double ms = v[8].buf ? strtod(v[8].buf, NULL) : 0;
    if (!(ms > 0)) {
        fprintf(stderr, "kgen: error: %s: winner %s has no valid median_ms\n",
                file, v[0].buf);
        return 2;
    }
    Str prov = {0};
    str_printf(&prov, "%s (tuned %s on %s by kgen %s)", file,
               v[16].buf ? v[16].buf : "?", v[15].buf ? v[15].buf : "?",
               v[14].buf ? v[14].buf : "?");
    DbRun r = {v[17].buf ? v[17].buf : "?", v[3].buf, "imported",
               v[11].buf ? v[11].buf : "", v[12].buf ? v[12].buf : "",
               v[13].buf ? v[13].buf : "", "import", prov.buf};
    int64_t run = db_run_begin(kdb, &r);
    str_free(&prov);
    int64_t kid = run < 0 ? -1 : db_kernel(kdb, v[0].buf, v[1].buf, v[2].buf, v[3].buf);
    DbTrial t = {.run = run, .kernel = kid, .fingerprint = v[4].buf,
                 .templ = v[5].buf, .template_hash = v[6].buf,
                 .config = v[7].buf, .status = "ok", .median_ms = ms,
                 .min_ms = ms, .max_ms = ms, .reps = 0,
                 .rel_err = v[10].buf ? strtod(v[10].buf, NULL) : -1,
                 .abs_err = -1, .error = NULL};
    Arena *a = arena_new();
    int rc = 0;
    if (kid < 0 || db_trial_add(kdb, &t) ||
        db_winner_update(kdb, kid, v[4].buf, NULL, NULL, a) < 0 ||
        db_run_end(kdb, run, "ok")) {
        fprintf(stderr, "kgen: error: %s (tuning DB %s)\n", db_error(kdb),
                db_path(kdb));
        rc = DB_EXIT;
    } else {
        (*imported)++;
    }
    arena_free(a);
    return rc;
}

static int cache_import(KgDb *kdb, const char *file)
{
    if (!file) {
        fprintf(stderr, "kgen: error: cache import needs a file\n");
        return 2;
    }
    size_t size;
    char *src = read_file(file, (size_t)256 << 20, &size);
    if (!src) {
        fprintf(stderr, "kgen: error: cannot read %s\n", file);
        return 2;
    }
    Json j = {src, src, file, ""};
    int rc = 2, imported = 0;
    bool is_null;
    Str key = {0}, val = {0};
    bool have_winners = false;
    if (!jlit(&j, '{'))
        goto bad;
    skip_ws(&j);
    while (*j.p != '}') {
        str_free(&key);
        if (!jstring(&j, &key) || !jlit(&j, ':'))
            goto bad;
        skip_ws(&j);
        if (key.buf && !strcmp(key.buf, "winners")) {
            have_winners = true;
            if (!jlit(&j, '['))
                goto bad;
            skip_ws(&j);
            while (*j.p != ']') {
                Str v[NFIELDS] = {{0}};
                if (!jlit(&j, '{'))
                    goto bad;
                skip_ws(&j);
                bool ok = true;
                while (ok && *j.p != '}') {
                    Str k = {0}, x = {0};
                    ok = jstring(&j, &k) && jlit(&j, ':') &&
                         jscalar(&j, &x, &is_null);
                    for (int i = 0; ok && i < NFIELDS; i++)
                        if (k.buf && !strcmp(k.buf, fields[i]) && !is_null) {
                            str_free(&v[i]);
                            v[i] = x;
                            x = (Str){0};
                        }
                    str_free(&k);
                    str_free(&x);
                    skip_ws(&j);
                    if (ok && *j.p == ',')
                        j.p++, skip_ws(&j);
                    else if (ok && *j.p != '}')
                        ok = jfail(&j, "expected ',' or '}'");
                }
                if (ok)
                    j.p++;
                int r = ok ? import_one(kdb, file, v, &imported) : 2;
                for (int i = 0; i < NFIELDS; i++)
                    str_free(&v[i]);
                if (!ok)
                    goto bad;
                if (r) {
                    rc = r;
                    goto out;
                }
                skip_ws(&j);
                if (*j.p == ',')
                    j.p++, skip_ws(&j);
                else if (*j.p != ']') {
                    jfail(&j, "expected ',' or ']'");
                    goto bad;
                }
            }
            j.p++;
        } else {
            str_free(&val);
            if (!jscalar(&j, &val, &is_null))
                goto bad;
        }
        skip_ws(&j);
        if (*j.p == ',')
            j.p++, skip_ws(&j);
        else if (*j.p != '}') {
            jfail(&j, "expected ',' or '}'");
            goto bad;
        }
    }
    if (!have_winners) {
        jfail(&j, "no \"winners\" array: not a kgen cache export");
        goto bad;
    }
    printf("imported %d winners from %s\n", imported, file);
    rc = 0;
    goto out;
bad:
    fprintf(stderr, "%s\n", j.err);
out:
    str_free(&key);
    str_free(&val);
    free(src);
    return rc;
}

/* ---- check -------------------------------------------------------------- */

static int cache_check(sqlite3 *db, const char *path, bool json)
{
    sqlite3_stmt *st = query(db, "PRAGMA integrity_check");
    if (!st)
        return 4;
    Str res = {0};
    while (sqlite3_step(st) == SQLITE_ROW)
        str_printf(&res, "%s%s", res.len ? "; " : "", text(st, 0));
    sqlite3_finalize(st);
    long long counts[4] = {0};
    static const char *const tables[] = {"runs", "kernels", "trials", "winners"};
    for (int i = 0; i < 4; i++) {
        char sql[64];
        snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", tables[i]);
        st = query(db, sql);
        if (st && sqlite3_step(st) == SQLITE_ROW)
            counts[i] = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
    }
    bool ok = res.buf && !strcmp(res.buf, "ok");
    if (json) {
        printf("{\"db\": ");
        json_str(stdout, path);
        printf(", \"integrity\": ");
        json_str(stdout, res.buf);
        printf(", \"schema\": %d, \"runs\": %lld, \"kernels\": %lld, "
               "\"trials\": %lld, \"winners\": %lld}\n", DB_SCHEMA, counts[0],
               counts[1], counts[2], counts[3]);
    } else {
        printf("%s: integrity %s; schema %d; %lld runs, %lld kernels, %lld "
               "trials, %lld winners\n", path, res.buf ? res.buf : "?",
               DB_SCHEMA, counts[0], counts[1], counts[2], counts[3]);
    }
    str_free(&res);
    return ok ? 0 : 1;
}

/* ---- the command -------------------------------------------------------- */

int cmd_cache(const Options *o)
{
    const char *sub = o->path;
    static const char *const subs[] = {"list", "show", "history", "regressions",
                                       "export", "import", "check"};
    bool known = false;
    for (size_t i = 0; sub && i < sizeof subs / sizeof *subs; i++)
        known |= !strcmp(sub, subs[i]);
    if (!known) {
        fprintf(stderr, "kgen: error: cache %s: expected list, show, history, "
                "regressions, export, import or check\n", sub ? sub : "(none)");
        return 2;
    }
    Arena *a = arena_new();
    const char *path = o->db ? o->db : db_default_path(a);
    bool write = !strcmp(sub, "import");
    KgDb *kdb = db_open(path, write, true);
    int rc = DB_EXIT;
    if (!kdb)
        goto out;
    sqlite3 *db = db_handle(kdb);
    if (!db && !write) {
        /* no DB yet, or one no tune has written to */
        if (!strcmp(sub, "check"))
            printf("%s: no tuning DB yet\n", path);
        else if (o->json)
            printf("[]\n");
        else
            printf("no tuning DB at %s yet (run kgen tune)\n", path);
        rc = 0;
        goto out;
    }
    if (!strcmp(sub, "list"))
        rc = cache_list(db, o->json);
    else if (!strcmp(sub, "show"))
        rc = cache_show(db, o->arg2, o->json);
    else if (!strcmp(sub, "history"))
        rc = cache_history(db, o->arg2, o->json);
    else if (!strcmp(sub, "regressions"))
        rc = cache_regressions(db, o->threshold > 0 ? o->threshold : 5, o->json);
    else if (!strcmp(sub, "export"))
        rc = cache_export(db, o->out_dir ? o->out_dir : o->arg2);
    else if (!strcmp(sub, "import"))
        rc = cache_import(kdb, o->arg2);
    else
        rc = cache_check(db, path, o->json);
out:
    db_close(kdb);
    arena_free(a);
    return rc;
}

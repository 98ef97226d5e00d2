/*
 * cache.c -- the SQLite tuning cache.
 *
 * Schema (PRAGMA application_id = 0x6B67656E "kgen", user_version = 1):
 *
 *   runs      one row per `kgen tune` (or `kgen cache import`): when, which
 *             kgen, host and pid, the model, arch and backend, the device,
 *             its driver, the compiler (NVRTC or the OpenCL platform), the
 *             strategy; finished and status are set when the run ends
 *             (NULL: still running, or killed).
 *   kernels   a kernel key: (op, shape, dtype, arch).  op names the
 *             template, the pattern or op, and a hash of the kernel's
 *             computation, so two different elementwise chains of one
 *             shape are different keys.
 *   trials    every candidate measured: run, kernel, fingerprint, template
 *             and its hash, config, status, median/min/max ms and the
 *             number of timed repetitions, the validation errors, the error
 *             text, and whether it re-times a top candidate.
 *   winners   per (kernel, fingerprint): the best valid config, its time,
 *             the trial and run it came from, and the default config's
 *             time (for the speed-up).
 *
 * The fingerprint hashes everything a measurement depends on besides the
 * key: device name, driver version, compiler version, the template's
 * source (with lib.lua), the kgen version and the compile flags.  Trials
 * and winners are only ever looked up by (kernel, fingerprint), so any
 * change is a cache miss, never a stale hit; a field that is unknown makes
 * a fingerprint that matches nothing.
 *
 * Rules: one short BEGIN IMMEDIATE transaction per recorded trial, never
 * one held across GPU work, so a killed process loses at most the trial in
 * flight; a rollback journal (journal_mode=DELETE, synchronous=FULL) with a
 * busy timeout rather than WAL (RELIABILITY's note on the WAL-reset bug of
 * the SQLite Debian 12 ships; writes here are tiny and rare); migrations
 * and the user_version bump in one transaction; a corrupt file is moved
 * aside, never patched; another application's DB or a newer schema is
 * never modified.  Each new schema version appends one entry to
 * migrations[] below.
 */
#define _GNU_SOURCE
#include "cache.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

struct KgDb {
    sqlite3 *db;
    char *path;
    bool writable;
    bool empty;                /* no schema yet (read-only open) */
    char err[512];
};

static const char *const migrations[] = {
    /* 0 -> 1 */
    "CREATE TABLE runs("
    "  id INTEGER PRIMARY KEY,"
    "  started TEXT NOT NULL,"
    "  finished TEXT,"
    "  status TEXT,"
    "  kgen_version TEXT NOT NULL,"
    "  host TEXT NOT NULL,"
    "  pid INTEGER NOT NULL,"
    "  model TEXT NOT NULL,"
    "  arch TEXT NOT NULL,"
    "  backend TEXT NOT NULL,"
    "  device TEXT NOT NULL,"
    "  driver TEXT NOT NULL,"
    "  compiler TEXT NOT NULL,"
    "  strategy TEXT NOT NULL,"
    "  imported TEXT);"
    "CREATE TABLE kernels("
    "  id INTEGER PRIMARY KEY,"
    "  op TEXT NOT NULL,"
    "  shape TEXT NOT NULL,"
    "  dtype TEXT NOT NULL,"
    "  arch TEXT NOT NULL,"
    "  UNIQUE(op, shape, dtype, arch));"
    "CREATE TABLE trials("
    "  id INTEGER PRIMARY KEY,"
    "  run_id INTEGER NOT NULL REFERENCES runs(id),"
    "  kernel_id INTEGER NOT NULL REFERENCES kernels(id),"
    "  fingerprint TEXT NOT NULL,"
    "  template TEXT NOT NULL,"
    "  template_hash TEXT NOT NULL,"
    "  config TEXT NOT NULL,"
    "  status TEXT NOT NULL,"
    "  median_ms REAL, min_ms REAL, max_ms REAL, reps INTEGER,"
    "  rel_err REAL, abs_err REAL,"
    "  error TEXT,"
    "  retime INTEGER NOT NULL DEFAULT 0,"
    "  created TEXT NOT NULL);"
    "CREATE INDEX trials_by_config ON trials(kernel_id, fingerprint, config);"
    "CREATE INDEX trials_by_run ON trials(run_id);"
    "CREATE TABLE winners("
    "  kernel_id INTEGER NOT NULL REFERENCES kernels(id),"
    "  fingerprint TEXT NOT NULL,"
    "  config TEXT NOT NULL,"
    "  median_ms REAL NOT NULL,"
    "  trial_id INTEGER NOT NULL REFERENCES trials(id),"
    "  run_id INTEGER NOT NULL REFERENCES runs(id),"
    "  default_ms REAL,"
    "  PRIMARY KEY(kernel_id, fingerprint));",
};

enum { NMIGRATIONS = sizeof migrations / sizeof *migrations };
_Static_assert((int)NMIGRATIONS == (int)DB_SCHEMA, "one migration per schema version");

static void set_err(KgDb *d, const char *what)
{
    snprintf(d->err, sizeof d->err, "%s: %s", what,
             d->db ? sqlite3_errmsg(d->db) : "no database");
}

const char *db_error(const KgDb *d) { return d->err; }
bool db_writable(const KgDb *d) { return d->writable; }
const char *db_path(const KgDb *d) { return d->path; }
void *db_handle(KgDb *d) { return d->empty ? NULL : d->db; }

static void utc_now(char *buf, size_t n, bool compact)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, n, compact ? "%Y%m%dT%H%M%SZ" : "%Y-%m-%dT%H:%M:%SZ", &tm);
}

const char *db_default_path(Arena *a)
{
    const char *s = getenv("KGEN_CACHE");
    if (s && *s)
        return s;
    s = getenv("XDG_CACHE_HOME");
    if (s && *s)
        return arena_printf(a, "%s/kgen/tuning.sqlite", s);
    s = getenv("HOME");
    return arena_printf(a, "%s/.cache/kgen/tuning.sqlite", s && *s ? s : ".");
}

/* mkdir -p of path's directory. */
static int make_parent(const char *path)
{
    char *d = strdup(path);
    if (!d)
        return -1;
    char *slash = strrchr(d, '/');
    if (!slash || slash == d) {
        free(d);
        return 0;
    }
    *slash = 0;
    for (char *p = d + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            if (mkdir(d, 0777) && errno != EEXIST) {
                free(d);
                return -1;
            }
            *p = '/';
        }
    int rc = mkdir(d, 0777) && errno != EEXIST ? -1 : 0;
    free(d);
    return rc;
}

static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return strdup(".");
    if (slash == path)
        return strdup("/");
    char *d = strndup(path, (size_t)(slash - path));
    return d;
}

/* One integer from a single-row query; -1 with the SQLite code in *rc. */
static int64_t query_int(sqlite3 *db, const char *sql, int *rc)
{
    sqlite3_stmt *st = NULL;
    int64_t v = -1;
    *rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    if (*rc == SQLITE_OK) {
        *rc = sqlite3_step(st);
        if (*rc == SQLITE_ROW) {
            v = sqlite3_column_int64(st, 0);
            *rc = SQLITE_OK;
        }
    }
    sqlite3_finalize(st);
    return v;
}

static bool is_corruption(int rc)
{
    rc &= 0xff;
    return rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB;
}

/* Move path and its companions to path.corrupt-<UTC>. */
static void move_aside(const char *path, char *dst, size_t n)
{
    char stamp[32];
    utc_now(stamp, sizeof stamp, true);
    snprintf(dst, n, "%s.corrupt-%s", path, stamp);
    static const char *const sfx[] = {"", "-journal", "-wal", "-shm"};
    for (size_t i = 0; i < sizeof sfx / sizeof *sfx; i++) {
        char from[4096], to[4200];
        snprintf(from, sizeof from, "%s%s", path, sfx[i]);
        snprintf(to, sizeof to, "%s%s", dst, sfx[i]);
        if (rename(from, to) && errno != ENOENT && !*sfx[i])
            fprintf(stderr, "kgen: warning: cannot move %s aside: %s\n", from,
                    strerror(errno));
    }
}

/* BEGIN IMMEDIATE, retried with jitter past the busy timeout. */
static int begin(KgDb *d)
{
    for (int attempt = 0;; attempt++) {
        int rc = sqlite3_exec(d->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
        if ((rc & 0xff) != SQLITE_BUSY || attempt >= 20)
            return rc;
        usleep((useconds_t)(10000 + (rand() % 50000)));
    }
}

static void rollback(KgDb *d)
{
    if (!sqlite3_get_autocommit(d->db))
        sqlite3_exec(d->db, "ROLLBACK", NULL, NULL, NULL);
}

static int migrate(KgDb *d)
{
    if (begin(d) != SQLITE_OK) {
        set_err(d, "cannot start the schema migration");
        return -1;
    }
    int rc;
    int64_t v = query_int(d->db, "PRAGMA user_version", &rc);
    for (; rc == SQLITE_OK && v < DB_SCHEMA; v++)
        rc = sqlite3_exec(d->db, migrations[v], NULL, NULL, NULL);
    char sql[96];
    snprintf(sql, sizeof sql, "PRAGMA user_version = %d; PRAGMA application_id = %d",
             DB_SCHEMA, DB_APP_ID);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(d->db, sql, NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(d->db, "COMMIT", NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        set_err(d, "schema migration failed");
        rollback(d);
        return -1;
    }
    return 0;
}

typedef enum { PROBE_OK, PROBE_CORRUPT, PROBE_FOREIGN, PROBE_NEWER, PROBE_ERR } Probe;

static Probe probe_reads(KgDb *d, bool check, int64_t *version, char *why,
                         size_t n)
{
    int rc;
    int64_t app = query_int(d->db, "PRAGMA application_id", &rc);
    int64_t tables = rc == SQLITE_OK
        ? query_int(d->db, "SELECT count(*) FROM sqlite_master", &rc) : -1;
    *version = rc == SQLITE_OK ? query_int(d->db, "PRAGMA user_version", &rc) : -1;
    if (rc != SQLITE_OK) {
        snprintf(why, n, "%s", sqlite3_errmsg(d->db));
        return is_corruption(rc) ? PROBE_CORRUPT : PROBE_ERR;
    }
    if (app != DB_APP_ID && (app != 0 || tables > 0)) {
        snprintf(why, n, "application_id 0x%llx, %lld tables",
                 (unsigned long long)(uint32_t)app, (long long)tables);
        return PROBE_FOREIGN;
    }
    if (*version > DB_SCHEMA)
        return PROBE_NEWER;
    if (check) {
        sqlite3_stmt *st = NULL;
        rc = sqlite3_prepare_v2(d->db, "PRAGMA quick_check", -1, &st, NULL);
        const char *res = NULL;
        if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW)
            res = (const char *)sqlite3_column_text(st, 0);
        bool ok = res && !strcmp(res, "ok");
        snprintf(why, n, "%s", res ? res : sqlite3_errmsg(d->db));
        sqlite3_finalize(st);
        if (!ok)
            return rc == SQLITE_ROW || is_corruption(rc) ? PROBE_CORRUPT : PROBE_ERR;
    }
    return PROBE_OK;
}

/* What the file is.  The reads share one read transaction: another process
 * creating the schema between them (tables committed, application_id read
 * before) must not make a new kgen DB look foreign. */
static Probe probe(KgDb *d, bool check, int64_t *version, char *why, size_t n)
{
    bool txn = sqlite3_exec(d->db, "BEGIN", NULL, NULL, NULL) == SQLITE_OK;
    Probe pr = probe_reads(d, check, version, why, n);
    if (txn && sqlite3_exec(d->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
        sqlite3_exec(d->db, "ROLLBACK", NULL, NULL, NULL);
    return pr;
}

static int raw_open(KgDb *d, bool write)
{
    int flags = write ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
                      : SQLITE_OPEN_READONLY;
    int rc = sqlite3_open_v2(d->path, &d->db, flags, NULL);
    if (rc != SQLITE_OK) {
        set_err(d, "cannot open");
        sqlite3_close(d->db);
        d->db = NULL;
        return -1;
    }
    sqlite3_busy_timeout(d->db, 30000);
    sqlite3_extended_result_codes(d->db, 1);
    return 0;
}

KgDb *db_open(const char *path, bool write, bool strict)
{
    KgDb *d = calloc(1, sizeof *d);
    if (!d || !(d->path = strdup(path)))
        die("out of memory");
    struct stat stbuf;
    bool exists = stat(path, &stbuf) == 0;
    if (exists && S_ISDIR(stbuf.st_mode)) {
        fprintf(stderr, "kgen: error: tuning DB %s is a directory (use --db "
                "PATH)\n", path);
        goto refuse;
    }
    if (write) {
        char *dir = dir_of(path);
        if (!exists && make_parent(path)) {
            fprintf(stderr, "kgen: error: cannot create the directory of "
                    "tuning DB %s: %s (use --db PATH)\n", path, strerror(errno));
            free(dir);
            goto refuse;
        }
        /* the rollback journal lives beside the DB: both must be writable */
        if ((exists && access(path, W_OK)) || access(dir, W_OK)) {
            fprintf(stderr, "kgen: error: cannot write tuning DB %s: read-only "
                    "(use --db PATH)\n", path);
            free(dir);
            goto refuse;
        }
        free(dir);
    } else if (!exists) {
        d->empty = true;       /* nothing tuned yet: every lookup misses */
        return d;
    }
    for (int attempt = 0; attempt < 2; attempt++) {
        if (raw_open(d, write)) {
            fprintf(stderr, "kgen: error: tuning DB %s: %s\n", path, d->err);
            goto refuse;
        }
        int64_t version;
        char why[256];
        Probe pr = probe(d, write, &version, why, sizeof why);
        if (pr == PROBE_OK) {
            if (write) {
                sqlite3_exec(d->db, "PRAGMA journal_mode=DELETE; "
                             "PRAGMA synchronous=FULL", NULL, NULL, NULL);
                if (version < DB_SCHEMA && migrate(d)) {
                    fprintf(stderr, "kgen: error: tuning DB %s: %s\n", path,
                            d->err);
                    goto refuse;
                }
            } else if (version < DB_SCHEMA) {
                d->empty = true;   /* an older schema: migrated on the next
                                      tune; nothing to read until then */
            }
            d->writable = write;
            return d;
        }
        if (pr == PROBE_FOREIGN) {
            fprintf(stderr, "kgen: error: %s is not a kgen DB (%s); leaving it "
                    "alone (use --db PATH)\n", path, why);
            goto refuse;
        }
        if (pr == PROBE_NEWER) {
            if (write) {
                fprintf(stderr, "kgen: error: cannot write tuning DB %s: its "
                        "schema %lld is newer than this kgen (%d) (use --db "
                        "PATH)\n", path, (long long)version, DB_SCHEMA);
                goto refuse;
            }
            fprintf(stderr, "kgen: warning: DB schema %lld is newer than this "
                    "kgen (%d); opening read-only\n", (long long)version,
                    DB_SCHEMA);
            d->writable = false;
            return d;
        }
        if (pr == PROBE_ERR) {
            fprintf(stderr, "kgen: error: tuning DB %s: %s\n", path, why);
            goto refuse;
        }
        /* corrupt */
        sqlite3_close(d->db);
        d->db = NULL;
        if (strict || !write) {
            fprintf(stderr, "kgen: error: tuning DB %s is corrupt (%s)%s\n", path,
                    why, strict ? "" : "; `kgen tune` moves it aside and starts "
                    "empty");
            goto refuse;
        }
        char moved[4200];
        move_aside(path, moved, sizeof moved);
        fprintf(stderr, "kgen: warning: tuning DB was corrupt (%s); moved to %s; "
                "starting empty\n", why, moved);
    }
    fprintf(stderr, "kgen: error: tuning DB %s: still unusable after moving "
            "it aside\n", path);
refuse:
    db_close(d);
    return NULL;
}

void db_close(KgDb *d)
{
    if (!d)
        return;
    if (d->db)
        sqlite3_close(d->db);
    free(d->path);
    free(d);
}

/* ---- writing ------------------------------------------------------------ */

static void bind_text(sqlite3_stmt *st, int i, const char *s)
{
    if (s)
        sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, i);
}

static void bind_real(sqlite3_stmt *st, int i, double v)
{
    if (v == v && v >= 0)
        sqlite3_bind_double(st, i, v);
    else
        sqlite3_bind_null(st, i);
}

/* Run one prepared insert or update in its own transaction.  Returns the
 * last rowid, or -1. */
static int64_t write_one(KgDb *d, sqlite3_stmt *st, const char *what)
{
    int64_t id = -1;
    int rc = begin(d);
    if (rc == SQLITE_OK) {
        rc = sqlite3_step(st);
        if (rc == SQLITE_DONE) {
            id = sqlite3_last_insert_rowid(d->db);
            rc = sqlite3_exec(d->db, "COMMIT", NULL, NULL, NULL);
        }
    }
    if (rc != SQLITE_OK) {
        set_err(d, what);
        rollback(d);
        id = -1;
    }
    sqlite3_finalize(st);
    return id;
}

static sqlite3_stmt *prepare(KgDb *d, const char *sql)
{
    sqlite3_stmt *st = NULL;
    if (!d->writable && strncmp(sql, "SELECT", 6)) {
        snprintf(d->err, sizeof d->err, "the tuning DB is open read-only");
        return NULL;
    }
    if (sqlite3_prepare_v2(d->db, sql, -1, &st, NULL) != SQLITE_OK) {
        set_err(d, "prepare");
        sqlite3_finalize(st);
        return NULL;
    }
    return st;
}

int64_t db_run_begin(KgDb *d, const DbRun *r)
{
    sqlite3_stmt *st = prepare(d, "INSERT INTO runs(started, kgen_version, "
        "host, pid, model, arch, backend, device, driver, compiler, strategy, "
        "imported) VALUES(?,?,?,?,?,?,?,?,?,?,?,?)");
    if (!st)
        return -1;
    char now[32], host[256] = "?";
    utc_now(now, sizeof now, false);
    gethostname(host, sizeof host - 1);
    bind_text(st, 1, now);
    bind_text(st, 2, KGEN_VERSION);
    bind_text(st, 3, host);
    sqlite3_bind_int64(st, 4, (int64_t)getpid());
    bind_text(st, 5, r->model);
    bind_text(st, 6, r->arch);
    bind_text(st, 7, r->backend);
    bind_text(st, 8, r->device);
    bind_text(st, 9, r->driver);
    bind_text(st, 10, r->compiler);
    bind_text(st, 11, r->strategy);
    bind_text(st, 12, r->imported);
    return write_one(d, st, "cannot record the run");
}

int db_run_end(KgDb *d, int64_t run, const char *status)
{
    sqlite3_stmt *st = prepare(d, "UPDATE runs SET finished = ?, status = ? "
                               "WHERE id = ?");
    if (!st)
        return -1;
    char now[32];
    utc_now(now, sizeof now, false);
    bind_text(st, 1, now);
    bind_text(st, 2, status);
    sqlite3_bind_int64(st, 3, run);
    return write_one(d, st, "cannot finish the run") < 0 ? -1 : 0;
}

int64_t db_kernel(KgDb *d, const char *op, const char *shape, const char *dtype,
                  const char *arch)
{
    for (int pass = 0; pass < 2; pass++) {
        sqlite3_stmt *st = NULL;
        if (sqlite3_prepare_v2(d->db, "SELECT id FROM kernels WHERE op = ? AND "
                               "shape = ? AND dtype = ? AND arch = ?", -1, &st,
                               NULL) != SQLITE_OK) {
            set_err(d, "kernel lookup");
            sqlite3_finalize(st);
            return -1;
        }
        bind_text(st, 1, op);
        bind_text(st, 2, shape);
        bind_text(st, 3, dtype);
        bind_text(st, 4, arch);
        int rc = sqlite3_step(st);
        int64_t id = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
        sqlite3_finalize(st);
        if (id >= 0)
            return id;
        if (rc != SQLITE_DONE) {
            set_err(d, "kernel lookup");
            return -1;
        }
        if (pass)
            break;
        /* OR IGNORE: another process may insert the same key meanwhile */
        st = prepare(d, "INSERT OR IGNORE INTO kernels(op, shape, dtype, arch) "
                     "VALUES(?,?,?,?)");
        if (!st)
            return -1;
        bind_text(st, 1, op);
        bind_text(st, 2, shape);
        bind_text(st, 3, dtype);
        bind_text(st, 4, arch);
        if (write_one(d, st, "cannot record the kernel") < 0)
            return -1;
    }
    snprintf(d->err, sizeof d->err, "kernel key vanished after insert");
    return -1;
}

int db_trial_add(KgDb *d, DbTrial *t)
{
    sqlite3_stmt *st = prepare(d, "INSERT INTO trials(run_id, kernel_id, "
        "fingerprint, template, template_hash, config, status, median_ms, "
        "min_ms, max_ms, reps, rel_err, abs_err, error, retime, created) "
        "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    if (!st)
        return -1;
    char now[32];
    utc_now(now, sizeof now, false);
    sqlite3_bind_int64(st, 1, t->run);
    sqlite3_bind_int64(st, 2, t->kernel);
    bind_text(st, 3, t->fingerprint);
    bind_text(st, 4, t->templ);
    bind_text(st, 5, t->template_hash);
    bind_text(st, 6, t->config);
    bind_text(st, 7, t->status);
    bind_real(st, 8, t->median_ms);
    bind_real(st, 9, t->min_ms);
    bind_real(st, 10, t->max_ms);
    sqlite3_bind_int(st, 11, t->reps);
    bind_real(st, 12, t->rel_err);
    bind_real(st, 13, t->abs_err);
    bind_text(st, 14, t->error);
    sqlite3_bind_int(st, 15, t->retime);
    bind_text(st, 16, now);
    t->id = write_one(d, st, "cannot record the trial");
    return t->id < 0 ? -1 : 0;
}

static const char *col_str(sqlite3_stmt *st, int i, Arena *a)
{
    const unsigned char *s = sqlite3_column_text(st, i);
    return s ? arena_strdup(a, (const char *)s) : NULL;
}

static double col_real(sqlite3_stmt *st, int i)
{
    return sqlite3_column_type(st, i) == SQLITE_NULL ? -1
         : sqlite3_column_double(st, i);
}

static void read_trial(sqlite3_stmt *st, DbTrial *t, Arena *a)
{
    memset(t, 0, sizeof *t);
    t->id = sqlite3_column_int64(st, 0);
    t->run = sqlite3_column_int64(st, 1);
    t->kernel = sqlite3_column_int64(st, 2);
    t->fingerprint = col_str(st, 3, a);
    t->templ = col_str(st, 4, a);
    t->template_hash = col_str(st, 5, a);
    t->config = col_str(st, 6, a);
    t->status = col_str(st, 7, a);
    t->median_ms = col_real(st, 8);
    t->min_ms = col_real(st, 9);
    t->max_ms = col_real(st, 10);
    t->reps = sqlite3_column_int(st, 11);
    t->rel_err = col_real(st, 12);
    t->abs_err = col_real(st, 13);
    t->error = col_str(st, 14, a);
    t->retime = sqlite3_column_int(st, 15) != 0;
}

#define TRIAL_COLS "id, run_id, kernel_id, fingerprint, template, " \
    "template_hash, config, status, median_ms, min_ms, max_ms, reps, " \
    "rel_err, abs_err, error, retime"

int db_trial_find(KgDb *d, int64_t kernel, const char *fp, const char *config,
                  DbTrial *out, Arena *a)
{
    if (d->empty)
        return 0;
    sqlite3_stmt *st = prepare(d, "SELECT " TRIAL_COLS " FROM trials WHERE "
        "kernel_id = ? AND fingerprint = ? AND config = ? AND retime = 0 "
        "ORDER BY id DESC "
        "LIMIT 1");
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, kernel);
    bind_text(st, 2, fp);
    bind_text(st, 3, config);
    int rc = sqlite3_step(st);
    int found = rc == SQLITE_ROW;
    if (found)
        read_trial(st, out, a);
    else if (rc != SQLITE_DONE) {
        set_err(d, "trial lookup");
        found = -1;
    }
    sqlite3_finalize(st);
    return found;
}

int db_winner_update(KgDb *d, int64_t kernel, const char *fp,
                     const char *default_config, DbTrial *w, Arena *a)
{
    /* each config's latest trial, where it is valid; the fastest wins (a
     * config whose latest trial failed -- a re-timing's check that found
     * it wrong, a crash -- cannot win on an earlier result) */
    static const char *best_sql =
        "SELECT " TRIAL_COLS " FROM trials t WHERE kernel_id = ?1 AND "
        "fingerprint = ?2 AND status = 'ok' AND id = (SELECT max(id) FROM "
        "trials u WHERE u.kernel_id = t.kernel_id AND u.fingerprint = "
        "t.fingerprint AND u.config = t.config) "
        "ORDER BY median_ms, id LIMIT 1";
    if (begin(d) != SQLITE_OK) {
        set_err(d, "cannot update the winner");
        return -1;
    }
    int found = 0;
    sqlite3_stmt *st = prepare(d, best_sql);
    if (!st)
        goto fail;
    sqlite3_bind_int64(st, 1, kernel);
    bind_text(st, 2, fp);
    int rc = sqlite3_step(st);
    DbTrial best;
    if (rc == SQLITE_ROW) {
        read_trial(st, &best, a);
        found = 1;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        goto fail;
    if (!found) {
        sqlite3_exec(d->db, "COMMIT", NULL, NULL, NULL);
        return 0;
    }
    double def = -1;
    if (default_config) {
        st = prepare(d, "SELECT median_ms FROM trials WHERE kernel_id = ? AND "
                     "fingerprint = ? AND config = ? AND status = 'ok' ORDER "
                     "BY id DESC LIMIT 1");
        if (!st)
            goto fail;
        sqlite3_bind_int64(st, 1, kernel);
        bind_text(st, 2, fp);
        bind_text(st, 3, default_config);
        if (sqlite3_step(st) == SQLITE_ROW)
            def = sqlite3_column_double(st, 0);
        sqlite3_finalize(st);
    }
    st = prepare(d, "INSERT OR REPLACE INTO winners(kernel_id, fingerprint, "
                 "config, median_ms, trial_id, run_id, default_ms) "
                 "VALUES(?,?,?,?,?,?,?)");
    if (!st)
        goto fail;
    sqlite3_bind_int64(st, 1, kernel);
    bind_text(st, 2, fp);
    bind_text(st, 3, best.config);
    sqlite3_bind_double(st, 4, best.median_ms);
    sqlite3_bind_int64(st, 5, best.id);
    sqlite3_bind_int64(st, 6, best.run);
    bind_real(st, 7, def);
    rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE ||
        sqlite3_exec(d->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
        goto fail;
    if (w)
        *w = best;
    return 1;
fail:
    set_err(d, "cannot update the winner");
    rollback(d);
    return -1;
}

int db_winners(KgDb *d, const char *op, const char *shape, const char *dtype,
               const char *arch, const char *template_hash, DbWinner **out,
               Arena *a)
{
    DbWinner *w = NULL;
    int n = 0, cap = 0, rc;
    *out = NULL;
    if (d->empty)
        return 0;
    sqlite3_stmt *st = prepare(d,
        "SELECT k.shape, w.config, w.median_ms, w.run_id, w.trial_id, "
        "r.device, r.driver, r.compiler, w.fingerprint, t.created "
        "FROM winners w JOIN kernels k ON k.id = w.kernel_id "
        "JOIN trials t ON t.id = w.trial_id JOIN runs r ON r.id = w.run_id "
        "WHERE k.op = ?1 AND k.dtype = ?2 AND k.arch = ?3 AND "
        "t.template_hash = ?4 AND (?5 IS NULL OR k.shape = ?5) "
        "ORDER BY w.run_id DESC, w.trial_id DESC");
    if (!st)
        return -1;
    bind_text(st, 1, op);
    bind_text(st, 2, dtype);
    bind_text(st, 3, arch);
    bind_text(st, 4, template_hash);
    if (shape)
        bind_text(st, 5, shape);
    else
        sqlite3_bind_null(st, 5);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        DbWinner x;
        x.shape = col_str(st, 0, a);
        x.config = col_str(st, 1, a);
        x.median_ms = col_real(st, 2);
        x.run = sqlite3_column_int64(st, 3);
        x.trial = sqlite3_column_int64(st, 4);
        x.device = col_str(st, 5, a);
        x.driver = col_str(st, 6, a);
        x.compiler = col_str(st, 7, a);
        x.fingerprint = col_str(st, 8, a);
        x.created = col_str(st, 9, a);
        ARENA_PUSH(a, w, n, cap, x);
    }
    if (rc != SQLITE_DONE) {
        set_err(d, "winner lookup");
        sqlite3_finalize(st);
        return -1;
    }
    sqlite3_finalize(st);
    *out = w;
    return n;
}

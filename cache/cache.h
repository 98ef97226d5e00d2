/*
 * cache.h -- the SQLite tuning cache (cache.c): runs, trials and winners.
 *
 * The only other file that includes sqlite3.h is cachecmd.c (`kgen
 * cache`).  The schema and the rules that keep it honest are documented at
 * the top of cache.c and in docs/cache.md.
 */
#ifndef KGEN_CACHE_H
#define KGEN_CACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "kgen.h"

enum {
    DB_SCHEMA = 1,             /* PRAGMA user_version this kgen writes */
    DB_APP_ID = 0x6B67656E,    /* PRAGMA application_id: "kgen" */
    DB_EXIT = 4,               /* exit status for a DB that cannot be used */
};

typedef struct KgDb KgDb;

/* Open (creating when writable) the DB at path.  write: the caller will
 * record trials, so a DB it cannot write is refused here, before any GPU
 * work.  A corrupt file is moved aside to PATH.corrupt-<UTC> and replaced by
 * an empty DB, unless strict.  On refusal the message is printed to stderr
 * and NULL returned. */
KgDb *db_open(const char *path, bool write, bool strict);
void db_close(KgDb *db);
bool db_writable(const KgDb *db);
const char *db_path(const KgDb *db);
void *db_handle(KgDb *db);                 /* the sqlite3 *, for cachecmd.c */
/* $KGEN_CACHE, else $XDG_CACHE_HOME/kgen/tuning.sqlite, else
 * ~/.cache/kgen/tuning.sqlite. */
const char *db_default_path(Arena *a);
const char *db_error(const KgDb *db);      /* the last failure */

typedef struct DbRun {
    const char *model, *arch, *backend;
    const char *device, *driver, *compiler;
    const char *strategy;
    const char *imported;      /* import: the file it came from, else NULL */
} DbRun;

/* A tuning run; -1 on error. */
int64_t db_run_begin(KgDb *db, const DbRun *r);
int db_run_end(KgDb *db, int64_t run, const char *status);

/* The id of kernel key (op, shape, dtype, arch), created if new; -1 on
 * error. */
int64_t db_kernel(KgDb *db, const char *op, const char *shape,
                  const char *dtype, const char *arch);

typedef struct DbTrial {
    int64_t id, run, kernel;
    const char *fingerprint;   /* device, driver, compiler, template, kgen */
    const char *templ, *template_hash;
    const char *config;
    const char *status;        /* ok, wrong_result, compile_error, ... */
    double median_ms, min_ms, max_ms;
    int reps;
    double rel_err, abs_err;
    const char *error;
    bool retime;               /* a re-measurement of a top candidate */
} DbTrial;

/* Record one trial in its own transaction.  0, or -1 (db_error says why;
 * the transaction was rolled back). */
int db_trial_add(KgDb *db, DbTrial *t);
/* The latest first measurement (not a re-timing) of (kernel, fingerprint,
 * config), strings in a: what a resumed run reuses.  1
 * found, 0 none, -1 error. */
int db_trial_find(KgDb *db, int64_t kernel, const char *fingerprint,
                  const char *config, DbTrial *out, Arena *a);

/* Recompute the winner of (kernel, fingerprint): the valid config whose
 * latest measurement is fastest, over every run and process.  1 a winner
 * is set (in *w when w is not NULL), 0 no valid trial (an older winner is
 * kept), -1 error. */
int db_winner_update(KgDb *db, int64_t kernel, const char *fingerprint,
                     const char *default_config, DbTrial *w, Arena *a);

/* A stored winner as `kgen build` uses it. */
typedef struct DbWinner {
    const char *shape, *config;
    double median_ms;
    int64_t run, trial;
    const char *device, *driver, *compiler, *fingerprint, *created;
} DbWinner;

/* Every winner of (op, dtype, arch) measured with template_hash (winners
 * of an older template are stale and never returned), newest run first;
 * shape NULL: any shape.  Strings in a.  The count, or -1 on error. */
int db_winners(KgDb *db, const char *op, const char *shape, const char *dtype,
               const char *arch, const char *template_hash, DbWinner **out,
               Arena *a);

#endif

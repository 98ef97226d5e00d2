/*
 * tune.h -- what the tuner (tune.c) and its worker processes (worker.c)
 * share: the line protocol between them.
 *
 * The parent starts each worker by exec'ing its own binary as
 *   kgen __worker MODEL [the tune command's options] --role compile|device
 * so a worker plans the model itself and inherits no CUDA context, no
 * OpenCL state and no SQLite connection.  Then, one job at a time:
 *
 *   parent -> worker   J <TAB> kernel-index <TAB> config <TAB> file
 *   worker -> parent   R <TAB> status <TAB> median <TAB> min <TAB> max <TAB>
 *                      reps <TAB> rel-err <TAB> abs-err <TAB> info <TAB> error
 *
 * config is the knob value indices joined by ','; file is where a compile
 * worker writes the CUBIN and a device worker reads it ("-" for OpenCL).
 * A device worker validates every job before it times it, the tuner's
 * re-timings too, so the fastest configs are validated in two separate
 * jobs before one can win.  Text fields escape backslash, tab and newline.  A worker that
 * dies or outlives its deadline is killed with its process group and
 * replaced; its job gets worker_crash, compile_timeout or gpu_timeout.
 */
#ifndef KGEN_TUNE_H
#define KGEN_TUNE_H

#include "kgen.h"

/* Trial statuses, as stored in the cache (docs/cache.md). */
#define ST_OK              "ok"
#define ST_WRONG           "wrong_result"
#define ST_COMPILE_ERROR   "compile_error"
#define ST_COMPILE_TIMEOUT "compile_timeout"
#define ST_RESOURCE        "resource_skip"
#define ST_LAUNCH_ERROR    "launch_error"
#define ST_STICKY          "sticky_fault"
#define ST_GPU_TIMEOUT     "gpu_timeout"
#define ST_CRASH           "worker_crash"
#define ST_OOM             "oom"
#define ST_ENV             "env_error"     /* never stored: exit 3 */

/* Escape s (backslash, tab, newline) onto out; unescape in place. */
void proto_escape(Str *out, const char *s);
void proto_unescape(char *s);
/* Split line at tabs into at most max fields; returns the count. */
int proto_split(char *line, char **f, int max);

/* The config as "i,j,k" and back (n knobs); -1 on a malformed string. */
void cfg_to_ids(const int *cfg, int n, Str *out);
int cfg_from_ids(const char *s, int *cfg, int n);

/* The reference of a large kernel is row-sampled (verify.c): about one
 * row in this many is computed. */
int64_t reference_stride(const Kernel *k);

int cmd_worker(const Options *o);              /* worker.c */

#endif

/*
 * tune.c -- `kgen tune`: search each kernel's tuning space on the device,
 * keep only candidates that compute the right answer, time them, and
 * record every trial in the tuning cache.
 *
 * For each kernel of the plan: enumerate the configs that pass the
 * template's constraints and fit the device (threads per block, shared
 * memory), let the strategy pick candidates, skip those already measured
 * under the same fingerprint (unless --force), and send the rest through
 * the workers: a pool of compile workers, then the single device worker,
 * which validates and times one candidate at a time while holding a lock
 * on the device, so two kgen processes never time on one device at once.
 * Each result is committed as one trial.  At the end the best few are
 * re-timed and the winner is recomputed from the DB.
 *
 * Workers are separate processes (tune.h): a candidate that hangs, faults
 * or crashes its worker costs only that worker, which is killed and
 * replaced; its status is recorded so a rerun does not try it again.
 */
#define _GNU_SOURCE
#include "kgen.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <kgen/kgrt.h>

#include "cache.h"
#include "compile.h"
#include "tune.h"
#include "unfuse.h"

/* ---- the space ---------------------------------------------------------- */

/* Does the config, as "knob=value knob=value ...", satisfy the restriction
 * w, "KNOB=V1,V2,..." (one of the values, or no such knob: a restriction
 * of gemm's path leaves the other templates whole)? */
static bool where_ok(const char *text, const char *w)
{
    const char *eq = strchr(w, '=');
    size_t kn = (size_t)(eq - w);
    for (const char *tok = text; *tok;) {
        size_t n = strcspn(tok, " ");
        if (n > kn && !strncmp(tok, w, kn) && tok[kn] == '=') {
            const char *val = tok + kn + 1;
            size_t vn = n - kn - 1;
            for (const char *v = eq + 1; *v;) {
                size_t m = strcspn(v, ",");
                if (m == vn && !strncmp(v, val, m))
                    return true;
                v += m + (v[m] == ',');
            }
            return false;
        }
        tok += n + (tok[n] == ' ');
    }
    return true;
}

bool config_where(const Template *t, const int *cfg, const Options *o)
{
    bool ok = true;
    if (!o || !o->nwhere)
        return true;
    Str text = {0};
    template_cfg_str(t, cfg, &text);
    for (int i = 0; ok && i < o->nwhere; i++)
        ok = where_ok(text.buf ? text.buf : "", o->where[i]);
    str_free(&text);
    return ok;
}

typedef struct Space {
    Template *t;
    const Options *o;
    Arena *a;
    int nk;
    int **cfgs;
    int n, cap;
} Space;

static int space_add(void *ctx, const int *cfg)
{
    Space *sp = ctx;
    if (config_where(sp->t, cfg, sp->o)) {
        int *c = arena_alloc(sp->a, (size_t)(sp->nk + 1) * sizeof *c);
        memcpy(c, cfg, (size_t)sp->nk * sizeof *c);
        ARENA_PUSH(sp->a, sp->cfgs, sp->n, sp->cap, c);
    }
    return 0;
}

int space_list(Template *t, const Options *o, int ***cfgs, int *ncfg,
               Str *err, Arena *a)
{
    int nk = template_nknobs(t);
    int *cfg = calloc((size_t)nk + 1, sizeof *cfg);
    if (!cfg)
        die("out of memory");
    Space sp = {t, o, a, nk, NULL, 0, 0};
    int rc = cfg_each(t, cfg, 0, space_add, &sp, err);
    free(cfg);
    *cfgs = sp.cfgs;
    *ncfg = sp.n;
    return rc ? -1 : 0;
}

int tune_space(Template *t, const Plan *p, const Kernel *k, const char *arch,
               const Options *o, int ***cfgs, int *ncfg, Str *err, Arena *a)
{
    *cfgs = NULL;
    *ncfg = 0;
    if (template_bind(t, p, k, arch, err))
        return -1;
    return space_list(t, o, cfgs, ncfg, err, a);
}

/* ---- kernel keys -------------------------------------------------------- */

static void value_desc(const Plan *p, const Value *v, Str *s)
{
    str_printf(s, "%s[", dtype_name(v->dt));
    for (int d = 0; d < v->rank; d++)
        str_printf(s, "%s%lld", d ? "," : "", (long long)v->shape[d]);
    str_putc(s, ']');
    if (p->base[v->id]) {
        str_putc(s, '{');
        for (int d = 0; d < v->rank; d++)
            str_printf(s, "%s%lld", d ? "," : "", (long long)p->strides[v->id][d]);
        str_printf(s, "}+%lld", (long long)p->offset[v->id]);
    }
}

void kernel_key(const Plan *p, const Kernel *k, const char **op,
                const char **shape, const char **dtype, Arena *a)
{
    /* what the kernel computes: its ops with attributes and operand
     * references, independent of value names and of the template source */
    Str sig = {0}, sh = {0};
    str_printf(&sig, "%s|%s|", kernel_kind_name(k->kind), k->op);
    for (int i = 0; i < k->nnodes; i++) {
        const Node *n = k->nodes[i];
        str_printf(&sig, "%s(", op_info(n->op)->name);
        for (int j = 0; j < n->nin; j++) {
            const Value *v = n->in[j];
            int idx = -1;
            for (int q = 0; v && q < k->nin; q++)
                if (k->in[q] == v)
                    idx = q;
            if (!v)
                str_puts(&sig, "_,");
            else if (v->kind == V_CONST)
                str_printf(&sig, "c%.17g,", v->cval);
            else if (idx >= 0)
                str_printf(&sig, "i%d,", idx);
            else if (v->def)
                str_printf(&sig, "n%d.%d,", v->def->id - k->nodes[0]->id,
                           v->def_res);
        }
        for (int j = 0; j < n->nattr; j++) {
            const Attr *at = &n->attr[j];
            switch (at->kind) {
            case A_NONE: break;
            case A_INT: case A_BOOL: case A_DTYPE:
                str_printf(&sig, "a%d=%lld,", j, (long long)at->i);
                break;
            case A_FLOAT: str_printf(&sig, "a%d=%.17g,", j, at->f); break;
            case A_STR: str_printf(&sig, "a%d=%s,", j, at->s); break;
            case A_INTS:
                str_printf(&sig, "a%d=", j);
                for (int q = 0; q < at->n; q++)
                    str_printf(&sig, "%lld;", (long long)at->ints[q]);
                str_putc(&sig, ',');
                break;
            }
        }
        str_puts(&sig, ")");
    }
    for (int i = 0; i < k->nin; i++) {
        str_puts(&sh, i ? "," : "");
        value_desc(p, k->in[i], &sh);
    }
    str_puts(&sh, "->");
    for (int i = 0; i < k->nout; i++) {
        str_puts(&sh, i ? "," : "");
        value_desc(p, k->out[i], &sh);
    }
    /* the operands' layout without its sizes ("f16[#,#]{#,#}+#"): the same
     * computation at another shape keeps its op, so kgen build can find
     * the nearest tuned shape */
    for (const char *c = sh.buf; *c; c++) {
        if (c > sh.buf && strchr("[,{+", c[-1]) && *c >= '0' && *c <= '9') {
            str_putc(&sig, '#');
            while (c[1] >= '0' && c[1] <= '9')
                c++;
        } else {
            str_putc(&sig, *c);
        }
    }
    uint64_t h = hash64(sig.buf, sig.len, 0x6b67656f);
    *op = arena_printf(a, "%s/%s#%016llx", k->template_name, k->op,
                       (unsigned long long)h);
    *shape = arena_strdup(a, sh.buf);
    *dtype = dtype_name(k->nout ? k->out[0]->dt : DT_F32);
    str_free(&sig);
    str_free(&sh);
}

/* ---- processes ---------------------------------------------------------- */

typedef struct Proc {
    pid_t pid;                 /* 0: not running */
    int to, from;              /* its stdin, its stdout */
    int job;                   /* candidate index, or -1 when idle */
    double deadline;
    int data_kernel;           /* device worker: kernel it holds data for */
    Str buf;                   /* partial reply */
} Proc;

enum { C_IDLE, C_COMPILE_Q, C_COMPILING, C_MEASURE_Q, C_MEASURING, C_DONE };

typedef struct Cand {
    int *cfg;
    const char *ids;           /* "i,j,k": the protocol's and the DB's form */
    const char *text;          /* "BM=64 BN=128 ..." */
    int state;
    const char *status;
    double median, min, max, rel, abs;
    int reps;
    const char *error, *info;
    bool reused;               /* taken from the cache, not measured now */
    bool retime;               /* the job is a re-timing */
    bool measured_now;
    const char *file;
    double cost;               /* the template's rank(); NAN without one */
} Cand;

typedef struct Count {
    int trials, ok, wrong, compile, resource, launch, timeout, crash, oom,
        reused, pruned;
} Count;

typedef struct Tuner {
    const Options *o;
    Plan *p;
    Arena *a;
    const char *arch;
    bool cuda;
    KgDb *db;
    int64_t run;
    const char *device_name, *driver, *compiler;
    kgrt_limits lim;
    char **argv;               /* a worker's argv, role last but one */
    int argc;
    char tmpdir[256];
    int lockfd;
    bool locked, waited;
    Proc *comp;
    int ncomp;
    Proc dev;
    /* the kernel being tuned */
    int ki;
    Kernel *k;
    Template *t;
    Cand *c;
    int nc;
    int def;                   /* the default: best-ranked, else the first */
    int64_t kid;
    const char *fp, *thash;
    int *cq, ncq, hcq;         /* compile queue (ring of nc) */
    int *mq, nmq, hmq;         /* measure queue */
    int inflight;              /* candidates queued or running */
    double kdeadline;
    double t_start;
    Count cnt;
    bool env_error, db_error;
    Str env_msg;
    double best;
} Tuner;

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
    interrupted = sig;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int spawn(Tuner *T, Proc *pr, const char *role)
{
    int in[2], out[2];
    if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC))
        die("pipe: %s", strerror(errno));
    T->argv[T->argc - 1] = (char *)role;
    pid_t parent = getpid();
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        die("fork: %s", strerror(errno));
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(1);
        setpgid(0, 0);
        dup2(in[0], 0);
        dup2(out[1], 1);
        if (!T->o->verbose) {
            /* compilers chatter on stderr; results travel on stdout */
            int null = open("/dev/null", O_WRONLY);
            if (null >= 0)
                dup2(null, 2);
        }
        signal(SIGINT, SIG_IGN);   /* the parent decides */
        execv("/proc/self/exe", T->argv);
        _exit(127);
    }
    setpgid(pid, pid);
    close(in[0]);
    close(out[1]);
    pr->pid = pid;
    pr->to = in[1];
    pr->from = out[0];
    pr->job = -1;
    pr->data_kernel = -1;
    str_free(&pr->buf);
    return 0;
}

/* Kill a worker and its process group; returns how it ended. */
static int reap(Proc *pr, bool kill_it)
{
    int status = 0;
    if (!pr->pid)
        return 0;
    if (kill_it) {
        kill(-pr->pid, SIGKILL);
        kill(pr->pid, SIGKILL);
    }
    close(pr->to);
    close(pr->from);
    while (waitpid(pr->pid, &status, 0) < 0 && errno == EINTR)
        ;
    pr->pid = 0;
    pr->job = -1;
    str_free(&pr->buf);
    return status;
}

static bool gpu_lock(Tuner *T)
{
    if (T->locked || T->lockfd < 0)
        return true;
    if (flock(T->lockfd, LOCK_EX | LOCK_NB) == 0) {
        T->locked = true;
        char pid[32];
        int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
        if (ftruncate(T->lockfd, 0) == 0 &&
            pwrite(T->lockfd, pid, (size_t)n, 0) != n)
            T->waited = T->waited;     /* the pid is only a courtesy */
        return true;
    }
    if (!T->waited && !T->o->quiet) {
        char held[32] = "";
        ssize_t n = pread(T->lockfd, held, sizeof held - 1, 0);
        held[n > 0 ? n : 0] = 0;
        held[strcspn(held, "\n")] = 0;
        fprintf(stderr, "kgen: %s busy (pid %s): waiting to time on it\n",
                T->device_name, *held ? held : "?");
        T->waited = true;
    }
    return false;
}

static void gpu_unlock(Tuner *T)
{
    if (T->locked) {
        flock(T->lockfd, LOCK_UN);
        T->locked = false;
    }
}

/* ---- recording ---------------------------------------------------------- */

static void count(Count *n, const char *st)
{
    n->trials++;
    if (!strcmp(st, ST_OK)) n->ok++;
    else if (!strcmp(st, ST_WRONG)) n->wrong++;
    else if (!strcmp(st, ST_COMPILE_ERROR)) n->compile++;
    else if (!strcmp(st, ST_RESOURCE)) n->resource++;
    else if (!strcmp(st, ST_LAUNCH_ERROR) || !strcmp(st, ST_STICKY)) n->launch++;
    else if (!strcmp(st, ST_GPU_TIMEOUT) || !strcmp(st, ST_COMPILE_TIMEOUT)) n->timeout++;
    else if (!strncmp(st, ST_CRASH, strlen(ST_CRASH))) n->crash++;
    else if (!strcmp(st, ST_OOM)) n->oom++;
}

static void finish(Tuner *T, int ci, const char *status, const char *error)
{
    Cand *c = &T->c[ci];
    c->state = C_DONE;
    c->status = arena_strdup(T->a, status);
    c->error = error && *error ? arena_strdup(T->a, error) : NULL;
    T->inflight--;
    if (!strcmp(status, ST_ENV)) {
        if (!T->env_error)
            str_printf(&T->env_msg, "%s", error ? error : "");
        T->env_error = true;
        return;
    }
    count(&T->cnt, status);
    c->measured_now = true;
    if (!strcmp(status, ST_OK) && c->median > 0 &&
        (T->best <= 0 || c->median < T->best))
        T->best = c->median;
    if (T->o->compile_only) {
        if (strcmp(status, ST_OK) && T->o->verbose)
            fprintf(stderr, "%s %s: %s\n%s\n", T->k->name, c->text, status,
                    error ? error : "");
        return;
    }
    DbTrial tr = {
        .run = T->run, .kernel = T->kid, .fingerprint = T->fp,
        .templ = T->k->template_name, .template_hash = T->thash,
        .config = c->text, .status = status, .median_ms = c->median,
        .min_ms = c->min, .max_ms = c->max, .reps = c->reps,
        .rel_err = c->rel, .abs_err = c->abs, .error = c->error,
        .retime = c->retime,
    };
    if (db_trial_add(T->db, &tr)) {
        /* keep what would be lost next to the DB (RELIABILITY F8) */
        char side[4200];
        snprintf(side, sizeof side, "%s.unsaved-%ld.json", db_path(T->db),
                 (long)getpid());
        FILE *fp = fopen(side, "a");
        if (fp) {
            Str e = {0};
            proto_escape(&e, c->error ? c->error : "");
            fprintf(fp, "{\"kernel\": \"%s\", \"fingerprint\": \"%s\", "
                    "\"config\": \"%s\", \"status\": \"%s\", \"median_ms\": "
                    "%.9g, \"error\": \"%s\"}\n", T->k->name, T->fp, c->text,
                    status, c->median, e.buf ? e.buf : "");
            str_free(&e);
            fclose(fp);
        }
        fprintf(stderr, "kgen: error: %s (tuning DB %s); the trial was saved "
                "to %s\n", db_error(T->db), db_path(T->db), side);
        T->db_error = true;
    }
}

/* ---- the job loop ------------------------------------------------------- */

static void send_job(Tuner *T, Proc *pr, const char *role, int ci, double limit)
{
    Cand *c = &T->c[ci];
    if (!pr->pid)
        spawn(T, pr, role);
    bool device = !strcmp(role, "device");
    Str s = {0};
    str_printf(&s, "J\t%d\t%s\t", T->ki, c->ids);
    proto_escape(&s, c->file ? c->file : "-");
    str_puts(&s, "\n");
    /* the first job of a kernel also computes its reference */
    if (device && pr->data_kernel != T->ki)
        limit += 600;
    pr->job = ci;
    pr->deadline = now_s() + limit;
    if (device)
        pr->data_kernel = T->ki;
    c->state = device ? C_MEASURING : C_COMPILING;
    ssize_t w = write(pr->to, s.buf, s.len);
    (void)w;           /* a dead worker shows up as EOF on its stdout */
    str_free(&s);
}

static double num(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    return end == s ? -1 : v;
}

static void on_reply(Tuner *T, Proc *pr, bool device, char *line)
{
    char *f[10];
    int nf = proto_split(line, f, 10);
    int ci = pr->job;
    pr->job = -1;
    if (device)
        gpu_unlock(T);
    if (ci < 0)
        return;
    Cand *c = &T->c[ci];
    if (nf != 10 || strcmp(f[0], "R")) {
        finish(T, ci, ST_CRASH, "the worker sent a malformed reply");
        return;
    }
    proto_unescape(f[8]);
    proto_unescape(f[9]);
    const char *st = f[1];
    if (!device) {
        if (!strcmp(st, ST_OK)) {
            c->info = arena_strdup(T->a, f[8]);
            c->state = C_MEASURE_Q;
            T->mq[(T->hmq + T->nmq++) % T->nc] = ci;
        } else {
            finish(T, ci, st, f[9]);
        }
        return;
    }
    c->median = num(f[2]);
    c->min = num(f[3]);
    c->max = num(f[4]);
    c->reps = atoi(f[5]);
    c->rel = num(f[6]);
    c->abs = num(f[7]);
    if (*f[8])
        c->info = arena_strdup(T->a, f[8]);
    finish(T, ci, st, f[9]);
    /* the worker exits after these: never hand it another job */
    if (!strcmp(st, ST_STICKY) || !strcmp(st, ST_GPU_TIMEOUT))
        reap(pr, true);
}

static void on_death(Tuner *T, Proc *pr, bool device, bool timed_out)
{
    int ci = pr->job;
    int status = reap(pr, true);
    if (device)
        gpu_unlock(T);
    if (ci < 0)
        return;
    char why[128];
    if (timed_out) {
        snprintf(why, sizeof why, "no answer within the deadline: the worker "
                 "was killed");
        finish(T, ci, device ? ST_GPU_TIMEOUT : ST_COMPILE_TIMEOUT, why);
    } else if (WIFSIGNALED(status)) {
        char st[64];
        snprintf(st, sizeof st, "%s(SIG%s)", ST_CRASH,
                 sigabbrev_np(WTERMSIG(status)) ? sigabbrev_np(WTERMSIG(status))
                                                : "?");
        snprintf(why, sizeof why, "the worker died of signal %d (%s)",
                 WTERMSIG(status), strsignal(WTERMSIG(status)));
        finish(T, ci, st, why);
    } else {
        snprintf(why, sizeof why, "the worker exited with status %d",
                 WEXITSTATUS(status));
        finish(T, ci, ST_CRASH, why);
    }
}

static void progress(Tuner *T, bool final)
{
    if (T->o->quiet || !isatty(2) || T->o->json)
        return;
    int done = 0, total = 0;
    for (int i = 0; i < T->nc; i++) {
        total += T->c[i].state != C_IDLE;
        done += T->c[i].state == C_DONE;
    }
    double el = now_s() - T->t_start;
    char rem[32] = "";
    if (done && done < total)
        snprintf(rem, sizeof rem, ", ~%.0f s left",
                 el / done * (total - done));
    char best[32] = "-";
    if (T->best > 0)
        snprintf(best, sizeof best, "%.4g ms", T->best);
    fprintf(stderr, "\r\033[K%-28s %d/%d done, %d valid, best %s, %.1f s%s",
            T->k->name, done, total, T->cnt.ok + T->cnt.reused, best, el, rem);
    if (final)
        fputc('\n', stderr);
    fflush(stderr);
}

/* Run every queued candidate to completion (or to the deadline). */
static int drain(Tuner *T)
{
    double compile_limit = 120;
    double run_limit = 60 + 4 * (T->o->timeout_ms > 0 ? T->o->timeout_ms : 10000) / 1000;
    double last_progress = 0;
    while (T->inflight > 0) {
        if (interrupted || T->env_error || T->db_error)
            return -1;
        double now = now_s();
        if (T->kdeadline > 0 && now > T->kdeadline) {
            /* out of time: drop what has not started */
            while (T->ncq) {
                int ci = T->cq[T->hcq];
                T->hcq = (T->hcq + 1) % T->nc;
                T->ncq--;
                T->c[ci].state = C_IDLE;
                T->inflight--;
            }
        }
        for (int i = 0; i < T->ncomp && T->ncq; i++)
            if (T->comp[i].job < 0) {
                int ci = T->cq[T->hcq];
                T->hcq = (T->hcq + 1) % T->nc;
                T->ncq--;
                send_job(T, &T->comp[i], "compile", ci, compile_limit);
            }
        if (T->dev.job < 0 && T->nmq && gpu_lock(T)) {
            int ci = T->mq[T->hmq];
            T->hmq = (T->hmq + 1) % T->nc;
            T->nmq--;
            send_job(T, &T->dev, "device", ci, run_limit);
        }
        struct pollfd pf[65];
        Proc *who[65];
        int np = 0;
        double wake = now + 0.25;
        for (int i = 0; i <= T->ncomp && np < 64; i++) {
            Proc *pr = i < T->ncomp ? &T->comp[i] : &T->dev;
            if (pr->job < 0)
                continue;
            pf[np] = (struct pollfd){.fd = pr->from, .events = POLLIN};
            who[np++] = pr;
            if (pr->deadline < wake)
                wake = pr->deadline;
        }
        int ms = (int)((wake - now) * 1000);
        int n = poll(pf, (nfds_t)np, ms < 10 ? 10 : ms);
        if (n < 0 && errno != EINTR)
            die("poll: %s", strerror(errno));
        now = now_s();
        for (int i = 0; i < np; i++) {
            Proc *pr = who[i];
            bool device = pr == &T->dev;
            if (n > 0 && pf[i].revents) {
                char buf[65536];
                ssize_t r = read(pr->from, buf, sizeof buf);
                if (r <= 0) {
                    on_death(T, pr, device, false);
                    continue;
                }
                str_putn(&pr->buf, buf, (size_t)r);
                char *nl;
                while (pr->buf.buf && (nl = memchr(pr->buf.buf, '\n', pr->buf.len))) {
                    *nl = 0;
                    size_t used = (size_t)(nl - pr->buf.buf) + 1;
                    char *line = strdup(pr->buf.buf);
                    memmove(pr->buf.buf, nl + 1, pr->buf.len - used);
                    pr->buf.len -= used;
                    pr->buf.buf[pr->buf.len] = 0;
                    on_reply(T, pr, device, line);
                    free(line);
                }
            } else if (pr->job >= 0 && now > pr->deadline) {
                on_death(T, pr, device, true);
            }
        }
        if (now - last_progress > 0.2) {
            progress(T, false);
            last_progress = now;
        }
    }
    return 0;
}

/* Queue candidate ci unless the cache already has its trial. */
static void submit(Tuner *T, int ci, bool retime)
{
    Cand *c = &T->c[ci];
    if (c->state != C_IDLE && !retime)
        return;
    c->retime = retime;
    if (!retime && !T->o->force && !T->o->compile_only) {
        DbTrial tr;
        int f = db_trial_find(T->db, T->kid, T->fp, c->text, &tr, T->a);
        if (f > 0) {
            c->state = C_DONE;
            c->reused = true;
            c->status = tr.status;
            c->median = tr.median_ms;
            c->min = tr.min_ms;
            c->max = tr.max_ms;
            c->reps = tr.reps;
            c->error = tr.error;
            T->cnt.reused++;
            if (!strcmp(c->status, ST_OK) && (T->best <= 0 || c->median < T->best))
                T->best = c->median;
            return;
        }
    }
    if (!c->file && T->cuda)
        c->file = arena_printf(T->a, "%s/k%d-%d.cubin", T->tmpdir, T->ki, ci);
    T->inflight++;
    if (retime) {
        c->state = C_MEASURE_Q;
        T->mq[(T->hmq + T->nmq++) % T->nc] = ci;
    } else {
        c->state = C_COMPILE_Q;
        T->cq[(T->hcq + T->ncq++) % T->nc] = ci;
    }
}

/* ---- strategies --------------------------------------------------------- */

static uint64_t rng_next(uint64_t *s)
{
    *s += 0x9E3779B97F4A7C15ull;
    uint64_t z = *s;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static bool valid(const Cand *c)
{
    return c->state == C_DONE && c->status && !strcmp(c->status, ST_OK) &&
           c->median > 0;
}

static int budget_of(Tuner *T, const char *strategy)
{
    if (T->o->budget > 0)
        return T->o->budget < T->nc ? T->o->budget : T->nc;
    if (!strcmp(strategy, "exhaustive"))
        return T->nc;
    int b = T->nc / 5;
    b = b < 12 ? 12 : b;
    return b < T->nc ? b : T->nc;
}

static int run_batch(Tuner *T, const int *idx, int n)
{
    for (int i = 0; i < n; i++)
        submit(T, idx[i], false);
    return drain(T);
}

/* configs by the template's cost estimate, the space's order on ties */
static const Cand *sort_c;
static int by_cost(const void *x, const void *y)
{
    int i = *(const int *)x, j = *(const int *)y;
    int c = template_rank_cmp(sort_c[i].cost, sort_c[j].cost);
    return c ? c : (i > j) - (i < j);
}

static int strategy_list(Tuner *T, bool shuffle, int budget, uint64_t seed)
{
    int *order = malloc((size_t)T->nc * sizeof *order);
    if (!order)
        die("out of memory");
    for (int i = 0; i < T->nc; i++)
        order[i] = i;
    order[0] = T->def;
    order[T->def] = 0;
    /* exhaustive: the default, then the rest by rank() (the space's order
     * without one), so that a budget or --time that stops it early has
     * measured the likeliest first */
    if (!shuffle && T->nc > 2) {
        sort_c = T->c;
        qsort(order + 1, (size_t)T->nc - 1, sizeof *order, by_cost);
    }
    for (int i = T->nc - 1; shuffle && i > 1; i--) {   /* 0 stays first */
        int j = 1 + (int)(rng_next(&seed) % (uint64_t)i);
        int t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    int rc = run_batch(T, order, budget);
    free(order);
    return rc;
}

/* design points by the cost of their best-ranked config (dbest), the
 * space's order on ties and without rank() */
static const double *sort_d;
static int by_dcost(const void *x, const void *y)
{
    int i = *(const int *)x, j = *(const int *)y;
    int c = template_rank_cmp(sort_d[i], sort_d[j]);
    return c ? c : (i > j) - (i < j);
}

/* The start of a search: the default, then configs drawn round-robin from
 * the design points (runs of adjacent configs with equal design knobs), one
 * of each per round (a design point's valid configs can be a small corner
 * of the space -- gemm's wgmma path -- that a walk from the default never
 * reaches, while its structure decides more than any tile size, so each
 * gets the same share, however few configs it has), up to half the budget
 * or `width`, whichever is more (at most the budget, at least the
 * default).  Round 0 takes each design point's best-ranked config (rank()
 * is the template's rough cost model); later rounds draw at random from
 * its best-ranked sixteenth (at least 4 per round so far), or from the
 * whole design point when the template has no rank().  Each round visits
 * the design points best-ranked first, so that a budget smaller than
 * their number measures the likeliest.  Fills batch, returns its length. */
static int start_batch(Tuner *T, int *batch, int width, int budget, uint64_t *seed)
{
    int nd = template_ndesign(T->t), n = 0, np = 0;
    int cap = budget / 2 > width ? budget / 2 : width;
    cap = cap < budget ? cap : budget;
    cap = cap < T->nc ? cap : T->nc;
    int *lo = malloc((size_t)(T->nc + 1) * sizeof *lo);
    int *order = malloc((size_t)(T->nc + 1) * sizeof *order);
    char *used = calloc((size_t)T->nc + 1, 1);
    if (!lo || !order || !used)
        die("out of memory");
    for (int i = 0; i < T->nc; i++) {
        order[i] = i;
        if (i == 0 || memcmp(T->c[i].cfg, T->c[i - 1].cfg, (size_t)nd * sizeof(int)))
            lo[np++] = i;
    }
    lo[np] = T->nc;
    sort_c = T->c;
    for (int d = 0; d < np; d++)
        qsort(order + lo[d], (size_t)(lo[d + 1] - lo[d]), sizeof *order, by_cost);
    int *dorder = malloc((size_t)(np + 1) * sizeof *dorder);
    double *dbest = malloc((size_t)(np + 1) * sizeof *dbest);
    if (!dorder || !dbest)
        die("out of memory");
    for (int d = 0; d < np; d++) {
        dorder[d] = d;
        dbest[d] = T->c[order[lo[d]]].cost;
    }
    sort_d = dbest;
    qsort(dorder, (size_t)np, sizeof *dorder, by_dcost);
    batch[n++] = T->def;
    used[T->def] = 1;
    for (int round = 0; n < cap && round < T->nc; round++) {
        for (int dd = 0; dd < np && n < cap; dd++) {
            /* round 0 takes the default's design point last when no
             * rank() orders them: the default is its sample */
            int d = dorder[round == 0 && isnan(dbest[dorder[0]]) ? (dd + 1) % np : dd];
            int size = lo[d + 1] - lo[d], left = 0;
            bool ranked = !isnan(T->c[order[lo[d]]].cost);
            if (round == 0 && d == 0 && !ranked)
                continue;
            int pool = !ranked ? size : size / 16 > 4 * round ? size / 16 : 4 * round;
            pool = round == 0 && ranked ? 1 : pool < size ? pool : size;
            for (int q = 0; q < pool; q++)
                left += !used[order[lo[d] + q]];
            if (!left)
                continue;
            /* the r-th unused config of the pool, r at random */
            int r = (int)(rng_next(seed) % (uint64_t)left), j = -1;
            for (int q = 0; q < pool; q++)
                if (!used[order[lo[d] + q]] && r-- == 0) {
                    j = order[lo[d] + q];
                    break;
                }
            used[j] = 1;
            batch[n++] = j;
        }
    }
    free(lo);
    free(order);
    free(used);
    free(dorder);
    free(dbest);
    return n;
}

/* Simulated annealing over the valid configs: a neighbour differs in one
 * knob; a slower neighbour is accepted with probability exp(-(t/t_cur -
 * 1) / temperature); batches as wide as the compile pool. */
static int strategy_anneal(Tuner *T, int budget, uint64_t seed)
{
    int nk = template_nknobs(T->t);
    int width = T->ncomp > 2 ? T->ncomp : 2;
    int *batch = malloc((size_t)(T->nc + 1) * sizeof *batch);
    int *nb = malloc((size_t)(T->nc + 1) * sizeof *nb);
    if (!batch || !nb)
        die("out of memory");
    int used = 0, cur = T->def;
    double temp = 0.15;
    int n = start_batch(T, batch, width, budget, &seed);
    int rc = 0;
    while (n > 0) {
        used += n;
        if ((rc = run_batch(T, batch, n)))
            break;
        for (int q = 0; q < n; q++) {
            Cand *c = &T->c[batch[q]];
            if (!valid(c))
                continue;
            if (!valid(&T->c[cur]) || c->median < T->c[cur].median)
                cur = batch[q];
            else {
                double worse = c->median / T->c[cur].median - 1;
                double u = (double)(rng_next(&seed) >> 11) / 9007199254740992.0;
                if (u < exp(-worse / temp))
                    cur = batch[q];
            }
        }
        temp *= 0.8;
        if (used >= budget || (T->kdeadline > 0 && now_s() > T->kdeadline))
            break;
        /* unvisited neighbours of the current config */
        int m = 0;
        for (int i = 0; i < T->nc; i++) {
            if (T->c[i].state != C_IDLE)
                continue;
            int diff = 0;
            for (int q = 0; q < nk && diff < 2; q++)
                diff += T->c[i].cfg[q] != T->c[cur].cfg[q];
            if (diff == 1)
                nb[m++] = i;
        }
        n = 0;
        int want = width < budget - used ? width : budget - used;
        while (n < want && m > 0) {
            int j = (int)(rng_next(&seed) % (uint64_t)m);
            batch[n++] = nb[j];
            nb[j] = nb[--m];
        }
        /* none left around here: jump to an unvisited config */
        for (int tries = 0; n < want && tries < 4 * T->nc; tries++) {
            int j = (int)(rng_next(&seed) % (uint64_t)T->nc);
            bool dup = T->c[j].state != C_IDLE;
            for (int q = 0; q < n; q++)
                dup |= batch[q] == j;
            if (!dup)
                batch[n++] = j;
        }
    }
    free(batch);
    free(nb);
    return rc;
}

/* ---- one kernel --------------------------------------------------------- */

typedef struct Summary {
    const char *kernel, *config;
    double ms, default_ms;
    Count cnt;
    int space, pruned;
    bool failed;
} Summary;

static bool fits(const Tuner *T, const Launch *L)
{
    unsigned long threads = (unsigned long)L->block[0] * L->block[1] * L->block[2];
    if (T->lim.max_threads_per_block > 0 &&
        threads > (unsigned long)T->lim.max_threads_per_block)
        return false;
    if (T->lim.max_shared_per_block > 0 && L->smem > T->lim.max_shared_per_block)
        return false;
    for (int d = 0; d < 3; d++)
        if (T->lim.max_block[d] && L->block[d] > T->lim.max_block[d])
            return false;
    return true;
}

static int tune_kernel(Tuner *T, TemplateCache *tc, Summary *sum)
{
    const Options *o = T->o;
    Kernel *k = T->k;
    Str err = {0};
    memset(&T->cnt, 0, sizeof T->cnt);
    T->best = 0;
    sum->kernel = k->name;
    T->t = template_get(tc, templates_dir(o), k->template_name, &err, T->a);
    int **cfgs = NULL, ncfg = 0;
    if (!T->t || tune_space(T->t, T->p, k, T->arch, o, &cfgs, &ncfg, &err, T->a)) {
        fprintf(stderr, "kgen: error: %s: %s\n", k->name, err.buf);
        str_free(&err);
        sum->failed = true;
        return -1;
    }
    int nk = template_nknobs(T->t);
    sum->space = ncfg;
    /* prune what cannot launch on this device */
    T->c = arena_alloc(T->a, (size_t)(ncfg + 1) * sizeof *T->c);
    T->nc = 0;
    for (int i = 0; i < ncfg; i++) {
        Launch L;
        if (template_launch(T->t, cfgs[i], &L, &err) || !fits(T, &L)) {
            str_free(&err);
            sum->pruned++;
            continue;
        }
        Cand *c = &T->c[T->nc++];
        memset(c, 0, sizeof *c);
        c->cfg = cfgs[i];
        Str s = {0};
        cfg_to_ids(cfgs[i], nk, &s);
        c->ids = arena_strdup(T->a, s.buf ? s.buf : "");
        str_free(&s);
        template_cfg_str(T->t, cfgs[i], &s);
        c->text = arena_strdup(T->a, s.buf ? s.buf : "");
        str_free(&s);
        c->median = c->min = c->max = c->rel = c->abs = -1;
        if (template_rank(T->t, cfgs[i], &c->cost, &err)) {
            fprintf(stderr, "kgen: error: %s: %s\n", k->name, err.buf);
            str_free(&err);
            sum->failed = true;
            return -1;
        }
    }
    /* the default is what an untuned build takes (build.c): the
     * best-ranked config, the first in the space's order on ties or
     * without rank() */
    T->def = 0;
    for (int i = 1; i < T->nc; i++)
        if (template_rank_cmp(T->c[i].cost, T->c[T->def].cost) < 0)
            T->def = i;
    if (!T->nc) {
        fprintf(stderr, "kgen: error: %s: no config of templates/%s.lua fits "
                "the constraints and the device (%d configs, %d pruned)\n",
                k->name, k->template_name, ncfg, sum->pruned);
        sum->failed = true;
        return -1;
    }
    T->cq = arena_alloc(T->a, (size_t)T->nc * sizeof *T->cq);
    T->mq = arena_alloc(T->a, (size_t)T->nc * sizeof *T->mq);
    T->ncq = T->hcq = T->nmq = T->hmq = T->inflight = 0;
    /* the cache key and the fingerprint */
    const char *op, *shape, *dtype;
    kernel_key(T->p, k, &op, &shape, &dtype, T->a);
    T->thash = arena_printf(T->a, "%016llx",
                            (unsigned long long)template_hash(T->t));
    Str fp = {0};
    str_printf(&fp, "%s|%s|%s|%s|%s|%s", T->device_name, T->driver,
               T->compiler, T->thash, KGEN_VERSION, T->arch);
    bool known = *T->device_name && *T->driver && *T->compiler;
    T->fp = known ? arena_printf(T->a, "%016llx",
                                 (unsigned long long)hash64(fp.buf, fp.len, 1))
                  : arena_printf(T->a, "unknown-%ld-%ld", (long)getpid(),
                                 (long)time(NULL));
    str_free(&fp);
    T->kid = o->compile_only ? 0 : db_kernel(T->db, op, shape, dtype, T->arch);
    if (T->kid < 0) {
        fprintf(stderr, "kgen: error: %s (tuning DB %s)\n", db_error(T->db),
                db_path(T->db));
        T->db_error = true;
        return -1;
    }
    if (o->verbose)
        fprintf(stderr, "%s: key %s %s %s, fingerprint %s, %d configs (%d "
                "pruned)\n", k->name, op, shape, T->arch, T->fp, T->nc,
                sum->pruned);
    const char *strategy = o->strategy ? o->strategy
                         : T->nc <= 64 ? "exhaustive" : "anneal";
    int budget = budget_of(T, strategy);
    uint64_t seed = o->seed ^ hash64(op, strlen(op), 3);
    T->t_start = now_s();
    int rc;
    if (o->compile_only)
        rc = strategy_list(T, false, T->nc, seed);
    else if (!strcmp(strategy, "exhaustive"))
        rc = strategy_list(T, false, budget, seed);
    else if (!strcmp(strategy, "random"))
        rc = strategy_list(T, true, budget, seed);
    else
        rc = strategy_anneal(T, budget, seed);
    /* re-time the best few measured in this run */
    if (!rc && !o->compile_only) {
        int top[3], ntop = 0;
        for (int i = 0; i < T->nc; i++) {
            if (!valid(&T->c[i]) || T->c[i].reused)
                continue;
            int j = ntop < 3 ? ntop++ : 3;
            if (j == 3) {
                if (T->c[top[2]].median <= T->c[i].median)
                    continue;
                j = 2;
            }
            top[j] = i;
            for (; j > 0 && T->c[top[j]].median < T->c[top[j - 1]].median; j--) {
                int t = top[j];
                top[j] = top[j - 1];
                top[j - 1] = t;
            }
        }
        if (ntop > 1) {
            for (int i = 0; i < ntop; i++)
                submit(T, top[i], true);
            rc = drain(T);
        }
    }
    progress(T, true);
    for (int i = 0; i < T->nc; i++)
        if (T->c[i].file)
            unlink(T->c[i].file);
    sum->cnt = T->cnt;
    if (rc)
        return -1;
    if (o->compile_only) {
        sum->failed = T->cnt.ok == 0;
        return sum->failed ? -1 : 0;
    }
    DbTrial w;
    int got = db_winner_update(T->db, T->kid, T->fp, T->c[T->def].text, &w, T->a);
    if (got < 0) {
        fprintf(stderr, "kgen: error: %s (tuning DB %s)\n", db_error(T->db),
                db_path(T->db));
        T->db_error = true;
        return -1;
    }
    if (got == 0) {
        sum->failed = true;
        return -1;
    }
    sum->ms = w.median_ms;
    sum->config = w.config;
    sum->default_ms = valid(&T->c[T->def]) ? T->c[T->def].median : -1;
    return 0;
}

/* ---- the command -------------------------------------------------------- */

/* Does kernel k replace a match that p left unfused? */
static bool replaces_unfused(const Plan *p, const Kernel *k)
{
    for (int i = 0; p->unfused && i < k->nnodes; i++)
        if (p->unfused[k->nodes[i]->id])
            return true;
    return false;
}

/* Tune the plan that leaves every optional match unfused: this command
 * again, in a child process, with --unfuse all --unfused-only.  Its exit
 * code, or -1 when it could not run. */
/* Tune the plan without the optional fusions in a child kgen (--unfuse all
 * --unfused-only).  With --json its document goes to the file at json_out
 * (NULL: nowhere), for the parent to nest in its own: one document on
 * stdout. */
static int tune_unfused(const Options *o, const char *json_out)
{
    extern char **kgen_argv;
    extern int kgen_argc;
    char **argv = calloc((size_t)kgen_argc + 4, sizeof *argv);
    if (!argv)
        return -1;
    int n = 0;
    for (int i = 0; i < kgen_argc; i++)
        argv[n++] = kgen_argv[i];
    argv[n++] = "--unfuse";
    argv[n++] = "all";
    argv[n++] = "--unfused-only";
    argv[n] = NULL;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        free(argv);
        return -1;
    }
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (o->json) {
            int fd = json_out ? open(json_out, O_WRONLY | O_CREAT | O_TRUNC, 0600) : -1;
            if (fd < 0)
                fd = open("/dev/null", O_WRONLY);
            if (fd >= 0)
                dup2(fd, 1);
        }
        execv("/proc/self/exe", argv);
        _exit(127);
    }
    free(argv);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void print_summary(const Options *o, const Plan *p, const Summary *s,
                          int n, double secs, const char *dbpath,
                          const UnfuseChoice *uc, int nuc, const char *child)
{
    if (o->json) {
        printf("{\"model\": \"%s\", \"seconds\": %.3f, \"db\": \"%s\", "
               "\"kernels\": [", p->g->name, secs, dbpath ? dbpath : "");
        for (int i = 0; i < n; i++) {
            const Count *c = &s[i].cnt;
            printf("%s\n  {\"kernel\": \"%s\", \"winner\": %s%s%s, \"ms\": %.6g, "
                   "\"default_ms\": %.6g, \"space\": %d, \"pruned\": %d, "
                   "\"trials\": %d, \"reused\": %d, \"ok\": %d, "
                   "\"wrong_result\": %d, \"compile_error\": %d, "
                   "\"resource_skip\": %d, \"launch_error\": %d, "
                   "\"timeout\": %d, \"worker_crash\": %d, \"oom\": %d}",
                   i ? "," : "", s[i].kernel, s[i].config ? "\"" : "",
                   s[i].config ? s[i].config : "null", s[i].config ? "\"" : "",
                   s[i].ms, s[i].default_ms, s[i].space, s[i].pruned, c->trials,
                   c->reused, c->ok, c->wrong, c->compile, c->resource,
                   c->launch, c->timeout, c->crash, c->oom);
        }
        printf("\n], \"optional\": [");
        for (int i = 0; i < nuc; i++)
            printf("%s\n  {\"kernel\": \"%s\", \"fused\": \"%s\", "
                   "\"unfused\": \"%s\", "
                   "\"fused_ms\": %.6g, \"unfused_ms\": %.6g, \"choice\": "
                   "\"%s\"}", i ? "," : "", uc[i].kernel,
                   uc[i].fparts ? uc[i].fparts : uc[i].kernel, uc[i].parts,
                   isnan(uc[i].fused_ms) ? -1 : uc[i].fused_ms,
                   isnan(uc[i].split_ms) ? -1 : uc[i].split_ms,
                   uc[i].unfuse ? "unfused" : "fused");
        printf("\n]");
        /* the child run's own document (tune_unfused), as it wrote it */
        size_t len = 0;
        char *doc = child ? read_file(child, 1 << 24, &len) : NULL;
        while (doc && len > 0 && isspace((unsigned char)doc[len - 1]))
            doc[--len] = 0;
        if (doc && len > 1 && doc[0] == '{' && doc[len - 1] == '}')
            printf(", \"unfused_run\": %s", doc);
        free(doc);
        printf("}\n");
        return;
    }
    printf("%-28s %-44s %10s %8s  %s\n", "kernel", "winner", "ms", "speedup",
           "trials: new ok/wrong/compile/resource/launch/timeout/crash, reused");
    for (int i = 0; i < n; i++) {
        const Count *c = &s[i].cnt;
        char ms[32] = "-", sp[32] = "-";
        if (s[i].config && s[i].ms > 0)
            snprintf(ms, sizeof ms, "%.4f", s[i].ms);
        if (s[i].config && s[i].default_ms > 0 && s[i].ms > 0)
            snprintf(sp, sizeof sp, "%.2fx", s[i].default_ms / s[i].ms);
        printf("%-28s %-44s %10s %8s  %d %d/%d/%d/%d/%d/%d/%d, %d\n",
               s[i].kernel, s[i].config ? s[i].config
                                        : s[i].failed ? "(none valid)" : "-",
               ms, sp, c->trials, c->ok, c->wrong, c->compile, c->resource,
               c->launch, c->timeout, c->crash, c->reused);
    }
    printf("%s: %d kernels in %.1f s%s%s\n", p->g->name, n, secs,
           dbpath ? "; cache " : "", dbpath ? dbpath : "");
    if (nuc) {
        printf("optional fusions (kgen build takes the faster):\n");
        unfuse_print(uc, nuc);
    }
}

int cmd_tune(const Options *o)
{
    const char *arch = o->arch;
    if (!arch)
        arch = o->backend && !strcmp(o->backend, "opencl") ? "opencl" : NULL;
    if (!arch) {
        fprintf(stderr, "kgen: error: tune needs --arch (sm_90, sm_80, ... or "
                "opencl)\n");
        return 2;
    }
    bool cuda = strcmp(arch, "opencl") != 0;
    if (cuda && strncmp(arch, "sm_", 3)) {
        fprintf(stderr, "kgen: error: --arch %s: expected sm_XX or opencl\n", arch);
        return 2;
    }
    if (o->backend && strcmp(o->backend, cuda ? "cuda" : "opencl")) {
        fprintf(stderr, "kgen: error: --backend %s does not run --arch %s\n",
                o->backend, arch);
        return 2;
    }
    if (!cuda && o->compile_only) {
        fprintf(stderr, "kgen: error: --compile-only is for CUDA: OpenCL "
                "compiles on the device\n");
        return 2;
    }
    if (o->strategy && strcmp(o->strategy, "exhaustive") &&
        strcmp(o->strategy, "random") && strcmp(o->strategy, "anneal")) {
        fprintf(stderr, "kgen: error: --strategy %s: expected exhaustive, "
                "random or anneal\n", o->strategy);
        return 2;
    }
    Arena *a = arena_new();
    Diag d;
    diag_init(&d, stderr);
    Tuner T = {.o = o, .a = a, .arch = arch, .cuda = cuda, .lockfd = -1,
               .device_name = "", .driver = "", .compiler = ""};
    T.dev.job = -1;
    TemplateCache *tc = template_cache_new(a);
    char child_json[300] = "";           /* the unfused child run's --json, in T.tmpdir */
    Summary *sum = NULL;
    int nsum = 0, rc = 2;
    double t0 = now_s();
    T.p = pipeline_plan(o, &d, a);
    if (!T.p)
        goto out;
    /* the DB first: a DB we cannot write fails before any GPU work */
    if (!o->compile_only) {
        const char *path = o->db ? o->db : db_default_path(a);
        T.db = db_open(path, true, o->strict_db);
        if (!T.db) {
            rc = DB_EXIT;
            goto out;
        }
    }
    /* the device: what it is (for the fingerprint) and what fits on it */
    kgrt_backend be = cuda ? KGRT_CUDA : KGRT_OPENCL;
    if (!o->compile_only) {
        kgrt_device *dev = NULL;
        kgrt_device_info info;
        if (kgrt_device_open(be, o->device, &dev) != KGRT_OK ||
            kgrt_device_get_info(dev, &info) != KGRT_OK ||
            kgrt_device_limits(dev, &T.lim) != KGRT_OK) {
            fprintf(stderr, "kgen: error: no %s device %d to tune on: %s%s\n",
                    cuda ? "CUDA" : "OpenCL", o->device, kgrt_last_error(),
                    cuda ? " (--compile-only compiles every candidate without "
                           "one)" : "");
            kgrt_device_close(dev);
            rc = 3;
            goto out;
        }
        kgrt_device_close(dev);
        if (cuda && strcmp(info.arch, arch)) {
            fprintf(stderr, "kgen: error: device %d is %s (%s), not --arch %s\n",
                    o->device, info.arch, info.name, arch);
            rc = 3;
            goto out;
        }
        T.device_name = arena_strdup(a, info.name);
        T.driver = arena_strdup(a, info.driver);
        T.compiler = cuda ? arena_printf(a, "NVRTC %s", kg_nvrtc_version())
                          : T.driver;
        /* one lock a physical device: its PCI bus id where the backend
           knows it, since CUDA_VISIBLE_DEVICES gives one GPU a different
           index in each process (and two GPUs the same one) */
        char where[48], lock[320];
        if (info.bus_id[0]) {
            int n = snprintf(where, sizeof where, "pci-%s", info.bus_id);
            for (int i = 4; i < n && i < (int)sizeof where; i++)
                if (!isalnum((unsigned char)where[i]))
                    where[i] = '-';          /* "0000:19:00.0" -> 0000-19-00-0 */
        } else {
            snprintf(where, sizeof where, "%d", o->device);
        }
        snprintf(lock, sizeof lock, "/tmp/kgen-%s-%s.lock",
                 cuda ? "cuda" : "opencl", where);
        mode_t um = umask(0);
        T.lockfd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
        umask(um);
        DbRun r = {T.p->g->file->path, arch, cuda ? "cuda" : "opencl",
                   T.device_name, T.driver, T.compiler,
                   o->strategy ? o->strategy : "auto", NULL};
        T.run = db_run_begin(T.db, &r);
        if (T.run < 0) {
            fprintf(stderr, "kgen: error: %s (tuning DB %s)\n", db_error(T.db),
                    db_path(T.db));
            rc = DB_EXIT;
            goto out;
        }
    } else {
        /* no device: prune by the arch's documented limits */
        T.lim.max_threads_per_block = 1024;
        T.lim.max_shared_per_block = strcmp(arch, "sm_90") >= 0 ? 232448
                                   : strcmp(arch, "sm_80") >= 0 ? 166912 : 49152;
    }
    /* workers: this binary again, with this command's options */
    snprintf(T.tmpdir, sizeof T.tmpdir, "%s/kgen-tune-XXXXXX",
             getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(T.tmpdir)) {
        fprintf(stderr, "kgen: error: cannot make a temporary directory: %s\n",
                strerror(errno));
        rc = 3;
        goto out;
    }
    {
        extern char **kgen_argv;
        extern int kgen_argc;
        T.argv = arena_alloc(a, (size_t)(kgen_argc + 4) * sizeof *T.argv);
        T.argv[0] = kgen_argv[0];
        T.argv[1] = "__worker";
        int n = 2;
        for (int i = 2; i < kgen_argc; i++)
            T.argv[n++] = kgen_argv[i];
        T.argv[n++] = "--role";
        T.argv[n++] = "compile";
        T.argv[n] = NULL;
        T.argc = n;
    }
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    T.ncomp = o->jobs > 0 ? o->jobs : ncpu > 8 ? 8 : ncpu < 1 ? 1 : (int)ncpu;
    T.comp = arena_alloc(a, (size_t)T.ncomp * sizeof *T.comp);
    memset(T.comp, 0, (size_t)T.ncomp * sizeof *T.comp);
    for (int i = 0; i < T.ncomp; i++)
        T.comp[i].job = -1;
    struct sigaction sa = {0}, old_int, old_term;
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    signal(SIGPIPE, SIG_IGN);
    int nkern = 0;
    for (int i = 0; i < T.p->nk; i++)
        nkern += T.p->k[i]->kind != K_VIEW &&
                 (!o->kernel || !strcmp(o->kernel, T.p->k[i]->name)) &&
                 (!o->unfused_only || replaces_unfused(T.p, T.p->k[i]));
    sum = arena_alloc(a, (size_t)(nkern + 1) * sizeof *sum);
    memset(sum, 0, (size_t)(nkern + 1) * sizeof *sum);
    double deadline = o->time_s > 0 ? t0 + o->time_s : 0;
    int failed = 0;
    for (int i = 0; i < T.p->nk && !interrupted; i++) {
        Kernel *k = T.p->k[i];
        if (k->kind == K_VIEW || (o->kernel && strcmp(o->kernel, k->name)) ||
            (o->unfused_only && !replaces_unfused(T.p, k)))
            continue;
        T.ki = i;
        T.k = k;
        T.kdeadline = deadline > 0
            ? now_s() + (deadline - now_s()) / (nkern - nsum) : 0;
        if (tune_kernel(&T, tc, &sum[nsum]))
            failed++;
        nsum++;
        if (T.env_error || T.db_error)
            break;
    }
    for (int i = 0; i < T.ncomp; i++)
        reap(&T.comp[i], true);
    reap(&T.dev, true);
    gpu_unlock(&T);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (interrupted) {
        fprintf(stderr, "\nkgen: interrupted; the trials measured so far are "
                "in the cache\n");
        if (T.db)
            db_run_end(T.db, T.run, "interrupted");
        rc = 130;
        goto out;
    }
    if (T.env_error) {
        fprintf(stderr, "kgen: error: %s\n", T.env_msg.buf ? T.env_msg.buf : "");
        if (T.db)
            db_run_end(T.db, T.run, "env_error");
        rc = 3;
        goto out;
    }
    if (T.db_error) {
        rc = DB_EXIT;
        goto out;
    }
    /* optional fusions: time the plan without them too, then choose */
    UnfuseChoice *uc = NULL;
    int nuc = 0;
    bool optional = false;
    for (int i = 0; i < T.p->nk; i++)
        optional |= kernel_optional(T.p->k[i]);
    if (optional && T.db && !o->unfuse && !o->kernel) {
        if (o->json)
            snprintf(child_json, sizeof child_json, "%s/unfused.json", T.tmpdir);
        int crc = tune_unfused(o, child_json[0] ? child_json : NULL);
        if (crc == 130 || interrupted) {
            fprintf(stderr, "\nkgen: interrupted; the trials measured so far "
                    "are in the cache\n");
            db_run_end(T.db, T.run, "interrupted");
            rc = 130;
            goto out;
        }
        if (crc != 0 && crc != 1)
            fprintf(stderr, "kgen: warning: tuning the unfused plan failed "
                    "(exit %d); the choice uses what the cache already "
                    "holds\n", crc);
        Options os = *o;
        os.unfuse = "all";
        Plan *sp = pipeline_plan(&os, &d, a);
        if (sp) {
            bool *decline = arena_alloc(a, (size_t)sp->g->nnodes + 1);
            nuc = unfuse_choose(T.db, tc, o, &T.p, &sp, 1, arch, decline, &uc, a);
        }
    }
    print_summary(o, T.p, sum, nsum, now_s() - t0, T.db ? db_path(T.db) : NULL,
                  uc, nuc, child_json[0] ? child_json : NULL);
    for (int i = 0; i < nsum; i++)
        if (sum[i].failed) {
            const Count *c = &sum[i].cnt;
            fprintf(stderr, "kgen: error: %s: no valid candidate (%d wrong, %d "
                    "compile errors, %d over limits, %d launch errors, %d "
                    "timeouts, %d crashes, %d oom%s)\n", sum[i].kernel,
                    c->wrong, c->compile, c->resource, c->launch, c->timeout,
                    c->crash, c->oom, o->compile_only ? ""
                    : "; an earlier winner, if any, is kept");
        }
    if (T.db)
        db_run_end(T.db, T.run, failed ? "failed" : "ok");
    rc = failed ? 1 : 0;
out:
    if (child_json[0])
        unlink(child_json);
    for (int i = 0; T.c && i < T.nc; i++)
        if (T.c[i].file)
            unlink(T.c[i].file);
    if (*T.tmpdir)
        rmdir(T.tmpdir);
    str_free(&T.env_msg);
    if (T.lockfd >= 0)
        close(T.lockfd);
    db_close(T.db);
    template_cache_free(tc);
    diag_free(&d);
    arena_free(a);
    return rc;
}

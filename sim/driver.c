/*
 * driver.c - setting up a variant (configuration, --policy file) and
 * running simulators over a trace read once: the decoder and the worker
 * threads that run, compare and advise share.
 */
#include "driver.h"

#include "replay.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BATCH 2048 /* events decoded at a time and shared by the workers */
/* Lines of a batch's accesses that the decoder places (l2_sim_place): a
 * batch ends early rather than lack room for an access's lines */
#define BATCH_LINES (8 * BATCH)
/* The decoder places a batch's accesses only while it is at least this
 * many batches ahead of the slowest simulator */
#define PLACE_AHEAD 2
/* Batches in flight (workers may drift this far apart): NBUF_OWN when
 * every simulator has a worker of its own, NBUF_SHARED when workers take
 * turns (compare with more variants than threads), so that a worker can
 * run one simulator over up to half the ring in a row before it turns to
 * another: each turn costs the host caches the other simulator's state
 * (4 variants on 2 threads: 0.83 of the time of turning every batch,
 * tools/bench/report.txt) */
#define NBUF_OWN 8
#define NBUF_SHARED 32


int l2_variant_config(const struct l2_variant *v, struct l2_config *c, l2_err *e)
{
    l2_config_defaults(c);
    if (v->config && l2_config_load(c, v->config, e) < 0)
        return -1;
    /* A variant's sets come after the common ones (it starts as a copy). */
    for (int i = 0; i < v->nsets; i++)
        if (l2_config_set(c, v->sets[i], e) < 0)
            return -1;
    if (l2_config_check(c, e) < 0) /* the file, unless --set changed it */
        return l2_prefix(e, "%s", v->config && !v->nsets ? v->config : "configuration");
    return 0;
}

static int load_policy_file(struct l2_sim *s, const char *path, struct l2_symtab *syms, l2_err *e)
{
    struct l2_trace *t;
    struct l2_event ev;
    if (l2_trace_open(&t, path, syms, e) < 0)
        return -1;
    int r;
    while ((r = l2_trace_next(t, &ev, e)) > 0) {
        if (l2_sim_policy_event(s, &ev, e) < 0) {
            r = l2_trace_fail_at(t, ev.pos, e);
            break;
        }
    }
    l2_trace_close(t);
    return r < 0 ? -1 : 0;
}

unsigned l2_variant_warn_unused(const struct l2_sim *s, const struct l2_variant *v, const struct l2_symtab *syms,
                                FILE *f)
{
    unsigned n = 0;
    for (uint32_t t = 0; v->policy && t < s->nbind; t++) {
        if (!s->bind[t].locked || !s->bind[t].is_policy)
            continue;
        uint64_t used = 0;
        for (uint32_t k = 0; k < s->nk && !used; k++)
            used = t < s->k[k].ntag ? s->k[k].tag[t].accesses : 0;
        if (!used) {
            fprintf(f, "l2sim: warning: %s: policy '%s' is used by no access of the trace\n", v->policy,
                    l2_sym_name(syms, t));
            n++;
        }
    }
    return n;
}

/* The progress line: shown on a terminal for runs longer than a second. */
struct progress {
    int tty;
    int shown;
    double t0;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void progress_start(struct progress *p)
{
    p->tty = isatty(STDERR_FILENO);
    p->shown = 0;
    p->t0 = p->tty ? now_s() : 0;
}

static void progress_show(struct progress *p, const struct l2_trace *t, uint64_t records)
{
    double el = now_s() - p->t0;
    if (el < 1.0)
        return;
    char line[160];
    size_t k = (size_t)snprintf(line, sizeof line, "l2sim: %.1fM records", (double)records / 1e6);
    double f = l2_trace_fraction(t);
    if (f > 0 && k < sizeof line)
        k += (size_t)snprintf(line + k, sizeof line - k, " (%.0f%%)", 100 * f);
    if (k < sizeof line)
        k += (size_t)snprintf(line + k, sizeof line - k, ", %.1fM records/s", (double)records / el / 1e6);
    if (f > 0 && f < 1 && k < sizeof line) {
        unsigned long left = (unsigned long)(el * (1 - f) / f + 0.5);
        snprintf(line + k, sizeof line - k, ", %lu:%02lu left", left / 60, left % 60);
    }
    fprintf(stderr, "\r%s\033[K", line);
    fflush(stderr);
    p->shown = 1;
}

static void progress_end(struct progress *p)
{
    if (p->shown) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
}

#define PROGRESS_EVERY ((UINT64_C(1) << 20) - 1) /* look at the clock every 1M records */

/*
 * The driver.  The calling thread reads and decodes the trace once, a
 * batch of events at a time, into a ring of nbuf buffers, and places the
 * accesses for the simulators whose configuration is the first's while it
 * keeps ahead of them; `nworkers` threads run the simulators over the
 * batches, each simulator over every batch in order, so decoding overlaps
 * simulation even with one worker.
 * Simulators are independent: the variants of compare, or the lanes of run
 * --threads (each simulating the sets it owns).  A worker runs one
 * simulator over one batch at a time, and takes the next such step where
 * it can: where workers take turns, the simulator it ran last, while its
 * next batch is there, up to run_max batches in a row; else first a
 * simulator of its own share (k % nworkers == id: the lanes keep their
 * host caches), else the one furthest behind that no worker is running,
 * so that uneven simulators (variants differ in cost) keep every worker
 * busy.  A simulator's error stops the run; the one at the earliest
 * record is reported.
 */
struct batch {
    struct l2_event ev[BATCH];
    size_t n;
    int placed;                        /* 1: the decoder placed its accesses (l2_placed) */
    uint32_t at[BATCH];                /* each event's first line in `line` */
    struct l2_pline line[BATCH_LINES];
};

struct driver {
    struct l2_sim **sims;
    const char *const *names; /* of the variants, for errors; NULL: lanes of one run */
    unsigned nsims, nworkers;
    struct batch *buf; /* nbuf batches */
    unsigned nbuf;
    unsigned run_max;  /* batches a worker runs one simulator over in a row: nbuf / 2 where workers take turns, else 0 */
    pthread_mutex_t mu;
    pthread_cond_t posted_cv; /* workers wait here for work */
    pthread_cond_t free_cv;   /* the decoder waits here for buffers */
    uint64_t posted;          /* batches handed out */
    uint64_t done[L2_MAX_SIMS];  /* batches each simulator has finished */
    unsigned char busy[L2_MAX_SIMS]; /* a worker is running the simulator */
    int place;                         /* the decoder may place the accesses */
    unsigned char placed[L2_MAX_SIMS]; /* the simulator takes them: its configuration is the first's */
    unsigned idle;            /* workers waiting for work */
    uint64_t wake_at;         /* the decoder sleeps until every simulator finished this many; 0: awake */
    int stop;          /* no more batches */
    uint64_t err_pos;  /* trace position (l2_event.pos) of the earliest simulator error; UINT64_MAX: none */
    unsigned err_sim;  /* the simulator that failed there */
    l2_err err;
    struct l2_replay *replay;
};

struct worker {
    struct driver *d;
    unsigned id;
};

/* Runs simulator k over one batch. */
static void run_batch(struct driver *d, unsigned k, const struct batch *b)
{
    l2_err e;
    const struct l2_placed pd = {b->at, b->line};
    size_t i = l2_sim_events(d->sims[k], b->ev, b->n, b->placed && d->placed[k] ? &pd : NULL, &e);
    if (i < b->n) {
        if (d->names)
            l2_prefix(&e, "variant %s", d->names[k]);
        pthread_mutex_lock(&d->mu);
        /* the earliest record; at the same record, the first variant */
        if (b->ev[i].pos < d->err_pos || (b->ev[i].pos == d->err_pos && k < d->err_sim)) {
            d->err_pos = b->ev[i].pos;
            d->err_sim = k;
            d->err = e;
        }
        pthread_mutex_unlock(&d->mu);
    }
}

/* Batches finished by the slowest simulator (called with the lock held). */
static uint64_t slowest(const struct driver *d)
{
    uint64_t m = UINT64_MAX;
    for (unsigned k = 0; k < d->nsims; k++)
        m = d->done[k] < m ? d->done[k] : m;
    return m;
}

/* The simulator worker `id` runs next, having run `last` (-1: none) over
 * the `run` batches before: `last` again while its next batch is there,
 * up to run_max batches in a row; else of its own share, else any, the
 * one furthest behind among those with a batch to run and no worker; -1:
 * none (called with the lock held). */
static int pick(const struct driver *d, unsigned id, int last, unsigned run)
{
    if (last >= 0 && run < d->run_max && !d->busy[last] && d->done[last] < d->posted)
        return last;
    int best = -1;
    for (unsigned pass = 0; pass < 2 && best < 0; pass++)
        for (unsigned k = pass ? 0 : id; k < d->nsims; k += pass ? 1 : d->nworkers)
            if (!d->busy[k] && d->done[k] < d->posted && (best < 0 || d->done[k] < d->done[best]))
                best = (int)k;
    return best;
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    struct driver *d = w->d;
    int last = -1;
    unsigned run = 0;
    pthread_mutex_lock(&d->mu);
    for (;;) {
        int k = pick(d, w->id, last, run);
        if (k < 0) {
            if (d->stop)
                break;
            d->idle++;
            pthread_cond_wait(&d->posted_cv, &d->mu);
            d->idle--;
            continue;
        }
        run = k == last ? run + 1 : 1;
        last = k;
        d->busy[k] = 1;
        if (d->idle && pick(d, w->id, -1, 0) >= 0)
            pthread_cond_signal(&d->posted_cv); /* more work than running workers */
        const struct batch *b = &d->buf[d->done[k] % d->nbuf];
        uint64_t err_pos = d->err_pos;
        pthread_mutex_unlock(&d->mu);
        /* a batch after the earliest error so far cannot hold an earlier one */
        if (b->ev[0].pos <= err_pos)
            run_batch(d, (unsigned)k, b);
        pthread_mutex_lock(&d->mu);
        d->busy[k] = 0;
        d->done[k]++;
        if (d->wake_at && slowest(d) >= d->wake_at) {
            d->wake_at = 0;
            pthread_cond_signal(&d->free_cv);
        }
    }
    pthread_mutex_unlock(&d->mu);
    return NULL;
}

/* Gives every simulator's kernels the kernels they ran alongside. */
static int set_overlaps(struct l2_sim **sims, unsigned n, const struct l2_replay *r, l2_err *e)
{
    for (unsigned i = 0; i < n; i++)
        for (uint32_t k = 0; k < sims[i]->nk; k++) {
            uint32_t m;
            const uint32_t *w = l2_replay_overlaps(r, k, &m);
            if (!m)
                continue;
            struct l2_kstats *ks = &sims[i]->k[k];
            if (!(ks->with = malloc(m * sizeof *ks->with)))
                return l2_fail(e, "out of memory");
            memcpy(ks->with, w, m * sizeof *w);
            ks->nwith = m;
        }
    return 0;
}

/* Reads the trace once, feeding every simulator with `nworkers` threads
 * (besides the calling thread, which decodes); names: of the variants, or
 * NULL.  Returns records read or -1. */
int64_t l2_simulate(struct l2_sim **sims, const char *const *names, unsigned n, unsigned nworkers,
                    const char *path, int serialize, struct l2_symtab *syms, l2_err *e)
{
    struct driver *d = calloc(1, sizeof *d);
    struct worker wk[L2_MAX_THREADS];
    pthread_t th[L2_MAX_THREADS];
    unsigned started = 0;
    struct progress pg;
    int64_t records = 0;
    int r = 0;
    if (!d)
        return l2_fail(e, "out of memory");
    if (nworkers > n)
        nworkers = n;
    d->nbuf = n > nworkers ? NBUF_SHARED : NBUF_OWN;
    d->run_max = n > nworkers ? d->nbuf / 2 : 0;
    /* a batch's size is a multiple of its alignment */
    if (!(d->buf = aligned_alloc(_Alignof(struct batch), d->nbuf * sizeof *d->buf))) {
        free(d);
        return l2_fail(e, "out of memory");
    }
    /* kernels share the SMs of the first simulator's configuration */
    if (l2_replay_open(&d->replay, path, syms, (uint32_t)sims[0]->l2.cfg.sms, serialize, e) < 0) {
        free(d->buf);
        free(d);
        return -1;
    }
    struct l2_trace *trace = l2_replay_trace(d->replay);
    d->sims = sims;
    d->names = names;
    d->nsims = n;
    d->nworkers = nworkers;
    d->err_pos = UINT64_MAX;
    /* where the workers leave it a CPU, the decoder places the accesses
     * (l2_sim_place) as the first simulator would, for every simulator
     * whose configuration is the first's (the lanes of a run, the plans
     * of advise): the work of the configuration alone, which the decoding
     * thread has time for while it keeps PLACE_AHEAD batches ahead; else
     * (a trace slow to decode, or no CPU of its own) the simulators place
     * their own.  On a 2-CPU machine, medians of 5 interleaved runs
     * (tools/bench/report.txt): the bench trace with the decoder placing
     * every batch, --threads 1 1.84 s against 2.00, --threads 2 2.00
     * against 1.83; a capture slow to decode (calibration/h200/real/chain)
     * 2.53 s against 2.20, and 2.12 with the decoder placing only while
     * ahead */
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    d->place = cpus < 1 || nworkers < (unsigned long)cpus;
    for (unsigned k = 0; k < n; k++)
        d->placed[k] = (unsigned char)l2_config_equal(&sims[k]->l2.cfg, &sims[0]->l2.cfg);
    pthread_mutex_init(&d->mu, NULL);
    pthread_cond_init(&d->posted_cv, NULL);
    pthread_cond_init(&d->free_cv, NULL);
    for (; started < nworkers; started++) {
        wk[started] = (struct worker){d, started};
        if (pthread_create(&th[started], NULL, worker_main, &wk[started]) != 0)
            break;
    }
    if (started < nworkers)
        r = l2_fail(e, "cannot start %u threads", nworkers);
    uint64_t next_progress = PROGRESS_EVERY;
    progress_start(&pg);
    for (uint64_t k = 0; r == 0; k++) {
        struct batch *b = &d->buf[k % d->nbuf];
        /* buffer k % nbuf is free once every simulator finished batch k -
         * nbuf; once the ring is full, the decoder sleeps until half of
         * it is free, so that it wakes once per nbuf / 2 batches */
        pthread_mutex_lock(&d->mu);
        if (k >= d->nbuf && slowest(d) < k - d->nbuf + 1) {
            d->wake_at = k - d->nbuf / 2 + 1;
            while (d->wake_at)
                pthread_cond_wait(&d->free_cv, &d->mu);
        }
        int failed = d->err_pos != UINT64_MAX;
        b->placed = d->place && k - slowest(d) >= PLACE_AHEAD;
        pthread_mutex_unlock(&d->mu);
        if (failed)
            break;
        b->n = 0;
        uint32_t nl = 0;
        while (b->n < BATCH && nl <= BATCH_LINES - L2_MAX_LINES &&
               (r = l2_replay_next(d->replay, &b->ev[b->n], e)) > 0) {
            const struct l2_event *ev = &b->ev[b->n];
            unsigned m = b->placed && ev->type == EV_ACCESS ? l2_sim_place(sims[0], ev, &b->line[nl]) : 0;
            b->at[b->n++] = m ? nl : L2_UNPLACED;
            nl += m;
        }
        if (r > 0)
            r = 0;
        if (b->n == 0)
            break;
        records += (int64_t)b->n;
        pthread_mutex_lock(&d->mu);
        d->posted++;
        pthread_cond_broadcast(&d->posted_cv);
        pthread_mutex_unlock(&d->mu);
        if (pg.tty && (uint64_t)records >= next_progress) {
            progress_show(&pg, trace, (uint64_t)records);
            next_progress = (uint64_t)records + PROGRESS_EVERY;
        }
        if (r < 0)
            break;
    }
    pthread_mutex_lock(&d->mu);
    d->stop = 1;
    pthread_cond_broadcast(&d->posted_cv);
    pthread_mutex_unlock(&d->mu);
    for (unsigned i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    progress_end(&pg);
    /* a simulator's error is at a record decoded before any reader error */
    if (d->err_pos != UINT64_MAX) {
        *e = d->err;
        r = l2_trace_fail_at(trace, d->err_pos, e);
    }
    if (r == 0)
        r = set_overlaps(sims, n, d->replay, e);
    l2_replay_close(d->replay);
    pthread_cond_destroy(&d->posted_cv);
    pthread_cond_destroy(&d->free_cv);
    pthread_mutex_destroy(&d->mu);
    free(d->buf);
    free(d);
    return r < 0 ? -1 : records;
}

int l2_variant_setup(struct l2_sim *s, const struct l2_variant *v, struct l2_symtab *syms, l2_err *e)
{
    struct l2_config cfg;
    if (l2_variant_config(v, &cfg, e) < 0)
        return -1;
    if (l2_sim_init(s, &cfg, v->sem, syms, e) < 0)
        return -1;
    if (v->policy && load_policy_file(s, v->policy, syms, e) < 0) {
        l2_sim_free(s);
        return -1;
    }
    return 0;
}


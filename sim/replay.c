/*
 * replay.c - the host and device order of a trace's events (replay.h).
 *
 * The host reads the trace in program order (`host`).  Kernels read in
 * place by the host (`solo`: stream 0, or every kernel when serialized)
 * run alone; any other kernel is a `struct rk` whose accesses a cursor, a
 * further reader of the same file, hands out once the kernel has started.
 * A cursor stops right after a `kernel` line, so that an idle one serves
 * any later kernel by reading on.
 */
#include "replay.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uthash.h>

#define NONE UINT32_MAX
#define STRIDE_ONE (UINT64_C(1) << 24) /* progress of one byte at a share of one SM */
#define L2_SM_THREADS 2048u            /* resident threads per SM (A100, H100, H200) */

enum kstate { K_WAITING, K_RUNNING, K_DONE };

/* Progress: at most 2^35 per byte (a one-thread kernel) times 4096 bytes
 * an access, summed over any trace, needs more than 64 bits. */
typedef unsigned __int128 l2_progress;

struct list {
    uint32_t *v;
    uint32_t n, cap;
};

struct rk {
    uint32_t stream;
    uint32_t ordinal; /* `kernel` lines before its own; NONE: `(default)` */
    uint64_t demand;  /* resident threads it asks for (grid x block, at most the GPU's) */
    uint64_t grant;   /* resident threads it holds while running */
    uint64_t stride;  /* progress per byte: STRIDE_ONE x SM threads / grant */
    l2_progress pass; /* progress so far */
    enum kstate state;
    uint32_t cursor;  /* while running */
    struct list deps; /* kernels it waits for; freed at its start */
    struct list with; /* kernels it overlapped */
};

struct rstream {
    uint32_t id;
    uint32_t last;     /* its last kernel, NONE */
    struct list waits; /* `event wait`s since its last kernel: kernels */
};

struct revent {
    char name[L2_MAX_KNAME];
    struct list front; /* what its last record waits for */
    UT_hash_handle hh;
};

struct cursor {
    struct l2_trace *t;
    uint32_t cur; /* ordinal of the `kernel` line read last; NONE: none yet */
    int busy;
};

enum block { B_NONE, B_ALL, B_STREAM, B_END };

struct l2_replay {
    const char *path; /* what the readers open */
    const char *label;
    char spool[32];   /* standard input's copy: /dev/fd/N of an unlinked file */
    int spool_fd;
    struct l2_symtab *syms;
    uint32_t sms;
    int serialize;
    struct l2_trace *host;
    struct rk *k;
    uint32_t nk, capk;
    uint32_t lines;   /* `kernel` lines read by the host */
    uint32_t solo;    /* the kernel the host reads in place, NONE */
    uint32_t live;    /* kernels launched, not solo, not done */
    uint32_t done_to; /* the kernels below it are done (a kernel that is done stays so) */
    int ready_dirty;  /* a kernel finished or was launched: look for kernels to start */
    l2_progress vnow; /* progress at the last access handed out */
    struct rstream *st;
    uint32_t nst, capst;
    struct revent *events;
    struct cursor *cur;
    uint32_t ncur, capcur;
    unsigned char *defined; /* policy symbol ids seen defined (bitmap) */
    enum block block;
    uint32_t block_stream;
    int pending; /* the event that blocked the host waits in `held` */
    struct l2_event held;
    int ended;
};

static int list_add(struct list *l, uint32_t v, l2_err *e)
{
    if (l2_grow(&l->v, &l->cap, (uint64_t)l->n + 1, sizeof *l->v, e) < 0)
        return -1;
    l->v[l->n++] = v;
    return 0;
}

static int list_cat(struct list *l, const struct list *m, l2_err *e)
{
    for (uint32_t i = 0; i < m->n; i++)
        if (list_add(l, m->v[i], e) < 0)
            return -1;
    return 0;
}

static void list_free(struct list *l)
{
    free(l->v);
    memset(l, 0, sizeof *l);
}

/* Copies standard input to an unlinked temporary file, which every
 * reader opens as /dev/fd/N. */
static int spool_stdin(struct l2_replay *r, l2_err *e)
{
    const char *dir = getenv("TMPDIR");
    char tmpl[4096];
    snprintf(tmpl, sizeof tmpl, "%s/l2sim-stdin-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(tmpl);
    if (fd < 0)
        return l2_fail(e, "<stdin>: cannot create a temporary copy in %s: %s", dir && *dir ? dir : "/tmp",
                       strerror(errno));
    unlink(tmpl);
    r->spool_fd = fd;
    snprintf(r->spool, sizeof r->spool, "/dev/fd/%d", fd);
    size_t n;
    char *b = malloc(1 << 20);
    if (!b)
        return l2_fail(e, "out of memory");
    while ((n = fread(b, 1, 1 << 20, stdin)) > 0) {
        for (size_t off = 0; off < n;) {
            ssize_t w = write(fd, b + off, n - off);
            if (w < 0 && errno == EINTR)
                continue;
            if (w < 0) {
                int err = errno;
                free(b);
                return l2_fail(e, "<stdin>: cannot write its temporary copy: %s", strerror(err));
            }
            off += (size_t)w;
        }
    }
    free(b);
    if (ferror(stdin))
        return l2_fail(e, "<stdin>: read error");
    r->path = r->spool;
    return 0;
}

int l2_replay_open(struct l2_replay **out, const char *path, struct l2_symtab *syms, uint32_t sms, int serialize,
                   l2_err *e)
{
    /* aligned: `held` is an event, whose alignment (64) exceeds malloc's */
    struct l2_replay *r = aligned_alloc(_Alignof(struct l2_replay), sizeof *r);
    if (r)
        memset(r, 0, sizeof *r);
    if (!r || !(r->defined = calloc(L2_MAX_SYMS / 8, 1))) {
        free(r);
        return l2_fail(e, "out of memory");
    }
    r->path = path;
    r->label = l2_trace_label(path);
    r->spool_fd = -1;
    r->syms = syms;
    r->sms = sms ? sms : 1;
    r->serialize = serialize;
    r->solo = NONE;
    /* standard input is read once in trace order; other streams' kernels
     * read a copy again */
    if ((strcmp(path, "-") == 0 && !serialize && spool_stdin(r, e) < 0) ||
        l2_trace_open_as(&r->host, r->path, r->label, syms, e) < 0) {
        l2_replay_close(r);
        return -1;
    }
    *out = r;
    return 0;
}

struct l2_trace *l2_replay_trace(const struct l2_replay *r)
{
    return r->host;
}

const uint32_t *l2_replay_overlaps(const struct l2_replay *r, uint32_t k, uint32_t *n)
{
    *n = k < r->nk ? r->k[k].with.n : 0;
    return *n ? r->k[k].with.v : NULL;
}

void l2_replay_close(struct l2_replay *r)
{
    if (!r)
        return;
    l2_trace_close(r->host);
    for (uint32_t i = 0; i < r->nk; i++) {
        list_free(&r->k[i].deps);
        list_free(&r->k[i].with);
    }
    free(r->k);
    for (uint32_t i = 0; i < r->nst; i++)
        list_free(&r->st[i].waits);
    free(r->st);
    struct revent *ev, *tmp;
    HASH_ITER(hh, r->events, ev, tmp) {
        HASH_DEL(r->events, ev);
        list_free(&ev->front);
        free(ev);
    }
    for (uint32_t i = 0; i < r->ncur; i++)
        l2_trace_close(r->cur[i].t);
    free(r->cur);
    if (r->spool_fd >= 0)
        close(r->spool_fd);
    free(r->defined);
    free(r);
}

static struct rstream *stream_of(struct l2_replay *r, uint32_t id, l2_err *e)
{
    for (uint32_t i = 0; i < r->nst; i++)
        if (r->st[i].id == id)
            return &r->st[i];
    if (l2_grow(&r->st, &r->capst, (uint64_t)r->nst + 1, sizeof *r->st, e) < 0)
        return NULL;
    struct rstream *s = &r->st[r->nst++];
    memset(s, 0, sizeof *s);
    s->id = id;
    s->last = NONE;
    return s;
}

/* Kernel i has finished, as far as the host can wait for it: the kernel
 * the host reads in place has its remaining accesses after the host's
 * position, so directives inside it take effect in place. */
static int finished(const struct l2_replay *r, uint32_t i)
{
    return r->k[i].state == K_DONE || i == r->solo;
}

static int all_done(const struct l2_replay *r, const struct list *l)
{
    for (uint32_t i = 0; i < l->n; i++)
        if (!finished(r, l->v[i]))
            return 0;
    return 1;
}

/* What the host waits for has happened. */
static int unblocked(struct l2_replay *r)
{
    if (r->block == B_STREAM) {
        for (uint32_t i = 0; i < r->nst; i++)
            if (r->st[i].id == r->block_stream)
                return (r->st[i].last == NONE || finished(r, r->st[i].last)) &&
                       all_done(r, &r->st[i].waits);
        return 1;
    }
    return r->live == 0;
}

static struct rk *new_kernel(struct l2_replay *r, const struct l2_event *ev, uint32_t ordinal, l2_err *e)
{
    if (r->nk == UINT32_MAX - 1 || l2_grow(&r->k, &r->capk, (uint64_t)r->nk + 1, sizeof *r->k, e) < 0)
        return NULL;
    struct rk *k = &r->k[r->nk++];
    memset(k, 0, sizeof *k);
    k->stream = ev ? ev->stream : 0;
    k->ordinal = ordinal;
    /* its share of the GPU, in resident threads: a block's threads (with
     * block=; else a whole SM) times the blocks, at most every SM's */
    const uint64_t full = (uint64_t)r->sms * L2_SM_THREADS;
    uint64_t share = full;
    if (ev && ev->grid[0]) {
        uint64_t per = ev->block[0] ? l2_dims_count(ev->block) : L2_SM_THREADS;
        uint64_t blocks = l2_dims_count(ev->grid);
        share = blocks > full / per ? full : blocks * per;
    }
    k->demand = share;
    k->cursor = NONE;
    return k;
}

/* A kernel read in place by the host starts: everything before it has
 * finished. */
static void start_solo(struct l2_replay *r, uint32_t k)
{
    r->k[k].state = K_RUNNING;
    r->solo = k;
}

static void end_solo(struct l2_replay *r)
{
    if (r->solo != NONE)
        r->k[r->solo].state = K_DONE;
    r->solo = NONE;
}

/* A launch on another stream than 0: it waits for its stream's last
 * kernel and the events waited on since. */
static int launch(struct l2_replay *r, const struct l2_event *ev, l2_err *e)
{
    struct rstream *s = stream_of(r, ev->stream, e);
    if (!s)
        return -1;
    struct rk *k = new_kernel(r, ev, r->lines - 1, e);
    if (!k)
        return -1;
    uint32_t idx = (uint32_t)(k - r->k);
    if (s->last != NONE && list_add(&k->deps, s->last, e) < 0)
        return -1;
    if (list_cat(&k->deps, &s->waits, e) < 0)
        return -1;
    s->waits.n = 0;
    s->last = idx;
    r->live++;
    r->ready_dirty = 1;
    return 0;
}

static int event_record(struct l2_replay *r, const struct l2_event *ev, l2_err *e)
{
    struct rstream *s = stream_of(r, ev->stream, e);
    if (!s)
        return -1;
    struct revent *x;
    HASH_FIND_STR(r->events, ev->label, x);
    if (!x) {
        if (!(x = calloc(1, sizeof *x)))
            return l2_fail(e, "out of memory");
        memcpy(x->name, ev->label, sizeof x->name);
        HASH_ADD_STR(r->events, name, x);
    }
    x->front.n = 0;
    if (s->last != NONE && list_add(&x->front, s->last, e) < 0)
        return -1;
    return list_cat(&x->front, &s->waits, e);
}

static int event_wait(struct l2_replay *r, const struct l2_event *ev, l2_err *e)
{
    struct rstream *s = stream_of(r, ev->stream, e);
    if (!s)
        return -1;
    struct revent *x;
    HASH_FIND_STR(r->events, ev->label, x);
    return x ? list_cat(&s->waits, &x->front, e) : 0; /* an event never recorded is complete */
}

/* The host takes the next event of the trace.  Returns 1 with an event to
 * hand out in ev, 2 when it handed out nothing (a body another reader
 * hands out, or the host blocked), 0 at the end, -1 on error. */
static int host_step(struct l2_replay *r, struct l2_event *ev, l2_err *e)
{
    int rc = l2_trace_next(r->host, ev, e);
    if (rc < 0)
        return -1;
    if (rc == 0) {
        end_solo(r);
        r->block = B_END;
        return 2;
    }
    switch (ev->type) {
    case EV_ACCESS:
        if (r->nk == 0) { /* accesses before any kernel line: `(default)` on stream 0 */
            if (!new_kernel(r, NULL, NONE, e))
                return -1;
            start_solo(r, 0);
        }
        if (r->solo == NONE)
            return 2; /* a body that a cursor hands out */
        ev->kernel = r->solo + 1;
        return 1;
    case EV_KERNEL:
        end_solo(r);
        r->lines++;
        if (r->serialize || ev->stream == 0) {
            r->block = B_ALL; /* stream 0: after everything launched before */
            break;
        }
        return launch(r, ev, e) < 0 ? -1 : 1;
    case EV_POLICY: {
        unsigned char bit = (unsigned char)(1u << (ev->name & 7));
        int again = r->defined[ev->name >> 3] & bit;
        r->defined[ev->name >> 3] |= bit;
        if (!again)
            return 1;
        r->block = B_ALL; /* a kernel running may use the name */
        break;
    }
    case EV_EVENT_RECORD:
        return event_record(r, ev, e) < 0 ? -1 : 1;
    case EV_EVENT_WAIT:
        return event_wait(r, ev, e) < 0 ? -1 : 1;
    case EV_STREAM_SYNC:
        r->block = B_STREAM;
        r->block_stream = ev->stream;
        break;
    case EV_SYNC:
    case EV_FREE:
    case EV_SETASIDE:
    case EV_RESET:
        r->block = B_ALL;
        break;
    default: /* window, window off, alloc: at once; the kernels take windows at launch */
        return 1;
    }
    r->held = *ev;
    r->pending = 1;
    return 2;
}

/* A cursor placed right after `kernel` line `ordinal`. */
static int cursor_for(struct l2_replay *r, uint32_t ordinal, uint32_t *out, l2_err *e)
{
    uint32_t best = NONE;
    for (uint32_t i = 0; i < r->ncur; i++) {
        const struct cursor *c = &r->cur[i];
        if (c->busy || (c->cur != NONE && c->cur > ordinal))
            continue;
        if (best == NONE || r->cur[best].cur == NONE || (c->cur != NONE && c->cur > r->cur[best].cur))
            best = i;
    }
    if (best == NONE) {
        if (l2_grow(&r->cur, &r->capcur, (uint64_t)r->ncur + 1, sizeof *r->cur, e) < 0)
            return -1;
        struct cursor *c = &r->cur[r->ncur];
        if (l2_trace_open_as(&c->t, r->path, r->label, r->syms, e) < 0)
            return -1;
        c->cur = NONE;
        c->busy = 0;
        best = r->ncur++;
    }
    struct cursor *c = &r->cur[best];
    struct l2_event ev;
    while (c->cur == NONE || c->cur < ordinal) {
        int rc = l2_trace_next(c->t, &ev, e);
        if (rc < 0)
            return -1;
        if (rc == 0)
            return l2_fail(e, "%s: the trace ended early when read again (did it change?)", r->label);
        if (ev.type == EV_KERNEL)
            c->cur = c->cur == NONE ? 0 : c->cur + 1;
    }
    c->busy = 1;
    *out = best;
    return 0;
}

static void set_grant(struct rk *k, uint64_t grant)
{
    k->grant = grant;
    k->stride = STRIDE_ONE * L2_SM_THREADS / grant;
}

/* Starts the waiting kernels whose predecessors have finished, as far as
 * the GPU has room: running kernels keep their threads; the free threads
 * go to the ready kernels in launch order, each up to its demand (a
 * kernel without room waits for running ones to finish), then what is
 * left to running kernels short of their demand, in launch order. */
static int start_ready(struct l2_replay *r, l2_err *e)
{
    r->ready_dirty = 0;
    /* the progress of the moment: the least of the running kernels' */
    l2_progress now = r->vnow;
    uint64_t used = 0;
    int any = 0;
    for (uint32_t i = 0; i < r->nk; i++)
        if (r->k[i].state == K_RUNNING && i != r->solo) {
            now = !any || r->k[i].pass < now ? r->k[i].pass : now;
            any = 1;
            used += r->k[i].grant;
        }
    const uint64_t cap = (uint64_t)r->sms * L2_SM_THREADS;
    for (uint32_t i = 0; i < r->nk && used < cap; i++) {
        struct rk *k = &r->k[i];
        if (k->state != K_WAITING || !all_done(r, &k->deps))
            continue;
        if (cursor_for(r, k->ordinal, &k->cursor, e) < 0)
            return -1;
        k = &r->k[i];
        list_free(&k->deps);
        for (uint32_t j = 0; j < r->nk; j++)
            if (j != i && j != r->solo && r->k[j].state == K_RUNNING) {
                if (list_add(&k->with, j, e) < 0 || list_add(&r->k[j].with, i, e) < 0)
                    return -1;
            }
        k->state = K_RUNNING;
        k->pass = now;
        set_grant(k, k->demand < cap - used ? k->demand : cap - used);
        used += k->grant;
    }
    for (uint32_t i = 0; i < r->nk && used < cap; i++) {
        struct rk *k = &r->k[i];
        if (k->state == K_RUNNING && i != r->solo && k->grant < k->demand) {
            uint64_t more = k->demand - k->grant < cap - used ? k->demand - k->grant : cap - used;
            set_grant(k, k->grant + more);
            used += more;
        }
    }
    return 0;
}

/* The device hands out the next access of the running kernel with the
 * least progress.  1 with ev, 2 when a kernel finished instead, -1. */
static int device_step(struct l2_replay *r, struct l2_event *ev, l2_err *e)
{
    if (r->ready_dirty && start_ready(r, e) < 0)
        return -1;
    uint32_t best = NONE;
    while (r->done_to < r->nk && r->k[r->done_to].state == K_DONE)
        r->done_to++;
    for (uint32_t i = r->done_to; i < r->nk; i++)
        if (r->k[i].state == K_RUNNING && i != r->solo && (best == NONE || r->k[i].pass < r->k[best].pass))
            best = i;
    if (best == NONE)
        return l2_fail(e, "%s: replay: the host waits and no kernel can run", r->label);
    struct rk *k = &r->k[best];
    struct cursor *c = &r->cur[k->cursor];
    for (;;) {
        int rc = l2_trace_next(c->t, ev, e);
        if (rc < 0)
            return -1;
        if (rc > 0 && ev->type == EV_ACCESS) {
            ev->kernel = best + 1;
            r->vnow = k->pass;
            k->pass += (l2_progress)k->stride * ev->size;
            return 1;
        }
        if (rc == 0 || ev->type == EV_KERNEL) {
            if (rc > 0)
                c->cur++;
            c->busy = 0;
            k->state = K_DONE;
            k->cursor = NONE;
            r->live--;
            r->ready_dirty = 1;
            return 2;
        }
        /* directives: the host handed them out */
    }
}

int l2_replay_next(struct l2_replay *r, struct l2_event *ev, l2_err *e)
{
    if (r->ended)
        return 0;
    for (;;) {
        int rc;
        if (r->block == B_NONE) {
            rc = host_step(r, ev, e);
        } else if (unblocked(r)) {
            enum block b = r->block;
            r->block = B_NONE;
            if (b == B_END) {
                r->ended = 1;
                return 0;
            }
            if (!r->pending)
                continue;
            r->pending = 0;
            *ev = r->held;
            if (ev->type == EV_KERNEL) { /* a kernel read in place */
                if (!new_kernel(r, ev, r->lines - 1, e))
                    return -1;
                start_solo(r, r->nk - 1);
                struct rstream *s = stream_of(r, ev->stream, e);
                if (!s)
                    return -1;
                s->last = r->nk - 1;
                s->waits.n = 0;
            }
            return 1;
        } else {
            rc = device_step(r, ev, e);
        }
        if (rc != 2)
            return rc;
    }
}

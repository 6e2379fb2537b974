/*
 * tracer.c - a capture writing the trace spool, for the injected library
 * (see tracer.h).
 */
#include "tracer.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"
#include "trace.h"

struct l2t_tracer {
    pthread_mutex_t mu;
    struct l2t_capture cap;
    struct l2_symtab syms;
    int fd;          /* the spool: the text trace, written as it comes */
    char *buf;       /* SPOOL_BUF bytes not yet written */
    size_t len;
    char out[4096], summary[4096], patch[4096];
    uint64_t ring;
    int failed;
    l2_err err;
    char notes[4096];
};

#define SPOOL_BUF (1u << 20)

static int flush(struct l2t_tracer *t, l2_err *e)
{
    size_t off = 0;
    while (off < t->len) {
        ssize_t k = write(t->fd, t->buf + off, t->len - off);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return l2_fail(e, "%s: write error: %s", t->out, strerror(errno));
        off += (size_t)k;
    }
    t->len = 0;
    return 0;
}

/* Events become text lines in the spool; the launcher converts the spool
 * to the binary trace once the program has ended, so the trace is whole
 * whatever way the program ends (even where the library gets no end-of-run
 * call). */
static int emit_text(void *ctx, const struct l2_event *ev, l2_err *e)
{
    struct l2t_tracer *t = ctx;
    if (t->len + 1024 > SPOOL_BUF && flush(t, e) < 0)
        return -1;
    size_t k = l2_event_format_text(t->buf + t->len, SPOOL_BUF - t->len, ev, &t->syms);
    if (k >= SPOOL_BUF - t->len)
        return l2_fail(e, "event too long for the spool buffer");
    t->len += k;
    return 0;
}

/* Rewrites the summary file with the counts so far. */
static void write_summary(struct l2t_tracer *t)
{
    char sum[4096];
    l2t_summary(&t->cap, sum, sizeof sum);
    FILE *f = t->summary[0] ? fopen(t->summary, "w") : stderr;
    if (!f)
        return;
    fputs(sum, f);
    fputs(t->notes, f);
    if (t->failed)
        fprintf(f, "l2trace: error: %s (no trace written)\n", t->err.msg);
    if (f != stderr)
        fclose(f);
    else
        fflush(f);
}

static const char *env(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

struct l2t_tracer *l2t_tracer_open(char *err, size_t n)
{
    l2_err e;
    const char *out = env(L2T_ENV_OUT), *ring = env(L2T_ENV_RING);
    if (!out) {
        snprintf(err, n, "%s is not set (run the program under l2trace)", L2T_ENV_OUT);
        return NULL;
    }
    struct l2t_tracer *t = calloc(1, sizeof *t);
    char *buf = malloc(SPOOL_BUF);
    if (!t || !buf) {
        free(t);
        free(buf);
        snprintf(err, n, "out of memory");
        return NULL;
    }
    t->buf = buf;
    pthread_mutex_init(&t->mu, NULL);
    snprintf(t->out, sizeof t->out, "%s", out);
    snprintf(t->summary, sizeof t->summary, "%s", env(L2T_ENV_SUMMARY) ? env(L2T_ENV_SUMMARY) : "");
    snprintf(t->patch, sizeof t->patch, "%s", env(L2T_ENV_PATCH) ? env(L2T_ENV_PATCH) : "");
    t->ring = 1u << 16;
    struct l2t_options o;
    int ok = 0;
    if (ring && (l2_parse_u64(ring, strlen(ring), &t->ring, &e) < 0 || t->ring < 64 || t->ring > (1u << 24) ||
                 (t->ring & (t->ring - 1))))
        l2_fail(&e, "--ring '%s': not a power of two from 64 to 16777216", ring);
    else if (l2t_options_parse(&o, env(L2T_ENV_KERNEL), env(L2T_ENV_LAUNCHES), env(L2T_ENV_MAX_RECORDS),
                               env(L2T_ENV_MAX_BYTES), env(L2T_ENV_MERGE), env(L2T_ENV_L1), &e) < 0)
        ;
    else if (l2_symtab_init(&t->syms, &e) < 0)
        ;
    else if (l2t_init(&t->cap, &o, emit_text, t, &e) < 0)
        l2_symtab_free(&t->syms);
    else if ((t->fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0) {
        l2_fail(&e, "%s: cannot create: %s", out, strerror(errno));
        l2t_free(&t->cap);
        l2_symtab_free(&t->syms);
    } else
        ok = 1;
    if (!ok) {
        snprintf(err, n, "%s", e.msg);
        pthread_mutex_destroy(&t->mu);
        free(t->buf);
        free(t);
        return NULL;
    }
    write_summary(t);
    return t;
}

uint64_t l2t_tracer_ring(const struct l2t_tracer *t)
{
    return t->ring;
}

const char *l2t_tracer_patch(const struct l2t_tracer *t)
{
    return t->patch;
}

/* Runs `call` under the lock unless a call failed before; the first
 * failure is kept. */
#define LOCKED(t, call)                                          \
    do {                                                         \
        pthread_mutex_lock(&(t)->mu);                            \
        if (!(t)->failed && ((call) < 0 || flush(t, &(t)->err) < 0)) { \
            (t)->failed = 1;                                     \
            write_summary(t);                                    \
        }                                                        \
        pthread_mutex_unlock(&(t)->mu);                          \
    } while (0)

int l2t_tracer_stopped(struct l2t_tracer *t)
{
    pthread_mutex_lock(&t->mu);
    int r = t->failed || t->cap.stopped != NULL;
    pthread_mutex_unlock(&t->mu);
    return r;
}

void l2t_tracer_fail(struct l2t_tracer *t, const char *msg)
{
    pthread_mutex_lock(&t->mu);
    if (!t->failed) {
        t->failed = 1;
        snprintf(t->err.msg, sizeof t->err.msg, "%s", msg);
        write_summary(t);
    }
    pthread_mutex_unlock(&t->mu);
}

void l2t_tracer_note(struct l2t_tracer *t, const char *line)
{
    pthread_mutex_lock(&t->mu);
    size_t k = strlen(t->notes);
    snprintf(t->notes + k, sizeof t->notes - k, "l2trace: %s\n", line);
    pthread_mutex_unlock(&t->mu);
}

void l2t_tracer_default_stream(struct l2t_tracer *t, uint64_t handle)
{
    pthread_mutex_lock(&t->mu);
    l2t_default_stream(&t->cap, handle);
    pthread_mutex_unlock(&t->mu);
}

void l2t_tracer_alloc(struct l2t_tracer *t, uint64_t base, uint64_t bytes, const char *name)
{
    LOCKED(t, l2t_on_alloc(&t->cap, base, bytes, name, &t->err));
}

void l2t_tracer_free(struct l2t_tracer *t, uint64_t base)
{
    LOCKED(t, l2t_on_free(&t->cap, base, &t->err));
}

int l2t_tracer_launch(struct l2t_tracer *t, const char *name, uint64_t stream, const uint32_t grid[3],
                      const uint32_t block[3], uint64_t win_base, uint64_t win_bytes, double win_ratio,
                      int win_hit, int win_miss)
{
    int capture = 0;
    pthread_mutex_lock(&t->mu);
    if (!t->failed) {
        struct l2_window_spec w;
        int r = 0;
        if (win_bytes)
            r = l2t_window_spec(win_base, win_bytes, win_ratio, win_hit, win_miss, &w, &t->err);
        if (r < 0 || l2t_on_launch(&t->cap, name, stream, grid, block, win_bytes ? &w : NULL, &capture, &t->err) < 0) {
            t->failed = 1;
            capture = 0;
            write_summary(t);
        }
    }
    pthread_mutex_unlock(&t->mu);
    return capture;
}

void l2t_tracer_launch_end(struct l2t_tracer *t)
{
    LOCKED(t, l2t_on_launch_end(&t->cap, &t->err));
    pthread_mutex_lock(&t->mu);
    write_summary(t);
    pthread_mutex_unlock(&t->mu);
}

void l2t_tracer_warps(struct l2t_tracer *t, const struct l2t_warp *w, size_t n)
{
    pthread_mutex_lock(&t->mu);
    for (size_t i = 0; i < n && !t->failed; i++)
        if (l2t_on_warp(&t->cap, &w[i], &t->err) < 0) {
            t->failed = 1;
            write_summary(t);
        }
    pthread_mutex_unlock(&t->mu);
}

void l2t_tracer_setaside(struct l2t_tracer *t, uint64_t bytes)
{
    LOCKED(t, l2t_on_setaside(&t->cap, bytes, &t->err));
}

void l2t_tracer_reset(struct l2t_tracer *t)
{
    LOCKED(t, l2t_on_reset(&t->cap, &t->err));
}

void l2t_tracer_window(struct l2t_tracer *t, uint64_t stream, uint64_t base, uint64_t bytes, double ratio, int hit,
                       int miss)
{
    LOCKED(t, l2t_on_window(&t->cap, stream, base, bytes, ratio, hit, miss, &t->err));
}

void l2t_tracer_event_record(struct l2t_tracer *t, uint64_t event, uint64_t stream)
{
    LOCKED(t, l2t_on_event_record(&t->cap, event, stream, &t->err));
}

void l2t_tracer_event_wait(struct l2t_tracer *t, uint64_t event, uint64_t stream)
{
    LOCKED(t, l2t_on_event_wait(&t->cap, event, stream, &t->err));
}

void l2t_tracer_sync(struct l2t_tracer *t)
{
    LOCKED(t, l2t_on_sync(&t->cap, &t->err));
}

void l2t_tracer_stream_sync(struct l2t_tracer *t, uint64_t stream)
{
    LOCKED(t, l2t_on_stream_sync(&t->cap, stream, &t->err));
}

int l2t_tracer_close(struct l2t_tracer *t)
{
    pthread_mutex_lock(&t->mu);
    if (!t->failed && flush(t, &t->err) < 0)
        t->failed = 1;
    close(t->fd);
    write_summary(t);
    int rc = t->failed ? -1 : 0;
    l2t_free(&t->cap);
    l2_symtab_free(&t->syms);
    free(t->buf);
    pthread_mutex_unlock(&t->mu);
    pthread_mutex_destroy(&t->mu);
    free(t);
    return rc;
}

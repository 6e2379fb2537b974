/*
 * tracer.c - a capture writing a binary trace, for the injected library
 * (see tracer.h).
 */
#include "tracer.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "source.h"
#include "trace.h"

struct l2t_tracer {
    pthread_mutex_t mu;
    struct l2t_capture cap;
    struct l2_symtab syms;
    struct l2_bin_writer *w;
    struct l2_sink *sink;
    char out[4096], summary[4096], patch[4096];
    uint64_t ring;
    int failed;
    l2_err err;
    char notes[4096];
};

static int emit_bin(void *ctx, const struct l2_event *ev, l2_err *e)
{
    return l2_bin_writer_add(ctx, ev, e);
}

static const char *env(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

struct l2t_tracer *l2t_tracer_open(char *err, size_t n)
{
    l2_err e;
    const char *out = env(L2T_ENV_OUT), *comp = env(L2T_ENV_COMPRESS), *ring = env(L2T_ENV_RING);
    if (!out) {
        snprintf(err, n, "%s is not set (run the program under l2trace)", L2T_ENV_OUT);
        return NULL;
    }
    struct l2t_tracer *t = calloc(1, sizeof *t);
    if (!t) {
        snprintf(err, n, "out of memory");
        return NULL;
    }
    pthread_mutex_init(&t->mu, NULL);
    snprintf(t->out, sizeof t->out, "%s", out);
    snprintf(t->summary, sizeof t->summary, "%s", env(L2T_ENV_SUMMARY) ? env(L2T_ENV_SUMMARY) : "");
    snprintf(t->patch, sizeof t->patch, "%s", env(L2T_ENV_PATCH) ? env(L2T_ENV_PATCH) : "");
    t->ring = 1u << 16;
    enum l2_comp c = L2_COMP_NONE;
    struct l2t_options o;
    int ok = 0;
    if (comp && strcmp(comp, "gzip") == 0)
        c = L2_COMP_GZIP;
    else if (comp && strcmp(comp, "zstd") == 0)
        c = L2_COMP_ZSTD;
    else if (comp && strcmp(comp, "none") != 0)
        l2_fail(&e, "--compress '%s': not none, gzip or zstd", comp);
    else if (ring && (l2_parse_u64(ring, strlen(ring), &t->ring, &e) < 0 || t->ring < 64 || t->ring > (1u << 24) ||
                      (t->ring & (t->ring - 1))))
        l2_fail(&e, "--ring '%s': not a power of two from 64 to 16777216", ring);
    else if (l2t_options_parse(&o, env(L2T_ENV_KERNEL), env(L2T_ENV_LAUNCHES), env(L2T_ENV_MAX_RECORDS),
                               env(L2T_ENV_MAX_BYTES), env(L2T_ENV_MERGE), &e) < 0)
        ;
    else if (l2_symtab_init(&t->syms, &e) < 0)
        ;
    else if (l2_bin_writer_open(&t->w, &t->syms, &e) < 0)
        l2_symtab_free(&t->syms);
    else if (l2t_init(&t->cap, &o, emit_bin, t->w, &e) < 0) {
        l2_bin_writer_free(t->w);
        l2_symtab_free(&t->syms);
    } else if (l2_sink_open(&t->sink, out, c, &e) < 0) {
        l2t_free(&t->cap);
        l2_bin_writer_free(t->w);
        l2_symtab_free(&t->syms);
    } else
        ok = 1;
    if (!ok) {
        snprintf(err, n, "%s", e.msg);
        pthread_mutex_destroy(&t->mu);
        free(t);
        return NULL;
    }
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
#define LOCKED(t, call)                                 \
    do {                                                \
        pthread_mutex_lock(&(t)->mu);                   \
        if (!(t)->failed && (call) < 0)                 \
            (t)->failed = 1;                            \
        pthread_mutex_unlock(&(t)->mu);                 \
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
        }
    }
    pthread_mutex_unlock(&t->mu);
    return capture;
}

void l2t_tracer_launch_end(struct l2t_tracer *t)
{
    LOCKED(t, l2t_on_launch_end(&t->cap, &t->err));
}

void l2t_tracer_warps(struct l2t_tracer *t, const struct l2t_warp *w, size_t n)
{
    pthread_mutex_lock(&t->mu);
    for (size_t i = 0; i < n && !t->failed; i++)
        if (l2t_on_warp(&t->cap, &w[i], &t->err) < 0)
            t->failed = 1;
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
    int finished = 0;
    if (!t->failed) {
        if (l2_bin_writer_finish(t->w, t->sink, &t->err) < 0)
            t->failed = 1;
        else
            finished = 1;
    }
    if (finished) {
        if (l2_sink_close(t->sink, &t->err) < 0)
            t->failed = 1;
    } else {
        l2_sink_abort(t->sink); /* removes the partial file */
    }
    char sum[4096];
    l2t_summary(&t->cap, sum, sizeof sum);
    FILE *f = t->summary[0] ? fopen(t->summary, "w") : stderr;
    if (f) {
        fputs(sum, f);
        fputs(t->notes, f);
        if (t->failed)
            fprintf(f, "l2trace: error: %s: %s (no trace written)\n", t->out, t->err.msg);
        else
            fprintf(f, "l2trace: wrote %s\n", t->out);
        if (f != stderr)
            fclose(f);
    }
    int rc = t->failed ? -1 : 0;
    l2t_free(&t->cap);
    l2_bin_writer_free(t->w);
    l2_symtab_free(&t->syms);
    pthread_mutex_unlock(&t->mu);
    pthread_mutex_destroy(&t->mu);
    free(t);
    return rc;
}

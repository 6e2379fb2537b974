/*
 * capture.c - the capture state behind l2trace's host callbacks (see
 * capture.h).
 */
#include "capture.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct l2t_alloc {
    uint64_t base, bytes;
    char name[L2_MAX_KNAME];
};

struct l2t_handle {
    uint64_t handle;
    int has_win; /* streams: the window set on the stream, restored after a launch's own */
    struct l2_window_spec win;
};

#define NO_HANDLE UINT64_MAX
#define RECORD_BYTES 16u /* a binary trace record */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void l2t_options_default(struct l2t_options *o)
{
    memset(o, 0, sizeof *o);
    o->launch_end = UINT64_MAX;
    o->l1_bytes = L2_L1_DEFAULT_BYTES;
}

static int parse_index(const char *s, size_t n, uint64_t *v, l2_err *e)
{
    if (l2_parse_u64(s, n, v, e) < 0)
        return l2_prefix(e, "--launches '%s'", s);
    return 0;
}

int l2t_parse_launches(const char *s, uint64_t *first, uint64_t *end, l2_err *e)
{
    const char *colon = strchr(s, ':');
    *first = 0;
    *end = UINT64_MAX;
    if (!colon) {
        if (parse_index(s, strlen(s), first, e) < 0)
            return -1;
        if (*first == UINT64_MAX)
            return l2_fail(e, "--launches '%s': index too large", s);
        *end = *first + 1;
        return 0;
    }
    if (colon > s && parse_index(s, (size_t)(colon - s), first, e) < 0)
        return -1;
    if (colon[1] && parse_index(colon + 1, strlen(colon + 1), end, e) < 0)
        return -1;
    if (*end <= *first)
        return l2_fail(e, "--launches '%s': no launch in the range (A:B captures launches A to B-1)", s);
    return 0;
}

int l2t_options_parse(struct l2t_options *o, const char *kernel, const char *launches, const char *max_records,
                      const char *max_bytes, const char *merge, const char *l1, l2_err *e)
{
    l2t_options_default(o);
    if (kernel && *kernel)
        o->kernel_regex = kernel;
    if (launches && *launches && l2t_parse_launches(launches, &o->launch_first, &o->launch_end, e) < 0)
        return -1;
    if (max_records && *max_records && l2_parse_u64(max_records, strlen(max_records), &o->max_records, e) < 0)
        return l2_prefix(e, "--max-records '%s'", max_records);
    if (max_bytes && *max_bytes && l2_parse_bytes(max_bytes, strlen(max_bytes), &o->max_bytes, e) < 0)
        return l2_prefix(e, "--max-bytes '%s'", max_bytes);
    if (merge && strcmp(merge, "1") == 0)
        o->coal_flags |= L2_COAL_MERGE_LINES;
    if (l1 && *l1 && l2_l1_parse(l1, &o->l1_bytes, e) < 0)
        return l2_prefix(e, "--l1 '%s'", l1);
    return 0;
}

int l2t_init(struct l2t_capture *c, const struct l2t_options *o, l2t_emit_fn emit, void *ctx, l2_err *e)
{
    memset(c, 0, sizeof *c);
    c->opt = *o;
    if (l2_l1_init(&c->l1, o->l1_bytes, e) < 0)
        return l2_prefix(e, "--l1");
    c->emit = emit;
    c->emit_ctx = ctx;
    c->t0 = now();
    if (o->kernel_regex) {
        int r = regcomp(&c->re, o->kernel_regex, REG_EXTENDED | REG_NOSUB);
        if (r != 0) {
            char msg[256];
            regerror(r, &c->re, msg, sizeof msg);
            return l2_fail(e, "--kernel '%s': %s", o->kernel_regex, msg);
        }
        c->has_re = 1;
    }
    /* stream 0, the default stream, until its handle is known */
    if (l2_grow(&c->stream, &c->capstream, 1, sizeof *c->stream, e) < 0) {
        l2t_free(c);
        return -1;
    }
    memset(&c->stream[0], 0, sizeof c->stream[0]);
    c->stream[0].handle = NO_HANDLE;
    c->nstream = 1;
    return 0;
}

void l2t_free(struct l2t_capture *c)
{
    if (c->has_re)
        regfree(&c->re);
    free(c->alloc);
    free(c->stream);
    free(c->event);
    l2_l1_free(&c->l1);
    c->alloc = NULL;
    c->stream = c->event = NULL;
    c->has_re = 0;
}

/* Starts the scratch event as a `type` event. */
static struct l2_event *ev_start(struct l2t_capture *c, enum l2_ev_type type)
{
    memset(&c->ev, 0, sizeof c->ev);
    c->ev.type = type;
    return &c->ev;
}

static int emit(struct l2t_capture *c, l2_err *e)
{
    c->ev.pos = c->records;
    if (c->emit(c->emit_ctx, &c->ev, e) < 0)
        return -1;
    c->records++;
    return 0;
}

static int find_handle(struct l2t_handle **tab, uint32_t *n, uint32_t *cap, uint64_t handle, uint32_t *id, l2_err *e)
{
    for (uint32_t i = 0; i < *n; i++)
        if ((*tab)[i].handle == handle) {
            *id = i;
            return 0;
        }
    if (l2_grow(tab, cap, (uint64_t)*n + 1, sizeof **tab, e) < 0)
        return -1;
    memset(&(*tab)[*n], 0, sizeof **tab);
    (*tab)[*n].handle = handle;
    *id = (*n)++;
    return 0;
}

void l2t_default_stream(struct l2t_capture *c, uint64_t handle)
{
    c->stream[0].handle = handle;
}

int l2t_stream(struct l2t_capture *c, uint64_t handle, uint32_t *id, l2_err *e)
{
    return find_handle(&c->stream, &c->nstream, &c->capstream, handle, id, e);
}

/* Stops writing: a limit was reached. */
static void stop(struct l2t_capture *c, const char *why)
{
    if (!c->stopped)
        c->stopped = why;
}

/* Whether a warp record is captured: inside a captured kernel and under
 * --max-records (reaching it stops the capture); others are counted as
 * dropped. */
static int admit(struct l2t_capture *c)
{
    if (c->in_kernel && !c->stopped && c->opt.max_records && c->warps >= c->opt.max_records)
        stop(c, "--max-records");
    if (!c->in_kernel || c->stopped) {
        c->dropped++;
        return 0;
    }
    return 1;
}

/* ---- allocations ---- */

static int free_at(struct l2t_capture *c, uint32_t i, l2_err *e)
{
    struct l2_event *ev = ev_start(c, EV_FREE);
    memcpy(ev->label, c->alloc[i].name, sizeof ev->label);
    memmove(&c->alloc[i], &c->alloc[i + 1], (size_t)(c->nalloc - i - 1) * sizeof *c->alloc);
    c->nalloc--;
    c->frees++;
    return emit(c, e);
}

int l2t_on_alloc(struct l2t_capture *c, uint64_t base, uint64_t bytes, const char *name, l2_err *e)
{
    uint64_t seq = c->alloc_seq++;
    if (c->stopped || bytes == 0)
        return 0;
    if (base + bytes < base)
        return l2_fail(e, "allocation at 0x%" PRIx64 " of %" PRIu64 " bytes wraps around", base, bytes);
    for (uint32_t i = 0; i < c->nalloc;) {
        const struct l2t_alloc *a = &c->alloc[i];
        if (a->base < base + bytes && base < a->base + a->bytes) {
            c->replaced++;
            if (free_at(c, i, e) < 0)
                return -1;
        } else {
            i++;
        }
    }
    if (l2_grow(&c->alloc, &c->capalloc, (uint64_t)c->nalloc + 1, sizeof *c->alloc, e) < 0)
        return -1;
    struct l2t_alloc *a = &c->alloc[c->nalloc];
    a->base = base;
    a->bytes = bytes;
    if (name) {
        l2_kernel_label(a->name, name);
        for (uint32_t i = 0; i < c->nalloc; i++)
            if (strcmp(c->alloc[i].name, a->name) == 0) { /* a live name: make it unique */
                char tmp[L2_MAX_KNAME];
                snprintf(tmp, sizeof tmp, "%.100s.%" PRIu64, a->name, seq);
                memcpy(a->name, tmp, sizeof tmp);
                break;
            }
    } else {
        snprintf(a->name, sizeof a->name, "buf%" PRIu64, seq);
    }
    c->nalloc++;
    c->allocs++;
    struct l2_event *ev = ev_start(c, EV_ALLOC);
    memcpy(ev->label, a->name, sizeof ev->label);
    ev->addr = base;
    ev->bytes = bytes;
    return emit(c, e);
}

int l2t_on_free(struct l2t_capture *c, uint64_t base, l2_err *e)
{
    if (c->stopped)
        return 0;
    for (uint32_t i = 0; i < c->nalloc; i++)
        if (c->alloc[i].base == base)
            return free_at(c, i, e);
    c->unknown_frees++;
    return 0;
}

/* ---- launches and accesses ---- */

int l2t_on_launch(struct l2t_capture *c, const char *name, uint64_t stream, const uint32_t grid[3],
                  const uint32_t block[3], const struct l2_window_spec *window, int *capture, l2_err *e)
{
    *capture = 0;
    c->launches++;
    if (c->has_re && regexec(&c->re, name, 0, NULL, 0) != 0)
        return 0;
    uint64_t idx = c->matched++;
    if (idx < c->opt.launch_first || idx >= c->opt.launch_end || c->stopped)
        return 0;
    if (c->opt.max_bytes && (c->records + 3) * RECORD_BYTES > c->opt.max_bytes) {
        stop(c, "--max-bytes");
        return 0;
    }
    uint32_t sid;
    if (l2t_stream(c, stream, &sid, e) < 0)
        return -1;
    if (window) {
        struct l2_event *ev = ev_start(c, EV_WINDOW);
        ev->stream = sid;
        ev->win = *window;
        if (emit(c, e) < 0)
            return -1;
    }
    struct l2_event *ev = ev_start(c, EV_KERNEL);
    l2_kernel_label(ev->label, name);
    ev->stream = sid;
    memcpy(ev->grid, grid, sizeof ev->grid);
    memcpy(ev->block, block, sizeof ev->block);
    if (emit(c, e) < 0)
        return -1;
    c->in_kernel = 1;
    l2_l1_clear(&c->l1); /* the L1 is not coherent between kernels */
    c->launch_window = window != NULL;
    c->launch_stream = sid;
    c->captured++;
    *capture = 1;
    return 0;
}

int l2t_on_launch_end(struct l2t_capture *c, l2_err *e)
{
    if (!c->in_kernel)
        return 0;
    c->in_kernel = 0;
    if (!c->launch_window || c->stopped)
        return 0;
    c->launch_window = 0;
    const struct l2t_handle *s = &c->stream[c->launch_stream];
    struct l2_event *ev = ev_start(c, s->has_win ? EV_WINDOW : EV_WINDOW_OFF);
    ev->stream = c->launch_stream;
    if (s->has_win)
        ev->win = s->win;
    return emit(c, e);
}

/* Emits n accesses of out as op with tag and sm, within the limits. */
static int emit_accesses(struct l2t_capture *c, enum l2_op op, uint32_t tag, int32_t sm,
                         const struct l2_coal_access *out, int n, l2_err *e)
{
    if (c->opt.max_bytes && (c->records + (uint64_t)n) * RECORD_BYTES > c->opt.max_bytes) {
        stop(c, "--max-bytes");
        c->dropped++;
        return 0;
    }
    struct l2_event *ev = ev_start(c, EV_ACCESS);
    ev->op = (uint8_t)op;
    ev->tag = tag;
    ev->sm = sm;
    for (int i = 0; i < n; i++) {
        ev->addr = out[i].addr;
        ev->size = out[i].size;
        if (emit(c, e) < 0)
            return -1;
    }
    c->accesses += (uint64_t)n;
    return 0;
}

int l2t_on_warp(struct l2t_capture *c, const struct l2t_warp *w, l2_err *e)
{
    if (w->flags & L2T_F_BULK)
        return l2t_on_range(c, w->flags & L2T_F_WRITE ? OP_WRITE : OP_READ, w->addr[0], w->addr[1], w->sm, e);
    if (!admit(c))
        return 0;
    struct l2_coal_access out[L2_COAL_MAX_OUT];
    enum l2_op op = OP_READ;
    uint32_t tag = L2_TAG_GLOBAL;
    int lines = 0;
    if (w->flags & L2T_F_PREFETCH) {
        op = OP_PREFETCH;
        tag = PRIO_EVICT_NORMAL; /* a prefetch's own priority is not reported: see the README */
        lines = 1;
        c->by_flag[3]++;
    } else if (w->flags & L2T_F_L1_PREFETCH) {
        lines = 1;
        c->by_flag[0]++;
    } else if (w->flags & L2T_F_WRITE) {
        op = OP_WRITE;
        c->by_flag[w->flags & L2T_F_READ ? 2 : 1]++;
    } else {
        c->by_flag[0]++;
    }
    struct l2_coal_line t[L2_COAL_MAX_LINES];
    int nl = l2_coalesce_lines(w->addr, w->mask, lines ? 1 : w->size, t, e);
    if (nl < 0)
        return -1;
    int32_t sm = w->sm < 0 ? -1 : w->sm;
    /* loads and L1 prefetches go through the SM's L1: only the sectors it
     * lacks reach the L2; atomics drop what it holds; prefetches to L2
     * and stores pass it by */
    if (lines)
        for (int i = 0; i < nl; i++)
            t[i].sectors = 0xfu;
    enum l2_l1_op l1op = op == OP_READ                ? L2_L1_LOAD
                         : w->flags & L2T_F_READ ? L2_L1_ATOMIC /* a write that reads: an atomic */
                                                     : L2_L1_STORE;
    if (op != OP_PREFETCH && l2_l1_warp(&c->l1, sm, l1op, t, (unsigned)nl, &c->l1n, e) < 0)
        return -1;
    /* a store's (or an atomic's) sectors written in part keep their bytes (partial_write_fill) */
    const unsigned part = op == OP_WRITE ? L2_COAL_PARTIAL : 0;
    int n = l2_coalesce_runs(t, (unsigned)nl, lines ? 0 : c->opt.coal_flags | part, out);
    c->warps++;
    return emit_accesses(c, op, tag, sm, out, n, e);
}

int l2t_on_range(struct l2t_capture *c, enum l2_op op, uint64_t addr, uint64_t bytes, int32_t sm, l2_err *e)
{
    if (!admit(c))
        return 0;
    if (bytes == 0)
        return 0;
    if (addr + bytes < addr)
        return l2_fail(e, "range at 0x%" PRIx64 " of %" PRIu64 " bytes wraps around", addr, bytes);
    c->warps++;
    c->by_flag[op == OP_WRITE ? 1 : 0]++;
    uint64_t lo = addr & ~(uint64_t)(L2_COAL_SECTOR - 1);
    uint64_t hi = (addr + bytes + L2_COAL_SECTOR - 1) & ~(uint64_t)(L2_COAL_SECTOR - 1);
    struct l2_coal_access out[L2_COAL_MAX_OUT];
    int n = 0;
    while (lo < hi) {
        uint64_t line_end = (lo | (L2_COAL_LINE - 1)) + 1;
        uint64_t piece = (hi < line_end ? hi : line_end) - lo;
        if ((c->opt.coal_flags & L2_COAL_MERGE_LINES) && n > 0 && piece == L2_COAL_LINE &&
            out[n - 1].addr % L2_COAL_LINE == 0 && out[n - 1].size % L2_COAL_LINE == 0 &&
            out[n - 1].size + L2_COAL_LINE <= L2_COAL_MAX_MERGE) {
            out[n - 1].size += L2_COAL_LINE;
        } else {
            if (n == (int)L2_COAL_MAX_OUT) {
                if (emit_accesses(c, op, L2_TAG_GLOBAL, sm, out, n, e) < 0)
                    return -1;
                if (c->stopped)
                    return 0;
                n = 0;
            }
            out[n].addr = lo;
            out[n].size = (uint32_t)piece;
            n++;
        }
        lo += piece;
    }
    return emit_accesses(c, op, L2_TAG_GLOBAL, sm, out, n, e);
}

/* ---- L2 controls and ordering ---- */

int l2t_on_setaside(struct l2t_capture *c, uint64_t bytes, l2_err *e)
{
    if (c->stopped)
        return 0;
    ev_start(c, EV_SETASIDE)->bytes = bytes;
    return emit(c, e);
}

int l2t_on_reset(struct l2t_capture *c, l2_err *e)
{
    if (c->stopped)
        return 0;
    ev_start(c, EV_RESET);
    return emit(c, e);
}

static int prop_of(int p, enum l2_prio *out)
{
    switch (p) {
    case 0:
        *out = PRIO_EVICT_NORMAL;
        return 0;
    case 1:
        *out = PRIO_EVICT_FIRST;
        return 0;
    case 2:
        *out = PRIO_EVICT_LAST;
        return 0;
    default:
        return -1;
    }
}

int l2t_window_spec(uint64_t base, uint64_t bytes, double hit_ratio, int hit_prop, int miss_prop,
                    struct l2_window_spec *w, l2_err *e)
{
    memset(w, 0, sizeof *w);
    w->base = base;
    w->bytes = bytes;
    w->hit_ratio = hit_ratio;
    if (prop_of(hit_prop, &w->hit_prop) < 0)
        return l2_fail(e, "access policy window: unknown hitProp %d", hit_prop);
    if (prop_of(miss_prop, &w->miss_prop) < 0)
        return l2_fail(e, "access policy window: unknown missProp %d", miss_prop);
    if (l2_window_check(w, e) < 0)
        return l2_prefix(e, "access policy window at 0x%" PRIx64, base);
    return 0;
}

int l2t_on_window(struct l2t_capture *c, uint64_t stream, uint64_t base, uint64_t bytes, double hit_ratio,
                  int hit_prop, int miss_prop, l2_err *e)
{
    if (c->stopped)
        return 0;
    uint32_t sid;
    if (l2t_stream(c, stream, &sid, e) < 0)
        return -1;
    struct l2t_handle *s = &c->stream[sid];
    if (bytes == 0) {
        s->has_win = 0;
        ev_start(c, EV_WINDOW_OFF)->stream = sid;
        return emit(c, e);
    }
    struct l2_window_spec w;
    if (l2t_window_spec(base, bytes, hit_ratio, hit_prop, miss_prop, &w, e) < 0)
        return -1;
    s->has_win = 1;
    s->win = w;
    struct l2_event *ev = ev_start(c, EV_WINDOW);
    ev->stream = sid;
    ev->win = w;
    return emit(c, e);
}

static int event_ev(struct l2t_capture *c, enum l2_ev_type type, uint64_t event, uint64_t stream, l2_err *e)
{
    if (c->stopped)
        return 0;
    uint32_t sid, eid;
    if (l2t_stream(c, stream, &sid, e) < 0 || find_handle(&c->event, &c->nevent, &c->capevent, event, &eid, e) < 0)
        return -1;
    struct l2_event *ev = ev_start(c, type);
    ev->stream = sid;
    snprintf(ev->label, sizeof ev->label, "ev%" PRIu32, eid);
    return emit(c, e);
}

int l2t_on_event_record(struct l2t_capture *c, uint64_t event, uint64_t stream, l2_err *e)
{
    return event_ev(c, EV_EVENT_RECORD, event, stream, e);
}

int l2t_on_event_wait(struct l2t_capture *c, uint64_t event, uint64_t stream, l2_err *e)
{
    return event_ev(c, EV_EVENT_WAIT, event, stream, e);
}

int l2t_on_sync(struct l2t_capture *c, l2_err *e)
{
    if (c->stopped)
        return 0;
    ev_start(c, EV_SYNC);
    return emit(c, e);
}

int l2t_on_stream_sync(struct l2t_capture *c, uint64_t stream, l2_err *e)
{
    if (c->stopped)
        return 0;
    uint32_t sid;
    if (l2t_stream(c, stream, &sid, e) < 0)
        return -1;
    ev_start(c, EV_STREAM_SYNC)->stream = sid;
    return emit(c, e);
}

/* ---- summary ---- */

void l2t_summary(const struct l2t_capture *c, char *buf, size_t n)
{
    double secs = now() - c->t0;
    size_t k = 0;
#define PUT(...)                                              \
    do {                                                      \
        int r_ = snprintf(buf + k, k < n ? n - k : 0, __VA_ARGS__); \
        if (r_ > 0)                                           \
            k += (size_t)r_;                                  \
    } while (0)
    PUT("l2trace: %" PRIu64 " kernel launches, %" PRIu64 " captured", c->launches, c->captured);
    if (c->has_re || c->opt.launch_first || c->opt.launch_end != UINT64_MAX)
        PUT(" (%" PRIu64 " matched --kernel)", c->matched);
    PUT("; %" PRIu64 " warp instructions -> %" PRIu64 " accesses (%" PRIu64 " loads, %" PRIu64 " stores, %" PRIu64
        " atomics, %" PRIu64 " prefetches)\n",
        c->warps, c->accesses, c->by_flag[0], c->by_flag[1], c->by_flag[2], c->by_flag[3]);
    if (c->opt.l1_bytes)
        PUT("l2trace: L1 of %" PRIu64 " KiB per SM in front of the L2 (--l1): %" PRIu64 " of %" PRIu64
            " load sectors served by it and not written\n",
            c->opt.l1_bytes >> 10, c->l1n.served, c->l1n.loaded);
    else
        PUT("l2trace: no L1 in front of the L2 (--l1 0): every load sector is written\n");
    PUT("l2trace: %" PRIu64 " trace records (%" PRIu64 " bytes before compression), %" PRIu64 " allocations, %" PRIu64
        " frees, %" PRIu32 " streams, %" PRIu32 " events, %.2f s\n",
        c->records, c->records * RECORD_BYTES, c->allocs, c->frees, c->nstream, c->nevent, secs);
    if (c->replaced)
        PUT("l2trace: %" PRIu64 " live allocations were overlapped by a new one and written as freed first\n",
            c->replaced);
    if (c->stopped)
        PUT("l2trace: stopped at the %s limit: %" PRIu64 " warp instructions and every later launch and directive "
            "not written\n",
            c->stopped, c->dropped);
    PUT("l2trace: accesses are untagged (global): per-instruction L2 eviction hints (.L2::cache_hint, createpolicy, "
        "cuda::annotated_ptr) are not reported by the Compute Sanitizer API; prefetches are written evict_normal\n");
#undef PUT
    if (n > 0 && k >= n)
        buf[n - 1] = 0;
}

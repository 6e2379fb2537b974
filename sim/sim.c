/*
 * sim.c - the resolver and statistics of one variant.
 */
#include "sim.h"

#include <stdlib.h>
#include <string.h>

#include "l2_path.h"

#define NAME_OF(f, name) name,
const char *const l2_counter_names[] = {L2_COUNTER_LIST(NAME_OF)};
_Static_assert(sizeof(l2_counter_names) / sizeof(l2_counter_names[0]) == L2_NCOUNTERS, "counter names");

void l2_counters_add(struct l2_counters *a, const struct l2_counters *b)
{
    uint64_t *x = (uint64_t *)a;
    const uint64_t *y = (const uint64_t *)b;
    for (size_t i = 0; i < L2_NCOUNTERS; i++)
        x[i] += y[i];
}

static int grow_bind(struct l2_sim *s, uint32_t n, l2_err *e)
{
    if (n <= s->nbind)
        return 0;
    struct l2_binding *b = realloc(s->bind, n * sizeof *b);
    if (!b)
        return l2_fail(e, "out of memory");
    memset(b + s->nbind, 0, (n - s->nbind) * sizeof *b);
    for (uint32_t i = s->nbind; i < n; i++)
        b[i].prio = l2_builtin_prio(i);
    s->bind = b;
    s->nbind = n;
    return 0;
}

int l2_sim_init(struct l2_sim *s, const struct l2_config *cfg, enum l2_semantics sem, struct l2_symtab *syms,
                l2_err *e)
{
    memset(s, 0, sizeof *s);
    if (l2_init(&s->l2, cfg, e) < 0)
        return -1;
    if (l2_timing_init(&s->tm, cfg, e) < 0) {
        l2_free(&s->l2);
        return -1;
    }
    s->sem = sem;
    s->syms = syms;
    s->set_end = s->l2.sets; /* every set: one lane */
    s->seed = cfg->policy_seed;
    if (l2_buffers_init(&s->buf, e) < 0 || grow_bind(s, syms->n > L2_NBUILTIN ? syms->n : L2_NBUILTIN, e) < 0) {
        l2_sim_free(s);
        return -1;
    }
    return 0;
}

void l2_sim_free(struct l2_sim *s)
{
    l2_free(&s->l2);
    l2_timing_free(&s->tm);
    for (uint32_t i = 0; i < s->nk; i++) {
        free(s->k[i].name);
        free(s->k[i].tag);
        free(s->k[i].buf);
        free(s->k[i].with);
        l2_ktime_free(&s->k[i].time);
    }
    free(s->k);
    l2_buffers_free(&s->buf);
    free(s->ranges);
    free(s->bind);
    free(s->win);
    free(s->defs);
    memset(s, 0, sizeof *s);
}

static int log_def(struct l2_sim *s, const struct l2_def_log *d, l2_err *e)
{
    if (l2_grow(&s->defs, &s->capdefs, (uint64_t)s->ndefs + 1, sizeof *s->defs, e) < 0)
        return -1;
    s->defs[s->ndefs++] = *d;
    return 0;
}

static __attribute__((noinline)) int new_kernel(struct l2_sim *s, const struct l2_event *ev, l2_err *e)
{
    const char *name = ev->label;
    if (l2_grow(&s->k, &s->capk, (uint64_t)s->nk + 1, sizeof *s->k, e) < 0)
        return -1;
    struct l2_kstats *k = &s->k[s->nk];
    memset(k, 0, sizeof *k);
    k->name = strdup(name);
    k->ntag = s->nbind;
    k->tag = calloc(k->ntag, sizeof *k->tag);
    if (!k->name || !k->tag || l2_timing_kernel(&s->tm, &k->time, s->nk, e) < 0) {
        free(k->name);
        free(k->tag);
        l2_ktime_free(&k->time);
        return l2_fail(e, "out of memory");
    }
    k->stream = ev->stream;
    k->pos = ev->pos;
    k->time.warps = l2_kernel_warps(&s->l2.cfg, ev->grid, ev->block);
    k->time.room = s->l2.room;
    s->nk++;
    for (uint32_t i = 0; i < s->nwin; i++)
        if (s->win[i].stream == ev->stream && s->win[i].on)
            k->win = s->win[i].win;
    return 0;
}

static struct l2_stream_window *stream_window(struct l2_sim *s, uint32_t stream, l2_err *e)
{
    for (uint32_t i = 0; i < s->nwin; i++)
        if (s->win[i].stream == stream)
            return &s->win[i];
    struct l2_stream_window *w = realloc(s->win, (s->nwin + 1) * sizeof *w);
    if (!w) {
        l2_fail(e, "out of memory");
        return NULL;
    }
    s->win = w;
    w = &s->win[s->nwin++];
    memset(w, 0, sizeof *w);
    w->stream = stream;
    return w;
}

/* Grows the kernel's per-tag or per-buffer counters to n entries. */
static __attribute__((noinline)) int grow_counters(struct l2_counters **c, uint32_t *have, uint32_t n, l2_err *e)
{
    struct l2_counters *t = realloc(*c, n * sizeof *t);
    if (!t)
        return l2_fail(e, "out of memory");
    memset(t + *have, 0, (n - *have) * sizeof *t);
    *c = t;
    *have = n;
    return 0;
}

/* The tag an access takes: an `assign` range holding its address, else
 * its buffer's assignment, else its own. */
static inline uint32_t assigned_tag(const struct l2_sim *s, uint32_t row, const struct l2_event *ev)
{
    for (uint32_t i = 0; i < s->nranges; i++)
        if (ev->addr - s->ranges[i].base < s->ranges[i].end - s->ranges[i].base)
            return s->ranges[i].tag;
    return s->buf.row[row].assign != L2_NO_ASSIGN ? s->buf.row[row].assign : ev->tag;
}

/* The sums of lines (sim_access_g): what every counter of a scope
 * follows from. */
struct line_sums {
    uint64_t sectors, hits, near, lmiss, dram_rd, dram_wr, merged;
};

/* Adds the sums x to a. */
static inline void sums_add(struct line_sums *a, const struct line_sums *x)
{
    a->sectors += x->sectors;
    a->hits += x->hits;
    a->near += x->near;
    a->lmiss += x->lmiss;
    a->dram_rd += x->dram_rd;
    a->dram_wr += x->dram_wr;
    a->merged += x->merged;
}

/* Adds the sums x of lines of an access (op: the access's) to c. */
static inline void counters_add_sums(struct l2_counters *c, enum l2_op op, const struct line_sums *x)
{
    c->merged += x->merged;
    c->sectors += x->sectors;
    c->sector_hits += x->hits;
    c->near_hits += x->near;
    if (op == OP_READ) {
        c->read_sectors += x->sectors;
        c->read_hits += x->hits;
        c->read_near += x->near;
    }
    c->line_miss += x->lmiss;
    c->sector_miss += x->sectors - x->hits - x->lmiss;
    c->dram_rd += x->dram_rd;
    c->dram_wr += x->dram_wr;
}

/* Where the lines of an access lie (l2_sim_place), found before it is
 * simulated, and what the simulator adds to that (locate_g). */
struct loc {
    const struct l2_pline *pl; /* the places of its lines */
    unsigned nlines;           /* 0: unplaced, rejected for its size or its SM (sim_access_g says which) */
    unsigned nmine;            /* lines this lane simulates */
    struct l2_pending *pe[L2_MAX_LINES]; /* the timing's entries of the sets at home */
    uint8_t mine[L2_MAX_LINES];          /* 1: this lane simulates the line (only with several lanes) */
};

/* l2_sim_place, inlined where a simulator places its own accesses. */
static inline unsigned place(const struct l2 *l, const struct l2_event *ev, struct l2_pline *pl)
{
    if (ev->size == 0 || ev->size > L2_MAX_ACCESS || ev->addr > UINT64_MAX - ev->size)
        return 0;
    if (ev->sm >= 0 && (uint64_t)ev->sm >= l->cfg.sms)
        return 0;
    const uint64_t first = ev->addr >> l->line_shift, last = (ev->addr + ev->size - 1) >> l->line_shift;
    const unsigned nlines = (unsigned)(last - first + 1);
    uint32_t set[L2_MAX_LINES];
    unsigned home[L2_MAX_LINES];
    l2_sets(l, first, nlines, set);
    l2_homes(l, first, nlines, home);
    /* the sectors of a line: all of them but in the first line (from the
     * access's first byte) and the last (to its last) */
    const uint64_t lmask = ((uint64_t)1 << l->line_shift) - 1;
    const uint8_t full = l->full;
    for (unsigned i = 0; i < nlines; i++)
        pl[i] = (struct l2_pline){
            .set = set[i], .home = (uint8_t)home[i], .near = (uint8_t)l2_near(l, ev->sm, home[i]), .mask = full};
    const uint8_t mask0 = (uint8_t)(full & ~((1u << ((ev->addr & lmask) >> l->sector_shift)) - 1));
    const uint8_t mask1 = (uint8_t)((2u << (((ev->addr + ev->size - 1) & lmask) >> l->sector_shift)) - 1);
    pl[0].mask &= mask0;
    pl[nlines - 1].mask &= mask1;
    /* a store's first sector is written in part when it starts inside it,
     * its last when it ends inside it (the same sector when it is one) */
    if (ev->op == OP_WRITE && l->cfg.partial_write_fill) {
        const uint64_t smask = ((uint64_t)1 << l->sector_shift) - 1;
        if (ev->addr & smask)
            pl[0].part = (uint8_t)(mask0 & -mask0); /* the lowest sector of mask0 */
        if ((ev->addr + ev->size) & smask)
            pl[nlines - 1].part |= (uint8_t)((mask1 + 1) >> 1); /* the highest of mask1 */
    }
    return nlines;
}

unsigned l2_sim_place(const struct l2_sim *s, const struct l2_event *ev, struct l2_pline *pl)
{
    return place(&s->l2, ev, pl);
}

/* Locates access ev, whose n lines (0: unplaced, rejected) lie at pl:
 * which this lane simulates, and hints the CPU to fetch their set blocks
 * and timing entries, so that the misses overlap with the accesses
 * simulated meanwhile. */
L2_PATH_FN void locate_g(const struct l2_sim *s, const struct l2_geom g, const int one_lane,
                         const struct l2_pline *pl, unsigned n, struct loc *lc)
{
    const struct l2 *l = &s->l2;
    unsigned nmine = 0;
    lc->pl = pl;
    lc->nlines = n;
    for (unsigned i = 0; i < n; i++) {
        if (!one_lane) { /* every line is this lane's; a lane of several takes only its own */
            lc->mine[i] = pl[i].set - s->set_lo < s->set_end - s->set_lo;
            if (!lc->mine[i])
                continue;
        }
        nmine++;
        l2_cache_prefetch_g(&l->part[pl[i].home], g, pl[i].set);
        /* unconditional: near == home is a coin flip per line, and a second
         * prefetch of the same block costs less than its misprediction */
        l2_cache_prefetch_g(&l->part[pl[i].near], g, pl[i].set);
        lc->pe[i] = l2_timing_pending(&s->tm, pl[i].home, pl[i].set);
    }
    lc->nmine = nmine;
}

/* One access, located in lc, with the partitions' set layout g (l2_path.h);
 * one_lane: s simulates every set (l2_sim_set_lane), and so every line. */
L2_PATH_FN int sim_access_g(struct l2_sim *s, const struct l2_geom g, const int one_lane, const struct l2_event *ev,
                            const struct loc *lc, l2_err *e)
{
    if (!lc->nlines && ev->sm >= 0 && (uint64_t)ev->sm >= s->l2.cfg.sms)
        return l2_fail(e, "sm=%d is not below sms = %llu of the configuration", ev->sm,
                       (unsigned long long)s->l2.cfg.sms);
    if (s->nk == 0) {
        struct l2_event dk = {.type = EV_KERNEL, .label = "(default)"};
        if (new_kernel(s, &dk, e) < 0)
            return -1;
    }
    if (ev->kernel > s->nk)
        return l2_fail(e, "access of kernel %u, of which no kernel line came", ev->kernel);
    struct l2_kstats *k = &s->k[(ev->kernel ? ev->kernel : s->nk) - 1];
    /* buffers: only when the trace or the policy file names one */
    const uint32_t row = s->buf.nrow > 1 ? l2_buffers_find(&s->buf, ev->addr) : L2_BUF_OTHER;
    const uint32_t tag = s->buf.nrow > 1 || s->nranges ? assigned_tag(s, row, ev) : ev->tag;
    if (tag >= s->nbind && grow_bind(s, tag + 1, e) < 0)
        return -1;
    if (tag >= k->ntag && grow_counters(&k->tag, &k->ntag, s->nbind, e) < 0)
        return -1;
    if (s->buf.nrow > 1 && row >= k->nbuf && grow_counters(&k->buf, &k->nbuf, s->buf.nrow, e) < 0)
        return -1;
    const struct l2_binding *b = &s->bind[tag];
    if (tag >= L2_NBUILTIN && !b->is_policy)
        return l2_fail(e, "tag '%s' names no policy in this configuration", l2_sym_name(s->syms, tag));
    if (!lc->nlines && (ev->size == 0 || ev->size > L2_MAX_ACCESS || ev->addr > UINT64_MAX - ev->size))
        return l2_fail(e, "access size %u is outside 1..%u bytes", ev->size, L2_MAX_ACCESS);
    struct l2_counters *ct = &k->tag[tag];
    struct l2_counters *cb = k->buf ? &k->buf[row] : NULL;
    const unsigned ls = s->l2.line_shift;
    const uint64_t lmask = ((uint64_t)1 << ls) - 1;
    const uint64_t first = ev->addr >> ls;
    const unsigned nlines = lc->nlines;
    const enum l2_op op = (enum l2_op)ev->op;
    const struct l2_window *win = &k->win;
    const int window = tag == L2_TAG_GLOBAL && win->active;
    const int plain = !b->is_policy && !window; /* every line takes the tag's priority */
    unsigned seen = 0;
    int unspec = 0;
    const struct l2_pline *pl = lc->pl;
    const uint8_t *mine = lc->mine;
    const unsigned nmine = lc->nmine;

    /* With several lanes, the lane that owns the first line counts the
     * access itself (and so needs every line's priority). */
    const int owner = one_lane || mine[0];
    struct l2_tacc ta = {0};
    if (l2_timing_access(&s->tm, &k->time, ev->sm, nlines, ev->at1, &ta, e) < 0)
        return -1;
    s->accesses++;
    if (!owner && !nmine)
        return 0; /* another lane's access */
    struct l2_tsum ts = {0};
    struct line_sums sums = {0}; /* of the access's lines */

    for (unsigned i = 0; i < nlines; i++) {
        if (!one_lane && !mine[i] && !owner)
            continue;
        uint64_t line = first + i;
        uint64_t la = line << ls;
        enum l2_prio prio = b->prio;
        if (!plain) {
            uint64_t pa = la > ev->addr ? la : ev->addr; /* first byte of the access in this line */
            if (b->is_policy)
                prio = l2_policy_apply(&b->pol, pa, ls, s->seed, &unspec);
            else if (pa >= win->base && pa < win->end)
                prio = l2_share_pick(line, s->seed, win->share60) ? win->hit_prop : win->miss_prop;
        }
        if (op == OP_DISCARD && (la < ev->addr || la + lmask > ev->addr + ev->size - 1))
            continue; /* only fully covered lines are discarded */
        seen |= 1u << prio;
        if (!one_lane && !mine[i])
            continue;
        const uint8_t mask = pl[i].mask;
        const unsigned home = pl[i].home, near = pl[i].near;
        struct l2_outcome o;
        l2_path_access(&s->l2, g, op, prio, line, home, near, pl[i].set, mask, pl[i].part, &o);
        unsigned merged = l2_timing_line(&s->tm, &k->time, &ta, &ts, op, prio, line, home, near, lc->pe[i], mask, &o);
        if (op == OP_APPLY || op == OP_DISCARD)
            continue;
        const struct line_sums x = {
            .sectors = (unsigned)l2_popcount8(mask),
            .hits = (unsigned)l2_popcount8(o.hit),
            .near = (unsigned)l2_popcount8(o.near_hit),
            .lmiss = (unsigned)l2_popcount8(o.line_miss),
            .dram_rd = o.dram_rd,
            .dram_wr = o.dram_wr,
            .merged = merged,
        };
        sums_add(&sums, &x);
        if (!plain) /* a plain access's lines share one priority, counted once below */
            counters_add_sums(&k->prio[prio], op, &x);
    }
    /* the access's counters, added once to each scope (vector adds); a
     * copy of a zeroed constant: GCC zeroes the struct in place with rep
     * stos, whose start-up costs more than the copy */
    static const struct l2_counters zero;
    struct l2_counters acc = zero;
    counters_add_sums(&acc, op, &sums);
    l2_timing_done(&s->tm, &k->time, &ta, &ts, op, sums.sectors, ev->sm >= 0 ? s->l2.sm_part[ev->sm] : 0);
    if (plain)
        l2_counters_add(&k->prio[b->prio], &acc);
    l2_counters_add(&k->total, &acc);
    l2_counters_add(ct, &acc);
    if (cb)
        l2_counters_add(cb, &acc);
    if (!owner)
        return 0;
    k->total.accesses++;
    ct->accesses++;
    k->total.unspecified += (unsigned)unspec;
    ct->unspecified += (unsigned)unspec;
    if (cb) {
        cb->accesses++;
        cb->unspecified += (unsigned)unspec;
    }
    for (; seen; seen &= seen - 1)
        k->prio[__builtin_ctz(seen)].accesses++;
    return 0;
}

/* The three compiled forms of sim_access_g.  flatten: the L2 path, the
 * timing and the locating helpers are inlined into each as well (GCC
 * stops inlining them at this size otherwise).  The 16-way forms are
 * inlined in turn into sim_events_g's (access_of_form). */
__attribute__((flatten)) static int sim_access_usual(struct l2_sim *s, const struct l2_event *ev, const struct loc *lc,
                                                      l2_err *e)
{
    return sim_access_g(s, l2_geom_of(L2_USUAL_WAYS), 0, ev, lc, e);
}

__attribute__((flatten)) static int sim_access_usual1(struct l2_sim *s, const struct l2_event *ev, const struct loc *lc,
                                                       l2_err *e)
{
    return sim_access_g(s, l2_geom_of(L2_USUAL_WAYS), 1, ev, lc, e);
}

__attribute__((noinline, flatten)) static int sim_access_any(struct l2_sim *s, const struct l2_event *ev,
                                                              const struct loc *lc, l2_err *e)
{
    return sim_access_g(s, s->l2.part[0].g, 0, ev, lc, e);
}

/* Whether s simulates every set (one lane). */
static int sim_one_lane(const struct l2_sim *s)
{
    return s->set_lo == 0 && s->set_end == s->l2.sets;
}

/* One access, by the compiled form of layout g and one_lane: inlined
 * where they are constants (sim_events_g's forms), which then inline the
 * 16-way access paths (a call per access saved). */
static inline int access_of_form(struct l2_sim *s, const struct l2_geom g, const int one_lane,
                                 const struct l2_event *ev, const struct loc *lc, l2_err *e)
{
    if (g.ways == L2_USUAL_WAYS)
        return one_lane ? sim_access_usual1(s, ev, lc, e) : sim_access_usual(s, ev, lc, e);
    return sim_access_any(s, ev, lc, e);
}

void l2_sim_set_lane(struct l2_sim *s, unsigned lane, unsigned lanes)
{
    /* whole queue groups of the set-aside (cache.h), which couple their sets */
    const unsigned q = s->l2.part[0].qshift;
    const uint64_t groups = l2_cache_groups(&s->l2.part[0]);
    const uint64_t lo = (groups * lane / lanes) << q, end = (groups * (lane + 1) / lanes) << q;
    s->set_lo = (uint32_t)lo;
    s->set_end = (uint32_t)(end < s->l2.sets ? end : s->l2.sets);
}

static int define_policy(struct l2_sim *s, const struct l2_event *ev, int lock, l2_err *e)
{
    if (grow_bind(s, ev->name + 1, e) < 0)
        return -1;
    struct l2_binding *b = &s->bind[ev->name];
    if (b->locked && !lock)
        return 0;
    b->is_policy = 1;
    b->locked = lock;
    l2_policy_resolve(&ev->pol, s->sem, &b->pol);
    struct l2_def_log d = {.is_window = 0, .name = ev->name, .pol = ev->pol};
    return log_def(s, &d, e);
}

static int define_window(struct l2_sim *s, const struct l2_event *ev, int lock, l2_err *e)
{
    struct l2_stream_window *w = stream_window(s, ev->stream, e);
    if (!w)
        return -1;
    if (w->locked && !lock)
        return 0;
    w->locked = lock;
    w->on = ev->type == EV_WINDOW;
    if (w->on) {
        l2_window_resolve(&ev->win, s->sem, &w->win);
        struct l2_def_log d = {.is_window = 1, .name = ev->stream, .win = ev->win};
        return log_def(s, &d, e);
    }
    return 0;
}

/* One event other than an access.  Not inlined: sim_events_g's compiled
 * forms keep only their loop, locate_g and an access path. */
static __attribute__((noinline)) int sim_event(struct l2_sim *s, const struct l2_event *ev, l2_err *e)
{
    switch (ev->type) {
    case EV_ACCESS:
        break; /* never: accesses go to access_of_form */
    case EV_POLICY:
        return define_policy(s, ev, 0, e);
    case EV_WINDOW:
    case EV_WINDOW_OFF:
        return define_window(s, ev, 0, e);
    case EV_SETASIDE:
        if (ev->bytes > s->l2.cfg.setaside_max)
            return l2_fail(e, "setaside %llu exceeds the maximum %llu (setaside_max of the configuration)",
                           (unsigned long long)ev->bytes, (unsigned long long)s->l2.cfg.setaside_max);
        if (s->setaside_locked)
            return 0;
        return l2_set_setaside(&s->l2, ev->bytes, e);
    case EV_RESET:
        l2_reset_persisting(&s->l2);
        return 0;
    case EV_KERNEL:
        return new_kernel(s, ev, e);
    case EV_ALLOC:
        return l2_buffers_alloc(&s->buf, ev->label, ev->addr, ev->bytes, e);
    case EV_FREE:
        return l2_buffers_free_name(&s->buf, ev->label, e);
    case EV_EVENT_RECORD: /* kernels run one after another: ordering adds nothing */
    case EV_EVENT_WAIT:
    case EV_SYNC:
    case EV_STREAM_SYNC:
        return 0;
    case EV_ASSIGN:
        return l2_fail(e, "assign lines belong in a --policy file");
    }
    return l2_fail(e, "unknown event");
}

int l2_sim_event(struct l2_sim *s, const struct l2_event *ev, l2_err *e)
{
    struct loc lc;
    struct l2_pline pl[L2_MAX_LINES];
    s->records++;
    if (ev->type != EV_ACCESS)
        return sim_event(s, ev, e);
    locate_g(s, s->l2.part[0].g, 0, pl, place(&s->l2, ev, pl), &lc);
    return access_of_form(s, s->l2.part[0].g, sim_one_lane(s), ev, &lc, e);
}

/* Accesses are located this many events before they are simulated (a
 * ring of LOC_RING > LOC_AHEAD entries, a power of two). */
#define LOC_AHEAD 4
#define LOC_RING 8

/* Locates access i of the events ev: placed in pd, or here into own. */
L2_PATH_FN void locate_at(const struct l2_sim *s, const struct l2_geom g, const int one_lane,
                          const struct l2_event *ev, const struct l2_placed *pd, size_t i, struct l2_pline *own,
                          struct loc *lc)
{
    if (!pd) {
        locate_g(s, g, one_lane, own, place(&s->l2, &ev[i], own), lc);
        return;
    }
    const uint32_t at = pd->at[i];
    const unsigned ls = s->l2.line_shift;
    const unsigned n =
        at == L2_UNPLACED ? 0 : (unsigned)(((ev[i].addr + ev[i].size - 1) >> ls) - (ev[i].addr >> ls) + 1);
    locate_g(s, g, one_lane, pd->line + (n ? at : 0), n, lc);
}

L2_PATH_FN size_t sim_events_g(struct l2_sim *s, const struct l2_geom g, const int one_lane, const struct l2_event *ev,
                               size_t n, const struct l2_placed *pd, l2_err *e)
{
    struct loc ring[LOC_RING];
    struct l2_pline own[LOC_RING][L2_MAX_LINES]; /* without pd */
    for (size_t i = 0; i < n && i < LOC_AHEAD; i++)
        if (ev[i].type == EV_ACCESS)
            locate_at(s, g, one_lane, ev, pd, i, own[i], &ring[i]);
    for (size_t i = 0; i < n; i++) {
        size_t j = i + LOC_AHEAD;
        if (j < n && ev[j].type == EV_ACCESS)
            locate_at(s, g, one_lane, ev, pd, j, own[j % LOC_RING], &ring[j % LOC_RING]);
        s->records++;
        int r = ev[i].type == EV_ACCESS ? access_of_form(s, g, one_lane, &ev[i], &ring[i % LOC_RING], e)
                                        : sim_event(s, &ev[i], e);
        if (r < 0)
            return i;
    }
    return n;
}

/* Its three compiled forms, as sim_access_g's. */
__attribute__((noinline, flatten)) static size_t sim_events_usual(struct l2_sim *s, const struct l2_event *ev,
                                                                   size_t n, const struct l2_placed *pd, l2_err *e)
{
    return sim_events_g(s, l2_geom_of(L2_USUAL_WAYS), 0, ev, n, pd, e);
}

__attribute__((noinline, flatten)) static size_t sim_events_usual1(struct l2_sim *s, const struct l2_event *ev,
                                                                    size_t n, const struct l2_placed *pd, l2_err *e)
{
    return sim_events_g(s, l2_geom_of(L2_USUAL_WAYS), 1, ev, n, pd, e);
}

__attribute__((noinline, flatten)) static size_t sim_events_any(struct l2_sim *s, const struct l2_event *ev, size_t n,
                                                                 const struct l2_placed *pd, l2_err *e)
{
    return sim_events_g(s, s->l2.part[0].g, 0, ev, n, pd, e);
}

size_t l2_sim_events(struct l2_sim *s, const struct l2_event *ev, size_t n, const struct l2_placed *pd, l2_err *e)
{
    if (s->l2.part[0].g.ways == L2_USUAL_WAYS)
        return sim_one_lane(s) ? sim_events_usual1(s, ev, n, pd, e) : sim_events_usual(s, ev, n, pd, e);
    return sim_events_any(s, ev, n, pd, e);
}

static int define_assign(struct l2_sim *s, const struct l2_event *ev, l2_err *e)
{
    if (ev->label[0]) {
        int64_t r = l2_buffers_row(&s->buf, ev->label, e);
        if (r < 0)
            return -1;
        s->buf.row[r].assign = ev->tag;
        return 0;
    }
    if (l2_grow(&s->ranges, &s->capranges, (uint64_t)s->nranges + 1, sizeof *s->ranges, e) < 0)
        return -1;
    s->ranges[s->nranges++] = (struct l2_assign_range){.base = ev->addr, .end = ev->addr + ev->bytes, .tag = ev->tag};
    return 0;
}

int l2_sim_policy_event(struct l2_sim *s, const struct l2_event *ev, l2_err *e)
{
    switch (ev->type) {
    case EV_POLICY:
        return define_policy(s, ev, 1, e);
    case EV_WINDOW:
    case EV_WINDOW_OFF:
        return define_window(s, ev, 1, e);
    case EV_SETASIDE:
        if (l2_set_setaside(&s->l2, ev->bytes, e) < 0)
            return -1;
        s->setaside_locked = 1;
        return 0;
    case EV_ASSIGN:
        return define_assign(s, ev, e);
    default:
        return l2_fail(e, "a policy file holds only policy, window, setaside and assign lines");
    }
}

/* Adds kernel k's scopes into total, prio and the first ntag tags. */
static void kstats_add(struct l2_counters *total, struct l2_counters prio[L2_NPRIO], struct l2_counters *tag,
                       uint32_t ntag, const struct l2_kstats *k)
{
    l2_counters_add(total, &k->total);
    for (unsigned p = 0; p < L2_NPRIO; p++)
        l2_counters_add(&prio[p], &k->prio[p]);
    for (uint32_t t = 0; t < ntag && t < k->ntag; t++)
        l2_counters_add(&tag[t], &k->tag[t]);
}

void l2_sim_totals(const struct l2_sim *s, struct l2_counters *total, struct l2_counters prio[L2_NPRIO],
                   struct l2_counters *tag)
{
    memset(total, 0, sizeof *total);
    memset(prio, 0, L2_NPRIO * sizeof *prio);
    memset(tag, 0, s->nbind * sizeof *tag);
    for (uint32_t i = 0; i < s->nk; i++)
        kstats_add(total, prio, tag, s->nbind, &s->k[i]);
}

void l2_sim_buffer_totals(const struct l2_sim *s, struct l2_counters *buf)
{
    memset(buf, 0, s->buf.nrow * sizeof *buf);
    for (uint32_t i = 0; i < s->nk; i++)
        for (uint32_t r = 0; r < s->k[i].nbuf; r++)
            l2_counters_add(&buf[r], &s->k[i].buf[r]);
}

int l2_sim_merge_lane(struct l2_sim *dst, const struct l2_sim *src)
{
    l2_err e;
    for (uint32_t i = 0; i < dst->nk && i < src->nk; i++) {
        struct l2_kstats *k = &dst->k[i];
        kstats_add(&k->total, k->prio, k->tag, k->ntag, &src->k[i]);
        if (src->k[i].nbuf > k->nbuf && grow_counters(&k->buf, &k->nbuf, src->k[i].nbuf, &e) < 0)
            return -1;
        for (uint32_t r = 0; r < src->k[i].nbuf; r++)
            l2_counters_add(&k->buf[r], &src->k[i].buf[r]);
        if (l2_ktime_merge(&k->time, &src->k[i].time) < 0)
            return -1;
    }
    return 0;
}

/*
 * cache.c - tag array allocation and the operations on every set.
 * See cache.h for the model and the layout.
 */
#include "cache.h"

#include <stdlib.h>
#include <string.h>

/* Gives every set's ways the ranks 0..ways-1 (its recency order, cache.h). */
static void init_ranks(struct l2_cache *c)
{
    for (uint32_t s = 0; s < c->sets; s++) {
        uint8_t *r = l2_set_base_g(c, c->g, s) + c->g.off_rank;
        for (uint32_t w = 0; w < c->g.ways; w++)
            r[w] = (uint8_t)w; /* padding ranks stay 0: never above a way's */
    }
}

int l2_cache_init(struct l2_cache *c, uint32_t sets, uint32_t ways, l2_err *e)
{
    memset(c, 0, sizeof *c);
    if (ways == 0 || ways > (1u << L2_WAY_BITS))
        return l2_fail(e, "%u ways: a set holds 1 to %u", ways, 1u << L2_WAY_BITS);
    c->sets = sets;
    c->g = l2_geom_of(ways);
    c->mem = l2_alloc_table((size_t)sets * c->g.set_bytes);
    if (!c->mem) {
        l2_cache_free(c);
        return l2_fail(e, "out of memory for a %u x %u tag array", sets, ways);
    }
    c->fifo = 1;
    init_ranks(c); /* l2_alloc_table zeroed the rest: the cache is empty */
    return l2_cache_group(c, 0, 0, e);
}

void l2_cache_free(struct l2_cache *c)
{
    free(c->mem);
    free(c->cq);
    free(c->q);
    free(c->qe);
    free(c->qtmp);
    free(c->qpos);
    memset(c, 0, sizeof *c);
}

void l2_cache_clear(struct l2_cache *c)
{
    memset(c->mem, 0, (size_t)c->sets * c->g.set_bytes);
    if (c->q)
        memset(c->q, 0, l2_cache_groups(c) * sizeof *c->q);
    if (c->cq)
        memset(c->cq, 0, l2_cache_groups_of(c, c->cshift) * sizeof *c->cq);
    init_ranks(c);
}

void l2_cache_fill_stale(struct l2_cache *c)
{
    const struct l2_geom g = c->g;
    for (uint32_t s = 0; s < c->sets; s++) {
        unsigned char *b = l2_set_base_g(c, g, s);
        for (uint32_t w = 0; w < g.ways; w++) {
            ((uint32_t *)(void *)b)[w] = w;
            ((uint32_t *)(void *)(b + g.off_hi))[w] = L2_TAG_STALE_HI;
        }
        l2_blk_meta(g, b)->occ = g.all; /* the ranks stay init_ranks': below every later use */
    }
}

void l2_cache_demote_all(struct l2_cache *c)
{
    for (uint32_t s = 0; s < c->sets; s++)
        l2_set_meta_g(c, c->g, l2_slot(s, 0))->last = 0;
    for (uint32_t gi = 0; gi < l2_cache_groups(c); gi++)
        c->q[gi].n = c->q[gi].head = c->q[gi].len = 0;
    for (uint32_t gi = 0; gi < l2_cache_groups_of(c, c->cshift); gi++)
        c->cq[gi].n = 0;
}

int l2_cache_group(struct l2_cache *c, unsigned cshift, unsigned qshift, l2_err *e)
{
    if (cshift > qshift)
        return l2_fail(e, "quota groups of %llu sets are larger than queue groups of %llu",
                       (unsigned long long)1 << cshift, (unsigned long long)1 << qshift);
    const uint32_t gsets = c->sets < (UINT32_C(1) << qshift) ? c->sets : UINT32_C(1) << qshift;
    const size_t groups = ((size_t)(c->sets - 1) >> qshift) + 1;
    /* at least twice the lines a group can hold, a power of two: a way's
     * one live entry is its latest, so compacting a full ring frees half */
    const uint32_t cap = UINT32_C(1) << l2_log2_ceil(2 * (uint64_t)gsets * c->g.ways);
    /* an entry keeps the low 32 - qshift - L2_WAY_BITS bits of its number,
     * which tell a stale entry from its way's latest as long as fewer
     * entries than that can be queued in its group while it stays: each
     * entry queued moves it a step nearer the head or the ring a step nearer
     * its compaction, so it stays for fewer than 2 x cap of them */
    if (qshift + L2_WAY_BITS >= 32 || 2 * (uint64_t)cap >= UINT64_C(1) << (32 - qshift - L2_WAY_BITS))
        return l2_fail(e, "groups of %llu sets are too large for the set-aside queues",
                       (unsigned long long)1 << qshift);
    struct l2_lastq *q = calloc(groups, sizeof *q);
    struct l2_quota *cq = calloc(l2_cache_groups_of(c, cshift), sizeof *cq);
    uint32_t *qe = malloc(groups * cap * sizeof *qe), *qtmp = malloc(cap * sizeof *qtmp);
    uint32_t *qpos = c->qpos ? c->qpos : calloc((size_t)c->sets * c->g.ways, sizeof *qpos);
    if (!q || !cq || !qe || !qtmp || !qpos) {
        free(q);
        free(cq);
        free(qe);
        free(qtmp);
        if (qpos != c->qpos)
            free(qpos);
        return l2_fail(e, "out of memory for the set-aside queues of %u sets", c->sets);
    }
    free(c->q);
    free(c->cq);
    free(c->qe);
    free(c->qtmp);
    c->q = q;
    c->cq = cq;
    c->qe = qe;
    c->qtmp = qtmp;
    c->qpos = qpos;
    c->qcap = cap;
    c->cshift = cshift;
    c->qshift = qshift;
    return 0;
}

/* Whether entry x of group gi names a line that is still LAST and was not
 * queued since (its way's number, cut to the entry's bits, is the
 * entry's), and its set and way. */
static int entry_live(const struct l2_cache *c, uint32_t gi, uint32_t x, uint32_t *set, unsigned *w)
{
    const unsigned sb = c->qshift + L2_WAY_BITS;
    *set = (gi << c->qshift) + ((x & ((1u << sb) - 1)) >> L2_WAY_BITS);
    *w = (unsigned)(x & ((1u << L2_WAY_BITS) - 1));
    const struct l2_set_meta *m = l2_set_meta_g(c, c->g, l2_slot(*set, 0));
    return (m->last >> *w) & 1 && (c->qpos[(size_t)*set * c->g.ways + *w] << sb) == (x & ~((1u << sb) - 1));
}

/* Entries of a queue are fetched this many ahead of their turn. */
#define DEMOTE_AHEAD 8

/* Demotes queue group gi's oldest LAST line, if any.  The set block and
 * the number of the entry DEMOTE_AHEAD behind the head are fetched for a
 * later call: a queue's oldest lines were used long ago, their blocks are
 * rarely in the host's caches, and a stream of fresh LAST lines beyond
 * the quota demotes one per line. */
static __attribute__((noinline)) void demote_oldest(const struct l2_cache *c, uint32_t gi)
{
    struct l2_lastq *q = &c->q[gi];
    uint32_t *ring = c->qe + (size_t)gi * c->qcap;
    while (q->len) {
        uint32_t x = ring[q->head];
        q->head = (q->head + 1) & (c->qcap - 1);
        q->len--;
        if (q->len >= DEMOTE_AHEAD) {
            const unsigned sb = c->qshift + L2_WAY_BITS;
            const uint32_t ahead = ring[(q->head + DEMOTE_AHEAD - 1) & (c->qcap - 1)] & ((1u << sb) - 1);
            const uint32_t aset = (gi << c->qshift) + (ahead >> L2_WAY_BITS);
            __builtin_prefetch(l2_set_meta_g(c, c->g, l2_slot(aset, 0)));
            __builtin_prefetch(&c->qpos[(size_t)aset * c->g.ways + (ahead & ((1u << L2_WAY_BITS) - 1))]);
        }
        uint32_t set;
        unsigned w;
        if (entry_live(c, gi, x, &set, &w)) {
            l2_set_meta_g(c, c->g, l2_slot(set, 0))->last &= ~(UINT32_C(1) << w);
            q->n--;
            c->cq[set >> c->cshift].n--;
            return;
        }
    }
}

/* Demotes queue group gi's oldest LAST lines while it holds more than its quota. */
static void trim_group(const struct l2_cache *c, uint32_t gi)
{
    const uint32_t limit = c->quota * l2_cache_group_sets_of(c, c->qshift, gi); /* quota ways in each set */
    while (c->q[gi].n > limit && c->q[gi].len)
        demote_oldest(c, gi);
}

/* Compacts queue group gi's full ring: keeps the live entries, in order.
 * Not inlined (nor demote_oldest): the access path, which inlines
 * l2_cache_last_in, runs them rarely. */
static __attribute__((noinline)) void compact(const struct l2_cache *c, uint32_t gi)
{
    struct l2_lastq *q = &c->q[gi];
    uint32_t *ring = c->qe + (size_t)gi * c->qcap;
    uint32_t n = 0;
    for (uint32_t i = 0; i < q->len; i++) {
        uint32_t x = ring[(q->head + i) & (c->qcap - 1)];
        uint32_t s;
        unsigned v;
        if (entry_live(c, gi, x, &s, &v))
            c->qtmp[n++] = x;
    }
    memcpy(ring, c->qtmp, n * sizeof *ring);
    q->head = 0;
    q->len = n;
}

void l2_cache_last_in(const struct l2_cache *c, uint32_t set, unsigned w, int fresh)
{
    const uint32_t gi = set >> c->qshift;
    struct l2_lastq *q = &c->q[gi];
    uint32_t *ring = c->qe + (size_t)gi * c->qcap;
    if (q->len == c->qcap)
        compact(c, gi);
    c->qpos[(size_t)set * c->g.ways + w] = q->seq;
    ring[(q->head + q->len) & (c->qcap - 1)] =
        q->seq++ << (c->qshift + L2_WAY_BITS) | (set - (gi << c->qshift)) << L2_WAY_BITS | w;
    q->len++;
    if (!fresh)
        return;
    q->n++;
    struct l2_quota *cq = &c->cq[set >> c->cshift];
    cq->n++;
    if (!c->fifo)
        return;
    if (cq->n > c->quota * l2_cache_group_sets_of(c, c->cshift, set >> c->cshift))
        demote_oldest(c, gi);
    trim_group(c, gi);
}

void l2_cache_trim(const struct l2_cache *c)
{
    if (c->fifo)
        for (uint32_t gi = 0; gi < l2_cache_groups(c); gi++)
            trim_group(c, gi);
}

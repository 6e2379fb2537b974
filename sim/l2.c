/*
 * l2.c - partitions, hashing, near/far copies, set-aside quota, DRAM
 * traffic.  See l2.h for the model.
 */
#include "l2.h"

#include <stdlib.h>
#include <string.h>

#include "l2_path.h"

uint32_t l2_quota_ways(const struct l2_config *c, uint64_t bytes)
{
    uint64_t unit = c->l2_size / c->ways;
    uint64_t q = (bytes + unit - 1) / unit;
    if (q < c->setaside_floor_ways)
        q = c->setaside_floor_ways;
    if (q > c->ways)
        q = c->ways;
    return (uint32_t)q;
}

/* A percentage as a share of 2^32 (l2_line_picked's cut; 100: all). */
static uint64_t pct_cut(uint64_t pct)
{
    return (pct << 32) / 100;
}

/* The fraction of v in 1/2^16. */
static uint32_t frac16(double v)
{
    return (uint32_t)((v - (double)(uint32_t)v) * 65536.0);
}

/* The state a trace starts from, on empty partitions: stale lines in
 * every way with start_full, and the configured set-aside. */
static void l2_start(struct l2 *l)
{
    if (l->cfg.start_full)
        for (unsigned p = 0; p < l->nparts; p++)
            l2_cache_fill_stale(&l->part[p]);
    l2_set_setaside(l, l->cfg.setaside, NULL);
}

int l2_init(struct l2 *l, const struct l2_config *cfg, l2_err *e)
{
    memset(l, 0, sizeof *l);
    if (l2_config_check(cfg, e) < 0)
        return -1;
    l->cfg = *cfg;
    l->nparts = (unsigned)cfg->partitions;
    l->line_shift = l2_log2_ceil(cfg->line_size);
    l->sector_shift = l2_log2_ceil(cfg->sector_size);
    l->sectors = (unsigned)(cfg->line_size / cfg->sector_size);
    l->full = (uint8_t)((2u << (l->sectors - 1)) - 1);
    l->sets = l2_config_sets(cfg);
    l->seed = l2_mix64(cfg->hash_seed + 0x51ed270b27a3c5d1ULL);
    l->reprieve_cut = pct_cut(cfg->written_reprieve_pct);
    l->again_cut = pct_cut(cfg->reprieve_again_pct);
    l->refresh_cut = pct_cut(cfg->near_refresh_pct);
    unsigned chunk_log2 = l2_log2_ceil(cfg->hash_chunk);
    l->chunk_shift = chunk_log2 > l->line_shift ? chunk_log2 - l->line_shift : 0;
    l->block_mask = cfg->set_hash == SETHASH_STRIPE && cfg->hash_block ? (cfg->hash_block >> l->line_shift) - 1 : 0;
    l->part = calloc(l->nparts, sizeof *l->part);
    l->sm_part = calloc(cfg->sms, sizeof *l->sm_part);
    if (!l->part || !l->sm_part) {
        l2_free(l);
        return l2_fail(e, "out of memory");
    }
    for (unsigned p = 0; p < l->nparts; p++) {
        if (l2_cache_init(&l->part[p], l->sets, (uint32_t)cfg->ways, e) < 0) {
            l2_free(l);
            return -1;
        }
        if (l2_cache_group(&l->part[p], l2_log2_ceil(cfg->quota_sets), l2_log2_ceil(cfg->queue_sets), e) < 0) {
            l2_free(l);
            return -1;
        }
        l->part[p].first_max = (uint32_t)cfg->first_max;
        l->part[p].first_grow = (uint32_t)(cfg->first_grow * 65536.0);
        l->part[p].sfirst_ways = (uint32_t)cfg->first_store_ways;
        l->part[p].sfirst_frac = frac16(cfg->first_store_ways);
    }
    for (uint64_t s = 0; s < cfg->sms; s++) {
        uint64_t p = cfg->sm_map == SMMAP_TABLE  ? (uint64_t)l2_config_sm_part(cfg, s)
                     : cfg->sm_map == SMMAP_HALF ? s * l->nparts / cfg->sms
                                                 : s % l->nparts;
        l->sm_part[s] = (uint16_t)p;
    }
    /* DRAM bytes by missing-sector mask: the dram_atom granules touched. */
    uint64_t granule = l2_config_granule(cfg);
    unsigned per = (unsigned)(granule / cfg->sector_size);
    for (unsigned m = 0; m < 256; m++) {
        unsigned bytes = 0, fill = 0;
        for (unsigned g = 0; g < l->sectors; g += per)
            if (m & (((1u << per) - 1) << g)) {
                bytes += (unsigned)granule;
                fill |= ((1u << per) - 1) << g;
            }
        l->dram_bytes[m] = (uint16_t)bytes;
        l->fill_mask[m] = (uint8_t)(fill & l->full);
    }
    /* l2_clear less the clearing: l2_cache_init left every partition empty */
    l2_start(l);
    return 0;
}

void l2_free(struct l2 *l)
{
    if (l->part)
        for (unsigned p = 0; p < l->nparts; p++)
            l2_cache_free(&l->part[p]);
    free(l->part);
    free(l->sm_part);
    memset(l, 0, sizeof *l);
}

void l2_clear(struct l2 *l)
{
    for (unsigned p = 0; p < l->nparts; p++)
        l2_cache_clear(&l->part[p]);
    l2_start(l);
}

int l2_set_setaside(struct l2 *l, uint64_t bytes, l2_err *e)
{
    if (bytes > l->cfg.setaside_max)
        return l2_fail(e, "set-aside %llu bytes exceeds the maximum %llu (setaside_max)",
                       (unsigned long long)bytes, (unsigned long long)l->cfg.setaside_max);
    l->setaside = bytes;
    l->quota = l2_quota_ways(&l->cfg, bytes);
    /* without a set-aside every way; with one the ways outside it, but one
     * way for normal data even when it takes them all */
    l->room = bytes == 0 ? (uint32_t)l->cfg.ways : l->quota < l->cfg.ways ? (uint32_t)l->cfg.ways - l->quota : 1;
    /* written data keeps dirty_gap_ways of the ways outside the set-aside free (at least one way for it) */
    const uint32_t written = l->room > l->cfg.dirty_gap_ways ? l->room - (uint32_t)l->cfg.dirty_gap_ways : 1;
    l->dirty_cap = l->cfg.dirty_ways && l->cfg.dirty_ways > written ? written : (uint32_t)l->cfg.dirty_ways;
    double first = l->cfg.first_ways, share = l->cfg.first_share * (double)(l->cfg.ways - l->quota);
    if (bytes > 0 && l->cfg.first_share > 0 && share < first)
        first = share;
    for (unsigned p = 0; p < l->nparts; p++) {
        l->part[p].first_ways = (uint32_t)first;
        l->part[p].first_frac = frac16(first);
        l->part[p].quota = l->quota;
        l->part[p].fifo = bytes > 0;
        l2_cache_trim(&l->part[p]);
    }
    return 0;
}

void l2_reset_persisting(struct l2 *l)
{
    for (unsigned p = 0; p < l->nparts; p++)
        l2_cache_demote_all(&l->part[p]);
}

void l2_locate(const struct l2 *l, uint64_t line, unsigned *home, uint32_t *set)
{
    *home = l2_home(l, line);
    l2_sets(l, line, 1, set);
}

/* How many of the n lines from line `first` (n > 0), whose place in the
 * stripes is p (l2_striped), have consecutive places: until a block
 * starts or its rotated places wrap (hash_block; blocks lie within stripe
 * runs), or else a stripe run starts.  An access is a few lines, mostly
 * within one block: one hash for the block. */
static inline unsigned place_run(const struct l2 *l, uint64_t first, uint64_t p, unsigned n)
{
    const uint64_t m = l->block_mask ? l->block_mask : ((uint64_t)1 << l->chunk_shift) - 1;
    const uint64_t left = m - ((first & m) > (p & m) ? first & m : p & m); /* consecutive places after p */
    return left < n - 1 ? (unsigned)left + 1 : n;
}

/* The set of place p (l2_striped) that starts a run of consecutive sets. */
static inline uint32_t stripe_set(const struct l2 *l, uint64_t p)
{
    return (uint32_t)((p + l2_mix64((p >> l->chunk_shift) ^ ~l->seed)) % l->sets);
}

void l2_sets(const struct l2 *l, uint64_t first, unsigned n, uint32_t *set)
{
    if (l->cfg.set_hash != SETHASH_STRIPE) {
        for (unsigned i = 0; i < n; i++)
            set[i] = (uint32_t)(((unsigned __int128)l2_mix64((first + i) ^ l->seed) * l->sets) >> 64);
        return;
    }
    /* set_hash = stripe: consecutive places take consecutive sets within a
     * stripe run of 2^chunk_shift lines from a hashed start */
    while (n) {
        const uint64_t p = l2_striped(l, first);
        const unsigned k = place_run(l, first, p, n);
        uint32_t st = stripe_set(l, p);
        set[0] = st;
        for (unsigned i = 1; i < k; i++) {
            st = st + 1 == l->sets ? 0 : st + 1;
            set[i] = st;
        }
        first += k;
        set += k;
        n -= k;
    }
}

void l2_homes(const struct l2 *l, uint64_t first, unsigned n, unsigned *home)
{
    if (l->cfg.home_hash != HOMEHASH_BALANCED) {
        for (unsigned i = 0; i < n; i++)
            home[i] = l2_home_mixed(l, first + i);
        return;
    }
    /* l2_home, its divisions once per run of consecutive places
     * (place_run): place = base + turn x sets + q, q < sets */
    const uint64_t span = (uint64_t)l->sets * l->nparts;
    while (n) {
        const uint64_t p = l2_striped(l, first);
        const unsigned k = place_run(l, first, p, n);
        const uint64_t r = p % span;
        unsigned turn = (unsigned)(r / l->sets);
        uint64_t q = r % l->sets, base = p - r;
        for (unsigned i = 0; i < k; i++) {
            home[i] = (l2_home_mixed(l, base + q) + turn) % l->nparts;
            if (++q == l->sets) { /* the next place is the next turn's */
                q = 0;
                if (++turn == l->nparts) {
                    turn = 0;
                    base += span;
                }
            }
        }
        first += k;
        home += k;
        n -= k;
    }
}

void l2_access(struct l2 *l, enum l2_op op, enum l2_prio prio, uint64_t line, uint8_t mask, int sm,
               struct l2_outcome *out)
{
    unsigned home;
    uint32_t set;
    l2_locate(l, line, &home, &set);
    /* the per-access loop of sim.c inlines its own copies of the path */
    l2_path_access(l, l->part[0].g, op, prio, line, home, l2_near(l, sm, home), set, mask, 0, out);
}

/*
 * cache.c - tag array allocation, victim choice and bulk operations.
 * See cache.h for the model and the layout.
 */
#include "cache.h"

#include <stdlib.h>
#include <string.h>

int l2_cache_init(struct l2_cache *c, uint32_t sets, uint32_t ways, l2_err *e)
{
    memset(c, 0, sizeof *c);
    if (ways == 0 || ways > (1u << L2_WAY_BITS))
        return l2_fail(e, "%u ways: a set holds 1 to %u", ways, 1u << L2_WAY_BITS);
    c->sets = sets;
    c->ways = ways;
    c->wpad = (ways + 3) & ~3u;
    c->all = ways == 32 ? UINT32_MAX : (UINT32_C(1) << ways) - 1;
    c->off_stamp = 4 * (size_t)c->wpad;
    c->off_hi = 8 * (size_t)c->wpad;
    c->off_valid = 12 * (size_t)c->wpad;
    c->off_dirty = 13 * (size_t)c->wpad;
    c->off_meta = 14 * (size_t)c->wpad; /* a multiple of 8 */
    c->set_bytes = (c->off_meta + sizeof(struct l2_set_meta) + 63) / 64 * 64;
    c->mem = aligned_alloc(64, (size_t)sets * c->set_bytes);
    if (!c->mem)
        return l2_fail(e, "out of memory for a %u x %u tag array", sets, ways);
    l2_cache_clear(c);
    return 0;
}

void l2_cache_free(struct l2_cache *c)
{
    free(c->mem);
    memset(c, 0, sizeof *c);
}

void l2_cache_clear(struct l2_cache *c)
{
    memset(c->mem, 0, (size_t)c->sets * c->set_bytes);
    c->clock = 0;
}

void l2_cache_renumber(struct l2_cache *c)
{
    for (uint32_t s = 0; s < c->sets; s++) {
        uint64_t base = l2_slot(s, 0);
        uint32_t *st = l2_cache_stamp(c, base), occ = l2_set_meta_of(c, base)->occ, rank[32];
        for (uint32_t i = 0; i < c->ways; i++) {
            rank[i] = 1;
            for (uint32_t j = 0; j < c->ways; j++)
                rank[i] += ((occ >> j) & 1) && st[j] < st[i];
        }
        for (uint32_t i = 0; i < c->ways; i++)
            st[i] = (occ >> i) & 1 ? rank[i] : 0;
    }
    c->clock = c->ways + 1;
}

uint64_t l2_cache_victim(const struct l2_cache *c, uint32_t set)
{
    const uint64_t base = l2_slot(set, 0);
    const struct l2_set_meta *m = l2_set_meta_of(c, base);
    uint32_t empty = c->all & ~m->occ;
    if (empty)
        return base + (unsigned)__builtin_ctz(empty);
    /* The victim is the least recently used line of the lowest rank.
     * evict_first lines go first (rank 0) once the set holds first_ways
     * of them (one more in a first_frac share of the sets); below that
     * they age like normal lines (rank 1), and so do evict_last lines
     * beyond the quota; evict_last lines within the quota go last (2). */
    uint32_t nfirst = (uint32_t)__builtin_popcount(m->first);
    uint32_t cap = c->first_ways + (((set * 0x9e3779b9u) >> 16) < c->first_frac);
    uint32_t rank2 = (uint32_t)__builtin_popcount(m->last) > c->quota ? 0 : m->last;
    uint32_t cand = nfirst && nfirst >= cap ? m->first : c->all & ~rank2;
    if (!cand)
        cand = rank2;
    /* stamps are unique within a set and below 2^31 */
    const uint32_t *st = l2_cache_stamp(c, base);
    uint64_t best = UINT64_MAX;
    for (uint32_t w = 0; w < c->ways; w++) {
        uint64_t key = (uint64_t)(~cand >> w & 1) << 40 | (uint64_t)st[w] << 6 | w;
        best = key < best ? key : best;
    }
    return base + (best & 63);
}

void l2_cache_demote_all(struct l2_cache *c)
{
    for (uint32_t s = 0; s < c->sets; s++)
        l2_set_meta_of(c, l2_slot(s, 0))->last = 0;
}

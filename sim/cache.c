/*
 * cache.c - tag array allocation, victim choice and bulk operations.
 * See cache.h for the model.
 */
#include "cache.h"

#include <stdlib.h>
#include <string.h>

int l2_cache_init(struct l2_cache *c, uint32_t sets, uint32_t ways, l2_err *e)
{
    memset(c, 0, sizeof *c);
    size_t bytes = (size_t)sets * ways * sizeof *c->w;
    c->sets = sets;
    c->ways = ways;
    c->w = aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!c->w)
        return l2_fail(e, "out of memory for a %u x %u tag array", sets, ways);
    l2_cache_clear(c);
    return 0;
}

void l2_cache_free(struct l2_cache *c)
{
    free(c->w);
    memset(c, 0, sizeof *c);
}

void l2_cache_clear(struct l2_cache *c)
{
    size_t n = (size_t)c->sets * c->ways;
    for (size_t i = 0; i < n; i++)
        c->w[i] = (struct l2_way){.tag = L2_TAG_NONE, .cls = CLS_NORMAL};
    c->clock = 0;
}

void l2_cache_renumber(struct l2_cache *c)
{
    uint32_t rank[64];
    for (uint32_t s = 0; s < c->sets; s++) {
        struct l2_way *w = c->w + (uint64_t)s * c->ways;
        for (uint32_t i = 0; i < c->ways; i++) {
            rank[i] = 1;
            for (uint32_t j = 0; j < c->ways; j++)
                rank[i] += w[j].stamp < w[i].stamp || (w[j].stamp == w[i].stamp && j < i);
        }
        for (uint32_t i = 0; i < c->ways; i++)
            w[i].stamp = rank[i];
    }
    c->clock = c->ways + 1;
}

uint64_t l2_cache_victim(const struct l2_cache *c, uint32_t set)
{
    const uint64_t base = (uint64_t)set * c->ways;
    const struct l2_way *way = c->w + base;
    uint32_t n[L2_NCLASS] = {0, 0, 0};
    for (uint32_t w = 0; w < c->ways; w++) {
        if (way[w].tag == L2_TAG_NONE)
            return base + w;
        n[way[w].cls]++;
    }
    /* Rank of each class: the victim is the least recently used line of
     * the lowest rank.  evict_first lines go first once the set holds
     * first_ways of them (one more in a first_frac share of the sets);
     * below that they age like normal lines, and so do evict_last lines
     * beyond the quota; evict_last lines within the quota go last. */
    uint32_t cap = c->first_ways + (((set * 0x9e3779b9u) >> 16) < c->first_frac);
    uint64_t rank[L2_NCLASS];
    rank[CLS_FIRST] = n[CLS_FIRST] && n[CLS_FIRST] >= cap ? 0 : 1;
    rank[CLS_NORMAL] = 1;
    rank[CLS_LAST] = n[CLS_LAST] > c->quota ? 1 : 2;
    /* key = rank, stamp, way: stamps are unique within a cache */
    uint64_t best = UINT64_MAX;
    for (uint32_t w = 0; w < c->ways; w++) {
        uint64_t key = rank[way[w].cls] << 40 | (uint64_t)way[w].stamp << 6 | w;
        best = key < best ? key : best;
    }
    return base + (best & 63);
}

void l2_cache_demote_all(struct l2_cache *c)
{
    size_t n = (size_t)c->sets * c->ways;
    for (size_t i = 0; i < n; i++)
        if (c->w[i].cls == CLS_LAST)
            c->w[i].cls = CLS_NORMAL;
}

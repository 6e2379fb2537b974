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

uint64_t l2_cache_victim(const struct l2_cache *c, uint32_t set, enum l2_class fill)
{
    uint64_t base = (uint64_t)set * c->ways;
    const struct l2_way *way = c->w + base;
    int64_t best[L2_NCLASS] = {-1, -1, -1};
    uint32_t age[L2_NCLASS] = {UINT32_MAX, UINT32_MAX, UINT32_MAX};
    uint32_t n[L2_NCLASS] = {0, 0, 0};
    for (uint32_t w = 0; w < c->ways; w++) {
        if (way[w].tag == L2_TAG_NONE)
            return base + w;
        unsigned k = way[w].cls;
        n[k]++;
        if (way[w].stamp < age[k]) {
            age[k] = way[w].stamp;
            best[k] = (int64_t)(base + w);
        }
    }
    /* evict_first lines go first, except that an evict_first fill takes a
     * non-evict_first way while the set holds fewer than first_ways of them */
    if (best[CLS_FIRST] >= 0 && ((fill != CLS_FIRST && !c->first_any) || n[CLS_FIRST] >= c->first_ways))
        return (uint64_t)best[CLS_FIRST];
    /* evict_last lines beyond the quota compete with normal ones */
    int64_t v = best[CLS_NORMAL];
    if (c->first_any && best[CLS_FIRST] >= 0 && (v < 0 || age[CLS_FIRST] < age[CLS_NORMAL])) {
        v = best[CLS_FIRST];
        if (n[CLS_LAST] > c->quota && best[CLS_LAST] >= 0 && age[CLS_LAST] < age[CLS_FIRST])
            v = best[CLS_LAST];
        return (uint64_t)v;
    }
    if (n[CLS_LAST] > c->quota && best[CLS_LAST] >= 0 && (v < 0 || age[CLS_LAST] < age[CLS_NORMAL]))
        v = best[CLS_LAST];
    if (v < 0)
        v = best[CLS_LAST] >= 0 ? best[CLS_LAST] : best[CLS_FIRST];
    return (uint64_t)v;
}

void l2_cache_demote_all(struct l2_cache *c)
{
    size_t n = (size_t)c->sets * c->ways;
    for (size_t i = 0; i < n; i++)
        if (c->w[i].cls == CLS_LAST)
            c->w[i].cls = CLS_NORMAL;
}

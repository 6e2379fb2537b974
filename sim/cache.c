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
    size_t n = (size_t)sets * ways;
    c->sets = sets;
    c->ways = ways;
    c->tag = malloc(n * sizeof *c->tag);
    c->stamp = malloc(n * sizeof *c->stamp);
    c->valid = malloc(n * 3);
    if (!c->tag || !c->stamp || !c->valid) {
        l2_cache_free(c);
        return l2_fail(e, "out of memory for a %u x %u tag array", sets, ways);
    }
    c->dirty = c->valid + n;
    c->cls = c->valid + 2 * n;
    l2_cache_clear(c);
    return 0;
}

void l2_cache_free(struct l2_cache *c)
{
    free(c->tag);
    free(c->stamp);
    free(c->valid);
    memset(c, 0, sizeof *c);
}

void l2_cache_clear(struct l2_cache *c)
{
    size_t n = (size_t)c->sets * c->ways;
    for (size_t i = 0; i < n; i++)
        c->tag[i] = L2_TAG_NONE;
    memset(c->stamp, 0, n * sizeof *c->stamp);
    memset(c->valid, 0, n * 2);
    memset(c->cls, CLS_NORMAL, n);
    c->clock = 0;
}

uint64_t l2_cache_victim(const struct l2_cache *c, uint32_t set)
{
    uint64_t base = (uint64_t)set * c->ways;
    int64_t best[L2_NCLASS] = {-1, -1, -1};
    uint64_t age[L2_NCLASS] = {UINT64_MAX, UINT64_MAX, UINT64_MAX};
    uint32_t n[L2_NCLASS] = {0, 0, 0};
    for (uint32_t w = 0; w < c->ways; w++) {
        uint64_t i = base + w;
        if (c->tag[i] == L2_TAG_NONE)
            return i;
        unsigned k = c->cls[i];
        n[k]++;
        if (c->stamp[i] < age[k]) {
            age[k] = c->stamp[i];
            best[k] = (int64_t)i;
        }
    }
    /* evict_first lines go first once they hold first_ways ways */
    if (best[CLS_FIRST] >= 0 && n[CLS_FIRST] >= c->first_ways)
        return (uint64_t)best[CLS_FIRST];
    /* below that, they compete with normal lines, and so do evict_last
     * lines beyond the quota */
    int64_t v = best[CLS_NORMAL];
    uint64_t a = age[CLS_NORMAL];
    if (best[CLS_FIRST] >= 0 && age[CLS_FIRST] < a) {
        v = best[CLS_FIRST];
        a = age[CLS_FIRST];
    }
    if (n[CLS_LAST] > c->quota && best[CLS_LAST] >= 0 && (v < 0 || age[CLS_LAST] < a))
        v = best[CLS_LAST];
    return (uint64_t)(v >= 0 ? v : best[CLS_LAST]);
}

void l2_cache_demote_all(struct l2_cache *c)
{
    size_t n = (size_t)c->sets * c->ways;
    for (size_t i = 0; i < n; i++)
        if (c->cls[i] == CLS_LAST)
            c->cls[i] = CLS_NORMAL;
}

/*
 * cache.h - one set-associative, sectored tag array with L2 eviction
 * priority classes (one L2 partition).
 *
 * Notes (modelling assumptions):
 *  - Lines are tracked by line address (byte address >> line shift); a way
 *    holds a line tag, a valid-sector mask, a dirty-sector mask, a priority
 *    class and a last-use stamp.  All arrays are allocated once (sets x
 *    ways, structure of arrays); nothing is allocated per access.
 *  - Priority classes: FIRST (evict_first), NORMAL, LAST (evict_last).
 *  - Victim choice in a full set: an invalid way if any; else, once the
 *    set holds first_ways FIRST lines, the least recently used FIRST line
 *    (so a stream of evict_first fills cycles through first_ways ways of
 *    each set); else the least recently used of the NORMAL and FIRST lines
 *    together with the LAST lines when the set holds more of them than its
 *    quota (LAST lines beyond the quota compete like normal ones); else
 *    the least recently used LAST line.  The quota is the persisting
 *    set-aside expressed in ways.
 *  - Every lookup that finds the line makes it the most recently used.
 *  - The cache itself knows nothing of DRAM: callers read the evicted
 *    line's dirty mask before installing a new one.
 */
#ifndef L2SIM_CACHE_H
#define L2SIM_CACHE_H

#include <stdint.h>

#include "common.h"

enum l2_class { CLS_FIRST, CLS_NORMAL, CLS_LAST, L2_NCLASS };

#define L2_TAG_NONE UINT64_MAX

/* One way of a set: 16 bytes, so a 16-way set is 256 contiguous bytes. */
struct l2_way {
    uint64_t tag;   /* line address; L2_TAG_NONE when the way is empty */
    uint32_t stamp; /* last use (see l2_cache_tick) */
    uint8_t valid;  /* valid sectors */
    uint8_t dirty;  /* dirty sectors */
    uint8_t cls;    /* enum l2_class */
    uint8_t pad;
};

struct l2_cache {
    uint32_t sets, ways;
    struct l2_way *w; /* sets x ways, set-major; slot = set * ways + way */
    uint32_t clock;
    uint32_t quota;      /* LAST ways per set protected from normal victims */
    uint32_t first_ways; /* FIRST lines a set holds before they are its first victims */
    uint32_t first_frac; /* a share first_frac / 2^16 of the sets allows first_ways + 1 */
};

int l2_cache_init(struct l2_cache *c, uint32_t sets, uint32_t ways, l2_err *e);
void l2_cache_free(struct l2_cache *c);
/* Empties every way. */
void l2_cache_clear(struct l2_cache *c);
/* Slot (set * ways + way) of the victim for a fill into `set`. */
uint64_t l2_cache_victim(const struct l2_cache *c, uint32_t set);
/* Demotes every LAST line to NORMAL (cudaCtxResetPersistingL2Cache). */
void l2_cache_demote_all(struct l2_cache *c);

/* Renumbers every set's stamps 1..ways in recency order (clock wrap). */
void l2_cache_renumber(struct l2_cache *c);

/* Next stamp; stamps are 32-bit and renumbered when the clock wraps. */
static inline uint32_t l2_cache_tick(struct l2_cache *c)
{
    if (__builtin_expect(++c->clock == 0, 0))
        l2_cache_renumber(c);
    return c->clock;
}

/* Hints the CPU to fetch a set's ways. */
static inline void l2_cache_prefetch(const struct l2_cache *c, uint32_t set)
{
    const char *p = (const char *)(c->w + (uint64_t)set * c->ways);
    size_t n = c->ways * sizeof *c->w;
    for (size_t o = 0; o < n; o += 64)
        __builtin_prefetch(p + o);
}

/* Slot holding line `tag` in `set`, or -1. */
static inline int64_t l2_cache_find(const struct l2_cache *c, uint32_t set, uint64_t tag)
{
    const struct l2_way *t = c->w + (uint64_t)set * c->ways;
    for (uint32_t w = 0; w < c->ways; w++)
        if (t[w].tag == tag)
            return (int64_t)set * c->ways + w;
    return -1;
}

static inline void l2_cache_touch(struct l2_cache *c, uint64_t slot)
{
    c->w[slot].stamp = l2_cache_tick(c);
}

/* Installs `tag` in `slot` (already chosen and written back), empty. */
static inline void l2_cache_install(struct l2_cache *c, uint64_t slot, uint64_t tag, enum l2_class cls)
{
    struct l2_way *w = &c->w[slot];
    w->tag = tag;
    w->valid = 0;
    w->dirty = 0;
    w->cls = (uint8_t)cls;
    w->stamp = l2_cache_tick(c);
}

static inline void l2_cache_drop(struct l2_cache *c, uint64_t slot)
{
    struct l2_way *w = &c->w[slot];
    w->tag = L2_TAG_NONE;
    w->valid = 0;
    w->dirty = 0;
    w->cls = CLS_NORMAL;
}

#endif

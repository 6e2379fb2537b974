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
 *  - Victim choice in a full set: an invalid way if any; else, if the set
 *    holds at least first_ways FIRST lines, the least recently used FIRST
 *    line (a stream of evict_first fills cycles through first_ways ways of
 *    each set and leaves the rest alone); else the least recently used of
 *    the NORMAL and FIRST lines, together with the LAST lines when the set
 *    holds more of them than its quota (LAST lines beyond the quota compete
 *    like normal ones); else the least recently used LAST line.  The quota
 *    is the persisting set-aside expressed in ways.
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

struct l2_cache {
    uint32_t sets, ways;
    uint64_t *tag;   /* sets x ways; L2_TAG_NONE when the way is empty */
    uint64_t *stamp; /* last use (monotonic per cache) */
    uint8_t *valid;  /* valid sectors */
    uint8_t *dirty;  /* dirty sectors */
    uint8_t *cls;    /* enum l2_class */
    uint64_t clock;
    uint32_t quota;      /* LAST ways per set protected from normal victims */
    uint32_t first_ways; /* FIRST lines per set before they become the first victims */
};

int l2_cache_init(struct l2_cache *c, uint32_t sets, uint32_t ways, l2_err *e);
void l2_cache_free(struct l2_cache *c);
/* Empties every way. */
void l2_cache_clear(struct l2_cache *c);
/* Slot (set * ways + way) of the victim for a fill into `set`. */
uint64_t l2_cache_victim(const struct l2_cache *c, uint32_t set);
/* Demotes every LAST line to NORMAL (cudaCtxResetPersistingL2Cache). */
void l2_cache_demote_all(struct l2_cache *c);

/* Slot holding line `tag` in `set`, or -1. */
static inline int64_t l2_cache_find(const struct l2_cache *c, uint32_t set, uint64_t tag)
{
    const uint64_t *t = c->tag + (uint64_t)set * c->ways;
    for (uint32_t w = 0; w < c->ways; w++)
        if (t[w] == tag)
            return (int64_t)set * c->ways + w;
    return -1;
}

static inline void l2_cache_touch(struct l2_cache *c, uint64_t slot)
{
    c->stamp[slot] = ++c->clock;
}

/* Installs `tag` in `slot` (already chosen and written back), empty. */
static inline void l2_cache_install(struct l2_cache *c, uint64_t slot, uint64_t tag, enum l2_class cls)
{
    c->tag[slot] = tag;
    c->valid[slot] = 0;
    c->dirty[slot] = 0;
    c->cls[slot] = (uint8_t)cls;
    c->stamp[slot] = ++c->clock;
}

static inline void l2_cache_drop(struct l2_cache *c, uint64_t slot)
{
    c->tag[slot] = L2_TAG_NONE;
    c->valid[slot] = 0;
    c->dirty[slot] = 0;
    c->cls[slot] = CLS_NORMAL;
}

#endif

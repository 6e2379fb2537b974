/*
 * cache.c - tag array allocation and the operations on every set.
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
    c->g = l2_geom_of(ways);
    c->mem = l2_alloc_table((size_t)sets * c->g.set_bytes);
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
    memset(c->mem, 0, (size_t)c->sets * c->g.set_bytes);
    for (uint32_t s = 0; s < c->sets; s++) {
        uint8_t *r = l2_set_base_g(c, c->g, s) + c->g.off_rank;
        for (uint32_t w = 0; w < c->g.ways; w++)
            r[w] = (uint8_t)w; /* padding ranks stay 0: never above a way's */
    }
}

void l2_cache_demote_all(struct l2_cache *c)
{
    for (uint32_t s = 0; s < c->sets; s++)
        l2_set_meta_g(c, c->g, l2_slot(s, 0))->last = 0;
}

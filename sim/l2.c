/*
 * l2.c - partitions, hashing, near/far copies, set-aside quota, DRAM
 * traffic.  See l2.h for the model.
 */
#include "l2.h"

#include <stdlib.h>
#include <string.h>

#include "policy.h"


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
    l->sets = l2_config_sets(cfg);
    l->seed = l2_mix64(cfg->hash_seed + 0x51ed270b27a3c5d1ULL);
    l->chunk_shift = l2_log2_ceil(cfg->hash_chunk) > l->line_shift ? l2_log2_ceil(cfg->hash_chunk) - l->line_shift : 0;
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
        l->part[p].first_ways = (uint32_t)cfg->first_ways;
        l->part[p].first_frac = (uint32_t)((cfg->first_ways - (double)(uint32_t)cfg->first_ways) * 65536.0);
    }
    for (uint64_t s = 0; s < cfg->sms; s++) {
        uint64_t p = cfg->sm_map == SMMAP_HALF ? s * l->nparts / cfg->sms : s % l->nparts;
        l->sm_part[s] = (uint16_t)p;
    }
    /* DRAM bytes by missing-sector mask: the dram_atom granules touched. */
    uint64_t granule = l2_config_granule(cfg);
    unsigned per = (unsigned)(granule / cfg->sector_size);
    for (unsigned m = 0; m < 256; m++) {
        unsigned bytes = 0;
        for (unsigned g = 0; g < l->sectors; g += per)
            if (m & (((1u << per) - 1) << g))
                bytes += (unsigned)granule;
        l->dram_bytes[m] = (uint16_t)bytes;
    }
    l2_clear(l);
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
    l2_set_setaside(l, l->cfg.setaside, NULL);
}

int l2_set_setaside(struct l2 *l, uint64_t bytes, l2_err *e)
{
    if (bytes > l->cfg.setaside_max)
        return l2_fail(e, "set-aside %llu bytes exceeds the maximum %llu (setaside_max)",
                       (unsigned long long)bytes, (unsigned long long)l->cfg.setaside_max);
    l->setaside = bytes;
    l->quota = l2_quota_ways(&l->cfg, bytes);
    for (unsigned p = 0; p < l->nparts; p++)
        l->part[p].quota = l->quota;
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

void l2_sets(const struct l2 *l, uint64_t first, unsigned n, uint32_t *set)
{
    if (l->cfg.set_hash != SETHASH_STRIPE) {
        for (unsigned i = 0; i < n; i++)
            set[i] = (uint32_t)(((unsigned __int128)l2_mix64((first + i) ^ l->seed) * l->sets) >> 64);
        return;
    }
    /* consecutive lines take consecutive sets within a run of
     * 2^chunk_shift lines from a hashed start */
    for (unsigned i = 0; i < n; i++) {
        uint64_t line = first + i;
        if (i == 0 || (line >> l->chunk_shift) != ((line - 1) >> l->chunk_shift))
            set[i] = (uint32_t)((line + l2_mix64((line >> l->chunk_shift) ^ ~l->seed)) % l->sets);
        else
            set[i] = set[i - 1] + 1 == l->sets ? 0 : set[i - 1] + 1;
    }
}

/* The access path and its helpers are inlined into both copies of it
 * (l2_access_at), so that the constant layout reaches every operation. */
#define PATH_FN static inline __attribute__((always_inline))

static const uint8_t class_of_prio_fill[L2_NPRIO] = {
    [PRIO_EVICT_FIRST] = CLS_FIRST,      [PRIO_EVICT_NORMAL] = CLS_NORMAL, [PRIO_EVICT_LAST] = CLS_LAST,
    [PRIO_EVICT_UNCHANGED] = CLS_NORMAL, [PRIO_NO_ALLOCATE] = CLS_NORMAL,
};

/* A hit: the line becomes its set's most recently used and takes the class
 * the hint sets (a copy is never evict_last). */
PATH_FN void hit_line(struct l2_cache *c, const struct l2_geom g, uint64_t slot, enum l2_prio prio, int copy)
{
    l2_cache_touch_g(c, g, slot);
    switch (prio) {
    case PRIO_EVICT_FIRST:
        l2_cache_set_cls_g(c, g, slot, CLS_FIRST);
        break;
    case PRIO_EVICT_NORMAL:
        l2_cache_set_cls_g(c, g, slot, CLS_NORMAL);
        break;
    case PRIO_EVICT_LAST:
        l2_cache_set_cls_g(c, g, slot, copy ? CLS_NORMAL : CLS_LAST);
        break;
    default:
        break;
    }
}

/* Chooses a victim in `set` of `c`, writes back its dirty sectors, installs `tag`. */
PATH_FN uint64_t fill_line(struct l2 *l, struct l2_cache *c, const struct l2_geom g, uint32_t set, uint64_t tag,
                           enum l2_class cls, struct l2_outcome *out)
{
    uint64_t slot = l2_cache_victim_g(c, g, set);
    out->dram_wr += (uint32_t)l2_popcount8(*l2_cache_dirty_g(c, g, slot)) << l->sector_shift; /* 0 when empty */
    l2_cache_install_g(c, g, slot, tag, cls);
    return slot;
}

/* Load or prefetch served by the home partition: returns the sectors it had. */
PATH_FN uint8_t home_read(struct l2 *l, struct l2_cache *c, const struct l2_geom g, uint32_t set, uint64_t line,
                          uint8_t need, enum l2_prio prio, struct l2_outcome *out)
{
    int64_t s = l2_cache_find_g(c, g, set, line);
    uint8_t have = 0;
    if (s >= 0) {
        have = *l2_cache_valid_g(c, g, (uint64_t)s) & need;
        hit_line(c, g, (uint64_t)s, prio, 0);
    }
    uint8_t miss = need & (uint8_t)~have;
    if (miss) {
        out->dram_rd += l->dram_bytes[miss];
        if (s < 0)
            out->line_miss |= miss;
        if (prio != PRIO_NO_ALLOCATE) {
            if (s < 0)
                s = (int64_t)fill_line(l, c, g, set, line, (enum l2_class)class_of_prio_fill[prio], out);
            *l2_cache_valid_g(c, g, (uint64_t)s) |= miss;
        }
    }
    return have;
}

void l2_access(struct l2 *l, enum l2_op op, enum l2_prio prio, uint64_t line, uint8_t mask, int sm,
               struct l2_outcome *out)
{
    unsigned home;
    uint32_t set;
    l2_locate(l, line, &home, &set);
    l2_access_at(l, op, prio, line, home, l2_near(l, sm, home), set, mask, out);
}

/* l2_access_at with the partitions' geometry g. */
PATH_FN void access_at(struct l2 *l, const struct l2_geom g, enum l2_op op, enum l2_prio prio, uint64_t line,
                      unsigned home, unsigned near, uint32_t set, uint8_t mask, struct l2_outcome *out)
{
    memset(out, 0, sizeof *out);
    struct l2_cache *hc = &l->part[home];

    switch (op) {
    case OP_READ:
    case OP_PREFETCH: {
        if (near == home) {
            out->hit = out->near_hit = home_read(l, hc, g, set, line, mask, prio, out);
            return;
        }
        struct l2_cache *nc = &l->part[near];
        int64_t s = l2_cache_find_g(nc, g, set, line);
        uint8_t have = 0;
        if (s >= 0) {
            have = *l2_cache_valid_g(nc, g, (uint64_t)s) & mask;
            if (have) {
                hit_line(nc, g, (uint64_t)s, prio, 1);
                int64_t hs = l2_cache_find_g(hc, g, set, line);
                if (hs >= 0) {
                    hit_line(hc, g, (uint64_t)hs, prio, 0);
                }
            }
        }
        out->near_hit = have;
        uint8_t need = mask & (uint8_t)~have;
        out->hit = have;
        if (!need)
            return;
        out->hit |= home_read(l, hc, g, set, line, need, prio, out);
        if (op == OP_READ && l->cfg.far_copy && prio != PRIO_NO_ALLOCATE) {
            if (s < 0)
                s = (int64_t)fill_line(l, nc, g, set, line, prio == PRIO_EVICT_FIRST ? CLS_FIRST : CLS_NORMAL, out);
            *l2_cache_valid_g(nc, g, (uint64_t)s) |= need;
        }
        return;
    }
    case OP_WRITE: {
        /* measured: stored lines are not evicted first (an evict_first
         * store behaves as a normal one) */
        if (prio == PRIO_EVICT_FIRST)
            prio = PRIO_EVICT_NORMAL;
        int64_t s = l2_cache_find_g(hc, g, set, line);
        if (s >= 0) {
            out->hit = *l2_cache_valid_g(hc, g, (uint64_t)s) & mask;
            hit_line(hc, g, (uint64_t)s, prio, 0);
        } else {
            out->line_miss = mask;
            if (prio == PRIO_NO_ALLOCATE)
                out->dram_wr += (uint32_t)l2_popcount8(mask) << l->sector_shift;
            else
                s = (int64_t)fill_line(l, hc, g, set, line, (enum l2_class)class_of_prio_fill[prio], out);
        }
        if (s >= 0) {
            *l2_cache_valid_g(hc, g, (uint64_t)s) |= mask;
            *l2_cache_dirty_g(hc, g, (uint64_t)s) |= mask;
        }
        if (near == home)
            out->near_hit = out->hit;
        for (unsigned p = 0; p < l->nparts; p++) {
            if (p == home)
                continue;
            int64_t c = l2_cache_find_g(&l->part[p], g, set, line);
            if (c >= 0)
                l2_cache_drop_g(&l->part[p], g, (uint64_t)c);
        }
        return;
    }
    case OP_APPLY:
    case OP_DISCARD:
        /* performed where the request goes: the near partition, then home */
        for (unsigned k = 0; k < 2; k++) {
            struct l2_cache *c = &l->part[k ? home : near];
            int64_t slot = l2_cache_find_g(c, g, set, line);
            if (slot >= 0) {
                if (op == OP_DISCARD)
                    l2_cache_drop_g(c, g, (uint64_t)slot);
                else if (l2_cache_cls_g(c, g, (uint64_t)slot) == CLS_LAST)
                    l2_cache_set_cls_g(c, g, (uint64_t)slot, CLS_NORMAL);
            }
            if (near == home)
                break;
        }
        return;
    default:
        return;
    }
}

/* The shipped configurations have 16-way sets: that geometry is a
 * constant of its own copy of the access path; any other takes the
 * generic copy. */
#define L2_USUAL_WAYS 16

void l2_access_at(struct l2 *l, enum l2_op op, enum l2_prio prio, uint64_t line, unsigned home, unsigned near,
                  uint32_t set, uint8_t mask, struct l2_outcome *out)
{
    if (l->part[0].g.ways == L2_USUAL_WAYS)
        access_at(l, l2_geom_of(L2_USUAL_WAYS), op, prio, line, home, near, set, mask, out);
    else
        access_at(l, l->part[0].g, op, prio, line, home, near, set, mask, out);
}

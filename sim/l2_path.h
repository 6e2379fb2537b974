/*
 * l2_path.h - the access path of the L2 (l2_access) as inline functions
 * of the set layout, so that a caller can compile it with a constant
 * layout: every offset and loop bound folds (17% fewer instructions for
 * 16 ways).  l2.c builds l2_access from it; sim.c inlines it into its own
 * per-access loop, compiled once per layout.  See l2.h for the model.
 */
#ifndef L2SIM_L2_PATH_H
#define L2SIM_L2_PATH_H

#include <string.h>

#include "cache.h"
#include "l2.h"
#include "policy.h"

#define L2_PATH_FN static inline __attribute__((always_inline))

/* The shipped configurations have 16-way sets: sim.c compiles the path
 * once with that layout as a constant and once with the partitions' own. */
#define L2_USUAL_WAYS 16

static const uint8_t l2_path_class_of_prio_fill[L2_NPRIO] = {
    [PRIO_EVICT_FIRST] = CLS_FIRST,      [PRIO_EVICT_NORMAL] = CLS_NORMAL, [PRIO_EVICT_LAST] = CLS_LAST,
    [PRIO_EVICT_UNCHANGED] = CLS_NORMAL, [PRIO_NO_ALLOCATE] = CLS_NORMAL,
};

/* A hit on way w of block b in a set of cache c: the line becomes its
 * set's most recently used (unless touch is 0) and takes the class the
 * hint sets (a copy is never evict_last), except that an evict_first hit
 * leaves a protected evict_last line evict_last (measured: a hot
 * evict_last set read by warps whose hint is evict_first keeps as much as
 * under evict_unchanged at the maximum set-aside, Z08 and Z09, and loses
 * as much as under evict_normal at set-aside 0, Z02 and Z03).  An
 * evict_last line that stays so becomes its set-aside's most recently
 * used too (with touch). */
L2_PATH_FN void l2_path_hit_line(const struct l2_cache *c, const struct l2_geom g, unsigned char *b, unsigned w,
                                 enum l2_prio prio, int copy, int touch)
{
    if (touch)
        l2_blk_touch(g, b, w);
    const int last = l2_blk_cls(g, b, w) == CLS_LAST;
    switch (prio) {
    case PRIO_EVICT_FIRST:
        if (!last || !l2_blk_last_protected(c, g, b))
            l2_blk_set_cls(c, g, b, w, CLS_FIRST);
        break;
    case PRIO_EVICT_NORMAL:
        l2_blk_set_cls(c, g, b, w, CLS_NORMAL);
        break;
    case PRIO_EVICT_LAST:
        l2_blk_set_cls(c, g, b, w, copy ? CLS_NORMAL : CLS_LAST);
        break;
    default:
        break;
    }
    if (touch && last && l2_blk_cls(g, b, w) == CLS_LAST)
        l2_cache_last_in(c, l2_blk_set(c, g, b), w, 0);
}

/* The bytes of way w's dirty sectors (0 when it is clean or empty). */
L2_PATH_FN uint32_t l2_path_dirty_bytes(const struct l2 *l, const struct l2_geom g, unsigned char *b, unsigned w)
{
    return (uint32_t)l2_popcount8(*l2_blk_dirty(g, b, w)) << l->sector_shift;
}

/* The bytes written back to DRAM for way w of block b of cache c, which
 * holds written data, by a reprieve (written_reprieve_pct) or dirty_ways:
 * its dirty sectors, but none for a copy (a copy's dirty sectors are those
 * a store wrote into it; its home line writes them back). */
static uint32_t l2_path_written_back(const struct l2 *l, const struct l2_cache *c, const struct l2_geom g,
                                           unsigned char *b, unsigned w)
{
    return l2_home(l, l2_blk_tag(g, b, w)) == (unsigned)(c - l->part) ? l2_path_dirty_bytes(l, g, b, w) : 0;
}

/* Way w of block b, which a reprieve may have left owing DRAM the written
 * sectors it kept (l2_path_reprieve), writes them back now. */
L2_PATH_FN void l2_path_pay_owed(const struct l2 *l, const struct l2_geom g, unsigned char *b, unsigned w,
                                 struct l2_outcome *out)
{
    const unsigned owed = l2_blk_owed(g, b, w);
    if (owed) {
        out->dram_wr += owed << l->sector_shift;
        l2_blk_set_owed(g, b, w, 0);
    }
}

/* Way w of block b (cache c), which holds `line`, takes the written
 * sectors `mask`; a line a reprieve left owing DRAM its earlier written
 * sectors writes them back now.  When that makes one more way of the set
 * hold written data: with written_reprieve_pct, the line earns the reprieve if the hash
 * picks it (l2_reprieved) and the set now holds at least reprieve_min_ways
 * written ways; with dirty_ways, if the set now holds more than dirty_cap
 * of them (dirty_ways, at most the ways outside the set-aside less
 * dirty_gap_ways), the least recently used of the others is written back
 * and stays, clean. */
L2_PATH_FN void l2_path_mark_written(const struct l2 *l, const struct l2_cache *c, const struct l2_geom g,
                                     unsigned char *b, unsigned w, uint64_t line, uint8_t mask,
                                     struct l2_outcome *out)
{
    uint8_t *dirty = l2_blk_dirty(g, b, w);
    const uint8_t was = *dirty;
    *dirty |= mask;
    if (was || !(l->dirty_cap || l->reprieve_cut))
        return;
    const uint32_t ways = l2_blk_dirty_ways(g, b);
    const uint32_t n = (uint32_t)l2_popcount32(ways);
    if (l->reprieve_cut) {
        l2_path_pay_owed(l, g, b, w, out);
        l2_blk_set_earned(g, b, w, n >= l->cfg.reprieve_min_ways && l2_reprieved(l, line));
    }
    if (!l->dirty_cap || n <= l->dirty_cap)
        return;
    const unsigned old = l2_cache_lru(g, b + g.off_rank, ways & ~(UINT32_C(1) << w));
    out->dram_wr += l2_path_written_back(l, c, g, b, old);
    b[g.off_dirty + old] = 0;
}

/* Whether way w of block b earned a reprieve it can still have: it holds
 * written data, or a reprieve kept it owing its write-back and
 * reprieve_again_pct may keep it once more (l2_path_reprieve). */
L2_PATH_FN int l2_path_keeps(const struct l2 *l, const struct l2_geom g, const unsigned char *b, unsigned w)
{
    return (b[g.off_dirty + w] || (l->again_cut && l2_blk_owed(g, b, w))) && l2_blk_earned(g, b, w);
}

/* A home line of cache c that a reprieve keeps, clean (l2_path_reprieve),
 * with reprieve_empty_copy: its copies in the other partitions (set
 * `set`) lose their sectors but keep their ways, their age and their
 * written marks, so that they take the same room and a load finds one
 * empty and is served at home, far (measured: stored data read back
 * after other reads finds about half its hits far, its home lines kept
 * and its copies not, while until then it takes as much room from a
 * working set as before: near hits of B64, H289, H292, H295, H296, H300,
 * H301 on the H200 within 1.2-6.6 points, 8.6-18.7 without;
 * near-partition rate of the H200's 140 rows with stores 6.36 -> 4.57
 * points, the H100's 6.25 -> 4.93; their hit rates 2.58 and 2.10 ->
 * 2.13).  Cold: the cache's own geometry. */
static __attribute__((noinline, cold)) void l2_path_empty_copies(const struct l2 *l, const struct l2_cache *c,
                                                                  uint32_t set, uint64_t line)
{
    for (unsigned p = 0; p < l->nparts; p++) {
        const int64_t slot = &l->part[p] == c ? -1 : l2_cache_find(&l->part[p], set, line);
        if (slot >= 0)
            *l2_cache_valid(&l->part[p], (uint64_t)slot) = 0;
    }
}

/* written_reprieve_pct > 0: victim w holds written data (a dirty line, or
 * a copy a store wrote), or is a home line a reprieve kept that still owes
 * its write-back.  While the victim's written data earned the reprieve
 * (l2_path_mark_written), it stays, as its set's most recent line, clean,
 * and the fill takes the next victim (every way tried at most once); a
 * line kept this way keeps the mark, for one more reprieve while it owes
 * its write-back, only if l2_reprieved_again picks it.  A reprieved
 * line's write-back is not counted now but when the line leaves, is
 * stored to again or is read at home (it owes its written sectors,
 * l2_blk_owed): measured, DRAM writes of loads after stores,
 * H165-H184 (7.9 and 10.3 MB from the GPU's when counted here, 2.3 and 2.9
 * at leaving or the next store), and stored data read back, H185-H200
 * (5.1 and 6.7 MB then, 2.4 and 2.9 with the reads).  Returns the victim;
 * its write-back is counted, a copy's as none. */
static __attribute__((noinline)) unsigned l2_path_reprieve(const struct l2 *l, const struct l2_cache *c,
                                                            const struct l2_geom g, uint32_t set, unsigned char *b,
                                                            uint64_t tag, enum l2_class cls, int sfirst, unsigned w,
                                                            struct l2_outcome *out)
{
    for (unsigned k = 0; k < g.ways && l2_path_keeps(l, g, b, w); k++) {
        if (!b[g.off_dirty + w]) { /* kept before: the last time */
            l2_blk_set_earned(g, b, w, 0);
        } else {
            const uint32_t owed = l2_path_written_back(l, c, g, b, w) >> l->sector_shift;
            if (l->cfg.reprieve_empty_copy && owed) /* a home line's */
                l2_path_empty_copies(l, c, set, l2_blk_tag(g, b, w));
            l2_blk_set_owed(g, b, w, owed);
            if (!l2_reprieved_again(l, l2_blk_tag(g, b, w)))
                l2_blk_set_earned(g, b, w, 0);
            b[g.off_dirty + w] = 0;
        }
        l2_blk_touch(g, b, w);
        w = l2_blk_victim(c, g, set, b, cls, sfirst, tag);
    }
    if (b[g.off_dirty + w])
        out->dram_wr += l2_path_written_back(l, c, g, b, w);
    return w;
}

/* Chooses a victim in `set` of `c` (block b) for a fill (sfirst: an
 * evict_first store's, see l2_blk_victim), writes back its dirty sectors,
 * installs `tag`; returns its way.  With written_reprieve_pct a victim
 * whose written data earned the reprieve (l2_path_mark_written) stays, as
 * its set's most recent line, clean (owing its write-back), and the fill
 * takes the next victim (measured: a working set read after stores
 * keeps less than after loads, the stored lines outlast it, a third read
 * finds it whole, and a small working set keeps all of it: rows B33-B57;
 * a few stored lines cost it less than their share: B74-B78). */
L2_PATH_FN unsigned l2_path_fill_line(struct l2 *l, const struct l2_cache *c, const struct l2_geom g, uint32_t set,
                                      unsigned char *b, uint64_t tag, enum l2_class cls, int sfirst,
                                      struct l2_outcome *out)
{
    unsigned w = l2_blk_victim(c, g, set, b, cls, sfirst, tag);
    if (!l->reprieve_cut) {
        out->dram_wr += l2_path_dirty_bytes(l, g, b, w);
    } else {
        if (*l2_blk_dirty(g, b, w) || l2_path_keeps(l, g, b, w)) /* written (copies too), or kept owing */
            w = l2_path_reprieve(l, c, g, set, b, tag, cls, sfirst, w, out);
        out->dram_wr += l2_blk_owed(g, b, w) << l->sector_shift; /* reprieved before */
    }
    l2_blk_install(c, g, b, w, tag, cls);
    return w;
}

/* The copy of `line` in a partition other than its home (cache nc, block
 * nb, way w; w < 0: absent, filled with class cls) gets sectors `bits`;
 * returns its way. */
L2_PATH_FN unsigned l2_path_copy(struct l2 *l, const struct l2_cache *nc, const struct l2_geom g, uint32_t set,
                                 unsigned char *nb, int w, uint64_t line, enum l2_class cls, uint8_t bits,
                                 struct l2_outcome *out)
{
    if (w < 0)
        w = (int)l2_path_fill_line(l, nc, g, set, nb, line, cls, 0, out);
    *l2_blk_valid(g, nb, (unsigned)w) |= bits;
    return (unsigned)w;
}

/* Load or prefetch served by the home partition (c, block b): returns the
 * sectors it had; touch 0: a line found stays as old as it was.  A line
 * found that a reprieve left owing its write-back writes it back now
 * (measured: stored data read back, rows H185-H200). */
L2_PATH_FN uint8_t l2_path_home_read(struct l2 *l, const struct l2_cache *c, const struct l2_geom g, uint32_t set,
                                     unsigned char *b, uint64_t line, uint8_t need, enum l2_prio prio,
                                     int touch, struct l2_outcome *out)
{
    int w = l2_blk_find(g, b, line);
    uint8_t have = 0;
    if (w >= 0) {
        have = *l2_blk_valid(g, b, (unsigned)w) & need;
        l2_path_hit_line(c, g, b, (unsigned)w, prio, 0, touch);
        l2_path_pay_owed(l, g, b, (unsigned)w, out);
    }
    uint8_t miss = need & (uint8_t)~have;
    if (miss) {
        /* DRAM reads whole dram_atom granules, and all of each is filled */
        out->dram_rd += l->dram_bytes[miss];
        if (w < 0)
            out->line_miss |= miss;
        if (prio != PRIO_NO_ALLOCATE) {
            if (w < 0)
                w = (int)l2_path_fill_line(l, c, g, set, b, line,
                                           (enum l2_class)l2_path_class_of_prio_fill[prio], 0, out);
            *l2_blk_valid(g, b, (unsigned)w) |= l->fill_mask[miss];
        }
    }
    return have;
}

/* One operation on a located line (l2_access): its home partition and
 * set, and the issuing SM's near partition, with the partitions' layout g;
 * part: the sectors of `mask` a store writes only in part of their bytes. */
L2_PATH_FN void l2_path_access(struct l2 *l, const struct l2_geom g, enum l2_op op, enum l2_prio prio, uint64_t line,
                               unsigned home, unsigned near, uint32_t set, uint8_t mask, uint8_t part,
                               struct l2_outcome *out)
{
    memset(out, 0, sizeof *out);
    const struct l2_cache *hc = &l->part[home];
    unsigned char *hb = l2_set_base_g(hc, g, set);

    switch (op) {
    case OP_READ:
    case OP_PREFETCH: {
        if (near == home) {
            out->hit = out->near_hit = l2_path_home_read(l, hc, g, set, hb, line, mask, prio, 1, out);
            return;
        }
        const struct l2_cache *nc = &l->part[near];
        unsigned char *nb = l2_set_base_g(nc, g, set);
        int w = l2_blk_find(g, nb, line);
        uint8_t have = 0;
        if (w >= 0) {
            /* a lookup that finds the copy refreshes it, also when it
             * lacks the sectors asked for (they are moved into it below):
             * gathers of single sectors near capacity, G03, G04, I19 */
            have = *l2_blk_valid(g, nb, (unsigned)w) & mask;
            l2_path_hit_line(nc, g, nb, (unsigned)w, prio, 1, 1);
        }
        out->near_hit = have;
        uint8_t need = mask & (uint8_t)~have;
        out->hit = have;
        if (!need) {
            /* a near hit refreshes the home line of near_refresh_pct of
             * the lines (home_read does, when sectors remain to be read):
             * measured 30 on the H100 and the H200, rows H41-H52 */
            int hw = l2_blk_find(g, hb, line);
            if (hw >= 0)
                l2_path_hit_line(hc, g, hb, (unsigned)hw, prio, 0, l2_near_refreshes(l, line));
            return;
        }
        /* between partitions data moves in dram_atom granules: the home
         * partition serves (and reads from DRAM if it lacks them) whole
         * granules, and the copy keeps them (measured, rows G03-G08) */
        uint8_t move = l->fill_mask[need];
        /* a request for part of the line refreshes the home line only with
         * far_part_refresh (measured 0 on the H100 and the H200: gathers of
         * sectors, rows G16-G32, Z13-Z15) */
        const int touch = l->cfg.far_part_refresh || move == l->full;
        out->hit |= l2_path_home_read(l, hc, g, set, hb, line, move, prio, touch, out) & need;
        out->line_miss &= need;
        if (op == OP_READ && l->cfg.far_copy && prio != PRIO_NO_ALLOCATE)
            l2_path_copy(l, nc, g, set, nb, w, line, prio == PRIO_EVICT_FIRST ? CLS_FIRST : CLS_NORMAL, move, out);
        return;
    }
    case OP_WRITE: {
        /* a plain store leaves the line near too (measured: stored data
         * is read back near, rows N28, N31, N34, S01; a discard from the
         * home side leaves it there, N44); an evict_first one does not
         * (N29, N33) */
        int copy = near != home && l->cfg.store_copy && prio != PRIO_EVICT_FIRST && prio != PRIO_NO_ALLOCATE;
        /* measured: stored lines are not evicted first (an evict_first
         * store behaves as a normal one, N29, N33), except that a set
         * keeps only sfirst_ways of the lines evict_first stores wrote: an
         * evict_first store beyond them replaces the oldest (S05: 34 MiB
         * stored keeps 63% of it, where a plain store keeps 91%, S02) */
        int sfirst = prio == PRIO_EVICT_FIRST;
        if (sfirst)
            prio = PRIO_EVICT_NORMAL;
        int w = l2_blk_find(g, hb, line);
        if (w >= 0) {
            out->hit = *l2_blk_valid(g, hb, (unsigned)w) & mask;
            l2_path_hit_line(hc, g, hb, (unsigned)w, prio, 0, 1);
        } else {
            out->line_miss = mask;
            if (prio == PRIO_NO_ALLOCATE)
                out->dram_wr += (uint32_t)l2_popcount8(mask) << l->sector_shift;
            else
                w = (int)l2_path_fill_line(l, hc, g, set, hb, line,
                                           (enum l2_class)l2_path_class_of_prio_fill[prio], sfirst, out);
        }
        if (w >= 0) {
            /* with partial_write_fill, sectors written in part that the
             * line lacks are read from DRAM first, sector by sector
             * (measured on the H200: tools/validate/torch_partial.py) */
            const uint8_t fill = part & (uint8_t)~*l2_blk_valid(g, hb, (unsigned)w);
            if (fill)
                out->dram_rd += (uint32_t)l2_popcount8(fill) << l->sector_shift;
            *l2_blk_valid(g, hb, (unsigned)w) |= mask;
            if (sfirst)
                l2_blk_mark_sfirst(hc, g, hb, (unsigned)w);
            l2_path_mark_written(l, hc, g, hb, (unsigned)w, line, mask, out);
        }
        if (near == home)
            out->near_hit = out->hit;
        if (copy) {
            const struct l2_cache *nc = &l->part[near];
            unsigned char *nb = l2_set_base_g(nc, g, set);
            int cw = l2_blk_find(g, nb, line);
            if (cw >= 0) {
                out->near_hit = *l2_blk_valid(g, nb, (unsigned)cw) & mask;
                l2_path_hit_line(nc, g, nb, (unsigned)cw, prio, 1, 1);
            }
            cw = (int)l2_path_copy(l, nc, g, set, nb, cw, line, CLS_NORMAL, mask, out);
            if (l->cfg.written_reprieve_pct) /* the copy holds written data (never written back) */
                l2_path_mark_written(l, nc, g, nb, (unsigned)cw, line, mask, out);
        }
        for (unsigned p = 0; p < l->nparts; p++) {
            if (p == home || (copy && p == near))
                continue;
            unsigned char *pb = l2_set_base_g(&l->part[p], g, set);
            int c = l2_blk_find(g, pb, line);
            if (c >= 0)
                l2_blk_drop(&l->part[p], g, pb, (unsigned)c);
        }
        return;
    }
    case OP_APPLY:
    case OP_DISCARD:
        /* performed where the request goes: the near partition, then home */
        for (unsigned k = 0; k < 2; k++) {
            const struct l2_cache *pc = k ? hc : &l->part[near];
            unsigned char *pb = k ? hb : l2_set_base_g(pc, g, set);
            int w = l2_blk_find(g, pb, line);
            if (w >= 0) {
                if (op == OP_DISCARD)
                    l2_blk_drop(pc, g, pb, (unsigned)w);
                else if (l2_blk_cls(g, pb, (unsigned)w) == CLS_LAST)
                    l2_blk_set_cls(pc, g, pb, (unsigned)w, CLS_NORMAL);
            }
            if (near == home)
                break;
        }
        return;
    default:
        return;
    }
}

#endif

/*
 * l2.h - the L2 system: partitions, home and near partitions, far copies,
 * set-aside quota, DRAM traffic.
 *
 * Notes (modelling assumptions; see README "Cache model"):
 *  - The L2 is `partitions` tag arrays (struct l2_cache) of equal size.
 *    Each line address has a home partition (home_hash: a seeded hash of
 *    the line, or `balanced`: the lines of a set split evenly, l2_home)
 *    and a set index (set_hash: the same hash, or `stripe`: consecutive
 *    lines in consecutive sets within hash_chunk runs that start at a
 *    hashed set); a line uses the same set index in every partition.
 *  - An access is issued by SM `sm`; its near partition is sm_part(sm).
 *    An access without an SM goes to the home partition directly.
 *  - Loads: the near partition is looked up first.  Sectors it lacks are
 *    looked up in the home partition; sectors the home partition lacks are
 *    read from DRAM and filled at home.  With far_copy = 1, a load whose
 *    near partition is not the home leaves the line's sectors in the near
 *    partition too (a copy: never written back, class evict_first for
 *    evict_first loads and normal otherwise).  A near hit also sets the
 *    home line's class as a hit at home would, and refreshes its recency
 *    for near_refresh_pct percent of the lines (a hash; the others' home
 *    lines stay as old as they were).
 *    A request the near partition sends home refreshes the home line too,
 *    unless far_part_refresh = 0 and it asks for part of the line only
 *    (its class is set all the same).
 *  - Stores: write-allocate at sector granularity in the home partition
 *    (sectors become valid and dirty; no DRAM read, but with
 *    partial_write_fill = 1 for a sector the store writes only in part
 *    and the home line lacks: it is read first, sector_size bytes).  With store_copy = 1,
 *    a store whose near partition is not the home also writes the
 *    sectors into a copy there (class normal), unless it is
 *    evict_first or no_allocate; copies in other partitions are dropped.
 *    no_allocate stores that miss write through to DRAM.  An evict_first
 *    store acts as a normal one at home (measured: written lines are not
 *    evicted first).  With written_reprieve_pct > 0 the copy is marked
 *    written (its dirty mask, never written back), and a fill whose victim
 *    holds written data that earned the reprieve keeps it, clean, as its
 *    set's most recent line, taking the next victim (l2_path_fill_line);
 *    the kept line's write-back (a home line's) is counted when it leaves,
 *    is stored to again or is read at home, not at the reprieve; with
 *    reprieve_empty_copy = 1 its copies in other partitions lose
 *    their sectors but keep their ways and age (a load that finds one
 *    empty is served at home and fills it).  A line earns it when a store makes
 *    it written (from clean), if it is one of the written_reprieve_pct
 *    percent of lines that a hash picks (l2_reprieved) and its set then
 *    holds at least reprieve_min_ways written ways.  A kept home line
 *    that still owes its write-back when a fill meets it as the victim
 *    again is kept once more if it is one of the reprieve_again_pct
 *    percent that another hash picks (l2_reprieved_again; measured:
 *    36 MiB read three times after 96 MiB of stores keeps 72.05%, what
 *    two reads keep without them, 72.33%, rows B93 and N17; chosen on the
 *    B rows, predicted H201-H232).  With dirty_ways > 0
 *    a store that leaves more than dirty_ways ways of its set holding
 *    written data, or more than the ways outside a set-aside less
 *    dirty_gap_ways, writes back the least recently used of the others,
 *    which stays, clean (l2_path_mark_written; a copy's mark ends without
 *    a write-back; measured: at the largest set-aside, 6 ways outside it,
 *    20 MiB stored again is written back whole, at set-aside 0 none of
 *    it, rows H101, H102, H113, H114, and c of c = a + b too, H85).
 *  - Prefetch fills the home partition only.  applypriority (demote
 *    evict_last to normal) and discard (drop without write-back) act where
 *    the request goes: the issuing SM's near partition and the home
 *    partition; copies in other partitions stay.
 *  - Priority classes on a hit: evict_first, evict_normal and evict_last
 *    set the class (evict_normal demotes evict_last); evict_unchanged and
 *    no_allocate leave it.  Fills: evict_last fills LAST, evict_first fills
 *    FIRST, everything else NORMAL.  no_allocate never fills.
 *  - The set-aside becomes a quota of evict_last ways,
 *    ceil(setaside / (l2_size / ways)), counted over groups of quota_sets
 *    sets and queued, oldest first, over groups of queue_sets (cache.h);
 *    at set-aside 0, setaside_floor_ways in each set.
 *  - DRAM: a missing sector costs the dram_atom granules it overlaps (a
 *    sector a store writes in part, partial_write_fill: the sector alone);
 *    an evicted line's dirty sectors are written back (sector_size each).
 */
#ifndef L2SIM_L2_H
#define L2SIM_L2_H

#include <stdint.h>

#include "cache.h"
#include "config.h"
#include "policy.h"

struct l2_outcome {
    uint8_t hit;       /* sectors found in L2 (near or home) */
    uint8_t near_hit;  /* sectors found in the near partition */
    uint8_t line_miss; /* missed sectors whose line was absent from its home */
    uint32_t dram_rd;  /* bytes */
    uint32_t dram_wr;  /* bytes */
};

struct l2 {
    struct l2_config cfg;
    unsigned nparts;
    struct l2_cache *part;
    unsigned line_shift, sector_shift, sectors;
    uint32_t sets; /* per partition */
    uint64_t seed;
    unsigned chunk_shift; /* set_hash = stripe: log2(lines per run) */
    uint64_t block_mask;  /* set_hash = stripe: lines per hash_block, less one (0: no rotation) */
    uint32_t quota;
    uint64_t setaside;
    uint32_t room;            /* ways outside the set-aside (all of them without one; at least 1) */
    uint32_t dirty_cap;       /* written ways a set may hold: dirty_ways, at most room - dirty_gap_ways (0: no limit) */
    uint16_t *sm_part; /* cfg.sms entries */
    uint16_t dram_bytes[256]; /* DRAM read bytes by missing-sector mask */
    uint8_t fill_mask[256];   /* sectors a read of a missing-sector mask fills: its dram_atom granules */
    uint8_t full;             /* the mask of all sectors of a line */
    uint64_t reprieve_cut;    /* l2_reprieved: written_reprieve_pct percent of 2^32 */
    uint64_t again_cut;       /* l2_reprieved_again: reprieve_again_pct percent of 2^32 */
    uint64_t refresh_cut;     /* l2_near_refreshes: near_refresh_pct percent of 2^32 */
};

int l2_init(struct l2 *l, const struct l2_config *cfg, l2_err *e);
void l2_free(struct l2 *l);
/* Empties the cache and restores the configured set-aside. */
void l2_clear(struct l2 *l);
/* cudaLimitPersistingL2CacheSize; bytes must not exceed setaside_max.  Sets
 * the quota and, with first_share, the evict_first cap (first_ways). */
int l2_set_setaside(struct l2 *l, uint64_t bytes, l2_err *e);
/* Quota in ways for a set-aside. */
uint32_t l2_quota_ways(const struct l2_config *c, uint64_t bytes);
/* cudaCtxResetPersistingL2Cache: every evict_last line becomes normal. */
void l2_reset_persisting(struct l2 *l);

/* One operation on the sectors `mask` of line `line` (byte address >>
 * line_shift), by SM `sm` (-1: none).  The simulator's own loop inlines
 * the same path (l2_path.h). */
void l2_access(struct l2 *l, enum l2_op op, enum l2_prio prio, uint64_t line, uint8_t mask, int sm,
               struct l2_outcome *out);

/* Home partition and set of a line. */
void l2_locate(const struct l2 *l, uint64_t line, unsigned *home, uint32_t *set);
/* Sets of the n consecutive lines from `first` (cheaper than n l2_locate). */
void l2_sets(const struct l2 *l, uint64_t first, unsigned n, uint32_t *set);
/* Their home partitions (cheaper than n l2_home). */
void l2_homes(const struct l2 *l, uint64_t first, unsigned n, unsigned *home);

/* The home partition of a line with home_hash = mix: a seeded hash of it. */
static inline unsigned l2_home_mixed(const struct l2 *l, uint64_t line)
{
    return (unsigned)(((l2_mix64(line ^ l->seed) & 0xffffffffu) * l->nparts) >> 32);
}

/* Whether `line` is among a share cut / 2^32 of the lines that a hash of
 * it, salted by `salt` apart from the home's, the set's and the other
 * shares', picks: which lines they are does not follow where they live. */
static inline int l2_line_picked(const struct l2 *l, uint64_t line, uint64_t salt, uint64_t cut)
{
    return (l2_mix64(line ^ l->seed ^ salt) >> 32) < cut;
}

/* Whether a line holding written data is one of the written_reprieve_pct
 * percent that get a reprieve as a fill's victim (l2_path_fill_line). */
static inline int l2_reprieved(const struct l2 *l, uint64_t line)
{
    return l2_line_picked(l, line, 0x2545f4914f6cdd1dULL, l->reprieve_cut);
}

/* Whether a line that a reprieve kept is one of the reprieve_again_pct
 * percent kept once more (l2_path_reprieve). */
static inline int l2_reprieved_again(const struct l2 *l, uint64_t line)
{
    return l2_line_picked(l, line, 0x9e3779b97f4a7c15ULL, l->again_cut);
}

/* Whether a load of `line` that its copy in the near partition serves
 * whole makes the home line most recent: near_refresh_pct percent of the
 * lines. */
static inline int l2_near_refreshes(const struct l2 *l, uint64_t line)
{
    return l2_line_picked(l, line, 0x6a09e667f3bcc909ULL, l->refresh_cut);
}

/* The rotation of the lines of the hash_block block that starts at line
 * `block` (l2_striped). */
static inline uint64_t l2_block_turn(const struct l2 *l, uint64_t block)
{
    return l2_mix64(block ^ l->seed ^ 0x3c6ef372fe94f82bULL) & l->block_mask;
}

/* `line` rotated within its hash_block block by `turn`. */
static inline uint64_t l2_turned(const struct l2 *l, uint64_t line, uint64_t turn)
{
    return (line & ~l->block_mask) | ((line + turn) & l->block_mask);
}

/* The place of `line` in the stripes of set_hash = stripe: with
 * hash_block, the lines of each aligned block of it rotated by a hash of
 * the block (measured: binary searches, whose lines lie powers of two
 * apart, find as few conflicts as hashed sets give and the stripes alone
 * do not, tools/validate/results/search-h200/).  A block's lines keep
 * their places in the block as a whole, so contiguous data still takes
 * every set alike. */
static inline uint64_t l2_striped(const struct l2 *l, uint64_t line)
{
    return l->block_mask ? l2_turned(l, line, l2_block_turn(l, line & ~l->block_mask)) : line;
}

/* Home partition of a line (home_hash): mix, a hash of the line; balanced,
 * the lines L, L + sets, ..., L + (nparts - 1) x sets (L a multiple of
 * nparts x sets, plus less than sets, L the line's place in the stripes,
 * l2_striped) take the partitions in turn from a hash of L, so that of the
 * lines of a set (set_hash = stripe: lines sets apart share a set within
 * a run) each partition homes as many, give or take one. */
static inline unsigned l2_home(const struct l2 *l, uint64_t line)
{
    if (l->cfg.home_hash != HOMEHASH_BALANCED)
        return l2_home_mixed(l, line);
    line = l2_striped(l, line);
    const uint64_t span = (uint64_t)l->sets * l->nparts, r = line % span;
    const unsigned turn = (unsigned)(r / l->sets);
    return (l2_home_mixed(l, line - turn * (uint64_t)l->sets) + turn) % l->nparts;
}

/* Near partition of an SM (-1: none, the home partition). */
static inline unsigned l2_near(const struct l2 *l, int sm, unsigned home)
{
    return sm >= 0 ? l->sm_part[sm] : home;
}

#endif

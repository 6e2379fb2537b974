/*
 * cache.h - one set-associative, sectored tag array with L2 eviction
 * priority classes (one L2 partition).
 *
 * Notes (modelling assumptions):
 *  - Lines are tracked by line address (byte address >> line shift); a way
 *    holds a line tag, a valid-sector mask, a dirty-sector mask, a priority
 *    class and its place in the set's recency order.  All arrays are
 *    allocated once; nothing is allocated per access.
 *  - Priority classes: FIRST (evict_first), NORMAL, LAST (evict_last).
 *  - Victim choice in a full set: an invalid way if any; else, for a
 *    NORMAL or LAST fill, the least recently used FIRST line; for a FIRST
 *    fill, once the set holds first_ways FIRST lines, the least recently
 *    used FIRST line (so a stream of evict_first fills cycles through
 *    first_ways ways of each set), except that below first_max a share
 *    first_grow / 2^16 of the lines (a hash of the line) takes the least
 *    recently used NORMAL line instead (the stream's ways grow slowly);
 *    else the least recently used of the NORMAL and FIRST lines; else the
 *    least recently used LAST line.
 *  - A set-aside holds the LAST lines, counted over two sizes of groups
 *    of consecutive sets: a quota group of 2^cshift sets and a queue
 *    group of 2^qshift (larger) each hold quota (the set-aside in ways)
 *    x their sets of them.  A line that becomes LAST in a quota group
 *    beyond that, or in a queue group beyond that, demotes the queue
 *    group's least recently used LAST line to NORMAL (measured on the
 *    H100: of persisting data larger than the set-aside, a normal stream
 *    leaves the set-aside's size, the oldest lines going first, and of
 *    two persisting buffers the later one whole; but data about the
 *    set-aside's size keeps up to 1 MiB less, what quota groups that its
 *    lines fill unevenly lose; calibration/h100/fidelity.md).  Without a set-aside
 *    (fifo 0) the quota is the floor, per set: a set holding more LAST
 *    lines than that lets them compete like normal ones (measured: 2 and
 *    4 MiB of persisting data at set-aside 0 lose what per-set counts
 *    predict, P60 and P61).
 *  - Lines an evict_first store wrote are NORMAL lines, marked: a group of
 *    sets keeps sfirst_ways + sfirst_frac / 2^16 of them a set; an
 *    evict_first store that misses in a full set of a group holding that
 *    many replaces the least recently used of them in its set.  Any hint
 *    on a later access (or the line's eviction) ends the mark.
 *  - Every lookup that finds the line makes it the most recently used
 *    (but a request for part of a line from the other partition, with
 *    far_part_refresh = 0: l2.h).
 *  - The cache itself knows nothing of DRAM: callers read the evicted
 *    line's dirty mask before installing a new one.
 *
 * Layout (for speed; the model does not depend on it): each set is one
 * block of whole 64-byte host cache lines (three for 16 ways), a structure
 * of arrays over its ways (padded to a multiple of 4): the low 32 bits of
 * every tag (searched 8 ways per instruction with AVX2, 4 with SSE2), the high 32 bits, the
 * recency ranks (one byte per way, padded to a multiple of 16: the ways'
 * ranks are a permutation of 0..ways-1, ways-1 the most recently used, so
 * a use moves one way to the top and the ways above it down one), the
 * valid and dirty masks, then bit masks of the set's occupied, FIRST,
 * LAST and evict_first-stored ways.  The access path finds a set's block
 * once and works on its ways by number (l2_blk_*); elsewhere a way is
 * named by its slot, set << L2_WAY_BITS | way.
 *
 * The layout follows from the ways alone (struct l2_geom).  The
 * operations exist in three forms: l2_cache_find(c, ...) and the like use
 * the cache's own geometry; l2_cache_find_g(c, g, ...) take it as an
 * argument, and l2_blk_find(g, block, ...) a set's block as well, so that
 * the access path (l2_path.h) can pass a constant one for the usual
 * associativity and let the compiler fold every offset and loop bound,
 * and find each block once per line (a store to a byte of a set may alias
 * anything, so a block recomputed from a slot is recomputed each time).
 */
#ifndef L2SIM_CACHE_H
#define L2SIM_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "common.h"

#if defined(__SSE2__) && !defined(L2SIM_NO_SIMD)
#include <emmintrin.h>
#define L2_CACHE_SSE2 1
#ifdef __AVX2__
#include <immintrin.h>
#endif
#endif

enum l2_class { CLS_FIRST, CLS_NORMAL, CLS_LAST, L2_NCLASS };

#define L2_TAG_NONE UINT64_MAX
#define L2_TAG_STALE_HI UINT32_C(0x7ffffff) /* the high tag word of a stale line (l2_cache_fill_stale) */
#define L2_WAY_BITS 5 /* ways <= 32 */
/* Flags in a way's high tag word, which no tag uses (lines are below 2^59:
 * line_size >= 32); l2_blk_find and l2_blk_tag mask them.  The top bit:
 * its written data earned the reprieve (l2_path_mark_written).  Bits
 * 27-30: the written sectors a reprieve kept (the line clean since), whose
 * write-back reaches DRAM when the line leaves, is stored to again or is
 * read at home (l2_path_reprieve; at most 8 sectors a line). */
#define L2_HI_EARNED (UINT32_C(1) << 31)
#define L2_HI_OWED_SHIFT 27
#define L2_HI_OWED (UINT32_C(15) << L2_HI_OWED_SHIFT)
#define L2_HI_FLAGS (L2_HI_EARNED | L2_HI_OWED)

/* The bit masks that end a set's block. */
struct l2_set_meta {
    uint32_t occ;   /* ways holding a line */
    uint32_t first; /* ... of class FIRST */
    uint32_t last;  /* ... of class LAST (the rest are NORMAL) */
    uint32_t sfirst; /* ways an evict_first store wrote, not hinted since (class NORMAL) */
};

/* The layout of a set's block (offsets in bytes; low tags at 0). */
struct l2_geom {
    uint32_t ways;
    uint32_t wpad; /* ways rounded up to a multiple of 4 */
    uint32_t rpad; /* ways rounded up to a multiple of 16 (the ranks) */
    uint32_t all;  /* mask of the ways */
    uint32_t off_hi, off_rank, off_valid, off_dirty, off_meta;
    uint32_t set_bytes; /* one set's block: whole 64-byte host lines */
};

static inline struct l2_geom l2_geom_of(uint32_t ways)
{
    struct l2_geom g;
    g.ways = ways;
    g.wpad = (ways + 3) & ~3u;
    g.rpad = (ways + 15) & ~15u;
    g.all = ways >= 32 ? UINT32_MAX : (UINT32_C(1) << ways) - 1;
    g.off_hi = 4 * g.wpad;
    g.off_rank = 8 * g.wpad; /* a multiple of 16 */
    g.off_valid = g.off_rank + g.rpad;
    g.off_dirty = g.off_valid + g.wpad;
    g.off_meta = g.off_dirty + g.wpad; /* a multiple of 4 */
    g.set_bytes = (uint32_t)((g.off_meta + sizeof(struct l2_set_meta) + 63) / 64 * 64);
    return g;
}

/* The LAST lines of a queue group of sets, least recently used first: a
 * ring of 32-bit entries (a sequence number << (qshift + 5) | set within
 * the group << 5 | way: the number's low bits), some stale (the line
 * left, is no longer LAST, or was queued again: a live entry's number is
 * its way's qpos). */
struct l2_lastq {
    uint32_t n;    /* LAST lines in the group */
    uint32_t head; /* the oldest entry */
    uint32_t len;  /* entries */
    uint32_t seq;  /* the number of the next entry */
};

/* The counts of a quota group of sets. */
struct l2_quota {
    uint32_t n;  /* LAST lines */
    uint32_t sn; /* lines evict_first stores wrote (marked) */
};

struct l2_cache {
    uint32_t sets;
    struct l2_geom g;
    unsigned char *mem;  /* sets x g.set_bytes, 64-byte aligned */
    uint32_t quota;      /* the set-aside in ways: a group of n sets holds at most quota x n LAST lines */
    int fifo;            /* 1: the quota is the groups' (a set-aside); 0: each set's (the floor) */
    unsigned cshift;     /* a quota group: 2^cshift consecutive sets (l2_cache_group) */
    unsigned qshift;     /* a queue group: 2^qshift consecutive sets, qshift >= cshift */
    struct l2_quota *cq; /* each quota group's counts */
    uint32_t *qpos;      /* by set x ways + way: the number of the way's latest entry */
    struct l2_lastq *q;  /* each queue group's LAST lines, oldest first */
    uint32_t *qe;        /* their entries: qcap per group */
    uint32_t *qtmp;      /* qcap entries of room to compact a ring */
    uint32_t qcap;
    uint32_t first_ways; /* FIRST lines a set holds before they are its first victims (l2: the
                            configuration's first_ways, or less with a set-aside, first_share) */
    uint32_t first_frac; /* a share first_frac / 2^16 of the sets allows first_ways + 1 */
    uint32_t first_max;  /* FIRST lines a set may grow to ... */
    uint32_t first_grow; /* ... by a share first_grow / 2^16 of the FIRST fills beyond first_ways */
    uint32_t sfirst_ways; /* evict_first-stored lines a group keeps a set (0 with sfirst_frac 0: no limit) */
    uint32_t sfirst_frac; /* ... and sfirst_frac / 2^16 more */
};

int l2_cache_init(struct l2_cache *c, uint32_t sets, uint32_t ways, l2_err *e);
void l2_cache_free(struct l2_cache *c);
/* Empties every way. */
void l2_cache_clear(struct l2_cache *c);
/* Fills every way of an empty cache with a stale line: clean, no sector
 * valid, NORMAL, older than any line installed after it, and a tag no
 * access can ask for (L2_TAG_STALE_HI in its high word; with line_size 32
 * the last 2^37 bytes of the address space excepted). */
void l2_cache_fill_stale(struct l2_cache *c);
/* Demotes every LAST line to NORMAL (cudaCtxResetPersistingL2Cache). */
void l2_cache_demote_all(struct l2_cache *c);
/* Counts the quota over quota groups of 2^cshift consecutive sets and
 * queues LAST lines in queue groups of 2^qshift (0, 0, the default: every
 * set alone); the cache must be empty. */
int l2_cache_group(struct l2_cache *c, unsigned cshift, unsigned qshift, l2_err *e);
/* Way w of set `set` became LAST (fresh) or, LAST, was used again:
 * queues it as its queue group's most recently used; a fresh one beyond
 * its quota group's quota or its queue group's (fifo) demotes the queue
 * group's least recently used LAST line to NORMAL. */
void l2_cache_last_in(const struct l2_cache *c, uint32_t set, unsigned w, int fresh);
/* Demotes the oldest LAST lines of every queue group beyond its quota
 * (after the quota changed). */
void l2_cache_trim(const struct l2_cache *c);

/* ---- slots and the arrays of a set ---- */

static inline uint64_t l2_slot(uint32_t set, unsigned way)
{
    return (uint64_t)set << L2_WAY_BITS | way;
}

static inline unsigned l2_slot_way(uint64_t slot)
{
    return (unsigned)(slot & ((1u << L2_WAY_BITS) - 1));
}

static inline unsigned char *l2_set_base_g(const struct l2_cache *c, const struct l2_geom g, uint32_t set)
{
    return c->mem + (size_t)set * g.set_bytes;
}

static inline unsigned char *l2_set_block_g(const struct l2_cache *c, const struct l2_geom g, uint64_t slot)
{
    return l2_set_base_g(c, g, (uint32_t)(slot >> L2_WAY_BITS));
}

/* ---- the operations on way w of the set whose block is b ----
 * The access path (l2_path.h) finds a set's block once and names its ways
 * by number; the slot forms below are built on these. */

static inline struct l2_set_meta *l2_blk_meta(const struct l2_geom g, unsigned char *b)
{
    return (struct l2_set_meta *)(void *)(b + g.off_meta);
}

static inline uint8_t *l2_blk_valid(const struct l2_geom g, unsigned char *b, unsigned w)
{
    return b + g.off_valid + w;
}

static inline uint8_t *l2_blk_dirty(const struct l2_geom g, unsigned char *b, unsigned w)
{
    return b + g.off_dirty + w;
}

/* The mask of the ways of block b that hold dirty sectors.  (The 16-byte
 * loads may read past the dirty masks into the set's meta, which follows
 * them: the mask drops those bytes.) */
static inline uint32_t l2_blk_dirty_ways(const struct l2_geom g, const unsigned char *b)
{
    uint32_t m = 0;
#ifdef L2_CACHE_SSE2
    for (uint32_t i = 0; i < g.wpad; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(b + g.off_dirty + i));
        m |= (~(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_setzero_si128())) & 0xffffu) << i;
    }
#else
    for (uint32_t w = 0; w < g.ways; w++)
        m |= (uint32_t)(b[g.off_dirty + w] != 0) << w;
#endif
    return m & g.all;
}

static inline enum l2_class l2_blk_cls(const struct l2_geom g, const unsigned char *b, unsigned w)
{
    const struct l2_set_meta *m = (const struct l2_set_meta *)(const void *)(b + g.off_meta);
    return (m->first >> w) & 1 ? CLS_FIRST : (m->last >> w) & 1 ? CLS_LAST : CLS_NORMAL;
}

/* Whether the LAST lines of the set whose block is b are protected: with
 * a set-aside always (its queue keeps them within the quota), else while
 * the set holds no more of them than the quota. */
static inline int l2_blk_last_protected(const struct l2_cache *c, const struct l2_geom g, const unsigned char *b)
{
    const struct l2_set_meta *m = (const struct l2_set_meta *)(const void *)(b + g.off_meta);
    return c->fifo || (uint32_t)l2_popcount32(m->last) <= c->quota;
}

/* The set whose block is b. */
static inline uint32_t l2_blk_set(const struct l2_cache *c, const struct l2_geom g, const unsigned char *b)
{
    return (uint32_t)((size_t)(b - c->mem) / g.set_bytes);
}

/* The counts of the quota group of the set whose block is b. */
static inline struct l2_quota *l2_blk_cq(const struct l2_cache *c, const struct l2_geom g, const unsigned char *b)
{
    return &c->cq[l2_blk_set(c, g, b) >> c->cshift];
}

/* A LAST line of the set whose block is b left the class: its queue group
 * and quota group count one fewer. */
static inline void l2_blk_last_left(const struct l2_cache *c, const struct l2_geom g, const unsigned char *b)
{
    const uint32_t set = l2_blk_set(c, g, b);
    c->q[set >> c->qshift].n--;
    c->cq[set >> c->cshift].n--;
}

/* Groups of 2^shift sets: the last may hold fewer. */
static inline uint32_t l2_cache_groups_of(const struct l2_cache *c, unsigned shift)
{
    return ((c->sets - 1) >> shift) + 1;
}

/* Sets in group gi of groups of 2^shift sets. */
static inline uint32_t l2_cache_group_sets_of(const struct l2_cache *c, unsigned shift, uint32_t gi)
{
    uint32_t n = c->sets - (gi << shift);
    return n >> shift ? UINT32_C(1) << shift : n;
}

/* Queue groups (l2_cache_group), which couple their sets. */
static inline uint32_t l2_cache_groups(const struct l2_cache *c)
{
    return l2_cache_groups_of(c, c->qshift);
}

/* Sets the class of way w (its tag already in place); a line that becomes
 * LAST joins its group's queue (l2_cache_last_in). */
static inline void l2_blk_set_cls(const struct l2_cache *c, const struct l2_geom g, unsigned char *b, unsigned w,
                                  enum l2_class cls)
{
    struct l2_set_meta *m = l2_blk_meta(g, b);
    uint32_t bit = UINT32_C(1) << w;
    uint32_t was = m->last & bit, now = cls == CLS_LAST ? bit : 0, first = cls == CLS_FIRST ? bit : 0;
    if (!(((m->first ^ first) | (was ^ now) | m->sfirst) & bit))
        return; /* the class it has, no mark: most hits */
    m->first = (m->first & ~bit) | first;
    m->last = (m->last & ~bit) | now;
    if (m->sfirst & bit) { /* a hint, or a fill, ends the mark of an evict_first store */
        m->sfirst &= ~bit;
        l2_blk_cq(c, g, b)->sn--;
    }
    if (now && !was)
        l2_cache_last_in(c, l2_blk_set(c, g, b), w, 1);
    else if (was && !now)
        l2_blk_last_left(c, g, b);
}

/* Marks way w as written by an evict_first store (after its class is set). */
static inline void l2_blk_mark_sfirst(const struct l2_cache *c, const struct l2_geom g, unsigned char *b, unsigned w)
{
    struct l2_set_meta *m = l2_blk_meta(g, b);
    if (!(m->sfirst >> w & 1)) {
        m->sfirst |= UINT32_C(1) << w;
        l2_blk_cq(c, g, b)->sn++;
    }
}

/* Hints the CPU to fetch a set's block. */
static inline void l2_cache_prefetch_g(const struct l2_cache *c, const struct l2_geom g, uint32_t set)
{
    const unsigned char *p = l2_set_base_g(c, g, set);
    for (size_t o = 0; o < g.set_bytes; o += 64)
        __builtin_prefetch(p + o);
}

/* Ways of a set whose low tag word is `key`. */
static inline uint32_t l2_cache_match_lo(const struct l2_geom g, const unsigned char *b, uint32_t key)
{
    uint32_t m = 0;
#ifdef L2_CACHE_SSE2
    uint32_t w = 0;
#ifdef __AVX2__
    /* eight ways at a time (the block is 64-byte aligned), then four */
    const __m256i k8 = _mm256_set1_epi32((int)key);
    for (; w + 8 <= g.wpad; w += 8) {
        __m256i v = _mm256_load_si256((const __m256i *)(const void *)(b + 4 * w));
        m |= (uint32_t)_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(v, k8))) << w;
    }
#endif
    const __m128i k = _mm_set1_epi32((int)key);
    for (; w < g.wpad; w += 4) {
        __m128i v = _mm_load_si128((const __m128i *)(const void *)(b + 4 * w));
        m |= (uint32_t)_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(v, k))) << w;
    }
#else
    const uint32_t *lo = (const uint32_t *)(const void *)b;
    for (uint32_t w = 0; w < g.wpad; w++)
        m |= (uint32_t)(lo[w] == key) << w;
#endif
    return m;
}

/* The way of block b holding line `tag`, or -1. */
static inline int l2_blk_find(const struct l2_geom g, const unsigned char *b, uint64_t tag)
{
    const struct l2_set_meta *meta = (const struct l2_set_meta *)(const void *)(b + g.off_meta);
    uint32_t m = l2_cache_match_lo(g, b, (uint32_t)tag) & meta->occ;
    const uint32_t *hi = (const uint32_t *)(const void *)(b + g.off_hi);
    while (m) {
        unsigned w = (unsigned)__builtin_ctz(m);
        if ((hi[w] & ~L2_HI_FLAGS) == (uint32_t)(tag >> 32))
            return (int)w;
        m &= m - 1;
    }
    return -1;
}

/* The line in way w of block b (an occupied way). */
static inline uint64_t l2_blk_tag(const struct l2_geom g, const unsigned char *b, unsigned w)
{
    const uint32_t *lo = (const uint32_t *)(const void *)b, *hi = (const uint32_t *)(const void *)(b + g.off_hi);
    return (uint64_t)(hi[w] & ~L2_HI_FLAGS) << 32 | lo[w];
}

/* Whether way w's written data earned the reprieve (meaningful while the
 * way holds written data), and setting it. */
static inline int l2_blk_earned(const struct l2_geom g, const unsigned char *b, unsigned w)
{
    return (((const uint32_t *)(const void *)(b + g.off_hi))[w] & L2_HI_EARNED) != 0;
}

/* The written sectors a reprieve left way w owing DRAM, and setting them. */
static inline unsigned l2_blk_owed(const struct l2_geom g, const unsigned char *b, unsigned w)
{
    return (((const uint32_t *)(const void *)(b + g.off_hi))[w] & L2_HI_OWED) >> L2_HI_OWED_SHIFT;
}

static inline void l2_blk_set_owed(const struct l2_geom g, unsigned char *b, unsigned w, unsigned sectors)
{
    uint32_t *hi = (uint32_t *)(void *)(b + g.off_hi) + w;
    *hi = (*hi & ~L2_HI_OWED) | (uint32_t)sectors << L2_HI_OWED_SHIFT;
}

static inline void l2_blk_set_earned(const struct l2_geom g, unsigned char *b, unsigned w, int on)
{
    uint32_t *hi = (uint32_t *)(void *)(b + g.off_hi) + w;
    *hi = on ? *hi | L2_HI_EARNED : *hi & ~L2_HI_EARNED;
}

/* Makes a way its set's most recently used. */
static inline void l2_blk_touch(const struct l2_geom g, unsigned char *b, unsigned w)
{
    uint8_t *r = b + g.off_rank;
    uint8_t old = r[w];
#ifdef L2_CACHE_SSE2
    const __m128i o = _mm_set1_epi8((char)old);
    for (uint32_t i = 0; i < g.rpad; i += 16) {
        __m128i v = _mm_load_si128((const __m128i *)(void *)(r + i));
        _mm_store_si128((__m128i *)(void *)(r + i), _mm_add_epi8(v, _mm_cmpgt_epi8(v, o))); /* above: down one */
    }
#else
    for (uint32_t i = 0; i < g.ways; i++)
        r[i] = (uint8_t)(r[i] - (r[i] > old));
#endif
    r[w] = (uint8_t)(g.ways - 1);
}

/* Empties way w (its line leaves the group's counts). */
static inline void l2_blk_drop(const struct l2_cache *c, const struct l2_geom g, unsigned char *b, unsigned w)
{
    struct l2_set_meta *m = l2_blk_meta(g, b);
    uint32_t bit = UINT32_C(1) << w;
    if (m->last & bit)
        l2_blk_last_left(c, g, b);
    if (m->sfirst & bit)
        l2_blk_cq(c, g, b)->sn--;
    m->occ &= ~bit;
    m->first &= ~bit;
    m->last &= ~bit;
    m->sfirst &= ~bit;
    b[g.off_valid + w] = 0;
    b[g.off_dirty + w] = 0;
    l2_blk_set_owed(g, b, w, 0); /* an owed write-back goes with the line, as its written sectors do */
}

/* Installs `tag` in way w (already chosen and written back), empty. */
static inline void l2_blk_install(const struct l2_cache *c, const struct l2_geom g, unsigned char *b, unsigned w,
                                  uint64_t tag, enum l2_class cls)
{
    struct l2_set_meta *m = l2_blk_meta(g, b);
    if (m->last >> w & 1) { /* the evicted line leaves the set-aside (set_cls ends its mark) */
        m->last &= ~(UINT32_C(1) << w);
        l2_blk_last_left(c, g, b);
    }
    ((uint32_t *)(void *)b)[w] = (uint32_t)tag;
    ((uint32_t *)(void *)(b + g.off_hi))[w] = (uint32_t)(tag >> 32);
    b[g.off_valid + w] = 0;
    b[g.off_dirty + w] = 0;
    m->occ |= UINT32_C(1) << w;
    l2_blk_set_cls(c, g, b, w, cls);
    l2_blk_touch(g, b, w);
}

/* The least recently used of the ways `cand` (not 0) of a set whose ranks
 * are r: the lowest rank. */
static inline unsigned l2_cache_lru(const struct l2_geom g, const uint8_t *r, uint32_t cand)
{
#ifdef L2_CACHE_SSE2
    const __m128i bit = _mm_set_epi8(-128, 64, 32, 16, 8, 4, 2, 1, -128, 64, 32, 16, 8, 4, 2, 1);
    __m128i best = _mm_set1_epi8(-1);
    for (uint32_t i = 0; i < g.rpad; i += 16) {
        uint32_t m = cand >> i;
        __m128i mb = _mm_unpacklo_epi64(_mm_set1_epi8((char)(m & 0xff)), _mm_set1_epi8((char)((m >> 8) & 0xff)));
        __m128i in = _mm_cmpeq_epi8(_mm_and_si128(mb, bit), bit);
        __m128i v = _mm_load_si128((const __m128i *)(const void *)(r + i));
        best = _mm_min_epu8(best, _mm_or_si128(v, _mm_andnot_si128(in, _mm_set1_epi8(-1))));
    }
    best = _mm_min_epu8(best, _mm_srli_si128(best, 8));
    best = _mm_min_epu8(best, _mm_srli_si128(best, 4));
    best = _mm_min_epu8(best, _mm_srli_si128(best, 2));
    best = _mm_min_epu8(best, _mm_srli_si128(best, 1));
    const __m128i low = _mm_set1_epi8((char)(_mm_cvtsi128_si32(best) & 0xff));
    uint32_t at = 0;
    for (uint32_t i = 0; i < g.rpad; i += 16) {
        __m128i v = _mm_load_si128((const __m128i *)(const void *)(r + i));
        at |= (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, low)) << i;
    }
    return (unsigned)__builtin_ctz(at & cand);
#else
    uint32_t best = UINT32_MAX;
    for (uint32_t w = 0; w < g.ways; w++) {
        uint32_t key = (~cand >> w & 1) << 13 | (uint32_t)r[w] << 5 | w;
        best = key < best ? key : best;
    }
    return l2_slot_way(best);
#endif
}

/* FIRST lines `set` holds before they go first: first_ways, +1 in first_frac / 2^16 of the sets, spread evenly. */
static inline uint32_t l2_cache_first_cap(const struct l2_cache *c, uint32_t set)
{
    return c->first_ways + (((set * 0x9e3779b9u) >> 16) < c->first_frac);
}

/* Whether the quota group of `set` holds as many lines written by
 * evict_first stores as it keeps: sfirst_ways + sfirst_frac / 2^16 in each
 * of its sets (0: no limit). */
static inline int l2_cache_sfirst_full(const struct l2_cache *c, uint32_t set)
{
    const uint32_t gi = set >> c->cshift;
    uint64_t cap = ((uint64_t)c->sfirst_ways << 16 | c->sfirst_frac) * l2_cache_group_sets_of(c, c->cshift, gi) >> 16;
    return cap && c->cq[gi].sn >= cap;
}

/* Whether a FIRST fill of `line` into a set at its first_ways cap takes a
 * NORMAL line: first_grow / 2^16 of the lines, by a mixing hash of the
 * line, so that the lines of one set are picked as often as any (a
 * multiplicative hash of consecutive lines repeats with the sets' period:
 * with the H200's 15,360 sets a partition, the lines a stream brings one
 * set moved its hash by 0.002 of its range each, so that of 2048 sets
 * given 26 such lines at 0.04, 187 were picked 1 to 20 times, growing
 * towards first_max, and the others never). */
static inline int l2_cache_first_grows(const struct l2_cache *c, uint64_t line)
{
    return (l2_mix64(line ^ UINT64_C(0x6a09e667f3bcc909)) >> 48) < c->first_grow;
}

/* The way of the victim for a fill of `line` with class cls into `set` of
 * c, whose block is b; sfirst: the fill is an evict_first store's. */
static inline unsigned l2_blk_victim(const struct l2_cache *c, const struct l2_geom g, uint32_t set,
                                     const unsigned char *b, enum l2_class cls, int sfirst, uint64_t line)
{
    const struct l2_set_meta *m = (const struct l2_set_meta *)(const void *)(b + g.off_meta);
    uint32_t empty = g.all & ~m->occ;
    if (empty)
        return (unsigned)__builtin_ctz(empty);
    /* An evict_first store replaces the least recently used line that
     * evict_first stores wrote in the set once its group holds as many as
     * it keeps; below that, and for every other fill, those lines are
     * normal. */
    if (sfirst && m->sfirst && l2_cache_sfirst_full(c, set))
        return l2_cache_lru(g, b + g.off_rank, m->sfirst);
    /* The victim is the least recently used line of the lowest rank.
     * evict_first lines go first (rank 0) for every fill but an
     * evict_first one; an evict_first fill takes one of them once the set
     * holds first_ways (one more in a first_frac share of the sets), or a
     * first_grow share of its lines a normal line while the set holds
     * fewer than first_max; below first_ways they age like normal lines
     * (rank 1), and so do evict_last lines beyond the floor at set-aside
     * 0; evict_last lines go last (2). */
    uint32_t rank2 = l2_blk_last_protected(c, g, b) ? m->last : 0;
    uint32_t cand = g.all & ~rank2;
    uint32_t nfirst = (uint32_t)l2_popcount32(m->first), normal = cand & ~m->first;
    if (nfirst && cls != CLS_FIRST)
        cand = m->first;
    else if (nfirst && nfirst >= l2_cache_first_cap(c, set))
        cand = nfirst < c->first_max && normal && l2_cache_first_grows(c, line) ? normal : m->first;
    if (!cand)
        cand = rank2;
    return l2_cache_lru(g, b + g.off_rank, cand);
}

/* ---- the same by slot, set << L2_WAY_BITS | way ---- */

static inline struct l2_set_meta *l2_set_meta_g(const struct l2_cache *c, const struct l2_geom g, uint64_t slot)
{
    return l2_blk_meta(g, l2_set_block_g(c, g, slot));
}

static inline uint8_t *l2_cache_valid_g(const struct l2_cache *c, const struct l2_geom g, uint64_t slot)
{
    return l2_blk_valid(g, l2_set_block_g(c, g, slot), l2_slot_way(slot));
}

static inline uint8_t *l2_cache_dirty_g(const struct l2_cache *c, const struct l2_geom g, uint64_t slot)
{
    return l2_blk_dirty(g, l2_set_block_g(c, g, slot), l2_slot_way(slot));
}

static inline enum l2_class l2_cache_cls_g(const struct l2_cache *c, const struct l2_geom g, uint64_t slot)
{
    return l2_blk_cls(g, l2_set_block_g(c, g, slot), l2_slot_way(slot));
}

static inline void l2_cache_set_cls_g(const struct l2_cache *c, const struct l2_geom g, uint64_t slot,
                                      enum l2_class cls)
{
    l2_blk_set_cls(c, g, l2_set_block_g(c, g, slot), l2_slot_way(slot), cls);
}

/* Line held by a slot, L2_TAG_NONE when the way is empty. */
static inline uint64_t l2_cache_tag(const struct l2_cache *c, uint64_t slot)
{
    const unsigned char *b = l2_set_block_g(c, c->g, slot);
    unsigned w = l2_slot_way(slot);
    if (!((l2_set_meta_g(c, c->g, slot)->occ >> w) & 1))
        return L2_TAG_NONE;
    return l2_blk_tag(c->g, b, w);
}

/* Slot holding line `tag` in `set`, or -1. */
static inline int64_t l2_cache_find_g(const struct l2_cache *c, const struct l2_geom g, uint32_t set, uint64_t tag)
{
    int w = l2_blk_find(g, l2_set_base_g(c, g, set), tag);
    return w < 0 ? -1 : (int64_t)l2_slot(set, (unsigned)w);
}

static inline void l2_cache_touch_g(const struct l2_cache *c, const struct l2_geom g, uint64_t slot)
{
    l2_blk_touch(g, l2_set_block_g(c, g, slot), l2_slot_way(slot));
}

/* Installs `tag` in `slot` (already chosen and written back), empty. */
static inline void l2_cache_install_g(const struct l2_cache *c, const struct l2_geom g, uint64_t slot, uint64_t tag,
                                      enum l2_class cls)
{
    l2_blk_install(c, g, l2_set_block_g(c, g, slot), l2_slot_way(slot), tag, cls);
}

static inline void l2_cache_drop_g(const struct l2_cache *c, const struct l2_geom g, uint64_t slot)
{
    l2_blk_drop(c, g, l2_set_block_g(c, g, slot), l2_slot_way(slot));
}

/* Slot of the victim for a fill into `set`. */
static inline uint64_t l2_cache_victim_g(const struct l2_cache *c, const struct l2_geom g, uint32_t set,
                                         enum l2_class cls, uint64_t line)
{
    return l2_slot(set, l2_blk_victim(c, g, set, l2_set_base_g(c, g, set), cls, 0, line));
}

/* ---- the same with the cache's own geometry ---- */

static inline uint8_t *l2_cache_valid(const struct l2_cache *c, uint64_t slot)
{
    return l2_cache_valid_g(c, c->g, slot);
}

static inline uint8_t *l2_cache_dirty(const struct l2_cache *c, uint64_t slot)
{
    return l2_cache_dirty_g(c, c->g, slot);
}

static inline enum l2_class l2_cache_cls(const struct l2_cache *c, uint64_t slot)
{
    return l2_cache_cls_g(c, c->g, slot);
}

static inline void l2_cache_set_cls(const struct l2_cache *c, uint64_t slot, enum l2_class cls)
{
    l2_cache_set_cls_g(c, c->g, slot, cls);
}

static inline int64_t l2_cache_find(const struct l2_cache *c, uint32_t set, uint64_t tag)
{
    return l2_cache_find_g(c, c->g, set, tag);
}

static inline void l2_cache_touch(const struct l2_cache *c, uint64_t slot)
{
    l2_cache_touch_g(c, c->g, slot);
}

static inline void l2_cache_install(const struct l2_cache *c, uint64_t slot, uint64_t tag, enum l2_class cls)
{
    l2_cache_install_g(c, c->g, slot, tag, cls);
}

static inline void l2_cache_drop(const struct l2_cache *c, uint64_t slot)
{
    l2_cache_drop_g(c, c->g, slot);
}

/* The victim for a fill of `line` with class cls. */
static inline uint64_t l2_cache_victim(const struct l2_cache *c, uint32_t set, enum l2_class cls, uint64_t line)
{
    return l2_cache_victim_g(c, c->g, set, cls, line);
}

#endif

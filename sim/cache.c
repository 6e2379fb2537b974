/*
 * cache.c - tag array allocation, victim choice and bulk operations.
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
    c->ways = ways;
    c->wpad = (ways + 3) & ~3u;
    c->rpad = (ways + 15) & ~15u;
    c->all = ways == 32 ? UINT32_MAX : (UINT32_C(1) << ways) - 1;
    c->off_hi = 4 * (size_t)c->wpad;
    c->off_rank = 8 * (size_t)c->wpad; /* a multiple of 16 */
    c->off_valid = c->off_rank + c->rpad;
    c->off_dirty = c->off_valid + c->wpad;
    c->off_meta = c->off_dirty + c->wpad; /* a multiple of 4 */
    c->set_bytes = (c->off_meta + sizeof(struct l2_set_meta) + 63) / 64 * 64;
    c->mem = l2_alloc_table((size_t)sets * c->set_bytes);
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
    memset(c->mem, 0, (size_t)c->sets * c->set_bytes);
    for (uint32_t s = 0; s < c->sets; s++) {
        uint8_t *r = l2_set_base(c, s) + c->off_rank;
        for (uint32_t w = 0; w < c->ways; w++)
            r[w] = (uint8_t)w; /* padding ranks stay 0: never above a way's */
    }
}

/* The least recently used of the ways `cand` (not 0): the lowest rank. */
static inline unsigned l2_cache_lru(const struct l2_cache *c, const uint8_t *r, uint32_t cand)
{
#ifdef L2_CACHE_SSE2
    const __m128i bit = _mm_set_epi8(-128, 64, 32, 16, 8, 4, 2, 1, -128, 64, 32, 16, 8, 4, 2, 1);
    __m128i best = _mm_set1_epi8(-1);
    for (uint32_t i = 0; i < c->rpad; i += 16) {
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
    for (uint32_t i = 0; i < c->rpad; i += 16) {
        __m128i v = _mm_load_si128((const __m128i *)(const void *)(r + i));
        at |= (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, low)) << i;
    }
    return (unsigned)__builtin_ctz(at & cand);
#else
    uint32_t best = UINT32_MAX;
    for (uint32_t w = 0; w < c->ways; w++) {
        uint32_t key = (~cand >> w & 1) << 13 | (uint32_t)r[w] << 5 | w;
        best = key < best ? key : best;
    }
    return l2_slot_way(best);
#endif
}

uint64_t l2_cache_victim(const struct l2_cache *c, uint32_t set)
{
    const uint64_t base = l2_slot(set, 0);
    const struct l2_set_meta *m = l2_set_meta_of(c, base);
    uint32_t empty = c->all & ~m->occ;
    if (empty)
        return base + (unsigned)__builtin_ctz(empty);
    /* The victim is the least recently used line of the lowest rank.
     * evict_first lines go first (rank 0) once the set holds first_ways
     * of them (one more in a first_frac share of the sets); below that
     * they age like normal lines (rank 1), and so do evict_last lines
     * beyond the quota; evict_last lines within the quota go last (2). */
    uint32_t nfirst = (uint32_t)l2_popcount32(m->first);
    uint32_t cap = c->first_ways + (((set * 0x9e3779b9u) >> 16) < c->first_frac);
    uint32_t rank2 = (uint32_t)l2_popcount32(m->last) > c->quota ? 0 : m->last;
    uint32_t cand = nfirst && nfirst >= cap ? m->first : c->all & ~rank2;
    if (!cand)
        cand = rank2;
    return base + l2_cache_lru(c, l2_set_block(c, base) + c->off_rank, cand);
}

void l2_cache_demote_all(struct l2_cache *c)
{
    for (uint32_t s = 0; s < c->sets; s++)
        l2_set_meta_of(c, l2_slot(s, 0))->last = 0;
}

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
    c->all = ways == 32 ? UINT32_MAX : (UINT32_C(1) << ways) - 1;
    c->off_stamp = 4 * (size_t)c->wpad;
    c->off_hi = 8 * (size_t)c->wpad;
    c->off_valid = 12 * (size_t)c->wpad;
    c->off_dirty = 13 * (size_t)c->wpad;
    c->off_meta = 14 * (size_t)c->wpad; /* a multiple of 8 */
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
    c->clock = 0;
}

void l2_cache_renumber(struct l2_cache *c)
{
    for (uint32_t s = 0; s < c->sets; s++) {
        uint64_t base = l2_slot(s, 0);
        uint32_t *st = l2_cache_stamp(c, base), occ = l2_set_meta_of(c, base)->occ, rank[32];
        for (uint32_t i = 0; i < c->ways; i++) {
            rank[i] = 1;
            for (uint32_t j = 0; j < c->ways; j++)
                rank[i] += ((occ >> j) & 1) && st[j] < st[i];
        }
        for (uint32_t i = 0; i < c->ways; i++)
            st[i] = (occ >> i) & 1 ? rank[i] : 0;
    }
    c->clock = c->ways + 1;
}

/* The way of the oldest stamp among the ways `cand` (not 0).  Stamps are
 * unique within a set and below 2^26, so stamp << 5 | way is a key below
 * 2^31 that signed comparisons order. */
static inline unsigned l2_cache_lru(const struct l2_cache *c, const uint32_t *st, uint32_t cand)
{
#ifdef L2_CACHE_SSE2
    const __m128i bit = _mm_set_epi32(8, 4, 2, 1), top = _mm_set1_epi32(INT32_MAX);
    __m128i best = top, way = _mm_set_epi32(3, 2, 1, 0);
    for (uint32_t w = 0; w < c->wpad; w += 4) {
        __m128i v = _mm_load_si128((const __m128i *)(const void *)(st + w));
        __m128i in = _mm_cmpeq_epi32(_mm_and_si128(_mm_set1_epi32((int)(cand >> w)), bit), bit);
        v = _mm_or_si128(_mm_slli_epi32(v, 5), way);
        v = _mm_or_si128(_mm_and_si128(in, v), _mm_andnot_si128(in, top));
        __m128i lt = _mm_cmplt_epi32(v, best);
        best = _mm_or_si128(_mm_and_si128(lt, v), _mm_andnot_si128(lt, best));
        way = _mm_add_epi32(way, _mm_set1_epi32(4));
    }
    __m128i sh = _mm_shuffle_epi32(best, _MM_SHUFFLE(1, 0, 3, 2));
    __m128i lt = _mm_cmplt_epi32(sh, best);
    best = _mm_or_si128(_mm_and_si128(lt, sh), _mm_andnot_si128(lt, best));
    sh = _mm_shuffle_epi32(best, _MM_SHUFFLE(2, 3, 0, 1));
    lt = _mm_cmplt_epi32(sh, best);
    best = _mm_or_si128(_mm_and_si128(lt, sh), _mm_andnot_si128(lt, best));
    return (unsigned)_mm_cvtsi128_si32(best) & 31;
#else
    uint32_t best = UINT32_MAX;
    for (uint32_t w = 0; w < c->ways; w++) {
        uint32_t key = (~cand >> w & 1) << 31 | st[w] << 5 | w;
        best = key < best ? key : best;
    }
    return best & 31;
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
    return base + l2_cache_lru(c, l2_cache_stamp(c, base), cand);
}

void l2_cache_demote_all(struct l2_cache *c)
{
    for (uint32_t s = 0; s < c->sets; s++)
        l2_set_meta_of(c, l2_slot(s, 0))->last = 0;
}

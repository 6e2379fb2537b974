/*
 * yardstick - the tightest one-lookup-per-line sectored LRU cache simulator
 * over a trace, to measure l2sim against in `make bench`: what the machine
 * allows for the same line stream.
 *
 *   yardstick TRACE      prints "lines L sectors S hits H"
 *
 * 50 MiB, 16 ways, 128-byte lines of four 32-byte sectors: no priorities,
 * partitions, timing or statistics beyond hits.  Every access (whatever its
 * op) is one lookup per 128-byte line it touches: a hit on the tag counts
 * the requested sectors already present and fills the others, a miss
 * replaces the least recently used way.  The trace is read with the
 * library's reader (binary or text), as l2sim reads it.
 *
 * A set is two host cache lines: 16 32-bit tags (compared at once with
 * AVX2 where the build has it), then 16 byte ranks (0 = most recently used)
 * and 16 byte sector masks.  The set index and the tag come from one
 * multiplicative hash of the line number (an odd multiplier: the 64-bit
 * product is a bijection), the tag being its high 32 bits; two lines alias
 * only when they share those 32 bits and the set, which the bench traces
 * make vanishingly rare.  The sets of an access are prefetched PF accesses
 * before it is simulated.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __AVX2__
#include <immintrin.h>
#endif

#include "symtab.h"
#include "trace.h"

#define WAYS 16
#define LINE 128u
#define SECTOR 32u
#define SETS (50u * 1024 * 1024 / LINE / WAYS) /* 25,600 */
#define PF 8                                   /* accesses read ahead of the one simulated */
#define HASH_MUL 0x9e3779b97f4a7c15ULL

struct set {
    _Alignas(64) uint32_t tag[WAYS];
    uint8_t rank[WAYS]; /* 0 = most recently used ... 15 = least */
    uint8_t mask[WAYS]; /* sectors present */
    uint8_t pad[32];
};

static inline uint64_t line_hash(uint64_t line)
{
    return line * HASH_MUL;
}

static inline struct set *set_of(struct set *sets, uint64_t h)
{
    return &sets[((h & 0xffffffffu) * SETS) >> 32];
}

/* The way holding tag t, or -1. */
static inline int find(const struct set *s, uint32_t t)
{
#ifdef __AVX2__
    __m256i k = _mm256_set1_epi32((int)t);
    __m256i a = _mm256_cmpeq_epi32(_mm256_load_si256((const __m256i *)s->tag), k);
    __m256i b = _mm256_cmpeq_epi32(_mm256_load_si256((const __m256i *)(s->tag + 8)), k);
    unsigned m = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(a)) |
                 (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(b)) << 8;
    return m ? __builtin_ctz(m) : -1;
#else
    for (int w = 0; w < WAYS; w++)
        if (s->tag[w] == t)
            return w;
    return -1;
#endif
}

/* Makes way w the most recently used: ranks below its own move up one. */
static inline void touch(struct set *s, int w)
{
    uint8_t r = s->rank[w];
    for (int i = 0; i < WAYS; i++) /* vectorised by the compiler */
        s->rank[i] = (uint8_t)(s->rank[i] + (s->rank[i] < r));
    s->rank[w] = 0;
}

static inline int lru(const struct set *s)
{
    for (int w = 0; w < WAYS; w++)
        if (s->rank[w] == WAYS - 1)
            return w;
    return 0; /* not reached: the ranks are a permutation */
}

struct acc {
    uint64_t addr;
    uint32_t size;
};

int main(int argc, char **argv)
{
    if (argc != 2) {
        fputs("usage: yardstick TRACE\n", stderr);
        return 2;
    }
    struct set *sets = aligned_alloc(64, SETS * sizeof *sets);
    if (!sets) {
        fputs("yardstick: out of memory\n", stderr);
        return 2;
    }
    memset(sets, 0, SETS * sizeof *sets);
    for (uint32_t i = 0; i < SETS; i++)
        for (int w = 0; w < WAYS; w++)
            sets[i].rank[w] = (uint8_t)w;
    struct l2_symtab syms;
    struct l2_trace *t;
    struct l2_event ev;
    l2_err e;
    if (l2_symtab_init(&syms, &e) < 0)
        return 2;
    if (l2_trace_open(&t, argv[1], &syms, &e) < 0) {
        fprintf(stderr, "yardstick: %s\n", e.msg);
        return 2;
    }
    struct acc ring[PF];
    uint64_t lines = 0, sectors = 0, hits = 0, head = 0, tail = 0;
    int r = 1;
    for (;;) {
        /* fill the read-ahead ring, prefetching the sets of each access (up to 8) */
        while (r > 0 && head - tail < PF) {
            r = l2_trace_next(t, &ev, &e);
            if (r > 0 && ev.type == EV_ACCESS && ev.size) {
                ring[head % PF] = (struct acc){ev.addr, ev.size};
                uint64_t last = (ev.addr + ev.size - 1) / LINE;
                for (uint64_t l = ev.addr / LINE, k = 0; l <= last && k < 8; l++, k++)
                    __builtin_prefetch(set_of(sets, line_hash(l)));
                head++;
            }
        }
        if (head == tail)
            break;
        struct acc a = ring[tail++ % PF];
        uint64_t end = a.addr + a.size;
        for (uint64_t line = a.addr / LINE; line <= (end - 1) / LINE; line++) {
            uint64_t lo = line * LINE > a.addr ? line * LINE : a.addr;
            uint64_t hi = (line + 1) * LINE < end ? (line + 1) * LINE : end;
            unsigned want = ((2u << ((hi - 1) % LINE / SECTOR)) - 1) & ~((1u << (lo % LINE / SECTOR)) - 1);
            uint64_t h = line_hash(line);
            struct set *s = set_of(sets, h);
            uint32_t tg = (uint32_t)(h >> 32);
            int w = find(s, tg);
            if (w < 0) {
                w = lru(s);
                s->tag[w] = tg;
                s->mask[w] = 0;
            }
            hits += (unsigned)__builtin_popcount(want & s->mask[w]);
            s->mask[w] = (uint8_t)(s->mask[w] | want);
            touch(s, w);
            lines++;
            sectors += (unsigned)__builtin_popcount(want);
        }
    }
    l2_trace_close(t);
    l2_symtab_free(&syms);
    free(sets);
    if (r < 0) {
        fprintf(stderr, "yardstick: %s\n", e.msg);
        return 2;
    }
    printf("lines %" PRIu64 " sectors %" PRIu64 " hits %" PRIu64 "\n", lines, sectors, hits);
    return 0;
}

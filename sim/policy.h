/*
 * policy.h - access properties and policies: what a program requests
 * (interleaved fractions, ranges, access-policy windows, raw descriptors),
 * the 64-bit descriptor that encodes it, and the priority that the
 * simulator applies to each line under one of two semantics:
 *
 *   documented  exact probabilities and byte ranges, as the CUDA documents
 *               describe the request;
 *   hardware    what the descriptor encodes (1/16 fraction steps, libcu++'s
 *               truncation of probabilities below 1, block-granular ranges
 *               matched by 7-bit block index), as the silicon applies it.
 *
 * Descriptor layout (bits): 59-60 mode (0 implicit, 2 interleaved,
 * 3 range), 57-58 primary priority code (0 evict_unchanged, 1 evict_first,
 * 2 evict_last, 3 evict_normal), 56 secondary is evict_first, 52-55 the
 * fraction n (share (n+1)/16) or the range block-size code k
 * (block = 4 KiB << k), 44-50 the low 7 bits of base/block, 37-43 the
 * number of primary blocks.  Bit 60 is always set in what createpolicy and
 * libcu++ produce.
 *
 * The selection of the primary share is by line address (one 64-bit hash,
 * seeded), so the same line always gets the same priority.
 */
#ifndef L2SIM_POLICY_H
#define L2SIM_POLICY_H

#include <stdint.h>
#include <stdio.h>

#include "common.h"

enum l2_semantics { SEM_HARDWARE, SEM_DOCUMENTED };
enum l2_api { API_LIBCU, API_PTX };
enum l2_pol_kind { POL_STATIC, POL_INTERLEAVED, POL_RANGE, POL_DESCRIPTOR };

/* A request, as a trace or policy file states it. */
struct l2_policy_spec {
    enum l2_pol_kind kind;
    enum l2_api api;
    enum l2_prio primary, secondary;
    double fraction;              /* interleaved */
    uint64_t base, leading, total; /* range */
    uint64_t desc;                /* descriptor */
};

/* A request resolved for one semantics: what is applied per line. */
struct l2_policy {
    enum l2_pol_kind kind; /* POL_STATIC, POL_INTERLEAVED or POL_RANGE */
    enum l2_prio primary, secondary;
    uint64_t share60; /* interleaved: primary if (hash >> 4) < share60; 1<<60 = all */
    /* range, documented: [lo, base) secondary, [base, mid) primary, [mid, hi) secondary */
    uint64_t lo, base, mid, hi;
    /* range, hardware: primary if ((line_addr >> blk_shift) - blk0) mod 128 < count */
    unsigned blk_shift, blk0, count;
    int hw_range;     /* 1: hardware block matching; 0: documented bytes */
    int track_unspec; /* 1: count accesses outside [lo, hi) as unspecified */
};

/* An access-policy window as requested (cudaAccessPolicyWindow). */
struct l2_window_spec {
    uint64_t base, bytes;
    double hit_ratio;
    enum l2_prio hit_prop, miss_prop;
};

/* A window resolved for one semantics. */
struct l2_window {
    int active;
    uint64_t base, end;
    uint64_t share60;
    enum l2_prio hit_prop, miss_prop;
};

/* Checks the documented preconditions of a request. */
int l2_policy_check(const struct l2_policy_spec *s, l2_err *e);
int l2_window_check(const struct l2_window_spec *w, l2_err *e);

/* Descriptor of a request (as createpolicy or libcu++ build it).  Static
 * requests encode as interleaved with n = 15.  A descriptor spec returns
 * its own value. */
uint64_t l2_policy_encode(const struct l2_policy_spec *s);
/* Decodes a descriptor into the policy the hardware applies. */
int l2_policy_decode(uint64_t desc, struct l2_policy *out, l2_err *e);

/* Resolves a request for a semantics. */
void l2_policy_resolve(const struct l2_policy_spec *s, enum l2_semantics sem, struct l2_policy *out);
void l2_window_resolve(const struct l2_window_spec *w, enum l2_semantics sem, struct l2_window *out);

static inline int l2_share_pick(uint64_t line_addr, uint64_t seed, uint64_t share60)
{
    return (l2_mix64(line_addr ^ (seed * 0x9e3779b97f4a7c15ULL)) >> 4) < share60;
}

/* Priority applied to one line (addr = any byte of the line).  *unspec is
 * set to 1 when the address is outside a range policy's ranges. */
static inline enum l2_prio l2_policy_apply(const struct l2_policy *p, uint64_t addr, unsigned line_shift,
                                           uint64_t seed, int *unspec)
{
    switch (p->kind) {
    case POL_INTERLEAVED:
        return l2_share_pick(addr >> line_shift, seed, p->share60) ? p->primary : p->secondary;
    case POL_RANGE:
        if (p->track_unspec && (addr < p->lo || addr >= p->hi))
            *unspec = 1;
        if (p->hw_range) {
            unsigned d = (unsigned)(((addr >> p->blk_shift) - p->blk0) & 127);
            return d < p->count ? p->primary : p->secondary;
        }
        if (addr >= p->base && addr < p->mid)
            return p->primary;
        if (addr >= p->lo && addr < p->hi)
            return p->secondary;
        return PRIO_EVICT_UNCHANGED;
    default:
        return p->primary;
    }
}

/* Writes one human line describing the request and, where it differs,
 * what is applied, e.g. "interleaved evict_last 0.50 / evict_first:
 * requested 0.5, 1/16 applied (libcu++ encoding)". */
void l2_policy_describe(const struct l2_policy_spec *s, enum l2_semantics sem, char *buf, size_t n);
void l2_window_describe(const struct l2_window_spec *w, enum l2_semantics sem, char *buf, size_t n);

/* Parses the words of a `policy NAME ...` line after NAME (argv[0] is the
 * kind), or of a `window ...` line (argv after "window"). */
int l2_policy_parse(int argc, const char *const *argv, const size_t *lens, struct l2_policy_spec *out,
                    l2_err *e);
int l2_window_parse(int argc, const char *const *argv, const size_t *lens, struct l2_window_spec *out,
                    l2_err *e);

#endif

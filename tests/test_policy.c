/*
 * test_policy.c - descriptor encoding against the H100 createpolicy and
 * libcu++ table, decoding, mode checks, documented and hardware range
 * semantics, interleaved shares and window hitRatio rounding.
 */
#include "tests.h"

#include "policy.h"

#define MiB (1ULL << 20)
#define KiB (1ULL << 10)
/* The start of buffer B in the calibration runs (2 MiB aligned). */
#define BASE_B 0x7e0100000000ULL

static struct l2_policy_spec inter(enum l2_api api, enum l2_prio p, double f, enum l2_prio s)
{
    struct l2_policy_spec sp;
    memset(&sp, 0, sizeof sp);
    sp.kind = POL_INTERLEAVED;
    sp.api = api;
    sp.primary = p;
    sp.secondary = s;
    sp.fraction = f;
    return sp;
}

static struct l2_policy_spec range(uint64_t base, uint64_t lead, uint64_t total, enum l2_prio p, enum l2_prio s)
{
    struct l2_policy_spec sp;
    memset(&sp, 0, sizeof sp);
    sp.kind = POL_RANGE;
    sp.api = API_PTX;
    sp.primary = p;
    sp.secondary = s;
    sp.base = base;
    sp.leading = lead;
    sp.total = total;
    return sp;
}

static struct l2_policy_spec static_spec(enum l2_prio p)
{
    struct l2_policy_spec sp;
    memset(&sp, 0, sizeof sp);
    sp.kind = POL_STATIC;
    sp.primary = p;
    sp.secondary = PRIO_EVICT_UNCHANGED;
    return sp;
}

#define ENC_EQ(spec, want)                                                                                     \
    do {                                                                                                       \
        struct l2_policy_spec sp_ = (spec);                                                                    \
        l2_err e_;                                                                                             \
        ck_assert_int_eq(l2_policy_check(&sp_, &e_), 0);                                                       \
        uint64_t got_ = l2_policy_encode(&sp_);                                                                \
        ck_assert_msg(got_ == (uint64_t)(want), "%s: got 0x%016llx, want 0x%016llx", #spec,                    \
                      (unsigned long long)got_, (unsigned long long)(want));                                  \
    } while (0)

START_TEST(encode_createpolicy_fraction_one)
{
    ENC_EQ(inter(API_PTX, PRIO_EVICT_LAST, 1.0, PRIO_EVICT_UNCHANGED), 0x14f0000000000000ULL);
    ENC_EQ(inter(API_PTX, PRIO_EVICT_FIRST, 1.0, PRIO_EVICT_UNCHANGED), 0x12f0000000000000ULL);
    ENC_EQ(inter(API_PTX, PRIO_EVICT_NORMAL, 1.0, PRIO_EVICT_UNCHANGED), 0x16f0000000000000ULL);
    ENC_EQ(inter(API_PTX, PRIO_EVICT_UNCHANGED, 1.0, PRIO_EVICT_UNCHANGED), 0x10f0000000000000ULL);
    /* libcu++ with probability 1 encodes the same (n = 15) */
    ENC_EQ(inter(API_LIBCU, PRIO_EVICT_LAST, 1.0, PRIO_EVICT_UNCHANGED), 0x14f0000000000000ULL);
}
END_TEST

START_TEST(encode_createpolicy_fractions)
{
    ENC_EQ(inter(API_PTX, PRIO_EVICT_LAST, 0.25, PRIO_EVICT_FIRST), 0x1530000000000000ULL);
    ENC_EQ(inter(API_PTX, PRIO_EVICT_LAST, 0.5, PRIO_EVICT_FIRST), 0x1570000000000000ULL);
    ENC_EQ(inter(API_PTX, PRIO_EVICT_LAST, 0.75, PRIO_EVICT_FIRST), 0x15b0000000000000ULL);
    ENC_EQ(inter(API_PTX, PRIO_EVICT_LAST, 0.5, PRIO_EVICT_UNCHANGED), 0x1470000000000000ULL);
    /* n = ceil(16 f) - 1: 0.3 -> ceil(4.8) - 1 = 4; a tiny fraction -> 0 */
    ENC_EQ(inter(API_PTX, PRIO_EVICT_LAST, 0.3, PRIO_EVICT_UNCHANGED), 0x1440000000000000ULL);
    ENC_EQ(inter(API_PTX, PRIO_EVICT_LAST, 0.001, PRIO_EVICT_UNCHANGED), 0x1400000000000000ULL);
}
END_TEST

START_TEST(encode_libcu)
{
    ENC_EQ(inter(API_LIBCU, PRIO_EVICT_LAST, 0.5, PRIO_EVICT_UNCHANGED), 0x1400000000000000ULL);
    ENC_EQ(inter(API_LIBCU, PRIO_EVICT_LAST, 0.5, PRIO_EVICT_FIRST), 0x1500000000000000ULL);
    ENC_EQ(inter(API_LIBCU, PRIO_EVICT_LAST, 0.99, PRIO_EVICT_FIRST), 0x1500000000000000ULL);
}
END_TEST

/* Specs read from a binary file can hold any byte: the checks reject
 * enum values out of range before anything indexes a name table. */
START_TEST(check_rejects_out_of_range)
{
    l2_err e;
    struct l2_policy_spec sp = static_spec(PRIO_EVICT_LAST);
    ck_assert_int_eq(l2_policy_check(&sp, &e), 0);
    sp.secondary = (enum l2_prio)L2_NPRIO;
    ck_assert_int_eq(l2_policy_check(&sp, &e), -1);
    ck_assert_ptr_nonnull(strstr(e.msg, "out of range"));
    sp = static_spec(PRIO_EVICT_LAST);
    sp.kind = (enum l2_pol_kind)(POL_DESCRIPTOR + 1);
    ck_assert_int_eq(l2_policy_check(&sp, &e), -1);
    ck_assert_ptr_nonnull(strstr(e.msg, "out of range"));
    struct l2_window_spec w = {.base = 0, .bytes = 4096, .hit_ratio = 0.5, .hit_prop = PRIO_EVICT_LAST,
                               .miss_prop = PRIO_EVICT_FIRST};
    ck_assert_int_eq(l2_window_check(&w, &e), 0);
    w.miss_prop = (enum l2_prio)200;
    ck_assert_int_eq(l2_window_check(&w, &e), -1);
    ck_assert_ptr_nonnull(strstr(e.msg, "out of range"));
}
END_TEST

START_TEST(encode_static)
{
    ENC_EQ(static_spec(PRIO_EVICT_LAST), 0x14f0000000000000ULL);
    ENC_EQ(static_spec(PRIO_EVICT_FIRST), 0x12f0000000000000ULL);
    ENC_EQ(static_spec(PRIO_EVICT_NORMAL), 0x16f0000000000000ULL);
    ENC_EQ(static_spec(PRIO_EVICT_UNCHANGED), 0x10f0000000000000ULL);
}
END_TEST

START_TEST(encode_range)
{
    /* 96 MiB total: 1 MiB blocks (k = 8), 24 primary blocks, block index
     * of BASE_B is 0 mod 128. */
    ENC_EQ(range(BASE_B, 24 * MiB, 96 * MiB, PRIO_EVICT_LAST, PRIO_EVICT_FIRST), 0x1d80030000000000ULL);
    /* block index 48 (0x30): bits 44-50 = 0x30, X = 3 */
    ENC_EQ(range(BASE_B + 48 * MiB, 24 * MiB, 96 * MiB, PRIO_EVICT_LAST, PRIO_EVICT_FIRST), 0x1d83030000000000ULL);
    /* block index 5 */
    ENC_EQ(range(BASE_B + 5 * MiB, 24 * MiB, 96 * MiB, PRIO_EVICT_LAST, PRIO_EVICT_FIRST), 0x1d80530000000000ULL);
    /* block index 133 = 5 mod 128 */
    ENC_EQ(range(BASE_B + 133 * MiB, 24 * MiB, 96 * MiB, PRIO_EVICT_LAST, PRIO_EVICT_FIRST), 0x1d80530000000000ULL);
    /* a base in the middle of a block: 25 blocks hold [base, base+lead) */
    ENC_EQ(range(BASE_B + MiB / 2, 24 * MiB, 96 * MiB, PRIO_EVICT_LAST, PRIO_EVICT_FIRST), 0x1d80032000000000ULL);
    /* secondary evict_unchanged clears bit 56 */
    ENC_EQ(range(BASE_B, 24 * MiB, 96 * MiB, PRIO_EVICT_LAST, PRIO_EVICT_UNCHANGED), 0x1c80030000000000ULL);
    /* small totals use 4 KiB blocks (k = 0): 64 KiB in 4 KiB blocks = 16 */
    ENC_EQ(range(0x10000, 64 * KiB, 256 * KiB, PRIO_EVICT_LAST, PRIO_EVICT_FIRST),
           0x1d00000000000000ULL | (16ULL << 44) | (16ULL << 37));
    /* 4 GiB total: 32 MiB blocks (k = 13); lead 4 GiB = 128 blocks, capped at 127 */
    ENC_EQ(range(0, 4ULL << 30, 4ULL << 30, PRIO_EVICT_LAST, PRIO_EVICT_FIRST),
           0x1d00000000000000ULL | (13ULL << 52) | (127ULL << 37));
}
END_TEST

START_TEST(encode_descriptor_passthrough)
{
    struct l2_policy_spec sp;
    memset(&sp, 0, sizeof sp);
    sp.kind = POL_DESCRIPTOR;
    sp.desc = 0x1d83030000000000ULL;
    ENC_EQ(sp, 0x1d83030000000000ULL);
}
END_TEST

static void decode_ok(uint64_t d, struct l2_policy *p)
{
    l2_err e;
    ck_assert_msg(l2_policy_decode(d, p, &e) == 0, "decode 0x%016llx: %s", (unsigned long long)d, e.msg);
}

START_TEST(decode_table)
{
    struct l2_policy p;
    decode_ok(0x14f0000000000000ULL, &p);
    ck_assert_int_eq(p.kind, POL_INTERLEAVED);
    ck_assert_int_eq(p.primary, PRIO_EVICT_LAST);
    ck_assert_int_eq(p.secondary, PRIO_EVICT_UNCHANGED);
    ck_assert_uint_eq(p.share60, 1ULL << 60);

    decode_ok(0x12f0000000000000ULL, &p);
    ck_assert_int_eq(p.primary, PRIO_EVICT_FIRST);
    decode_ok(0x16f0000000000000ULL, &p);
    ck_assert_int_eq(p.primary, PRIO_EVICT_NORMAL);
    decode_ok(0x10f0000000000000ULL, &p);
    ck_assert_int_eq(p.primary, PRIO_EVICT_UNCHANGED);

    static const struct {
        uint64_t d;
        unsigned sixteenths;
        enum l2_prio sec;
    } fr[] = {
        {0x1530000000000000ULL, 4, PRIO_EVICT_FIRST},     {0x1570000000000000ULL, 8, PRIO_EVICT_FIRST},
        {0x15b0000000000000ULL, 12, PRIO_EVICT_FIRST},    {0x1470000000000000ULL, 8, PRIO_EVICT_UNCHANGED},
        {0x1400000000000000ULL, 1, PRIO_EVICT_UNCHANGED}, {0x1500000000000000ULL, 1, PRIO_EVICT_FIRST},
    };
    for (size_t i = 0; i < sizeof fr / sizeof fr[0]; i++) {
        decode_ok(fr[i].d, &p);
        ck_assert_int_eq(p.kind, POL_INTERLEAVED);
        ck_assert_int_eq(p.primary, PRIO_EVICT_LAST);
        ck_assert_int_eq(p.secondary, fr[i].sec);
        ck_assert_uint_eq(p.share60, (uint64_t)fr[i].sixteenths << 56);
    }

    decode_ok(0x1d80030000000000ULL, &p);
    ck_assert_int_eq(p.kind, POL_RANGE);
    ck_assert_int_eq(p.hw_range, 1);
    ck_assert_int_eq(p.primary, PRIO_EVICT_LAST);
    ck_assert_int_eq(p.secondary, PRIO_EVICT_FIRST);
    ck_assert_uint_eq(p.blk_shift, 20);
    ck_assert_uint_eq(p.blk0, 0);
    ck_assert_uint_eq(p.count, 24);

    decode_ok(0x1d83030000000000ULL, &p);
    ck_assert_uint_eq(p.blk0, 48);
    decode_ok(0x1d80532000000000ULL, &p);
    ck_assert_uint_eq(p.blk0, 5);
    ck_assert_uint_eq(p.count, 25);

    /* mode 0: implicit, one priority */
    decode_ok(0x0400000000000000ULL, &p);
    ck_assert_int_eq(p.kind, POL_STATIC);
    ck_assert_int_eq(p.primary, PRIO_EVICT_LAST);
}
END_TEST

START_TEST(decode_mode1_rejected)
{
    struct l2_policy p;
    l2_err e;
    e.msg[0] = 0;
    ck_assert_int_eq(l2_policy_decode(0x0800000000000000ULL, &p, &e), -1);
    ASSERT_CONTAINS(e.msg, "mode 1");
    ck_assert_int_eq(l2_policy_decode(0x0cf0000000000000ULL, &p, &e), -1);
    struct l2_policy_spec sp;
    memset(&sp, 0, sizeof sp);
    sp.kind = POL_DESCRIPTOR;
    sp.desc = 0x0800000000000000ULL;
    ck_assert_int_eq(l2_policy_check(&sp, &e), -1);
}
END_TEST

START_TEST(encode_decode_roundtrip)
{
    /* Every createpolicy fraction decodes to the share it encodes. */
    for (unsigned n = 0; n < 16; n++) {
        double f = (n + 1) / 16.0;
        struct l2_policy_spec sp = inter(API_PTX, PRIO_EVICT_LAST, f, PRIO_EVICT_FIRST);
        struct l2_policy p;
        decode_ok(l2_policy_encode(&sp), &p);
        ck_assert_uint_eq(p.share60, (uint64_t)(n + 1) << 56);
        l2_policy_resolve(&sp, SEM_DOCUMENTED, &p); /* the exact fraction: n+1 sixteenths too */
        ck_assert_uint_eq(p.share60, (uint64_t)(n + 1) << 56);
    }
}
END_TEST

/* Priority of addr under p (documented or hardware), with the unspec flag. */
static enum l2_prio at(const struct l2_policy *p, uint64_t addr, int *unspec)
{
    *unspec = 0;
    return l2_policy_apply(p, addr, 7, 0, unspec);
}

START_TEST(range_documented_halo)
{
    /* base 1 MiB, lead 256 KiB, total 1 MiB: primary [1M, 1.25M),
     * secondary [0.25M, 1M) and [1.25M, 2M), unspecified elsewhere. */
    const uint64_t base = 1 * MiB, lead = 256 * KiB, total = 1 * MiB;
    struct l2_policy_spec sp = range(base, lead, total, PRIO_EVICT_LAST, PRIO_EVICT_FIRST);
    struct l2_policy p;
    int u;
    l2_policy_resolve(&sp, SEM_DOCUMENTED, &p);
    ck_assert_int_eq(p.kind, POL_RANGE);
    ck_assert_int_eq(p.hw_range, 0);
    ck_assert_uint_eq(p.lo, base + lead - total);
    ck_assert_uint_eq(p.base, base);
    ck_assert_uint_eq(p.mid, base + lead);
    ck_assert_uint_eq(p.hi, base + total);

    ck_assert_int_eq(at(&p, base, &u), PRIO_EVICT_LAST);
    ck_assert_int_eq(u, 0);
    ck_assert_int_eq(at(&p, base + lead - 1, &u), PRIO_EVICT_LAST);
    ck_assert_int_eq(at(&p, base + lead, &u), PRIO_EVICT_FIRST);
    ck_assert_int_eq(u, 0);
    ck_assert_int_eq(at(&p, base + total - 1, &u), PRIO_EVICT_FIRST);
    ck_assert_int_eq(u, 0);
    ck_assert_int_eq(at(&p, base - 1, &u), PRIO_EVICT_FIRST); /* the halo below base */
    ck_assert_int_eq(u, 0);
    ck_assert_int_eq(at(&p, base + lead - total, &u), PRIO_EVICT_FIRST);
    ck_assert_int_eq(u, 0);
    at(&p, base + lead - total - 1, &u);
    ck_assert_int_eq(u, 1);
    ck_assert_int_eq(at(&p, base + lead - total - 1, &u), PRIO_EVICT_UNCHANGED); /* unspecified */
    at(&p, base + total, &u);
    ck_assert_int_eq(u, 1);
    ck_assert_int_eq(at(&p, base + total, &u), PRIO_EVICT_UNCHANGED); /* unspecified */

    /* a halo that would go below address 0 is clamped */
    sp = range(64 * KiB, 64 * KiB, 1 * MiB, PRIO_EVICT_LAST, PRIO_EVICT_FIRST);
    l2_policy_resolve(&sp, SEM_DOCUMENTED, &p);
    ck_assert_uint_eq(p.lo, 0);
    ck_assert_int_eq(at(&p, 0, &u), PRIO_EVICT_FIRST);
    ck_assert_int_eq(u, 0);
}
END_TEST

START_TEST(range_hardware_blocks)
{
    /* lead 24 MiB, total 96 MiB: 1 MiB blocks; the hardware matches the
     * block index modulo 128. */
    const uint64_t base = BASE_B + 3 * MiB;
    struct l2_policy_spec sp = range(base, 24 * MiB, 96 * MiB, PRIO_EVICT_LAST, PRIO_EVICT_FIRST);
    struct l2_policy p;
    int u;
    l2_policy_resolve(&sp, SEM_HARDWARE, &p);
    ck_assert_int_eq(p.kind, POL_RANGE);
    ck_assert_int_eq(p.hw_range, 1);
    ck_assert_uint_eq(p.blk_shift, 20);
    ck_assert_uint_eq(p.count, 24);
    ck_assert_int_eq(at(&p, base, &u), PRIO_EVICT_LAST);
    ck_assert_int_eq(u, 0);
    ck_assert_int_eq(at(&p, base + 24 * MiB - 1, &u), PRIO_EVICT_LAST);
    ck_assert_int_eq(at(&p, base + 24 * MiB, &u), PRIO_EVICT_FIRST);
    ck_assert_int_eq(at(&p, base - 1, &u), PRIO_EVICT_FIRST);
    /* 128 blocks above the base: outside the request, primary in hardware */
    ck_assert_int_eq(at(&p, base + 128 * MiB, &u), PRIO_EVICT_LAST);
    ck_assert_int_eq(u, 1);
    ck_assert_int_eq(at(&p, base + 128 * MiB + 23 * MiB, &u), PRIO_EVICT_LAST);
    ck_assert_int_eq(at(&p, base + 128 * MiB + 24 * MiB, &u), PRIO_EVICT_FIRST);
    ck_assert_int_eq(at(&p, base - 128 * MiB, &u), PRIO_EVICT_LAST);
    /* the documented semantics leaves those unspecified, never primary */
    l2_policy_resolve(&sp, SEM_DOCUMENTED, &p);
    ck_assert_int_eq(at(&p, base + 128 * MiB, &u), PRIO_EVICT_UNCHANGED); /* unspecified */
    ck_assert_int_eq(u, 1);

    /* an unaligned base: the hardware applies whole blocks */
    sp = range(BASE_B + MiB / 2, 24 * MiB, 96 * MiB, PRIO_EVICT_LAST, PRIO_EVICT_FIRST);
    l2_policy_resolve(&sp, SEM_HARDWARE, &p);
    ck_assert_int_eq(at(&p, BASE_B, &u), PRIO_EVICT_LAST); /* below base, same block */
    ck_assert_int_eq(at(&p, BASE_B + 25 * MiB - 1, &u), PRIO_EVICT_LAST);
    ck_assert_int_eq(at(&p, BASE_B + 25 * MiB, &u), PRIO_EVICT_FIRST);
    l2_policy_resolve(&sp, SEM_DOCUMENTED, &p);
    ck_assert_int_eq(at(&p, BASE_B, &u), PRIO_EVICT_FIRST);
    ck_assert_int_eq(at(&p, BASE_B + 24 * MiB + MiB / 2 - 1, &u), PRIO_EVICT_LAST);
    ck_assert_int_eq(at(&p, BASE_B + 24 * MiB + MiB / 2, &u), PRIO_EVICT_FIRST);
}
END_TEST

/* Fraction of `n` lines (from line0) that get the primary priority. */
static double share_of(const struct l2_policy *p, uint64_t line0, unsigned n, uint64_t seed)
{
    unsigned prim = 0;
    int u = 0;
    for (unsigned i = 0; i < n; i++)
        prim += l2_policy_apply(p, (line0 + i) << 7, 7, seed, &u) == p->primary;
    return (double)prim / n;
}

START_TEST(interleaved_shares)
{
    struct l2_policy p;
    struct l2_policy_spec sp;
    const unsigned N = 100000;
    const uint64_t line0 = BASE_B >> 7;
    double s;

    sp = inter(API_PTX, PRIO_EVICT_LAST, 0.25, PRIO_EVICT_FIRST);
    l2_policy_resolve(&sp, SEM_DOCUMENTED, &p);
    s = share_of(&p, line0, N, 0);
    ck_assert_msg(s > 0.24 && s < 0.26, "documented 0.25: share %f", s);

    sp = inter(API_LIBCU, PRIO_EVICT_LAST, 0.5, PRIO_EVICT_FIRST);
    l2_policy_resolve(&sp, SEM_DOCUMENTED, &p);
    s = share_of(&p, line0, N, 0);
    ck_assert_msg(s > 0.49 && s < 0.51, "documented 0.5: share %f", s);

    /* createpolicy 0.25 / 0.5: 4/16 and 8/16 */
    sp = inter(API_PTX, PRIO_EVICT_LAST, 0.25, PRIO_EVICT_FIRST);
    l2_policy_resolve(&sp, SEM_HARDWARE, &p);
    ck_assert_uint_eq(p.share60, 4ULL << 56);
    s = share_of(&p, line0, N, 0);
    ck_assert_msg(s > 0.24 && s < 0.26, "hardware 4/16: share %f", s);

    sp = inter(API_PTX, PRIO_EVICT_LAST, 0.5, PRIO_EVICT_FIRST);
    l2_policy_resolve(&sp, SEM_HARDWARE, &p);
    s = share_of(&p, line0, N, 0);
    ck_assert_msg(s > 0.49 && s < 0.51, "hardware 8/16: share %f", s);

    /* libcu++ 0.5 applies 1/16 in hardware */
    sp = inter(API_LIBCU, PRIO_EVICT_LAST, 0.5, PRIO_EVICT_FIRST);
    l2_policy_resolve(&sp, SEM_HARDWARE, &p);
    s = share_of(&p, line0, N, 0);
    ck_assert_msg(s > 0.0525 && s < 0.0725, "hardware libcu 1/16: share %f", s);

    /* fraction 1: every line */
    sp = inter(API_PTX, PRIO_EVICT_LAST, 1.0, PRIO_EVICT_FIRST);
    l2_policy_resolve(&sp, SEM_DOCUMENTED, &p);
    ck_assert(share_of(&p, line0, 10000, 0) == 1.0);
    l2_policy_resolve(&sp, SEM_HARDWARE, &p);
    ck_assert(share_of(&p, line0, 10000, 0) == 1.0);
}
END_TEST

START_TEST(interleaved_deterministic)
{
    struct l2_policy p;
    struct l2_policy_spec sp = inter(API_PTX, PRIO_EVICT_LAST, 0.5, PRIO_EVICT_FIRST);
    l2_policy_resolve(&sp, SEM_HARDWARE, &p);
    int u = 0;
    unsigned differ = 0, prim = 0;
    for (uint64_t line = 1000; line < 11000; line++) {
        uint64_t a = line << 7;
        enum l2_prio x = l2_policy_apply(&p, a, 7, 0, &u);
        /* any byte of the line, any time: the same priority */
        ck_assert_int_eq(l2_policy_apply(&p, a + 127, 7, 0, &u), x);
        ck_assert_int_eq(l2_policy_apply(&p, a + 64, 7, 0, &u), x);
        ck_assert(x == PRIO_EVICT_LAST || x == PRIO_EVICT_FIRST);
        prim += x == PRIO_EVICT_LAST;
        differ += l2_policy_apply(&p, a, 7, 12345, &u) != x;
    }
    /* a different policy_seed picks a different half (about 50% differ) */
    ck_assert_msg(differ > 4000 && differ < 6000, "seed change altered %u of 10000 lines", differ);
    ck_assert(prim > 4500 && prim < 5500);
}
END_TEST

START_TEST(window_hit_ratio)
{
    struct l2_window_spec w = {.base = 0x1000, .bytes = 1 * MiB, .hit_ratio = 0.5, .hit_prop = PRIO_EVICT_LAST,
                               .miss_prop = PRIO_EVICT_FIRST};
    struct l2_window r;
    l2_err e;
    ck_assert_int_eq(l2_window_check(&w, &e), 0);
    l2_window_resolve(&w, SEM_HARDWARE, &r);
    ck_assert_int_eq(r.active, 1);
    ck_assert_uint_eq(r.base, 0x1000);
    ck_assert_uint_eq(r.end, 0x1000 + MiB);
    ck_assert_uint_eq(r.share60, 9ULL << 56);
    ck_assert_int_eq(r.hit_prop, PRIO_EVICT_LAST);
    ck_assert_int_eq(r.miss_prop, PRIO_EVICT_FIRST);
    l2_window_resolve(&w, SEM_DOCUMENTED, &r);
    ck_assert_uint_eq(r.share60, 1ULL << 59);

    w.hit_ratio = 1.0;
    l2_window_resolve(&w, SEM_HARDWARE, &r);
    ck_assert_uint_eq(r.share60, 16ULL << 56);
    l2_window_resolve(&w, SEM_DOCUMENTED, &r);
    ck_assert_uint_eq(r.share60, 1ULL << 60);

    w.hit_ratio = 0.3;
    l2_window_resolve(&w, SEM_DOCUMENTED, &r);
    ck_assert_uint_eq(r.share60, 0x4ccccccccccccc0ULL); /* 0.3 x 2^60, rounded down */
    l2_window_resolve(&w, SEM_HARDWARE, &r);
    ck_assert_uint_eq(r.share60, 5ULL << 56); /* floor(4.8) + 1 */
}
END_TEST

START_TEST(parse_and_describe)
{
    const char *argv[] = {"interleaved", "persisting", "0.5", "streaming"};
    size_t lens[4];
    for (int i = 0; i < 4; i++)
        lens[i] = strlen(argv[i]);
    struct l2_policy_spec sp;
    l2_err e;
    ck_assert_int_eq(l2_policy_parse(4, argv, lens, &sp, &e), 0);
    ck_assert_int_eq(sp.api, API_LIBCU); /* the default api */
    ck_assert_int_eq(sp.primary, PRIO_EVICT_LAST);
    ck_assert_int_eq(sp.secondary, PRIO_EVICT_FIRST);
    ck_assert_uint_eq(l2_policy_encode(&sp), 0x1500000000000000ULL);
    char buf[512];
    /* the user who asked for 0.5 must be told 1/16 is applied */
    l2_policy_describe(&sp, SEM_HARDWARE, buf, sizeof buf);
    ASSERT_CONTAINS(buf, "1/16 applied");
    ASSERT_CONTAINS(buf, "0x1500000000000000");
    l2_policy_describe(&sp, SEM_DOCUMENTED, buf, sizeof buf);
    ASSERT_CONTAINS(buf, "0.5 applied as requested");
}
END_TEST

Suite *policy_suite(void)
{
    Suite *s = suite_create("policy");
    TCase *tc = tcase_create("descriptor");
    tcase_add_test(tc, encode_createpolicy_fraction_one);
    tcase_add_test(tc, encode_createpolicy_fractions);
    tcase_add_test(tc, encode_libcu);
    tcase_add_test(tc, encode_static);
    tcase_add_test(tc, check_rejects_out_of_range);
    tcase_add_test(tc, encode_range);
    tcase_add_test(tc, encode_descriptor_passthrough);
    tcase_add_test(tc, decode_table);
    tcase_add_test(tc, decode_mode1_rejected);
    tcase_add_test(tc, encode_decode_roundtrip);
    suite_add_tcase(s, tc);
    tc = tcase_create("semantics");
    tcase_add_test(tc, range_documented_halo);
    tcase_add_test(tc, range_hardware_blocks);
    tcase_add_test(tc, interleaved_shares);
    tcase_add_test(tc, interleaved_deterministic);
    tcase_add_test(tc, window_hit_ratio);
    tcase_add_test(tc, parse_and_describe);
    suite_add_tcase(s, tc);
    return s;
}

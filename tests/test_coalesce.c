/*
 * test_coalesce.c - a warp's lanes -> L2 sector accesses (sim/coalesce.c):
 * exact outputs for the usual patterns, and a brute-force byte-by-byte
 * reference for random scatters.
 */
#include "coalesce.h"
#include "tests.h"

#define FULL 0xffffffffu
#define BASE UINT64_C(0x7f0000100000) /* line aligned */

static struct l2_coal_access out[L2_COAL_MAX_OUT];

static int run(const uint64_t *a, uint32_t mask, uint32_t size, unsigned flags)
{
    l2_err e;
    int n = l2_coalesce(a, mask, size, flags, out, &e);
    ck_assert_msg(n >= 0, "%s", e.msg);
    return n;
}

/* Fails unless access i is (addr, size). */
static void expect(int i, uint64_t addr, uint32_t size)
{
    ck_assert_msg(out[i].addr == addr && out[i].size == size, "access %d: 0x%llx %u, expected 0x%llx %u", i,
                  (unsigned long long)out[i].addr, out[i].size, (unsigned long long)addr, size);
}

static void strided(uint64_t *a, uint64_t base, uint64_t stride)
{
    for (unsigned i = 0; i < 32; i++)
        a[i] = base + i * stride;
}

START_TEST(unit_stride_4b_is_one_line)
{
    uint64_t a[32];
    strided(a, BASE, 4);
    ck_assert_int_eq(run(a, FULL, 4, 0), 1);
    expect(0, BASE, 128);
    /* the same 128 bytes not line aligned: the tail of one line, the head of the next */
    strided(a, BASE + 64, 4);
    ck_assert_int_eq(run(a, FULL, 4, 0), 2);
    expect(0, BASE + 64, 64);
    expect(1, BASE + 128, 64);
}
END_TEST

START_TEST(float4_per_lane_is_four_lines)
{
    uint64_t a[32];
    strided(a, BASE, 16);
    ck_assert_int_eq(run(a, FULL, 16, 0), 4);
    for (int i = 0; i < 4; i++)
        expect(i, BASE + 128 * (uint64_t)i, 128);
    /* merged: one access of 512 bytes */
    ck_assert_int_eq(run(a, FULL, 16, L2_COAL_MERGE_LINES), 1);
    expect(0, BASE, 512);
}
END_TEST

START_TEST(stride_leaves_sector_holes)
{
    uint64_t a[32];
    /* stride 8 on 4 bytes: every sector of 2 lines still touched */
    strided(a, BASE, 8);
    ck_assert_int_eq(run(a, FULL, 4, 0), 2);
    expect(0, BASE, 128);
    expect(1, BASE + 128, 128);
    /* stride 64 on 4 bytes: sectors 0 and 2 of 16 lines, two runs each */
    strided(a, BASE, 64);
    ck_assert_int_eq(run(a, FULL, 4, 0), 32);
    for (int i = 0; i < 32; i++)
        expect(i, BASE + 64 * (uint64_t)i, 32);
    /* stride 40 on 4 bytes: holes inside lines; sectors 0,1,2 of line 0 (0, 40, 80, 120) ... */
    strided(a, BASE, 40);
    int n = run(a, FULL, 4, 0);
    /* lane bytes: 0 40 80 120 | 160 200 240 | 280 320 360 | 400 440 480 | ... (32 lanes, 1280 bytes, 10 lines),
     * every sector from 0 to 1247: offsets 0..1243, sectors 0..38; sector k is hit iff some 40i in [32k, 32k+31]
     * (the first byte; 4-byte accesses at multiples of 8 never straddle a sector) */
    unsigned bits[10] = {0};
    for (unsigned i = 0; i < 32; i++)
        bits[i * 40 / 128] |= 1u << (i * 40 % 128 / 32);
    int k = 0;
    for (unsigned l = 0; l < 10; l++)
        for (unsigned s = 0; s < 4;) {
            if (!(bits[l] >> s & 1)) {
                s++;
                continue;
            }
            unsigned s0 = s;
            while (s < 4 && (bits[l] >> s & 1))
                s++;
            expect(k++, BASE + l * 128 + s0 * 32, (s - s0) * 32);
        }
    ck_assert_int_eq(n, k);
    ck_assert_int_gt(k, 10); /* some line has a hole: more runs than lines */
}
END_TEST

START_TEST(lanes_on_one_sector)
{
    uint64_t a[32];
    for (int i = 0; i < 32; i++)
        a[i] = BASE + 200 + (uint64_t)(i % 4) * 2; /* bytes 200..207: sector 6 = line 1, sector 2 */
    ck_assert_int_eq(run(a, FULL, 2, 0), 1);
    expect(0, BASE + 192, 32);
    strided(a, BASE + 96, 0); /* every lane at the same address */
    ck_assert_int_eq(run(a, FULL, 8, 0), 1);
    expect(0, BASE + 96, 32);
}
END_TEST

START_TEST(inactive_lanes_ignored)
{
    uint64_t a[32];
    strided(a, BASE, 4);
    for (int i = 1; i < 32; i += 2)
        a[i] = UINT64_C(0xdead000000000000) + (uint64_t)i * 4096; /* garbage in inactive lanes */
    ck_assert_int_eq(run(a, 0x55555555u, 4, 0), 1);
    expect(0, BASE, 128);
    /* only lanes 31 and 0, far apart: ascending order */
    a[31] = BASE + 4096;
    ck_assert_int_eq(run(a, 0x80000001u, 4, 0), 2);
    expect(0, BASE, 32);
    expect(1, BASE + 4096, 32);
    /* lane 0 alone, 4 bytes in the middle of a sector */
    ck_assert_int_eq(run(a, 1u, 4, 0), 1);
    expect(0, BASE, 32);
}
END_TEST

START_TEST(straddling_a_line_boundary)
{
    uint64_t a[32];
    a[0] = BASE + 124; /* 8 bytes: 124..131 */
    ck_assert_int_eq(run(a, 1u, 8, 0), 2);
    expect(0, BASE + 96, 32);
    expect(1, BASE + 128, 32);
    ck_assert_int_eq(run(a, 1u, 8, L2_COAL_MERGE_LINES), 2); /* partial lines never merge */
    /* 16 bytes straddling a sector inside a line: one run of two sectors */
    a[0] = BASE + 24;
    ck_assert_int_eq(run(a, 1u, 16, 0), 1);
    expect(0, BASE, 64);
    /* a 128-byte lane access at offset 64: two lines, two halves */
    a[0] = BASE + 64;
    ck_assert_int_eq(run(a, 1u, 128, 0), 2);
    expect(0, BASE + 64, 64);
    expect(1, BASE + 128, 64);
}
END_TEST

START_TEST(no_active_lane)
{
    uint64_t a[32] = {0};
    ck_assert_int_eq(run(a, 0, 4, 0), 0);
    ck_assert_int_eq(run(a, 0, 16, L2_COAL_MERGE_LINES), 0);
}
END_TEST

START_TEST(descending_and_merge_cap)
{
    uint64_t a[32];
    for (int i = 0; i < 32; i++)
        a[i] = BASE + (uint64_t)(31 - i) * 128; /* lane 0 highest */
    ck_assert_int_eq(run(a, FULL, 128, 0), 32);
    for (int i = 0; i < 32; i++)
        expect(i, BASE + 128 * (uint64_t)i, 128);
    ck_assert_int_eq(run(a, FULL, 128, L2_COAL_MERGE_LINES), 1);
    expect(0, BASE, 4096);
    /* shifted by a sector: partial first and last lines, 31 full lines merged between them */
    for (int i = 0; i < 32; i++)
        a[i] += 32;
    ck_assert_int_eq(run(a, FULL, 128, L2_COAL_MERGE_LINES), 3);
    expect(0, BASE + 32, 96);
    expect(1, BASE + 128, 31 * 128);
    expect(2, BASE + 32 * 128, 32);
    /* two full lines with a gap do not merge */
    a[0] = BASE;
    a[1] = BASE + 512;
    ck_assert_int_eq(run(a, 3u, 128, L2_COAL_MERGE_LINES), 2);
    expect(0, BASE + 0, 128);
    expect(1, BASE + 512, 128);
}
END_TEST

START_TEST(bad_sizes_rejected)
{
    uint64_t a[32] = {0};
    l2_err e;
    ck_assert_int_eq(l2_coalesce(a, 1, 0, 0, out, &e), -1);
    ASSERT_CONTAINS(e.msg, "size 0");
    ck_assert_int_eq(l2_coalesce(a, 1, 129, 0, out, &e), -1);
    ASSERT_CONTAINS(e.msg, "size 129");
    a[3] = UINT64_MAX - 2;
    ck_assert_int_eq(l2_coalesce(a, 8, 4, 0, out, &e), -1);
    ASSERT_CONTAINS(e.msg, "lane 3");
    ck_assert_int_eq(l2_coalesce(a, 7, 4, 0, out, &e), 1); /* lane 3 inactive: fine */
}
END_TEST

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

START_TEST(random_scatter_matches_reference)
{
    static const uint32_t sizes[] = {1, 2, 4, 8, 16, 32, 3, 12, 100, 128};
    for (int iter = 0; iter < 20000; iter++) {
        uint64_t a[32];
        uint32_t size = sizes[iter % L2_ARRAY_LEN(sizes)];
        uint32_t mask = (uint32_t)rnd();
        uint64_t span = iter % 3 == 0 ? 512 : iter % 3 == 1 ? 8192 : (1u << 20);
        for (int i = 0; i < 32; i++)
            a[i] = BASE + rnd() % span;
        unsigned flags = iter & 1 ? L2_COAL_MERGE_LINES : 0;
        int n = run(a, mask, size, flags);
        /* reference: every sector some active byte falls in, sorted and unique */
        uint64_t sec[32 * 5];
        int ns = 0;
        for (int i = 0; i < 32; i++)
            if (mask >> i & 1)
                for (uint64_t s = a[i] / 32; s <= (a[i] + size - 1) / 32; s++)
                    sec[ns++] = s;
        for (int i = 1; i < ns; i++) /* insertion sort */
            for (int j = i; j > 0 && sec[j - 1] > sec[j]; j--) {
                uint64_t t = sec[j];
                sec[j] = sec[j - 1];
                sec[j - 1] = t;
            }
        /* walk the accesses: they must cover exactly the sectors, in order */
        int si = 0;
        for (int k = 0; k < n; k++) {
            ck_assert_msg(out[k].addr % 32 == 0 && out[k].size % 32 == 0 && out[k].size > 0, "iter %d", iter);
            ck_assert_msg(out[k].size <= (flags ? 4096u : 128u), "iter %d: size %u", iter, out[k].size);
            if (!flags || out[k].size <= 128)
                ck_assert_msg(out[k].addr / 128 == (out[k].addr + out[k].size - 1) / 128, "iter %d crosses", iter);
            else
                ck_assert_msg(out[k].addr % 128 == 0 && out[k].size % 128 == 0, "iter %d: merged part line", iter);
            if (k > 0)
                ck_assert_msg(out[k].addr > out[k - 1].addr, "iter %d: order", iter);
            for (uint64_t s = out[k].addr / 32; s < (out[k].addr + out[k].size) / 32; s++) {
                while (si > 0 && si < ns && sec[si] == sec[si - 1])
                    si++;
                ck_assert_msg(si < ns && sec[si] == s, "iter %d: sector 0x%llx not touched", iter,
                              (unsigned long long)s);
                si++;
            }
            /* a run is maximal within its line: the next sector of the line is not touched */
            uint64_t next = (out[k].addr + out[k].size) / 32;
            if (next % 4 != 0) {
                int touched = 0;
                for (int j = 0; j < ns; j++)
                    touched |= sec[j] == next;
                ck_assert_msg(!touched, "iter %d: run not maximal", iter);
            }
        }
        while (si > 0 && si < ns && sec[si] == sec[si - 1])
            si++;
        ck_assert_msg(si == ns, "iter %d: %d of %d sectors covered", iter, si, ns);
    }
}
END_TEST

/* L2_COAL_PARTIAL: a sector whose bytes the lanes touch only in part is
 * an access of those bytes, first to last; whole sectors keep their runs
 * and lines with no partial sector still merge. */
START_TEST(partial_sectors_keep_their_bytes)
{
    uint64_t a[32];
    strided(a, BASE, 32); /* 4 bytes at the start of every sector: 8 lines */
    ck_assert_int_eq(run(a, 0xffu, 4, L2_COAL_PARTIAL), 8);
    for (int i = 0; i < 8; i++)
        expect(i, BASE + 32 * (uint64_t)i, 4);
    ck_assert_int_eq(run(a, 0xffu, 4, 0), 2); /* without: whole sectors */
    expect(0, BASE, 128);
    strided(a, BASE, 4); /* 32 lanes x 4 bytes: a whole line, merged with the next */
    a[8] = BASE + 128 + 28; /* lanes 8-15 move to bytes 28-31 and 32-59 of the next line */
    for (int i = 9; i < 16; i++)
        a[i] = BASE + 128 + 32 + 4 * (uint64_t)(i - 9);
    ck_assert_int_eq(run(a, 0xffffu, 4, L2_COAL_PARTIAL | L2_COAL_MERGE_LINES), 3);
    expect(0, BASE, 32);            /* lanes 0-7: sector 0 whole */
    expect(1, BASE + 128 + 28, 4);  /* sector 0 of the next line in part */
    expect(2, BASE + 128 + 32, 28); /* sector 1 in part */
    a[0] = BASE, a[1] = BASE + 28;  /* bytes 0-3 and 28-31: 31 bytes, never a whole sector */
    ck_assert_int_eq(run(a, 0x3u, 4, L2_COAL_PARTIAL), 1);
    expect(0, BASE, 31);
    strided(a, BASE, 16); /* whole lines: merged as before */
    ck_assert_int_eq(run(a, FULL, 16, L2_COAL_PARTIAL | L2_COAL_MERGE_LINES), 1);
    expect(0, BASE, 512);
    a[0] = BASE + 124; /* 8 bytes over a line boundary: the tail of one line, the head of the next */
    ck_assert_int_eq(run(a, 1u, 8, L2_COAL_PARTIAL), 2);
    expect(0, BASE + 124, 4);
    expect(1, BASE + 128, 4);
}
END_TEST

/* L2_COAL_PARTIAL against a byte-by-byte reference: every access is either
 * whole sectors that the lanes cover in full, or the bytes of one sector
 * they touch in part, from the first to the last; together they hold
 * every touched sector once, in order. */
START_TEST(random_partial_matches_reference)
{
    static const uint32_t sizes[] = {1, 2, 4, 8, 16, 32, 3, 12, 100, 128};
    static uint8_t touched[8192 + 256];
    for (int iter = 0; iter < 5000; iter++) {
        uint64_t a[32];
        uint32_t size = sizes[iter % L2_ARRAY_LEN(sizes)];
        uint32_t mask = (uint32_t)rnd();
        memset(touched, 0, sizeof touched);
        for (int i = 0; i < 32; i++) {
            a[i] = BASE + rnd() % (iter % 2 ? 512 : 8192);
            if (mask >> i & 1)
                memset(touched + (a[i] - BASE), 1, size);
        }
        int n = run(a, mask, size, L2_COAL_PARTIAL | (iter & 2 ? L2_COAL_MERGE_LINES : 0));
        uint64_t next = 0; /* sectors before it are accounted for */
        for (int k = 0; k < n; k++) {
            const uint64_t off = out[k].addr - BASE, s0 = off / 32;
            ck_assert_msg(s0 >= next, "iter %d: order", iter);
            for (uint64_t s = next; s < s0; s++) /* skipped sectors are untouched */
                ck_assert_msg(!memchr(touched + 32 * s, 1, 32), "iter %d: sector %llu left out", iter,
                              (unsigned long long)s);
            int all = 1;
            for (uint64_t b = 32 * s0; b < off + out[k].size; b++)
                all &= touched[b];
            if (off % 32 == 0 && out[k].size % 32 == 0) { /* whole sectors, all covered */
                ck_assert_msg(all, "iter %d: access %d not covered", iter, k);
                next = s0 + out[k].size / 32;
            } else { /* one sector in part: its first to last touched byte */
                const uint8_t *t = touched + 32 * s0;
                int b0 = 0, b1 = 31;
                while (!t[b0])
                    b0++;
                while (!t[b1])
                    b1--;
                ck_assert_msg(memchr(t, 0, 32) != NULL, "iter %d: a whole sector in part", iter);
                ck_assert_msg(off % 32 == (uint64_t)b0 && out[k].size == (uint32_t)(b1 - b0 + 1 - (b1 - b0 == 31)),
                              "iter %d: access %d 0x%llx %u", iter, k, (unsigned long long)out[k].addr, out[k].size);
                next = s0 + 1;
            }
        }
        for (uint64_t s = next; s < sizeof touched / 32; s++)
            ck_assert_msg(!memchr(touched + 32 * s, 1, 32), "iter %d: sector %llu left out", iter,
                          (unsigned long long)s);
    }
}
END_TEST

Suite *coalesce_suite(void)
{
    Suite *s = suite_create("coalesce");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, unit_stride_4b_is_one_line);
    tcase_add_test(tc, float4_per_lane_is_four_lines);
    tcase_add_test(tc, stride_leaves_sector_holes);
    tcase_add_test(tc, lanes_on_one_sector);
    tcase_add_test(tc, inactive_lanes_ignored);
    tcase_add_test(tc, straddling_a_line_boundary);
    tcase_add_test(tc, no_active_lane);
    tcase_add_test(tc, descending_and_merge_cap);
    tcase_add_test(tc, bad_sizes_rejected);
    tcase_add_test(tc, random_scatter_matches_reference);
    tcase_add_test(tc, partial_sectors_keep_their_bytes);
    tcase_add_test(tc, random_partial_matches_reference);
    tcase_set_timeout(tc, 60); /* the random comparison under the sanitizers on a loaded machine */
    suite_add_tcase(s, tc);
    return s;
}

/*
 * test_model.c - the rules fitted to the H100 measurements, worked by hand
 * on tiny caches: the evict_first cap (first_ways, whole and fractional,
 * its growth to first_max, and first_share with a set-aside),
 * the stripe set index, evict_first stores, and identical results and
 * errors for any --threads (lanes and compare workers).
 */
#include "tests.h"

#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "l2.h"

/* ---- first_ways on one set of four ways ---- */

static struct l2_cache c;

static void fill(uint64_t tag, enum l2_class cls)
{
    ck_assert_int_lt(l2_cache_find(&c, 0, tag), 0);
    l2_cache_install(&c, l2_cache_victim(&c, 0, cls, tag), tag, cls);
}

static int resident(uint64_t tag)
{
    return l2_cache_find(&c, 0, tag) >= 0;
}

START_TEST(first_ways_cap)
{
    l2_err e;
    ck_assert_int_eq(l2_cache_init(&c, 1, 4, &e), 0);
    c.first_ways = 2;
    fill(1, CLS_NORMAL); /* oldest */
    fill(2, CLS_NORMAL);
    fill(3, CLS_NORMAL);
    fill(4, CLS_NORMAL);
    /* one evict_first line (below the cap of 2): it ages like a normal
     * line, so the oldest normal line goes */
    fill(10, CLS_FIRST);
    ck_assert(!resident(1) && resident(10));
    /* the second evict_first fill still takes the oldest line (2) */
    fill(11, CLS_FIRST);
    ck_assert(!resident(2) && resident(10) && resident(11));
    /* now the set holds 2 = first_ways evict_first lines: they go first,
     * least recently used first, and normal lines 3 and 4 stay */
    fill(12, CLS_FIRST);
    ck_assert(!resident(10) && resident(11) && resident(12) && resident(3) && resident(4));
    fill(5, CLS_NORMAL);
    ck_assert(!resident(11) && resident(3) && resident(4));
    /* a normal fill takes an evict_first line even below the cap: 12 is
     * younger than 3 */
    fill(6, CLS_NORMAL);
    ck_assert(!resident(12) && resident(3));
    /* below the cap an evict_first fill takes the oldest line, evict_first
     * or not: 3, then 4 (older than 20) */
    fill(20, CLS_FIRST);
    ck_assert(!resident(3) && resident(20));
    fill(21, CLS_FIRST);
    ck_assert(!resident(4) && resident(20) && resident(21));
    l2_cache_free(&c);
}
END_TEST

START_TEST(first_ways_zero_always_first)
{
    l2_err e;
    ck_assert_int_eq(l2_cache_init(&c, 1, 4, &e), 0);
    c.first_ways = 0;
    fill(1, CLS_FIRST); /* oldest, evict_first */
    fill(2, CLS_NORMAL);
    fill(3, CLS_NORMAL);
    fill(4, CLS_NORMAL);
    fill(5, CLS_FIRST);
    ck_assert(!resident(1));
    fill(6, CLS_NORMAL); /* 5 is evict_first: it goes before the older 2 */
    ck_assert(!resident(5) && resident(2));
    l2_cache_free(&c);
}
END_TEST

/* Evict_first lines in `set` of p. */
static unsigned first_count(const struct l2_cache *p, uint32_t set)
{
    unsigned nf = 0;
    for (uint32_t w = 0; w < p->g.ways; w++)
        nf += l2_cache_cls(p, l2_slot(set, w)) == CLS_FIRST;
    return nf;
}

/* Evict_first lines `set` of p keeps after as many normal fills as it has
 * ways, then `n` evict_first ones (p emptied first). */
static unsigned first_kept(struct l2_cache *p, uint32_t set, unsigned n)
{
    l2_cache_clear(p);
    for (uint64_t t = 0; t < p->g.ways; t++)
        l2_cache_install(p, l2_cache_victim(p, set, CLS_NORMAL, 100 + t), 100 + t, CLS_NORMAL);
    for (uint64_t t = 0; t < n; t++)
        l2_cache_install(p, l2_cache_victim(p, set, CLS_FIRST, 200 + t), 200 + t, CLS_FIRST);
    return first_count(p, set);
}

/* first_grow: at its first_ways cap, an evict_first fill of a line the
 * hash picks takes the oldest normal line instead, until the set holds
 * first_max evict_first lines; other lines take the oldest evict_first
 * line. */
START_TEST(first_grow_to_max)
{
    static const uint32_t grows[] = {0, 32768, 65536};
    for (unsigned i = 0; i < 3; i++) {
        l2_err e;
        ck_assert_int_eq(l2_cache_init(&c, 1, 8, &e), 0);
        c.first_ways = 2;
        c.first_max = 5;
        c.first_grow = grows[i];
        for (uint64_t t = 1; t <= 8; t++)
            fill(t, CLS_NORMAL);
        unsigned want = 0, normal_gone = 0;
        for (uint64_t t = 100; t < 140; t++) {
            unsigned grow = want < 2 || (want < 5 && l2_cache_first_grows(&c, t));
            fill(t, CLS_FIRST);
            /* a growing fill takes the oldest normal line: 1, 2, ... */
            if (grow) {
                normal_gone++;
                want++;
                ck_assert(!resident(normal_gone));
            }
            ck_assert(resident(normal_gone + 1));
        }
        unsigned nf = first_count(&c, 0);
        ck_assert_uint_eq(nf, want);
        if (grows[i] == 0)
            ck_assert_uint_eq(nf, 2); /* no growth beyond first_ways */
        else if (grows[i] == 65536)
            ck_assert_uint_eq(nf, 5); /* every line grows, up to first_max */
        else
            ck_assert(nf > 2); /* some of 38 lines grew */
        l2_cache_free(&c);
    }
}
END_TEST

/* first_ways = 1.5 on 64 one-way-apart sets: the cap is 1 or 2 per set, a
 * share of about one half of the sets allowing 2. */
START_TEST(first_ways_fraction)
{
    struct l2_config cfg;
    struct l2 l;
    l2_err e;
    l2_config_defaults(&cfg);
    const char *kv[] = {"l2_size=32KiB", "ways=4",           "partitions=1",
                        "setaside=0",    "setaside_max=32KiB", "first_ways=1.5", NULL};
    tests_config(&cfg, kv);
    ck_assert_msg(l2_init(&l, &cfg, &e) == 0, "%s", e.msg);
    ck_assert_uint_eq(l.sets, 64);
    ck_assert_uint_eq(l.part[0].first_ways, 1);
    ck_assert_uint_eq(l.part[0].first_frac, 32768);
    unsigned two = 0;
    for (uint32_t s = 0; s < l.sets; s++) {
        /* the set filled with 4 normal lines, then 3 evict_first lines */
        unsigned nf = first_kept(&l.part[0], s, 3);
        ck_assert_uint_ge(nf, 1);
        ck_assert_uint_le(nf, 2);
        two += nf == 2;
    }
    ck_assert_uint_ge(two, 20); /* about 32 of 64 */
    ck_assert_uint_le(two, 44);
    l2_free(&l);
}
END_TEST

/* first_share: with a set-aside, the evict_first cap is at most that share
 * of the ways outside it; at set-aside 0 (the floor only) first_ways holds. */
START_TEST(first_share_caps_with_setaside)
{
    struct l2_config cfg;
    struct l2 l;
    l2_err e;
    l2_config_defaults(&cfg);
    const char *kv[] = {"l2_size=64KiB", "ways=8",      "partitions=1", "setaside=0", "setaside_max=32KiB",
                        "first_ways=3",  "first_share=0.25", NULL};
    tests_config(&cfg, kv);
    ck_assert_msg(l2_init(&l, &cfg, &e) == 0, "%s", e.msg);
    ck_assert_uint_eq(l.part[0].first_ways, 3);
    ck_assert_uint_eq(first_kept(&l.part[0], 0, 5), 3);
    /* 4 of 8 ways set aside: 0.25 x 4 = 1 */
    ck_assert_msg(l2_set_setaside(&l, 32768, &e) == 0, "%s", e.msg);
    ck_assert_uint_eq(l.part[0].first_ways, 1);
    ck_assert_uint_eq(l.part[0].first_frac, 0);
    ck_assert_uint_eq(first_kept(&l.part[0], 0, 5), 1);
    /* 2 ways: 0.25 x 6 = 1.5, a cap of 1 or 2 */
    ck_assert_msg(l2_set_setaside(&l, 16384, &e) == 0, "%s", e.msg);
    ck_assert_uint_eq(l.part[0].first_ways, 1);
    ck_assert_uint_eq(l.part[0].first_frac, 32768);
    /* 1 way: 0.25 x 7 = 1.75 */
    ck_assert_msg(l2_set_setaside(&l, 8192, &e) == 0, "%s", e.msg);
    ck_assert_uint_eq(l.part[0].first_ways, 1);
    ck_assert_uint_eq(l.part[0].first_frac, 49152);
    /* back to 0: first_ways again */
    ck_assert_msg(l2_set_setaside(&l, 0, &e) == 0, "%s", e.msg);
    ck_assert_uint_eq(l.part[0].first_ways, 3);
    ck_assert_uint_eq(first_kept(&l.part[0], 0, 5), 3);
    l2_free(&l);
}
END_TEST

/* ---- stripe set index ---- */

START_TEST(stripe_consecutive_sets)
{
    struct l2_config cfg;
    struct l2 l;
    l2_err e;
    l2_config_defaults(&cfg); /* 50 MiB, 2 partitions, 12800 sets each */
    ck_assert_msg(l2_config_set(&cfg, "set_hash=stripe", &e) == 0, "%s", e.msg);
    ck_assert_msg(l2_config_set(&cfg, "hash_chunk=3MiB", &e) == 0, "%s", e.msg);
    ck_assert_int_eq(l2_config_check(&cfg, &e), -1); /* runs are a power of two */
    ASSERT_CONTAINS(e.msg, "hash_chunk = 3145728 is not a power of two");
    ck_assert_msg(l2_config_set(&cfg, "hash_chunk=16MiB", &e) == 0, "%s", e.msg);
    ck_assert_msg(l2_init(&l, &cfg, &e) == 0, "%s", e.msg);
    /* within a 16 MiB run consecutive lines take consecutive sets, so a
     * 3.125 MiB (25600-line) aligned block covers every set exactly twice */
    uint64_t first = (0x7e0000000000ULL >> 7);
    unsigned *count = calloc(l.sets, sizeof *count);
    unsigned home_count[2] = {0, 0};
    uint32_t prev = 0;
    for (uint64_t i = 0; i < 25600; i++) {
        unsigned h;
        uint32_t s;
        l2_locate(&l, first + i, &h, &s);
        if (i)
            ck_assert_uint_eq(s, (prev + 1) % l.sets);
        prev = s;
        count[s]++;
        home_count[h]++;
    }
    for (uint32_t s = 0; s < l.sets; s++)
        ck_assert_uint_eq(count[s], 2);
    /* the home partition is hashed per line: about half each */
    ck_assert_uint_gt(home_count[0], 12000);
    ck_assert_uint_gt(home_count[1], 12000);
    /* another run starts elsewhere */
    unsigned h;
    uint32_t s0, s1;
    l2_locate(&l, first, &h, &s0);
    l2_locate(&l, first + (16ULL << 20 >> 7), &h, &s1);
    ck_assert_uint_ne(s1, (s0 + (16u << 20 >> 7)) % l.sets);
    free(count);
    l2_free(&l);
}
END_TEST

START_TEST(balanced_homes)
{
    struct l2_config cfg;
    l2_err e;
    l2_config_defaults(&cfg); /* 2 partitions of 12800 sets */
    ck_assert_msg(l2_config_set(&cfg, "set_hash=stripe", &e) == 0, "%s", e.msg);
    /* lines 0..51199: within the first 128 MiB run, so each set index
     * takes the lines s, s + 12800, s + 25600 and s + 38400 */
    unsigned worst[2] = {0, 0};
    for (int k = 0; k < 2; k++) {
        struct l2 l;
        ck_assert_msg(l2_config_set(&cfg, k ? "home_hash=balanced" : "home_hash=mix", &e) == 0, "%s", e.msg);
        ck_assert_msg(l2_init(&l, &cfg, &e) == 0, "%s", e.msg);
        ck_assert_uint_eq(l.sets, 12800);
        unsigned *in0 = calloc(l.sets, sizeof *in0), first0 = 0, run = 0, longest = 0, prev = 2;
        uint32_t *set0 = calloc(l.sets, sizeof *set0);
        for (uint64_t line = 0; line < 4 * 12800; line++) {
            unsigned h;
            uint32_t s;
            l2_locate(&l, line, &h, &s);
            if (line < 12800)
                set0[line] = s;
            else
                ck_assert_uint_eq(s, set0[line % 12800]); /* set-mates are 12800 lines apart */
            in0[s] += h == 0;
            first0 += line < 12800 && h == 0; /* where each pair starts is hashed */
            run = h == prev ? run + 1 : 1;
            prev = h;
            longest = run > longest ? run : longest;
        }
        for (uint32_t s = 0; s < l.sets; s++) {
            unsigned d = in0[s] > 2 ? in0[s] - 2 : 2 - in0[s];
            worst[k] = d > worst[k] ? d : worst[k];
        }
        /* consecutive lines spread over both partitions, as hashed ones do */
        ck_assert_uint_gt(first0, 5800);
        ck_assert_uint_lt(first0, 7000);
        ck_assert_uint_lt(longest, 30);
        free(in0);
        free(set0);
        l2_free(&l);
    }
    /* of each set's 4 lines, 2 in each partition when balanced; hashed
     * homes leave some set with all 4 in one */
    ck_assert_uint_eq(worst[1], 0);
    ck_assert_uint_eq(worst[0], 2);
}
END_TEST

/* l2_homes, which the access path uses, gives l2_home's partitions for a
 * run of lines, across the ends of the groups of set-mates, with 2 and 4
 * partitions and either home function. */
START_TEST(homes_of_a_run)
{
    static const char *const sets[4][2] = {{"partitions=2", "home_hash=mix"},
                                           {"partitions=4", "home_hash=mix"},
                                           {"partitions=2", "home_hash=balanced"},
                                           {"partitions=4", "home_hash=balanced"}};
    struct l2_config cfg;
    l2_err e;
    l2_config_defaults(&cfg);
    ck_assert_msg(l2_config_set(&cfg, "set_hash=stripe", &e) == 0, "%s", e.msg);
    for (unsigned k = 0; k < 4; k++) {
        ck_assert_msg(l2_config_set(&cfg, sets[k][0], &e) == 0, "%s", e.msg);
        ck_assert_msg(l2_config_set(&cfg, sets[k][1], &e) == 0, "%s", e.msg);
        struct l2 l;
        ck_assert_msg(l2_init(&l, &cfg, &e) == 0, "%s", e.msg);
        const uint64_t span = (uint64_t)l.sets * l.nparts;
        const uint64_t starts[] = {0, l.sets - 3, span - 5, 3 * span - 1, (0x7e0000000000ULL >> 7) + 12345};
        for (unsigned j = 0; j < sizeof starts / sizeof starts[0]; j++) {
            unsigned home[129];
            l2_homes(&l, starts[j], 129, home);
            for (unsigned i = 0; i < 129; i++)
                ck_assert_uint_eq(home[i], l2_home(&l, starts[j] + i));
        }
        l2_free(&l);
    }
}
END_TEST

/* l2_sets and l2_homes of the n lines from `first` into set and home,
 * each checked against the line's own (l2_locate, one line at a time). */
static void located_run(const struct l2 *l, uint64_t first, unsigned n, uint32_t *set, unsigned *home)
{
    l2_sets(l, first, n, set);
    l2_homes(l, first, n, home);
    for (unsigned i = 0; i < n; i++) {
        unsigned h;
        uint32_t s;
        l2_locate(l, first + i, &h, &s);
        ck_assert_uint_eq(set[i], s);
        ck_assert_uint_eq(home[i], h);
    }
}

/* hash_block: the lines of each block are rotated before they take their
 * stripes' sets, so that lines a power of two apart spread over the sets,
 * while an aligned run of whole blocks still takes every set alike and the
 * balanced homes still split each set's lines evenly. */
START_TEST(stripe_rotated_blocks)
{
    struct l2_config cfg;
    l2_err e;
    l2_config_defaults(&cfg); /* 2 partitions of 12800 sets */
    ck_assert_msg(l2_config_set(&cfg, "set_hash=stripe", &e) == 0, "%s", e.msg);
    static const char *const bad[] = {"hash_block=3KiB", "hash_block=64", "hash_block=256MiB"};
    for (unsigned k = 0; k < 3; k++) {
        ck_assert_msg(l2_config_set(&cfg, bad[k], &e) == 0, "%s", e.msg);
        ck_assert_int_eq(l2_config_check(&cfg, &e), -1);
        ASSERT_CONTAINS(e.msg, "is not 0 or a power of two from line_size to hash_chunk");
    }
    ck_assert_msg(l2_config_set(&cfg, "home_hash=balanced", &e) == 0, "%s", e.msg);
    unsigned spread[2];
    for (unsigned k = 0; k < 2; k++) {
        ck_assert_msg(l2_config_set(&cfg, k ? "hash_block=16KiB" : "hash_block=0", &e) == 0, "%s", e.msg);
        struct l2 l;
        ck_assert_msg(l2_init(&l, &cfg, &e) == 0, "%s", e.msg);
        /* 256 lines 1024 lines (128 KiB) apart: the stripes alone put them
         * in 12800 / 256 = 50 sets at most */
        unsigned char *hit = calloc(l.sets, 1);
        spread[k] = 0;
        for (uint64_t i = 0; i < 256; i++) {
            unsigned h;
            uint32_t s;
            l2_locate(&l, 5 + i * 1024, &h, &s);
            spread[k] += !hit[s];
            hit[s] = 1;
        }
        /* lines 0..51199 (whole blocks of 128 lines, in the first run):
         * every set takes 4, 2 homed in each partition; l2_sets and l2_homes
         * agree with l2_locate line by line, across blocks and wraps */
        unsigned *count = calloc(l.sets, sizeof *count), *in0 = calloc(l.sets, sizeof *in0);
        for (uint64_t first = 0; first < 51200; first += 200) {
            uint32_t set[200];
            unsigned home[200];
            located_run(&l, first, 200, set, home);
            for (unsigned i = 0; i < 200 && first + i < 51200; i++) {
                count[set[i]]++;
                in0[set[i]] += home[i] == 0;
            }
        }
        for (uint32_t s = 0; s < l.sets; s++) {
            ck_assert_uint_eq(count[s], 4);
            ck_assert_uint_eq(in0[s], 2);
        }
        free(hit);
        free(count);
        free(in0);
        l2_free(&l);
    }
    ck_assert_uint_le(spread[0], 50);
    ck_assert_uint_ge(spread[1], 240);
}
END_TEST

/* l2_sets and l2_homes of a run of lines take each line's set and home
 * from the one before while their places follow each other: across the
 * end of a block, of a block's rotated places and of a stripe run (1 MiB
 * here, 8192 lines) they start again, and agree with each line's own
 * (l2_locate, one line; balanced homes). */
START_TEST(stripe_sets_runs)
{
    static const char *const block[] = {"hash_block=0", "hash_block=16KiB", "hash_block=1MiB"};
    for (unsigned k = 0; k < 3; k++) {
        struct l2_config cfg;
        l2_err e;
        l2_config_defaults(&cfg);
        const char *kv[] = {"set_hash=stripe", "hash_chunk=1MiB", "home_hash=balanced", block[k], NULL};
        tests_config(&cfg, kv);
        struct l2 l;
        ck_assert_msg(l2_init(&l, &cfg, &e) == 0, "%s", e.msg);
        unsigned starts = 0;
        for (uint64_t first = 3 * 8192 - 300; first < 3 * 8192 + 40; first++) {
            uint32_t set[33];
            unsigned home[33];
            located_run(&l, first, 33, set, home);
            for (unsigned i = 1; i < 33; i++) /* a set that does not follow the one before: a new start */
                starts += set[i] != (set[i - 1] + 1) % l.sets;
        }
        /* the run's end starts again; with blocks smaller than the run, so
         * do their starts and their rotated places' wraps */
        ck_assert_uint_ge(starts, 32); /* the 32 windows across the run's end */
        if (k == 1)                    /* and those across 3 block starts and their wraps */
            ck_assert_uint_ge(starts, 4 * 32);
        l2_free(&l);
    }
}
END_TEST

/* ---- stores ---- */

START_TEST(evict_first_store_is_normal)
{
    struct l2_config cfg;
    struct l2 l;
    struct l2_outcome o;
    l2_err e;
    l2_config_defaults(&cfg);
    const char *kv[] = {"l2_size=512", "ways=4", "partitions=1", "setaside=0", "setaside_max=512", NULL};
    tests_config(&cfg, kv);
    ck_assert_msg(l2_init(&l, &cfg, &e) == 0, "%s", e.msg);
    l2_access(&l, OP_WRITE, PRIO_EVICT_FIRST, 1, 0xf, -1, &o);
    int64_t s = l2_cache_find(&l.part[0], 0, 1);
    ck_assert_int_ge(s, 0);
    ck_assert_uint_eq(l2_cache_cls(&l.part[0], (uint64_t)s), CLS_NORMAL);
    ck_assert_uint_eq(*l2_cache_dirty(&l.part[0], (uint64_t)s), 0xf);
    /* an evict_first load of the same line does make it evict-first */
    l2_access(&l, OP_READ, PRIO_EVICT_FIRST, 1, 0xf, -1, &o);
    ck_assert_uint_eq(o.hit, 0xf);
    ck_assert_uint_eq(l2_cache_cls(&l.part[0], (uint64_t)s), CLS_FIRST);
    l2_free(&l);
}
END_TEST

/* ---- threads ---- */

/* Runs the CLI, which must succeed; returns its output. */
static char *run_ok(const char *args)
{
    char *out;
    ck_assert_int_eq(tests_cli(args, &out), 0);
    return out;
}

/* The reports of --threads N are byte-identical to one thread's (that the
 * lanes split the sets and merge exactly is lanes_merge_exactly's). */
START_TEST(threads_same_report)
{
    char *one = run_ok("run --json --threads 1 traces/quickstart.trace");
    char *three = run_ok("run --json --threads 3 traces/quickstart.trace");
    ck_assert_msg(strcmp(one, three) == 0, "run --threads 3 differs from --threads 1");
    const char *cmp = "compare --csv --variant name=a --variant name=b,set=ways=8 "
                      "--variant name=c,semantics=documented traces/quickstart.trace";
    char buf[512];
    snprintf(buf, sizeof buf, "%s --threads 1", cmp);
    char *c1 = run_ok(buf);
    snprintf(buf, sizeof buf, "%s --threads 2", cmp);
    char *c2 = run_ok(buf);
    ck_assert_msg(strcmp(c1, c2) == 0, "compare --threads 2 differs from --threads 1");
    free(one);
    free(three);
    free(c1);
    free(c2);
}
END_TEST

/* Writes n loads of `size` bytes at addresses a hash of their number
 * spreads under `mask`, by SMs in turn, every `store_every`-th a store (0:
 * none), to a new temporary file (path: 64 bytes), left open; the caller
 * closes it and unlinks the path. */
static FILE *temp_trace(char *path, unsigned n, unsigned size, unsigned mask, unsigned store_every)
{
    tests_write_temp(path, 64, "");
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    for (unsigned i = 0; i < n; i++)
        fprintf(f, "%c 0x%x %u sm=%u\n", store_every && i % store_every == 0 ? 'W' : 'R', (i * 2654435761u) & mask,
                size, i % 132);
    return f;
}

/* Over a trace longer than the ring of batches, where the workers take
 * turns among more variants than threads and run each over several
 * batches in a row (driver.c), compare reports what one thread does. */
START_TEST(threads_compare_long_trace)
{
    char path[64];
    fclose(temp_trace(path, 150000, 256, 0x3ffff00u, 5));
    char buf[512];
    const char *cmp = "compare --csv --variant name=a --variant name=b,set=far_copy=0 "
                      "--variant name=c,set=ways=8";
    snprintf(buf, sizeof buf, "%s --threads 1 %s", cmp, path);
    char *c1 = run_ok(buf);
    snprintf(buf, sizeof buf, "%s --threads 2 %s", cmp, path);
    char *c2 = run_ok(buf);
    ck_assert_msg(strcmp(c1, c2) == 0, "compare --threads 2 differs from --threads 1");
    ck_assert_ptr_nonnull(strstr(c1, "150000"));
    free(c1);
    free(c2);
    unlink(path);
}
END_TEST

/* Every variant fails at the same record: the error names the first
 * variant, whichever worker reaches the record first.  The first variant
 * is the slowest (32 ways: the generic access path) and the trace's 40,000
 * accesses before the bad one span 20 batches, so the faster variants,
 * which the other worker runs, reach it first. */
START_TEST(threads_first_variant_error)
{
    char path[64];
    FILE *f = temp_trace(path, 40000, 512, 0xfffffe00u, 0);
    fputs("R 0x0 4 sm=9999\n", f);
    fclose(f);
    char args[256];
    snprintf(args, sizeof args,
             "compare --threads 2 --variant name=slow,set=ways=32 --variant name=fast,set=far_copy=0 "
             "--variant name=fast2,set=far_copy=0 %s",
             path);
    for (int rep = 0; rep < 3; rep++) {
        char *out;
        ck_assert_int_eq(tests_cli(args, &out), 2);
        ck_assert_msg(strstr(out, ":40001: variant slow: sm=9999") != NULL, "%s", out);
        free(out);
    }
    unlink(path);
}
END_TEST

Suite *model_suite(void)
{
    Suite *s = suite_create("model");
    TCase *tc = tcase_create("rules");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, first_ways_cap);
    tcase_add_test(tc, first_ways_zero_always_first);
    tcase_add_test(tc, first_grow_to_max);
    tcase_add_test(tc, first_ways_fraction);
    tcase_add_test(tc, first_share_caps_with_setaside);
    tcase_add_test(tc, stripe_consecutive_sets);
    tcase_add_test(tc, balanced_homes);
    tcase_add_test(tc, stripe_rotated_blocks);
    tcase_add_test(tc, stripe_sets_runs);
    tcase_add_test(tc, homes_of_a_run);
    tcase_add_test(tc, evict_first_store_is_normal);
    tcase_add_test(tc, threads_same_report);
    tcase_add_test(tc, threads_compare_long_trace);
    tcase_add_test(tc, threads_first_variant_error);
    suite_add_tcase(s, tc);
    return s;
}

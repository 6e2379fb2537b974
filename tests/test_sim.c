/*
 * test_sim.c - one simulated variant (l2_sim_*): per-kernel, per-priority
 * and per-tag counters, loads vs other operations, windows, --policy
 * overrides, set-aside and SM checks, both semantics.
 */
#include "tests.h"

#include <math.h>

#include "driver.h"
#include "sim.h"
#include "symtab.h"
#include "trace.h"

static uint32_t tag_id(struct tests_run *r, const char *name)
{
    int64_t id = l2_sym_find(&r->syms, name, strlen(name));
    ck_assert_msg(id >= 0, "no tag %s", name);
    return (uint32_t)id;
}

/* Counters of tag `name` in kernel k (zeros if the kernel never saw it). */
static struct l2_counters tag_ctr(struct tests_run *r, uint32_t k, const char *name)
{
    struct l2_counters z;
    memset(&z, 0, sizeof z);
    uint32_t id = tag_id(r, name);
    ck_assert_uint_lt(k, r->sim.nk);
    return id < r->sim.k[k].ntag ? r->sim.k[k].tag[id] : z;
}

START_TEST(per_kernel_counters)
{
    struct tests_run r;
    tests_run_start(&r, SEM_HARDWARE, NULL);
    tests_run_ok(&r, "kernel first\n"
                     "R 0x100000 128\n"
                     "kernel second stream=2\n"
                     "R 0x100000 128\n"
                     "W 0x200000 64\n"
                     "R 0x200000 128\n");
    ck_assert_uint_eq(r.sim.nk, 2);
    ck_assert_str_eq(r.sim.k[0].name, "first");
    ck_assert_str_eq(r.sim.k[1].name, "second");
    ck_assert_uint_eq(r.sim.k[1].stream, 2);
    ck_assert_uint_eq(r.sim.k[1].pos, 3);
    const struct l2_counters *a = &r.sim.k[0].total, *b = &r.sim.k[1].total;
    ck_assert_uint_eq(a->accesses, 1);
    ck_assert_uint_eq(a->sectors, 4);
    ck_assert_uint_eq(a->sector_hits, 0);
    ck_assert_uint_eq(a->line_miss, 4);
    ck_assert_uint_eq(a->dram_rd, 128);
    ck_assert_uint_eq(b->accesses, 3);
    ck_assert_uint_eq(b->sectors, 4 + 2 + 4);
    ck_assert_uint_eq(b->sector_hits, 4 + 0 + 2);
    ck_assert_uint_eq(b->read_sectors, 8);
    ck_assert_uint_eq(b->read_hits, 6);
    ck_assert_uint_eq(b->line_miss, 2);
    ck_assert_uint_eq(b->sector_miss, 2);
    ck_assert_uint_eq(b->dram_rd, 64);
    ck_assert_uint_eq(b->dram_wr, 0);
    ck_assert_uint_eq(r.sim.accesses, 4);
    ck_assert_uint_eq(r.sim.records, 6);
    struct l2_counters tot, prio[L2_NPRIO];
    struct l2_counters *tag = calloc(r.sim.nbind, sizeof *tag);
    l2_sim_totals(&r.sim, &tot, prio, tag);
    ck_assert_uint_eq(tot.accesses, 4);
    ck_assert_uint_eq(tot.sectors, 14);
    ck_assert_uint_eq(tot.sector_hits, 6);
    ck_assert_uint_eq(prio[PRIO_EVICT_UNCHANGED].sectors, 14);
    ck_assert_uint_eq(tag[L2_TAG_GLOBAL].accesses, 4);
    free(tag);
    tests_run_end(&r);
}
END_TEST

START_TEST(default_kernel)
{
    struct tests_run r;
    tests_run_start(&r, SEM_HARDWARE, NULL);
    tests_run_ok(&r, "R 0 32\nR 0 32\n");
    ck_assert_uint_eq(r.sim.nk, 1);
    ck_assert_str_eq(r.sim.k[0].name, "(default)");
    ck_assert_uint_eq(r.sim.k[0].total.sector_hits, 1);
    tests_run_end(&r);
}
END_TEST

START_TEST(per_priority_and_tag)
{
    struct tests_run r;
    tests_run_start(&r, SEM_HARDWARE, NULL);
    tests_run_ok(&r, "policy hot interleaved evict_last 1.0 api=ptx\n"
                     "kernel k\n"
                     "R 0x000000 128 streaming\n"
                     "R 0x010000 128 evict_first\n"
                     "R 0x020000 128 persisting\n"
                     "R 0x030000 128\n"
                     "R 0x040000 256 hot\n"
                     "R 0x040000 128 hot\n"
                     "W 0x050000 32 normal\n");
    const struct l2_kstats *k = &r.sim.k[0];
    ck_assert_uint_eq(k->prio[PRIO_EVICT_FIRST].accesses, 2);
    ck_assert_uint_eq(k->prio[PRIO_EVICT_FIRST].sectors, 8);
    ck_assert_uint_eq(k->prio[PRIO_EVICT_LAST].accesses, 3);
    ck_assert_uint_eq(k->prio[PRIO_EVICT_LAST].sectors, 4 + 8 + 4);
    ck_assert_uint_eq(k->prio[PRIO_EVICT_LAST].sector_hits, 4);
    ck_assert_uint_eq(k->prio[PRIO_EVICT_UNCHANGED].accesses, 1);
    ck_assert_uint_eq(k->prio[PRIO_EVICT_NORMAL].accesses, 1);
    ck_assert_uint_eq(k->prio[PRIO_EVICT_NORMAL].sectors, 1);
    ck_assert_uint_eq(k->prio[PRIO_EVICT_NORMAL].read_sectors, 0);
    ck_assert_uint_eq(k->prio[PRIO_NO_ALLOCATE].accesses, 0);
    struct l2_counters c = tag_ctr(&r, 0, "streaming");
    ck_assert_uint_eq(c.accesses, 1);
    ck_assert_uint_eq(c.sectors, 4);
    c = tag_ctr(&r, 0, "evict_first");
    ck_assert_uint_eq(c.accesses, 1);
    c = tag_ctr(&r, 0, "persisting");
    ck_assert_uint_eq(c.accesses, 1);
    c = tag_ctr(&r, 0, "global");
    ck_assert_uint_eq(c.accesses, 1);
    ck_assert_uint_eq(c.sectors, 4);
    c = tag_ctr(&r, 0, "hot");
    ck_assert_uint_eq(c.accesses, 2);
    ck_assert_uint_eq(c.sectors, 12);
    ck_assert_uint_eq(c.sector_hits, 4);
    ck_assert_uint_eq(c.dram_rd, 256);
    c = tag_ctr(&r, 0, "normal");
    ck_assert_uint_eq(c.sectors, 1);
    c = tag_ctr(&r, 0, "evict_last");
    ck_assert_uint_eq(c.accesses, 0);
    ck_assert_uint_eq(k->total.accesses, 7);
    /* the policy's line got the evict_last class */
    unsigned home;
    uint32_t set;
    l2_locate(&r.sim.l2, 0x40000 >> 7, &home, &set);
    int64_t slot = l2_cache_find(&r.sim.l2.part[home], set, 0x40000 >> 7);
    ck_assert_int_ge(slot, 0);
    ck_assert_uint_eq(l2_cache_cls(&r.sim.l2.part[home], (uint64_t)slot), CLS_LAST);
    tests_run_end(&r);
}
END_TEST

START_TEST(read_sectors_only_loads)
{
    struct tests_run r;
    tests_run_start(&r, SEM_HARDWARE, NULL);
    tests_run_ok(&r, "W 0 128\n"
                     "R 0 64\n"
                     "P 0x1000 128 evict_last\n"
                     "R 0x1000 128\n"
                     "A 0x1000 128\n"
                     "D 0 128\n"
                     "W 0x2000 32 no_allocate\n");
    const struct l2_counters *t = &r.sim.k[0].total;
    ck_assert_uint_eq(t->sectors, 4 + 2 + 4 + 4 + 1); /* A and D move no sectors */
    ck_assert_uint_eq(t->read_sectors, 2 + 4);
    ck_assert_uint_eq(t->read_hits, 2 + 4);
    ck_assert_uint_eq(t->sector_hits, 6);
    ck_assert_uint_eq(t->accesses, 7);
    ck_assert_uint_eq(t->dram_rd, 128); /* the prefetch */
    ck_assert_uint_eq(t->dram_wr, 32);  /* the no_allocate store; discard wrote nothing back */
    tests_run_end(&r);
}
END_TEST

/* read_near_sector_hits counts the near-partition hits of loads alone, as
 * Nsight Compute's read lookup hits do (the calibration compares them); a
 * store that finds its line near counts in near_sector_hits too. */
START_TEST(read_near_counts_loads)
{
    struct tests_run r;
    const char *const two[] = {"partitions=2", "sm_map=mod", NULL};
    tests_run_start(&r, SEM_HARDWARE, two);
    uint64_t line = 0;
    while (l2_home(&r.sim.l2, line) != 1) /* homed away from SM 0's partition */
        line++;
    const unsigned long long a = (unsigned long long)(line << r.sim.l2.line_shift);
    char tr[256];
    snprintf(tr, sizeof tr, "R 0x%llx 128 sm=0\nR 0x%llx 128 sm=0\nW 0x%llx 128 sm=0\n", a, a, a);
    tests_run_ok(&r, tr);
    const struct l2_counters *t = &r.sim.k[0].total;
    ck_assert_uint_eq(t->read_sectors, 8);
    ck_assert_uint_eq(t->read_hits, 4);
    ck_assert_uint_eq(t->read_near, 4); /* the second load, from the copy the first left */
    ck_assert_uint_eq(t->near_hits, 8); /* ... and the store, which finds the copy */
    tests_run_end(&r);
}
END_TEST

START_TEST(access_spanning_two_lines)
{
    struct tests_run r;
    tests_run_start(&r, SEM_HARDWARE, NULL);
    tests_run_ok(&r, "R 0x70 32\nR 0x80 4\n");
    const struct l2_counters *t = &r.sim.k[0].total;
    ck_assert_uint_eq(t->sectors, 3);
    ck_assert_uint_eq(t->line_miss, 2);
    ck_assert_uint_eq(t->sector_hits, 1); /* sector 0 of the second line */
    ck_assert_uint_eq(t->dram_rd, 64);
    tests_run_end(&r);
}
END_TEST

/* partial_write_fill = 1: a store reads from DRAM each sector it writes
 * only in part (its first and last sectors, by its bytes) that the home
 * line lacks, 32 bytes each; whole sectors, and sectors the line holds,
 * read nothing; with 0 no store reads. */
START_TEST(partial_write_fill)
{
    static const char *const on[] = {"partial_write_fill=1", NULL};
    static const char *const off[] = {"partial_write_fill=0", NULL};
    static const struct {
        const char *trace;
        uint64_t on, off; /* DRAM bytes read with the rule and without */
    } cases[] = {
        {"W 0x1004 4\n", 32, 0},             /* one sector in part */
        {"W 0x1000 32\n", 0, 0},             /* whole */
        {"W 0x101c 8\n", 64, 0},             /* the tail of sector 0, the head of sector 1 */
        {"W 0x1010 256\n", 64, 0},           /* three lines: the first and the last sector in part */
        {"W 0x1000 256\n", 0, 0},            /* whole lines */
        {"W 0x1000 32\nW 0x1004 4\n", 0, 0}, /* the sector is held */
        {"R 0x1000 4\nW 0x1008 4\n", 32, 32}, /* the load's DRAM read (its granule); the store finds it */
        {"W 0x1004 4\nW 0x1008 4\n", 32, 0}, /* the first store filled it */
        {"W 0x1004 4 no_allocate\n", 0, 0},  /* written through, never filled */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (int rule = 0; rule < 2; rule++) {
            struct tests_run r;
            tests_run_start(&r, SEM_HARDWARE, rule ? on : off);
            tests_run_ok(&r, cases[i].trace);
            const uint64_t want = rule ? cases[i].on : cases[i].off;
            ck_assert_msg(r.sim.k[0].total.dram_rd == want, "%s rule %d: %llu, expected %llu", cases[i].trace, rule,
                          (unsigned long long)r.sim.k[0].total.dram_rd, (unsigned long long)want);
            tests_run_end(&r);
        }
}
END_TEST

START_TEST(discard_full_lines_only)
{
    struct tests_run r;
    tests_run_start(&r, SEM_HARDWARE, NULL);
    /* 3 lines written; the discard covers line 1 fully, 0 and 2 partly */
    tests_run_ok(&r, "W 0 384\nD 0x40 256\nkernel after\nR 0 384\n");
    const struct l2_counters *t = &r.sim.k[1].total;
    ck_assert_uint_eq(t->sectors, 12);
    ck_assert_uint_eq(t->sector_hits, 8);
    ck_assert_uint_eq(t->line_miss, 4);
    ck_assert_uint_eq(r.sim.k[0].total.dram_wr, 0);
    tests_run_end(&r);
}
END_TEST

START_TEST(window_scope)
{
    struct tests_run r;
    tests_run_start(&r, SEM_HARDWARE, NULL);
    tests_run_ok(&r, "kernel before\n"
                     "window 0 64KiB 1.0 persisting streaming\n"
                     "R 0 128\n"                  /* kernel started before the window */
                     "kernel k2\n"
                     "R 0 128\n"                  /* in the window: persisting */
                     "R 0x10000 128\n"            /* just past it */
                     "R 0x80 128 evict_first\n"   /* tagged: its own priority */
                     "R 0x100 128 normal\n"       /* tagged: its own priority */
                     "window off\n"
                     "R 0x200 128\n"              /* k2 keeps its window */
                     "kernel other stream=1\n"
                     "R 0x300 128\n"              /* another stream */
                     "kernel k4\n"
                     "R 0x400 128\n");            /* after window off */
    ck_assert_uint_eq(r.sim.nk, 4);
    ck_assert_uint_eq(r.sim.k[0].prio[PRIO_EVICT_UNCHANGED].accesses, 1);
    ck_assert_uint_eq(r.sim.k[0].prio[PRIO_EVICT_LAST].accesses, 0);
    const struct l2_kstats *k2 = &r.sim.k[1];
    ck_assert_uint_eq(k2->prio[PRIO_EVICT_LAST].accesses, 2);
    ck_assert_uint_eq(k2->prio[PRIO_EVICT_UNCHANGED].accesses, 1);
    ck_assert_uint_eq(k2->prio[PRIO_EVICT_FIRST].accesses, 1);
    ck_assert_uint_eq(k2->prio[PRIO_EVICT_NORMAL].accesses, 1);
    ck_assert_uint_eq(r.sim.k[2].prio[PRIO_EVICT_UNCHANGED].accesses, 1);
    ck_assert_uint_eq(r.sim.k[3].prio[PRIO_EVICT_UNCHANGED].accesses, 1);
    ck_assert_uint_eq(r.sim.k[3].prio[PRIO_EVICT_LAST].accesses, 0);
    tests_run_end(&r);
}
END_TEST

START_TEST(window_streams)
{
    struct tests_run r;
    tests_run_start(&r, SEM_HARDWARE, NULL);
    tests_run_ok(&r, "window 0 1MiB 1.0 streaming normal stream=5\n"
                     "kernel s0\nR 0 128\n"
                     "kernel s5 stream=5\nR 0 128\nR 0x100000 128\n");
    ck_assert_uint_eq(r.sim.k[0].prio[PRIO_EVICT_FIRST].accesses, 0);
    ck_assert_uint_eq(r.sim.k[1].prio[PRIO_EVICT_FIRST].accesses, 1);
    ck_assert_uint_eq(r.sim.k[1].prio[PRIO_EVICT_UNCHANGED].accesses, 1);
    tests_run_end(&r);
}
END_TEST

/* Builds "R addr 128" lines over n lines from base. */
static char *sweep(uint64_t base, unsigned n, const char *head, const char *tag)
{
    size_t cap = strlen(head) + (size_t)n * 48 + 1;
    char *s = malloc(cap);
    size_t len = (size_t)snprintf(s, cap, "%s", head);
    for (unsigned i = 0; i < n; i++)
        len += (size_t)snprintf(s + len, cap - len, "R 0x%llx 128%s%s\n", (unsigned long long)(base + 128ULL * i),
                                tag ? " " : "", tag ? tag : "");
    return s;
}

START_TEST(window_share)
{
    /* hitRatio 0.5: documented 50% persisting, hardware 9/16 */
    char *text = sweep(0x1000000, 8000, "window 0x1000000 1MiB 0.5 persisting streaming\nkernel k\n", NULL);
    struct tests_run r;
    tests_run_start(&r, SEM_DOCUMENTED, NULL);
    tests_run_ok(&r, text);
    double last = (double)r.sim.k[0].prio[PRIO_EVICT_LAST].accesses / 8000;
    double first = (double)r.sim.k[0].prio[PRIO_EVICT_FIRST].accesses / 8000;
    ck_assert_msg(last > 0.47 && last < 0.53, "documented share %f", last);
    ck_assert_msg(fabs(last + first - 1.0) < 1e-9, "every access is hitProp or missProp");
    tests_run_end(&r);
    tests_run_start(&r, SEM_HARDWARE, NULL);
    tests_run_ok(&r, text);
    last = (double)r.sim.k[0].prio[PRIO_EVICT_LAST].accesses / 8000;
    ck_assert_msg(last > 0.5325 && last < 0.5925, "hardware share %f (9/16 expected)", last);
    tests_run_end(&r);
    free(text);
}
END_TEST

START_TEST(semantics_libcu_interleaved)
{
    /* access_property(persisting, 0.5f, streaming): 1/16 applied in
     * hardware, 1/2 as documented. */
    char *text = sweep(0x2000000, 4000, "policy p interleaved persisting 0.5 streaming\n", "p");
    struct tests_run r;
    tests_run_start(&r, SEM_HARDWARE, NULL);
    tests_run_ok(&r, text);
    double last = (double)r.sim.k[0].prio[PRIO_EVICT_LAST].accesses / 4000;
    ck_assert_msg(last > 0.04 && last < 0.085, "hardware share %f", last);
    ck_assert_uint_eq(r.sim.k[0].prio[PRIO_EVICT_LAST].accesses + r.sim.k[0].prio[PRIO_EVICT_FIRST].accesses,
                      4000);
    tests_run_end(&r);
    tests_run_start(&r, SEM_DOCUMENTED, NULL);
    tests_run_ok(&r, text);
    last = (double)r.sim.k[0].prio[PRIO_EVICT_LAST].accesses / 4000;
    ck_assert_msg(last > 0.46 && last < 0.54, "documented share %f", last);
    tests_run_end(&r);
    free(text);
}
END_TEST

START_TEST(range_unspecified)
{
    struct tests_run r;
    tests_run_start(&r, SEM_DOCUMENTED, NULL);
    tests_run_ok(&r, "policy rg range 0x100000 64KiB 256KiB persisting streaming api=ptx\n"
                     "R 0x100000 128 rg\n"  /* primary */
                     "R 0x0e0000 128 rg\n"  /* halo below: secondary */
                     "R 0x120000 128 rg\n"  /* above: secondary */
                     "R 0x140000 128 rg\n"  /* past base+total: unspecified */
                     "R 0x000000 128 rg\n"); /* far below: unspecified */
    const struct l2_kstats *k = &r.sim.k[0];
    ck_assert_uint_eq(k->prio[PRIO_EVICT_LAST].accesses, 1);
    ck_assert_uint_eq(k->prio[PRIO_EVICT_FIRST].accesses, 2);
    ck_assert_uint_eq(k->total.unspecified, 2);
    ck_assert_uint_eq(tag_ctr(&r, 0, "rg").unspecified, 2);
    tests_run_end(&r);
}
END_TEST

/* An access that lies entirely inside a window whose base is not
 * line-aligned gets the window's property.  (The window test once used the start
 * of the cache line, 0x1000, which is below the window base 0x1040.) */
START_TEST(window_unaligned_base)
{
    struct tests_run r;
    tests_run_start(&r, SEM_DOCUMENTED, NULL);
    tests_run_ok(&r, "window 0x1040 64 1.0 persisting streaming\n"
                     "kernel k\n"
                     "R 0x1040 64\n");
    ck_assert_uint_eq(r.sim.k[0].prio[PRIO_EVICT_LAST].accesses, 1);
    tests_run_end(&r);
}
END_TEST

/* Documented semantics applies exact bytes: an access entirely inside
 * [base, base+leading) is primary even when base is not line-aligned.
 * (The policy was once applied at the line start, which falls in the
 * halo below base.) */
START_TEST(range_documented_unaligned_base)
{
    struct tests_run r;
    tests_run_start(&r, SEM_DOCUMENTED, NULL);
    tests_run_ok(&r, "policy rg range 0x100040 64 4KiB evict_last evict_first api=ptx\n"
                     "R 0x100040 64 rg\n");
    ck_assert_uint_eq(r.sim.k[0].prio[PRIO_EVICT_LAST].accesses, 1);
    ck_assert_uint_eq(r.sim.k[0].prio[PRIO_EVICT_FIRST].accesses, 0);
    tests_run_end(&r);
}
END_TEST

START_TEST(policy_override_wins)
{
    struct tests_run r;
    tests_run_start(&r, SEM_HARDWARE, NULL);
    ck_assert_msg(tests_run_feed(&r, "policy hot interleaved evict_first 1.0 api=ptx\n", l2_sim_policy_event) == 0,
                  "%s", r.e.msg);
    tests_run_ok(&r, "policy hot interleaved evict_last 1.0 api=ptx\n"
                     "policy cold interleaved evict_last 1.0 api=ptx\n"
                     "R 0 128 hot\n"
                     "R 0x1000 128 cold\n");
    const struct l2_kstats *k = &r.sim.k[0];
    ck_assert_uint_eq(k->prio[PRIO_EVICT_FIRST].accesses, 1);
    ck_assert_uint_eq(k->prio[PRIO_EVICT_LAST].accesses, 1); /* cold, not overridden */
    ck_assert_uint_eq(tag_ctr(&r, 0, "hot").accesses, 1);
    /* the override is what the report lists; the trace's own definition
     * of hot is not */
    unsigned hot_defs = 0;
    for (uint32_t i = 0; i < r.sim.ndefs; i++)
        if (!r.sim.defs[i].is_window && r.sim.defs[i].name == tag_id(&r, "hot")) {
            hot_defs++;
            ck_assert_int_eq(r.sim.defs[i].pol.primary, PRIO_EVICT_FIRST);
        }
    ck_assert_uint_eq(hot_defs, 1);
    tests_run_end(&r);
}
END_TEST

START_TEST(policy_file_window_and_setaside)
{
    struct tests_run r;
    const char *kv[] = {"setaside=0", NULL};
    tests_run_start(&r, SEM_HARDWARE, kv);
    const char *pol = "window 0 1MiB 1.0 streaming normal\nsetaside 32768000\n";
    ck_assert_msg(tests_run_feed(&r, pol, l2_sim_policy_event) == 0, "%s", r.e.msg);
    ck_assert_uint_eq(r.sim.l2.quota, 10);
    tests_run_ok(&r, "window 0 1MiB 1.0 persisting normal\n"
                     "setaside 0\n"
                     "kernel k\n"
                     "R 0 128\n");
    ck_assert_uint_eq(r.sim.k[0].prio[PRIO_EVICT_FIRST].accesses, 1);
    ck_assert_uint_eq(r.sim.k[0].prio[PRIO_EVICT_LAST].accesses, 0);
    ck_assert_uint_eq(r.sim.l2.setaside, 32768000); /* the trace's setaside is ignored */
    ck_assert_uint_eq(r.sim.l2.quota, 10);
    /* a policy file holds no accesses */
    ck_assert_int_eq(tests_run_feed(&r, "R 0 32\n", l2_sim_policy_event), -1);
    ASSERT_CONTAINS(r.e.msg, "policy file");
    tests_run_end(&r);
}
END_TEST

START_TEST(setaside_events)
{
    struct tests_run r;
    tests_run_start(&r, SEM_HARDWARE, NULL);
    ck_assert_uint_eq(r.sim.l2.quota, 3); /* H100 default 9830400 */
    tests_run_ok(&r, "setaside 0\n");
    ck_assert_uint_eq(r.sim.l2.quota, 1);
    tests_run_ok(&r, "setaside 3276801\n");
    ck_assert_uint_eq(r.sim.l2.quota, 2);
    tests_run_ok(&r, "setaside 32768000\n");
    ck_assert_uint_eq(r.sim.l2.quota, 10);
    ck_assert_int_eq(tests_run_feed(&r, "setaside 32768001\n", l2_sim_event), -1);
    ASSERT_CONTAINS(r.e.msg, "exceeds the maximum");
    ck_assert_uint_eq(r.sim.l2.quota, 10);
    ck_assert_int_eq(tests_run_feed(&r, "setaside 32768001\n", l2_sim_policy_event), -1);
    ASSERT_CONTAINS(r.e.msg, "exceeds the maximum");
    tests_run_end(&r);
}
END_TEST

START_TEST(sm_bounds)
{
    struct tests_run r;
    const char *kv[] = {"sms=8", NULL};
    tests_run_start(&r, SEM_HARDWARE, kv);
    tests_run_ok(&r, "R 0 32 sm=7\n");
    ck_assert_int_eq(tests_run_feed(&r, "R 0 32 sm=8\n", l2_sim_event), -1);
    ASSERT_CONTAINS(r.e.msg, "sm=8 is not below sms = 8");
    ck_assert_uint_eq(r.sim.k[0].total.accesses, 1);
    tests_run_end(&r);
    tests_run_start(&r, SEM_HARDWARE, NULL);
    tests_run_ok(&r, "R 0 32 sm=131\n");
    ck_assert_int_eq(tests_run_feed(&r, "R 0 32 sm=132\n", l2_sim_event), -1);
    tests_run_end(&r);
}
END_TEST

/* Reads every event of a trace text into ev (at most max); returns their number. */
static size_t read_events(struct tests_run *r, const char *text, struct l2_event *ev, size_t max)
{
    char path[64];
    struct l2_trace *t;
    size_t n = 0;
    tests_write_temp(path, sizeof path, text);
    ck_assert_msg(l2_trace_open(&t, path, &r->syms, &r->e) == 0, "%s", r->e.msg);
    int rc;
    while (n < max && (rc = l2_trace_next(t, &ev[n], &r->e)) > 0)
        n++;
    ck_assert_msg(rc >= 0, "%s", r->e.msg);
    l2_trace_close(t);
    unlink(path);
    return n;
}

/* A trace of n accesses of every kind: scattered addresses, 16 to 600
 * bytes, policies, a window, a second kernel. */
static char *mixed_trace(unsigned n)
{
    size_t cap = (size_t)n * 64 + 512, len = 0;
    char *t = malloc(cap);
    ck_assert_ptr_nonnull(t);
    len += (size_t)snprintf(t + len, cap - len,
                            "policy p interleaved evict_last 0.5 evict_first\n"
                            "window 0x100000 64KiB 0.5 persisting streaming stream=1\n"
                            "kernel a stream=1\n");
    const char *ops = "RRRRWPAD", *tags[] = {"", " p", " evict_first", " evict_last", " no_allocate"};
    uint64_t x = 12345;
    for (unsigned i = 0; i < n; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        if (i == n / 2)
            len += (size_t)snprintf(t + len, cap - len, "kernel b\n");
        uint64_t addr = 0x100000 + ((x >> 20) % (1u << 18)) * 16;
        unsigned size = 16 + (unsigned)((x >> 50) % 600), sm = (unsigned)((x >> 8) % 132);
        char op = ops[(x >> 40) % 8];
        len += (size_t)snprintf(t + len, cap - len, "%c 0x%llx %u%s sm=%u\n", op, (unsigned long long)addr, size,
                                op == 'P' ? " evict_last" : tags[(x >> 44) % 5], sm);
    }
    return t;
}

/* The counters and timing sums of two simulators agree. */
static void assert_same_sims(const struct l2_sim *a, const struct l2_sim *b)
{
    ck_assert_uint_eq(a->nk, b->nk);
    ck_assert_uint_eq(a->accesses, b->accesses);
    for (uint32_t k = 0; k < a->nk; k++) {
        ck_assert(memcmp(&a->k[k].total, &b->k[k].total, sizeof a->k[k].total) == 0);
        ck_assert(memcmp(a->k[k].prio, b->k[k].prio, sizeof a->k[k].prio) == 0);
        ck_assert(memcmp(a->k[k].time.ob, b->k[k].time.ob, sizeof a->k[k].time.ob) == 0);
        ck_assert(memcmp(a->k[k].time.serv, b->k[k].time.serv, a->k[k].time.nserv * sizeof *a->k[k].time.serv) == 0);
    }
}

/* Places the n events ev as the simulator s would (l2_sim_place) into at
 * and line (room for n accesses' lines). */
static void place_all(const struct l2_sim *s, const struct l2_event *ev, size_t n, uint32_t *at,
                      struct l2_pline *line)
{
    uint32_t nl = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned m = ev[i].type == EV_ACCESS ? l2_sim_place(s, &ev[i], &line[nl]) : 0;
        at[i] = m ? nl : L2_UNPLACED;
        nl += m;
    }
}

/* l2_sim_events, which locates accesses a few events ahead, simulates
 * what l2_sim_event does one event at a time: whole, in short pieces,
 * and as a lane of two; placing the accesses itself, or with the places
 * another simulator of the configuration gave (l2_sim_place). */
START_TEST(events_batch_as_one_by_one)
{
    enum { N = 3000 };
    struct l2_event *ev = aligned_alloc(64, (N + 8) * sizeof *ev);
    uint32_t *at = malloc((N + 8) * sizeof *at);
    struct l2_pline *line = malloc((N + 8) * L2_MAX_LINES * sizeof *line);
    ck_assert_ptr_nonnull(ev);
    ck_assert_ptr_nonnull(at);
    ck_assert_ptr_nonnull(line);
    char *text = mixed_trace(N);
    for (unsigned mode = 0; mode < 4; mode++) {
        const int lane = mode & 1, placed = mode >> 1; /* a lane of two; placed by another simulator */
        const size_t pieces[] = {1, 3, 5, N + 8};
        for (size_t pi = 0; pi < L2_ARRAY_LEN(pieces); pi++) {
            const size_t piece = pieces[pi];
            struct tests_run one, many;
            tests_run_start(&one, SEM_HARDWARE, NULL);
            tests_run_start(&many, SEM_HARDWARE, NULL);
            if (lane) {
                l2_sim_set_lane(&one.sim, 1, 2);
                l2_sim_set_lane(&many.sim, 1, 2);
            }
            size_t n = read_events(&one, text, ev, N + 8);
            ck_assert_uint_eq(n, N + 4);
            for (size_t i = 0; i < n; i++)
                ck_assert_msg(l2_sim_event(&one.sim, &ev[i], &one.e) == 0, "%s", one.e.msg);
            ck_assert_uint_eq(read_events(&many, text, ev, N + 8), n);
            if (placed) /* by a simulator of the same configuration, not the one that runs */
                place_all(&one.sim, ev, n, at, line);
            for (size_t i = 0; i < n; i += piece) {
                size_t m = n - i < piece ? n - i : piece;
                const struct l2_placed pd = {at + i, line};
                ck_assert_uint_eq(l2_sim_events(&many.sim, &ev[i], m, placed ? &pd : NULL, &many.e), m);
            }
            assert_same_sims(&one.sim, &many.sim);
            ck_assert_uint_gt(one.sim.k[1].total.sector_hits, 0);
            tests_run_end(&one);
            tests_run_end(&many);
        }
    }
    free(text);
    free(line);
    free(at);
    free(ev);
}
END_TEST

/* l2_simulate over a binary trace of many batches (its decoder places the
 * accesses of the batches it is ahead on, where the worker leaves it a
 * CPU; the worker places the others) simulates what l2_sim_event does
 * one event at a time. */
START_TEST(simulate_as_one_by_one)
{
    enum { N = 40000 };
    struct l2_event *ev = aligned_alloc(64, (N + 8) * sizeof *ev);
    ck_assert_ptr_nonnull(ev);
    char *text = mixed_trace(N);
    char tp[64], bp[sizeof tp + 4];
    tests_write_temp(tp, sizeof tp, text);
    snprintf(bp, sizeof bp, "%s.l2b", tp);
    tests_to_binary(tp, bp, L2_COMP_NONE);
    struct tests_run one, all;
    tests_run_start(&one, SEM_HARDWARE, NULL);
    tests_run_start(&all, SEM_HARDWARE, NULL);
    size_t n = read_events(&one, text, ev, N + 8);
    ck_assert_uint_eq(n, N + 4);
    for (size_t i = 0; i < n; i++)
        ck_assert_msg(l2_sim_event(&one.sim, &ev[i], &one.e) == 0, "%s", one.e.msg);
    struct l2_sim *sp = &all.sim;
    /* serialized: the kernels in trace order, as l2_sim_event takes them */
    ck_assert_int_eq(l2_simulate(&sp, NULL, 1, 1, bp, 1, &all.syms, &all.e), (int64_t)n);
    assert_same_sims(&one.sim, &all.sim);
    tests_run_end(&one);
    tests_run_end(&all);
    unlink(tp);
    unlink(bp);
    free(text);
    free(ev);
}
END_TEST

/* l2_sim_events stops at the event that fails and says which, also
 * where l2_sim_place left it unplaced. */
START_TEST(events_batch_error_index)
{
    for (int placed = 0; placed < 2; placed++) {
        struct tests_run r;
        struct l2_event ev[8];
        uint32_t at[8];
        struct l2_pline line[8 * L2_MAX_LINES];
        tests_run_start(&r, SEM_HARDWARE, NULL);
        size_t n = read_events(&r, "R 0 32 sm=1\nR 0x80 32 sm=2\nR 0x100 32 sm=132\nR 0x180 32 sm=3\n", ev, 8);
        ck_assert_uint_eq(n, 4);
        place_all(&r.sim, ev, n, at, line);
        ck_assert_uint_eq(at[2], L2_UNPLACED);
        const struct l2_placed pd = {at, line};
        ck_assert_uint_eq(l2_sim_events(&r.sim, ev, n, placed ? &pd : NULL, &r.e), 2);
        ASSERT_CONTAINS(r.e.msg, "sm=132 is not below sms = 132");
        ck_assert_uint_eq(r.sim.k[0].total.accesses, 2);
        tests_run_end(&r);
    }
}
END_TEST

START_TEST(reset_event)
{
    struct tests_run r;
    const char *kv[] = {"l2_size=4KiB", "ways=4", "partitions=1", "setaside=0", "setaside_max=4KiB", NULL};
    tests_run_start(&r, SEM_HARDWARE, kv);
    /* one persisting line, then a normal sweep of 256 lines (8x the L2):
     * it survives; after reset it does not. */
    char *sw = sweep(0x100000, 256, "", "evict_normal");
    tests_run_ok(&r, "R 0 128 persisting\n");
    tests_run_ok(&r, sw);
    tests_run_ok(&r, "kernel check1\nR 0 128\n");
    ck_assert_uint_eq(r.sim.k[1].total.sector_hits, 4);
    tests_run_ok(&r, "reset\n");
    tests_run_ok(&r, sw);
    tests_run_ok(&r, "kernel check2\nR 0 128\n");
    ck_assert_uint_eq(r.sim.k[2].total.sector_hits, 0);
    free(sw);
    tests_run_end(&r);
}
END_TEST

START_TEST(tags_defined_midway)
{
    /* a policy defined after a kernel started still gets its own counters */
    struct tests_run r;
    tests_run_start(&r, SEM_HARDWARE, NULL);
    tests_run_ok(&r, "kernel k\nR 0 128\n");
    uint32_t ntag0 = r.sim.k[0].ntag;
    char text[4096] = "";
    for (int i = 0; i < 40; i++) {
        char line[128];
        snprintf(line, sizeof line, "policy p%d interleaved evict_first 1.0 api=ptx\nR 0x%x 128 p%d\n", i,
                 0x10000 * (i + 1), i);
        strcat(text, line);
    }
    tests_run_ok(&r, text);
    ck_assert_uint_gt(r.sim.k[0].ntag, ntag0);
    ck_assert_uint_eq(tag_ctr(&r, 0, "p39").accesses, 1);
    ck_assert_uint_eq(tag_ctr(&r, 0, "p0").sectors, 4);
    ck_assert_uint_eq(r.sim.k[0].prio[PRIO_EVICT_FIRST].accesses, 40);
    tests_run_end(&r);
}
END_TEST

Suite *sim_suite(void)
{
    Suite *s = suite_create("sim");
    TCase *tc = tcase_create("counters");
    tcase_add_test(tc, per_kernel_counters);
    tcase_add_test(tc, default_kernel);
    tcase_add_test(tc, per_priority_and_tag);
    tcase_add_test(tc, read_sectors_only_loads);
    tcase_add_test(tc, read_near_counts_loads);
    tcase_add_test(tc, access_spanning_two_lines);
    tcase_add_test(tc, discard_full_lines_only);
    tcase_add_test(tc, tags_defined_midway);
    suite_add_tcase(s, tc);
    tc = tcase_create("resolver");
    tcase_add_test(tc, window_scope);
    tcase_add_test(tc, window_streams);
    tcase_add_test(tc, window_share);
    tcase_add_test(tc, semantics_libcu_interleaved);
    tcase_add_test(tc, range_unspecified);
    tcase_add_test(tc, window_unaligned_base);
    tcase_add_test(tc, range_documented_unaligned_base);
    tcase_add_test(tc, policy_override_wins);
    tcase_add_test(tc, policy_file_window_and_setaside);
    tcase_add_test(tc, setaside_events);
    tcase_add_test(tc, sm_bounds);
    tcase_add_test(tc, events_batch_as_one_by_one);
    tcase_add_test(tc, events_batch_error_index);
    tcase_add_test(tc, simulate_as_one_by_one);
    tcase_add_test(tc, reset_event);
    tcase_add_test(tc, partial_write_fill);
    suite_add_tcase(s, tc);
    return s;
}

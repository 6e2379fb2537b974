/*
 * test_l2.c - the L2 system on tiny configurations: sector accounting,
 * write-allocate and write-back, discard, priority updates, no_allocate,
 * set-aside quota, reset, and near/far partitions with copies.
 */
#include "tests.h"

#include "l2.h"
#include "sim.h"

/* A 4 KiB L2, 4 ways, `parts` partitions, 4 SMs (sm mod parts), set-aside
 * 0 with a floor of 1 way, plus the extra "key=value" settings. */
static void tiny_config(struct l2_config *c, unsigned parts, const char *const *extra)
{
    char kv[64];
    snprintf(kv, sizeof kv, "partitions=%u", parts);
    const char *base[] = {"l2_size=4KiB", "ways=4", "sms=4", "sm_map=mod", "setaside_max=4KiB", "setaside=0",
                          "setaside_floor_ways=1", "quota_sets=1", kv, NULL};
    l2_config_defaults(c);
    tests_config(c, base);
    tests_config(c, extra);
}

static void tiny(struct l2 *l, unsigned parts, const char *const *extra)
{
    struct l2_config c;
    l2_err e;
    tiny_config(&c, parts, extra);
    ck_assert_msg(l2_init(l, &c, &e) == 0, "%s", e.msg);
}

/* The first n lines (from 1000) whose set is `set` and, if home >= 0,
 * whose home partition is `home`. */
static void lines_in_set(const struct l2 *l, uint32_t set, int home, unsigned n, uint64_t *out)
{
    unsigned k = 0;
    for (uint64_t line = 1000; k < n; line++) {
        unsigned h;
        uint32_t s;
        l2_locate(l, line, &h, &s);
        if (s == set && (home < 0 || (int)h == home))
            out[k++] = line;
        ck_assert_uint_lt(line, 10000000);
    }
}

static int64_t slot_of(const struct l2 *l, unsigned part, uint64_t line)
{
    unsigned h;
    uint32_t set;
    l2_locate(l, line, &h, &set);
    return l2_cache_find(&l->part[part], set, line);
}

/* Slot of a line that must be resident in partition `part`. */
static uint64_t resident(const struct l2 *l, unsigned part, uint64_t line)
{
    int64_t s = slot_of(l, part, line);
    ck_assert_msg(s >= 0, "line %llu is not in partition %u", (unsigned long long)line, part);
    return (uint64_t)s;
}

/* One access; returns the outcome. */
static struct l2_outcome acc(struct l2 *l, enum l2_op op, enum l2_prio p, uint64_t line, uint8_t mask, int sm)
{
    struct l2_outcome o;
    memset(&o, 0xa5, sizeof o);
    l2_access(l, op, p, line, mask, sm, &o);
    return o;
}

START_TEST(geometry)
{
    struct l2 l;
    tiny(&l, 1, NULL);
    ck_assert_uint_eq(l.nparts, 1);
    ck_assert_uint_eq(l.sets, 8);
    ck_assert_uint_eq(l.line_shift, 7);
    ck_assert_uint_eq(l.sector_shift, 5);
    ck_assert_uint_eq(l.sectors, 4);
    for (uint64_t line = 0; line < 1000; line++) {
        unsigned h;
        uint32_t s;
        l2_locate(&l, line, &h, &s);
        ck_assert_uint_eq(h, 0);
        ck_assert_uint_lt(s, 8);
    }
    l2_free(&l);
    tiny(&l, 2, NULL);
    ck_assert_uint_eq(l.sets, 4);
    unsigned homes[2] = {0, 0};
    for (uint64_t line = 0; line < 1000; line++)
        homes[l2_home(&l, line)]++;
    ck_assert_uint_gt(homes[0], 400);
    ck_assert_uint_gt(homes[1], 400);
    l2_free(&l);
}
END_TEST

START_TEST(sector_accounting)
{
    struct l2 l;
    struct l2_outcome o;
    tiny(&l, 1, NULL);
    const uint64_t L = 4242;
    o = acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, L, 0x1, -1);
    ck_assert_uint_eq(o.hit, 0);
    ck_assert_uint_eq(o.near_hit, 0);
    ck_assert_uint_eq(o.line_miss, 0x1);
    ck_assert_uint_eq(o.dram_rd, 32);
    ck_assert_uint_eq(o.dram_wr, 0);
    o = acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, L, 0x1, -1);
    ck_assert_uint_eq(o.hit, 0x1);
    ck_assert_uint_eq(o.near_hit, 0x1);
    ck_assert_uint_eq(o.line_miss, 0);
    ck_assert_uint_eq(o.dram_rd, 0);
    /* partial hit: the line is there, 3 sectors are not (sector misses) */
    o = acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, L, 0xf, -1);
    ck_assert_uint_eq(o.hit, 0x1);
    ck_assert_uint_eq(o.line_miss, 0);
    ck_assert_uint_eq(o.dram_rd, 96);
    o = acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, L, 0xf, -1);
    ck_assert_uint_eq(o.hit, 0xf);
    ck_assert_uint_eq(o.dram_rd, 0);
    /* only the sectors asked for are filled */
    o = acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, L + 1, 0x6, -1);
    ck_assert_uint_eq(o.line_miss, 0x6);
    ck_assert_uint_eq(o.dram_rd, 64);
    ck_assert_uint_eq(*l2_cache_valid(&l.part[0], resident(&l, 0, L + 1)), 0x6);
    l2_free(&l);
}
END_TEST

START_TEST(dram_atom_granules)
{
    struct l2 l;
    struct l2_outcome o;
    const char *extra[] = {"dram_atom=64", NULL};
    tiny(&l, 1, extra);
    o = acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, 10, 0x1, -1);
    ck_assert_uint_eq(o.dram_rd, 64);
    o = acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, 11, 0x3, -1);
    ck_assert_uint_eq(o.dram_rd, 64);
    o = acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, 12, 0x5, -1);
    ck_assert_uint_eq(o.dram_rd, 128);
    o = acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, 13, 0x6, -1);
    ck_assert_uint_eq(o.dram_rd, 128);
    l2_free(&l);
}
END_TEST

/* Sector counts through the simulator: a 32-byte access is 1 sector,
 * 512 bytes are 4 lines of 4 sectors. */
START_TEST(sector_accounting_sim)
{
    struct l2_config c;
    struct l2_symtab syms;
    struct l2_sim s;
    l2_err e;
    tiny_config(&c, 1, NULL);
    ck_assert_int_eq(l2_symtab_init(&syms, &e), 0);
    ck_assert_int_eq(l2_sim_init(&s, &c, SEM_HARDWARE, &syms, &e), 0);
    struct l2_event ev;
    memset(&ev, 0, sizeof ev);
    ev.type = EV_ACCESS;
    ev.op = OP_READ;
    ev.tag = L2_TAG_GLOBAL;
    ev.sm = -1;
    ev.addr = 0x10000;
    ev.size = 32;
    ck_assert_int_eq(l2_sim_event(&s, &ev, &e), 0);
    struct l2_counters *t = &s.k[0].total;
    ck_assert_uint_eq(t->sectors, 1);
    ck_assert_uint_eq(t->line_miss, 1);
    ck_assert_uint_eq(t->dram_rd, 32);
    ev.size = 512;
    ck_assert_int_eq(l2_sim_event(&s, &ev, &e), 0);
    t = &s.k[0].total;
    ck_assert_uint_eq(t->sectors, 1 + 16);
    ck_assert_uint_eq(t->sector_hits, 1);
    ck_assert_uint_eq(t->line_miss, 1 + 12);
    ck_assert_uint_eq(t->sector_miss, 3); /* line 0 was there with sector 0 */
    ck_assert_uint_eq(t->dram_rd, 32 + 15 * 32);
    ck_assert_uint_eq(t->accesses, 2);
    /* 16 bytes straddling sectors 0 and 1 of a line: 2 sectors */
    ev.addr = 0x20010 + 8;
    ev.size = 16;
    ck_assert_int_eq(l2_sim_event(&s, &ev, &e), 0);
    ck_assert_uint_eq(s.k[0].total.sectors, 19);
    /* 4 bytes inside one sector */
    ev.addr = 0x30044;
    ev.size = 4;
    ck_assert_int_eq(l2_sim_event(&s, &ev, &e), 0);
    ck_assert_uint_eq(s.k[0].total.sectors, 20);
    l2_sim_free(&s);
    l2_symtab_free(&syms);
}
END_TEST

START_TEST(write_allocate_and_writeback)
{
    struct l2 l;
    struct l2_outcome o;
    tiny(&l, 1, NULL);
    uint64_t v[6];
    lines_in_set(&l, 3, -1, 6, v);
    /* a full-line store: allocated, no DRAM read */
    o = acc(&l, OP_WRITE, PRIO_EVICT_UNCHANGED, v[0], 0xf, -1);
    ck_assert_uint_eq(o.dram_rd, 0);
    ck_assert_uint_eq(o.dram_wr, 0);
    ck_assert_uint_eq(o.hit, 0);
    ck_assert_uint_eq(o.line_miss, 0xf);
    int64_t s0 = slot_of(&l, 0, v[0]);
    ck_assert_int_ge(s0, 0);
    ck_assert_uint_eq(*l2_cache_valid(&l.part[0], s0), 0xf);
    ck_assert_uint_eq(*l2_cache_dirty(&l.part[0], s0), 0xf);
    /* a partial store: one dirty sector */
    o = acc(&l, OP_WRITE, PRIO_EVICT_UNCHANGED, v[1], 0x4, -1);
    ck_assert_uint_eq(o.dram_rd, 0);
    /* reading the stored data hits; the other sectors come from DRAM */
    o = acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, v[1], 0xf, -1);
    ck_assert_uint_eq(o.hit, 0x4);
    ck_assert_uint_eq(o.dram_rd, 96);
    ck_assert_uint_eq(o.line_miss, 0);
    /* a store hit keeps the line and adds dirty sectors */
    o = acc(&l, OP_WRITE, PRIO_EVICT_UNCHANGED, v[1], 0x3, -1);
    ck_assert_uint_eq(o.hit, 0x3);
    ck_assert_uint_eq(o.line_miss, 0);
    ck_assert_uint_eq(*l2_cache_dirty(&l.part[0], resident(&l, 0, v[1])), 0x7);
    /* fill the set with clean lines: v[0] (4 dirty sectors) and v[1] (3) go
     * back to DRAM when evicted, nothing else does */
    uint32_t wr = 0;
    for (int i = 2; i < 6; i++) {
        o = acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, v[i], 0xf, -1);
        ck_assert_uint_eq(o.dram_rd, 128);
        if (i == 4)
            ck_assert_uint_eq(o.dram_wr, 128); /* evicts v[0] (LRU) */
        if (i == 5)
            ck_assert_uint_eq(o.dram_wr, 96); /* evicts v[1] */
        wr += o.dram_wr;
    }
    ck_assert_uint_eq(wr, 224);
    ck_assert_int_lt(slot_of(&l, 0, v[0]), 0);
    ck_assert_int_lt(slot_of(&l, 0, v[1]), 0);
    /* evicting clean lines costs no write-back */
    for (int i = 0; i < 2; i++) {
        o = acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, v[i], 0xf, -1);
        ck_assert_uint_eq(o.dram_wr, 0);
    }
    l2_free(&l);
}
END_TEST

/* A set keeps first_store_ways of the lines evict_first stores wrote: a
 * further such store replaces the least recently used of them; for other
 * fills, and below the cap, they are normal lines; a hint ends the mark. */
START_TEST(store_first_cap)
{
    struct l2 l;
    tiny(&l, 1, (const char *const[]){"first_store_ways=2", NULL});
    uint64_t v[7];
    lines_in_set(&l, 3, -1, 7, v);
    for (int i = 0; i < 4; i++)
        acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, v[i], 0xf, -1);
    /* below the cap: the LRU line of the set goes (v0, then v1) */
    acc(&l, OP_WRITE, PRIO_EVICT_FIRST, v[4], 0xf, -1);
    acc(&l, OP_WRITE, PRIO_EVICT_FIRST, v[5], 0xf, -1);
    ck_assert_int_lt(slot_of(&l, 0, v[0]), 0);
    ck_assert_int_lt(slot_of(&l, 0, v[1]), 0);
    ck_assert_int_eq(l2_cache_cls(&l.part[0], resident(&l, 0, v[4])), CLS_NORMAL);
    /* at the cap: the oldest evict_first-stored line goes (v4), not v2 */
    struct l2_outcome o = acc(&l, OP_WRITE, PRIO_EVICT_FIRST, v[0], 0xf, -1);
    ck_assert_uint_eq(o.dram_wr, 128); /* v4 was dirty */
    ck_assert_int_lt(slot_of(&l, 0, v[4]), 0);
    resident(&l, 0, v[2]);
    resident(&l, 0, v[3]);
    /* a load's fill takes the LRU line: v2 (older than v5 and v0) */
    acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, v[6], 0xf, -1);
    ck_assert_int_lt(slot_of(&l, 0, v[2]), 0);
    resident(&l, 0, v[5]);
    /* an evict_normal hit ends v5's mark: one marked line (v0) is below
     * the cap, so the next evict_first store takes the LRU line, v3 */
    acc(&l, OP_READ, PRIO_EVICT_NORMAL, v[5], 0xf, -1);
    acc(&l, OP_WRITE, PRIO_EVICT_FIRST, v[1], 0xf, -1);
    ck_assert_int_lt(slot_of(&l, 0, v[3]), 0);
    resident(&l, 0, v[0]);
    resident(&l, 0, v[5]);
    l2_free(&l);
}
END_TEST

/* start_full: the cache starts with every way holding a stale line that
 * no access finds and no fill writes back, older than any line the trace
 * brings.  A normal stream of `ways` lines into a set keeps all of them
 * either way; an evict_first one finds no empty way, so once its set holds
 * first_ways of them each fill takes one of its own (starting empty, it
 * would fill all four ways first). */
START_TEST(start_full_stale_lines)
{
    for (int full = 0; full < 2; full++) {
        struct l2 l;
        tiny(&l, 1, (const char *const[]){full ? "start_full=1" : "start_full=0", "first_ways=1", NULL});
        uint64_t v[4];
        lines_in_set(&l, 5, -1, 4, v);
        for (int i = 0; i < 4; i++) {
            struct l2_outcome o = acc(&l, OP_READ, PRIO_EVICT_FIRST, v[i], 0xf, -1);
            ck_assert_uint_eq(o.hit, 0);
            ck_assert_uint_eq(o.dram_wr, 0); /* a stale line is clean */
        }
        int kept = 0;
        for (int i = 0; i < 4; i++)
            kept += slot_of(&l, 0, v[i]) >= 0;
        ck_assert_int_eq(kept, full ? 1 : 4);
        resident(&l, 0, v[3]); /* the newest */
        if (full) {
            /* a normal fill takes the evict_first line first, then the
             * stale lines, the oldest */
            acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, v[0], 0xf, -1);
            acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, v[1], 0xf, -1);
            acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, v[2], 0xf, -1);
            for (int i = 0; i < 3; i++)
                resident(&l, 0, v[i]); /* v3 (evict_first) went first, then the two stale lines */
            ck_assert_int_lt(slot_of(&l, 0, v[3]), 0);
            /* l2_clear starts full again */
            l2_clear(&l);
            ck_assert_int_lt(slot_of(&l, 0, v[0]), 0);
            acc(&l, OP_READ, PRIO_EVICT_FIRST, v[0], 0xf, -1);
            acc(&l, OP_READ, PRIO_EVICT_FIRST, v[1], 0xf, -1);
            ck_assert_int_lt(slot_of(&l, 0, v[0]), 0);
            resident(&l, 0, v[1]);
        }
        /* a normal stream of `ways` lines into a fresh set keeps all of them */
        l2_clear(&l);
        for (int i = 0; i < 4; i++)
            acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, v[i], 0xf, -1);
        for (int i = 0; i < 4; i++)
            resident(&l, 0, v[i]);
        l2_free(&l);
    }
}
END_TEST

START_TEST(discard_drops)
{
    struct l2 l;
    struct l2_outcome o;
    tiny(&l, 1, NULL);
    uint64_t v[5];
    lines_in_set(&l, 5, -1, 5, v);
    acc(&l, OP_WRITE, PRIO_EVICT_UNCHANGED, v[0], 0xf, -1);
    o = acc(&l, OP_DISCARD, PRIO_EVICT_UNCHANGED, v[0], 0xf, -1);
    ck_assert_uint_eq(o.dram_wr, 0);
    ck_assert_uint_eq(o.dram_rd, 0);
    ck_assert_int_lt(slot_of(&l, 0, v[0]), 0);
    uint32_t wr = 0;
    for (int i = 1; i < 5; i++)
        wr += acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, v[i], 0xf, -1).dram_wr;
    ck_assert_uint_eq(wr, 0);
    /* the data is gone: reading it again is a line miss */
    o = acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, v[0], 0xf, -1);
    ck_assert_uint_eq(o.line_miss, 0xf);
    ck_assert_uint_eq(o.dram_rd, 128);
    /* discarding an absent line does nothing */
    o = acc(&l, OP_DISCARD, PRIO_EVICT_UNCHANGED, 999999, 0xf, -1);
    ck_assert_uint_eq(o.dram_wr, 0);
    l2_free(&l);
}
END_TEST

/* Streams `n` normal loads of other lines of v's set; returns whether
 * `line` is still resident. */
static int survives(struct l2 *l, uint64_t line, const uint64_t *others, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        acc(l, OP_READ, PRIO_EVICT_NORMAL, others[i], 0xf, -1);
    return slot_of(l, l2_home(l, line), line) >= 0;
}

START_TEST(applypriority_demotes)
{
    struct l2 l;
    tiny(&l, 1, NULL);
    ck_assert_uint_eq(l.quota, 1);
    uint64_t v[12];
    lines_in_set(&l, 2, -1, 12, v);
    acc(&l, OP_READ, PRIO_EVICT_LAST, v[0], 0xf, -1);
    ck_assert_uint_eq(l2_cache_cls(&l.part[0], resident(&l, 0, v[0])), CLS_LAST);
    ck_assert(survives(&l, v[0], v + 1, 5)); /* protected by the quota of 1 way */
    struct l2_outcome o = acc(&l, OP_APPLY, PRIO_EVICT_NORMAL, v[0], 0xf, -1);
    ck_assert_uint_eq(o.dram_rd, 0);
    ck_assert_uint_eq(l2_cache_cls(&l.part[0], resident(&l, 0, v[0])), CLS_NORMAL);
    ck_assert_uint_eq(*l2_cache_valid(&l.part[0], resident(&l, 0, v[0])), 0xf); /* still resident */
    ck_assert(!survives(&l, v[0], v + 6, 4));
    l2_free(&l);
}
END_TEST

START_TEST(hit_priority_updates)
{
    struct l2 l;
    tiny(&l, 1, NULL);
    uint64_t v[12];
    lines_in_set(&l, 6, -1, 12, v);
    /* evict_unchanged and no_allocate hits keep evict_last */
    acc(&l, OP_READ, PRIO_EVICT_LAST, v[0], 0xf, -1);
    acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, v[0], 0xf, -1);
    ck_assert_uint_eq(l2_cache_cls(&l.part[0], resident(&l, 0, v[0])), CLS_LAST);
    acc(&l, OP_READ, PRIO_NO_ALLOCATE, v[0], 0xf, -1);
    ck_assert_uint_eq(l2_cache_cls(&l.part[0], resident(&l, 0, v[0])), CLS_LAST);
    acc(&l, OP_WRITE, PRIO_EVICT_UNCHANGED, v[0], 0x1, -1);
    ck_assert_uint_eq(l2_cache_cls(&l.part[0], resident(&l, 0, v[0])), CLS_LAST);
    ck_assert(survives(&l, v[0], v + 1, 5));
    /* an evict_normal hit demotes it */
    acc(&l, OP_READ, PRIO_EVICT_NORMAL, v[0], 0x1, -1);
    ck_assert_uint_eq(l2_cache_cls(&l.part[0], resident(&l, 0, v[0])), CLS_NORMAL);
    ck_assert(!survives(&l, v[0], v + 6, 4));
    /* evict_first hits make a line FIRST; evict_last hits promote */
    acc(&l, OP_READ, PRIO_EVICT_NORMAL, v[1], 0xf, -1);
    acc(&l, OP_READ, PRIO_EVICT_FIRST, v[1], 0xf, -1);
    ck_assert_uint_eq(l2_cache_cls(&l.part[0], resident(&l, 0, v[1])), CLS_FIRST);
    acc(&l, OP_READ, PRIO_EVICT_LAST, v[1], 0xf, -1);
    ck_assert_uint_eq(l2_cache_cls(&l.part[0], resident(&l, 0, v[1])), CLS_LAST);
    acc(&l, OP_WRITE, PRIO_EVICT_NORMAL, v[1], 0xf, -1);
    ck_assert_uint_eq(l2_cache_cls(&l.part[0], resident(&l, 0, v[1])), CLS_NORMAL);
    /* fills: evict_first -> FIRST, evict_unchanged -> NORMAL */
    acc(&l, OP_READ, PRIO_EVICT_FIRST, v[2], 0xf, -1);
    ck_assert_uint_eq(l2_cache_cls(&l.part[0], resident(&l, 0, v[2])), CLS_FIRST);
    acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, v[3], 0xf, -1);
    ck_assert_uint_eq(l2_cache_cls(&l.part[0], resident(&l, 0, v[3])), CLS_NORMAL);
    acc(&l, OP_WRITE, PRIO_EVICT_LAST, v[4], 0xf, -1);
    ck_assert_uint_eq(l2_cache_cls(&l.part[0], resident(&l, 0, v[4])), CLS_LAST);
    l2_free(&l);
}
END_TEST

/* An evict_first hit leaves a protected evict_last line evict_last.  At
 * set-aside 0 a second one in the set passes the floor of 1 way and both
 * are unprotected; with a set-aside of 1 way the second demotes the first
 * (the set-aside's least recently used) to normal.  Either way an
 * evict_first hit then makes the first evict_first. */
START_TEST(first_hit_keeps_protected_last)
{
    for (int aside = 0; aside < 2; aside++) {
        struct l2 l;
        const char *extra[] = {aside ? "setaside=1KiB" : "setaside=0", NULL};
        tiny(&l, 1, extra);
        ck_assert_uint_eq(l.quota, 1);
        ck_assert_int_eq(l.part[0].fifo, aside);
        uint64_t v[12];
        lines_in_set(&l, 3, -1, 12, v);
        acc(&l, OP_READ, PRIO_EVICT_LAST, v[0], 0xf, -1);
        acc(&l, OP_READ, PRIO_EVICT_FIRST, v[0], 0xf, -1);
        ck_assert_uint_eq(l2_cache_cls(&l.part[0], resident(&l, 0, v[0])), CLS_LAST);
        ck_assert(survives(&l, v[0], v + 2, 5));
        acc(&l, OP_READ, PRIO_EVICT_LAST, v[1], 0xf, -1);
        ck_assert_uint_eq(l2_cache_cls(&l.part[0], resident(&l, 0, v[0])), aside ? CLS_NORMAL : CLS_LAST);
        acc(&l, OP_READ, PRIO_EVICT_FIRST, v[0], 0xf, -1);
        ck_assert_uint_eq(l2_cache_cls(&l.part[0], resident(&l, 0, v[0])), CLS_FIRST);
        ck_assert_uint_eq(l2_cache_cls(&l.part[0], resident(&l, 0, v[1])), CLS_LAST);
        l2_free(&l);
    }
}
END_TEST

START_TEST(no_allocate_does_not_fill)
{
    struct l2 l;
    struct l2_outcome o;
    tiny(&l, 1, NULL);
    const uint64_t L = 777;
    for (int i = 0; i < 2; i++) {
        o = acc(&l, OP_READ, PRIO_NO_ALLOCATE, L, 0xf, -1);
        ck_assert_uint_eq(o.hit, 0);
        ck_assert_uint_eq(o.line_miss, 0xf);
        ck_assert_uint_eq(o.dram_rd, 128);
        ck_assert_int_lt(slot_of(&l, 0, L), 0);
    }
    /* a missing no_allocate store writes through */
    o = acc(&l, OP_WRITE, PRIO_NO_ALLOCATE, L, 0x3, -1);
    ck_assert_uint_eq(o.dram_wr, 64);
    ck_assert_uint_eq(o.dram_rd, 0);
    ck_assert_int_lt(slot_of(&l, 0, L), 0);
    /* a no_allocate load of a resident line hits; its missing sectors are
     * read but not filled */
    acc(&l, OP_READ, PRIO_EVICT_NORMAL, L, 0x1, -1);
    o = acc(&l, OP_READ, PRIO_NO_ALLOCATE, L, 0x3, -1);
    ck_assert_uint_eq(o.hit, 0x1);
    ck_assert_uint_eq(o.dram_rd, 32);
    ck_assert_uint_eq(*l2_cache_valid(&l.part[0], resident(&l, 0, L)), 0x1);
    /* a no_allocate prefetch fills nothing either */
    o = acc(&l, OP_PREFETCH, PRIO_NO_ALLOCATE, L + 1, 0xf, -1);
    ck_assert_uint_eq(o.dram_rd, 128);
    ck_assert_int_lt(slot_of(&l, 0, L + 1), 0);
    l2_free(&l);
}
END_TEST

START_TEST(prefetch_fills)
{
    struct l2 l;
    struct l2_outcome o;
    tiny(&l, 1, NULL);
    o = acc(&l, OP_PREFETCH, PRIO_EVICT_LAST, 55, 0xf, -1);
    ck_assert_uint_eq(o.dram_rd, 128);
    ck_assert_uint_eq(l2_cache_cls(&l.part[0], resident(&l, 0, 55)), CLS_LAST);
    o = acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, 55, 0xf, -1);
    ck_assert_uint_eq(o.hit, 0xf);
    l2_free(&l);
}
END_TEST

START_TEST(quota_ways)
{
    struct l2_config c;
    l2_err e;
    tiny_config(&c, 1, NULL);
    /* unit = 4096 / 4 = 1024 bytes a way */
    ck_assert_uint_eq(l2_quota_ways(&c, 0), 1); /* the floor */
    ck_assert_uint_eq(l2_quota_ways(&c, 1), 1);
    ck_assert_uint_eq(l2_quota_ways(&c, 1024), 1);
    ck_assert_uint_eq(l2_quota_ways(&c, 1025), 2);
    ck_assert_uint_eq(l2_quota_ways(&c, 2048), 2);
    ck_assert_uint_eq(l2_quota_ways(&c, 3000), 3);
    ck_assert_uint_eq(l2_quota_ways(&c, 4096), 4);
    ck_assert_int_eq(l2_config_set(&c, "setaside_floor_ways=0", &e), 0);
    ck_assert_uint_eq(l2_quota_ways(&c, 0), 0);
    ck_assert_uint_eq(l2_quota_ways(&c, 1), 1);
    ck_assert_int_eq(l2_config_set(&c, "setaside_floor_ways=3", &e), 0);
    ck_assert_uint_eq(l2_quota_ways(&c, 1025), 3);
    ck_assert_uint_eq(l2_quota_ways(&c, 3073), 4);
    /* H100: L2/16 = 3,276,800 bytes a way */
    l2_config_defaults(&c);
    ck_assert_uint_eq(l2_quota_ways(&c, 0), 1);
    ck_assert_uint_eq(l2_quota_ways(&c, 9830400), 3);
    ck_assert_uint_eq(l2_quota_ways(&c, 3276801), 2);
    ck_assert_uint_eq(l2_quota_ways(&c, 32768000), 10);
}
END_TEST

START_TEST(setaside_quota)
{
    struct l2 l;
    l2_err e;
    const char *extra[] = {"setaside=2KiB", NULL};
    tiny(&l, 1, extra);
    ck_assert_uint_eq(l.quota, 2);
    ck_assert_uint_eq(l.part[0].quota, 2);
    uint64_t v[20];
    lines_in_set(&l, 1, -1, 20, v);
    /* two evict_last lines survive a normal stream with a 2-way quota */
    acc(&l, OP_READ, PRIO_EVICT_LAST, v[0], 0xf, -1);
    acc(&l, OP_READ, PRIO_EVICT_LAST, v[1], 0xf, -1);
    ck_assert(survives(&l, v[0], v + 2, 6));
    ck_assert(slot_of(&l, 0, v[1]) >= 0);
    /* set-aside 0: a floor of 1 way; the older evict_last line goes */
    ck_assert_int_eq(l2_set_setaside(&l, 0, &e), 0);
    ck_assert_uint_eq(l.quota, 1);
    ck_assert_uint_eq(l.part[0].quota, 1);
    ck_assert_uint_eq(l.setaside, 0);
    ck_assert(!survives(&l, v[0], v + 8, 6));
    ck_assert(slot_of(&l, 0, v[1]) >= 0);
    ck_assert(survives(&l, v[1], v + 14, 6));
    /* above setaside_max: an error, nothing changes */
    ck_assert_int_eq(l2_set_setaside(&l, 4097, &e), -1);
    ASSERT_CONTAINS(e.msg, "exceeds the maximum");
    ck_assert_uint_eq(l.quota, 1);
    /* l2_clear restores the configured set-aside and empties the cache */
    ck_assert_int_eq(l2_set_setaside(&l, 4096, &e), 0);
    ck_assert_uint_eq(l.quota, 4);
    l2_clear(&l);
    ck_assert_uint_eq(l.setaside, 2048);
    ck_assert_uint_eq(l.quota, 2);
    ck_assert_int_lt(slot_of(&l, 0, v[1]), 0);
    l2_free(&l);
}
END_TEST

START_TEST(floor_ways)
{
    struct l2 l;
    const char *extra[] = {"setaside_floor_ways=2", NULL};
    tiny(&l, 1, extra);
    ck_assert_uint_eq(l.quota, 2);
    uint64_t v[10];
    lines_in_set(&l, 4, -1, 10, v);
    acc(&l, OP_READ, PRIO_EVICT_LAST, v[0], 0xf, -1);
    acc(&l, OP_READ, PRIO_EVICT_LAST, v[1], 0xf, -1);
    ck_assert(survives(&l, v[0], v + 2, 8));
    ck_assert(slot_of(&l, 0, v[1]) >= 0);
    l2_free(&l);
    /* no floor, no set-aside: evict_last is just LRU */
    const char *extra0[] = {"setaside_floor_ways=0", NULL};
    tiny(&l, 1, extra0);
    ck_assert_uint_eq(l.quota, 0);
    lines_in_set(&l, 4, -1, 10, v);
    acc(&l, OP_READ, PRIO_EVICT_LAST, v[0], 0xf, -1);
    ck_assert(!survives(&l, v[0], v + 2, 4));
    l2_free(&l);
}
END_TEST

START_TEST(reset_demotes)
{
    struct l2 l;
    const char *extra[] = {"setaside=2KiB", NULL}; /* 2 ways: v[0] and v[1] are both persisting */
    tiny(&l, 2, extra);
    uint64_t v[12], w[6], x[1];
    lines_in_set(&l, 0, 0, 12, v);
    lines_in_set(&l, 1, 0, 6, w);
    lines_in_set(&l, 2, 1, 1, x);
    acc(&l, OP_READ, PRIO_EVICT_LAST, v[0], 0xf, 0); /* sm 0: home partition 0 */
    acc(&l, OP_READ, PRIO_EVICT_LAST, v[1], 0xf, 1); /* sm 1: far, copy in 1 */
    acc(&l, OP_READ, PRIO_EVICT_LAST, w[0], 0xf, 0); /* alone in its set: within the quota */
    acc(&l, OP_READ, PRIO_EVICT_LAST, x[0], 0xf, 1); /* homed in partition 1 */
    ck_assert_uint_eq(l2_cache_cls(&l.part[0], resident(&l, 0, v[0])), CLS_LAST);
    ck_assert_uint_eq(l2_cache_cls(&l.part[0], resident(&l, 0, v[1])), CLS_LAST);
    ck_assert_uint_eq(l2_cache_cls(&l.part[1], resident(&l, 1, x[0])), CLS_LAST);
    l2_reset_persisting(&l);
    ck_assert_uint_eq(l2_cache_cls(&l.part[0], resident(&l, 0, v[0])), CLS_NORMAL);
    ck_assert_uint_eq(l2_cache_cls(&l.part[0], resident(&l, 0, v[1])), CLS_NORMAL);
    ck_assert_uint_eq(l2_cache_cls(&l.part[1], resident(&l, 1, x[0])), CLS_NORMAL); /* every partition */
    ck_assert_uint_eq(*l2_cache_valid(&l.part[0], resident(&l, 0, v[0])), 0xf);
    ck_assert(!survives(&l, v[0], v + 2, 4));
    /* the quota protected w[0] (applypriority_demotes shows it survives
     * these loads); demoted, it is evicted like a normal line */
    ck_assert(!survives(&l, w[0], w + 1, 5));
    l2_free(&l);
}
END_TEST

START_TEST(far_load_copies_near)
{
    struct l2 l;
    struct l2_outcome o;
    tiny(&l, 2, NULL);
    uint64_t v[1];
    lines_in_set(&l, 1, 0, 1, v); /* home 0 */
    const uint64_t L = v[0];
    const int far_sm = 1, far_sm2 = 3, home_sm = 2; /* sm mod 2 */
    ck_assert_uint_eq(l.sm_part[far_sm], 1);
    ck_assert_uint_eq(l.sm_part[home_sm], 0);
    o = acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, L, 0xf, far_sm);
    ck_assert_uint_eq(o.hit, 0);
    ck_assert_uint_eq(o.near_hit, 0);
    ck_assert_uint_eq(o.line_miss, 0xf);
    ck_assert_uint_eq(o.dram_rd, 128);
    /* filled at home, copied near */
    ck_assert_int_ge(slot_of(&l, 0, L), 0);
    ck_assert_int_ge(slot_of(&l, 1, L), 0);
    ck_assert_uint_eq(*l2_cache_valid(&l.part[1], resident(&l, 1, L)), 0xf);
    ck_assert_uint_eq(*l2_cache_dirty(&l.part[1], resident(&l, 1, L)), 0);
    /* the same SM (and any SM of partition 1) hits near */
    o = acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, L, 0xf, far_sm);
    ck_assert_uint_eq(o.hit, 0xf);
    ck_assert_uint_eq(o.near_hit, 0xf);
    ck_assert_uint_eq(o.dram_rd, 0);
    o = acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, L, 0x2, far_sm2);
    ck_assert_uint_eq(o.near_hit, 0x2);
    /* an SM of the home partition hits near directly */
    o = acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, L, 0xf, home_sm);
    ck_assert_uint_eq(o.hit, 0xf);
    ck_assert_uint_eq(o.near_hit, 0xf);
    ck_assert_uint_eq(o.dram_rd, 0);
    /* no SM: goes to the home partition */
    o = acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, L, 0xf, -1);
    ck_assert_uint_eq(o.near_hit, 0xf);
    l2_free(&l);
}
END_TEST

/* dram_atom 64: a missed sector is filled with its neighbour (a later read
 * of the neighbour hits), and between partitions data moves in granules:
 * a far read of one sector leaves the pair near, and a far read whose
 * neighbour the home lacks reads the neighbour from DRAM too. */
START_TEST(granules_fill_and_move)
{
    struct l2 l;
    struct l2_outcome o;
    const char *extra[] = {"dram_atom=64", NULL};
    tiny(&l, 2, extra);
    uint64_t v[2];
    lines_in_set(&l, 1, 0, 2, v); /* home 0 */
    const int far_sm = 1, home_sm = 2;
    /* at home: sector 0 read, sectors 0-1 filled */
    o = acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, v[0], 0x1, home_sm);
    ck_assert_uint_eq(o.dram_rd, 64);
    ck_assert_uint_eq(*l2_cache_valid(&l.part[0], resident(&l, 0, v[0])), 0x3);
    o = acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, v[0], 0x2, home_sm);
    ck_assert_uint_eq(o.hit, 0x2);
    ck_assert_uint_eq(o.dram_rd, 0);
    /* far: sector 1 hits at home; the copy gets sectors 0-1 */
    o = acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, v[0], 0x2, far_sm);
    ck_assert_uint_eq(o.hit, 0x2);
    ck_assert_uint_eq(o.near_hit, 0);
    ck_assert_uint_eq(*l2_cache_valid(&l.part[1], resident(&l, 1, v[0])), 0x3);
    o = acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, v[0], 0x1, far_sm);
    ck_assert_uint_eq(o.near_hit, 0x1);
    /* the home holds only sector 2 of v[1] (a store); a far read of it
     * moves sectors 2-3: sector 3 comes from DRAM, and only the requested
     * sector counts as a hit */
    o = acc(&l, OP_WRITE, PRIO_EVICT_UNCHANGED, v[1], 0x4, home_sm);
    o = acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, v[1], 0x4, far_sm);
    ck_assert_uint_eq(o.hit, 0x4);
    ck_assert_uint_eq(o.line_miss, 0);
    ck_assert_uint_eq(o.dram_rd, 64);
    ck_assert_uint_eq(*l2_cache_valid(&l.part[0], resident(&l, 0, v[1])), 0xc);
    ck_assert_uint_eq(*l2_cache_valid(&l.part[1], resident(&l, 1, v[1])), 0xc);
    l2_free(&l);
}
END_TEST

START_TEST(far_hit_without_copy)
{
    struct l2 l;
    struct l2_outcome o;
    tiny(&l, 2, NULL);
    uint64_t v[1];
    lines_in_set(&l, 2, 1, 1, v); /* home 1 */
    const uint64_t L = v[0];
    /* loaded by an SM of the home partition: no copy in partition 0 */
    acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, L, 0xf, 1);
    ck_assert_int_lt(slot_of(&l, 0, L), 0);
    /* a far SM: an L2 hit (no DRAM) but not a near hit */
    o = acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, L, 0xf, 0);
    ck_assert_uint_eq(o.hit, 0xf);
    ck_assert_uint_eq(o.near_hit, 0);
    ck_assert_uint_eq(o.dram_rd, 0);
    ck_assert_uint_eq(o.line_miss, 0);
    o = acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, L, 0xf, 0);
    ck_assert_uint_eq(o.near_hit, 0xf);
    l2_free(&l);

    /* far_copy = 0: far hits stay far */
    const char *extra[] = {"far_copy=0", NULL};
    tiny(&l, 2, extra);
    lines_in_set(&l, 2, 1, 1, v);
    acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, v[0], 0xf, 0);
    o = acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, v[0], 0xf, 0);
    ck_assert_uint_eq(o.hit, 0xf);
    ck_assert_uint_eq(o.near_hit, 0);
    ck_assert_int_lt(slot_of(&l, 0, v[0]), 0);
    l2_free(&l);
}
END_TEST

START_TEST(copy_classes)
{
    struct l2 l;
    tiny(&l, 2, NULL);
    uint64_t v[2];
    lines_in_set(&l, 3, 0, 2, v);
    /* evict_last far load: LAST at home, a normal copy near */
    acc(&l, OP_READ, PRIO_EVICT_LAST, v[0], 0xf, 1);
    ck_assert_uint_eq(l2_cache_cls(&l.part[0], resident(&l, 0, v[0])), CLS_LAST);
    ck_assert_uint_eq(l2_cache_cls(&l.part[1], resident(&l, 1, v[0])), CLS_NORMAL);
    /* a near evict_normal hit also demotes the home line */
    acc(&l, OP_READ, PRIO_EVICT_NORMAL, v[0], 0xf, 1);
    ck_assert_uint_eq(l2_cache_cls(&l.part[0], resident(&l, 0, v[0])), CLS_NORMAL);
    /* a near evict_last hit promotes the home line, the copy stays normal */
    acc(&l, OP_READ, PRIO_EVICT_LAST, v[0], 0xf, 1);
    ck_assert_uint_eq(l2_cache_cls(&l.part[0], resident(&l, 0, v[0])), CLS_LAST);
    ck_assert_uint_eq(l2_cache_cls(&l.part[1], resident(&l, 1, v[0])), CLS_NORMAL);
    /* evict_first far load: FIRST copy */
    acc(&l, OP_READ, PRIO_EVICT_FIRST, v[1], 0xf, 1);
    ck_assert_uint_eq(l2_cache_cls(&l.part[1], resident(&l, 1, v[1])), CLS_FIRST);
    ck_assert_uint_eq(l2_cache_cls(&l.part[0], resident(&l, 0, v[1])), CLS_FIRST);
    /* applypriority without an SM demotes at home */
    acc(&l, OP_APPLY, PRIO_EVICT_NORMAL, v[0], 0xf, -1);
    ck_assert_uint_eq(l2_cache_cls(&l.part[0], resident(&l, 0, v[0])), CLS_NORMAL);
    /* discard acts where the request goes (l2.h): without an SM at home
     * only, the copy in partition 1 stays; from an SM of partition 1 the
     * near copy and the home line go */
    acc(&l, OP_DISCARD, PRIO_EVICT_UNCHANGED, v[0], 0xf, -1);
    ck_assert_int_lt(slot_of(&l, 0, v[0]), 0);
    ck_assert_int_ge(slot_of(&l, 1, v[0]), 0);
    acc(&l, OP_DISCARD, PRIO_EVICT_UNCHANGED, v[0], 0xf, 3);
    ck_assert_int_lt(slot_of(&l, 1, v[0]), 0);
    acc(&l, OP_DISCARD, PRIO_EVICT_UNCHANGED, v[1], 0xf, 1);
    ck_assert_int_lt(slot_of(&l, 0, v[1]), 0);
    ck_assert_int_lt(slot_of(&l, 1, v[1]), 0);
    l2_free(&l);
}
END_TEST

START_TEST(apply_near_and_home)
{
    struct l2 l;
    tiny(&l, 2, NULL);
    uint64_t v[1];
    lines_in_set(&l, 2, 0, 1, v);
    acc(&l, OP_READ, PRIO_EVICT_LAST, v[0], 0xf, 1);     /* home 0 LAST, copy in 1 */
    acc(&l, OP_READ, PRIO_EVICT_LAST, v[0], 0xf, 1);     /* near hit */
    ck_assert_uint_eq(l2_cache_cls(&l.part[0], resident(&l, 0, v[0])), CLS_LAST);
    acc(&l, OP_APPLY, PRIO_EVICT_NORMAL, v[0], 0xf, 1); /* from the far SM */
    ck_assert_uint_eq(l2_cache_cls(&l.part[0], resident(&l, 0, v[0])), CLS_NORMAL);
    ck_assert_int_ge(slot_of(&l, 1, v[0]), 0); /* applypriority keeps the copy */
    ck_assert_int_ge(slot_of(&l, 0, v[0]), 0);
    l2_free(&l);
}
END_TEST

START_TEST(near_hit_refreshes_home)
{
    struct l2 l;
    tiny(&l, 2, NULL);
    uint64_t v[5];
    lines_in_set(&l, 1, 0, 5, v);                          /* home 0 */
    acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, v[0], 0xf, 1); /* home fill, copy in 1 */
    for (int i = 1; i < 4; i++)
        acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, v[i], 0xf, 0);
    /* v[0] is the LRU line at home; a near hit refreshes it there */
    struct l2_outcome o = acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, v[0], 0xf, 1);
    ck_assert_uint_eq(o.near_hit, 0xf);
    acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, v[4], 0xf, 0);
    ck_assert_int_ge(slot_of(&l, 0, v[0]), 0);
    ck_assert_int_lt(slot_of(&l, 0, v[1]), 0);
    l2_free(&l);
}
END_TEST

/* A tiny L2 of `parts` partitions with `key` (a percentage) = pct. */
static void tiny_pct(struct l2 *l, unsigned parts, const char *key, unsigned pct)
{
    char kv[64];
    snprintf(kv, sizeof kv, "%s=%u", key, pct);
    const char *extra[] = {kv, NULL};
    tiny(l, parts, extra);
}

/* Of 10,000 lines, the share that `pick` (a hash's choice: l2_reprieved,
 * l2_near_refreshes) takes is none at 0%, all at 100%, and within 2 points
 * of pct otherwise. */
static void assert_share(const struct l2 *l, int (*pick)(const struct l2 *, uint64_t), unsigned pct)
{
    unsigned n = 0;
    for (uint64_t line = 0; line < 10000; line++)
        n += (unsigned)pick(l, line);
    if (pct == 0 || pct == 100)
        ck_assert_uint_eq(n, pct * 100);
    else
        ck_assert_msg(n > pct * 100 - 200 && n < pct * 100 + 200, "%u of 10000 lines at %u%%", n, pct);
}

/* Of the lines a test tried, whether a hash taking pct percent picked
 * some (seen[1]) and left some (seen[0]): only left at 0, only picked at
 * 100, both otherwise. */
static void assert_seen(const int seen[2], unsigned pct)
{
    if (pct == 0 || pct == 100)
        ck_assert_msg(seen[pct == 100] && !seen[pct != 100], "at %u%%: picked %d, left %d", pct, seen[1], seen[0]);
    else
        ck_assert_msg(seen[0] && seen[1], "at %u%% the lines tried were all picked or none", pct);
}

/* near_refresh_pct: a near hit refreshes the home line of that share of
 * the lines (a hash: none at 0, all at 100, about 30% at 30, the same
 * lines every time); the others' home lines stay as old as they were. */
START_TEST(near_refresh_share)
{
    const unsigned pcts[] = {0, 30, 100};
    for (unsigned i = 0; i < 3; i++) {
        struct l2 l;
        tiny_pct(&l, 2, "near_refresh_pct", pcts[i]);
        assert_share(&l, l2_near_refreshes, pcts[i]);
        /* as near_hit_refreshes_home: v[0], the oldest line at home, is
         * hit near; the next fill at home evicts it unless it was refreshed */
        int seen[2] = {0, 0};
        uint64_t v[40];
        lines_in_set(&l, 1, 0, 40, v); /* home 0 */
        for (unsigned j = 0; j + 5 <= 40; j += 5) {
            l2_clear(&l);
            const int refreshed = l2_near_refreshes(&l, v[j]);
            seen[refreshed] = 1;
            acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, v[j], 0xf, 1); /* home fill, copy in 1 */
            for (unsigned k = 1; k < 4; k++)
                acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, v[j + k], 0xf, 0);
            struct l2_outcome o = acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, v[j], 0xf, 1);
            ck_assert_uint_eq(o.near_hit, 0xf);
            acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, v[j + 4], 0xf, 0);
            ck_assert_int_eq(slot_of(&l, 0, v[j]) >= 0, refreshed);
            ck_assert_int_eq(slot_of(&l, 0, v[j + 1]) >= 0, !refreshed);
            ck_assert_int_ge(slot_of(&l, 1, v[j]), 0); /* the copy stays */
        }
        assert_seen(seen, pcts[i]);
        l2_free(&l);
    }
}
END_TEST

/* A near copy that lacks the sector asked for is still found: the lookup
 * makes it its set's most recently used, as a hit would, so the next fill
 * of the set evicts another line. */
START_TEST(near_sector_miss_refreshes_copy)
{
    struct l2 l;
    tiny(&l, 2, NULL);
    uint64_t v[1], w[4];
    lines_in_set(&l, 1, 0, 1, v); /* home 0 */
    lines_in_set(&l, 1, 1, 4, w); /* home 1, the same set */
    const int sm1 = 1;             /* an SM of partition 1 */
    acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, v[0], 0x1, sm1); /* copy of sector 0 in 1 */
    ck_assert_uint_eq(*l2_cache_valid(&l.part[1], resident(&l, 1, v[0])), 0x1);
    for (int i = 0; i < 3; i++)
        acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, w[i], 0xf, sm1); /* the set is full, the copy oldest */
    struct l2_outcome o = acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, v[0], 0x2, sm1);
    ck_assert_uint_eq(o.near_hit, 0);
    ck_assert_uint_eq(*l2_cache_valid(&l.part[1], resident(&l, 1, v[0])), 0x3);
    acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, w[3], 0xf, sm1);
    ck_assert_int_ge(slot_of(&l, 1, v[0]), 0);
    ck_assert_int_lt(slot_of(&l, 1, w[0]), 0);
    l2_free(&l);
}
END_TEST

/* far_part_refresh: a request the near partition sends home refreshes the
 * home line, but with far_part_refresh = 0 only one for the whole line. */
START_TEST(far_part_refresh_home)
{
    static const struct {
        const char *set;
        uint8_t mask;
        int kept;
    } cases[] = {{"far_part_refresh=1", 0x1, 1}, {"far_part_refresh=0", 0x1, 0}, {"far_part_refresh=0", 0xf, 1}};
    for (unsigned c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        struct l2 l;
        const char *extra[] = {cases[c].set, NULL};
        tiny(&l, 2, extra);
        uint64_t v[5];
        lines_in_set(&l, 1, 0, 5, v); /* home 0 */
        for (int i = 0; i < 4; i++)   /* from the home side, v[0] the oldest */
            acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, v[i], 0xf, 0);
        struct l2_outcome o = acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, v[0], cases[c].mask, 1); /* from the far side */
        ck_assert_uint_eq(o.hit, cases[c].mask);
        ck_assert_uint_eq(o.near_hit, 0);
        acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, v[4], 0xf, 0); /* evicts the home's least recently used */
        ck_assert_msg((slot_of(&l, 0, v[0]) >= 0) == cases[c].kept, "case %u", c);
        ck_assert_msg((slot_of(&l, 0, v[1]) >= 0) == !cases[c].kept, "case %u", c);
        l2_free(&l);
    }
}
END_TEST

/* written_reprieve_pct: the share of written lines that get the reprieve */
START_TEST(written_reprieve_share)
{
    /* the hash picks written_reprieve_pct percent of the lines: none at 0,
     * all at 100, about half at 50, the same lines every time */
    const unsigned pcts[] = {0, 50, 100};
    for (unsigned i = 0; i < 3; i++) {
        struct l2 l;
        tiny_pct(&l, 1, "written_reprieve_pct", pcts[i]);
        assert_share(&l, l2_reprieved, pcts[i]);
        l2_free(&l);
    }
    /* at 50, the written oldest line stays when the hash picks it and goes
     * when it does not (the fill as written_reprieve_keeps_written's) */
    struct l2 l;
    const char *extra[] = {"written_reprieve_pct=50", NULL};
    tiny(&l, 1, extra);
    uint64_t v[40];
    lines_in_set(&l, 0, -1, 40, v);
    int seen[2] = {0, 0};
    for (unsigned j = 0; j + 5 <= 40; j += 5) {
        l2_clear(&l);
        const int picked = l2_reprieved(&l, v[j]);
        seen[picked] = 1;
        acc(&l, OP_WRITE, PRIO_EVICT_UNCHANGED, v[j], 0xf, 0); /* the oldest, written */
        for (unsigned i = 1; i < 4; i++)
            acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, v[j + i], 0xf, 0);
        struct l2_outcome o = acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, v[j + 4], 0xf, 0);
        ck_assert_uint_eq(o.dram_wr, picked ? 0 : 128); /* written back when it goes */
        ck_assert_int_eq(slot_of(&l, 0, v[j]) >= 0, picked);
        ck_assert_int_eq(slot_of(&l, 0, v[j + 1]) >= 0, !picked);
    }
    assert_seen(seen, 50);
    l2_free(&l);
}
END_TEST

/* written_reprieve_pct = 100: a fill whose least recently used line holds
 * written data keeps it as the set's most recent line, clean, and takes
 * the next line; the kept line's write-back counts when it leaves (the
 * next fill that reaches it evicts it), is stored to again or is read,
 * not at the reprieve.  With 0 the written line goes, written back.  A
 * copy a store wrote gets the reprieve too but writes nothing back (its
 * home line does). */
START_TEST(written_reprieve_keeps_written)
{
    for (int run = 0; run < 4; run++) { /* 0: no reprieve; v[0] 1: leaves, 2: is stored again, 3: is read */
        const int on = run > 0;
        struct l2 l;
        const char *extra[] = {on ? "written_reprieve_pct=100" : "written_reprieve_pct=0", NULL};
        tiny(&l, 1, extra);
        uint64_t v[6];
        lines_in_set(&l, 0, -1, 6, v);
        acc(&l, OP_WRITE, PRIO_EVICT_UNCHANGED, v[0], 0xf, 0); /* the oldest, written */
        for (int i = 1; i < 4; i++)
            acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, v[i], 0xf, 0);
        struct l2_outcome o = acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, v[4], 0xf, 0);
        ck_assert_uint_eq(o.dram_wr, on ? 0 : 128); /* v[0] written back if it goes */
        ck_assert_int_eq(slot_of(&l, 0, v[0]) >= 0, on);
        ck_assert_int_eq(slot_of(&l, 0, v[1]) >= 0, !on);
        if (!on) {
            l2_free(&l);
            continue;
        }
        ck_assert_uint_eq(*l2_cache_dirty(&l.part[0], resident(&l, 0, v[0])), 0); /* clean */
        o = acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, v[5], 0xf, 0); /* takes v[2]: v[3], v[0], v[4], v[5] */
        ck_assert_uint_eq(o.dram_wr, 0);
        ck_assert_int_lt(slot_of(&l, 0, v[2]), 0);
        if (run == 1) {
            acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, v[1], 0xf, 0);     /* takes v[3] */
            o = acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, v[2], 0xf, 0); /* takes v[0], clean: no reprieve */
            ck_assert_uint_eq(o.dram_wr, 128);
            ck_assert_int_lt(slot_of(&l, 0, v[0]), 0);
        } else if (run == 3) {
            o = acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, v[0], 0x1, 0); /* a hit at home: the owed sectors go now */
            ck_assert_uint_eq(o.dram_wr, 128);
            ck_assert_uint_eq(o.hit, 0x1);
            o = acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, v[0], 0xf, 0); /* nothing owed any more */
            ck_assert_uint_eq(o.dram_wr, 0);
        } else {
            o = acc(&l, OP_WRITE, PRIO_EVICT_UNCHANGED, v[0], 0x3, 0); /* a hit: the owed sectors go now */
            ck_assert_uint_eq(o.dram_wr, 128);
            ck_assert_uint_eq(*l2_cache_dirty(&l.part[0], resident(&l, 0, v[0])), 0x3);
            o = acc(&l, OP_WRITE, PRIO_EVICT_UNCHANGED, v[0], 0xc, 0); /* nothing owed any more */
            ck_assert_uint_eq(o.dram_wr, 0);
        }
        l2_free(&l);
    }
    /* two partitions: a store from the far side (sm 0, near 0; home 1)
     * leaves a copy in 0 marked written; evicting it writes nothing */
    struct l2 l;
    const char *extra[] = {"written_reprieve_pct=100", NULL};
    tiny(&l, 2, extra);
    uint64_t h1[1], h0[5];
    lines_in_set(&l, 0, 1, 1, h1);
    lines_in_set(&l, 0, 0, 5, h0);
    acc(&l, OP_WRITE, PRIO_EVICT_UNCHANGED, h1[0], 0x3, 0);
    ck_assert_uint_eq(*l2_cache_dirty(&l.part[0], resident(&l, 0, h1[0])), 0x3);
    for (int i = 0; i < 3; i++)
        acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, h0[i], 0xf, 0);
    struct l2_outcome o = acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, h0[3], 0xf, 0); /* reprieves the copy */
    ck_assert_uint_eq(o.dram_wr, 0);
    ck_assert_int_ge(slot_of(&l, 0, h1[0]), 0);
    ck_assert_int_lt(slot_of(&l, 0, h0[0]), 0);
    ck_assert_uint_eq(*l2_cache_dirty(&l.part[1], resident(&l, 1, h1[0])), 0x3); /* home still dirty */
    l2_free(&l);
    /* at 50, a written copy the hash does not pick goes, and writes
     * nothing back either */
    const char *half[] = {"written_reprieve_pct=50", NULL};
    tiny(&l, 2, half);
    uint64_t c1[16];
    lines_in_set(&l, 0, 1, 16, c1);
    unsigned j = 0;
    while (j < 16 && l2_reprieved(&l, c1[j]))
        j++;
    ck_assert_uint_lt(j, 16);
    acc(&l, OP_WRITE, PRIO_EVICT_UNCHANGED, c1[j], 0x3, 0);
    for (int i = 0; i < 3; i++)
        acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, h0[i], 0xf, 0);
    o = acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, h0[3], 0xf, 0); /* evicts the copy */
    ck_assert_uint_eq(o.dram_wr, 0);
    ck_assert_int_lt(slot_of(&l, 0, c1[j]), 0);
    l2_free(&l);
}
END_TEST

/* reprieve_empty_copy = 1: the home line of a store from the far side
 * (sm 0, near 0; home 1) that a reprieve keeps leaves its copy in
 * partition 0 without sectors, still in its way: a load from that side
 * then finds it far (at home, paying the owed write-back) and fills the
 * copy again.  With 0 the copy keeps its sectors and serves the load. */
START_TEST(reprieve_empty_copy)
{
    for (int on = 0; on < 2; on++) {
        struct l2 l;
        const char *extra[] = {"written_reprieve_pct=100",
                               on ? "reprieve_empty_copy=1" : "reprieve_empty_copy=0", NULL};
        tiny(&l, 2, extra);
        uint64_t h1[5];
        lines_in_set(&l, 0, 1, 5, h1);
        acc(&l, OP_WRITE, PRIO_EVICT_UNCHANGED, h1[0], 0x3, 0); /* home 1 dirty, a copy in 0 */
        for (int i = 1; i < 4; i++)
            acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, h1[i], 0xf, 1); /* from the home side */
        struct l2_outcome o = acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, h1[4], 0xf, 1); /* reprieves h1[0] */
        ck_assert_uint_eq(o.dram_wr, 0);
        ck_assert_uint_eq(*l2_cache_dirty(&l.part[1], resident(&l, 1, h1[0])), 0); /* kept, clean */
        ck_assert_uint_eq(*l2_cache_valid(&l.part[0], resident(&l, 0, h1[0])), on ? 0 : 0x3);
        o = acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, h1[0], 0x3, 0);
        ck_assert_uint_eq(o.hit, 0x3);
        ck_assert_uint_eq(o.near_hit, on ? 0 : 0x3);
        ck_assert_uint_eq(o.dram_rd, 0);
        ck_assert_uint_eq(o.dram_wr, on ? 64 : 0); /* read at home: the owed sectors go */
        ck_assert_uint_eq(*l2_cache_valid(&l.part[0], resident(&l, 0, h1[0])), 0x3); /* filled again */
        l2_free(&l);
    }
}
END_TEST

/* The written line w[0], reprieved once (written_reprieve_pct = 100), is
 * the victim again while it still owes its write-back: returns whether it
 * stays, checking that it writes back 128 bytes if it goes and none if it
 * stays, and that it goes at the next time in any case.  A set of 4 ways;
 * w: 10 lines of one set. */
static int kept_again(struct l2 *l, const uint64_t *w)
{
    l2_clear(l);
    acc(l, OP_WRITE, PRIO_EVICT_UNCHANGED, w[0], 0xf, 0); /* the oldest, written */
    for (int i = 1; i < 4; i++)
        acc(l, OP_READ, PRIO_EVICT_UNCHANGED, w[i], 0xf, 0);
    ck_assert_uint_eq(acc(l, OP_READ, PRIO_EVICT_UNCHANGED, w[4], 0xf, 0).dram_wr, 0); /* w[0] kept, w[1] goes */
    acc(l, OP_READ, PRIO_EVICT_UNCHANGED, w[5], 0xf, 0); /* takes w[2] */
    acc(l, OP_READ, PRIO_EVICT_UNCHANGED, w[6], 0xf, 0); /* takes w[3]: w[0] is the oldest again */
    struct l2_outcome o = acc(l, OP_READ, PRIO_EVICT_UNCHANGED, w[7], 0xf, 0);
    const int kept = slot_of(l, 0, w[0]) >= 0;
    ck_assert_uint_eq(o.dram_wr, kept ? 0 : 128);
    ck_assert_int_eq(slot_of(l, 0, w[4]) >= 0, !kept); /* the fill took the next line instead */
    if (kept) {
        acc(l, OP_READ, PRIO_EVICT_UNCHANGED, w[8], 0xf, 0); /* takes w[5] */
        acc(l, OP_READ, PRIO_EVICT_UNCHANGED, w[9], 0xf, 0); /* takes w[6]: w[0] the oldest */
        o = acc(l, OP_READ, PRIO_EVICT_UNCHANGED, w[1], 0xf, 0); /* no third time */
        ck_assert_uint_eq(o.dram_wr, 128);
        ck_assert_int_lt(slot_of(l, 0, w[0]), 0);
    }
    return kept;
}

/* reprieve_again_pct: a line a reprieve kept, met as the victim again
 * while it still owes its write-back, is kept once more if the hash picks
 * it (none at 0, all at 100, about half at 50, the same lines every
 * time), never a third time; the others go, written back then. */
START_TEST(reprieve_again_keeps_once_more)
{
    const unsigned pcts[] = {0, 50, 100};
    for (unsigned i = 0; i < 3; i++) {
        struct l2 l;
        char key[32];
        snprintf(key, sizeof key, "reprieve_again_pct=%u", pcts[i]);
        const char *extra[] = {"written_reprieve_pct=100", key, NULL};
        tiny(&l, 1, extra);
        assert_share(&l, l2_reprieved_again, pcts[i]);
        uint64_t v[80];
        lines_in_set(&l, 0, -1, 80, v);
        int seen[2] = {0, 0};
        for (unsigned j = 0; j + 10 <= 80; j += 10) {
            const int kept = kept_again(&l, v + j);
            ck_assert_int_eq(kept, l2_reprieved_again(&l, v[j]));
            seen[kept] = 1;
        }
        assert_seen(seen, pcts[i]);
        l2_free(&l);
    }
}
END_TEST

/* reprieve_min_ways: a line earns the reprieve only if the store that made
 * it written left at least that many written ways in its set; one
 * written alone goes when it is the victim, one written beside another
 * stays (written back either way), and the fill takes the next victim
 * after it.  With 1, both stay. */
START_TEST(reprieve_min_ways_earned_at_write)
{
    for (int min = 1; min <= 2; min++) {
        struct l2 l;
        char key[32];
        snprintf(key, sizeof key, "reprieve_min_ways=%d", min);
        const char *extra[] = {"written_reprieve_pct=100", key, NULL};
        tiny(&l, 1, extra);
        uint64_t v[5];
        lines_in_set(&l, 0, -1, 5, v);
        acc(&l, OP_WRITE, PRIO_EVICT_UNCHANGED, v[0], 0xf, 0); /* alone: one written way */
        acc(&l, OP_WRITE, PRIO_EVICT_UNCHANGED, v[1], 0x3, 0); /* the second */
        acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, v[2], 0xf, 0);
        acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, v[3], 0xf, 0);
        /* a marked line is still found by its tag, and its tag reads back whole */
        ck_assert_uint_eq(acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, v[1], 0x3, 0).hit, 0x3);
        ck_assert_uint_eq(l2_cache_tag(&l.part[0], resident(&l, 0, v[1])), v[1]);
        acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, v[0], 0xf, 0);   /* ages: v[2], v[3], v[1], v[0] */
        acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, v[2], 0xf, 0);   /* v[3], v[1], v[0], v[2] */
        acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, v[3], 0xf, 0);   /* v[1], v[0], v[2], v[3] */
        /* v[1] stays; v[0] stays with 1, else goes and v[2] stays */
        struct l2_outcome o = acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, v[4], 0xf, 0);
        ck_assert_uint_eq(o.dram_wr, min == 1 ? 0 : 128); /* v[0] written back if it goes */
        ck_assert_int_ge(slot_of(&l, 0, v[1]), 0);
        ck_assert_int_eq(slot_of(&l, 0, v[0]) >= 0, min == 1);
        ck_assert_int_eq(slot_of(&l, 0, v[2]) >= 0, min != 1);
        l2_free(&l);
    }
}
END_TEST

/* dirty_gap_ways: written data may hold at most the ways outside the
 * set-aside less the gap: with 1 of 4 ways set aside and a gap of 1, a
 * third written way writes back the oldest, which stays, clean; without a
 * set-aside dirty_ways (3) allows it. */
START_TEST(setaside_limits_written_ways)
{
    for (int set = 0; set <= 1; set++) {
        struct l2 l;
        const char *extra[] = {"dirty_ways=3", "dirty_gap_ways=1", NULL};
        tiny(&l, 1, extra);
        l2_err e;
        ck_assert_int_eq(l2_set_setaside(&l, set ? 1024 : 0, &e), 0);
        ck_assert_uint_eq(l.dirty_cap, set ? 2 : 3);
        uint64_t v[3];
        lines_in_set(&l, 0, -1, 3, v);
        acc(&l, OP_WRITE, PRIO_EVICT_UNCHANGED, v[0], 0xf, 0);
        acc(&l, OP_WRITE, PRIO_EVICT_UNCHANGED, v[1], 0xf, 0);
        struct l2_outcome o = acc(&l, OP_WRITE, PRIO_EVICT_UNCHANGED, v[2], 0xf, 0);
        ck_assert_uint_eq(o.dram_wr, set ? 128 : 0);
        ck_assert_uint_eq(*l2_cache_dirty(&l.part[0], resident(&l, 0, v[0])), set ? 0 : 0xf);
        ck_assert_int_ge(slot_of(&l, 0, v[0]), 0); /* it stays */
        l2_free(&l);
    }
    /* the set-aside never leaves written data less than one way */
    struct l2 l;
    const char *extra[] = {"dirty_ways=3", "dirty_gap_ways=4", NULL};
    tiny(&l, 1, extra);
    l2_err e;
    ck_assert_int_eq(l2_set_setaside(&l, 1024, &e), 0);
    ck_assert_uint_eq(l.dirty_cap, 1);
    /* a set-aside of every way leaves normal data one way, and the most
     * written-data limit and write-back slowdown (not the least) */
    ck_assert_int_eq(l2_set_setaside(&l, 4096, &e), 0);
    ck_assert_uint_eq(l.room, 1);
    ck_assert_uint_eq(l.dirty_cap, 1);
    ck_assert_int_eq(l2_set_setaside(&l, 0, &e), 0);
    ck_assert_uint_eq(l.room, 4);
    l2_free(&l);
}
END_TEST

/* dirty_ways: a store that leaves more ways of its set holding written
 * data than dirty_ways writes back the least recently used of the others,
 * which stays, clean; a copy's is written back as nothing (its home line
 * holds it); 0: no limit. */
START_TEST(dirty_ways_writes_back_oldest)
{
    for (int cap = 0; cap <= 2; cap += 2) {
        struct l2 l;
        char key[32];
        snprintf(key, sizeof key, "dirty_ways=%d", cap);
        const char *extra[] = {key, NULL};
        tiny(&l, 1, extra);
        uint64_t v[4];
        lines_in_set(&l, 0, -1, 4, v);
        acc(&l, OP_WRITE, PRIO_EVICT_UNCHANGED, v[0], 0xf, 0);
        acc(&l, OP_WRITE, PRIO_EVICT_UNCHANGED, v[1], 0x3, 0);
        acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, v[0], 0xf, 0); /* v[1] the oldest now */
        struct l2_outcome o = acc(&l, OP_WRITE, PRIO_EVICT_UNCHANGED, v[2], 0x1, 0);
        ck_assert_uint_eq(o.dram_wr, cap ? 64 : 0); /* v[1]'s two sectors */
        ck_assert_uint_eq(*l2_cache_dirty(&l.part[0], resident(&l, 0, v[1])), cap ? 0 : 0x3);
        ck_assert_uint_eq(*l2_cache_dirty(&l.part[0], resident(&l, 0, v[0])), 0xf);
        ck_assert_uint_eq(*l2_cache_dirty(&l.part[0], resident(&l, 0, v[2])), 0x1);
        ck_assert_int_ge(slot_of(&l, 0, v[1]), 0); /* it stays */
        /* a store that hits a written line adds no written way */
        o = acc(&l, OP_WRITE, PRIO_EVICT_UNCHANGED, v[0], 0x1, 0);
        ck_assert_uint_eq(o.dram_wr, 0);
        l2_free(&l);
    }
    /* two partitions: copies written from the far side (home 1, near 0)
     * are marked written in 0; the third evicts the oldest's mark there,
     * writing nothing, and its home line stays dirty */
    struct l2 l;
    const char *extra[] = {"dirty_ways=2", "written_reprieve_pct=50", NULL};
    tiny(&l, 2, extra);
    uint64_t h1[3];
    lines_in_set(&l, 0, 1, 3, h1);
    acc(&l, OP_WRITE, PRIO_EVICT_UNCHANGED, h1[0], 0x3, 0);
    acc(&l, OP_WRITE, PRIO_EVICT_UNCHANGED, h1[1], 0x3, 0);
    struct l2_outcome o = acc(&l, OP_WRITE, PRIO_EVICT_UNCHANGED, h1[2], 0x3, 0);
    ck_assert_uint_eq(*l2_cache_dirty(&l.part[0], resident(&l, 0, h1[0])), 0);
    ck_assert_uint_eq(*l2_cache_dirty(&l.part[0], resident(&l, 0, h1[2])), 0x3);
    ck_assert_uint_eq(*l2_cache_dirty(&l.part[1], resident(&l, 1, h1[0])), 0);
    ck_assert_uint_eq(o.dram_wr, 64); /* the home line's write-back only */
    l2_free(&l);
}
END_TEST

START_TEST(store_drops_far_copy)
{
    struct l2 l;
    struct l2_outcome o;
    tiny(&l, 2, NULL);
    uint64_t v[1];
    lines_in_set(&l, 0, 1, 1, v); /* home 1 */
    const uint64_t L = v[0];
    acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, L, 0xf, 0); /* far: copy in 0 */
    ck_assert_int_ge(slot_of(&l, 0, L), 0);
    /* a store from the home side drops the copy, the home line is dirty */
    o = acc(&l, OP_WRITE, PRIO_EVICT_UNCHANGED, L, 0x1, 1);
    ck_assert_uint_eq(o.hit, 0x1);
    ck_assert_uint_eq(o.near_hit, 0x1);
    ck_assert_int_lt(slot_of(&l, 0, L), 0);
    ck_assert_uint_eq(*l2_cache_dirty(&l.part[1], resident(&l, 1, L)), 0x1);
    /* the next far load is a far hit, not a stale near one */
    o = acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, L, 0xf, 0);
    ck_assert_uint_eq(o.near_hit, 0);
    ck_assert_uint_eq(o.hit, 0xf);
    ck_assert_uint_eq(o.dram_rd, 0);
    ck_assert_int_ge(slot_of(&l, 0, L), 0);
    /* an evict_first store from the far side drops the copy too and
     * writes at home only (as a normal line there) */
    o = acc(&l, OP_WRITE, PRIO_EVICT_FIRST, L, 0x2, 2);
    ck_assert_uint_eq(o.hit, 0x2);
    ck_assert_uint_eq(o.near_hit, 0);
    ck_assert_int_lt(slot_of(&l, 0, L), 0);
    ck_assert_uint_eq(*l2_cache_dirty(&l.part[1], resident(&l, 1, L)), 0x3);
    ck_assert_uint_eq(l2_cache_cls(&l.part[1], resident(&l, 1, L)), CLS_NORMAL);
    l2_free(&l);
}
END_TEST

/* A plain store from an SM whose near partition is not the home writes
 * the home line and a clean copy near: the storing side reads it back
 * near, a discard from the home side leaves that copy, and with
 * store_copy = 0 the store writes at home only. */
START_TEST(far_store_copies_near)
{
    struct l2 l;
    struct l2_outcome o;
    tiny(&l, 2, NULL);
    uint64_t v[2];
    lines_in_set(&l, 0, 1, 2, v); /* home 1 */
    const uint64_t L = v[0];
    /* absent line: allocated at home (dirty) and near (clean), no DRAM */
    o = acc(&l, OP_WRITE, PRIO_EVICT_NORMAL, L, 0x3, 0);
    ck_assert_uint_eq(o.hit, 0);
    ck_assert_uint_eq(o.near_hit, 0);
    ck_assert_uint_eq(o.dram_rd, 0);
    ck_assert_uint_eq(*l2_cache_dirty(&l.part[1], resident(&l, 1, L)), 0x3);
    ck_assert_uint_eq(*l2_cache_valid(&l.part[0], resident(&l, 0, L)), 0x3);
    ck_assert_uint_eq(*l2_cache_dirty(&l.part[0], resident(&l, 0, L)), 0);
    /* a second store from that side hits near */
    o = acc(&l, OP_WRITE, PRIO_EVICT_NORMAL, L, 0x1, 2);
    ck_assert_uint_eq(o.hit, 0x1);
    ck_assert_uint_eq(o.near_hit, 0x1);
    /* the stored sectors load near; the others come from DRAM */
    o = acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, L, 0xf, 0);
    ck_assert_uint_eq(o.near_hit, 0x3);
    ck_assert_uint_eq(o.hit, 0x3);
    ck_assert_uint_eq(o.dram_rd, 64);
    /* a discard from the home side drops the home line, not the copy */
    acc(&l, OP_DISCARD, PRIO_EVICT_UNCHANGED, L, 0xf, 1);
    ck_assert_int_lt(slot_of(&l, 1, L), 0);
    o = acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, L, 0xf, 0);
    ck_assert_uint_eq(o.near_hit, 0xf);
    l2_free(&l);

    const char *off[] = {"store_copy=0", NULL};
    tiny(&l, 2, off);
    o = acc(&l, OP_WRITE, PRIO_EVICT_NORMAL, v[1], 0xf, 0);
    ck_assert_int_ge(slot_of(&l, 1, v[1]), 0);
    ck_assert_int_lt(slot_of(&l, 0, v[1]), 0);
    o = acc(&l, OP_READ, PRIO_EVICT_UNCHANGED, v[1], 0xf, 0);
    ck_assert_uint_eq(o.near_hit, 0);
    ck_assert_uint_eq(o.hit, 0xf);
    l2_free(&l);
}
END_TEST

START_TEST(prefetch_home_only)
{
    struct l2 l;
    tiny(&l, 2, NULL);
    uint64_t v[1];
    lines_in_set(&l, 1, 1, 1, v);
    acc(&l, OP_PREFETCH, PRIO_EVICT_LAST, v[0], 0xf, 0);
    ck_assert_int_ge(slot_of(&l, 1, v[0]), 0);
    ck_assert_int_lt(slot_of(&l, 0, v[0]), 0);
    l2_free(&l);
}
END_TEST

START_TEST(sm_maps)
{
    struct l2 l;
    const char *extra[] = {"sms=8", "sm_map=half", NULL};
    tiny(&l, 2, extra);
    for (int s = 0; s < 8; s++)
        ck_assert_uint_eq(l.sm_part[s], s < 4 ? 0 : 1);
    l2_free(&l);
    const char *extra2[] = {"sms=8", NULL};
    tiny(&l, 2, extra2);
    for (int s = 0; s < 8; s++)
        ck_assert_uint_eq(l.sm_part[s], (unsigned)s % 2);
    l2_free(&l);
    /* a measured map: each SM's own digit */
    const char *extra3[] = {"sms=8", "sm_map=table", "sm_parts=00111001", NULL};
    tiny(&l, 2, extra3);
    for (int s = 0; s < 8; s++)
        ck_assert_uint_eq(l.sm_part[s], (unsigned)("00111001"[s] - '0'));
    l2_free(&l);
}
END_TEST

Suite *l2_suite(void)
{
    Suite *s = suite_create("l2");
    TCase *tc = tcase_create("one partition");
    tcase_add_test(tc, geometry);
    tcase_add_test(tc, sector_accounting);
    tcase_add_test(tc, dram_atom_granules);
    tcase_add_test(tc, sector_accounting_sim);
    tcase_add_test(tc, write_allocate_and_writeback);
    tcase_add_test(tc, store_first_cap);
    tcase_add_test(tc, start_full_stale_lines);
    tcase_add_test(tc, discard_drops);
    tcase_add_test(tc, applypriority_demotes);
    tcase_add_test(tc, hit_priority_updates);
    tcase_add_test(tc, first_hit_keeps_protected_last);
    tcase_add_test(tc, no_allocate_does_not_fill);
    tcase_add_test(tc, prefetch_fills);
    tcase_add_test(tc, quota_ways);
    tcase_add_test(tc, setaside_quota);
    tcase_add_test(tc, floor_ways);
    suite_add_tcase(s, tc);
    tc = tcase_create("two partitions");
    tcase_add_test(tc, reset_demotes);
    tcase_add_test(tc, far_load_copies_near);
    tcase_add_test(tc, far_hit_without_copy);
    tcase_add_test(tc, copy_classes);
    tcase_add_test(tc, apply_near_and_home);
    tcase_add_test(tc, near_hit_refreshes_home);
    tcase_add_test(tc, near_sector_miss_refreshes_copy);
    tcase_add_test(tc, far_part_refresh_home);
    tcase_add_test(tc, near_refresh_share);
    tcase_add_test(tc, written_reprieve_keeps_written);
    tcase_add_test(tc, reprieve_empty_copy);
    tcase_add_test(tc, reprieve_min_ways_earned_at_write);
    tcase_add_test(tc, written_reprieve_share);
    tcase_add_test(tc, reprieve_again_keeps_once_more);
    tcase_add_test(tc, dirty_ways_writes_back_oldest);
    tcase_add_test(tc, setaside_limits_written_ways);
    tcase_add_test(tc, store_drops_far_copy);
    tcase_add_test(tc, far_store_copies_near);
    tcase_add_test(tc, granules_fill_and_move);
    tcase_add_test(tc, prefetch_home_only);
    tcase_add_test(tc, sm_maps);
    suite_add_tcase(s, tc);
    return s;
}

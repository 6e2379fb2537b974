/*
 * test_cache.c - one tag array (struct l2_cache): victim order between
 * invalid ways and the FIRST / NORMAL / LAST classes, the set-aside
 * quota, and demotion, worked by hand on 1 set x 4 ways; the per-set
 * evict_first cap; a plain model of the victim choice.
 */
#include <math.h>

#include "tests.h"

#include "cache.h"

static struct l2_cache c;

static void setup(void)
{
    l2_err e;
    ck_assert_int_eq(l2_cache_init(&c, 1, 4, &e), 0);
}

static void teardown(void)
{
    l2_cache_free(&c);
}

/* What a user of the cache does on a miss: victim, install. */
static uint64_t fill(uint64_t tag, enum l2_class cls)
{
    ck_assert_int_lt(l2_cache_find(&c, 0, tag), 0);
    uint64_t v = l2_cache_victim(&c, 0, cls, tag);
    l2_cache_install(&c, v, tag, cls);
    return v;
}

/* Tag that the next normal fill would evict (L2_TAG_NONE for an empty way). */
static uint64_t victim_tag(void)
{
    return l2_cache_tag(&c, l2_cache_victim(&c, 0, CLS_NORMAL, 0));
}

static void touch(uint64_t tag)
{
    int64_t s = l2_cache_find(&c, 0, tag);
    ck_assert_int_ge(s, 0);
    l2_cache_touch(&c, (uint64_t)s);
}

START_TEST(init_empty)
{
    ck_assert_uint_eq(c.sets, 1);
    ck_assert_uint_eq(c.g.ways, 4);
    for (unsigned w = 0; w < 4; w++) {
        ck_assert_uint_eq(l2_cache_tag(&c, w), L2_TAG_NONE);
        ck_assert_uint_eq(*l2_cache_valid(&c, w), 0);
        ck_assert_uint_eq(*l2_cache_dirty(&c, w), 0);
    }
    ck_assert_int_eq(l2_cache_find(&c, 0, 0), -1);
}
END_TEST

START_TEST(invalid_way_first)
{
    /* way 0 and 1 hold FIRST lines, yet an empty way is chosen */
    l2_cache_install(&c, 0, 10, CLS_FIRST);
    l2_cache_install(&c, 1, 11, CLS_FIRST);
    ck_assert_uint_eq(l2_cache_victim(&c, 0, CLS_NORMAL, 0), 2);
    l2_cache_install(&c, 3, 13, CLS_FIRST);
    ck_assert_uint_eq(l2_cache_victim(&c, 0, CLS_NORMAL, 0), 2);
    /* a dropped way is empty again and preferred over everything */
    l2_cache_install(&c, 2, 12, CLS_NORMAL);
    l2_cache_drop(&c, 1);
    ck_assert_uint_eq(l2_cache_victim(&c, 0, CLS_NORMAL, 0), 1);
    ck_assert_int_eq(l2_cache_find(&c, 0, 11), -1);
    ck_assert_int_eq(l2_cache_find(&c, 0, 13), 3);
}
END_TEST

START_TEST(first_before_older_normal)
{
    fill(1, CLS_NORMAL);
    fill(2, CLS_NORMAL);
    fill(3, CLS_NORMAL);
    fill(4, CLS_FIRST); /* youngest */
    ck_assert_uint_eq(victim_tag(), 4);
    /* a stream of FIRST fills cycles through one way, leaving the rest */
    for (uint64_t t = 100; t < 110; t++) {
        uint64_t v = l2_cache_victim(&c, 0, CLS_FIRST, t);
        ck_assert_uint_eq(v, 3);
        l2_cache_install(&c, v, t, CLS_FIRST);
    }
    ck_assert_int_ge(l2_cache_find(&c, 0, 1), 0);
    ck_assert_int_ge(l2_cache_find(&c, 0, 2), 0);
    ck_assert_int_ge(l2_cache_find(&c, 0, 3), 0);
    /* among FIRST lines, the least recently used */
    l2_cache_set_cls(&c, 1, CLS_FIRST); /* line 2, older than line 109 */
    ck_assert_uint_eq(victim_tag(), 2);
    touch(2);
    ck_assert_uint_eq(victim_tag(), 109);
}
END_TEST

START_TEST(lru_within_class)
{
    fill(1, CLS_NORMAL);
    fill(2, CLS_NORMAL);
    fill(3, CLS_NORMAL);
    fill(4, CLS_NORMAL);
    ck_assert_uint_eq(victim_tag(), 1);
    touch(1);
    ck_assert_uint_eq(victim_tag(), 2);
    touch(3);
    touch(2);
    ck_assert_uint_eq(victim_tag(), 4);
    fill(5, CLS_NORMAL); /* evicts 4 */
    ck_assert_int_eq(l2_cache_find(&c, 0, 4), -1);
    ck_assert_uint_eq(victim_tag(), 1);
    /* LRU among LAST lines too, when only LAST lines remain */
    l2_cache_clear(&c);
    c.quota = 4;
    fill(1, CLS_LAST);
    fill(2, CLS_LAST);
    fill(3, CLS_LAST);
    fill(4, CLS_LAST);
    touch(1);
    ck_assert_uint_eq(victim_tag(), 2);
}
END_TEST

START_TEST(last_protected_within_quota)
{
    c.quota = 1;
    fill(1, CLS_LAST); /* oldest */
    fill(2, CLS_NORMAL);
    fill(3, CLS_NORMAL);
    fill(4, CLS_NORMAL);
    ck_assert_uint_eq(victim_tag(), 2);
    /* a long normal stream never evicts the protected line */
    for (uint64_t t = 100; t < 120; t++)
        fill(t, CLS_NORMAL);
    ck_assert_int_ge(l2_cache_find(&c, 0, 1), 0);
    /* FIRST lines still go before NORMAL ones, LAST stays */
    c.quota = 2;
    l2_cache_clear(&c);
    fill(1, CLS_LAST);
    fill(2, CLS_LAST);
    fill(3, CLS_FIRST);
    fill(4, CLS_NORMAL);
    ck_assert_uint_eq(victim_tag(), 3);
    fill(5, CLS_NORMAL);
    ck_assert_uint_eq(victim_tag(), 4);
}
END_TEST

START_TEST(newest_last_demotes_oldest)
{
    c.quota = 1;
    fill(1, CLS_LAST); /* oldest */
    fill(2, CLS_LAST); /* beyond the quota of 1: line 1 is demoted */
    ck_assert_uint_eq(l2_cache_cls(&c, l2_cache_find(&c, 0, 1)), CLS_NORMAL);
    ck_assert_uint_eq(l2_cache_cls(&c, l2_cache_find(&c, 0, 2)), CLS_LAST);
    fill(3, CLS_NORMAL);
    fill(4, CLS_NORMAL);
    ck_assert_uint_eq(victim_tag(), 1);
    touch(1);
    ck_assert_uint_eq(victim_tag(), 3); /* 2 is older but protected */
    /* demoted and promoted again: queued again, line 2 goes */
    l2_cache_set_cls(&c, l2_cache_find(&c, 0, 1), CLS_LAST);
    ck_assert_uint_eq(l2_cache_cls(&c, l2_cache_find(&c, 0, 2)), CLS_NORMAL);
    ck_assert_uint_eq(l2_cache_cls(&c, l2_cache_find(&c, 0, 1)), CLS_LAST);
    /* a smaller quota demotes the oldest at once (l2_cache_trim) */
    c.quota = 0;
    l2_cache_trim(&c);
    ck_assert_uint_eq(l2_cache_cls(&c, l2_cache_find(&c, 0, 1)), CLS_NORMAL);
    /* a dropped LAST line leaves the count: a new one fits the quota */
    c.quota = 1;
    l2_cache_set_cls(&c, l2_cache_find(&c, 0, 3), CLS_LAST);
    l2_cache_drop(&c, (uint64_t)l2_cache_find(&c, 0, 3));
    l2_cache_set_cls(&c, l2_cache_find(&c, 0, 4), CLS_LAST);
    ck_assert_uint_eq(l2_cache_cls(&c, l2_cache_find(&c, 0, 4)), CLS_LAST);
    ck_assert_uint_eq(c.q[0].n, 1);
}
END_TEST

/* d: a cache of `sets` x `ways` counting its quota over groups of
 * 2^cshift sets and queueing over groups of 2^qshift. */
static void grouped_init(struct l2_cache *d, uint32_t sets, uint32_t ways, unsigned cshift, unsigned qshift)
{
    l2_err e;
    ck_assert_int_eq(l2_cache_init(d, sets, ways, &e), 0);
    ck_assert_int_eq(l2_cache_group(d, cshift, qshift, &e), 0);
}

/* The quota counted over a group of sets: one set may hold more LAST lines
 * than its share while the group does not. */
START_TEST(quota_over_a_group)
{
    struct l2_cache d;
    grouped_init(&d, 4, 4, 2, 2); /* one group of 4 sets */
    d.quota = 1;                                     /* 4 LAST lines in the group */
    for (uint64_t t = 1; t <= 4; t++)
        l2_cache_install(&d, l2_cache_victim(&d, 0, CLS_LAST, t), t, CLS_LAST);
    for (uint64_t t = 1; t <= 4; t++)
        ck_assert_uint_eq(l2_cache_cls(&d, l2_cache_find(&d, 0, t)), CLS_LAST);
    /* a fifth, in another set: the group's oldest (line 1, set 0) goes */
    l2_cache_install(&d, l2_cache_victim(&d, 3, CLS_LAST, 5), 5, CLS_LAST);
    ck_assert_uint_eq(l2_cache_cls(&d, l2_cache_find(&d, 0, 1)), CLS_NORMAL);
    ck_assert_uint_eq(l2_cache_cls(&d, l2_cache_find(&d, 0, 2)), CLS_LAST);
    ck_assert_uint_eq(l2_cache_cls(&d, l2_cache_find(&d, 3, 5)), CLS_LAST);
    /* the demoted line is the set's victim, not the LAST ones */
    ck_assert_uint_eq(l2_cache_victim(&d, 0, CLS_NORMAL, 0), (uint64_t)l2_cache_find(&d, 0, 1));
    l2_cache_free(&d);
}
END_TEST

/* Quota groups of one set in a queue group of 4: a set beyond its quota
 * demotes the queue group's oldest LAST line, wherever it lies, and may
 * keep more than its quota; the queue group never holds more than its. */
START_TEST(quota_group_demotes_queue_oldest)
{
    struct l2_cache d;
    grouped_init(&d, 4, 4, 0, 2);
    d.quota = 1; /* one LAST line a set, 4 in the queue group */
    const uint32_t set[6] = {0, 1, 2, 2, 3, 3};
    for (uint64_t t = 1; t <= 4; t++)
        l2_cache_install(&d, l2_cache_victim(&d, set[t - 1], CLS_LAST, t), t, CLS_LAST);
    /* line 4 put set 2 beyond its quota: line 1, in set 0, went */
    ck_assert_uint_eq(l2_cache_cls(&d, l2_cache_find(&d, 0, 1)), CLS_NORMAL);
    for (uint64_t t = 2; t <= 4; t++)
        ck_assert_uint_eq(l2_cache_cls(&d, l2_cache_find(&d, set[t - 1], t)), CLS_LAST);
    ck_assert_uint_eq(d.cq[2].n, 2);
    ck_assert_uint_eq(d.q[0].n, 3);
    /* line 5 fits set 3's quota and the group's: nothing goes */
    l2_cache_install(&d, l2_cache_victim(&d, 3, CLS_LAST, 5), 5, CLS_LAST);
    ck_assert_uint_eq(l2_cache_cls(&d, l2_cache_find(&d, 1, 2)), CLS_LAST);
    ck_assert_uint_eq(d.q[0].n, 4);
    /* line 6 puts set 3 beyond its quota: the oldest, line 2 in set 1, goes */
    l2_cache_install(&d, l2_cache_victim(&d, 3, CLS_LAST, 6), 6, CLS_LAST);
    ck_assert_uint_eq(l2_cache_cls(&d, l2_cache_find(&d, 1, 2)), CLS_NORMAL);
    ck_assert_uint_eq(l2_cache_cls(&d, l2_cache_find(&d, 2, 3)), CLS_LAST);
    ck_assert_uint_eq(d.q[0].n, 4);
    /* a LAST line used again is the queue's newest; line 7 fits set 0's
     * quota but not the group's: the oldest, line 4, goes, not line 3 */
    l2_cache_last_in(&d, 2, l2_slot_way((uint64_t)l2_cache_find(&d, 2, 3)), 0);
    l2_cache_install(&d, l2_cache_victim(&d, 0, CLS_LAST, 7), 7, CLS_LAST);
    ck_assert_uint_eq(l2_cache_cls(&d, l2_cache_find(&d, 2, 4)), CLS_NORMAL);
    ck_assert_uint_eq(l2_cache_cls(&d, l2_cache_find(&d, 2, 3)), CLS_LAST);
    ck_assert_uint_eq(d.q[0].n, 4);
    d.quota = 0;
    l2_cache_trim(&d); /* a quota of 0: the group keeps none */
    ck_assert_uint_eq(d.q[0].n, 0);
    ck_assert_uint_eq(d.cq[2].n + d.cq[3].n, 0);
    l2_cache_free(&d);
}
END_TEST

START_TEST(all_last_beyond_quota)
{
    c.quota = 1;
    fill(1, CLS_LAST);
    fill(2, CLS_LAST);
    fill(3, CLS_LAST);
    fill(4, CLS_FIRST);
    ck_assert_uint_eq(victim_tag(), 4);
    l2_cache_set_cls(&c, 3, CLS_LAST);
    touch(1);
    ck_assert_uint_eq(victim_tag(), 2);
}
END_TEST

START_TEST(demote_all)
{
    c.quota = 4;
    fill(1, CLS_LAST);
    fill(2, CLS_LAST);
    fill(3, CLS_FIRST);
    fill(4, CLS_NORMAL);
    l2_cache_set_cls(&c, 2, CLS_NORMAL); /* line 3 is normal now */
    /* within quota: the NORMAL lines go first (3 then 4) */
    ck_assert_uint_eq(victim_tag(), 3);
    l2_cache_demote_all(&c);
    for (unsigned w = 0; w < 4; w++)
        ck_assert_uint_ne(l2_cache_cls(&c, w), CLS_LAST);
    /* all normal now: plain LRU, line 1 first */
    ck_assert_uint_eq(victim_tag(), 1);
    /* FIRST lines are not touched by the demotion */
    l2_cache_clear(&c);
    fill(1, CLS_FIRST);
    fill(2, CLS_LAST);
    l2_cache_demote_all(&c);
    ck_assert_uint_eq(l2_cache_cls(&c, l2_cache_find(&c, 0, 1)), CLS_FIRST);
    ck_assert_uint_eq(l2_cache_cls(&c, l2_cache_find(&c, 0, 2)), CLS_NORMAL);
}
END_TEST

START_TEST(sets_are_independent)
{
    struct l2_cache d;
    l2_err e;
    ck_assert_int_eq(l2_cache_init(&d, 4, 2, &e), 0);
    l2_cache_install(&d, l2_slot(2, 0), 7, CLS_NORMAL);
    ck_assert_int_eq(l2_cache_find(&d, 2, 7), (int64_t)l2_slot(2, 0));
    ck_assert_int_eq(l2_cache_find(&d, 1, 7), -1);
    ck_assert_uint_eq(l2_cache_victim(&d, 2, CLS_NORMAL, 0), l2_slot(2, 1));
    ck_assert_uint_eq(l2_cache_victim(&d, 3, CLS_NORMAL, 0), l2_slot(3, 0));
    l2_cache_install(&d, l2_slot(2, 1), 8, CLS_NORMAL);
    ck_assert_uint_eq(l2_cache_victim(&d, 2, CLS_NORMAL, 0), l2_slot(2, 0));
    l2_cache_clear(&d);
    ck_assert_int_eq(l2_cache_find(&d, 2, 7), -1);
    l2_cache_free(&d);
}
END_TEST

/* Lines evict_first stores wrote are counted over the group too: a set
 * may hold more than its share while the group holds fewer than it keeps. */
START_TEST(store_first_over_a_group)
{
    struct l2_cache d;
    grouped_init(&d, 2, 4, 1, 1); /* one group of 2 sets */
    d.sfirst_ways = 1;                               /* 2 in the group */
    const uint64_t t[4] = {9, 1, 2, 3};
    for (unsigned i = 0; i < 4; i++) {
        uint64_t v = l2_cache_victim(&d, 0, CLS_NORMAL, t[i]);
        l2_cache_install(&d, v, t[i], CLS_NORMAL);
        if (t[i] == 1 || t[i] == 2)
            l2_blk_mark_sfirst(&d, d.g, l2_set_base_g(&d, d.g, 0), l2_slot_way(v));
    }
    ck_assert_uint_eq(d.cq[0].sn, 2);
    /* 2 marked lines in set 0 and none in set 1: the group is full */
    ck_assert_uint_eq(l2_blk_victim(&d, d.g, 0, l2_set_base_g(&d, d.g, 0), CLS_NORMAL, 1, 20), (unsigned)l2_cache_find(&d, 0, 1));
    /* with room for 4 in the group, an evict_first store takes the LRU line */
    d.sfirst_ways = 2;
    ck_assert_uint_eq(l2_blk_victim(&d, d.g, 0, l2_set_base_g(&d, d.g, 0), CLS_NORMAL, 1, 20), (unsigned)l2_cache_find(&d, 0, 9));
    /* a hint ends a mark; dropping a marked line leaves the count */
    l2_cache_set_cls(&d, (uint64_t)l2_cache_find(&d, 0, 1), CLS_NORMAL);
    l2_cache_drop(&d, (uint64_t)l2_cache_find(&d, 0, 2));
    ck_assert_uint_eq(d.cq[0].sn, 0);
    l2_cache_free(&d);
}
END_TEST

/* A plain model of the rules in cache.h, way by way, to check the packed
 * layout against: tags, a 64-bit recency counter that never wraps, classes.
 * Each set is a quota group; queue groups are 1 set (qsh 0) or all 3
 * (qsh 2). */
struct ref_cache {
    uint32_t ways, quota, first_ways, first_frac, first_max, first_grow;
    unsigned qsh;
    uint64_t tag[3][32], use[3][32], clock;
    enum l2_class cls[3][32];
    /* each queue group's queue of the ways that became LAST (set and way),
     * with their numbers */
    unsigned qset[3][192], qway[3][192], qlen[3], nlast[3], ngroup[3];
    uint64_t qid[3][192], latest[3][32], ids;
};

/* Entry i of queue group g is live: its way is LAST and was not queued since. */
static int ref_live(const struct ref_cache *r, unsigned g, unsigned i)
{
    unsigned s = r->qset[g][i], w = r->qway[g][i];
    return r->cls[s][w] == CLS_LAST && r->latest[s][w] == r->qid[g][i];
}

/* Sets of queue group g. */
static unsigned ref_group_sets(const struct ref_cache *r, unsigned g)
{
    return r->qsh ? 3 - (g << r->qsh) : 1;
}

/* Demotes queue group g's oldest LAST line, if any (stale entries go). */
static void ref_pop(struct ref_cache *r, unsigned g)
{
    while (r->qlen[g]) {
        int live = ref_live(r, g, 0);
        unsigned s = r->qset[g][0], w = r->qway[g][0];
        r->qlen[g]--;
        memmove(r->qset[g], r->qset[g] + 1, r->qlen[g] * sizeof r->qset[g][0]);
        memmove(r->qway[g], r->qway[g] + 1, r->qlen[g] * sizeof r->qway[g][0]);
        memmove(r->qid[g], r->qid[g] + 1, r->qlen[g] * sizeof r->qid[g][0]);
        if (live) {
            r->cls[s][w] = CLS_NORMAL;
            r->nlast[s]--;
            r->ngroup[g]--;
            return;
        }
    }
}

/* Way w of set takes class cls. */
static void ref_set_cls(struct ref_cache *r, uint32_t set, unsigned w, enum l2_class cls)
{
    enum l2_class was = r->cls[set][w];
    unsigned g = set >> r->qsh;
    r->cls[set][w] = cls;
    if (was == CLS_LAST && cls != CLS_LAST) {
        r->nlast[set]--;
        r->ngroup[g]--;
    }
    if (was == CLS_LAST || cls != CLS_LAST)
        return;
    if (r->qlen[g] == 192) { /* full: keep the live entries */
        unsigned n = 0;
        for (unsigned i = 0; i < r->qlen[g]; i++)
            if (ref_live(r, g, i)) {
                r->qset[g][n] = r->qset[g][i];
                r->qway[g][n] = r->qway[g][i];
                r->qid[g][n++] = r->qid[g][i];
            }
        r->qlen[g] = n;
    }
    r->qset[g][r->qlen[g]] = set;
    r->qway[g][r->qlen[g]] = w;
    r->latest[set][w] = ++r->ids;
    r->qid[g][r->qlen[g]++] = r->ids;
    r->nlast[set]++;
    r->ngroup[g]++;
    if (r->nlast[set] > r->quota)
        ref_pop(r, g);
    while (r->ngroup[g] > r->quota * ref_group_sets(r, g) && r->qlen[g])
        ref_pop(r, g);
}

/* The victim for a fill of `line` with class cls. */
static unsigned ref_victim(const struct ref_cache *r, uint32_t set, enum l2_class cls, uint64_t line)
{
    unsigned n[L2_NCLASS] = {0, 0, 0};
    for (unsigned w = 0; w < r->ways; w++) {
        if (r->tag[set][w] == L2_TAG_NONE)
            return w;
        n[r->cls[set][w]]++;
    }
    const struct l2_cache k = {
        .first_ways = r->first_ways, .first_frac = r->first_frac, .first_grow = r->first_grow};
    unsigned cap = l2_cache_first_cap(&k, set); /* pinned on its own by first_cap_share_spread */
    /* an evict_first fill at the cap takes a normal line for a share of
     * the lines below first_max (pinned on its own by first_grow_share) */
    int grow = cls == CLS_FIRST && n[CLS_FIRST] >= cap && n[CLS_FIRST] < r->first_max && n[CLS_NORMAL] &&
               l2_cache_first_grows(&k, line);
    int first_go = n[CLS_FIRST] && (cls != CLS_FIRST || (n[CLS_FIRST] >= cap && !grow));
    unsigned rank[L2_NCLASS] = {first_go ? 0 : 1, grow ? 0 : 1, 2};
    unsigned best = 0;
    for (unsigned w = 1; w < r->ways; w++) {
        unsigned a = rank[r->cls[set][w]], b = rank[r->cls[set][best]];
        if (a < b || (a == b && r->use[set][w] < r->use[set][best]))
            best = w;
    }
    return best;
}

/* Random operations on 3 sets, compared with the plain model after each:
 * lines share their low 32 bits in pairs, and the associativity is not a
 * multiple of 4 or 16, or is the largest allowed.  Each set is a quota
 * group, and a queue group (qsh 0) or one of 4 sets holds all 3 (qsh 2).
 * The queues number their entries from seq0 (the plain model's numbers
 * never wrap). */
static void differential(uint32_t ways, uint32_t seq0, unsigned qsh)
{
    struct l2_cache d;
    struct ref_cache r = {.ways = ways, .qsh = qsh};
    uint64_t x = 12345 + ways;
    grouped_init(&d, 3, ways, 0, qsh);
    for (unsigned g = 0; g < l2_cache_groups(&d); g++)
        d.q[g].seq = seq0;
    for (unsigned s = 0; s < 3; s++)
        for (unsigned w = 0; w < 32; w++)
            r.tag[s][w] = L2_TAG_NONE;
    for (unsigned step = 0; step < 40000; step++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        uint32_t set = (uint32_t)(x >> 60) % 3, op = (uint32_t)(x >> 56) & 15;
        uint64_t tag = ((x >> 40) & 31) | ((x >> 39) & 1) << 33; /* 64 lines: pairs equal in the low word */
        if (step % 5000 == 0) {
            d.quota = r.quota = (uint32_t)(x >> 20) % (ways + 1);
            d.first_ways = r.first_ways = (uint32_t)(x >> 25) % 4;
            d.first_frac = r.first_frac = (uint32_t)(x >> 30) & 0xffff;
            d.first_max = r.first_max = (uint32_t)(x >> 46) % (ways + 1);
            d.first_grow = r.first_grow = (uint32_t)(x >> 3) & 0xffff;
        }
        int64_t got = l2_cache_find(&d, set, tag);
        int want = -1;
        for (unsigned w = 0; w < ways; w++)
            if (r.tag[set][w] == tag)
                want = (int)w;
        ck_assert_int_eq(got, want < 0 ? -1 : (int64_t)l2_slot(set, (unsigned)want));
        enum l2_class cls = (enum l2_class)((x >> 8) % L2_NCLASS);
        ck_assert_uint_eq(l2_cache_victim(&d, set, cls, tag), l2_slot(set, ref_victim(&r, set, cls, tag)));
        if (want >= 0 && op < 8) {
            l2_cache_touch(&d, (uint64_t)got);
            r.use[set][want] = ++r.clock;
            if (op < 4) {
                l2_cache_set_cls(&d, (uint64_t)got, cls);
                ref_set_cls(&r, set, (unsigned)want, cls);
            }
        } else if (want >= 0 && op < 10) {
            l2_cache_drop(&d, (uint64_t)got);
            ref_set_cls(&r, set, (unsigned)want, CLS_NORMAL);
            r.tag[set][want] = L2_TAG_NONE;
        } else if (want < 0 && op < 14) {
            uint64_t v = l2_cache_victim(&d, set, cls, tag);
            l2_cache_install(&d, v, tag, cls);
            unsigned w = l2_slot_way(v);
            if (r.tag[set][w] != L2_TAG_NONE)
                ref_set_cls(&r, set, w, CLS_NORMAL); /* the evicted line */
            r.tag[set][w] = tag;
            r.cls[set][w] = CLS_NORMAL;
            ref_set_cls(&r, set, w, cls);
            r.use[set][w] = ++r.clock;
        } else if (op == 15 && (x & 0xff) == 0) {
            l2_cache_demote_all(&d);
            for (unsigned s = 0; s < 3; s++) {
                for (unsigned w = 0; w < ways; w++)
                    if (r.cls[s][w] == CLS_LAST)
                        r.cls[s][w] = CLS_NORMAL;
                r.qlen[s] = r.nlast[s] = r.ngroup[s] = 0;
            }
        }
        for (unsigned s = 0; s < 3; s++)
            ck_assert_uint_eq(d.cq[s].n, r.nlast[s]);
        for (unsigned g = 0; g < l2_cache_groups(&d); g++)
            ck_assert_uint_eq(d.q[g].n, r.ngroup[g]);
        if (want >= 0)
            ck_assert_uint_eq(l2_cache_cls(&d, (uint64_t)got), r.tag[set][want] == L2_TAG_NONE ? CLS_NORMAL
                                                                                    : r.cls[set][want]);
    }
    l2_cache_free(&d);
}

/* |got - n * f / 2^16| <= tol for `got` of `n` sets (lines) drawn at a share f / 2^16. */
static void check_share(const char *what, uint32_t i, uint32_t got, uint32_t n, uint32_t f, uint32_t tol)
{
    int64_t dev = (int64_t)got * 65536 - (int64_t)n * f;
    ck_assert_msg((dev < 0 ? -dev : dev) <= (int64_t)tol * 65536,
                  "share %u / 2^16, %s %u: %u of %u, want %.1f +-%u", f, what, i, got, n, n * (f / 65536.0), tol);
}

/* The per-set evict_first cap on its own (the plain model above uses the
 * very function): first_ways, or first_ways + 1 in a share first_frac / 2^16
 * of the sets, none at 0; that share holds over all the sets, over each
 * eighth of them and over each run of 128, so the +1 sets are spread
 * evenly rather than in blocks; and a set's cap is the same every time. */
START_TEST(first_cap_share_spread)
{
    enum { SETS = 12800, EIGHTH = SETS / 8, RUN = 128 };
    static const uint32_t fracs[] = {0, 16384, 32768, 58982}; /* 0, 1/4, 1/2, 0.9 of 2^16 */
    static uint8_t plus[SETS];
    for (uint32_t whole = 0; whole <= 2; whole += 2) {
        for (unsigned i = 0; i < sizeof fracs / sizeof fracs[0]; i++) {
            struct l2_cache k = {.sets = SETS, .first_ways = whole, .first_frac = fracs[i]};
            uint32_t f = fracs[i], n = 0, eighth[8] = {0}, run = 0, outside = 0, changed = 0;
            for (uint32_t set = 0; set < SETS; set++) {
                uint32_t cap = l2_cache_first_cap(&k, set);
                outside += cap < whole || cap > whole + 1;
                plus[set] = cap == whole + 1;
                n += plus[set];
                eighth[set / EIGHTH] += plus[set];
                run += plus[set];
                if (set % RUN == RUN - 1) {
                    check_share("run", set / RUN, run, RUN, f, 8);
                    run = 0;
                }
            }
            ck_assert_uint_eq(outside, 0);
            if (f == 0)
                ck_assert_uint_eq(n, 0);
            check_share("all", 0, n, SETS, f, 24);
            for (uint32_t e = 0; e < 8; e++)
                check_share("eighth", e, eighth[e], EIGHTH, f, 12);
            /* again, backwards, on a copy with other fields changed */
            struct l2_cache k2 = k;
            k2.quota = 3;
            for (uint32_t set = SETS; set-- > 0;)
                changed += l2_cache_first_cap(&k2, set) != whole + plus[set];
            ck_assert_uint_eq(changed, 0);
        }
    }
}
END_TEST

/* The share of lines whose evict_first fill at the cap takes a normal line
 * (the plain model above uses the very function): first_grow / 2^16 of
 * the lines, of every run of 4096 consecutive ones (within 4.5 standard
 * deviations of a fair coin's count), none at 0, all at 2^16, the same
 * line every time; and alike in every set: of 2048 sets of the H100's and
 * the H200's partitions (12,800 and 15,360 sets), each given the 26 lines
 * a 96 MiB stream brings it, few are picked four times or more (1.9% of
 * the sets for a fair coin at 0.04, binomial of 26; a multiplicative hash of the line,
 * whose value moves by the same step from one line of a set to the next,
 * picked 7.2% of the H100's sets 4 times, and 9.1% of the H200's 1 to 20
 * times and the others never). */
START_TEST(first_grow_share)
{
    enum { LINES = 65536, RUN = 4096, SETS = 2048, PER_SET = 26, GROW = 2621 /* 0.04 */ };
    static const uint32_t grows[] = {0, GROW, 5243, 32768, 65536}; /* 0, 0.04, 0.08, 1/2, 1 */
    const uint64_t base = UINT64_C(0x7e0000000000) >> 7;
    for (unsigned i = 0; i < sizeof grows / sizeof grows[0]; i++) {
        struct l2_cache k = {.first_grow = grows[i]};
        const double p = grows[i] / 65536.0;
        const uint32_t tol = (uint32_t)(4.5 * sqrt(RUN * p * (1 - p))) + 1;
        uint32_t n = 0, run = 0, again = 0;
        for (uint64_t l = 0; l < LINES; l++) {
            int gr = l2_cache_first_grows(&k, base + l);
            n += (uint32_t)gr;
            run += (uint32_t)gr;
            again += gr != l2_cache_first_grows(&k, base + l);
            if (l % RUN == RUN - 1) {
                check_share("grow run", (uint32_t)(l / RUN), run, RUN, grows[i], tol);
                run = 0;
            }
        }
        check_share("grow all", 0, n, LINES, grows[i], 200);
        ck_assert_uint_eq(again, 0);
        if (grows[i] == 0)
            ck_assert_uint_eq(n, 0);
        if (grows[i] == 65536)
            ck_assert_uint_eq(n, LINES);
    }
    static const uint64_t stride[] = {12800, 15360};
    struct l2_cache k = {.first_grow = GROW};
    const double p = GROW / 65536.0;
    for (unsigned j = 0; j < 2; j++) {
        uint32_t often = 0, all = 0;
        for (uint64_t set = 0; set < SETS; set++) {
            uint32_t picked = 0;
            for (uint64_t m = 0; m < PER_SET; m++)
                picked += (uint32_t)l2_cache_first_grows(&k, base + set + m * stride[j]);
            often += picked >= 4;
            all += picked;
        }
        ck_assert_msg(often <= SETS / 25, "stride %llu: %u of %u sets picked 4 times or more",
                      (unsigned long long)stride[j], often, SETS);
        check_share("grow in sets", (uint32_t)stride[j], all, SETS * PER_SET, GROW,
                    (uint32_t)(4.5 * sqrt(SETS * PER_SET * p * (1 - p))) + 1);
    }
}
END_TEST

START_TEST(matches_plain_model)
{
    for (unsigned qsh = 0; qsh <= 2; qsh += 2) {
        differential(16, 0, qsh);
        differential(7, 0, qsh);
        differential(20, 0, qsh);
        differential(32, 0, qsh);
    }
}
END_TEST

/* An entry keeps only the low bits of its number: the numbers wrap (the
 * entries' bits and the 32-bit count both) within the run. */
START_TEST(queue_numbers_wrap)
{
    for (unsigned qsh = 0; qsh <= 2; qsh += 2) {
        differential(16, UINT32_MAX - 5000, qsh);
        differential(32, UINT32_MAX - 5000, qsh);
    }
}
END_TEST

/* Queue groups too large for an entry's bits, and quota groups larger
 * than queue groups, are refused. */
START_TEST(queue_groups_bounded)
{
    struct l2_cache d;
    l2_err e;
    grouped_init(&d, 1024, 32, 9, 9);
    ck_assert_int_lt(l2_cache_group(&d, 0, 10, &e), 0);
    ck_assert_str_eq(e.msg, "groups of 1024 sets are too large for the set-aside queues");
    ck_assert_int_lt(l2_cache_group(&d, 2, 1, &e), 0);
    ck_assert_str_eq(e.msg, "quota groups of 4 sets are larger than queue groups of 2");
    l2_cache_free(&d);
}
END_TEST

Suite *cache_suite(void)
{
    Suite *s = suite_create("cache");
    TCase *tc = tcase_create("victim");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, init_empty);
    tcase_add_test(tc, invalid_way_first);
    tcase_add_test(tc, first_before_older_normal);
    tcase_add_test(tc, lru_within_class);
    tcase_add_test(tc, last_protected_within_quota);
    tcase_add_test(tc, newest_last_demotes_oldest);
    tcase_add_test(tc, quota_over_a_group);
    tcase_add_test(tc, quota_group_demotes_queue_oldest);
    tcase_add_test(tc, store_first_over_a_group);
    tcase_add_test(tc, all_last_beyond_quota);
    tcase_add_test(tc, demote_all);
    tcase_add_test(tc, sets_are_independent);
    tcase_add_test(tc, first_cap_share_spread);
    tcase_add_test(tc, first_grow_share);
    tcase_add_test(tc, queue_groups_bounded);
    suite_add_tcase(s, tc);
    /* the random comparisons, long under the sanitizers on a loaded machine */
    tc = tcase_create("plain model");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, matches_plain_model);
    tcase_add_test(tc, queue_numbers_wrap);
    suite_add_tcase(s, tc);
    return s;
}

/*
 * test_cache.c - one tag array (struct l2_cache): victim order between
 * invalid ways and the FIRST / NORMAL / LAST classes, the set-aside
 * quota, and demotion.  Worked by hand on 1 set x 4 ways.
 */
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
    uint64_t v = l2_cache_victim(&c, 0);
    l2_cache_install(&c, v, tag, cls);
    return v;
}

/* Tag that the next fill would evict (L2_TAG_NONE for an empty way). */
static uint64_t victim_tag(void)
{
    return c.w[l2_cache_victim(&c, 0)].tag;
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
    ck_assert_uint_eq(c.ways, 4);
    for (unsigned w = 0; w < 4; w++) {
        ck_assert_uint_eq(c.w[w].tag, L2_TAG_NONE);
        ck_assert_uint_eq(c.w[w].valid, 0);
        ck_assert_uint_eq(c.w[w].dirty, 0);
    }
    ck_assert_int_eq(l2_cache_find(&c, 0, 0), -1);
}
END_TEST

START_TEST(invalid_way_first)
{
    /* way 0 and 1 hold FIRST lines, yet an empty way is chosen */
    l2_cache_install(&c, 0, 10, CLS_FIRST);
    l2_cache_install(&c, 1, 11, CLS_FIRST);
    ck_assert_uint_eq(l2_cache_victim(&c, 0), 2);
    l2_cache_install(&c, 3, 13, CLS_FIRST);
    ck_assert_uint_eq(l2_cache_victim(&c, 0), 2);
    /* a dropped way is empty again and preferred over everything */
    l2_cache_install(&c, 2, 12, CLS_NORMAL);
    l2_cache_drop(&c, 1);
    ck_assert_uint_eq(l2_cache_victim(&c, 0), 1);
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
        uint64_t v = l2_cache_victim(&c, 0);
        ck_assert_uint_eq(v, 3);
        l2_cache_install(&c, v, t, CLS_FIRST);
    }
    ck_assert_int_ge(l2_cache_find(&c, 0, 1), 0);
    ck_assert_int_ge(l2_cache_find(&c, 0, 2), 0);
    ck_assert_int_ge(l2_cache_find(&c, 0, 3), 0);
    /* among FIRST lines, the least recently used */
    c.w[1].cls = CLS_FIRST; /* line 2, older than line 109 */
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

START_TEST(last_beyond_quota_competes)
{
    c.quota = 1;
    fill(1, CLS_LAST); /* oldest */
    fill(2, CLS_LAST);
    fill(3, CLS_NORMAL);
    fill(4, CLS_NORMAL);
    /* 2 LAST lines > quota 1: the oldest of LAST and NORMAL together */
    ck_assert_uint_eq(victim_tag(), 1);
    touch(1);
    ck_assert_uint_eq(victim_tag(), 2);
    touch(2);
    ck_assert_uint_eq(victim_tag(), 3);
    /* after one LAST line left, the other is within quota again */
    fill(5, CLS_NORMAL); /* evicts 3 */
    fill(6, CLS_NORMAL); /* evicts 4 */
    ck_assert_uint_eq(victim_tag(), 1); /* 1 is older than 2 and LAST lines are 2 > 1 */
    fill(7, CLS_NORMAL);                /* evicts 1 */
    ck_assert_int_eq(l2_cache_find(&c, 0, 1), -1);
    /* now LAST = {2} within quota: normal 5 is the victim though 2 is older */
    ck_assert_uint_eq(victim_tag(), 5);
    /* quota 0: every LAST line competes */
    c.quota = 0;
    ck_assert_uint_eq(victim_tag(), 2);
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
    c.w[3].cls = CLS_LAST;
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
    c.w[2].cls = CLS_NORMAL; /* line 3 is normal now */
    /* within quota: the NORMAL lines go first (3 then 4) */
    ck_assert_uint_eq(victim_tag(), 3);
    l2_cache_demote_all(&c);
    for (unsigned w = 0; w < 4; w++)
        ck_assert_uint_ne(c.w[w].cls, CLS_LAST);
    /* all normal now: plain LRU, line 1 first */
    ck_assert_uint_eq(victim_tag(), 1);
    /* FIRST lines are not touched by the demotion */
    l2_cache_clear(&c);
    fill(1, CLS_FIRST);
    fill(2, CLS_LAST);
    l2_cache_demote_all(&c);
    ck_assert_uint_eq(c.w[l2_cache_find(&c, 0, 1)].cls, CLS_FIRST);
    ck_assert_uint_eq(c.w[l2_cache_find(&c, 0, 2)].cls, CLS_NORMAL);
}
END_TEST

START_TEST(sets_are_independent)
{
    struct l2_cache d;
    l2_err e;
    ck_assert_int_eq(l2_cache_init(&d, 4, 2, &e), 0);
    l2_cache_install(&d, 2 * 2 + 0, 7, CLS_NORMAL);
    ck_assert_int_eq(l2_cache_find(&d, 2, 7), 4);
    ck_assert_int_eq(l2_cache_find(&d, 1, 7), -1);
    ck_assert_uint_eq(l2_cache_victim(&d, 2), 5);
    ck_assert_uint_eq(l2_cache_victim(&d, 3), 6);
    l2_cache_install(&d, 5, 8, CLS_NORMAL);
    ck_assert_uint_eq(l2_cache_victim(&d, 2), 4);
    l2_cache_clear(&d);
    ck_assert_int_eq(l2_cache_find(&d, 2, 7), -1);
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
    tcase_add_test(tc, last_beyond_quota_competes);
    tcase_add_test(tc, all_last_beyond_quota);
    tcase_add_test(tc, demote_all);
    tcase_add_test(tc, sets_are_independent);
    suite_add_tcase(s, tc);
    return s;
}

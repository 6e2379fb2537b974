/*
 * test_config.c - the configuration table: defaults, config files
 * (errors name file:line), --set overrides, byte units, the relations
 * l2_config_check enforces, and the text echo.
 */
#include "tests.h"

#include "config.h"

/* Loads `text` as a config file over the defaults; returns the rc and
 * the temp path (already unlinked) in path. */
static int load_text(struct l2_config *c, const char *text, char *path, l2_err *e)
{
    l2_config_defaults(c);
    tests_write_temp(path, 64, text);
    e->msg[0] = 0;
    int rc = l2_config_load(c, path, e);
    unlink(path);
    return rc;
}

static void expect_load_error(const char *text, unsigned line, const char *reason)
{
    struct l2_config c;
    l2_err e;
    char path[64], where[96];
    ck_assert_int_eq(load_text(&c, text, path, &e), -1);
    snprintf(where, sizeof where, "%s:%u: ", path, line);
    ck_assert_msg(strncmp(e.msg, where, strlen(where)) == 0, "'%s' does not start with '%s'", e.msg, where);
    ASSERT_CONTAINS(e.msg, reason);
}

static void set_ok(struct l2_config *c, const char *kv)
{
    l2_err e;
    ck_assert_msg(l2_config_set(c, kv, &e) == 0, "%s: %s", kv, e.msg);
}

START_TEST(defaults_valid)
{
    struct l2_config c;
    l2_err e;
    l2_config_defaults(&c);
    ck_assert_msg(l2_config_check(&c, &e) == 0, "%s", e.msg);
    ck_assert_uint_eq(c.l2_size, 52428800);
    ck_assert_uint_eq(c.line_size, 128);
    ck_assert_uint_eq(c.sector_size, 32);
    ck_assert_uint_eq(c.ways, 16);
    ck_assert_uint_eq(c.partitions, 2);
    ck_assert_uint_eq(c.sms, 132);
    ck_assert_uint_eq(c.sm_map, SMMAP_MOD);
    ck_assert_uint_eq(c.far_copy, 1);
    ck_assert_uint_eq(c.far_part_refresh, 0);
    ck_assert_uint_eq(c.near_refresh_pct, 100);
    ck_assert_uint_eq(c.written_reprieve_pct, 0);
    ck_assert_uint_eq(c.reprieve_again_pct, 0);
    ck_assert_uint_eq(c.dirty_ways, 0);
    ck_assert_uint_eq(c.reprieve_min_ways, 1);
    ck_assert_uint_eq(c.set_hash, SETHASH_MIX);
    ck_assert_uint_eq(c.home_hash, HOMEHASH_MIX);
    ck_assert_uint_eq(c.setaside, 9830400);      /* 3/16 of L2 */
    ck_assert_uint_eq(c.setaside_max, 32768000); /* 10/16 of L2 */
    ck_assert_uint_eq(c.setaside_floor_ways, 1);
    ck_assert_uint_eq(c.dram_atom, 32);
    ck_assert_uint_eq(c.policy_seed, 0);
    ck_assert_uint_eq(c.hash_seed, 0);
    ASSERT_CONTAINS(c.name, "H100");
}
END_TEST

/* l2_config_equal: a configuration equals a copy of itself, and a change
 * of one key of any kind makes it unequal (the decoder's places are shared
 * only between equal configurations). */
START_TEST(equal_configurations)
{
    const char *changes[] = {"l2_size=40MiB", "ways=8",           "sm_map=half",         "set_hash=stripe",
                             "sm_parts=1",    "lat_dram=701",     "partial_write_fill=1", "hash_seed=3",
                             "name=other",    "near_refresh_pct=30"};
    struct l2_config a, b;
    l2_config_defaults(&a);
    b = a;
    ck_assert(l2_config_equal(&a, &b));
    for (size_t i = 0; i < L2_ARRAY_LEN(changes); i++) {
        l2_config_defaults(&b);
        set_ok(&b, changes[i]);
        ck_assert_msg(!l2_config_equal(&a, &b) && !l2_config_equal(&b, &a), "%s", changes[i]);
        l2_config_defaults(&a);
        set_ok(&a, changes[i]);
        ck_assert_msg(l2_config_equal(&a, &b), "%s twice", changes[i]);
        l2_config_defaults(&a);
    }
}
END_TEST

START_TEST(file_values_and_comments)
{
    struct l2_config c;
    l2_err e;
    char path[64];
    int rc = load_text(&c,
                       "# an A100-like file\n"
                       "\n"
                       "name = A100 test   # trailing comment\n"
                       "  l2_size=40MiB\n"
                       "ways\t=\t16\r\n"
                       "setaside = 0x500000\n"
                       "setaside_max = 6MiB\n"
                       "line_size = 128B\n"
                       "sm_map = half\n"
                       "set_hash = stripe\n"
                       "sms = 108",
                       path, &e);
    ck_assert_msg(rc == 0, "%s", e.msg);
    ck_assert_str_eq(c.name, "A100 test");
    ck_assert_uint_eq(c.l2_size, 40ULL << 20);
    ck_assert_uint_eq(c.ways, 16);
    ck_assert_uint_eq(c.setaside, 0x500000);
    ck_assert_uint_eq(c.setaside_max, 6ULL << 20);
    ck_assert_uint_eq(c.line_size, 128);
    ck_assert_uint_eq(c.sm_map, SMMAP_HALF);
    ck_assert_uint_eq(c.set_hash, SETHASH_STRIPE);
    ck_assert_uint_eq(c.sms, 108);
    ck_assert_uint_eq(c.partitions, 2); /* untouched keys keep their defaults */
}
END_TEST

START_TEST(file_errors_name_line)
{
    expect_load_error("ways = 16\nbogus = 3\n", 2, "unknown config key 'bogus'");
    expect_load_error("# c\n\nways = 64\n", 3, "ways = 64 is out of range [1, 32]");
    expect_load_error("ways = 0\n", 1, "out of range");
    expect_load_error("l2_size = 64\n", 1, "out of range");
    expect_load_error("line_size = 2048\n", 1, "out of range");
    expect_load_error("line_size = big\n", 1, "line_size");
    expect_load_error("l2_size = 40MB\n", 1, "not a byte count");
    expect_load_error("ways = 16KiB\n", 1, "ways");
    expect_load_error("sm_map = odd\n", 1, "sm_map = 'odd' is not one of: mod, half, table");
    expect_load_error("home_hash = even\n", 1, "home_hash = 'even' is not one of: mix, balanced");
    expect_load_error("ways 16\n", 1, "expected 'key = value'");
    expect_load_error("ways =\n", 1, "ways has no value");
    expect_load_error("far_copy = 2\n", 1, "out of range");
    expect_load_error("far_part_refresh = 2\n", 1, "out of range");
    expect_load_error("near_refresh_pct = 101\n", 1, "out of range");
    expect_load_error("written_reprieve_pct = 101\n", 1, "out of range");
    expect_load_error("reprieve_again_pct = 101\n", 1, "out of range");
    expect_load_error("written_reprieve = 1\n", 1, "unknown config key 'written_reprieve'");
    expect_load_error("dirty_ways = 33\n", 1, "out of range");
    expect_load_error("reprieve_min_ways = 0\n", 1, "out of range");
    expect_load_error("hash_seed = 4294967296\n", 1, "out of range");
    expect_load_error("quota_sets = 1024\n", 1, "quota_sets = 1024 is out of range [1, 512]");
    expect_load_error("queue_sets = 0\n", 1, "queue_sets = 0 is out of range [1, 512]");
    expect_load_error("sms = -1\n", 1, "sms");
    /* a key set twice; a rule between keys names their lines */
    expect_load_error("ways = 16\n# c\nways = 8\n", 3, "ways set again (first at line 1)");
    expect_load_error("l2_size = 64GiB\n", 1, "out of range [128, 4294967296]");
    struct l2_config c;
    l2_err e;
    char path[64];
    ck_assert_int_eq(load_text(&c, "setaside_max = 1MiB\n\nsetaside = 2MiB\n", path, &e), -1);
    ASSERT_CONTAINS(e.msg, "setaside = 2097152 exceeds setaside_max = 1048576 (setaside at line 3, setaside_max at line 1)");
    ck_assert_int_eq(load_text(&c, "first_ways = 20\n", path, &e), -1);
    ASSERT_CONTAINS(e.msg, "first_ways = 20 exceeds ways = 16 (first_ways at line 1)");
}
END_TEST

START_TEST(load_missing_file)
{
    struct l2_config c;
    l2_err e;
    l2_config_defaults(&c);
    ck_assert_int_eq(l2_config_load(&c, "/tmp/l2sim-test-none/x.cfg", &e), -1);
    ASSERT_CONTAINS(e.msg, "/tmp/l2sim-test-none/x.cfg");
}
END_TEST

START_TEST(set_overrides_and_units)
{
    struct l2_config c;
    l2_err e;
    l2_config_defaults(&c);
    set_ok(&c, "l2_size=4KiB");
    ck_assert_uint_eq(c.l2_size, 4096);
    set_ok(&c, "l2_size = 0x2000");
    ck_assert_uint_eq(c.l2_size, 8192);
    set_ok(&c, "l2_size=1GiB");
    ck_assert_uint_eq(c.l2_size, 1ULL << 30);
    set_ok(&c, "l2_size=4GiB"); /* the largest: a larger one would take gigabytes of tag arrays */
    ck_assert_uint_eq(c.l2_size, 4ULL << 30);
    ck_assert_int_eq(l2_config_set(&c, "l2_size=64GiB", &e), -1);
    ASSERT_CONTAINS(e.msg, "out of range [128, 4294967296]");
    set_ok(&c, "setaside=3276800");
    ck_assert_uint_eq(c.setaside, 3276800);
    set_ok(&c, "setaside=0");
    ck_assert_uint_eq(c.setaside, 0);
    set_ok(&c, "sector_size=64B");
    ck_assert_uint_eq(c.sector_size, 64);
    set_ok(&c, "policy_seed=0xffffffff");
    ck_assert_uint_eq(c.policy_seed, 0xffffffffULL);
    ck_assert_int_eq(l2_config_set(&c, "ways=33", &e), -1);
    ASSERT_CONTAINS(e.msg, "--set ways=33");
    ASSERT_CONTAINS(e.msg, "out of range");
    ck_assert_uint_eq(c.ways, 16); /* unchanged */
    ck_assert_int_eq(l2_config_set(&c, "nosuch=1", &e), -1);
    ASSERT_CONTAINS(e.msg, "unknown config key 'nosuch'");
    ck_assert_int_eq(l2_config_set(&c, "l2_size=2TiB", &e), -1);
    ck_assert_int_eq(l2_config_set(&c, "l2_size=99999999999999999999", &e), -1);
    ASSERT_CONTAINS(e.msg, "too large");
    ck_assert_int_eq(l2_config_set(&c, "ways", &e), -1);
}
END_TEST

static void expect_check_error(const char *const *kv, const char *reason)
{
    struct l2_config c;
    l2_err e;
    l2_config_defaults(&c);
    for (; *kv; kv++)
        set_ok(&c, *kv);
    e.msg[0] = 0;
    ck_assert_int_eq(l2_config_check(&c, &e), -1);
    ASSERT_CONTAINS(e.msg, reason);
}

static void expect_check_ok(const char *const *kv)
{
    struct l2_config c;
    l2_err e;
    l2_config_defaults(&c);
    for (; *kv; kv++)
        set_ok(&c, *kv);
    ck_assert_msg(l2_config_check(&c, &e) == 0, "%s", e.msg);
}

START_TEST(check_relations)
{
    /* 50 MiB + 128: not a multiple of 128 x 16 x 2 */
    expect_check_error((const char *[]){"l2_size=52428928", NULL}, "not a multiple of line_size x ways x partitions");
    /* 4 KiB with 16 ways x 2 partitions x 128 B = 4 KiB: fine; 3 partitions: not */
    expect_check_ok((const char *[]){"l2_size=4KiB", "setaside=0", "setaside_max=0", NULL});
    expect_check_error((const char *[]){"l2_size=4KiB", "setaside=0", "setaside_max=0", "partitions=3", NULL},
                       "not a multiple");
    /* 40 MiB with 12 ways: a multiple of 128 x 12 x 2?  40 MiB / 3072 is not whole */
    expect_check_error((const char *[]){"l2_size=40MiB", "ways=12", NULL}, "not a multiple");
    expect_check_ok((const char *[]){"l2_size=60MiB", "ways=12", NULL}); /* not a power of two: fine */
    /* more than 8 sectors a line */
    expect_check_error((const char *[]){"line_size=512", "l2_size=64MiB", NULL}, "1 to 8 sectors");
    expect_check_ok((const char *[]){"line_size=256", "l2_size=64MiB", NULL});
    expect_check_error((const char *[]){"line_size=64", "sector_size=128", NULL}, "1 to 8 sectors");
    expect_check_error((const char *[]){"line_size=96", NULL}, "line_size = 96 is not a power of two");
    expect_check_error((const char *[]){"sector_size=24", NULL}, "not a power of two");
    expect_check_error((const char *[]){"quota_sets=384", NULL}, "quota_sets = 384 is not a power of two");
    expect_check_error((const char *[]){"queue_sets=48", NULL}, "queue_sets = 48 is not a power of two");
    expect_check_error((const char *[]){"quota_sets=8", "queue_sets=4", NULL}, "queue_sets = 4 is below quota_sets = 8");
    expect_check_error((const char *[]){"dram_atom=256", NULL}, "dram_atom");
    /* set-aside relations */
    expect_check_error((const char *[]){"setaside=32768001", NULL}, "setaside = 32768001 exceeds setaside_max");
    expect_check_error((const char *[]){"setaside_max=51MiB", NULL}, "setaside_max");
    expect_check_error((const char *[]){"setaside_floor_ways=17", NULL}, "setaside_floor_ways");
    expect_check_error((const char *[]){"ways=8", "l2_size=48MiB", "first_ways=8.5", NULL}, "first_ways = 8.5 exceeds ways = 8");
    expect_check_ok((const char *[]){"ways=8", "l2_size=48MiB", "first_ways=8", NULL});
    expect_check_error((const char *[]){"ways=8", "l2_size=48MiB", "first_max=9", NULL}, "first_max = 9 exceeds ways = 8");
    expect_check_ok((const char *[]){"ways=8", "l2_size=48MiB", "first_max=8", "first_grow=1", NULL});
    expect_check_ok((const char *[]){"setaside=32768000", NULL});
    /* sm_map = table: one partition digit per SM, each below partitions */
    expect_check_ok((const char *[]){"sms=4", "sm_map=table", "sm_parts=0110", NULL});
    expect_check_ok((const char *[]){"sms=4", "sm_parts=01", NULL}); /* not read without the table */
    expect_check_error((const char *[]){"sms=4", "sm_map=table", "sm_parts=011", NULL},
                       "sm_parts has 3 digits, sms = 4");
    expect_check_error((const char *[]){"sms=4", "sm_map=table", "sm_parts=0120", NULL},
                       "sm_parts: SM 2's digit '2' is not a partition (0 to 1)");
    expect_check_error((const char *[]){"sms=4", "sm_map=table", "sm_parts=01x0", NULL}, "SM 2's digit 'x'");
    expect_check_error((const char *[]){"sms=132", "sm_map=table", NULL}, "sm_parts has 1 digits, sms = 132");
}
END_TEST

START_TEST(get_and_print)
{
    struct l2_config c;
    char buf[80];
    l2_config_defaults(&c);
    ck_assert_str_eq(l2_config_get(&c, "l2_size", buf, sizeof buf), "50MiB");
    ck_assert_str_eq(l2_config_get(&c, "setaside", buf, sizeof buf), "9600KiB"); /* 9830400 */
    ck_assert_str_eq(l2_config_get(&c, "ways", buf, sizeof buf), "16");
    ck_assert_str_eq(l2_config_get(&c, "sm_map", buf, sizeof buf), "mod");
    ck_assert_str_eq(l2_config_get(&c, "set_hash", buf, sizeof buf), "mix");
    ck_assert_ptr_null(l2_config_get(&c, "nosuch", buf, sizeof buf));
    /* the entries are every key of the table once, in its order, each with
     * the value its name looks up */
#define KEY_NAME(f, ...) #f,
    static const char *const names[] = {L2_CONFIG_KEYS(KEY_NAME)};
#undef KEY_NAME
    const char *key, *value;
    char byname[80];
    size_t i = 0;
    for (; (value = l2_config_entry(&c, i, &key, buf, sizeof buf)) != NULL; i++) {
        ck_assert_uint_lt(i, sizeof names / sizeof names[0]);
        ck_assert_str_eq(key, names[i]);
        ck_assert_str_eq(value, l2_config_get(&c, key, byname, sizeof byname));
    }
    ck_assert_uint_eq(i, sizeof names / sizeof names[0]);
    /* print then load gives the same configuration */
    struct l2_config d;
    l2_err e;
    set_ok(&c, "l2_size=40MiB");
    set_ok(&c, "sm_map=half");
    set_ok(&c, "setaside=3KiB");
    FILE *f = tmpfile();
    l2_config_print(&c, f, "");
    char *text = tests_slurp(f);
    fclose(f);
    ASSERT_CONTAINS(text, "l2_size");
    ASSERT_CONTAINS(text, "= 40MiB\n");
    char path[64];
    ck_assert_msg(load_text(&d, text, path, &e) == 0, "%s", e.msg);
    ck_assert_int_eq(memcmp(&c, &d, sizeof c), 0);
    free(text);
    f = tmpfile();
    l2_config_help(f);
    text = tests_slurp(f);
    fclose(f);
    ASSERT_CONTAINS(text, "setaside_floor_ways");
    ASSERT_CONTAINS(text, "(default 50MiB)");
    free(text);
}
END_TEST

Suite *config_suite(void)
{
    Suite *s = suite_create("config");
    TCase *tc = tcase_create("config");
    tcase_add_test(tc, defaults_valid);
    tcase_add_test(tc, equal_configurations);
    tcase_add_test(tc, file_values_and_comments);
    tcase_add_test(tc, file_errors_name_line);
    tcase_add_test(tc, load_missing_file);
    tcase_add_test(tc, set_overrides_and_units);
    tcase_add_test(tc, check_relations);
    tcase_add_test(tc, get_and_print);
    suite_add_tcase(s, tc);
    return s;
}

/*
 * tests.h - the Check suites of the l2sim unit tests (one per module) and
 * small helpers they share.  test_main.c runs every suite.
 */
#ifndef L2SIM_TESTS_H
#define L2SIM_TESTS_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"

Suite *trace_suite(void);
Suite *trace_bin_suite(void);
Suite *policy_suite(void);
Suite *cache_suite(void);
Suite *l2_suite(void);
Suite *sim_suite(void);
Suite *report_suite(void);
Suite *config_suite(void);
Suite *timing_suite(void);
Suite *model_suite(void);
Suite *tools_suite(void);

/* Fails unless string `hay` contains `needle`. */
#define ASSERT_CONTAINS(hay, needle)                                                          \
    ck_assert_msg(strstr((hay), (needle)) != NULL, "expected \"%s\" to contain \"%s\"", (hay), \
                  (needle))

/* Writes `text` to a new file /tmp/l2sim-test-XXXXXX (path: 64 bytes);
 * the caller unlinks it. */
static inline void tests_write_temp(char *path, size_t n, const char *text)
{
    snprintf(path, n, "/tmp/l2sim-test-XXXXXX");
    int fd = mkstemp(path);
    ck_assert_msg(fd >= 0, "mkstemp failed");
    size_t len = strlen(text);
    ck_assert_int_eq((long)write(fd, text, len), (long)len);
    close(fd);
}

/* Applies the key=value overrides of a NULL-terminated list (NULL: none). */
static inline void tests_config(struct l2_config *c, const char *const *kv)
{
    l2_err e;
    for (; kv && *kv; kv++)
        ck_assert_msg(l2_config_set(c, *kv, &e) == 0, "%s: %s", *kv, e.msg);
}

/* The l2sim binary under test: $L2SIM (`make unit` sets it), else
 * build/l2sim.  Fails the test when it is not an executable. */
static inline const char *tests_l2sim(void)
{
    const char *p = getenv("L2SIM");
    p = p && *p ? p : "build/l2sim";
    ck_assert_msg(access(p, X_OK) == 0, "%s is not an executable (set L2SIM)", p);
    return p;
}

/* A program built next to the l2sim under test (scengen, tracegen). */
static inline const char *tests_built(const char *name)
{
    static char path[512];
    const char *l2 = tests_l2sim(), *slash = strrchr(l2, '/');
    snprintf(path, sizeof path, "%.*s%s", slash ? (int)(slash - l2 + 1) : 0, l2, name);
    ck_assert_msg(access(path, X_OK) == 0, "%s is not an executable", path);
    return path;
}

/* Reads a whole stream (rewound first) into a malloc'd NUL-terminated
 * string. */
static inline char *tests_slurp(FILE *f)
{
    ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
    long n = ftell(f);
    ck_assert(n >= 0);
    rewind(f);
    char *s = malloc((size_t)n + 1);
    ck_assert_ptr_nonnull(s);
    ck_assert_uint_eq(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = 0;
    return s;
}

#endif

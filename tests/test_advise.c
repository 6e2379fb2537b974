/*
 * test_advise.c - advise: the greedy search finds the exhaustive search's
 * best plan on a trace small enough to enumerate; a suggestion's --policy
 * lines, run, give the numbers advise predicted; the command's output and
 * errors.
 */
#include "advise.h"
#include "tests.h"

/* Three buffers on a 1 MiB L2: a 256 KiB table re-read by every kernel, a
 * 4 MiB stream read once in between, and a 512 KiB buffer read twice. */
static void small_trace(char *path, size_t n)
{
    static char text[1 << 20];
    size_t k = 0;
    k += (size_t)snprintf(text + k, sizeof text - k,
                          "alloc table 0x100000 256KiB\nalloc stream 0x1000000 4MiB\nalloc mid 0x800000 512KiB\n");
    for (int kern = 0; kern < 4; kern++) {
        k += (size_t)snprintf(text + k, sizeof text - k, "kernel step%d\n", kern);
        for (int i = 0; i < 64; i++) {
            k += (size_t)snprintf(text + k, sizeof text - k, "R 0x%x 4096 sm=%d\n", 0x100000 + i * 4096, i % 8);
            for (int j = 0; j < 4; j++)
                k += (size_t)snprintf(text + k, sizeof text - k, "R 0x%x 4096 sm=%d\n",
                                      0x1000000 + (kern * 256 + i * 4 + j) * 4096 % (4 << 20), i % 8);
            if (kern < 2)
                k += (size_t)snprintf(text + k, sizeof text - k, "R 0x%x 4096 sm=%d\n", 0x800000 + (i * 2) * 4096,
                                      i % 8);
        }
    }
    ck_assert_uint_lt(k, sizeof text);
    tests_write_temp(path, n, text);
}

static void advise_small(const char *path, int exhaustive, struct l2_advice *a)
{
    static struct l2_advise_opts o;
    memset(&o, 0, sizeof o);
    o.base.sem = SEM_HARDWARE;
    o.base.sets[o.base.nsets++] = "l2_size=1MiB";
    o.base.sets[o.base.nsets++] = "setaside=0";
    o.base.sets[o.base.nsets++] = "setaside_max=512KiB";
    o.base.sets[o.base.nsets++] = "sms=8";
    o.trace = path;
    o.nbuf = 3;
    o.threads = 2;
    o.exhaustive = exhaustive;
    l2_err e;
    ck_assert_msg(l2_advise(&o, a, &e) == 0, "%s", e.msg);
}

START_TEST(greedy_finds_exhaustive_best)
{
    char path[64];
    small_trace(path, sizeof path);
    struct l2_advice g, x;
    advise_small(path, 0, &g);
    advise_small(path, 1, &x);
    ck_assert_uint_eq(x.nbuf, 3);
    ck_assert_uint_eq(x.nplans, 64 + x.nsweep * x.nsteps - x.nsweep); /* every assignment, then the sweeps */
    /* the best assignment at the largest set-aside: the plan of least
     * estimated time over the 64, then of least DRAM traffic */
    unsigned best = 0;
    for (unsigned i = 1; i < 64; i++)
        if (x.plan[i].est_ns < x.plan[best].est_ns ||
            (x.plan[i].est_ns == x.plan[best].est_ns && x.plan[i].dram < x.plan[best].dram))
            best = i;
    ck_assert(x.plan[best].est_ns < x.plan[0].est_ns); /* something is worth doing here */
    ck_assert_uint_lt(x.plan[best].dram, x.plan[0].dram);
    unsigned sg[1], sx[1];
    ck_assert_uint_eq(l2_advice_suggestions(&g, 1, sg), 1);
    ck_assert_uint_eq(l2_advice_suggestions(&x, 1, sx), 1);
    const struct l2_plan *pg = &g.plan[sg[0]], *px = &x.plan[sx[0]];
    ck_assert_int_eq(pg->window, -1);
    ck_assert_mem_eq(pg->assign, px->assign, sizeof pg->assign);
    ck_assert_mem_eq(px->assign, x.plan[best].assign, sizeof px->assign);
    ck_assert_uint_eq(pg->dram, px->dram);
    /* the table is persisting and the stream streaming in that plan */
    for (unsigned i = 0; i < 3; i++) {
        if (strcmp(x.buf[i].name, "table") == 0)
            ck_assert_int_eq(px->assign[i], ASSIGN_PERSISTING);
        if (strcmp(x.buf[i].name, "stream") == 0)
            ck_assert_int_ne(px->assign[i], ASSIGN_PERSISTING);
    }
    /* the greedy search simulated fewer plans than every assignment */
    ck_assert_uint_lt(g.nplans - g.nsweep * g.nsteps, 64);
    l2_advice_free(&g);
    l2_advice_free(&x);
    unlink(path);
}
END_TEST

/* The suggestion's --policy lines, run, give the DRAM bytes advise
 * predicted for it. */
START_TEST(policy_lines_reproduce_prediction)
{
    char path[64], pol[64];
    small_trace(path, sizeof path);
    struct l2_advice a;
    advise_small(path, 0, &a);
    unsigned s[1];
    ck_assert_uint_eq(l2_advice_suggestions(&a, 1, s), 1);
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    l2_plan_policy(m, &a, &a.plan[s[0]], "");
    fclose(m);
    ASSERT_CONTAINS(text, "assign table persisting\n");
    tests_write_temp(pol, sizeof pol, text);
    char cmd[512], *out;
    snprintf(cmd, sizeof cmd,
             "run --set l2_size=1MiB --set setaside=0 --set setaside_max=512KiB --set sms=8 --policy %s --csv %s | "
             "awk -F, 'NR > 1 && $1 != 0 && $4 == \"all\" { s += $14 + $15 } END { print s }'",
             pol, path);
    ck_assert_int_eq(tests_cli(cmd, &out), 0);
    char want[32];
    snprintf(want, sizeof want, "%llu\n", (unsigned long long)a.plan[s[0]].dram);
    ck_assert_str_eq(out, want);
    free(out);
    free(text);
    l2_advice_free(&a);
    unlink(pol);
    unlink(path);
}
END_TEST

/* The placement caveat names a suggestion whose persisting data fills
 * more than half its set-aside, and none at set-aside 0 (the per-set
 * floor) or at exactly half. */
START_TEST(placement_caveat_threshold)
{
    char path[64];
    small_trace(path, sizeof path);
    struct l2_advice a;
    advise_small(path, 0, &a);
    unsigned s[1];
    ck_assert_uint_eq(l2_advice_suggestions(&a, 1, s), 1);
    struct l2_plan *p = &a.plan[s[0]];
    ck_assert(p->setaside_set); /* it persists the table: 256 KiB */
    const uint64_t setaside[3] = {0, 448 << 10, 512 << 10};
    const int warned[3] = {0, 1, 0};
    for (unsigned i = 0; i < 3; i++) {
        p->setaside = setaside[i];
        char *text = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&text, &len);
        l2_err e;
        ck_assert_int_eq(l2_advice_table(m, &a, 1, &e), 0);
        fclose(m);
        ck_assert_int_eq(strstr(text, "persisting more than half the set-aside: suggestion 1 (256KiB in 448KiB)") != NULL,
                         warned[i]);
        ck_assert_int_eq(strstr(text, "persisting more than half") != NULL, warned[i]);
        free(text);
    }
    l2_advice_free(&a);
    unlink(path);
}
END_TEST

/* The advice on the shipped sample; the placement caveat end to end on
 * the small trace, whose first suggestion persists the 256 KiB table in a
 * 320 KiB set-aside (the threshold itself: placement_caveat_threshold). */
START_TEST(advise_cli)
{
    char *out, path[64], cmd[256];
    ck_assert_int_eq(
        tests_cli("advise --config configs/h100.cfg --policy traces/update-plain.policy --top 4 traces/update.trace", &out),
        0);
    ASSERT_CONTAINS(out, "search: 4 of 5 buffers with traffic considered;");
    ASSERT_CONTAINS(out, "\nsuggestion 1: ");
    ASSERT_CONTAINS(out, ": window on b, hitRatio "); /* among the four: a window on b with a set-aside */
    ASSERT_CONTAINS(strstr(out, ": window on b, hitRatio "), " applied); set-aside ");
    /* ranked by estimated time: each suggestion's at least the one before's */
    double prev = 0;
    int ranked = 0;
    for (const char *p = out; (p = strstr(p, "\n  predicted: ")) != NULL; p++) {
        const char *t = strstr(p, "estimated time ");
        double before, after;
        ck_assert_ptr_nonnull(t);
        ck_assert_int_eq(sscanf(t, "estimated time %lf -> %lf us", &before, &after), 2);
        ck_assert(after < before);
        ck_assert(after >= prev);
        prev = after;
        ranked++;
    }
    ck_assert_int_eq(ranked, 4);
    ASSERT_CONTAINS(out, "\nsuggestion 4: ");
    ck_assert_ptr_null(strstr(out, "\nsuggestion 5: "));
    ASSERT_CONTAINS(out, "cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, ");
    ASSERT_CONTAINS(out, "cuda::annotated_ptr<T, cuda::access_property::");
    ASSERT_CONTAINS(out, "caveats:");
    free(out);
    small_trace(path, sizeof path);
    snprintf(cmd, sizeof cmd,
             "advise --set l2_size=1MiB --set setaside=0 --set setaside_max=512KiB --set sms=8 --buffers 3 --top 2 %s", path);
    ck_assert_int_eq(tests_cli(cmd, &out), 0);
    ASSERT_CONTAINS(out, "  - persisting more than half the set-aside: suggestion 1 (256KiB in 320KiB);\n"
                         "    how much of such data the GPU keeps depends on where the buffers lie in physical memory");
    free(out);
    unlink(path);
    ck_assert_int_eq(tests_cli("advise --json --config configs/h100.cfg --policy traces/update-plain.policy traces/update.trace | python3 -c 'import "
                               "json,sys; d=json.load(sys.stdin); print(len(d[\"suggestions\"]), d[\"baseline\"]"
                               "[\"dram_bytes\"] > d[\"suggestions\"][0][\"dram_bytes\"])'",
                               &out),
                     0);
    ck_assert_str_eq(out, "3 True\n");
    free(out);
    ck_assert_int_eq(tests_cli("advise --buffers 9 traces/update.trace", &out), 2);
    ASSERT_CONTAINS(out, "--buffers needs a number from 1 to 8");
    free(out);
    ck_assert_int_eq(tests_cli("advise --exhaustive traces/update.trace", &out), 2);
    ASSERT_CONTAINS(out, "--exhaustive takes at most 3 buffers");
    free(out);
    ck_assert_int_eq(tests_cli("advise traces/quickstart.trace", &out), 2);
    ASSERT_CONTAINS(out, "traces/quickstart.trace: no allocation is accessed: advise needs alloc lines");
    free(out);
}
END_TEST

/* advise --html: a page the strict checker accepts, with the sweeps and
 * bars; a path that cannot be written fails before the search, and a
 * failing search leaves no page behind. */
START_TEST(advise_cli_html)
{
    char page[64], cmd[512], *out, *err;
    tests_write_temp(page, sizeof page, "");
    snprintf(cmd, sizeof cmd, "advise --config configs/h100.cfg --html %s traces/update.trace >/dev/null", page);
    ck_assert_int_eq(tests_cli(cmd, NULL), 0);
    snprintf(cmd, sizeof cmd, "python3 tests/check_html.py %s", page);
    ck_assert_msg(tests_sh(cmd, &out, &err) == 0, "%s%s", out, err);
    ASSERT_CONTAINS(out, "svg ");
    ASSERT_CONTAINS(out, "bars=");
    free(out);
    free(err);
    unlink(page);
    ck_assert_int_eq(tests_cli("advise --html /nonexistent/dir/page.html traces/update.trace", &out), 2);
    ck_assert_str_eq(out, "l2sim: /nonexistent/dir/page.html: cannot write the HTML report\n");
    free(out);
    snprintf(cmd, sizeof cmd, "advise --html %s traces/quickstart.trace", page);
    ck_assert_int_eq(tests_cli(cmd, &out), 2);
    ASSERT_CONTAINS(out, "no allocation is accessed");
    ck_assert_int_ne(access(page, F_OK), 0);
    free(out);
}
END_TEST

Suite *advise_suite(void)
{
    Suite *s = suite_create("advise");
    TCase *tc = tcase_create("advise");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, greedy_finds_exhaustive_best);
    tcase_add_test(tc, policy_lines_reproduce_prediction);
    tcase_add_test(tc, placement_caveat_threshold);
    tcase_add_test(tc, advise_cli);
    tcase_add_test(tc, advise_cli_html);
    suite_add_tcase(s, tc);
    return s;
}

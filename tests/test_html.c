/*
 * test_html.c - the HTML reports: values with units, axes and escaping
 * of the SVG layer (svg.h); the pages of compare --html and of the advice
 * (l2_advice_html, and advise --html writing the same bytes), parsed with
 * real parsers by tests/check_html.py (strict HTML nesting, each <svg>
 * well-formed XML, no script, nothing fetched from elsewhere), with a bar
 * per variant and kernel, names from the trace escaped, and the same
 * bytes on every run.
 */
#include <math.h>

#include "advise.h"
#include "report.h"
#include "svg.h"
#include "tests.h"

/* Names that need escaping in HTML, in a trace and in a variant. */
#define ODD_KERNEL "wr<&\"ite"
#define ODD_BUFFER "in<&\"put"
#define ODD_KERNEL_ESC "wr&lt;&amp;&quot;ite"
#define ODD_BUFFER_ESC "in&lt;&amp;&quot;put"

/* Runs tests/check_html.py on the page at path; fails the test on any
 * problem it reports.  Returns its output (one "svg ID bars=N" line per
 * chart), malloc'd. */
static char *check_page(const char *path)
{
    char cmd[256], *out, *err;
    snprintf(cmd, sizeof cmd, "python3 tests/check_html.py %s", path);
    int rc = tests_sh(cmd, &out, &err);
    ck_assert_msg(rc == 0, "check_html.py failed (%d):\n%s%s", rc, out, err);
    free(err);
    return out;
}

/* The page must hold `esc` and never the raw `raw`. */
static void assert_escaped(const char *page, const char *raw, const char *esc)
{
    ASSERT_CONTAINS(page, esc);
    ck_assert_msg(strstr(page, raw) == NULL, "unescaped \"%s\" in the page", raw);
}

static const char *fmt(double v, enum l2_unit u)
{
    static char b[32];
    return l2_fmt_value(v, u, b, sizeof b);
}

static char *escaped(const char *s, size_t cut)
{
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    if (cut)
        l2_html_escape_cut(f, s, cut);
    else
        l2_html_escape(f, s);
    char *r = tests_slurp(f);
    fclose(f);
    return r;
}

START_TEST(values_axes_escaping)
{
    ck_assert_str_eq(fmt(32768000, L2_UNIT_BYTES), "31.25 MiB");
    ck_assert_str_eq(fmt(80000000, L2_UNIT_BYTES), "76.3 MiB");
    ck_assert_str_eq(fmt(12 << 20, L2_UNIT_BYTES), "12 MiB");
    ck_assert_str_eq(fmt(-4500000, L2_UNIT_BYTES), "-4.29 MiB");
    ck_assert_str_eq(fmt(512, L2_UNIT_BYTES), "512 B");
    ck_assert_str_eq(fmt(3.0 * (1u << 30), L2_UNIT_BYTES), "3 GiB");
    ck_assert_str_eq(fmt(0.57541, L2_UNIT_RATE), "57.54%");
    ck_assert_str_eq(fmt(45012, L2_UNIT_NS), "45.0 us");
    ck_assert_str_eq(fmt(2359296, L2_UNIT_COUNT), "2359296");
    ck_assert_str_eq(fmt(NAN, L2_UNIT_RATE), "n/a");

    struct l2_axis a;
    l2_axis_init(&a, 0, 77.1 * 1048576, L2_UNIT_BYTES, 0, 0); /* from 0, to the tick above */
    ck_assert_str_eq(a.unit, "MiB");
    ck_assert(a.lo == 0 && a.hi == 80 * 1048576.0 && a.step == 20 * 1048576.0);
    l2_axis_init(&a, 72.8 * 1048576, 77.1 * 1048576, L2_UNIT_BYTES, 1, 0); /* zoomed to the values */
    ck_assert(a.lo == 72 * 1048576.0 && a.hi == 78 * 1048576.0 && a.step == 2 * 1048576.0);
    l2_axis_init(&a, 0.2, 0.9, L2_UNIT_BYTES, 1, 0); /* min under half of max: from 0 */
    ck_assert(a.lo == 0);
    l2_axis_init(&a, 0, 32768000, L2_UNIT_BYTES, 0, 1); /* exact end */
    ck_assert(a.hi == 32768000 && a.step == 10 * 1048576.0);
    l2_axis_init(&a, 0, 0.6667, L2_UNIT_RATE, 0, 0);
    ck_assert_str_eq(a.unit, "%");
    ck_assert(fabs(a.hi - 0.8) < 1e-12 && fabs(a.step - 0.2) < 1e-12 && a.decimals == 0);
    l2_axis_init(&a, 0, 0, L2_UNIT_NS, 0, 0); /* nothing to show: still an axis */
    ck_assert(a.hi > 0 && a.step > 0);
    ck_assert_double_eq(l2_axis_pos(&a, a.hi), 1);

    char *s = escaped("a<&\"'>\x01z\xff", 0); /* control characters and stray bytes: U+FFFD */
    ck_assert_str_eq(s, "a&lt;&amp;&quot;&#39;&gt;\xef\xbf\xbdz\xef\xbf\xbd");
    free(s);
    s = escaped("\xc3\xa9" "b\xc3\xa9" "d\xc3\xa9" "f", 5); /* six characters cut to five: head, tail, whole ones */
    ck_assert_str_eq(s, "\xc3\xa9...f");
    free(s);
    s = escaped("kernel<float, 128, 6>", 13);
    ck_assert_str_eq(s, "kerne...8, 6&gt;");
    free(s);
    s = escaped("\xc3\xa9<\xc3\xa9", 5);
    ck_assert_str_eq(s, "\xc3\xa9&lt;\xc3\xa9");
    free(s);
}
END_TEST

/* Two buffers (one with an odd name) and two kernels. */
static void small_trace(char *path, size_t n)
{
    static char text[1 << 16];
    size_t k = (size_t)snprintf(text, sizeof text, "alloc " ODD_BUFFER " 0x100000 64KiB\nalloc out 0x200000 64KiB\n"
                                                   "kernel " ODD_KERNEL "\n");
    for (int i = 0; i < 16; i++)
        k += (size_t)snprintf(text + k, sizeof text - k, "R 0x%x 4096 sm=%d\nW 0x%x 4096 sm=%d\n",
                              0x100000 + i * 4096, i % 8, 0x200000 + i * 4096, i % 8);
    k += (size_t)snprintf(text + k, sizeof text - k, "kernel reread stream=1\n");
    for (int i = 0; i < 16; i++)
        k += (size_t)snprintf(text + k, sizeof text - k, "R 0x%x 4096 persisting sm=%d\n", 0x100000 + i * 4096, i % 8);
    ck_assert_uint_lt(k, sizeof text);
    tests_write_temp(path, n, text);
}

START_TEST(compare_html_page)
{
    char tp[64], hp[64], args[800], *out, *page, *page2;
    small_trace(tp, sizeof tp);
    tests_write_temp(hp, sizeof hp, "");
    snprintf(args, sizeof args,
             "compare --html %s --set l2_size=256KiB --set setaside=0 --set setaside_max=128KiB "
             "--variant 'name=v<&\"1' --variant name=setaside,set=setaside=128KiB "
             "--variant name=small,set=l2_size=128KiB,set=setaside_max=64KiB %s",
             hp, tp);
    ck_assert_int_eq(tests_cli(args, &out), 0);
    ASSERT_CONTAINS(out, "l2sim " L2SIM_VERSION " compare\n"); /* the table as well */
    free(out);
    page = tests_slurp_file(hp, NULL);
    char *charts = check_page(hp);
    /* a bar per variant and kernel (3 x 2), per variant and buffer (3 x 2) */
    ASSERT_CONTAINS(charts, "svg kernel-hit-rate bars=6\n");
    ASSERT_CONTAINS(charts, "svg kernel-dram bars=6\n");
    ASSERT_CONTAINS(charts, "svg buffer-hit-rate bars=6\n");
    ASSERT_CONTAINS(charts, "svg buffer-dram bars=6\n");
    ASSERT_CONTAINS(charts, "svg priority-hit-rate bars=");
    free(charts);
    ck_assert_ptr_null(strstr(page, "<script"));
    ASSERT_CONTAINS(page, "<title>l2sim compare: /tmp/l2sim-test-");
    assert_escaped(page, ODD_KERNEL, ODD_KERNEL_ESC);
    assert_escaped(page, ODD_BUFFER, ODD_BUFFER_ESC);
    assert_escaped(page, "v<&\"1", "v&lt;&amp;&quot;1");
    /* byte-identical on a second run, with another thread count */
    snprintf(args, sizeof args,
             "compare --threads 1 --html %s --set l2_size=256KiB --set setaside=0 --set setaside_max=128KiB "
             "--variant 'name=v<&\"1' --variant name=setaside,set=setaside=128KiB "
             "--variant name=small,set=l2_size=128KiB,set=setaside_max=64KiB %s >/dev/null",
             hp, tp);
    ck_assert_int_eq(tests_cli(args, NULL), 0);
    page2 = tests_slurp_file(hp, NULL);
    ck_assert_str_eq(page, page2);
    free(page);
    free(page2);
    unlink(hp);

    /* a page that cannot be written: exit 2, naming the file */
    snprintf(args, sizeof args, "compare --html /nonexistent-dir/p.html --variant name=a --variant name=b %s", tp);
    ck_assert_int_eq(tests_cli(args, &out), 2);
    ASSERT_CONTAINS(out, "/nonexistent-dir/p.html");
    free(out);
    snprintf(args, sizeof args, "run --html %s %s", hp, tp); /* compare only */
    ck_assert_int_eq(tests_cli(args, &out), 2);
    ASSERT_CONTAINS(out, "unknown option '--html'");
    free(out);
    ck_assert_int_eq(tests_cli("compare --help", &out), 0);
    ASSERT_CONTAINS(out, "--html FILE");
    free(out);
    unlink(tp);
}
END_TEST

START_TEST(compare_html_many_kernels)
{
    /* 30 kernels, kernel i reading i + 1 lines: the 24 with the most DRAM traffic are the last 24 */
    static char text[1 << 16];
    size_t k = 0;
    for (int i = 0; i < 30; i++) {
        k += (size_t)snprintf(text + k, sizeof text - k, "kernel k%d\n", i);
        for (int j = 0; j <= i; j++)
            k += (size_t)snprintf(text + k, sizeof text - k, "R 0x%x 128\n", (i << 16) + (j << 7));
    }
    char tp[64], hp[64], args[512], *out;
    tests_write_temp(tp, sizeof tp, text);
    tests_write_temp(hp, sizeof hp, "");
    snprintf(args, sizeof args, "compare --html %s --variant name=a --variant name=b,set=setaside=0 %s >/dev/null",
             hp, tp);
    ck_assert_int_eq(tests_cli(args, NULL), 0);
    char *charts = check_page(hp);
    ASSERT_CONTAINS(charts, "svg kernel-dram bars=48\n");
    ck_assert_ptr_null(strstr(charts, "buffer-")); /* no allocations: no buffer bars */
    free(charts);
    out = tests_slurp_file(hp, NULL);
    ASSERT_CONTAINS(out, "The 24 kernels with the most DRAM traffic in the first variant, of 30");
    ASSERT_CONTAINS(out, ">7: k6<");
    ck_assert_ptr_null(strstr(out, ">6: k5<"));
    free(out);
    unlink(hp);
    unlink(tp);
}
END_TEST

/* The advice page of a small trace: a table re-read by every kernel (an
 * odd name), a stream read once, on a 1 MiB L2; written by l2_advice_html
 * and by advise --html. */
START_TEST(advise_html_page)
{
    static char text[1 << 20];
    size_t k = (size_t)snprintf(text, sizeof text,
                                "alloc " ODD_BUFFER " 0x100000 256KiB\nalloc stream 0x1000000 4MiB\n");
    for (int kern = 0; kern < 3; kern++) {
        k += (size_t)snprintf(text + k, sizeof text - k, "kernel %s%d\n", ODD_KERNEL, kern);
        for (int i = 0; i < 64; i++) {
            k += (size_t)snprintf(text + k, sizeof text - k, "R 0x%x 4096 sm=%d\n", 0x100000 + i * 4096, i % 8);
            for (int j = 0; j < 4; j++)
                k += (size_t)snprintf(text + k, sizeof text - k, "R 0x%x 4096 sm=%d\n",
                                      0x1000000 + (kern * 256 + i * 4 + j) * 4096 % (4 << 20), i % 8);
        }
    }
    ck_assert_uint_lt(k, sizeof text);
    char tp[64], hp[64];
    tests_write_temp(tp, sizeof tp, text);
    struct l2_advise_opts o;
    memset(&o, 0, sizeof o);
    o.base.sem = SEM_HARDWARE;
    o.base.sets[o.base.nsets++] = "l2_size=1MiB";
    o.base.sets[o.base.nsets++] = "setaside=0";
    o.base.sets[o.base.nsets++] = "setaside_max=512KiB";
    o.base.sets[o.base.nsets++] = "sms=8";
    o.trace = tp;
    o.nbuf = 2;
    o.threads = 2;
    struct l2_advice a;
    l2_err e;
    ck_assert_msg(l2_advise(&o, &a, &e) == 0, "%s", e.msg);
    unsigned sug[3], nsug = l2_advice_suggestions(&a, 3, sug);
    ck_assert_uint_ge(nsug, 1);
    ck_assert_uint_ge(a.nsweep, 1);
    char *page[2];
    for (int run = 0; run < 2; run++) {
        tests_write_temp(hp, sizeof hp, "");
        FILE *f = fopen(hp, "w");
        ck_assert_ptr_nonnull(f);
        ck_assert_msg(l2_advice_html(f, &a, 3, &e) == 0, "%s", e.msg);
        ck_assert_int_eq(fclose(f), 0);
        page[run] = tests_slurp_file(hp, NULL);
        if (run == 0) {
            char *charts = check_page(hp), want[64];
            ASSERT_CONTAINS(charts, "svg sweep-dram bars=0\n");
            ASSERT_CONTAINS(charts, "svg sweep-time bars=0\n");
            ASSERT_CONTAINS(charts, "svg sweep-hit-rate bars=0\n");
            snprintf(want, sizeof want, "svg buffer-dram bars=%u\n", 2 * (1 + nsug)); /* buffers x plans */
            ASSERT_CONTAINS(charts, want);
            ASSERT_CONTAINS(charts, "svg kernel-dram bars=6\n"); /* kernels x (baseline, suggestion 1) */
            ASSERT_CONTAINS(charts, "svg kernel-time bars=6\n");
            free(charts);
        }
        unlink(hp);
    }
    ck_assert_str_eq(page[0], page[1]);
    /* advise --html with the same settings writes the same page */
    char args[512];
    tests_write_temp(hp, sizeof hp, "");
    snprintf(args, sizeof args,
             "advise --set l2_size=1MiB --set setaside=0 --set setaside_max=512KiB --set sms=8 --buffers 2 "
             "--top 3 --threads 2 --html %s %s >/dev/null",
             hp, tp);
    ck_assert_int_eq(tests_cli(args, NULL), 0);
    char *cli = tests_slurp_file(hp, NULL);
    ck_assert_str_eq(cli, page[0]);
    free(cli);
    unlink(hp);
    ASSERT_CONTAINS(page[0], "<title>l2sim advise: /tmp/l2sim-test-");
    ASSERT_CONTAINS(page[0], ">" ODD_BUFFER_ESC " persisting"); /* the suggestion's assignments */
    assert_escaped(page[0], ODD_KERNEL, ODD_KERNEL_ESC "0");
    assert_escaped(page[0], ODD_BUFFER, ODD_BUFFER_ESC);
    ck_assert_ptr_null(strstr(page[0], "<script"));
    free(page[0]);
    free(page[1]);
    l2_advice_free(&a);
    unlink(tp);
}
END_TEST

Suite *html_suite(void)
{
    Suite *s = suite_create("html");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, values_axes_escaping);
    tcase_add_test(tc, compare_html_page);
    tcase_add_test(tc, compare_html_many_kernels);
    tcase_add_test(tc, advise_html_page);
    suite_add_tcase(s, tc);
    return s;
}

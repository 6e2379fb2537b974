/*
 * test_report.c - report writers: JSON keys, values and syntax, CSV and
 * table rows, expectation files (write, check, differences, malformed),
 * byte-identical output across runs, and the l2sim command line ($L2SIM).
 */
#include "tests.h"

#include <ctype.h>

#include "report.h"
#include "sim.h"
#include "symtab.h"
#include "trace.h"

static const char *const TRACE = "# report test trace\n"
                                 "policy hot interleaved persisting 0.5 streaming api=ptx\n"
                                 "policy rg range 0x400000 64KiB 256KiB evict_last evict_first\n"
                                 "window 0x800000 1MiB 0.5 persisting streaming stream=1\n"
                                 "kernel fill\n"
                                 "R 0x100000 4096 hot sm=3\n"
                                 "R 0x400000 4096 rg sm=70\n"
                                 "W 0x600000 512\n"
                                 "kernel reuse stream=1\n"
                                 "R 0x100000 4096 hot sm=4\n"
                                 "R 0x400000 4096 rg\n"
                                 "R 0x800000 4096\n"
                                 "R 0x800000 4096 sm=1\n"
                                 "kernel stores\n"
                                 "W 0x900000 128 streaming\n";

/* A run of the default configuration plus `kv`, fed `text`. */
static void run_trace(struct tests_run *r, const char *text, const char *const *kv)
{
    tests_run_start(r, SEM_HARDWARE, kv);
    tests_run_ok(r, text);
}

static char *json_of(struct tests_run *r)
{
    struct l2_run_info ri = {.trace = "report.trace", .records = r->records};
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    l2_report_json(f, &r->sim, &ri, NULL);
    char *s = tests_slurp(f);
    fclose(f);
    return s;
}

/* ---- a minimal JSON syntax checker ---- */

static const char *js_ws(const char *p)
{
    while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
        p++;
    return p;
}

static const char *js_value(const char *p, int depth);

static const char *js_string(const char *p)
{
    if (*p != '"')
        return NULL;
    for (p++; *p && *p != '"'; p++) {
        if ((unsigned char)*p < 0x20)
            return NULL;
        if (*p == '\\') {
            p++;
            if (*p == 'u') {
                for (int i = 1; i <= 4; i++)
                    if (!isxdigit((unsigned char)p[i]))
                        return NULL;
                p += 4;
            } else if (!strchr("\"\\/bfnrt", *p) || !*p) {
                return NULL;
            }
        }
    }
    return *p == '"' ? p + 1 : NULL;
}

static const char *js_number(const char *p)
{
    const char *s = p;
    if (*p == '-')
        p++;
    if (!isdigit((unsigned char)*p))
        return NULL;
    while (isdigit((unsigned char)*p))
        p++;
    if (*p == '.') {
        p++;
        if (!isdigit((unsigned char)*p))
            return NULL;
        while (isdigit((unsigned char)*p))
            p++;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (!isdigit((unsigned char)*p))
            return NULL;
        while (isdigit((unsigned char)*p))
            p++;
    }
    return p > s ? p : NULL;
}

static const char *js_value(const char *p, int depth)
{
    if (depth > 64)
        return NULL;
    p = js_ws(p);
    if (*p == '{' || *p == '[') {
        char close = *p == '{' ? '}' : ']';
        int obj = *p == '{';
        p = js_ws(p + 1);
        if (*p == close)
            return p + 1;
        for (;;) {
            if (obj) {
                p = js_string(js_ws(p));
                if (!p)
                    return NULL;
                p = js_ws(p);
                if (*p != ':')
                    return NULL;
                p++;
            }
            p = js_value(p, depth + 1);
            if (!p)
                return NULL;
            p = js_ws(p);
            if (*p == ',') {
                p++;
                continue;
            }
            return *p == close ? p + 1 : NULL;
        }
    }
    if (*p == '"')
        return js_string(p);
    if (!strncmp(p, "null", 4))
        return p + 4;
    if (!strncmp(p, "true", 4))
        return p + 4;
    if (!strncmp(p, "false", 5))
        return p + 5;
    return js_number(p);
}

static int json_valid(const char *s)
{
    const char *p = js_value(s, 0);
    return p && *js_ws(p) == 0;
}

START_TEST(json_checker_self_test)
{
    ck_assert(json_valid("{\"a\": [1, 2.5, -3e2, null, true], \"b\": {}}"));
    ck_assert(!json_valid("{\"a\": 1,}"));
    ck_assert(!json_valid("{\"a\": [1 2]}"));
    ck_assert(!json_valid("{\"a\": nan}"));
    ck_assert(!json_valid("{\"a\": 1}}"));
}
END_TEST

START_TEST(json_keys_and_syntax)
{
    struct tests_run r;
    run_trace(&r, TRACE, NULL);
    char *j = json_of(&r);
    ck_assert_msg(json_valid(j), "invalid JSON:\n%s", j);
    static const char *const keys[] = {"\"kernels\":",       "\"totals\":",        "\"by_priority\":",
                                       "\"by_tag\":",        "\"hit_rate\":",      "\"read_hit_rate\":",
                                       "\"near_hit_rate\":", "\"dram_read_bytes\":", "\"dram_write_bytes\":",
                                       "\"sector_hits\":",   "\"policies\":",      "\"config\":",
                                       "\"unspecified_accesses\":"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        ASSERT_CONTAINS(j, keys[i]);
    ASSERT_CONTAINS(j, "\"name\": \"fill\"");
    ASSERT_CONTAINS(j, "\"name\": \"reuse\", \"index\": 2, \"stream\": 1");
    ASSERT_CONTAINS(j, "\"name\": \"stores\", \"index\": 3, \"stream\": 0");
    ASSERT_CONTAINS(j, "\"hot\": {");
    ASSERT_CONTAINS(j, "\"evict_last\": {");
    ASSERT_CONTAINS(j, "\"descriptor\": \"0x1570000000000000\"");
    ASSERT_CONTAINS(j, "\"trace\": \"report.trace\"");
    /* the config object holds every key the table report prints */
    char *cfg = NULL;
    size_t cfgn = 0;
    FILE *cf = open_memstream(&cfg, &cfgn);
    l2_config_print(&r.sim.l2.cfg, cf, "");
    fclose(cf);
    /* ... text keys as strings, numeric ones as numbers (bytes as whole
     * bytes) equal to the table's value */
    for (char *line = strtok(cfg, "\n"); line; line = strtok(NULL, "\n")) {
        char key[64], val[128], pair[200];
        ck_assert_int_eq(sscanf(line, "%63s = %127[^\n]", key, val), 2);
        snprintf(pair, sizeof pair, "\"%s\": ", key);
        const char *at = strstr(j, pair);
        ck_assert_msg(at != NULL, "no %s in the JSON", key);
        at += strlen(pair);
        uint64_t bytes = 0;
        if (*at == '"') {
            snprintf(pair, sizeof pair, "\"%s\"", val);
            ck_assert_msg(strncmp(at, pair, strlen(pair)) == 0, "%s: %.40s", key, at);
        } else if (l2_parse_bytes(val, strlen(val), &bytes, NULL) == 0) {
            ck_assert_msg(strtoull(at, NULL, 10) == bytes, "%s: %.40s against %s", key, at, val);
        } else {
            ck_assert_msg(strtod(at, NULL) == strtod(val, NULL), "%s: %.40s against %s", key, at, val);
        }
    }
    free(cfg);
    /* the stores-only kernel has no load: its read hit rate is null */
    const char *k3 = strstr(j, "\"name\": \"stores\"");
    ck_assert_ptr_nonnull(k3);
    ASSERT_CONTAINS(k3, "\"read_hit_rate\": null");
    ASSERT_CONTAINS(k3, "\"sectors\": 4, \"sector_hits\": 0");
    /* the trace's 14 records: read (the caller's count), simulated (the simulator's) */
    ASSERT_CONTAINS(j, "\"records_read\": 14,");
    ASSERT_CONTAINS(j, "\"records_simulated\": 14,");
    free(j);
    tests_run_end(&r);
}
END_TEST

START_TEST(json_values)
{
    struct tests_run r;
    run_trace(&r, "kernel a\nR 0 128\nR 0 64\nW 0x1000 32\n", NULL);
    char *j = json_of(&r);
    ck_assert_msg(json_valid(j), "invalid JSON:\n%s", j);
    /* 7 sectors, 2 hits; 6 read sectors, 2 read hits; 128 DRAM bytes */
    ASSERT_CONTAINS(j, "\"accesses\": 3, \"sectors\": 7, \"sector_hits\": 2");
    ASSERT_CONTAINS(j, "\"read_sectors\": 6, \"read_sector_hits\": 2");
    ASSERT_CONTAINS(j, "\"dram_read_bytes\": 128, \"dram_write_bytes\": 0");
    ASSERT_CONTAINS(j, "\"hit_rate\": 0.285714");
    ASSERT_CONTAINS(j, "\"read_hit_rate\": 0.333333");
    const char *tot = strstr(j, "\"totals\":");
    ck_assert_ptr_nonnull(tot);
    ASSERT_CONTAINS(tot, "\"accesses\": 3, \"sectors\": 7, \"sector_hits\": 2");
    free(j);
    tests_run_end(&r);
}
END_TEST

START_TEST(json_empty_trace)
{
    struct tests_run r;
    run_trace(&r, "# nothing\n", NULL);
    char *j = json_of(&r);
    ck_assert_msg(json_valid(j), "invalid JSON:\n%s", j);
    ASSERT_CONTAINS(j, "\"kernels\": []");
    free(j);
    tests_run_end(&r);
}
END_TEST

START_TEST(json_deterministic)
{
    struct tests_run a, b;
    run_trace(&a, TRACE, NULL);
    run_trace(&b, TRACE, NULL);
    char *ja = json_of(&a), *jb = json_of(&b);
    ck_assert_str_eq(ja, jb);
    /* and the table */
    struct l2_run_info ri = {.trace = "t", .records = a.records};
    FILE *fa = tmpfile(), *fb = tmpfile();
    l2_report_table(fa, &a.sim, &ri, NULL);
    l2_report_table(fb, &b.sim, &ri, NULL);
    char *ta = tests_slurp(fa), *tb = tests_slurp(fb);
    ck_assert_str_eq(ta, tb);
    fclose(fa);
    fclose(fb);
    free(ta);
    free(tb);
    free(ja);
    free(jb);
    tests_run_end(&a);
    tests_run_end(&b);
    /* a different hash seed moves lines to other sets and partitions:
     * the config echo differs, the run is still deterministic */
    const char *kv[] = {"hash_seed=7", NULL};
    run_trace(&a, TRACE, kv);
    run_trace(&b, TRACE, kv);
    ja = json_of(&a);
    jb = json_of(&b);
    ck_assert_str_eq(ja, jb);
    ASSERT_CONTAINS(ja, "\"hash_seed\": 7,");
    struct l2_config c0 = a.sim.l2.cfg;
    c0.hash_seed = 0;
    struct l2 z;
    l2_err e;
    ck_assert_int_eq(l2_init(&z, &c0, &e), 0);
    unsigned moved = 0;
    for (uint64_t line = 0; line < 64; line++) {
        unsigned h7, h0;
        uint32_t s7, s0;
        l2_locate(&a.sim.l2, line, &h7, &s7);
        l2_locate(&z, line, &h0, &s0);
        moved += h7 != h0 || s7 != s0;
    }
    ck_assert_uint_gt(moved, 16);
    l2_free(&z);
    free(ja);
    free(jb);
    tests_run_end(&a);
    tests_run_end(&b);
}
END_TEST

START_TEST(csv_rows)
{
    struct tests_run r;
    run_trace(&r, TRACE, NULL);
    FILE *f = tmpfile();
    l2_report_csv(f, &r.sim, 1, NULL, NULL);
    char *s = tests_slurp(f);
    fclose(f);
    ck_assert(strncmp(s, "index,kernel,stream,scope,name,accesses,sectors,", 48) == 0);
    /* one row per kernel and scope, then the totals' (index 0, no stream):
     * an "all" row for each of the 3 kernels and the totals */
    unsigned all = 0;
    for (const char *p = strstr(s, ",all,,"); p; p = strstr(p + 1, ",all,,"))
        all++;
    ck_assert_uint_eq(all, 4);
    ASSERT_CONTAINS(s, "\n1,fill,0,all,,");
    ASSERT_CONTAINS(s, "\n2,reuse,1,all,,");
    ASSERT_CONTAINS(s, "\n3,stores,0,all,,1,4,0,"); /* 1 access, 4 sectors, 0 hits */
    ASSERT_CONTAINS(s, "\n0,totals,,all,,");
    ASSERT_CONTAINS(s, "\n2,reuse,1,tag,hot,");
    ASSERT_CONTAINS(s, "\n0,totals,,priority,evict_last,");
    free(s);
    f = tmpfile();
    l2_report_csv(f, &r.sim, 1, "v1", NULL);
    s = tests_slurp(f);
    fclose(f);
    ck_assert(strncmp(s, "variant,index,kernel,stream,", 28) == 0);
    ASSERT_CONTAINS(s, "\nv1,1,fill,0,all,,");
    free(s);
    tests_run_end(&r);
}
END_TEST

START_TEST(table_contents)
{
    struct tests_run r;
    run_trace(&r, TRACE, NULL);
    struct l2_run_info ri = {.trace = "report.trace", .records = r.records};
    FILE *f = tmpfile();
    l2_report_table(f, &r.sim, &ri, NULL);
    char *s = tests_slurp(f);
    fclose(f);
    ASSERT_CONTAINS(s, "kernel 1: fill (stream 0)");
    ASSERT_CONTAINS(s, "kernel 2: reuse (stream 1)");
    ASSERT_CONTAINS(s, "\ntotals\n");
    ASSERT_CONTAINS(s, "semantics: hardware");
    ASSERT_CONTAINS(s, "tag hot");
    ASSERT_CONTAINS(s, "prio evict_last");
    ASSERT_CONTAINS(s, "hot: interleaved evict_last 0.5 else evict_first");
    free(s);
    tests_run_end(&r);
}
END_TEST

static char *write_expect(struct tests_run *r, char *path)
{
    snprintf(path, 64, "/tmp/l2sim-test-XXXXXX");
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "w+");
    l2_expect_write(f, &r->sim, NULL);
    char *s = tests_slurp(f);
    fclose(f);
    return s;
}

START_TEST(expect_roundtrip)
{
    struct tests_run r, other;
    char path[64];
    l2_err e;
    run_trace(&r, TRACE, NULL);
    char *text = write_expect(&r, path);
    ASSERT_CONTAINS(text, "kernel:1:fill all:all hit_rate ");
    ASSERT_CONTAINS(text, "totals all:all read_hit_rate ");
    ASSERT_CONTAINS(text, "kernel:2:reuse tag:hot near_hit_rate ");
    ASSERT_CONTAINS(text, "kernel:2:reuse priority:evict_last hit_rate ");
    FILE *diff = tmpfile();
    ck_assert_int_eq(l2_expect_check(path, &r.sim, 0.0, diff, &e), 0);
    char *d = tests_slurp(diff);
    ck_assert_str_eq(d, "");
    free(d);
    fclose(diff);

    /* a smaller L2 (more misses): differences, each written to diff */
    const char *kv[] = {"l2_size=4KiB", "ways=4", "setaside=0", "setaside_max=2KiB", NULL};
    run_trace(&other, TRACE, kv);
    diff = tmpfile();
    int nd = l2_expect_check(path, &other.sim, 0.0, diff, &e);
    ck_assert_int_gt(nd, 0);
    d = tests_slurp(diff);
    ASSERT_CONTAINS(d, "expected ");
    ASSERT_CONTAINS(d, ", got ");
    unsigned lines = 0;
    for (const char *p = d; *p; p++)
        lines += *p == '\n';
    ck_assert_uint_eq(lines, (unsigned)nd);
    free(d);
    fclose(diff);
    /* 100 points of tolerance forgive every rate */
    diff = tmpfile();
    ck_assert_int_eq(l2_expect_check(path, &other.sim, 100.0, diff, &e), 0);
    fclose(diff);
    tests_run_end(&other);

    /* a run without kernel 'stores': its scopes are missing */
    run_trace(&other, "kernel fill\nR 0 128\n", NULL);
    diff = tmpfile();
    nd = l2_expect_check(path, &other.sim, 100.0, diff, &e);
    ck_assert_int_gt(nd, 0);
    d = tests_slurp(diff);
    ASSERT_CONTAINS(d, "not in this run");
    free(d);
    fclose(diff);
    tests_run_end(&other);
    unlink(path);
    free(text);
    tests_run_end(&r);
}
END_TEST

START_TEST(expect_malformed)
{
    struct tests_run r;
    char path[64];
    char where[96];
    l2_err e;
    run_trace(&r, "kernel k\nR 0 128\n", NULL);
    tests_write_temp(path, sizeof path, "# comment\n\ntotals all:all hit_rate 0.0000\ntotals all:all hit_rate\n");
    e.msg[0] = 0;
    ck_assert_int_eq(l2_expect_check(path, &r.sim, 0.0, stderr, &e), -1);
    snprintf(where, sizeof where, "%s:4:", path);
    ASSERT_CONTAINS(e.msg, where);
    unlink(path);
    tests_write_temp(path, sizeof path, "totals all:all miss_rate 10\n");
    ck_assert_int_eq(l2_expect_check(path, &r.sim, 0.0, stderr, &e), -1);
    ASSERT_CONTAINS(e.msg, "unknown metric 'miss_rate'");
    unlink(path);
    tests_write_temp(path, sizeof path, "totals all:all hit_rate 0.0000 # a comment\n");
    FILE *diff = tmpfile();
    ck_assert_int_eq(l2_expect_check(path, &r.sim, 0.0, diff, &e), 0);
    fclose(diff);
    unlink(path);
    ck_assert_int_eq(l2_expect_check("/tmp/l2sim-test-none/x", &r.sim, 0.0, stderr, &e), -1);
    /* a file without expectations checks nothing: an error */
    tests_write_temp(path, sizeof path, "# nothing\n\n");
    ck_assert_int_eq(l2_expect_check(path, &r.sim, 0.0, stderr, &e), -1);
    ASSERT_CONTAINS(e.msg, "no expectations in the file");
    unlink(path);
    /* rates of the run the file leaves out: a warning that counts them */
    tests_write_temp(path, sizeof path, "totals all:all hit_rate 0.0000\n");
    diff = tmpfile();
    ck_assert_int_eq(l2_expect_check(path, &r.sim, 0.0, diff, &e), 0);
    char buf[512] = "";
    rewind(diff);
    size_t got = fread(buf, 1, sizeof buf - 1, diff);
    buf[got] = 0;
    fclose(diff);
    ASSERT_CONTAINS(buf, "warning: ");
    ASSERT_CONTAINS(buf, " rates of this run are not in ");
    /* with every rate written, no warning */
    FILE *w = fopen(path, "w");
    ck_assert_int_eq(l2_expect_write(w, &r.sim, &e), 0);
    fclose(w);
    diff = tmpfile();
    ck_assert_int_eq(l2_expect_check(path, &r.sim, 0.0, diff, &e), 0);
    ck_assert_int_eq(ftell(diff), 0);
    fclose(diff);
    unlink(path);
    tests_run_end(&r);
}
END_TEST

START_TEST(json_escapes_names)
{
    struct tests_run r;
    run_trace(&r, "kernel we\"ird\\name\nR 0 32\n", NULL);
    char *j = json_of(&r);
    ck_assert_msg(json_valid(j), "invalid JSON:\n%s", j);
    ASSERT_CONTAINS(j, "\"name\": \"we\\\"ird\\\\name\"");
    free(j);
    tests_run_end(&r);
}
END_TEST

/* Number of fields of one CSV record (RFC 4180 quoting). */
static unsigned csv_fields(const char *line, size_t n)
{
    unsigned f = 1;
    int q = 0;
    for (size_t i = 0; i < n; i++) {
        if (line[i] == '"')
            q = !q;
        else if (line[i] == ',' && !q)
            f++;
    }
    return f;
}

/* Kernel names with commas (demangled templates such as gemm<float,4>)
 * must not shift the CSV columns.  (Names were once written unquoted.) */
START_TEST(csv_kernel_name_with_comma)
{
    struct tests_run r;
    run_trace(&r, "kernel gemm<float,4>\nR 0 32\n", NULL);
    FILE *f = tmpfile();
    l2_report_csv(f, &r.sim, 1, NULL, NULL);
    char *s = tests_slurp(f);
    fclose(f);
    const char *nl = strchr(s, '\n');
    ck_assert_ptr_nonnull(nl);
    const char *row = nl + 1;
    const char *end = strchr(row, '\n');
    ck_assert_ptr_nonnull(end);
    ck_assert_uint_eq(csv_fields(row, (size_t)(end - row)), csv_fields(s, (size_t)(nl - s)));
    free(s);
    tests_run_end(&r);
}
END_TEST

START_TEST(compare_two_variants)
{
    /* One trace, two variants (they share the symbol table, as in
     * 'l2sim compare'): a 64 KiB buffer read twice hits 50% in the H100
     * L2 and never in a 4 KiB one. */
    struct l2_symtab syms;
    struct l2_sim a, b;
    l2_err e;
    struct l2_config ca, cb;
    l2_config_defaults(&ca);
    l2_config_defaults(&cb);
    const char *kv[] = {"l2_size=4KiB", "ways=4", "partitions=1", "setaside=0", "setaside_max=0", NULL};
    tests_config(&cb, kv);
    ck_assert_int_eq(l2_symtab_init(&syms, &e), 0);
    ck_assert_msg(l2_sim_init(&a, &ca, SEM_HARDWARE, &syms, &e) == 0, "%s", e.msg);
    ck_assert_msg(l2_sim_init(&b, &cb, SEM_DOCUMENTED, &syms, &e) == 0, "%s", e.msg);
    struct l2_event ev;
    memset(&ev, 0, sizeof ev);
    ev.type = EV_KERNEL;
    strcpy(ev.label, "sweep");
    ck_assert_int_eq(l2_sim_event(&a, &ev, &e), 0);
    ck_assert_int_eq(l2_sim_event(&b, &ev, &e), 0);
    memset(&ev, 0, sizeof ev);
    ev.type = EV_ACCESS;
    ev.op = OP_READ;
    ev.tag = L2_TAG_GLOBAL;
    ev.sm = -1;
    ev.size = 4096;
    for (int pass = 0; pass < 2; pass++)
        for (uint64_t addr = 0; addr < 65536; addr += 4096) {
            ev.addr = addr;
            ck_assert_int_eq(l2_sim_event(&a, &ev, &e), 0);
            ck_assert_int_eq(l2_sim_event(&b, &ev, &e), 0);
        }
    ck_assert_uint_eq(a.k[0].total.sector_hits * 2, a.k[0].total.sectors);
    ck_assert_uint_eq(b.k[0].total.sector_hits, 0);
    struct l2_sim *v[2] = {&a, &b};
    const char *names[2] = {"h100", "tiny"};
    struct l2_run_info ri = {.trace = "sweep", .records = 33};
    FILE *f = tmpfile();
    l2_compare_table(f, v, names, 2, &ri, NULL);
    char *t = tests_slurp(f);
    fclose(f);
    ASSERT_CONTAINS(t, "variant 1: h100 (hardware semantics");
    ASSERT_CONTAINS(t, "variant 2: tiny (documented semantics, l2_size 4KiB, ways 4, partitions 1");
    const char *row = strstr(t, "\n1:sweep");
    ck_assert_ptr_nonnull(row);
    const char *eol = strchr(row + 1, '\n');
    char line[256];
    snprintf(line, sizeof line, "%.*s", (int)(eol - row - 1), row + 1);
    double h1, h2, d;
    ck_assert_msg(sscanf(line, "1:sweep %lf %lf %lf", &h1, &h2, &d) == 3, "row '%s'", line);
    ck_assert_double_eq_tol(h1, 50.0, 1e-9);
    ck_assert_double_eq_tol(h2, 0.0, 1e-9);
    ck_assert_double_eq_tol(d, -50.0, 1e-9);
    /* the time and DRAM section: two passes over 64 KiB; h100 reads it
     * from DRAM once, tiny twice: DRAM +100% (MB printed to 3 decimals) */
    row = strstr(t, "\nestimated time (us) and DRAM bytes");
    ck_assert_ptr_nonnull(row);
    row = strstr(row, "\n1:sweep");
    ck_assert_ptr_nonnull(row);
    double t1, m1, t2, m2, dt, dm;
    ck_assert_int_eq(sscanf(row + 1, "1:sweep %lf %lf %lf %lf %lf %lf", &t1, &m1, &t2, &m2, &dt, &dm), 6);
    ck_assert_double_eq_tol(m1, 0.066, 1e-9);
    ck_assert_double_eq_tol(m2, 0.131, 1e-9);
    ck_assert_double_eq_tol(dm, 100.0, 1e-9);
    ck_assert(t2 > t1 && dt > 0);
    free(t);
    f = tmpfile();
    l2_compare_json(f, v, names, 2, &ri, NULL);
    char *j = tests_slurp(f);
    fclose(f);
    ck_assert_msg(json_valid(j), "invalid JSON:\n%s", j);
    ASSERT_CONTAINS(j, "\"variant\": \"h100\"");
    ASSERT_CONTAINS(j, "\"variant\": \"tiny\"");
    ASSERT_CONTAINS(j, "\"semantics\": \"documented\"");
    free(j);
    l2_sim_free(&a);
    l2_sim_free(&b);
    l2_symtab_free(&syms);
}
END_TEST

/* ---- the command line ---- */

START_TEST(cli_run_and_errors)
{
    char tpath[64], epath[64], args[512];
    char *out;
    /* help COMMAND is COMMAND --help; an unknown one is a usage error */
    ck_assert_int_eq(tests_cli("help run", &out), 0);
    ASSERT_CONTAINS(out, "usage: l2sim run [OPTIONS] TRACE");
    free(out);
    ck_assert_int_eq(tests_cli("help advise", &out), 0);
    ASSERT_CONTAINS(out, "usage: l2sim advise");
    free(out);
    ck_assert_int_eq(tests_cli("help frobnicate 2>&1", &out), 2);
    ASSERT_CONTAINS(out, "help: unknown command 'frobnicate'");
    free(out);
    /* options that would do nothing, or name two variants alike */
    ck_assert_int_eq(tests_cli("run --tolerance 1 traces/quickstart.trace 2>&1", &out), 2);
    ASSERT_CONTAINS(out, "--tolerance applies to --expect, which is not given");
    free(out);
    ck_assert_int_eq(tests_cli("compare --variant name=a --variant name=a,set=ways=8 traces/quickstart.trace 2>&1", &out), 2);
    ASSERT_CONTAINS(out, "two variants are named 'a'");
    free(out);
    ck_assert_int_eq(tests_cli("compare --variant name= --variant name=b traces/quickstart.trace 2>&1", &out), 2);
    ASSERT_CONTAINS(out, "name= is empty");
    free(out);
    ck_assert_int_eq(tests_cli("compare --variant name=$(printf 'a\\001') --variant name=b traces/quickstart.trace 2>&1",
                               &out), 2);
    ASSERT_CONTAINS(out, "name= holds a control byte or invalid UTF-8");
    free(out);
    /* a trace path that is not UTF-8 still makes JSON that parses (U+FFFD) */
    ck_assert_int_eq(tests_cli("run - < /dev/null; d=$(mktemp -d) && cp traces/quickstart.trace \"$d/t$(printf '\\377').trace\" && "
                               "$L2SIM run --json \"$d\"/t*.trace | python3 -c 'import json,sys; "
                               "print(json.load(sys.stdin)[\"trace\"].endswith(\"t\\ufffd.trace\"))'; rm -rf \"$d\"",
                               &out), 0);
    ASSERT_CONTAINS(out, "True");
    free(out);
    /* standard input is <stdin> in the report as in messages */
    ck_assert_int_eq(tests_cli("run - < traces/quickstart.trace | head -2", &out), 0);
    ASSERT_CONTAINS(out, "trace: <stdin>: 32789 records read");
    free(out);
    /* a --policy file's policy that no access uses (misspelt or stale) */
    char ppath[64], pargs[256];
    tests_write_temp(ppath, sizeof ppath, "policy a_p interleaved evict_last 1.0\npolicy a_q interleaved evict_last 1.0\n");
    snprintf(pargs, sizeof pargs, "run --policy %s traces/update.trace 2>&1 >/dev/null", ppath);
    ck_assert_int_eq(tests_cli(pargs, &out), 0);
    ASSERT_CONTAINS(out, "policy 'a_q' is used by no access of the trace");
    ck_assert_msg(!strstr(out, "'a_p'"), "a_p is used: %s", out);
    free(out);
    unlink(ppath);
    tests_write_temp(tpath, sizeof tpath, TRACE);
    snprintf(args, sizeof args, "run --json %s", tpath);
    ck_assert_int_eq(tests_cli(args, &out), 0);
    ck_assert_msg(json_valid(out), "invalid JSON from the CLI:\n%s", out);
    ASSERT_CONTAINS(out, "\"kernels\":");
    free(out);

    /* expectations: write, then a changed configuration exits 1 */
    snprintf(epath, sizeof epath, "/tmp/l2sim-test-XXXXXX");
    close(mkstemp(epath));
    snprintf(args, sizeof args, "run --write-expect %s %s", epath, tpath);
    ck_assert_int_eq(tests_cli(args, &out), 0);
    free(out);
    snprintf(args, sizeof args, "run --expect %s %s", epath, tpath);
    ck_assert_int_eq(tests_cli(args, &out), 0);
    free(out);
    snprintf(args, sizeof args,
             "run --set l2_size=4KiB --set ways=4 --set setaside=0 --set setaside_max=0 --expect %s %s", epath, tpath);
    ck_assert_int_eq(tests_cli(args, &out), 1);
    ASSERT_CONTAINS(out, "differ");
    free(out);
    unlink(epath);
    unlink(tpath);

    /* bad input: exit 2, file:line: reason */
    tests_write_temp(tpath, sizeof tpath, "kernel k\nR 0 0\n");
    snprintf(args, sizeof args, "run %s", tpath);
    ck_assert_int_eq(tests_cli(args, &out), 2);
    char where[96];
    snprintf(where, sizeof where, "%s:2: ", tpath);
    ASSERT_CONTAINS(out, where);
    ASSERT_CONTAINS(out, "size 0");
    free(out);
    unlink(tpath);
    tests_write_temp(tpath, sizeof tpath, "R 0 32 sm=500\n");
    snprintf(args, sizeof args, "run %s", tpath);
    ck_assert_int_eq(tests_cli(args, &out), 2);
    snprintf(where, sizeof where, "%s:1: ", tpath);
    ASSERT_CONTAINS(out, where);
    free(out);
    unlink(tpath);

    /* encode prints the table's descriptor */
    ck_assert_int_eq(tests_cli("encode interleaved evict_last 0.5 evict_first api=ptx", &out), 0);
    ASSERT_CONTAINS(out, "0x1570000000000000");
    free(out);
    ck_assert_int_eq(tests_cli("encode interleaved persisting 0.5 streaming", &out), 0);
    ASSERT_CONTAINS(out, "0x1500000000000000");
    free(out);
}
END_TEST

Suite *report_suite(void)
{
    Suite *s = suite_create("report");
    TCase *tc = tcase_create("writers");
    tcase_add_test(tc, json_checker_self_test);
    tcase_add_test(tc, json_keys_and_syntax);
    tcase_add_test(tc, json_values);
    tcase_add_test(tc, json_empty_trace);
    tcase_add_test(tc, json_deterministic);
    tcase_add_test(tc, csv_rows);
    tcase_add_test(tc, json_escapes_names);
    tcase_add_test(tc, csv_kernel_name_with_comma);
    tcase_add_test(tc, compare_two_variants);
    tcase_add_test(tc, table_contents);
    tcase_add_test(tc, expect_roundtrip);
    tcase_add_test(tc, expect_malformed);
    suite_add_tcase(s, tc);
    tc = tcase_create("cli");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, cli_run_and_errors);
    suite_add_tcase(s, tc);
    return s;
}

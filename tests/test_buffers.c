/*
 * test_buffers.c - the directives that describe a program rather than an
 * access (alloc, free, event, sync, kernel dimensions), their text and
 * binary forms, the allocation table, per-buffer counters and `assign`.
 */
#include "buffers.h"
#include "tests.h"

static const char *directives =
    "alloc weights 0x10000 1MiB\n"
    "alloc acts 0x200000 4096\n"
    "kernel gemm stream=2 grid=132,2,1 block=256,1,1\n"
    "R 0x10000 128 sm=3\n"
    "event record e1 stream=2\n"
    "event wait e1 stream=1\n"
    "kernel gemm stream=1\n"
    "W 0x200000 64\n"
    "sync stream=1\n"
    "free acts\n"
    "sync\n"
    "kernel relu grid=7\n";

/* Text -> binary -> text keeps every directive, field by field, and the
 * binary file is version 2; a trace without them stays version 1. */
START_TEST(directives_roundtrip)
{
    char tp[64], bp[64], tp2[64];
    tests_write_temp(tp, sizeof tp, directives);
    tests_write_temp(bp, sizeof bp, "");
    tests_write_temp(tp2, sizeof tp2, "");
    tests_to_binary(tp, bp, L2_COMP_NONE);
    size_t n;
    char *b = tests_slurp_file(bp, &n);
    ck_assert_int_eq(b[8], 2);
    free(b);
    struct l2_event *a, *c;
    size_t na, nc;
    l2_err e;
    ck_assert_msg(tests_read_events(tp, &a, &na, &e) == 0, "%s", e.msg);
    ck_assert_msg(tests_read_events(bp, &c, &nc, &e) == 0, "%s", e.msg);
    ck_assert_uint_eq(na, 12);
    ck_assert_uint_eq(nc, na);
    struct l2_symtab s1, s2;
    ck_assert_int_eq(l2_symtab_init(&s1, &e), 0);
    ck_assert_int_eq(l2_symtab_init(&s2, &e), 0);
    for (size_t i = 0; i < na; i++) {
        const char *d = tests_event_diff(&a[i], &c[i], &s1, &s2);
        ck_assert_msg(d == NULL, "event %zu: %s differs", i, d);
    }
    ck_assert_int_eq(a[0].type, EV_ALLOC);
    ck_assert_str_eq(a[0].label, "weights");
    ck_assert_uint_eq(a[0].addr, 0x10000);
    ck_assert_uint_eq(a[0].bytes, 1u << 20);
    ck_assert_int_eq(a[2].type, EV_KERNEL);
    ck_assert_uint_eq(a[2].stream, 2);
    ck_assert_uint_eq(a[2].grid[0], 132);
    ck_assert_uint_eq(a[2].grid[1], 2);
    ck_assert_uint_eq(a[2].block[0], 256);
    ck_assert_uint_eq(a[6].grid[0], 0); /* the same name without dimensions */
    ck_assert_int_eq(a[4].type, EV_EVENT_RECORD);
    ck_assert_int_eq(a[5].type, EV_EVENT_WAIT);
    ck_assert_uint_eq(a[5].stream, 1);
    ck_assert_int_eq(a[8].type, EV_STREAM_SYNC);
    ck_assert_int_eq(a[9].type, EV_FREE);
    ck_assert_int_eq(a[10].type, EV_SYNC);
    ck_assert_uint_eq(a[11].grid[0], 7);
    ck_assert_uint_eq(a[11].grid[1], 1);
    /* text written back reads as the same text */
    tests_to_text(bp, tp2);
    char *t2 = tests_slurp_file(tp2, &n);
    ASSERT_CONTAINS(t2, "alloc weights 0x10000 1048576\n");
    ASSERT_CONTAINS(t2, "kernel gemm stream=2 grid=132,2,1 block=256,1,1\n");
    ASSERT_CONTAINS(t2, "event wait e1 stream=1\n");
    ASSERT_CONTAINS(t2, "sync stream=1\nfree acts\nsync\nkernel relu grid=7,1,1\n");
    free(t2);
    free(a);
    free(c);
    l2_symtab_free(&s1);
    l2_symtab_free(&s2);
    /* no new directive: version 1, byte for byte what earlier versions wrote */
    tests_write_temp(tp, sizeof tp, "kernel k stream=1\nR 0 32\n");
    tests_to_binary(tp, bp, L2_COMP_NONE);
    b = tests_slurp_file(bp, &n);
    ck_assert_int_eq(b[8], 1);
    free(b);
    unlink(tp);
    unlink(bp);
    unlink(tp2);
}
END_TEST

static void expect_read_error(const char *text, const char *what)
{
    char tp[64];
    tests_write_temp(tp, sizeof tp, text);
    struct l2_event *ev;
    size_t n;
    l2_err e;
    ck_assert_msg(tests_read_events(tp, &ev, &n, &e) == -1, "'%s' was accepted", text);
    ASSERT_CONTAINS(e.msg, what);
    unlink(tp);
}

START_TEST(directive_errors)
{
    expect_read_error("alloc a 0x100 0\n", ":1: allocation 'a' of 0 bytes");
    expect_read_error("alloc a 0xffffffffffffff00 0x200\n", "base + bytes overflows");
    expect_read_error("alloc a 0x100\n", "usage: alloc NAME BASE BYTES");
    expect_read_error("alloc stream=1 0 8\n", "cannot begin with stream=");
    expect_read_error("free\n", "usage: free NAME");
    expect_read_error("event signal e\n", "usage: event record|wait NAME [stream=S]");
    expect_read_error("event record\n", "usage: event record|wait NAME");
    expect_read_error("sync now\n", "usage: sync [stream=S]");
    expect_read_error("kernel k grid=0\n", "grid dimension 0");
    expect_read_error("kernel k block=1,2,3,4\n", "block has more than 3 dimensions");
    expect_read_error("kernel k grid=4294967296\n", "grid");
    expect_read_error("kernel k warps=4\n", "unexpected 'warps=4'");
    expect_read_error("assign a\n", "usage: assign BUFFER TAG");
    expect_read_error("assign a hot\n", "unknown tag or policy 'hot'");
    expect_read_error("assign 0x100 0 evict_first\n", "assign range is empty");
}
END_TEST

/* l2_buffers_find agrees with a scan of the live allocations through
 * allocations and frees in any order. */
START_TEST(find_matches_scan)
{
    struct l2_buffers b;
    l2_err e;
    ck_assert_int_eq(l2_buffers_init(&b, &e), 0);
    uint64_t base[64], size[64];
    int live[64] = {0};
    uint64_t x = 12345;
    char name[16];
    for (int step = 0; step < 2000; step++) {
        x = x * 6364136223846793005u + 1442695040888963407u;
        int i = (int)(x >> 58);
        snprintf(name, sizeof name, "b%d", i);
        if (live[i]) {
            ck_assert_int_eq(l2_buffers_free_name(&b, name, &e), 0);
            live[i] = 0;
        } else {
            /* slot i owns [i * 4096, (i + 1) * 4096): allocations never overlap */
            base[i] = (uint64_t)i * 4096 + (x >> 20) % 2048;
            size[i] = 1 + (x >> 40) % (4096 - (base[i] - (uint64_t)i * 4096));
            ck_assert_msg(l2_buffers_alloc(&b, name, base[i], size[i], &e) == 0, "%s", e.msg);
            live[i] = 1;
        }
        for (int k = 0; k < 8; k++) {
            x = x * 6364136223846793005u + 1442695040888963407u;
            uint64_t a = (x >> 30) % (64 * 4096 + 100);
            uint32_t want = L2_BUF_OTHER;
            for (int j = 0; j < 64; j++)
                if (live[j] && a >= base[j] && a < base[j] + size[j]) {
                    snprintf(name, sizeof name, "b%d", j);
                    want = (uint32_t)l2_buffers_row(&b, name, &e);
                }
            ck_assert_uint_eq(l2_buffers_find(&b, a), want);
        }
    }
    l2_buffers_free(&b);
}
END_TEST

START_TEST(alloc_rules)
{
    struct tests_run r;
    tests_run_start(&r, SEM_HARDWARE, NULL);
    ck_assert_int_eq(tests_run_feed(&r, "alloc a 0x1000 0x1000\nalloc b 0x1800 16\n", l2_sim_event), -1);
    ASSERT_CONTAINS(r.e.msg, "allocation 'b' [0x1800, 0x1810) overlaps the live allocation 'a' [0x1000, 0x2000)");
    ck_assert_int_eq(tests_run_feed(&r, "alloc c 0xfff 2\n", l2_sim_event), -1);
    ASSERT_CONTAINS(r.e.msg, "overlaps the live allocation 'a'");
    ck_assert_int_eq(tests_run_feed(&r, "alloc a 0x9000 16\n", l2_sim_event), -1);
    ASSERT_CONTAINS(r.e.msg, "allocation 'a' is already live");
    ck_assert_int_eq(tests_run_feed(&r, "free b\n", l2_sim_event), -1);
    ASSERT_CONTAINS(r.e.msg, "free of 'b', which is not a live allocation");
    /* adjacent is not overlapping; a freed name can be allocated again */
    tests_run_ok(&r, "alloc d 0x2000 16\nalloc e 0xf00 0x100\nfree a\nalloc a 0x1000 0x1000\n");
    tests_run_end(&r);
}
END_TEST

/* Per-buffer counters: each access is counted under the buffer holding
 * its first byte, (other) outside every allocation; the rows add up to
 * the kernel's. */
START_TEST(buffer_counters)
{
    struct tests_run r;
    tests_run_start(&r, SEM_HARDWARE, NULL);
    tests_run_ok(&r, "alloc x 0x100000 4096\n"
                     "alloc y 0x200000 4096\n"
                     "kernel k1\n"
                     "R 0x100000 512 sm=0\n"  /* x: 16 sectors, all miss */
                     "R 0x100000 512 sm=0\n"  /* x: 16 hits */
                     "R 0x200000 128 sm=0\n"  /* y: 4 sectors miss */
                     "R 0x300000 32 sm=0\n"   /* other */
                     "free y\n"
                     "kernel k2\n"
                     "R 0x200000 128 sm=0\n"  /* freed: other, 4 hits */
                     "alloc z 0x200000 4096\n"
                     "R 0x200000 64 sm=0\n"); /* z: 2 hits */
    const struct l2_sim *s = &r.sim;
    ck_assert_uint_eq(s->buf.nrow, 4);
    ck_assert_str_eq(s->buf.row[1].name, "x");
    ck_assert_str_eq(s->buf.row[3].name, "z");
    const struct l2_kstats *k1 = &s->k[0], *k2 = &s->k[1];
    ck_assert_uint_eq(k1->buf[1].accesses, 2);
    ck_assert_uint_eq(k1->buf[1].sectors, 32);
    ck_assert_uint_eq(k1->buf[1].sector_hits, 16);
    ck_assert_uint_eq(k1->buf[1].dram_rd, 512);
    ck_assert_uint_eq(k1->buf[2].sectors, 4);
    ck_assert_uint_eq(k1->buf[2].sector_hits, 0);
    ck_assert_uint_eq(k1->buf[0].accesses, 1);
    ck_assert_uint_eq(k2->buf[0].sectors, 4);
    ck_assert_uint_eq(k2->buf[0].sector_hits, 4);
    ck_assert_uint_eq(k2->buf[3].sector_hits, 2);
    for (uint32_t i = 0; i < s->nk; i++) {
        struct l2_counters sum = {0};
        for (uint32_t b = 0; b < s->k[i].nbuf; b++)
            l2_counters_add(&sum, &s->k[i].buf[b]);
        ck_assert_mem_eq(&sum, &s->k[i].total, sizeof sum);
    }
    tests_run_end(&r);
}
END_TEST

/* assign lines of a policy file: a buffer's accesses take the assigned
 * tag (an evict_first re-read of a buffer assigned evict_last survives a
 * sweep that evicts the plain one), a range beats a buffer. */
START_TEST(assign_overrides_tags)
{
    const char *trace = "alloc hot 0x0 1MiB\n"
                        "alloc sweep 0x10000000 64MiB\n"
                        "kernel fill\n"
                        "R 0x0 4096 evict_first sm=0\n"
                        "kernel sweep\n";
    struct tests_run r[3];
    const char *pol[3] = {"", "assign hot persisting\n", "assign hot persisting\nassign 0x0 4096 evict_first\n"};
    const char *kv[] = {"l2_size=1MiB", "setaside=256KiB", "setaside_max=512KiB", NULL};
    for (int v = 0; v < 3; v++) {
        tests_run_start(&r[v], SEM_HARDWARE, kv);
        ck_assert_msg(tests_run_feed(&r[v], pol[v], l2_sim_policy_event) == 0, "%s", r[v].e.msg);
        tests_run_ok(&r[v], trace);
        static char sweep[2048 * 32];
        size_t n = 0;
        for (int i = 0; i < 2048; i++) /* 8 MiB: far more than the L2 */
            n += (size_t)snprintf(sweep + n, sizeof sweep - n, "R 0x%x 4096 sm=0\n", 0x10000000 + i * 4096);
        tests_run_ok(&r[v], sweep);
        tests_run_ok(&r[v], "kernel reread\nR 0x0 4096 sm=0\n");
    }
    const struct l2_kstats *k[3] = {&r[0].sim.k[2], &r[1].sim.k[2], &r[2].sim.k[2]};
    ck_assert_uint_eq(k[0]->total.sector_hits, 0);
    ck_assert_uint_eq(k[1]->total.sector_hits, k[1]->total.sectors);
    ck_assert_uint_eq(k[2]->total.sector_hits, 0);
    /* by tag: the assigned tag, not the trace's */
    ck_assert_uint_eq(r[1].sim.k[0].tag[L2_NBUILTIN - 3].accesses, 1); /* persisting */
    ck_assert_uint_eq(r[1].sim.k[0].tag[PRIO_EVICT_FIRST].accesses, 0);
    for (int v = 0; v < 3; v++)
        tests_run_end(&r[v]);
}
END_TEST

/* A range assign after a buffer's gives the range alone its tag: the
 * rest of the buffer keeps the buffer's (the range line once took the
 * label its reader had kept from the line before, and so the buffer). */
START_TEST(assign_range_after_buffer)
{
    struct tests_run r;
    tests_run_start(&r, SEM_HARDWARE, NULL);
    ck_assert_msg(tests_run_feed(&r, "assign hot persisting\nassign 0x0 4096 evict_first\n", l2_sim_policy_event) == 0,
                  "%s", r.e.msg);
    tests_run_ok(&r, "alloc hot 0x0 1MiB\nkernel k\nR 0x0 128 sm=0\nR 0x1000 128 sm=0\nR 0x2000 128 sm=0\n");
    const struct l2_kstats *k = &r.sim.k[0];
    ck_assert_uint_eq(k->tag[PRIO_EVICT_FIRST].accesses, 1);   /* the range */
    ck_assert_uint_eq(k->tag[L2_NBUILTIN - 3].accesses, 2);    /* persisting: the buffer beyond it */
    tests_run_end(&r);
}
END_TEST

START_TEST(assign_only_in_policy_files)
{
    struct tests_run r;
    tests_run_start(&r, SEM_HARDWARE, NULL);
    ck_assert_int_eq(tests_run_feed(&r, "assign x evict_first\n", l2_sim_event), -1);
    ASSERT_CONTAINS(r.e.msg, "assign lines belong in a --policy file");
    ck_assert_int_eq(tests_run_feed(&r, "alloc x 0 8\n", l2_sim_policy_event), -1);
    ASSERT_CONTAINS(r.e.msg, "a policy file holds only policy, window, setaside and assign lines");
    tests_run_end(&r);
}
END_TEST

/* The reports: the table lists a kernel's buffers by DRAM traffic, the
 * first 8; JSON, CSV and expectation files have every one; --threads gives
 * the same numbers. */
START_TEST(buffer_reports)
{
    char tp[64];
    char text[4096];
    int n = 0;
    /* buffer bI of (I + 1) KiB, read once: DRAM traffic grows with I */
    for (int i = 0; i < 10; i++)
        n += snprintf(text + n, sizeof text - (size_t)n, "alloc b%d 0x%x %d\n", i, (i + 1) << 20, (i + 1) << 10);
    n += snprintf(text + n, sizeof text - (size_t)n, "kernel k\n");
    for (int i = 0; i < 10; i++)
        for (int j = 0; j <= i; j++)
            n += snprintf(text + n, sizeof text - (size_t)n, "R 0x%x 1024 sm=%d\n", ((i + 1) << 20) + (j << 10), j);
    tests_write_temp(tp, sizeof tp, text);
    char cmd[256], *out, *out2;
    snprintf(cmd, sizeof cmd, "run %s", tp);
    ck_assert_int_eq(tests_cli(cmd, &out), 0);
    ASSERT_CONTAINS(out, "buffers by DRAM traffic (the first 8 of 10; --json and --csv list all)");
    const char *b9 = strstr(out, "\n  b9 "), *b2 = strstr(out, "\n  b2 ");
    ck_assert_msg(b9 && b2 && b9 < b2, "b9 (most DRAM traffic) not listed before b2");
    ck_assert_ptr_null(strstr(out, "\n  b1 ")); /* the 9th and 10th are left out */
    ck_assert_ptr_nonnull(strstr(out, "  b9                                 10         320    0.00    0.00    0.00"
                                      "        10240            0   18.18\n"));
    free(out);
    snprintf(cmd, sizeof cmd, "run --threads 3 %s", tp);
    ck_assert_int_eq(tests_cli(cmd, &out2), 0);
    snprintf(cmd, sizeof cmd, "run %s", tp);
    tests_cli(cmd, &out);
    ck_assert_str_eq(out, out2);
    free(out);
    free(out2);
    snprintf(cmd, sizeof cmd, "run --json %s | python3 -c 'import json,sys; d=json.load(sys.stdin); "
                              "print(len(d[\"kernels\"][0][\"by_buffer\"]), d[\"totals\"][\"by_buffer\"][\"b0\"][\"sectors\"])'",
             tp);
    ck_assert_int_eq(tests_cli(cmd, &out), 0);
    ck_assert_str_eq(out, "10 32\n");
    free(out);
    snprintf(cmd, sizeof cmd, "run --csv %s", tp);
    ck_assert_int_eq(tests_cli(cmd, &out), 0);
    ASSERT_CONTAINS(out, "index,kernel,stream,scope,name,accesses,");
    ASSERT_CONTAINS(out, "\n1,k,0,all,,55,");
    ASSERT_CONTAINS(out, "\n1,k,0,buffer,b0,1,32,");
    free(out);
    char ep[64];
    tests_write_temp(ep, sizeof ep, "");
    snprintf(cmd, sizeof cmd, "run --write-expect %s %s >/dev/null", ep, tp);
    ck_assert_int_eq(tests_cli(cmd, NULL), 0);
    out = tests_slurp_file(ep, NULL);
    unlink(ep);
    ASSERT_CONTAINS(out, "kernel:1:k buffer:b0 hit_rate 0.0000\n");
    ASSERT_CONTAINS(out, "totals buffer:b9 hit_rate 0.0000\n");
    free(out);
    unlink(tp);
}
END_TEST

Suite *buffers_suite(void)
{
    Suite *s = suite_create("buffers");
    TCase *tc = tcase_create("buffers");
    tcase_add_test(tc, directives_roundtrip);
    tcase_add_test(tc, directive_errors);
    tcase_add_test(tc, find_matches_scan);
    tcase_add_test(tc, alloc_rules);
    tcase_add_test(tc, buffer_counters);
    tcase_add_test(tc, assign_overrides_tags);
    tcase_add_test(tc, assign_range_after_buffer);
    tcase_add_test(tc, assign_only_in_policy_files);
    tcase_add_test(tc, buffer_reports);
    suite_add_tcase(s, tc);
    return s;
}

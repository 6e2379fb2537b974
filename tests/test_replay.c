/*
 * test_replay.c - the order in which concurrent kernels reach the
 * simulators (replay.h), worked out by hand: stream order, events,
 * syncs, the legacy default stream, shares of the SMs, no starvation, and
 * the simulated effect of overlap.
 */
#include "driver.h"
#include "replay.h"
#include "tests.h"

/* The replay of `text` as one word per event: `[name]` a kernel launch,
 * `name.N` the N-th access (1-based) of the kernel `name`, the directive's
 * first letter otherwise (sync S, event record R, event wait W, policy P,
 * setaside A, free F, alloc L, window N).  Overlaps go to `with` as
 * "kernel:others;" when it is not NULL. */
static void order(const char *text, uint32_t sms, int serialize, char *out, size_t n, char *with, size_t wn)
{
    char path[64];
    tests_write_temp(path, sizeof path, text);
    struct l2_symtab syms;
    l2_err e;
    ck_assert_int_eq(l2_symtab_init(&syms, &e), 0);
    struct l2_replay *r;
    ck_assert_msg(l2_replay_open(&r, path, &syms, sms, serialize, &e) == 0, "%s", e.msg);
    char names[64][L2_MAX_KNAME];
    unsigned count[64] = {0}, nk = 0;
    struct l2_event ev;
    int rc;
    size_t len = 0;
    out[0] = 0;
    while ((rc = l2_replay_next(r, &ev, &e)) > 0) {
        char w[L2_MAX_KNAME + 16];
        switch (ev.type) {
        case EV_KERNEL:
            snprintf(names[nk++], sizeof names[0], "%s", ev.label);
            snprintf(w, sizeof w, "[%s]", ev.label);
            break;
        case EV_ACCESS: {
            unsigned k = ev.kernel ? ev.kernel - 1 : nk - 1;
            if (k == nk) /* accesses before any kernel line */
                snprintf(names[nk++], sizeof names[0], "(default)");
            ck_assert_uint_lt(k, nk);
            snprintf(w, sizeof w, "%.100s.%u", names[k], ++count[k]);
            break;
        }
        case EV_SYNC:
        case EV_STREAM_SYNC:
            snprintf(w, sizeof w, "S");
            break;
        case EV_EVENT_RECORD:
            snprintf(w, sizeof w, "R");
            break;
        case EV_EVENT_WAIT:
            snprintf(w, sizeof w, "W");
            break;
        case EV_POLICY:
            snprintf(w, sizeof w, "P");
            break;
        case EV_SETASIDE:
            snprintf(w, sizeof w, "A");
            break;
        case EV_FREE:
            snprintf(w, sizeof w, "F");
            break;
        case EV_ALLOC:
            snprintf(w, sizeof w, "L");
            break;
        default:
            snprintf(w, sizeof w, "N");
        }
        len += (size_t)snprintf(out + len, n - len, "%s%s", len ? " " : "", w);
        ck_assert_uint_lt(len, n);
    }
    ck_assert_msg(rc == 0, "%s", e.msg);
    if (with) {
        size_t wl = 0;
        with[0] = 0;
        for (uint32_t k = 0; k < nk; k++) {
            uint32_t m;
            const uint32_t *v = l2_replay_overlaps(r, k, &m);
            if (!m)
                continue;
            wl += (size_t)snprintf(with + wl, wn - wl, "%s:", names[k]);
            for (uint32_t j = 0; j < m; j++)
                wl += (size_t)snprintf(with + wl, wn - wl, "%s%s", j ? "," : "", names[v[j]]);
            wl += (size_t)snprintf(with + wl, wn - wl, ";");
        }
    }
    l2_replay_close(r);
    l2_symtab_free(&syms);
    unlink(path);
}

#define ORDER(text, sms, serialize, want)                                  \
    do {                                                                   \
        char got_[4096];                                                   \
        order(text, sms, serialize, got_, sizeof got_, NULL, 0);           \
        ck_assert_msg(strcmp(got_, want) == 0, "got  %s\nwant %s", got_, want); \
    } while (0)

static const char two_streams[] = "kernel a stream=1 grid=66\n"
                                  "R 0x1000 32\nR 0x2000 32\nR 0x3000 32\nR 0x4000 32\n"
                                  "kernel b stream=2 grid=66\n"
                                  "R 0x10000 32\nR 0x20000 32\n";

/* Both launched before either runs; equal shares alternate, the earlier
 * launch first; a runs alone once b is done. */
START_TEST(unordered_kernels_interleave)
{
    ORDER(two_streams, 132, 0, "[a] [b] a.1 b.1 a.2 b.2 a.3 a.4");
    char got[512], with[256];
    order(two_streams, 132, 0, got, sizeof got, with, sizeof with);
    ck_assert_str_eq(with, "a:b;b:a;");
}
END_TEST

START_TEST(serialize_keeps_trace_order)
{
    ORDER(two_streams, 132, 1, "[a] a.1 a.2 a.3 a.4 [b] b.1 b.2");
    char got[512], with[256];
    order(two_streams, 132, 1, got, sizeof got, with, sizeof with);
    ck_assert_str_eq(with, "");
}
END_TEST

/* b waits for the event recorded after a on stream 1: it never starts
 * before a has finished. */
START_TEST(event_wait_orders)
{
    ORDER("kernel a stream=1\nR 0x1000 32\nR 0x2000 32\nR 0x3000 32\n"
          "event record e stream=1\nevent wait e stream=2\n"
          "kernel b stream=2\nR 0x10000 32\nR 0x20000 32\n",
          132, 0, "[a] R W [b] a.1 a.2 a.3 b.1 b.2");
    /* recorded before a was launched: the event holds nothing of a */
    ORDER("event record e stream=1\nkernel a stream=1 grid=66\nR 0x1000 32\nR 0x2000 32\n"
          "event wait e stream=2\nkernel b stream=2 grid=66\nR 0x10000 32\nR 0x20000 32\n",
          132, 0, "R [a] W [b] a.1 b.1 a.2 b.2");
    /* an event never recorded is complete */
    ORDER("kernel a stream=1 grid=66\nR 0x1000 32\nR 0x2000 32\n"
          "event wait never stream=2\nkernel b stream=2 grid=66\nR 0x10000 32\nR 0x20000 32\n",
          132, 0, "[a] W [b] a.1 b.1 a.2 b.2");
}
END_TEST

/* The waits of a stream belong to its next kernel, and an event recorded
 * on a stream also holds what that stream waited for. */
START_TEST(event_chains)
{
    ORDER("kernel a stream=1\nR 0x1000 32\nR 0x2000 32\n"
          "event record e1 stream=1\nevent wait e1 stream=2\n"
          "event record e2 stream=2\nevent wait e2 stream=3\n"
          "kernel c stream=3\nR 0x30000 32\n"
          "kernel b stream=2\nR 0x20000 32\n",
          132, 0, "[a] R W R W [c] [b] a.1 a.2 c.1 b.1");
}
END_TEST

START_TEST(same_stream_is_ordered)
{
    ORDER("kernel a stream=1\nR 0x1000 32\nR 0x2000 32\nkernel b stream=1\nR 0x10000 32\nR 0x20000 32\n", 132, 0,
          "[a] [b] a.1 a.2 b.1 b.2");
}
END_TEST

/* The host stops at a sync until everything launched has finished. */
START_TEST(sync_orders)
{
    ORDER("kernel a stream=1\nR 0x1000 32\nR 0x2000 32\nsync\nkernel b stream=2\nR 0x10000 32\nR 0x20000 32\n", 132,
          0, "[a] a.1 a.2 S [b] b.1 b.2");
    /* sync stream=1 waits for stream 1 only: c on stream 3 runs on */
    ORDER("kernel a stream=1 grid=66\nR 0x1000 32\nkernel c stream=3 grid=66\nR 0x3000 32\nR 0x3100 32\n"
          "R 0x3200 32\nsync stream=1\nkernel b stream=2 grid=66\nR 0x10000 32\nR 0x20000 32\n",
          132, 0, "[a] [c] a.1 c.1 S [b] c.2 b.1 c.3 b.2");
    /* free, setaside and a policy defined again synchronise too */
    ORDER("kernel a stream=1\nR 0x1000 32\nsetaside 1MiB\nkernel b stream=2\nR 0x10000 32\n", 132, 0,
          "[a] a.1 A [b] b.1");
    ORDER("policy p interleaved persisting 1\nkernel a stream=1\nR 0x1000 32 p\nR 0x1100 32 p\n"
          "policy p interleaved streaming 1\nkernel b stream=2\nR 0x10000 32 p\n",
          132, 0, "P [a] a.1 a.2 P [b] b.1");
}
END_TEST

/* Stream 0 is the legacy default stream: its kernel waits for every
 * earlier kernel, and every later one waits for it. */
START_TEST(default_stream_is_legacy)
{
    ORDER("kernel a stream=1\nR 0x1000 32\nR 0x2000 32\nkernel z\nR 0x5000 32\nR 0x6000 32\n"
          "kernel b stream=2\nR 0x10000 32\nkernel c stream=3\nR 0x20000 32\n",
          132, 0, "[a] a.1 a.2 [z] z.1 z.2 [b] [c] b.1 c.1");
    /* accesses before any kernel line: `(default)` on stream 0 */
    char got[512];
    order("R 0x1000 32\nkernel b stream=2\nR 0x10000 32\n", 132, 0, got, sizeof got, NULL, 0);
    ck_assert_str_eq(got, "(default).1 [b] b.1");
}
END_TEST

/* Shares follow the grid: 100 blocks against 25 advance 4 to 1, ties go
 * to the earlier launch (strides 2^24/100 and 2^24/25 make a.4 and b.1
 * meet exactly).  Progress counts bytes: on equal grids, 128-byte accesses
 * come four for one of 512 bytes. */
START_TEST(shares_follow_the_grid)
{
    ORDER("kernel a stream=1 grid=66\nR 0x1000 128\nR 0x1100 128\nR 0x1200 128\nR 0x1300 128\nR 0x1400 128\n"
          "R 0x1500 128\nR 0x1600 128\nR 0x1700 128\n"
          "kernel b stream=2 grid=66\nR 0x10000 512\nR 0x10200 512\n",
          132, 0, "[a] [b] a.1 b.1 a.2 a.3 a.4 a.5 b.2 a.6 a.7 a.8");
    ORDER("kernel a stream=1 grid=100\nR 0x1000 32\nR 0x1100 32\nR 0x1200 32\nR 0x1300 32\nR 0x1400 32\n"
          "R 0x1500 32\nR 0x1600 32\nR 0x1700 32\n"
          "kernel b stream=2 grid=5,5\nR 0x10000 32\nR 0x10100 32\n",
          132, 0, "[a] [b] a.1 b.1 a.2 a.3 a.4 a.5 b.2 a.6 a.7 a.8");
    /* a grid above the SMs holds the whole GPU: the later launch waits for it */
    ORDER("kernel a stream=1 grid=1000\nR 0x1000 32\nR 0x1100 32\n"
          "kernel b stream=2 grid=500\nR 0x10000 32\nR 0x10100 32\n",
          132, 0, "[a] [b] a.1 a.2 b.1 b.2");
    /* block= counts threads: 4 x 512 threads are one SM's 2048, against 4 whole SMs */
    ORDER("kernel a stream=1 grid=4 block=512\nR 0x1000 32\nR 0x1100 32\n"
          "kernel b stream=2 grid=4\nR 0x10000 32\nR 0x10100 32\nR 0x10200 32\nR 0x10300 32\n"
          "R 0x10400 32\nR 0x10500 32\nR 0x10600 32\nR 0x10700 32\n",
          132, 0, "[a] [b] a.1 b.1 b.2 b.3 b.4 a.2 b.5 b.6 b.7 b.8");
    /* no grid: the whole GPU, so a kernel beside it waits */
    ORDER("kernel a stream=1\nR 0x1000 32\nR 0x1100 32\nR 0x1200 32\nR 0x1300 32\n"
          "kernel b stream=2 grid=66\nR 0x10000 32\nR 0x10100 32\n",
          132, 0, "[a] [b] a.1 a.2 a.3 a.4 b.1 b.2");
    /* 100 SMs' worth first: the second gets the 32 left, then all its 66 once the first is done
     * (strides 2^24/100 and 2^24/32: b.1 at 0, then one b per 3.125 a) */
    ORDER("kernel a stream=1 grid=100\nR 0x1000 32\nR 0x1100 32\nR 0x1200 32\nR 0x1300 32\n"
          "kernel b stream=2 grid=66\nR 0x10000 32\nR 0x10100 32\nR 0x10200 32\nR 0x10300 32\n",
          132, 0, "[a] [b] a.1 b.1 a.2 a.3 a.4 b.2 b.3 b.4");
}
END_TEST

/* A long kernel that leaves room does not starve a short one launched
 * after it: b's two accesses come out among a's first ones, not after its
 * hundred. */
START_TEST(no_starvation)
{
    char text[8192];
    size_t len = (size_t)snprintf(text, sizeof text, "kernel a stream=1 grid=128\n");
    for (int i = 0; i < 100; i++)
        len += (size_t)snprintf(text + len, sizeof text - len, "R 0x%x 32\n", 0x100000 + 128 * i);
    snprintf(text + len, sizeof text - len, "kernel b stream=2 grid=4\nR 0x10000 32\nR 0x10100 32\n");
    char got[4096];
    order(text, 132, 0, got, sizeof got, NULL, 0);
    /* 128:4 = 32:1 */
    ASSERT_CONTAINS(got, "[a] [b] a.1 b.1 a.2");
    ASSERT_CONTAINS(got, "a.32 a.33 b.2 a.34");
}
END_TEST

/* A kernel that starts while another runs starts at the progress of the
 * moment (no burst of catching up), and the overlaps name both of a
 * stream's kernels. */
START_TEST(late_start_and_overlaps)
{
    const char *t = "kernel a stream=1 grid=66\nR 0x1000 32\nR 0x1100 32\n"
                    "kernel b stream=1 grid=66\nR 0x2000 32\nR 0x2100 32\n"
                    "kernel c stream=2 grid=66\nR 0x10000 32\nR 0x10100 32\nR 0x10200 32\nR 0x10300 32\nR 0x10400 32\n"
                    "R 0x10500 32\n";
    char got[512], with[256];
    order(t, 132, 0, got, sizeof got, with, sizeof with);
    ck_assert_str_eq(got, "[a] [b] [c] a.1 c.1 a.2 c.2 b.1 c.3 b.2 c.4 c.5 c.6");
    ck_assert_str_eq(with, "a:c;b:c;c:a,b;");
}
END_TEST

/* Directives inside a kernel's accesses reach the simulators once, from
 * the host, and the accesses around them from the kernel. */
START_TEST(directives_inside_bodies)
{
    ORDER("kernel a stream=1 grid=66\nR 0x1000 32\nalloc buf 0x100000 4096\nR 0x1100 32\n"
          "kernel b stream=2 grid=66\nR 0x10000 32\nR 0x10100 32\n",
          132, 0, "[a] L [b] a.1 b.1 a.2 b.2");
}
END_TEST

/* The effect the replay exists for: a hot set of 32 lines re-read 8 times
 * (grid 4) while a sweep of 8448 lines (grid 132: 33 lines per hot line)
 * runs on another stream of a 64 KiB L2 (512 lines) loses its hits, which
 * it keeps when the sweep comes after it. */
START_TEST(overlap_changes_hits)
{
    size_t cap = 1 << 20, len;
    char *text = malloc(cap);
    ck_assert_ptr_nonnull(text);
    len = (size_t)snprintf(text, cap, "kernel hot stream=1 grid=4\n");
    for (int rep = 0; rep < 8; rep++)
        for (int i = 0; i < 32; i++)
            len += (size_t)snprintf(text + len, cap - len, "R 0x%x 128\n", 0x100000 + 128 * i);
    len += (size_t)snprintf(text + len, cap - len, "kernel sweep stream=2 grid=132\n");
    for (int i = 0; i < 8448; i++)
        len += (size_t)snprintf(text + len, cap - len, "R 0x%x 128\n", 0x400000 + 128 * i);
    char path[64];
    tests_write_temp(path, sizeof path, text);
    free(text);
    double hit[2];
    for (int ser = 0; ser < 2; ser++) {
        struct l2_config c;
        l2_config_defaults(&c);
        tests_config(&c, (const char *const[]){"l2_size=64KiB", "ways=16", "partitions=1", "setaside=0",
                                                "setaside_max=0", NULL});
        struct tests_run run;
        tests_run_start_config(&run, &c, SEM_HARDWARE);
        struct l2_sim *sp = &run.sim;
        ck_assert_msg(l2_simulate(&sp, NULL, 1, 1, path, ser, &run.syms, &run.e) >= 0, "%s", run.e.msg);
        ck_assert_uint_eq(run.sim.nk, 2);
        ck_assert_uint_eq(run.sim.k[0].total.accesses, 256);
        ck_assert_uint_eq(run.sim.k[1].total.accesses, 8448);
        ck_assert_uint_eq(run.sim.k[0].nwith, ser ? 0 : 1);
        hit[ser] = (double)run.sim.k[0].total.sector_hits / (double)run.sim.k[0].total.sectors;
        l2_sim_free(&run.sim);
        l2_symtab_free(&run.syms);
    }
    unlink(path);
    /* alone, the 4 KiB hot set misses once: 7 of 8 passes hit */
    ck_assert_double_eq_tol(hit[1], 7.0 / 8, 1e-9);
    ck_assert_msg(hit[0] < 0.1, "concurrent %.3f", hit[0]);
}
END_TEST

Suite *replay_suite(void)
{
    Suite *s = suite_create("replay");
    TCase *tc = tcase_create("replay");
    tcase_add_test(tc, unordered_kernels_interleave);
    tcase_add_test(tc, serialize_keeps_trace_order);
    tcase_add_test(tc, event_wait_orders);
    tcase_add_test(tc, event_chains);
    tcase_add_test(tc, same_stream_is_ordered);
    tcase_add_test(tc, sync_orders);
    tcase_add_test(tc, default_stream_is_legacy);
    tcase_add_test(tc, shares_follow_the_grid);
    tcase_add_test(tc, no_starvation);
    tcase_add_test(tc, late_start_and_overlaps);
    tcase_add_test(tc, directives_inside_bodies);
    tcase_add_test(tc, overlap_changes_hits);
    suite_add_tcase(s, tc);
    return s;
}

/*
 * test_timing.c - the timing model (timing.c) on tiny configurations whose
 * times are worked out by hand below: a saturated DRAM queue, merged
 * misses, bounded MSHRs, far hits against near hits, a saturated partition
 * crossing, the per-SM limit of lines in flight, stores and write-backs,
 * bucket coarsening, lanes that merge into exactly one simulator's sums,
 * times and reports that repeat exactly (in one process and in two runs of
 * the CLI); the @CYCLE field in text and binary traces; the estimates,
 * histograms and options of the reports.
 *
 * Unless a test says otherwise: 1 GHz (a cycle is a nanosecond), no launch
 * time, near hit 10, far hit 20, DRAM 100 cycles; one partition, one L2
 * slice and the crossing and SM ports too fast to matter; one DRAM channel
 * of 32 bytes per cycle, so a 128-byte line takes 4 cycles of it; 64 MSHRs
 * and 64 lines in flight per SM.
 */
#include "tests.h"

#include <math.h>
#include <stdint.h>
#include <zlib.h>

#include "report.h"
#include "sim.h"
#include "source.h"
#include "symtab.h"
#include "timing.h"
#include "trace.h"

#define TOL 0.01

static const char *const TINY[] = {"l2_size=64KiB",
                                   "partitions=1",
                                   "sms=2",
                                   "setaside=0",
                                   "setaside_max=0",
                                   "set_hash=mix",
                                   "clock_mhz=1000",
                                   "launch_ns=0",
                                   "lat_near_hit=10",
                                   "lat_far_hit=20",
                                   "lat_dram=100",
                                   "l2_slices=1",
                                   "slice_bytes_per_clk=1048576",
                                   "xbar_bytes_per_clk=1048576",
                                   "dram_gbps=32",
                                   "dram_efficiency_pct=100",
                                   "dram_partial_efficiency_pct=100",
                                   "dram_channels=1",
                                   "mshr_per_slice=64",
                                   "sm_inflight=64",
                                   "sm_bytes_per_clk=1048576",
                                   NULL};

/* A run of TINY, then the `more` settings. */
static void tiny_start(struct tests_run *r, const char *const *more)
{
    struct l2_config c;
    l2_config_defaults(&c);
    tests_config(&c, TINY);
    tests_config(&c, more);
    tests_run_start_config(r, &c, SEM_HARDWARE);
}

/* The evaluated timing of kernel k. */
static struct l2_keval eval(const struct tests_run *r, uint32_t k)
{
    struct l2_keval ev;
    ck_assert_uint_lt(k, r->sim.nk);
    l2_ktime_eval(&r->sim.l2.cfg, &r->sim.k[k].time, &ev);
    return ev;
}

/* Sectors of class c, all priorities, in latency bucket b (-1: all). */
static uint64_t hist(const struct l2_keval *ev, enum l2_lat_class c, int b)
{
    uint64_t n = 0;
    for (unsigned p = 0; p < L2_NPRIO; p++)
        for (int i = 0; i < L2_HIST_BUCKETS; i++)
            if (b < 0 || i == b)
                n += ev->hist[p][c][i];
    return n;
}

static double mean_lat(const struct l2_keval *ev, enum l2_lat_class c)
{
    double s = 0;
    uint64_t n = 0;
    for (unsigned p = 0; p < L2_NPRIO; p++) {
        s += ev->lat_sum[p][c];
        n += ev->sectors[p][c];
    }
    return n ? s / (double)n : NAN;
}

/* Appends `n` lines "R ADDR 128 sm=SM [@AT]" for consecutive lines from base. */
static void add_reads(char *buf, size_t cap, uint64_t base, unsigned n, int sm, long at)
{
    for (unsigned i = 0; i < n; i++) {
        size_t k = strlen(buf);
        char ats[32] = "";
        if (at >= 0)
            snprintf(ats, sizeof ats, " @%ld", at);
        snprintf(buf + k, cap - k, "R 0x%llx 128 sm=%d%s\n", (unsigned long long)(base + 128 * i), sm, ats);
    }
}

START_TEST(buckets)
{
    ck_assert_uint_eq(l2_hist_bucket(0), 0);
    ck_assert_uint_eq(l2_hist_bucket(127), 0);
    ck_assert_uint_eq(l2_hist_bucket(128), 1);
    ck_assert_uint_eq(l2_hist_bucket(191), 1);
    ck_assert_uint_eq(l2_hist_bucket(192), 2);
    ck_assert_uint_eq(l2_hist_bucket(256), 3);
    ck_assert_uint_eq(l2_hist_bucket(383), 3);
    ck_assert_uint_eq(l2_hist_bucket(384), 4);
    ck_assert_uint_eq(l2_hist_bucket(16383), 14);
    ck_assert_uint_eq(l2_hist_bucket(16384), 15);
    ck_assert_uint_eq(l2_hist_bucket(UINT64_MAX), 15);
    for (unsigned b = 0; b < L2_HIST_BUCKETS; b++) {
        ck_assert_uint_eq(l2_hist_bucket(l2_hist_lower[b]), b);
        if (b)
            ck_assert_uint_eq(l2_hist_bucket(l2_hist_lower[b] - 1), b - 1);
    }
}
END_TEST

/* Eight line misses issued at cycle 0: 1024 bytes for a DRAM that moves 32
 * a cycle, a 32-cycle queue; the last data returns 100 cycles after the
 * queue has drained: 132 cycles.  On average a line waits half the queue:
 * 100 + 16 = 116 cycles (bucket 0). */
START_TEST(dram_queue_saturated)
{
    struct tests_run r;
    char tr[4096] = "kernel k\n";
    tiny_start(&r, NULL);
    add_reads(tr, sizeof tr, 0x10000, 8, 0, 0);
    tests_run_ok(&r, tr);
    struct l2_keval ev = eval(&r, 0);
    ck_assert_double_eq_tol(ev.cycles, 132, TOL);
    ck_assert_double_eq_tol(ev.est_ns, 132, TOL);
    ck_assert_double_eq_tol(ev.bound_ns[RES_DRAM], 32, TOL);
    ck_assert_double_eq_tol(ev.bound_ns[RES_MSHR], 8 * 100 / 64.0, TOL);
    ck_assert_uint_eq(hist(&ev, LAT_MISS, 0), 32);
    ck_assert_uint_eq(hist(&ev, LAT_NEAR, -1) + hist(&ev, LAT_FAR, -1), 0);
    ck_assert_double_eq_tol(mean_lat(&ev, LAT_MISS), 116, TOL);
    ck_assert_uint_eq(r.sim.k[0].total.accesses, 8);
    tests_run_end(&r);

    /* half the bandwidth, twice the queue: 64 + 100 */
    const char *const slow[] = {"dram_gbps=16", NULL};
    tiny_start(&r, slow);
    tests_run_ok(&r, tr);
    ev = eval(&r, 0);
    ck_assert_double_eq_tol(ev.cycles, 164, TOL);
    tests_run_end(&r);

    /* two channels sharing the same bandwidth: no faster, and no slower
     * than all lines on one channel (164); these eight lines fall four on
     * each, so exactly as fast as one channel of the whole bandwidth */
    const char *const two[] = {"dram_channels=2", NULL};
    tiny_start(&r, two);
    tests_run_ok(&r, tr);
    ev = eval(&r, 0);
    ck_assert(ev.cycles >= 132 - TOL && ev.cycles <= 164 + TOL);
    ck_assert_double_eq_tol(ev.cycles, 132, TOL);
    ck_assert_double_eq_tol(ev.bound_ns[RES_DRAM], 32, TOL);
    tests_run_end(&r);

    /* without @CYCLE the same misses are bandwidth-bound too: 32 + 100 */
    char tr2[4096] = "kernel k\n";
    add_reads(tr2, sizeof tr2, 0x10000, 8, 0, -1);
    tiny_start(&r, NULL);
    tests_run_ok(&r, tr2);
    ev = eval(&r, 0);
    ck_assert_double_eq_tol(ev.cycles, 132, TOL);
    tests_run_end(&r);
}
END_TEST

/* A DRAM read of less than a line goes at dram_partial_efficiency_pct:
 * eight 32-byte misses at half efficiency take the DRAM as long as 512
 * bytes (16 ns at 32 bytes/ns); eight whole lines are not affected. */
START_TEST(partial_reads_slower)
{
    const char *const half[] = {"dram_partial_efficiency_pct=50", NULL};
    char tr[2048] = "kernel k\n";
    for (unsigned i = 0; i < 8; i++) {
        size_t k = strlen(tr);
        snprintf(tr + k, sizeof tr - k, "R 0x%x 32 sm=0 @0\n", 0x10000 + 4096 * i);
    }
    struct tests_run r;
    tiny_start(&r, half);
    tests_run_ok(&r, tr);
    struct l2_keval ev = eval(&r, 0);
    ck_assert_uint_eq(r.sim.k[0].total.dram_rd, 256);
    ck_assert_double_eq_tol(ev.bound_ns[RES_DRAM], 16, TOL);
    tests_run_end(&r);
    char full[2048] = "kernel k\n";
    add_reads(full, sizeof full, 0x10000, 8, 0, 0);
    tiny_start(&r, half);
    tests_run_ok(&r, full);
    ev = eval(&r, 0);
    ck_assert_double_eq_tol(ev.bound_ns[RES_DRAM], 32, TOL);
    tests_run_end(&r);
}
END_TEST

/* Every request (a line's sectors of an access) costs its slice
 * slice_req_bytes beyond its data: at 32 bytes a cycle and 32 bytes a
 * request, eight one-sector reads take the slice 8 x 64 / 32 = 16 cycles
 * (8 without the cost), and eight whole lines 8 x 160 / 32 = 40 (32). */
START_TEST(slice_cost_per_request)
{
    const char *const slow[] = {"slice_bytes_per_clk=32", "dram_gbps=1048576", NULL};
    const char *const req[] = {"slice_bytes_per_clk=32", "dram_gbps=1048576", "slice_req_bytes=32", NULL};
    const char *const *cfgs[2] = {slow, req};
    const double sector_ns[2] = {8, 16}, line_ns[2] = {32, 40};
    for (int v = 0; v < 2; v++) {
        char tr[2048] = "kernel sectors\n";
        for (unsigned i = 0; i < 8; i++)
            snprintf(tr + strlen(tr), sizeof tr - strlen(tr), "R 0x%x 32 sm=0 @0\n", 0x10000 + 4096 * i);
        strcat(tr, "kernel lines\n");
        add_reads(tr, sizeof tr, 0x40000, 8, 0, 0);
        struct tests_run r;
        tiny_start(&r, cfgs[v]);
        tests_run_ok(&r, tr);
        ck_assert_double_eq_tol(eval(&r, 0).bound_ns[RES_SLICE], sector_ns[v], TOL);
        ck_assert_double_eq_tol(eval(&r, 1).bound_ns[RES_SLICE], line_ns[v], TOL);
        tests_run_end(&r);
    }
}
END_TEST

/* Two loads of one line at cycle 0: the first misses (DRAM 4 cycles, data
 * 100 later: 104); the second finds the line in the cache model (a hit)
 * but its fill in flight, and waits for the rest of it, 100 cycles: a
 * merged miss, one DRAM read.  A third load at 200 is a plain near hit:
 * the kernel ends at 210. */
START_TEST(merged_misses)
{
    struct tests_run r;
    tiny_start(&r, NULL);
    tests_run_ok(&r, "kernel k\n"
                     "R 0x10000 128 sm=0 @0\n"
                     "R 0x10000 128 sm=1 @0\n"
                     "R 0x10000 128 sm=0 @200\n");
    struct l2_keval ev = eval(&r, 0);
    const struct l2_counters *c = &r.sim.k[0].total;
    ck_assert_uint_eq(c->sector_hits, 8);
    ck_assert_uint_eq(c->merged, 4);
    ck_assert_uint_eq(c->dram_rd, 128);
    ck_assert_double_eq_tol(ev.bound_ns[RES_DRAM], 4, TOL);
    ck_assert_uint_eq(hist(&ev, LAT_MISS, 0), 8); /* the miss (102) and the merged one (100) */
    ck_assert_uint_eq(hist(&ev, LAT_NEAR, 0), 4); /* the third, 10 */
    ck_assert_double_eq_tol(mean_lat(&ev, LAT_MISS), 101, TOL);
    ck_assert_double_eq_tol(mean_lat(&ev, LAT_NEAR), 10, TOL);
    ck_assert_double_eq_tol(ev.cycles, 210, TOL);
    tests_run_end(&r);

    /* The same without @CYCLE: a load is in flight while fewer than
     * sm_inflight (64) x the SMs seen lines have been issued since. */
    tiny_start(&r, NULL);
    tests_run_ok(&r, "kernel k\nR 0x10000 128 sm=0\nR 0x10000 128 sm=0\n");
    ck_assert_uint_eq(r.sim.k[0].total.merged, 4);
    tests_run_end(&r);
    char tr[16384] = "kernel k\nR 0x10000 128 sm=0\n";
    add_reads(tr, sizeof tr, 0x40000, 64, 0, -1);
    strcat(tr, "R 0x10000 128 sm=0\n");
    tiny_start(&r, NULL);
    tests_run_ok(&r, tr);
    ck_assert_uint_eq(r.sim.k[0].total.merged, 0);
    tests_run_end(&r);

    /* Sector misses of a line in flight join its fill: with one MSHR, the
     * second half of the line takes none, and the kernel takes 4 + 100
     * cycles (DRAM, latency), not two MSHR turns of 100. */
    const char *const one[] = {"mshr_per_slice=1", NULL};
    tiny_start(&r, one);
    tests_run_ok(&r, "kernel k\n"
                     "R 0x10000 64 sm=0 @0\n"
                     "R 0x10040 64 sm=0 @0\n");
    ev = eval(&r, 0);
    ck_assert_uint_eq(r.sim.k[0].total.merged, 0);
    ck_assert_uint_eq(r.sim.k[0].total.dram_rd, 128);
    ck_assert_double_eq_tol(ev.bound_ns[RES_MSHR], 100, TOL);
    ck_assert_double_eq_tol(ev.cycles, 104, TOL);
    tests_run_end(&r);
}
END_TEST

/* Two MSHRs, each held 100 cycles: four line misses at cycle 0 take two
 * turns, 200 cycles (DRAM alone would take 16 + 100). */
START_TEST(mshr_bound)
{
    struct tests_run r;
    const char *const two[] = {"mshr_per_slice=2", NULL};
    char tr[1024] = "kernel k\n";
    tiny_start(&r, two);
    add_reads(tr, sizeof tr, 0x20000, 4, 0, 0);
    tests_run_ok(&r, tr);
    struct l2_keval ev = eval(&r, 0);
    ck_assert_double_eq_tol(ev.cycles, 200, TOL);
    ck_assert_double_eq_tol(ev.bound_ns[RES_MSHR], 200, TOL);
    /* the batch finds 0 to 200 cycles of MSHR backlog, 100 of which are
     * holding time: it waits (100^2 / 2) / 200 = 25 on average */
    ck_assert_double_eq_tol(mean_lat(&ev, LAT_MISS), 125, TOL);
    tests_run_end(&r);

    /* the same without @CYCLE */
    char tr2[1024] = "kernel k\n";
    add_reads(tr2, sizeof tr2, 0x20000, 4, 0, -1);
    tiny_start(&r, two);
    tests_run_ok(&r, tr2);
    ev = eval(&r, 0);
    ck_assert_double_eq_tol(ev.cycles, 200, TOL);
    tests_run_end(&r);
}
END_TEST

/* Lines by home partition: near_line's is 0, the far ones' 1. */
static void find_lines(struct tests_run *r, uint64_t *near_line, uint64_t *far, unsigned nfar)
{
    unsigned n = 0;
    *near_line = UINT64_MAX;
    for (uint64_t line = 0x400; n < nfar || *near_line == UINT64_MAX; line++) {
        unsigned home = l2_home(&r->sim.l2, line);
        if (home == 0 && *near_line == UINT64_MAX)
            *near_line = line;
        else if (home == 1 && n < nfar)
            far[n++] = line;
    }
}

/* A line homed in partition 0 and one in partition 1, both cached at home
 * by a first kernel; a second kernel loads them from SM 0 (near partition
 * 0): a near hit (200 cycles) and a far hit (340); a miss homed far pays
 * the crossing as well: 500 + 340 - 200 = 640, + 2 cycles of DRAM queue
 * on average (4 cycles for its 128 bytes). */
START_TEST(far_hit_costs_more)
{
    struct tests_run r;
    const char *const two[] = {"partitions=2", "sm_map=mod",   "lat_near_hit=200",
                               "lat_far_hit=340", "lat_dram=500", "l2_slices=2", NULL};
    tiny_start(&r, two);
    uint64_t near_line, far[2];
    find_lines(&r, &near_line, far, 2);
    char tr[1024];
    snprintf(tr, sizeof tr,
             "kernel warm\n"
             "R 0x%llx 128 sm=0\n" /* near == home: filled at home only */
             "R 0x%llx 128 sm=1\n"
             "kernel k\n"
             "R 0x%llx 128 sm=0 @0\n"
             "R 0x%llx 128 sm=0 @0\n"
             "R 0x%llx 128 sm=0 @0\n",
             (unsigned long long)near_line << 7, (unsigned long long)far[0] << 7, (unsigned long long)near_line << 7,
             (unsigned long long)far[0] << 7, (unsigned long long)far[1] << 7);
    tests_run_ok(&r, tr);
    struct l2_keval ev = eval(&r, 1);
    const struct l2_counters *c = &r.sim.k[1].total;
    ck_assert_uint_eq(c->sector_hits, 8);
    ck_assert_uint_eq(c->near_hits, 4);
    ck_assert_double_eq_tol(mean_lat(&ev, LAT_NEAR), 200, TOL);
    ck_assert_double_eq_tol(mean_lat(&ev, LAT_FAR), 340, TOL);
    ck_assert_double_eq_tol(mean_lat(&ev, LAT_MISS), 642, TOL);
    ck_assert_uint_eq(hist(&ev, LAT_NEAR, (int)l2_hist_bucket(200)), 4);
    ck_assert_uint_eq(hist(&ev, LAT_FAR, (int)l2_hist_bucket(340)), 4);
    ck_assert_uint_eq(hist(&ev, LAT_MISS, (int)l2_hist_bucket(642)), 4);
    ck_assert(l2_hist_bucket(340) > l2_hist_bucket(200));
    ck_assert_double_eq_tol(ev.cycles, 644, TOL);
    /* the far hit and the far miss crossed, 128 bytes each, both into
     * partition 0: 256 bytes through one link at 1 MiB a cycle */
    ck_assert_double_eq_tol(ev.bound_ns[RES_XBAR] * 1048576, 256, TOL);
    tests_run_end(&r);
}
END_TEST

/* The crossing at 32 bytes per cycle: four far hits from SM 0 at cycle 0
 * bring 512 bytes to the link into partition 0 (the other link idles):
 * 16 cycles, then 20 of latency.  They wait 8 on average. */
START_TEST(crossing_saturated)
{
    struct tests_run r;
    const char *const two[] = {"partitions=2", "sm_map=mod", "l2_slices=2", "xbar_bytes_per_clk=32", NULL};
    tiny_start(&r, two);
    uint64_t near_line, far[4];
    find_lines(&r, &near_line, far, 4);
    char tr[1024] = "kernel warm\n";
    for (unsigned i = 0; i < 4; i++)
        snprintf(tr + strlen(tr), sizeof tr - strlen(tr), "R 0x%llx 128 sm=1\n", (unsigned long long)far[i] << 7);
    strcat(tr, "kernel k\n");
    for (unsigned i = 0; i < 4; i++)
        snprintf(tr + strlen(tr), sizeof tr - strlen(tr), "R 0x%llx 128 sm=0 @0\n",
                 (unsigned long long)far[i] << 7);
    tests_run_ok(&r, tr);
    struct l2_keval ev = eval(&r, 1);
    ck_assert_uint_eq(hist(&ev, LAT_FAR, -1), 16);
    ck_assert_double_eq_tol(ev.bound_ns[RES_XBAR], 16, TOL);
    ck_assert_double_eq_tol(ev.cycles, 36, TOL);
    ck_assert_double_eq_tol(mean_lat(&ev, LAT_FAR), 28, TOL);
    tests_run_end(&r);
}
END_TEST

/* Without @CYCLE, an SM keeps sm_inflight lines in flight (Little's law):
 * with 2, six near hits of 10 cycles from one SM take 6 x 10 / 2 = 30
 * cycles, and six misses of 100 take 300 (DRAM alone: 6 x 4 + 100). */
START_TEST(inflight_per_sm)
{
    struct tests_run r;
    const char *const two[] = {"sm_inflight=2", NULL};
    char tr[4096] = "kernel warm\n";
    tiny_start(&r, two);
    add_reads(tr, sizeof tr, 0x30000, 6, 0, -1);
    strcat(tr, "kernel k\n");
    add_reads(tr, sizeof tr, 0x30000, 6, 0, -1);
    tests_run_ok(&r, tr);
    struct l2_keval ev = eval(&r, 0);
    ck_assert_double_eq_tol(ev.cycles, 300, TOL);
    ck_assert_double_eq_tol(ev.bound_ns[RES_SLOT], 300, TOL);
    ev = eval(&r, 1);
    ck_assert_double_eq_tol(ev.cycles, 30, TOL);
    ck_assert_uint_eq(hist(&ev, LAT_NEAR, 0), 24);
    ck_assert_double_eq_tol(mean_lat(&ev, LAT_NEAR), 10, TOL);
    ck_assert_uint_eq(r.sim.k[1].total.accesses, 6);
    tests_run_end(&r);

    /* a line of one sector holds a quarter of a slot (a warp instruction
     * of sector-sized pieces has more lines in flight than one of whole
     * lines): six one-sector near hits take the slots 6 x 10 / 4 / 2 = 7.5
     * cycles */
    char tr1[4096] = "kernel warm\n";
    add_reads(tr1, sizeof tr1, 0x30000, 6, 0, -1);
    strcat(tr1, "kernel k\n");
    for (unsigned i = 0; i < 6; i++)
        snprintf(tr1 + strlen(tr1), sizeof tr1 - strlen(tr1), "R 0x%x 32 sm=0\n", 0x30000 + 128 * i);
    tiny_start(&r, two);
    tests_run_ok(&r, tr1);
    ck_assert_double_eq_tol(eval(&r, 1).bound_ns[RES_SLOT], 7.5, TOL);
    tests_run_end(&r);

    /* spread over two SMs, half the time */
    char tr2[4096] = "kernel warm\n";
    add_reads(tr2, sizeof tr2, 0x30000, 6, 0, -1);
    strcat(tr2, "kernel k\n");
    add_reads(tr2, sizeof tr2, 0x30000, 3, 0, -1);
    add_reads(tr2, sizeof tr2, 0x30000 + 3 * 128, 3, 1, -1);
    tiny_start(&r, two);
    tests_run_ok(&r, tr2);
    ev = eval(&r, 1);
    ck_assert_double_eq_tol(ev.cycles, 15, TOL);
    tests_run_end(&r);

    /* a kernel line with grid and block: one 64-thread block keeps 2 of
     * sm_warps = 4 warps resident, so half the lines in flight and twice
     * the time; a 256-thread block fills the SM (capped at 4 warps) */
    const char *const occ[] = {"sm_inflight=2", "sm_warps=4", NULL};
    tiny_start(&r, occ);
    tests_run_ok(&r, "kernel warm\nR 0x30000 128 sm=0\nR 0x30080 128 sm=0\nR 0x30100 128 sm=0\n"
                     "kernel small grid=1 block=64\nR 0x30000 128 sm=0\nR 0x30080 128 sm=0\nR 0x30100 128 sm=0\n"
                     "kernel full grid=1 block=256\nR 0x30000 128 sm=0\nR 0x30080 128 sm=0\nR 0x30100 128 sm=0\n");
    ck_assert_uint_eq(r.sim.k[1].time.warps, 2);
    ck_assert_uint_eq(r.sim.k[2].time.warps, 4);
    ck_assert_double_eq_tol(eval(&r, 1).cycles, 30, TOL);
    ck_assert_double_eq_tol(eval(&r, 2).cycles, 15, TOL);
    tests_run_end(&r);
    const uint32_t g528[3] = {528, 1, 1}, g66[3] = {66, 1, 1}, g0[3] = {0, 0, 0}, b512[3] = {512, 1, 1};
    struct l2_config h;
    l2_config_defaults(&h); /* 132 SMs, sm_warps 64 */
    ck_assert_uint_eq(l2_kernel_warps(&h, g528, b512), 64);
    ck_assert_uint_eq(l2_kernel_warps(&h, g66, b512), 16);
    ck_assert_uint_eq(l2_kernel_warps(&h, g0, b512), 0);

    /* @CYCLE gives the issue times: no slot limit, and a late issue
     * stretches the kernel to 1000 + 10 */
    tiny_start(&r, two);
    tests_run_ok(&r, "kernel warm\nR 0x30000 128 sm=0\nkernel k\n"
                     "R 0x30000 128 sm=0 @0\nR 0x30000 128 sm=0 @0\nR 0x30000 128 sm=0 @0\nR 0x30000 128 sm=0 @1000\n");
    ev = eval(&r, 1);
    ck_assert_double_eq_tol(ev.cycles, 1010, TOL);
    tests_run_end(&r);
}
END_TEST

/* est_ns = launch_ns + cycles / (clock_mhz / 1000); a kernel without
 * accesses takes launch_ns. */
START_TEST(estimate_units)
{
    struct tests_run r;
    const char *const more[] = {"clock_mhz=2000", "launch_ns=1500", NULL};
    tiny_start(&r, more);
    tests_run_ok(&r, "kernel empty\nkernel k\nR 0x10000 128 sm=0 @0\n");
    struct l2_keval ev = eval(&r, 0);
    ck_assert_double_eq_tol(ev.cycles, 0, TOL);
    ck_assert_double_eq_tol(ev.est_ns, 1500, TOL);
    /* 32 GB/s at 2 GHz is 16 bytes a cycle: 8 cycles, then 100 */
    ev = eval(&r, 1);
    ck_assert_double_eq_tol(ev.cycles, 108, TOL);
    ck_assert_double_eq_tol(ev.est_ns, 1554, TOL);
    tests_run_end(&r);
}
END_TEST

/* Stores: write-allocate, no DRAM read, 10 cycles; loads that evict the
 * dirty lines write them back: 4 x (128 + 128) bytes, 32 cycles, then
 * 100 of latency. */
START_TEST(stores_and_writebacks)
{
    struct tests_run r;
    const char *const one_set[] = {"l2_size=2KiB", NULL}; /* 1 set of 16 ways */
    tiny_start(&r, one_set);
    char tr[8192] = "kernel st\n";
    for (unsigned i = 0; i < 16; i++)
        snprintf(tr + strlen(tr), sizeof tr - strlen(tr), "W 0x%x 128 sm=0 @0\n", 0x40000 + 128 * i);
    strcat(tr, "kernel ld\n");
    add_reads(tr, sizeof tr, 0x80000, 4, 0, 0);
    tests_run_ok(&r, tr);
    struct l2_keval ev = eval(&r, 0);
    ck_assert_double_eq_tol(ev.bound_ns[RES_DRAM], 0, TOL);
    ck_assert_uint_eq(hist(&ev, LAT_NEAR, 0), 64);
    ck_assert_double_eq_tol(ev.cycles, 10, TOL);
    ev = eval(&r, 1);
    ck_assert_uint_eq(r.sim.k[1].total.dram_wr, 4 * 128);
    ck_assert_double_eq_tol(ev.bound_ns[RES_DRAM], 32, TOL);
    ck_assert_double_eq_tol(ev.cycles, 132, TOL);
    tests_run_end(&r);
}
END_TEST

/* wb_room_ways, wb_slow_per_way: with 10 of 16 ways set aside (6 outside,
 * 3 short of 9) DRAM takes 1 + 0.5 x 3 = 2.5 times as long for a kernel
 * whose write-backs are a quarter or more of its DRAM bytes; a kernel that
 * only reads, and both kernels with 5 ways set aside, take the time they
 * take without a set-aside (the cache does the same in all three; sets in
 * stripes, so that the reads evict every written line). */
START_TEST(setaside_slows_writebacks)
{
    static const char *const sa[3] = {"", "setaside 20KiB\n", "setaside 40KiB\n"};
    static const double slower[3] = {1, 1, 2.5};
    double base[2] = {0, 0};
    static char tr[3 << 16];
    for (unsigned i = 0; i < 3; i++) {
        struct tests_run r;
        const char *const more[] = {"setaside_max=40KiB", "wb_room_ways=9", "wb_slow_per_way=0.5", "set_hash=stripe", NULL};
        tiny_start(&r, more);
        snprintf(tr, sizeof tr, "%skernel st\n", sa[i]);
        for (unsigned j = 0; j < 512; j++) /* 64 KiB written: the whole L2 */
            snprintf(tr + strlen(tr), sizeof tr - strlen(tr), "W 0x%x 128 sm=0\n", 0x100000 + 128 * j);
        strcat(tr, "kernel wb\n"); /* reads that evict the written lines */
        add_reads(tr, sizeof tr, 0x200000, 512, 0, -1);
        strcat(tr, "kernel ld\n"); /* reads that evict clean lines */
        add_reads(tr, sizeof tr, 0x300000, 512, 0, -1);
        tests_run_ok(&r, tr);
        const struct l2_counters *wb = &r.sim.k[1].total, *ld = &r.sim.k[2].total;
        ck_assert_uint_ge(4 * wb->dram_wr, wb->dram_rd + wb->dram_wr);
        ck_assert_uint_eq(ld->dram_wr, 0);
        for (unsigned k = 0; k < 2; k++) {
            const double b = eval(&r, k + 1).bound_ns[RES_DRAM];
            ck_assert(b > 0);
            if (i == 0)
                base[k] = b;
            ck_assert_double_eq_tol(b / base[k], k == 0 ? slower[i] : 1, 1e-9);
        }
        tests_run_end(&r);
    }
}
END_TEST

/* More lines than buckets: the buckets coarsen and keep every sum. */
START_TEST(buckets_coarsen)
{
    struct tests_run r;
    char *tr = malloc(65536);
    ck_assert_ptr_nonnull(tr);
    strcpy(tr, "kernel k\n");
    add_reads(tr, 65536, 0x100000, 100, 0, -1);
    for (unsigned i = 0; i < 100; i++)
        snprintf(tr + strlen(tr), 65536 - strlen(tr), "R 0x%x 128 sm=1 @%u\n", 0x200000 + 128 * i, 7 * i);
    tiny_start(&r, NULL);
    tests_run_ok(&r, tr);
    const struct l2_ktime *t = &r.sim.k[0].time;
    ck_assert_uint_eq(t->pos, 100);
    ck_assert_uint_eq(t->oshift, 3); /* 16 buckets of 8 lines */
    ck_assert_uint_eq(t->cshift, 5); /* 32 buckets of 32 cycles: 693 fits */
    uint64_t lines = 0, clines = 0;
    for (unsigned i = 0; i < L2_OBUCKETS; i++)
        lines += t->ob[i].lines;
    for (unsigned i = 0; i < L2_CBUCKETS; i++)
        clines += t->cb[i].lines;
    ck_assert_uint_eq(lines, 100);
    ck_assert_uint_eq(clines, 100);
    ck_assert_uint_eq(t->cb[693 >> 5].last, 694);
    struct l2_keval ev = eval(&r, 0);
    ck_assert_uint_eq(hist(&ev, LAT_MISS, -1), 800);
    /* The @CYCLE misses come every 7 cycles and take 4 of DRAM each.  A
     * bucket's lines are taken to arrive with its last one: 672, 679, 686
     * and 693 at 693, with the queue empty: 693 + 4 x 4 + 100. */
    ck_assert_double_eq_tol(ev.cycles, 809, TOL);
    tests_run_end(&r);
    free(tr);
}
END_TEST

/* Lanes (each simulating a range of sets) merged give exactly the
 * counters and sums, and so the times and histograms, of one simulator. */
START_TEST(lanes_merge_exactly)
{
    const char *const two[] = {"partitions=2", "sm_map=mod",     "l2_slices=4", "dram_channels=3",
                               "l2_size=16KiB", "quota_sets=1", "queue_sets=1", NULL};
    char *tr = malloc(1 << 17);
    ck_assert_ptr_nonnull(tr);
    strcpy(tr, "kernel a\n");
    add_reads(tr, 1 << 17, 0x100000, 300, 0, -1);
    add_reads(tr, 1 << 17, 0x100000, 100, 1, -1);
    strcat(tr, "kernel b\nW 0x100000 512 sm=1\n");
    add_reads(tr, 1 << 17, 0x100000, 200, 1, 5);
    add_reads(tr, 1 << 17, 0x180000, 20, 0, 900);
    add_reads(tr, 1 << 17, 0x180000, 20, 1, 900);
    struct tests_run one;
    tiny_start(&one, two);
    tests_run_ok(&one, tr);
    for (unsigned lanes = 2; lanes <= 3; lanes++) {
        struct tests_run lane[3];
        uint32_t next = 0;
        for (unsigned i = 0; i < lanes; i++) {
            tiny_start(&lane[i], two);
            l2_sim_set_lane(&lane[i].sim, i, lanes);
            tests_run_ok(&lane[i], tr);
            /* the lanes' set ranges tile the sets, and each lane simulates
             * a share of the sectors, not none or all */
            ck_assert_uint_eq(lane[i].sim.set_lo, next);
            ck_assert_uint_gt(lane[i].sim.set_end, lane[i].sim.set_lo);
            next = lane[i].sim.set_end;
            uint64_t mine = 0, all = 0;
            for (uint32_t k = 0; k < one.sim.nk; k++) {
                mine += lane[i].sim.k[k].total.sectors;
                all += one.sim.k[k].total.sectors;
            }
            ck_assert_uint_gt(mine, 0);
            ck_assert_uint_lt(mine, all);
        }
        ck_assert_uint_eq(next, one.sim.l2.sets);
        for (unsigned i = 1; i < lanes; i++)
            ck_assert_int_eq(l2_sim_merge_lane(&lane[0].sim, &lane[i].sim), 0);
        for (uint32_t k = 0; k < 2; k++) {
            struct l2_keval a = eval(&one, k), b = eval(&lane[0], k);
            ck_assert(memcmp(&a, &b, sizeof a) == 0);
            ck_assert(memcmp(&one.sim.k[k].total, &lane[0].sim.k[k].total, sizeof one.sim.k[k].total) == 0);
            ck_assert(memcmp(one.sim.k[k].prio, lane[0].sim.k[k].prio, sizeof one.sim.k[k].prio) == 0);
            ck_assert(a.cycles > 0);
            ck_assert_uint_eq(lane[0].sim.k[k].total.merged, one.sim.k[k].total.merged);
            ck_assert_uint_eq(lane[0].sim.k[k].total.accesses, one.sim.k[k].total.accesses);
        }
        for (unsigned i = 0; i < lanes; i++)
            tests_run_end(&lane[i]);
    }
    ck_assert(one.sim.k[1].total.merged > 0);
    tests_run_end(&one);
    free(tr);
}
END_TEST

/* Runs `l2sim ARGS` (see tests_cli) with glibc filling the memory it
 * allocates and frees with bytes from `perturb` (MALLOC_PERTURB_), so that
 * output that reads memory never written differs between runs. */
static int cli_perturbed(const char *args, const char *perturb, char **out)
{
    ck_assert_int_eq(setenv("MALLOC_PERTURB_", perturb, 1), 0);
    int st = tests_cli(args, out);
    ck_assert_int_eq(unsetenv("MALLOC_PERTURB_"), 0);
    return st;
}

/* Fails unless outputs a and b are the same bytes, showing where they
 * first differ. */
static void same_output(const char *what, const char *a, const char *b)
{
    size_t i = 0;
    while (a[i] && a[i] == b[i])
        i++;
    ck_assert_msg(a[i] == b[i], "%s: the outputs differ from byte %zu: \"%.60s\" against \"%.60s\"", what, i, a + i,
                  b + i);
}

/* The same trace gives the same times: in one process, the same evaluated
 * times to the last bit (reports round them); in two processes of the
 * CLI (other addresses, other contents of memory never written), the same
 * reports byte for byte, histograms included. */
START_TEST(deterministic)
{
    char tr[8192] = "policy hot interleaved persisting 0.5 streaming api=ptx\n"
                    "kernel a\n";
    add_reads(tr, sizeof tr, 0x10000, 20, 0, -1);
    add_reads(tr, sizeof tr, 0x10000, 20, 1, -1);
    strcat(tr, "window 0x10000 4KiB 0.5 persisting streaming stream=1\n"
               "kernel b stream=1\n");
    add_reads(tr, sizeof tr, 0x10000, 40, 1, -1);
    strcat(tr, "R 0x40000 4096 hot sm=0 @10\n"
               "W 0x50000 512 sm=1 @20\n");
    struct tests_run a, b;
    tiny_start(&a, NULL);
    tiny_start(&b, NULL);
    tests_run_ok(&a, tr);
    tests_run_ok(&b, tr);
    for (uint32_t k = 0; k < 2; k++) {
        struct l2_keval x = eval(&a, k), y = eval(&b, k);
        ck_assert(memcmp(&x, &y, sizeof x) == 0);
        ck_assert(x.cycles > 0);
    }
    tests_run_end(&a);
    tests_run_end(&b);

    /* the CLI on TINY (as a --config file), each output twice; the files
     * are removed before the first assertion */
    static const char *const opts[] = {"--histogram", "--json", "--csv", "--threads 2 --histogram"};
    static const char *const shows[] = {"latency, prio evict_last: sectors by latency",
                                        "\"evict_last\": {\"near_hit\": [", "\n2,b,1,",
                                        "latency, prio evict_last: sectors by latency"};
    static const char *const perturb[2] = {"85", "170"};
    enum { NOPT = sizeof opts / sizeof opts[0] };
    char cfg[1024] = "", cpath[64], tpath[64], args[256], *out[NOPT][2];
    int st[NOPT][2];
    for (const char *const *kv = TINY; *kv; kv++)
        snprintf(cfg + strlen(cfg), sizeof cfg - strlen(cfg), "%s\n", *kv);
    tests_write_temp(cpath, sizeof cpath, cfg);
    tests_write_temp(tpath, sizeof tpath, tr);
    for (unsigned i = 0; i < NOPT; i++) {
        snprintf(args, sizeof args, "run --config %s %s %s", cpath, opts[i], tpath);
        for (unsigned j = 0; j < 2; j++)
            st[i][j] = cli_perturbed(args, perturb[j], &out[i][j]);
    }
    unlink(cpath);
    unlink(tpath);
    for (unsigned i = 0; i < NOPT; i++) {
        for (unsigned j = 0; j < 2; j++)
            ck_assert_msg(st[i][j] == 0, "l2sim run %s: exit status %d:\n%.1000s", opts[i], st[i][j], out[i][j]);
        ck_assert_msg(strstr(out[i][0], shows[i]), "l2sim run %s: no \"%s\" in the output", opts[i], shows[i]);
        same_output(opts[i], out[i][0], out[i][1]);
        free(out[i][0]);
        free(out[i][1]);
    }
}
END_TEST

/* ---- @CYCLE in traces ---- */

/* Access number `nth` (from 0) of trace `text` into ev: 1, or the reader's
 * 0 or -1 when the trace ends or fails before it. */
static int parse_nth(const char *text, unsigned nth, struct l2_event *ev, l2_err *e)
{
    char path[64];
    struct l2_event *v;
    size_t n;
    tests_write_temp(path, sizeof path, text);
    int r = tests_read_events(path, &v, &n, e);
    unlink(path);
    for (size_t i = 0; i < n; i++)
        if (v[i].type == EV_ACCESS && nth-- == 0) {
            *ev = v[i];
            r = 1;
            break;
        }
    free(v);
    return r;
}

static int parse_one(const char *text, struct l2_event *ev, l2_err *e)
{
    return parse_nth(text, 0, ev, e);
}

START_TEST(text_cycle_field)
{
    struct l2_event ev;
    l2_err e;
    ck_assert_int_eq(parse_one("R 0x1000 512 evict_last sm=3 @1200\n", &ev, &e), 1);
    ck_assert(l2_event_has_cycle(&ev));
    ck_assert_uint_eq(l2_event_cycle(&ev), 1200);
    ck_assert_int_eq(ev.sm, 3);
    ck_assert_int_eq(l2_builtin_prio(ev.tag), PRIO_EVICT_LAST);
    ck_assert_int_eq(parse_one("R 0x1000 512 @0x10 evict_last\n", &ev, &e), 1);
    ck_assert_uint_eq(l2_event_cycle(&ev), 16);
    ck_assert_int_eq(parse_one("W 0x1000 32 sm=1 @0\n", &ev, &e), 1);
    ck_assert(l2_event_has_cycle(&ev));
    ck_assert_uint_eq(l2_event_cycle(&ev), 0);
    ck_assert_int_eq(parse_one("R 0x1000 32 sm=1\n", &ev, &e), 1);
    ck_assert(!l2_event_has_cycle(&ev));
    /* the field does not stick to the next access */
    ck_assert_int_eq(parse_nth("R 0x1000 32 @5\nkernel k\nR 0x1000 32\n", 1, &ev, &e), 1);
    ck_assert(!l2_event_has_cycle(&ev));
    ck_assert_uint_eq(ev.addr, 0x1000);

    ck_assert_int_eq(parse_one("R 0x1000 32 @1 @2\n", &ev, &e), -1);
    ASSERT_CONTAINS(e.msg, ":1: more than one @CYCLE");
    ck_assert_int_eq(parse_one("R 0x1000 32 @x\n", &ev, &e), -1);
    ASSERT_CONTAINS(e.msg, "@CYCLE");
    ck_assert_int_eq(parse_one("R 0x1000 32 @\n", &ev, &e), -1);
    ck_assert_int_eq(parse_one("R 0x1000 32 @4611686018427387904\n", &ev, &e), -1);
    ASSERT_CONTAINS(e.msg, "too large");
    ck_assert_int_eq(parse_one("policy @p interleaved evict_last 1.0\n", &ev, &e), -1);
    ASSERT_CONTAINS(e.msg, "cannot name a policy");
    ck_assert_int_eq(parse_one("R 0x1000 32 sm=1 evict_last\n", &ev, &e), -1);
    ASSERT_CONTAINS(e.msg, "unexpected 'evict_last'");

    /* written back in canonical form, last on the line */
    struct l2_symtab syms;
    char buf[256];
    ck_assert_int_eq(l2_symtab_init(&syms, &e), 0);
    memset(&ev, 0, sizeof ev);
    ev.type = EV_ACCESS;
    ev.op = OP_READ;
    ev.addr = 0x1000;
    ev.size = 512;
    ev.tag = L2_TAG_GLOBAL;
    ev.sm = 3;
    l2_event_set_cycle(&ev, 1200);
    l2_event_format_text(buf, sizeof buf, &ev, &syms);
    ck_assert_str_eq(buf, "R 0x1000 512 sm=3 @1200\n");
    l2_symtab_free(&syms);
}
END_TEST

static const char CYCLES[] = "kernel k\n"
                             "R 0x1000 512 evict_last sm=3 @1200\n"
                             "R 0x2000 512 sm=1\n"
                             "W 0x3000 32 @0\n"
                             "P 0x4000 128 evict_normal sm=2 @4611686018427387903\n"
                             "kernel j\n"
                             "D 0x5000 128 @7\n";

/* text -> binary -> text keeps every @CYCLE, the binary holds one cycle
 * record before each access that has one, and both give the same times. */
START_TEST(binary_cycle_records)
{
    char tpath[64], bpath[64], t2[64];
    l2_err e;
    struct l2_symtab syms;
    struct l2_trace *t;
    tests_write_temp(tpath, sizeof tpath, CYCLES);
    tests_write_temp(bpath, sizeof bpath, "");
    tests_write_temp(t2, sizeof t2, "");
    tests_to_binary(tpath, bpath, L2_COMP_NONE);
    tests_to_text(bpath, t2);

    /* 7 events, 4 of them with a cycle record: 11 records */
    ck_assert_int_eq(l2_symtab_init(&syms, &e), 0);
    ck_assert_int_eq(l2_trace_open(&t, bpath, &syms, &e), 0);
    ck_assert_int_eq(l2_trace_format(t), L2_FMT_BINARY);
    ck_assert_int_eq(l2_trace_total(t), 11);
    l2_trace_close(t);
    l2_symtab_free(&syms);
    struct l2_event *v;
    size_t n;
    ck_assert_msg(tests_read_events(bpath, &v, &n, &e) == 0, "%s", e.msg);
    ck_assert_uint_eq(n, 7);
    /* an access is named by its own record, after its cycle record */
    ck_assert_uint_eq(v[1].pos, 3);
    ck_assert_uint_eq(v[2].pos, 4);
    ck_assert_uint_eq(v[3].pos, 6);
    ck_assert_uint_eq(v[6].pos, 11);
    free(v);
    char *txt = tests_slurp_file(t2, NULL);
    ck_assert_str_eq(txt, "kernel k\n"
                          "R 0x1000 512 evict_last sm=3 @1200\n"
                          "R 0x2000 512 sm=1\n"
                          "W 0x3000 32 @0\n"
                          "P 0x4000 128 evict_normal sm=2 @4611686018427387903\n"
                          "kernel j\n"
                          "D 0x5000 128 @7\n");
    free(txt);
    unlink(tpath);
    unlink(bpath);
    unlink(t2);
}
END_TEST

/* A hand-made binary file: header (no tables but one kernel name) and
 * the given records in one block. */
static void write_bin(const char *path, const uint64_t *rec, unsigned n)
{
    unsigned char h[64], *p = h;
    memcpy(p, "L2SIMTRB", 8);
    p += 8;
    uint32_t v32[2] = {1, 0};
    for (int i = 0; i < 2; i++, p += 4)
        for (int b = 0; b < 4; b++)
            p[b] = (unsigned char)(v32[i] >> (8 * b));
    for (int b = 0; b < 8; b++)
        p[b] = (unsigned char)((uint64_t)n >> (8 * b));
    p += 8;
    uint32_t v[5] = {65536, 0, 0, 0, 1};
    for (int i = 0; i < 5; i++, p += 4)
        for (int b = 0; b < 4; b++)
            p[b] = (unsigned char)(v[i] >> (8 * b));
    *p++ = 1;
    *p++ = 'k';
    uint32_t crc = (uint32_t)crc32(0, h, (uInt)(p - h));
    for (int b = 0; b < 4; b++)
        p[b] = (unsigned char)(crc >> (8 * b));
    p += 4;
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(h, 1, (size_t)(p - h), f), (size_t)(p - h));
    unsigned char r[16 * 8];
    ck_assert_uint_le(n, 8);
    for (unsigned i = 0; i < 2 * n; i++)
        for (int b = 0; b < 8; b++)
            r[8 * i + b] = (unsigned char)(rec[i] >> (8 * b));
    crc = (uint32_t)crc32(crc, r, 16 * n);
    unsigned char c[4];
    for (int b = 0; b < 4; b++)
        c[b] = (unsigned char)(crc >> (8 * b));
    ck_assert_uint_eq(fwrite(r, 1, 16 * n, f), 16 * n);
    ck_assert_uint_eq(fwrite(c, 1, 4, f), 4);
    fclose(f);
}

/* Reads a binary file to its end: the last result, and the last access. */
static int read_bin(const char *path, struct l2_event *last, l2_err *e)
{
    struct l2_event *v;
    size_t n;
    int r = tests_read_events(path, &v, &n, e);
    while (n > 0 && v[n - 1].type != EV_ACCESS)
        n--;
    if (n > 0)
        *last = v[n - 1];
    free(v);
    return r;
}

START_TEST(binary_cycle_errors)
{
    char path[64];
    tests_write_temp(path, sizeof path, "");
    struct l2_event ev;
    l2_err e;
    const uint64_t access = 0 | (511u << 4) | (8ull << 16) | (4ull << 32); /* R 512 global sm=3 */
    /* a kernel, a cycle record, an access */
    uint64_t ok[] = {13, 0, 5, 77, access, 0x1000};
    write_bin(path, ok, 3);
    ck_assert_msg(read_bin(path, &ev, &e) == 0, "%s", e.msg);
    ck_assert(l2_event_has_cycle(&ev));
    ck_assert_uint_eq(l2_event_cycle(&ev), 77);
    ck_assert_uint_eq(ev.pos, 3);
    ck_assert_int_eq(ev.sm, 3);
    /* a cycle record before a kernel record */
    uint64_t bad1[] = {5, 77, 13, 0, access, 0x1000};
    write_bin(path, bad1, 3);
    ck_assert_int_eq(read_bin(path, &ev, &e), -1);
    ASSERT_CONTAINS(e.msg, ":record 1: a cycle record is not followed by an access");
    /* two in a row */
    uint64_t bad2[] = {5, 1, 5, 2, access, 0x1000};
    write_bin(path, bad2, 3);
    ck_assert_int_eq(read_bin(path, &ev, &e), -1);
    ASSERT_CONTAINS(e.msg, ":record 2: two cycle records in a row");
    /* at the end of the file */
    uint64_t bad3[] = {access, 0x1000, 5, 1};
    write_bin(path, bad3, 2);
    ck_assert_int_eq(read_bin(path, &ev, &e), -1);
    ASSERT_CONTAINS(e.msg, ":record 2: a cycle record is not followed by an access");
    /* reserved bits, too large */
    uint64_t bad4[] = {5 | 16, 1, access, 0x1000};
    write_bin(path, bad4, 2);
    ck_assert_int_eq(read_bin(path, &ev, &e), -1);
    ASSERT_CONTAINS(e.msg, "reserved bits");
    uint64_t bad5[] = {5, UINT64_C(1) << 62, access, 0x1000};
    write_bin(path, bad5, 2);
    ck_assert_int_eq(read_bin(path, &ev, &e), -1);
    ASSERT_CONTAINS(e.msg, "too large");
    unlink(path);
}
END_TEST

/* ---- reports ---- */

/* Like ASSERT_CONTAINS, naming only the needle (reports are long). */
#define HAS(hay, needle) ck_assert_msg(strstr((hay), (needle)) != NULL, "missing \"%s\"", (needle))

static char *report(const struct l2_sim *s, int kind, int histogram)
{
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    struct l2_run_info ri = {.trace = "t", .records = s->records, .histogram = histogram};
    if (kind == 0)
        l2_report_table(f, s, &ri, NULL);
    else if (kind == 1)
        l2_report_json(f, s, &ri, NULL);
    else
        l2_report_csv(f, s, 1, NULL, NULL);
    char *txt = tests_slurp(f);
    fclose(f);
    return txt;
}

START_TEST(report_fields)
{
    struct tests_run r;
    const char *const more[] = {"launch_ns=1000", NULL};
    char tr[4096] = "kernel k\n";
    tiny_start(&r, more);
    add_reads(tr, sizeof tr, 0x10000, 8, 0, 0);
    strcat(tr, "kernel hot\n");
    add_reads(tr, sizeof tr, 0x10000, 8, 0, 0);
    strcat(tr, "R 0x10000 128 evict_last sm=0 @0\n");
    tests_run_ok(&r, tr);

    char *t = report(&r.sim, 0, 0);
    HAS(t, "lat-cyc");
    HAS(t, "est-ns");
    HAS(t, "1132.0\n"); /* kernel k: 1000 + 132 */
    HAS(t, "2142.0\n"); /* totals: 1132 + 1010 */
    ck_assert(strstr(t, "sectors by latency") == NULL);
    free(t);

    t = report(&r.sim, 0, 1);
    HAS(t, "latency, all priorities: sectors by latency (cycles)");
    char row[128];
    snprintf(row, sizeof row, "    %-13s %11s %11s %11s\n", "cycles", "near_hit", "far_hit", "miss");
    HAS(t, row);
    snprintf(row, sizeof row, "    %-13s %11d %11d %11d  %s\n", "0-127", 0, 0, 32,
             "########################################");
    HAS(t, row);
    snprintf(row, sizeof row, "    %-13s %11.2f %11.2f %11.2f\n", "share %", 0.0, 0.0, 100.0);
    HAS(t, row);
    HAS(t, "latency, prio evict_last");
    free(t);

    t = report(&r.sim, 1, 0);
    HAS(t, "\"latency_buckets\": [0, 128, 192, 256,");
    HAS(t, "\"est_ns\": 1132.0,");
    HAS(t, "\"est_ns\": 2142.0,");
    HAS(t, "\"mean_latency_cycles\": {\"near_hit\": null, \"far_hit\": null, \"miss\": 116.0}");
    HAS(t, "\"merged_sectors\": 0");
    HAS(t, "\"miss\": [32, 0, 0,");
    HAS(t, "\"by_priority\": {\n");
    HAS(t, "\"evict_last\": {\"near_hit\": [4, 0,");
    HAS(t, "\"bound_ns\": {\"l2_slices\": 0.0, \"crossing\": 0.0, \"dram\": 32.0, \"mshr\": 12.5, ");
    HAS(t, "\"clock_mhz\": 1000,");
    free(t);

    t = report(&r.sim, 2, 0);
    HAS(t, ",unspecified_accesses,merged_sectors,hit_rate,near_hit_rate,read_hit_rate,est_ns,dram_share\n");
    HAS(t, ",1132.0,1.000000\n");
    free(t);
    tests_run_end(&r);
}
END_TEST

Suite *timing_suite(void)
{
    Suite *s = suite_create("timing");
    TCase *tc = tcase_create("model");
    tcase_add_test(tc, buckets);
    tcase_add_test(tc, dram_queue_saturated);
    tcase_add_test(tc, partial_reads_slower);
    tcase_add_test(tc, slice_cost_per_request);
    tcase_add_test(tc, merged_misses);
    tcase_add_test(tc, mshr_bound);
    tcase_add_test(tc, far_hit_costs_more);
    tcase_add_test(tc, crossing_saturated);
    tcase_add_test(tc, inflight_per_sm);
    tcase_add_test(tc, estimate_units);
    tcase_add_test(tc, stores_and_writebacks);
    tcase_add_test(tc, setaside_slows_writebacks);
    tcase_add_test(tc, buckets_coarsen);
    tcase_add_test(tc, lanes_merge_exactly);
    tcase_add_test(tc, deterministic);
    suite_add_tcase(s, tc);
    TCase *tt = tcase_create("traces");
    tcase_add_test(tt, text_cycle_field);
    tcase_add_test(tt, binary_cycle_records);
    tcase_add_test(tt, binary_cycle_errors);
    suite_add_tcase(s, tt);
    TCase *tr = tcase_create("reports");
    tcase_add_test(tr, report_fields);
    suite_add_tcase(s, tr);
    return s;
}

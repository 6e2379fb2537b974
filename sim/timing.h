/*
 * timing.h - the timing model: turns the accesses of each kernel into an
 * estimated duration and latency histograms.  It reads the outcome of
 * every line from the L2 (near hit, far hit, miss, DRAM bytes) and never
 * changes it: hit rates do not depend on timing.
 *
 * Notes (modelling assumptions; see README "Timing model"):
 *  - Two halves.  Per line (the hot path) only sums are kept: the work it
 *    brings to each resource, its sectors by outcome, its base latency,
 *    filed under the kernel's time buckets.  Per kernel (when a report
 *    asks, l2_ktime_eval) these sums become time: queues, the busiest
 *    resource, the latency tail, the histograms.  Every per-line quantity
 *    depends only on the line and on what every lane of a --threads run
 *    sees alike (the access stream, not other lines' outcomes), so lanes
 *    merge exactly (l2_ktime_merge) and a run gives the same report with
 *    any number of threads.
 *  - Time is counted in SM clock cycles (clock_mhz).  A kernel's estimate
 *    is launch_ns plus its span, and depends on its own accesses and the
 *    cache contents it finds only: kernels that run concurrently
 *    (replay.h) are each timed as if alone.
 *  - Resources and the work a line brings them: L2 slices (bytes;
 *    l2_slices slices, slice_bytes_per_clk each; every sector of a load
 *    passes the near slice, sectors served from another partition also
 *    their home slice; stores, applypriority and discard the home slice;
 *    each slice a line passes also takes slice_req_bytes for the request
 *    itself: measured, random one-sector reads that hit cost the H100's
 *    slices 1.7 times as much per sector as a stream's 128-byte reads, rows
 *    G01-G03, H133-H140),
 *    the partition crossing (bytes; one link into each partition,
 *    xbar_bytes_per_clk), DRAM (bytes: dram_atom granules read, and the
 *    write-backs of victims and of lines a reprieve kept, l2_path.h,
 *    rounded up to granules; dram_channels sharing
 *    dram_gbps x dram_efficiency_pct; a line's read of less than a line
 *    goes at dram_partial_efficiency_pct instead), MSHRs (line misses; mshr_per_slice
 *    per slice, each held lat_dram cycles), SM request ports (bytes,
 *    sm_bytes_per_clk) and SM request slots (the line's latency times
 *    the share of a line's sectors it asks for, accesses without @CYCLE
 *    only; sm_inflight lines in flight per SM: Little's law; scaled by the
 *    kernel's resident warps per SM over sm_warps when its kernel line
 *    gives grid and block, l2_kernel_warps; measured, gathers of
 *    one-sector pieces on 33 to 132 blocks took 1.4 to 2.8 times less
 *    time than one slot a line gives, rows H137, H153, H155, H156, H158).  A line's slice
 *    and DRAM channel follow from its set and partition.  A resource of n
 *    servers needing work W takes W x (time per unit) / n x imbalance,
 *    the imbalance being the busiest server's share over the mean share
 *    in the kernel.  With fewer than wb_room_ways ways outside the
 *    set-aside when the kernel starts, DRAM takes 1 + wb_slow_per_way x
 *    (the ways short) times as long, in proportion to the write-backs'
 *    share of its work up to a quarter (measured: c = a + b over 20 MiB
 *    arrays takes 2.3 times as long at the H100's largest set-aside as at
 *    none, stores 2.6-3.1 times, loads alike; rows H91-H108, H109-H120).
 *  - Base latencies: near hit lat_near_hit, far hit lat_far_hit, miss
 *    lat_dram (+ lat_far_hit - lat_near_hit when the home partition is the
 *    far one).  A line's latency is that of its slowest sector.
 *  - Misses in flight: a load that finds its line's fill still in flight
 *    waits for the rest of it (a merged miss: the cache model counts its
 *    sectors as hits, the timing as misses with the remaining latency),
 *    and a sector miss of a line in flight joins its fill without taking
 *    another MSHR.  The last fill of every (partition, set) is remembered;
 *    "in flight" means issued less than lat_dram cycles before (@CYCLE),
 *    or less than sm_inflight x the SMs seen so far lines before in the
 *    kernel's order (without @CYCLE: the lines issued meanwhile).
 *  - Accesses without @CYCLE issue as fast as the GPU lets them: their
 *    lines fill L2_OBUCKETS buckets in trace order; each bucket takes as
 *    long as its busiest bandwidth resource, or its latency-bound
 *    resource (slots, MSHRs); the kernel takes the longer of the latency
 *    bound (slots, MSHRs) over all buckets and the bandwidth bound over
 *    all buckets plus the tail (the longest line latency of the last
 *    bucket).  Queueing: a bandwidth-bound bucket keeps every slot full,
 *    so by Little's law its lines take (bucket time / slot time) x their
 *    mean base latency; the excess is charged to the sectors that use the
 *    busiest resource.
 *  - Accesses with @CYCLE issue at that cycle after the kernel's start:
 *    their lines fill L2_CBUCKETS buckets of cycles (doubling in width as
 *    needed); every resource is a fluid queue that drains between bucket
 *    arrivals, and a bucket's work arrives at its last issue; a bucket
 *    completes at that issue plus the longest bandwidth backlog plus its
 *    tail, or plus the MSHR backlog (which holds the latency), whichever
 *    is later.  Its sectors wait, on average, the backlog they find on
 *    their path (beyond the MSHRs' holding time).  A kernel with both
 *    kinds takes the longer of the two estimates.
 *  - Histograms count sectors of loads, stores and prefetches by class
 *    (near hit, far hit, miss; merged misses are misses; stores are near
 *    or far by the partition they write) and by latency, in fixed buckets
 *    (l2_hist_lower).
 *
 * Every table is allocated at l2_timing_init or when a kernel starts (the
 * @CYCLE buckets at its first @CYCLE); the per-access path does arithmetic
 * and array indexing only.
 * Library code: never prints.
 */
#ifndef L2SIM_TIMING_H
#define L2SIM_TIMING_H

/* DRAM work is counted in 1/L2_DRAM_W bytes, so that a read of less than a
 * line can weigh dram_efficiency_pct / dram_partial_efficiency_pct times a
 * byte of a whole line. */
#define L2_DRAM_W 16u

#include <stdint.h>

#include "common.h"
#include "config.h"
#include "l2.h"

/* How a sector was served. */
#define L2_LAT_LIST(X) X(LAT_NEAR, "near_hit") X(LAT_FAR, "far_hit") X(LAT_MISS, "miss")
enum l2_lat_class { L2_LAT_LIST(L2_X_ENUM) L2_NLAT };
extern const char *const l2_lat_names[L2_NLAT];

/* Resources, with the unit of their work. */
#define L2_RES_LIST(X)                                                                            \
    X(RES_SLICE, "l2_slices") /* bytes */                                                         \
    X(RES_XBAR, "crossing")   /* bytes */                                                         \
    X(RES_DRAM, "dram")       /* bytes x L2_DRAM_W (partial reads weigh more) */                                                         \
    X(RES_MSHR, "mshr")       /* line misses */                                                   \
    X(RES_PORT, "sm_port")    /* bytes */                                                         \
    X(RES_SLOT, "sm_inflight") /* latency cycles x sectors */
enum l2_res { L2_RES_LIST(L2_X_ENUM) L2_NRES };
extern const char *const l2_res_names[L2_NRES];

/* Latency buckets (cycles): bucket 0 is [0, 128), then two per octave
 * ([128, 192), [192, 256), [256, 384), ...), the last [16384, inf). */
#define L2_HIST_BUCKETS 16
extern const uint32_t l2_hist_lower[L2_HIST_BUCKETS];

static inline unsigned l2_hist_bucket(uint64_t cycles)
{
    if (cycles < 128)
        return 0;
    unsigned k = 63u - (unsigned)__builtin_clzll(cycles); /* >= 7 */
    unsigned b = 1 + 2 * (k - 7) + (unsigned)((cycles >> (k - 1)) & 1);
    return b < L2_HIST_BUCKETS ? b : L2_HIST_BUCKETS - 1;
}

/* Sector classes as kept: misses by where their home is. */
enum { L2_SC_NEAR, L2_SC_FAR, L2_SC_MISS, L2_SC_MISS_FAR, L2_NSC };

/* Sums of the lines of one time bucket. */
struct l2_tbucket {
    uint64_t work[L2_NRES];
    uint64_t lines;
    uint64_t slot_sec;              /* sectors of the lines in work[RES_SLOT] (its latencies x sectors) */
    uint64_t sec[L2_NPRIO][L2_NSC]; /* sectors, not merged */
    uint64_t msec[L2_NPRIO];        /* merged sectors ... */
    uint64_t mlat[L2_NPRIO];        /* ... and the sum of their latencies (cycles x sectors) */
    uint64_t last;                  /* @CYCLE buckets: 1 + the latest issue cycle; 0: unused */
    uint64_t max_lat;               /* the longest base latency of a line */
};

#define L2_OBUCKETS 16 /* buckets of lines in trace order (no @CYCLE) */
#define L2_CBUCKETS 32 /* buckets of issue cycles (@CYCLE) */

/* What the timing model keeps of one kernel.  The buckets' sums and
 * `serv` add over lanes; `pos`, the shifts, `last` and
 * `max_lat` are the same in every lane or merge by their maximum. */
struct l2_ktime {
    uint64_t pos;       /* lines issued without @CYCLE (the trace-order clock) */
    uint32_t oshift;    /* a line bucket holds 2^oshift lines */
    uint32_t cshift;    /* a cycle bucket holds 2^cshift cycles */
    uint32_t nserv;     /* entries of serv (l2_timing.nserv) */
    uint64_t *serv;     /* work of each server (layout: l2_timing) */
    uint64_t *slice, *xbar, *dram, *mshr; /* where each resource's servers start in serv */
    struct l2_tbucket ob[L2_OBUCKETS];
    struct l2_tbucket *cb; /* L2_CBUCKETS, or NULL before the kernel's first @CYCLE */
    uint32_t kernel;       /* 1 + the kernel's index */
    uint32_t nseen;        /* SMs that issued in the kernel so far */
    uint32_t warps;        /* resident warps per SM its grid and block give (l2_kernel_warps); 0: not given */
    uint32_t room;         /* ways outside the set-aside when it started (l2.room); 0: not known */
    uint64_t dram_wr;      /* DRAM work of its write-backs (part of the dram servers' work) */
    uint64_t *sm_seen;     /* their bitmap (the same in every lane) */
};

/* What a kernel's sums come to (l2_ktime_eval). */
struct l2_keval {
    double cycles; /* span: the kernel's start to its last completion */
    double est_ns; /* launch_ns + cycles */
    double bound_ns[L2_NRES]; /* time each resource alone needs */
    uint64_t hist[L2_NPRIO][L2_NLAT][L2_HIST_BUCKETS]; /* sectors */
    uint64_t sectors[L2_NPRIO][L2_NLAT];
    double lat_sum[L2_NPRIO][L2_NLAT]; /* cycles x sectors */
};

void l2_ktime_free(struct l2_ktime *k);
/* Adds lane b of a kernel into a (see l2_sim_set_lane): merged over every
 * lane, the sums are those of one simulator.  Returns 0, or -1 when out
 * of memory (a then lacks b's @CYCLE buckets). */
int l2_ktime_merge(struct l2_ktime *a, const struct l2_ktime *b);
/* Turns a kernel's sums into time, latency histograms and bounds. */
void l2_ktime_eval(const struct l2_config *cfg, const struct l2_ktime *k, struct l2_keval *out);
/* Adds b's estimate, histograms and bounds into a (totals over kernels). */
void l2_keval_add(struct l2_keval *a, const struct l2_keval *b);

/* The last fill of a (partition, set), and where the set's lines go. */
struct l2_pending {
    uint64_t line;
    uint64_t at;   /* issue: cycle (@CYCLE) or line position */
    uint64_t key;  /* (1 + the kernel's index) << 1 | 1 when `at` is a cycle; 0: none */
    uint32_t hs;   /* the set's slice in this partition (its index among all slices) */
    uint16_t slot; /* the set's slice within a partition (l2_slices <= 4096) */
    uint16_t ch;   /* the DRAM channel of the partition's set (dram_channels <= 4096) */
};

/* The per-line half of the model: geometry and the last fills; what
 * belongs to a kernel is in its l2_ktime, so that kernels may interleave. */
struct l2_timing {
    unsigned nparts, spp, nch;
    uint32_t nsm;          /* sms + 1: the last one issues accesses without sm= */
    uint32_t sets;         /* per partition */
    unsigned sector_shift;
    uint32_t atom;         /* DRAM granule, bytes (a power of two) */
    uint32_t line_bytes;   /* line size: a DRAM read of fewer bytes is partial */
    uint32_t partial_w;    /* DRAM work per byte of a partial read, in 1/L2_DRAM_W of a byte */
    uint32_t req;          /* slice_req_bytes */
    uint32_t spl;          /* sectors per line */
    uint32_t lat[L2_NSC];  /* base latency of each class, cycles */
    uint32_t win;          /* sm_inflight */
    uint32_t off[L2_NRES]; /* where each resource's servers start in l2_ktime.serv */
    uint32_t nserv;
    struct l2_pending *pend; /* nparts x sets */
};

int l2_timing_init(struct l2_timing *t, const struct l2_config *cfg, l2_err *e);
void l2_timing_free(struct l2_timing *t);
/* Starts kernel `index` (0-based): allocates kt's tables.  Accesses of
 * several kernels may then interleave, each filed with its own kt. */
int l2_timing_kernel(struct l2_timing *t, struct l2_ktime *kt, uint32_t index, l2_err *e);
/* The warps a kernel of grid x block (a kernel line's grid= and block=;
 * 0 when not given) keeps resident on each SM it runs on: its blocks
 * spread over the SMs, ceil(blocks / sms) per SM, at most sm_warps
 * warps. */
uint32_t l2_kernel_warps(const struct l2_config *cfg, const uint32_t grid[3], const uint32_t block[3]);

/* The last fill of a line's set in its home partition (l2_timing_line's
 * pe), which the CPU is told to fetch. */
static inline struct l2_pending *l2_timing_pending(const struct l2_timing *t, unsigned home, uint32_t set)
{
    struct l2_pending *pe = &t->pend[(uint64_t)home * t->sets + set];
    __builtin_prefetch(pe);
    return pe;
}

/* The timing of one access: which bucket its lines go to. */
struct l2_tacc {
    struct l2_tbucket *b;
    uint64_t at;  /* its cycle, or the position of its first line */
    uint64_t key; /* of the fills it issues (l2_pending) */
    uint32_t sm;  /* issuer */
    int cycle;    /* 1: issued at @CYCLE `at` */
};

/* Files an access of `nlines` lines by SM `sm` (-1: none), `at1` = 1 +
 * its @CYCLE or 0.  Returns -1 only when the kernel's first @CYCLE finds
 * no memory for its buckets. */
int l2_timing_access(struct l2_timing *t, struct l2_ktime *kt, int sm, unsigned nlines, uint64_t at1,
                     struct l2_tacc *a, l2_err *e);

/* Sums of an access's lines that go to its bucket and its issuer's
 * servers once (l2_timing_done); zeroed by the caller. */
struct l2_tsum {
    uint64_t slice, xbar, dram, dram_wr, mshr, slot;
    uint32_t lines, max_lat;
};

/* One line of the access, after the L2 served it with outcome `o`
 * (sectors `mask`); pe: its set's entry (l2_timing_pending).  Returns the
 * sectors that were hits on a fill in flight (merged misses). */
unsigned l2_timing_line(struct l2_timing *t, struct l2_ktime *kt, const struct l2_tacc *a, struct l2_tsum *ts,
                        enum l2_op op, enum l2_prio prio, uint64_t line, unsigned home, unsigned near,
                        struct l2_pending *pe, uint8_t mask, const struct l2_outcome *o);

/* Files the sums of the access's lines (after its last l2_timing_line);
 * op: the access's; `sectors`: the sectors of its lines other than
 * applypriority's and discard's, which pass the issuer's port (the caller
 * counts them anyway, so the lines need not sum them again); near: the
 * issuer's near partition (any, without an issuer: a load's crossing is
 * then 0).  A load's lines cross into the near partition, so its crossing
 * is filed there once; the slices' work is what the lines added to their
 * servers (ts->slice). */
static inline void l2_timing_done(const struct l2_timing *t, struct l2_ktime *kt, const struct l2_tacc *a,
                                  const struct l2_tsum *ts, enum l2_op op, uint64_t sectors, unsigned near)
{
    struct l2_tbucket *b = a->b;
    const uint64_t port = sectors << t->sector_shift;
    const uint64_t slot = a->cycle ? 0 : ts->slot; /* slots limit the issue of accesses without @CYCLE only */
    if (!a->cycle) /* the slots' sectors: the lines' sectors, or whole lines for tag operations */
        b->slot_sec += op == OP_READ || op == OP_PREFETCH || op == OP_WRITE ? sectors : (uint64_t)ts->lines * t->spl;
    if (op == OP_READ || op == OP_PREFETCH)
        kt->xbar[near] += ts->xbar;
    b->work[RES_SLICE] += ts->slice;
    b->work[RES_XBAR] += ts->xbar;
    b->work[RES_DRAM] += ts->dram;
    kt->dram_wr += ts->dram_wr;
    b->work[RES_MSHR] += ts->mshr;
    b->work[RES_PORT] += port;
    b->work[RES_SLOT] += slot;
    kt->serv[t->off[RES_PORT] + a->sm] += port;
    kt->serv[t->off[RES_SLOT] + a->sm] += slot;
    b->lines += ts->lines;
    if (ts->max_lat > b->max_lat)
        b->max_lat = ts->max_lat;
}

#endif

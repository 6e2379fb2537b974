/*
 * timing.c - the per-line sums of the timing model and their evaluation
 * per kernel: bounds of every resource, queues, the latency tail,
 * histograms.  See timing.h for the model.
 */
#include "timing.h"
#include "trace.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const l2_lat_names[L2_NLAT] = {L2_LAT_LIST(L2_X_NAME)};
const char *const l2_res_names[L2_NRES] = {L2_RES_LIST(L2_X_NAME)};

const uint32_t l2_hist_lower[L2_HIST_BUCKETS] = {0,    128,  192,  256,  384,  512,   768,   1024,
                                                 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384};

/* The class a kept sector class is reported under. */
static const uint8_t sc_class[L2_NSC] = {LAT_NEAR, LAT_FAR, LAT_MISS, LAT_MISS};

/* Resources whose time already holds the requests' latency. */
static inline int latency_bound(unsigned r)
{
    return r == RES_MSHR || r == RES_SLOT;
}

static uint32_t cycles_of(double c)
{
    return c < 0 ? 0 : c > 2e9 ? 2000000000u : (uint32_t)(c + 0.5);
}

/* Base latency of each sector class, cycles. */
static void base_latencies(const struct l2_config *cfg, uint32_t lat[L2_NSC])
{
    lat[L2_SC_NEAR] = cycles_of(cfg->lat_near_hit);
    lat[L2_SC_FAR] = cycles_of(cfg->lat_far_hit);
    lat[L2_SC_MISS] = cycles_of(cfg->lat_dram);
    lat[L2_SC_MISS_FAR] = cycles_of(cfg->lat_dram + cfg->lat_far_hit - cfg->lat_near_hit);
}

/* Servers of every resource and where they start in l2_ktime.serv. */
struct geometry {
    unsigned nparts, spp, slices, nch;
    uint32_t nsm;
    uint32_t n[L2_NRES], off[L2_NRES], total;
};

static void geometry(const struct l2_config *cfg, struct geometry *g)
{
    g->nparts = (unsigned)cfg->partitions;
    g->spp = (unsigned)(cfg->l2_slices / cfg->partitions); /* the same number in every partition */
    if (g->spp == 0)
        g->spp = 1;
    g->slices = g->spp * g->nparts;
    g->nch = (unsigned)cfg->dram_channels;
    g->nsm = (uint32_t)cfg->sms + 1;
    g->n[RES_SLICE] = g->slices;
    g->n[RES_XBAR] = g->nparts;
    g->n[RES_DRAM] = g->nch;
    g->n[RES_MSHR] = g->slices;
    g->n[RES_PORT] = g->nsm;
    g->n[RES_SLOT] = g->nsm;
    g->total = 0;
    for (unsigned r = 0; r < L2_NRES; r++) {
        g->off[r] = g->total;
        g->total += g->n[r];
    }
}

int l2_timing_init(struct l2_timing *t, const struct l2_config *cfg, l2_err *e)
{
    struct geometry g;
    memset(t, 0, sizeof *t);
    geometry(cfg, &g);
    t->nparts = g.nparts;
    t->spp = g.spp;
    t->nch = g.nch;
    t->nsm = g.nsm;
    t->sets = l2_config_sets(cfg);
    t->sector_shift = l2_log2_ceil(cfg->sector_size);
    t->atom = (uint32_t)l2_config_granule(cfg);
    t->line_bytes = (uint32_t)cfg->line_size;
    t->partial_w = (uint32_t)(L2_DRAM_W * cfg->dram_efficiency_pct / cfg->dram_partial_efficiency_pct + 0.5);
    t->req = (uint32_t)cfg->slice_req_bytes;
    t->spl = (uint32_t)(cfg->line_size / cfg->sector_size);
    base_latencies(cfg, t->lat);
    t->win = (uint32_t)cfg->sm_inflight;
    memcpy(t->off, g.off, sizeof t->off);
    t->nserv = g.total;
    t->pend = calloc((size_t)t->nparts * t->sets, sizeof *t->pend);
    if (!t->pend) {
        l2_timing_free(t);
        return l2_fail(e, "out of memory");
    }
    /* a set's slice in its partition, and its DRAM channel (kept rather
     * than computed per line) */
    for (uint32_t p = 0; p < t->nparts; p++)
        for (uint32_t set = 0; set < t->sets; set++) {
            struct l2_pending *pe = &t->pend[(uint64_t)p * t->sets + set];
            pe->slot = (uint16_t)(set % t->spp);
            pe->hs = p * t->spp + pe->slot;
            pe->ch = (uint16_t)((set * t->nparts + p) % t->nch);
        }
    return 0;
}

void l2_timing_free(struct l2_timing *t)
{
    free(t->pend);
    memset(t, 0, sizeof *t);
}

int l2_timing_kernel(struct l2_timing *t, struct l2_ktime *kt, uint32_t index, l2_err *e)
{
    memset(kt, 0, sizeof *kt);
    kt->serv = calloc(t->nserv, sizeof *kt->serv);
    kt->sm_seen = calloc((t->nsm + 63) / 64, sizeof *kt->sm_seen);
    if (!kt->serv || !kt->sm_seen) {
        l2_ktime_free(kt);
        return l2_fail(e, "out of memory");
    }
    kt->slice = kt->serv + t->off[RES_SLICE];
    kt->xbar = kt->serv + t->off[RES_XBAR];
    kt->dram = kt->serv + t->off[RES_DRAM];
    kt->mshr = kt->serv + t->off[RES_MSHR];
    kt->nserv = t->nserv;
    kt->kernel = index + 1;
    return 0;
}

uint32_t l2_kernel_warps(const struct l2_config *cfg, const uint32_t grid[3], const uint32_t block[3])
{
    uint64_t blocks = l2_dims_count(grid), threads = l2_dims_count(block);
    if (!blocks || !threads)
        return 0;
    uint64_t per_sm = (blocks + cfg->sms - 1) / cfg->sms, warps = per_sm * ((threads + 31) / 32);
    return (uint32_t)(warps < cfg->sm_warps ? warps : cfg->sm_warps);
}

/* ---- buckets ---- */

static void bucket_add(struct l2_tbucket *a, const struct l2_tbucket *b)
{
    for (unsigned r = 0; r < L2_NRES; r++)
        a->work[r] += b->work[r];
    a->lines += b->lines;
    a->slot_sec += b->slot_sec;
    for (unsigned p = 0; p < L2_NPRIO; p++) {
        for (unsigned c = 0; c < L2_NSC; c++)
            a->sec[p][c] += b->sec[p][c];
        a->msec[p] += b->msec[p];
        a->mlat[p] += b->mlat[p];
    }
    if (b->last > a->last)
        a->last = b->last;
    if (b->max_lat > a->max_lat)
        a->max_lat = b->max_lat;
}

/* Halves the resolution: bucket i takes buckets 2i and 2i + 1.  Not
 * inlined: the access path runs it rarely. */
static __attribute__((noinline)) void coarsen(struct l2_tbucket *v, unsigned n, uint32_t *shift)
{
    for (unsigned i = 0; i < n / 2; i++) {
        struct l2_tbucket x = v[2 * i];
        bucket_add(&x, &v[2 * i + 1]);
        v[i] = x;
    }
    memset(v + n / 2, 0, (n - n / 2) * sizeof *v);
    (*shift)++;
}

void l2_ktime_free(struct l2_ktime *k)
{
    free(k->serv);
    free(k->cb);
    free(k->sm_seen);
    k->serv = k->slice = k->xbar = k->dram = k->mshr = NULL;
    k->cb = NULL;
    k->sm_seen = NULL;
}

/* Adds n buckets of b (at 2^bs units each) into a (at 2^*as), coarsening
 * whichever is finer; tmp holds n buckets. */
static void buckets_merge(struct l2_tbucket *a, uint32_t *as, const struct l2_tbucket *b, uint32_t bs, unsigned n,
                          struct l2_tbucket *tmp)
{
    while (*as < bs)
        coarsen(a, n, as);
    memcpy(tmp, b, n * sizeof *tmp);
    while (bs < *as)
        coarsen(tmp, n, &bs);
    for (unsigned i = 0; i < n; i++)
        bucket_add(&a[i], &tmp[i]);
}

int l2_ktime_merge(struct l2_ktime *a, const struct l2_ktime *b)
{
    struct l2_tbucket tmp[L2_CBUCKETS > L2_OBUCKETS ? L2_CBUCKETS : L2_OBUCKETS];
    if (b->cb && !a->cb) {
        a->cb = calloc(L2_CBUCKETS, sizeof *a->cb);
        if (!a->cb)
            return -1;
    }
    if (b->pos > a->pos)
        a->pos = b->pos;
    if (!a->warps)
        a->warps = b->warps;
    if (!a->room)
        a->room = b->room;
    a->dram_wr += b->dram_wr;
    buckets_merge(a->ob, &a->oshift, b->ob, b->oshift, L2_OBUCKETS, tmp);
    if (b->cb)
        buckets_merge(a->cb, &a->cshift, b->cb, b->cshift, L2_CBUCKETS, tmp);
    for (uint32_t i = 0; i < a->nserv; i++) /* every kernel has its serv; the lanes share a configuration */
        a->serv[i] += b->serv[i];
    return 0;
}

/* ---- the per-line half ---- */

int l2_timing_access(struct l2_timing *t, struct l2_ktime *kt, int sm, unsigned nlines, uint64_t at1,
                     struct l2_tacc *a, l2_err *e)
{
    uint32_t s = sm >= 0 && (uint32_t)sm < t->nsm - 1 ? (uint32_t)sm : t->nsm - 1;
    if (!((kt->sm_seen[s >> 6] >> (s & 63)) & 1)) {
        kt->sm_seen[s >> 6] |= UINT64_C(1) << (s & 63);
        kt->nseen++;
    }
    a->sm = s;
    a->key = (uint64_t)kt->kernel << 1 | (at1 != 0);
    if (at1) {
        uint64_t c = at1 - 1;
        if (!kt->cb) {
            kt->cb = calloc(L2_CBUCKETS, sizeof *kt->cb);
            if (!kt->cb)
                return l2_fail(e, "out of memory");
        }
        while ((c >> kt->cshift) >= L2_CBUCKETS)
            coarsen(kt->cb, L2_CBUCKETS, &kt->cshift);
        a->b = &kt->cb[c >> kt->cshift];
        a->at = c;
        a->cycle = 1;
        if (at1 > a->b->last)
            a->b->last = at1; /* 1 + the cycle: 0 marks an unused bucket */
        return 0;
    }
    while ((kt->pos >> kt->oshift) >= L2_OBUCKETS)
        coarsen(kt->ob, L2_OBUCKETS, &kt->oshift);
    a->b = &kt->ob[kt->pos >> kt->oshift];
    a->at = kt->pos;
    a->cycle = 0;
    kt->pos += nlines;
    return 0;
}

/* Cycles left of the fill in flight recorded in pe, or 0. */
static inline uint32_t in_flight(const struct l2_timing *t, const struct l2_ktime *kt, const struct l2_pending *pe,
                                 uint64_t line, const struct l2_tacc *a, uint32_t lat)
{
    if (pe->key != a->key || pe->line != line)
        return 0;
    if (a->cycle)
        return a->at >= pe->at && a->at - pe->at < lat ? (uint32_t)(pe->at + lat - a->at) : 0;
    /* the lines issued while a fill is in flight: every slot of every SM seen */
    uint64_t window = (uint64_t)t->win * kt->nseen, d = a->at - pe->at;
    return a->at >= pe->at && d < window ? (uint32_t)((lat * (window - d) + window - 1) / window) : 0;
}

/* The DRAM work of rd bytes read and wr written back: a read of less than
 * a line is a scattered burst, served at dram_partial_efficiency_pct
 * (rows G01-G15, Z01-Z12). */
static inline uint32_t dram_work(const struct l2_timing *t, uint32_t rd, uint32_t wr)
{
    return rd * (rd < t->line_bytes ? t->partial_w : L2_DRAM_W) + wr * L2_DRAM_W;
}

unsigned l2_timing_line(struct l2_timing *t, struct l2_ktime *kt, const struct l2_tacc *a, struct l2_tsum *ts,
                        enum l2_op op, enum l2_prio prio, uint64_t line, unsigned home, unsigned near,
                        struct l2_pending *pe, uint8_t mask, const struct l2_outcome *o)
{
    const unsigned ss = t->sector_shift;
    const int cross = near != home;
    const uint32_t slot = pe->slot;
    const uint32_t hs = pe->hs; /* home * t->spp + slot */
    const uint32_t ch = pe->ch;
    struct l2_tbucket *b = a->b;
    /* write-backs travel in DRAM granules */
    const uint32_t wr = (o->dram_wr + t->atom - 1) & ~(t->atom - 1);
    const uint32_t sectors = l2_popcount8(mask);
    const uint32_t bytes = sectors << ss;
    uint32_t lat, merged = 0;

    if (op == OP_READ || op == OP_PREFETCH) {
        uint32_t nnear = l2_popcount8(o->near_hit);
        uint32_t nfar = l2_popcount8(o->hit) - nnear;
        uint32_t nmiss = sectors - nnear - nfar;
        const uint32_t lmiss = t->lat[cross ? L2_SC_MISS_FAR : L2_SC_MISS];
        const uint32_t left = in_flight(t, kt, pe, line, a, lmiss);

        /* every sector passes the near slice (hits, and what a copy fills
         * in); what the far home serves also its slice and the crossing
         * (added without branches: home is a coin flip per line) */
        const uint32_t fb = cross ? (nfar + nmiss) << ss : 0;
        const uint32_t freq = fb ? t->req : 0; /* the home slice's request */
        const uint32_t dw = dram_work(t, o->dram_rd, wr);
        kt->slice[near * t->spp + slot] += bytes + t->req;
        kt->slice[hs] += fb + freq;
        ts->slice += bytes + t->req + fb + freq;
        kt->dram[ch] += dw;
        ts->xbar += fb; /* filed into the near partition's crossing by l2_timing_done */
        ts->dram += dw;
        ts->dram_wr += wr * L2_DRAM_W;
        if (nmiss && !left) { /* a new fill: one MSHR of the home slice */
            kt->mshr[hs]++;
            ts->mshr++;
            pe->line = line;
            pe->at = a->at;
            pe->key = a->key;
        }
        /* hits on a fill in flight wait for the rest of it */
        if (left && nnear && t->lat[L2_SC_NEAR] < left) {
            merged += nnear;
            nnear = 0;
        }
        if (left && nfar && t->lat[L2_SC_FAR] < left) {
            merged += nfar;
            nfar = 0;
        }
        b->sec[prio][L2_SC_NEAR] += nnear;
        b->sec[prio][L2_SC_FAR] += nfar;
        b->sec[prio][cross ? L2_SC_MISS_FAR : L2_SC_MISS] += nmiss;
        lat = nmiss ? lmiss : nfar ? t->lat[L2_SC_FAR] : t->lat[L2_SC_NEAR];
        if (merged) {
            b->msec[prio] += merged;
            b->mlat[prio] += (uint64_t)merged * left;
            if (left > lat)
                lat = left;
        }
    } else if (op == OP_WRITE) {
        /* to the home slice, across if it is the far one; no DRAM read */
        const uint32_t xb = cross ? bytes : 0;
        kt->slice[hs] += bytes + t->req;
        ts->slice += bytes + t->req;
        kt->xbar[home] += xb;
        /* the victim's write-back, or a no_allocate store written through;
         * and the sectors a store writes in part, read first */
        const uint32_t dw = dram_work(t, o->dram_rd, wr);
        kt->dram[ch] += dw;
        ts->xbar += xb;
        ts->dram += dw;
        ts->dram_wr += wr * L2_DRAM_W;
        b->sec[prio][cross ? L2_SC_FAR : L2_SC_NEAR] += sectors;
        lat = t->lat[cross ? L2_SC_FAR : L2_SC_NEAR];
    } else {
        /* applypriority, discard: a tag operation at home */
        uint32_t one = 1u << ss;
        kt->slice[hs] += one + t->req;
        ts->slice += one + t->req;
        lat = t->lat[cross ? L2_SC_FAR : L2_SC_NEAR];
    }
    /* the issuer's port and slots, like the bucket's work, are filed by
     * l2_timing_done; the slots only for accesses without @CYCLE, and the
     * port's bytes come from the caller's count of sectors.  A line holds
     * the slots in proportion to the sectors it asks for (a tag operation:
     * a whole line): a warp instruction of sector-sized pieces keeps more
     * lines in flight than one of whole lines (rows H137, H153-H158) */
    ts->slot += (uint64_t)lat * (op == OP_APPLY || op == OP_DISCARD ? t->spl : sectors);
    ts->lines++;
    if (lat > ts->max_lat)
        ts->max_lat = lat;
    return merged;
}

/* ---- the per-kernel half ---- */

/* How many times as long DRAM takes for a kernel that writes back while
 * few ways lie outside the set-aside (wb_room_ways, wb_slow_per_way);
 * work: the kernel's DRAM work, its write-backs' included. */
static double wb_slowdown(const struct l2_config *cfg, const struct l2_ktime *k, uint64_t work)
{
    if (!k->room || k->room >= cfg->wb_room_ways || !k->dram_wr)
        return 1;
    const double share = 4.0 * (double)k->dram_wr / (double)work;
    return 1 + cfg->wb_slow_per_way * (cfg->wb_room_ways - k->room) * (share < 1 ? share : 1);
}

/* Cycles per unit of work of each resource in all, its imbalance included. */
static void unit_cycles(const struct l2_config *cfg, const struct geometry *g, const struct l2_ktime *k,
                        double kr[L2_NRES])
{
    /* a kernel with fewer resident warps per SM keeps fewer lines in flight */
    double occ = k->warps ? (double)k->warps / cfg->sm_warps : 1.0;
    double clk = cfg->clock_mhz / 1000.0; /* GHz: cycles per ns */
    double per[L2_NRES];
    per[RES_SLICE] = 1.0 / cfg->slice_bytes_per_clk;
    per[RES_XBAR] = 1.0 / cfg->xbar_bytes_per_clk;
    per[RES_DRAM] = g->nch / (cfg->dram_gbps * cfg->dram_efficiency_pct / 100.0 / clk) / L2_DRAM_W;
    per[RES_MSHR] = cfg->lat_dram / (double)cfg->mshr_per_slice;
    per[RES_PORT] = 1.0 / cfg->sm_bytes_per_clk;
    per[RES_SLOT] = 1.0 / ((double)cfg->sm_inflight * (double)(cfg->line_size / cfg->sector_size) * occ);
    for (unsigned r = 0; r < L2_NRES; r++) {
        uint64_t sum = 0, top = 0;
        for (uint32_t i = 0; i < g->n[r]; i++) {
            uint64_t v = k->serv[g->off[r] + i];
            sum += v;
            top = v > top ? v : top;
        }
        double f = sum ? (double)top * g->n[r] / (double)sum : 1;
        if (r == RES_DRAM)
            per[r] *= wb_slowdown(cfg, k, sum);
        kr[r] = per[r] * f / g->n[r];
    }
}

static inline double maxd(double a, double b)
{
    return a > b ? a : b;
}

/* The mean of max(0, x - off) for x spread evenly over [lo, hi]: the
 * wait of a batch that finds a backlog growing from lo to hi, at a
 * resource whose backlog holds `off` cycles that are not a wait (the
 * MSHRs' own holding time). */
static double mean_excess(double lo, double hi, double off)
{
    if (hi <= off)
        return 0;
    if (lo >= off || hi <= lo)
        return (lo + hi) / 2 - off > 0 ? (lo + hi) / 2 - off : 0;
    return (hi - off) * (hi - off) / 2 / (hi - lo);
}

/* Sectors of the classes in `mask` (bits of L2_SC_*), all priorities. */
static uint64_t sectors_of(const struct l2_tbucket *b, unsigned mask)
{
    uint64_t n = 0;
    for (unsigned p = 0; p < L2_NPRIO; p++)
        for (unsigned c = 0; c < L2_NSC; c++)
            if (mask & (1u << c))
                n += b->sec[p][c];
    return n;
}

/* The sector classes that wait at a resource. */
static unsigned waiting_classes(unsigned r)
{
    switch (r) {
    case RES_XBAR:
        return 1u << L2_SC_FAR | 1u << L2_SC_MISS_FAR;
    case RES_DRAM:
    case RES_MSHR:
        return 1u << L2_SC_MISS | 1u << L2_SC_MISS_FAR;
    default:
        return (1u << L2_NSC) - 1;
    }
}

/* Files a bucket's sectors, each class waiting delay[class] beyond its
 * base latency. */
static void file_sectors(struct l2_keval *out, const struct l2_tbucket *b, const uint32_t base[L2_NSC],
                         const double delay[L2_NSC])
{
    for (unsigned p = 0; p < L2_NPRIO; p++) {
        for (unsigned c = 0; c < L2_NSC; c++) {
            uint64_t n = b->sec[p][c];
            if (!n)
                continue;
            double lat = base[c] + delay[c];
            out->hist[p][sc_class[c]][l2_hist_bucket((uint64_t)(lat + 0.5))] += n;
            out->sectors[p][sc_class[c]] += n;
            out->lat_sum[p][sc_class[c]] += lat * (double)n;
        }
        if (b->msec[p]) {
            double lat = (double)b->mlat[p] / (double)b->msec[p];
            out->hist[p][LAT_MISS][l2_hist_bucket((uint64_t)(lat + 0.5))] += b->msec[p];
            out->sectors[p][LAT_MISS] += b->msec[p];
            out->lat_sum[p][LAT_MISS] += (double)b->mlat[p];
        }
    }
}

void l2_ktime_eval(const struct l2_config *cfg, const struct l2_ktime *k, struct l2_keval *out)
{
    struct geometry g;
    double kr[L2_NRES];
    uint32_t base[L2_NSC];
    memset(out, 0, sizeof *out);
    geometry(cfg, &g);
    unit_cycles(cfg, &g, k, kr);
    base_latencies(cfg, base);
    double clk = cfg->clock_mhz / 1000.0;

    /* Accesses without @CYCLE: buckets of lines in trace order. */
    double tl = 0, tb = 0;
    int last = -1;
    for (unsigned i = 0; i < L2_OBUCKETS; i++) {
        const struct l2_tbucket *b = &k->ob[i];
        if (!b->lines)
            continue;
        double t[L2_NRES], lb = 0, bb = 0;
        unsigned top = RES_SLICE;
        for (unsigned r = 0; r < L2_NRES; r++) {
            t[r] = (double)b->work[r] * kr[r];
            out->bound_ns[r] += t[r] / clk;
            if (latency_bound(r))
                lb = maxd(lb, t[r]);
            else if (t[r] > bb) {
                bb = t[r];
                top = r;
            }
        }
        tl += lb;
        tb += bb;
        last = (int)i;
        /* Queueing: when a bandwidth resource (or the MSHRs) outlasts the
         * slots, every slot stays full and, by Little's law, the lines
         * take longer than their base latency by the ratio. */
        double delay[L2_NSC] = {0};
        if (t[RES_MSHR] > bb && t[RES_MSHR] > t[RES_SLOT])
            top = RES_MSHR;
        double span = maxd(bb, t[RES_MSHR]);
        if (span > t[RES_SLOT] && t[RES_SLOT] > 0) {
            double mean = (double)b->work[RES_SLOT] / (double)b->slot_sec;
            double extra = mean * (span / t[RES_SLOT] - 1);
            unsigned w = waiting_classes(top);
            uint64_t all = sectors_of(b, (1u << L2_NSC) - 1), some = sectors_of(b, w);
            double d = some ? extra * (double)all / (double)some : 0;
            if (d > span)
                d = span;
            for (unsigned c = 0; c < L2_NSC; c++)
                if (w & (1u << c))
                    delay[c] = d;
        }
        file_sectors(out, b, base, delay);
    }
    double t_lines = last >= 0 ? maxd(tl, tb + (double)k->ob[last].max_lat) : 0;

    /* Accesses with @CYCLE: fluid queues between bucket arrivals. */
    double t_cyc = 0;
    if (k->cb) {
        double q[L2_NRES] = {0}, prev = 0;
        for (unsigned i = 0; i < L2_CBUCKETS; i++) {
            const struct l2_tbucket *b = &k->cb[i];
            if (!b->last)
                continue;
            double at = (double)(b->last - 1), wait[L2_NRES] = {0};
            for (unsigned r = 0; r < L2_NRES; r++) {
                if (r == RES_SLOT)
                    continue; /* issue times are given */
                double w = (double)b->work[r] * kr[r], q0 = maxd(0, q[r] - (at - prev));
                out->bound_ns[r] += w / clk;
                q[r] = q0 + w;
                wait[r] = mean_excess(q0, q[r], r == RES_MSHR ? cfg->lat_dram : 0);
            }
            prev = at;
            double qb = maxd(maxd(q[RES_SLICE], q[RES_XBAR]), maxd(q[RES_DRAM], q[RES_PORT]));
            double done = at + maxd(b->lines ? qb + (double)b->max_lat : 0, q[RES_MSHR]);
            t_cyc = maxd(t_cyc, done);
            double path = maxd(wait[RES_SLICE], wait[RES_PORT]);
            double delay[L2_NSC];
            delay[L2_SC_NEAR] = path;
            delay[L2_SC_FAR] = maxd(path, wait[RES_XBAR]);
            delay[L2_SC_MISS] = maxd(maxd(path, wait[RES_DRAM]), wait[RES_MSHR]);
            delay[L2_SC_MISS_FAR] = maxd(delay[L2_SC_MISS], wait[RES_XBAR]);
            file_sectors(out, b, base, delay);
        }
    }
    out->cycles = maxd(t_lines, t_cyc);
    out->est_ns = cfg->launch_ns + out->cycles / clk;
}

void l2_keval_add(struct l2_keval *a, const struct l2_keval *b)
{
    a->cycles += b->cycles;
    a->est_ns += b->est_ns;
    for (unsigned r = 0; r < L2_NRES; r++)
        a->bound_ns[r] += b->bound_ns[r];
    for (unsigned p = 0; p < L2_NPRIO; p++)
        for (unsigned c = 0; c < L2_NLAT; c++) {
            for (unsigned i = 0; i < L2_HIST_BUCKETS; i++)
                a->hist[p][c][i] += b->hist[p][c][i];
            a->sectors[p][c] += b->sectors[p][c];
            a->lat_sum[p][c] += b->lat_sum[p][c];
        }
}

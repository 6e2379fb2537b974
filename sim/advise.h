/*
 * advise.h - which buffers to make persisting or streaming, with which
 * set-aside or access-policy window: a bounded search over policy
 * variants, each run through the one-pass driver (driver.h) as compare
 * runs its variants.  Advice adds search and presentation, no model of
 * its own: a candidate is a set of --policy lines (assign, setaside,
 * window) and its numbers are a simulation's.
 *
 * The search (l2_advise):
 *   pass 1  the baseline (the trace as it is) finds the buffers with the
 *           most DRAM traffic; the first `nbuf` of them are considered;
 *   pass 2  every single change: each buffer persisting (at the largest
 *           set-aside), streaming or normal;
 *   greedy  from the best plan so far, every remaining buffer's three
 *           choices in one pass; the best improvement is kept; repeated
 *           until no change ranks higher (at most nbuf passes);
 *   windows for the two buffers with the most traffic, an access-policy
 *           window (persisting hits, streaming misses) with hitRatio at
 *           each even sixteenth the hardware applies, in one pass;
 *   set-aside  for the best plans that persist something, every set-aside
 *           step (l2_size / ways) up to setaside_max, one pass each;
 *           a suggestion takes its sweep's best (the smallest set-aside
 *           of equal time and DRAM traffic), and the sweep is the curve
 *           the HTML report draws.
 * With `exhaustive`, every assignment of the nbuf (at most 3) buffers
 * at the largest set-aside is simulated instead of the greedy passes.
 * Plans are ranked by estimated time, then DRAM bytes (read + written):
 * a large set-aside can save DRAM bytes and still slow a kernel down
 * (timing.h, wb_room_ways).  A suggestion ranks above the baseline.
 * Windows are set on every stream the trace's kernels use (the first 8).
 */
#ifndef L2SIM_ADVISE_H
#define L2SIM_ADVISE_H

#include <stdio.h>

#include "driver.h"

#define L2_ADVISE_MAX_BUF 8     /* buffers one search considers */
#define L2_ADVISE_MAX_PLANS 512 /* plans one search simulates */
#define L2_ADVISE_MAX_STEPS 17  /* set-aside steps: 0 .. ways */
#define L2_ADVISE_MAX_KERNELS 64 /* kernels the per-kernel bars show */

/* The largest access-policy window: cudaDevAttrMaxAccessPolicyWindowSize
 * of the A100 and H100.  The H200 reports 134,217,728, accepts a window of
 * that size and ignores it: measured, a streaming window over a 128 MiB
 * pool changed nothing, one of this size saved 13% of its DRAM reads
 * (tools/validate/results/kvcache-h200/). */
#define L2_WINDOW_MAX UINT64_C(134213632)

/* What a plan does to a buffer (its names are cuda::access_property's). */
enum l2_assign { ASSIGN_NONE, ASSIGN_PERSISTING, ASSIGN_STREAMING, ASSIGN_NORMAL, L2_NASSIGN };
extern const char *const l2_assign_names[L2_NASSIGN]; /* "as traced", "persisting", ... */

struct l2_advise_opts {
    struct l2_variant base; /* configuration, settings, --policy file, semantics */
    const char *trace;
    unsigned nbuf;    /* buffers considered (1 .. L2_ADVISE_MAX_BUF) */
    unsigned threads; /* worker threads (0: one per CPU) */
    int serialize;    /* replay kernels in trace order (driver.h) */
    int exhaustive;   /* every assignment of at most 3 buffers */
};

/* A simulated plan and what it came to. */
struct l2_plan {
    uint8_t assign[L2_ADVISE_MAX_BUF]; /* enum l2_assign per considered buffer */
    int setaside_set;                  /* 0: the set-aside the trace and configuration give */
    uint64_t setaside;
    int window;          /* considered buffer with a window on every stream, or -1 */
    unsigned window_n;   /* its hitRatio is (window_n - 1) / 16: the hardware applies window_n / 16 */
    uint64_t dram, sectors, hits; /* totals over the kernels */
    double est_ns;
    uint64_t buf_dram[L2_ADVISE_MAX_BUF], buf_sectors[L2_ADVISE_MAX_BUF], buf_hits[L2_ADVISE_MAX_BUF];
    uint64_t k_dram[L2_ADVISE_MAX_KERNELS];
    double k_est_ns[L2_ADVISE_MAX_KERNELS];
};

struct l2_advise_buf {
    char name[L2_MAX_KNAME];
    uint64_t base, bytes; /* its last allocation */
    uint64_t dram;        /* baseline DRAM bytes */
};

struct l2_advice {
    const struct l2_advise_opts *opts;
    struct l2_config cfg;
    uint64_t records;
    struct l2_advise_buf buf[L2_ADVISE_MAX_BUF];
    unsigned nbuf, nbuf_all; /* considered; buffers with traffic in the trace */
    uint32_t streams[8];     /* kernel streams (windows are set on each) */
    unsigned nstreams;
    char kname[L2_ADVISE_MAX_KERNELS][L2_MAX_KNAME];
    unsigned nk;             /* kernels in the trace (the bars show the first L2_ADVISE_MAX_KERNELS) */
    struct l2_plan *plan;    /* plan[0] is the baseline; the rest in the order simulated */
    unsigned nplans, passes;
    unsigned *rank;          /* plans other than the baseline, best first */
    unsigned nrank;
    /* set-aside sweeps of the first ranked plans: plan indices by step */
    unsigned sweep[3][L2_ADVISE_MAX_STEPS];
    unsigned nsweep, nsteps;
};

/* Runs the search; out is freed with l2_advice_free. */
int l2_advise(const struct l2_advise_opts *o, struct l2_advice *out, l2_err *e);
void l2_advice_free(struct l2_advice *a);

/* The first `top` suggestions (plan indices into out): the ranked plans
 * that save DRAM traffic, one per choice of assignments and window
 * buffer (the best hitRatio), each with the smallest set-aside within 0.1%
 * of that plan's bytes; a plan with the outcome of one before it, or with
 * its changes and more for no fewer DRAM bytes, is left out. */
unsigned l2_advice_suggestions(const struct l2_advice *a, unsigned top, unsigned *out);
/* The tag a plan's assign line gives considered buffer i, or NULL: its
 * assignment, or "global" for the buffer of its window (a window applies
 * to accesses without a hint of their own). */
const char *l2_plan_tag(const struct l2_plan *p, unsigned i);
/* The window of a plan that sets one (p->window >= 0): over its buffer
 * (at most L2_WINDOW_MAX bytes), persisting hits, streaming misses. */
struct l2_window_spec l2_plan_window(const struct l2_advice *a, const struct l2_plan *p);
/* The --policy lines of a plan, as a file would hold them, each after `ind`. */
void l2_plan_policy(FILE *f, const struct l2_advice *a, const struct l2_plan *p, const char *ind);
/* Writers: the first `top` suggestions with their CUDA code and caveats. */
int l2_advice_table(FILE *f, const struct l2_advice *a, unsigned top, l2_err *e);
int l2_advice_json(FILE *f, const struct l2_advice *a, unsigned top, l2_err *e);
/* A self-contained HTML page (inline SVG, no script): DRAM bytes and hit
 * rate against set-aside per candidate, per-buffer and per-kernel bars. */
int l2_advice_html(FILE *f, const struct l2_advice *a, unsigned top, l2_err *e);

#endif

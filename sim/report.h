/*
 * report.h - writers for what a simulation counted: the readable table,
 * JSON, CSV, the side-by-side compare table, and expectation files for
 * regression runs.  Reports read counters; they never re-simulate.
 * Output is deterministic: the same counters give byte-identical text.
 */
#ifndef L2SIM_REPORT_H
#define L2SIM_REPORT_H

#include <stdio.h>

#include "ncu.h"
#include "sim.h"

#define L2SIM_VERSION "0.1.0"

struct l2_run_info {
    const char *trace;    /* trace name as given */
    uint64_t records;     /* records read from the trace */
    int histogram;        /* table: print each kernel's latency histograms (--histogram) */
    const struct l2_ncu *ncu; /* run --ncu: measurements to print beside each kernel (table, JSON) */
};

/* Every writer returns 0, or -1 with e set when out of memory, before
 * writing anything. */
int l2_report_table(FILE *f, const struct l2_sim *s, const struct l2_run_info *ri, l2_err *e);
int l2_report_json(FILE *f, const struct l2_sim *s, const struct l2_run_info *ri, l2_err *e);
int l2_report_csv(FILE *f, const struct l2_sim *s, int with_header, const char *variant, l2_err *e);
/* JSON lines (--jsonl): one compact line per simulator (a run: n = 1,
 * names NULL; compare: one per variant, named), for concatenating the
 * results of many runs: trace, variant, semantics, every configuration
 * value as a number (text keys as strings), the totals and each kernel's
 * counters, rates and est_ns. */
int l2_report_jsonl(FILE *f, struct l2_sim *const *v, const char *const *names, unsigned n,
                    const struct l2_run_info *ri, l2_err *e);

/* Side by side: hit rates of every variant per kernel, priority and tag,
 * with the difference to the first variant. */
int l2_compare_table(FILE *f, struct l2_sim *const *v, const char *const *names, unsigned n,
                     const struct l2_run_info *ri, l2_err *e);
int l2_compare_json(FILE *f, struct l2_sim *const *v, const char *const *names, unsigned n,
                    const struct l2_run_info *ri, l2_err *e);
/* The same as a self-contained HTML page (inline SVG, no script): a
 * summary per variant, and bars per kernel (hit rate, DRAM bytes), per
 * buffer (when the trace has allocations) and per applied priority. */
int l2_compare_html(FILE *f, struct l2_sim *const *v, const char *const *names, unsigned n,
                    const struct l2_run_info *ri, l2_err *e);

/* s as a JSON string, quoted, with '"', '\\' and control characters escaped. */
void l2_json_str(FILE *f, const char *s);

/* Expectations: "SCOPE GROUP METRIC PERCENT" lines (see README). */
int l2_expect_write(FILE *f, const struct l2_sim *s, l2_err *e);
/* Compares; writes one line per difference to `diff`.  Returns the number
 * of differences, or -1 on a malformed file (e says where). */
int l2_expect_check(const char *path, const struct l2_sim *s, double tolerance_pp, FILE *diff, l2_err *e);

#endif

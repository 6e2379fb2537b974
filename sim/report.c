/*
 * report.c - table, JSON, CSV, compare (also as an HTML page) and
 * expectation writers.
 */
#include "report.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "svg.h"

/* One row of a report: a kernel, kernel x priority, kernel x tag, or the
 * same for the totals.  `kernel` is 1-based, 0 for totals. */
enum scope_kind { SC_ALL, SC_PRIO, SC_TAG, SC_BUF };
static const char *const kind_names[] = {"all", "priority", "tag", "buffer"}; /* in expectation files */

/* Buffer rows a kernel's table shows (JSON, CSV and expectations have all). */
#define TABLE_BUFFERS 8

struct scope {
    uint32_t kernel;
    const char *kname;
    enum scope_kind kind;
    const char *name;
    const struct l2_counters *c;
    const struct l2_keval *ev; /* "all" and "priority" rows: the kernel's (or the totals') timing */
    int prio;                  /* "priority" rows: the priority; -1 otherwise */
    uint32_t rank;             /* buffer rows: place by DRAM traffic in the kernel (0: the most) */
};

struct scopes {
    struct scope *v;
    size_t n;
    struct l2_counters total, prio[L2_NPRIO], *tag, *buf;
    struct l2_keval *ev; /* nk + 1: every kernel's timing, then the totals */
};

/* Every kernel's timing evaluated (ev[0..nk-1]) and added (ev[nk]).
 * Returns NULL when out of memory. */
static struct l2_keval *evaluate(const struct l2_sim *s)
{
    struct l2_keval *ev = calloc((size_t)s->nk + 1, sizeof *ev);
    if (!ev)
        return NULL;
    for (uint32_t i = 0; i < s->nk; i++) {
        l2_ktime_eval(&s->l2.cfg, &s->k[i].time, &ev[i]);
        l2_keval_add(&ev[s->nk], &ev[i]);
    }
    return ev;
}

static int used(const struct l2_counters *c)
{
    return c->accesses || c->sectors;
}

static void push(struct scopes *ss, size_t cap, struct scope sc)
{
    if (ss->n < cap)
        ss->v[ss->n++] = sc;
}

static uint64_t dram_bytes(const struct l2_counters *c)
{
    return c->dram_rd + c->dram_wr;
}

/* Buffer rows by DRAM traffic, the most first; ties in allocation order. */
static int by_dram(const void *x, const void *y)
{
    const struct scope *a = x, *b = y;
    uint64_t da = dram_bytes(a->c), db = dram_bytes(b->c);
    if (da != db)
        return da < db ? 1 : -1;
    return a->c < b->c ? -1 : a->c > b->c;
}

/* The used rows of buf (n entries) as buffer scopes of one kernel (0:
 * the totals), sorted by DRAM traffic. */
static void push_buffers(struct scopes *ss, size_t cap, const struct l2_sim *s, uint32_t kernel, const char *kname,
                         const struct l2_counters *buf, uint32_t n)
{
    size_t first = ss->n;
    for (uint32_t b = 0; b < n; b++)
        if (used(&buf[b]))
            push(ss, cap, (struct scope){kernel, kname, SC_BUF, s->buf.row[b].name, &buf[b], NULL, -1, 0});
    qsort(ss->v + first, ss->n - first, sizeof *ss->v, by_dram);
    for (size_t i = first; i < ss->n; i++)
        ss->v[i].rank = (uint32_t)(i - first);
}

static void scopes_free(struct scopes *ss)
{
    free(ss->v);
    free(ss->tag);
    free(ss->buf);
    free(ss->ev);
}

/* Every row, kernels in trace order, then totals.  Returns 0, or -1 when
 * out of memory. */
static int collect(const struct l2_sim *s, struct scopes *ss, l2_err *e)
{
    size_t cap = ((size_t)s->nk + 1) * (1 + L2_NPRIO + s->nbind + s->buf.nrow);
    memset(ss, 0, sizeof *ss);
    ss->v = malloc(cap * sizeof *ss->v);
    ss->tag = calloc(s->nbind ? s->nbind : 1, sizeof *ss->tag);
    ss->buf = calloc(s->buf.nrow, sizeof *ss->buf);
    ss->ev = evaluate(s);
    if (!ss->v || !ss->tag || !ss->buf || !ss->ev) {
        scopes_free(ss);
        return l2_fail(e, "out of memory");
    }
    for (uint32_t i = 0; i < s->nk; i++) {
        const struct l2_kstats *k = &s->k[i];
        push(ss, cap, (struct scope){i + 1, k->name, SC_ALL, "all", &k->total, &ss->ev[i], -1, 0});
        for (unsigned p = 0; p < L2_NPRIO; p++)
            if (used(&k->prio[p]))
                push(ss, cap,
                     (struct scope){i + 1, k->name, SC_PRIO, l2_prio_names[p], &k->prio[p], &ss->ev[i], (int)p, 0});
        for (uint32_t t = 0; t < k->ntag; t++)
            if (used(&k->tag[t]))
                push(ss, cap, (struct scope){i + 1, k->name, SC_TAG, l2_sym_name(s->syms, t), &k->tag[t], NULL, -1, 0});
        push_buffers(ss, cap, s, i + 1, k->name, k->buf, k->nbuf);
    }
    l2_sim_totals(s, &ss->total, ss->prio, ss->tag);
    push(ss, cap, (struct scope){0, "totals", SC_ALL, "all", &ss->total, &ss->ev[s->nk], -1, 0});
    for (unsigned p = 0; p < L2_NPRIO; p++)
        if (used(&ss->prio[p]))
            push(ss, cap,
                 (struct scope){0, "totals", SC_PRIO, l2_prio_names[p], &ss->prio[p], &ss->ev[s->nk], (int)p, 0});
    for (uint32_t t = 0; t < s->nbind; t++)
        if (used(&ss->tag[t]))
            push(ss, cap, (struct scope){0, "totals", SC_TAG, l2_sym_name(s->syms, t), &ss->tag[t], NULL, -1, 0});
    l2_sim_buffer_totals(s, ss->buf);
    push_buffers(ss, cap, s, 0, "totals", ss->buf, s->buf.nrow);
    return 0;
}

/* Mean latency (cycles) of the sectors of one priority (-1: all) and
 * class (-1: all); NAN without sectors. */
static double mean_latency(const struct l2_keval *ev, int prio, int cls)
{
    double sum = 0;
    uint64_t n = 0;
    for (unsigned p = 0; p < L2_NPRIO; p++)
        for (unsigned c = 0; c < L2_NLAT; c++)
            if ((prio < 0 || (unsigned)prio == p) && (cls < 0 || (unsigned)cls == c)) {
                sum += ev->lat_sum[p][c];
                n += ev->sectors[p][c];
            }
    return n ? sum / (double)n : NAN;
}

/* Sectors of priority p, every class. */
static uint64_t prio_sectors(const struct l2_keval *ev, unsigned p)
{
    uint64_t n = 0;
    for (int c = 0; c < L2_NLAT; c++)
        n += ev->sectors[p][c];
    return n;
}

/* The latency histogram of every priority together. */
static void hist_all(const struct l2_keval *ev, uint64_t h[L2_NLAT][L2_HIST_BUCKETS])
{
    memset(h, 0, L2_NLAT * sizeof *h);
    for (unsigned p = 0; p < L2_NPRIO; p++)
        for (int c = 0; c < L2_NLAT; c++)
            for (int b = 0; b < L2_HIST_BUCKETS; b++)
                h[c][b] += ev->hist[p][c][b];
}

static double rate(uint64_t hits, uint64_t n)
{
    return n ? (double)hits / (double)n : NAN;
}

/* The hit rates every report gives, in this order. */
static const char *const rate_names[] = {"hit_rate", "near_hit_rate", "read_hit_rate"};
#define NRATES L2_ARRAY_LEN(rate_names)

/* Rate m (of rate_names) of a scope's counters; NAN when it has no sectors. */
static double scope_rate(const struct l2_counters *c, unsigned m)
{
    switch (m) {
    case 0:
        return rate(c->sector_hits, c->sectors);
    case 1:
        return rate(c->near_hits, c->sectors);
    default:
        return rate(c->read_hits, c->read_sectors);
    }
}

static const char *sem_name(enum l2_semantics s)
{
    return s == SEM_HARDWARE ? "hardware" : "documented";
}

/* ---- table ---- */

static void pct(FILE *f, double r)
{
    if (isnan(r))
        fprintf(f, " %7s", "-");
    else
        fprintf(f, " %7.2f", 100.0 * r);
}

static void table_row(FILE *f, const char *label, const struct scope *sc)
{
    const struct l2_counters *c = sc->c;
    fprintf(f, "  %-26s %10" PRIu64 " %11" PRIu64 " %11" PRIu64, label, c->accesses, c->sectors, c->sector_hits);
    for (unsigned m = 0; m < NRATES; m++)
        pct(f, scope_rate(c, m));
    fprintf(f, " %10" PRIu64 " %10" PRIu64 " %12" PRIu64 " %12" PRIu64, c->line_miss, c->sector_miss, c->dram_rd,
            c->dram_wr);
    double lat = sc->ev ? mean_latency(sc->ev, sc->prio, -1) : NAN;
    if (isnan(lat))
        fprintf(f, " %8s", "-");
    else
        fprintf(f, " %8.1f", lat);
    if (sc->ev && sc->kind == SC_ALL)
        fprintf(f, " %11.1f\n", sc->ev->est_ns);
    else
        fprintf(f, " %11s\n", "-");
    if (c->unspecified)
        fprintf(f, "  %-26s %10" PRIu64 " accesses outside the policy's ranges (unspecified priority)\n", "",
                c->unspecified);
}

static void table_head(FILE *f)
{
    fprintf(f, "  %-26s %10s %11s %11s %7s %7s %7s %10s %10s %12s %12s %8s %11s\n", "scope", "accesses", "sectors",
            "hits", "hit%", "near%", "load%", "line-miss", "sect-miss", "dram-rd-B", "dram-wr-B", "lat-cyc", "est-ns");
}

/* One latency histogram (sectors by bucket and class) as text: the rows
 * from the first to the last bucket used, a bar for each row's share of
 * the fullest row. */
static void hist_text(FILE *f, const char *title, const uint64_t h[L2_NLAT][L2_HIST_BUCKETS])
{
    uint64_t row[L2_HIST_BUCKETS], top = 0, sum[L2_NLAT] = {0}, all = 0;
    int lo = -1, hi = -1;
    for (int b = 0; b < L2_HIST_BUCKETS; b++) {
        row[b] = 0;
        for (int c = 0; c < L2_NLAT; c++) {
            row[b] += h[c][b];
            sum[c] += h[c][b];
        }
        if (row[b]) {
            lo = lo < 0 ? b : lo;
            hi = b;
        }
        top = row[b] > top ? row[b] : top;
        all += row[b];
    }
    fprintf(f, "  %s: sectors by latency (cycles)\n", title);
    if (!all) {
        fprintf(f, "    (no sectors)\n");
        return;
    }
    fprintf(f, "    %-13s", "cycles");
    for (int c = 0; c < L2_NLAT; c++)
        fprintf(f, " %11s", l2_lat_names[c]);
    fputc('\n', f);
    for (int b = lo; b <= hi; b++) {
        char range[32];
        if (b + 1 < L2_HIST_BUCKETS)
            snprintf(range, sizeof range, "%u-%u", l2_hist_lower[b], l2_hist_lower[b + 1] - 1);
        else
            snprintf(range, sizeof range, "%u+", l2_hist_lower[b]);
        fprintf(f, "    %-13s", range);
        for (int c = 0; c < L2_NLAT; c++)
            fprintf(f, " %11" PRIu64, h[c][b]);
        int w = (int)((row[b] * 40 + top - 1) / top);
        fprintf(f, "  %.*s\n", w, "########################################");
    }
    fprintf(f, "    %-13s", "share %");
    for (int c = 0; c < L2_NLAT; c++)
        fprintf(f, " %11.2f", 100.0 * (double)sum[c] / (double)all);
    fputc('\n', f);
}

/* The histograms of a kernel (or the totals): all priorities, then each
 * priority when more than one was used. */
static void table_hists(FILE *f, const struct l2_keval *ev)
{
    uint64_t h[L2_NLAT][L2_HIST_BUCKETS];
    unsigned used_prio = 0;
    hist_all(ev, h);
    for (unsigned p = 0; p < L2_NPRIO; p++)
        used_prio += prio_sectors(ev, p) != 0;
    fputc('\n', f);
    hist_text(f, "latency, all priorities", (const uint64_t(*)[L2_HIST_BUCKETS])h);
    for (unsigned p = 0; used_prio > 1 && p < L2_NPRIO; p++) {
        if (!prio_sectors(ev, p))
            continue;
        char title[64];
        snprintf(title, sizeof title, "latency, prio %s", l2_prio_names[p]);
        hist_text(f, title, ev->hist[p]);
    }
}

static void describe_defs(FILE *f, const struct l2_sim *s)
{
    char buf[512];
    if (s->ndefs == 0)
        return;
    fprintf(f, "policies and windows (%s semantics):\n", sem_name(s->sem));
    for (uint32_t i = 0; i < s->ndefs; i++) {
        const struct l2_def_log *d = &s->defs[i];
        if (d->is_window) {
            l2_window_describe(&d->win, s->sem, buf, sizeof buf);
            fprintf(f, "  stream %u: %s\n", d->name, buf);
        } else {
            l2_policy_describe(&d->pol, s->sem, buf, sizeof buf);
            fprintf(f, "  %s: %s\n", l2_sym_name(s->syms, d->name), buf);
        }
    }
}

/* A row's label in the tables: "all", "prio NAME", "tag NAME" or "buf NAME". */
static void scope_label(const struct scope *sc, char *buf, size_t n)
{
    static const char *const short_names[] = {"all", "prio", "tag", "buf"};
    if (sc->kind == SC_ALL)
        snprintf(buf, n, "all");
    else
        snprintf(buf, n, "%s %s", short_names[sc->kind], sc->name);
}

/* Share of `all`'s DRAM traffic (bytes read and written) in c; NAN without any. */
static double dram_share(const struct l2_counters *c, const struct l2_counters *all)
{
    return rate(dram_bytes(c), dram_bytes(all));
}

/* The buffer rows of a kernel (or the totals) in the table: the first
 * TABLE_BUFFERS by DRAM traffic. */
static void table_buffer(FILE *f, const struct scope *sc, const struct l2_counters *all, size_t nbuf)
{
    const struct l2_counters *c = sc->c;
    if (sc->rank == 0) {
        fprintf(f, "  buffers by DRAM traffic");
        if (nbuf > TABLE_BUFFERS)
            fprintf(f, " (the first %u of %zu; --json and --csv list all)", TABLE_BUFFERS, nbuf);
        fprintf(f, "\n  %-26s %10s %11s %7s %7s %7s %12s %12s %7s\n", "buffer", "accesses", "sectors", "hit%", "near%",
                "load%", "dram-rd-B", "dram-wr-B", "dram%");
    }
    if (sc->rank >= TABLE_BUFFERS)
        return;
    fprintf(f, "  %-26s %10" PRIu64 " %11" PRIu64, sc->name, c->accesses, c->sectors);
    for (unsigned m = 0; m < NRATES; m++)
        pct(f, scope_rate(c, m));
    fprintf(f, " %12" PRIu64 " %12" PRIu64, c->dram_rd, c->dram_wr);
    pct(f, dram_share(c, all));
    fputc('\n', f);
}

/* ---- measured by Nsight Compute (run --ncu) ---- */

#define NCU_MIN_SECTORS ((1u << 20) / 32) /* kernels below 1 MiB of L2 traffic are too small to judge */

/* One simulated kernel beside its measurement. */
struct ncu_cmp {
    int64_t row;   /* the measured row, -1: none */
    int counts;    /* in the mean error: >= 1 MiB measured, sectors within 2x (else "small", "not captured") */
    double hit, read_hit; /* simulated, percent */
};

/* Every kernel's comparison and the mean absolute errors (hit rate, load
 * hit rate; NAN when no kernel counts) over the n kernels that count. */
struct ncu_res {
    const struct l2_ncu *m;
    struct ncu_cmp *c;
    double mae[3];
    uint32_t n;
};

/* Matches s's kernels with the measured rows; the mean absolute errors of
 * the kernels that count go to mae (hit rate and load hit rate in points,
 * DRAM reads in MB; NAN when none), their number to *n.  NULL when out of
 * memory. */
static struct ncu_cmp *ncu_compare(const struct l2_sim *s, const struct l2_ncu *m, double mae[3], uint32_t *n)
{
    struct ncu_cmp *c = calloc((size_t)s->nk + 1, sizeof *c);
    int64_t *match = calloc((size_t)s->nk + 1, sizeof *match);
    const char **names = calloc((size_t)s->nk + 1, sizeof *names);
    if (!c || !match || !names) {
        free(c);
        free(match);
        free(names);
        return NULL;
    }
    for (uint32_t i = 0; i < s->nk; i++)
        names[i] = s->k[i].name;
    l2_ncu_match(m, names, s->nk, match);
    double sum[3] = {0, 0, 0};
    uint32_t cnt[3] = {0, 0, 0};
    for (uint32_t i = 0; i < s->nk; i++) {
        const struct l2_counters *t = &s->k[i].total;
        c[i].row = match[i];
        /* as Nsight Compute counts: a sector written (store, atomic) is a
         * hit whether or not the line was there, since nothing is read
         * for it (torch_mlp's float-to-half kernels: 0.04% of loads hit,
         * 33.94% of all sectors, their stores' share) */
        c[i].hit = 100 * rate(t->read_hits + (t->sectors - t->read_sectors), t->sectors);
        c[i].read_hit = 100 * rate(t->read_hits, t->read_sectors);
        if (match[i] < 0)
            continue;
        const struct l2_ncu_row *r = &m->row[match[i]];
        double ratio = (double)t->sectors / r->sectors;
        c[i].counts = isnan(r->sectors) || (r->sectors >= NCU_MIN_SECTORS && ratio >= 0.5 && ratio <= 2);
        if (!c[i].counts)
            continue;
        const double d[3] = {c[i].hit - r->hit, c[i].read_hit - r->read_hit, ((double)t->dram_rd - r->dram_rd) / 1e6};
        for (int k = 0; k < 3; k++)
            if (!isnan(d[k])) {
                sum[k] += fabs(d[k]);
                cnt[k]++;
            }
    }
    *n = cnt[0];
    for (int k = 0; k < 3; k++)
        mae[k] = cnt[k] ? sum[k] / cnt[k] : NAN;
    free(match);
    free(names);
    return c;
}

static void num_or_dash(FILE *f, const char *fmt, double v, int width)
{
    if (isnan(v))
        fprintf(f, " %*s", width, "-");
    else
        fprintf(f, fmt, width, v);
}

static void ncu_table(FILE *f, const struct l2_sim *s, const struct scopes *ss, const struct ncu_res *nr)
{
    const struct l2_ncu *m = nr->m;
    const struct ncu_cmp *c = nr->c;
    const double *mae = nr->mae;
    const uint32_t n = nr->n;
    uint32_t matched = 0;
    for (uint32_t i = 0; i < s->nk; i++)
        matched += c[i].row >= 0;
    fprintf(f, "\nmeasured by Nsight Compute (%s): %u of %u kernel%s matched by name and launch order, %u measured "
               "row%s unmatched\n",
            m->path, matched, s->nk, s->nk == 1 ? "" : "s", m->n - matched, m->n - matched == 1 ? "" : "s");
    fprintf(f, "  %4s %-40s %12s %12s %8s %8s %7s %8s %8s %7s %10s %10s %9s %9s\n", "#", "kernel", "sectors-meas",
            "sectors-sim", "hit%-mea", "hit%-sim", "diff", "load%-me", "load%-si", "diff", "dram-MB-me", "dram-MB-si",
            "ns-meas", "ns-sim");
    for (uint32_t i = 0; i < s->nk; i++) {
        const struct l2_kstats *k = &s->k[i];
        fprintf(f, "  %4u %-40.40s", i + 1, k->name);
        if (c[i].row < 0) {
            fputs(" (not measured)\n", f);
            continue;
        }
        const struct l2_ncu_row *r = &m->row[c[i].row];
        num_or_dash(f, " %*.0f", r->sectors, 12);
        fprintf(f, " %12" PRIu64, k->total.sectors);
        num_or_dash(f, " %*.2f", r->hit, 8);
        num_or_dash(f, " %*.2f", c[i].hit, 8);
        num_or_dash(f, " %+*.2f", c[i].hit - r->hit, 7);
        num_or_dash(f, " %*.2f", r->read_hit, 8);
        num_or_dash(f, " %*.2f", c[i].read_hit, 8);
        num_or_dash(f, " %+*.2f", c[i].read_hit - r->read_hit, 7);
        num_or_dash(f, " %*.2f", r->dram_rd / 1e6, 10);
        fprintf(f, " %10.2f", (double)k->total.dram_rd / 1e6);
        num_or_dash(f, " %*.0f", r->ns, 9);
        fprintf(f, " %9.0f%s\n", ss->ev[i].est_ns,
                c[i].counts ? "" : isnan(r->sectors) || r->sectors >= NCU_MIN_SECTORS ? "  (not captured)" : "  (small)");
    }
    fprintf(f, "  mean absolute error over the %u kernel%s (>= 1 MiB measured, sectors within 2x): ", n,
            n == 1 ? " that counts" : "s that count");
    if (isnan(mae[0]))
        fputs("none\n", f);
    else {
        fprintf(f, "hit rate %.2f points, load hit rate ", mae[0]);
        if (isnan(mae[1]))
            fputs("- (no loads)", f);
        else
            fprintf(f, "%.2f points", mae[1]);
        if (!isnan(mae[2]))
            fprintf(f, ", DRAM read %.2f MB", mae[2]);
        fputc('\n', f);
    }
}

static void json_num(FILE *f, const char *key, double v, const char *fmt)
{
    fprintf(f, ", \"%s\": ", key);
    if (isnan(v))
        fputs("null", f);
    else
        fprintf(f, fmt, v);
}

static void ncu_json(FILE *f, const struct l2_sim *s, const struct ncu_res *nr, const char *ind)
{
    const struct l2_ncu *m = nr->m;
    const struct ncu_cmp *c = nr->c;
    const double *mae = nr->mae;
    const uint32_t n = nr->n;
    fprintf(f, ",\n%s\"ncu\": {\"file\": ", ind);
    l2_json_str(f, m->path);
    fprintf(f, ", \"measured_rows\": %u, \"kernels_counted\": %u", m->n, n);
    json_num(f, "hit_rate_mae_pp", mae[0], "%.4f");
    json_num(f, "read_hit_rate_mae_pp", mae[1], "%.4f");
    json_num(f, "dram_read_mae_mb", mae[2], "%.4f");
    fputs(", \"kernels\": [", f);
    for (uint32_t i = 0; i < s->nk; i++) {
        fprintf(f, "%s\n%s  {\"index\": %u, \"name\": ", i ? "," : "", ind, i + 1);
        l2_json_str(f, s->k[i].name);
        if (c[i].row < 0) {
            fputs(", \"measured\": null}", f);
            continue;
        }
        const struct l2_ncu_row *r = &m->row[c[i].row];
        fprintf(f, ", \"measured_name\": ");
        l2_json_str(f, r->name);
        fprintf(f, ", \"line\": %u, \"counts\": %s, \"measured\": {\"hit_rate_pct\": ", r->line,
                c[i].counts ? "true" : "false");
        if (isnan(r->hit))
            fputs("null", f);
        else
            fprintf(f, "%.4f", r->hit);
        json_num(f, "read_hit_rate_pct", r->read_hit, "%.4f");
        json_num(f, "sectors", r->sectors, "%.0f");
        json_num(f, "dram_read_bytes", r->dram_rd, "%.0f");
        json_num(f, "ns", r->ns, "%.1f");
        fputs("}, \"diff_pp\": {\"hit_rate\": ", f);
        if (isnan(c[i].hit - r->hit))
            fputs("null", f);
        else
            fprintf(f, "%.4f", c[i].hit - r->hit);
        json_num(f, "read_hit_rate", c[i].read_hit - r->read_hit, "%.4f");
        fputs("}}", f);
    }
    fprintf(f, "%s]}", s->nk ? "\n" : "");
}

/* nr for a run with --ncu (nr->c NULL without); -1 when out of memory. */
static int ncu_start(const struct l2_sim *s, const struct l2_run_info *ri, struct ncu_res *nr, l2_err *e)
{
    memset(nr, 0, sizeof *nr);
    if (!ri->ncu)
        return 0;
    nr->m = ri->ncu;
    nr->c = ncu_compare(s, ri->ncu, nr->mae, &nr->n);
    return nr->c ? 0 : l2_fail(e, "out of memory");
}

int l2_report_table(FILE *f, const struct l2_sim *s, const struct l2_run_info *ri, l2_err *e)
{
    struct scopes ss;
    struct ncu_res nr;
    if (collect(s, &ss, e) < 0)
        return -1;
    if (ncu_start(s, ri, &nr, e) < 0) {
        scopes_free(&ss);
        return -1;
    }
    fprintf(f, "l2sim %s report\n", L2SIM_VERSION);
    fprintf(f, "trace: %s: %" PRIu64 " record%s read, %" PRIu64 " simulated (%" PRIu64 " access%s)\n", ri->trace,
            ri->records, ri->records == 1 ? "" : "s", s->records, s->accesses, s->accesses == 1 ? "" : "es");
    fprintf(f, "semantics: %s\nconfiguration:\n", sem_name(s->sem));
    l2_config_print(&s->l2.cfg, f, "  ");
    char b1[32];
    fprintf(f, "  derived: %u partition%s x %u set%s x %llu way%s; set-aside at end %s (%u way%s per set)\n",
            s->l2.nparts, s->l2.nparts == 1 ? "" : "s", s->l2.sets, s->l2.sets == 1 ? "" : "s",
            (unsigned long long)s->l2.cfg.ways, s->l2.cfg.ways == 1 ? "" : "s",
            l2_fmt_bytes(s->l2.setaside, b1, sizeof b1), s->l2.quota, s->l2.quota == 1 ? "" : "s");
    describe_defs(f, s);
    uint32_t cur = UINT32_MAX;
    const struct l2_keval *hist = NULL; /* histograms to print before the next kernel */
    const struct l2_counters *all = NULL; /* the kernel's (or the totals') counters */
    for (size_t i = 0; i < ss.n; i++) {
        const struct scope *sc = &ss.v[i];
        if (sc->kind == SC_BUF) {
            size_t nbuf = 0;
            while (sc->rank == 0 && i + nbuf < ss.n && ss.v[i + nbuf].kind == SC_BUF &&
                   ss.v[i + nbuf].kernel == sc->kernel)
                nbuf++;
            table_buffer(f, sc, all, nbuf);
            continue;
        }
        if (sc->kernel != cur) {
            if (hist)
                table_hists(f, hist);
            hist = NULL;
            cur = sc->kernel;
            if (cur) {
                const struct l2_kstats *k = &s->k[cur - 1];
                fprintf(f, "\nkernel %u: %s (stream %u", cur, sc->kname, k->stream);
                if (k->nwith)
                    fprintf(f, "; ran alongside kernel%s ", k->nwith > 1 ? "s" : "");
                for (uint32_t j = 0; j < k->nwith; j++)
                    fprintf(f, "%s%u", j ? ", " : "", k->with[j] + 1);
                fputs(")\n", f);
            } else
                fprintf(f, "\ntotals\n");
            table_head(f);
        }
        char label[160];
        scope_label(sc, label, sizeof label);
        if (sc->kind == SC_ALL) {
            all = sc->c;
            if (ri->histogram)
                hist = sc->ev;
        }
        table_row(f, label, sc);
    }
    if (hist)
        table_hists(f, hist);
    if (nr.c)
        ncu_table(f, s, &ss, &nr);
    free(nr.c);
    scopes_free(&ss);
    return 0;
}

/* ---- JSON ---- */

void l2_json_str(FILE *f, const char *s)
{
    fputc('"', f);
    while (*s) {
        unsigned char c = (unsigned char)*s;
        size_t k = l2_utf8_len(s);
        if (k == 0) { /* not UTF-8 (a file name, a variant name): JSON must be */
            fputs("\\ufffd", f);
            k = 1;
        } else if (c == '"' || c == '\\') {
            fprintf(f, "\\%c", c);
        } else if (c < 0x20 || c == 0x7f) {
            fprintf(f, "\\u%04x", c);
        } else {
            fwrite(s, 1, k, f);
        }
        s += k;
    }
    fputc('"', f);
}

static void json_counters(FILE *f, const struct l2_counters *c)
{
    const uint64_t *v = (const uint64_t *)c;
    for (size_t i = 0; i < L2_NCOUNTERS; i++)
        fprintf(f, "%s\"%s\": %" PRIu64, i ? ", " : "", l2_counter_names[i], v[i]);
    for (unsigned m = 0; m < NRATES; m++) {
        double r = scope_rate(c, m);
        if (isnan(r))
            fprintf(f, ", \"%s\": null", rate_names[m]);
        else
            fprintf(f, ", \"%s\": %.6f", rate_names[m], r);
    }
}

static void json_hist(FILE *f, const uint64_t h[L2_NLAT][L2_HIST_BUCKETS])
{
    for (int c = 0; c < L2_NLAT; c++) {
        fprintf(f, "%s\"%s\": [", c ? ", " : "", l2_lat_names[c]);
        for (int b = 0; b < L2_HIST_BUCKETS; b++)
            fprintf(f, "%s%" PRIu64, b ? ", " : "", h[c][b]);
        fputc(']', f);
    }
}

static void json_mean(FILE *f, const struct l2_keval *ev, int prio)
{
    fputs("\"mean_latency_cycles\": {", f);
    for (int c = 0; c < L2_NLAT; c++) {
        double m = mean_latency(ev, prio, c);
        fprintf(f, "%s\"%s\": ", c ? ", " : "", l2_lat_names[c]);
        if (isnan(m))
            fputs("null", f);
        else
            fprintf(f, "%.1f", m);
    }
    fputc('}', f);
}

/* "est_ns" and "time" of a kernel or the totals. */
static void json_time(FILE *f, const struct l2_keval *ev, uint64_t requests, const char *ind)
{
    uint64_t all[L2_NLAT][L2_HIST_BUCKETS];
    hist_all(ev, all);
    fprintf(f, ", \"est_ns\": %.1f,\n%s\"time\": {\"cycles\": %.1f, \"requests\": %" PRIu64 ", \"bound_ns\": {",
            ev->est_ns, ind, ev->cycles, requests);
    for (unsigned r = 0; r < L2_NRES; r++)
        fprintf(f, "%s\"%s\": %.1f", r ? ", " : "", l2_res_names[r], ev->bound_ns[r]);
    fputs("}, ", f);
    json_mean(f, ev, -1);
    fprintf(f, ",\n%s  \"latency_histogram\": {", ind);
    json_hist(f, (const uint64_t(*)[L2_HIST_BUCKETS])all);
    fprintf(f, ",\n%s    \"by_priority\": {", ind);
    int first = 1;
    for (unsigned p = 0; p < L2_NPRIO; p++) {
        if (!prio_sectors(ev, p))
            continue;
        fprintf(f, "%s\n%s      \"%s\": {", first ? "" : ",", ind, l2_prio_names[p]);
        json_hist(f, ev->hist[p]);
        fputs(", ", f);
        json_mean(f, ev, (int)p);
        fputc('}', f);
        first = 0;
    }
    if (!first)
        fprintf(f, "\n%s    ", ind);
    fputs("}}}", f);
}

static void json_groups(FILE *f, const struct l2_counters prio[L2_NPRIO], const struct l2_counters *tag, uint32_t ntag,
                        const struct l2_symtab *syms, const char *ind)
{
    int first = 1;
    fprintf(f, ",\n%s\"by_priority\": {", ind);
    for (unsigned p = 0; p < L2_NPRIO; p++) {
        if (!used(&prio[p]))
            continue;
        fprintf(f, "%s\n%s  \"%s\": {", first ? "" : ",", ind, l2_prio_names[p]);
        json_counters(f, &prio[p]);
        fputc('}', f);
        first = 0;
    }
    if (!first)
        fprintf(f, "\n%s", ind);
    fprintf(f, "},\n%s\"by_tag\": {", ind);
    first = 1;
    for (uint32_t t = 0; t < ntag; t++) {
        if (!used(&tag[t]))
            continue;
        fprintf(f, "%s\n%s  ", first ? "" : ",", ind);
        l2_json_str(f, l2_sym_name(syms, t));
        fputs(": {", f);
        json_counters(f, &tag[t]);
        fputc('}', f);
        first = 0;
    }
    if (!first)
        fprintf(f, "\n%s", ind);
    fputc('}', f);
}

/* "by_buffer" of a kernel (or the totals) whose counters are `all`, in
 * allocation order, when the trace has allocations. */
static void json_buffers(FILE *f, const struct l2_sim *s, const struct l2_counters *buf, uint32_t n,
                         const struct l2_counters *all, const char *ind)
{
    if (s->buf.nrow <= 1)
        return;
    int first = 1;
    fprintf(f, ",\n%s\"by_buffer\": {", ind);
    for (uint32_t b = 0; b < n; b++) {
        if (!used(&buf[b]))
            continue;
        fprintf(f, "%s\n%s  ", first ? "" : ",", ind);
        l2_json_str(f, s->buf.row[b].name);
        fputs(": {", f);
        json_counters(f, &buf[b]);
        double sh = dram_share(&buf[b], all);
        if (isnan(sh))
            fputs(", \"dram_share\": null}", f);
        else
            fprintf(f, ", \"dram_share\": %.6f}", sh);
        first = 0;
    }
    if (!first)
        fprintf(f, "\n%s", ind);
    fputc('}', f);
}

static void json_body(FILE *f, const struct l2_sim *s, const struct scopes *ss, const struct l2_run_info *ri,
                      const struct ncu_res *nr, const char *ind)
{
    char buf[512];
    fprintf(f, "%s\"l2sim\": \"%s\",\n%s\"trace\": ", ind, L2SIM_VERSION, ind);
    l2_json_str(f, ri->trace);
    fprintf(f, ",\n%s\"records_read\": %" PRIu64 ",\n%s\"records_simulated\": %" PRIu64 ",\n%s\"accesses\": %" PRIu64
               ",\n",
            ind, ri->records, ind, s->records, ind, s->accesses);
    fprintf(f, "%s\"semantics\": \"%s\",\n%s\"config\": {", ind, sem_name(s->sem), ind);
    const char *key, *value;
    int text;
    for (size_t i = 0; (value = l2_config_entry_json(&s->l2.cfg, i, &key, buf, sizeof buf, &text)) != NULL; i++) {
        fprintf(f, "%s\"%s\": ", i ? ", " : "", key);
        if (text)
            l2_json_str(f, value);
        else
            fputs(value, f);
    }
    fprintf(f, "},\n%s\"policies\": [", ind);
    for (uint32_t i = 0; i < s->ndefs; i++) {
        const struct l2_def_log *d = &s->defs[i];
        fprintf(f, "%s\n%s  {", i ? "," : "", ind);
        if (d->is_window) {
            l2_window_describe(&d->win, s->sem, buf, sizeof buf);
            fprintf(f, "\"window_stream\": %u, \"applied\": ", d->name);
        } else {
            l2_policy_describe(&d->pol, s->sem, buf, sizeof buf);
            fputs("\"name\": ", f);
            l2_json_str(f, l2_sym_name(s->syms, d->name));
            fprintf(f, ", \"descriptor\": \"0x%016" PRIx64 "\", \"applied\": ", l2_policy_encode(&d->pol));
        }
        l2_json_str(f, buf);
        fputc('}', f);
    }
    fprintf(f, "%s],\n%s\"latency_buckets\": [", s->ndefs ? "\n" : "", ind);
    for (int b = 0; b < L2_HIST_BUCKETS; b++)
        fprintf(f, "%s%u", b ? ", " : "", l2_hist_lower[b]);
    fprintf(f, "],\n%s\"kernels\": [", ind);
    char ind2[64];
    snprintf(ind2, sizeof ind2, "%s    ", ind);
    for (uint32_t i = 0; i < s->nk; i++) {
        const struct l2_kstats *k = &s->k[i];
        fprintf(f, "%s\n%s  {\"name\": ", i ? "," : "", ind);
        l2_json_str(f, k->name);
        fprintf(f, ", \"index\": %u, \"stream\": %u, \"alongside\": [", i + 1, k->stream);
        for (uint32_t j = 0; j < k->nwith; j++)
            fprintf(f, "%s%u", j ? ", " : "", k->with[j] + 1);
        fputs("], ", f);
        json_counters(f, &k->total);
        json_time(f, &ss->ev[i], k->total.accesses, ind2);
        json_groups(f, k->prio, k->tag, k->ntag, s->syms, ind2);
        json_buffers(f, s, k->buf, k->nbuf, &k->total, ind2);
        fputc('}', f);
    }
    /* the totals: the fields of a kernel, at one level deeper than the key */
    char ind1[64];
    snprintf(ind1, sizeof ind1, "%s  ", ind);
    fprintf(f, "%s],\n%s\"totals\": {", s->nk ? "\n" : "", ind);
    json_counters(f, &ss->total);
    json_time(f, &ss->ev[s->nk], ss->total.accesses, ind1);
    json_groups(f, ss->prio, ss->tag, s->nbind, s->syms, ind1);
    json_buffers(f, s, ss->buf, s->buf.nrow, &ss->total, ind1);
    fputc('}', f);
    if (nr && nr->c)
        ncu_json(f, s, nr, ind);
    fputc('\n', f);
}

int l2_report_json(FILE *f, const struct l2_sim *s, const struct l2_run_info *ri, l2_err *e)
{
    struct scopes ss;
    struct ncu_res nr;
    if (collect(s, &ss, e) < 0)
        return -1;
    if (ncu_start(s, ri, &nr, e) < 0) {
        scopes_free(&ss);
        return -1;
    }
    fputs("{\n", f);
    json_body(f, s, &ss, ri, &nr, "  ");
    fputs("}\n", f);
    free(nr.c);
    scopes_free(&ss);
    return 0;
}

/* ---- CSV ---- */

/* A CSV field, quoted when it holds a comma, quote or newline. */
static void csv_str(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\n\r")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

/* One CSV row: a scope of a kernel (index 0: the totals) with its
 * estimated time (the kernel's, on its "all" row) and its share of the
 * kernel's DRAM traffic. */
static void csv_row(FILE *f, const char *variant, const struct l2_sim *s, const struct scope *sc,
                    const struct l2_counters *all)
{
    if (variant) {
        csv_str(f, variant);
        fputc(',', f);
    }
    fprintf(f, "%u,", sc->kernel);
    csv_str(f, sc->kname);
    if (sc->kernel)
        fprintf(f, ",%u,%s,", s->k[sc->kernel - 1].stream, kind_names[sc->kind]);
    else
        fprintf(f, ",,%s,", kind_names[sc->kind]);
    if (sc->kind != SC_ALL)
        csv_str(f, sc->name);
    const uint64_t *v = (const uint64_t *)sc->c;
    for (size_t j = 0; j < L2_NCOUNTERS; j++)
        fprintf(f, ",%" PRIu64, v[j]);
    for (unsigned m = 0; m < NRATES; m++) {
        double r = scope_rate(sc->c, m);
        if (isnan(r))
            fputs(",", f);
        else
            fprintf(f, ",%.6f", r);
    }
    if (sc->kind == SC_ALL)
        fprintf(f, ",%.1f", sc->ev->est_ns);
    else
        fputs(",", f);
    double sh = dram_share(sc->c, all);
    if (isnan(sh))
        fputs(",\n", f);
    else
        fprintf(f, ",%.6f\n", sh);
}

int l2_report_csv(FILE *f, const struct l2_sim *s, int with_header, const char *variant, l2_err *e)
{
    struct scopes ss;
    if (collect(s, &ss, e) < 0)
        return -1;
    if (with_header) {
        fputs(variant ? "variant,index,kernel,stream,scope,name" : "index,kernel,stream,scope,name", f);
        for (size_t i = 0; i < L2_NCOUNTERS; i++)
            fprintf(f, ",%s", l2_counter_names[i]);
        for (unsigned m = 0; m < NRATES; m++)
            fprintf(f, ",%s", rate_names[m]);
        fputs(",est_ns,dram_share\n", f);
    }
    const struct l2_counters *all = NULL; /* the kernel's "all" row comes first */
    for (size_t i = 0; i < ss.n; i++) {
        if (ss.v[i].kind == SC_ALL)
            all = ss.v[i].c;
        csv_row(f, variant, s, &ss.v[i], all);
    }
    scopes_free(&ss);
    return 0;
}

/* ---- compare ---- */

/* Every variant's rows (n entries), or NULL when out of memory. */
static struct scopes *collect_all(struct l2_sim *const *v, unsigned n, l2_err *e)
{
    struct scopes *ss = calloc(n, sizeof *ss);
    if (!ss)
        l2_fail(e, "out of memory");
    for (unsigned i = 0; ss && i < n; i++)
        if (collect(v[i], &ss[i], e) < 0) {
            while (i--)
                scopes_free(&ss[i]);
            free(ss);
            ss = NULL;
        }
    return ss;
}

static void free_all(struct scopes *ss, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        scopes_free(&ss[i]);
    free(ss);
}

int l2_compare_table(FILE *f, struct l2_sim *const *v, const char *const *names, unsigned n,
                     const struct l2_run_info *ri, l2_err *e)
{
    struct scopes *ss = collect_all(v, n, e);
    if (!ss)
        return -1;
    double *vals = malloc(3 * n * sizeof *vals); /* a row's hit rate in every variant; time; DRAM */
    if (!vals) {
        free_all(ss, n);
        return l2_fail(e, "out of memory");
    }
    fprintf(f, "l2sim %s compare\ntrace: %s: %" PRIu64 " records read, %" PRIu64 " simulated\n", L2SIM_VERSION,
            ri->trace, ri->records, v[0]->records);
    for (unsigned i = 0; i < n; i++) {
        char b[32];
        fprintf(f, "variant %u: %s (%s semantics, l2_size %s, ways %llu, partitions %u, set-aside %s)\n", i + 1,
                names[i], sem_name(v[i]->sem), l2_fmt_bytes(v[i]->l2.cfg.l2_size, b, sizeof b),
                (unsigned long long)v[i]->l2.cfg.ways, v[i]->l2.nparts,
                l2_fmt_bytes(v[i]->l2.cfg.setaside, (char[32]){0}, 32));
    }
    fprintf(f, "\nhit rate %% (sectors found in L2 / sectors); delta = variant - variant 1, in points\n");
    fprintf(f, "%-36s", "kernel / scope");
    for (unsigned i = 0; i < n; i++)
        fprintf(f, " %12.12s", names[i]);
    for (unsigned i = 1; i < n; i++)
        fprintf(f, "  delta %-5u", i + 1);
    fputc('\n', f);
    /* Rows of variant 1; the same row is looked up in the others. */
    for (size_t r = 0; r < ss[0].n; r++) {
        const struct scope *a = &ss[0].v[r];
        char label[200], sl[160];
        scope_label(a, sl, sizeof sl);
        if (a->kind == SC_ALL)
            snprintf(label, sizeof label, "%u:%s", a->kernel, a->kname);
        else
            snprintf(label, sizeof label, "  %s", sl);
        fprintf(f, "%-36.36s", label);
        double base = scope_rate(a->c, 0);
        for (unsigned i = 0; i < n; i++) {
            vals[i] = NAN;
            for (size_t q = 0; q < ss[i].n; q++) {
                const struct scope *b = &ss[i].v[q];
                if (b->kernel == a->kernel && b->kind == a->kind && strcmp(b->name, a->name) == 0) {
                    vals[i] = scope_rate(b->c, 0);
                    break;
                }
            }
            if (isnan(vals[i]))
                fprintf(f, " %12s", "-");
            else
                fprintf(f, " %12.2f", 100 * vals[i]);
        }
        for (unsigned i = 1; i < n; i++) {
            if (isnan(vals[i]) || isnan(base))
                fprintf(f, "  %-11s", "-");
            else
                fprintf(f, "  %+-11.2f", 100 * (vals[i] - base));
        }
        fputc('\n', f);
    }
    /* what the hit rates cost: each kernel's estimated time and DRAM traffic */
    fprintf(f, "\nestimated time (us) and DRAM bytes read + written (MB) per kernel; delta = variant / variant 1 "
               "- 1, in %%\n");
    fprintf(f, "%-36s", "kernel");
    for (unsigned i = 0; i < n; i++)
        fprintf(f, " %9.9s us %9.9s MB", names[i], names[i]);
    for (unsigned i = 1; i < n; i++)
        fprintf(f, "  d%-2u us%% d%-2u MB%%", i + 1, i + 1);
    fputc('\n', f);
    for (size_t r = 0; r < ss[0].n; r++) {
        const struct scope *a = &ss[0].v[r];
        if (a->kind != SC_ALL)
            continue;
        char label[200];
        snprintf(label, sizeof label, "%u:%s", a->kernel, a->kname);
        fprintf(f, "%-36.36s", label);
        double *t = vals + n, *d = vals + 2 * n;
        for (unsigned i = 0; i < n; i++) {
            t[i] = d[i] = NAN;
            for (size_t q = 0; q < ss[i].n; q++) {
                const struct scope *b = &ss[i].v[q];
                if (b->kernel == a->kernel && b->kind == SC_ALL) {
                    t[i] = b->ev ? b->ev->est_ns / 1000 : NAN;
                    d[i] = (double)dram_bytes(b->c) / 1e6;
                    break;
                }
            }
            fprintf(f, " %12.2f %12.3f", t[i], d[i]);
        }
        for (unsigned i = 1; i < n; i++) {
            char dt[16] = "-", dd[16] = "-";
            if (t[0] > 0 && !isnan(t[i]))
                snprintf(dt, sizeof dt, "%+.1f", 100 * (t[i] / t[0] - 1));
            if (d[0] > 0 && !isnan(d[i]))
                snprintf(dd, sizeof dd, "%+.1f", 100 * (d[i] / d[0] - 1));
            fprintf(f, "  %7s %7s", dt, dd);
        }
        fputc('\n', f);
    }
    free(vals);
    free_all(ss, n);
    return 0;
}

int l2_compare_json(FILE *f, struct l2_sim *const *v, const char *const *names, unsigned n,
                    const struct l2_run_info *ri, l2_err *e)
{
    struct scopes *ss = collect_all(v, n, e);
    if (!ss)
        return -1;
    fputs("{\n  \"variants\": [", f);
    for (unsigned i = 0; i < n; i++) {
        fprintf(f, "%s\n    {\n      \"variant\": ", i ? "," : "");
        l2_json_str(f, names[i]);
        fputs(",\n", f);
        json_body(f, v[i], &ss[i], ri, NULL, "      ");
        fputs("    }", f);
    }
    fputs("\n  ]\n}\n", f);
    free_all(ss, n);
    return 0;
}

/* ---- JSON lines ---- */

/* One line: the run's identity (trace, variant, semantics, every
 * configuration value), its totals and each kernel's all-accesses counters,
 * rates and estimated time, without groups, buffers or histograms. */
static void jsonl_line(FILE *f, const struct l2_sim *s, const struct scopes *ss, const struct l2_run_info *ri,
                       const char *variant)
{
    char buf[512];
    fprintf(f, "{\"l2sim\": \"%s\", \"trace\": ", L2SIM_VERSION);
    l2_json_str(f, ri->trace);
    fputs(", \"variant\": ", f);
    if (variant)
        l2_json_str(f, variant);
    else
        fputs("null", f);
    fprintf(f, ", \"records\": %" PRIu64 ", \"semantics\": \"%s\", \"config\": {", ri->records, sem_name(s->sem));
    const char *key, *value;
    int text;
    for (size_t i = 0; (value = l2_config_entry_json(&s->l2.cfg, i, &key, buf, sizeof buf, &text)) != NULL; i++) {
        fprintf(f, "%s\"%s\": ", i ? ", " : "", key);
        if (text)
            l2_json_str(f, value);
        else
            fputs(value, f);
    }
    fputs("}, \"totals\": {", f);
    json_counters(f, &ss->total);
    fprintf(f, ", \"est_ns\": %.1f}, \"kernels\": [", ss->ev[s->nk].est_ns);
    for (uint32_t i = 0; i < s->nk; i++) {
        const struct l2_kstats *k = &s->k[i];
        fputs(i ? ", {\"name\": " : "{\"name\": ", f);
        l2_json_str(f, k->name);
        fprintf(f, ", \"index\": %u, \"stream\": %u, \"alongside\": [", i + 1, k->stream);
        for (uint32_t j = 0; j < k->nwith; j++)
            fprintf(f, "%s%u", j ? ", " : "", k->with[j] + 1);
        fputs("], ", f);
        json_counters(f, &k->total);
        fprintf(f, ", \"est_ns\": %.1f}", ss->ev[i].est_ns);
    }
    fputs("]}\n", f);
}

int l2_report_jsonl(FILE *f, struct l2_sim *const *v, const char *const *names, unsigned n,
                    const struct l2_run_info *ri, l2_err *e)
{
    struct scopes *ss = collect_all(v, n, e);
    if (!ss)
        return -1;
    for (unsigned i = 0; i < n; i++)
        jsonl_line(f, v[i], &ss[i], ri, names ? names[i] : NULL);
    free_all(ss, n);
    return 0;
}

/* ---- compare as HTML ---- */

#define HTML_GROUPS 24 /* kernels or buffers the bars show at most */

struct html_key {
    double key;
    uint32_t i;
};

/* The largest key first; ties in index order. */
static int by_key(const void *x, const void *y)
{
    const struct html_key *a = x, *b = y;
    if (a->key != b->key)
        return a->key < b->key ? 1 : -1;
    return a->i < b->i ? -1 : a->i > b->i;
}

static int by_index(const void *x, const void *y)
{
    const unsigned *a = x, *b = y;
    return *a < *b ? -1 : *a > *b;
}

/* The indices of the at most HTML_GROUPS entries of k (n of them) with
 * the largest keys, in index order, into sel; k is sorted.  Returns how
 * many. */
static unsigned html_pick(struct html_key *k, uint32_t n, unsigned *sel)
{
    unsigned m = n < HTML_GROUPS ? n : HTML_GROUPS;
    if (n > HTML_GROUPS)
        qsort(k, n, sizeof *k, by_key);
    for (unsigned j = 0; j < m; j++)
        sel[j] = k[j].i;
    qsort(sel, m, sizeof *sel, by_index);
    return m;
}

/* Grouped bars of one value per variant: vals[i * ng + g]. */
static void html_bars(FILE *f, const char *id, const char *title, const char *vname, enum l2_unit unit,
                      const char *const *group, unsigned ng, const double *vals, const char *const *names, unsigned n,
                      struct l2_series *ser)
{
    for (unsigned i = 0; i < n; i++)
        ser[i] = (struct l2_series){names[i], vals + (size_t)i * ng, NULL};
    struct l2_bar_chart c = {.id = id, .title = title, .vname = vname, .unit = unit, .group = group, .ngroup = ng,
                             .s = ser, .ns = n};
    l2_svg_bar_chart(f, &c);
}

int l2_compare_html(FILE *f, struct l2_sim *const *v, const char *const *names, unsigned n,
                    const struct l2_run_info *ri, l2_err *e)
{
    const struct l2_sim *s0 = v[0];
    uint32_t nk = s0->nk, nrow = s0->buf.nrow;
    for (unsigned i = 1; i < n; i++)
        nk = v[i]->nk < nk ? v[i]->nk : nk;
    const int buffers = nrow > 1;
    /* everything the page needs, before anything is written */
    struct l2_counters *tot = calloc((size_t)n * (1 + L2_NPRIO), sizeof *tot), **buf = calloc(n, sizeof *buf);
    double *est = calloc(n, sizeof *est);
    struct html_key *key = calloc((size_t)(nk > nrow ? nk : nrow) + 1, sizeof *key);
    double *vals = calloc((size_t)n * (4 * HTML_GROUPS + 2 * L2_NPRIO), sizeof *vals);
    struct l2_series *ser = calloc(n, sizeof *ser);
    int ok = tot && buf && est && key && vals && ser;
    for (unsigned i = 0; ok && i < n && buffers; i++)
        ok = (buf[i] = calloc(v[i]->buf.nrow, sizeof **buf)) != NULL;
    int rc = ok ? 0 : l2_fail(e, "out of memory");
    if (!ok)
        goto out;
    struct l2_keval ev;
    for (unsigned i = 0; i < n; i++) {
        struct l2_counters *t = &tot[i * (1 + L2_NPRIO)];
        for (uint32_t k = 0; k < v[i]->nk; k++) {
            l2_counters_add(t, &v[i]->k[k].total);
            for (unsigned p = 0; p < L2_NPRIO; p++)
                l2_counters_add(&t[1 + p], &v[i]->k[k].prio[p]);
            l2_ktime_eval(&v[i]->l2.cfg, &v[i]->k[k].time, &ev);
            est[i] += ev.est_ns;
        }
        if (buffers)
            l2_sim_buffer_totals(v[i], buf[i]);
    }
    char title[600], b[32], b2[32];
    snprintf(title, sizeof title, "l2sim compare: %s", ri->trace);
    l2_html_begin(f, title);
    fprintf(f, "<p class=\"note\">%" PRIu64 " records read, %" PRIu64 " simulated; %u variants. "
               "Hit rate: sectors found in L2 / sectors; DRAM bytes: read and written.</p>\n",
            ri->records, s0->records, n);
    fputs("<table>\n<tr><th>variant</th><th>semantics</th><th class=\"num\">L2</th><th class=\"num\">ways</th>"
          "<th class=\"num\">set-aside</th><th class=\"num\">hit rate</th><th class=\"num\">DRAM bytes</th>"
          "<th class=\"num\">change</th><th class=\"num\">est. time</th></tr>\n",
          f);
    for (unsigned i = 0; i < n; i++) {
        const struct l2_counters *t = &tot[i * (1 + L2_NPRIO)];
        double d = (double)dram_bytes(t), d0 = (double)dram_bytes(&tot[0]);
        fputs("<tr><td class=\"name\">", f);
        l2_html_escape(f, names[i]);
        fprintf(f, "</td><td>%s</td><td class=\"num\">%s</td><td class=\"num\">%llu</td><td class=\"num\">%s</td>",
                sem_name(v[i]->sem), l2_fmt_value((double)v[i]->l2.cfg.l2_size, L2_UNIT_BYTES, b, sizeof b),
                (unsigned long long)v[i]->l2.cfg.ways, l2_fmt_value((double)v[i]->l2.cfg.setaside, L2_UNIT_BYTES, b2,
                                                                     sizeof b2));
        fprintf(f, "<td class=\"num\">%s</td>",
                l2_fmt_value(rate(t->sector_hits, t->sectors), L2_UNIT_RATE, b, sizeof b));
        fprintf(f, "<td class=\"num\">%s</td>", l2_fmt_value(d, L2_UNIT_BYTES, b, sizeof b));
        if (i == 0) {
            fputs("<td class=\"num\">-</td>", f);
        } else {
            fprintf(f, "<td class=\"num %s\">%s%s", d < d0 ? "better" : d > d0 ? "worse" : "", d > d0 ? "+" : "",
                    l2_fmt_value(d - d0, L2_UNIT_BYTES, b, sizeof b));
            if (d0 > 0)
                fprintf(f, " (%+.1f%%)", 100 * (d - d0) / d0);
            fputs("</td>", f);
        }
        fprintf(f, "<td class=\"num\">%s</td></tr>\n", l2_fmt_value(est[i], L2_UNIT_NS, b, sizeof b));
    }
    fputs("</table>\n", f);

    /* per kernel */
    unsigned sel[HTML_GROUPS], ns;
    char label[HTML_GROUPS][L2_MAX_KNAME + 16];
    const char *group[HTML_GROUPS];
    for (uint32_t k = 0; k < nk; k++)
        key[k] = (struct html_key){(double)dram_bytes(&s0->k[k].total), k};
    ns = html_pick(key, nk, sel);
    double *hit = vals, *dram = vals + (size_t)n * HTML_GROUPS;
    for (unsigned g = 0; g < ns; g++) {
        snprintf(label[g], sizeof label[g], "%u: %s", sel[g] + 1, s0->k[sel[g]].name);
        group[g] = label[g];
        for (unsigned i = 0; i < n; i++) {
            const struct l2_counters *c = &v[i]->k[sel[g]].total;
            hit[i * ns + g] = rate(c->sector_hits, c->sectors);
            dram[i * ns + g] = (double)dram_bytes(c);
        }
    }
    fputs("<h2>Kernels</h2>\n<p class=\"note\">", f);
    if (ns < nk)
        fprintf(f, "The %u kernels with the most DRAM traffic in the first variant, of %u, in trace order.", ns, nk);
    else
        fprintf(f, "The %u kernels, in trace order.", nk);
    fputs("</p>\n<div class=\"charts\">\n", f);
    html_bars(f, "kernel-hit-rate", "L2 hit rate per kernel", "hit rate", L2_UNIT_RATE, group, ns, hit, names, n,
              ser);
    html_bars(f, "kernel-dram", "DRAM bytes per kernel", "DRAM bytes", L2_UNIT_BYTES, group, ns, dram, names, n,
              ser);
    fputs("</div>\n", f);

    /* per buffer: the totals by buffer, when the trace has allocations */
    if (buffers) {
        uint32_t m = 0, nused = 0;
        unsigned row[HTML_GROUPS];
        for (uint32_t r = 0; r < nrow; r++)
            if (used(&buf[0][r]))
                key[nused++] = (struct html_key){(double)dram_bytes(&buf[0][r]), r};
        m = html_pick(key, nused, row);
        hit = vals + (size_t)n * 2 * HTML_GROUPS;
        dram = hit + (size_t)n * HTML_GROUPS;
        for (unsigned g = 0; g < m; g++) {
            const char *name = s0->buf.row[row[g]].name;
            group[g] = name;
            for (unsigned i = 0; i < n; i++) {
                int64_t r = l2_buffers_lookup(&v[i]->buf, name);
                const struct l2_counters *c = r >= 0 ? &buf[i][r] : NULL;
                hit[i * m + g] = c ? rate(c->sector_hits, c->sectors) : NAN;
                dram[i * m + g] = c ? (double)dram_bytes(c) : NAN;
            }
        }
        fputs("<h2>Buffers</h2>\n<p class=\"note\">", f);
        if (m < nused)
            fprintf(f, "The %u buffers with the most DRAM traffic in the first variant, of %u, in allocation order; "
                       "all kernels together.", m, nused);
        else
            fputs("Every buffer, in allocation order; all kernels together.", f);
        fputs("</p>\n<div class=\"charts\">\n", f);
        html_bars(f, "buffer-hit-rate", "L2 hit rate per buffer", "hit rate", L2_UNIT_RATE, group, m, hit, names, n,
                  ser);
        html_bars(f, "buffer-dram", "DRAM bytes per buffer", "DRAM bytes", L2_UNIT_BYTES, group, m, dram, names, n,
                  ser);
        fputs("</div>\n", f);
    }

    /* per applied priority */
    unsigned np = 0;
    for (unsigned p = 0; p < L2_NPRIO; p++) {
        int any = 0;
        for (unsigned i = 0; i < n; i++)
            any |= used(&tot[i * (1 + L2_NPRIO) + 1 + p]);
        if (any)
            group[np++] = l2_prio_names[p];
    }
    hit = vals + (size_t)n * 4 * HTML_GROUPS;
    double *sect = hit + (size_t)n * L2_NPRIO;
    for (unsigned g = 0, p = 0; g < np; p++) {
        if (strcmp(group[g], l2_prio_names[p]) != 0)
            continue;
        for (unsigned i = 0; i < n; i++) {
            const struct l2_counters *c = &tot[i * (1 + L2_NPRIO) + 1 + p];
            hit[i * np + g] = rate(c->sector_hits, c->sectors);
            sect[i * np + g] = (double)c->sectors;
        }
        g++;
    }
    fputs("<h2>Priorities</h2>\n<p class=\"note\">By the priority applied to each line (after policies and "
          "windows), all kernels together.</p>\n<div class=\"charts\">\n",
          f);
    html_bars(f, "priority-hit-rate", "L2 hit rate per applied priority", "hit rate", L2_UNIT_RATE, group, np, hit,
              names, n, ser);
    html_bars(f, "priority-sectors", "Sectors per applied priority", "sectors", L2_UNIT_COUNT, group, np, sect,
              names, n, ser);
    fputs("</div>\n", f);
    l2_html_end(f);
out:
    for (unsigned i = 0; buf && i < n; i++)
        free(buf[i]);
    free(tot);
    free(buf);
    free(est);
    free(key);
    free(vals);
    free(ser);
    return rc;
}

/* ---- expectations ---- */

static void scope_key(const struct scope *sc, char *buf, size_t n)
{
    if (sc->kernel)
        snprintf(buf, n, "kernel:%u:%s %s:%s", sc->kernel, sc->kname, kind_names[sc->kind], sc->name);
    else
        snprintf(buf, n, "totals %s:%s", kind_names[sc->kind], sc->name);
}

int l2_expect_write(FILE *f, const struct l2_sim *s, l2_err *e)
{
    struct scopes ss;
    if (collect(s, &ss, e) < 0)
        return -1;
    fputs("# l2sim expectation: SCOPE GROUP METRIC PERCENT (l2sim run --expect FILE compares with it)\n", f);
    for (size_t i = 0; i < ss.n; i++) {
        char key[300];
        scope_key(&ss.v[i], key, sizeof key);
        for (unsigned m = 0; m < NRATES; m++) {
            double r = scope_rate(ss.v[i].c, m);
            if (!isnan(r))
                fprintf(f, "%s %s %.4f\n", key, rate_names[m], 100 * r);
        }
    }
    scopes_free(&ss);
    return 0;
}

int l2_expect_check(const char *path, const struct l2_sim *s, double tol, FILE *diff, l2_err *e)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return l2_fail(e, "%s: cannot open expectation file", path);
    struct scopes ss;
    if (collect(s, &ss, e) < 0) {
        fclose(f);
        return -1;
    }
    char line[600];
    unsigned long ln = 0, rows = 0;
    int ndiff = 0, rc = 0;
    unsigned char *checked = calloc(ss.n * NRATES + 1, 1); /* the run's rates the file names */
    if (!checked) {
        fclose(f);
        scopes_free(&ss);
        return l2_fail(e, "out of memory");
    }
    while (fgets(line, sizeof line, f)) {
        ln++;
        char *h = strchr(line, '#');
        if (h)
            *h = 0;
        char scope[300], group[300], met[64], val[64], extra[8];
        int k = sscanf(line, "%299s %299s %63s %63s %7s", scope, group, met, val, extra);
        if (k <= 0)
            continue;
        double want;
        if (k != 4 || l2_parse_double(val, strlen(val), &want, NULL) < 0) {
            rc = l2_fail(e, "%s:%lu: expected 'SCOPE GROUP METRIC PERCENT'", path, ln);
            break;
        }
        unsigned m;
        for (m = 0; m < NRATES; m++)
            if (strcmp(met, rate_names[m]) == 0)
                break;
        if (m == NRATES) {
            rc = l2_fail(e, "%s:%lu: unknown metric '%s'", path, ln, met);
            break;
        }
        rows++;
        char want_key[620];
        snprintf(want_key, sizeof want_key, "%s %s", scope, group);
        double got = NAN;
        for (size_t i = 0; i < ss.n; i++) {
            char key[300];
            scope_key(&ss.v[i], key, sizeof key);
            if (strcmp(key, want_key) == 0) {
                got = 100 * scope_rate(ss.v[i].c, m);
                checked[i * NRATES + m] = 1;
                break;
            }
        }
        if (isnan(got)) {
            fprintf(diff, "%s %s: expected %.4f, not in this run\n", want_key, met, want);
            ndiff++;
        } else if (fabs(got - want) > tol + 5e-5) {
            fprintf(diff, "%s %s: expected %.4f, got %.4f (%+.4f points; tolerance %.4f)\n", want_key, met, want, got,
                    got - want, tol);
            ndiff++;
        }
    }
    fclose(f);
    if (rc == 0 && rows == 0)
        rc = l2_fail(e, "%s: no expectations in the file (it would check nothing)", path);
    if (rc == 0) {
        /* rates the file leaves out: a user may pin only some, so a warning */
        size_t missing = 0, first = 0;
        for (size_t i = 0; i < ss.n * NRATES; i++)
            if (!checked[i] && !isnan(scope_rate(ss.v[i / NRATES].c, (unsigned)(i % NRATES))) && !missing++)
                first = i;
        if (missing) {
            char key[300];
            scope_key(&ss.v[first / NRATES], key, sizeof key);
            fprintf(diff, "l2sim: warning: %zu rate%s of this run %s not in %s (the first: %s %s); --write-expect "
                    "writes them all\n", missing, missing == 1 ? "" : "s", missing == 1 ? "is" : "are", path, key,
                    rate_names[first % NRATES]);
        }
    }
    free(checked);
    scopes_free(&ss);
    return rc < 0 ? -1 : ndiff;
}

/*
 * advise_html.c - the advice as one self-contained HTML page (advise.h):
 * the suggestions table, the set-aside sweeps as line charts (DRAM bytes,
 * estimated time and hit rate against set-aside, one line per candidate,
 * the baseline dashed), bars per buffer (baseline and suggestions) and per kernel
 * (baseline and suggestion 1).  Inline CSS and SVG (svg.h), no script,
 * nothing fetched from elsewhere.
 */
#include "advise.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "svg.h"

#define HTML_KERNELS 24 /* kernels the per-kernel bars show at most */
#define LABEL_MAX 1536  /* a plan's label: up to 8 names and a window */

/* The assignments of p: "a persisting, x streaming"; with_window adds
 * "window on b, hitRatio 7/16"; "as traced" when it changes nothing. */
static void plan_label(const struct l2_advice *a, const struct l2_plan *p, int with_window, char *buf, size_t n)
{
    size_t k = 0;
    buf[0] = 0;
    for (unsigned i = 0; i < a->nbuf && k < n; i++)
        if (p->assign[i] != ASSIGN_NONE && p->assign[i] < L2_NASSIGN)
            k += (size_t)snprintf(buf + k, n - k, "%s%s %s", k ? ", " : "", a->buf[i].name,
                                  l2_assign_names[p->assign[i]]);
    if (with_window && p->window >= 0 && (unsigned)p->window < a->nbuf && k < n)
        k += (size_t)snprintf(buf + k, n - k, "%swindow on %s, hitRatio %u/16", k ? ", " : "",
                              a->buf[p->window].name, p->window_n ? p->window_n - 1 : 0);
    if (k == 0)
        snprintf(buf, n, "as traced");
}

static const char *plan_setaside(const struct l2_plan *p, char *buf, size_t n)
{
    if (!p->setaside_set)
        return "as traced";
    return l2_fmt_value((double)p->setaside, L2_UNIT_BYTES, buf, n);
}

static double plan_rate(const struct l2_plan *p)
{
    return p->sectors ? (double)p->hits / (double)p->sectors : NAN;
}

static double buf_rate(const struct l2_plan *p, unsigned i)
{
    return p->buf_sectors[i] ? (double)p->buf_hits[i] / (double)p->buf_sectors[i] : NAN;
}

static void td_num(FILE *f, const char *text)
{
    fputs("<td class=\"num\">", f);
    l2_html_escape(f, text);
    fputs("</td>", f);
}

/* A row of the suggestions table; rank 0 is the baseline. */
static void table_row(FILE *f, const struct l2_advice *a, unsigned rank, const struct l2_plan *p)
{
    char label[LABEL_MAX], b[32];
    const struct l2_plan *base = &a->plan[0];
    fputs("<tr>", f);
    if (rank)
        fprintf(f, "<td class=\"num\">%u</td>", rank);
    else
        fputs("<td>baseline</td>", f);
    plan_label(a, p, 0, label, sizeof label);
    if (p->window >= 0 && strcmp(label, "as traced") == 0)
        snprintf(label, sizeof label, "-");
    fputs("<td class=\"name\">", f);
    l2_html_escape(f, label);
    fputs("</td>", f);
    td_num(f, plan_setaside(p, b, sizeof b));
    if (p->window >= 0 && (unsigned)p->window < a->nbuf) {
        fputs("<td class=\"name\">", f);
        l2_html_escape(f, a->buf[p->window].name);
        fprintf(f, ", hitRatio %u/16", p->window_n ? p->window_n - 1 : 0);
        if (a->opts && a->opts->base.sem == SEM_HARDWARE)
            fprintf(f, " (applied: %u/16)", p->window_n);
        fputs("</td>", f);
    } else {
        fputs("<td>-</td>", f);
    }
    td_num(f, l2_fmt_value((double)p->dram, L2_UNIT_BYTES, b, sizeof b));
    if (rank) {
        double d = (double)p->dram - (double)base->dram;
        fprintf(f, "<td class=\"num %s\">%s", d < 0 ? "better" : d > 0 ? "worse" : "", d > 0 ? "+" : "");
        l2_html_escape(f, l2_fmt_value(d, L2_UNIT_BYTES, b, sizeof b));
        if (base->dram)
            fprintf(f, " (%+.1f%%)", 100 * d / (double)base->dram);
        fputs("</td>", f);
    } else {
        fputs("<td class=\"num\">-</td>", f);
    }
    td_num(f, l2_fmt_value(plan_rate(p), L2_UNIT_RATE, b, sizeof b));
    td_num(f, l2_fmt_value(p->est_ns, L2_UNIT_NS, b, sizeof b));
    fputs("</tr>\n", f);
}

/* The kernels the bars show (indices below min(nk, L2_ADVISE_MAX_KERNELS),
 * in trace order): all of them, or the HTML_KERNELS with the most
 * baseline DRAM traffic.  Returns how many. */
static unsigned pick_kernels(const struct l2_advice *a, unsigned *sel)
{
    unsigned nk = a->nk < L2_ADVISE_MAX_KERNELS ? a->nk : L2_ADVISE_MAX_KERNELS;
    char taken[L2_ADVISE_MAX_KERNELS] = {0};
    if (nk <= HTML_KERNELS) {
        for (unsigned i = 0; i < nk; i++)
            sel[i] = i;
        return nk;
    }
    for (unsigned n = 0; n < HTML_KERNELS; n++) {
        unsigned best = nk;
        for (unsigned i = 0; i < nk; i++)
            if (!taken[i] && (best == nk || a->plan[0].k_dram[i] > a->plan[0].k_dram[best]))
                best = i;
        taken[best] = 1;
    }
    unsigned n = 0;
    for (unsigned i = 0; i < nk; i++)
        if (taken[i])
            sel[n++] = i;
    return n;
}

static void sweeps(FILE *f, const struct l2_advice *a)
{
    char b[32], b2[32];
    fputs("<h2>Set-aside sweeps</h2>\n", f);
    if (a->nsweep == 0 || a->nsteps == 0) {
        fputs("<p class=\"note\">No candidate persists a buffer, so no set-aside was swept.</p>\n", f);
        return;
    }
    double step = (double)(a->cfg.l2_size / (a->cfg.ways ? a->cfg.ways : 1));
    fprintf(f, "<p class=\"note\">The best candidates that persist something, simulated at every set-aside "
               "from 0 to %s in steps of %s (L2 size / ways); the dashed line is the baseline.</p>\n",
            l2_fmt_value(step * (a->nsteps - 1), L2_UNIT_BYTES, b, sizeof b),
            l2_fmt_value(step, L2_UNIT_BYTES, b2, sizeof b2));
    double x[L2_ADVISE_MAX_STEPS], dram[3][L2_ADVISE_MAX_STEPS], hit[3][L2_ADVISE_MAX_STEPS],
        tm[3][L2_ADVISE_MAX_STEPS];
    static const unsigned maxs = sizeof a->sweep / sizeof a->sweep[0];
    char names[3][LABEL_MAX];
    struct l2_series sd[3], sh[3], st[3];
    unsigned ns = a->nsweep < maxs ? a->nsweep : maxs, nx = a->nsteps;
    for (unsigned k = 0; k < nx; k++)
        x[k] = step * k;
    for (unsigned s = 0; s < ns; s++) {
        for (unsigned k = 0; k < nx; k++) {
            const struct l2_plan *p = &a->plan[a->sweep[s][k]];
            dram[s][k] = (double)p->dram;
            hit[s][k] = plan_rate(p);
            tm[s][k] = p->est_ns;
        }
        plan_label(a, &a->plan[a->sweep[s][0]], 1, names[s], sizeof names[s]);
        sd[s] = (struct l2_series){names[s], dram[s], NULL};
        sh[s] = (struct l2_series){names[s], hit[s], NULL};
        st[s] = (struct l2_series){names[s], tm[s], NULL};
    }
    const struct l2_plan *base = &a->plan[0];
    struct l2_line_chart c = {.id = "sweep-dram",
                              .title = "DRAM traffic against set-aside",
                              .xname = "set-aside",
                              .yname = "DRAM bytes",
                              .xunit = L2_UNIT_BYTES,
                              .yunit = L2_UNIT_BYTES,
                              .x = x,
                              .nx = nx,
                              .s = sd,
                              .ns = ns,
                              .ref_name = "baseline (as traced)",
                              .ref = (double)base->dram};
    fputs("<div class=\"charts\">\n", f);
    l2_svg_line_chart(f, &c);
    c.id = "sweep-time";
    c.title = "Estimated time against set-aside";
    c.yname = "estimated time";
    c.yunit = L2_UNIT_NS;
    c.s = st;
    c.ref = base->est_ns;
    l2_svg_line_chart(f, &c);
    c.id = "sweep-hit-rate";
    c.title = "L2 hit rate against set-aside";
    c.yname = "hit rate";
    c.yunit = L2_UNIT_RATE;
    c.s = sh;
    c.ref = plan_rate(base);
    l2_svg_line_chart(f, &c);
    fputs("</div>\n", f);
}

int l2_advice_html(FILE *f, const struct l2_advice *a, unsigned top, l2_err *e)
{
    if (top > a->nrank)
        top = a->nrank;
    unsigned *sug = malloc((top ? top : 1) * sizeof *sug);
    unsigned nsug = sug ? l2_advice_suggestions(a, top, sug) : 0, nser = 1 + nsug;
    double *vals = malloc((size_t)nser * (a->nbuf ? a->nbuf : 1) * 2 * sizeof *vals);
    struct l2_series *ser = malloc((size_t)nser * 2 * sizeof *ser);
    char *names = malloc((size_t)nser * LABEL_MAX);
    if (!sug || !vals || !ser || !names) {
        free(sug);
        free(vals);
        free(ser);
        free(names);
        return l2_fail(e, "out of memory");
    }
    const char *trace = a->opts && a->opts->trace ? l2_trace_label(a->opts->trace) : "(trace)";
    const struct l2_plan *base = &a->plan[0];
    char title[LABEL_MAX], b[32], b2[32], b3[32];
    snprintf(title, sizeof title, "l2sim advise: %s", trace);
    l2_html_begin(f, title);
    double step = (double)(a->cfg.l2_size / (a->cfg.ways ? a->cfg.ways : 1));
    fprintf(f, "<p class=\"note\">%llu records; L2 %s, %llu ways, set-aside up to %s in steps of %s; "
               "%u of the %u buffers with traffic considered; %u plans simulated in %u passes. "
               "Plans are ranked by estimated time, then DRAM bytes (read and written).</p>\n",
            (unsigned long long)a->records, l2_fmt_value((double)a->cfg.l2_size, L2_UNIT_BYTES, b, sizeof b),
            (unsigned long long)a->cfg.ways, l2_fmt_value((double)a->cfg.setaside_max, L2_UNIT_BYTES, b2, sizeof b2),
            l2_fmt_value(step, L2_UNIT_BYTES, b3, sizeof b3), a->nbuf, a->nbuf_all, a->nplans, a->passes);

    /* the suggestions */
    fputs("<h2>Suggestions</h2>\n", f);
    if (nsug == 0)
        fputs("<p class=\"note\">No plan saves DRAM traffic against the baseline.</p>\n", f);
    fputs("<table>\n<tr><th class=\"num\">rank</th><th>assignments</th><th class=\"num\">set-aside</th>"
          "<th>window</th><th class=\"num\">DRAM bytes</th><th class=\"num\">change</th>"
          "<th class=\"num\">hit rate</th><th class=\"num\">est. time</th></tr>\n",
          f);
    table_row(f, a, 0, base);
    for (unsigned r = 0; r < nsug; r++)
        table_row(f, a, r + 1, &a->plan[sug[r]]);
    fputs("</table>\n", f);

    sweeps(f, a);

    /* per buffer: the baseline and every suggestion */
    fputs("<h2>Buffers</h2>\n<table>\n<tr><th>buffer</th><th class=\"num\">allocation</th>"
          "<th class=\"num\">baseline DRAM bytes</th><th class=\"num\">baseline hit rate</th></tr>\n",
          f);
    const char *bufname[L2_ADVISE_MAX_BUF];
    for (unsigned i = 0; i < a->nbuf; i++) {
        bufname[i] = a->buf[i].name;
        fputs("<tr><td class=\"name\">", f);
        l2_html_escape(f, a->buf[i].name);
        fputs("</td>", f);
        td_num(f, l2_fmt_value((double)a->buf[i].bytes, L2_UNIT_BYTES, b, sizeof b));
        td_num(f, l2_fmt_value((double)base->buf_dram[i], L2_UNIT_BYTES, b, sizeof b));
        td_num(f, l2_fmt_value(buf_rate(base, i), L2_UNIT_RATE, b, sizeof b));
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
    for (unsigned j = 0; j < nser; j++) {
        const struct l2_plan *p = j ? &a->plan[sug[j - 1]] : base;
        char *name = names + (size_t)j * LABEL_MAX, label[LABEL_MAX];
        double *d = vals + (size_t)j * 2 * a->nbuf, *h = d + a->nbuf;
        if (j) {
            plan_label(a, p, 1, label, sizeof label);
            snprintf(name, LABEL_MAX, "%u: %.*s, set-aside %s", j, LABEL_MAX - 48, label,
                     plan_setaside(p, b, sizeof b));
        } else {
            snprintf(name, LABEL_MAX, "baseline (as traced)");
        }
        for (unsigned i = 0; i < a->nbuf; i++) {
            d[i] = (double)p->buf_dram[i];
            h[i] = buf_rate(p, i);
        }
        ser[j] = (struct l2_series){name, d, j ? l2_svg_color(j - 1) : "#9e9e9e"};
        ser[nser + j] = (struct l2_series){name, h, j ? l2_svg_color(j - 1) : "#9e9e9e"};
    }
    struct l2_bar_chart bc = {.id = "buffer-dram",
                              .title = "DRAM bytes per buffer",
                              .vname = "DRAM bytes",
                              .unit = L2_UNIT_BYTES,
                              .group = bufname,
                              .ngroup = a->nbuf,
                              .s = ser,
                              .ns = nser};
    fputs("<div class=\"charts\">\n", f);
    l2_svg_bar_chart(f, &bc);
    bc.id = "buffer-hit-rate";
    bc.title = "L2 hit rate per buffer";
    bc.vname = "hit rate";
    bc.unit = L2_UNIT_RATE;
    bc.s = ser + nser;
    l2_svg_bar_chart(f, &bc);
    fputs("</div>\n", f);

    /* per kernel: the baseline and suggestion 1 */
    unsigned sel[L2_ADVISE_MAX_KERNELS], nsel = pick_kernels(a, sel), nks = nsug ? 2 : 1;
    char klabel[HTML_KERNELS][L2_MAX_KNAME + 16];
    const char *kname[HTML_KERNELS];
    double kd[2][HTML_KERNELS], kt[2][HTML_KERNELS];
    for (unsigned n = 0; n < nsel; n++) {
        snprintf(klabel[n], sizeof klabel[n], "%u: %s", sel[n] + 1, a->kname[sel[n]]);
        kname[n] = klabel[n];
        for (unsigned j = 0; j < nks; j++) {
            const struct l2_plan *p = j ? &a->plan[sug[0]] : base;
            kd[j][n] = (double)p->k_dram[sel[n]];
            kt[j][n] = p->k_est_ns[sel[n]];
        }
    }
    fputs("<h2>Kernels</h2>\n<p class=\"note\">", f);
    unsigned stored = a->nk < L2_ADVISE_MAX_KERNELS ? a->nk : L2_ADVISE_MAX_KERNELS;
    if (nsel < stored)
        fprintf(f, "The %u kernels with the most baseline DRAM traffic of the first %u, in trace order", nsel,
                stored);
    else
        fprintf(f, "The %u kernels, in trace order", nsel);
    if (a->nk > stored)
        fprintf(f, " (the trace has %u; the search keeps the first %u)", a->nk, stored);
    fprintf(f, ", under the baseline%s.</p>\n", nsug ? " and suggestion 1" : "");
    struct l2_series ks[2] = {{names, kd[0], "#9e9e9e"}, {names + LABEL_MAX, kd[1], l2_svg_color(0)}};
    struct l2_series kts[2] = {{names, kt[0], "#9e9e9e"}, {names + LABEL_MAX, kt[1], l2_svg_color(0)}};
    bc = (struct l2_bar_chart){.id = "kernel-dram",
                               .title = "DRAM bytes per kernel",
                               .vname = "DRAM bytes",
                               .unit = L2_UNIT_BYTES,
                               .group = kname,
                               .ngroup = nsel,
                               .s = ks,
                               .ns = nks};
    fputs("<div class=\"charts\">\n", f);
    l2_svg_bar_chart(f, &bc);
    bc.id = "kernel-time";
    bc.title = "Estimated time per kernel";
    bc.vname = "estimated time";
    bc.unit = L2_UNIT_NS;
    bc.s = kts;
    l2_svg_bar_chart(f, &bc);
    fputs("</div>\n", f);
    l2_html_end(f);
    free(sug);
    free(vals);
    free(ser);
    free(names);
    return 0;
}

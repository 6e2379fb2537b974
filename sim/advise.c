/*
 * advise.c - the search of advise.h: plans as policy events, passes of
 * at most L2_MAX_VARIANTS plans through l2_simulate, ranking.  The
 * writers are in advise_report.c and advise_html.c.
 */
#include "advise.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *const l2_assign_names[L2_NASSIGN] = {"as traced", "persisting", "streaming", "normal"};

static uint64_t step_bytes(const struct l2_config *c)
{
    return c->l2_size / c->ways;
}

static int persists(const struct l2_plan *p, unsigned nbuf)
{
    if (p->window >= 0)
        return 1;
    for (unsigned i = 0; i < nbuf; i++)
        if (p->assign[i] == ASSIGN_PERSISTING)
            return 1;
    return 0;
}

static int same_plan(const struct l2_plan *a, const struct l2_plan *b)
{
    return memcmp(a->assign, b->assign, sizeof a->assign) == 0 && a->setaside_set == b->setaside_set &&
           (!a->setaside_set || a->setaside == b->setaside) && a->window == b->window &&
           (a->window < 0 || a->window_n == b->window_n);
}

/* A plan with nothing changed: the baseline. */
static struct l2_plan plain(void)
{
    struct l2_plan p;
    memset(&p, 0, sizeof p);
    p.window = -1;
    return p;
}

/* Adds plan p unless an equal one exists; its index, or -1 when the
 * search is full. */
static int add_plan(struct l2_advice *a, const struct l2_plan *p)
{
    for (unsigned i = 0; i < a->nplans; i++)
        if (same_plan(&a->plan[i], p))
            return (int)i;
    if (a->nplans == L2_ADVISE_MAX_PLANS)
        return -1;
    a->plan[a->nplans] = *p;
    return (int)a->nplans++;
}

/* Applies plan p to a simulator as --policy lines would. */
static int apply_plan(struct l2_sim *s, const struct l2_advice *a, const struct l2_plan *p, struct l2_symtab *syms,
                      l2_err *e)
{
    struct l2_event ev;
    for (unsigned i = 0; i < a->nbuf; i++) {
        /* a window applies to accesses without a hint: its buffer's are made so */
        const char *tag = l2_plan_tag(p, i);
        if (!tag)
            continue;
        memset(&ev, 0, sizeof ev);
        ev.type = EV_ASSIGN;
        strcpy(ev.label, a->buf[i].name);
        ev.tag = (uint32_t)l2_sym_find(syms, tag, strlen(tag));
        if (l2_sim_policy_event(s, &ev, e) < 0)
            return -1;
    }
    if (p->setaside_set) {
        memset(&ev, 0, sizeof ev);
        ev.type = EV_SETASIDE;
        ev.bytes = p->setaside;
        if (l2_sim_policy_event(s, &ev, e) < 0)
            return -1;
    }
    for (unsigned k = 0; p->window >= 0 && k < a->nstreams; k++) {
        memset(&ev, 0, sizeof ev);
        ev.type = EV_WINDOW;
        ev.stream = a->streams[k];
        ev.win = l2_plan_window(a, p);
        if (l2_sim_policy_event(s, &ev, e) < 0)
            return -1;
    }
    return 0;
}

/* What simulator s came to, into plan p. */
static int take_results(struct l2_sim *s, struct l2_advice *a, struct l2_plan *p, l2_err *e)
{
    p->dram = p->sectors = p->hits = 0;
    p->est_ns = 0;
    for (uint32_t i = 0; i < s->nk; i++) {
        const struct l2_kstats *k = &s->k[i];
        struct l2_keval ev;
        l2_ktime_eval(&s->l2.cfg, &k->time, &ev);
        p->dram += k->total.dram_rd + k->total.dram_wr;
        p->sectors += k->total.sectors;
        p->hits += k->total.sector_hits;
        p->est_ns += ev.est_ns;
        if (i < L2_ADVISE_MAX_KERNELS) {
            p->k_dram[i] = k->total.dram_rd + k->total.dram_wr;
            p->k_est_ns[i] = ev.est_ns;
        }
    }
    struct l2_counters *buf = calloc(s->buf.nrow, sizeof *buf);
    if (!buf)
        return l2_fail(e, "out of memory");
    l2_sim_buffer_totals(s, buf);
    for (unsigned i = 0; i < a->nbuf; i++) {
        int64_t r = l2_buffers_lookup(&s->buf, a->buf[i].name);
        const struct l2_counters *c = r >= 0 ? &buf[r] : NULL;
        p->buf_dram[i] = c ? c->dram_rd + c->dram_wr : 0;
        p->buf_sectors[i] = c ? c->sectors : 0;
        p->buf_hits[i] = c ? c->sector_hits : 0;
    }
    free(buf);
    return 0;
}

/* A buffer row and its baseline DRAM traffic, to sort. */
struct traffic {
    uint64_t dram;
    uint32_t row;
};

/* The most traffic first; ties in allocation order. */
static int by_traffic(const void *x, const void *y)
{
    const struct traffic *a = x, *b = y;
    if (a->dram != b->dram)
        return a->dram < b->dram ? 1 : -1;
    return a->row < b->row ? -1 : a->row > b->row;
}

/* From the baseline run: the kernels, their streams, and the buffers to
 * consider. */
static int survey(struct l2_advice *a, struct l2_sim *s, l2_err *e)
{
    a->cfg = s->l2.cfg;
    a->nk = s->nk;
    for (uint32_t i = 0; i < s->nk; i++) {
        if (i < L2_ADVISE_MAX_KERNELS)
            snprintf(a->kname[i], sizeof a->kname[i], "%s", s->k[i].name);
        unsigned k = 0;
        while (k < a->nstreams && a->streams[k] != s->k[i].stream)
            k++;
        if (k == a->nstreams && k < L2_ARRAY_LEN(a->streams))
            a->streams[a->nstreams++] = s->k[i].stream;
    }
    if (a->nstreams == 0)
        a->streams[a->nstreams++] = 0;
    struct l2_counters *buf = calloc(s->buf.nrow, sizeof *buf);
    struct traffic *order = calloc(s->buf.nrow, sizeof *order);
    if (!buf || !order) {
        free(buf);
        free(order);
        return l2_fail(e, "out of memory");
    }
    l2_sim_buffer_totals(s, buf);
    uint32_t n = 0;
    for (uint32_t r = 1; r < s->buf.nrow; r++)
        if (buf[r].sectors)
            order[n++] = (struct traffic){buf[r].dram_rd + buf[r].dram_wr, r};
    qsort(order, n, sizeof *order, by_traffic);
    a->nbuf_all = n;
    a->nbuf = n < a->opts->nbuf ? n : a->opts->nbuf;
    for (unsigned i = 0; i < a->nbuf; i++) {
        const struct l2_buf_row *row = &s->buf.row[order[i].row];
        struct l2_advise_buf *b = &a->buf[i];
        snprintf(b->name, sizeof b->name, "%s", row->name);
        b->base = row->base;
        b->bytes = row->bytes;
        b->dram = order[i].dram;
    }
    free(buf);
    free(order);
    if (a->nbuf == 0)
        return l2_fail(e, "%s: no allocation is accessed: advise needs alloc lines (l2trace writes them)",
                       l2_trace_label(a->opts->trace));
    return 0;
}

/* Simulates plans [first, last) in passes of at most L2_MAX_VARIANTS. */
static int run_plans(struct l2_advice *a, unsigned first, unsigned last, l2_err *e)
{
    const struct l2_advise_opts *o = a->opts;
    unsigned threads = o->threads;
    if (!threads) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        threads = cpus < 1 ? 1 : cpus > L2_MAX_THREADS ? L2_MAX_THREADS : (unsigned)cpus;
    }
    for (unsigned at = first; at < last;) {
        unsigned n = last - at < L2_MAX_VARIANTS ? last - at : L2_MAX_VARIANTS, ok = 0;
        struct l2_symtab syms;
        struct l2_sim sims[L2_MAX_VARIANTS], *sp[L2_MAX_VARIANTS];
        char names[L2_MAX_VARIANTS][24];
        const char *np[L2_MAX_VARIANTS];
        if (l2_symtab_init(&syms, e) < 0)
            return -1;
        int r = 0;
        for (; ok < n; ok++) {
            snprintf(names[ok], sizeof names[ok], "plan %u", at + ok);
            np[ok] = names[ok];
            sp[ok] = &sims[ok];
            if (l2_variant_setup(&sims[ok], &o->base, &syms, e) < 0) {
                r = -1;
                break;
            }
            if (apply_plan(&sims[ok], a, &a->plan[at + ok], &syms, e) < 0) {
                ok++;
                r = -1;
                break;
            }
        }
        int64_t rec = r < 0 ? -1 : l2_simulate(sp, np, n, threads, o->trace, o->serialize, &syms, e);
        if (rec >= 0) {
            a->records = (uint64_t)rec;
            if (at == 0) /* the baseline: the buffers to consider */
                r = survey(a, &sims[0], e);
            for (unsigned i = 0; i < n && r == 0; i++)
                r = take_results(&sims[i], a, &a->plan[at + i], e);
        } else {
            r = -1;
        }
        for (unsigned i = 0; i < ok; i++)
            l2_sim_free(&sims[i]);
        l2_symtab_free(&syms);
        if (r < 0)
            return -1;
        a->passes++;
        at += n;
    }
    return 0;
}

/* Buffers a plan changes, and whether it sets a window. */
static unsigned changes(const struct l2_plan *p)
{
    unsigned n = p->window >= 0;
    for (unsigned i = 0; i < L2_ADVISE_MAX_BUF; i++)
        n += p->assign[i] != ASSIGN_NONE;
    return n;
}

/* Plan order: less estimated time, then less DRAM traffic, then fewer
 * changes, then the plan simulated first.  (Time first: a large set-aside
 * can save DRAM bytes and still slow a kernel down, wb_room_ways.) */
static int better(const struct l2_plan *p, unsigned i, const struct l2_plan *q, unsigned j)
{
    if (p->est_ns != q->est_ns)
        return p->est_ns < q->est_ns;
    if (p->dram != q->dram)
        return p->dram < q->dram;
    if (changes(p) != changes(q))
        return changes(p) < changes(q);
    return i < j;
}

/* Plan p with buffer i given choice c; persisting ones at the largest
 * set-aside. */
static struct l2_plan with(const struct l2_advice *a, struct l2_plan p, unsigned i, enum l2_assign c)
{
    p.assign[i] = (uint8_t)c;
    if (persists(&p, a->nbuf)) {
        p.setaside_set = 1;
        p.setaside = a->cfg.setaside_max;
    }
    return p;
}

static int add_or_fail(struct l2_advice *a, const struct l2_plan *p, l2_err *e)
{
    int k = add_plan(a, p);
    return k < 0 ? l2_fail(e, "more than %u plans", L2_ADVISE_MAX_PLANS) : k;
}

/* Greedy: from the best plan, every remaining buffer's choices in one
 * pass; keep the best improvement; until none. */
static int greedy(struct l2_advice *a, l2_err *e)
{
    unsigned cur = 0;
    for (unsigned i = 1; i < a->nplans; i++)
        if (better(&a->plan[i], i, &a->plan[cur], cur))
            cur = i;
    for (;;) {
        unsigned first = a->nplans;
        struct l2_plan base = a->plan[cur];
        for (unsigned i = 0; i < a->nbuf; i++)
            for (unsigned c = ASSIGN_PERSISTING; base.assign[i] == ASSIGN_NONE && c < L2_NASSIGN; c++) {
                struct l2_plan p = with(a, base, i, (enum l2_assign)c);
                if (add_or_fail(a, &p, e) < 0)
                    return -1;
            }
        if (a->nplans == first)
            return 0;
        if (run_plans(a, first, a->nplans, e) < 0)
            return -1;
        unsigned best = cur;
        for (unsigned i = first; i < a->nplans; i++)
            if (better(&a->plan[i], i, &a->plan[best], best))
                best = i;
        if (best == cur)
            return 0;
        cur = best;
    }
}

/* Every assignment of the considered buffers. */
static int exhaustive(struct l2_advice *a, l2_err *e)
{
    unsigned total = 1;
    for (unsigned i = 0; i < a->nbuf; i++)
        total *= L2_NASSIGN;
    unsigned first = a->nplans;
    for (unsigned code = 1; code < total; code++) {
        struct l2_plan p = plain();
        unsigned c = code;
        for (unsigned i = 0; i < a->nbuf; i++, c /= L2_NASSIGN)
            p = with(a, p, i, (enum l2_assign)(c % L2_NASSIGN));
        if (add_or_fail(a, &p, e) < 0)
            return -1;
    }
    return run_plans(a, first, a->nplans, e);
}

/* Ranks every plan but the baseline, best first. */
static int rank_plans(struct l2_advice *a, l2_err *e)
{
    free(a->rank);
    a->rank = malloc(a->nplans * sizeof *a->rank);
    if (!a->rank)
        return l2_fail(e, "out of memory");
    a->nrank = 0;
    for (unsigned i = 1; i < a->nplans; i++) {
        unsigned k = a->nrank++;
        while (k > 0 && better(&a->plan[i], i, &a->plan[a->rank[k - 1]], a->rank[k - 1])) {
            a->rank[k] = a->rank[k - 1];
            k--;
        }
        a->rank[k] = i;
    }
    return 0;
}

/* Set-aside sweeps of the first ranked plans that persist something. */
static int sweeps(struct l2_advice *a, l2_err *e)
{
    uint64_t step = step_bytes(&a->cfg);
    a->nsteps = 0;
    while (a->nsteps < L2_ADVISE_MAX_STEPS && step * a->nsteps <= a->cfg.setaside_max)
        a->nsteps++;
    unsigned first = a->nplans;
    for (unsigned r = 0; r < a->nrank && a->nsweep < L2_ARRAY_LEN(a->sweep); r++) {
        struct l2_plan p = a->plan[a->rank[r]];
        if (!persists(&p, a->nbuf))
            continue;
        int dup = 0; /* one sweep per assignment */
        for (unsigned k = 0; k < a->nsweep; k++) {
            struct l2_plan q = a->plan[a->sweep[k][0]];
            q.setaside = p.setaside;
            dup |= same_plan(&p, &q);
        }
        if (dup)
            continue;
        for (unsigned k = 0; k < a->nsteps; k++) {
            p.setaside_set = 1;
            p.setaside = step * k;
            int idx = add_or_fail(a, &p, e);
            if (idx < 0)
                return -1;
            a->sweep[a->nsweep][k] = (unsigned)idx;
        }
        a->nsweep++;
    }
    return run_plans(a, first, a->nplans, e);
}

int l2_advise(const struct l2_advise_opts *o, struct l2_advice *a, l2_err *e)
{
    memset(a, 0, sizeof *a);
    a->opts = o;
    if (o->nbuf < 1 || o->nbuf > L2_ADVISE_MAX_BUF)
        return l2_fail(e, "buffers to consider must be 1 to %u", L2_ADVISE_MAX_BUF);
    if (o->exhaustive && o->nbuf > 3)
        return l2_fail(e, "an exhaustive search takes at most 3 buffers (4^3 = 64 plans)");
    a->plan = calloc(L2_ADVISE_MAX_PLANS, sizeof *a->plan);
    if (!a->plan)
        return l2_fail(e, "out of memory");
    struct l2_plan p = plain();
    if (add_or_fail(a, &p, e) < 0 || run_plans(a, 0, 1, e) < 0)
        goto fail;
    unsigned first = a->nplans;
    if (o->exhaustive) {
        if (exhaustive(a, e) < 0)
            goto fail;
    } else {
        for (unsigned i = 0; i < a->nbuf; i++)
            for (unsigned c = ASSIGN_PERSISTING; c < L2_NASSIGN; c++) {
                p = with(a, plain(), i, (enum l2_assign)c);
                if (add_or_fail(a, &p, e) < 0)
                    goto fail;
            }
        if (run_plans(a, first, a->nplans, e) < 0 || greedy(a, e) < 0)
            goto fail;
        /* windows over the two buffers with the most traffic */
        first = a->nplans;
        for (unsigned i = 0; i < a->nbuf && i < 2; i++)
            for (unsigned n = 2; n <= 16; n += 2) {
                p = plain();
                p.window = (int)i;
                p.window_n = n;
                p.setaside_set = 1;
                p.setaside = a->cfg.setaside_max;
                if (add_or_fail(a, &p, e) < 0)
                    goto fail;
            }
        if (run_plans(a, first, a->nplans, e) < 0)
            goto fail;
    }
    if (rank_plans(a, e) < 0 || sweeps(a, e) < 0 || rank_plans(a, e) < 0)
        goto fail;
    return 0;
fail:
    l2_advice_free(a);
    return -1;
}

void l2_advice_free(struct l2_advice *a)
{
    free(a->plan);
    free(a->rank);
    a->plan = NULL;
    a->rank = NULL;
}

const char *l2_plan_tag(const struct l2_plan *p, unsigned i)
{
    if (p->assign[i] != ASSIGN_NONE)
        return l2_assign_names[p->assign[i]];
    return p->window == (int)i ? "global" : NULL;
}

struct l2_window_spec l2_plan_window(const struct l2_advice *a, const struct l2_plan *p)
{
    const struct l2_advise_buf *b = &a->buf[p->window];
    return (struct l2_window_spec){.base = b->base,
                                   .bytes = b->bytes < L2_WINDOW_MAX ? b->bytes : L2_WINDOW_MAX,
                                   .hit_ratio = (p->window_n - 1) / 16.0,
                                   .hit_prop = PRIO_EVICT_LAST,
                                   .miss_prop = PRIO_EVICT_FIRST};
}

/* Two plans that differ only in their set-aside or window hitRatio. */
static int same_choice(const struct l2_plan *p, const struct l2_plan *q)
{
    return memcmp(p->assign, q->assign, sizeof p->assign) == 0 && p->window == q->window;
}

/* Two plans of a set-aside sweep: the same choices and hitRatio, each with a set-aside. */
static int same_set(const struct l2_plan *q, const struct l2_plan *p)
{
    return same_choice(q, p) && q->window_n == p->window_n && q->setaside_set && p->setaside_set;
}

/* Whether p makes every change q makes (the same window, if any) and more. */
static int adds_to(const struct l2_plan *p, const struct l2_plan *q)
{
    if (q->window != p->window || changes(p) <= changes(q))
        return 0;
    for (unsigned i = 0; i < L2_ADVISE_MAX_BUF; i++)
        if (q->assign[i] != ASSIGN_NONE && q->assign[i] != p->assign[i])
            return 0;
    return 1;
}

unsigned l2_advice_suggestions(const struct l2_advice *a, unsigned top, unsigned *out)
{
    unsigned n = 0, first[L2_ADVISE_MAX_PLANS]; /* the ranked plan each suggestion came from */
    for (unsigned r = 0; r < a->nrank && n < top; r++) {
        const struct l2_plan *p = &a->plan[a->rank[r]];
        int seen = 0; /* the same choices, the same outcome, or a listed plan's changes and more for no less */
        for (unsigned k = 0; k < n; k++) {
            const struct l2_plan *q = &a->plan[first[k]], *o = &a->plan[out[k]];
            seen |= same_choice(q, p) || (o->dram == p->dram && o->hits == p->hits && o->est_ns == p->est_ns) ||
                    adds_to(p, q);
        }
        if (seen || !better(p, a->rank[r], &a->plan[0], 0))
            continue; /* nothing gained on the trace as it is */
        /* the same choices (and this hitRatio) with the smallest set-aside
         * that gives as little time and DRAM traffic (the best of its sweep) */
        unsigned best = a->rank[r];
        for (unsigned i = 1; i < a->nplans; i++) {
            const struct l2_plan *q = &a->plan[i];
            if (same_set(q, p) && q->est_ns <= p->est_ns && q->dram <= p->dram && q->setaside < a->plan[best].setaside)
                best = i;
        }
        first[n] = a->rank[r];
        out[n++] = best;
    }
    return n;
}

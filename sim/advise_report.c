/*
 * advise_report.c - what advise prints: the search it made, the baseline,
 * and each suggestion with its predicted savings, the --policy lines that
 * simulate it, the CUDA code that applies it and the caveats the
 * hardware imposes; as a table or as JSON.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advise.h"
#include "report.h"

#define MAX_TOP 16

static double pct_of(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : NAN;
}

static double change_pct(double now, double before)
{
    return before != 0 ? 100.0 * (now - before) / before : NAN;
}

/* A name as a C identifier for the code samples: other characters become '_'. */
static void ident(const char *name, char *out, size_t n)
{
    size_t k = 0;
    if (n == 0)
        return;
    if (!((name[0] >= 'a' && name[0] <= 'z') || (name[0] >= 'A' && name[0] <= 'Z') || name[0] == '_') && k + 1 < n)
        out[k++] = '_';
    for (; *name && k + 1 < n; name++) {
        char c = *name;
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
        out[k++] = ok ? c : '_';
    }
    out[k] = 0;
}

/* Bytes in MiB with two decimals. */
static const char *mib(uint64_t v, char *buf, size_t n)
{
    snprintf(buf, n, "%.2f MiB", (double)v / 1048576.0);
    return buf;
}

/* "a persisting, x streaming; set-aside 16 MiB" and the like. */
static void describe(const struct l2_advice *a, const struct l2_plan *p, char *buf, size_t n)
{
    size_t k = 0;
    buf[0] = 0;
    for (unsigned i = 0; i < a->nbuf && k < n; i++)
        if (p->assign[i] != ASSIGN_NONE)
            k += (size_t)snprintf(buf + k, n - k, "%s%s %s", k ? ", " : "", a->buf[i].name,
                                  l2_assign_names[p->assign[i]]);
    if (p->window >= 0 && k < n)
        k += (size_t)snprintf(buf + k, n - k, "%swindow on %s, hitRatio %u/16 (%u/16 applied)", k ? ", " : "",
                              a->buf[p->window].name, p->window_n - 1, p->window_n);
    if (k == 0 && k < n)
        k += (size_t)snprintf(buf + k, n - k, "as traced");
    if (p->setaside_set && k < n) {
        char b[32];
        snprintf(buf + k, n - k, "; set-aside %s (%" PRIu64 "/%llu of L2)", l2_fmt_bytes(p->setaside, b, sizeof b),
                 p->setaside / (a->cfg.l2_size / a->cfg.ways), (unsigned long long)a->cfg.ways);
    }
}

void l2_plan_policy(FILE *f, const struct l2_advice *a, const struct l2_plan *p, const char *ind)
{
    for (unsigned i = 0; i < a->nbuf; i++)
        if (l2_plan_tag(p, i))
            fprintf(f, "%sassign %s %s\n", ind, a->buf[i].name, l2_plan_tag(p, i));
    if (p->setaside_set)
        fprintf(f, "%ssetaside %" PRIu64 "\n", ind, p->setaside);
    for (unsigned s = 0; p->window >= 0 && s < a->nstreams; s++) {
        struct l2_window_spec w = l2_plan_window(a, p);
        fprintf(f, "%swindow 0x%" PRIx64 " %" PRIu64 " %.4f persisting streaming stream=%u\n", ind, w.base, w.bytes,
                w.hit_ratio, a->streams[s]);
    }
}

/* The CUDA code that applies plan p, each line after `ind`. */
static void cuda_code(FILE *f, const struct l2_advice *a, const struct l2_plan *p, const char *ind)
{
    if (p->setaside_set)
        fprintf(f,
                "%scudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, %" PRIu64 ");"
                "  // at most cudaDevAttrMaxPersistingL2CacheSize\n",
                ind, p->setaside);
    for (unsigned i = 0; i < a->nbuf; i++) {
        if (p->assign[i] == ASSIGN_NONE)
            continue;
        char id[80], sz[32];
        ident(a->buf[i].name, id, sizeof id);
        fprintf(f, "%s// %s: %s at 0x%" PRIx64 "; in every kernel that accesses it (T: its element type):\n", ind,
                a->buf[i].name, l2_fmt_bytes(a->buf[i].bytes, sz, sizeof sz), a->buf[i].base);
        fprintf(f, "%scuda::annotated_ptr<T, cuda::access_property::%s> %s_p{%s};\n", ind, l2_assign_names[p->assign[i]], id,
                id);
    }
    if (p->window >= 0) {
        const struct l2_advise_buf *b = &a->buf[p->window];
        struct l2_window_spec w = l2_plan_window(a, p);
        char id[80];
        ident(b->name, id, sizeof id);
        fprintf(f, "%s// access %s without cache hints (plain pointers): the window applies to those accesses\n", ind,
                b->name);
        fprintf(f, "%scudaStreamAttrValue attr = {};\n", ind);
        fprintf(f, "%sattr.accessPolicyWindow.base_ptr  = %s;  // 0x%" PRIx64 "\n", ind, id, b->base);
        fprintf(f, "%sattr.accessPolicyWindow.num_bytes = %" PRIu64 ";  // at most %" PRIu64 " (caveats)\n", ind, w.bytes,
                L2_WINDOW_MAX);
        fprintf(f, "%sattr.accessPolicyWindow.hitRatio  = %.4ff;  // the hardware applies %u/16 of the lines\n", ind,
                w.hit_ratio, p->window_n);
        fprintf(f, "%sattr.accessPolicyWindow.hitProp   = cudaAccessPropertyPersisting;\n", ind);
        fprintf(f, "%sattr.accessPolicyWindow.missProp  = cudaAccessPropertyStreaming;\n", ind);
        fprintf(f, "%s// on the stream of every kernel that reads %s (trace streams:", ind, b->name);
        for (unsigned s = 0; s < a->nstreams; s++)
            fprintf(f, " %u", a->streams[s]);
        fprintf(f, ")\n%scudaStreamSetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &attr);\n", ind);
    }
}

/* The persisting bytes plan p asks for: its persisting buffers, and the
 * share of its window's bytes that the hardware makes persisting. */
static uint64_t plan_persisting(const struct l2_advice *a, const struct l2_plan *p)
{
    uint64_t n = 0;
    for (unsigned i = 0; i < a->nbuf; i++)
        if (p->assign[i] == ASSIGN_PERSISTING)
            n += a->buf[i].bytes;
    if (p->window >= 0)
        n += l2_plan_window(a, p).bytes / 16 * p->window_n;
    return n;
}

static void caveats(FILE *f, const struct l2_advice *a, const unsigned *sug, unsigned ns)
{
    char b1[32], b2[32];
    fprintf(f,
            "caveats:\n"
            "  - the set-aside takes effect in steps of %s (L2 / %llu ways) up to %s (setaside_max); persisting lines\n"
            "    stay until evicted by other persisting lines or cudaCtxResetPersistingL2Cache()\n"
            "  - a window's hitRatio applies in sixteenths (floor(16 x hitRatio) + 1 of its lines, as measured), to\n"
            "    accesses without a hint of their own, and num_bytes is capped at %llu (cudaDevAttrMaxAccessPolicyWindowSize\n"
            "    of the A100 and H100; the H200 reports 134217728 and ignores a window that large, measured)\n"
            "  - libcu++ rounds fractions of cuda::access_property(ptr, bytes, fraction, ...) to 1/16 (a fraction\n"
            "    below 1 applies 1/16); annotated_ptr with a static property, as above, applies to every access\n"
            "  - an assignment applies to every kernel that accesses the buffer; the savings are the model's\n"
            "    (%s semantics), for this trace\n",
            l2_fmt_bytes(a->cfg.l2_size / a->cfg.ways, b1, sizeof b1), (unsigned long long)a->cfg.ways,
            l2_fmt_bytes(a->cfg.setaside_max, b2, sizeof b2), (unsigned long long)L2_WINDOW_MAX,
            a->opts->base.sem == SEM_HARDWARE ? "hardware" : "documented");
    /* Persisting data that fills more than half its set-aside: how much of
     * it the GPU keeps depends on its physical placement (measured,
     * calibration/h100/placement.md: 6 and 10 MiB in 9.4 MiB vary with the
     * placement, 10 MiB in 31.25 MiB does not). */
    unsigned n = 0;
    for (unsigned r = 0; r < ns; r++) {
        const struct l2_plan *p = &a->plan[sug[r]];
        const uint64_t pb = plan_persisting(a, p);
        if (!p->setaside_set || !p->setaside || pb <= p->setaside / 2)
            continue; /* at set-aside 0 only the per-set floor keeps persisting lines */
        fprintf(f, "%s %u (%s in %s)", n++ ? "," : "  - persisting more than half the set-aside: suggestion",
                r + 1, l2_fmt_bytes(pb, b1, sizeof b1), l2_fmt_bytes(p->setaside, b2, sizeof b2));
    }
    if (n)
        fprintf(f, ";\n"
                   "    how much of such data the GPU keeps depends on where the buffers lie in physical memory (on the\n"
                   "    H100, 2 MiB beside a newer 8 MiB in 9.4 MiB: 0 to 77%% at 28 placements, mean 38%%); the\n"
                   "    prediction is about the mean over placements\n");
}

static void search_line(FILE *f, const struct l2_advice *a)
{
    fprintf(f, "search: %u of %u buffers with traffic considered; %u passes over the trace, %u plans simulated (%s)\n",
            a->nbuf, a->nbuf_all, a->passes, a->nplans,
            a->opts->exhaustive ? "every assignment of persisting, streaming, normal per buffer, then set-aside sweeps"
                                : "single changes, greedy passes over persisting, streaming, normal per buffer, "
                                  "windows at 8 hitRatios on 2 buffers, set-aside sweeps");
}

int l2_advice_table(FILE *f, const struct l2_advice *a, unsigned top, l2_err *e)
{
    (void)e;
    unsigned sug[MAX_TOP];
    unsigned ns = l2_advice_suggestions(a, top < MAX_TOP ? top : MAX_TOP, sug);
    const struct l2_plan *b = &a->plan[0];
    char s1[32], s2[32], d[512];
    fprintf(f, "l2sim %s advise\ntrace: %s: %" PRIu64 " records\n", L2SIM_VERSION, l2_trace_label(a->opts->trace), a->records);
    search_line(f, a);
    fprintf(f, "\nbaseline (the trace as it is): DRAM %s, hit rate %.2f%%, estimated time %.1f us\n",
            mib(b->dram, s1, sizeof s1), pct_of(b->hits, b->sectors), b->est_ns / 1000);
    fprintf(f, "  %-24s %18s %12s %12s %7s %7s\n", "buffer (by DRAM traffic)", "base", "size", "dram-B", "dram%",
            "hit%");
    for (unsigned i = 0; i < a->nbuf; i++)
        fprintf(f, "  %-24s %#18" PRIx64 " %12s %12" PRIu64 " %7.2f %7.2f\n", a->buf[i].name, a->buf[i].base,
                l2_fmt_bytes(a->buf[i].bytes, s1, sizeof s1), b->buf_dram[i], pct_of(b->buf_dram[i], b->dram),
                pct_of(b->buf_hits[i], b->buf_sectors[i]));
    if (ns == 0)
        fprintf(f, "\nno plan saves DRAM traffic over the baseline\n");
    for (unsigned r = 0; r < ns; r++) {
        const struct l2_plan *p = &a->plan[sug[r]];
        describe(a, p, d, sizeof d);
        fprintf(f, "\nsuggestion %u: %s\n", r + 1, d);
        fprintf(f, "  predicted: DRAM %s -> %s (%+.2f%%), hit rate %.2f%% -> %.2f%%, estimated time %.1f -> %.1f us "
                   "(%+.2f%%)\n",
                mib(b->dram, s1, sizeof s1), mib(p->dram, s2, sizeof s2),
                change_pct((double)p->dram, (double)b->dram), pct_of(b->hits, b->sectors),
                pct_of(p->hits, p->sectors), b->est_ns / 1000, p->est_ns / 1000, change_pct(p->est_ns, b->est_ns));
        for (unsigned i = 0; i < a->nbuf; i++)
            fprintf(f, "    %-22s hit %6.2f%% -> %6.2f%%, DRAM %12" PRIu64 " -> %12" PRIu64 " B\n", a->buf[i].name,
                    pct_of(b->buf_hits[i], b->buf_sectors[i]), pct_of(p->buf_hits[i], p->buf_sectors[i]),
                    b->buf_dram[i], p->buf_dram[i]);
        fprintf(f, "  --policy lines (l2sim run --policy FILE TRACE simulates it):\n");
        l2_plan_policy(f, a, p, "    ");
        fprintf(f, "  CUDA:\n");
        cuda_code(f, a, p, "    ");
    }
    fputc('\n', f);
    caveats(f, a, sug, ns);
    return 0;
}

/* ---- JSON ---- */

static void json_num(FILE *f, double v)
{
    if (isnan(v))
        fputs("null", f);
    else
        fprintf(f, "%.6f", v);
}

/* A string of lines as one JSON string. */
static void json_text(FILE *f, void (*write)(FILE *, const struct l2_advice *, const struct l2_plan *, const char *),
                      const struct l2_advice *a, const struct l2_plan *p)
{
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (!m) {
        fputs("null", f);
        return;
    }
    write(m, a, p, "");
    fclose(m);
    l2_json_str(f, text);
    free(text);
}

static void json_plan(FILE *f, const struct l2_advice *a, const struct l2_plan *p)
{
    fprintf(f, "\"dram_bytes\": %" PRIu64 ", \"sectors\": %" PRIu64 ", \"sector_hits\": %" PRIu64 ", \"hit_rate\": ",
            p->dram, p->sectors, p->hits);
    json_num(f, p->sectors ? (double)p->hits / (double)p->sectors : NAN);
    fprintf(f, ", \"est_ns\": %.1f, \"assign\": {", p->est_ns);
    int first = 1;
    for (unsigned i = 0; i < a->nbuf; i++)
        if (p->assign[i] != ASSIGN_NONE) {
            fputs(first ? "" : ", ", f);
            l2_json_str(f, a->buf[i].name);
            fprintf(f, ": \"%s\"", l2_assign_names[p->assign[i]]);
            first = 0;
        }
    fputs("}, \"setaside\": ", f);
    if (p->setaside_set)
        fprintf(f, "%" PRIu64, p->setaside);
    else
        fputs("null", f);
    fputs(", \"window\": ", f);
    if (p->window >= 0) {
        fputs("{\"buffer\": ", f);
        l2_json_str(f, a->buf[p->window].name);
        fprintf(f, ", \"hit_ratio\": %.4f, \"applied_sixteenths\": %u}", l2_plan_window(a, p).hit_ratio, p->window_n);
    } else {
        fputs("null", f);
    }
    fputs(", \"by_buffer\": {", f);
    for (unsigned i = 0; i < a->nbuf; i++) {
        fputs(i ? ", " : "", f);
        l2_json_str(f, a->buf[i].name);
        fprintf(f, ": {\"dram_bytes\": %" PRIu64 ", \"sectors\": %" PRIu64 ", \"sector_hits\": %" PRIu64 "}",
                p->buf_dram[i], p->buf_sectors[i], p->buf_hits[i]);
    }
    fputc('}', f);
}

int l2_advice_json(FILE *f, const struct l2_advice *a, unsigned top, l2_err *e)
{
    (void)e;
    unsigned sug[MAX_TOP];
    unsigned ns = l2_advice_suggestions(a, top < MAX_TOP ? top : MAX_TOP, sug);
    const struct l2_plan *b = &a->plan[0];
    fprintf(f, "{\n  \"l2sim\": \"%s\",\n  \"trace\": ", L2SIM_VERSION);
    l2_json_str(f, l2_trace_label(a->opts->trace));
    fprintf(f, ",\n  \"records\": %" PRIu64 ",\n  \"search\": {\"exhaustive\": %s, \"buffers_considered\": %u, "
               "\"buffers_with_traffic\": %u, \"passes\": %u, \"plans\": %u},\n  \"buffers\": [",
            a->records, a->opts->exhaustive ? "true" : "false", a->nbuf, a->nbuf_all, a->passes, a->nplans);
    for (unsigned i = 0; i < a->nbuf; i++) {
        fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
        l2_json_str(f, a->buf[i].name);
        fprintf(f, ", \"base\": \"0x%" PRIx64 "\", \"bytes\": %" PRIu64 ", \"dram_bytes\": %" PRIu64 "}",
                a->buf[i].base, a->buf[i].bytes, a->buf[i].dram);
    }
    fputs("\n  ],\n  \"baseline\": {", f);
    json_plan(f, a, b);
    fputs("},\n  \"suggestions\": [", f);
    for (unsigned r = 0; r < ns; r++) {
        const struct l2_plan *p = &a->plan[sug[r]];
        fprintf(f, "%s\n    {\"rank\": %u, ", r ? "," : "", r + 1);
        json_plan(f, a, p);
        fprintf(f, ", \"dram_saved_bytes\": %" PRId64 ", \"est_ns_change\": %.1f, \"policy\": ",
                (int64_t)(b->dram - p->dram), p->est_ns - b->est_ns);
        json_text(f, l2_plan_policy, a, p);
        fputs(", \"cuda\": ", f);
        json_text(f, cuda_code, a, p);
        fputc('}', f);
    }
    fputs(ns ? "\n  ],\n" : "],\n", f);
    fputs("  \"setaside_sweeps\": [", f);
    for (unsigned k = 0; k < a->nsweep; k++) {
        fprintf(f, "%s\n    [", k ? "," : "");
        for (unsigned s = 0; s < a->nsteps; s++) {
            const struct l2_plan *p = &a->plan[a->sweep[k][s]];
            fprintf(f, "%s{\"setaside\": %" PRIu64 ", \"dram_bytes\": %" PRIu64 ", \"hit_rate\": ", s ? ", " : "",
                    p->setaside, p->dram);
            json_num(f, p->sectors ? (double)p->hits / (double)p->sectors : NAN);
            fputc('}', f);
        }
        fputc(']', f);
    }
    fputs(a->nsweep ? "\n  ]\n}\n" : "]\n}\n", f);
    return 0;
}

/*
 * main.c - the l2sim command line: subcommands, option parsing, exit
 * codes.  The only place that prints errors and exits.
 *
 * Exit codes: 0 success, 1 an expectation (--expect) failed, 2 bad input
 * or usage (the message names the file, line and reason).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "advise.h"
#include "coalesce.h"
#include "config.h"
#include "driver.h"
#include "import_accelsim.h"
#include "l1.h"
#include "policy.h"
#include "report.h"
#include "sim.h"
#include "source.h"
#include "symtab.h"
#include "trace.h"

#define EXIT_EXPECT 1
#define EXIT_INPUT 2
#define MAX_VARIANTS L2_MAX_VARIANTS
#define MAX_SETS L2_MAX_SETS
#define MAX_THREADS L2_MAX_THREADS

static const char *prog = "l2sim";

static int die(const l2_err *e)
{
    fprintf(stderr, "%s: %s\n", prog, e->msg);
    return EXIT_INPUT;
}

/* "l2sim CMD: MESSAGE (see 'l2sim CMD --help')"; returns EXIT_INPUT. */
__attribute__((format(printf, 2, 3))) static int usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s %s: ", prog, cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " (see '%s %s --help')\n", prog, cmd);
    return EXIT_INPUT;
}

/* ---- help texts ---- */

static void help_main(FILE *f)
{
    fprintf(f,
            "l2sim %s - trace-driven simulator of the NVIDIA Ampere/Hopper L2 cache with eviction priorities\n"
            "\n"
            "usage: l2sim COMMAND [OPTIONS] ...\n"
            "\n"
            "commands:\n"
            "  run       simulate a trace and report hit rates per kernel, priority and tag\n"
            "  compare   simulate two or more variants over one trace, side by side\n"
            "  advise    suggest which buffers to make persisting or streaming, with set-aside and window\n"
            "  encode    print the 64-bit policy descriptor of a request, or decode one\n"
            "  convert   convert a trace between the text and binary formats, optionally compressed\n"
            "  import    convert traces of other tools (import accelsim: Accel-Sim's NVBit tracer)\n"
            "  help      this text; 'l2sim help COMMAND' or 'l2sim COMMAND --help' explains a command\n"
            "\n"
            "exit codes: 0 success, 1 an expectation (--expect) failed, 2 bad input or usage\n",
            L2SIM_VERSION);
}

static void help_common(FILE *f)
{
    fprintf(f, "  --config FILE      GPU configuration (key = value file); default: built-in H100 values\n"
               "  --set KEY=VALUE    override one configuration key (repeatable)\n"
               "  --policy FILE      policy/window/setaside lines that override the trace's definitions\n"
               "                     of the same policy name, window stream or set-aside, and assign\n"
               "                     lines (assign BUFFER TAG, assign BASE BYTES TAG) that give a buffer's\n"
               "                     or an address range's accesses another tag\n"
               "  --semantics M      hardware (default): what the descriptor encodes, as the GPU applies it;\n"
               "                     documented: exact fractions and byte ranges as requested\n"
               "  --json | --csv     machine-readable output instead of the table\n"
               "  --jsonl            one compact JSON line (per variant): trace, variant, configuration,\n"
               "                     totals and kernels, for concatenating many runs\n"
               "  --threads N        simulate with N threads (run: N lanes that own disjoint sets of the\n"
               "                     cache; compare: variants spread over N threads; default: run 1,\n"
               "                     compare the number of CPUs); results are identical for any N\n"
               "  --serialize        replay kernels one after another in trace order; by default kernels\n"
               "                     that no stream, event or sync orders run concurrently, their accesses\n"
               "                     interleaved by their share of the SMs (README: Concurrent kernels)\n");
}

static void help_run(FILE *f)
{
    fprintf(f, "usage: l2sim run [OPTIONS] TRACE        (TRACE '-' reads standard input)\n\n"
               "Simulates TRACE and reports, per kernel and in total, per applied priority and per tag:\n"
               "accesses, sectors, sector hits, hit rates (all, near partition, loads), sector misses split\n"
               "into line misses and sector-only misses, DRAM bytes read and written, and the timing model's\n"
               "mean latency (lat-cyc) and estimated kernel time (est-ns).\n\noptions:\n");
    help_common(f);
    fprintf(f, "  --write-expect FILE  also save the hit rates as an expectation file\n"
               "  --expect FILE      compare the hit rates with FILE; exit 1 and print the differences\n"
               "                     when one moved by more than the tolerance\n"
               "  --tolerance PP     allowed difference in percentage points (default 0; with --expect)\n"
               "  --ncu FILE         an `ncu --csv --page raw` export of the same program: print each\n"
               "                     kernel's measured L2 hit rates (matched by name and launch order) next\n"
               "                     to the simulated ones, with the differences (table and --json)\n"
               "  --histogram        table: after each kernel's rows and the totals', print their latency\n"
               "                     histograms (JSON always holds them; CSV has none)\n"
               "\nconfiguration keys (for --set and config files):\n");
    l2_config_help(f);
}

static void help_compare(FILE *f)
{
    fprintf(f,
            "usage: l2sim compare [OPTIONS] --variant SPEC --variant SPEC [...] TRACE\n\n"
            "Reads TRACE once and simulates every variant over it; prints the hit rate of each variant per\n"
            "kernel, priority and tag, and the difference to the first variant.\n\n"
            "SPEC is a comma-separated list of: name=LABEL, config=FILE, set=KEY=VALUE (repeatable),\n"
            "policy=FILE, semantics=hardware|documented.  A variant starts from the options given\n"
            "outside --variant: its config=, policy= and semantics= replace theirs, its set= apply after\n"
            "theirs.  Example:\n"
            "  l2sim compare --config configs/h100.cfg --variant name=default \\\n"
            "      --variant name=max-setaside,set=setaside=32768000 traces/update.trace\n\noptions:\n");
    help_common(f);
    fprintf(f, "  --variant SPEC     one variant (at least two)\n"
               "  --html FILE        also write the comparison as a self-contained HTML page: bars per kernel,\n"
               "                     buffer and priority (inline SVG, no script)\n");
}

static void help_advise(FILE *f)
{
    fprintf(f,
            "usage: l2sim advise [OPTIONS] TRACE\n\n"
            "Suggests which buffers (the trace's alloc lines) to make persisting, streaming or normal,\n"
            "with which set-aside, or which access-policy window and hitRatio, ranked by estimated time\n"
            "and then by the DRAM bytes they save.  The search is bounded: the baseline, every single\n"
            "change to the buffers with the most DRAM traffic, greedy passes that add one change at a\n"
            "time while it ranks higher, windows at 8 hitRatios on the two busiest buffers, and a\n"
            "set-aside sweep (steps of l2_size / ways) of the best plans; each pass simulates up to %u\n"
            "plans over one reading of the trace.  Each suggestion comes with its predicted savings per\n"
            "buffer, the --policy lines that simulate it and the CUDA code that applies it.\n\noptions:\n",
            L2_MAX_VARIANTS);
    fprintf(f, "  --config FILE      GPU configuration; default: built-in H100 values\n"
               "  --set KEY=VALUE    override one configuration key (repeatable)\n"
               "  --policy FILE      lines applied before every plan (see l2sim run --help)\n"
               "  --semantics M      hardware (default) or documented\n"
               "  --buffers N        buffers considered, by DRAM traffic (default 4, at most %u)\n"
               "  --top N            suggestions printed (default 3, at most 16)\n"
               "  --exhaustive       simulate every assignment of the buffers (at most 3) instead of the\n"
               "                     greedy passes\n"
               "  --json             machine-readable output instead of the table\n"
               "  --html FILE        also write the advice as a self-contained HTML page (inline SVG, no\n"
               "                     script): DRAM bytes and hit rate against set-aside per candidate,\n"
               "                     per-buffer and per-kernel bars, the suggestions table\n"
               "  --threads N        threads that run the plans of a pass (default: the number of CPUs)\n"
               "  --serialize        replay kernels one after another in trace order (see run --help)\n",
            L2_ADVISE_MAX_BUF);
}

static void help_encode(FILE *f)
{
    fprintf(f, "usage: l2sim encode REQUEST\n\n"
               "Prints the 64-bit descriptor that createpolicy (api=ptx) or libcu++ (api=libcu, the default)\n"
               "builds for a request, and what the hardware applies, next to what was requested.\n"
               "REQUEST is one of:\n"
               "  PRIORITY                                        e.g. evict_last, persisting\n"
               "  interleaved PRIMARY FRACTION [SECONDARY] [api=libcu|ptx]\n"
               "  range BASE LEADING TOTAL PRIMARY [SECONDARY] [api=libcu|ptx]\n"
               "  0xDESCRIPTOR                                    decode a descriptor\n"
               "examples:\n"
               "  l2sim encode interleaved persisting 0.5 streaming        (libcu++: 1/16 applied)\n"
               "  l2sim encode interleaved evict_last 0.5 evict_first api=ptx\n"
               "  l2sim encode 0x1570000000000000\n");
}

static void help_convert(FILE *f)
{
    fprintf(f, "usage: l2sim convert [--to text|binary] [--compress none|gzip|zstd] IN OUT\n\n"
               "Converts the trace IN (text or binary, plain, gzip, zstd or xz: recognised by its first bytes)\n"
               "into OUT; '-' is standard input or output.  Without --to, a text trace becomes binary and a\n"
               "binary trace text.  The conversion is lossless: every event reads back the same, and\n"
               "text -> binary -> text -> binary gives the same binary file.  Comments and the spelling\n"
               "of numbers and names are not kept (the text written is canonical).\n\n"
               "options:\n"
               "  --to text|binary            output format\n"
               "  --compress none|gzip|zstd   compress the output (default none); l2sim reads either\n"
               "examples:\n"
               "  l2sim convert traces/update.trace update.l2b\n"
               "  l2sim convert --compress zstd traces/update.trace update.l2b.zst\n"
               "  l2sim convert update.l2b - | less\n");
}

/* ---- options ---- */


struct opts {
    struct l2_variant common;
    struct l2_variant var[MAX_VARIANTS];
    char *var_text[MAX_VARIANTS];
    int nvar;
    int json, csv, jsonl;
    const char *expect, *write_expect;
    double tolerance;
    int tolerance_given;
    const char *trace;
    unsigned threads; /* 0: the default */
    int serialize;
    int histogram;
    unsigned nbuf, top; /* advise */
    int exhaustive;
    const char *html; /* compare, advise --html FILE */
    const char *ncu;  /* run --ncu FILE */
};

static int parse_sem(const char *v, enum l2_semantics *s)
{
    if (strcmp(v, "hardware") == 0)
        *s = SEM_HARDWARE;
    else if (strcmp(v, "documented") == 0)
        *s = SEM_DOCUMENTED;
    else
        return -1;
    return 0;
}

/* Parses "name=a,config=b,set=k=v,policy=p,semantics=m" in place. */
static int parse_variant(char *spec, struct l2_variant *v, const struct l2_variant *common, const char *cmd)
{
    *v = *common;
    v->name = NULL;
    for (char *item = strtok(spec, ","); item; item = strtok(NULL, ",")) {
        char *eq = strchr(item, '=');
        if (!eq)
            return usage_error(cmd, "a --variant item must be KEY=VALUE");
        *eq = 0;
        const char *val = eq + 1;
        if (strcmp(item, "name") == 0) {
            if (!*val)
                return usage_error(cmd, "a variant's name= is empty");
            if (l2_text_bad_at(val, strlen(val)) < strlen(val))
                return usage_error(cmd, "a variant's name= holds a control byte or invalid UTF-8");
            v->name = val;
        }
        else if (strcmp(item, "config") == 0)
            v->config = val;
        else if (strcmp(item, "policy") == 0)
            v->policy = val;
        else if (strcmp(item, "semantics") == 0) {
            if (parse_sem(val, &v->sem) < 0)
                return usage_error(cmd, "semantics must be hardware or documented");
        } else if (strcmp(item, "set") == 0) {
            if (v->nsets == MAX_SETS)
                return usage_error(cmd, "too many set= items");
            v->sets[v->nsets++] = val;
        } else {
            return usage_error(cmd, "unknown --variant item '%s' (name, config, set, policy, semantics)", item);
        }
    }
    return 0;
}

static int parse_opts(int argc, char **argv, const char *cmd, struct opts *o, void (*help)(FILE *))
{
    memset(o, 0, sizeof *o);
    o->common.sem = SEM_HARDWARE;
    int compare = strcmp(cmd, "compare") == 0, advise = strcmp(cmd, "advise") == 0;
    o->nbuf = 4;
    o->top = 3;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char *next = i + 1 < argc ? argv[i + 1] : NULL;
#define NEED_ARG()                                         \
    do {                                                   \
        if (!next)                                         \
            return usage_error(cmd, "%s needs a value", a); \
        i++;                                               \
    } while (0)
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            help(stdout);
            exit(0);
        } else if (strcmp(a, "--config") == 0) {
            NEED_ARG();
            o->common.config = next;
        } else if (strcmp(a, "--set") == 0) {
            NEED_ARG();
            if (o->common.nsets == MAX_SETS)
                return usage_error(cmd, "too many --set options");
            o->common.sets[o->common.nsets++] = next;
        } else if (strcmp(a, "--policy") == 0) {
            NEED_ARG();
            o->common.policy = next;
        } else if (strcmp(a, "--semantics") == 0) {
            NEED_ARG();
            if (parse_sem(next, &o->common.sem) < 0)
                return usage_error(cmd, "--semantics must be hardware or documented");
        } else if (strcmp(a, "--threads") == 0) {
            uint64_t t;
            NEED_ARG();
            if (l2_parse_u64(next, strlen(next), &t, NULL) < 0 || t < 1 || t > MAX_THREADS)
                return usage_error(cmd, "--threads needs a number from 1 to 64");
            o->threads = (unsigned)t;
        } else if (strcmp(a, "--serialize") == 0) {
            o->serialize = 1;
        } else if (strcmp(a, "--json") == 0) {
            o->json = 1;
        } else if (!advise && strcmp(a, "--csv") == 0) {
            o->csv = 1;
        } else if (!advise && strcmp(a, "--jsonl") == 0) {
            o->jsonl = 1;
        } else if (advise && (strcmp(a, "--buffers") == 0 || strcmp(a, "--top") == 0)) {
            uint64_t v;
            unsigned max = a[2] == 'b' ? L2_ADVISE_MAX_BUF : 16;
            NEED_ARG();
            if (l2_parse_u64(next, strlen(next), &v, NULL) < 0 || v < 1 || v > max)
                return usage_error(cmd, "%s needs a number from 1 to %u", a, max);
            *(a[2] == 'b' ? &o->nbuf : &o->top) = (unsigned)v;
        } else if (advise && strcmp(a, "--exhaustive") == 0) {
            o->exhaustive = 1;
        } else if (!compare && !advise && strcmp(a, "--expect") == 0) {
            NEED_ARG();
            o->expect = next;
        } else if (!compare && !advise && strcmp(a, "--ncu") == 0) {
            NEED_ARG();
            o->ncu = next;
        } else if (!compare && !advise && strcmp(a, "--histogram") == 0) {
            o->histogram = 1;
        } else if (!compare && !advise && strcmp(a, "--write-expect") == 0) {
            NEED_ARG();
            o->write_expect = next;
        } else if (!compare && !advise && strcmp(a, "--tolerance") == 0) {
            NEED_ARG();
            o->tolerance_given = 1;
            if (l2_parse_double(next, strlen(next), &o->tolerance, NULL) < 0 || o->tolerance < 0)
                return usage_error(cmd, "--tolerance needs a non-negative number of percentage points");
        } else if ((compare || advise) && strcmp(a, "--html") == 0) {
            NEED_ARG();
            o->html = next;
        } else if (compare && strcmp(a, "--variant") == 0) {
            NEED_ARG();
            if (o->nvar == MAX_VARIANTS)
                return usage_error(cmd, "too many variants");
            o->var_text[o->nvar++] = strdup(next);
        } else if (a[0] == '-' && a[1] != 0) {
            return usage_error(cmd, "unknown option '%s'", a);
        } else if (o->trace) {
            return usage_error(cmd, "more than one trace given");
        } else {
            o->trace = a;
        }
#undef NEED_ARG
    }
    if (!o->trace)
        return usage_error(cmd, "no trace given");
    if (o->json + o->csv + o->jsonl > 1)
        return usage_error(cmd, "--json, --jsonl and --csv exclude each other");
    for (int i = 0; i < o->nvar; i++) {
        if (!o->var_text[i]) {
            l2_err e;
            l2_fail(&e, "out of memory");
            return die(&e);
        }
        int rc = parse_variant(o->var_text[i], &o->var[i], &o->common, cmd);
        if (rc)
            return rc;
        if (!o->var[i].name) {
            static char names[MAX_VARIANTS][16];
            snprintf(names[i], sizeof names[i], "v%d", i + 1);
            o->var[i].name = names[i];
        }
    }
    for (int i = 0; i < o->nvar; i++)
        for (int j = 0; j < i; j++)
            if (strcmp(o->var[i].name, o->var[j].name) == 0)
                return usage_error(cmd, "two variants are named '%s'", o->var[i].name);
    if (compare && o->nvar < 2)
        return usage_error(cmd, "compare needs at least two --variant options");
    if (o->tolerance_given && !o->expect)
        return usage_error(cmd, "--tolerance applies to --expect, which is not given");
    if (o->ncu && (o->csv || o->jsonl))
        return usage_error(cmd, "--ncu prints the measurements with the table or --json, not --csv or --jsonl");
    return 0;
}

static int cmd_run(int argc, char **argv)
{
    struct opts o;
    int rc = parse_opts(argc, argv, "run", &o, help_run);
    if (rc)
        return rc;
    l2_err e;
    struct l2_symtab syms;
    unsigned nlanes = o.threads ? o.threads : 1, ok = 0;
    struct l2_sim lane[MAX_THREADS];
    struct l2_sim *sp[MAX_THREADS];
    struct l2_ncu ncu = {0};
    if (o.ncu && l2_ncu_load(&ncu, o.ncu, &e) < 0) /* before the simulation: a bad file fails at once */
        return die(&e);
    if (l2_symtab_init(&syms, &e) < 0) {
        l2_ncu_free(&ncu);
        return die(&e);
    }
    /* lanes: each simulates the sets it owns; their counters add up */
    for (; ok < nlanes; ok++) {
        if (l2_variant_setup(&lane[ok], &o.common, &syms, &e) < 0)
            break;
        l2_sim_set_lane(&lane[ok], ok, nlanes);
        sp[ok] = &lane[ok];
    }
    int64_t records = ok == nlanes ? l2_simulate(sp, NULL, nlanes, nlanes, o.trace, o.serialize, &syms, &e) : -1;
    for (unsigned i = 1; records >= 0 && i < nlanes; i++) /* the lanes' sums make one report */
        if (l2_sim_merge_lane(&lane[0], &lane[i]) < 0)
            records = l2_fail(&e, "out of memory");
    if (records < 0) {
        rc = die(&e);
        goto out;
    }
    const struct l2_sim *sim = &lane[0];
    l2_variant_warn_unused(sim, &o.common, &syms, stderr);
    struct l2_run_info ri = {.trace = l2_trace_label(o.trace),
                             .records = (uint64_t)records,
                             .histogram = o.histogram,
                             .ncu = o.ncu ? &ncu : NULL};
    if (o.write_expect) {
        FILE *f = fopen(o.write_expect, "w");
        if (!f) {
            l2_fail(&e, "%s: cannot write expectation file", o.write_expect);
            rc = die(&e);
        } else {
            int w = l2_expect_write(f, sim, &e);
            if (fclose(f) != 0 && w == 0)
                w = l2_fail(&e, "write error");
            if (w < 0) {
                l2_prefix(&e, "%s", o.write_expect);
                rc = die(&e);
            }
        }
    }
    if (rc == 0 && o.expect) {
        int nd = l2_expect_check(o.expect, sim, o.tolerance, stderr, &e);
        if (nd < 0)
            rc = die(&e);
        else if (nd > 0) {
            fprintf(stderr, "%s: %d hit rate(s) differ from %s\n", prog, nd, o.expect);
            rc = EXIT_EXPECT;
        }
    }
    if (rc != EXIT_INPUT) {
        int w = o.json    ? l2_report_json(stdout, sim, &ri, &e)
                : o.jsonl ? l2_report_jsonl(stdout, &sp[0], NULL, 1, &ri, &e)
                : o.csv   ? l2_report_csv(stdout, sim, 1, NULL, &e)
                        : l2_report_table(stdout, sim, &ri, &e);
        if (w < 0)
            rc = die(&e);
    }
out:
    for (unsigned i = 0; i < ok; i++)
        l2_sim_free(&lane[i]);
    l2_symtab_free(&syms);
    l2_ncu_free(&ncu);
    return rc;
}

/* An HTML report: opened before the simulation, so that a path that
 * cannot be written fails before any work; written at the end, or removed
 * when the command fails. */
struct page {
    const char *path;
    FILE *f;
};

static int page_open(struct page *p, const char *path, l2_err *e)
{
    p->path = path;
    p->f = path ? fopen(path, "w") : NULL;
    return path && !p->f ? l2_fail(e, "%s: cannot write the HTML report", path) : 0;
}

/* Writes the page with write(f, ctx, e) when ok, else removes the file;
 * returns -1 with e naming the file when writing failed. */
static int page_close(struct page *p, int ok, int (*write)(FILE *, const void *, l2_err *), const void *ctx,
                      l2_err *e)
{
    if (!p->f)
        return 0;
    int h = ok ? write(p->f, ctx, e) : 0, bad = ferror(p->f);
    if ((fclose(p->f) != 0 || bad) && h == 0)
        h = l2_fail(e, "write error");
    p->f = NULL;
    if (!ok || h < 0)
        unlink(p->path);
    return h < 0 ? l2_prefix(e, "%s", p->path) : 0;
}

struct compare_page {
    struct l2_sim *const *v;
    const char *const *names;
    unsigned n;
    const struct l2_run_info *ri;
};

static int compare_page(FILE *f, const void *ctx, l2_err *e)
{
    const struct compare_page *c = ctx;
    return l2_compare_html(f, c->v, c->names, c->n, c->ri, e);
}

struct advice_page {
    const struct l2_advice *a;
    unsigned top;
};

static int advice_page(FILE *f, const void *ctx, l2_err *e)
{
    const struct advice_page *p = ctx;
    return l2_advice_html(f, p->a, p->top, e);
}

static int cmd_compare(int argc, char **argv)
{
    struct opts o;
    int rc = parse_opts(argc, argv, "compare", &o, help_compare);
    if (rc)
        goto out;
    l2_err e;
    struct l2_symtab syms;
    struct l2_sim sims[MAX_VARIANTS];
    struct l2_sim *sp[MAX_VARIANTS];
    const char *names[MAX_VARIANTS];
    int ok = 0;
    struct page page;
    if (page_open(&page, o.html, &e) < 0) {
        rc = die(&e);
        goto out;
    }
    if (l2_symtab_init(&syms, &e) < 0) {
        rc = die(&e);
        page_close(&page, 0, NULL, NULL, &e);
        goto out;
    }
    for (; ok < o.nvar; ok++) {
        if (l2_variant_setup(&sims[ok], &o.var[ok], &syms, &e) < 0) {
            l2_prefix(&e, "variant %s", o.var[ok].name);
            rc = die(&e);
            goto free_sims;
        }
        sp[ok] = &sims[ok];
        names[ok] = o.var[ok].name;
    }
    unsigned nthreads = o.threads;
    if (!nthreads) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        nthreads = cpus < 1 ? 1 : cpus > MAX_THREADS ? MAX_THREADS : (unsigned)cpus;
    }
    int64_t records = l2_simulate(sp, names, (unsigned)o.nvar, nthreads, o.trace, o.serialize, &syms, &e);
    if (records < 0) {
        rc = die(&e);
        goto free_sims;
    }
    for (int i = 0; i < o.nvar; i++)
        l2_variant_warn_unused(sp[i], &o.var[i], &syms, stderr);
    struct l2_run_info ri = {.trace = l2_trace_label(o.trace), .records = (uint64_t)records};
    int w = 0;
    if (o.json)
        w = l2_compare_json(stdout, sp, names, (unsigned)o.nvar, &ri, &e);
    else if (o.jsonl)
        w = l2_report_jsonl(stdout, sp, names, (unsigned)o.nvar, &ri, &e);
    else if (o.csv)
        for (int i = 0; i < o.nvar && w == 0; i++)
            w = l2_report_csv(stdout, sp[i], i == 0, names[i], &e);
    else
        w = l2_compare_table(stdout, sp, names, (unsigned)o.nvar, &ri, &e);
    if (w < 0)
        rc = die(&e);
    struct compare_page cp = {sp, names, (unsigned)o.nvar, &ri};
    if (page_close(&page, rc == 0, compare_page, &cp, &e) < 0)
        rc = die(&e);
free_sims:
    page_close(&page, 0, NULL, NULL, &e); /* after an error: no page */
    for (int i = 0; i < ok; i++)
        l2_sim_free(&sims[i]);
    l2_symtab_free(&syms);
out:
    for (int i = 0; i < o.nvar; i++)
        free(o.var_text[i]);
    return rc;
}

static int cmd_advise(int argc, char **argv)
{
    struct opts o;
    int rc = parse_opts(argc, argv, "advise", &o, help_advise);
    if (rc)
        return rc;
    if (o.exhaustive && o.nbuf > 3)
        return usage_error("advise", "--exhaustive takes at most 3 buffers (--buffers 3)");
    struct l2_advise_opts ao = {
        .base = o.common, .trace = o.trace, .nbuf = o.nbuf, .threads = o.threads, .exhaustive = o.exhaustive,
        .serialize = o.serialize};
    struct l2_advice a;
    struct page page;
    l2_err e;
    if (page_open(&page, o.html, &e) < 0)
        return die(&e);
    if (l2_advise(&ao, &a, &e) < 0) {
        page_close(&page, 0, NULL, NULL, &e);
        return die(&e);
    }
    int w = o.json ? l2_advice_json(stdout, &a, o.top, &e) : l2_advice_table(stdout, &a, o.top, &e);
    struct advice_page ap = {&a, o.top};
    if (page_close(&page, w == 0, advice_page, &ap, &e) < 0)
        w = -1;
    l2_advice_free(&a);
    return w < 0 ? die(&e) : 0;
}

static int cmd_encode(int argc, char **argv)
{
    l2_err e;
    if (argc == 0)
        return usage_error("encode", "no request given");
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            help_encode(stdout);
            return 0;
        }
    }
    struct l2_policy_spec spec;
    memset(&spec, 0, sizeof spec);
    size_t lens[16];
    if (argc > 16)
        return usage_error("encode", "too many words");
    for (int i = 0; i < argc; i++)
        lens[i] = strlen(argv[i]);
    enum l2_prio p;
    if (argc == 1 && strncmp(argv[0], "0x", 2) == 0) {
        spec.kind = POL_DESCRIPTOR;
        if (l2_parse_u64(argv[0], lens[0], &spec.desc, &e) < 0 || l2_policy_check(&spec, &e) < 0)
            return die(&e);
    } else if (argc == 1 && l2_prio_parse(argv[0], lens[0], &p, NULL) == 0) {
        spec.kind = POL_STATIC;
        spec.primary = p;
        spec.secondary = PRIO_EVICT_UNCHANGED;
        if (p == PRIO_NO_ALLOCATE)
            return usage_error("encode", "no_allocate has no policy descriptor (it is an instruction qualifier)");
    } else if (l2_policy_parse(argc, (const char *const *)argv, lens, &spec, &e) < 0) {
        return die(&e);
    }
    char buf[512];
    printf("descriptor: 0x%016" PRIx64 "\n", l2_policy_encode(&spec));
    l2_policy_describe(&spec, SEM_HARDWARE, buf, sizeof buf);
    printf("hardware:   %s\n", buf);
    l2_policy_describe(&spec, SEM_DOCUMENTED, buf, sizeof buf);
    printf("documented: %s\n", buf);
    return 0;
}

/* Writes every event of an open trace as text, in 1 MiB pieces. */
static int convert_to_text(struct l2_trace *t, struct l2_sink *out, const struct l2_symtab *syms, l2_err *e)
{
    const size_t cap = 1u << 20;
    char *buf = malloc(cap);
    char *big = NULL;
    size_t len = 0;
    struct l2_event ev;
    int r;
    if (!buf)
        return l2_fail(e, "out of memory");
    while ((r = l2_trace_next(t, &ev, e)) > 0) {
        size_t k = l2_event_format_text(buf + len, cap - len, &ev, syms);
        if (k >= cap - len) { /* did not fit: flush, then format again */
            if (l2_sink_write(out, buf, len, e) < 0) {
                r = -1;
                break;
            }
            len = 0;
            if (k >= cap) { /* a line longer than the buffer (a long policy name) */
                free(big);
                big = malloc(k + 1);
                if (!big) {
                    r = l2_fail(e, "out of memory");
                    break;
                }
                l2_event_format_text(big, k + 1, &ev, syms);
                if (l2_sink_write(out, big, k, e) < 0) {
                    r = -1;
                    break;
                }
                continue;
            }
            k = l2_event_format_text(buf, cap, &ev, syms);
        }
        len += k;
    }
    if (r == 0)
        r = l2_sink_write(out, buf, len, e);
    free(buf);
    free(big);
    return r < 0 ? -1 : 0;
}

static int convert_to_binary(struct l2_trace *t, struct l2_sink *out, const struct l2_symtab *syms, l2_err *e)
{
    struct l2_bin_writer *w;
    struct l2_event ev;
    int r;
    if (l2_bin_writer_open(&w, syms, e) < 0)
        return -1;
    while ((r = l2_trace_next(t, &ev, e)) > 0) {
        if (l2_bin_writer_add(w, &ev, e) < 0) {
            r = l2_trace_fail_at(t, ev.pos, e);
            break;
        }
    }
    if (r == 0)
        r = l2_bin_writer_finish(w, out, e);
    l2_bin_writer_free(w);
    return r < 0 ? -1 : 0;
}

static void help_import(FILE *f)
{
    fprintf(f, "usage: l2sim import accelsim PATH -o OUT [--compress none|gzip|zstd] [--merge-lines] [--l1 SIZE]\n\n"
               "Converts an Accel-Sim trace (its NVBit tracer, versions 3 to 5) into an l2sim binary trace.\n"
               "PATH is a kernelslist.g or kernelslist, or the directory holding one; the kernel files it\n"
               "names may be plain or xz-compressed (.traceg, raw .trace).  Each warp instruction on global\n"
               "memory (LDG, LD, LDGSTS; STG, ST, ATOM, ATOMG, RED) becomes one access per run of 32-byte\n"
               "sectors in a 128-byte line, as l2trace writes them; each kernel file a kernel line with its\n"
               "name, stream, grid and block.  Loads pass a model of the L1 first, as in l2trace: only the\n"
               "sectors it misses are written (per SM where the trace gives SM ids, else per thread block of\n"
               "a .traceg; .STRONG loads bypass it).  Accel-Sim traces hold no cache hints: give buffers their\n"
               "priorities with a --policy file's assign lines.\n\noptions:\n"
               "  -o OUT             the binary trace to write ('-': standard output, not a terminal)\n"
               "  --compress C       none (default), gzip or zstd\n"
               "  --merge-lines      runs of whole lines as one access (hit rates unchanged, fewer accesses)\n"
               "  --l1 SIZE          each L1's size (default 256KiB; 0: no L1 model, every load sector)\n");
}

static int cmd_import(int argc, char **argv)
{
    const char *cmd = "import", *in = NULL, *out = NULL;
    enum l2_comp comp = L2_COMP_NONE;
    unsigned flags = 0;
    uint64_t l1 = L2_L1_DEFAULT_BYTES;
    int i = 0;
    if (argc > 0 && (strcmp(argv[0], "--help") == 0 || strcmp(argv[0], "-h") == 0)) {
        help_import(stdout);
        return 0;
    }
    if (argc == 0 || strcmp(argv[0], "accelsim") != 0)
        return usage_error(cmd, "the only format is accelsim: l2sim import accelsim PATH -o OUT");
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            help_import(stdout);
            return 0;
        } else if (strcmp(a, "-o") == 0 || strcmp(a, "--compress") == 0) {
            if (i + 1 == argc)
                return usage_error(cmd, "%s needs a value", a);
            const char *v = argv[++i];
            if (a[1] == 'o')
                out = v;
            else if (strcmp(v, "none") == 0)
                comp = L2_COMP_NONE;
            else if (strcmp(v, "gzip") == 0)
                comp = L2_COMP_GZIP;
            else if (strcmp(v, "zstd") == 0)
                comp = L2_COMP_ZSTD;
            else
                return usage_error(cmd, "--compress must be none, gzip or zstd");
        } else if (strcmp(a, "--merge-lines") == 0) {
            flags |= L2_COAL_MERGE_LINES;
        } else if (strcmp(a, "--l1") == 0) {
            if (i + 1 >= argc)
                return usage_error(cmd, "--l1 needs a value");
            const char *v = argv[++i];
            l2_err pe;
            if (l2_l1_parse(v, &l1, &pe) < 0)
                return usage_error(cmd, "--l1 '%s': %s", v, pe.msg);
        } else if (a[0] == '-' && a[1] != 0) {
            return usage_error(cmd, "unknown option '%s'", a);
        } else if (!in) {
            in = a;
        } else {
            return usage_error(cmd, "more than one PATH given");
        }
    }
    if (!in || !out)
        return usage_error(cmd, "needs PATH and -o OUT");
    if (strcmp(out, "-") == 0 && isatty(STDOUT_FILENO))
        return usage_error(cmd, "will not write binary data to a terminal");
    l2_err e;
    struct l2_symtab syms;
    struct l2_bin_writer *w = NULL;
    struct l2_sink *sink = NULL;
    struct l2_import_stats st;
    int rc = 0;
    if (l2_symtab_init(&syms, &e) < 0)
        return die(&e);
    if (l2_bin_writer_open(&w, &syms, &e) < 0 || l2_import_accelsim(in, w, flags, l1, &st, &e) < 0 ||
        l2_sink_open(&sink, out, comp, &e) < 0) {
        rc = die(&e);
    } else if (l2_bin_writer_finish(w, sink, &e) < 0) {
        l2_sink_abort(sink);
        rc = die(&e);
    } else if (l2_sink_close(sink, &e) < 0) {
        rc = die(&e);
    } else {
        fprintf(stderr,
                "%s: import: %" PRIu64 " kernel%s, %" PRIu64 " warp instructions (%" PRIu64
                " on global memory) -> %" PRIu64 " accesses; the L1 served %" PRIu64 " of %" PRIu64
                " load sectors\n",
                prog, st.kernels, st.kernels == 1 ? "" : "s", st.instructions, st.mem_instructions, st.accesses,
                st.l1.served, st.l1.loaded);
    }
    l2_bin_writer_free(w);
    l2_symtab_free(&syms);
    return rc;
}

static int cmd_convert(int argc, char **argv)
{
    const char *cmd = "convert", *in = NULL, *out = NULL;
    int to = -1; /* enum l2_trace_format, or -1: the other one */
    enum l2_comp comp = L2_COMP_NONE;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            help_convert(stdout);
            return 0;
        } else if (strcmp(a, "--to") == 0 || strcmp(a, "--compress") == 0) {
            if (i + 1 == argc)
                return usage_error(cmd, "%s needs a value", a);
            const char *v = argv[++i];
            if (strcmp(a, "--to") == 0) {
                if (strcmp(v, "text") == 0)
                    to = L2_FMT_TEXT;
                else if (strcmp(v, "binary") == 0)
                    to = L2_FMT_BINARY;
                else
                    return usage_error(cmd, "--to must be text or binary");
            } else if (strcmp(v, "none") == 0) {
                comp = L2_COMP_NONE;
            } else if (strcmp(v, "gzip") == 0) {
                comp = L2_COMP_GZIP;
            } else if (strcmp(v, "zstd") == 0) {
                comp = L2_COMP_ZSTD;
            } else {
                return usage_error(cmd, "--compress must be none, gzip or zstd");
            }
        } else if (a[0] == '-' && a[1] != 0) {
            return usage_error(cmd, "unknown option '%s'", a);
        } else if (!in) {
            in = a;
        } else if (!out) {
            out = a;
        } else {
            return usage_error(cmd, "more than two files given");
        }
    }
    if (!out)
        return usage_error(cmd, "needs IN and OUT");
    struct stat si, so;
    if (strcmp(in, "-") != 0 && strcmp(out, "-") != 0 && stat(in, &si) == 0 && stat(out, &so) == 0 &&
        si.st_dev == so.st_dev && si.st_ino == so.st_ino)
        return usage_error(cmd, "IN and OUT are the same file");
    l2_err e;
    struct l2_symtab syms;
    struct l2_trace *t;
    struct l2_sink *sink;
    if (l2_symtab_init(&syms, &e) < 0)
        return die(&e);
    if (l2_trace_open(&t, in, &syms, &e) < 0) {
        l2_symtab_free(&syms);
        return die(&e);
    }
    if (to < 0)
        to = l2_trace_format(t) == L2_FMT_TEXT ? L2_FMT_BINARY : L2_FMT_TEXT;
    int rc = 0;
    if (strcmp(out, "-") == 0 && (to == L2_FMT_BINARY || comp != L2_COMP_NONE) && isatty(STDOUT_FILENO)) {
        rc = usage_error(cmd, "will not write binary data to a terminal");
    } else if (l2_sink_open(&sink, out, comp, &e) < 0) {
        rc = die(&e);
    } else {
        int r = to == L2_FMT_BINARY ? convert_to_binary(t, sink, &syms, &e) : convert_to_text(t, sink, &syms, &e);
        if (r < 0) {
            l2_sink_abort(sink);
            rc = die(&e);
        } else if (l2_sink_close(sink, &e) < 0) {
            rc = die(&e);
        }
    }
    l2_trace_close(t);
    l2_symtab_free(&syms);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        help_main(stderr);
        return EXIT_INPUT;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "run") == 0)
        return cmd_run(argc - 2, argv + 2);
    if (strcmp(cmd, "compare") == 0)
        return cmd_compare(argc - 2, argv + 2);
    if (strcmp(cmd, "advise") == 0)
        return cmd_advise(argc - 2, argv + 2);
    if (strcmp(cmd, "encode") == 0)
        return cmd_encode(argc - 2, argv + 2);
    if (strcmp(cmd, "convert") == 0)
        return cmd_convert(argc - 2, argv + 2);
    if (strcmp(cmd, "import") == 0)
        return cmd_import(argc - 2, argv + 2);
    if (strcmp(cmd, "help") == 0 && argc == 3) { /* help COMMAND: COMMAND --help */
        static const char *const cmds[] = {"run", "compare", "advise", "encode", "convert", "import"};
        for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
            if (strcmp(argv[2], cmds[i]) == 0) {
                char *args[] = {argv[0], argv[2], "--help", NULL};
                return main(3, args);
            }
        fprintf(stderr, "%s: help: unknown command '%s'\n", prog, argv[2]);
        help_main(stderr);
        return EXIT_INPUT;
    }
    if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        help_main(stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("l2sim %s\n", L2SIM_VERSION);
        return 0;
    }
    fprintf(stderr, "%s: unknown command '%s'\n", prog, cmd);
    help_main(stderr);
    return EXIT_INPUT;
}

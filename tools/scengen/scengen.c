/*
 * scengen - turn one H100 calibration row (step notation) into an l2sim
 * text trace on standard output, reproducing the measured kernels exactly.
 *
 * Usage:
 *   scengen [--setaside default|0|max|BYTES] --steps "STEPS"
 *   scengen --csv FILE --row ID [--setaside ...]
 *
 * Buffers (fixed virtual addresses, 2 MiB aligned, as separate cudaMallocs):
 *   H = 0x7e0000000000  128 MiB  hot data
 *   B = 0x7e0100000000  1 GiB    big / streaming buffer (also range policy base)
 *   F = 0x7e0200000000  512 MiB  flush buffer
 *
 * Kernel geometry (see calibration/h100/README.md):
 *   G blocks x 512 threads (16 warps), G = 528 unless the step says @gG.
 *   ld/st/rmw/rld: grid-stride; in iteration i block b covers the 8 KiB at
 *     base + (i*G + b)*8192, warp w the 512 bytes at +w*512 of that: one
 *     record "R ADDR 512 [TAG] sm=S" (S: block_sm, b mod 132, or b*132/G
 *     when G < 132; with --block-order measured, the SM the GPUs' block
 *     scheduler gives block b, which alternates from launch to launch).
 *     rmw emits R then W for each warp instruction; rld
 *     reads chunk mix32(k) mod (bytes/512) with k = (i*G + b)*16 + w.
 *   discard/prefetch/applypriority: one instruction per 128-byte line, G*512
 *     threads grid-stride; one record of 4096 bytes per warp at
 *     base + (i*G*512 + b*512 + w*32)*128.
 *   Emission order everywhere: by issue time, block by block within an
 *   iteration, then drifted by the jitter (see issue_order).
 *
 * Errors print "scengen: <where>: <reason>" on stderr and exit with status 2.
 * Build: cc -std=c11 -O2 -Wall -Wextra -Werror -o scengen scengen.c
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"

/* ---- constants ---------------------------------------------------------- */

#define MIB 1048576ull
#define NBLOCKS 528u
#define NWARPS 16u
#define NSMS 132u
#define LD_BLOCK_BYTES 8192ull /* per block per iteration: 4.125 MiB per iteration of 528 blocks */
#define LINE_BYTES 128ull
#define LINE_BLOCK_BYTES (512u * LINE_BYTES) /* line ops: 33 MiB per iteration of 528 blocks */
static unsigned long long setaside_max = 32768000ull; /* --setaside-max; the H100's */

struct buffer {
    char name;
    uint64_t base;
    uint64_t bytes;
};
static const struct buffer buffers[] = {
    {'H', 0x7e0000000000ull, 128 * MIB},
    {'B', 0x7e0100000000ull, 1024 * MIB},
    {'F', 0x7e0200000000ull, 512 * MIB},
};
#define BUF_B 1
#define BUF_F 2

/* ---- errors --------------------------------------------------------------- */

static void die(const char *where, const char *fmt, ...)
{
    va_list ap;
    fflush(stdout);
    fprintf(stderr, "scengen: %s: ", where);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(2);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        die("memory", "out of memory");
    return p;
}

static char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = xmalloc(n);
    memcpy(p, s, n);
    return p;
}

/* Trim leading/trailing blanks in place; returns the new start. */
static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n'))
        s[--n] = '\0';
    return s;
}

/* ---- output --------------------------------------------------------------- */

static char obuf[1 << 22];
static size_t opos;

static void oflush(void)
{
    if (opos && fwrite(obuf, 1, opos, stdout) != opos)
        die("stdout", "write failed: %s", strerror(errno));
    opos = 0;
}

static inline void oreserve(size_t n)
{
    if (opos + n > sizeof obuf)
        oflush();
}

static void oputs(const char *s)
{
    size_t n = strlen(s);
    if (n > sizeof obuf) {
        oflush();
        if (fwrite(s, 1, n, stdout) != n)
            die("stdout", "write failed: %s", strerror(errno));
        return;
    }
    oreserve(n);
    memcpy(obuf + opos, s, n);
    opos += n;
}

static void oprintf(const char *fmt, ...)
{
    char tmp[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof tmp)
        die("internal", "output line too long");
    oputs(tmp);
}

/* A comment line, with any newline in the text turned into a blank. */
static void ocomment(const char *prefix, const char *text)
{
    char *t = xstrdup(text);
    for (char *p = t; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    oputs("# ");
    oputs(prefix);
    oputs(t);
    oputs("\n");
    free(t);
}

static inline char *put_hex(char *p, uint64_t v)
{
    char tmp[16];
    int n = 0;
    do {
        tmp[n++] = "0123456789abcdef"[v & 15];
        v >>= 4;
    } while (v);
    while (n)
        *p++ = tmp[--n];
    return p;
}

/* ---- numbers -------------------------------------------------------------- */

/*
 * Parse a size in MiB: an integer, or a decimal whose value in bytes is a
 * multiple of 8 KiB.  allow_zero permits "0".  Returns NULL on success, or a
 * reason.
 */
static const char *parse_mib(const char *s, bool allow_zero, uint64_t *out)
{
    const char *p = s;
    uint64_t ip = 0, fp = 0, pow10 = 1;
    int idig = 0, fdig = 0;
    while (*p >= '0' && *p <= '9') {
        if (ip > 1048576)
            return "size too large";
        ip = ip * 10 + (uint64_t)(*p++ - '0');
        idig++;
    }
    if (*p == '.') {
        p++;
        while (*p >= '0' && *p <= '9') {
            if (fdig >= 12)
                return "too many decimals";
            fp = fp * 10 + (uint64_t)(*p++ - '0');
            pow10 *= 10;
            fdig++;
        }
        if (fdig == 0)
            return "not a number of MiB";
    }
    if (*p != '\0' || idig + fdig == 0)
        return "not a number of MiB";
    if (ip > 1048576)
        return "size too large";
    if ((fp * MIB) % pow10 != 0)
        return "not a multiple of 8 KiB";
    uint64_t bytes = ip * MIB + fp * MIB / pow10;
    if (bytes % 8192 != 0)
        return "not a multiple of 8 KiB";
    if (bytes == 0 && !allow_zero)
        return "size must be positive";
    *out = bytes;
    return NULL;
}

/*
 * Parse a real number and write its shortest round-trip decimal form into
 * buf (so "0.50" and ".5" both become "0.5").  Returns false if not a number.
 */
static bool parse_real(const char *s, double *out, char *buf, size_t bufsz)
{
    char *end;
    if (!*s || !((*s >= '0' && *s <= '9') || *s == '.'))
        return false;
    errno = 0;
    double v = strtod(s, &end);
    if (*end != '\0' || errno != 0 || !(v == v))
        return false;
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, bufsz, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    *out = v;
    return true;
}

/* ---- priorities and policies --------------------------------------------- */

struct prio {
    const char *name;
    const char *abbrev; /* used in generated policy names */
    bool secondary_ok;  /* may be an interleaved/range secondary */
};
static const struct prio prios[] = {
    {"evict_first", "ef", true},          {"evict_last", "el", false},
    {"evict_normal", "en", false},        {"evict_unchanged", "eu", true},
    {"streaming", "streaming", true},     {"persisting", "persisting", false},
    {"normal", "normal", false},          {"global", "global", true},
};
#define NPTX 4 /* the first NPTX entries are PTX names */

static const struct prio *find_prio(const char *s)
{
    for (size_t i = 0; i < sizeof prios / sizeof prios[0]; i++)
        if (strcmp(s, prios[i].name) == 0)
            return &prios[i];
    return NULL;
}

struct policy {
    char name[160];
    char line[320];
    bool emitted;
};
static struct policy *policies;
static size_t npolicies, cappolicies;

/* Checks a generated "policy NAME ..." or "window ..." line with l2sim's
 * own parser, so that scengen accepts exactly what l2sim will. */
static void check_line(const char *where, const char *line)
{
    char buf[320];
    const char *w[16] = {0};
    size_t wl[16] = {0};
    int n = 0, policy = strncmp(line, "policy ", 7) == 0, skip = policy ? 2 : 1;
    snprintf(buf, sizeof buf, "%s", line);
    for (char *t = strtok(buf, " "); t && n < 16; t = strtok(NULL, " ")) {
        w[n] = t;
        wl[n++] = strlen(t);
    }
    l2_err e;
    struct l2_policy_spec ps;
    struct l2_window_spec ws;
    if ((policy ? l2_policy_parse(n - skip, w + skip, wl + skip, &ps, &e)
                : l2_window_parse(n - skip, w + skip, wl + skip, &ws, &e)) < 0)
        die(where, "l2sim would reject \"%s\": %s", line, e.msg);
}

static int add_policy(const char *where, const char *name, const char *line)
{
    check_line(where, line);
    for (size_t i = 0; i < npolicies; i++)
        if (strcmp(policies[i].name, name) == 0)
            return (int)i;
    if (npolicies == cappolicies) {
        cappolicies = cappolicies ? 2 * cappolicies : 8;
        policies = realloc(policies, cappolicies * sizeof *policies);
        if (!policies)
            die("memory", "out of memory");
    }
    struct policy *p = &policies[npolicies];
    snprintf(p->name, sizeof p->name, "%s", name);
    snprintf(p->line, sizeof p->line, "%s", line);
    p->emitted = false;
    return (int)npolicies++;
}

/* Replace characters that cannot appear in a policy name. */
static void sanitize_name(char *s)
{
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))
            *s = '_';
}

/* ---- steps ---------------------------------------------------------------- */

enum step_kind { STEP_KERNEL, STEP_FLUSH, STEP_WINDOW, STEP_PAUSE };
enum op { DO_LD, DO_ST, DO_RMW, DO_RLD, DO_DISCARD, DO_PREFETCH, DO_APPLY, DO_GATHER, DO_SKEW, DO_ADD, DO_SKEWU };
static const char *const op_names[] = {"ld",       "st",            "rmw",    "rld",  "discard", "prefetch",
                                       "applypriority", "gather", "skew", "add", "skew_warp"};

struct step {
    enum step_kind kind;
    int num; /* 1-based position in the list */
    bool measured;
    char *text;
    unsigned stream; /* @sN: 1 (the row's stream) or 2 */
    unsigned grid;   /* @gG: blocks of the launch (default 528); the grid-stride loops use it */
    /* kernel */
    enum op op;
    int buf;
    uint64_t off, bytes;
    const char *tag; /* NULL: plain */
    int policy;      /* index into policies, or -1 */
    /* gW, zW, add: a tag per access kind (g: [0]; z: hot, rest; add: a, b, c) */
    const char *tags[3];
    unsigned width;  /* gW, zW: bytes per piece */
    uint64_t nwarp;  /* gW, zW: warp instructions */
    /* window */
    uint64_t wbase, wbytes;
    char hit_ratio[32];
    const char *hit_prop, *miss_prop;
};

/* Parse "BUF[+OFF]" into buffer index and byte offset. */
static void parse_bufref(const char *where, char *s, int *buf, uint64_t *off)
{
    s = trim(s);
    int b = -1;
    for (int i = 0; i < 3; i++)
        if (s[0] == buffers[i].name)
            b = i;
    if (b < 0 || (s[1] != '\0' && s[1] != '+'))
        die(where, "unknown buffer \"%s\" (expected H, B or F, optionally +OFF)", s);
    *off = 0;
    if (s[1] == '+') {
        const char *why = parse_mib(trim(s + 2), true, off);
        if (why)
            die(where, "bad offset \"%s\": %s", s + 2, why);
    }
    *buf = b;
}

/* Split s at top-level commas into at most max args (trimmed). */
static int split_args(char *s, char **args, int max)
{
    int n = 0;
    char *p = s;
    for (;;) {
        char *c = strchr(p, ',');
        if (n == max)
            return max + 1;
        if (c)
            *c = '\0';
        args[n++] = trim(p);
        if (!c)
            break;
        p = c + 1;
    }
    return n;
}

static const struct prio *need_prio(const char *where, const char *s, bool secondary)
{
    const struct prio *p = find_prio(s);
    if (!p)
        die(where, "unknown priority \"%s\"", s);
    if (secondary && !p->secondary_ok)
        die(where, "secondary priority \"%s\" must be evict_first or evict_unchanged "
                   "(streaming or global)", s);
    return p;
}

/* frac(P,S,f) / frac(P,f) / libcu_interleaved(P,f[,S]) */
static int parse_interleaved(const char *where, const char *fn, char *argstr, bool libcu)
{
    char *a[4];
    int n = split_args(argstr, a, 3);
    if (n < 2 || n > 3)
        die(where, "%s() takes 2 or 3 arguments", fn);
    const struct prio *pri = need_prio(where, a[0], false);
    const struct prio *sec = NULL;
    const char *ftext;
    if (n == 2) {
        ftext = a[1];
    } else if (libcu) {
        ftext = a[1];
        sec = need_prio(where, a[2], true);
    } else {
        sec = need_prio(where, a[1], true);
        ftext = a[2];
    }
    double f;
    char fbuf[40];
    if (!parse_real(ftext, &f, fbuf, sizeof fbuf))
        die(where, "bad fraction \"%s\"", ftext);
    if (!(f > 0.0 && f <= 1.0))
        die(where, "fraction %s outside (0, 1]", ftext);
    char fname[40];
    snprintf(fname, sizeof fname, "%s", fbuf);
    sanitize_name(fname);
    char name[160], line[320];
    if (libcu)
        snprintf(name, sizeof name, "%s_%s_%s%s%s", fn, pri->abbrev, fname, sec ? "_" : "",
                 sec ? sec->abbrev : "");
    else
        snprintf(name, sizeof name, "%s_%s%s%s_%s", fn, pri->abbrev, sec ? "_" : "",
                 sec ? sec->abbrev : "", fname);
    snprintf(line, sizeof line, "policy %s interleaved %s %s%s%s api=%s", name, pri->name, fbuf,
             sec ? " " : "", sec ? sec->name : "", libcu ? "libcu" : "ptx");
    return add_policy(where, name, line);
}

/* range(P[,S],lead=L,total=T) / libcu_range(...) ; base = start of B */
static int parse_range(const char *where, const char *fn, char *argstr, bool libcu)
{
    char *a[5];
    int n = split_args(argstr, a, 4);
    if (n < 3 || n > 4)
        die(where, "%s() takes (P[,S],lead=L,total=T)", fn);
    const struct prio *pri = need_prio(where, a[0], false);
    const struct prio *sec = NULL;
    const char *lead_t = NULL, *total_t = NULL;
    for (int i = 1; i < n; i++) {
        if (strncmp(a[i], "lead=", 5) == 0) {
            if (lead_t)
                die(where, "lead= given twice");
            lead_t = trim(a[i] + 5);
        } else if (strncmp(a[i], "total=", 6) == 0) {
            if (total_t)
                die(where, "total= given twice");
            total_t = trim(a[i] + 6);
        } else if (i == 1 && !strchr(a[i], '=')) {
            sec = need_prio(where, a[i], true);
        } else {
            die(where, "unexpected argument \"%s\" to %s()", a[i], fn);
        }
    }
    if (!lead_t || !total_t)
        die(where, "%s() needs lead=L and total=T (MiB)", fn);
    uint64_t lead, total;
    const char *why;
    if ((why = parse_mib(lead_t, false, &lead)))
        die(where, "bad lead \"%s\": %s", lead_t, why);
    if ((why = parse_mib(total_t, false, &total)))
        die(where, "bad total \"%s\": %s", total_t, why);
    if (lead > total)
        die(where, "lead (%s MiB) larger than total (%s MiB)", lead_t, total_t);
    if (total > 4096 * MIB)
        die(where, "total above 4 GiB");
    char lname[40], tname[40], name[160], line[320];
    snprintf(lname, sizeof lname, "%s", lead_t);
    snprintf(tname, sizeof tname, "%s", total_t);
    sanitize_name(lname);
    sanitize_name(tname);
    snprintf(name, sizeof name, "%s_%s%s%s_lead_%s_total_%s", fn, pri->abbrev, sec ? "_" : "",
             sec ? sec->abbrev : "", lname, tname);
    snprintf(line, sizeof line, "policy %s range 0x%llx %llu %llu %s%s%s api=%s", name,
             (unsigned long long)buffers[BUF_B].base, (unsigned long long)lead,
             (unsigned long long)total, pri->name, sec ? " " : "", sec ? sec->name : "",
             libcu ? "libcu" : "ptx");
    return add_policy(where, name, line);
}

static void parse_hint(const char *where, char *h, struct step *st)
{
    st->tag = NULL;
    st->policy = -1;
    if (strcmp(h, "plain") == 0)
        return;
    if (strcmp(h, "no_allocate") == 0) {
        st->tag = "no_allocate";
        return;
    }
    const struct prio *p = find_prio(h);
    if (p) {
        if (p - prios >= NPTX)
            die(where, "static hint \"%s\" must be a PTX priority (evict_first, evict_last, "
                       "evict_normal, evict_unchanged, no_allocate) or plain", h);
        st->tag = p->name;
        return;
    }
    char *lp = strchr(h, '(');
    size_t n = strlen(h);
    if (!lp || n == 0 || h[n - 1] != ')')
        die(where, "unknown hint \"%s\"", h);
    h[n - 1] = '\0';
    *lp = '\0';
    char *fn = trim(h), *args = lp + 1;
    if (strcmp(fn, "frac") == 0)
        st->policy = parse_interleaved(where, fn, args, false);
    else if (strcmp(fn, "libcu_interleaved") == 0)
        st->policy = parse_interleaved(where, fn, args, true);
    else if (strcmp(fn, "range") == 0)
        st->policy = parse_range(where, fn, args, false);
    else if (strcmp(fn, "libcu_range") == 0)
        st->policy = parse_range(where, fn, args, true);
    else
        die(where, "unknown hint \"%s(...)\"", fn);
    st->tag = policies[st->policy].name;
}

/* window(BUF[+OFF],SIZE,hitRatio,hitProp,missProp) */
static void parse_window(const char *where, char *argstr, struct step *st)
{
    char *a[6];
    int n = split_args(argstr, a, 5);
    if (n != 5)
        die(where, "window() takes (BUF,SIZE,hitRatio,hitProp,missProp)");
    int buf;
    uint64_t off;
    parse_bufref(where, a[0], &buf, &off);
    const char *why = parse_mib(a[1], true, &st->wbytes);
    if (why)
        die(where, "bad size \"%s\": %s", a[1], why);
    if (off + st->wbytes > buffers[buf].bytes)
        die(where, "window runs past the end of %c (%llu MiB)", buffers[buf].name,
            (unsigned long long)(buffers[buf].bytes / MIB));
    st->wbase = buffers[buf].base + off;
    double hr;
    if (!parse_real(a[2], &hr, st->hit_ratio, sizeof st->hit_ratio))
        die(where, "bad hitRatio \"%s\"", a[2]);
    const struct prio *hp = find_prio(a[3]), *mp = find_prio(a[4]);
    if (!hp || !mp)
        die(where, "unknown property \"%s\"", hp ? a[4] : a[3]);
    st->hit_prop = hp->name;
    st->miss_prop = mp->name;
    char line[256];
    snprintf(line, sizeof line, "window 0x%llx %llu %s %s %s", (unsigned long long)st->wbase,
             (unsigned long long)st->wbytes, st->hit_ratio, st->hit_prop, st->miss_prop);
    check_line(where, line);
}

static void parse_kernel(const char *where, char *s, struct step *st)
{
    char *f[4];
    int n = 0;
    char *p = s;
    for (;;) {
        char *c = strchr(p, ':');
        if (n == 3 || !c) {
            f[n++] = trim(p);
            break;
        }
        *c = '\0';
        f[n++] = trim(p);
        p = c + 1;
    }
    if (n < 3)
        die(where, "bad notation (expected BUF[+OFF]:SIZE:OP[:HINT])");
    if (n == 4 && strchr(f[3], ':'))
        die(where, "bad notation (too many ':' fields)");
    parse_bufref(where, f[0], &st->buf, &st->off);
    const char *why = parse_mib(f[1], false, &st->bytes);
    if (why)
        die(where, "bad size \"%s\": %s", f[1], why);
    if (st->off + st->bytes > buffers[st->buf].bytes)
        die(where, "region runs past the end of %c (%llu MiB)", buffers[st->buf].name,
            (unsigned long long)(buffers[st->buf].bytes / MIB));
    int op = -1;
    for (int i = 0; i <= DO_APPLY; i++)
        if (strcmp(f[2], op_names[i]) == 0)
            op = i;
    if (strcmp(f[2], "add") == 0) {
        op = DO_ADD;
        if (st->off + 3 * st->bytes > buffers[st->buf].bytes)
            die(where, "the three arrays of add run past the end of %c", buffers[st->buf].name);
    } else if ((f[2][0] == 'g' || f[2][0] == 'z' || f[2][0] == 'u') && f[2][1] >= '1' && f[2][1] <= '9') {
        /* gW[xR] / zW[xR] / uW[xR] */
        op = f[2][0] == 'g' ? DO_GATHER : f[2][0] == 'z' ? DO_SKEW : DO_SKEWU;
        char *end;
        unsigned long w = strtoul(f[2] + 1, &end, 10);
        double r = 1.0;
        char rbuf[40];
        if (*end == 'x' && !parse_real(end + 1, &r, rbuf, sizeof rbuf))
            die(where, "bad repeat in \"%s\" (expected %cW or %cWxR)", f[2], f[2][0], f[2][0]);
        if ((*end && *end != 'x') || (w != 16 && w != 32 && w != 64 && w != 128))
            die(where, "bad op \"%s\": the width W of %cW must be 16, 32, 64 or 128", f[2],
                f[2][0]);
        if (!(r > 0 && r <= 64))
            die(where, "repeat of \"%s\" must be in (0, 64]", f[2]);
        st->width = (unsigned)w;
        st->nwarp = (uint64_t)floor((double)(st->bytes / 512) * r);
        if (st->nwarp == 0)
            die(where, "\"%s\" over %s MiB executes no warp instruction", f[2], f[1]);
    }
    if (op < 0)
        die(where, "unknown op \"%s\" (expected ld, st, rmw, rld, discard, prefetch, "
                   "applypriority, add, gW[xR], zW[xR])", f[2]);
    st->op = (enum op)op;
    st->tag = NULL;
    st->policy = -1;
    char *hint = n == 4 ? f[3] : NULL;
    switch (st->op) {
    case DO_DISCARD:
        if (hint && strcmp(hint, "plain") != 0)
            die(where, "discard takes no hint (got \"%s\")", hint);
        break;
    case DO_PREFETCH:
        if (!hint)
            die(where, "prefetch needs a hint (evict_last or evict_normal)");
        if (strcmp(hint, "evict_last") != 0 && strcmp(hint, "evict_normal") != 0)
            die(where, "unknown prefetch hint \"%s\" (expected evict_last or evict_normal)", hint);
        st->tag = strcmp(hint, "evict_last") == 0 ? "evict_last" : "evict_normal";
        break;
    case DO_APPLY:
        if (hint && strcmp(hint, "evict_normal") != 0)
            die(where, "applypriority only takes evict_normal (got \"%s\")", hint);
        st->tag = "evict_normal";
        break;
    case DO_GATHER:
    case DO_SKEW:
    case DO_SKEWU:
    case DO_ADD: {
        /* one static hint per access kind, '/'-separated; one hint stands for all */
        if (!hint)
            die(where, "missing hint (use plain for none)");
        int want = st->op == DO_ADD ? 3 : st->op == DO_GATHER ? 1 : 2, k = 0;
        for (char *h = hint;; k++) {
            char *slash = strchr(h, '/');
            if (slash)
                *slash = '\0';
            if (k == want)
                die(where, "%s takes at most %d hints separated by '/'", op_names[st->op], want);
            h = trim(h);
            struct step one;
            parse_hint(where, h, &one);
            if (one.policy >= 0)
                die(where, "%s takes static hints only (got \"%s\")", op_names[st->op], h);
            st->tags[k] = one.tag;
            if (!slash)
                break;
            h = slash + 1;
        }
        if (k == 0)
            for (int i = 1; i < want; i++)
                st->tags[i] = st->tags[0];
        else if (k + 1 != want)
            die(where, "%s takes 1 or %d hints separated by '/'", op_names[st->op], want);
        break;
    }
    default:
        if (!hint)
            die(where, "missing hint (use plain for none)");
        if (!*hint)
            die(where, "empty hint");
        parse_hint(where, hint, st);
        break;
    }
}

/* The arguments of step s when it is NAME(ARGS), trimmed, in place; NULL
 * when it is another step. */
static char *step_args(const char *where, char *s, const char *name)
{
    size_t k = strlen(name);
    if (strncmp(s, name, k) != 0 || trim(s + k)[0] != '(')
        return NULL;
    char *a = strchr(s, '(') + 1;
    size_t l = strlen(a);
    if (l == 0 || a[l - 1] != ')')
        die(where, "bad notation (%s(...) not closed)", name);
    a[l - 1] = '\0';
    return trim(a);
}

static struct step *parse_steps(const char *steps_in, size_t *nsteps)
{
    char *all = xstrdup(steps_in);
    size_t cap = 16, n = 0;
    struct step *v = xmalloc(cap * sizeof *v);
    int measured = 0;
    char *p = all;
    for (;;) {
        char *semi = strchr(p, ';');
        if (semi)
            *semi = '\0';
        char *s = trim(p);
        if (n == cap) {
            cap *= 2;
            v = realloc(v, cap * sizeof *v);
            if (!v)
                die("memory", "out of memory");
        }
        struct step *st = &v[n];
        memset(st, 0, sizeof *st);
        st->num = (int)n + 1;
        st->text = xstrdup(s);
        char where[300];
        snprintf(where, sizeof where, "step %d \"%.256s\"", st->num, s);
        if (!*s)
            die(where, "empty step");
        size_t len = strlen(s);
        if (s[len - 1] == '*') {
            st->measured = true;
            s[len - 1] = '\0';
            s = trim(s);
            measured++;
        }
        /* @sN and @gG suffixes (hwprobe: the stream and the grid of the launch) */
        st->stream = 1;
        st->grid = NBLOCKS;
        for (char *at; (at = strrchr(s, '@')) && (at[1] == 's' || at[1] == 'g');) {
            char *end;
            unsigned long val = strtoul(at + 2, &end, 10);
            if (end == at + 2 || *trim(end))
                die(where, "bad suffix \"%s\" (expected @s1, @s2 or @gBLOCKS)", at);
            if (at[1] == 's' && (val == 1 || val == 2))
                st->stream = (unsigned)val;
            else if (at[1] == 'g' && val >= 1 && val <= NBLOCKS)
                st->grid = (unsigned)val;
            else
                die(where, "%s out of range (streams 1 and 2; grids 1 to %u blocks)", at, NBLOCKS);
            *at = '\0';
            s = trim(s);
        }
        char *a;
        if (strcmp(s, "flush") == 0) {
            st->kind = STEP_FLUSH;
        } else if ((a = step_args(where, s, "pause"))) {
            char *end;
            errno = 0;
            unsigned long long us = strtoull(a, &end, 10);
            if (end == a || *end || errno || us > 10000000)
                die(where, "pause must be 0 to 10000000 microseconds, not \"%s\"", a);
            st->kind = STEP_PAUSE;
        } else if ((a = step_args(where, s, "window"))) {
            st->kind = STEP_WINDOW;
            parse_window(where, a, st);
        } else {
            st->kind = STEP_KERNEL;
            parse_kernel(where, s, st);
        }
        if (st->measured && st->kind != STEP_KERNEL)
            die(where, "only a kernel step can be the measured one");
        n++;
        if (!semi)
            break;
        p = semi + 1;
    }
    if (measured == 0)
        die("steps", "no measured step (mark a kernel with a trailing *)");
    free(all);
    *nsteps = n;
    return v;
}

/* ---- emission ------------------------------------------------------------- */

static inline uint32_t mix32(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

/* Per-SM line tails " SIZE[ TAG] sm=S\n". */
struct tails {
    char s[NSMS][96];
    unsigned char len[NSMS];
};

static void make_tails(struct tails *t, unsigned size, const char *tag)
{
    for (unsigned sm = 0; sm < NSMS; sm++) {
        int n = snprintf(t->s[sm], sizeof t->s[sm], " %u%s%s sm=%u\n", size, tag ? " " : "",
                         tag ? tag : "", sm);
        if (n < 0 || (size_t)n >= sizeof t->s[sm])
            die("internal", "tag too long");
        t->len[sm] = (unsigned char)n;
    }
}

static inline void emit_rec(char op, uint64_t addr, const struct tails *t, unsigned sm)
{
    oreserve(128);
    char *p = obuf + opos, *p0 = p;
    *p++ = op;
    *p++ = ' ';
    *p++ = '0';
    *p++ = 'x';
    p = put_hex(p, addr);
    memcpy(p, t->s[sm], t->len[sm]);
    p += t->len[sm];
    opos += (size_t)(p - p0);
}

/*
 * Issue order.  All the kernel's blocks are resident at once, but they do not run in
 * lockstep: warp instruction (i, w, b) issues at time i + block_spread x
 * (b + w/16) / G (in loop iterations) plus a deterministic pseudo-random
 * offset, normal with standard deviation `sd` iterations.  Each kernel of
 * a row draws its own offsets, so two passes over a buffer do not repeat
 * the same order.
 *
 * Block by block: the 16 warps of a block issue together, and a sweep
 * bound by bandwidth is served about first come, first served, so each
 * iteration's lines arrive in the order of the blocks' previous ones.
 * The blocks themselves start within 0.32-0.45 us of each other
 * (measured, tools/hwprobe/results/2026-11-26-h100-blocks.txt.xz), a sixth
 * to a third of an iteration of a 10 MiB sweep; the spread of 2 iterations is fitted
 * to what a sweep leaves of its oldest lines: the eighths of a persisting
 * 10 MiB buffer and of an evict_first 8 MiB one (L01-L16), their quarters
 * (Y09, Y10, K09, K10), and the capacity rows below (over 56 rows: 5.86
 * points with the old warp by warp order, 4.24 with a spread of 1, 3.74
 * with 2, 4.36 with 3).
 *
 * How far blocks drift depends on the loop (loop_sd).  A loop that waits
 * for its loads drifts by `jitter` iterations when it issues one warp
 * instruction per iteration, and by a proportionally smaller number of
 * iterations when it issues several (add: three, rmw: two; fitted: the
 * blocks of an add loop end further apart than a load loop's, so this is
 * not their measured drift, tools/hwprobe/rows/drift.csv).  A store-only loop
 * waits for nothing and drifts further: `store_jitter` iterations.  Both
 * were fitted to the H100 capacity rows: loads of 32-40 MiB read twice
 * (P04, P05, N16-N18), stores then loads of 30-40 MiB (S01-S04, N31, N32),
 * and `c = a + b` over 10-20 MiB arrays (A01-A05).
 */
struct winst {
    double t;
    uint32_t i, w, b;
};

static double jitter_sd = 0.7, store_jitter_sd = 8.0, block_spread = 2.0;
static uint32_t kernel_seq = 0; /* kernels emitted, the one being emitted included (issue_order counts them) */

static int cmp_winst(const void *x, const void *y)
{
    const struct winst *a = x, *b = y;
    if (a->t != b->t)
        return a->t < b->t ? -1 : 1;
    if (a->i != b->i)
        return a->i < b->i ? -1 : 1;
    if (a->w != b->w)
        return a->w < b->w ? -1 : 1;
    return a->b < b->b ? -1 : a->b > b->b;
}

/* The SM of each of the first 528 blocks of a launch, as the H100's and the
 * H200's block scheduler place them (the same in every launch of a
 * 528-block grid, tools/hwprobe/results/2026-11-27-{h100,h200}-block-sm.csv:
 * two SMs of a TPC at a time, from GPC to GPC). */
static const unsigned char hw_block_sm[528] = {
    128, 129, 130, 131, 124, 125, 126, 127, 0, 1, 16, 17, 32, 33, 48, 49, 2, 3, 18, 19, 34, 35,
    50, 51, 64, 65, 78, 79, 92, 93, 106, 107, 4, 5, 20, 21, 36, 37, 52, 53, 66, 67, 80, 81,
    94, 95, 108, 109, 6, 7, 22, 23, 38, 39, 54, 55, 68, 69, 82, 83, 96, 97, 110, 111, 8, 9,
    24, 25, 40, 41, 56, 57, 70, 71, 84, 85, 98, 99, 112, 113, 128, 129, 130, 131, 124, 125, 126, 127,
    10, 11, 26, 27, 42, 43, 58, 59, 72, 73, 86, 87, 100, 101, 114, 115, 12, 13, 28, 29, 44, 45,
    60, 61, 74, 75, 88, 89, 102, 103, 116, 117, 120, 121, 14, 15, 30, 31, 46, 47, 62, 63, 76, 77,
    90, 91, 104, 105, 118, 119, 122, 123, 0, 1, 16, 17, 32, 33, 48, 49, 2, 3, 18, 19, 34, 35,
    50, 51, 64, 65, 78, 79, 92, 93, 106, 107, 4, 5, 20, 21, 36, 37, 52, 53, 66, 67, 80, 81,
    94, 95, 108, 109, 128, 129, 130, 131, 124, 125, 126, 127, 6, 7, 22, 23, 38, 39, 54, 55, 68, 69,
    82, 83, 96, 97, 110, 111, 8, 9, 24, 25, 40, 41, 56, 57, 70, 71, 84, 85, 98, 99, 112, 113,
    10, 11, 26, 27, 42, 43, 58, 59, 72, 73, 86, 87, 100, 101, 114, 115, 12, 13, 28, 29, 44, 45,
    60, 61, 74, 75, 88, 89, 102, 103, 116, 117, 120, 121, 14, 15, 30, 31, 46, 47, 62, 63, 76, 77,
    90, 91, 104, 105, 118, 119, 122, 123, 0, 1, 16, 17, 32, 33, 48, 49, 128, 129, 130, 131, 124, 125,
    126, 127, 2, 3, 18, 19, 34, 35, 50, 51, 64, 65, 78, 79, 92, 93, 106, 107, 4, 5, 20, 21,
    36, 37, 52, 53, 66, 67, 80, 81, 94, 95, 108, 109, 6, 7, 22, 23, 38, 39, 54, 55, 68, 69,
    82, 83, 96, 97, 110, 111, 8, 9, 24, 25, 40, 41, 56, 57, 70, 71, 84, 85, 98, 99, 112, 113,
    10, 11, 26, 27, 42, 43, 58, 59, 72, 73, 86, 87, 100, 101, 114, 115, 12, 13, 28, 29, 44, 45,
    60, 61, 74, 75, 88, 89, 102, 103, 116, 117, 120, 121, 14, 15, 30, 31, 46, 47, 62, 63, 76, 77,
    90, 91, 104, 105, 118, 119, 122, 123, 0, 1, 16, 17, 32, 33, 48, 49, 2, 3, 18, 19, 34, 35,
    50, 51, 64, 65, 78, 79, 92, 93, 106, 107, 4, 5, 20, 21, 36, 37, 52, 53, 66, 67, 80, 81,
    94, 95, 108, 109, 6, 7, 22, 23, 38, 39, 54, 55, 68, 69, 82, 83, 96, 97, 110, 111, 8, 9,
    24, 25, 40, 41, 56, 57, 70, 71, 84, 85, 98, 99, 112, 113, 10, 11, 26, 27, 42, 43, 58, 59,
    72, 73, 86, 87, 100, 101, 114, 115, 12, 13, 28, 29, 44, 45, 60, 61, 74, 75, 88, 89, 102, 103,
    116, 117, 120, 121, 14, 15, 30, 31, 46, 47, 62, 63, 76, 77, 90, 91, 104, 105, 118, 119, 122, 123,
};

static int block_order_measured; /* --block-order measured */

/* The SM of block b of a grid: by default round robin, and a grid smaller
 * than the GPU spread over all of it; with --block-order measured, the
 * measured order (beyond its 528 blocks, round robin), in which every
 * other launch, of any grid, puts the blocks that the order gives SMs
 * 124-127 on SMs 128-131 and the other way round (measured: 32 blocks of
 * a 528-block grid and all of an 8-block one,
 * tools/hwprobe/results/2026-11-27-{h100,h200}-{block-sm.csv,g8-blocks.txt}). */
static unsigned block_sm(unsigned b, unsigned grid)
{
    if (!block_order_measured)
        return grid < NSMS ? b * NSMS / grid : b % NSMS;
    unsigned sm = b < L2_ARRAY_LEN(hw_block_sm) ? hw_block_sm[b] : b % NSMS;
    if (kernel_seq % 2 == 0 && sm >= 124 && sm < 132) /* the second launch, the fourth, ... */
        sm = sm < 128 ? sm + 4 : sm - 4;
    return sm;
}

/* The drift of a loop of op (see Issue order). */
static double loop_sd(enum op op)
{
    switch (op) {
    case DO_ST:
        return store_jitter_sd;
    case DO_RMW:
        return jitter_sd / 2;
    case DO_ADD:
        return jitter_sd / 3;
    default:
        return jitter_sd;
    }
}

/* The warp instructions of a sweep, in issue order; *n is their count. */
static struct winst *issue_order(unsigned grid, uint64_t bytes, uint64_t block_bytes, uint64_t warp_bytes,
                                 double sd, size_t *n)
{
    uint64_t iter_bytes = grid * block_bytes, iters = (bytes + iter_bytes - 1) / iter_bytes;
    size_t cap = (size_t)(iters * NWARPS * grid), k = 0;
    struct winst *v = xmalloc(cap * sizeof *v);
    uint32_t seed = mix32(++kernel_seq * 0x9e3779b9u);
    for (uint64_t i = 0; i < iters; i++)
        for (unsigned w = 0; w < NWARPS; w++)
            for (unsigned b = 0; b < grid; b++) {
                if (i * iter_bytes + b * block_bytes + w * warp_bytes >= bytes)
                    break; /* offsets grow with b */
                double t = (double)i + block_spread * (b + w / (double)NWARPS) / grid;
                if (sd > 0) {
                    /* Irwin-Hall(4) approximation of a normal deviate */
                    uint32_t h = seed ^ (uint32_t)(((i * grid + b) * NWARPS + w) * 0x85ebca6bu);
                    double u = 0;
                    for (int r = 0; r < 4; r++) {
                        h = mix32(h + 0x6a09e667u * (uint32_t)(r + 1));
                        u += h / 4294967296.0;
                    }
                    t += (u - 2.0) * 1.7320508075688772 * sd;
                }
                v[k++] = (struct winst){t, (uint32_t)i, w, b};
            }
    if (sd > 0 || block_spread > 0)
        qsort(v, k, sizeof *v, cmp_winst);
    *n = k;
    return v;
}

static uint64_t emit_sweep(enum op op, uint64_t base, uint64_t bytes, const char *tag, unsigned grid)
{
    static struct tails t;
    uint64_t nrec = 0;
    size_t n;
    struct winst *v;
    if (op == DO_LD || op == DO_ST || op == DO_RMW || op == DO_RLD) {
        make_tails(&t, 512, tag);
        uint64_t nchunks = bytes / 512;
        v = issue_order(grid, bytes, LD_BLOCK_BYTES, 512, loop_sd(op), &n);
        for (size_t k = 0; k < n; k++) {
            uint64_t i = v[k].i;
            unsigned w = v[k].w, b = v[k].b, sm = block_sm(b, grid);
            uint64_t off = (i * grid + b) * LD_BLOCK_BYTES + (uint64_t)w * 512;
            switch (op) {
            case DO_LD:
                emit_rec('R', base + off, &t, sm);
                break;
            case DO_ST:
                emit_rec('W', base + off, &t, sm);
                break;
            case DO_RMW:
                emit_rec('R', base + off, &t, sm);
                emit_rec('W', base + off, &t, sm);
                nrec++;
                break;
            default: {
                uint32_t kk = (uint32_t)((i * grid + b) * NWARPS + w);
                uint64_t c = mix32(kk) % nchunks;
                emit_rec('R', base + c * 512, &t, sm);
                break;
            }
            }
            nrec++;
        }
    } else {
        char opc = op == DO_DISCARD ? 'D' : op == DO_PREFETCH ? 'P' : 'A';
        make_tails(&t, 4096, tag);
        v = issue_order(grid, bytes, LINE_BLOCK_BYTES, 32u * LINE_BYTES, loop_sd(op), &n);
        for (size_t k = 0; k < n; k++) {
            uint64_t off = ((uint64_t)v[k].i * grid * 512 + v[k].b * 512u + v[k].w * 32u) * LINE_BYTES;
            emit_rec(opc, base + off, &t, block_sm(v[k].b, grid));
            nrec++;
        }
    }
    free(v);
    return nrec;
}

/*
 * Piece index for draw h among n pieces: uniform (h mod n), or, for the skewed
 * op, n*u^3 with u = h / 2^32 in 32.32 fixed point (hwprobe's xpiece).
 */
static uint64_t xpiece(uint32_t h, uint64_t n, bool skew)
{
    if (!skew)
        return h % n;
    uint64_t u = h, u2 = (u * u) >> 32, u3 = (u2 * u) >> 32;
    return (u3 * n) >> 32;
}

/*
 * gW / zW: nwarp warp instructions in the ld loop order; instruction k, lane
 * group g (W/16 lanes) reads piece xpiece(mix32(k*groups + g)) of W bytes: one
 * record per group.  zW tags pieces in the first 1/16 of the region with
 * tags[0] (hot), the rest with tags[1].  add: for each warp instruction of an
 * ld over one array, R a, R b, W c (the arrays follow each other).
 */
static uint64_t emit_xop(const struct step *st, uint64_t base)
{
    static struct tails t[3];
    uint64_t nrec = 0;
    size_t n;
    struct winst *v;
    if (st->op == DO_ADD) {
        for (int k = 0; k < 3; k++)
            make_tails(&t[k], 512, st->tags[k]);
        v = issue_order(st->grid, st->bytes, LD_BLOCK_BYTES, 512, loop_sd(st->op), &n);
        for (size_t k = 0; k < n; k++) {
            unsigned sm = block_sm(v[k].b, st->grid);
            uint64_t off = ((uint64_t)v[k].i * st->grid + v[k].b) * LD_BLOCK_BYTES + (uint64_t)v[k].w * 512;
            emit_rec('R', base + off, &t[0], sm);
            emit_rec('R', base + st->bytes + off, &t[1], sm);
            emit_rec('W', base + 2 * st->bytes + off, &t[2], sm);
            nrec += 3;
        }
    } else {
        bool skew = st->op == DO_SKEW || st->op == DO_SKEWU;
        make_tails(&t[0], st->width, st->tags[0]);
        make_tails(&t[1], st->width, st->tags[skew ? 1 : 0]);
        uint64_t pieces = st->bytes / st->width, hot = pieces / 16, groups = 32 / (st->width / 16);
        uint64_t span = st->nwarp * 512; /* the loop's bytes at 512 per warp instruction */
        v = issue_order(st->grid, span, LD_BLOCK_BYTES, 512, loop_sd(st->op), &n);
        for (size_t k = 0; k < n; k++) {
            unsigned sm = block_sm(v[k].b, st->grid);
            uint64_t kk = ((uint64_t)v[k].i * st->grid + v[k].b) * NWARPS + v[k].w;
            /* The L2 applies one cache policy per warp instruction: zW's
             * lanes asking for different hints get one of them (measured:
             * zW and uW, whose lanes all take lane 0's, give the same
             * rates, rows Z02/U02, Z03/U03, Z08/U08, Z10/U10), so every
             * record of an instruction takes lane 0's. */
            uint64_t c0 = xpiece(mix32((uint32_t)(kk * groups)), pieces, skew);
            for (uint64_t g = 0; g < groups; g++) {
                uint64_t c = xpiece(mix32((uint32_t)(kk * groups + g)), pieces, skew);
                emit_rec('R', base + c * st->width, &t[skew && c0 >= hot], sm);
                nrec++;
            }
        }
    }
    free(v);
    return nrec;
}

static void emit_trace(const struct step *v, size_t n, const char *setaside_text,
                       const char *setaside_line, const char *row, const char *steps)
{
    oputs("# l2sim trace generated by scengen (tools/scengen)\n");
    if (row)
        ocomment("row: ", row);
    ocomment("setaside: ", setaside_text);
    ocomment("steps: ", steps);
    oputs("# buffers: H=0x7e0000000000 (128 MiB) B=0x7e0100000000 (1 GiB) "
          "F=0x7e0200000000 (512 MiB)\n");
    if (setaside_line)
        oprintf("%s\n", setaside_line);
    /* every kernel line gives its grid and block; a row with a second
     * stream also names every kernel's stream (the row's own stream is 1,
     * not the legacy default stream 0) */
    bool streams = false;
    for (size_t k = 0; k < n; k++)
        streams |= v[k].stream == 2;
    for (size_t k = 0; k < n; k++) {
        const struct step *st = &v[k];
        char pre[32];
        snprintf(pre, sizeof pre, "step %d: ", st->num);
        ocomment(pre, st->text);
        switch (st->kind) {
        case STEP_FLUSH:
            oputs("reset\n");
            for (int r = 0; r < 2; r++) {
                oprintf("kernel flush%s grid=%u block=512\n", streams ? " stream=1" : "", NBLOCKS);
                emit_sweep(DO_LD, buffers[BUF_F].base, buffers[BUF_F].bytes, NULL, NBLOCKS);
            }
            if (streams)
                oputs("sync\n"); /* hwprobe waits for the flush when a row has two streams */
            break;
        case STEP_PAUSE:
            /* hwprobe waits for every stream, then the GPU idles: a trace
             * has no time between kernels */
            if (streams)
                oputs("sync\n");
            break;
        case STEP_WINDOW:
            oprintf("window 0x%llx %llu %s %s %s", (unsigned long long)st->wbase,
                    (unsigned long long)st->wbytes, st->hit_ratio, st->hit_prop, st->miss_prop);
            if (streams)
                oprintf(" stream=%u", st->stream);
            oputs("\n");
            break;
        case STEP_KERNEL:
            if (st->policy >= 0 && !policies[st->policy].emitted) {
                oprintf("%s\n", policies[st->policy].line);
                policies[st->policy].emitted = true;
            }
            if (st->measured)
                oputs("kernel measured");
            else
                oprintf("kernel s%d_%s_%c", st->num, op_names[st->op], buffers[st->buf].name);
            if (streams)
                oprintf(" stream=%u", st->stream);
            oprintf(" grid=%u block=512\n", st->grid);
            if (st->op >= DO_GATHER)
                emit_xop(st, buffers[st->buf].base + st->off);
            else
                emit_sweep(st->op, buffers[st->buf].base + st->off, st->bytes, st->tag, st->grid);
            break;
        }
    }
    oflush();
    if (fflush(stdout) != 0 || ferror(stdout))
        die("stdout", "write failed");
}

/* ---- setaside ------------------------------------------------------------- */

/* Returns the line to emit ("setaside N") or NULL for default. */
static char *setaside_line(const char *where, const char *s)
{
    static char line[64];
    if (strcmp(s, "default") == 0)
        return NULL;
    if (strcmp(s, "max") == 0) {
        snprintf(line, sizeof line, "setaside %llu", setaside_max);
        return line;
    }
    const char *p = s;
    int base = 10;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        base = 16;
        p += 2;
    }
    if (!*p)
        die(where, "bad setaside \"%s\" (expected default, 0, max or bytes)", s);
    for (const char *q = p; *q; q++)
        if (!((*q >= '0' && *q <= '9') ||
              (base == 16 && ((*q >= 'a' && *q <= 'f') || (*q >= 'A' && *q <= 'F')))))
            die(where, "bad setaside \"%s\" (expected default, 0, max or bytes)", s);
    errno = 0;
    unsigned long long v = strtoull(p, NULL, base);
    if (errno)
        die(where, "bad setaside \"%s\": out of range", s);
    snprintf(line, sizeof line, "setaside %llu", v);
    return line;
}

/* ---- CSV ------------------------------------------------------------------ */

/*
 * Parse one CSV record starting at *pp (RFC 4180: quoted fields, "" escapes,
 * quoted newlines).  Returns the number of fields, or -1 at end of input.
 * Fields are malloc'd into *fields (caller frees).
 */
static int csv_record(const char **pp, char ***fields, int *line, const char *file)
{
    const char *p = *pp;
    if (!*p)
        return -1;
    int cap = 8, n = 0;
    char **f = xmalloc((size_t)cap * sizeof *f);
    size_t bcap = 256;
    for (;;) {
        char *buf = xmalloc(bcap);
        size_t bl = 0;
        if (*p == '"') {
            int startline = *line;
            p++;
            for (;;) {
                if (!*p) {
                    char where[300];
                    snprintf(where, sizeof where, "%s:%d", file, startline);
                    die(where, "unterminated quoted field");
                }
                if (*p == '"') {
                    if (p[1] == '"') {
                        p += 2;
                        if (bl + 1 >= bcap)
                            buf = realloc(buf, bcap *= 2);
                        buf[bl++] = '"';
                        continue;
                    }
                    p++;
                    break;
                }
                if (*p == '\n')
                    (*line)++;
                if (bl + 1 >= bcap)
                    buf = realloc(buf, bcap *= 2);
                if (!buf)
                    die("memory", "out of memory");
                buf[bl++] = *p++;
            }
            while (*p && *p != ',' && *p != '\n' && *p != '\r')
                p++; /* tolerate junk after the closing quote */
        } else {
            while (*p && *p != ',' && *p != '\n' && *p != '\r') {
                if (bl + 1 >= bcap)
                    buf = realloc(buf, bcap *= 2);
                if (!buf)
                    die("memory", "out of memory");
                buf[bl++] = *p++;
            }
        }
        buf[bl] = '\0';
        if (n == cap)
            f = realloc(f, (size_t)(cap *= 2) * sizeof *f);
        if (!f)
            die("memory", "out of memory");
        f[n++] = buf;
        if (*p == ',') {
            p++;
            continue;
        }
        if (*p == '\r')
            p++;
        if (*p == '\n') {
            p++;
            (*line)++;
        }
        break;
    }
    *pp = p;
    *fields = f;
    return n;
}

static void free_fields(char **f, int n)
{
    for (int i = 0; i < n; i++)
        free(f[i]);
    free(f);
}

static void csv_lookup(const char *file, const char *id, char **setaside, char **steps)
{
    FILE *fp = fopen(file, "rb");
    if (!fp)
        die(file, "%s", strerror(errno));
    size_t cap = 1 << 16, len = 0;
    char *data = xmalloc(cap);
    for (;;) {
        if (len + 1 >= cap) {
            data = realloc(data, cap *= 2);
            if (!data)
                die("memory", "out of memory");
        }
        size_t r = fread(data + len, 1, cap - len - 1, fp);
        len += r;
        if (r == 0)
            break;
    }
    if (ferror(fp))
        die(file, "read error");
    fclose(fp);
    data[len] = '\0';
    if (strlen(data) != len)
        die(file, "contains a NUL byte");
    const char *p = data;
    if ((unsigned char)p[0] == 0xef && (unsigned char)p[1] == 0xbb && (unsigned char)p[2] == 0xbf)
        p += 3;
    int line = 1;
    char **f;
    int nf = csv_record(&p, &f, &line, file);
    if (nf < 0)
        die(file, "empty file");
    int ci = -1, cs = -1, ct = -1;
    for (int i = 0; i < nf; i++) {
        char *h = trim(f[i]);
        if (strcmp(h, "id") == 0)
            ci = i;
        else if (strcmp(h, "setaside") == 0)
            cs = i;
        else if (strcmp(h, "steps") == 0)
            ct = i;
    }
    free_fields(f, nf);
    if (ci < 0 || cs < 0 || ct < 0)
        die(file, "header must name the columns id, setaside and steps");
    for (;;) {
        int recline = line;
        nf = csv_record(&p, &f, &line, file);
        if (nf < 0)
            break;
        if (nf == 1 && trim(f[0])[0] == '\0') {
            free_fields(f, nf);
            continue; /* blank line */
        }
        if (nf > ci && strcmp(trim(f[ci]), id) == 0) {
            if (nf <= cs || nf <= ct) {
                char where[300];
                snprintf(where, sizeof where, "%s:%d", file, recline);
                die(where, "row %s has too few fields", id);
            }
            *setaside = xstrdup(trim(f[cs]));
            *steps = xstrdup(f[ct]);
            free_fields(f, nf);
            free(data);
            return;
        }
        free_fields(f, nf);
    }
    die(file, "no row with id \"%s\"", id);
}

/* ---- main ----------------------------------------------------------------- */

static void usage(FILE *out)
{
    fputs("usage: scengen [--setaside default|0|max|BYTES] --steps \"STEPS\"\n"
          "       scengen --csv FILE --row ID [--setaside ...]\n"
          "\n"
          "Writes an l2sim text trace of one H100 calibration row to standard output.\n"
          "\n"
          "  --steps STEPS    the kernels, ';'-separated, in step notation (see below)\n"
          "  --setaside S     default (emit nothing), 0, max or bytes;\n"
          "                   with --csv it overrides the row's value\n"
          "  --csv FILE       a CSV with a header naming id, setaside and steps\n"
          "  --row ID         the row of FILE to generate (e.g. P14)\n"
          "  --setaside-max B the bytes `max` stands for (default 32768000, the\n"
          "                   H100's persistingL2CacheMaxSize; H200: 39321600)\n"
          "  --jitter SD      blocks drift: each warp instruction issues at its loop\n"
          "                   iteration plus a pseudo-random normal offset of SD\n"
          "                   iterations (default 0.7, fitted to the H100\n"
          "                   capacity measurements; 0: no drift); a loop of\n"
          "                   several warp instructions (add, rmw) drifts by SD\n"
          "                   divided by their number\n"
          "  --store-jitter SD  the same for store-only loops (st), which wait for\n"
          "                   nothing (default 8, fitted)\n"
          "  --block-spread N each iteration's warp instructions issue block by block,\n"
          "                   block b at N x b / G iterations after block 0's\n"
          "                   (default 2, fitted; 0: warp instructions of all blocks\n"
          "                   at once)\n"
          "  --block-order O  the SM of each block: rr (default: block b on SM b mod\n"
          "                   132, a grid G < 132 on SMs b x 132 / G) or measured (the\n"
          "                   order the H100's and H200's block scheduler uses: blocks\n"
          "                   0-7 on SMs 128-131, 124-127, then two SMs at a time\n"
          "                   across the GPCs, SMs 124-127 and 128-131 swapping from\n"
          "                   launch to launch; for configurations whose sm_map = table)\n"
          "  -h, --help       this text\n"
          "\n"
          "Steps (exactly one kernel step ends in '*': the measured kernel):\n"
          "  BUF[+OFF]:SIZE:OP[:HINT]   SIZE and OFF in MiB (multiples of 8 KiB)\n"
          "    BUF   H=0x7e0000000000 (128 MiB) B=0x7e0100000000 (1 GiB)\n"
          "          F=0x7e0200000000 (512 MiB)\n"
          "    OP    ld st rmw rld (512-byte warp records), discard prefetch\n"
          "          applypriority (4096-byte records, one per warp of 32 lines)\n"
          "          add (c = a + b over three SIZE arrays from BUF+OFF; HINT A[/B/C])\n"
          "          gW[xR] (random W-byte reads, W 16/32/64/128, R x SIZE/512 warps)\n"
          "          zW[xR] uW[xR] (the same, power-law; HINT HOT[/REST], hot = first\n"
          "          1/16; one hint per warp instruction, lane 0's)\n"
          "    HINT  plain evict_first evict_last evict_normal evict_unchanged\n"
          "          no_allocate frac(P,S,f) range(P,S,lead=L,total=T)\n"
          "          libcu_interleaved(P,f[,S]) libcu_range(P,S,lead=L,total=T)\n"
          "          (prefetch: evict_last|evict_normal; discard: none)\n"
          "  flush                      reset, then two plain ld sweeps over F\n"
          "  pause(US)                  the GPU idles US microseconds (0 to 10000000)\n"
          "                             after every step before it; no trace record\n"
          "  window(BUF,SIZE,hitRatio,hitProp,missProp)\n"
          "                             access-policy window for later kernels\n"
          "\n"
          "Errors print 'scengen: <where>: <reason>' and exit with status 2.\n",
          out);
}

/* Accept --opt VALUE and --opt=VALUE. */
static bool optval(int argc, char **argv, int *i, const char *name, const char **val)
{
    size_t n = strlen(name);
    if (strncmp(argv[*i], name, n) != 0)
        return false;
    if (argv[*i][n] == '=') {
        *val = argv[*i] + n + 1;
        return true;
    }
    if (argv[*i][n] != '\0')
        return false;
    if (*i + 1 >= argc)
        die(name, "needs a value");
    *val = argv[++*i];
    return true;
}

/* A --jitter, --store-jitter or --block-spread value: loop iterations in [0, 64]. */
static double iterations(const char *opt, const char *v)
{
    char *end;
    double d = strtod(v, &end);
    if (*end || end == v || !(d >= 0 && d <= 64))
        die(opt, "\"%s\" is not a number of loop iterations in [0, 64]", v);
    return d;
}

int main(int argc, char **argv)
{
    const char *steps = NULL, *csv = NULL, *row = NULL, *setaside = NULL;
    for (int i = 1; i < argc; i++) {
        const char *v;
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (optval(argc, argv, &i, "--steps", &v)) {
            steps = v;
        } else if (optval(argc, argv, &i, "--csv", &v)) {
            csv = v;
        } else if (optval(argc, argv, &i, "--row", &v)) {
            row = v;
        } else if (optval(argc, argv, &i, "--setaside", &v)) {
            setaside = v;
        } else if (optval(argc, argv, &i, "--setaside-max", &v)) {
            char *end;
            errno = 0;
            setaside_max = strtoull(v, &end, 10);
            if (*end || end == v || errno || *v == '-')
                die("--setaside-max", "\"%s\" is not a number of bytes", v);
        } else if (optval(argc, argv, &i, "--jitter", &v)) {
            jitter_sd = iterations("--jitter", v);
        } else if (optval(argc, argv, &i, "--block-spread", &v)) {
            block_spread = iterations("--block-spread", v);
        } else if (optval(argc, argv, &i, "--block-order", &v)) {
            if (strcmp(v, "rr") && strcmp(v, "measured"))
                die("--block-order", "\"%s\" is not rr or measured", v);
            block_order_measured = !strcmp(v, "measured");
        } else if (optval(argc, argv, &i, "--store-jitter", &v)) {
            store_jitter_sd = iterations("--store-jitter", v);
        } else {
            die("usage", "unknown argument \"%s\" (try --help)", argv[i]);
        }
    }
    char *row_setaside = NULL, *row_steps = NULL;
    char rowdesc[512];
    if (csv || row) {
        if (steps)
            die("usage", "give either --steps or --csv/--row, not both");
        if (!csv || !row)
            die("usage", "--csv and --row go together");
        csv_lookup(csv, row, &row_setaside, &row_steps);
        steps = row_steps;
        if (!setaside)
            setaside = row_setaside;
        snprintf(rowdesc, sizeof rowdesc, "%.200s (%.250s)", row, csv);
    } else if (!steps) {
        die("usage", "no --steps given (try --help)");
    }
    if (!setaside)
        setaside = "default";
    char sa_where[300];
    if (row_setaside && setaside == row_setaside)
        snprintf(sa_where, sizeof sa_where, "%.200s: row %.80s: setaside", csv, row);
    else
        snprintf(sa_where, sizeof sa_where, "--setaside");
    const char *sa_line = setaside_line(sa_where, setaside);
    size_t n;
    struct step *v = parse_steps(steps, &n);
    emit_trace(v, n, setaside, sa_line, csv ? rowdesc : NULL, steps);
    for (size_t k = 0; k < n; k++)
        free(v[k].text);
    free(v);
    free(row_setaside);
    free(row_steps);
    free(policies);
    return 0;
}

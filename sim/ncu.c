/*
 * ncu.c - reading an Nsight Compute raw CSV export (ncu.h).
 */
#include "ncu.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>

#include "trace.h" /* L2_MAX_KNAME */

enum { M_HIT, M_READ_HIT, M_TEX_SECTORS, M_SECTORS, M_DRAM_RD, M_NS, NMETRIC };
static const char *const metric_col[NMETRIC] = {
    "lts__t_sector_hit_rate.pct", "lts__t_sector_op_read_hit_rate.pct", "lts__t_sectors_srcunit_tex.sum",
    "lts__t_sectors.sum",         "dram__bytes_read.sum",               "gpu__time_duration.sum"};

/* One CSV record of quoted fields from *p (advanced past its newline). */
struct rec {
    char **f;
    uint32_t n, cap;
};

static int parse_record(char **p, struct rec *r, l2_err *e)
{
    char *s = *p, *w;
    r->n = 0;
    for (;;) {
        if (l2_grow(&r->f, &r->cap, (uint64_t)r->n + 1, sizeof *r->f, e) < 0)
            return -1;
        if (*s == '"') {
            w = ++s;
            r->f[r->n++] = w;
            for (;;) {
                if (*s == '"' && s[1] == '"') {
                    *w++ = '"';
                    s += 2;
                } else if (*s == '"') {
                    s++;
                    break;
                } else if (!*s) {
                    return l2_fail(e, "a quoted field does not end");
                } else {
                    *w++ = *s++;
                }
            }
            *w = 0;
        } else {
            r->f[r->n++] = s;
            s += strcspn(s, ",\r\n");
        }
        if (*s == ',') {
            *s++ = 0;
            continue;
        }
        if (*s == '\r')
            *s++ = 0;
        if (*s == '\n')
            *s++ = 0;
        else if (*s)
            return l2_fail(e, "a field goes on after its closing quote");
        *p = s;
        return 0;
    }
}

/* The factor that turns a value in `unit` into percent, sectors, bytes or
 * ns (by the metric's kind); 0 when the unit is not one of them. */
static double unit_factor(int metric, const char *unit)
{
    static const struct {
        const char *pre;
        double f;
    } si[] = {{"", 1}, {"K", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}};
    static const struct {
        const char *pre;
        double f;
    } tm[] = {{"n", 1}, {"u", 1e3}, {"m", 1e6}, {"", 1e9}};
    if (metric == M_HIT || metric == M_READ_HIT)
        return strcmp(unit, "%") == 0 ? 1 : 0;
    size_t lu = strlen(unit);
    if (metric == M_NS && lu >= 1 && lu <= 2 && unit[lu - 1] == 's') { /* ns, us, ms, s */
        static const char *const abbr[] = {"ns", "us", "ms", "s"};
        for (size_t i = 0; i < 4; i++)
            if (strcmp(unit, abbr[i]) == 0)
                return tm[i].f;
        return 0;
    }
    const char *base = metric == M_NS ? "second" : metric == M_DRAM_RD ? "byte" : "sector";
    size_t lb = strlen(base);
    if (lu < lb || strcmp(unit + lu - lb, base) != 0)
        return 0;
    size_t lp = lu - lb;
    if (metric == M_NS) {
        for (size_t i = 0; i < sizeof tm / sizeof tm[0]; i++)
            if (strlen(tm[i].pre) == lp && strncmp(unit, tm[i].pre, lp) == 0)
                return tm[i].f;
        return 0;
    }
    for (size_t i = 0; i < sizeof si / sizeof si[0]; i++)
        if (strlen(si[i].pre) == lp && strncmp(unit, si[i].pre, lp) == 0)
            return si[i].f;
    return 0;
}

/* A value with thousands separators; NAN for "" and "n/a"; -1: not a number. */
static int parse_value(const char *s, double *out)
{
    char buf[64];
    size_t k = 0;
    if (!*s || strcmp(s, "n/a") == 0) {
        *out = NAN;
        return 0;
    }
    for (; *s; s++)
        if (*s != ',') {
            if (k + 1 == sizeof buf)
                return -1;
            buf[k++] = *s;
        }
    buf[k] = 0;
    char *end;
    errno = 0;
    *out = strtod(buf, &end);
    return end == buf || *end || errno || !isfinite(*out) ? -1 : 0;
}

void l2_ncu_free(struct l2_ncu *m)
{
    for (uint32_t i = 0; i < m->n; i++) {
        free(m->row[i].name);
        free(m->row[i].label);
    }
    free(m->row);
    free(m->path);
    memset(m, 0, sizeof *m);
}

int l2_ncu_load(struct l2_ncu *m, const char *path, l2_err *e)
{
    memset(m, 0, sizeof *m);
    FILE *f = fopen(path, "rb");
    if (!f)
        return l2_fail(e, "%s: cannot open: %s", path, strerror(errno));
    char *text = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len + 65536 + 1 > cap) {
            char *t = realloc(text, cap = 2 * cap + 65536 + 1);
            if (!t) {
                free(text);
                fclose(f);
                return l2_fail(e, "out of memory");
            }
            text = t;
        }
        size_t got = fread(text + len, 1, cap - len - 1, f);
        len += got;
        if (got == 0)
            break;
    }
    int rerr = ferror(f);
    fclose(f);
    if (rerr) {
        free(text);
        return l2_fail(e, "%s: read error", path);
    }
    text[len] = 0;
    if (memchr(text, 0, len)) {
        free(text);
        return l2_fail(e, "%s: holds NUL bytes (not a CSV export)", path);
    }
    struct rec r = {0};
    int col[NMETRIC], cname = -1, cid = -1;
    double factor[NMETRIC];
    uint32_t ncol = 0, line = 0;
    int have_head = 0, rc = 0;
    char *p = text;
    if (!(m->path = strdup(path))) {
        rc = l2_fail(e, "out of memory");
        goto out;
    }
    for (int i = 0; i < NMETRIC; i++) {
        col[i] = -1;
        factor[i] = 1;
    }
    while (*p) {
        line++;
        if (*p != '"') { /* ncu's own messages (==PROF==, ==WARNING==) and blank lines */
            p += strcspn(p, "\n");
            if (*p)
                p++;
            continue;
        }
        if (parse_record(&p, &r, e) < 0) {
            rc = l2_prefix(e, "%s:%u", path, line);
            goto out;
        }
        if (!have_head) {
            for (uint32_t i = 0; i < r.n; i++) {
                if (strcmp(r.f[i], "Kernel Name") == 0)
                    cname = (int)i;
                if (strcmp(r.f[i], "ID") == 0)
                    cid = (int)i;
                for (int k = 0; k < NMETRIC; k++)
                    if (strcmp(r.f[i], metric_col[k]) == 0)
                        col[k] = (int)i;
            }
            if (cname < 0 || cid < 0) {
                rc = l2_fail(e, "%s:%u: no \"ID\" and \"Kernel Name\" columns (an `ncu --csv --page raw` export?)",
                             path, line);
                goto out;
            }
            if (col[M_HIT] < 0 && col[M_READ_HIT] < 0) {
                rc = l2_fail(e, "%s:%u: neither %s nor %s is a column: profile with --metrics %s,%s", path, line,
                             metric_col[M_HIT], metric_col[M_READ_HIT], metric_col[M_HIT], metric_col[M_READ_HIT]);
                goto out;
            }
            ncol = r.n;
            have_head = 1;
            continue;
        }
        if (r.n != ncol) {
            rc = l2_fail(e, "%s:%u: %u fields, the header has %u", path, line, r.n, ncol);
            goto out;
        }
        if (!*r.f[cid]) { /* the units row */
            for (int k = 0; k < NMETRIC; k++) {
                if (col[k] < 0)
                    continue;
                factor[k] = unit_factor(k, r.f[col[k]]);
                if (factor[k] == 0) {
                    rc = l2_fail(e, "%s:%u: unit \"%s\" of %s is not understood", path, line, r.f[col[k]],
                                 metric_col[k]);
                    goto out;
                }
            }
            continue;
        }
        if (l2_grow(&m->row, &m->cap, (uint64_t)m->n + 1, sizeof *m->row, e) < 0) {
            rc = -1;
            goto out;
        }
        struct l2_ncu_row *w = &m->row[m->n];
        memset(w, 0, sizeof *w);
        double v[NMETRIC];
        for (int k = 0; k < NMETRIC; k++) {
            v[k] = NAN;
            if (col[k] >= 0 && parse_value(r.f[col[k]], &v[k]) < 0) {
                rc = l2_fail(e, "%s:%u: %s: \"%s\" is not a number", path, line, metric_col[k], r.f[col[k]]);
                goto out;
            }
            v[k] *= factor[k];
        }
        w->hit = v[M_HIT];
        w->read_hit = v[M_READ_HIT];
        w->sectors = !isnan(v[M_TEX_SECTORS]) ? v[M_TEX_SECTORS] : v[M_SECTORS];
        w->dram_rd = v[M_DRAM_RD];
        w->ns = v[M_NS];
        w->line = line;
        w->name = strdup(r.f[cname]);
        w->label = malloc(L2_MAX_KNAME);
        m->n++;
        if (!w->name || !w->label) {
            rc = l2_fail(e, "out of memory");
            goto out;
        }
        l2_ncu_base(w->name, w->label, L2_MAX_KNAME);
    }
    if (!have_head)
        rc = l2_fail(e, "%s: no CSV header (an `ncu --csv --page raw` export?)", path);
    else if (m->n == 0)
        rc = l2_fail(e, "%s: no kernel rows", path);
out:
    free(r.f);
    free(text);
    if (rc < 0)
        l2_ncu_free(m);
    return rc < 0 ? -1 : 0;
}

void l2_ncu_base(const char *name, char *out, size_t n)
{
    char buf[1024];
    size_t k = 0;
    /* without blanks: the capture's labels have none, ncu's names do */
    for (const char *p = name; *p && k + 1 < sizeof buf; p++)
        if (*p != ' ' && *p != '\t')
            buf[k++] = *p;
    buf[k] = 0;
    const char *s = buf;
    if (strncmp(s, "void", 4) == 0 && s[4] && strchr("<(", s[4]) == NULL)
        s += 4; /* the return type of every kernel */
    /* the qualified name ends at its template or parameter list; the
     * anonymous namespace is spelled "(anonymousnamespace)" or "<unnamed>" */
    const char *last = s, *p = s;
    for (;;) {
        if (strncmp(p, "(anonymousnamespace)", 20) == 0)
            p += 20;
        else if (strncmp(p, "<unnamed>", 9) == 0)
            p += 9;
        else if (!*p || *p == '<' || *p == '(')
            break;
        else if (p[0] == ':' && p[1] == ':') {
            p += 2;
            last = p;
        } else
            p++;
    }
    size_t len = (size_t)(p - last);
    if (len == 0) { /* not a C++ name: all of it */
        last = s;
        len = strlen(s);
    }
    if (len >= n)
        len = n - 1;
    memcpy(out, last, len);
    out[len] = 0;
}

/* The rows of one function name, in file order. */
struct byname {
    const char *label;
    uint32_t *row, n, cap, used;
    UT_hash_handle hh;
};


void l2_ncu_match(const struct l2_ncu *m, const char *const *names, uint32_t nk, int64_t *match)
{
    struct byname *h = NULL, *b, *tmp;
    l2_err e;
    for (uint32_t i = 0; i < nk; i++)
        match[i] = -1;
    for (uint32_t r = 0; r < m->n; r++) {
        HASH_FIND_STR(h, m->row[r].label, b);
        if (!b) {
            if (!(b = calloc(1, sizeof *b)))
                goto out; /* out of memory: the rest stays unmatched */
            b->label = m->row[r].label;
            HASH_ADD_KEYPTR(hh, h, b->label, strlen(b->label), b);
        }
        if (l2_grow(&b->row, &b->cap, (uint64_t)b->n + 1, sizeof *b->row, &e) < 0)
            goto out;
        b->row[b->n++] = r;
    }
    for (uint32_t i = 0; i < nk; i++) {
        char base[L2_MAX_KNAME];
        l2_ncu_base(names[i], base, sizeof base);
        HASH_FIND_STR(h, base, b);
        if (b && b->used < b->n)
            match[i] = b->row[b->used++];
    }
out:
    HASH_ITER(hh, h, b, tmp) {
        HASH_DEL(h, b);
        free(b->row);
        free(b);
    }
}

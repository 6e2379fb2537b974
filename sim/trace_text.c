/*
 * trace_text.c - the text trace format (see README "Trace format"):
 * reading, with file:line errors, and writing events back as text.
 *
 * The reader works on a large buffer with no allocation per line; the tag
 * of the previous access is remembered so runs of equal tags cost one
 * string compare instead of a hash lookup.
 */
#include <errno.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"

#define BUF_SIZE (1u << 20)
#define MAX_LINE 65536u
#define MAX_WORDS 16

struct l2_trace {
    FILE *f;
    int own;
    char *name;
    char *buf;
    size_t len, pos;
    int eof;
    uint64_t lineno;
    struct l2_symtab *syms;
    char last_tag[64];
    size_t last_len;
    uint32_t last_id;
};

int l2_trace_open(struct l2_trace **out, const char *path, struct l2_symtab *syms, l2_err *e)
{
    struct l2_trace *t = calloc(1, sizeof *t);
    if (!t)
        return l2_fail(e, "out of memory");
    t->buf = malloc(BUF_SIZE);
    t->name = strdup(strcmp(path, "-") == 0 ? "<stdin>" : path);
    if (!t->buf || !t->name) {
        l2_trace_close(t);
        return l2_fail(e, "out of memory");
    }
    if (strcmp(path, "-") == 0) {
        t->f = stdin;
    } else {
        t->f = fopen(path, "rb");
        if (!t->f) {
            int err = errno;
            l2_trace_close(t);
            return l2_fail(e, "%s: cannot open: %s", path, strerror(err));
        }
        t->own = 1;
    }
    t->syms = syms;
    t->last_id = UINT32_MAX;
    *out = t;
    return 0;
}

void l2_trace_close(struct l2_trace *t)
{
    if (!t)
        return;
    if (t->own && t->f)
        fclose(t->f);
    free(t->buf);
    free(t->name);
    free(t);
}

const char *l2_trace_name(const struct l2_trace *t)
{
    return t->name;
}

/* Next line as [*s, *s + *n), without the newline; 0 at end, -1 on error. */
static int next_line(struct l2_trace *t, const char **s, size_t *n, l2_err *e)
{
    for (;;) {
        char *p = t->buf + t->pos;
        size_t avail = t->len - t->pos;
        char *nl = avail ? memchr(p, '\n', avail) : NULL;
        if (nl && (size_t)(nl - p) >= MAX_LINE)
            return l2_fail(e, "%s:%" PRIu64 ": line longer than %u bytes", t->name, t->lineno + 1, MAX_LINE);
        if (nl) {
            *s = p;
            *n = (size_t)(nl - p);
            t->pos += *n + 1;
            t->lineno++;
            return 1;
        }
        if (t->eof) {
            if (!avail)
                return 0;
            if (avail >= MAX_LINE)
                return l2_fail(e, "%s:%" PRIu64 ": line longer than %u bytes", t->name, t->lineno + 1, MAX_LINE);
            *s = p;
            *n = avail;
            t->pos = t->len;
            t->lineno++;
            return 1;
        }
        if (avail >= MAX_LINE)
            return l2_fail(e, "%s:%" PRIu64 ": line longer than %u bytes", t->name, t->lineno + 1, MAX_LINE);
        memmove(t->buf, p, avail);
        t->len = avail;
        t->pos = 0;
        size_t got = fread(t->buf + t->len, 1, BUF_SIZE - t->len, t->f);
        t->len += got;
        if (got == 0) {
            if (ferror(t->f))
                return l2_fail(e, "%s: read error: %s", t->name, strerror(errno));
            t->eof = 1;
        }
    }
}

static inline int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

/* Splits at blanks, stopping at '#'. Returns the word count or -1. */
static int split(const char *s, size_t n, const char **w, size_t *wl)
{
    int k = 0;
    size_t i = 0;
    for (;;) {
        while (i < n && is_space(s[i]))
            i++;
        if (i == n || s[i] == '#')
            return k;
        if (k == MAX_WORDS)
            return -1;
        size_t st = i;
        while (i < n && !is_space(s[i]) && s[i] != '#')
            i++;
        w[k] = s + st;
        wl[k] = i - st;
        k++;
    }
}

static int word_is(const char *w, size_t n, const char *lit)
{
    return strlen(lit) == n && memcmp(w, lit, n) == 0;
}

static int has_prefix(const char *w, size_t n, const char *pfx)
{
    size_t pn = strlen(pfx);
    return n > pn && memcmp(w, pfx, pn) == 0;
}

static int parse_u32_word(const char *w, size_t n, uint32_t *out, const char *what, l2_err *e)
{
    uint64_t v;
    if (l2_parse_u64(w, n, &v, e) < 0)
        return l2_prefix(e, "%s", what);
    if (v > INT32_MAX)
        return l2_fail(e, "%s %" PRIu64 " is too large", what, v);
    *out = (uint32_t)v;
    return 0;
}

/* Resolves an access tag to a symbol id. */
static int access_tag(struct l2_trace *t, const char *w, size_t n, uint32_t *id, l2_err *e)
{
    if (n == t->last_len && memcmp(w, t->last_tag, n) == 0) {
        *id = t->last_id;
        return 0;
    }
    int64_t s = l2_sym_find(t->syms, w, n);
    if (s < 0 || (s >= L2_NBUILTIN && !(l2_sym_flags(t->syms, (uint32_t)s) & L2_SYM_POLICY))) {
        enum l2_prio p;
        if (l2_prio_parse(w, n, &p, e) < 0 && word_is(w, n, "shared"))
            return -1;
        return l2_fail(e, "unknown tag or policy '%.*s' (not a priority, property or policy defined earlier)",
                       (int)n, w);
    }
    *id = (uint32_t)s;
    if (n < sizeof t->last_tag) {
        memcpy(t->last_tag, w, n);
        t->last_len = n;
        t->last_id = *id;
    }
    return 0;
}

static int parse_access(struct l2_trace *t, const char **w, const size_t *wl, int nw, struct l2_event *ev,
                        l2_err *e)
{
    const char *ops = "RWPAD";
    ev->type = EV_ACCESS;
    ev->op = (uint8_t)(strchr(ops, w[0][0]) - ops);
    ev->tag = L2_TAG_GLOBAL; /* "global" */
    ev->sm = -1;
    if (nw < 3)
        return l2_fail(e, "access needs OP ADDR SIZE [TAG] [sm=N]");
    uint64_t size;
    if (l2_parse_u64(w[1], wl[1], &ev->addr, e) < 0)
        return l2_prefix(e, "address");
    if (l2_parse_u64(w[2], wl[2], &size, e) < 0)
        return l2_prefix(e, "size");
    if (size < 1 || size > L2_MAX_ACCESS)
        return l2_fail(e, "size %" PRIu64 " is outside 1..%u bytes", size, L2_MAX_ACCESS);
    if (ev->addr > UINT64_MAX - size)
        return l2_fail(e, "address + size overflows the address space");
    ev->size = (uint32_t)size;
    int have_tag = 0;
    for (int i = 3; i < nw; i++) {
        if (has_prefix(w[i], wl[i], "sm=")) {
            uint32_t sm;
            if (parse_u32_word(w[i] + 3, wl[i] - 3, &sm, "sm", e) < 0)
                return -1;
            ev->sm = (int32_t)sm;
        } else if (!have_tag && i == 3) {
            if (access_tag(t, w[i], wl[i], &ev->tag, e) < 0)
                return -1;
            have_tag = 1;
        } else {
            return l2_fail(e, "unexpected '%.*s' (an access is OP ADDR SIZE [TAG] [sm=N])", (int)wl[i], w[i]);
        }
    }
    if (ev->op == OP_PREFETCH) {
        enum l2_prio p = have_tag && ev->tag < L2_NBUILTIN ? l2_builtin_prio(ev->tag) : PRIO_NO_ALLOCATE;
        if (p != PRIO_EVICT_LAST && p != PRIO_EVICT_NORMAL)
            return l2_fail(e, "prefetch needs the tag evict_last or evict_normal");
    }
    return 0;
}

/* Removes a trailing stream=S word. */
static int take_stream(const char **w, const size_t *wl, int *nw, uint32_t *stream, l2_err *e)
{
    *stream = 0;
    if (*nw > 1 && has_prefix(w[*nw - 1], wl[*nw - 1], "stream=")) {
        if (parse_u32_word(w[*nw - 1] + 7, wl[*nw - 1] - 7, stream, "stream", e) < 0)
            return -1;
        (*nw)--;
    }
    return 0;
}

static int parse_directive(struct l2_trace *t, const char **w, const size_t *wl, int nw, struct l2_event *ev,
                           l2_err *e)
{
    if (word_is(w[0], wl[0], "policy")) {
        if (nw < 3)
            return l2_fail(e, "usage: policy NAME interleaved|range|descriptor ...");
        int64_t id = l2_sym_find(t->syms, w[1], wl[1]);
        if (id >= 0 && id < L2_NBUILTIN)
            return l2_fail(e, "policy name '%.*s' is a built-in tag", (int)wl[1], w[1]);
        if (has_prefix(w[1], wl[1], "sm=") || word_is(w[1], wl[1], "shared"))
            return l2_fail(e, "'%.*s' cannot name a policy", (int)wl[1], w[1]);
        if (l2_policy_parse(nw - 2, w + 2, wl + 2, &ev->pol, e) < 0)
            return -1;
        id = l2_sym_intern(t->syms, w[1], wl[1]);
        if (id < 0)
            return l2_fail(e, "out of memory");
        l2_sym_set_flags(t->syms, (uint32_t)id, L2_SYM_POLICY);
        t->last_id = UINT32_MAX;
        t->last_len = SIZE_MAX;
        ev->type = EV_POLICY;
        ev->name = (uint32_t)id;
        return 0;
    }
    if (word_is(w[0], wl[0], "window")) {
        if (take_stream(w, wl, &nw, &ev->stream, e) < 0)
            return -1;
        if (nw == 2 && word_is(w[1], wl[1], "off")) {
            ev->type = EV_WINDOW_OFF;
            return 0;
        }
        ev->type = EV_WINDOW;
        return l2_window_parse(nw - 1, w + 1, wl + 1, &ev->win, e);
    }
    if (word_is(w[0], wl[0], "setaside")) {
        if (nw != 2)
            return l2_fail(e, "usage: setaside BYTES");
        ev->type = EV_SETASIDE;
        return l2_parse_bytes(w[1], wl[1], &ev->bytes, e) < 0 ? l2_prefix(e, "setaside") : 0;
    }
    if (word_is(w[0], wl[0], "reset")) {
        if (nw != 1)
            return l2_fail(e, "usage: reset");
        ev->type = EV_RESET;
        return 0;
    }
    if (word_is(w[0], wl[0], "kernel")) {
        if (take_stream(w, wl, &nw, &ev->stream, e) < 0)
            return -1;
        if (nw != 2)
            return l2_fail(e, "usage: kernel NAME [stream=S]");
        if (wl[1] >= L2_MAX_KNAME)
            return l2_fail(e, "kernel name longer than %u characters", L2_MAX_KNAME - 1);
        ev->type = EV_KERNEL;
        memcpy(ev->kname, w[1], wl[1]);
        ev->kname[wl[1]] = 0;
        return 0;
    }
    return l2_fail(e, "unknown directive '%.*s' (expected an access R/W/P/A/D, policy, window, setaside, reset "
                      "or kernel)",
                   (int)wl[0], w[0]);
}

int l2_trace_next(struct l2_trace *t, struct l2_event *ev, l2_err *e)
{
    const char *s = NULL;
    size_t n = 0;
    const char *w[MAX_WORDS];
    size_t wl[MAX_WORDS];
    for (;;) {
        int r = next_line(t, &s, &n, e);
        if (r <= 0)
            return r;
        int nw = split(s, n, w, wl);
        if (nw == 0)
            continue;
        memset(ev, 0, offsetof(struct l2_event, pol));
        ev->pos = t->lineno;
        if (nw < 0)
            r = l2_fail(e, "too many words");
        else if (wl[0] == 1 && strchr("RWPAD", w[0][0]))
            r = parse_access(t, w, wl, nw, ev, e);
        else
            r = parse_directive(t, w, wl, nw, ev, e);
        if (r < 0)
            return l2_prefix(e, "%s:%" PRIu64, t->name, t->lineno);
        return 1;
    }
}

static const char *api_name(enum l2_api a)
{
    return a == API_PTX ? "ptx" : "libcu";
}

void l2_event_write_text(FILE *f, const struct l2_event *ev, const struct l2_symtab *syms)
{
    const struct l2_policy_spec *p = &ev->pol;
    const struct l2_window_spec *w = &ev->win;
    char stream[32] = "";
    if (ev->stream)
        snprintf(stream, sizeof stream, " stream=%u", ev->stream);
    switch (ev->type) {
    case EV_ACCESS:
        fprintf(f, "%c 0x%" PRIx64 " %u", l2_op_chars[ev->op], ev->addr, ev->size);
        if (ev->tag != L2_TAG_GLOBAL)
            fprintf(f, " %s", l2_sym_name(syms, ev->tag));
        if (ev->sm >= 0)
            fprintf(f, " sm=%d", ev->sm);
        fputc('\n', f);
        return;
    case EV_POLICY:
        fprintf(f, "policy %s ", l2_sym_name(syms, ev->name));
        if (p->kind == POL_INTERLEAVED)
            fprintf(f, "interleaved %s %.17g %s api=%s\n", l2_prio_names[p->primary], p->fraction,
                    l2_prio_names[p->secondary], api_name(p->api));
        else if (p->kind == POL_RANGE)
            fprintf(f, "range 0x%" PRIx64 " %" PRIu64 " %" PRIu64 " %s %s api=%s\n", p->base, p->leading, p->total,
                    l2_prio_names[p->primary], l2_prio_names[p->secondary], api_name(p->api));
        else
            fprintf(f, "descriptor 0x%016" PRIx64 "\n", p->desc);
        return;
    case EV_WINDOW:
        fprintf(f, "window 0x%" PRIx64 " %" PRIu64 " %.17g %s %s%s\n", w->base, w->bytes, w->hit_ratio,
                l2_prio_names[w->hit_prop], l2_prio_names[w->miss_prop], stream);
        return;
    case EV_WINDOW_OFF:
        fprintf(f, "window off%s\n", stream);
        return;
    case EV_SETASIDE:
        fprintf(f, "setaside %" PRIu64 "\n", ev->bytes);
        return;
    case EV_RESET:
        fputs("reset\n", f);
        return;
    case EV_KERNEL:
        fprintf(f, "kernel %s%s\n", ev->kname, stream);
        return;
    }
}

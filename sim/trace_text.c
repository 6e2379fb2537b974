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

#include "trace_impl.h"

#define BUF_SIZE (1u << 20)
#define MAX_LINE 65536u
#define MAX_WORDS 16

int l2_text_start(struct l2_trace *t, const unsigned char *head, size_t n, int eof, l2_err *e)
{
    struct l2_text_state *x = &t->text;
    x->buf = malloc(BUF_SIZE);
    if (!x->buf)
        return l2_fail(e, "out of memory");
    memcpy(x->buf, head, n);
    x->len = n;
    x->eof = eof;
    t->fmt = L2_FMT_TEXT;
    return 0;
}

void l2_text_free(struct l2_trace *t)
{
    free(t->text.buf);
    t->text.buf = NULL;
}

/* Next line as [*s, *s + *n), without the newline; 0 at end, -1 on error. */
static int next_line(struct l2_trace *tr, const char **s, size_t *n, l2_err *e)
{
    struct l2_text_state *t = &tr->text;
    for (;;) {
        char *p = t->buf + t->pos;
        size_t avail = t->len - t->pos;
        char *nl = avail ? memchr(p, '\n', avail) : NULL;
        if ((nl ? (size_t)(nl - p) : avail) >= MAX_LINE) /* a whole line, or what is left of one */
            return l2_fail(e, "%s:%" PRIu64 ": line longer than %u bytes", tr->name, t->lineno + 1, MAX_LINE);
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
            *s = p;
            *n = avail;
            t->pos = t->len;
            t->lineno++;
            return 1;
        }
        memmove(t->buf, p, avail);
        t->len = avail;
        t->pos = 0;
        size_t want = BUF_SIZE - t->len;
        int64_t got = l2_source_read(tr->src, t->buf + t->len, want, e);
        if (got < 0)
            return -1;
        t->len += (size_t)got;
        if ((size_t)got < want)
            t->eof = 1;
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
    if (n == t->text.last_len && memcmp(w, t->text.last_tag, n) == 0) {
        *id = t->text.last_id;
        return 0;
    }
    int64_t s = l2_sym_find(t->syms, w, n);
    if (s < 0 || (s >= L2_NBUILTIN && !(l2_sym_flags(t->syms, (uint32_t)s) & L2_SYM_POLICY))) {
        enum l2_prio p;
        if (l2_word_is(w, n, "shared")) /* l2_prio_parse explains why it is not a priority */
            return l2_prio_parse(w, n, &p, e);
        return l2_fail(e, "unknown tag or policy '%.*s' (not a priority, property or policy defined earlier)",
                       (int)n, w);
    }
    *id = (uint32_t)s;
    if (n < sizeof t->text.last_tag) {
        memcpy(t->text.last_tag, w, n);
        t->text.last_len = n;
        t->text.last_id = *id;
    }
    return 0;
}

static int parse_access(struct l2_trace *t, enum l2_op op, const char **w, const size_t *wl, int nw,
                        struct l2_event *ev, l2_err *e)
{
    ev->type = EV_ACCESS;
    ev->op = (uint8_t)op;
    ev->tag = L2_TAG_GLOBAL; /* "global" */
    ev->sm = -1;
    if (nw < 3)
        return l2_fail(e, "access needs OP ADDR SIZE [TAG] [sm=N] [@CYCLE]");
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
    int words = 0; /* words after SIZE other than @CYCLE */
    int sm_given = 0;
    for (int i = 3; i < nw; i++) {
        if (w[i][0] == '@') {
            uint64_t c;
            if (ev->at1)
                return l2_fail(e, "more than one @CYCLE on an access");
            if (l2_parse_u64(w[i] + 1, wl[i] - 1, &c, e) < 0)
                return l2_prefix(e, "@CYCLE");
            if (c > L2_MAX_CYCLE)
                return l2_fail(e, "@CYCLE %" PRIu64 " is too large", c);
            l2_event_set_cycle(ev, c);
            continue;
        }
        if (l2_has_prefix(w[i], wl[i], "sm=")) {
            uint32_t sm = 0;
            if (sm_given++)
                return l2_fail(e, "more than one sm= on an access");
            if (parse_u32_word(w[i] + 3, wl[i] - 3, &sm, "sm", e) < 0)
                return -1;
            ev->sm = (int32_t)sm;
        } else if (words == 0) {
            if (access_tag(t, w[i], wl[i], &ev->tag, e) < 0)
                return -1;
        } else {
            return l2_fail(e, "unexpected '%.*s' (an access is OP ADDR SIZE [TAG] [sm=N] [@CYCLE])", (int)wl[i],
                           w[i]);
        }
        words++;
    }
    return ev->op == OP_PREFETCH ? l2_prefetch_tag_check(ev->tag, e) : 0;
}

/* Removes a trailing stream=S word. */
static int take_stream(const char **w, const size_t *wl, int *nw, uint32_t *stream, l2_err *e)
{
    *stream = 0;
    if (*nw > 1 && l2_has_prefix(w[*nw - 1], wl[*nw - 1], "stream=")) {
        if (parse_u32_word(w[*nw - 1] + 7, wl[*nw - 1] - 7, stream, "stream", e) < 0)
            return -1;
        (*nw)--;
    }
    return 0;
}

/* A kernel, allocation or event name into ev->label. */
static int take_label(const char *w, size_t n, const char *what, struct l2_event *ev, l2_err *e)
{
    if (n >= L2_MAX_KNAME)
        return l2_fail(e, "%s name longer than %u characters", what, L2_MAX_KNAME - 1);
    const char *why = l2_label_reserved(w, n);
    if (why)
        return l2_fail(e, "%s '%.*s': %s", what, (int)n, w, why);
    memcpy(ev->label, w, n);
    ev->label[n] = 0;
    return 0;
}

/* X[,Y[,Z]], each 1..2^31-1; Y and Z default to 1. */
static int parse_dims(const char *w, size_t n, uint32_t d[3], const char *what, l2_err *e)
{
    d[1] = d[2] = 1;
    for (int i = 0;; i++) {
        const char *c = memchr(w, ',', n);
        size_t k = c ? (size_t)(c - w) : n;
        if (parse_u32_word(w, k, &d[i], what, e) < 0)
            return -1;
        if (d[i] == 0)
            return l2_fail(e, "%s dimension 0 (each is at least 1)", what);
        if (!c)
            return 0;
        if (i == 2)
            return l2_fail(e, "%s has more than 3 dimensions", what);
        w += k + 1;
        n -= k + 1;
    }
}

static int parse_directive(struct l2_trace *t, const char **w, const size_t *wl, int nw, struct l2_event *ev,
                           l2_err *e)
{
    if (l2_word_is(w[0], wl[0], "policy")) {
        if (nw < 3)
            return l2_fail(e, "usage: policy NAME interleaved|range|descriptor ...");
        int64_t id = l2_sym_find(t->syms, w[1], wl[1]);
        if (id >= 0 && id < L2_NBUILTIN)
            return l2_fail(e, "policy name '%.*s' is a built-in tag", (int)wl[1], w[1]);
        const char *why = l2_policy_name_reserved(w[1], wl[1]);
        if (why)
            return l2_fail(e, "'%.*s' cannot name a policy: %s", (int)wl[1], w[1], why);
        if (l2_policy_parse(nw - 2, w + 2, wl + 2, &ev->pol, e) < 0)
            return -1;
        id = l2_sym_intern(t->syms, w[1], wl[1]);
        if (id < 0)
            return l2_fail(e, "out of memory or more than %u policy names", L2_MAX_SYMS - L2_NBUILTIN);
        l2_sym_set_flags(t->syms, (uint32_t)id, L2_SYM_POLICY);
        ev->type = EV_POLICY;
        ev->name = (uint32_t)id;
        return 0;
    }
    if (l2_word_is(w[0], wl[0], "window")) {
        if (take_stream(w, wl, &nw, &ev->stream, e) < 0)
            return -1;
        if (nw == 2 && l2_word_is(w[1], wl[1], "off")) {
            ev->type = EV_WINDOW_OFF;
            return 0;
        }
        ev->type = EV_WINDOW;
        return l2_window_parse(nw - 1, w + 1, wl + 1, &ev->win, e);
    }
    if (l2_word_is(w[0], wl[0], "setaside")) {
        if (nw != 2)
            return l2_fail(e, "usage: setaside BYTES");
        ev->type = EV_SETASIDE;
        return l2_parse_bytes(w[1], wl[1], &ev->bytes, e) < 0 ? l2_prefix(e, "setaside") : 0;
    }
    if (l2_word_is(w[0], wl[0], "reset")) {
        if (nw != 1)
            return l2_fail(e, "usage: reset");
        ev->type = EV_RESET;
        return 0;
    }
    if (l2_word_is(w[0], wl[0], "kernel")) {
        if (nw < 2 || take_label(w[1], wl[1], "kernel", ev, e) < 0)
            return nw < 2 ? l2_fail(e, "usage: kernel NAME [stream=S] [grid=X,Y,Z] [block=X,Y,Z]") : -1;
        ev->type = EV_KERNEL;
        for (int i = 2; i < nw; i++) {
            int r;
            if (l2_has_prefix(w[i], wl[i], "stream="))
                r = parse_u32_word(w[i] + 7, wl[i] - 7, &ev->stream, "stream", e);
            else if (l2_has_prefix(w[i], wl[i], "grid="))
                r = parse_dims(w[i] + 5, wl[i] - 5, ev->grid, "grid", e);
            else if (l2_has_prefix(w[i], wl[i], "block="))
                r = parse_dims(w[i] + 6, wl[i] - 6, ev->block, "block", e);
            else
                r = l2_fail(e, "unexpected '%.*s' (usage: kernel NAME [stream=S] [grid=X,Y,Z] [block=X,Y,Z])",
                            (int)wl[i], w[i]);
            if (r < 0)
                return -1;
        }
        return 0;
    }
    if (l2_word_is(w[0], wl[0], "alloc")) {
        if (nw != 4)
            return l2_fail(e, "usage: alloc NAME BASE BYTES");
        if (take_label(w[1], wl[1], "allocation", ev, e) < 0)
            return -1;
        if (l2_parse_u64(w[2], wl[2], &ev->addr, e) < 0)
            return l2_prefix(e, "alloc base");
        if (l2_parse_bytes(w[3], wl[3], &ev->bytes, e) < 0)
            return l2_prefix(e, "alloc bytes");
        ev->type = EV_ALLOC;
        return l2_alloc_check(ev, e);
    }
    if (l2_word_is(w[0], wl[0], "free")) {
        if (nw != 2)
            return l2_fail(e, "usage: free NAME");
        ev->type = EV_FREE;
        return take_label(w[1], wl[1], "allocation", ev, e);
    }
    if (l2_word_is(w[0], wl[0], "event")) {
        if (take_stream(w, wl, &nw, &ev->stream, e) < 0)
            return -1;
        if (nw != 3 || !(l2_word_is(w[1], wl[1], "record") || l2_word_is(w[1], wl[1], "wait")))
            return l2_fail(e, "usage: event record|wait NAME [stream=S]");
        ev->type = l2_word_is(w[1], wl[1], "record") ? EV_EVENT_RECORD : EV_EVENT_WAIT;
        return take_label(w[2], wl[2], "event", ev, e);
    }
    if (l2_word_is(w[0], wl[0], "assign")) {
        ev->type = EV_ASSIGN;
        if (nw == 3)
            return take_label(w[1], wl[1], "buffer", ev, e) < 0 ? -1 : access_tag(t, w[2], wl[2], &ev->tag, e);
        if (nw != 4)
            return l2_fail(e, "usage: assign BUFFER TAG, or assign BASE BYTES TAG");
        if (l2_parse_u64(w[1], wl[1], &ev->addr, e) < 0)
            return l2_prefix(e, "assign base");
        if (l2_parse_bytes(w[2], wl[2], &ev->bytes, e) < 0)
            return l2_prefix(e, "assign bytes");
        if (ev->bytes == 0 || ev->addr > UINT64_MAX - ev->bytes)
            return l2_fail(e, "assign range is empty or overflows the address space");
        return access_tag(t, w[3], wl[3], &ev->tag, e);
    }
    if (l2_word_is(w[0], wl[0], "sync")) {
        int with_stream = nw == 2 && l2_has_prefix(w[1], wl[1], "stream=");
        if (take_stream(w, wl, &nw, &ev->stream, e) < 0)
            return -1;
        if (nw != 1)
            return l2_fail(e, "usage: sync [stream=S]");
        ev->type = with_stream ? EV_STREAM_SYNC : EV_SYNC;
        return 0;
    }
    return l2_fail(e, "unknown directive '%.*s' (expected an access R/W/P/A/D, policy, window, setaside, reset, "
                      "kernel, alloc, free, event, sync or assign)",
                   (int)wl[0], w[0]);
}

int l2_text_next(struct l2_trace *t, struct l2_event *ev, l2_err *e)
{
    const char *s = NULL;
    size_t n = 0;
    const char *w[MAX_WORDS], *op;
    size_t wl[MAX_WORDS];
    for (;;) {
        int r = next_line(t, &s, &n, e);
        if (r <= 0)
            return r;
        /* a NUL byte anywhere, other control bytes and invalid UTF-8 before
         * a comment: names must print as they are in messages and JSON */
        const char *hash = memchr(s, '#', n);
        size_t bad = l2_text_bad_at(s, hash ? (size_t)(hash - s) : n);
        const char *nul = memchr(s, 0, n);
        if (nul && (size_t)(nul - s) < bad)
            bad = (size_t)(nul - s);
        if (bad < (hash ? (size_t)(hash - s) : n) || nul) {
            l2_fail(e, "column %zu: byte 0x%02x is not text (a NUL or control byte, or invalid UTF-8)", bad + 1,
                    (unsigned char)s[bad]);
            return l2_trace_fail_at(t, t->text.lineno, e);
        }
        int nw = split(s, n, w, wl);
        if (nw == 0)
            continue;
        const int access = nw > 0 && wl[0] == 1 && (op = memchr(l2_op_chars, w[0][0], L2_NOP)) != NULL;
        /* an access sets no policy, window or label, so only the fields
         * before them are cleared for it; a directive starts from a whole
         * empty event (a label left from the line before would make an
         * assign range a buffer's assign) */
        memset(ev, 0, access ? offsetof(struct l2_event, pol) : sizeof *ev);
        ev->pos = t->text.lineno;
        if (nw < 0)
            r = l2_fail(e, "too many words");
        else if (access)
            r = parse_access(t, (enum l2_op)(op - l2_op_chars), w, wl, nw, ev, e);
        else
            r = parse_directive(t, w, wl, nw, ev, e);
        if (r < 0)
            return l2_trace_fail_at(t, t->text.lineno, e);
        return 1;
    }
}

static const char *api_name(enum l2_api a)
{
    return a == API_PTX ? "ptx" : "libcu";
}

size_t l2_event_format_text(char *buf, size_t n, const struct l2_event *ev, const struct l2_symtab *syms)
{
    const struct l2_policy_spec *p = &ev->pol;
    const struct l2_window_spec *w = &ev->win;
    char stream[32] = "";
    int k = 0;
    if (ev->stream)
        snprintf(stream, sizeof stream, " stream=%u", ev->stream);
    switch (ev->type) {
    case EV_ACCESS: {
        char sm[24] = "";
        if (ev->sm >= 0)
            snprintf(sm, sizeof sm, " sm=%d", ev->sm);
        const char *tag = ev->tag != L2_TAG_GLOBAL ? l2_sym_name(syms, ev->tag) : NULL;
        char at[32] = "";
        if (l2_event_has_cycle(ev))
            snprintf(at, sizeof at, " @%" PRIu64, l2_event_cycle(ev));
        k = snprintf(buf, n, "%c 0x%" PRIx64 " %u%s%s%s%s\n", l2_op_chars[ev->op], ev->addr, ev->size, tag ? " " : "",
                     tag ? tag : "", sm, at);
        break;
    }
    case EV_POLICY:
        if (p->kind == POL_INTERLEAVED)
            k = snprintf(buf, n, "policy %s interleaved %s %.17g %s api=%s\n", l2_sym_name(syms, ev->name),
                         l2_prio_names[p->primary], p->fraction, l2_prio_names[p->secondary], api_name(p->api));
        else if (p->kind == POL_RANGE)
            k = snprintf(buf, n, "policy %s range 0x%" PRIx64 " %" PRIu64 " %" PRIu64 " %s %s api=%s\n",
                         l2_sym_name(syms, ev->name), p->base, p->leading, p->total, l2_prio_names[p->primary],
                         l2_prio_names[p->secondary], api_name(p->api));
        else /* api only matters to the other kinds, but is kept so that conversions are lossless */
            k = snprintf(buf, n, "policy %s descriptor 0x%016" PRIx64 "%s\n", l2_sym_name(syms, ev->name), p->desc,
                         p->api == API_PTX ? " api=ptx" : "");
        break;
    case EV_WINDOW:
        k = snprintf(buf, n, "window 0x%" PRIx64 " %" PRIu64 " %.17g %s %s%s\n", w->base, w->bytes, w->hit_ratio,
                     l2_prio_names[w->hit_prop], l2_prio_names[w->miss_prop], stream);
        break;
    case EV_WINDOW_OFF:
        k = snprintf(buf, n, "window off%s\n", stream);
        break;
    case EV_SETASIDE:
        k = snprintf(buf, n, "setaside %" PRIu64 "\n", ev->bytes);
        break;
    case EV_RESET:
        k = snprintf(buf, n, "reset\n");
        break;
    case EV_KERNEL: {
        char dims[96] = "";
        int d = 0;
        if (ev->grid[0])
            d = snprintf(dims, sizeof dims, " grid=%u,%u,%u", ev->grid[0], ev->grid[1], ev->grid[2]);
        if (ev->block[0])
            snprintf(dims + d, sizeof dims - (size_t)d, " block=%u,%u,%u", ev->block[0], ev->block[1], ev->block[2]);
        k = snprintf(buf, n, "kernel %s%s%s\n", ev->label, stream, dims);
        break;
    }
    case EV_ALLOC:
        k = snprintf(buf, n, "alloc %s 0x%" PRIx64 " %" PRIu64 "\n", ev->label, ev->addr, ev->bytes);
        break;
    case EV_FREE:
        k = snprintf(buf, n, "free %s\n", ev->label);
        break;
    case EV_EVENT_RECORD:
    case EV_EVENT_WAIT:
        k = snprintf(buf, n, "event %s %s%s\n", ev->type == EV_EVENT_RECORD ? "record" : "wait", ev->label, stream);
        break;
    case EV_SYNC:
        k = snprintf(buf, n, "sync\n");
        break;
    case EV_STREAM_SYNC:
        k = snprintf(buf, n, "sync stream=%u\n", ev->stream);
        break;
    case EV_ASSIGN:
        if (ev->label[0])
            k = snprintf(buf, n, "assign %s %s\n", ev->label, l2_sym_name(syms, ev->tag));
        else
            k = snprintf(buf, n, "assign 0x%" PRIx64 " %" PRIu64 " %s\n", ev->addr, ev->bytes,
                         l2_sym_name(syms, ev->tag));
        break;
    }
    return k < 0 ? 0 : (size_t)k;
}

int l2_event_write_text(FILE *f, const struct l2_event *ev, const struct l2_symtab *syms)
{
    char small[512];
    size_t k = l2_event_format_text(small, sizeof small, ev, syms);
    if (k < sizeof small)
        return fwrite(small, 1, k, f) == k ? 0 : -1;
    char *big = malloc(k + 1); /* a long policy name (up to 64 KiB) */
    if (!big)
        return -1;
    l2_event_format_text(big, k + 1, ev, syms);
    int r = fwrite(big, 1, k, f) == k ? 0 : -1;
    free(big);
    return r;
}

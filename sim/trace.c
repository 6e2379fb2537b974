/*
 * trace.c - opening a trace (compression and format recognised by the
 * first bytes) and the l2_trace_next dispatcher with the binary fast path
 * inline.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "trace_impl.h"

const char *l2_trace_label(const char *path)
{
    return strcmp(path, "-") == 0 ? "<stdin>" : path;
}

int l2_trace_open(struct l2_trace **out, const char *path, struct l2_symtab *syms, l2_err *e)
{
    return l2_trace_open_as(out, path, l2_trace_label(path), syms, e);
}

int l2_trace_open_as(struct l2_trace **out, const char *path, const char *label, struct l2_symtab *syms, l2_err *e)
{
    struct l2_trace *t = calloc(1, sizeof *t);
    if (!t)
        return l2_fail(e, "out of memory");
    t->name = strdup(label);
    if (!t->name) {
        free(t);
        return l2_fail(e, "out of memory");
    }
    t->syms = syms;
    if (l2_source_open(&t->src, path, t->name, e) < 0) {
        l2_trace_close(t);
        return -1;
    }
    unsigned char magic[8];
    int64_t got = l2_source_read(t->src, magic, sizeof magic, e);
    int r;
    if (got < 0)
        r = -1;
    else if (got == (int64_t)sizeof magic && memcmp(magic, L2_BIN_MAGIC, sizeof magic) == 0)
        r = l2_bin_start(t, magic, e);
    else if (got >= 4 && got < (int64_t)sizeof magic && memcmp(magic, L2_BIN_MAGIC, (size_t)got) == 0)
        r = l2_fail(e, "%s: truncated header (of a binary trace)", t->name);
    else if (got >= 7 && memcmp(magic, L2_BIN_MAGIC, 7) == 0)
        r = l2_fail(e, "%s: bad magic '%.8s' (an l2sim binary trace starts with " L2_BIN_MAGIC ")", t->name,
                    (const char *)magic);
    else if (memchr(magic, 0, (size_t)got))
        r = l2_fail(e, "%s: bad magic: neither an l2sim binary trace (" L2_BIN_MAGIC
                       ") nor a text trace (it holds NUL bytes)",
                    t->name);
    else
        r = l2_text_start(t, magic, (size_t)got, got < (int64_t)sizeof magic, e);
    if (r < 0) {
        l2_trace_close(t);
        return -1;
    }
    *out = t;
    return 0;
}

void l2_trace_close(struct l2_trace *t)
{
    if (!t)
        return;
    l2_text_free(t);
    l2_bin_free(t);
    l2_source_close(t->src);
    free(t->name);
    free(t);
}

const char *l2_policy_name_reserved(const char *s, size_t n)
{
    if (l2_has_prefix(s, n, "sm=") || l2_word_is(s, n, "shared") || (n > 0 && s[0] == '@'))
        return "a reserved word (sm=N, shared, @CYCLE)";
    return NULL;
}

const char *l2_label_reserved(const char *s, size_t n)
{
    if (l2_has_prefix(s, n, "stream=") || l2_has_prefix(s, n, "grid=") || l2_has_prefix(s, n, "block="))
        return "a name cannot begin with stream=, grid= or block=";
    return NULL;
}

int l2_alloc_check(const struct l2_event *ev, l2_err *e)
{
    if (ev->bytes == 0)
        return l2_fail(e, "allocation '%s' of 0 bytes", ev->label);
    if (ev->addr > UINT64_MAX - ev->bytes)
        return l2_fail(e, "allocation '%s': base + bytes overflows the address space", ev->label);
    return 0;
}

int l2_prefetch_tag_check(uint32_t tag, l2_err *e)
{
    enum l2_prio p = l2_builtin_prio(tag); /* evict_unchanged for a policy */
    if (p == PRIO_EVICT_LAST || p == PRIO_EVICT_NORMAL)
        return 0;
    return l2_fail(e, "prefetch needs the tag evict_last or evict_normal");
}

int l2_trace_next(struct l2_trace *t, struct l2_event *ev, l2_err *e)
{
    if (t->rp < t->rend && l2_bin_fast_access(t, t->rp, ev)) {
        t->rp += L2_BIN_REC;
        t->recno++;
        return 1;
    }
    return t->fmt == L2_FMT_BINARY ? l2_bin_next(t, ev, e) : l2_text_next(t, ev, e);
}

int l2_trace_fail_at(const struct l2_trace *t, uint64_t pos, l2_err *e)
{
    if (t->fmt == L2_FMT_BINARY)
        return l2_prefix(e, "%s:record %" PRIu64, t->name, pos);
    return l2_prefix(e, "%s:%" PRIu64, t->name, pos);
}

enum l2_trace_format l2_trace_format(const struct l2_trace *t)
{
    return t->fmt;
}

int64_t l2_trace_total(const struct l2_trace *t)
{
    return t->fmt == L2_FMT_BINARY ? (int64_t)t->bin.total : -1;
}

double l2_trace_fraction(const struct l2_trace *t)
{
    if (t->fmt == L2_FMT_BINARY)
        return t->bin.total ? (double)t->recno / (double)t->bin.total : 1.0;
    return l2_source_fraction(t->src);
}

void l2_kernel_label(char out[L2_MAX_KNAME], const char *name)
{
    size_t k = 0;
    if (strncmp(name, "void ", 5) == 0) /* every kernel's return type */
        name += 5;
    int escape = name[0] == '@' || strncmp(name, "stream=", 7) == 0 || strncmp(name, "grid=", 5) == 0 ||
                 strncmp(name, "block=", 6) == 0;
    if (escape)
        out[k++] = '_';
    const unsigned char *p = (const unsigned char *)name;
    for (; *p && k < L2_MAX_KNAME - 1; p++) {
        unsigned char ch = *p;
        if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\v' || ch == '\f')
            continue;
        out[k++] = (char)(ch == '#' || ch < 0x20 || ch == 0x7f ? '_' : ch);
    }
    if (*p) { /* cut: drop a UTF-8 character left incomplete */
        size_t j = k;
        while (j > 0 && ((unsigned char)out[j - 1] & 0xc0u) == 0x80u)
            j--;
        if (j > 0 && (unsigned char)out[j - 1] >= 0xc0u) {
            unsigned char lead = (unsigned char)out[j - 1];
            size_t len = lead >= 0xf0u ? 4 : lead >= 0xe0u ? 3 : 2;
            if (k - (j - 1) < len)
                k = j - 1;
        }
    }
    if (k == 0)
        out[k++] = '_';
    out[k] = 0;
}


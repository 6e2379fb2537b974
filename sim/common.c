/*
 * common.c - errors, strict number parsing, enum name tables.
 */
#include "common.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

const char *const l2_prio_names[L2_NPRIO] = {L2_PRIO_LIST(L2_X_NAME)};

#define L2_X_OPCH(id, ch, name) [id] = ch,
const char l2_op_chars[L2_NOP] = {L2_OP_LIST(L2_X_OPCH)};

#ifndef __POPCNT__
#define B2(n) n, n + 1, n + 1, n + 2
#define B4(n) B2(n), B2(n + 1), B2(n + 1), B2(n + 2)
#define B6(n) B4(n), B4(n + 1), B4(n + 1), B4(n + 2)
const uint8_t l2_popcount8_table[256] = {B6(0), B6(1), B6(1), B6(2)};
#endif

int l2_grow(void *pp, uint32_t *cap, uint64_t need, size_t elem, l2_err *e)
{
    void **p = pp;
    if (need <= *cap)
        return 0;
    if (need > UINT32_MAX)
        return l2_fail(e, "table too large");
    uint64_t c = *cap ? *cap : 16;
    while (c < need)
        c *= 2;
    if (c > UINT32_MAX)
        c = UINT32_MAX;
    void *n = realloc(*p, (size_t)c * elem);
    if (!n)
        return l2_fail(e, "out of memory");
    *p = n;
    *cap = (uint32_t)c;
    return 0;
}

int l2_fail(l2_err *e, const char *fmt, ...)
{
    if (e) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(e->msg, sizeof e->msg, fmt, ap);
        va_end(ap);
    }
    return -1;
}

int l2_prefix(l2_err *e, const char *fmt, ...)
{
    if (e) {
        char head[L2_ERR_MAX], old[L2_ERR_MAX];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(head, sizeof head, fmt, ap);
        va_end(ap);
        memcpy(old, e->msg, sizeof old);
        size_t hn = strlen(head);
        if (hn > sizeof e->msg - 3)
            hn = sizeof e->msg - 3;
        memcpy(e->msg, head, hn);
        memcpy(e->msg + hn, ": ", 2);
        size_t on = strnlen(old, sizeof old);
        if (on > sizeof e->msg - hn - 3)
            on = sizeof e->msg - hn - 3;
        memcpy(e->msg + hn + 2, old, on);
        e->msg[hn + 2 + on] = 0;
    }
    return -1;
}

static int digit_val(char c, unsigned base)
{
    unsigned v;
    if (c >= '0' && c <= '9')
        v = (unsigned)(c - '0');
    else if (c >= 'a' && c <= 'f')
        v = (unsigned)(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F')
        v = (unsigned)(c - 'A' + 10);
    else
        return -1;
    return v < base ? (int)v : -1;
}

/* Parses the leading number of s[0..n); sets *used to the digits consumed. */
static int parse_u64_prefix(const char *s, size_t n, uint64_t *out, size_t *used, l2_err *e)
{
    unsigned base = 10;
    size_t i = 0;
    if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        i = 2;
    }
    size_t start = i;
    uint64_t v = 0;
    for (; i < n; i++) {
        int d = digit_val(s[i], base);
        if (d < 0)
            break;
        if (v > (UINT64_MAX - (uint64_t)d) / base)
            return l2_fail(e, "number '%.*s' is too large", (int)n, s);
        v = v * base + (uint64_t)d;
    }
    if (i == start)
        return l2_fail(e, "'%.*s' is not a number", (int)n, s);
    *out = v;
    *used = i;
    return 0;
}

size_t l2_utf8_len(const char *p)
{
    const unsigned char *s = (const unsigned char *)p;
    unsigned char c = s[0];
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf)
        return (s[1] & 0xc0) == 0x80 ? 2 : 0;
    if (c >= 0xe0 && c <= 0xef) {
        if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80)
            return 0;
        if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] >= 0xa0)) /* overlong; surrogates */
            return 0;
        return 3;
    }
    if (c >= 0xf0 && c <= 0xf4) {
        if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 || (s[3] & 0xc0) != 0x80)
            return 0;
        if ((c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] >= 0x90))
            return 0;
        return 4;
    }
    return 0;
}

size_t l2_text_bad_at(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned char c = (unsigned char)s[i];
        size_t k = c < 0x80 ? 1 : l2_utf8_len(s + i);
        if (c == 0 || (c < 0x20 && c != '\t' && c != '\r') || c == 0x7f || k == 0 || i + k > n)
            return i;
        i += k;
    }
    return n;
}

int l2_parse_u64(const char *s, size_t n, uint64_t *out, l2_err *e)
{
    size_t used;
    if (parse_u64_prefix(s, n, out, &used, e) < 0)
        return -1;
    if (used != n)
        return l2_fail(e, "'%.*s' is not a number", (int)n, s);
    return 0;
}

int l2_parse_bytes(const char *s, size_t n, uint64_t *out, l2_err *e)
{
    static const struct {
        const char *sfx;
        unsigned shift;
    } units[] = {{"", 0}, {"B", 0}, {"KiB", 10}, {"MiB", 20}, {"GiB", 30}, {"TiB", 40}};
    uint64_t v;
    size_t used;
    if (parse_u64_prefix(s, n, &v, &used, e) < 0)
        return -1;
    const char *sfx = s + used;
    size_t sn = n - used;
    for (size_t k = 0; k < L2_ARRAY_LEN(units); k++) {
        if (l2_word_is(sfx, sn, units[k].sfx)) {
            if (units[k].shift && v > (UINT64_MAX >> units[k].shift))
                return l2_fail(e, "byte count '%.*s' is too large", (int)n, s);
            *out = v << units[k].shift;
            return 0;
        }
    }
    return l2_fail(e, "'%.*s' is not a byte count (a number with an optional B, KiB, MiB, GiB or TiB)",
                   (int)n, s);
}

int l2_parse_double(const char *s, size_t n, double *out, l2_err *e)
{
    char buf[64];
    if (n == 0 || n >= sizeof buf)
        return l2_fail(e, "'%.*s' is not a number", (int)n, s);
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+'))
            return l2_fail(e, "'%.*s' is not a number", (int)n, s);
    }
    memcpy(buf, s, n);
    buf[n] = 0;
    char *end;
    errno = 0;
    double v = strtod(buf, &end);
    if (end != buf + n || errno != 0 || !isfinite(v))
        return l2_fail(e, "'%.*s' is not a number", (int)n, s);
    *out = v;
    return 0;
}

const char *l2_fmt_bytes(uint64_t v, char *buf, size_t n)
{
    static const char *const sfx[] = {"GiB", "MiB", "KiB"};
    static const unsigned shift[] = {30, 20, 10};
    for (size_t k = 0; k < 3; k++) {
        uint64_t m = (uint64_t)1 << shift[k];
        if (v && v % m == 0) {
            snprintf(buf, n, "%llu%s", (unsigned long long)(v / m), sfx[k]);
            return buf;
        }
    }
    snprintf(buf, n, "%llu", (unsigned long long)v);
    return buf;
}

int l2_prio_parse(const char *s, size_t n, enum l2_prio *out, l2_err *e)
{
#define ALIAS(prio, name) {name, prio},
    static const struct {
        const char *name;
        enum l2_prio prio;
    } alias[] = {L2_PRIO_ALIASES(ALIAS)};
#undef ALIAS
    for (int p = 0; p < L2_NPRIO; p++) {
        if (l2_word_is(s, n, l2_prio_names[p])) {
            *out = (enum l2_prio)p;
            return 0;
        }
    }
    for (size_t k = 0; k < L2_ARRAY_LEN(alias); k++) {
        if (l2_word_is(s, n, alias[k].name)) {
            *out = alias[k].prio;
            return 0;
        }
    }
    if (l2_word_is(s, n, "shared"))
        return l2_fail(e, "'shared' is a memory-space property, not an L2 eviction priority "
                          "(attaching it to a global access is undefined behaviour)");
    return l2_fail(e, "unknown priority '%.*s' (expected evict_first, evict_last, evict_normal, "
                      "evict_unchanged, no_allocate, streaming, persisting, normal or global)",
                   (int)n, s);
}

void *l2_alloc_table(size_t bytes)
{
    const size_t huge = (size_t)2 << 20;
    size_t align = bytes >= huge ? huge : 64;
    size_t n = (bytes + align - 1) / align * align;
    void *p = aligned_alloc(align, n ? n : align);
    if (!p)
        return NULL;
#ifdef MADV_HUGEPAGE
    if (align == huge)
        (void)madvise(p, n, MADV_HUGEPAGE); /* a hint: without it the table works the same */
#endif
    memset(p, 0, n);
    return p;
}

/*
 * policy.c - policy requests, descriptor encode/decode, semantics.
 */
#include "policy.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Descriptor priority codes (bits 57-58) by priority. */
static const unsigned prio_code[L2_NPRIO] = {
    [PRIO_EVICT_UNCHANGED] = 0, [PRIO_EVICT_FIRST] = 1, [PRIO_EVICT_LAST] = 2,
    [PRIO_EVICT_NORMAL] = 3,    [PRIO_NO_ALLOCATE] = 0,
};
static const enum l2_prio code_prio[4] = {PRIO_EVICT_UNCHANGED, PRIO_EVICT_FIRST, PRIO_EVICT_LAST,
                                          PRIO_EVICT_NORMAL};

#define MODE_IMPLICIT 0u
#define MODE_INTERLEAVED 2u
#define MODE_RANGE 3u
#define SHARE_ALL (1ULL << 60)

int l2_policy_check(const struct l2_policy_spec *s, l2_err *e)
{
    /* fields a binary file can hold out of range */
    if ((unsigned)s->kind > POL_DESCRIPTOR || (unsigned)s->api > API_PTX ||
        (unsigned)s->primary >= L2_NPRIO || (unsigned)s->secondary >= L2_NPRIO)
        return l2_fail(e, "kind, api or priority out of range (corrupt file?)");
    if (s->kind == POL_DESCRIPTOR) {
        struct l2_policy p;
        return l2_policy_decode(s->desc, &p, e);
    }
    if (s->primary == PRIO_NO_ALLOCATE)
        return l2_fail(e, "no_allocate cannot be a policy's primary priority");
    if (s->secondary != PRIO_EVICT_FIRST && s->secondary != PRIO_EVICT_UNCHANGED)
        return l2_fail(e, "secondary priority must be evict_first (streaming) or evict_unchanged (global), not %s",
                       l2_prio_names[s->secondary]);
    if (s->kind == POL_INTERLEAVED && !(s->fraction > 0.0 && s->fraction <= 1.0))
        return l2_fail(e, "probability %g is outside (0, 1]", s->fraction);
    if (s->kind == POL_RANGE) {
        if (!(s->leading > 0 && s->leading <= s->total && s->total <= (4ULL << 30)))
            return l2_fail(e, "range needs 0 < leading <= total <= 4 GiB (leading %llu, total %llu)",
                           (unsigned long long)s->leading, (unsigned long long)s->total);
        if (s->base > UINT64_MAX - s->total)
            return l2_fail(e, "range base + total overflows the address space");
    }
    return 0;
}

int l2_window_check(const struct l2_window_spec *w, l2_err *e)
{
    if ((unsigned)w->hit_prop >= L2_NPRIO || (unsigned)w->miss_prop >= L2_NPRIO)
        return l2_fail(e, "priority out of range (corrupt file?)");
    if (!(w->hit_ratio >= 0.0 && w->hit_ratio <= 1.0))
        return l2_fail(e, "window hitRatio %g is outside [0, 1]", w->hit_ratio);
    if (w->miss_prop != PRIO_EVICT_NORMAL && w->miss_prop != PRIO_EVICT_FIRST)
        return l2_fail(e, "window missProp must be normal or streaming, not %s", l2_prio_names[w->miss_prop]);
    if (w->hit_prop != PRIO_EVICT_NORMAL && w->hit_prop != PRIO_EVICT_FIRST && w->hit_prop != PRIO_EVICT_LAST)
        return l2_fail(e, "window hitProp must be persisting, streaming or normal, not %s",
                       l2_prio_names[w->hit_prop]);
    if (w->bytes == 0)
        return l2_fail(e, "window size is 0");
    if (w->base > UINT64_MAX - w->bytes)
        return l2_fail(e, "window base + size overflows the address space");
    return 0;
}

/* n of an interleaved request: share (n+1)/16. */
static unsigned interleave_n(const struct l2_policy_spec *s)
{
    if (s->api == API_LIBCU)
        return s->fraction >= 1.0 ? 15u : 0u; /* truncated to an integer before scaling */
    double c = ceil(16.0 * s->fraction) - 1.0;
    return c < 0 ? 0u : c > 15 ? 15u : (unsigned)c;
}

/* Block-size code k of a range request: block = 4 KiB << k. */
static unsigned range_k(uint64_t total)
{
    unsigned lg = l2_log2_ceil(total);
    return lg > 19 ? lg - 19 : 0; /* 2^lg / 128 > 4 KiB */
}

uint64_t l2_policy_encode(const struct l2_policy_spec *s)
{
    uint64_t d;
    switch (s->kind) {
    case POL_DESCRIPTOR:
        return s->desc;
    case POL_STATIC:
        return ((uint64_t)MODE_INTERLEAVED << 59) | ((uint64_t)prio_code[s->primary] << 57) | (15ULL << 52);
    case POL_INTERLEAVED:
        d = ((uint64_t)MODE_INTERLEAVED << 59) | ((uint64_t)prio_code[s->primary] << 57);
        if (s->secondary == PRIO_EVICT_FIRST)
            d |= 1ULL << 56;
        return d | ((uint64_t)interleave_n(s) << 52);
    case POL_RANGE: {
        unsigned k = range_k(s->total);
        unsigned shift = 12 + k;
        uint64_t b0 = s->base >> shift;
        uint64_t cnt = ((s->base + s->leading - 1) >> shift) - b0 + 1;
        if (cnt > 127)
            cnt = 127;
        d = ((uint64_t)MODE_RANGE << 59) | ((uint64_t)prio_code[s->primary] << 57);
        if (s->secondary == PRIO_EVICT_FIRST)
            d |= 1ULL << 56;
        return d | ((uint64_t)k << 52) | ((b0 & 127) << 44) | (cnt << 37);
    }
    }
    return 0;
}

int l2_policy_decode(uint64_t d, struct l2_policy *p, l2_err *e)
{
    memset(p, 0, sizeof *p);
    unsigned mode = (unsigned)(d >> 59) & 3;
    p->primary = code_prio[(d >> 57) & 3];
    p->secondary = (d >> 56) & 1 ? PRIO_EVICT_FIRST : PRIO_EVICT_UNCHANGED;
    unsigned nk = (unsigned)(d >> 52) & 15;
    switch (mode) {
    case MODE_IMPLICIT:
        p->kind = POL_STATIC;
        return 0;
    case MODE_INTERLEAVED:
        p->kind = POL_INTERLEAVED;
        p->share60 = (uint64_t)(nk + 1) << 56;
        return 0;
    case MODE_RANGE:
        p->kind = POL_RANGE;
        p->hw_range = 1;
        p->blk_shift = 12 + nk;
        p->blk0 = (unsigned)(d >> 44) & 127;
        p->count = (unsigned)(d >> 37) & 127;
        return 0;
    default:
        return l2_fail(e, "descriptor 0x%016llx has the reserved mode 1 in bits 59-60", (unsigned long long)d);
    }
}

void l2_policy_resolve(const struct l2_policy_spec *s, enum l2_semantics sem, struct l2_policy *p)
{
    memset(p, 0, sizeof *p);
    if (s->kind == POL_DESCRIPTOR || sem == SEM_HARDWARE) {
        l2_policy_decode(l2_policy_encode(s), p, NULL);
    } else {
        p->primary = s->primary;
        p->secondary = s->secondary;
        if (s->kind == POL_STATIC) {
            p->kind = POL_STATIC;
        } else if (s->kind == POL_INTERLEAVED) {
            p->kind = POL_INTERLEAVED;
            p->share60 = s->fraction >= 1.0 ? SHARE_ALL : (uint64_t)ldexp(s->fraction, 60);
        } else {
            p->kind = POL_RANGE;
        }
    }
    if (s->kind == POL_RANGE) {
        /* primary [base, base+leading); secondary [base+leading-total, base)
         * and [base+leading, base+total) */
        uint64_t below = s->total - s->leading;
        p->lo = s->base >= below ? s->base - below : 0;
        p->base = s->base;
        p->mid = s->base + s->leading;
        p->hi = s->base + s->total;
        p->track_unspec = 1;
    }
}

void l2_window_resolve(const struct l2_window_spec *w, enum l2_semantics sem, struct l2_window *out)
{
    memset(out, 0, sizeof *out);
    out->active = 1;
    out->base = w->base;
    out->end = w->base + w->bytes;
    out->hit_prop = w->hit_prop;
    out->miss_prop = w->miss_prop;
    if (sem == SEM_DOCUMENTED) {
        out->share60 = w->hit_ratio >= 1.0 ? SHARE_ALL : (uint64_t)ldexp(w->hit_ratio, 60);
    } else {
        /* Measured (H100, hitRatio 0.5 retained 9/16): floor(16 r) + 1
         * sixteenths, at most 16. */
        unsigned n = (unsigned)floor(16.0 * w->hit_ratio);
        if (n > 15)
            n = 15;
        out->share60 = (uint64_t)(n + 1) << 56;
    }
}

static const char *share_text(uint64_t share60, char *buf, size_t n)
{
    if ((share60 & ((1ULL << 56) - 1)) == 0)
        snprintf(buf, n, "%llu/16", (unsigned long long)(share60 >> 56));
    else
        snprintf(buf, n, "%.6g", ldexp((double)share60, -60));
    return buf;
}

/* Appends what share is applied, and what was requested where they differ. */
static void share_outcome(char *buf, size_t n, uint64_t doc, uint64_t hw, enum l2_semantics sem, const char *api)
{
    char a[32], b[32];
    size_t len = strlen(buf);
    snprintf(a, sizeof a, "%.6g", ldexp((double)doc, -60));
    if (doc == hw)
        snprintf(buf + len, n - len, "%s applied", share_text(hw, a, sizeof a));
    else if (sem == SEM_HARDWARE)
        snprintf(buf + len, n - len, "%s requested, %s applied (%s encoding)", a, share_text(hw, b, sizeof b), api);
    else
        snprintf(buf + len, n - len, "%s applied as requested (hardware: %s, %s encoding)", a,
                 share_text(hw, b, sizeof b), api);
}

void l2_policy_describe(const struct l2_policy_spec *s, enum l2_semantics sem, char *buf, size_t n)
{
    const char *api = s->api == API_LIBCU ? "libcu++" : "createpolicy";
    uint64_t desc = l2_policy_encode(s);
    struct l2_policy hw, doc;
    char a[32];
    l2_policy_resolve(s, SEM_HARDWARE, &hw);
    l2_policy_resolve(s, SEM_DOCUMENTED, &doc);
    switch (s->kind) {
    case POL_DESCRIPTOR:
        if (hw.kind == POL_INTERLEAVED)
            snprintf(buf, n, "descriptor 0x%016llx: interleaved %s %s, else %s", (unsigned long long)desc,
                     l2_prio_names[hw.primary], share_text(hw.share60, a, sizeof a), l2_prio_names[hw.secondary]);
        else if (hw.kind == POL_RANGE)
            snprintf(buf, n, "descriptor 0x%016llx: range %s on %u blocks of %lluKiB from block %u (mod 128), else %s",
                     (unsigned long long)desc, l2_prio_names[hw.primary], hw.count,
                     (unsigned long long)(1ULL << (hw.blk_shift - 10)), hw.blk0, l2_prio_names[hw.secondary]);
        else
            snprintf(buf, n, "descriptor 0x%016llx: %s (implicit)", (unsigned long long)desc,
                     l2_prio_names[hw.primary]);
        return;
    case POL_STATIC:
        snprintf(buf, n, "%s (0x%016llx)", l2_prio_names[s->primary], (unsigned long long)desc);
        return;
    case POL_INTERLEAVED:
        snprintf(buf, n, "interleaved %s %.6g else %s, %s 0x%016llx: ", l2_prio_names[s->primary], s->fraction,
                 l2_prio_names[s->secondary], api, (unsigned long long)desc);
        share_outcome(buf, n, doc.share60, hw.share60, sem, api);
        return;
    case POL_RANGE: {
        uint64_t blk = 1ULL << hw.blk_shift;
        int exact = s->base % blk == 0 && s->leading % blk == 0 && hw.count * blk == s->leading;
        snprintf(buf, n,
                 "range %s on [0x%llx, +%llu), %s on [0x%llx, 0x%llx) and [0x%llx, 0x%llx), %s 0x%016llx: "
                 "%s%llu blocks of %lluKiB matched by block index mod 128%s",
                 l2_prio_names[s->primary], (unsigned long long)s->base, (unsigned long long)s->leading,
                 l2_prio_names[s->secondary], (unsigned long long)doc.lo, (unsigned long long)s->base,
                 (unsigned long long)doc.mid, (unsigned long long)doc.hi, api, (unsigned long long)desc,
                 sem == SEM_HARDWARE ? "hardware applies " : "documented bytes applied; hardware would apply ",
                 (unsigned long long)hw.count, (unsigned long long)(blk >> 10),
                 exact ? "" : " (not byte-exact)");
        return;
    }
    }
}

void l2_window_describe(const struct l2_window_spec *w, enum l2_semantics sem, char *buf, size_t n)
{
    struct l2_window hw, doc;
    l2_window_resolve(w, SEM_HARDWARE, &hw);
    l2_window_resolve(w, SEM_DOCUMENTED, &doc);
    snprintf(buf, n, "window [0x%llx, +%llu) hitRatio %.6g %s else %s: ", (unsigned long long)w->base,
             (unsigned long long)w->bytes, w->hit_ratio, l2_prio_names[w->hit_prop], l2_prio_names[w->miss_prop]);
    share_outcome(buf, n, doc.share60, hw.share60, sem, "window");
}

/* Consumes a trailing "api=libcu|ptx" word. */
static int parse_api(int *argc, const char *const *argv, const size_t *lens, enum l2_api *api, l2_err *e)
{
    *api = API_LIBCU;
    if (*argc > 0 && l2_has_prefix(argv[*argc - 1], lens[*argc - 1], "api=")) {
        const char *v = argv[*argc - 1] + 4;
        size_t vn = lens[*argc - 1] - 4;
        if (l2_word_is(v, vn, "libcu"))
            *api = API_LIBCU;
        else if (l2_word_is(v, vn, "ptx"))
            *api = API_PTX;
        else
            return l2_fail(e, "api must be libcu or ptx, not '%.*s'", (int)vn, v);
        (*argc)--;
    }
    return 0;
}

int l2_policy_parse(int argc, const char *const *argv, const size_t *lens, struct l2_policy_spec *s, l2_err *e)
{
    memset(s, 0, sizeof *s);
    s->secondary = PRIO_EVICT_UNCHANGED;
    if (argc < 1)
        return l2_fail(e, "policy needs a kind: interleaved, range or descriptor");
    if (parse_api(&argc, argv, lens, &s->api, e) < 0)
        return -1;
    if (l2_word_is(argv[0], lens[0], "interleaved")) {
        s->kind = POL_INTERLEAVED;
        if (argc < 3 || argc > 4)
            return l2_fail(e, "usage: policy NAME interleaved PRIMARY FRACTION [SECONDARY] [api=libcu|ptx]");
        if (l2_prio_parse(argv[1], lens[1], &s->primary, e) < 0 ||
            l2_parse_double(argv[2], lens[2], &s->fraction, e) < 0 ||
            (argc == 4 && l2_prio_parse(argv[3], lens[3], &s->secondary, e) < 0))
            return -1;
    } else if (l2_word_is(argv[0], lens[0], "range")) {
        s->kind = POL_RANGE;
        if (argc < 5 || argc > 6)
            return l2_fail(e, "usage: policy NAME range BASE LEADING TOTAL PRIMARY [SECONDARY] [api=libcu|ptx]");
        if (l2_parse_u64(argv[1], lens[1], &s->base, e) < 0 || l2_parse_bytes(argv[2], lens[2], &s->leading, e) < 0 ||
            l2_parse_bytes(argv[3], lens[3], &s->total, e) < 0 ||
            l2_prio_parse(argv[4], lens[4], &s->primary, e) < 0 ||
            (argc == 6 && l2_prio_parse(argv[5], lens[5], &s->secondary, e) < 0))
            return -1;
    } else if (l2_word_is(argv[0], lens[0], "descriptor")) {
        s->kind = POL_DESCRIPTOR;
        if (argc != 2)
            return l2_fail(e, "usage: policy NAME descriptor 0xHEX");
        if (l2_parse_u64(argv[1], lens[1], &s->desc, e) < 0)
            return -1;
    } else {
        return l2_fail(e, "unknown policy kind '%.*s' (expected interleaved, range or descriptor)", (int)lens[0],
                       argv[0]);
    }
    return l2_policy_check(s, e);
}

int l2_window_parse(int argc, const char *const *argv, const size_t *lens, struct l2_window_spec *w, l2_err *e)
{
    memset(w, 0, sizeof *w);
    if (argc != 5)
        return l2_fail(e, "usage: window BASE BYTES HITRATIO HITPROP MISSPROP [stream=S] | window off [stream=S]");
    if (l2_parse_u64(argv[0], lens[0], &w->base, e) < 0 || l2_parse_bytes(argv[1], lens[1], &w->bytes, e) < 0 ||
        l2_parse_double(argv[2], lens[2], &w->hit_ratio, e) < 0 ||
        l2_prio_parse(argv[3], lens[3], &w->hit_prop, e) < 0 || l2_prio_parse(argv[4], lens[4], &w->miss_prop, e) < 0)
        return -1;
    return l2_window_check(w, e);
}

/*
 * coalesce.c - a warp instruction's lanes -> sector runs per line (see
 * coalesce.h).
 */
#include "coalesce.h"

#define SECTORS (L2_COAL_LINE / L2_COAL_SECTOR)

/* Adds the bytes [lo, hi] (hi inclusive, within one line) to the n
 * entries of t (at most 2 per lane: the table never overflows). */
static unsigned add_line(struct l2_coal_line *t, unsigned n, uint64_t lo, uint64_t hi)
{
    const uint64_t line = lo / L2_COAL_LINE;
    unsigned i = n;
    while (i > 0 && t[i - 1].line != line) /* the last lines added are the likeliest */
        i--;
    if (i > 0) {
        i--;
    } else {
        i = n++;
        t[i].line = line;
        t[i].sectors = 0;
        for (unsigned s = 0; s < SECTORS; s++)
            t[i].bytes[s] = 0;
    }
    for (unsigned b = (unsigned)(lo % L2_COAL_LINE), end = (unsigned)(hi % L2_COAL_LINE) + 1; b < end;) {
        const unsigned s = b / L2_COAL_SECTOR, top = (s + 1) * L2_COAL_SECTOR < end ? (s + 1) * L2_COAL_SECTOR : end;
        const unsigned k = top - b, off = b % L2_COAL_SECTOR; /* bytes [off, off + k) of sector s */
        t[i].bytes[s] |= (k == 32 ? UINT32_MAX : ((UINT32_C(1) << k) - 1)) << off;
        t[i].sectors |= 1u << s;
        b = top;
    }
    return n;
}

int l2_coalesce_lines(const uint64_t addr[L2_COAL_LANES], uint32_t mask, uint32_t size,
                      struct l2_coal_line t[L2_COAL_MAX_LINES], l2_err *e)
{
    if (size < 1 || size > L2_COAL_MAX_LANE_SIZE)
        return l2_fail(e, "lane access size %u is not 1 to %u bytes", size, L2_COAL_MAX_LANE_SIZE);
    unsigned n = 0;
    for (unsigned lane = 0; lane < L2_COAL_LANES; lane++) {
        if (!(mask >> lane & 1u))
            continue;
        uint64_t lo = addr[lane], hi = lo + size - 1;
        if (hi < lo)
            return l2_fail(e, "lane %u: access of %u bytes at 0x%llx wraps around the address space", lane, size,
                           (unsigned long long)lo);
        uint64_t l0 = lo / L2_COAL_LINE, l1 = hi / L2_COAL_LINE;
        if (l0 == l1) {
            n = add_line(t, n, lo, hi);
        } else { /* straddles: the tail of line l0, the head of line l1 */
            n = add_line(t, n, lo, l0 * L2_COAL_LINE + L2_COAL_LINE - 1);
            n = add_line(t, n, l1 * L2_COAL_LINE, hi);
        }
    }
    /* insertion sort by line: usually sorted already */
    for (unsigned i = 1; i < n; i++) {
        struct l2_coal_line v = t[i];
        unsigned j = i;
        for (; j > 0 && t[j - 1].line > v.line; j--)
            t[j] = t[j - 1];
        t[j] = v;
    }
    return (int)n;
}

/* The sectors of line entry x that some lane touches but not in all of
 * their bytes. */
static unsigned partial_sectors(const struct l2_coal_line *x)
{
    unsigned m = 0;
    for (unsigned s = 0; s < SECTORS; s++)
        if ((x->sectors >> s & 1u) && x->bytes[s] != UINT32_MAX)
            m |= 1u << s;
    return m;
}

int l2_coalesce_runs(const struct l2_coal_line *t, unsigned n, unsigned flags, struct l2_coal_access out[L2_COAL_MAX_OUT])
{
    unsigned k = 0;
    for (unsigned i = 0; i < n; i++) {
        uint64_t base = t[i].line * L2_COAL_LINE;
        unsigned bits = t[i].sectors;
        const unsigned part = flags & L2_COAL_PARTIAL ? partial_sectors(&t[i]) : 0;
        if (bits == 0xfu && !part && (flags & L2_COAL_MERGE_LINES) && k > 0 && out[k - 1].size % L2_COAL_LINE == 0 &&
            out[k - 1].addr % L2_COAL_LINE == 0 && out[k - 1].addr + out[k - 1].size == base &&
            out[k - 1].size + L2_COAL_LINE <= L2_COAL_MAX_MERGE) {
            out[k - 1].size += L2_COAL_LINE; /* the previous access is whole lines ending here */
            continue;
        }
        for (unsigned s = 0; s < SECTORS;) {
            if (part >> s & 1u) { /* its bytes, from the first to the last (never all 32) */
                const unsigned b0 = (unsigned)__builtin_ctz(t[i].bytes[s]);
                const unsigned b1 = 31u - (unsigned)__builtin_clz(t[i].bytes[s]);
                out[k].addr = base + s * L2_COAL_SECTOR + b0;
                out[k].size = b1 - b0 + 1 - (b1 - b0 + 1 == L2_COAL_SECTOR);
                k++;
                s++;
                continue;
            }
            if (!(bits >> s & 1u)) {
                s++;
                continue;
            }
            unsigned s0 = s;
            while (s < SECTORS && (bits >> s & 1u) && !(part >> s & 1u))
                s++;
            out[k].addr = base + s0 * L2_COAL_SECTOR;
            out[k].size = (s - s0) * L2_COAL_SECTOR;
            k++;
        }
    }
    return (int)k;
}

int l2_coalesce(const uint64_t addr[L2_COAL_LANES], uint32_t mask, uint32_t size, unsigned flags,
                struct l2_coal_access out[L2_COAL_MAX_OUT], l2_err *e)
{
    struct l2_coal_line t[L2_COAL_MAX_LINES];
    int n = l2_coalesce_lines(addr, mask, size, t, e);
    return n < 0 ? -1 : l2_coalesce_runs(t, (unsigned)n, flags, out);
}

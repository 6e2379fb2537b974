/*
 * l1.c - the SMs' L1 data caches as a filter in front of the L2 (see l1.h).
 */
#include "l1.h"

#include <stdlib.h>
#include <string.h>

static int check_size(uint64_t bytes, l2_err *e)
{
    const uint64_t unit = 128u * L2_L1_WAYS;
    if (bytes % unit || bytes > (16u << 20))
        return l2_fail(e, "L1 size %llu bytes is not a multiple of %llu bytes up to 16 MiB", (unsigned long long)bytes,
                       (unsigned long long)unit);
    return 0;
}

int l2_l1_init(struct l2_l1 *c, uint64_t bytes, l2_err *e)
{
    memset(c, 0, sizeof *c);
    if (check_size(bytes, e) < 0)
        return -1;
    c->sets = (uint32_t)(bytes / (128u * L2_L1_WAYS));
    return 0;
}

int l2_l1_parse(const char *s, uint64_t *bytes, l2_err *e)
{
    return l2_parse_bytes(s, strlen(s), bytes, e) < 0 ? -1 : check_size(*bytes, e);
}

void l2_l1_free(struct l2_l1 *c)
{
    free(c->tag);
    free(c->valid);
    free(c->stamp);
    memset(c, 0, sizeof *c);
}

void l2_l1_clear(struct l2_l1 *c)
{
    size_t n = (size_t)c->nsm * c->sets * L2_L1_WAYS;
    if (n) {
        memset(c->tag, 0, n * sizeof *c->tag);
        memset(c->valid, 0, n);
        memset(c->stamp, 0, n * sizeof *c->stamp);
    }
    c->clock = 0;
}

/* Makes room for SM sm; 0, or -1 when out of memory. */
static int grow(struct l2_l1 *c, uint32_t sm, l2_err *e)
{
    uint32_t nsm = c->nsm ? c->nsm : 64;
    while (nsm <= sm)
        nsm *= 2;
    size_t per = (size_t)c->sets * L2_L1_WAYS, old = (size_t)c->nsm * per, n = (size_t)nsm * per;
    uint64_t *tag = realloc(c->tag, n * sizeof *tag);
    if (tag)
        c->tag = tag;
    uint8_t *valid = realloc(c->valid, n);
    if (valid)
        c->valid = valid;
    uint32_t *stamp = realloc(c->stamp, n * sizeof *stamp);
    if (stamp)
        c->stamp = stamp;
    if (!tag || !valid || !stamp)
        return l2_fail(e, "out of memory (L1 of %u SMs)", nsm);
    memset(c->tag + old, 0, (n - old) * sizeof *tag);
    memset(c->valid + old, 0, n - old);
    memset(c->stamp + old, 0, (n - old) * sizeof *stamp);
    c->nsm = nsm;
    return 0;
}

/* The first way of line's set in SM sm's cache. */
static size_t set_of(const struct l2_l1 *c, uint32_t sm, uint64_t line)
{
    return ((size_t)sm * c->sets + (size_t)(line % c->sets)) * L2_L1_WAYS;
}

/* The way holding line in the set at s, or -1. */
static int find(const struct l2_l1 *c, size_t s, uint64_t line)
{
    for (unsigned w = 0; w < L2_L1_WAYS; w++)
        if (c->tag[s + w] == line + 1)
            return (int)w;
    return -1;
}

/* A load of `sectors` of `line` by SM sm: the sectors the L2 must serve
 * (all of them with the filter off or sm < 0), which it then holds. */
static int load(struct l2_l1 *c, int32_t sm, uint64_t line, unsigned sectors, l2_err *e)
{
    if (!c->sets || sm < 0)
        return (int)sectors;
    if (sm >= L2_L1_MAX_SMS)
        return l2_fail(e, "SM id %d is above %d", (int)sm, L2_L1_MAX_SMS - 1);
    if ((uint32_t)sm >= c->nsm && grow(c, (uint32_t)sm, e) < 0)
        return -1;
    size_t s = set_of(c, (uint32_t)sm, line);
    int w = find(c, s, line);
    if (w < 0) { /* the least recently used way (an empty one has stamp 0) */
        w = 0;
        for (unsigned k = 1; k < L2_L1_WAYS; k++)
            if (c->stamp[s + k] < c->stamp[s + (unsigned)w])
                w = (int)k;
        c->tag[s + (unsigned)w] = line + 1;
        c->valid[s + (unsigned)w] = 0;
    }
    unsigned miss = sectors & ~(unsigned)c->valid[s + (unsigned)w];
    c->valid[s + (unsigned)w] |= (uint8_t)sectors;
    if (++c->clock == 0) { /* wrapped: restart every stamp */
        for (size_t i = 0, n = (size_t)c->nsm * c->sets * L2_L1_WAYS; i < n; i++)
            c->stamp[i] = 0;
        c->clock = 1;
    }
    c->stamp[s + (unsigned)w] = c->clock;
    return (int)miss;
}

/* An atomic or reduction: drops the sectors. */
static void drop(struct l2_l1 *c, int32_t sm, uint64_t line, unsigned sectors)
{
    if (!c->sets || sm < 0 || (uint32_t)sm >= c->nsm)
        return;
    size_t s = set_of(c, (uint32_t)sm, line);
    int w = find(c, s, line);
    if (w >= 0)
        c->valid[s + (unsigned)w] &= (uint8_t)~sectors;
}

int l2_l1_warp(struct l2_l1 *c, int32_t sm, enum l2_l1_op op, struct l2_coal_line *t, unsigned n,
               struct l2_l1_count *k, l2_err *e)
{
    for (unsigned i = 0; i < n; i++) {
        if (op == L2_L1_ATOMIC) {
            drop(c, sm, t[i].line, t[i].sectors);
        } else if (op == L2_L1_LOAD) {
            int miss = load(c, sm, t[i].line, t[i].sectors, e);
            if (miss < 0)
                return -1;
            k->loaded += l2_popcount8((uint8_t)t[i].sectors);
            k->served += l2_popcount8((uint8_t)(t[i].sectors & ~(unsigned)miss));
            t[i].sectors = (unsigned)miss;
        }
    }
    return 0;
}

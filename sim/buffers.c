/*
 * buffers.c - the allocation table: names to rows (uthash), live
 * allocations sorted by base.
 */
#include "buffers.h"

#include <stdlib.h>
#include <string.h>
#include <uthash.h>

struct l2_buf_name {
    UT_hash_handle hh;
    uint32_t row;
    char name[];
};

int l2_buffers_init(struct l2_buffers *b, l2_err *e)
{
    memset(b, 0, sizeof *b);
    return l2_buffers_row(b, "(other)", e) < 0 ? -1 : 0;
}

void l2_buffers_free(struct l2_buffers *b)
{
    struct l2_buf_name *n, *tmp;
    HASH_ITER(hh, b->hash, n, tmp)
    {
        HASH_DEL(b->hash, n);
        free(n);
    }
    free(b->row);
    free(b->live);
    memset(b, 0, sizeof *b);
}

int64_t l2_buffers_lookup(const struct l2_buffers *b, const char *name)
{
    struct l2_buf_name *n;
    HASH_FIND(hh, b->hash, name, strlen(name), n);
    return n ? (int64_t)n->row : -1;
}

int64_t l2_buffers_row(struct l2_buffers *b, const char *name, l2_err *e)
{
    int64_t r = l2_buffers_lookup(b, name);
    if (r >= 0)
        return r;
    size_t len = strlen(name);
    struct l2_buf_name *n;
    if (l2_grow(&b->row, &b->caprow, (uint64_t)b->nrow + 1, sizeof *b->row, e) < 0)
        return -1;
    n = malloc(sizeof *n + len + 1);
    if (!n)
        return l2_fail(e, "out of memory");
    memcpy(n->name, name, len + 1);
    n->row = b->nrow;
    HASH_ADD(hh, b->hash, name[0], len, n);
    b->row[b->nrow] = (struct l2_buf_row){.name = n->name, .assign = L2_NO_ASSIGN};
    return b->nrow++;
}

/* Index in live of the first allocation whose base is >= base. */
static uint32_t live_pos(const struct l2_buffers *b, uint64_t base)
{
    uint32_t lo = 0, hi = b->nlive;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (b->live[mid].base < base)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int l2_buffers_alloc(struct l2_buffers *b, const char *name, uint64_t base, uint64_t bytes, l2_err *e)
{
    int64_t r = l2_buffers_row(b, name, e);
    if (r < 0)
        return -1;
    struct l2_buf_row *row = &b->row[r];
    if (r == L2_BUF_OTHER)
        return l2_fail(e, "'(other)' cannot name an allocation");
    if (row->live)
        return l2_fail(e, "allocation '%s' is already live (free it first)", name);
    uint64_t end = base + bytes;
    uint32_t i = live_pos(b, base);
    const struct l2_buf_live *clash = NULL;
    if (i < b->nlive && b->live[i].base < end)
        clash = &b->live[i];
    else if (i > 0 && b->live[i - 1].end > base)
        clash = &b->live[i - 1];
    if (clash)
        return l2_fail(e, "allocation '%s' [0x%llx, 0x%llx) overlaps the live allocation '%s' [0x%llx, 0x%llx)", name,
                       (unsigned long long)base, (unsigned long long)end, b->row[clash->row].name,
                       (unsigned long long)clash->base, (unsigned long long)clash->end);
    if (l2_grow(&b->live, &b->caplive, (uint64_t)b->nlive + 1, sizeof *b->live, e) < 0)
        return -1;
    memmove(&b->live[i + 1], &b->live[i], (b->nlive - i) * sizeof *b->live);
    b->live[i] = (struct l2_buf_live){.base = base, .end = end, .row = (uint32_t)r};
    b->nlive++;
    b->last = i;
    row->base = base;
    row->bytes = bytes;
    row->live = 1;
    return 0;
}

int l2_buffers_free_name(struct l2_buffers *b, const char *name, l2_err *e)
{
    int64_t r = l2_buffers_lookup(b, name);
    if (r < 0 || !b->row[r].live)
        return l2_fail(e, "free of '%s', which is not a live allocation", name);
    struct l2_buf_row *row = &b->row[r];
    uint32_t i = live_pos(b, row->base);
    memmove(&b->live[i], &b->live[i + 1], (b->nlive - i - 1) * sizeof *b->live);
    b->nlive--;
    b->last = 0;
    row->live = 0;
    return 0;
}

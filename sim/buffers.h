/*
 * buffers.h - the device allocations a trace declares (`alloc NAME BASE
 * BYTES`, `free NAME`) and the lookup of the buffer an address falls in,
 * for per-buffer statistics and buffer assignments (`assign` lines).
 *
 * A buffer is a name: each name gets a row, in the order of its first
 * allocation, after row 0, "(other)", which counts addresses outside every
 * live allocation.  An allocation of a name that was freed reuses its row.
 * Live allocations never overlap (an overlap is an error), so they are
 * kept sorted by base and found by binary search, after a check of the
 * allocation found last (accesses come in runs).
 */
#ifndef L2SIM_BUFFERS_H
#define L2SIM_BUFFERS_H

#include <stdint.h>

#include "common.h"

#define L2_BUF_OTHER 0u       /* the row of addresses outside every allocation */
#define L2_NO_ASSIGN UINT32_MAX /* a row without an assignment */

struct l2_buf_row {
    char *name;
    uint64_t base, bytes; /* its latest allocation */
    uint32_t assign;      /* tag that `assign NAME TAG` gives its accesses, or L2_NO_ASSIGN */
    int live;
};

struct l2_buf_live {
    uint64_t base, end;
    uint32_t row;
};

struct l2_buf_name;

struct l2_buffers {
    struct l2_buf_row *row; /* nrow entries; row 0 is "(other)" */
    uint32_t nrow, caprow;
    struct l2_buf_live *live; /* sorted by base */
    uint32_t nlive, caplive;
    uint32_t last; /* index in live of the last hit */
    struct l2_buf_name *hash; /* name -> row (uthash) */
};

int l2_buffers_init(struct l2_buffers *b, l2_err *e);
void l2_buffers_free(struct l2_buffers *b);
/* Row of name, or -1 when no allocation or assign line named it. */
int64_t l2_buffers_lookup(const struct l2_buffers *b, const char *name);
/* Row of name, adding it (not live) when new; -1 when out of memory. */
int64_t l2_buffers_row(struct l2_buffers *b, const char *name, l2_err *e);
/* Starts an allocation: an error when name is live or the range overlaps
 * a live allocation. */
int l2_buffers_alloc(struct l2_buffers *b, const char *name, uint64_t base, uint64_t bytes, l2_err *e);
/* Ends the live allocation of name: an error when there is none. */
int l2_buffers_free_name(struct l2_buffers *b, const char *name, l2_err *e);

/* The row of the live allocation holding addr, or L2_BUF_OTHER. */
static inline uint32_t l2_buffers_find(struct l2_buffers *b, uint64_t addr)
{
    if (b->nlive == 0)
        return L2_BUF_OTHER;
    const struct l2_buf_live *l = &b->live[b->last];
    if (addr - l->base < l->end - l->base)
        return l->row;
    uint32_t lo = 0, hi = b->nlive; /* the first live allocation with base > addr is at hi */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (b->live[mid].base <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || addr >= b->live[lo - 1].end)
        return L2_BUF_OTHER;
    b->last = lo - 1;
    return b->live[lo - 1].row;
}

#endif

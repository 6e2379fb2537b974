/*
 * l1.h - the SMs' L1 data caches as a filter in front of the L2, for
 * traces taken from per-lane addresses (tools/l2trace): which of a warp
 * instruction's sectors the L1 serves, so that only the rest is written
 * as L2 traffic.
 *
 * Model (assumptions, see tools/l2trace/README.md):
 *  - one cache per SM of `bytes` (a multiple of 128 * L2_L1_WAYS),
 *    128-byte lines of four 32-byte sectors, L2_L1_WAYS-way sets, least
 *    recently used replacement, sets by line address modulo their number;
 *  - a load looks its sectors up; those present are L1 hits, the others
 *    go to the L2 and are then filled (the line is allocated if absent);
 *  - a store goes to the L2 (write-through) and leaves the L1 as it is
 *    (sectors it has are updated, nothing is allocated); an atomic or
 *    reduction (performed at the L2) drops the sectors it touches;
 *  - every cache is emptied at a kernel launch (the L1 is not coherent
 *    between kernels).
 * Accesses without an SM bypass it.  The GPU caches a load in L1 unless it
 * is .cg (or volatile); a trace cannot tell, so a capture that filters
 * assumes every load is cacheable.
 */
#ifndef L2SIM_L1_H
#define L2SIM_L1_H

#include <stdint.h>

#include "common.h"

#define L2_L1_WAYS 16u
/* SM ids it takes: below 4096, as the configurations' sms. */
#define L2_L1_MAX_SMS 4096
/* The size a capture or import uses unless told otherwise: 256 KiB, the
 * H100's L1 and shared memory together, all of it L1 in a kernel without
 * shared memory; fitted with the ways (tools/l2trace/README.md). */
#define L2_L1_DEFAULT_BYTES (256u << 10)

struct l2_l1 {
    uint32_t sets;   /* per SM; 0: the filter is off */
    uint32_t nsm;    /* SMs allocated so far (grown on demand) */
    uint64_t *tag;   /* nsm x sets x ways: line address + 1, 0 empty */
    uint8_t *valid;  /* sector masks */
    uint32_t *stamp; /* last use, for LRU */
    uint32_t clock;
};

/* bytes 0 turns the filter off; otherwise it must be a multiple of
 * 128 * L2_L1_WAYS (at most 16 MiB). */
int l2_l1_init(struct l2_l1 *c, uint64_t bytes, l2_err *e);
void l2_l1_free(struct l2_l1 *c);
/* Empties every SM's cache. */
void l2_l1_clear(struct l2_l1 *c);
/* A load of `sectors` (bit s = sector s) of `line` (address / 128) by SM
 * sm: returns the sectors the L2 must serve, and fills them.  With the
 * filter off or sm < 0 it returns `sectors`.  -1 (and a reason in e): an
 * SM id of L2_L1_MAX_SMS or more, or out of memory. */
int l2_l1_load(struct l2_l1 *c, int32_t sm, uint64_t line, unsigned sectors, l2_err *e);
/* An atomic or reduction: drops the sectors. */
void l2_l1_drop(struct l2_l1 *c, int32_t sm, uint64_t line, unsigned sectors);

#endif

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

#include "coalesce.h"
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
/* An --l1 value: a size (KiB, MiB accepted) l2_l1_init takes. */
int l2_l1_parse(const char *s, uint64_t *bytes, l2_err *e);
void l2_l1_free(struct l2_l1 *c);
/* Empties every SM's cache. */
void l2_l1_clear(struct l2_l1 *c);

/* What a warp instruction does at the L1. */
enum l2_l1_op { L2_L1_LOAD, L2_L1_STORE, L2_L1_ATOMIC };

/* Load sectors seen, and those the L1 served. */
struct l2_l1_count {
    uint64_t loaded, served;
};

/* Passes the n lines of one warp instruction of SM sm (l2_coalesce_lines)
 * through that SM's L1: a load leaves in each line's mask only the sectors
 * the L1 lacks, and fills them; an atomic or reduction drops its sectors
 * from the L1; a store changes nothing.  A load's sectors add to k.  With
 * the filter off or sm < 0 a load passes whole (counted, not served).
 * -1 (and a reason in e): an SM id of L2_L1_MAX_SMS or more, or out of
 * memory. */
int l2_l1_warp(struct l2_l1 *c, int32_t sm, enum l2_l1_op op, struct l2_coal_line *t, unsigned n,
               struct l2_l1_count *k, l2_err *e);

#endif

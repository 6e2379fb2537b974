/*
 * coalesce.h - one warp instruction's global memory accesses as the L2
 * sees them.
 *
 * The L1/TEX unit turns the addresses of a warp instruction's active lanes
 * into requests for 32-byte sectors of 128-byte lines: each line the lanes
 * touch is requested once, with the set of its sectors that some lane
 * touches.  l2_coalesce gives those requests as trace accesses: one access
 * per contiguous run of touched sectors within a line (sector-aligned
 * address, a multiple of 32 bytes, never crossing a line), lines in
 * ascending address order, runs within a line in ascending order.  Two
 * lanes touching the same sector make one sector; lanes outside the active
 * mask are ignored; a lane whose bytes straddle a line boundary touches
 * sectors of both lines.
 *
 * With L2_COAL_MERGE_LINES, runs of consecutive lines whose four sectors
 * are all touched are merged into one access of up to L2_COAL_MAX_MERGE
 * bytes (the simulator splits an access into its lines, so the hits and
 * misses are those of the unmerged accesses; the access count differs).
 *
 * With L2_COAL_PARTIAL (for stores), a sector whose 32 bytes the lanes do
 * not all touch is an access of its own that holds only the bytes they
 * touch, from the first to the last (31 of them when those are the
 * sector's first and last byte), so that the simulator knows it is written
 * in part (partial_write_fill); a line with such a sector is never merged.
 *
 * Plain C, no state: shared by the capture tool (tools/l2trace) and any
 * importer of per-lane address traces.
 */
#ifndef L2SIM_COALESCE_H
#define L2SIM_COALESCE_H

#include <stdint.h>

#include "common.h"

#define L2_COAL_LINE 128u
#define L2_COAL_SECTOR 32u
#define L2_COAL_LANES 32u
#define L2_COAL_MAX_LANE_SIZE 128u /* bytes one lane may access: at most 2 lines */
#define L2_COAL_MAX_MERGE 4096u    /* bytes of one merged access (the trace's limit) */
/* Accesses one call can produce: 2 lines per lane, at most 4 accesses per
 * line (its sectors one by one). */
#define L2_COAL_MAX_OUT (2u * 4u * L2_COAL_LANES)

#define L2_COAL_MERGE_LINES 1u /* flag: merge consecutive full lines */
#define L2_COAL_PARTIAL 2u     /* flag: sectors written in part are accesses of their bytes */

struct l2_coal_access {
    uint64_t addr;  /* 32-byte aligned (but a sector written in part, L2_COAL_PARTIAL) */
    uint32_t size;  /* a multiple of 32 (likewise) */
};

/* A line a warp instruction touches: line address / L2_COAL_LINE, the
 * sectors (bit s = sector s) some active lane touches, and the bytes of
 * each sector they touch (bit b of bytes[s]: byte b of sector s). */
struct l2_coal_line {
    uint64_t line;
    unsigned sectors;
    uint32_t bytes[L2_COAL_LINE / L2_COAL_SECTOR];
};
/* Lines one call can produce: 2 per lane. */
#define L2_COAL_MAX_LINES (2u * L2_COAL_LANES)

/*
 * The two halves of l2_coalesce, for a caller that filters the lines in
 * between (the capture's L1, sim/l1.h): l2_coalesce_lines writes the
 * touched lines in ascending order and returns their number (or -1 with
 * a reason, as l2_coalesce); l2_coalesce_runs turns n lines into accesses
 * (lines whose sector mask is 0 give none) and returns their number.
 */
int l2_coalesce_lines(const uint64_t addr[L2_COAL_LANES], uint32_t mask, uint32_t size,
                      struct l2_coal_line lines[L2_COAL_MAX_LINES], l2_err *e);
int l2_coalesce_runs(const struct l2_coal_line *lines, unsigned n, unsigned flags,
                     struct l2_coal_access out[L2_COAL_MAX_OUT]);

/*
 * Coalesces lanes: addr[i] is lane i's address (read only for lanes whose
 * bit i is set in `mask`), each active lane accesses `size` bytes (1 to
 * L2_COAL_MAX_LANE_SIZE).  Writes up to L2_COAL_MAX_OUT accesses to out and
 * returns their number (0 when no lane is active), or -1 with a reason in
 * e (a size out of range, an address range that wraps around).
 */
int l2_coalesce(const uint64_t addr[L2_COAL_LANES], uint32_t mask, uint32_t size, unsigned flags,
                struct l2_coal_access out[L2_COAL_MAX_OUT], l2_err *e);

#endif

/*
 * import_accelsim.h - Accel-Sim traces (the NVBit tracer of
 * accel-sim-framework, tracer versions 3 to 5) as l2sim trace events.
 *
 * PATH is a kernel list (`kernelslist.g` after post-processing, or the raw
 * `kernelslist`) or the directory holding one (kernelslist.g preferred).
 * Its `kernel...` lines name the kernel files, relative to the list;
 * Memcpy lines are skipped.  A kernel file, plain or compressed (xz, gzip,
 * zstd: l2_source), starts with `-key = value` lines (kernel name, grid
 * dim, block dim, cuda stream id, accelsim tracer version, enable
 * lineinfo); then come instruction lines, in `#BEGIN_TB` / `thread block`
 * / `warp` / `insts` / `#END_TB` groups (.traceg) or each prefixed with its
 * block's x, y, z and warp (raw .trace; with the tracer's print_core_id,
 * also the SM and the warp in it).  An instruction line is
 *
 *   [line] PC MASK NDEST [REG...] OPCODE NSRC [REG...] WIDTH [MODE ADDR...] [IMM]
 *
 * with WIDTH 0 for instructions without memory operands; MODE 0 lists
 * one address per active lane, 1 gives a base and a stride for a
 * contiguous run of lanes, 2 a base and a delta per further lane.
 *
 * Global memory instructions become accesses, each warp instruction's
 * lanes coalesced by l2_coalesce as the capture tool does, and, as there,
 * loads pass an L1 model first (sim/l1.h, l1_bytes; 0: none): per SM when
 * the lines give it (raw traces with the SM id), else per thread block in a
 * .traceg (its blocks come one after another; a raw trace without SM ids
 * passes no L1), emptied at each kernel; `.STRONG` loads (volatile, .cg)
 * bypass it, atomics and reductions drop the sectors they touch.  Loads (LDG,
 * generic LD, LDGSTS) as reads; stores (STG, ST), atomics and reductions
 * (ATOMG, ATOM, RED) as writes (performed at L2).  Shared, local,
 * constant, texture and tensor-memory (TMA) instructions are skipped, as
 * are generic ones whose first address falls in the shared or local
 * window the header gives (4 GiB from its base).  Accesses carry no cache
 * hint (Accel-Sim traces hold none) and the SM when the line gives it.
 * Each kernel file becomes a `kernel` event with its name (as
 * l2_kernel_label makes it), grid and block; CUDA stream handles become
 * streams 0 (the null handle), 1, 2... in order of appearance.
 */
#ifndef L2SIM_IMPORT_ACCELSIM_H
#define L2SIM_IMPORT_ACCELSIM_H

#include <stdint.h>

#include "l1.h"
#include "trace.h"

struct l2_import_stats {
    uint64_t kernels, instructions, mem_instructions, accesses;
    struct l2_l1_count l1; /* load sectors, and those the L1 model served */
};

/* Writes the events of the trace at path to w.  flags: l2_coalesce's
 * (L2_COAL_MERGE_LINES); l1_bytes: each L1's size (0: no L1 model).  -1
 * with e naming "FILE:LINE: reason". */
int l2_import_accelsim(const char *path, struct l2_bin_writer *w, unsigned flags, uint64_t l1_bytes,
                       struct l2_import_stats *st, l2_err *e);

#endif

/*
 * ncu.h - Nsight Compute measurements next to simulated kernels (run
 * --ncu FILE).
 *
 * Reads an `ncu --csv --page raw` export: lines before the first one that
 * starts with '"' are ncu's messages; the first quoted row names the
 * columns, a second row without an ID holds the units; values may carry
 * thousands separators.  One row per profiled kernel launch, in launch
 * order.  Every metric below is optional except one of the hit rates:
 *
 *   lts__t_sector_hit_rate.pct            L2 sector hit rate (all)
 *   lts__t_sector_op_read_hit_rate.pct    L2 sector hit rate of loads
 *   lts__t_sectors_srcunit_tex.sum        sectors the SMs requested
 *     (else lts__t_sectors.sum)
 *   dram__bytes_read.sum                  DRAM bytes read
 *   gpu__time_duration.sum                kernel time
 *
 * Units are converted (byte and sector with K/M/G/T, second and s with
 * n/u/m, %).  Kernels are matched by name and launch order: the simulated
 * kernel that is the k-th of its name takes the k-th measured row whose
 * name, made a label as the capture tool makes it (l2_kernel_label), is the
 * same.  Plain C, no state, never prints.
 */
#ifndef L2SIM_NCU_H
#define L2SIM_NCU_H

#include <stddef.h>
#include <stdint.h>

#include "common.h"

struct l2_ncu_row {
    char *name;   /* Kernel Name as exported */
    char *label;  /* its function name (l2_ncu_base) */
    double hit, read_hit, sectors, dram_rd, ns; /* percent, percent, sectors, bytes, ns; NAN: not exported */
    uint32_t line; /* of the file */
};

struct l2_ncu {
    char *path;
    struct l2_ncu_row *row;
    uint32_t n, cap;
};

/* A kernel's function name: the demangled name without blanks, its
 * return type "void", its namespaces and classes, its template and
 * parameter lists ("void at::native::k<8>(float*)" -> "k"); a name that is
 * not C++ (nvjet_sm90_...) whole.  At most n - 1 bytes. */
void l2_ncu_base(const char *name, char *out, size_t n);
/* Reads path; -1 with e naming "FILE:LINE: reason". */
int l2_ncu_load(struct l2_ncu *m, const char *path, l2_err *e);
void l2_ncu_free(struct l2_ncu *m);
/* match[i] = the row of simulated kernel i (names[i], nk of them), or -1. */
void l2_ncu_match(const struct l2_ncu *m, const char *const *names, uint32_t nk, int64_t *match);

#endif

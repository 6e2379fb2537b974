/*
 * driver.h - the variants of a run and the driver that simulates them over
 * a trace read once (run, compare, advise).
 *
 * The calling thread reads and decodes the trace, a batch of events at a
 * time, and places its accesses (l2_sim_place); worker threads run the
 * simulators over every batch in order.
 * Simulators are independent: the variants of compare and advise, or the
 * lanes of run --threads.  The only output is a progress line on standard
 * error when it is a terminal.
 */
#ifndef L2SIM_DRIVER_H
#define L2SIM_DRIVER_H

#include <stdint.h>

#include "sim.h"

#define L2_MAX_VARIANTS 16 /* variants of one compare */
#define L2_MAX_SETS 64     /* set= items of one variant */
#define L2_MAX_THREADS 64
#define L2_MAX_SIMS (L2_MAX_THREADS > L2_MAX_VARIANTS ? L2_MAX_THREADS : L2_MAX_VARIANTS)

/* How one variant is built: a configuration file and key=value settings
 * over the defaults, a --policy file, the semantics. */
struct l2_variant {
    const char *name;
    const char *config;
    const char *sets[L2_MAX_SETS];
    int nsets;
    const char *policy;
    enum l2_semantics sem;
};

/* Builds the configuration of v (defaults, its file, its settings). */
int l2_variant_config(const struct l2_variant *v, struct l2_config *c, l2_err *e);
/* Initialises s as variant v: its configuration, then its policy file. */
int l2_variant_setup(struct l2_sim *s, const struct l2_variant *v, struct l2_symtab *syms, l2_err *e);
/* After a simulation: one warning line on f for each policy the variant's
 * --policy file defines that no access of the trace used (a misspelt or
 * stale name); returns their number. */
unsigned l2_variant_warn_unused(const struct l2_sim *s, const struct l2_variant *v, const struct l2_symtab *syms,
                                FILE *f);
/* Reads the trace at path once, feeding every simulator (n at most
 * L2_MAX_SIMS) with `nworkers` threads besides the calling thread, which
 * decodes; names: of the variants, for errors, or NULL (lanes).  The
 * events come in replay order (replay.h: kernels that nothing orders run
 * concurrently, sharing the SMs of sims[0]'s configuration), or in trace
 * order when serialize is set; afterwards every kernel's l2_kstats.with
 * lists the kernels it ran alongside.  Returns the records read, or -1
 * with e naming the place of the earliest error. */
int64_t l2_simulate(struct l2_sim **sims, const char *const *names, unsigned n, unsigned nworkers, const char *path,
                    int serialize, struct l2_symtab *syms, l2_err *e);

#endif

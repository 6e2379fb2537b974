/*
 * sim.h - one simulated variant: an L2 (config), the bindings of tags to
 * priorities and policies, the stream windows, and the statistics.  It
 * consumes trace events in order (the resolver step: tag, policy or window
 * -> applied priority per line) and feeds the L2.  Several l2_sim can
 * consume the same events (compare); none holds global state.
 */
#ifndef L2SIM_SIM_H
#define L2SIM_SIM_H

#include <stdint.h>

#include "buffers.h"
#include "config.h"
#include "l2.h"
#include "policy.h"
#include "symtab.h"
#include "timing.h"
#include "trace.h"

/* Counters of one scope (a kernel, a kernel x priority, a kernel x tag).
 * merged_sectors counts hits that waited for a fill still in flight
 * (timing.h: merged misses). */
#define L2_COUNTER_LIST(X)                                                  \
    X(accesses, "accesses")                                                 \
    X(sectors, "sectors")                                                   \
    X(sector_hits, "sector_hits")                                           \
    X(near_hits, "near_sector_hits")                                        \
    X(read_sectors, "read_sectors")                                         \
    X(read_hits, "read_sector_hits")                                        \
    X(read_near, "read_near_sector_hits")                                   \
    X(line_miss, "line_miss_sectors")                                       \
    X(sector_miss, "sector_only_miss_sectors")                              \
    X(dram_rd, "dram_read_bytes")                                           \
    X(dram_wr, "dram_write_bytes")                                          \
    X(unspecified, "unspecified_accesses")                                  \
    X(merged, "merged_sectors")

struct l2_counters {
#define L2_X_CTR(f, name) uint64_t f;
    L2_COUNTER_LIST(L2_X_CTR)
#undef L2_X_CTR
};
#define L2_NCOUNTERS (sizeof(struct l2_counters) / sizeof(uint64_t))
extern const char *const l2_counter_names[];

void l2_counters_add(struct l2_counters *a, const struct l2_counters *b);

struct l2_kstats {
    char *name;
    uint32_t stream;
    uint64_t pos; /* trace position of the kernel line */
    struct l2_counters total;
    struct l2_counters prio[L2_NPRIO];
    struct l2_counters *tag; /* ntag entries, by tag id */
    uint32_t ntag;
    struct l2_counters *buf; /* nbuf entries, by buffer row (buffers.h); NULL when the trace has none */
    uint32_t nbuf;
    struct l2_ktime time; /* the timing model's sums (l2_ktime_eval: estimate, histograms) */
    struct l2_window win; /* its stream's access-policy window at its launch */
    uint32_t *with;       /* the kernels it ran alongside (l2_replay_overlaps), ascending */
    uint32_t nwith;
};

/* How a tag is resolved. */
struct l2_binding {
    int is_policy;
    int locked; /* defined by --policy: trace definitions are ignored */
    enum l2_prio prio; /* built-in tags */
    struct l2_policy pol;
};

struct l2_stream_window {
    uint32_t stream;
    int locked;
    int on;
    struct l2_window win;
};

/* A policy or window as defined, for the report. */
struct l2_def_log {
    int is_window;
    uint32_t name; /* policy symbol id or stream */
    struct l2_policy_spec pol;
    struct l2_window_spec win;
};

/* `assign BASE BYTES TAG` of a --policy file. */
struct l2_assign_range {
    uint64_t base, end;
    uint32_t tag;
};

struct l2_sim {
    struct l2 l2;
    struct l2_timing tm;
    enum l2_semantics sem;
    struct l2_symtab *syms;
    uint64_t seed; /* policy_seed */
    struct l2_binding *bind;
    uint32_t nbind;
    struct l2_stream_window *win;
    uint32_t nwin;
    int setaside_locked;
    struct l2_kstats *k;
    uint32_t nk, capk;
    struct l2_def_log *defs;
    uint32_t ndefs, capdefs;
    struct l2_buffers buf; /* allocations (alloc/free) and `assign NAME TAG` */
    struct l2_assign_range *ranges;
    uint32_t nranges, capranges;
    uint32_t set_lo, set_end; /* the sets simulated (l2_sim_set_lane) */
    uint64_t records;  /* events consumed */
    uint64_t accesses; /* access events simulated */
};

int l2_sim_init(struct l2_sim *s, const struct l2_config *cfg, enum l2_semantics sem, struct l2_symtab *syms,
                l2_err *e);
void l2_sim_free(struct l2_sim *s);
/* Consumes one trace event.  On error e holds the reason (no position). */
int l2_sim_event(struct l2_sim *s, const struct l2_event *ev, l2_err *e);
/* Where one line of an access lies: what the configuration alone decides
 * (l2_sim_place), so that the thread that decodes a trace can find it
 * while the simulators run. */
struct l2_pline {
    uint32_t set;
    uint8_t home, near; /* partitions: the line's home, the issuing SM's near one (the home without one) */
    uint8_t mask;       /* the sectors of the access in the line */
    uint8_t part;       /* of them, those a store writes in part (partial_write_fill) */
};

/* Lines of an access, at most. */
#define L2_MAX_LINES (L2_MAX_ACCESS / 32 + 1)

/* Places the lines of access ev in pl (L2_MAX_LINES entries at most);
 * returns their number, or 0 for an access the simulation rejects (its
 * size or its SM), which it leaves unplaced.  It reads s's configuration
 * only, which no simulation changes, so another thread may call it while
 * s simulates; the places suit every simulator whose configuration equals
 * s's (l2_config_equal). */
unsigned l2_sim_place(const struct l2_sim *s, const struct l2_event *ev, struct l2_pline *pl);

#define L2_UNPLACED UINT32_MAX

/* Events whose accesses l2_sim_place placed: at[i] is the index in `line`
 * of event i's first line, L2_UNPLACED for an event it did not place. */
struct l2_placed {
    const uint32_t *at;
    const struct l2_pline *line;
};

/* Consumes n events in order, as n l2_sim_event calls would, fetching the
 * sets of each access a few events before it is simulated; pl: where the
 * accesses lie (l2_placed, by a simulator of an equal configuration), or
 * NULL for s to place them itself.  Returns n, or the index of the event
 * that failed (e: the reason). */
size_t l2_sim_events(struct l2_sim *s, const struct l2_event *ev, size_t n, const struct l2_placed *pl, l2_err *e);
/* Makes s lane `lane` of `lanes` simulators that share a trace: only its
 * share of the set indices, a contiguous range, is simulated (and timed);
 * an access is counted by the lane of its first line.  Merged with
 * l2_sim_merge_lane, the lanes report what one simulator would. */
void l2_sim_set_lane(struct l2_sim *s, unsigned lane, unsigned lanes);
/* Adds lane src's counters and timing sums into dst; -1 when out of memory. */
int l2_sim_merge_lane(struct l2_sim *dst, const struct l2_sim *src);
/* Consumes one event of a --policy file: policy, window and setaside
 * lines, which then override the trace's definitions of the same name,
 * stream or set-aside, and assign lines, which give the accesses to a
 * buffer or an address range another tag. */
int l2_sim_policy_event(struct l2_sim *s, const struct l2_event *ev, l2_err *e);
/* Sums every kernel into the totals. */
void l2_sim_totals(const struct l2_sim *s, struct l2_counters *total, struct l2_counters prio[L2_NPRIO],
                   struct l2_counters *tag /* s->nbind entries */);
/* Sums every kernel's buffer rows into buf (s->buf.nrow entries). */
void l2_sim_buffer_totals(const struct l2_sim *s, struct l2_counters *buf);

#endif

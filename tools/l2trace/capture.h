/*
 * capture.h - the state of one l2trace capture, driven by the host
 * callbacks of the injected library (inject.cu) and free of CUDA: device
 * allocations and their names, streams and events numbered in order of
 * appearance, kernel launches numbered and filtered, L2 controls turned
 * into trace directives, and warp records of global memory instructions
 * coalesced into trace accesses.
 *
 * Every trace event goes to the caller's emit function (the binary
 * writer in the library, an array in the tests), in the order the
 * callbacks come.  Not thread-safe: the caller serialises the calls.
 * Functions return 0, or -1 with a reason in e (an error of the emit
 * function, out of memory); the capture is then unusable.
 */
#ifndef L2TRACE_CAPTURE_H
#define L2TRACE_CAPTURE_H

#include <regex.h>
#include <stdint.h>

#include "coalesce.h"
#include "l1.h"
#include "trace.h"
#include "tracer.h"

struct l2t_options {
    const char *kernel_regex;  /* NULL: every kernel */
    uint64_t launch_first;     /* capture the launches [first, end) of those the regex matches, */
    uint64_t launch_end;       /* numbered from 0; end UINT64_MAX: to the last */
    uint64_t max_records;      /* warp records to write at most; 0: no limit */
    uint64_t max_bytes;        /* trace bytes (16 per record) at most; 0: no limit */
    unsigned coal_flags;       /* L2_COAL_MERGE_LINES or 0 */
    uint64_t l1_bytes;         /* each SM's L1 in front of the L2 (sim/l1.h); 0: none; default L2_L1_DEFAULT_BYTES */
};

void l2t_options_default(struct l2t_options *o);
/* Parses "A:B", "A:" or ":B" (launch indices, B exclusive) or "N" (only
 * launch N). */
int l2t_parse_launches(const char *s, uint64_t *first, uint64_t *end, l2_err *e);

/* Options from their command-line spellings (NULL or "": not given);
 * errors name the option. */
int l2t_options_parse(struct l2t_options *o, const char *kernel, const char *launches, const char *max_records,
                      const char *max_bytes, const char *merge, const char *l1, l2_err *e);

typedef int (*l2t_emit_fn)(void *ctx, const struct l2_event *ev, l2_err *e);

struct l2t_alloc;
struct l2t_handle;

struct l2t_capture {
    struct l2t_options opt;
    regex_t re;
    int has_re;
    l2t_emit_fn emit;
    void *emit_ctx;
    struct l2_event ev; /* scratch, 64-byte aligned */
    /* allocations: live ones, in creation order */
    struct l2t_alloc *alloc;
    uint32_t nalloc, capalloc;
    uint64_t alloc_seq; /* names buf<seq> */
    /* streams and events: handle -> number */
    struct l2t_handle *stream, *event;
    uint32_t nstream, capstream, nevent, capevent;
    /* launches */
    uint64_t launches;  /* every launch seen */
    uint64_t matched;   /* launches the regex matched */
    uint64_t captured;  /* launches written */
    int in_kernel;      /* a captured launch is running */
    int launch_window;  /* the running launch set its own window */
    uint32_t launch_stream;
    /* what was written */
    uint64_t records;   /* trace records */
    uint64_t warps;     /* warp records coalesced */
    uint64_t accesses;  /* access records among them */
    uint64_t dropped;   /* warp records not written (a limit was reached) */
    uint64_t allocs, frees, replaced, unknown_frees;
    uint64_t by_flag[4]; /* reads, writes, atomics, prefetches */
    struct l2_l1 l1;     /* the SMs' L1s (off when opt.l1_bytes is 0) */
    struct l2_l1_count l1n; /* load sectors, and those the L1 served */
    const char *stopped; /* the limit that stopped the capture, or NULL */
    double t0;           /* start, seconds (CLOCK_MONOTONIC) */
};

/* o is copied; the regex is compiled here ("--kernel REGEX: reason"). */
int l2t_init(struct l2t_capture *c, const struct l2t_options *o, l2t_emit_fn emit, void *ctx, l2_err *e);
void l2t_free(struct l2t_capture *c);


/* The default stream's handle: stream 0.  Other streams are numbered
 * from 1 in order of first appearance, events ev0, ev1, ... likewise. */
void l2t_default_stream(struct l2t_capture *c, uint64_t handle);
int l2t_stream(struct l2t_capture *c, uint64_t handle, uint32_t *id, l2_err *e);

/* Device allocation [base, base+bytes): name NULL gives buf<N> by
 * allocation order.  Live allocations it overlaps are freed first (a
 * pool's backing allocation and the allocations carved from it). */
int l2t_on_alloc(struct l2t_capture *c, uint64_t base, uint64_t bytes, const char *name, l2_err *e);
/* Free of the allocation starting at base (unknown bases are counted and
 * ignored). */
int l2t_on_free(struct l2t_capture *c, uint64_t base, l2_err *e);

/* A launch.  *capture gets 1 when its accesses are to be recorded, 0 when
 * a filter or limit skips it.  window (or NULL): the launch's own
 * access-policy window (cudaLaunchKernelEx), in force for it alone. */
int l2t_on_launch(struct l2t_capture *c, const char *name, uint64_t stream, const uint32_t grid[3],
                  const uint32_t block[3], const struct l2_window_spec *window, int *capture, l2_err *e);
int l2t_on_launch_end(struct l2t_capture *c, l2_err *e);
/* A warp instruction of the running launch. */
int l2t_on_warp(struct l2t_capture *c, const struct l2t_warp *w, l2_err *e);
/* A contiguous read of bytes at addr by one warp (a bulk copy). */
int l2t_on_range(struct l2t_capture *c, enum l2_op op, uint64_t addr, uint64_t bytes, int32_t sm, l2_err *e);

/* L2 controls and ordering. */
int l2t_on_setaside(struct l2t_capture *c, uint64_t bytes, l2_err *e);
int l2t_on_reset(struct l2t_capture *c, l2_err *e);
/* cudaStreamSetAttribute(access policy window): bytes 0 removes it.
 * Properties are cudaAccessProperty values (0 normal, 1 streaming,
 * 2 persisting). */
int l2t_on_window(struct l2t_capture *c, uint64_t stream, uint64_t base, uint64_t bytes, double hit_ratio,
                  int hit_prop, int miss_prop, l2_err *e);
/* The window spec of cudaAccessProperty values, checked. */
int l2t_window_spec(uint64_t base, uint64_t bytes, double hit_ratio, int hit_prop, int miss_prop,
                    struct l2_window_spec *w, l2_err *e);
int l2t_on_event_record(struct l2t_capture *c, uint64_t event, uint64_t stream, l2_err *e);
int l2t_on_event_wait(struct l2t_capture *c, uint64_t event, uint64_t stream, l2_err *e);
int l2t_on_sync(struct l2t_capture *c, l2_err *e);
int l2t_on_stream_sync(struct l2t_capture *c, uint64_t stream, l2_err *e);

/* The end-of-run summary (lines ending in '\n'), into buf. */
void l2t_summary(const struct l2t_capture *c, char *buf, size_t n);

#endif

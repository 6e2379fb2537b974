/*
 * tracer.h - the C side of the injected library: a capture (capture.h)
 * writing a text trace spool (flushed at every launch end and directive;
 * the launcher converts it to the binary trace when the program has
 * ended), behind an interface of plain types that
 * the C++ Compute Sanitizer glue (inject.cu) can include.  Also the
 * layout shared by the host and the device patches (patch.cu): warp
 * records in a ring of pinned host memory.
 *
 * The tracer functions take the tracer's lock themselves, so callbacks
 * of several host threads and the drain thread may call them at once.
 * After the first error every call does nothing; l2t_tracer_close writes
 * the error into the summary.
 */
#ifndef L2TRACE_TRACER_H
#define L2TRACE_TRACER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What the launcher passes to the injected library (environment). */
#define L2T_ENV_OUT "L2TRACE_OUT"                 /* the spool: the text trace the launcher converts */
#define L2T_ENV_SUMMARY "L2TRACE_SUMMARY"         /* where the library writes its summary */
#define L2T_ENV_PID "L2TRACE_PID"                 /* the process to capture (not its children) */
#define L2T_ENV_KERNEL "L2TRACE_KERNEL"           /* --kernel */
#define L2T_ENV_LAUNCHES "L2TRACE_LAUNCHES"       /* --launches */
#define L2T_ENV_MAX_RECORDS "L2TRACE_MAX_RECORDS" /* --max-records */
#define L2T_ENV_MAX_BYTES "L2TRACE_MAX_BYTES"     /* --max-bytes */
#define L2T_ENV_L1 "L2TRACE_L1"                   /* --l1 */
#define L2T_ENV_MERGE "L2TRACE_MERGE_LINES"       /* --merge-lines: 1 */
#define L2T_ENV_RING "L2TRACE_RING"               /* --ring: warp records in the ring */
#define L2T_ENV_PATCH "L2TRACE_PATCH"             /* the device patch module */

/* Flags of a warp record: those of the Compute Sanitizer memory access
 * callback (read, write, both for an atomic, prefetch), and the kinds the
 * patches add for other instructions. */
#define L2T_F_READ 0x1u
#define L2T_F_WRITE 0x2u
#define L2T_F_ATOMSYS 0x4u
#define L2T_F_PREFETCH 0x8u      /* prefetch to L2: the lane's line */
#define L2T_F_L1_PREFETCH 0x100u /* prefetch to L1: the line is read from L2 */
#define L2T_F_BULK 0x200u        /* bulk copy: addr[0] the global address, addr[1] bytes; with
                                    L2T_F_WRITE shared -> global, else global -> shared */

#define L2T_LANES 32

/* One warp instruction: the addresses of its active lanes (mask), the
 * bytes each lane accesses, the flags, the SM (-1: unknown). */
struct l2t_warp {
    uint64_t addr[L2T_LANES];
    uint32_t mask;
    uint32_t size;
    uint32_t flags;
    int32_t sm;
};

/* A warp record as the device patches write it into the ring (pinned
 * host memory): the lanes' addresses, then the header, then seq = the
 * record's index + 1, written last (after a system-scope fence), which
 * tells the host the record is complete. */
struct l2t_ring_rec {
    uint64_t addr[L2T_LANES];
    uint32_t mask;
    uint32_t size;
    uint32_t flags;
    uint32_t smid;
    uint64_t seq;
};

/* The device-side control block (device memory), the patches' userdata. */
struct l2t_ctl {
    unsigned long long head;           /* records reserved so far (atomic) */
    struct l2t_ring_rec *ring;         /* cap records, pinned host memory */
    const unsigned long long *tail;    /* records the host consumed (pinned host memory) */
    unsigned long long cap;            /* a power of two */
    unsigned on;                       /* 0: record nothing */
};

struct l2t_tracer;

/* Opens the tracer from the L2TRACE_* environment; NULL with the reason in
 * err when it cannot (bad option, output not writable). */
struct l2t_tracer *l2t_tracer_open(char *err, size_t n);
/* Ring size (records) from L2TRACE_RING, the patch module path. */
uint64_t l2t_tracer_ring(const struct l2t_tracer *t);
const char *l2t_tracer_patch(const struct l2t_tracer *t);
/* Whether capturing stopped (error or limit): launches need no patches. */
int l2t_tracer_stopped(struct l2t_tracer *t);
/* Records an error (e.g. of the CUDA side) that stops the capture. */
void l2t_tracer_fail(struct l2t_tracer *t, const char *msg);

void l2t_tracer_default_stream(struct l2t_tracer *t, uint64_t handle);
void l2t_tracer_alloc(struct l2t_tracer *t, uint64_t base, uint64_t bytes, const char *name);
void l2t_tracer_free(struct l2t_tracer *t, uint64_t base);
/* Returns 1 when the launch is captured.  win_bytes 0: no launch window. */
int l2t_tracer_launch(struct l2t_tracer *t, const char *name, uint64_t stream, const uint32_t grid[3],
                      const uint32_t block[3], uint64_t win_base, uint64_t win_bytes, double win_ratio,
                      int win_hit, int win_miss);
void l2t_tracer_launch_end(struct l2t_tracer *t);
/* Warp records of the running launch, in ring order. */
void l2t_tracer_warps(struct l2t_tracer *t, const struct l2t_warp *w, size_t n);
void l2t_tracer_setaside(struct l2t_tracer *t, uint64_t bytes);
void l2t_tracer_reset(struct l2t_tracer *t);
void l2t_tracer_window(struct l2t_tracer *t, uint64_t stream, uint64_t base, uint64_t bytes, double ratio, int hit,
                       int miss);
void l2t_tracer_event_record(struct l2t_tracer *t, uint64_t event, uint64_t stream);
void l2t_tracer_event_wait(struct l2t_tracer *t, uint64_t event, uint64_t stream);
void l2t_tracer_sync(struct l2t_tracer *t);
void l2t_tracer_stream_sync(struct l2t_tracer *t, uint64_t stream);
/* Adds a line to the summary (a note from the CUDA side). */
void l2t_tracer_note(struct l2t_tracer *t, const char *line);
/* Flushes the spool, writes the summary (L2TRACE_SUMMARY, else standard
 * error; it is also rewritten at every launch end, so it is there even
 * when the library is never closed) and frees t.  Returns 0, or -1 after
 * an error. */
int l2t_tracer_close(struct l2t_tracer *t);

#ifdef __cplusplus
}
#endif

#endif

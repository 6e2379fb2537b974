/*
 * trace.h - trace events, readers and writers.
 *
 * A reader turns a trace into events: accesses and directives, in order,
 * each with its source position.  l2_trace_open recognises the format by
 * its first bytes: the binary format (magic "L2SIMTRB", README "Binary
 * trace format"), gzip or zstd compression of either format, and text
 * otherwise.  Readers know nothing of caches; names are interned in a
 * shared symbol table and events carry ids.
 */
#ifndef L2SIM_TRACE_H
#define L2SIM_TRACE_H

#include <stdint.h>
#include <stdio.h>

#include "common.h"
#include "policy.h"
#include "symtab.h"

enum l2_ev_type {
    EV_ACCESS,
    EV_POLICY,
    EV_WINDOW,
    EV_WINDOW_OFF,
    EV_SETASIDE,
    EV_RESET,
    EV_KERNEL,
    EV_ALLOC,        /* a device allocation: label, addr (base), bytes */
    EV_FREE,         /* the allocation named label ends */
    EV_EVENT_RECORD, /* cudaEventRecord(label, stream) */
    EV_EVENT_WAIT,   /* cudaStreamWaitEvent(stream, label) */
    EV_SYNC,         /* the host waits for the whole device */
    EV_STREAM_SYNC,  /* the host waits for stream */
    EV_ASSIGN,       /* --policy files only: tag for the buffer label, or (label "") [addr, addr + bytes) */
};

#define L2_MAX_ACCESS 4096u
#define L2_MAX_KNAME 128u /* a label (kernel, allocation or event name) and its NUL */

/* An event.  The fields an access uses come first and an event starts a
 * 64-byte line (arrays of events: decoded batches), so that the thread
 * that simulates an access reads one host cache line of it; heap arrays
 * of events need aligned_alloc. */
struct l2_event {
    _Alignas(64) enum l2_ev_type type;
    uint64_t pos; /* source line (text) or record number */
    union {
        struct {
            uint64_t addr; /* EV_ACCESS; EV_ALLOC: the base */
            uint32_t size;
            uint32_t tag; /* symbol id; L2 tag "global" when none was given */
            int32_t sm;   /* -1 when not given */
            uint8_t op;   /* enum l2_op */
            uint32_t kernel; /* 1 + the index of its kernel (the replay sets it); 0: the latest kernel */
        };
        struct {                    /* EV_KERNEL: launch dimensions, 0 when not given */
            uint32_t grid[3], block[3];
        };
    };
    uint32_t name;   /* EV_POLICY: the policy's symbol id */
    uint32_t stream; /* EV_WINDOW, EV_WINDOW_OFF, EV_KERNEL, EV_EVENT_*, EV_STREAM_SYNC */
    union {
        uint64_t bytes; /* EV_SETASIDE, EV_ALLOC */
        uint64_t at1;   /* EV_ACCESS: 1 + the @CYCLE issue cycle; 0: none (see l2_event_cycle) */
    };
    union { /* by type: events are copied through batches, so they stay small */
        struct l2_policy_spec pol; /* EV_POLICY */
        struct l2_window_spec win; /* EV_WINDOW */
        char label[L2_MAX_KNAME];  /* EV_KERNEL, EV_ALLOC, EV_FREE, EV_EVENT_*: the name */
    };
};

/* A kernel line's blocks (d = grid) or threads per block (d = block): the
 * product of its dimensions, which the readers give all or none of; 0 when
 * not given. */
static inline uint64_t l2_dims_count(const uint32_t d[3])
{
    return (uint64_t)d[0] * d[1] * d[2];
}

/* The optional issue time of an access (`@CYCLE` in text, a cycle record
 * before the access in binary): SM cycles after the start of its kernel,
 * at most L2_MAX_CYCLE.  Readers and code that zero an event leave it
 * unset. */
#define L2_MAX_CYCLE ((UINT64_C(1) << 62) - 1)
static inline int l2_event_has_cycle(const struct l2_event *ev)
{
    return ev->type == EV_ACCESS && ev->at1 != 0;
}
static inline uint64_t l2_event_cycle(const struct l2_event *ev)
{
    return ev->at1 - 1;
}
static inline void l2_event_set_cycle(struct l2_event *ev, uint64_t cycle)
{
    ev->at1 = cycle + 1;
}

struct l2_trace;
struct l2_sink;

enum l2_trace_format { L2_FMT_TEXT, L2_FMT_BINARY };

/* Opens path ("-" = standard input), plain or compressed, text or binary.
 * A binary trace's header is read and checked here. */
int l2_trace_open(struct l2_trace **t, const char *path, struct l2_symtab *syms, l2_err *e);
/* The same, with messages naming the trace `label` instead of path. */
int l2_trace_open_as(struct l2_trace **t, const char *path, const char *label, struct l2_symtab *syms, l2_err *e);
/* How reports and messages name a trace path: "<stdin>" for "-". */
const char *l2_trace_label(const char *path);
/* Next event: 1, 0 at the end, -1 on error (e names file and line or
 * record).  A binary trace hands out no record of a block of records
 * before that block's checksum has been verified, and a truncated file
 * fails before the records it lacks would have been handed out. */
int l2_trace_next(struct l2_trace *t, struct l2_event *ev, l2_err *e);
/* Prefixes the error in e with the place of an event position, "FILE:LINE"
 * (text) or "FILE:record N" (binary), for errors found after reading;
 * returns -1. */
int l2_trace_fail_at(const struct l2_trace *t, uint64_t pos, l2_err *e);
enum l2_trace_format l2_trace_format(const struct l2_trace *t);
/* Records in the trace when known (a binary header), else -1. */
int64_t l2_trace_total(const struct l2_trace *t);
/* Fraction of the trace read so far, for progress displays: by records
 * for a binary trace, by file bytes for a regular file, else -1. */
double l2_trace_fraction(const struct l2_trace *t);
void l2_trace_close(struct l2_trace *t);

/* A kernel's name as a trace label: without the return type "void ",
 * whitespace dropped, '#' and control bytes as '_', a leading '_' when it
 * would read as `stream=`, `grid=`, `block=` or `@...`, cut to
 * L2_MAX_KNAME - 1 bytes at a character boundary, "_" when empty.  The
 * capture tool names kernels so, and `run --ncu` matches measured kernel
 * names the same way. */
void l2_kernel_label(char out[L2_MAX_KNAME], const char *name);

/* Writes an event as a text trace line; -1 on a write error or out of
 * memory. */
int l2_event_write_text(FILE *f, const struct l2_event *ev, const struct l2_symtab *syms);
/* Formats the same line (with its newline) into buf; returns its length,
 * which is >= n when it did not fit (as snprintf). */
size_t l2_event_format_text(char *buf, size_t n, const struct l2_event *ev, const struct l2_symtab *syms);

/*
 * Binary writer.  Events are encoded as they come (records go to a
 * temporary file once they outgrow a 1 MiB buffer); l2_bin_writer_finish
 * writes the header with its tables and then the records, in checksummed
 * blocks, to the sink.  Errors name the record ("record N: reason").
 */
struct l2_bin_writer;

int l2_bin_writer_open(struct l2_bin_writer **w, const struct l2_symtab *syms, l2_err *e);
int l2_bin_writer_add(struct l2_bin_writer *w, const struct l2_event *ev, l2_err *e);
int l2_bin_writer_finish(struct l2_bin_writer *w, struct l2_sink *out, l2_err *e);
void l2_bin_writer_free(struct l2_bin_writer *w);

#endif

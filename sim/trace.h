/*
 * trace.h - trace events and readers.
 *
 * A reader turns a trace (text now; other formats plug in behind the same
 * l2_trace_* calls) into events: accesses and directives, in order, each
 * with its source position.  Readers know nothing of caches; names are
 * interned in a shared symbol table and events carry ids.
 */
#ifndef L2SIM_TRACE_H
#define L2SIM_TRACE_H

#include <stdint.h>
#include <stdio.h>

#include "common.h"
#include "policy.h"
#include "symtab.h"

enum l2_ev_type { EV_ACCESS, EV_POLICY, EV_WINDOW, EV_WINDOW_OFF, EV_SETASIDE, EV_RESET, EV_KERNEL };

#define L2_MAX_ACCESS 4096u
#define L2_MAX_KNAME 128u

struct l2_event {
    enum l2_ev_type type;
    uint64_t pos; /* source line (text) or record number */
    /* EV_ACCESS */
    uint64_t addr;
    uint32_t size;
    uint32_t tag; /* symbol id; L2 tag "global" when none was given */
    int32_t sm;   /* -1 when not given */
    uint8_t op;   /* enum l2_op */
    uint32_t name;   /* EV_POLICY: the policy's symbol id */
    uint32_t stream; /* EV_WINDOW, EV_WINDOW_OFF, EV_KERNEL */
    uint64_t bytes;  /* EV_SETASIDE */
    struct l2_policy_spec pol;
    struct l2_window_spec win;
    char kname[L2_MAX_KNAME]; /* EV_KERNEL */
};

struct l2_trace;

/* Opens path ("-" = standard input). */
int l2_trace_open(struct l2_trace **t, const char *path, struct l2_symtab *syms, l2_err *e);
/* Next event: 1, 0 at the end, -1 on error (e names file and line). */
int l2_trace_next(struct l2_trace *t, struct l2_event *ev, l2_err *e);
/* "file:line" of an event, for errors found after reading. */
const char *l2_trace_name(const struct l2_trace *t);
void l2_trace_close(struct l2_trace *t);

/* Writes an event as a text trace line. */
void l2_event_write_text(FILE *f, const struct l2_event *ev, const struct l2_symtab *syms);

#endif

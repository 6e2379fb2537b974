/*
 * replay.h - the order in which a trace's events reach the simulators.
 *
 * A trace lists a program's host calls in program order, each kernel's
 * accesses after its `kernel` line.  On the GPU, kernels that no stream or
 * event orders run at the same time and their accesses interleave in the
 * L2.  The replay reproduces that (README "Concurrent kernels"):
 *
 *  - The host runs ahead of the device: it takes the trace's directives in
 *    order and launches kernels without waiting, until a call that blocks
 *    it (`sync`, `sync stream=S`, and the calls that synchronise the device
 *    implicitly: `free`, `setaside`, `reset`, a policy name defined again,
 *    a launch on stream 0) or the end of the trace.
 *  - A kernel starts once everything that orders it has finished: the
 *    kernel before it on its stream, the work an `event wait` on its
 *    stream refers to (what the event's stream had launched when the
 *    event was recorded), and, stream 0 being the legacy default stream,
 *    every kernel launched before it; every later kernel waits for a
 *    stream 0 kernel.
 *  - A kernel asks for the threads of its grid (`grid=` x `block=`;
 *    without `block=` a block counts as a whole SM, 2048 threads; no
 *    `grid=`: the whole GPU), at most `sms` x 2048 resident threads.  As
 *    the GPU's block scheduler, the replay gives a starting kernel only
 *    the threads that running kernels leave free, to ready kernels in
 *    launch order: a kernel that finds the GPU full waits for running
 *    ones to finish (never for later launches); running kernels keep
 *    their threads and take freed ones up to their demand.
 *  - Running kernels advance in proportion to the threads they hold, each
 *    thread moving bytes at the same pace (measured on the H100: a kernel
 *    of 128-byte accesses issues four for one of 512 bytes on as many
 *    threads).  The next access is the running kernel's with the least
 *    progress (bytes issued over share, counted from its start at the
 *    progress of the moment), the earlier launch on a tie: deterministic,
 *    and no kernel starves.
 *
 * The host's `kernel` events come in launch order (so kernel indices and
 * the report's order are the trace's), each access carries its kernel
 * (l2_event.kernel).  Every trace event is handed out exactly once.
 * Kernels on stream 0 run alone and are read in place; other streams'
 * kernels are read through further readers of the same file (standard
 * input is first copied to an unlinked temporary file in $TMPDIR).
 *
 * Serialized (`--serialize`), events come in trace order: kernels one after
 * another, as the trace lists them.
 */
#ifndef L2SIM_REPLAY_H
#define L2SIM_REPLAY_H

#include <stdint.h>

#include "trace.h"

struct l2_replay;

/* Opens path for replay; sms: the SMs that kernels share (the
 * configuration's `sms`); serialize: trace order. */
int l2_replay_open(struct l2_replay **r, const char *path, struct l2_symtab *syms, uint32_t sms, int serialize,
                   l2_err *e);
/* Next event: 1, 0 at the end, -1 on error (e names the place). */
int l2_replay_next(struct l2_replay *r, struct l2_event *ev, l2_err *e);
/* The reader of the trace in program order: positions, progress, records. */
struct l2_trace *l2_replay_trace(const struct l2_replay *r);
/* After the end: the kernels (by index, `(default)` included) that kernel
 * k ran alongside, ascending; *n 0 when none. */
const uint32_t *l2_replay_overlaps(const struct l2_replay *r, uint32_t k, uint32_t *n);
void l2_replay_close(struct l2_replay *r);

#endif

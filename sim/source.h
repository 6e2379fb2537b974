/*
 * source.h - byte streams under the trace readers and writers: a file or
 * standard input, plain or compressed (gzip, zstd), recognised by its
 * first bytes; and the matching output sinks.
 *
 * A source hands out the decompressed bytes in large reads: the readers
 * above it (text lines, binary records) never see the compression.
 * Standard input cannot seek, so the magic bytes are sniffed from the
 * source's own input buffer and then consumed from it.
 */
#ifndef L2SIM_SOURCE_H
#define L2SIM_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "common.h"

enum l2_comp { L2_COMP_NONE, L2_COMP_GZIP, L2_COMP_ZSTD, L2_COMP_XZ /* input only */ };

struct l2_source;

/* Opens path ("-" = standard input) and recognises gzip (1f 8b), zstd
 * (28 b5 2f fd) and xz (fd 37 7a 58 5a 00) by their magic; anything else
 * is read as it is.  `name`
 * is what errors call the file ("<stdin>" for "-"). */
int l2_source_open(struct l2_source **s, const char *path, const char *name, l2_err *e);
/* Reads up to n decompressed bytes into buf: fewer than n only at the end
 * of the stream.  Returns the count, or -1 (e: "NAME: reason", e.g. a
 * truncated or corrupt compressed stream). */
int64_t l2_source_read(struct l2_source *s, void *buf, size_t n, l2_err *e);
/* Fraction of the underlying file consumed so far (compressed bytes for a
 * compressed file), or -1 when its size is unknown (a pipe). */
double l2_source_fraction(const struct l2_source *s);
void l2_source_close(struct l2_source *s);

struct l2_sink;

/* Creates path ("-" = standard output), compressing with comp. */
int l2_sink_open(struct l2_sink **s, const char *path, enum l2_comp comp, l2_err *e);
int l2_sink_write(struct l2_sink *s, const void *buf, size_t n, l2_err *e);
/* Finishes the stream and closes the file; frees s in every case. */
int l2_sink_close(struct l2_sink *s, l2_err *e);
/* Frees s without finishing the stream (after an error).  A regular file
 * is written beside path (path.tmpXXXXXX) and renamed over it by a
 * successful l2_sink_close, so after an error path is as it was. */
void l2_sink_abort(struct l2_sink *s);

#endif

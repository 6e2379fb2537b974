/*
 * trace_impl.h - internals shared by the trace readers: trace.c (opening,
 * format recognition, l2_trace_next), trace_text.c and trace_bin.c.
 * Not part of the library's interface.
 *
 * Binary layout constants are here as well; README "Binary trace format"
 * is their description.
 */
#ifndef L2SIM_TRACE_IMPL_H
#define L2SIM_TRACE_IMPL_H

#include <stdint.h>

#include "source.h"
#include "trace.h"

#define L2_BIN_MAGIC "L2SIMTRB"
#define L2_BIN_VERSION 2u                /* the newest version; the writer writes 1 when it suffices */
#define L2_BIN_REC 16u                  /* bytes per record */
#define L2_BIN_BLOCK 65536u             /* records per checksummed block (writer) */
#define L2_BIN_MAX_BLOCK (1u << 20)     /* largest block a reader accepts */
#define L2_BIN_MAX_TAGS 65536u          /* 16-bit tag index: built-ins + names */
#define L2_BIN_MAX_NAME 65536u          /* bytes in a tag or policy name */
#define L2_BIN_POLICY_BYTES 44u
#define L2_BIN_WINDOW_BYTES 26u
#define L2_BIN_ALLOC_BYTES 20u

/* Record types (low 4 bits of a record's first word): 0-4 are accesses
 * (enum l2_op; the fast path takes the types up to OP_DISCARD); a cycle
 * record holds the @CYCLE of the access record that follows (the second
 * word is the cycle; bits 4-63 of the first are 0). */
enum {
    L2_REC_CYCLE = 5,
    L2_REC_FREE = 6, /* version 2 on */
    L2_REC_SYNC = 7,
    L2_REC_POLICY = 8,
    L2_REC_WINDOW = 9,
    L2_REC_WINDOW_OFF = 10,
    L2_REC_SETASIDE = 11,
    L2_REC_RESET = 12,
    L2_REC_KERNEL = 13,
    L2_REC_ALLOC = 14, /* version 2 on */
    L2_REC_EVENT = 15,
};
_Static_assert((int)L2_NOP <= (int)L2_REC_CYCLE, "access record types are the operations");

/* Little-endian loads and stores, byte by byte (compilers merge them). */
static inline uint32_t l2_ld32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t l2_ld64(const unsigned char *p)
{
    return (uint64_t)l2_ld32(p) | (uint64_t)l2_ld32(p + 4) << 32;
}

static inline void l2_st32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

static inline void l2_st64(unsigned char *p, uint64_t v)
{
    l2_st32(p, (uint32_t)v);
    l2_st32(p + 4, (uint32_t)(v >> 32));
}

struct l2_text_state {
    char *buf;
    size_t len, pos;
    int eof;
    uint64_t lineno;
    char last_tag[64]; /* the last tag word resolved (never empty: last_len 0 matches none) and its id */
    size_t last_len;
    uint32_t last_id;
};

struct l2_bin_state {
    uint64_t total;           /* records the header declares */
    uint64_t loaded;          /* records in the blocks read so far */
    uint32_t block;           /* records per block */
    uint32_t crc;             /* running checksum: header, then each block */
    unsigned char *blk;       /* one block and its checksum */
    uint32_t *symid;          /* tag index -> symbol id (every name interned at open) */
    unsigned char *is_policy; /* tag index -> the header marks a policy name */
    uint32_t *tagmap;         /* tag index -> symbol id, or UINT32_MAX before its policy */
    struct l2_policy_spec *pol;
    struct l2_window_spec *win;
    struct l2_bin_label {
        char name[L2_MAX_KNAME];
        uint32_t dims[6]; /* a kernel's grid and block (version 2), 0 when not given */
    } *label;
    struct l2_bin_alloc {
        uint64_t base, bytes;
        uint32_t label;
    } *alloc;
    uint32_t version;
    uint32_t ntag, npol, nwin, nlabel, nalloc;
};

struct l2_trace {
    /* binary fast path: the verified, not yet decoded records of a block */
    const unsigned char *rp, *rend;
    uint64_t recno; /* binary records handed out */
    enum l2_trace_format fmt;
    struct l2_source *src;
    char *name;
    struct l2_symtab *syms;
    struct l2_text_state text;
    struct l2_bin_state bin;
};

/* Decodes an access record that needs no check beyond these (R, W, A, D
 * with a defined tag, a valid sm and no address overflow) into ev.
 * Returns 0, leaving ev alone, for every other record: the caller takes
 * the slow path, which decodes directives and explains errors. */
static inline int l2_bin_fast_access(const struct l2_trace *t, const unsigned char *p, struct l2_event *ev)
{
    uint64_t m = l2_ld64(p), a = l2_ld64(p + 8);
    unsigned op = (unsigned)(m & 15);
    uint32_t ti = (uint32_t)(m >> 16) & 0xffff;
    uint32_t size = (uint32_t)((m >> 4) & 0xfff) + 1;
    uint64_t sm1 = m >> 32;
    if (op > OP_DISCARD || op == OP_PREFETCH || ti >= t->bin.ntag || sm1 > 0x80000000u || a > UINT64_MAX - size)
        return 0;
    uint32_t id = t->bin.tagmap[ti];
    if (id == UINT32_MAX)
        return 0;
    ev->type = EV_ACCESS;
    ev->pos = t->recno + 1;
    ev->addr = a;
    ev->size = size;
    ev->tag = id;
    ev->sm = sm1 ? (int32_t)(sm1 - 1) : -1;
    ev->op = (uint8_t)op;
    ev->kernel = 0;
    ev->name = 0;
    ev->stream = 0;
    ev->bytes = 0;
    return 1;
}

/* trace.c: the words the text format reserves, so that every name either
 * reader accepts is one the writers can write back.  NULL, or the reason. */
const char *l2_policy_name_reserved(const char *s, size_t n); /* sm=..., shared, @... */
const char *l2_label_reserved(const char *s, size_t n); /* stream=, grid=, block=: any label */
/* An allocation must hold a byte and end inside the address space: 0, or
 * -1 and the reason. */
int l2_alloc_check(const struct l2_event *ev, l2_err *e);
/* A prefetch must carry the tag evict_last or evict_normal: 0, or -1 and the reason. */
int l2_prefetch_tag_check(uint32_t tag, l2_err *e);

/* trace_text.c */
int l2_text_start(struct l2_trace *t, const unsigned char *head, size_t n, int eof, l2_err *e);
int l2_text_next(struct l2_trace *t, struct l2_event *ev, l2_err *e);
void l2_text_free(struct l2_trace *t);

/* trace_bin.c: the header after the magic, and every record the fast path
 * does not take (including loading and verifying the next block). */
int l2_bin_start(struct l2_trace *t, const unsigned char *magic, l2_err *e);
int l2_bin_next(struct l2_trace *t, struct l2_event *ev, l2_err *e);
void l2_bin_free(struct l2_trace *t);

#endif

/*
 * trace_bin.c - the binary trace format (README "Binary trace format"):
 * the header with its tables, checksummed blocks of 16-byte records, the
 * reader's slow path (block loading and verification, directives, errors)
 * and the writer.
 *
 * Every integer is little-endian and encoded byte by byte; doubles travel
 * as their IEEE-754 bits.  The reader verifies a block's checksum before it
 * hands out any record of it, so a corrupt or truncated file fails before
 * its damaged records reach the simulator.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>
#include <zlib.h>

#include "trace_impl.h"

_Static_assert(sizeof(double) == 8, "doubles are IEEE-754 binary64");

#define HDR_FIXED 36u /* after the magic: version .. label count; version 2 adds the allocation count */

static uint32_t crc_update(uint32_t crc, const void *p, size_t n)
{
    return (uint32_t)crc32(crc, p, (uInt)n);
}

static uint64_t dbits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

static double bitsd(uint64_t u)
{
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

/* A name the text format can carry as one word: no blanks, '#', NUL or
 * line breaks.  Returns NULL or the reason. */
static const char *bad_name(const char *s, size_t n, size_t max)
{
    if (n == 0)
        return "empty name";
    if (n > max)
        return "name too long";
    for (size_t i = 0; i < n; i++)
        if (s[i] == 0 || s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n' || s[i] == '#')
            return "name holds a blank, '#', NUL or line break";
    if (l2_text_bad_at(s, n) < n)
        return "name holds a control byte or invalid UTF-8";
    return NULL;
}

/* Why a name cannot name a policy (in either format), or NULL. */
static const char *policy_name_why(const char *s, size_t n)
{
    const char *why = bad_name(s, n, L2_BIN_MAX_NAME);
    return why ? why : l2_policy_name_reserved(s, n);
}

/* Whether a label (kernel, allocation or event name) can be carried by
 * either format. */
static int label_ok(const char *s, size_t n)
{
    return !bad_name(s, n, L2_MAX_KNAME - 1) && !l2_label_reserved(s, n);
}

/* ---- reader ---- */

static int hread(struct l2_trace *t, uint32_t *crc, void *buf, size_t n, l2_err *e)
{
    int64_t got = l2_source_read(t->src, buf, n, e);
    if (got < 0)
        return -1;
    if ((size_t)got < n)
        return l2_fail(e, "%s: truncated header", t->name);
    *crc = crc_update(*crc, buf, n);
    return 0;
}

static int read_names(struct l2_trace *t, uint32_t *crc, uint32_t n, l2_err *e)
{
    struct l2_bin_state *b = &t->bin;
    uint32_t cap = 0, capp = 0, capm = 0;
    char *name = malloc(L2_BIN_MAX_NAME);
    if (!name)
        return l2_fail(e, "out of memory");
    int r = -1;
    if (l2_grow(&b->symid, &cap, n, sizeof *b->symid, e) < 0 || l2_grow(&b->is_policy, &capp, n, 1, e) < 0 ||
        l2_grow(&b->tagmap, &capm, (uint64_t)L2_NBUILTIN + n, sizeof *b->tagmap, e) < 0)
        goto out;
    for (uint32_t i = 0; i < L2_NBUILTIN; i++)
        b->tagmap[i] = i;
    for (uint32_t i = 0; i < n; i++) {
        unsigned char h[5];
        if (hread(t, crc, h, sizeof h, e) < 0)
            goto out;
        uint32_t len = l2_ld32(h + 1);
        if (h[0] > 1 || len == 0 || len > L2_BIN_MAX_NAME) {
            l2_fail(e, "%s: header: bad entry %u of the name table (corrupt file?)", t->name, i);
            goto out;
        }
        if (hread(t, crc, name, len, e) < 0)
            goto out;
        const char *why = policy_name_why(name, len);
        if (why) {
            l2_fail(e, "%s: header: name %u cannot name a policy (%s)", t->name, i, why);
            goto out;
        }
        int64_t id = l2_sym_intern(t->syms, name, len);
        if (id < 0) {
            l2_fail(e, "%s: header: name %u: out of memory or more than %u names", t->name, i,
                    L2_MAX_SYMS - L2_NBUILTIN);
            goto out;
        }
        if (id < L2_NBUILTIN) {
            l2_fail(e, "%s: header: name '%.*s' is a built-in tag", t->name, (int)len, name);
            goto out;
        }
        b->symid[i] = (uint32_t)id;
        b->is_policy[i] = h[0];
        /* usable at once if a policy file already defined it, as in text */
        b->tagmap[L2_NBUILTIN + i] = (l2_sym_flags(t->syms, (uint32_t)id) & L2_SYM_POLICY) ? (uint32_t)id : UINT32_MAX;
    }
    b->ntag = L2_NBUILTIN + n;
    r = 0;
out:
    free(name);
    return r;
}

static int read_policies(struct l2_trace *t, uint32_t *crc, uint32_t n, l2_err *e)
{
    struct l2_bin_state *b = &t->bin;
    uint32_t cap = 0;
    for (uint32_t i = 0; i < n; i++) {
        unsigned char h[L2_BIN_POLICY_BYTES];
        if (hread(t, crc, h, sizeof h, e) < 0 || l2_grow(&b->pol, &cap, i + 1, sizeof *b->pol, e) < 0)
            return -1;
        struct l2_policy_spec *p = &b->pol[i];
        memset(p, 0, sizeof *p);
        p->kind = (enum l2_pol_kind)h[0];
        p->api = (enum l2_api)h[1];
        p->primary = (enum l2_prio)h[2];
        p->secondary = (enum l2_prio)h[3];
        p->fraction = bitsd(l2_ld64(h + 4));
        p->base = l2_ld64(h + 12);
        p->leading = l2_ld64(h + 20);
        p->total = l2_ld64(h + 28);
        p->desc = l2_ld64(h + 36);
        if (p->kind == POL_STATIC) /* not a kind the format carries */
            return l2_fail(e, "%s: header: policy %u has no kind (corrupt file?)", t->name, i);
        if (l2_policy_check(p, e) < 0)
            return l2_prefix(e, "%s: header: policy %u", t->name, i);
        b->npol = i + 1;
    }
    return 0;
}

static int read_windows(struct l2_trace *t, uint32_t *crc, uint32_t n, l2_err *e)
{
    struct l2_bin_state *b = &t->bin;
    uint32_t cap = 0;
    for (uint32_t i = 0; i < n; i++) {
        unsigned char h[L2_BIN_WINDOW_BYTES];
        if (hread(t, crc, h, sizeof h, e) < 0 || l2_grow(&b->win, &cap, i + 1, sizeof *b->win, e) < 0)
            return -1;
        struct l2_window_spec *w = &b->win[i];
        memset(w, 0, sizeof *w);
        w->base = l2_ld64(h);
        w->bytes = l2_ld64(h + 8);
        w->hit_ratio = bitsd(l2_ld64(h + 16));
        w->hit_prop = (enum l2_prio)h[24];
        w->miss_prop = (enum l2_prio)h[25];
        if (l2_window_check(w, e) < 0)
            return l2_prefix(e, "%s: header: window %u", t->name, i);
        b->nwin = i + 1;
    }
    return 0;
}

static int read_labels(struct l2_trace *t, uint32_t *crc, uint32_t n, l2_err *e)
{
    struct l2_bin_state *b = &t->bin;
    uint32_t cap = 0;
    for (uint32_t i = 0; i < n; i++) {
        unsigned char len;
        if (hread(t, crc, &len, 1, e) < 0 || l2_grow(&b->label, &cap, i + 1, sizeof *b->label, e) < 0)
            return -1;
        struct l2_bin_label *l = &b->label[i];
        memset(l, 0, sizeof *l);
        if (len == 0 || len >= L2_MAX_KNAME)
            return l2_fail(e, "%s: header: bad label %u (corrupt file?)", t->name, i);
        if (hread(t, crc, l->name, len, e) < 0)
            return -1;
        if (!label_ok(l->name, len))
            return l2_fail(e, "%s: header: label %u is not a word (corrupt file?)", t->name, i);
        if (b->version >= 2) {
            unsigned char d[24];
            if (hread(t, crc, d, sizeof d, e) < 0)
                return -1;
            for (int j = 0; j < 6; j++) {
                l->dims[j] = l2_ld32(d + 4 * j);
                if (l->dims[j] > INT32_MAX || (l->dims[j] == 0) != (l->dims[j / 3 * 3] == 0))
                    return l2_fail(e, "%s: header: label %u has bad dimensions (corrupt file?)", t->name, i);
            }
        }
        b->nlabel = i + 1;
    }
    return 0;
}

static int read_allocs(struct l2_trace *t, uint32_t *crc, uint32_t n, l2_err *e)
{
    struct l2_bin_state *b = &t->bin;
    uint32_t cap = 0;
    for (uint32_t i = 0; i < n; i++) {
        unsigned char h[L2_BIN_ALLOC_BYTES];
        if (hread(t, crc, h, sizeof h, e) < 0 || l2_grow(&b->alloc, &cap, i + 1, sizeof *b->alloc, e) < 0)
            return -1;
        struct l2_bin_alloc *a = &b->alloc[i];
        a->base = l2_ld64(h);
        a->bytes = l2_ld64(h + 8);
        a->label = l2_ld32(h + 16);
        if (a->label >= b->nlabel)
            return l2_fail(e, "%s: header: allocation %u names label %u, not in the header (corrupt file?)", t->name,
                           i, a->label);
        b->nalloc = i + 1;
    }
    return 0;
}

int l2_bin_start(struct l2_trace *t, const unsigned char *magic, l2_err *e)
{
    struct l2_bin_state *b = &t->bin;
    uint32_t crc = crc_update(0, magic, 8);
    unsigned char h[HDR_FIXED];
    t->fmt = L2_FMT_BINARY;
    if (hread(t, &crc, h, sizeof h, e) < 0)
        return -1;
    uint32_t version = l2_ld32(h), flags = l2_ld32(h + 4);
    if (version < 1 || version > L2_BIN_VERSION)
        return l2_fail(e, "%s: unsupported binary trace version %u (this l2sim reads versions 1 to %u)", t->name,
                       version, L2_BIN_VERSION);
    b->version = version;
    if (flags != 0)
        return l2_fail(e, "%s: unsupported binary trace flags 0x%x", t->name, flags);
    b->total = l2_ld64(h + 8);
    b->block = l2_ld32(h + 16);
    uint32_t nnames = l2_ld32(h + 20), npol = l2_ld32(h + 24), nwin = l2_ld32(h + 28), nlabel = l2_ld32(h + 32);
    uint32_t nalloc = 0;
    if (version >= 2) {
        unsigned char h2[4];
        if (hread(t, &crc, h2, sizeof h2, e) < 0)
            return -1;
        nalloc = l2_ld32(h2);
    }
    if (b->block == 0 || b->block > L2_BIN_MAX_BLOCK)
        return l2_fail(e, "%s: header: bad block size %u (corrupt file?)", t->name, b->block);
    if (nnames > L2_BIN_MAX_TAGS - L2_NBUILTIN)
        return l2_fail(e, "%s: header: %u names is more than the format holds (corrupt file?)", t->name, nnames);
    if (read_names(t, &crc, nnames, e) < 0 || read_policies(t, &crc, npol, e) < 0 ||
        read_windows(t, &crc, nwin, e) < 0 || read_labels(t, &crc, nlabel, e) < 0 ||
        read_allocs(t, &crc, nalloc, e) < 0)
        return -1;
    unsigned char c[4];
    int64_t got = l2_source_read(t->src, c, 4, e);
    if (got < 0)
        return -1;
    if (got < 4)
        return l2_fail(e, "%s: truncated header", t->name);
    if (l2_ld32(c) != crc)
        return l2_fail(e, "%s: checksum mismatch in the header (corrupt file)", t->name);
    b->crc = crc;
    b->blk = malloc((size_t)b->block * L2_BIN_REC + 4);
    if (!b->blk)
        return l2_fail(e, "out of memory");
    return 0;
}

void l2_bin_free(struct l2_trace *t)
{
    struct l2_bin_state *b = &t->bin;
    free(b->blk);
    free(b->symid);
    free(b->is_policy);
    free(b->tagmap);
    free(b->pol);
    free(b->win);
    free(b->label);
    free(b->alloc);
    memset(b, 0, sizeof *b);
    t->rp = t->rend = NULL;
}

/* Reads and verifies the next block: 1, 0 at the end, -1 on error. */
static int load_block(struct l2_trace *t, l2_err *e)
{
    struct l2_bin_state *b = &t->bin;
    if (b->loaded == b->total) {
        unsigned char x;
        int64_t got = l2_source_read(t->src, &x, 1, e);
        if (got < 0)
            return -1;
        if (got > 0)
            return l2_fail(e, "%s: data after the last of %" PRIu64 " records (corrupt file)", t->name, b->total);
        return 0;
    }
    uint64_t n = b->total - b->loaded;
    if (n > b->block)
        n = b->block;
    size_t bytes = (size_t)n * L2_BIN_REC, want = bytes + 4;
    int64_t got = l2_source_read(t->src, b->blk, want, e);
    if (got < 0)
        return -1;
    if ((size_t)got < want) {
        uint64_t have = (uint64_t)got / L2_BIN_REC;
        return l2_fail(e, "%s: truncated after %" PRIu64 " of %" PRIu64 " records", t->name,
                       b->loaded + (have < n ? have : n), b->total);
    }
    uint32_t crc = crc_update(b->crc, b->blk, bytes);
    if (crc != l2_ld32(b->blk + bytes))
        return l2_fail(e, "%s: checksum mismatch in records %" PRIu64 "..%" PRIu64 " (corrupt file)", t->name,
                       b->loaded + 1, b->loaded + n);
    b->crc = crc;
    b->loaded += n;
    t->rp = b->blk;
    t->rend = b->blk + bytes;
    return 1;
}

static int check_stream(uint64_t m, uint32_t *stream, l2_err *e)
{
    if ((m >> 4) & 0xfffffff)
        return l2_fail(e, "reserved bits set (corrupt file?)");
    uint64_t s = m >> 32;
    if (s > INT32_MAX)
        return l2_fail(e, "stream %" PRIu64 " is too large", s);
    *stream = (uint32_t)s;
    return 0;
}

/* Label a of the header into ev->label: 0, or -1 when it is not there. */
static int take_label(const struct l2_bin_state *b, uint64_t a, struct l2_event *ev, l2_err *e)
{
    if (a >= b->nlabel)
        return l2_fail(e, "label index %" PRIu64 " is not in the header (corrupt file?)", a);
    memcpy(ev->label, b->label[a].name, sizeof ev->label);
    return 0;
}

/* Decodes any record, explaining what is wrong with a bad one. */
static int decode(struct l2_trace *t, const unsigned char *p, struct l2_event *ev, l2_err *e)
{
    struct l2_bin_state *b = &t->bin;
    uint64_t m = l2_ld64(p), a = l2_ld64(p + 8);
    unsigned type = (unsigned)(m & 15);
    memset(ev, 0, offsetof(struct l2_event, pol));
    ev->pos = t->recno + 1;
    if (type <= OP_DISCARD) {
        uint32_t ti = (uint32_t)(m >> 16) & 0xffff, size = (uint32_t)((m >> 4) & 0xfff) + 1;
        uint64_t sm1 = m >> 32;
        ev->type = EV_ACCESS;
        ev->op = (uint8_t)type;
        if (ti >= b->ntag)
            return l2_fail(e, "tag index %u is not in the header (corrupt file?)", ti);
        if (b->tagmap[ti] == UINT32_MAX)
            return l2_fail(e, "unknown tag or policy '%s' (not a priority, property or policy defined earlier)",
                           l2_sym_name(t->syms, b->symid[ti - L2_NBUILTIN]));
        if (sm1 > 0x80000000u)
            return l2_fail(e, "sm %" PRIu64 " is too large", sm1 - 1);
        if (a > UINT64_MAX - size)
            return l2_fail(e, "address + size overflows the address space");
        ev->addr = a;
        ev->size = size;
        ev->tag = b->tagmap[ti];
        ev->sm = sm1 ? (int32_t)(sm1 - 1) : -1;
        return type == OP_PREFETCH ? l2_prefetch_tag_check(ev->tag, e) : 0;
    }
    switch (type) {
    case L2_REC_POLICY: {
        uint32_t ti = (uint32_t)(m >> 16) & 0xffff;
        if (((m >> 4) & 0xfff) || (m >> 32))
            return l2_fail(e, "reserved bits set (corrupt file?)");
        if (ti < L2_NBUILTIN || ti >= b->ntag || !b->is_policy[ti - L2_NBUILTIN])
            return l2_fail(e, "policy record names tag index %u, not a policy name (corrupt file?)", ti);
        if (a >= b->npol)
            return l2_fail(e, "policy index %" PRIu64 " is not in the header (corrupt file?)", a);
        uint32_t id = b->symid[ti - L2_NBUILTIN];
        ev->type = EV_POLICY;
        ev->name = id;
        ev->pol = b->pol[a];
        l2_sym_set_flags(t->syms, id, L2_SYM_POLICY);
        b->tagmap[ti] = id;
        return 0;
    }
    case L2_REC_WINDOW:
        if (check_stream(m, &ev->stream, e) < 0)
            return -1;
        if (a >= b->nwin)
            return l2_fail(e, "window index %" PRIu64 " is not in the header (corrupt file?)", a);
        ev->type = EV_WINDOW;
        ev->win = b->win[a];
        return 0;
    case L2_REC_WINDOW_OFF:
        if (check_stream(m, &ev->stream, e) < 0)
            return -1;
        if (a)
            return l2_fail(e, "reserved bits set (corrupt file?)");
        ev->type = EV_WINDOW_OFF;
        return 0;
    case L2_REC_SETASIDE:
        if (m >> 4)
            return l2_fail(e, "reserved bits set (corrupt file?)");
        ev->type = EV_SETASIDE;
        ev->bytes = a;
        return 0;
    case L2_REC_RESET:
        if ((m >> 4) || a)
            return l2_fail(e, "reserved bits set (corrupt file?)");
        ev->type = EV_RESET;
        return 0;
    case L2_REC_KERNEL:
        if (check_stream(m, &ev->stream, e) < 0 || take_label(b, a, ev, e) < 0)
            return -1;
        ev->type = EV_KERNEL;
        memcpy(ev->grid, b->label[a].dims, sizeof ev->grid);
        memcpy(ev->block, b->label[a].dims + 3, sizeof ev->block);
        return 0;
    }
    if (b->version < 2)
        return l2_fail(e, "unknown record type %u (corrupt file?)", type);
    switch (type) {
    case L2_REC_ALLOC:
        if (m >> 4)
            return l2_fail(e, "reserved bits set (corrupt file?)");
        if (a >= b->nalloc)
            return l2_fail(e, "allocation index %" PRIu64 " is not in the header (corrupt file?)", a);
        if (take_label(b, b->alloc[a].label, ev, e) < 0)
            return -1;
        ev->type = EV_ALLOC;
        ev->addr = b->alloc[a].base;
        ev->bytes = b->alloc[a].bytes;
        return l2_alloc_check(ev, e);
    case L2_REC_FREE:
        if (m >> 4)
            return l2_fail(e, "reserved bits set (corrupt file?)");
        ev->type = EV_FREE;
        return take_label(b, a, ev, e);
    case L2_REC_SYNC:
        if ((m >> 4) & 0xfffffff || a || (m >> 32) > (uint64_t)INT32_MAX + 1)
            return l2_fail(e, "reserved bits set (corrupt file?)");
        ev->type = (m >> 32) ? EV_STREAM_SYNC : EV_SYNC;
        ev->stream = (m >> 32) ? (uint32_t)(m >> 32) - 1 : 0;
        return 0;
    case L2_REC_EVENT:
        if (check_stream(m & ~(uint64_t)16, &ev->stream, e) < 0 || take_label(b, a, ev, e) < 0)
            return -1;
        ev->type = (m & 16) ? EV_EVENT_WAIT : EV_EVENT_RECORD;
        return 0;
    default:
        return l2_fail(e, "unknown record type %u (corrupt file?)", type);
    }
}

/* A cycle record (first word m, cycle c) after `at1` (l2_bin_next): 0, or
 * -1 and the reason. */
static int cycle_check(uint64_t m, uint64_t c, uint64_t at1, l2_err *e)
{
    if (at1)
        return l2_fail(e, "two cycle records in a row (corrupt file?)");
    if (m >> 4)
        return l2_fail(e, "reserved bits set (corrupt file?)");
    if (c > L2_MAX_CYCLE)
        return l2_fail(e, "@CYCLE %" PRIu64 " is too large", c);
    return 0;
}

int l2_bin_next(struct l2_trace *t, struct l2_event *ev, l2_err *e)
{
    uint64_t at1 = 0; /* 1 + the cycle of a cycle record just read */
    for (;;) {
        if (t->rp < t->rend) {
            uint64_t m = l2_ld64(t->rp);
            if ((m & 15) == L2_REC_CYCLE) {
                uint64_t c = l2_ld64(t->rp + 8);
                if (cycle_check(m, c, at1, e) < 0)
                    return l2_trace_fail_at(t, t->recno + 1, e);
                at1 = c + 1;
                t->rp += L2_BIN_REC;
                t->recno++;
                continue;
            }
            /* l2_trace_next tried the fast path on this record unless it
             * follows a cycle record; decode takes any record */
            if (!(at1 && l2_bin_fast_access(t, t->rp, ev)) && decode(t, t->rp, ev, e) < 0)
                return l2_trace_fail_at(t, t->recno + 1, e);
            if (at1) {
                if (ev->type != EV_ACCESS)
                    break;
                ev->at1 = at1;
            }
            t->rp += L2_BIN_REC;
            t->recno++;
            return 1;
        }
        int r = load_block(t, e);
        if (r < 0)
            return r;
        if (r == 0) {
            if (!at1)
                return 0;
            break;
        }
    }
    l2_fail(e, "a cycle record is not followed by an access");
    return l2_trace_fail_at(t, t->recno, e);
}

/* ---- writer ---- */

struct label_ent {
    UT_hash_handle hh;
    uint32_t idx;
    struct l2_bin_label key; /* zero-filled: the whole struct is the key */
};

struct l2_bin_writer {
    const struct l2_symtab *syms;
    uint32_t *fidx; /* symbol id -> tag index (0: not yet in the table) */
    uint32_t capfidx;
    uint32_t *names; /* table order -> symbol id */
    uint32_t nnames, capnames;
    struct l2_policy_spec *pol;
    uint32_t npol, cappol;
    struct l2_window_spec *win;
    uint32_t nwin, capwin;
    struct label_ent *lhash;
    struct label_ent **lbyidx;
    uint32_t nlabel, caplabel;
    struct l2_bin_alloc *alloc;
    uint32_t nalloc, capalloc;
    int v2; /* a record or table entry needs version 2 */
    unsigned char *buf; /* one block of records */
    size_t blen;
    FILE *tmp; /* the blocks before it */
    uint64_t count;
};

int l2_bin_writer_open(struct l2_bin_writer **out, const struct l2_symtab *syms, l2_err *e)
{
    struct l2_bin_writer *w = calloc(1, sizeof *w);
    *out = NULL;
    if (!w)
        return l2_fail(e, "out of memory");
    w->syms = syms;
    w->buf = malloc((size_t)L2_BIN_BLOCK * L2_BIN_REC);
    if (!w->buf) {
        free(w);
        return l2_fail(e, "out of memory");
    }
    *out = w;
    return 0;
}

void l2_bin_writer_free(struct l2_bin_writer *w)
{
    if (!w)
        return;
    struct label_ent *k, *tmp;
    HASH_ITER(hh, w->lhash, k, tmp)
    {
        HASH_DEL(w->lhash, k);
        free(k);
    }
    free(w->lbyidx);
    free(w->alloc);
    free(w->fidx);
    free(w->names);
    free(w->pol);
    free(w->win);
    free(w->buf);
    if (w->tmp)
        fclose(w->tmp);
    free(w);
}

/* Tag index of a policy name, adding it to the table when new. */
static int name_index(struct l2_bin_writer *w, uint32_t id, int add, uint32_t *ti, l2_err *e)
{
    if (id < w->capfidx && w->fidx[id]) {
        *ti = w->fidx[id];
        return 0;
    }
    const char *name = l2_sym_name(w->syms, id);
    if (!add)
        return l2_fail(e, "tag '%s' is used before its policy is defined", name);
    const char *why = policy_name_why(name, strlen(name));
    if (why)
        return l2_fail(e, "policy name '%.40s': %s", name, why);
    if (w->nnames == L2_BIN_MAX_TAGS - L2_NBUILTIN)
        return l2_fail(e, "more than %u policy names (the binary format's limit)", L2_BIN_MAX_TAGS - L2_NBUILTIN);
    uint32_t old = w->capfidx;
    if (l2_grow(&w->fidx, &w->capfidx, (uint64_t)id + 1, sizeof *w->fidx, e) < 0 ||
        l2_grow(&w->names, &w->capnames, (uint64_t)w->nnames + 1, sizeof *w->names, e) < 0)
        return -1;
    memset(w->fidx + old, 0, (w->capfidx - old) * sizeof *w->fidx);
    w->names[w->nnames] = id;
    *ti = w->fidx[id] = L2_NBUILTIN + w->nnames++;
    return 0;
}

/* Index of a label with a kernel's dimensions (NULL: none), adding it
 * when new. */
static int label_index(struct l2_bin_writer *w, const struct l2_event *ev, const uint32_t *dims, uint32_t *idx,
                       l2_err *e)
{
    struct l2_bin_label key;
    size_t n = strlen(ev->label);
    memset(&key, 0, sizeof key);
    if (!label_ok(ev->label, n))
        return l2_fail(e, "name '%.40s' cannot be written (not one word of at most %u bytes)", ev->label,
                       L2_MAX_KNAME - 1);
    memcpy(key.name, ev->label, n);
    if (dims)
        for (int j = 0; j < 6; j++) {
            if (dims[j] > INT32_MAX || (dims[j] == 0) != (dims[j / 3 * 3] == 0))
                return l2_fail(e, "kernel '%s': bad grid or block dimensions", ev->label);
            key.dims[j] = dims[j];
        }
    struct label_ent *k;
    HASH_FIND(hh, w->lhash, &key, sizeof key, k);
    if (k) {
        *idx = k->idx;
        return 0;
    }
    if (w->nlabel == UINT32_MAX ||
        l2_grow(&w->lbyidx, &w->caplabel, (uint64_t)w->nlabel + 1, sizeof *w->lbyidx, e) < 0)
        return l2_fail(e, "out of memory");
    k = calloc(1, sizeof *k);
    if (!k)
        return l2_fail(e, "out of memory");
    k->key = key;
    k->idx = w->nlabel;
    w->lbyidx[w->nlabel++] = k;
    HASH_ADD(hh, w->lhash, key, sizeof key, k);
    if (key.dims[0] || key.dims[3])
        w->v2 = 1;
    *idx = k->idx;
    return 0;
}

static int check_stream_out(uint32_t s, l2_err *e)
{
    return s > INT32_MAX ? l2_fail(e, "stream %u is too large", s) : 0;
}

static int flush_block(struct l2_bin_writer *w, l2_err *e)
{
    if (!w->tmp) {
        w->tmp = tmpfile();
        if (!w->tmp)
            return l2_fail(e, "cannot create a temporary file: %s", strerror(errno));
    }
    if (fwrite(w->buf, 1, w->blen, w->tmp) != w->blen)
        return l2_fail(e, "cannot write the temporary file: %s", strerror(errno));
    w->blen = 0;
    return 0;
}

static int encode(struct l2_bin_writer *w, const struct l2_event *ev, uint64_t *mo, uint64_t *ao, l2_err *e)
{
    uint64_t m = 0, a = 0;
    uint32_t ti = 0, idx = 0;
    switch (ev->type) {
    case EV_ACCESS:
        if (ev->op >= L2_NOP)
            return l2_fail(e, "bad operation %u", ev->op);
        if (ev->size < 1 || ev->size > L2_MAX_ACCESS)
            return l2_fail(e, "size %u is outside 1..%u bytes", ev->size, L2_MAX_ACCESS);
        if (ev->addr > UINT64_MAX - ev->size)
            return l2_fail(e, "address + size overflows the address space");
        if (ev->sm < -1)
            return l2_fail(e, "bad sm %d", ev->sm);
        if (ev->tag < L2_NBUILTIN)
            ti = ev->tag;
        else if (name_index(w, ev->tag, 0, &ti, e) < 0)
            return -1;
        if (ev->op == OP_PREFETCH && l2_prefetch_tag_check(ev->tag, e) < 0)
            return -1;
        m = ev->op | (uint64_t)(ev->size - 1) << 4 | (uint64_t)ti << 16 | (uint64_t)((int64_t)ev->sm + 1) << 32;
        a = ev->addr;
        break;
    case EV_POLICY: {
        const struct l2_policy_spec *p = &ev->pol;
        if (ev->name < L2_NBUILTIN)
            return l2_fail(e, "policy name '%s' is a built-in tag", l2_sym_name(w->syms, ev->name));
        if (l2_policy_check(p, e) < 0 || name_index(w, ev->name, 1, &ti, e) < 0)
            return -1;
        if (l2_grow(&w->pol, &w->cappol, (uint64_t)w->npol + 1, sizeof *w->pol, e) < 0)
            return -1;
        w->pol[w->npol] = *p;
        m = L2_REC_POLICY | (uint64_t)ti << 16;
        a = w->npol++;
        break;
    }
    case EV_WINDOW:
        if (check_stream_out(ev->stream, e) < 0 || l2_window_check(&ev->win, e) < 0)
            return -1;
        if (l2_grow(&w->win, &w->capwin, (uint64_t)w->nwin + 1, sizeof *w->win, e) < 0)
            return -1;
        w->win[w->nwin] = ev->win;
        m = L2_REC_WINDOW | (uint64_t)ev->stream << 32;
        a = w->nwin++;
        break;
    case EV_WINDOW_OFF:
        if (check_stream_out(ev->stream, e) < 0)
            return -1;
        m = L2_REC_WINDOW_OFF | (uint64_t)ev->stream << 32;
        break;
    case EV_SETASIDE:
        m = L2_REC_SETASIDE;
        a = ev->bytes;
        break;
    case EV_RESET:
        m = L2_REC_RESET;
        break;
    case EV_KERNEL: {
        uint32_t dims[6] = {ev->grid[0], ev->grid[1], ev->grid[2], ev->block[0], ev->block[1], ev->block[2]};
        if (check_stream_out(ev->stream, e) < 0 || label_index(w, ev, dims, &idx, e) < 0)
            return -1;
        m = L2_REC_KERNEL | (uint64_t)ev->stream << 32;
        a = idx;
        break;
    }
    case EV_ALLOC:
        if (l2_alloc_check(ev, e) < 0 || label_index(w, ev, NULL, &idx, e) < 0 ||
            l2_grow(&w->alloc, &w->capalloc, (uint64_t)w->nalloc + 1, sizeof *w->alloc, e) < 0)
            return -1;
        if (w->nalloc == UINT32_MAX)
            return l2_fail(e, "more than %u allocations", UINT32_MAX);
        w->alloc[w->nalloc] = (struct l2_bin_alloc){.base = ev->addr, .bytes = ev->bytes, .label = idx};
        m = L2_REC_ALLOC;
        a = w->nalloc++;
        w->v2 = 1;
        break;
    case EV_FREE:
        if (label_index(w, ev, NULL, &idx, e) < 0)
            return -1;
        m = L2_REC_FREE;
        a = idx;
        w->v2 = 1;
        break;
    case EV_EVENT_RECORD:
    case EV_EVENT_WAIT:
        if (check_stream_out(ev->stream, e) < 0 || label_index(w, ev, NULL, &idx, e) < 0)
            return -1;
        m = L2_REC_EVENT | (ev->type == EV_EVENT_WAIT ? 16u : 0u) | (uint64_t)ev->stream << 32;
        a = idx;
        w->v2 = 1;
        break;
    case EV_SYNC:
    case EV_STREAM_SYNC:
        if (check_stream_out(ev->stream, e) < 0)
            return -1;
        m = L2_REC_SYNC | (ev->type == EV_STREAM_SYNC ? (uint64_t)ev->stream + 1 : 0) << 32;
        w->v2 = 1;
        break;
    case EV_ASSIGN:
        return l2_fail(e, "assign lines belong in a --policy file and have no binary form");
    default:
        return l2_fail(e, "unknown event type %d", (int)ev->type);
    }
    *mo = m;
    *ao = a;
    return 0;
}

static int put_record(struct l2_bin_writer *w, uint64_t m, uint64_t a, l2_err *e)
{
    l2_st64(w->buf + w->blen, m);
    l2_st64(w->buf + w->blen + 8, a);
    w->blen += L2_BIN_REC;
    w->count++;
    if (w->blen == (size_t)L2_BIN_BLOCK * L2_BIN_REC)
        return flush_block(w, e);
    return 0;
}

int l2_bin_writer_add(struct l2_bin_writer *w, const struct l2_event *ev, l2_err *e)
{
    uint64_t m = 0, a = 0;
    if (encode(w, ev, &m, &a, e) < 0)
        return l2_prefix(e, "record %" PRIu64, w->count + 1);
    if (l2_event_has_cycle(ev)) {
        if (l2_event_cycle(ev) > L2_MAX_CYCLE)
            return l2_fail(e, "record %" PRIu64 ": @CYCLE is too large", w->count + 1);
        if (put_record(w, L2_REC_CYCLE, l2_event_cycle(ev), e) < 0)
            return -1;
    }
    return put_record(w, m, a, e);
}

/* A growing byte buffer for the header. */
struct bytes {
    unsigned char *p;
    size_t n, cap;
    int oom;
};

static unsigned char *room(struct bytes *b, size_t k)
{
    if (b->oom)
        return NULL;
    if (b->n + k > b->cap) {
        size_t c = b->cap ? b->cap : 4096;
        while (c < b->n + k)
            c *= 2;
        unsigned char *p = realloc(b->p, c);
        if (!p) {
            b->oom = 1;
            return NULL;
        }
        b->p = p;
        b->cap = c;
    }
    unsigned char *r = b->p + b->n;
    b->n += k;
    return r;
}

static void put8(struct bytes *b, unsigned v)
{
    unsigned char *p = room(b, 1);
    if (p)
        *p = (unsigned char)v;
}

static void put32(struct bytes *b, uint32_t v)
{
    unsigned char *p = room(b, 4);
    if (p)
        l2_st32(p, v);
}

static void put64(struct bytes *b, uint64_t v)
{
    unsigned char *p = room(b, 8);
    if (p)
        l2_st64(p, v);
}

static void putmem(struct bytes *b, const void *s, size_t n)
{
    unsigned char *p = room(b, n);
    if (p)
        memcpy(p, s, n);
}

static int write_header(struct l2_bin_writer *w, struct l2_sink *out, uint32_t *crc, l2_err *e)
{
    struct bytes h = {0};
    putmem(&h, L2_BIN_MAGIC, 8);
    put32(&h, w->v2 ? 2 : 1); /* version 1 when it holds every record: what earlier versions wrote */
    put32(&h, 0);
    put64(&h, w->count);
    put32(&h, L2_BIN_BLOCK);
    put32(&h, w->nnames);
    put32(&h, w->npol);
    put32(&h, w->nwin);
    put32(&h, w->nlabel);
    if (w->v2)
        put32(&h, w->nalloc);
    for (uint32_t i = 0; i < w->nnames; i++) {
        const char *s = l2_sym_name(w->syms, w->names[i]);
        size_t n = strlen(s);
        put8(&h, 1); /* a policy name */
        put32(&h, (uint32_t)n);
        putmem(&h, s, n);
    }
    for (uint32_t i = 0; i < w->npol; i++) {
        const struct l2_policy_spec *p = &w->pol[i];
        put8(&h, p->kind);
        put8(&h, p->api);
        put8(&h, p->primary);
        put8(&h, p->secondary);
        put64(&h, dbits(p->fraction));
        put64(&h, p->base);
        put64(&h, p->leading);
        put64(&h, p->total);
        put64(&h, p->desc);
    }
    for (uint32_t i = 0; i < w->nwin; i++) {
        const struct l2_window_spec *s = &w->win[i];
        put64(&h, s->base);
        put64(&h, s->bytes);
        put64(&h, dbits(s->hit_ratio));
        put8(&h, s->hit_prop);
        put8(&h, s->miss_prop);
    }
    for (uint32_t i = 0; i < w->nlabel; i++) {
        const struct l2_bin_label *l = &w->lbyidx[i]->key;
        size_t n = strlen(l->name);
        put8(&h, (unsigned)n);
        putmem(&h, l->name, n);
        for (int j = 0; w->v2 && j < 6; j++)
            put32(&h, l->dims[j]);
    }
    for (uint32_t i = 0; i < w->nalloc; i++) {
        put64(&h, w->alloc[i].base);
        put64(&h, w->alloc[i].bytes);
        put32(&h, w->alloc[i].label);
    }
    if (h.oom) {
        free(h.p);
        return l2_fail(e, "out of memory");
    }
    *crc = crc_update(0, h.p, h.n);
    put32(&h, *crc);
    int r = h.oom ? l2_fail(e, "out of memory") : l2_sink_write(out, h.p, h.n, e);
    free(h.p);
    return r;
}

static int write_block(struct l2_sink *out, const unsigned char *p, size_t n, uint32_t *crc, l2_err *e)
{
    unsigned char c[4];
    *crc = crc_update(*crc, p, n);
    l2_st32(c, *crc);
    return l2_sink_write(out, p, n, e) < 0 || l2_sink_write(out, c, 4, e) < 0 ? -1 : 0;
}

int l2_bin_writer_finish(struct l2_bin_writer *w, struct l2_sink *out, l2_err *e)
{
    uint32_t crc = 0;
    if (write_header(w, out, &crc, e) < 0)
        return -1;
    if (!w->tmp)
        return w->blen ? write_block(out, w->buf, w->blen, &crc, e) : 0;
    if (w->blen && flush_block(w, e) < 0)
        return -1;
    if (fflush(w->tmp) != 0 || fseek(w->tmp, 0, SEEK_SET) != 0)
        return l2_fail(e, "cannot read the temporary file back: %s", strerror(errno));
    const size_t bsize = (size_t)L2_BIN_BLOCK * L2_BIN_REC;
    uint64_t left = w->count * L2_BIN_REC;
    while (left) {
        size_t k = left < bsize ? (size_t)left : bsize;
        if (fread(w->buf, 1, k, w->tmp) != k)
            return l2_fail(e, "cannot read the temporary file back: %s", ferror(w->tmp) ? strerror(errno) : "short");
        if (write_block(out, w->buf, k, &crc, e) < 0)
            return -1;
        left -= k;
    }
    return 0;
}

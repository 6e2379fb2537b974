/*
 * import_accelsim.c - Accel-Sim traces to l2sim events (import_accelsim.h).
 */
#include "import_accelsim.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "coalesce.h"
#include "l1.h"
#include "source.h"

#define WINDOW (UINT64_C(1) << 32) /* the shared and local windows of generic addresses */

/* Lines of a source, without their line breaks. */
struct lines {
    struct l2_source *src;
    const char *name;
    char *buf;
    size_t len, pos, cap;
    int eof;
    uint64_t no; /* of the line handed out last */
};

static int line_next(struct lines *L, char **out, l2_err *e)
{
    for (;;) {
        char *nl = L->pos < L->len ? memchr(L->buf + L->pos, '\n', L->len - L->pos) : NULL;
        if (nl || (L->eof && L->pos < L->len)) {
            char *s = L->buf + L->pos;
            size_t n = nl ? (size_t)(nl - s) : L->len - L->pos;
            L->pos += n + (nl ? 1 : 0);
            if (n && s[n - 1] == '\r')
                n--;
            s[n] = 0; /* over the '\n', or the spare byte after the data */
            L->no++;
            *out = s;
            return 1;
        }
        if (L->eof)
            return 0;
        if (L->pos) { /* keep the partial line at the start */
            memmove(L->buf, L->buf + L->pos, L->len - L->pos);
            L->len -= L->pos;
            L->pos = 0;
        }
        if (L->cap - L->len < 65536 + 1) {
            if (L->cap >= (size_t)1 << 30)
                return l2_fail(e, "%s:%llu: line longer than 1 GiB", L->name, (unsigned long long)L->no + 1);
            char *b = realloc(L->buf, L->cap = 2 * L->cap + 65536 + 1);
            if (!b)
                return l2_fail(e, "out of memory");
            L->buf = b;
        }
        int64_t got = l2_source_read(L->src, L->buf + L->len, L->cap - L->len - 1, e);
        if (got < 0)
            return -1;
        if (got == 0)
            L->eof = 1;
        L->len += (size_t)got;
    }
}

static int lines_open(struct lines *L, const char *path, l2_err *e)
{
    memset(L, 0, sizeof *L);
    L->name = path;
    return l2_source_open(&L->src, path, path, e);
}

static void lines_close(struct lines *L)
{
    l2_source_close(L->src);
    free(L->buf);
}

struct import {
    struct l2_bin_writer *w;
    unsigned flags;
    struct l2_l1 l1;
    struct l2_import_stats *st;
    uint64_t streams[4096]; /* CUDA stream handles seen, by l2sim stream - 1 */
    uint32_t nstreams;
};

static int fail_at(const struct lines *L, l2_err *e, const char *why)
{
    return l2_fail(e, "%s:%llu: %s", L->name, (unsigned long long)L->no, why);
}

static int parse_u64(const char *s, int base, uint64_t *v)
{
    if (base == 16 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        s += 2;
    if (!*s || *s == '-' || *s == '+')
        return -1;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(s, &end, base);
    if (*end || errno)
        return -1;
    *v = x;
    return 0;
}

static int parse_i64(const char *s, int64_t *v)
{
    if (!*s)
        return -1;
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (*end || errno)
        return -1;
    *v = x;
    return 0;
}

static int is_hex8(const char *s)
{
    if (strlen(s) != 8)
        return 0;
    for (; *s; s++)
        if (!strchr("0123456789abcdefABCDEF", *s))
            return 0;
    return 1;
}

/* "(x,y,z)" */
static int parse_dim(const char *s, uint32_t d[3])
{
    unsigned long long v[3];
    char tail;
    if (sscanf(s, " (%llu,%llu,%llu)%c", &v[0], &v[1], &v[2], &tail) != 3)
        return -1;
    for (int i = 0; i < 3; i++) {
        if (v[i] < 1 || v[i] > UINT32_MAX)
            return -1;
        d[i] = (uint32_t)v[i];
    }
    return 0;
}

enum kind { K_SKIP, K_READ, K_WRITE, K_GENERIC_READ, K_GENERIC_WRITE };

/* What an opcode does to global memory. */
static enum kind classify(const char *op)
{
    size_t n = strcspn(op, ".");
#define IS(s) (n == sizeof(s) - 1 && strncmp(op, s, n) == 0)
    if (IS("LDG") || IS("LDGSTS"))
        return K_READ;
    if (IS("STG") || IS("ATOMG") || IS("RED") || IS("REDG"))
        return K_WRITE;
    if (IS("LD"))
        return K_GENERIC_READ;
    if (IS("ST") || IS("ATOM"))
        return K_GENERIC_WRITE;
#undef IS
    return K_SKIP; /* LDS, STS, LDL, STL, LDC, ATOMS, LDSM, TEX, TLD, SULD, UTMA..., UBLK..., and the rest */
}

static int stream_of(struct import *im, uint64_t handle, uint32_t *id)
{
    if (handle == 0) {
        *id = 0;
        return 0;
    }
    for (uint32_t i = 0; i < im->nstreams; i++)
        if (im->streams[i] == handle) {
            *id = i + 1;
            return 0;
        }
    if (im->nstreams == sizeof im->streams / sizeof im->streams[0])
        return -1;
    im->streams[im->nstreams++] = handle;
    *id = im->nstreams;
    return 0;
}

/* The header of a kernel file. */
struct header {
    char name[4096];
    uint32_t grid[3], block[3];
    uint64_t stream, shmem_base, local_base;
    int version, lineinfo, have_name;
};

/* One `-key = value` line. */
static int header_line(struct lines *L, const char *line, struct header *h, l2_err *e)
{
    const char *eq = strstr(line, " = ");
    if (!eq)
        return 0; /* not a key of ours */
    size_t kn = (size_t)(eq - line - 1);
    const char *key = line + 1, *val = eq + 3;
#define KEY(s) (kn == sizeof(s) - 1 && strncmp(key, s, kn) == 0)
    if (KEY("kernel name")) {
        snprintf(h->name, sizeof h->name, "%s", val);
        h->have_name = 1;
    } else if (KEY("grid dim") || KEY("block dim")) {
        if (parse_dim(val, KEY("grid dim") ? h->grid : h->block) < 0)
            return fail_at(L, e, "a dimension is not (X,Y,Z) of whole numbers from 1");
    } else if (KEY("cuda stream id")) {
        if (parse_u64(val, 10, &h->stream) < 0)
            return fail_at(L, e, "the cuda stream id is not a whole number");
    } else if (KEY("accelsim tracer version")) {
        uint64_t v;
        if (parse_u64(val, 10, &v) < 0 || v < 3 || v > 5)
            return l2_fail(e, "%s:%llu: accelsim tracer version %s is not supported (3 to 5)", L->name,
                           (unsigned long long)L->no, val);
        h->version = (int)v;
    } else if (KEY("enable lineinfo")) {
        uint64_t v;
        if (parse_u64(val, 10, &v) < 0 || v > 1)
            return fail_at(L, e, "enable lineinfo is not 0 or 1");
        h->lineinfo = (int)v;
    } else if (KEY("shmem base_addr") || KEY("local mem base_addr")) {
        if (parse_u64(val, 16, KEY("shmem base_addr") ? &h->shmem_base : &h->local_base) < 0)
            return fail_at(L, e, "a base address is not hexadecimal");
    }
#undef KEY
    return 0;
}

static int emit_kernel(struct import *im, struct lines *L, const struct header *h, l2_err *e)
{
    struct l2_event ev;
    memset(&ev, 0, sizeof ev);
    ev.type = EV_KERNEL;
    ev.pos = L->no;
    l2_kernel_label(ev.label, h->name);
    if (stream_of(im, h->stream, &ev.stream) < 0)
        return fail_at(L, e, "more than 4096 CUDA streams");
    memcpy(ev.grid, h->grid, sizeof ev.grid);
    memcpy(ev.block, h->block, sizeof ev.block);
    im->st->kernels++;
    return l2_bin_writer_add(im->w, &ev, e);
}

#define MAX_TOK 256

/* One instruction line (tokens tok[0..n)); raw: the block and warp lead,
 * and *core (-1: not known yet) says whether the SM and its warp follow. */
static int instruction(struct import *im, struct lines *L, const struct header *h, char **tok, int n, int raw,
                       int *core, l2_err *e)
{
    int i = 0, sm = -1;
    if (raw) {
        int li = h->lineinfo;
        if (*core < 0)
            *core = n > 7 + li && is_hex8(tok[7 + li]) && !is_hex8(tok[5 + li]);
        if (n < 4 + 2 * *core)
            return fail_at(L, e, "fewer fields than the block, warp and instruction need");
        if (*core) {
            uint64_t v;
            if (parse_u64(tok[4], 10, &v) < 0 || v > INT32_MAX)
                return fail_at(L, e, "the SM id is not a whole number");
            sm = (int)v;
        }
        i = 4 + 2 * *core;
    }
    i += h->lineinfo;
    if (n - i < 6)
        return fail_at(L, e, "an instruction needs PC, mask, destinations, opcode, sources and width");
    uint64_t pc, mask, ndst, nsrc, width, mode;
    if (parse_u64(tok[i], 16, &pc) < 0)
        return fail_at(L, e, "the PC is not hexadecimal");
    if (!is_hex8(tok[i + 1]) || parse_u64(tok[i + 1], 16, &mask) < 0)
        return fail_at(L, e, "the active mask is not 8 hexadecimal digits");
    i += 2;
    if (parse_u64(tok[i++], 10, &ndst) < 0 || ndst > 32 || (int)ndst > n - i)
        return fail_at(L, e, "bad destination register count");
    i += (int)ndst;
    if (i >= n)
        return fail_at(L, e, "no opcode");
    const char *op = tok[i++];
    if (i >= n || parse_u64(tok[i++], 10, &nsrc) < 0 || nsrc > 32 || (int)nsrc > n - i)
        return fail_at(L, e, "bad source register count");
    i += (int)nsrc;
    if (i >= n || parse_u64(tok[i++], 10, &width) < 0)
        return fail_at(L, e, "no memory width");
    im->st->instructions++;
    enum kind k = classify(op);
    if (width == 0 || k == K_SKIP) {
        /* no global access: the rest (an immediate, or what a skipped
         * memory instruction lists) is not needed */
        if (width == 0 && n - i > 1)
            return fail_at(L, e, "fields after the immediate of an instruction without memory operands");
        return 0;
    }
    if (width > L2_COAL_MAX_LANE_SIZE)
        return l2_fail(e, "%s:%llu: memory width %llu above %u bytes", L->name, (unsigned long long)L->no,
                       (unsigned long long)width, L2_COAL_MAX_LANE_SIZE);
    if (i >= n || parse_u64(tok[i++], 10, &mode) < 0 || mode > 2)
        return fail_at(L, e, "the address format is not 0 (list), 1 (base, stride) or 2 (base, deltas)");
    uint64_t addr[L2_COAL_LANES] = {0};
    const int active = __builtin_popcountll(mask);
    if (mode == 0) {
        for (unsigned l = 0; l < L2_COAL_LANES; l++)
            if ((mask >> l) & 1) {
                if (i >= n || parse_u64(tok[i++], 16, &addr[l]) < 0)
                    return fail_at(L, e, "fewer addresses than active lanes, or one not hexadecimal");
            }
    } else if (active) {
        uint64_t base;
        if (i >= n || parse_u64(tok[i++], 16, &base) < 0)
            return fail_at(L, e, "the base address is not hexadecimal");
        unsigned first = (unsigned)__builtin_ctzll(mask);
        if (mode == 1) {
            int64_t stride;
            if (i >= n || parse_i64(tok[i++], &stride) < 0)
                return fail_at(L, e, "the stride is not a whole number");
            uint64_t run = mask >> first;
            if (run & (run + 1))
                return fail_at(L, e, "base and stride with active lanes that are not contiguous");
            for (int j = 0; j < active; j++)
                addr[first + (unsigned)j] = base + (uint64_t)((int64_t)j * stride);
        } else {
            addr[first] = base;
            for (unsigned l = first + 1; l < L2_COAL_LANES; l++)
                if ((mask >> l) & 1) {
                    int64_t d;
                    if (i >= n || parse_i64(tok[i++], &d) < 0)
                        return fail_at(L, e, "fewer deltas than active lanes after the first, or one not a "
                                             "whole number");
                    base += (uint64_t)d;
                    addr[l] = base;
                }
        }
    }
    if (n - i > 1)
        return fail_at(L, e, "more fields than the addresses and an immediate");
    if (!active)
        return 0;
    if (k == K_GENERIC_READ || k == K_GENERIC_WRITE) {
        uint64_t a = addr[__builtin_ctzll(mask)];
        if ((h->shmem_base && a - h->shmem_base < WINDOW) || (h->local_base && a - h->local_base < WINDOW))
            return 0; /* shared or local memory through a generic address */
    }
    im->st->mem_instructions++;
    struct l2_coal_line t[L2_COAL_MAX_LINES];
    int nl = l2_coalesce_lines(addr, (uint32_t)mask, (uint32_t)width, t, e);
    if (nl < 0)
        return l2_prefix(e, "%s:%llu", L->name, (unsigned long long)L->no);
    /* the L1: per SM (raw lines that give it), else the block's own (a
     * .traceg's blocks follow each other; l1 key 0, emptied per block) */
    int key = raw ? sm : 0;
    enum l2_l1_op l1op = k == K_READ || k == K_GENERIC_READ                          ? L2_L1_LOAD
                         : strncmp(op, "ATOM", 4) == 0 || strncmp(op, "RED", 3) == 0 ? L2_L1_ATOMIC
                                                                                     : L2_L1_STORE;
    if (l1op == L2_L1_LOAD && strstr(op, ".STRONG"))
        key = -1; /* a volatile or .cg load: past the L1 */
    if (l2_l1_warp(&im->l1, key, l1op, t, (unsigned)nl, &im->st->l1, e) < 0)
        return l2_prefix(e, "%s:%llu", L->name, (unsigned long long)L->no);
    struct l2_coal_access out[L2_COAL_MAX_OUT];
    const int write = !(k == K_READ || k == K_GENERIC_READ);
    /* a store's sectors written in part keep their bytes, as l2trace's (partial_write_fill) */
    int m = l2_coalesce_runs(t, (unsigned)nl, im->flags | (write ? L2_COAL_PARTIAL : 0), out);
    struct l2_event ev;
    memset(&ev, 0, sizeof ev);
    ev.type = EV_ACCESS;
    ev.pos = L->no;
    ev.tag = L2_TAG_GLOBAL;
    ev.sm = sm;
    ev.op = (uint8_t)(write ? OP_WRITE : OP_READ);
    for (int j = 0; j < m; j++) {
        ev.addr = out[j].addr;
        ev.size = out[j].size;
        if (l2_bin_writer_add(im->w, &ev, e) < 0)
            return l2_prefix(e, "%s:%llu", L->name, (unsigned long long)L->no);
        im->st->accesses++;
    }
    return 0;
}

static int import_kernel(struct import *im, const char *path, l2_err *e)
{
    struct lines L;
    struct header h;
    memset(&h, 0, sizeof h);
    if (lines_open(&L, path, e) < 0)
        return -1;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const int raw = strstr(base, ".traceg") == NULL; /* kernel-N.trace[.xz] before post-processing */
    int core = -1, in_header = 1, r;
    char *line, *tok[MAX_TOK];
    while ((r = line_next(&L, &line, e)) > 0) {
        if (in_header) {
            if (line[0] == '-') {
                if (header_line(&L, line, &h, e) < 0) {
                    r = -1;
                    break;
                }
                continue;
            }
            if (!line[0])
                continue;
            in_header = 0;
            if (!h.have_name) {
                r = fail_at(&L, e, "the header has no -kernel name line");
                break;
            }
            if (!h.version) {
                r = fail_at(&L, e, "the header has no -accelsim tracer version line");
                break;
            }
            if (emit_kernel(im, &L, &h, e) < 0) {
                r = -1;
                break;
            }
            l2_l1_clear(&im->l1); /* not coherent between kernels */
        }
        if (!raw && strncmp(line, "#BEGIN_TB", 9) == 0)
            l2_l1_clear(&im->l1); /* a new block: its own L1 */
        int n = 0;
        for (char *s = strtok(line, " \t"); s; s = strtok(NULL, " \t")) {
            if (n == MAX_TOK) {
                r = fail_at(&L, e, "more than 256 fields");
                break;
            }
            tok[n++] = s;
        }
        if (r < 0)
            break;
        if (n == 0 || tok[0][0] == '#' || strcmp(tok[0], "thread") == 0 || strcmp(tok[0], "warp") == 0 ||
            strcmp(tok[0], "insts") == 0)
            continue; /* #BEGIN_TB, #END_TB, the format comment, thread block = , warp = , insts = */
        if (instruction(im, &L, &h, tok, n, raw, &core, e) < 0) {
            r = -1;
            break;
        }
    }
    if (r == 0 && in_header) { /* a kernel without instructions */
        if (!h.have_name)
            r = l2_fail(e, "%s: no -kernel name line", path);
        else if (!h.version)
            r = l2_fail(e, "%s: no -accelsim tracer version line", path);
        else
            r = emit_kernel(im, &L, &h, e);
    }
    lines_close(&L);
    return r < 0 ? -1 : 0;
}

int l2_import_accelsim(const char *path, struct l2_bin_writer *w, unsigned flags, uint64_t l1_bytes,
                       struct l2_import_stats *st, l2_err *e)
{
    struct import *im = calloc(1, sizeof *im);
    if (!im)
        return l2_fail(e, "out of memory");
    if (l2_l1_init(&im->l1, l1_bytes, e) < 0) {
        free(im);
        return l2_prefix(e, "--l1");
    }
    im->w = w;
    im->flags = flags;
    im->st = st;
    memset(st, 0, sizeof *st);
    char list[4096], dir[4096];
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        snprintf(list, sizeof list, "%s/kernelslist.g", path);
        if (stat(list, &sb) != 0)
            snprintf(list, sizeof list, "%s/kernelslist", path);
    } else {
        snprintf(list, sizeof list, "%s", path);
    }
    snprintf(dir, sizeof dir, "%s", list);
    char *slash = strrchr(dir, '/');
    if (slash)
        slash[1] = 0;
    else
        dir[0] = 0;
    struct lines L;
    int r;
    if (lines_open(&L, list, e) < 0) {
        l2_l1_free(&im->l1);
        free(im);
        return -1;
    }
    char *line;
    while ((r = line_next(&L, &line, e)) > 0) {
        while (*line == ' ' || *line == '\t')
            line++;
        size_t n = strlen(line);
        while (n && (line[n - 1] == ' ' || line[n - 1] == '\t'))
            line[--n] = 0;
        if (!n || strncmp(line, "Memcpy", 6) == 0)
            continue;
        if (strncmp(line, "kernel", 6) != 0) {
            r = fail_at(&L, e, "neither a kernel file nor a Memcpy line");
            break;
        }
        char kpath[8192];
        snprintf(kpath, sizeof kpath, "%s%s", dir, line);
        if (stat(kpath, &sb) != 0) {
            r = l2_fail(e, "%s:%llu: kernel file %s: %s", L.name, (unsigned long long)L.no, kpath, strerror(errno));
            break;
        }
        if (import_kernel(im, kpath, e) < 0) {
            r = -1;
            break;
        }
    }
    if (r == 0 && st->kernels == 0)
        r = l2_fail(e, "%s: names no kernel file", list);
    lines_close(&L);
    l2_l1_free(&im->l1);
    free(im);
    return r < 0 ? -1 : 0;
}

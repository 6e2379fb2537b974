/*
 * source.c - plain, gzip, zstd and xz byte sources, and plain, gzip and
 * zstd sinks (see source.h).
 *
 * Input goes through one 1 MiB buffer (the sniffed magic stays in it);
 * plain files read straight into the caller's buffer once it is empty, so
 * large reads cost one copy.  gzip is read with zlib's inflate (concatenated
 * members allowed), zstd with ZSTD_decompressStream (concatenated frames
 * allowed), xz with liblzma (concatenated streams allowed); a stream that
 * stops before its end is an error, not an EOF.
 */
#include "source.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <lzma.h>
#define ZLIB_CONST
#include <zlib.h>
#include <zstd.h>

#define IN_SIZE (1u << 20)
#define DIRECT_MIN (64u << 10) /* plain reads at least this large bypass the buffer */
#define OUT_SIZE (1u << 20)

struct l2_source {
    FILE *f;
    int own;
    char *name;
    enum l2_comp comp;
    unsigned char *in;
    size_t in_len, in_pos;
    int in_eof;
    uint64_t raw_read, size; /* bytes read from the file; its size (0: unknown) */
    z_stream z;
    int z_init, z_member_done;
    ZSTD_DCtx *zd;
    size_t zret; /* last ZSTD_decompressStream result: 0 at a frame's end */
    lzma_stream xz;
    int xz_init, xz_done;
};

static int fill_in(struct l2_source *s, l2_err *e)
{
    s->in_pos = 0;
    s->in_len = fread(s->in, 1, IN_SIZE, s->f);
    s->raw_read += s->in_len;
    if (s->in_len < IN_SIZE) {
        if (ferror(s->f))
            return l2_fail(e, "%s: read error: %s", s->name, strerror(errno));
        s->in_eof = 1;
    }
    return 0;
}

int l2_source_open(struct l2_source **out, const char *path, const char *name, l2_err *e)
{
    struct l2_source *s = calloc(1, sizeof *s);
    if (!s)
        return l2_fail(e, "out of memory");
    s->in = malloc(IN_SIZE);
    s->name = strdup(name);
    if (!s->in || !s->name) {
        l2_source_close(s);
        return l2_fail(e, "out of memory");
    }
    if (strcmp(path, "-") == 0) {
        s->f = stdin;
    } else {
        s->f = fopen(path, "rb");
        if (!s->f) {
            int err = errno;
            l2_source_close(s);
            return l2_fail(e, "%s: cannot open: %s", name, strerror(err));
        }
        s->own = 1;
    }
    struct stat st;
    if (fstat(fileno(s->f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
        s->size = (uint64_t)st.st_size;
    if (fill_in(s, e) < 0) {
        l2_source_close(s);
        return -1;
    }
    const unsigned char *m = s->in;
    if (s->in_len >= 2 && m[0] == 0x1f && m[1] == 0x8b) {
        s->comp = L2_COMP_GZIP;
        if (inflateInit2(&s->z, 16 + MAX_WBITS) != Z_OK) {
            l2_source_close(s);
            return l2_fail(e, "%s: cannot start gzip decompression", name);
        }
        s->z_init = 1;
        s->z.next_in = s->in;
        s->z.avail_in = (uInt)s->in_len;
    } else if (s->in_len >= 4 && m[0] == 0x28 && m[1] == 0xb5 && m[2] == 0x2f && m[3] == 0xfd) {
        s->comp = L2_COMP_ZSTD;
        s->zd = ZSTD_createDCtx();
        if (!s->zd) {
            l2_source_close(s);
            return l2_fail(e, "out of memory");
        }
        s->zret = 1; /* inside a frame until one ends */
    } else if (s->in_len >= 6 && memcmp(m, "\xfd" "7zXZ\0", 6) == 0) {
        s->comp = L2_COMP_XZ;
        s->xz = (lzma_stream)LZMA_STREAM_INIT;
        if (lzma_stream_decoder(&s->xz, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK) {
            l2_source_close(s);
            return l2_fail(e, "%s: cannot start xz decompression", name);
        }
        s->xz_init = 1;
        s->xz.next_in = s->in;
        s->xz.avail_in = s->in_len;
    }
    *out = s;
    return 0;
}

void l2_source_close(struct l2_source *s)
{
    if (!s)
        return;
    if (s->own && s->f)
        fclose(s->f);
    if (s->z_init)
        inflateEnd(&s->z);
    ZSTD_freeDCtx(s->zd);
    if (s->xz_init)
        lzma_end(&s->xz);
    free(s->in);
    free(s->name);
    free(s);
}

double l2_source_fraction(const struct l2_source *s)
{
    if (!s->size)
        return -1;
    double f = (double)s->raw_read / (double)s->size;
    return f > 1 ? 1 : f;
}

static int64_t read_plain(struct l2_source *s, unsigned char *buf, size_t n, l2_err *e)
{
    size_t done = 0;
    while (done < n) {
        if (s->in_pos < s->in_len) {
            size_t k = s->in_len - s->in_pos;
            if (k > n - done)
                k = n - done;
            memcpy(buf + done, s->in + s->in_pos, k);
            s->in_pos += k;
            done += k;
        } else if (s->in_eof) {
            break;
        } else if (n - done >= DIRECT_MIN) {
            size_t want = n - done, got = fread(buf + done, 1, want, s->f);
            s->raw_read += got;
            done += got;
            if (got < want) {
                if (ferror(s->f))
                    return l2_fail(e, "%s: read error: %s", s->name, strerror(errno));
                s->in_eof = 1;
            }
        } else if (fill_in(s, e) < 0) {
            return -1;
        }
    }
    return (int64_t)done;
}

static int64_t read_gzip(struct l2_source *s, unsigned char *buf, size_t n, l2_err *e)
{
    z_stream *z = &s->z;
    size_t done = 0;
    while (done < n) {
        if (z->avail_in == 0) {
            if (!s->in_eof) {
                if (fill_in(s, e) < 0)
                    return -1;
                z->next_in = s->in;
                z->avail_in = (uInt)s->in_len;
            }
            if (z->avail_in == 0) {
                if (s->z_member_done)
                    break;
                return l2_fail(e, "%s: truncated gzip stream", s->name);
            }
        }
        if (s->z_member_done) { /* more input: the next gzip member */
            if (inflateReset(z) != Z_OK)
                return l2_fail(e, "%s: gzip error", s->name);
            s->z_member_done = 0;
        }
        size_t want = n - done;
        if (want > (1u << 30))
            want = 1u << 30;
        z->next_out = buf + done;
        z->avail_out = (uInt)want;
        int r = inflate(z, Z_NO_FLUSH);
        done += want - z->avail_out;
        if (r == Z_STREAM_END)
            s->z_member_done = 1;
        else if (r != Z_OK)
            return l2_fail(e, "%s: corrupt gzip stream: %s", s->name, z->msg ? z->msg : zError(r));
    }
    return (int64_t)done;
}

static int64_t read_zstd(struct l2_source *s, unsigned char *buf, size_t n, l2_err *e)
{
    ZSTD_outBuffer out = {buf, n, 0};
    ZSTD_inBuffer in = {s->in, s->in_len, s->in_pos};
    while (out.pos < out.size) {
        if (in.pos == in.size && !s->in_eof) {
            if (fill_in(s, e) < 0)
                return -1;
            in.src = s->in;
            in.size = s->in_len;
            in.pos = 0;
        }
        int at_end = in.pos == in.size && s->in_eof;
        if (at_end && s->zret == 0)
            break;
        size_t before = out.pos;
        size_t r = ZSTD_decompressStream(s->zd, &out, &in);
        if (ZSTD_isError(r))
            return l2_fail(e, "%s: corrupt zstd stream: %s", s->name, ZSTD_getErrorName(r));
        s->zret = r;
        if (at_end && out.pos == before && r != 0)
            return l2_fail(e, "%s: truncated zstd stream", s->name);
    }
    s->in_pos = in.pos;
    return (int64_t)out.pos;
}

static int64_t read_xz(struct l2_source *s, unsigned char *buf, size_t n, l2_err *e)
{
    lzma_stream *x = &s->xz;
    x->next_out = buf;
    x->avail_out = n;
    while (x->avail_out && !s->xz_done) {
        if (x->avail_in == 0 && !s->in_eof) {
            if (fill_in(s, e) < 0)
                return -1;
            x->next_in = s->in;
            x->avail_in = s->in_len;
        }
        lzma_ret r = lzma_code(x, x->avail_in == 0 && s->in_eof ? LZMA_FINISH : LZMA_RUN);
        if (r == LZMA_STREAM_END)
            s->xz_done = 1;
        else if (r == LZMA_BUF_ERROR)
            return l2_fail(e, "%s: truncated xz stream", s->name);
        else if (r != LZMA_OK)
            return l2_fail(e, "%s: corrupt xz stream (liblzma error %d)", s->name, (int)r);
    }
    return (int64_t)(n - x->avail_out);
}

int64_t l2_source_read(struct l2_source *s, void *buf, size_t n, l2_err *e)
{
    switch (s->comp) {
    case L2_COMP_XZ:
        return read_xz(s, buf, n, e);
    case L2_COMP_GZIP:
        return read_gzip(s, buf, n, e);
    case L2_COMP_ZSTD:
        return read_zstd(s, buf, n, e);
    default:
        return read_plain(s, buf, n, e);
    }
}

/* ---- sinks ---- */

struct l2_sink {
    FILE *f;
    int own;
    char *path, *name;
    char *tmp; /* the file written, renamed to path on success; NULL: path itself */
    enum l2_comp comp;
    unsigned char *out;
    z_stream z;
    int z_init;
    ZSTD_CCtx *zc;
};

int l2_sink_open(struct l2_sink **out, const char *path, enum l2_comp comp, l2_err *e)
{
    struct l2_sink *s = calloc(1, sizeof *s);
    *out = NULL;
    if (!s)
        return l2_fail(e, "out of memory");
    int std = strcmp(path, "-") == 0;
    if (comp == L2_COMP_XZ) {
        free(s);
        return l2_fail(e, "%s: xz output is not supported (gzip or zstd)", path);
    }
    s->comp = comp;
    s->name = strdup(std ? "<stdout>" : path);
    s->path = std ? NULL : strdup(path);
    s->out = comp != L2_COMP_NONE ? malloc(OUT_SIZE) : NULL;
    if (!s->name || (!std && !s->path) || (comp != L2_COMP_NONE && !s->out)) {
        l2_sink_abort(s);
        return l2_fail(e, "out of memory");
    }
    if (comp == L2_COMP_GZIP) {
        if (deflateInit2(&s->z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
            l2_sink_abort(s);
            return l2_fail(e, "cannot start gzip compression");
        }
        s->z_init = 1;
    } else if (comp == L2_COMP_ZSTD) {
        s->zc = ZSTD_createCCtx();
        if (!s->zc || ZSTD_isError(ZSTD_CCtx_setParameter(s->zc, ZSTD_c_compressionLevel, 3)) ||
            ZSTD_isError(ZSTD_CCtx_setParameter(s->zc, ZSTD_c_checksumFlag, 1))) {
            l2_sink_abort(s);
            return l2_fail(e, "cannot start zstd compression");
        }
    }
    if (std) {
        s->f = stdout;
    } else {
        /* A regular file (or a new one) is written beside it and renamed
         * over it on success, so a failed write leaves an existing file as
         * it was; anything else (a device, a pipe) is written directly. */
        struct stat st;
        int exists = stat(path, &st) == 0;
        if (exists && S_ISREG(st.st_mode)) { /* through symbolic links: the file they name is replaced */
            char *real = realpath(path, NULL);
            if (!real) {
                int err = errno;
                l2_sink_abort(s);
                return l2_fail(e, "%s: %s", path, strerror(err));
            }
            free(s->path);
            s->path = real;
        }
        if (!exists || S_ISREG(st.st_mode)) {
            size_t n = strlen(s->path) + sizeof ".tmpXXXXXX";
            int fd = -1;
            if ((s->tmp = malloc(n)) != NULL) {
                snprintf(s->tmp, n, "%s.tmpXXXXXX", s->path);
                fd = mkstemp(s->tmp);
            }
            if (fd < 0) {
                int err = errno;
                free(s->tmp);
                s->tmp = NULL;
                l2_sink_abort(s);
                return l2_fail(e, "%s: cannot create a file beside it: %s", path, strerror(err));
            }
            mode_t mask = umask(0);
            umask(mask);
            if (fchmod(fd, exists ? st.st_mode & 07777 : 0666 & ~mask) != 0 || !(s->f = fdopen(fd, "wb"))) {
                int err = errno;
                close(fd);
                remove(s->tmp);
                l2_sink_abort(s);
                return l2_fail(e, "%s: cannot create: %s", path, strerror(err));
            }
        } else if (!(s->f = fopen(path, "wb"))) {
            int err = errno;
            l2_sink_abort(s); /* not own: removes nothing */
            return l2_fail(e, "%s: cannot create: %s", path, strerror(err));
        }
        s->own = 1;
        setvbuf(s->f, NULL, _IOFBF, 1u << 20);
    }
    *out = s;
    return 0;
}

static int put(struct l2_sink *s, const void *buf, size_t n, l2_err *e)
{
    if (n && fwrite(buf, 1, n, s->f) != n)
        return l2_fail(e, "%s: write error: %s", s->name, strerror(errno));
    return 0;
}

/* Feeds n bytes (finish: end the stream) through the compressor. */
static int put_compressed(struct l2_sink *s, const void *buf, size_t n, int finish, l2_err *e)
{
    if (s->comp == L2_COMP_GZIP) {
        z_stream *z = &s->z;
        const unsigned char *p = buf;
        for (;;) {
            size_t chunk = n > (1u << 30) ? 1u << 30 : n;
            z->next_in = p;
            z->avail_in = (uInt)chunk;
            int last = finish && chunk == n;
            int r;
            do {
                z->next_out = s->out;
                z->avail_out = OUT_SIZE;
                r = deflate(z, last ? Z_FINISH : Z_NO_FLUSH);
                if (r == Z_STREAM_ERROR)
                    return l2_fail(e, "%s: gzip compression error", s->name);
                if (put(s, s->out, OUT_SIZE - z->avail_out, e) < 0)
                    return -1;
            } while (last ? r != Z_STREAM_END : z->avail_out == 0 || z->avail_in > 0);
            p += chunk;
            n -= chunk;
            if (n == 0)
                return 0;
        }
    }
    ZSTD_inBuffer in = {buf, n, 0};
    for (;;) {
        ZSTD_outBuffer o = {s->out, OUT_SIZE, 0};
        size_t r = ZSTD_compressStream2(s->zc, &o, &in, finish ? ZSTD_e_end : ZSTD_e_continue);
        if (ZSTD_isError(r))
            return l2_fail(e, "%s: zstd compression error: %s", s->name, ZSTD_getErrorName(r));
        if (put(s, s->out, o.pos, e) < 0)
            return -1;
        if (finish ? r == 0 : in.pos == in.size)
            return 0;
    }
}

int l2_sink_write(struct l2_sink *s, const void *buf, size_t n, l2_err *e)
{
    if (s->comp == L2_COMP_NONE)
        return put(s, buf, n, e);
    return put_compressed(s, buf, n, 0, e);
}

static void sink_free(struct l2_sink *s)
{
    if (s->z_init)
        deflateEnd(&s->z);
    ZSTD_freeCCtx(s->zc);
    free(s->out);
    free(s->path);
    free(s->name);
    free(s->tmp);
    free(s);
}

int l2_sink_close(struct l2_sink *s, l2_err *e)
{
    int r = 0;
    if (s->comp != L2_COMP_NONE)
        r = put_compressed(s, "", 0, 1, e);
    if (s->own) {
        if (fclose(s->f) != 0 && r == 0)
            r = l2_fail(e, "%s: write error: %s", s->name, strerror(errno));
    } else if (fflush(s->f) != 0 || ferror(s->f)) {
        if (r == 0)
            r = l2_fail(e, "%s: write error: %s", s->name, strerror(errno));
    }
    if (r == 0 && s->tmp && rename(s->tmp, s->path) != 0)
        r = l2_fail(e, "%s: cannot replace it: %s", s->name, strerror(errno));
    if (r < 0 && s->tmp)
        remove(s->tmp);
    sink_free(s);
    return r;
}

void l2_sink_abort(struct l2_sink *s)
{
    if (!s)
        return;
    if (s->own && s->f) {
        fclose(s->f);
        if (s->tmp)
            remove(s->tmp);
    }
    sink_free(s);
}

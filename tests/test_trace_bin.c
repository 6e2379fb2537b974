/*
 * test_trace_bin.c - the binary trace format and compressed traces:
 * text -> binary -> events round trips for every kind of record, byte-
 * identical re-encoding, truncation and corruption caught before a damaged
 * record is handed out, bad magic and versions, gzip and zstd input, and
 * `l2sim convert` / reading from a pipe through the command line ($L2SIM).
 */
#include "tests.h"

#include <stdint.h>
#include <zlib.h>
#include <lzma.h>
#include <zstd.h>

#include "source.h"
#include "symtab.h"
#include "trace.h"

#define BLOCK 65536u /* records per block, as the writer makes them */

/* Every kind of record and tag; sm up to the largest the text accepts. */
static const char EVERY[] =
    "# every record kind\n"
    "setaside 4MiB\n"
    "policy hot interleaved persisting 0.5 streaming api=ptx\n"
    "policy cu interleaved evict_last 0.25\n"
    "policy tbl range 0x7e0000000000 1MiB 2MiB persisting streaming api=ptx\n"
    "policy raw descriptor 0x1d80030000000000\n"
    "policy rawp descriptor 0x1d80030000000000 api=ptx\n"
    "window 0x1000 8KiB 0.75 persisting normal stream=2\n"
    "window 0x2000 4096 0 streaming streaming\n"
    "window off stream=2\n"
    "window off\n"
    "R 0x100 32\n"
    "kernel k1 stream=2\n"
    "R 0x7e0000000000 4096 hot sm=0\n"
    "W 0x2000 32\n"
    "P 0x3000 128 evict_last sm=131\n"
    "P 0x3000 128 evict_normal\n"
    "A 0x3000 4096\n"
    "D 0x4000 128 global\n"
    "R 0x5000 1 evict_first sm=2147483647\n"
    "R 0xffffffffffffe000 4096 tbl\n"
    "R 0x10 32 evict_normal\n"
    "R 0x10 32 evict_unchanged\n"
    "R 0x10 32 no_allocate\n"
    "R 0x10 32 streaming\n"
    "R 0x10 32 persisting\n"
    "R 0x10 32 normal\n"
    "R 0x10 32 raw sm=5\n"
    "R 0x10 32 rawp\n"
    "W 0x10 32 cu sm=131\n"
    "policy hot interleaved evict_normal 1.0\n"
    "R 0x20 64 hot sm=7\n"
    "reset\n"
    "setaside 0\n"
    "kernel k2\n"
    "kernel k1 stream=2\n"
    "kernel evict_first stream=2147483647\n"
    "R 0x40 32\n";

/* A trace the simulator accepts (sm below 132), for report comparisons. */
static const char EVERY_SIM[] = "setaside 4MiB\n"
                                "policy hot interleaved persisting 0.5 streaming api=ptx\n"
                                "policy cu interleaved evict_last 0.25\n"
                                "policy tbl range 0x7e0000000000 1MiB 2MiB persisting streaming api=ptx\n"
                                "policy raw descriptor 0x1d80030000000000\n"
                                "window 0x1000 8KiB 0.75 persisting normal stream=2\n"
                                "R 0x100 32\n"
                                "kernel k1 stream=2\n"
                                "R 0x7e0000000000 4096 hot sm=0\n"
                                "W 0x2000 32\n"
                                "P 0x3000 128 evict_last sm=131\n"
                                "A 0x3000 4096\n"
                                "D 0x4000 128 global\n"
                                "R 0x1000 512 sm=3\n"
                                "R 0x7e0000100000 512 tbl sm=9\n"
                                "R 0x10 32 raw sm=5\n"
                                "W 0x10 32 cu sm=131\n"
                                "window off stream=2\n"
                                "reset\n"
                                "kernel k2\n"
                                "R 0x1000 512 sm=3\n"
                                "R 0x7e0000000000 4096 persisting sm=1\n";

/* New temp files (paths of 64 bytes): empty, and holding `text`. */
static void tmp_path(char *p)
{
    tests_write_temp(p, 64, "");
}

static void write_text_file(char *path, const char *text)
{
    tests_write_temp(path, 64, text);
}

static void write_file(const char *path, const void *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(b, 1, n, f), n);
    ck_assert_int_eq(fclose(f), 0);
}

/* Both files read to the same events (each into a fresh symbol table),
 * compared as they are read. */
static void assert_same_events(const char *p1, const char *p2)
{
    struct l2_symtab s1, s2;
    struct l2_trace *t1, *t2;
    struct l2_event a, b;
    l2_err e;
    ck_assert_int_eq(l2_symtab_init(&s1, &e), 0);
    ck_assert_int_eq(l2_symtab_init(&s2, &e), 0);
    ck_assert_msg(l2_trace_open(&t1, p1, &s1, &e) == 0, "%s", e.msg);
    ck_assert_msg(l2_trace_open(&t2, p2, &s2, &e) == 0, "%s", e.msg);
    size_t n = 0;
    for (;; n++) {
        int r1 = l2_trace_next(t1, &a, &e);
        if (r1 < 0)
            ck_abort_msg("%s", e.msg);
        int r2 = l2_trace_next(t2, &b, &e);
        if (r2 < 0)
            ck_abort_msg("%s", e.msg);
        if (r1 != r2)
            ck_abort_msg("%s and %s: different event counts", p1, p2);
        if (r1 == 0)
            break;
        const char *d = tests_event_diff(&a, &b, &s1, &s2);
        if (d)
            ck_abort_msg("%s and %s: event %zu: %s differ", p1, p2, n + 1, d);
    }
    l2_trace_close(t1);
    l2_trace_close(t2);
    l2_symtab_free(&s1);
    l2_symtab_free(&s2);
}

/* A text trace of n accesses with directives between them, spanning
 * several binary blocks when n > 65536. */
static char *big_text(unsigned n)
{
    size_t cap = (size_t)n * 48 + 4096, len = 0;
    char *t = malloc(cap);
    ck_assert_ptr_nonnull(t);
    static const char *const tags[] = {"", " evict_last", " p0", " streaming", " p1", " global"};
    len += (size_t)snprintf(t + len, cap - len, "policy p0 interleaved persisting 0.5 streaming api=ptx\n"
                                                "policy p1 range 0x10000 64KiB 128KiB evict_last\n");
    for (unsigned i = 0; i < n; i++) {
        if (i % 40000 == 0)
            len += (size_t)snprintf(t + len, cap - len, "kernel k%u stream=%u\nsetaside %uKiB\n", i / 40000 % 3,
                                    i % 2, i / 1000);
        if (i % 70001 == 7)
            len += (size_t)snprintf(t + len, cap - len,
                                    "policy p0 interleaved evict_last 0.125\nwindow 0x%x 4KiB 0.5 persisting "
                                    "streaming\n",
                                    i * 64);
        len += (size_t)snprintf(t + len, cap - len, "%c 0x%x %u%s sm=%u\n", "RWRRA"[i % 5], i * 64, 32 + i % 8 * 64,
                                tags[i % 6], i % 132);
    }
    return t;
}

START_TEST(roundtrip_every_kind)
{
    char tp[64], bp[64];
    write_text_file(tp, EVERY);
    tmp_path(bp);
    tests_to_binary(tp, bp, L2_COMP_NONE);
    assert_same_events(tp, bp);
    /* positions are record numbers */
    struct l2_event *v;
    size_t n;
    l2_err e;
    ck_assert_int_eq(tests_read_events(bp, &v, &n, &e), 0);
    for (size_t i = 0; i < n; i++)
        if (v[i].pos != i + 1)
            ck_abort_msg("event %zu: pos %llu", i, (unsigned long long)v[i].pos);
    ck_assert_uint_eq(n, 37);
    free(v);
    unlink(tp);
    unlink(bp);
}
END_TEST

START_TEST(roundtrip_several_blocks)
{
    char tp[64], bp[64];
    char *text = big_text(3 * BLOCK + 1234);
    write_text_file(tp, text);
    free(text);
    tmp_path(bp);
    tests_to_binary(tp, bp, L2_COMP_NONE);
    assert_same_events(tp, bp);
    unlink(tp);
    unlink(bp);
}
END_TEST

START_TEST(reencode_identical)
{
    const char *texts[2] = {EVERY, NULL};
    char *big = big_text(BLOCK + 99);
    texts[1] = big;
    for (int k = 0; k < 2; k++) {
        char tp[64], b1[64], t2[64], b2[64];
        write_text_file(tp, texts[k]);
        tmp_path(b1);
        tmp_path(t2);
        tmp_path(b2);
        tests_to_binary(tp, b1, L2_COMP_NONE);
        tests_to_text(b1, t2);
        tests_to_binary(t2, b2, L2_COMP_NONE);
        size_t n1, n2;
        char *x = tests_slurp_file(b1, &n1), *y = tests_slurp_file(b2, &n2);
        ck_assert_uint_eq(n1, n2);
        ck_assert_msg(memcmp(x, y, n1) == 0, "re-encoded binary differs");
        free(x);
        free(y);
        assert_same_events(t2, b1);
        unlink(tp);
        unlink(b1);
        unlink(t2);
        unlink(b2);
    }
    free(big);
}
END_TEST

START_TEST(empty_trace)
{
    const char *texts[2] = {"", "# nothing but a comment\n\n"};
    for (int k = 0; k < 2; k++) {
        char tp[64], bp[64];
        write_text_file(tp, texts[k]);
        tmp_path(bp);
        tests_to_binary(tp, bp, L2_COMP_NONE);
        size_t n;
        l2_err e;
        ck_assert_msg(tests_read_events(bp, NULL, &n, &e) == 0, "%s", e.msg);
        ck_assert_uint_eq(n, 0);
        unlink(tp);
        unlink(bp);
    }
}
END_TEST

/* Header size of a binary file of m records in blocks of BLOCK. */
static size_t header_size(size_t file_size, uint64_t m)
{
    uint64_t blocks = (m + BLOCK - 1) / BLOCK;
    return file_size - (size_t)(m * 16 + blocks * 4);
}

/* Reads path expecting an error containing `what` after `good` events. */
static void expect_fail(const char *path, size_t good, const char *what)
{
    l2_err e;
    size_t n;
    int r = tests_read_events(path, NULL, &n, &e);
    ck_assert_msg(r == -1, "%s: expected an error containing '%s'", path, what);
    ck_assert_msg(n == good, "%s: %zu events before the error, expected %zu (%s)", path, n, good, e.msg);
    char where[80];
    snprintf(where, sizeof where, "%s:", path);
    ck_assert_msg(strncmp(e.msg, where, strlen(where)) == 0, "message '%s' does not name %s", e.msg, path);
    ASSERT_CONTAINS(e.msg, what);
}

/* A binary trace of m accesses (big_text) converted from a text file, and
 * a spare path for damaged copies: its bytes, header size and records. */
struct damaged {
    char tp[64], bp[64], cp[64];
    char *b;
    size_t size, h;
    uint64_t total;
};

static void damaged_open(struct damaged *d, unsigned m)
{
    char *text = big_text(m);
    write_text_file(d->tp, text);
    free(text);
    tmp_path(d->bp);
    tmp_path(d->cp);
    tests_to_binary(d->tp, d->bp, L2_COMP_NONE);
    l2_err e;
    size_t n;
    ck_assert_int_eq(tests_read_events(d->bp, NULL, &n, &e), 0);
    d->total = n;
    d->b = tests_slurp_file(d->bp, &d->size);
    d->h = header_size(d->size, d->total);
}

static void damaged_close(struct damaged *d)
{
    free(d->b);
    unlink(d->tp);
    unlink(d->bp);
    unlink(d->cp);
}

START_TEST(truncated)
{
    struct damaged d; /* 2 x BLOCK + 500 accesses; the records are counted */
    damaged_open(&d, 2 * BLOCK + 500);
    const char *cp = d.cp;
    char *b = d.b;
    const size_t size = d.size, h = d.h, bs = BLOCK * 16 + 4;
    const uint64_t total = d.total;
    const size_t cuts[] = {4, 7, 8, 20, 44, h - 1, h, h + 16 * 100 + 5, h + bs - 2, h + bs, h + bs + 16 * 7 + 3,
                           h + 2 * bs + 16, size - 1};
    for (size_t k = 0; k < L2_ARRAY_LEN(cuts); k++) {
        size_t cut = cuts[k];
        write_file(cp, b, cut);
        if (cut < h) {
            expect_fail(cp, 0, "truncated header");
            continue;
        }
        size_t pos = cut - h, full = pos / bs, rem = pos % bs;
        uint64_t in_block = total - full * BLOCK < BLOCK ? total - full * BLOCK : BLOCK;
        uint64_t have = full * BLOCK + (rem / 16 < in_block ? rem / 16 : in_block);
        char msg[96];
        snprintf(msg, sizeof msg, ": truncated after %llu of %llu records", (unsigned long long)have,
                 (unsigned long long)total);
        expect_fail(cp, full * BLOCK, msg);
    }
    /* data after the end */
    unsigned char *longer = malloc(size + 3);
    memcpy(longer, b, size);
    memcpy(longer + size, "R 0", 3);
    write_file(cp, longer, size + 3);
    expect_fail(cp, (size_t)total, "data after the last");
    free(longer);
    damaged_close(&d);
}
END_TEST

START_TEST(checksum)
{
    struct damaged d;
    damaged_open(&d, 2 * BLOCK + 10);
    const char *cp = d.cp;
    char *b = d.b;
    const size_t size = d.size, h = d.h, bs = BLOCK * 16 + 4;
    struct {
        size_t at;
        size_t good;
        const char *what;
    } flips[] = {
        {h + bs + 16 * 5 + 3, BLOCK, "checksum mismatch in records 65537..131072"}, /* an address byte */
        {h + bs + 16 * 9, BLOCK, "checksum mismatch"},                              /* a record type */
        {h + 3, 0, "checksum mismatch in records 1..65536"},
        {h + bs - 1, 0, "checksum mismatch"},     /* a block's checksum */
        {size - 2, 2 * BLOCK, "checksum mismatch"}, /* the last block's */
        {h - 2, 0, "checksum mismatch in the header"},
        {h - 8, 0, "checksum mismatch in the header"}, /* a kernel name */
        {17, 0, "checksum mismatch in the header"},    /* the record count */
    };
    for (size_t k = 0; k < L2_ARRAY_LEN(flips); k++) {
        b[flips[k].at] ^= 0x5a;
        write_file(cp, b, size);
        expect_fail(cp, flips[k].good, flips[k].what);
        b[flips[k].at] ^= 0x5a;
    }
    damaged_close(&d);
}
END_TEST

START_TEST(bad_magic_and_version)
{
    char tp[64], bp[64], cp[64];
    write_text_file(tp, EVERY);
    tmp_path(bp);
    tmp_path(cp);
    tests_to_binary(tp, bp, L2_COMP_NONE);
    size_t size;
    char *b = tests_slurp_file(bp, &size);
    b[7] = 'X';
    write_file(cp, b, size);
    expect_fail(cp, 0, "bad magic");
    b[7] = 'B';
    b[8] = 3; /* version */
    write_file(cp, b, size);
    expect_fail(cp, 0, "unsupported binary trace version 3 (this l2sim reads versions 1 to 2)");
    b[8] = 1;
    b[12] = 1; /* flags */
    write_file(cp, b, size);
    expect_fail(cp, 0, "unsupported binary trace flags 0x1");
    b[12] = 0;
    write_file(cp, "\x7f" "ELF\x02\x01\x01\x00\x00\x00", 10);
    expect_fail(cp, 0, "bad magic");
    write_file(cp, b, size);
    assert_same_events(tp, cp);
    free(b);
    unlink(tp);
    unlink(bp);
    unlink(cp);
}
END_TEST

/* Rewrites the checksum of a one-block file after a record was edited. */
static void fix_crc(unsigned char *b, size_t size, uint64_t total)
{
    size_t h = header_size(size, total);
    uint32_t hc = (uint32_t)b[h - 4] | (uint32_t)b[h - 3] << 8 | (uint32_t)b[h - 2] << 16 | (uint32_t)b[h - 1] << 24;
    uint32_t c = (uint32_t)crc32(hc, b + h, (uInt)(total * 16));
    for (int i = 0; i < 4; i++)
        b[size - 4 + (size_t)i] = (unsigned char)(c >> (8 * i));
}

START_TEST(bad_records_with_valid_checksum)
{
    char tp[64], bp[64], cp[64];
    write_text_file(tp, EVERY);
    tmp_path(bp);
    tmp_path(cp);
    tests_to_binary(tp, bp, L2_COMP_NONE);
    size_t size;
    char *b = tests_slurp_file(bp, &size);
    const uint64_t total = 37;
    size_t h = header_size(size, total);
    unsigned char *c = malloc(size);
    struct {
        unsigned rec; /* 0-based */
        unsigned char bytes[16];
        const char *what;
    } cases[] = {
        {0, {15}, "unknown record type 15"},
        {3, {0, 0, 0x0f, 0x27}, "tag index 9999 is not in the header"},
        {0, {0, 0, 9, 0}, "unknown tag or policy 'hot'"},              /* before its definition */
        {0, {2, 0, 0, 0}, "prefetch needs the tag evict_last or evict_normal"},
        {0, {0, 0, 0, 0, 1, 0, 0, 0x80}, "sm 2147483648 is too large"},
        {0, {0, 0xf0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, "overflows"},
        {0, {13, 0, 0, 0, 0, 0, 0, 0, 9}, "label index 9 is not in the header"},
        {0, {8, 0, 3, 0}, "not a policy name"},
        {0, {12, 1}, "reserved bits"},
    };
    for (size_t k = 0; k < L2_ARRAY_LEN(cases); k++) {
        memcpy(c, b, size);
        memcpy(c + h + cases[k].rec * 16, cases[k].bytes, 16);
        fix_crc(c, size, total);
        write_file(cp, c, size);
        char where[96];
        snprintf(where, sizeof where, "%s:record %u: ", cp, cases[k].rec + 1);
        expect_fail(cp, cases[k].rec, where);
        expect_fail(cp, cases[k].rec, cases[k].what);
    }
    /* and an unedited copy with a recomputed checksum still reads */
    memcpy(c, b, size);
    fix_crc(c, size, total);
    write_file(cp, c, size);
    assert_same_events(tp, cp);
    free(c);
    free(b);
    unlink(tp);
    unlink(bp);
    unlink(cp);
}
END_TEST

/* The version 2 records (alloc, free, event, sync) explain what is wrong
 * with them, as the others do. */
START_TEST(bad_v2_records_with_valid_checksum)
{
    char tp[64], bp[64], cp[64];
    write_text_file(tp, "alloc a 0x1000 64\nkernel k grid=2\nevent record e stream=1\nsync\nfree a\nR 0x1000 32\n");
    tmp_path(bp);
    tmp_path(cp);
    tests_to_binary(tp, bp, L2_COMP_NONE);
    size_t size;
    char *b = tests_slurp_file(bp, &size);
    ck_assert_int_eq(b[8], 2);
    const uint64_t total = 6;
    size_t h = header_size(size, total);
    unsigned char *c = malloc(size);
    struct {
        unsigned rec; /* 0-based */
        unsigned char bytes[16];
        const char *what;
    } cases[] = {
        {0, {14, 0, 0, 0, 0, 0, 0, 0, 5}, "allocation index 5 is not in the header"},
        {0, {14, 1}, "reserved bits"},
        {2, {15 | 32, 0, 0, 0, 1}, "reserved bits"},
        {2, {15, 0, 0, 0, 1, 0, 0, 0, 9}, "label index 9 is not in the header"},
        {3, {7, 0, 0, 0, 0, 0, 0, 0, 1}, "reserved bits"},
        {4, {6, 0, 0, 0, 0, 0, 0, 0, 7}, "label index 7 is not in the header"},
    };
    for (size_t k = 0; k < L2_ARRAY_LEN(cases); k++) {
        memcpy(c, b, size);
        memcpy(c + h + cases[k].rec * 16, cases[k].bytes, 16);
        fix_crc(c, size, total);
        write_file(cp, c, size);
        expect_fail(cp, cases[k].rec, cases[k].what);
    }
    /* a wait instead of the record: bit 4 of an event record */
    memcpy(c, b, size);
    c[h + 2 * 16] |= 16;
    fix_crc(c, size, total);
    write_file(cp, c, size);
    struct l2_event *ev;
    size_t n;
    l2_err e;
    ck_assert_msg(tests_read_events(cp, &ev, &n, &e) == 0, "%s", e.msg);
    ck_assert_int_eq(ev[2].type, EV_EVENT_WAIT);
    ck_assert_uint_eq(ev[2].stream, 1);
    free(ev);
    free(c);
    free(b);
    unlink(tp);
    unlink(bp);
    unlink(cp);
}
END_TEST

static void gzip_file(const char *in, const char *out, int members)
{
    size_t n;
    char *b = tests_slurp_file(in, &n);
    FILE *f = fopen(out, "wb");
    ck_assert_ptr_nonnull(f);
    fclose(f);
    size_t half = members == 2 ? n / 2 : n;
    gzFile g = gzopen(out, "wb");
    ck_assert_ptr_nonnull(g);
    ck_assert_int_eq(gzwrite(g, b, (unsigned)half), (int)half);
    ck_assert_int_eq(gzclose(g), Z_OK);
    if (members == 2) { /* a second member, appended (as `cat a.gz b.gz`) */
        g = gzopen(out, "ab");
        ck_assert_ptr_nonnull(g);
        ck_assert_int_eq(gzwrite(g, b + half, (unsigned)(n - half)), (int)(n - half));
        ck_assert_int_eq(gzclose(g), Z_OK);
    }
    free(b);
}

static void zstd_file(const char *in, const char *out)
{
    size_t n;
    char *b = tests_slurp_file(in, &n);
    size_t cap = ZSTD_compressBound(n);
    unsigned char *z = malloc(cap);
    ZSTD_CCtx *c = ZSTD_createCCtx();
    ck_assert_ptr_nonnull(c);
    ck_assert(!ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1)));
    size_t zn = ZSTD_compress2(c, z, cap, b, n);
    ck_assert(!ZSTD_isError(zn));
    ZSTD_freeCCtx(c);
    write_file(out, z, zn);
    free(z);
    free(b);
}

/* xz (liblzma's one-shot encoder); `streams` 2 writes the file as two
 * concatenated xz streams of its halves, as `cat a.xz b.xz` would. */
static void xz_file(const char *in, const char *out, int streams)
{
    size_t n;
    char *b = tests_slurp_file(in, &n);
    size_t cap = lzma_stream_buffer_bound(n) + 64, zn = 0;
    unsigned char *z = malloc(cap);
    size_t half = streams == 2 ? n / 2 : n;
    ck_assert_int_eq(lzma_easy_buffer_encode(1, LZMA_CHECK_CRC64, NULL, (const uint8_t *)b, half, z, &zn, cap),
                     LZMA_OK);
    if (streams == 2)
        ck_assert_int_eq(lzma_easy_buffer_encode(1, LZMA_CHECK_CRC64, NULL, (const uint8_t *)b + half, n - half, z,
                                                 &zn, cap),
                         LZMA_OK);
    write_file(out, z, zn);
    free(z);
    free(b);
}

START_TEST(compressed_inputs)
{
    char *big = big_text(BLOCK + 5000);
    const char *texts[2] = {EVERY, big};
    for (int k = 0; k < 2; k++) {
        char tp[64], bp[64], cp[64];
        write_text_file(tp, texts[k]);
        tmp_path(bp);
        tmp_path(cp);
        tests_to_binary(tp, bp, L2_COMP_NONE);
        const char *plain[2] = {tp, bp};
        for (int p = 0; p < 2; p++) {
            gzip_file(plain[p], cp, 1);
            assert_same_events(plain[p], cp);
            gzip_file(plain[p], cp, 2);
            assert_same_events(plain[p], cp);
            zstd_file(plain[p], cp);
            assert_same_events(plain[p], cp);
            xz_file(plain[p], cp, 1);
            assert_same_events(plain[p], cp);
            xz_file(plain[p], cp, 2);
            assert_same_events(plain[p], cp);
        }
        /* the writer's own compression */
        tests_to_binary(tp, cp, L2_COMP_GZIP);
        assert_same_events(tp, cp);
        tests_to_binary(tp, cp, L2_COMP_ZSTD);
        assert_same_events(tp, cp);
        unlink(tp);
        unlink(bp);
        unlink(cp);
    }
    free(big);
}
END_TEST

START_TEST(compressed_truncated)
{
    char tp[64], cp[64];
    char *big = big_text(20000);
    write_text_file(tp, big);
    free(big);
    tmp_path(cp);
    static const char *const what[3] = {"truncated gzip stream", "truncated zstd stream", "truncated xz stream"};
    for (int z = 0; z < 3; z++) {
        if (z == 2)
            xz_file(tp, cp, 1);
        else if (z)
            zstd_file(tp, cp);
        else
            gzip_file(tp, cp, 1);
        size_t n;
        char *b = tests_slurp_file(cp, &n);
        write_file(cp, b, n / 2);
        size_t got;
        l2_err e;
        ck_assert_int_eq(tests_read_events(cp, NULL, &got, &e), -1);
        ASSERT_CONTAINS(e.msg, cp);
        ASSERT_CONTAINS(e.msg, what[z]);
        b[n / 2] ^= 0xff; /* corrupt in the middle */
        write_file(cp, b, n);
        ck_assert_int_eq(tests_read_events(cp, NULL, &got, &e), -1);
        ASSERT_CONTAINS(e.msg, "corrupt");
        free(b);
    }
    unlink(tp);
    unlink(cp);
}
END_TEST

START_TEST(writer_errors)
{
    struct l2_symtab syms;
    struct l2_bin_writer *w;
    l2_err e;
    ck_assert_int_eq(l2_symtab_init(&syms, &e), 0);
    int64_t id = l2_sym_intern(&syms, "undefined", 9);
    ck_assert_int_ge(id, 9);
    ck_assert_int_eq(l2_bin_writer_open(&w, &syms, &e), 0);
    struct l2_event ev;
    memset(&ev, 0, sizeof ev);
    ev.type = EV_ACCESS;
    ev.size = 32;
    ev.sm = -1;
    ck_assert_int_eq(l2_bin_writer_add(w, &ev, &e), 0);
    ev.tag = (uint32_t)id;
    ck_assert_int_eq(l2_bin_writer_add(w, &ev, &e), -1);
    ASSERT_CONTAINS(e.msg, "record 2: tag 'undefined' is used before its policy is defined");
    ev.tag = L2_TAG_GLOBAL;
    ev.size = 0;
    ck_assert_int_eq(l2_bin_writer_add(w, &ev, &e), -1);
    ASSERT_CONTAINS(e.msg, "size 0");
    memset(&ev, 0, sizeof ev);
    ev.type = EV_KERNEL;
    strcpy(ev.label, "two words");
    ck_assert_int_eq(l2_bin_writer_add(w, &ev, &e), -1);
    ASSERT_CONTAINS(e.msg, "name 'two words' cannot be written");
    l2_bin_writer_free(w);
    l2_symtab_free(&syms);
}
END_TEST

/* ---- the command line ---- */

/* The report without its "trace: NAME: ..." line (which names the file). */
static char *report_body(const char *cmd)
{
    char *out, *err;
    int rc = tests_sh(cmd, &out, &err);
    ck_assert_msg(rc == 0, "%s: exit %d: %s", cmd, rc, err);
    ck_assert_str_eq(err, "");
    char *t = strstr(out, "\ntrace: ");
    ck_assert_ptr_nonnull(t);
    char *nl = strchr(t + 1, '\n');
    memmove(t, nl, strlen(nl) + 1);
    free(err);
    return out;
}

START_TEST(cli_convert_and_pipes)
{
    char tp[64], b1[64], t2[64], b2[64], gz[64], zs[64], cmd[1024];
    char *out, *err;
    write_text_file(tp, EVERY_SIM);
    tmp_path(b1);
    tmp_path(t2);
    tmp_path(b2);
    tmp_path(gz);
    tmp_path(zs);
    snprintf(cmd, sizeof cmd, "%s convert %s %s && %s convert %s %s && %s convert %s %s", tests_l2sim(), tp, b1,
             tests_l2sim(), b1, t2, tests_l2sim(), t2, b2);
    ck_assert_int_eq(tests_sh(cmd, &out, &err), 0);
    ck_assert_str_eq(out, "");
    ck_assert_str_eq(err, "");
    free(out);
    free(err);
    size_t n1, n2;
    char *x = tests_slurp_file(b1, &n1), *y = tests_slurp_file(b2, &n2);
    ck_assert(n1 == n2 && memcmp(x, y, n1) == 0);
    ck_assert(n1 > 8 && memcmp(x, "L2SIMTRB", 8) == 0);
    free(x);
    free(y);
    snprintf(cmd, sizeof cmd, "%s convert --compress gzip --to text %s %s && %s convert --compress zstd %s %s",
             tests_l2sim(), b1, gz, tests_l2sim(), tp, zs);
    ck_assert_int_eq(tests_sh(cmd, &out, &err), 0);
    free(out);
    free(err);

    /* the same report from every form, from files and from pipes */
    snprintf(cmd, sizeof cmd, "%s run --config configs/h100.cfg %s", tests_l2sim(), tp);
    char *ref = report_body(cmd);
    const char *files[] = {b1, t2, b2, gz, zs};
    for (size_t k = 0; k < L2_ARRAY_LEN(files); k++) {
        for (int pipe = 0; pipe < 2; pipe++) {
            if (pipe)
                snprintf(cmd, sizeof cmd, "cat %s | %s run --config configs/h100.cfg -", files[k], tests_l2sim());
            else
                snprintf(cmd, sizeof cmd, "%s run --config configs/h100.cfg %s", tests_l2sim(), files[k]);
            char *body = report_body(cmd);
            ck_assert_msg(strcmp(body, ref) == 0, "%s: report differs", cmd);
            free(body);
        }
    }
    free(ref);

    /* convert through pipes: - in, - out */
    snprintf(cmd, sizeof cmd, "cat %s | %s convert --to binary - - | %s convert - -", b1, tests_l2sim(), tests_l2sim());
    ck_assert_int_eq(tests_sh(cmd, &out, &err), 0);
    char *t2text = tests_slurp_file(t2, NULL);
    ck_assert_str_eq(out, t2text);
    free(t2text);
    free(out);
    free(err);
    unlink(tp);
    unlink(b1);
    unlink(t2);
    unlink(b2);
    unlink(gz);
    unlink(zs);
}
END_TEST

START_TEST(cli_errors_print_no_report)
{
    char tp[64], bp[64], cmd[1024];
    char *out, *err;
    char *big = big_text(BLOCK + 20000);
    write_text_file(tp, big);
    free(big);
    tmp_path(bp);
    snprintf(cmd, sizeof cmd, "%s convert %s %s", tests_l2sim(), tp, bp);
    ck_assert_int_eq(tests_sh(cmd, &out, &err), 0);
    free(out);
    free(err);
    /* truncated in its second block: the first was simulated, but nothing is reported */
    snprintf(cmd, sizeof cmd, "head -c 1100000 %s > %s.cut && %s run %s.cut", bp, bp, tests_l2sim(), bp);
    ck_assert_int_eq(tests_sh(cmd, &out, &err), 2);
    ck_assert_str_eq(out, "");
    ASSERT_CONTAINS(err, ".cut: truncated after ");
    free(out);
    free(err);
    snprintf(cmd, sizeof cmd, "cat %s.cut | %s compare --variant name=a --variant name=b,set=setaside=0 -", bp,
             tests_l2sim());
    ck_assert_int_eq(tests_sh(cmd, &out, &err), 2);
    ck_assert_str_eq(out, "");
    ASSERT_CONTAINS(err, "<stdin>: truncated after ");
    free(out);
    free(err);
    snprintf(cmd, sizeof cmd, "%s convert %s.cut %s.txt", tests_l2sim(), bp, bp);
    ck_assert_int_eq(tests_sh(cmd, &out, &err), 2);
    ASSERT_CONTAINS(err, "truncated after ");
    free(out);
    free(err);
    snprintf(cmd, sizeof cmd, "test ! -e %s.txt", bp); /* no partial output left behind */
    ck_assert_int_eq(system(cmd), 0);
    /* an error the simulator finds names the record */
    snprintf(cmd, sizeof cmd, "%s run --set sms=16 %s", tests_l2sim(), bp);
    ck_assert_int_eq(tests_sh(cmd, &out, &err), 2);
    ck_assert_str_eq(out, "");
    char where[96];
    snprintf(where, sizeof where, "%s:record ", bp);
    ASSERT_CONTAINS(err, where);
    free(out);
    free(err);
    /* usage errors */
    snprintf(cmd, sizeof cmd, "%s convert --to json %s %s.x", tests_l2sim(), tp, bp);
    ck_assert_int_eq(tests_sh(cmd, &out, &err), 2);
    ASSERT_CONTAINS(err, "--to must be text or binary");
    free(out);
    free(err);
    snprintf(cmd, sizeof cmd, "%s convert %s %s", tests_l2sim(), tp, tp);
    ck_assert_int_eq(tests_sh(cmd, &out, &err), 2);
    ASSERT_CONTAINS(err, "same file");
    free(out);
    free(err);
    snprintf(cmd, sizeof cmd, "%s convert /tmp/l2sim-test-does-not-exist %s.x", tests_l2sim(), bp);
    ck_assert_int_eq(tests_sh(cmd, &out, &err), 2);
    ASSERT_CONTAINS(err, "/tmp/l2sim-test-does-not-exist: cannot open");
    free(out);
    free(err);
    /* a conversion that fails leaves an existing OUT as it was, and no
     * file beside it; one that succeeds replaces it, keeping its mode */
    snprintf(cmd, sizeof cmd,
             "echo keep > %s.x && chmod 640 %s.x && printf 'R 0 32\\nbogus\\n' | %s convert - %s.x; "
             "echo rc=$?; cat %s.x; ls %s.x* | wc -l",
             bp, bp, tests_l2sim(), bp, bp, bp);
    ck_assert_int_eq(tests_sh(cmd, &out, &err), 0);
    ck_assert_str_eq(out, "rc=2\nkeep\n1\n");
    ASSERT_CONTAINS(err, "<stdin>:2: unknown directive");
    free(out);
    free(err);
    snprintf(cmd, sizeof cmd, "%s convert %s %s.x && stat -c %%a %s.x && %s run %s.x > /dev/null", tests_l2sim(), tp,
             bp, bp, tests_l2sim(), bp);
    ck_assert_int_eq(tests_sh(cmd, &out, &err), 0);
    ck_assert_str_eq(out, "640\n");
    free(out);
    free(err);
    /* OUT a symbolic link: the file it names is replaced, the link stays */
    snprintf(cmd, sizeof cmd,
             "rm -f %s.x %s.l && echo keep > %s.x && ln -s %s.x %s.l && %s convert %s %s.l && test -L %s.l && "
             "%s run %s.x > /dev/null && echo ok",
             bp, bp, bp, bp, bp, tests_l2sim(), tp, bp, bp, tests_l2sim(), bp);
    ck_assert_int_eq(tests_sh(cmd, &out, &err), 0);
    ck_assert_str_eq(out, "ok\n");
    free(out);
    free(err);
    snprintf(cmd, sizeof cmd, "rm -f %s.cut %s.x %s.l", bp, bp, bp);
    ck_assert_int_eq(system(cmd), 0);
    unlink(tp);
    unlink(bp);
}
END_TEST

Suite *trace_bin_suite(void)
{
    Suite *s = suite_create("trace_bin");
    TCase *tc = tcase_create("format");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, roundtrip_every_kind);
    tcase_add_test(tc, roundtrip_several_blocks);
    tcase_add_test(tc, reencode_identical);
    tcase_add_test(tc, empty_trace);
    tcase_add_test(tc, truncated);
    tcase_add_test(tc, checksum);
    tcase_add_test(tc, bad_magic_and_version);
    tcase_add_test(tc, bad_records_with_valid_checksum);
    tcase_add_test(tc, bad_v2_records_with_valid_checksum);
    tcase_add_test(tc, compressed_inputs);
    tcase_add_test(tc, compressed_truncated);
    tcase_add_test(tc, writer_errors);
    suite_add_tcase(s, tc);
    tc = tcase_create("cli");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, cli_convert_and_pipes);
    tcase_add_test(tc, cli_errors_print_no_report);
    suite_add_tcase(s, tc);
    return s;
}

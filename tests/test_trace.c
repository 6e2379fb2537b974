/*
 * test_trace.c - the text trace reader: every format error names
 * FILE:LINE: and a reason; comments, blank lines, number forms and
 * directives parse to the right events.
 */
#include "tests.h"

#include "symtab.h"
#include "trace.h"

/* Reads `text` as a trace to its end or its first error.  Returns the
 * last l2_trace_next result (0 or -1); `nev` counts the events read,
 * `evs` (if not NULL) receives up to `max` of them, e->msg the error, and
 * path the temp file name (already unlinked). */
static int read_trace(const char *text, struct l2_event *evs, int max, int *nev, l2_err *e, char *path,
                      struct l2_symtab *syms)
{
    struct l2_trace *t = NULL;
    tests_write_temp(path, 64, text);
    e->msg[0] = 0;
    ck_assert_int_eq(l2_trace_open(&t, path, syms, e), 0);
    struct l2_event ev;
    int r, n = 0;
    while ((r = l2_trace_next(t, &ev, e)) == 1) {
        if (evs && n < max)
            evs[n] = ev;
        n++;
    }
    l2_trace_close(t);
    unlink(path);
    *nev = n;
    return r;
}

/* The trace must fail at line `line` with a message naming the file and
 * line and containing `reason`; `good` events come before. */
static void expect_error(const char *text, int good, unsigned line, const char *reason)
{
    struct l2_symtab syms;
    l2_err e;
    char path[64], where[128];
    int n;
    ck_assert_int_eq(l2_symtab_init(&syms, &e), 0);
    int r = read_trace(text, NULL, 0, &n, &e, path, &syms);
    l2_symtab_free(&syms);
    ck_assert_msg(r == -1, "trace \"%.60s\": expected an error, got rc %d", text, r);
    ck_assert_int_eq(n, good);
    snprintf(where, sizeof where, "%s:%u: ", path, line);
    ck_assert_msg(strncmp(e.msg, where, strlen(where)) == 0, "message '%s' does not start with '%s'", e.msg, where);
    ASSERT_CONTAINS(e.msg, reason);
}

/* Reads a trace that must be valid; returns the number of events. */
static int read_ok(const char *text, struct l2_event *evs, int max, struct l2_symtab *syms)
{
    l2_err e;
    char path[64];
    int n;
    int r = read_trace(text, evs, max, &n, &e, path, syms);
    ck_assert_msg(r == 0, "unexpected error: %s", e.msg);
    return n;
}

START_TEST(err_bad_op)
{
    expect_error("R 0 32\nX 0x100 32\n", 1, 2, "unknown directive 'X'");
    expect_error("RW 0x100 32\n", 0, 1, "unknown directive 'RW'");
    expect_error("r 0x100 32\n", 0, 1, "unknown directive 'r'");
}
END_TEST

START_TEST(err_missing_size)
{
    expect_error("\n\nR 0x100\n", 0, 3, "access needs OP ADDR SIZE");
    expect_error("W\n", 0, 1, "access needs OP ADDR SIZE");
}
END_TEST

START_TEST(err_size_range)
{
    expect_error("R 0x100 0\n", 0, 1, "size 0 is outside 1..4096");
    expect_error("R 0x100 4097\n", 0, 1, "size 4097 is outside 1..4096");
    expect_error("R 0x100 32x\n", 0, 1, "size");
    /* 4096 itself is fine */
    struct l2_symtab syms;
    struct l2_event ev[1];
    l2_err e;
    ck_assert_int_eq(l2_symtab_init(&syms, &e), 0);
    ck_assert_int_eq(read_ok("R 0x100 4096\n", ev, 1, &syms), 1);
    ck_assert_uint_eq(ev[0].size, 4096);
    l2_symtab_free(&syms);
}
END_TEST

/* A NUL byte where the operation goes is no operation (strchr once took it
 * for the end of "RWPAD" and made an access of operation 5): an error at
 * its line, as every NUL byte. */
START_TEST(err_nul_op)
{
    static const char text[] = "R 0x100 4\n\0 0x200 4\n";
    char path[] = "/tmp/l2sim-test-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
    close(fd);
    struct l2_symtab syms;
    struct l2_trace *t = NULL;
    struct l2_event ev;
    l2_err e;
    ck_assert_int_eq(l2_symtab_init(&syms, &e), 0);
    ck_assert_int_eq(l2_trace_open(&t, path, &syms, &e), 0);
    ck_assert_int_eq(l2_trace_next(t, &ev, &e), 1);
    ck_assert_int_eq(l2_trace_next(t, &ev, &e), -1);
    ASSERT_CONTAINS(e.msg, ":2: column 1: byte 0x00 is not text");
    l2_trace_close(t);
    l2_symtab_free(&syms);
    unlink(path);
}
END_TEST

START_TEST(err_address)
{
    expect_error("R zz 32\n", 0, 1, "address: 'zz' is not a number");
    expect_error("R 0x 32\n", 0, 1, "address");
    expect_error("R -5 32\n", 0, 1, "address");
    expect_error("R 12abc 32\n", 0, 1, "is not a number");
}
END_TEST

START_TEST(err_overflow)
{
    expect_error("R 18446744073709551616 32\n", 0, 1, "too large");
    expect_error("R 0x10000000000000000 32\n", 0, 1, "too large");
    expect_error("R 0xffffffffffffffff 32\n", 0, 1, "overflows the address space");
    expect_error("setaside 99999999999999999999\n", 0, 1, "too large");
    expect_error("setaside 17179869184GiB\n", 0, 1, "too large");
}
END_TEST

START_TEST(err_unknown_tag)
{
    expect_error("R 0 32 evict_last\nR 0 32 hotdata\n", 1, 2, "unknown tag or policy 'hotdata'");
}
END_TEST

/* Bytes that are not text: a NUL anywhere, control bytes and invalid
 * UTF-8 outside comments are errors at their line and column, so names
 * print as they are in messages and JSON; UTF-8 names are fine. */
START_TEST(err_not_text)
{
    ck_assert_uint_eq(l2_text_bad_at("k\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\t\r", 12), 12);
    ck_assert_uint_eq(l2_text_bad_at("ab\x01", 3), 2);
    ck_assert_uint_eq(l2_text_bad_at("a\x7f", 2), 1);
    ck_assert_uint_eq(l2_text_bad_at("a\xff", 2), 1);          /* never a UTF-8 byte */
    ck_assert_uint_eq(l2_text_bad_at("a\xc0\xaf", 3), 1);     /* overlong '/' */
    ck_assert_uint_eq(l2_text_bad_at("a\xed\xa0\x80", 4), 1); /* a surrogate */
    ck_assert_uint_eq(l2_text_bad_at("a\xe2\x82", 3), 1);     /* cut short */
    ck_assert_uint_eq(l2_text_bad_at("a\xc3(", 3), 1);         /* bad continuation */
    expect_error("R 0 32\nkernel \xff\xfe\n", 1, 2, "column 8: byte 0xff is not text");
    expect_error("kernel k\x1b[1m\n", 0, 1, "column 9: byte 0x1b");
    int n;
    struct l2_symtab syms;
    l2_err e;
    char path[64];
    ck_assert_int_eq(l2_symtab_init(&syms, &e), 0);
    ck_assert_int_eq(read_trace("kernel caf\xc3\xa9\nR 0 32 # \xff comment\n", NULL, 0, &n, &e, path, &syms), 0);
    ck_assert_int_eq(n, 2);
    l2_symtab_free(&syms);
    /* through the program: NUL bytes (which C strings cannot hold here),
     * and JSON of a UTF-8 name parses */
    char *out;
    ck_assert_int_eq(tests_cli("run - < /dev/null; printf '#c\\npolicy \\0x interleaved persisting 0.5\\nR 0 32\\n' | "
                               "$L2SIM run - 2>&1", &out), 2);
    ASSERT_CONTAINS(out, "<stdin>:2: column 8: byte 0x00 is not text");
    free(out);
    ck_assert_int_eq(tests_cli("run - < /dev/null; printf 'kernel caf\\303\\251\\nR 0 32\\n' | $L2SIM run --json - | "
                               "python3 -c 'import json,sys; print(json.load(sys.stdin)[\"kernels\"][0][\"name\"])'",
                               &out), 0);
    ASSERT_CONTAINS(out, "caf\xc3\xa9");
    free(out);
}
END_TEST

/* An access names its SM once (the second sm= used to win silently). */
START_TEST(err_sm_twice)
{
    expect_error("R 0 32 sm=1 sm=2\n", 0, 1, "more than one sm= on an access");
    expect_error("R 0 32\nW 0x80 32 evict_last sm=3 @5 sm=3\n", 1, 2, "more than one sm=");
}
END_TEST

START_TEST(err_tag_shared)
{
    expect_error("R 0 32 shared\n", 0, 1, "'shared' is a memory-space property");
    expect_error("policy shared interleaved evict_last 1.0\n", 0, 1, "cannot name a policy");
}
END_TEST

START_TEST(err_policy_before_definition)
{
    expect_error("R 0 32 hot\npolicy hot interleaved evict_last 0.5\nR 0 32 hot\n", 0, 1,
                 "unknown tag or policy 'hot'");
    /* after its definition the same tag is fine */
    struct l2_symtab syms;
    struct l2_event ev[2];
    l2_err e;
    ck_assert_int_eq(l2_symtab_init(&syms, &e), 0);
    ck_assert_int_eq(read_ok("policy hot interleaved evict_last 0.5\nR 0 32 hot\n", ev, 2, &syms), 2);
    ck_assert_int_eq(ev[0].type, EV_POLICY);
    ck_assert_int_eq(ev[1].type, EV_ACCESS);
    ck_assert_uint_eq(ev[1].tag, ev[0].name);
    ck_assert_str_eq(l2_sym_name(&syms, ev[1].tag), "hot");
    l2_symtab_free(&syms);
}
END_TEST

START_TEST(err_bad_policy_kind)
{
    expect_error("policy p fractional evict_last 0.5\n", 0, 1, "unknown policy kind 'fractional'");
    expect_error("policy p\n", 0, 1, "usage: policy NAME");
    expect_error("policy evict_last interleaved evict_last 0.5\n", 0, 1, "is a built-in tag");
    expect_error("policy p interleaved evict_last\n", 0, 1, "usage: policy NAME interleaved");
    expect_error("policy p descriptor 0x0800000000000000\n", 0, 1, "reserved mode 1");
    expect_error("policy p interleaved evict_last 0.5 api=cuda\n", 0, 1, "api must be libcu or ptx");
    expect_error("policy p interleaved no_allocate 0.5\n", 0, 1, "no_allocate cannot be");
}
END_TEST

START_TEST(err_probability)
{
    expect_error("policy p interleaved evict_last 0\n", 0, 1, "probability 0 is outside (0, 1]");
    expect_error("policy p interleaved evict_last 1.5 evict_first\n", 0, 1, "probability 1.5 is outside (0, 1]");
    expect_error("policy p interleaved evict_last -0.5\n", 0, 1, "outside (0, 1]");
    expect_error("policy p interleaved evict_last half\n", 0, 1, "'half' is not a number");
}
END_TEST

START_TEST(err_range_bounds)
{
    expect_error("policy p range 0x1000 2MiB 1MiB evict_last\n", 0, 1, "0 < leading <= total <= 4 GiB");
    expect_error("policy p range 0x1000 1MiB 5GiB evict_last evict_first\n", 0, 1, "0 < leading <= total <= 4 GiB");
    expect_error("policy p range 0x1000 0 1MiB evict_last\n", 0, 1, "0 < leading <= total <= 4 GiB");
    expect_error("policy p range 0xffffffffffff0000 64KiB 1MiB evict_last\n", 0, 1, "overflows");
    /* exactly 4 GiB is allowed */
    struct l2_symtab syms;
    struct l2_event ev[1];
    l2_err e;
    ck_assert_int_eq(l2_symtab_init(&syms, &e), 0);
    ck_assert_int_eq(read_ok("policy p range 0 4GiB 4GiB evict_last\n", ev, 1, &syms), 1);
    ck_assert_uint_eq(ev[0].pol.total, 4ULL << 30);
    l2_symtab_free(&syms);
}
END_TEST

START_TEST(err_secondary)
{
    expect_error("policy p interleaved evict_first 0.5 evict_last\n", 0, 1, "secondary priority must be");
    expect_error("policy p range 0 1MiB 2MiB evict_last evict_normal\n", 0, 1, "secondary priority must be");
}
END_TEST

START_TEST(err_window)
{
    expect_error("window 0 1MiB 0.5 persisting persisting\n", 0, 1, "missProp must be normal or streaming");
    expect_error("window 0 1MiB 1.5 persisting streaming\n", 0, 1, "hitRatio 1.5 is outside [0, 1]");
    expect_error("window 0 0 0.5 persisting streaming\n", 0, 1, "window size is 0");
    expect_error("window 0 1MiB 0.5 global streaming\n", 0, 1, "hitProp");
    expect_error("window 0 1MiB 0.5 persisting\n", 0, 1, "usage: window");
}
END_TEST

START_TEST(err_prefetch_tag)
{
    expect_error("P 0 128\n", 0, 1, "prefetch needs the tag evict_last or evict_normal");
    expect_error("P 0 128 evict_first\n", 0, 1, "prefetch needs the tag");
    expect_error("P 0 128 evict_unchanged\n", 0, 1, "prefetch needs the tag");
    expect_error("policy p interleaved evict_last 1.0\nP 0 128 p\n", 1, 2, "prefetch needs the tag");
    struct l2_symtab syms;
    struct l2_event ev[3];
    l2_err e;
    ck_assert_int_eq(l2_symtab_init(&syms, &e), 0);
    ck_assert_int_eq(read_ok("P 0 128 evict_last\nP 0 128 persisting\nP 0x80 128 normal sm=3\n", ev, 3, &syms), 3);
    ck_assert_int_eq(ev[0].op, OP_PREFETCH);
    ck_assert_int_eq(l2_builtin_prio(ev[1].tag), PRIO_EVICT_LAST);
    ck_assert_int_eq(l2_builtin_prio(ev[2].tag), PRIO_EVICT_NORMAL);
    ck_assert_int_eq(ev[2].sm, 3);
    l2_symtab_free(&syms);
}
END_TEST

START_TEST(err_bad_sm)
{
    expect_error("R 0 32 sm=x\n", 0, 1, "sm");
    expect_error("R 0 32 evict_last sm=-1\n", 0, 1, "not a number");
    expect_error("R 0 32 sm=4294967296\n", 0, 1, "too large");
    expect_error("R 0 32 sm=3000000000\n", 0, 1, "sm 3000000000 is too large");
}
END_TEST

START_TEST(err_bad_stream)
{
    expect_error("kernel k stream=abc\n", 0, 1, "stream");
    expect_error("window off stream=1x\n", 0, 1, "stream");
    expect_error("window 0 1MiB 0.5 persisting streaming stream=-2\n", 0, 1, "not a number");
}
END_TEST

START_TEST(err_unknown_directive)
{
    expect_error("# header\nkernel k\nflush all\n", 1, 3, "unknown directive 'flush'");
    expect_error("Kernel k\n", 0, 1, "unknown directive 'Kernel'");
}
END_TEST

START_TEST(err_kernel_name)
{
    expect_error("kernel\n", 0, 1, "usage: kernel NAME");
    expect_error("kernel stream=1\n", 0, 1, "kernel 'stream=1': a name cannot begin with stream=");
    /* a name the binary writer could not write back as text (it would read as a stream) */
    expect_error("kernel stream=5 stream=3\n", 0, 1, "cannot begin with stream=");
    expect_error("kernel a b\n", 0, 1, "usage: kernel NAME");
    char buf[300];
    memset(buf, 0, sizeof buf);
    memcpy(buf, "kernel ", 7);
    memset(buf + 7, 'k', 200);
    buf[207] = '\n';
    expect_error(buf, 0, 1, "kernel name longer than");
}
END_TEST

START_TEST(err_trailing_junk)
{
    expect_error("R 0 32 evict_last junk\n", 0, 1, "unexpected 'junk'");
    expect_error("R 0 32 sm=1 evict_last\n", 0, 1, "unexpected 'evict_last'");
    expect_error("reset now\n", 0, 1, "usage: reset");
    expect_error("setaside 1MiB 2MiB\n", 0, 1, "usage: setaside");
    expect_error("policy p descriptor 0x1400000000000000 extra\n", 0, 1, "usage: policy NAME descriptor");
    expect_error("window 0 1MiB 0.5 persisting streaming extra\n", 0, 1, "usage: window");
    expect_error("R 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17\n", 0, 1, "too many words");
}
END_TEST

START_TEST(comments_and_blanks)
{
    struct l2_symtab syms;
    struct l2_event ev[4];
    l2_err e;
    ck_assert_int_eq(l2_symtab_init(&syms, &e), 0);
    int n = read_ok("# a comment line\n\n   \t \n#R 0 32\nR 0x40 32 # trailing comment\n  \r\nW 64 16#c\nreset", ev, 4,
                    &syms);
    ck_assert_int_eq(n, 3);
    ck_assert_int_eq(ev[0].type, EV_ACCESS);
    ck_assert_int_eq(ev[0].op, OP_READ);
    ck_assert_uint_eq(ev[0].addr, 0x40);
    ck_assert_uint_eq(ev[0].size, 32);
    ck_assert_uint_eq(ev[0].pos, 5);
    ck_assert_uint_eq(ev[0].tag, L2_TAG_GLOBAL);
    ck_assert_int_eq(ev[0].sm, -1);
    ck_assert_int_eq(ev[1].op, OP_WRITE);
    ck_assert_uint_eq(ev[1].addr, 64);
    ck_assert_uint_eq(ev[1].size, 16);
    ck_assert_uint_eq(ev[1].pos, 7);
    ck_assert_int_eq(ev[2].type, EV_RESET); /* last line without a newline */
    ck_assert_uint_eq(ev[2].pos, 8);
    l2_symtab_free(&syms);
}
END_TEST

START_TEST(numbers_in_directives)
{
    struct l2_symtab syms;
    struct l2_event ev[8];
    l2_err e;
    ck_assert_int_eq(l2_symtab_init(&syms, &e), 0);
    int n = read_ok("setaside 3276800\n"
                    "setaside 0x320000\n"
                    "setaside 3KiB\n"
                    "setaside 2MiB\n"
                    "window 0x7e0100000000 64KiB 0.5 persisting streaming stream=7\n"
                    "policy r range 4096 24MiB 96MiB evict_last evict_first api=ptx\n"
                    "window off stream=0x10\n"
                    "kernel k1 stream=3\n",
                    ev, 8, &syms);
    ck_assert_int_eq(n, 8);
    ck_assert_int_eq(ev[0].type, EV_SETASIDE);
    ck_assert_uint_eq(ev[0].bytes, 3276800);
    ck_assert_uint_eq(ev[1].bytes, 0x320000);
    ck_assert_uint_eq(ev[2].bytes, 3072);
    ck_assert_uint_eq(ev[3].bytes, 2u << 20);
    ck_assert_int_eq(ev[4].type, EV_WINDOW);
    ck_assert_uint_eq(ev[4].win.base, 0x7e0100000000ULL);
    ck_assert_uint_eq(ev[4].win.bytes, 65536);
    ck_assert(ev[4].win.hit_ratio == 0.5);
    ck_assert_int_eq(ev[4].win.hit_prop, PRIO_EVICT_LAST);
    ck_assert_int_eq(ev[4].win.miss_prop, PRIO_EVICT_FIRST);
    ck_assert_uint_eq(ev[4].stream, 7);
    ck_assert_int_eq(ev[5].type, EV_POLICY);
    ck_assert_int_eq(ev[5].pol.kind, POL_RANGE);
    ck_assert_uint_eq(ev[5].pol.base, 4096);
    ck_assert_uint_eq(ev[5].pol.leading, 24u << 20);
    ck_assert_uint_eq(ev[5].pol.total, 96u << 20);
    ck_assert_int_eq(ev[5].pol.primary, PRIO_EVICT_LAST);
    ck_assert_int_eq(ev[5].pol.secondary, PRIO_EVICT_FIRST);
    ck_assert_int_eq(ev[5].pol.api, API_PTX);
    ck_assert_int_eq(ev[6].type, EV_WINDOW_OFF);
    ck_assert_uint_eq(ev[6].stream, 16);
    ck_assert_int_eq(ev[7].type, EV_KERNEL);
    ck_assert_str_eq(ev[7].label, "k1");
    ck_assert_uint_eq(ev[7].stream, 3);
    l2_symtab_free(&syms);
}
END_TEST

START_TEST(access_fields)
{
    struct l2_symtab syms;
    struct l2_event ev[5];
    l2_err e;
    ck_assert_int_eq(l2_symtab_init(&syms, &e), 0);
    int n = read_ok("R 0x1000 128 streaming sm=131\n"
                    "W 4096 4 persisting\n"
                    "A 0x2000 128 evict_normal\n"
                    "D 0x2000 256\n"
                    "R 0x1000 8 streaming\n",
                    ev, 5, &syms);
    ck_assert_int_eq(n, 5);
    ck_assert_int_eq(ev[0].op, OP_READ);
    ck_assert_uint_eq(ev[0].addr, 0x1000);
    ck_assert_str_eq(l2_sym_name(&syms, ev[0].tag), "streaming");
    ck_assert_int_eq(l2_builtin_prio(ev[0].tag), PRIO_EVICT_FIRST);
    ck_assert_int_eq(ev[0].sm, 131);
    ck_assert_int_eq(ev[1].op, OP_WRITE);
    ck_assert_int_eq(l2_builtin_prio(ev[1].tag), PRIO_EVICT_LAST);
    ck_assert_int_eq(ev[2].op, OP_APPLY);
    ck_assert_int_eq(ev[3].op, OP_DISCARD);
    ck_assert_uint_eq(ev[3].tag, L2_TAG_GLOBAL);
    ck_assert_uint_eq(ev[4].tag, ev[0].tag); /* the cached tag path gives the same id */
    ck_assert_int_eq(ev[4].sm, -1);
    l2_symtab_free(&syms);
}
END_TEST

START_TEST(access_spanning_two_lines)
{
    /* 0x70..0x8f crosses the 128-byte line boundary at 0x80: the reader
     * keeps it as one access with its own address and size. */
    struct l2_symtab syms;
    struct l2_event ev[2];
    l2_err e;
    ck_assert_int_eq(l2_symtab_init(&syms, &e), 0);
    ck_assert_int_eq(read_ok("R 0x70 32\nW 0xff0 4096 evict_first\n", ev, 2, &syms), 2);
    ck_assert_uint_eq(ev[0].addr, 0x70);
    ck_assert_uint_eq(ev[0].size, 32);
    ck_assert_uint_eq(ev[1].addr, 0xff0);
    ck_assert_uint_eq(ev[1].size, 4096);
    l2_symtab_free(&syms);
}
END_TEST

START_TEST(write_text_roundtrip)
{
    /* Events written back as text read back to the same events. */
    const char *text = "policy hot interleaved evict_last 0.25 evict_first api=ptx\n"
                       "window 0x1000 8KiB 0.75 persisting normal stream=2\n"
                       "kernel k stream=2\n"
                       "R 0x1000 128 hot sm=5\n"
                       "W 0x2000 32\n"
                       "setaside 3276800\n"
                       "reset\n";
    struct l2_symtab syms;
    struct l2_event ev[7], ev2[7];
    l2_err e;
    ck_assert_int_eq(l2_symtab_init(&syms, &e), 0);
    ck_assert_int_eq(read_ok(text, ev, 7, &syms), 7);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    for (int i = 0; i < 7; i++)
        ck_assert_int_eq(l2_event_write_text(f, &ev[i], &syms), 0);
    fclose(f);
    struct l2_symtab syms2;
    ck_assert_int_eq(l2_symtab_init(&syms2, &e), 0);
    ck_assert_int_eq(read_ok(buf, ev2, 7, &syms2), 7);
    for (int i = 0; i < 7; i++) {
        ck_assert_int_eq(ev2[i].type, ev[i].type);
        ck_assert_uint_eq(ev2[i].addr, ev[i].addr);
        ck_assert_uint_eq(ev2[i].size, ev[i].size);
        ck_assert_int_eq(ev2[i].sm, ev[i].sm);
        ck_assert_uint_eq(ev2[i].stream, ev[i].stream);
        ck_assert_uint_eq(ev2[i].bytes, ev[i].bytes);
        const char *d = tests_event_diff(&ev2[i], &ev[i], &syms2, &syms);
        ck_assert_msg(!d, "event %d: %s differ", i, d ? d : "");
    }
    ck_assert(ev2[0].pol.fraction == 0.25);
    ck_assert_int_eq(ev2[0].pol.api, API_PTX);
    ck_assert_int_eq(ev2[0].pol.secondary, PRIO_EVICT_FIRST);
    ck_assert(ev2[1].win.hit_ratio == 0.75);
    ck_assert_int_eq(ev2[1].win.miss_prop, PRIO_EVICT_NORMAL);
    ck_assert_str_eq(l2_sym_name(&syms2, ev2[3].tag), "hot");
    free(buf);
    l2_symtab_free(&syms);
    l2_symtab_free(&syms2);
}
END_TEST

START_TEST(open_missing_file)
{
    struct l2_symtab syms;
    struct l2_trace *t = NULL;
    l2_err e;
    ck_assert_int_eq(l2_symtab_init(&syms, &e), 0);
    ck_assert_int_eq(l2_trace_open(&t, "/tmp/l2sim-test-does-not-exist/trace", &syms, &e), -1);
    ASSERT_CONTAINS(e.msg, "/tmp/l2sim-test-does-not-exist/trace: cannot open");
    l2_symtab_free(&syms);
}
END_TEST

START_TEST(crlf_lines)
{
    struct l2_symtab syms;
    struct l2_event ev[3];
    l2_err e;
    ck_assert_int_eq(l2_symtab_init(&syms, &e), 0);
    ck_assert_int_eq(read_ok("kernel k1\r\nR 0x40 32 evict_last\r\nsetaside 1MiB\r\n", ev, 3, &syms), 3);
    ck_assert_str_eq(ev[0].label, "k1");
    ck_assert_int_eq(l2_builtin_prio(ev[1].tag), PRIO_EVICT_LAST);
    ck_assert_uint_eq(ev[2].bytes, 1u << 20);
    l2_symtab_free(&syms);
    expect_error("R 0 32\r\nR 0 0\r\n", 1, 2, "size 0");
}
END_TEST

START_TEST(large_trace_buffer_refills)
{
    /* ~1.8 MB: lines straddle the reader's 1 MiB buffer refills */
    const unsigned N = 120000;
    size_t cap = (size_t)N * 24 + 1, len = 0;
    char *text = malloc(cap);
    for (unsigned i = 0; i < N; i++)
        len += (size_t)snprintf(text + len, cap - len, "R 0x%x 32\n", i * 32);
    char path[64];
    tests_write_temp(path, sizeof path, text);
    free(text);
    struct l2_symtab syms;
    struct l2_trace *t;
    struct l2_event ev;
    l2_err e;
    ck_assert_int_eq(l2_symtab_init(&syms, &e), 0);
    ck_assert_int_eq(l2_trace_open(&t, path, &syms, &e), 0);
    unsigned n = 0;
    int r;
    while ((r = l2_trace_next(t, &ev, &e)) == 1) {
        ck_assert_uint_eq(ev.addr, (uint64_t)n * 32);
        ck_assert_uint_eq(ev.pos, n + 1);
        ck_assert_uint_eq(ev.size, 32);
        n++;
    }
    ck_assert_msg(r == 0, "%s", e.msg);
    ck_assert_uint_eq(n, N);
    l2_trace_close(t);
    l2_symtab_free(&syms);
    unlink(path);
}
END_TEST

/* A line longer than the reader's 65536-byte limit must be rejected
 * wherever it lies in the file.  (The limit was once enforced only
 * when the line straddled a buffer refill.) */
START_TEST(long_line_rejected_anywhere)
{
    const size_t LONG = 70000;
    const size_t at[2] = {0, (1u << 20) - 68000}; /* file offset of the long line */
    for (int k = 0; k < 2; k++) {
        size_t cap = at[k] + LONG + 64, len = 0;
        char *text = malloc(cap);
        unsigned lines = 0, events = 0;
        while (len + 7 <= at[k]) {
            memcpy(text + len, "R 0 32\n", 7);
            len += 7;
            lines++;
            events++;
        }
        if (len < at[k]) { /* pad with one comment line */
            memset(text + len, '#', at[k] - len - 1);
            text[at[k] - 1] = '\n';
            len = at[k];
            lines++;
        }
        memcpy(text + len, "R 0 32 # ", 9);
        len += 9;
        memset(text + len, 'x', LONG);
        len += LONG;
        text[len++] = '\n';
        memcpy(text + len, "R 0 32\n", 8);
        expect_error(text, (int)events, lines + 1, "line longer than 65536 bytes");
        free(text);
    }
}
END_TEST

Suite *trace_suite(void)
{
    Suite *s = suite_create("trace");
    TCase *tc = tcase_create("errors");
    tcase_add_test(tc, err_bad_op);
    tcase_add_test(tc, err_missing_size);
    tcase_add_test(tc, err_size_range);
    tcase_add_test(tc, err_nul_op);
    tcase_add_test(tc, err_address);
    tcase_add_test(tc, err_overflow);
    tcase_add_test(tc, err_unknown_tag);
    tcase_add_test(tc, err_tag_shared);
    tcase_add_test(tc, err_not_text);
    tcase_add_test(tc, err_sm_twice);
    tcase_add_test(tc, err_policy_before_definition);
    tcase_add_test(tc, err_bad_policy_kind);
    tcase_add_test(tc, err_probability);
    tcase_add_test(tc, err_range_bounds);
    tcase_add_test(tc, err_secondary);
    tcase_add_test(tc, err_window);
    tcase_add_test(tc, err_prefetch_tag);
    tcase_add_test(tc, err_bad_sm);
    tcase_add_test(tc, err_bad_stream);
    tcase_add_test(tc, err_unknown_directive);
    tcase_add_test(tc, err_kernel_name);
    tcase_add_test(tc, err_trailing_junk);
    tcase_add_test(tc, open_missing_file);
    suite_add_tcase(s, tc);
    tc = tcase_create("parse");
    tcase_add_test(tc, comments_and_blanks);
    tcase_add_test(tc, numbers_in_directives);
    tcase_add_test(tc, access_fields);
    tcase_add_test(tc, access_spanning_two_lines);
    tcase_add_test(tc, write_text_roundtrip);
    tcase_add_test(tc, crlf_lines);
    tcase_add_test(tc, large_trace_buffer_refills);
    tcase_add_test(tc, long_line_rejected_anywhere);
    suite_add_tcase(s, tc);
    return s;
}

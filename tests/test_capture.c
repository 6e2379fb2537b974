/*
 * test_capture.c - the capture state of l2trace (tools/l2trace/capture.c),
 * without a GPU: the trace lines that allocations, launches, filters,
 * limits, L2 controls and warp records produce, labels, option parsing,
 * and a round trip of a capture through the binary writer.
 */
#include "../tools/l2trace/capture.h"
#include "tests.h"

/* Collects the events as text lines. */
struct sink {
    struct l2_symtab syms;
    char text[1 << 16];
    size_t len;
    struct l2_bin_writer *w; /* also written here when not NULL */
    int fail_at;             /* fail the emit of this record (1-based); 0: never */
    int n;
};

static int collect(void *ctx, const struct l2_event *ev, l2_err *e)
{
    struct sink *s = ctx;
    if (++s->n == s->fail_at)
        return l2_fail(e, "disk full");
    size_t k = l2_event_format_text(s->text + s->len, sizeof s->text - s->len, ev, &s->syms);
    ck_assert_uint_lt(s->len + k, sizeof s->text);
    s->len += k;
    if (s->w && l2_bin_writer_add(s->w, ev, e) < 0)
        return -1;
    return 0;
}

static void start(struct l2t_capture *c, struct sink *s, const struct l2t_options *o)
{
    l2_err e;
    memset(s, 0, sizeof *s);
    ck_assert_int_eq(l2_symtab_init(&s->syms, &e), 0);
    struct l2t_options d;
    l2t_options_default(&d);
    ck_assert_msg(l2t_init(c, o ? o : &d, collect, s, &e) == 0, "%s", e.msg);
    l2t_default_stream(c, 0x1000);
}

static void finish(struct l2t_capture *c, struct sink *s)
{
    l2t_free(c);
    l2_symtab_free(&s->syms);
}

static const uint32_t G[3] = {4, 2, 1}, B[3] = {128, 1, 1};

static void launch(struct l2t_capture *c, const char *name, uint64_t stream, int want)
{
    l2_err e;
    int cap = -1;
    ck_assert_msg(l2t_on_launch(c, name, stream, G, B, NULL, &cap, &e) == 0, "%s", e.msg);
    ck_assert_int_eq(cap, want);
}

static void warp(struct l2t_capture *c, uint64_t base, uint64_t stride, uint32_t size, uint32_t mask, uint32_t flags,
                 int sm)
{
    struct l2t_warp w;
    l2_err e;
    for (int i = 0; i < 32; i++)
        w.addr[i] = base + (uint64_t)i * stride;
    w.mask = mask;
    w.size = size;
    w.flags = flags;
    w.sm = sm;
    ck_assert_msg(l2t_on_warp(c, &w, &e) == 0, "%s", e.msg);
}

START_TEST(allocations_named_and_freed)
{
    struct l2t_capture c;
    static struct sink s;
    l2_err e;
    start(&c, &s, NULL);
    ck_assert_int_eq(l2t_on_alloc(&c, 0x7f0000000000, 1 << 20, NULL, &e), 0);
    ck_assert_int_eq(l2t_on_alloc(&c, 0x7f0000200000, 4096, "weights x", &e), 0);
    ck_assert_int_eq(l2t_on_alloc(&c, 0x7f0000300000, 4096, "weights x", &e), 0); /* live name: made unique */
    ck_assert_int_eq(l2t_on_free(&c, 0x7f0000000000, &e), 0);
    ck_assert_int_eq(l2t_on_free(&c, 0x1234, &e), 0); /* unknown: ignored */
    ck_assert_int_eq(l2t_on_alloc(&c, 0x7f0000000000, 512, NULL, &e), 0);
    ck_assert_int_eq(l2t_on_alloc(&c, 0x7f0000400000, 0, NULL, &e), 0); /* empty: not written */
    /* a pool's backing allocation, then an allocation carved from it */
    ck_assert_int_eq(l2t_on_alloc(&c, 0x7f1000000000, 1 << 21, NULL, &e), 0);
    ck_assert_int_eq(l2t_on_alloc(&c, 0x7f1000001000, 256, NULL, &e), 0);
    ck_assert_str_eq(s.text, "alloc buf0 0x7f0000000000 1048576\n"
                             "alloc weightsx 0x7f0000200000 4096\n"
                             "alloc weightsx.2 0x7f0000300000 4096\n"
                             "free buf0\n"
                             "alloc buf3 0x7f0000000000 512\n"
                             "alloc buf5 0x7f1000000000 2097152\n"
                             "free buf5\n"
                             "alloc buf6 0x7f1000001000 256\n");
    ck_assert_uint_eq(c.unknown_frees, 1);
    ck_assert_uint_eq(c.replaced, 1);
    finish(&c, &s);
}
END_TEST

START_TEST(launches_with_dims_streams_and_sm)
{
    struct l2t_capture c;
    static struct sink s;
    start(&c, &s, NULL);
    launch(&c, "void sweep<float4>(float4 const*, float4*, int)", 0x1000, 1);
    warp(&c, 0x7f0000000000, 16, 16, 0xffffffffu, L2T_F_READ, 7);
    warp(&c, 0x7f0000000000, 4, 4, 0x0000ffffu, L2T_F_WRITE, 131);
    warp(&c, 0x7f0000000100, 8, 4, 0x3u, L2T_F_READ | L2T_F_WRITE, 0); /* atomic: a write */
    ck_assert_int_eq(l2t_on_launch_end(&c, NULL), 0);
    launch(&c, "k2", 0x2000, 1); /* a new stream: 1 */
    warp(&c, 0x7f0000000010, 0, 4, 1u, L2T_F_PREFETCH, -1);
    warp(&c, 0x7f0000000090, 0, 4, 1u, L2T_F_L1_PREFETCH, 3);
    ck_assert_int_eq(l2t_on_launch_end(&c, NULL), 0);
    launch(&c, "k3", 0x1000, 1);
    ck_assert_str_eq(s.text, "kernel sweep<float4>(float4const*,float4*,int) grid=4,2,1 block=128,1,1\n"
                             "R 0x7f0000000000 128 sm=7\n"
                             "R 0x7f0000000080 128 sm=7\n"
                             "R 0x7f0000000100 128 sm=7\n"
                             "R 0x7f0000000180 128 sm=7\n"
                             "W 0x7f0000000000 64 sm=131\n"
                             "W 0x7f0000000100 12 sm=0\n" /* bytes 0-3 and 8-11: the sector in part */
                             "kernel k2 stream=1 grid=4,2,1 block=128,1,1\n"
                             "P 0x7f0000000000 128 evict_normal\n"
                             "R 0x7f0000000080 128 sm=3\n"
                             "kernel k3 grid=4,2,1 block=128,1,1\n");
    ck_assert_uint_eq(c.warps, 5);
    ck_assert_uint_eq(c.accesses, 8);
    ck_assert_uint_eq(c.by_flag[2], 1);
    finish(&c, &s);
}
END_TEST

/* The SM's L1 in front of the L2 (sim/l1.h): a float4 warp that loads 8
 * floats per lane as two v4 loads (lanes 32 bytes apart) touches all four
 * sectors of its two lines twice; the second load reaches the L2 with
 * nothing, as on the GPU.  Another SM, a store, an atomic, a new kernel
 * and a load past the L1's capacity each behave as the L1 would. */
START_TEST(l1_serves_rereads)
{
    struct l2t_capture c;
    static struct sink s;
    start(&c, &s, NULL);
    ck_assert_uint_eq(c.opt.l1_bytes, 256u << 10);
    launch(&c, "k", 0x1000, 1);
    warp(&c, 0x7f0000000000, 32, 16, 0xffu, L2T_F_READ, 5);      /* 8 lanes: 2 lines */
    warp(&c, 0x7f0000000010, 32, 16, 0xffu, L2T_F_READ, 5);      /* the other halves: L1 hits */
    warp(&c, 0x7f0000000010, 32, 16, 0xffu, L2T_F_READ, 6);      /* another SM: its own L1 */
    warp(&c, 0x7f0000000000, 4, 4, 0xffu, L2T_F_WRITE, 5);       /* a store: to L2, the L1 keeps it */
    warp(&c, 0x7f0000000000, 4, 4, 0xffu, L2T_F_READ, 5);        /* hit */
    warp(&c, 0x7f0000000080, 0, 4, 1u, L2T_F_READ | L2T_F_WRITE, 5); /* atomic: drops sector 0 of line 1 */
    warp(&c, 0x7f0000000080, 4, 4, 0xffffu, L2T_F_READ, 5);      /* sectors 0-1: sector 0 again */
    warp(&c, 0x7f0000000000, 0, 4, 1u, L2T_F_READ, -1);          /* no SM: no L1 */
    ck_assert_int_eq(l2t_on_launch_end(&c, NULL), 0);
    launch(&c, "k", 0x1000, 1);
    warp(&c, 0x7f0000000000, 4, 4, 0xffu, L2T_F_READ, 5);        /* a new kernel: L1 emptied */
    ck_assert_str_eq(s.text, "kernel k grid=4,2,1 block=128,1,1\n"
                             "R 0x7f0000000000 128 sm=5\n"
                             "R 0x7f0000000080 128 sm=5\n"
                             "R 0x7f0000000000 128 sm=6\n"
                             "R 0x7f0000000080 128 sm=6\n"
                             "W 0x7f0000000000 32 sm=5\n"
                             "W 0x7f0000000080 4 sm=5\n" /* the atomic's 4 bytes */
                             "R 0x7f0000000080 32 sm=5\n"
                             "R 0x7f0000000000 32\n"
                             "kernel k grid=4,2,1 block=128,1,1\n"
                             "R 0x7f0000000000 32 sm=5\n");
    ck_assert_uint_eq(c.l1n.loaded, 8 + 8 + 8 + 1 + 2 + 1 + 1);
    ck_assert_uint_eq(c.l1n.served, 8 + 1 + 1);
    finish(&c, &s);

    /* capacity: 256 KiB is 128 sets of 16 lines; a sweep of 2176 lines
     * puts 17 in set 0, so the first is evicted before it is read again */
    start(&c, &s, NULL);
    launch(&c, "k", 0x1000, 1);
    for (uint64_t l = 0; l < 2176; l += 32)
        warp(&c, 0x7f0000000000 + l * 128, 128, 4, 0xffffffffu, L2T_F_READ, 0);
    size_t before = s.len;
    warp(&c, 0x7f0000000000, 128, 4, 1u, L2T_F_READ, 0);
    ck_assert_str_eq(s.text + before, "R 0x7f0000000000 32 sm=0\n");
    before = s.len;
    warp(&c, 0x7f0000000000 + 2175 * 128, 0, 4, 1u, L2T_F_READ, 0); /* the last line: still there */
    ck_assert_uint_eq(s.len, before);
    finish(&c, &s);

    /* an SM id the L1 model cannot hold is an error, not a silent bypass */
    start(&c, &s, NULL);
    launch(&c, "k", 0x1000, 1);
    struct l2t_warp bad = {.mask = 1u, .size = 4, .flags = L2T_F_READ, .sm = 5000};
    l2_err be;
    ck_assert_int_eq(l2t_on_warp(&c, &bad, &be), -1);
    ASSERT_CONTAINS(be.msg, "SM id 5000 is above 4095");
    finish(&c, &s);

    /* --l1 0: every load sector is written */
    struct l2t_options o;
    l2_err e;
    ck_assert_int_eq(l2t_options_parse(&o, NULL, NULL, NULL, NULL, NULL, "0", &e), 0);
    start(&c, &s, &o);
    launch(&c, "k", 0x1000, 1);
    warp(&c, 0x7f0000000000, 32, 16, 0xffu, L2T_F_READ, 5);
    warp(&c, 0x7f0000000010, 32, 16, 0xffu, L2T_F_READ, 5);
    ck_assert_uint_eq(c.accesses, 4);
    finish(&c, &s);
}
END_TEST

START_TEST(merge_lines_option)
{
    struct l2t_capture c;
    static struct sink s;
    struct l2t_options o;
    l2_err e;
    ck_assert_int_eq(l2t_options_parse(&o, NULL, NULL, NULL, NULL, "1", NULL, &e), 0);
    start(&c, &s, &o);
    launch(&c, "k", 0x1000, 1);
    warp(&c, 0x7f0000000000, 16, 16, 0xffffffffu, L2T_F_READ, 1);
    /* a bulk copy of 300 bytes from a sector boundary + 8: two whole lines merged, then 2 sectors */
    struct l2t_warp w = {.mask = 1, .flags = L2T_F_BULK, .sm = 2};
    w.addr[0] = 0x7f0000001008;
    w.addr[1] = 300;
    ck_assert_int_eq(l2t_on_warp(&c, &w, &e), 0);
    ck_assert_str_eq(s.text, "kernel k grid=4,2,1 block=128,1,1\n"
                             "R 0x7f0000000000 512 sm=1\n"
                             "R 0x7f0000001000 256 sm=2\n"
                             "R 0x7f0000001100 64 sm=2\n");
    finish(&c, &s);
}
END_TEST

START_TEST(bulk_range_split_per_line)
{
    struct l2t_capture c;
    static struct sink s;
    l2_err e;
    start(&c, &s, NULL);
    launch(&c, "k", 0x1000, 1);
    ck_assert_int_eq(l2t_on_range(&c, OP_READ, 0x7f0000000070, 0x30, 5, &e), 0);
    ck_assert_int_eq(l2t_on_range(&c, OP_READ, 0x7f0000000000, 0, 5, &e), 0);
    ck_assert_str_eq(s.text, "kernel k grid=4,2,1 block=128,1,1\n"
                             "R 0x7f0000000060 32 sm=5\n"
                             "R 0x7f0000000080 32 sm=5\n");
    /* a bulk copy shared -> global: a write of the range */
    struct l2t_warp w = {.mask = 1, .flags = L2T_F_BULK | L2T_F_WRITE, .sm = 6};
    w.addr[0] = 0x7f0000000200;
    w.addr[1] = 160;
    ck_assert_int_eq(l2t_on_warp(&c, &w, &e), 0);
    ck_assert_str_eq(s.text + strlen("kernel k grid=4,2,1 block=128,1,1\nR 0x7f0000000060 32 sm=5\n"
                                     "R 0x7f0000000080 32 sm=5\n"),
                     "W 0x7f0000000200 128 sm=6\nW 0x7f0000000280 32 sm=6\n");
    /* 64 KiB: 512 lines, more than one batch */
    ck_assert_int_eq(l2t_on_range(&c, OP_READ, 0x7f0000100000, 65536, 5, &e), 0);
    ck_assert_uint_eq(c.accesses, 2 + 2 + 512);
    finish(&c, &s);
}
END_TEST

START_TEST(kernel_regex_and_launch_range)
{
    struct l2t_capture c;
    static struct sink s;
    struct l2t_options o;
    l2_err e;
    ck_assert_int_eq(l2t_options_parse(&o, "^gemm|sweep<", "1:3", NULL, NULL, NULL, NULL, &e), 0);
    start(&c, &s, &o);
    launch(&c, "gemm_a", 0x1000, 0);          /* matched 0: before the range */
    warp(&c, 0x1000, 4, 4, 1, L2T_F_READ, 0); /* not written */
    launch(&c, "other", 0x1000, 0);           /* no match */
    launch(&c, "void sweep<int>(int*)", 0x1000, 1); /* matched 1 */
    warp(&c, 0x1000, 4, 4, 1, L2T_F_READ, 0);
    ck_assert_int_eq(l2t_on_launch_end(&c, &e), 0);
    launch(&c, "gemm_b", 0x1000, 1); /* matched 2 */
    ck_assert_int_eq(l2t_on_launch_end(&c, &e), 0);
    launch(&c, "gemm_c", 0x1000, 0); /* matched 3: past the range */
    ck_assert_str_eq(s.text, "kernel sweep<int>(int*) grid=4,2,1 block=128,1,1\n"
                             "R 0x1000 32 sm=0\n"
                             "kernel gemm_b grid=4,2,1 block=128,1,1\n");
    ck_assert_uint_eq(c.launches, 5);
    ck_assert_uint_eq(c.matched, 4);
    ck_assert_uint_eq(c.captured, 2);
    ck_assert_uint_eq(c.dropped, 1);
    finish(&c, &s);
}
END_TEST

START_TEST(record_and_byte_limits)
{
    struct l2t_capture c;
    static struct sink s;
    struct l2t_options o;
    l2_err e;
    char sum[2048];
    ck_assert_int_eq(l2t_options_parse(&o, NULL, NULL, "2", NULL, NULL, NULL, &e), 0);
    start(&c, &s, &o);
    launch(&c, "k", 0x1000, 1);
    for (int i = 0; i < 5; i++)
        warp(&c, 0x1000 + 128 * (uint64_t)i, 4, 4, 0xffffffffu, L2T_F_READ, 0);
    ck_assert_int_eq(l2t_on_launch_end(&c, &e), 0);
    launch(&c, "k", 0x1000, 0); /* stopped: no later launch */
    ck_assert_int_eq(l2t_on_sync(&c, &e), 0);
    ck_assert_str_eq(s.text, "kernel k grid=4,2,1 block=128,1,1\nR 0x1000 128 sm=0\nR 0x1080 128 sm=0\n");
    l2t_summary(&c, sum, sizeof sum);
    ASSERT_CONTAINS(sum, "stopped at the --max-records limit: 3 warp instructions");
    finish(&c, &s);

    /* 4 records of 16 bytes: the kernel line and 3 accesses; the warp of 4 lines does not fit whole */
    ck_assert_int_eq(l2t_options_parse(&o, NULL, NULL, NULL, "64", NULL, NULL, &e), 0);
    start(&c, &s, &o);
    launch(&c, "k", 0x1000, 1);
    warp(&c, 0x1000, 4, 4, 0xffffffffu, L2T_F_READ, 0);
    warp(&c, 0x1000, 16, 16, 0xffffffffu, L2T_F_READ, 0);
    warp(&c, 0x1000, 4, 4, 0xffffffffu, L2T_F_READ, 0);
    ck_assert_str_eq(s.text, "kernel k grid=4,2,1 block=128,1,1\nR 0x1000 128 sm=0\n");
    ck_assert_str_eq(c.stopped, "--max-bytes");
    ck_assert_uint_eq(c.dropped, 2);
    finish(&c, &s);
}
END_TEST

START_TEST(l2_controls_events_and_syncs)
{
    struct l2t_capture c;
    static struct sink s;
    l2_err e;
    start(&c, &s, NULL);
    ck_assert_int_eq(l2t_on_setaside(&c, 4 << 20, &e), 0);
    ck_assert_int_eq(l2t_on_window(&c, 0x2000, 0x7f0000000000, 1 << 20, 0.5, 2, 1, &e), 0);
    ck_assert_int_eq(l2t_on_event_record(&c, 0xe1, 0x2000, &e), 0);
    ck_assert_int_eq(l2t_on_event_wait(&c, 0xe1, 0x3000, &e), 0);
    ck_assert_int_eq(l2t_on_event_record(&c, 0xe2, 0x1000, &e), 0);
    ck_assert_int_eq(l2t_on_stream_sync(&c, 0x3000, &e), 0);
    ck_assert_int_eq(l2t_on_sync(&c, &e), 0);
    /* a launch's own window holds for it alone: the stream's window comes back */
    struct l2_window_spec w;
    ck_assert_int_eq(l2t_window_spec(0x7f0000100000, 4096, 1.0, 0, 0, &w, &e), 0);
    int cap;
    ck_assert_int_eq(l2t_on_launch(&c, "k", 0x2000, G, B, &w, &cap, &e), 0);
    ck_assert_int_eq(l2t_on_launch_end(&c, &e), 0);
    ck_assert_int_eq(l2t_on_launch(&c, "k", 0x1000, G, B, &w, &cap, &e), 0);
    ck_assert_int_eq(l2t_on_launch_end(&c, &e), 0);
    ck_assert_int_eq(l2t_on_window(&c, 0x2000, 0, 0, 0, 0, 0, &e), 0);
    ck_assert_int_eq(l2t_on_reset(&c, &e), 0);
    ck_assert_str_eq(s.text, "setaside 4194304\n"
                             "window 0x7f0000000000 1048576 0.5 evict_last evict_first stream=1\n"
                             "event record ev0 stream=1\n"
                             "event wait ev0 stream=2\n"
                             "event record ev1\n"
                             "sync stream=2\n"
                             "sync\n"
                             "window 0x7f0000100000 4096 1 evict_normal evict_normal stream=1\n"
                             "kernel k stream=1 grid=4,2,1 block=128,1,1\n"
                             "window 0x7f0000000000 1048576 0.5 evict_last evict_first stream=1\n"
                             "window 0x7f0000100000 4096 1 evict_normal evict_normal\n"
                             "kernel k grid=4,2,1 block=128,1,1\n"
                             "window off\n"
                             "window off stream=1\n"
                             "reset\n");
    /* what CUDA would reject is an error */
    ck_assert_int_eq(l2t_on_window(&c, 0x2000, 0x1000, 4096, 0.5, 2, 2, &e), -1);
    ASSERT_CONTAINS(e.msg, "missProp");
    ck_assert_int_eq(l2t_on_window(&c, 0x2000, 0x1000, 4096, 0.5, 7, 0, &e), -1);
    ASSERT_CONTAINS(e.msg, "hitProp 7");
    finish(&c, &s);
}
END_TEST

START_TEST(labels_are_trace_words)
{
    char out[L2_MAX_KNAME];
    l2_kernel_label(out, "void k<(int)1>(float*, int #2)");
    ck_assert_str_eq(out, "k<(int)1>(float*,int_2)");
    l2_kernel_label(out, "");
    ck_assert_str_eq(out, "_");
    l2_kernel_label(out, "   ");
    ck_assert_str_eq(out, "_");
    l2_kernel_label(out, "stream=3");
    ck_assert_str_eq(out, "_stream=3");
    l2_kernel_label(out, "@x");
    ck_assert_str_eq(out, "_@x");
    l2_kernel_label(out, "grid=1");
    ck_assert_str_eq(out, "_grid=1");
    l2_kernel_label(out, "a\tb\nc\x01");
    ck_assert_str_eq(out, "abc_");
    char longname[400];
    memset(longname, 'x', sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    l2_kernel_label(out, longname);
    ck_assert_uint_eq(strlen(out), 127);
    /* a 2-byte UTF-8 character across the cut is dropped whole */
    memset(longname, 'y', 126);
    strcpy(longname + 126, "\xc3\xa9zzz");
    l2_kernel_label(out, longname);
    ck_assert_uint_eq(strlen(out), 126);
}
END_TEST

START_TEST(options_and_errors)
{
    struct l2t_options o;
    l2_err e;
    uint64_t a, b;
    ck_assert_int_eq(l2t_parse_launches("3:7", &a, &b, &e), 0);
    ck_assert(a == 3 && b == 7);
    ck_assert_int_eq(l2t_parse_launches("5", &a, &b, &e), 0);
    ck_assert(a == 5 && b == 6);
    ck_assert_int_eq(l2t_parse_launches(":4", &a, &b, &e), 0);
    ck_assert(a == 0 && b == 4);
    ck_assert_int_eq(l2t_parse_launches("2:", &a, &b, &e), 0);
    ck_assert(a == 2 && b == UINT64_MAX);
    ck_assert_int_eq(l2t_parse_launches("4:4", &a, &b, &e), -1);
    ASSERT_CONTAINS(e.msg, "no launch");
    ck_assert_int_eq(l2t_parse_launches("x:4", &a, &b, &e), -1);
    ASSERT_CONTAINS(e.msg, "--launches 'x:4'");
    ck_assert_int_eq(l2t_options_parse(&o, NULL, NULL, "12k", NULL, NULL, NULL, &e), -1);
    ASSERT_CONTAINS(e.msg, "--max-records '12k'");
    ck_assert_int_eq(l2t_options_parse(&o, NULL, NULL, NULL, "2MiB", NULL, NULL, &e), 0);
    ck_assert_uint_eq(o.max_bytes, 2u << 20);
    struct l2t_capture c;
    o.kernel_regex = "a(";
    ck_assert_int_eq(l2t_init(&c, &o, collect, NULL, &e), -1);
    ASSERT_CONTAINS(e.msg, "--kernel 'a('");
    /* an emit error is returned with its reason */
    static struct sink s;
    start(&c, &s, NULL);
    s.fail_at = 2;
    launch(&c, "k", 0x1000, 1);
    struct l2t_warp w = {.mask = 1, .size = 4, .flags = L2T_F_READ};
    ck_assert_int_eq(l2t_on_warp(&c, &w, &e), -1);
    ASSERT_CONTAINS(e.msg, "disk full");
    w.size = 0;
    ck_assert_int_eq(l2t_on_warp(&c, &w, &e), -1);
    ASSERT_CONTAINS(e.msg, "size 0");
    finish(&c, &s);
    ck_assert_int_eq(l2t_options_parse(&o, NULL, NULL, NULL, NULL, NULL, "100", &e), -1);
    ASSERT_CONTAINS(e.msg, "--l1 '100'");
    ASSERT_CONTAINS(e.msg, "multiple of 2048");
    ck_assert_int_eq(l2t_options_parse(&o, NULL, NULL, NULL, NULL, NULL, "64KiB", &e), 0);
    ck_assert_uint_eq(o.l1_bytes, 65536);
    ck_assert_int_eq(l2t_options_parse(&o, NULL, NULL, NULL, NULL, NULL, "32MiB", &e), -1);
}
END_TEST

/* A capture written by the binary writer reads back as the same text. */
START_TEST(capture_round_trips_through_binary)
{
    struct l2t_capture c;
    static struct sink s;
    l2_err e;
    start(&c, &s, NULL);
    ck_assert_int_eq(l2_bin_writer_open(&s.w, &s.syms, &e), 0);
    ck_assert_int_eq(l2t_on_setaside(&c, 1 << 20, &e), 0);
    ck_assert_int_eq(l2t_on_alloc(&c, 0x7f0000000000, 1 << 20, NULL, &e), 0);
    ck_assert_int_eq(l2t_on_window(&c, 0x2000, 0x7f0000000000, 1 << 20, 0.25, 2, 1, &e), 0);
    launch(&c, "void a::b<1>(int*)", 0x2000, 1);
    warp(&c, 0x7f0000000000, 16, 16, 0xffffffffu, L2T_F_READ, 3);
    warp(&c, 0x7f0000000004, 64, 4, 0xffu, L2T_F_WRITE, 4);
    warp(&c, 0x7f0000000000, 0, 4, 1, L2T_F_PREFETCH, 5);
    ck_assert_int_eq(l2t_on_launch_end(&c, &e), 0);
    ck_assert_int_eq(l2t_on_event_record(&c, 0xe1, 0x2000, &e), 0);
    ck_assert_int_eq(l2t_on_event_wait(&c, 0xe1, 0x1000, &e), 0);
    ck_assert_int_eq(l2t_on_stream_sync(&c, 0x2000, &e), 0);
    ck_assert_int_eq(l2t_on_free(&c, 0x7f0000000000, &e), 0);
    ck_assert_int_eq(l2t_on_sync(&c, &e), 0);
    char bin[64], txt[64];
    snprintf(bin, sizeof bin, "/tmp/l2sim-capture-%d.l2b", (int)getpid());
    snprintf(txt, sizeof txt, "/tmp/l2sim-capture-%d.trace", (int)getpid());
    struct l2_sink *out;
    ck_assert_int_eq(l2_sink_open(&out, bin, L2_COMP_ZSTD, &e), 0);
    ck_assert_msg(l2_bin_writer_finish(s.w, out, &e) == 0, "%s", e.msg);
    ck_assert_msg(l2_sink_close(out, &e) == 0, "%s", e.msg);
    l2_bin_writer_free(s.w);
    tests_to_text(bin, txt);
    char *back = tests_slurp_file(txt, NULL);
    ck_assert_str_eq(back, s.text);
    free(back);
    unlink(bin);
    unlink(txt);
    finish(&c, &s);
}
END_TEST

Suite *capture_suite(void)
{
    Suite *s = suite_create("capture");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, allocations_named_and_freed);
    tcase_add_test(tc, launches_with_dims_streams_and_sm);
    tcase_add_test(tc, l1_serves_rereads);
    tcase_add_test(tc, merge_lines_option);
    tcase_add_test(tc, bulk_range_split_per_line);
    tcase_add_test(tc, kernel_regex_and_launch_range);
    tcase_add_test(tc, record_and_byte_limits);
    tcase_add_test(tc, l2_controls_events_and_syncs);
    tcase_add_test(tc, labels_are_trace_words);
    tcase_add_test(tc, options_and_errors);
    tcase_add_test(tc, capture_round_trips_through_binary);
    suite_add_tcase(s, tc);
    return s;
}

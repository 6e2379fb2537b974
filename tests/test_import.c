/*
 * test_import.c - l2sim import accelsim: the samples in tests/import (a
 * post-processed v5/v4 trace with every address format and an xz kernel
 * file; a raw v3 trace with SM ids) give exactly the accesses worked out by
 * hand, and malformed lines are errors at file:line.
 */
#include "tests.h"

/* The import of `path` converted to text, kernel and access lines only
 * (comments and blank lines dropped). */
static char *import_text(const char *path, int *rc)
{
    char cmd[1024], *out;
    snprintf(cmd, sizeof cmd,
             "%s import accelsim %s -o - 2>/dev/null | %s convert - - | grep -v '^#' | grep -v '^$'", tests_l2sim(),
             path, tests_l2sim());
    *rc = tests_sh(cmd, &out, NULL);
    return out;
}

START_TEST(post_processed)
{
    int rc;
    char *t = import_text("tests/import/v4", &rc);
    ck_assert_int_eq(rc, 0);
    ck_assert_str_eq(t,
                     /* base + stride: 32 lanes x 4 bytes, one line */
                     "kernel vecadd<float>(float*,floatconst*,int) grid=4,1,1 block=64,1,1\n"
                     "R 0x7f0000000000 128\n"
                     /* a list of 4 lanes x 16 bytes: two share a sector, one is in the next line */
                     "R 0x7f0000001000 32\n"
                     "R 0x7f00000010e0 32\n"
                     "R 0x7f0000001100 32\n"
                     /* base + deltas 256, -128: lines in ascending order; a
                      * store's sector written in part keeps its bytes */
                     "W 0x7f0000002000 4\n"
                     "W 0x7f0000002080 4\n"
                     "W 0x7f0000002100 4\n"
                     /* LDS skipped; RED is a write at L2 */
                     "W 0x7f0000003000 8\n"
                     /* generic LD in the shared window skipped; 8 bytes straddling two lines */
                     "R 0x7f0000004060 32\n"
                     "R 0x7f0000004080 32\n"
                     /* xz kernel file: a stream handle becomes stream 1 */
                     "kernel scale_kernel stream=1 grid=2,3,1 block=32,1,1\n"
                     "R 0x7f0000010000 128\n");
    free(t);
    /* the directory or the list itself */
    char *u = import_text("tests/import/v4/kernelslist.g", &rc);
    ck_assert_int_eq(rc, 0);
    ASSERT_CONTAINS(u, "kernel scale_kernel stream=1");
    free(u);
}
END_TEST

START_TEST(raw_with_sm_ids)
{
    int rc;
    char *t = import_text("tests/import/raw", &rc);
    ck_assert_int_eq(rc, 0);
    ck_assert_str_eq(t, "kernel copy grid=2,1,1 block=32,1,1\n"
                        "R 0x7f0000000000 32 sm=7\n"
                        "W 0x7f0000000100 4 sm=12\n"); /* its 4 bytes */
    free(t);
}
END_TEST

/* Loads pass the L1 model as in l2trace: within a .traceg block a line
 * loaded again is an L1 hit (not written), a .STRONG load bypasses it, a
 * reduction drops the sector it touches, and the next block starts with
 * an empty L1; --l1 0 writes every load. */
START_TEST(l1_per_block)
{
    char dir[64], cmd[4096], *out;
    snprintf(dir, sizeof dir, "/tmp/l2sim-import-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(cmd, sizeof cmd,
             "printf '%%s\\n' '-kernel name = k' '-accelsim tracer version = 4' '' '#BEGIN_TB' "
             "'thread block = 0,0,0' 'warp = 0' "
             "'0010 ffffffff 1 R4 LDG.E 1 R2 4 1 0x7f0000000000 4 0' "
             "'0020 ffffffff 1 R4 LDG.E 1 R2 4 1 0x7f0000000000 4 0' "
             "'0030 00000001 1 R4 LDG.E.STRONG.GPU 1 R2 4 1 0x7f0000000000 4 0' "
             "'0040 00000001 0 RED.E.ADD.STRONG.GPU 2 R2 R4 4 1 0x7f0000000000 4 0' "
             "'0050 ffffffff 1 R4 LDG.E 1 R2 4 1 0x7f0000000000 4 0' '#END_TB' '#BEGIN_TB' "
             "'thread block = 1,0,0' 'warp = 0' "
             "'0010 00000001 1 R4 LDG.E 1 R2 4 1 0x7f0000000000 4 0' '#END_TB' > %s/kernel-1.traceg && "
             "echo kernel-1.traceg > %s/kernelslist.g && "
             "%s import accelsim %s -o - 2>&1 >%s/a.l2b | grep -o 'the L1 served.*' && "
             "%s convert %s/a.l2b - | grep '^[RW] ' && "
             "%s import accelsim --l1 0 %s -o - 2>/dev/null | %s convert - - | grep -c '^R ' && rm -r %s",
             dir, dir, tests_l2sim(), dir, dir, tests_l2sim(), dir, tests_l2sim(), dir, tests_l2sim(), dir);
    ck_assert_int_eq(tests_sh(cmd, &out, NULL), 0);
    ck_assert_str_eq(out, "the L1 served 7 of 14 load sectors\n"
                          "R 0x7f0000000000 128\n"     /* block 0: the line */
                          "R 0x7f0000000000 32\n"      /* .STRONG: past the L1 */
                          "W 0x7f0000000000 4\n"       /* RED at L2 (its 4 bytes), drops sector 0 */
                          "R 0x7f0000000000 32\n"      /* sector 0 again */
                          "R 0x7f0000000000 32\n"      /* block 1: its own L1 */
                          "5\n");
    free(out);
}
END_TEST

/* A kernel file of header h and instruction line `inst` must fail with
 * `want` at line 4 of the kernel file (or `want` alone when it names no
 * line). */
static void import_fails(const char *h, const char *inst, const char *want)
{
    char dir[64], cmd[2048], *err;
    snprintf(dir, sizeof dir, "/tmp/l2sim-import-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(cmd, sizeof cmd,
             "printf '%%s\\n\\n%%s\\n' '%s' '%s' > %s/kernel-1.traceg && echo kernel-1.traceg > %s/kernelslist.g && "
             "%s import accelsim %s -o %s/out.l2b",
             h, inst, dir, dir, tests_l2sim(), dir, dir);
    ck_assert_int_eq(tests_sh(cmd, NULL, &err), 2);
    ASSERT_CONTAINS(err, want);
    free(err);
    snprintf(cmd, sizeof cmd, "test ! -e %s/out.l2b && rm -r %s", dir, dir); /* nothing written */
    ck_assert_int_eq(tests_sh(cmd, NULL, NULL), 0);
}

START_TEST(errors_at_file_line)
{
    const char *h = "-kernel name = k\n-accelsim tracer version = 4";
    import_fails(h, "0010 ffffffff 1 R4 LDG.E 1 R2 4 0 0x10", "kernel-1.traceg:4: fewer addresses than active lanes");
    import_fails(h, "0010 fffff 1 R4 LDG.E 1 R2 4 1 0x10 4", "kernel-1.traceg:4: the active mask is not 8 hexadecimal");
    import_fails(h, "0010 00000003 1 R4 LDG.E 1 R2 4 7 0x10 4", "kernel-1.traceg:4: the address format is not 0");
    import_fails(h, "0010 00000005 1 R4 LDG.E 1 R2 4 1 0x10 4", "kernel-1.traceg:4: base and stride with active lanes");
    import_fails(h, "0010 00000003 1 R4 LDG.E 1 R2 4 2 0x10", "kernel-1.traceg:4: fewer deltas than active lanes");
    import_fails(h, "0010 00000003 1 R4 LDG.E 1 R2 256 1 0x10 4", "kernel-1.traceg:4: memory width 256 above 128");
    import_fails(h, "0010 00000003 1 R4 LDG.E 1 R2 4 1 0x10 4 0 9", "kernel-1.traceg:4: more fields than");
    import_fails(h, "0010 00000003 1 R4 LDG.E", "kernel-1.traceg:4: an instruction needs");
    import_fails("-kernel name = k\n-accelsim tracer version = 2", "0010 00000003 0 EXIT 0 0 0",
                 "kernel-1.traceg:2: accelsim tracer version 2 is not supported (3 to 5)");
    import_fails("-accelsim tracer version = 4", "0010 00000003 0 EXIT 0 0 0",
                 "kernel-1.traceg:3: the header has no -kernel name line");
    import_fails("-kernel name = k\n-grid dim = (0,1,1)\n-accelsim tracer version = 4", "",
                 "kernel-1.traceg:2: a dimension is not (X,Y,Z)");
    char *err;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s import accelsim tests/import/missing.g -o /dev/null", tests_l2sim());
    ck_assert_int_eq(tests_sh(cmd, NULL, &err), 2);
    ASSERT_CONTAINS(err, "tests/import/missing.g: cannot open");
    free(err);
    snprintf(cmd, sizeof cmd, "%s import gpgpusim x -o y", tests_l2sim());
    ck_assert_int_eq(tests_sh(cmd, NULL, NULL), 2);
}
END_TEST

Suite *import_suite(void)
{
    Suite *s = suite_create("import");
    TCase *tc = tcase_create("import");
    tcase_add_test(tc, post_processed);
    tcase_add_test(tc, raw_with_sm_ids);
    tcase_add_test(tc, l1_per_block);
    tcase_add_test(tc, errors_at_file_line);
    suite_add_tcase(s, tc);
    return s;
}

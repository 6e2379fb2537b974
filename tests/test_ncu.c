/*
 * test_ncu.c - reading Nsight Compute exports (ncu.h) and run --ncu:
 * function names across demanglers, units, thousands separators, matching
 * by name and launch order, and errors at file:line.
 */
#include <math.h>

#include "ncu.h"
#include "tests.h"

static const char *base(const char *name)
{
    static char out[128];
    l2_ncu_base(name, out, sizeof out);
    return out;
}

START_TEST(function_names)
{
    /* ncu's demangling and the capture's label of the same kernels */
    ck_assert_str_eq(base("void at::vectorized_elementwise_kernel<8, at::float16_copy_kernel_cuda(at::TensorIteratorBase "
                          "&)::[lambda(float) (instance 1)], std::array<char *, 2>>(int, T2, T3)"),
                     "vectorized_elementwise_kernel");
    ck_assert_str_eq(base("voidat::native::vectorized_elementwise_kernel<8,at::native::float16_copy_kernel_cuda(at::"
                          "TensorIteratorBase&)::{lambda(float)_1"),
                     "vectorized_elementwise_kernel");
    ck_assert_str_eq(base("void at::native::<unnamed>::distribution_elementwise_grid_stride_kernel<float, 4>(long)"),
                     "distribution_elementwise_grid_stride_kernel");
    ck_assert_str_eq(base("voidat::native::(anonymousnamespace)::distribution_elementwise_grid_stride_kernel<float,4,"),
                     "distribution_elementwise_grid_stride_kernel");
    ck_assert_str_eq(base("nvjet_sm90_hsh_64x128_64x8_2x1_v_bz_bias_TNN"), "nvjet_sm90_hsh_64x128_64x8_2x1_v_bz_bias_TNN");
    ck_assert_str_eq(base("step(float const*, int)"), "step");
    ck_assert_str_eq(base("void step<1>(float*)"), "step");
    ck_assert_str_eq(base("voidness"), "ness"); /* "void" then a name: the capture's "void" without its blank */
}
END_TEST

static const char export_csv[] =
    "==PROF== Connected to process 1\n"
    "some program output\n"
    "\"ID\",\"Kernel Name\",\"lts__t_sector_hit_rate.pct\",\"dram__bytes_read.sum\",\"gpu__time_duration.sum\","
    "\"lts__t_sectors.sum\"\n"
    "\"\",\"\",\"%\",\"Kbyte\",\"usecond\",\"Ksector\"\n"
    "\"0\",\"void k<1>(float*)\",\"50.5\",\"1,024\",\"2.5\",\"1,000\"\n"
    "\"1\",\"void other(int)\",\"n/a\",\"0\",\"1\",\"1\"\n"
    "\"2\",\"void k<2>(float*)\",\"75\",\"2\",\"3\",\"2\"\n"
    "==PROF== Disconnected\n";

START_TEST(load_and_match)
{
    char path[64];
    tests_write_temp(path, sizeof path, export_csv);
    struct l2_ncu m;
    l2_err e;
    ck_assert_msg(l2_ncu_load(&m, path, &e) == 0, "%s", e.msg);
    ck_assert_uint_eq(m.n, 3);
    ck_assert_double_eq_tol(m.row[0].hit, 50.5, 1e-9);
    ck_assert_double_eq_tol(m.row[0].dram_rd, 1024e3, 1e-6); /* Kbyte, thousands separator */
    ck_assert_double_eq_tol(m.row[0].ns, 2500, 1e-9);        /* usecond */
    ck_assert_double_eq_tol(m.row[0].sectors, 1e6, 1e-6);     /* Ksector */
    ck_assert(isnan(m.row[1].hit));                           /* n/a */
    ck_assert(isnan(m.row[0].read_hit));                      /* not exported */
    ck_assert_uint_eq(m.row[2].line, 7);
    /* the second k of the trace takes the second k measured; "missing" none */
    const char *names[] = {"k", "other", "missing", "voidk<2>(float*)"};
    int64_t match[4];
    l2_ncu_match(&m, names, 4, match);
    ck_assert_int_eq(match[0], 0);
    ck_assert_int_eq(match[1], 1);
    ck_assert_int_eq(match[2], -1);
    ck_assert_int_eq(match[3], 2);
    l2_ncu_free(&m);
    unlink(path);
}
END_TEST

static void load_fails(const char *text, const char *want)
{
    char path[64];
    tests_write_temp(path, sizeof path, text);
    struct l2_ncu m;
    l2_err e;
    ck_assert_int_eq(l2_ncu_load(&m, path, &e), -1);
    char full[256];
    snprintf(full, sizeof full, "%s%s", path, want);
    ASSERT_CONTAINS(e.msg, full);
    unlink(path);
}

START_TEST(errors_name_the_line)
{
    load_fails("\"ID\",\"Kernel Name\",\"dram__bytes_read.sum\"\n", ":1: neither lts__t_sector_hit_rate.pct");
    load_fails("\"ID\",\"Name\"\n", ":1: no \"ID\" and \"Kernel Name\" columns");
    load_fails("==PROF== x\n\"ID\",\"Kernel Name\",\"lts__t_sector_hit_rate.pct\"\n\"0\",\"k\",\"5x\"\n",
               ":3: lts__t_sector_hit_rate.pct: \"5x\" is not a number");
    load_fails("\"ID\",\"Kernel Name\",\"lts__t_sector_hit_rate.pct\"\n\"\",\"\",\"ratio\"\n",
               ":2: unit \"ratio\" of lts__t_sector_hit_rate.pct is not understood");
    /* an empty unit (found by the ncu fuzzer: it read before the string) */
    load_fails("\"ID\",\"Kernel Name\",\"lts__t_sector_hit_rate.pct\",\"gpu__time_duration.sum\"\n"
               "\"\",\"\",\"%\",\"\"\n",
               ":2: unit \"\" of gpu__time_duration.sum is not understood");
    load_fails("\"ID\",\"Kernel Name\",\"lts__t_sector_hit_rate.pct\"\n\"0\",\"k\"\n", ":2: 2 fields, the header has 3");
    load_fails("\"ID\",\"Kernel Name\",\"lts__t_sector_hit_rate.pct\"\n\"0\",\"k,\"5\n", ":2: a field goes on after");
    load_fails("\"ID\",\"Kernel Name\",\"lts__t_sector_hit_rate.pct\"\n", ": no kernel rows");
    load_fails("no csv here\n", ": no CSV header");
}
END_TEST

/* run --ncu: the measurement beside the simulated kernel, its difference,
 * JSON too; --csv with --ncu is a usage error. */
START_TEST(run_ncu)
{
    char trace[64], csvp[64], cmd[512];
    tests_write_temp(trace, sizeof trace,
                     "kernel k grid=4\nR 0x1000 4096\nR 0x1000 4096\nkernel other\nR 0x9000 32\n"
                     "kernel wr\nW 0x20000 4096\nR 0x40000 4096\n");
    tests_write_temp(csvp, sizeof csvp,
                     "\"ID\",\"Kernel Name\",\"lts__t_sector_hit_rate.pct\",\"lts__t_sector_op_read_hit_rate.pct\"\n"
                     "\"\",\"\",\"%\",\"%\"\n\"0\",\"void k(float*)\",\"40\",\"45\"\n"
                     "\"1\",\"void wr(float*)\",\"50\",\"0\"\n");
    char *out;
    snprintf(cmd, sizeof cmd, "%s run --ncu %s %s | sed -n '/^measured by/,$p'", tests_l2sim(), csvp, trace);
    ck_assert_int_eq(tests_sh(cmd, &out, NULL), 0);
    ASSERT_CONTAINS(out, "2 of 3 kernels matched by name and launch order, 0 measured rows unmatched");
    /* k: 256 sectors, the second read hits all 128: 50% against 40 measured */
    ASSERT_CONTAINS(out, "   40.00    50.00  +10.00    45.00    50.00   +5.00");
    ASSERT_CONTAINS(out, "     2 other                                    (not measured)");
    /* wr: 128 sectors stored to absent lines count as hits, as ncu counts
     * them (the report's own hit% says 0), 128 loaded miss: 50% */
    ASSERT_CONTAINS(out, "   50.00    50.00   +0.00     0.00     0.00   +0.00");
    ASSERT_CONTAINS(out, "over the 2 kernels that count");
    free(out);
    snprintf(cmd, sizeof cmd, "%s run --json --ncu %s %s | python3 -c 'import json,sys; n = json.load(sys.stdin)[\"ncu\"]; "
                              "print(n[\"kernels\"][0][\"diff_pp\"][\"hit_rate\"], n[\"kernels\"][1][\"measured\"])'",
             tests_l2sim(), csvp, trace);
    ck_assert_int_eq(tests_sh(cmd, &out, NULL), 0);
    ck_assert_str_eq(out, "10.0 None\n");
    free(out);
    snprintf(cmd, sizeof cmd, "%s run --csv --ncu %s %s", tests_l2sim(), csvp, trace);
    ck_assert_int_eq(tests_sh(cmd, NULL, NULL), 2);
    unlink(trace);
    /* kernels that only store: no load hit rate to compare; DRAM reads
     * measured: their error in MB (the store reads none, 1.5 MB measured) */
    unlink(csvp);
    tests_write_temp(csvp, sizeof csvp,
                     "\"ID\",\"Kernel Name\",\"lts__t_sector_hit_rate.pct\",\"dram__bytes_read.sum\"\n"
                     "\"\",\"\",\"%\",\"byte\"\n\"0\",\"void wr(float*)\",\"50\",\"1500000\"\n");
    tests_write_temp(trace, sizeof trace, "kernel wr\nW 0x20000 4096\n");
    snprintf(cmd, sizeof cmd, "%s run --ncu %s %s | tail -n 1", tests_l2sim(), csvp, trace);
    ck_assert_int_eq(tests_sh(cmd, &out, NULL), 0);
    ASSERT_CONTAINS(out, "over the 1 kernel that counts");
    ASSERT_CONTAINS(out, "hit rate 50.00 points, load hit rate - (no loads), DRAM read 1.50 MB");
    free(out);
    unlink(trace);
    unlink(csvp);
}
END_TEST

Suite *ncu_suite(void)
{
    Suite *s = suite_create("ncu");
    TCase *tc = tcase_create("ncu");
    tcase_add_test(tc, function_names);
    tcase_add_test(tc, load_and_match);
    tcase_add_test(tc, errors_name_the_line);
    tcase_add_test(tc, run_ncu);
    suite_add_tcase(s, tc);
    return s;
}

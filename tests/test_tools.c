/*
 * test_tools.c - the programs in tools/: scengen generates the calibration
 * kernels exactly (record counts, sizes, SMs, policy lines), and the GPU
 * probe builds with nvcc where nvcc exists and skips cleanly (exit 77)
 * where there is no GPU; perkernel.py differences Nsight Compute ranges.
 */
#include "tests.h"

/* Runs `cmd` and returns its first line on stdout (static buffer). */
static const char *sh_line(const char *cmd)
{
    static char buf[512];
    char *out, *err;
    tests_sh(cmd, &out, &err);
    snprintf(buf, sizeof buf, "%.*s", (int)strcspn(out, "\n"), out);
    free(out);
    free(err);
    return buf;
}

START_TEST(scengen_kernels)
{
    const char *g = tests_built("scengen");
    char cmd[1024];
    /* flush = reset + 2 x 512 MiB of 512-byte loads; B:16 = 32768 loads */
    snprintf(cmd, sizeof cmd,
             "%s --setaside 0 --steps 'flush; B:16:ld:evict_last; B:16:ld:plain*' | "
             "awk '/^kernel/ { k = $2 } /^R / { n[k]++; if ($3 != 512) bad++ } /^reset/ { r++ } "
             "/^setaside 0$/ { s++ } END { printf \"%%d %%d %%d %%d %%d\", n[\"flush\"], n[\"s2_ld_B\"], "
             "n[\"measured\"], r + s, bad }'",
             g);
    ck_assert_str_eq(sh_line(cmd), "2097152 32768 32768 2 0");
    /* every access carries its SM: block b runs on SM b mod 132 */
    snprintf(cmd, sizeof cmd,
             "%s --jitter 0 --steps 'B:8:ld:plain*' | awk '/^R / { split($4, a, \"=\"); "
             "if (a[2] >= 132) bad++; sm[a[2]]++ } END { n = 0; for (k in sm) n++; printf \"%%d %%d\", n, bad }'",
             g);
    ck_assert_str_eq(sh_line(cmd), "132 0");
    /* @g66: the grid-stride loop of 66 blocks (in lockstep, record 2 is
     * block 1's first 8 KiB, record 1057 begins iteration 1 at 66 x 8 KiB),
     * spread over every other SM */
    snprintf(cmd, sizeof cmd,
             "%s --jitter 0 --block-spread 0 --steps 'B:16:ld:plain@g66*' | awk '/^R / { n++; split($4, a, \"=\"); "
             "sm[a[2]]++; if (a[2] %% 2) odd++; if (n == 2 || n == 1057) s = s \" \" $2 } "
             "END { k = 0; for (x in sm) k++; printf \"%%d %%d %%d%%s\", n, k, odd, s }'",
             g);
    ck_assert_str_eq(sh_line(cmd), "32768 66 0 0x7e0100002000 0x7e0100084000");
    /* --block-order measured: the 66 blocks on 66 SMs in the block
     * scheduler's order (blocks 0, 1 and 8, records 1, 2 and 9, on SMs 128,
     * 129 and 0) */
    snprintf(cmd, sizeof cmd,
             "%s --jitter 0 --block-spread 0 --block-order measured --steps 'B:16:ld:plain@g66*' | awk '/^R / { n++; "
             "split($4, a, \"=\"); sm[a[2]]++; if (n == 1 || n == 2 || n == 9) f = f \" \" a[2] } "
             "END { k = 0; for (x in sm) k++; printf \"%%d %%d%%s\", n, k, f }'",
             g);
    ck_assert_str_eq(sh_line(cmd), "32768 66 128 129 0");
    /* ... and the next launch puts the blocks of SMs 128-131 on 124-127
     * and the other way round: block 0 on SM 124, block 4 on SM 128 */
    snprintf(cmd, sizeof cmd,
             "%s --jitter 0 --block-spread 0 --block-order measured --steps 'B:16:ld:plain@g8; B:16:ld:plain@g8*' | "
             "awk '/^kernel/ { k++; n = 0 } /^R / { n++; if (n == 1 || n == 5) f = f \" \" k \":\" substr($4, 4) } "
             "END { printf \"%%s\", f }'",
             g);
    ck_assert_str_eq(sh_line(cmd), " 1:128 1:124 2:124 2:128");
    /* block by block (the default spread): a block's 16 warp instructions
     * come together, block 0's (its first 8 KiB) then block 1's */
    snprintf(cmd, sizeof cmd,
             "%s --jitter 0 --steps 'B:16:ld:plain@g66*' | awk '/^R / { n++; if (n == 2 || n == 16 || n == 17) "
             "s = s \" \" $2 } END { printf \"%%d%%s\", n, s }'",
             g);
    ck_assert_str_eq(sh_line(cmd), "32768 0x7e0100000200 0x7e0100001e00 0x7e0100002000");
    /* policies are defined once, before their first use, as the rows ask */
    snprintf(cmd, sizeof cmd,
             "%s --steps 'B:4:ld:frac(evict_last,evict_first,0.25); B:4:ld:frac(evict_last,evict_first,0.25)*' "
             "| grep '^policy'",
             g);
    ck_assert_str_eq(sh_line(cmd), "policy frac_el_ef_0_25 interleaved evict_last 0.25 evict_first api=ptx");
    /* bad notation is an error with exit 2 and nothing on stdout */
    snprintf(cmd, sizeof cmd, "test -z \"$(%s --steps 'Q:8:ld:plain*' 2>/dev/null)\"", g);
    ck_assert_int_eq(tests_sh(cmd, NULL, NULL), 0);
    snprintf(cmd, sizeof cmd, "%s --steps 'Q:8:ld:plain*'", g);
    ck_assert_int_eq(tests_sh(cmd, NULL, NULL), 2);
}
END_TEST

/* The gather, power-law and add operations (tools/hwprobe/README.md): the
 * pieces hwprobe reads, the hot head's share and its hint, a + b's three
 * streams, and `max` as the given set-aside maximum. */
START_TEST(scengen_gathers)
{
    const char *g = tests_built("scengen");
    char cmd[1024];
    /* g32 over 1 MiB: 2048 warp instructions x 16 groups; group g of
     * instruction k reads piece mix32(k*16 + g) mod 32768 */
    snprintf(cmd, sizeof cmd,
             "%s --jitter 0 --steps 'B:1:g32:plain*' | awk '/^R / { n++; if ($3 != 32) bad++; "
             "if (n <= 3) a = a \" \" $2 } END { printf \"%%d %%d%%s\", n, bad, a }'",
             g);
    ck_assert_str_eq(sh_line(cmd), "32768 0 0x7e0100000000 0x7e0100021800 0x7e0100043020");
    /* z32: about 40% of the reads fall in the first 1/16 (0x7e0100000000 +
     * 0x0xxxxx); the 16 records of a warp instruction all take the hint of
     * its first (lane 0's) piece, hot or not, as the GPU applies one */
    snprintf(cmd, sizeof cmd,
             "%s --steps 'B:16:z32:evict_last/evict_first*' | awk '/^R / { hot = (substr($2, 1, 9) == \"0x7e01000\"); "
             "if (n %% 16 == 0) first = hot; n++; h += hot; if (($4 == \"evict_last\") != first) bad++; "
             "if (hot != first) mixed++ } END { printf \"%%d %%.2f %%d\", bad, h / n, (mixed > 0) }'",
             g);
    ck_assert_str_eq(sh_line(cmd), "0 0.40 1");
    /* add: per warp instruction R a, R b, W c with their own hints */
    snprintf(cmd, sizeof cmd,
             "%s --steps 'B:1:add:evict_last/evict_normal/evict_first*' | awk '/^[RW] / { n[$1 \" \" $4]++ } "
             "END { printf \"%%d %%d %%d\", n[\"R evict_last\"], n[\"R evict_normal\"], n[\"W evict_first\"] }'",
             g);
    ck_assert_str_eq(sh_line(cmd), "2048 2048 2048");
    snprintf(cmd, sizeof cmd, "%s --setaside max --setaside-max 39321600 --steps 'B:1:ld:plain*' | grep '^setaside'", g);
    ck_assert_str_eq(sh_line(cmd), "setaside 39321600");
    /* a width hwprobe cannot load is an error */
    snprintf(cmd, sizeof cmd, "%s --steps 'B:1:g48:plain*' 2>&1 >/dev/null", g);
    ASSERT_CONTAINS(sh_line(cmd), "must be 16, 32, 64 or 128");
}
END_TEST

/* How far a loop's blocks drift (scengen's Issue order): the mean distance,
 * in loop iterations of 528 x 8 KiB, between where a record of a 32 MiB
 * loop falls in the order and the iteration it belongs to.  A store loop
 * drifts furthest, c = a + b least; with --store-jitter set to --jitter, a
 * store loop's order is the load loop's. */
START_TEST(scengen_drift_by_loop)
{
    const char *g = tests_built("scengen");
    char cmd[2048];
    const char *awk = "awk 'function hex(x,  v, j) { v = 0; for (j = 1; j <= length(x); j++) "
                      "v = v * 16 + index(\"0123456789abcdef\", substr(x, j, 1)) - 1; return v } "
                      "/^[RW] / { a = hex(substr($2, 7)); if (a >= 33554432) next; "
                      "i = int(a / 4325376); t = n / 8448; n++; d += (i > t ? i - t : t - i) } "
                      "END { printf \"%.2f\", d / n }'";
    double drift[3];
    const char *steps[3] = {"B:32:add:plain", "B:32:ld:plain", "B:32:st:plain"};
    for (int k = 0; k < 3; k++) {
        snprintf(cmd, sizeof cmd, "%s --steps '%s*' | %s", g, steps[k], awk);
        drift[k] = atof(sh_line(cmd));
    }
    ck_assert_msg(drift[0] < drift[1] && drift[1] < drift[2] && drift[2] > 1.5 && drift[1] < 1.0,
                  "drift add %.2f, ld %.2f, st %.2f", drift[0], drift[1], drift[2]);
    /* the same 16384 addresses in the same order (an empty output would
     * not pass: the count is checked too) */
    snprintf(cmd, sizeof cmd,
             "d=$(mktemp -d) && %s --steps 'B:8:ld:plain*' | awk '/^R / { print $2 }' > $d/a && "
             "%s --store-jitter 0.7 --steps 'B:8:st:plain*' | awk '/^W / { print $2 }' > $d/b && "
             "cmp -s $d/a $d/b && wc -l < $d/a; rm -r $d",
             g, g);
    ck_assert_str_eq(sh_line(cmd), "16384");
}
END_TEST

/* tracegen's numbers are whole and bounded (a count past 2^64 once ran
 * for ever); --help is not an error. */
START_TEST(tracegen_arguments)
{
    const char *g = tests_built("tracegen");
    static const char *const bad[] = {"bench 99999999999999999999", "bench 10000000001", "bench 12x", "bench -1",
                                      "bench ''", "embed 0", "embed 10000000001", "update 0", "update 1025", "update 1e3"};
    char cmd[1024];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(cmd, sizeof cmd, "%s %s 2>&1 >/dev/null", g, bad[i]);
        ASSERT_CONTAINS(sh_line(cmd), "tracegen: ");
        snprintf(cmd, sizeof cmd, "%s %s >/dev/null 2>&1", g, bad[i]);
        ck_assert_int_eq(tests_sh(cmd, NULL, NULL), 2);
    }
    snprintf(cmd, sizeof cmd, "%s --help | head -1", g);
    ASSERT_CONTAINS(sh_line(cmd), "usage: tracegen");
    snprintf(cmd, sizeof cmd, "%s --help >/dev/null", g);
    ck_assert_int_eq(tests_sh(cmd, NULL, NULL), 0);
    snprintf(cmd, sizeof cmd, "%s bench 1000 | grep -c '^[RW] '", g);
    ck_assert_str_eq(sh_line(cmd), "1000");
    /* embed: exactly N 16-byte loads, 16-byte aligned */
    snprintf(cmd, sizeof cmd, "%s embed 1000 | grep -c '^R 0x[0-9a-f]*0 16 sm='", g);
    ck_assert_str_eq(sh_line(cmd), "1000");
}
END_TEST

static const char *nvcc(void)
{
    if (tests_sh("command -v nvcc", NULL, NULL) == 0)
        return "nvcc";
    if (access("/usr/local/cuda/bin/nvcc", X_OK) == 0)
        return "/usr/local/cuda/bin/nvcc";
    return NULL;
}

/* pause(US): the GPU idles between kernels, which a trace cannot show: the
 * records are those of the steps without it (so a pause that changed what
 * the GPU keeps is a model error), a row with two streams gets a sync, and
 * a bad length or a measured pause is an error with exit 2. */
START_TEST(scengen_pause)
{
    const char *g = tests_built("scengen");
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "a=$(mktemp) b=$(mktemp); %s --steps 'H:4:st:plain; pause(1000); B:8:ld:plain; H:4:ld:plain*' | "
             "grep -v '^#' >$a; %s --steps 'H:4:st:plain; B:8:ld:plain; H:4:ld:plain*' | grep -v '^#' | "
             "sed 's/^kernel s2_ld_B/kernel s3_ld_B/' >$b; test -s $a && cmp -s $a $b; r=$?; rm -f $a $b; exit $r",
             g, g);
    ck_assert_int_eq(tests_sh(cmd, NULL, NULL), 0);
    /* with two streams it is a sync, as hwprobe waits for both */
    snprintf(cmd, sizeof cmd, "%s --steps 'B:4:ld:plain; pause(10); B:4:ld:plain@s2; B:4:ld:plain*' | grep -c '^sync$'",
             g);
    ck_assert_str_eq(sh_line(cmd), "1");
    static const char *const bad[] = {"pause(1x)", "pause(10000001)", "pause(-1)", "pause(5", "pause(5)*"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        snprintf(cmd, sizeof cmd, "%s --steps 'H:4:st:plain; %s; H:4:ld:plain*' 2>/dev/null", g, bad[i]);
        ck_assert_msg(tests_sh(cmd, NULL, NULL) == 2, "%s accepted", bad[i]);
    }
}
END_TEST

/* scengen checks what it writes with l2sim's parser: a window l2sim would
 * reject (a hitProp it does not take, a size of 0) stops it. */
START_TEST(scengen_rejects_what_l2sim_rejects)
{
    const char *g = tests_built("scengen");
    static const char *const steps[] = {"window(B,24,0.5,evict_unchanged,streaming)",
                                        "window(B,0,0.5,persisting,streaming)"};
    for (size_t i = 0; i < 2; i++) {
        char cmd[1024];
        snprintf(cmd, sizeof cmd, "%s --setaside 0 --steps '%s; B:16:ld:plain*' 2>&1 >/dev/null", g, steps[i]);
        ASSERT_CONTAINS(sh_line(cmd), "l2sim would reject");
        snprintf(cmd, sizeof cmd, "%s --setaside 0 --steps '%s; B:16:ld:plain*'", g, steps[i]);
        ck_assert_int_ne(tests_sh(cmd, NULL, NULL), 0);
    }
}
END_TEST

START_TEST(hwprobe_builds)
{
    const char *cc = nvcc();
    if (!cc)
        return; /* no CUDA toolkit: nothing to build */
    char bin[64], cmd[512];
    snprintf(bin, sizeof bin, "/tmp/l2sim-hwprobe-%d", (int)getpid());
    snprintf(cmd, sizeof cmd, "%s -std=c++17 -arch=sm_90 -o %s tools/hwprobe/hwprobe.cu", cc, bin);
    ck_assert_int_eq(tests_sh(cmd, NULL, NULL), 0);
    /* --info: 0 on a GPU, 77 (skip) without one */
    snprintf(cmd, sizeof cmd, "%s --info", bin);
    int rc = tests_sh(cmd, NULL, NULL), want = access("/dev/nvidia0", F_OK) == 0 ? 0 : 77;
    ck_assert_msg(rc == want, "hwprobe --info exited %d, expected %d", rc, want);
    unlink(bin);
}
END_TEST

START_TEST(probe_skips_without_gpu)
{
    if (access("/dev/nvidia0", F_OK) == 0)
        return; /* a GPU is here: measuring is not a unit test */
    int rc = tests_sh("bash tools/hwprobe/probe.sh tools/hwprobe/rows/validate.csv /dev/null", NULL, NULL);
    ck_assert_int_eq(rc, 77);
}
END_TEST

/* tools/sweep: the grid's product in order, each run's swept value and
 * rates in the merged CSV (far copies change the near-partition rate),
 * the Slurm script's array, and grid errors at file:line. */
START_TEST(sweep_grid)
{
    char dir[64], grid[64], cmd[2048];
    snprintf(dir, sizeof dir, "/tmp/l2sim-sweep-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char text[512];
    snprintf(text, sizeof text, "l2sim %s\nset far_copy 1 0\ntrace traces/update.trace\n", tests_l2sim());
    tests_write_temp(grid, sizeof grid, text);
    snprintf(cmd, sizeof cmd, "tools/sweep/sweep run %s %s/run --jobs 2 >/dev/null", grid, dir);
    ck_assert_int_eq(tests_sh(cmd, NULL, NULL), 0);
    /* task, far_copy, near_hit_rate: with far copies more sectors hit near */
    snprintf(cmd, sizeof cmd,
             "awk -F, 'NR > 1 { printf \"%%s:%%s \", $1, $5; n[$5] = $7 } END { print (n[1] > n[0] + 0.05) }' "
             "%s/run/results.csv",
             dir);
    ck_assert_str_eq(sh_line(cmd), "1:1 2:0 1");
    snprintf(cmd, sizeof cmd, "tools/sweep/sweep slurm %s %s/slurm >/dev/null && grep -c '^#SBATCH --array=1-2$' %s/slurm/sweep.sbatch && wc -l < %s/slurm/tasks", grid, dir, dir, dir);
    char *out;
    ck_assert_int_eq(tests_sh(cmd, &out, NULL), 0);
    ck_assert_str_eq(out, "1\n2\n");
    free(out);
    tests_write_temp(grid, sizeof grid, "trace traces/update.trace\nset far_copy\n");
    snprintf(cmd, sizeof cmd, "tools/sweep/sweep run %s %s/bad", grid, dir);
    char *err;
    ck_assert_int_eq(tests_sh(cmd, NULL, &err), 2);
    ASSERT_CONTAINS(err, ":2: set needs a key and at least one value");
    free(err);
    unlink(grid);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ck_assert_int_eq(tests_sh(cmd, NULL, NULL), 0);
}
END_TEST

/* The output of tools/calibrate/calibrate.sh over table csv with
 * configs/h100.cfg (it must succeed), to be freed. */
static char *calibrate(const char *csv)
{
    char cmd[512];
    const char *scengen = tests_built("scengen"); /* calibrate.sh takes the folder of both */
    snprintf(cmd, sizeof cmd, "tools/calibrate/calibrate.sh %.*s configs/h100.cfg %s",
             (int)(strlen(scengen) - strlen("/scengen")), scengen, csv);
    char *out;
    ck_assert_int_eq(tests_sh(cmd, &out, NULL), 0);
    return out;
}

/* tools/calibrate: rows that differ only in where their buffers lie (A1,
 * A2 and A5: one region read twice, at H, H+8 and B; A3 and A7: two
 * overlapping regions, shifted) form placement families, compared by
 * their means; a row whose regions lie otherwise within their group (A4:
 * apart, A8: overlapping by a different amount) or with another set-aside
 * (A6) stays alone.  Every second read hits whole in the model, A3's and
 * A7's half, A8's a quarter.  A blank line in the table is skipped. */
START_TEST(calibrate_placement_families)
{
    char csv[64];
    tests_write_temp(csv, sizeof csv,
                     "id,setaside,steps,measured_sectors,l2_hit_pct,near_hit_pct,kernel_ns\n"
                     "A1,default,\"H:1:ld:plain; H:1:ld:plain*\",32768,10,5,1000\n"
                     "A2,default,\"H+8:1:ld:plain; H+8:1:ld:plain*\",32768,30,15,1000\n"
                     "A3,default,\"H:2:ld:plain; H+1:2:ld:plain*\",65536,50,25,1000\n"
                     "A4,default,\"H+1:2:ld:plain; H+4:2:ld:plain*\",65536,0,0,1000\n"
                     "\n" /* a blank line is skipped */
                     "A5,default,\"B:1:ld:plain; B:1:ld:plain*\",32768,20,10,1000\n"
                     "A6,0,\"H:1:ld:plain; H:1:ld:plain*\",32768,100,50,1000\n"
                     "A7,default,\"B+8:2:ld:plain; B+9:2:ld:plain*\",65536,40,20,1000\n"
                     "A8,default,\"H:4:ld:plain; H+3:4:ld:plain*\",131072,25,12,1000\n");
    char *out = calibrate(csv);
    ASSERT_CONTAINS(out, "\nA1    A5        3    10.00    30.00    20.00   100.00  +80.00\n");
    ASSERT_CONTAINS(out, "\nA3    A7        2    40.00    50.00    45.00    50.00   +5.00\n");
    ASSERT_CONTAINS(out, "2 placement families, 5 rows: mean absolute error of the family means 42.50 points");
    /* far hits (hits less near-partition hits): the rows' 0-50 against the
     * model's 0-8 (a second read finds every line near, where the first
     * left a copy, but for some lines of A3, A7 and A8, which the
     * measured block order reads from the other partition), off by 14.82
     * on the mean */
    ASSERT_CONTAINS(out, "mean absolute error 31.25 points (near-partition hit rate: 46.07, far hits: 14.82)");
    /* A1, A2 and A5 off by 70-90 points, A7 by 10 (not more) */
    ASSERT_CONTAINS(out, "worst row A1 off by 90.00 points; 3 rows off by more than 10 points\n");
    /* units: the two families (80, 5), A4 (0), A6 (0), A8 (0) */
    ASSERT_CONTAINS(out, "each placement family once by its mean: 5, mean absolute error 17.00 points");
    free(out);
    unlink(csv);
}
END_TEST

/* tools/calibrate: the near-partition rate is that of loads, as the GPU's
 * read lookup hits over read sectors: a read-modify-write of data not in
 * the L2 finds none of its loads near, though each store finds the line
 * its load brought (the rate over all sectors, stores too, is 50). */
START_TEST(calibrate_near_of_loads)
{
    char csv[64];
    tests_write_temp(csv, sizeof csv,
                     "id,setaside,steps,measured_sectors,l2_hit_pct,near_hit_pct,kernel_ns\n"
                     "N1,default,\"H:1:rmw:plain*\",65536,50,0,1000\n");
    char *out = calibrate(csv);
    ASSERT_CONTAINS(out, "\nN1    default      50.00    50.00   +0.00       0.00     0.00   +0.00 ");
    free(out);
    unlink(csv);
}
END_TEST

/* perkernel.py: kernel k's counters are range k's minus range k-1's (the
 * units row and thousands separators of an ncu export read as such), the
 * rates are those of the differences, the kernels are the last ones of the
 * l2sim CSV without its totals row, and l2sim run --ncu reads the result;
 * an export with two ranges is refused. */
START_TEST(perkernel_differences)
{
    static const char head[] =
        "==PROF== Connected\n"
        "\"ID\",\"Range Name\",\"lts__t_sectors.sum\",\"lts__t_sectors_lookup_hit.sum\",\"lts__t_sectors_op_read.sum\","
        "\"lts__t_sectors_op_read_lookup_hit.sum\",\"lts__t_sectors_srcunit_tex.sum\","
        "\"lts__t_sectors_srcunit_tex_op_read.sum\",\"lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum\","
        "\"dram__bytes_read.sum\",\"dram__bytes_write.sum\",\"gpu__time_duration.sum\"\n"
        "\"\",\"\",\"sector\",\"sector\",\"sector\",\"sector\",\"sector\",\"sector\",\"sector\",\"byte\",\"byte\",\"ns\"\n";
    char r1[64], r2[64], bad[64], sim[64], ncu[64], cmd[1024], text[2048];
    snprintf(text, sizeof text, "%s\"0\",\"r\",\"40,000\",\"30,000\",\"40,000\",\"30,000\",\"40,000\",\"40,000\","
             "\"30,000\",\"320,000\",\"0\",\"5\"\n", head);
    tests_write_temp(r1, sizeof r1, text);
    snprintf(text, sizeof text, "%s\"0\",\"r\",\"100,000\",\"45,000\",\"100,000\",\"45,000\",\"100,000\",\"100,000\","
             "\"45,000\",\"2,240,000\",\"0\",\"9\"\n", head);
    tests_write_temp(r2, sizeof r2, text);
    snprintf(text, sizeof text, "%s\"0\",\"r\",\"1\",\"1\",\"1\",\"1\",\"1\",\"1\",\"1\",\"1\",\"1\",\"1\"\n"
             "\"1\",\"r\",\"1\",\"1\",\"1\",\"1\",\"1\",\"1\",\"1\",\"1\",\"1\",\"1\"\n", head);
    tests_write_temp(bad, sizeof bad, text);
    tests_write_temp(sim, sizeof sim, "");
    tests_write_temp(ncu, sizeof ncu, "");
    snprintf(cmd, sizeof cmd, "%s run --config configs/h100.cfg --csv traces/update.trace > %s", tests_built("l2sim"),
             sim);
    ck_assert_int_eq(tests_sh(cmd, NULL, NULL), 0);
    char *out, *err;
    snprintf(cmd, sizeof cmd, "python3 tools/validate/perkernel.py %s %s %s > %s", sim, r1, r2, ncu);
    ck_assert_int_eq(tests_sh(cmd, NULL, &err), 0);
    /* update.trace's kernels: update_x, update_y, update_z, update_z */
    ASSERT_CONTAINS(err, "mean absolute error of the load hit rate over 2 kernels");
    free(err);
    snprintf(cmd, sizeof cmd, "cat %s", ncu);
    ck_assert_int_eq(tests_sh(cmd, &out, NULL), 0);
    ASSERT_CONTAINS(out, "\"0\",\"update_z\",\"75.0000\",\"75.0000\",\"40000\",\"30000\"");
    /* second kernel: 60,000 sectors, 15,000 hits; 1,920,000 DRAM bytes */
    ASSERT_CONTAINS(out, "\"1\",\"update_z\",\"25.0000\",\"25.0000\",\"60000\",\"15000\",\"60000\",\"15000\","
                         "\"60000\",\"60000\",\"15000\",\"1920000\",\"0\",\"n/a\"");
    free(out);
    snprintf(cmd, sizeof cmd, "%s run --config configs/h100.cfg --ncu %s traces/update.trace", tests_built("l2sim"),
             ncu);
    ck_assert_int_eq(tests_sh(cmd, &out, NULL), 0);
    ASSERT_CONTAINS(out, "2 of 4 kernels matched by name and launch order, 0 measured rows unmatched");
    free(out);
    snprintf(cmd, sizeof cmd, "python3 tools/validate/perkernel.py %s %s", sim, bad);
    ck_assert_int_ne(tests_sh(cmd, NULL, &err), 0);
    ASSERT_CONTAINS(err, "2 rows after the header and units, one range expected");
    free(err);
    unlink(r1);
    unlink(r2);
    unlink(bad);
    unlink(sim);
    unlink(ncu);
}
END_TEST

Suite *tools_suite(void)
{
    Suite *s = suite_create("tools");
    TCase *tc = tcase_create("tools");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, scengen_kernels);
    tcase_add_test(tc, scengen_gathers);
    tcase_add_test(tc, scengen_drift_by_loop);
    tcase_add_test(tc, tracegen_arguments);
    tcase_add_test(tc, scengen_pause);
    tcase_add_test(tc, scengen_rejects_what_l2sim_rejects);
    tcase_add_test(tc, hwprobe_builds);
    tcase_add_test(tc, probe_skips_without_gpu);
    tcase_add_test(tc, sweep_grid);
    tcase_add_test(tc, calibrate_placement_families);
    tcase_add_test(tc, calibrate_near_of_loads);
    tcase_add_test(tc, perkernel_differences);
    suite_add_tcase(s, tc);
    return s;
}

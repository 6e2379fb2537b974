/*
 * l2trace.c - runs a CUDA program with the capture library injected and
 * writes an l2sim binary trace of its global memory accesses (see
 * --help and tools/l2trace/README.md).
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "capture.h"
#include "source.h"

/* Converts the text spool the library wrote into the binary trace out;
 * *records gets the number of records. */
static int convert(const char *spool, const char *out, enum l2_comp comp, uint64_t *records, l2_err *e)
{
    struct l2_symtab syms;
    struct l2_trace *t = NULL;
    struct l2_bin_writer *w = NULL;
    struct l2_sink *s = NULL;
    struct l2_event ev;
    int r, k = 0;
    *records = 0;
    if (l2_symtab_init(&syms, e) < 0)
        return -1;
    r = l2_trace_open(&t, spool, &syms, e);
    if (r == 0)
        r = l2_bin_writer_open(&w, &syms, e);
    while (r == 0 && (k = l2_trace_next(t, &ev, e)) == 1) {
        if (l2_bin_writer_add(w, &ev, e) < 0)
            r = -1;
        ++*records;
    }
    if (k < 0)
        r = -1;
    if (r == 0)
        r = l2_sink_open(&s, out, comp, e);
    if (r == 0) {
        if (l2_bin_writer_finish(w, s, e) < 0) {
            l2_sink_abort(s);
            r = -1;
        } else {
            r = l2_sink_close(s, e);
        }
    }
    l2_bin_writer_free(w);
    if (t)
        l2_trace_close(t);
    l2_symtab_free(&syms);
    return r;
}

static const char usage[] =
    "usage: l2trace [OPTIONS] -o OUT.l2b[.zst|.gz] -- COMMAND [ARGS...]\n"
    "\n"
    "Runs COMMAND (an unmodified CUDA program, or e.g. `python3 script.py` using\n"
    "PyTorch) with the l2trace Compute Sanitizer library preloaded, and writes an\n"
    "l2sim binary trace of every global memory access as the L2 sees it: per warp\n"
    "instruction, the distinct 32-byte sectors of each 128-byte line (one access per\n"
    "run of sectors, `sm=` the issuing SM), with `kernel NAME stream= grid= block=`\n"
    "lines in launch order, `alloc`/`free` lines for device allocations (buf0, buf1,\n"
    "... by allocation order), `setaside`, `reset` and `window` lines for the L2\n"
    "persistence controls, `event record/wait` and `sync` lines.  Read the trace with\n"
    "`l2sim run OUT.l2b` or `l2sim convert OUT.l2b -` (text).\n"
    "\n"
    "Accesses are untagged: per-instruction L2 eviction hints (.L2::cache_hint,\n"
    "createpolicy, cuda::annotated_ptr) are not visible to the Compute Sanitizer API.\n"
    "Kernels run one at a time and much slower while captured.\n"
    "\n"
    "options:\n"
    "  -o FILE            the trace file (required); .zst or .gz compresses\n"
    "  --compress C       none, gzip or zstd (default: from FILE's name)\n"
    "  --kernel REGEX     capture only kernels whose demangled name matches REGEX\n"
    "                     (POSIX extended; e.g. 'gemm|sweep<')\n"
    "  --launches A:B     capture only launches A to B-1 of those --kernel matches,\n"
    "                     numbered from 0 (also A:, :B, or N for launch N alone)\n"
    "  --max-records N    stop after N warp instructions (the summary says so)\n"
    "  --max-bytes N      stop before the trace exceeds N bytes uncompressed\n"
    "                     (16 per record; KiB, MiB, GiB accepted)\n"
    "  --merge-lines      write runs of consecutive whole lines as one access (up to\n"
    "                     4096 bytes): smaller traces, the same hits and misses\n"
    "  --l1 SIZE          each SM's L1 in front of the L2 (default 256KiB; 0: none):\n"
    "                     a load's sectors the SM's L1 holds are not written, as\n"
    "                     they never reach the L2 (every load is taken as cached\n"
    "                     in L1; the API does not tell .cg loads apart)\n"
    "  --ring N           warp records in the host ring (power of two, default 65536,\n"
    "                     280 bytes each); a full ring pauses the kernel, loses nothing\n"
    "  -h, --help         this text\n"
    "\n"
    "Exit status: COMMAND's own (128+N if a signal N ended it); 2 for a usage error,\n"
    "no GPU, no capture library, or a capture that failed while COMMAND succeeded.\n"
    "The capture library is build/libl2trace.so next to this program (`make l2trace`\n"
    "builds it where nvcc and the Compute Sanitizer API headers exist).\n";

static int die(const char *fmt, const char *arg)
{
    fprintf(stderr, "l2trace: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n");
    return 2;
}

/* The directory of this executable, into dir. */
static int self_dir(char *dir, size_t n)
{
    ssize_t k = readlink("/proc/self/exe", dir, n - 1);
    if (k <= 0)
        return -1;
    dir[k] = 0;
    char *slash = strrchr(dir, '/');
    if (!slash)
        return -1;
    *slash = 0;
    return 0;
}

static int has_suffix(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

int main(int argc, char **argv)
{
    const char *out = NULL, *comp = NULL, *kernel = NULL, *launches = NULL, *max_records = NULL, *max_bytes = NULL,
               *ring = NULL, *l1 = NULL;
    int merge = 0, i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(usage, stdout);
            return 0;
        }
        if (strcmp(a, "--merge-lines") == 0) {
            merge = 1;
            continue;
        }
        const char **slot = strcmp(a, "-o") == 0             ? &out
                            : strcmp(a, "--compress") == 0    ? &comp
                            : strcmp(a, "--kernel") == 0      ? &kernel
                            : strcmp(a, "--launches") == 0    ? &launches
                            : strcmp(a, "--max-records") == 0 ? &max_records
                            : strcmp(a, "--max-bytes") == 0   ? &max_bytes
                            : strcmp(a, "--ring") == 0        ? &ring
                            : strcmp(a, "--l1") == 0          ? &l1
                                                              : NULL;
        if (!slot) {
            if (a[0] != '-')
                break; /* the command, without -- */
            return die("unknown option '%s' (see --help)", a);
        }
        if (i + 1 >= argc)
            return die("%s needs a value (see --help)", a);
        *slot = argv[++i];
    }
    if (!out)
        return die("%s", "no output file: -o OUT.l2b is required (see --help)");
    if (i >= argc)
        return die("%s", "no command to run after -- (see --help)");
    if (!comp)
        comp = has_suffix(out, ".zst") ? "zstd" : has_suffix(out, ".gz") ? "gzip" : "none";
    if (strcmp(comp, "none") && strcmp(comp, "gzip") && strcmp(comp, "zstd"))
        return die("--compress '%s': expected none, gzip or zstd", comp);
    /* check the options here, so that mistakes show before the program runs */
    struct l2t_options o;
    l2_err e;
    if (l2t_options_parse(&o, kernel, launches, max_records, max_bytes, NULL, l1, &e) < 0)
        return die("%s", e.msg);
    if (kernel) {
        struct l2t_capture c;
        if (l2t_init(&c, &o, NULL, NULL, &e) < 0)
            return die("%s", e.msg);
        l2t_free(&c);
    }
    char dir[PATH_MAX], lib[PATH_MAX + 32], patch[PATH_MAX + 32];
    if (self_dir(dir, sizeof dir) < 0)
        return die("%s", "cannot find the directory of this program (/proc/self/exe)");
    snprintf(lib, sizeof lib, "%s/libl2trace.so", dir);
    snprintf(patch, sizeof patch, "%s/l2trace-patch.fatbin", dir);
    if (access(lib, R_OK) != 0)
        return die("%s not found: the capture library is not built (make l2trace builds it where nvcc and "
                   "the Compute Sanitizer API headers, /usr/local/cuda/compute-sanitizer/include, exist)",
                   lib);
    if (access("/dev/nvidiactl", F_OK) != 0)
        return die("%s", "no NVIDIA GPU: /dev/nvidiactl does not exist");
    char sum[] = "/tmp/l2trace-summary-XXXXXX";
    int fd = mkstemp(sum);
    if (fd < 0)
        return die("cannot create a temporary file: %s", strerror(errno));
    close(fd);
    char spool[PATH_MAX + 32];
    snprintf(spool, sizeof spool, "%s.spool-XXXXXX", out);
    fd = mkstemp(spool);
    if (fd < 0) {
        unlink(sum);
        return die("cannot create the spool next to the output file: %s", strerror(errno));
    }
    close(fd);
    /* preloaded, so that the library subscribes before the first CUDA call */
    const char *pre = getenv("LD_PRELOAD");
    char preload[2 * PATH_MAX + 64];
    snprintf(preload, sizeof preload, "%s%s%s", lib, pre && *pre ? ":" : "", pre && *pre ? pre : "");
    setenv("LD_PRELOAD", preload, 1);
    setenv(L2T_ENV_OUT, spool, 1);
    setenv(L2T_ENV_SUMMARY, sum, 1);
    setenv(L2T_ENV_PATCH, patch, 1);
    setenv(L2T_ENV_KERNEL, kernel ? kernel : "", 1);
    setenv(L2T_ENV_LAUNCHES, launches ? launches : "", 1);
    setenv(L2T_ENV_MAX_RECORDS, max_records ? max_records : "", 1);
    setenv(L2T_ENV_MAX_BYTES, max_bytes ? max_bytes : "", 1);
    setenv(L2T_ENV_MERGE, merge ? "1" : "", 1);
    setenv(L2T_ENV_L1, l1 ? l1 : "", 1);
    setenv(L2T_ENV_RING, ring ? ring : "", 1);
    pid_t pid = fork();
    if (pid < 0) {
        unlink(sum);
        unlink(spool);
        return die("fork: %s", strerror(errno));
    }
    if (pid == 0) {
        char me[32];
        snprintf(me, sizeof me, "%d", (int)getpid());
        setenv(L2T_ENV_PID, me, 1);
        execvp(argv[i], argv + i);
        fprintf(stderr, "l2trace: cannot run %s: %s\n", argv[i], strerror(errno));
        _exit(127);
    }
    signal(SIGINT, SIG_IGN); /* the program gets ^C and ends; we report */
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) {
            unlink(sum);
            unlink(spool);
            return die("waitpid: %s", strerror(errno));
        }
    int rc = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 1;
    FILE *f = fopen(sum, "r");
    char line[4096];
    int lines = 0, failed = 0;
    while (f && fgets(line, sizeof line, f)) {
        fputs(line, stderr);
        lines++;
        failed |= strncmp(line, "l2trace: error:", 15) == 0;
    }
    if (f)
        fclose(f);
    unlink(sum);
    if (rc != 0)
        fprintf(stderr, "l2trace: %s %s %d\n", argv[i], WIFSIGNALED(st) ? "was killed by signal" : "exited with status",
                WIFSIGNALED(st) ? WTERMSIG(st) : rc);
    if (lines == 0) {
        fprintf(stderr, "l2trace: the capture library did not run: %s made no CUDA call; no trace written\n",
                argv[i]);
        failed = 1;
    }
    if (!failed) {
        uint64_t records;
        if (convert(spool, out, strcmp(comp, "gzip") == 0   ? L2_COMP_GZIP
                                : strcmp(comp, "zstd") == 0 ? L2_COMP_ZSTD
                                                            : L2_COMP_NONE,
                    &records, &e) < 0) {
            fprintf(stderr, "l2trace: %s\n", e.msg);
            failed = 1;
        } else {
            fprintf(stderr, "l2trace: wrote %s: %llu records\n", out, (unsigned long long)records);
        }
    }
    unlink(spool);
    return rc != 0 ? rc : failed ? 2 : 0;
}

/*
 * tests.h - the Check suites of the l2sim unit tests (one per module) and
 * small helpers they share.  test_main.c runs every suite.
 */
#ifndef L2SIM_TESTS_H
#define L2SIM_TESTS_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config.h"
#include "sim.h"
#include "source.h"
#include "symtab.h"
#include "trace.h"

Suite *trace_suite(void);
Suite *trace_bin_suite(void);
Suite *policy_suite(void);
Suite *cache_suite(void);
Suite *l2_suite(void);
Suite *sim_suite(void);
Suite *report_suite(void);
Suite *config_suite(void);
Suite *timing_suite(void);
Suite *model_suite(void);
Suite *tools_suite(void);
Suite *buffers_suite(void);
Suite *advise_suite(void);
Suite *coalesce_suite(void);
Suite *capture_suite(void);
Suite *html_suite(void);
Suite *replay_suite(void);
Suite *ncu_suite(void);
Suite *import_suite(void);

/* Fails unless string `hay` contains `needle`. */
#define ASSERT_CONTAINS(hay, needle)                                                          \
    ck_assert_msg(strstr((hay), (needle)) != NULL, "expected \"%s\" to contain \"%s\"", (hay), \
                  (needle))

/* Writes `text` to a new file /tmp/l2sim-test-XXXXXX (path: 64 bytes);
 * the caller unlinks it. */
static inline void tests_write_temp(char *path, size_t n, const char *text)
{
    snprintf(path, n, "/tmp/l2sim-test-XXXXXX");
    int fd = mkstemp(path);
    ck_assert_msg(fd >= 0, "mkstemp failed");
    size_t len = strlen(text);
    ck_assert_int_eq((long)write(fd, text, len), (long)len);
    close(fd);
}

/* Applies the key=value overrides of a NULL-terminated list (NULL: none). */
static inline void tests_config(struct l2_config *c, const char *const *kv)
{
    l2_err e;
    for (; kv && *kv; kv++)
        ck_assert_msg(l2_config_set(c, *kv, &e) == 0, "%s: %s", *kv, e.msg);
}

/* One simulated variant over its own symbol table, fed trace texts. */
struct tests_run {
    struct l2_symtab syms;
    struct l2_sim sim;
    l2_err e;         /* the last error */
    uint64_t records; /* events read by tests_run_feed since the start */
};

/* Starts a run of configuration `c` (which must pass l2_config_check)
 * under semantics `sem`. */
static inline void tests_run_start_config(struct tests_run *r, const struct l2_config *c, enum l2_semantics sem)
{
    r->records = 0;
    ck_assert_msg(l2_config_check(c, &r->e) == 0, "%s", r->e.msg);
    ck_assert_int_eq(l2_symtab_init(&r->syms, &r->e), 0);
    ck_assert_msg(l2_sim_init(&r->sim, c, sem, &r->syms, &r->e) == 0, "%s", r->e.msg);
}

/* Starts a run of the default (H100) configuration plus the key=value
 * settings of `kv` (NULL: none). */
static inline void tests_run_start(struct tests_run *r, enum l2_semantics sem, const char *const *kv)
{
    struct l2_config c;
    l2_config_defaults(&c);
    tests_config(&c, kv);
    tests_run_start_config(r, &c, sem);
}

/* Reads `text` as a trace, each event into `feed`: l2_sim_event, or
 * l2_sim_policy_event to read it as a --policy file.  Counts the events
 * read in r->records.  Returns 0, or -1 with r->e set at the first event
 * that cannot be read or fed. */
static inline int tests_run_feed(struct tests_run *r, const char *text,
                                 int (*feed)(struct l2_sim *, const struct l2_event *, l2_err *))
{
    char path[64];
    struct l2_trace *t;
    struct l2_event ev;
    tests_write_temp(path, sizeof path, text);
    ck_assert_msg(l2_trace_open(&t, path, &r->syms, &r->e) == 0, "%s", r->e.msg);
    int rc;
    while ((rc = l2_trace_next(t, &ev, &r->e)) > 0) {
        r->records++;
        if (feed(&r->sim, &ev, &r->e) != 0) {
            rc = -1;
            break;
        }
    }
    l2_trace_close(t);
    unlink(path);
    return rc < 0 ? -1 : 0;
}

/* Feeds `text` as a trace; fails the test at the first error. */
static inline void tests_run_ok(struct tests_run *r, const char *text)
{
    ck_assert_msg(tests_run_feed(r, text, l2_sim_event) == 0, "trace failed: %s", r->e.msg);
}

/* Frees the simulator and its symbol table. */
static inline void tests_run_end(struct tests_run *r)
{
    l2_sim_free(&r->sim);
    l2_symtab_free(&r->syms);
}

/* The l2sim binary under test: $L2SIM (`make unit` sets it), else
 * build/l2sim.  Fails the test when it is not an executable. */
static inline const char *tests_l2sim(void)
{
    const char *p = getenv("L2SIM");
    p = p && *p ? p : "build/l2sim";
    ck_assert_msg(access(p, X_OK) == 0, "%s is not an executable (set L2SIM)", p);
    return p;
}

/* A program built next to the l2sim under test (scengen, tracegen). */
static inline const char *tests_built(const char *name)
{
    static char path[512];
    const char *l2 = tests_l2sim(), *slash = strrchr(l2, '/');
    snprintf(path, sizeof path, "%.*s%s", slash ? (int)(slash - l2 + 1) : 0, l2, name);
    ck_assert_msg(access(path, X_OK) == 0, "%s is not an executable", path);
    return path;
}

/* Reads a whole stream (rewound first) into a malloc'd NUL-terminated
 * string. */
static inline char *tests_slurp(FILE *f)
{
    ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
    long n = ftell(f);
    ck_assert(n >= 0);
    rewind(f);
    char *s = malloc((size_t)n + 1);
    ck_assert_ptr_nonnull(s);
    ck_assert_uint_eq(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = 0;
    return s;
}

/* Reads the whole file `path` into a malloc'd NUL-terminated buffer; *len
 * (if len is not NULL) gets its size. */
static inline char *tests_slurp_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    char *s = tests_slurp(f);
    if (len)
        *len = (size_t)ftell(f); /* at the end, where tests_slurp left it */
    fclose(f);
    return s;
}

/* Runs shell command `cmd` (its own redirections apply within it) and
 * returns its exit status; its stdout goes to *out and its stderr to *err,
 * both malloc'd.  out NULL: stdout is dropped; err NULL: stderr goes where
 * stdout goes. */
static inline int tests_sh(const char *cmd, char **out, char **err)
{
    char opath[64] = "/dev/null", epath[64] = "&1", full[4096];
    if (out)
        tests_write_temp(opath, sizeof opath, "");
    if (err)
        tests_write_temp(epath, sizeof epath, "");
    int n = snprintf(full, sizeof full, "{ %s\n} >%s 2>%s", cmd, opath, epath);
    ck_assert_msg(n < (int)sizeof full, "command too long: %s", cmd);
    int st = system(full);
    if (out) {
        *out = tests_slurp_file(opath, NULL);
        unlink(opath);
    }
    if (err) {
        *err = tests_slurp_file(epath, NULL);
        unlink(epath);
    }
    ck_assert_msg(WIFEXITED(st), "%s did not exit", cmd);
    return WEXITSTATUS(st);
}

/* Runs the built l2sim with `args` (shell words) from the repository
 * root; returns its exit status and its output (stdout + stderr) in *out. */
static inline int tests_cli(const char *args, char **out)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s %s", tests_l2sim(), args);
    return tests_sh(cmd, out, NULL);
}

/* Reads trace file `path` (into a symbol table of its own, freed before it
 * returns) to its end or its first error.  Returns the last l2_trace_next
 * result (0 or -1; -1 also when the file cannot be opened) with the error
 * in e->msg; *n gets the number of events read and *evs (if evs is not
 * NULL) a malloc'd array of them. */
static inline int tests_read_events(const char *path, struct l2_event **evs, size_t *n, l2_err *e)
{
    struct l2_symtab syms;
    struct l2_trace *t;
    struct l2_event ev;
    size_t cap = 0;
    *n = 0;
    if (evs)
        *evs = NULL;
    ck_assert_int_eq(l2_symtab_init(&syms, e), 0);
    e->msg[0] = 0;
    int r = l2_trace_open(&t, path, &syms, e);
    if (r == 0) {
        while ((r = l2_trace_next(t, &ev, e)) == 1) {
            if (evs && *n == cap) { /* events are 64-byte aligned: no realloc */
                cap = cap ? cap * 2 : 256;
                struct l2_event *v = aligned_alloc(_Alignof(struct l2_event), cap * sizeof *v);
                ck_assert_ptr_nonnull(v);
                if (*n)
                    memcpy(v, *evs, *n * sizeof *v);
                free(*evs);
                *evs = v;
            }
            if (evs)
                (*evs)[*n] = ev;
            ++*n;
        }
        l2_trace_close(t);
    }
    l2_symtab_free(&syms);
    return r;
}

/* Converts trace file `in` (any format) to binary file `out` with the
 * library's writer, compressed by `comp`. */
static inline void tests_to_binary(const char *in, const char *out, enum l2_comp comp)
{
    struct l2_symtab syms;
    struct l2_trace *t;
    struct l2_bin_writer *w;
    struct l2_sink *s;
    struct l2_event ev;
    l2_err e;
    ck_assert_int_eq(l2_symtab_init(&syms, &e), 0);
    ck_assert_msg(l2_trace_open(&t, in, &syms, &e) == 0, "%s", e.msg);
    ck_assert_int_eq(l2_bin_writer_open(&w, &syms, &e), 0);
    int r;
    while ((r = l2_trace_next(t, &ev, &e)) == 1)
        if (l2_bin_writer_add(w, &ev, &e) < 0)
            ck_abort_msg("%s", e.msg);
    ck_assert_msg(r == 0, "%s", e.msg);
    ck_assert_int_eq(l2_sink_open(&s, out, comp, &e), 0);
    ck_assert_msg(l2_bin_writer_finish(w, s, &e) == 0, "%s", e.msg);
    ck_assert_msg(l2_sink_close(s, &e) == 0, "%s", e.msg);
    l2_bin_writer_free(w);
    l2_trace_close(t);
    l2_symtab_free(&syms);
}

/* Converts trace file `in` (any format) to text file `out`. */
static inline void tests_to_text(const char *in, const char *out)
{
    struct l2_symtab syms;
    struct l2_trace *t;
    struct l2_event ev;
    l2_err e;
    ck_assert_int_eq(l2_symtab_init(&syms, &e), 0);
    ck_assert_msg(l2_trace_open(&t, in, &syms, &e) == 0, "%s", e.msg);
    FILE *f = fopen(out, "w");
    ck_assert_ptr_nonnull(f);
    int r;
    while ((r = l2_trace_next(t, &ev, &e)) == 1)
        if (l2_event_write_text(f, &ev, &syms) < 0)
            ck_abort_msg("write error");
    ck_assert_msg(r == 0, "%s", e.msg);
    ck_assert_int_eq(fclose(f), 0);
    l2_trace_close(t);
    l2_symtab_free(&syms);
}

/* Compares the fields an event of its type carries (not its position);
 * returns NULL or the first field that differs.  (Plain C, not ck_assert:
 * Check reports every assertion through a pipe, and this runs per event.) */
static inline const char *tests_event_diff(const struct l2_event *a, const struct l2_event *b,
                                           const struct l2_symtab *sa, const struct l2_symtab *sb)
{
    if (a->type != b->type)
        return "type";
    if (a->addr != b->addr || a->size != b->size || a->tag != b->tag || a->sm != b->sm || a->op != b->op)
        return "access fields";
    if (a->name != b->name || a->stream != b->stream || a->bytes != b->bytes)
        return "directive fields";
    if (a->type == EV_ACCESS && strcmp(l2_sym_name(sa, a->tag), l2_sym_name(sb, b->tag)) != 0)
        return "tag name";
    if (a->type == EV_POLICY) {
        const struct l2_policy_spec *p = &a->pol, *q = &b->pol;
        if (strcmp(l2_sym_name(sa, a->name), l2_sym_name(sb, b->name)) != 0)
            return "policy name";
        if (p->kind != q->kind || p->api != q->api || p->primary != q->primary || p->secondary != q->secondary ||
            memcmp(&p->fraction, &q->fraction, sizeof p->fraction) != 0 || p->base != q->base ||
            p->leading != q->leading || p->total != q->total || p->desc != q->desc)
            return "policy spec";
    }
    if (a->type == EV_WINDOW) {
        const struct l2_window_spec *v = &a->win, *w = &b->win;
        if (v->base != w->base || v->bytes != w->bytes || memcmp(&v->hit_ratio, &w->hit_ratio, sizeof v->hit_ratio) ||
            v->hit_prop != w->hit_prop || v->miss_prop != w->miss_prop)
            return "window spec";
    }
    if (a->type == EV_KERNEL && (memcmp(a->grid, b->grid, sizeof a->grid) || memcmp(a->block, b->block, sizeof a->block)))
        return "kernel dimensions";
    if ((a->type == EV_KERNEL || a->type == EV_ALLOC || a->type == EV_FREE || a->type == EV_EVENT_RECORD ||
         a->type == EV_EVENT_WAIT) &&
        strcmp(a->label, b->label) != 0)
        return "label";
    return NULL;
}

#endif

/*
 * fuzz_accelsim.c - the Accel-Sim importer (l2sim import accelsim): an
 * input, taken as a kernel file named by a one-line kernelslist.g,
 * imports or fails with a message; an imported trace reads back with as
 * many accesses as the importer counted.
 */
#include <string.h>

#include "fuzz.h"
#include "import_accelsim.h"
#include "l1.h"
#include "source.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char list[96], out[96];
    const char *kfile = fuzz_file(data, size, "-kernel-1.traceg");
    snprintf(list, sizeof list, "/tmp/l2sim-fuzz-%ld.g", (long)getpid());
    snprintf(out, sizeof out, "/tmp/l2sim-fuzz-%ld.l2b", (long)getpid());
    FILE *f = fopen(list, "w");
    if (!f || fprintf(f, "%s\n", strrchr(kfile, '/') + 1) < 0 || fclose(f) != 0)
        abort();
    struct l2_symtab syms;
    struct l2_bin_writer *w;
    struct l2_import_stats st;
    l2_err e;
    if (l2_symtab_init(&syms, &e) < 0 || l2_bin_writer_open(&w, &syms, &e) < 0)
        abort();
    e.msg[0] = 0;
    if (l2_import_accelsim(list, w, 0, L2_L1_DEFAULT_BYTES, &st, &e) < 0) {
        if (!e.msg[0])
            abort();
    } else {
        struct l2_sink *s;
        if (l2_sink_open(&s, out, L2_COMP_NONE, &e) < 0 || l2_bin_writer_finish(w, s, &e) < 0 ||
            l2_sink_close(s, &e) < 0)
            abort();
        struct l2_trace *t;
        struct l2_event ev;
        uint64_t n = 0;
        int r;
        if (l2_trace_open(&t, out, &syms, &e) < 0)
            abort();
        while ((r = l2_trace_next(t, &ev, &e)) > 0)
            n += ev.type == EV_ACCESS;
        if (r < 0 || n != st.accesses)
            abort();
        l2_trace_close(t);
    }
    l2_bin_writer_free(w);
    l2_symtab_free(&syms);
    return 0;
}

/*
 * fuzz_trace.c - the trace readers: text, binary (versions 1 and 2), gzip
 * and zstd, as recognised by the first bytes.  Every input must end in
 * events or an error with a message, never a crash, a hang or a report of
 * the sanitizers.  Built twice by `make fuzz`: fuzz-text and fuzz-binary
 * differ only in their seed corpora (tests/fuzz/corpus/text, binary).
 */
#include <string.h>

#include "fuzz.h"
#include "symtab.h"
#include "trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size, ".trace");
    struct l2_symtab syms;
    struct l2_trace *t;
    struct l2_event ev;
    l2_err e;
    if (l2_symtab_init(&syms, &e) < 0)
        abort();
    if (l2_trace_open(&t, path, &syms, &e) == 0) {
        int r;
        while ((r = l2_trace_next(t, &ev, &e)) == 1)
            ;
        if (r < 0 && !e.msg[0])
            abort(); /* an error must say what */
        l2_trace_close(t);
    } else if (!e.msg[0]) {
        abort();
    }
    l2_symtab_free(&syms);
    return 0;
}

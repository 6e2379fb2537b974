/*
 * readspeed - reads a trace with the library's reader and nothing else, to
 * tell reading apart from simulating in `make bench`.
 *
 *   readspeed TRACE      prints the number of records (make bench times it)
 */
#include <stdio.h>

#include "symtab.h"
#include "trace.h"

int main(int argc, char **argv)
{
    struct l2_symtab syms;
    struct l2_trace *t;
    struct l2_event ev;
    l2_err e;
    if (argc != 2) {
        fputs("usage: readspeed TRACE\n", stderr);
        return 2;
    }
    if (l2_symtab_init(&syms, &e) < 0)
        return 2;
    if (l2_trace_open(&t, argv[1], &syms, &e) < 0) {
        fprintf(stderr, "readspeed: %s\n", e.msg);
        return 2;
    }
    unsigned long long n = 0;
    int r;
    while ((r = l2_trace_next(t, &ev, &e)) > 0)
        n++;
    l2_trace_close(t);
    l2_symtab_free(&syms);
    if (r < 0) {
        fprintf(stderr, "readspeed: %s\n", e.msg);
        return 2;
    }
    printf("%llu\n", n);
    return 0;
}

/*
 * fuzz_ncu.c - the Nsight Compute export reader (run --ncu): an input loads
 * or fails with a message; a loaded export has rows whose function names
 * match themselves, each once, in order.
 */
#include "fuzz.h"
#include "ncu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size, ".csv");
    struct l2_ncu m;
    l2_err e;
    e.msg[0] = 0;
    if (l2_ncu_load(&m, path, &e) < 0) {
        if (!e.msg[0])
            abort();
        return 0;
    }
    const char **names = malloc(m.n * sizeof *names);
    int64_t *match = malloc(m.n * sizeof *match);
    if (!names || !match)
        abort();
    for (uint32_t i = 0; i < m.n; i++)
        names[i] = m.row[i].name;
    l2_ncu_match(&m, names, m.n, match);
    for (uint32_t i = 0; i < m.n; i++)
        if (match[i] != (int64_t)i)
            abort();
    free(names);
    free(match);
    l2_ncu_free(&m);
    return 0;
}

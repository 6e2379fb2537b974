/*
 * fuzz.h - shared by the libFuzzer harnesses (tests/fuzz/fuzz_*.c, built
 * by `make fuzz` with clang -fsanitize=fuzzer,address,undefined): the
 * readers take a path, so each input is written to a per-process file.
 */
#ifndef L2SIM_FUZZ_H
#define L2SIM_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Writes the input to a file of this process and returns its path. */
static const char *fuzz_file(const uint8_t *data, size_t size, const char *suffix)
{
    static char path[96];
    snprintf(path, sizeof path, "/tmp/l2sim-fuzz-%ld%s", (long)getpid(), suffix);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
        abort();
    return path;
}

#endif

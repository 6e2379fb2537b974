/*
 * fuzz_config.c - the configuration file parser and its checks: an input
 * loads, or fails with a message; a loaded configuration that passes
 * l2_config_check must also initialise an L2 (when it is small enough to
 * do so quickly).
 */
#include "config.h"
#include "fuzz.h"
#include "l2.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size, ".cfg");
    struct l2_config c;
    l2_err e;
    l2_config_defaults(&c);
    e.msg[0] = 0;
    if (l2_config_load(&c, path, &e) < 0) {
        if (!e.msg[0])
            abort();
        return 0;
    }
    if (l2_config_check(&c, &e) < 0)
        abort(); /* l2_config_load checks a file by itself */
    if (c.l2_size <= (8u << 20)) {
        struct l2 l;
        if (l2_init(&l, &c, &e) < 0)
            abort();
        l2_free(&l);
    }
    return 0;
}

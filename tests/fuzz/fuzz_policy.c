/*
 * fuzz_policy.c - --policy files (policy, window, setaside and assign
 * lines through the trace reader and l2_sim_policy_event) on a small L2:
 * an input sets the variant up or fails with a message.
 */
#include "driver.h"
#include "fuzz.h"
#include "symtab.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size, ".policy");
    struct l2_variant v = {.name = "fuzz",
                           .sets = {"l2_size=64KiB", "setaside_max=16KiB", "setaside=0", "partitions=1"},
                           .nsets = 4,
                           .policy = path,
                           .sem = SEM_HARDWARE};
    struct l2_symtab syms;
    struct l2_sim s;
    l2_err e;
    if (l2_symtab_init(&syms, &e) < 0)
        abort();
    e.msg[0] = 0;
    if (l2_variant_setup(&s, &v, &syms, &e) == 0)
        l2_sim_free(&s);
    else if (!e.msg[0])
        abort();
    l2_symtab_free(&syms);
    return 0;
}

/*
 * symtab.h - interned names (tags and policies), keyed by name with
 * uthash.  Cold path only: readers intern a name once and events carry
 * its id; the simulator indexes flat arrays by id.
 *
 * Ids 0..L2_NBUILTIN-1 are the built-in tags: the five PTX priorities in
 * enum l2_prio order, then streaming, persisting, normal, global.
 */
#ifndef L2SIM_SYMTAB_H
#define L2SIM_SYMTAB_H

#include <stddef.h>
#include <stdint.h>

#include "common.h"

#define L2_NBUILTIN (L2_NPRIO + 4)
#define L2_MAX_SYMS 65536u /* tags and policies of one run */
#define L2_SYM_POLICY 1u /* defined by a policy line */
#define L2_TAG_GLOBAL (L2_NPRIO + 3) /* "global": the tag of untagged accesses */

struct l2_sym;

struct l2_symtab {
    struct l2_sym *hash;  /* uthash head */
    struct l2_sym **byid; /* id -> symbol, L2_MAX_SYMS entries */
    uint32_t n;
};

int l2_symtab_init(struct l2_symtab *t, l2_err *e);
void l2_symtab_free(struct l2_symtab *t);
/* Id of name, interning it if new; -1 on out of memory or when
 * L2_MAX_SYMS names exist. */
int64_t l2_sym_intern(struct l2_symtab *t, const char *name, size_t n);
/* Id of name, or -1. */
int64_t l2_sym_find(const struct l2_symtab *t, const char *name, size_t n);
const char *l2_sym_name(const struct l2_symtab *t, uint32_t id);
unsigned l2_sym_flags(const struct l2_symtab *t, uint32_t id);
void l2_sym_set_flags(struct l2_symtab *t, uint32_t id, unsigned flags);
/* Priority that a built-in tag requests. */
enum l2_prio l2_builtin_prio(uint32_t id);

#endif

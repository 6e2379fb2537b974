/*
 * symtab.c - name interning with uthash.
 */
#include "symtab.h"

#include <stdlib.h>
#include <string.h>
#include <uthash.h>

struct l2_sym {
    UT_hash_handle hh;
    uint32_t id;
    unsigned flags;
    size_t len;
    char name[]; /* NUL-terminated */
};

static const char *const builtin_names[L2_NBUILTIN] = {
    "evict_first", "evict_normal", "evict_last", "evict_unchanged", "no_allocate",
    "streaming",   "persisting",   "normal",     "global",
};
static const enum l2_prio builtin_prio[L2_NBUILTIN] = {
    PRIO_EVICT_FIRST, PRIO_EVICT_NORMAL, PRIO_EVICT_LAST,   PRIO_EVICT_UNCHANGED, PRIO_NO_ALLOCATE,
    PRIO_EVICT_FIRST, PRIO_EVICT_LAST,   PRIO_EVICT_NORMAL, PRIO_EVICT_UNCHANGED,
};

int l2_symtab_init(struct l2_symtab *t, l2_err *e)
{
    memset(t, 0, sizeof *t);
    for (unsigned i = 0; i < L2_NBUILTIN; i++) {
        if (l2_sym_intern(t, builtin_names[i], strlen(builtin_names[i])) < 0) {
            l2_symtab_free(t);
            return l2_fail(e, "out of memory");
        }
    }
    return 0;
}

void l2_symtab_free(struct l2_symtab *t)
{
    struct l2_sym *s, *tmp;
    HASH_ITER(hh, t->hash, s, tmp)
    {
        HASH_DEL(t->hash, s);
        free(s);
    }
    free(t->byid);
    memset(t, 0, sizeof *t);
}

int64_t l2_sym_find(const struct l2_symtab *t, const char *name, size_t n)
{
    struct l2_sym *s;
    HASH_FIND(hh, t->hash, name, n, s);
    return s ? (int64_t)s->id : -1;
}

int64_t l2_sym_intern(struct l2_symtab *t, const char *name, size_t n)
{
    int64_t id = l2_sym_find(t, name, n);
    if (id >= 0)
        return id;
    /* byid never moves once allocated, so threads may read names while
     * the reader interns new ones */
    if (t->n == t->cap) {
        if (t->byid)
            return -1;
        t->byid = malloc(L2_MAX_SYMS * sizeof *t->byid);
        if (!t->byid)
            return -1;
        t->cap = L2_MAX_SYMS;
    }
    struct l2_sym *s = malloc(sizeof *s + n + 1);
    if (!s)
        return -1;
    memset(s, 0, sizeof *s);
    memcpy(s->name, name, n);
    s->name[n] = 0;
    s->len = n;
    s->id = t->n;
    t->byid[t->n++] = s;
    HASH_ADD_KEYPTR(hh, t->hash, s->name, n, s);
    return s->id;
}

const char *l2_sym_name(const struct l2_symtab *t, uint32_t id)
{
    return id < t->n ? t->byid[id]->name : "?";
}

unsigned l2_sym_flags(const struct l2_symtab *t, uint32_t id)
{
    return id < t->n ? t->byid[id]->flags : 0;
}

void l2_sym_set_flags(struct l2_symtab *t, uint32_t id, unsigned flags)
{
    if (id < t->n)
        t->byid[id]->flags = flags;
}

enum l2_prio l2_builtin_prio(uint32_t id)
{
    return id < L2_NBUILTIN ? builtin_prio[id] : PRIO_EVICT_UNCHANGED;
}

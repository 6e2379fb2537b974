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
    char name[]; /* NUL-terminated */
};

/* The built-in tags: the priorities' PTX names, then their
 * cuda::access_property names. */
#define ALIAS_NAME(prio, name) name,
#define ALIAS_PRIO(prio, name) prio,
static const char *const alias_names[] = {L2_PRIO_ALIASES(ALIAS_NAME)};
static const enum l2_prio alias_prio[] = {L2_PRIO_ALIASES(ALIAS_PRIO)};
_Static_assert(L2_NPRIO + L2_ARRAY_LEN(alias_names) == L2_NBUILTIN, "built-in tags");

int l2_symtab_init(struct l2_symtab *t, l2_err *e)
{
    memset(t, 0, sizeof *t);
    t->byid = malloc(L2_MAX_SYMS * sizeof *t->byid); /* never moves: threads may read names while the reader interns */
    if (!t->byid)
        return l2_fail(e, "out of memory");
    for (unsigned i = 0; i < L2_NBUILTIN; i++) {
        const char *name = i < L2_NPRIO ? l2_prio_names[i] : alias_names[i - L2_NPRIO];
        if (l2_sym_intern(t, name, strlen(name)) < 0) {
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
    if (t->n == L2_MAX_SYMS)
        return -1;
    struct l2_sym *s = malloc(sizeof *s + n + 1);
    if (!s)
        return -1;
    memset(s, 0, sizeof *s);
    memcpy(s->name, name, n);
    s->name[n] = 0;
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
    return id < L2_NPRIO ? (enum l2_prio)id : id < L2_NBUILTIN ? alias_prio[id - L2_NPRIO] : PRIO_EVICT_UNCHANGED;
}

/*
 * config.c - the config key table: parse files and overrides, check, print.
 */
#include "config.h"

#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const l2_sethash_names[L2_NSETHASH] = {L2_SETHASH_LIST(L2_X_NAME)};
const char *const l2_homehash_names[L2_NHOMEHASH] = {L2_HOMEHASH_LIST(L2_X_NAME)};
const char *const l2_smmap_names[L2_NSMMAP] = {L2_SMMAP_LIST(L2_X_NAME)};

struct cfg_enum {
    const char *const *names;
    unsigned n;
};
static const struct cfg_enum sethash_enum = {l2_sethash_names, L2_NSETHASH};
static const struct cfg_enum homehash_enum = {l2_homehash_names, L2_NHOMEHASH};
static const struct cfg_enum smmap_enum = {l2_smmap_names, L2_NSMMAP};

struct cfg_key {
    const char *name;
    enum cfg_type type;
    size_t off;
    uint64_t min, max;
    const struct cfg_enum *en;
    const char *help;
};

#define KEY_ROW(f, t, mn, mx, def, en, help)                                                                   \
    {#f, t, offsetof(struct l2_config, f), (uint64_t)(mn), (uint64_t)(mx), en, help},
static const struct cfg_key keys[] = {L2_CONFIG_KEYS(KEY_ROW)};
#define NKEYS L2_ARRAY_LEN(keys)

void l2_config_defaults(struct l2_config *c)
{
    memset(c, 0, sizeof *c);
#define DEF_CFG_BYTES(f, d) c->f = (uint64_t)(d);
#define DEF_CFG_UINT(f, d) c->f = (uint64_t)(d);
#define DEF_CFG_DOUBLE(f, d) c->f = (double)(d);
#define DEF_CFG_ENUM(f, d) c->f = (unsigned)(d);
#define DEF_CFG_STR(f, d) snprintf(c->f, sizeof c->f, "%s", d);
#define DEF_ROW(f, t, mn, mx, def, en, help) DEF_##t(f, def)
    L2_CONFIG_KEYS(DEF_ROW)
}

int l2_config_equal(const struct l2_config *a, const struct l2_config *b)
{
#define EQ_CFG_BYTES(f) a->f == b->f
#define EQ_CFG_UINT(f) a->f == b->f
#define EQ_CFG_DOUBLE(f) a->f == b->f
#define EQ_CFG_ENUM(f) a->f == b->f
#define EQ_CFG_STR(f) strcmp(a->f, b->f) == 0
#define EQ_ROW(f, t, mn, mx, def, en, help) &&EQ_##t(f)
    return 1 L2_CONFIG_KEYS(EQ_ROW);
}

static const struct cfg_key *find_key(const char *name, size_t n)
{
    for (size_t k = 0; k < NKEYS; k++)
        if (l2_word_is(name, n, keys[k].name))
            return &keys[k];
    return NULL;
}

static int set_value(struct l2_config *c, const struct cfg_key *k, const char *v, size_t n, l2_err *e)
{
    char *base = (char *)c + k->off;
    uint64_t u;
    double d;
    switch (k->type) {
    case CFG_BYTES:
    case CFG_UINT:
        if ((k->type == CFG_BYTES ? l2_parse_bytes(v, n, &u, e) : l2_parse_u64(v, n, &u, e)) < 0)
            return l2_prefix(e, "%s", k->name);
        if (u < k->min || u > k->max)
            return l2_fail(e, "%s = %.*s is out of range [%llu, %llu]", k->name, (int)n, v,
                           (unsigned long long)k->min, (unsigned long long)k->max);
        memcpy(base, &u, sizeof u);
        return 0;
    case CFG_DOUBLE:
        if (l2_parse_double(v, n, &d, e) < 0)
            return l2_prefix(e, "%s", k->name);
        if (d < (double)k->min || d > (double)k->max)
            return l2_fail(e, "%s = %.*s is out of range [%llu, %llu]", k->name, (int)n, v,
                           (unsigned long long)k->min, (unsigned long long)k->max);
        memcpy(base, &d, sizeof d);
        return 0;
    case CFG_STR:
        if (n < k->min || n > k->max)
            return l2_fail(e, "%s must be %llu to %llu characters", k->name, (unsigned long long)k->min,
                           (unsigned long long)k->max);
        if (l2_text_bad_at(v, n) < n)
            return l2_fail(e, "%s holds a control byte or invalid UTF-8", k->name);
        memcpy(base, v, n);
        base[n] = 0;
        return 0;
    case CFG_ENUM:
        for (unsigned i = 0; i < k->en->n; i++) {
            if (l2_word_is(v, n, k->en->names[i])) {
                memcpy(base, &i, sizeof i);
                return 0;
            }
        }
        {
            char list[256] = "";
            for (unsigned i = 0; i < k->en->n; i++) {
                strncat(list, i ? ", " : "", sizeof list - strlen(list) - 1);
                strncat(list, k->en->names[i], sizeof list - strlen(list) - 1);
            }
            return l2_fail(e, "%s = '%.*s' is not one of: %s", k->name, (int)n, v, list);
        }
    }
    return l2_fail(e, "%s: bad key type", k->name);
}

static void trim(const char **s, size_t *n)
{
    while (*n && (**s == ' ' || **s == '\t')) {
        (*s)++;
        (*n)--;
    }
    while (*n && strchr(" \t\r\n", (*s)[*n - 1]))
        (*n)--;
}

/* Parses "key = value" (text s[0..n)); *which gets the key's index. */
static int set_kv(struct l2_config *c, const char *s, size_t n, size_t *which, l2_err *e)
{
    const char *eq = memchr(s, '=', n);
    if (!eq)
        return l2_fail(e, "expected 'key = value', got '%.*s'", (int)n, s);
    const char *k = s, *v = eq + 1;
    size_t kn = (size_t)(eq - s), vn = n - kn - 1;
    trim(&k, &kn);
    trim(&v, &vn);
    const struct cfg_key *key = find_key(k, kn);
    if (!key)
        return l2_fail(e, "unknown config key '%.*s' (l2sim run --help lists the keys)", (int)kn, k);
    if (vn == 0)
        return l2_fail(e, "%s has no value", key->name);
    *which = (size_t)(key - keys);
    return set_value(c, key, v, vn, e);
}

int l2_config_set(struct l2_config *c, const char *kv, l2_err *e)
{
    size_t which;
    if (set_kv(c, kv, strlen(kv), &which, e) < 0)
        return l2_prefix(e, "--set %s", kv);
    return 0;
}

int l2_config_load(struct l2_config *c, const char *path, l2_err *e)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return l2_fail(e, "%s: cannot open config file", path);
    char line[1024];
    unsigned long ln = 0, at[NKEYS] = {0}; /* the line that set each key */
    int rc = 0;
    while (fgets(line, sizeof line, f)) {
        ln++;
        size_t n = strlen(line);
        if (n == sizeof line - 1 && line[n - 1] != '\n') {
            rc = l2_fail(e, "%s:%lu: line too long", path, ln);
            break;
        }
        char *hash = strchr(line, '#');
        if (hash)
            n = (size_t)(hash - line);
        const char *s = line;
        trim(&s, &n);
        if (n == 0)
            continue;
        size_t k;
        if (set_kv(c, s, n, &k, e) < 0) {
            rc = l2_prefix(e, "%s:%lu", path, ln);
            break;
        }
        if (at[k]) {
            rc = l2_fail(e, "%s:%lu: %s set again (first at line %lu)", path, ln, keys[k].name, at[k]);
            break;
        }
        at[k] = ln;
    }
    if (rc == 0 && ferror(f))
        rc = l2_fail(e, "%s: read error", path);
    fclose(f);
    /* a file must hold together by itself: a rule between keys names the
     * lines of the keys it names */
    if (rc == 0 && l2_config_check(c, e) < 0) {
        char where[256] = "";
        size_t w = 0;
        for (size_t k = 0; k < NKEYS; k++) {
            const char *m = strstr(e->msg, keys[k].name);
            size_t kn = strlen(keys[k].name);
            if (!at[k] || !m || (m > e->msg && (m[-1] == '_' || isalnum((unsigned char)m[-1]))) ||
                m[kn] == '_' || isalnum((unsigned char)m[kn]))
                continue;
            int r = snprintf(where + w, sizeof where - w, "%s%s at line %lu", w ? ", " : " (", keys[k].name, at[k]);
            if (r > 0 && (size_t)r < sizeof where - w)
                w += (size_t)r;
        }
        char msg[sizeof e->msg];
        snprintf(msg, sizeof msg, "%s", e->msg);
        rc = l2_fail(e, "%s: %s%s%s", path, msg, where, w ? ")" : "");
    }
    return rc;
}

int l2_config_check(const struct l2_config *c, l2_err *e)
{
    if (c->line_size & (c->line_size - 1))
        return l2_fail(e, "line_size = %llu is not a power of two", (unsigned long long)c->line_size);
    if (c->sector_size & (c->sector_size - 1))
        return l2_fail(e, "sector_size = %llu is not a power of two", (unsigned long long)c->sector_size);
    if (c->sector_size > c->line_size || c->line_size / c->sector_size > 8)
        return l2_fail(e, "line_size / sector_size must be 1 to 8 sectors (got %llu / %llu)",
                       (unsigned long long)c->line_size, (unsigned long long)c->sector_size);
    if (c->dram_atom & (c->dram_atom - 1) || c->dram_atom > c->line_size)
        return l2_fail(e, "dram_atom = %llu must be a power of two no larger than line_size",
                       (unsigned long long)c->dram_atom);
    if (c->hash_chunk & (c->hash_chunk - 1))
        return l2_fail(e, "hash_chunk = %llu is not a power of two", (unsigned long long)c->hash_chunk);
    if (c->hash_block && (c->hash_block & (c->hash_block - 1) || c->hash_block < c->line_size ||
                          c->hash_block > c->hash_chunk))
        return l2_fail(e, "hash_block = %llu is not 0 or a power of two from line_size to hash_chunk",
                       (unsigned long long)c->hash_block);
    uint64_t unit = c->line_size * c->ways * c->partitions;
    if (c->l2_size % unit)
        return l2_fail(e, "l2_size = %llu is not a multiple of line_size x ways x partitions = %llu",
                       (unsigned long long)c->l2_size, (unsigned long long)unit);
    if (c->setaside_max > c->l2_size)
        return l2_fail(e, "setaside_max = %llu exceeds l2_size = %llu",
                       (unsigned long long)c->setaside_max, (unsigned long long)c->l2_size);
    if (c->setaside > c->setaside_max)
        return l2_fail(e, "setaside = %llu exceeds setaside_max = %llu",
                       (unsigned long long)c->setaside, (unsigned long long)c->setaside_max);
    if (c->first_ways > (double)c->ways)
        return l2_fail(e, "first_ways = %g exceeds ways = %llu", c->first_ways, (unsigned long long)c->ways);
    if (c->quota_sets & (c->quota_sets - 1))
        return l2_fail(e, "quota_sets = %llu is not a power of two", (unsigned long long)c->quota_sets);
    if (c->queue_sets & (c->queue_sets - 1))
        return l2_fail(e, "queue_sets = %llu is not a power of two", (unsigned long long)c->queue_sets);
    if (c->queue_sets < c->quota_sets)
        return l2_fail(e, "queue_sets = %llu is below quota_sets = %llu", (unsigned long long)c->queue_sets,
                       (unsigned long long)c->quota_sets);
    if (c->first_max > c->ways)
        return l2_fail(e, "first_max = %llu exceeds ways = %llu", (unsigned long long)c->first_max,
                       (unsigned long long)c->ways);
    if (c->first_store_ways > (double)c->ways)
        return l2_fail(e, "first_store_ways = %g exceeds ways = %llu", c->first_store_ways,
                       (unsigned long long)c->ways);
    if (c->setaside_floor_ways > c->ways)
        return l2_fail(e, "setaside_floor_ways = %llu exceeds ways = %llu",
                       (unsigned long long)c->setaside_floor_ways, (unsigned long long)c->ways);
    if (c->sm_map == SMMAP_TABLE) {
        size_t n = strlen(c->sm_parts);
        if (n != c->sms)
            return l2_fail(e, "sm_parts has %zu digits, sms = %llu (sm_map = table: one per SM)", n,
                           (unsigned long long)c->sms);
        for (size_t s = 0; s < n; s++) {
            int p = l2_config_sm_part(c, s);
            if (p < 0 || (uint64_t)p >= c->partitions)
                return l2_fail(e, "sm_parts: SM %zu's digit '%c' is not a partition (0 to %llu)", s, c->sm_parts[s],
                               (unsigned long long)c->partitions - 1);
        }
    }
    return 0;
}

/* Value of key k of c as text, in buf; `plain`: byte counts as whole bytes
 * and doubles to 15 digits (JSON), else as a configuration file spells
 * them. */
static const char *key_value_as(const struct l2_config *c, const struct cfg_key *k, char *buf, size_t n, int plain)
{
    const char *base = (const char *)c + k->off;
    uint64_t u;
    double d;
    unsigned en;
    switch (k->type) {
    case CFG_BYTES:
    case CFG_UINT:
        memcpy(&u, base, sizeof u);
        if (k->type == CFG_BYTES && !plain)
            return l2_fmt_bytes(u, buf, n);
        snprintf(buf, n, "%llu", (unsigned long long)u);
        return buf;
    case CFG_DOUBLE:
        memcpy(&d, base, sizeof d);
        snprintf(buf, n, plain ? "%.15g" : "%g", d);
        return buf;
    case CFG_STR:
        snprintf(buf, n, "%s", base);
        return buf;
    case CFG_ENUM:
        memcpy(&en, base, sizeof en);
        snprintf(buf, n, "%s", k->en->names[en]);
        return buf;
    }
    return NULL;
}

static const char *key_value(const struct l2_config *c, const struct cfg_key *k, char *buf, size_t n)
{
    return key_value_as(c, k, buf, n, 0);
}

const char *l2_config_get(const struct l2_config *c, const char *name, char *buf, size_t n)
{
    const struct cfg_key *k = find_key(name, strlen(name));
    return k ? key_value(c, k, buf, n) : NULL;
}

const char *l2_config_entry(const struct l2_config *c, size_t i, const char **name, char *buf, size_t n)
{
    if (i >= NKEYS)
        return NULL;
    *name = keys[i].name;
    return key_value(c, &keys[i], buf, n);
}

const char *l2_config_entry_json(const struct l2_config *c, size_t i, const char **name, char *buf, size_t n,
                                 int *text)
{
    if (i >= NKEYS)
        return NULL;
    const struct cfg_key *k = &keys[i];
    *name = k->name;
    *text = k->type == CFG_STR || k->type == CFG_ENUM;
    return key_value_as(c, k, buf, n, 1);
}

void l2_config_print(const struct l2_config *c, FILE *f, const char *prefix)
{
    char buf[L2_CFG_STR_LEN];
    for (size_t k = 0; k < NKEYS; k++)
        fprintf(f, "%s%-20s = %s\n", prefix, keys[k].name, key_value(c, &keys[k], buf, sizeof buf));
}

void l2_config_help(FILE *f)
{
    struct l2_config d;
    char buf[L2_CFG_STR_LEN];
    l2_config_defaults(&d);
    for (size_t k = 0; k < NKEYS; k++) {
        fprintf(f, "  %-20s %s (default %s)\n", keys[k].name, keys[k].help,
                key_value(&d, &keys[k], buf, sizeof buf));
    }
}

/*
 * common.h - error reporting, strict number parsing and the enum tables
 * shared by every l2sim module.
 *
 * Library code never prints or exits: a failing function fills an l2_err
 * (one message naming the place and the reason) and returns -1.  Only
 * main.c prints the message and chooses the exit code.
 */
#ifndef L2SIM_COMMON_H
#define L2SIM_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define L2_ERR_MAX 512

typedef struct l2_err {
    char msg[L2_ERR_MAX];
} l2_err;

/* Formats into e (if not NULL) and returns -1, so callers can write
 * `return l2_fail(e, "...")`. */
int l2_fail(l2_err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Grows the array *pp (capacity *cap elements of `elem` bytes) to hold at
 * least `need` elements, doubling.  Returns 0, or -1 with a reason. */
int l2_grow(void *pp, uint32_t *cap, uint64_t need, size_t elem, l2_err *e);
/* Prefixes an existing message with "where: ". Returns -1. */
int l2_prefix(l2_err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Strict parsers over a (pointer, length) token.  Decimal or 0x hex,
 * no sign, no trailing junk, overflow detected.  l2_parse_bytes also takes
 * the suffixes B, KiB, MiB, GiB, TiB (binary multiples).  Return 0 or -1
 * with a reason in e (without position: the caller adds it).
 */
int l2_parse_u64(const char *s, size_t n, uint64_t *out, l2_err *e);

/* The offset of the first byte of s[0..n) that is not text: a control byte
 * other than tab and carriage return (NUL included), DEL, or a byte of an
 * invalid or overlong UTF-8 sequence; n when all is text.  Names checked
 * with it can be printed in messages and JSON as they are. */
size_t l2_text_bad_at(const char *s, size_t n);
/* Length of the valid UTF-8 sequence at s (1 to 4; 1 for an ASCII byte),
 * or 0 when the byte at s does not start one (overlong forms and
 * surrogates included).  s is NUL-terminated or holds the whole sequence. */
size_t l2_utf8_len(const char *s);
int l2_parse_bytes(const char *s, size_t n, uint64_t *out, l2_err *e);
int l2_parse_double(const char *s, size_t n, double *out, l2_err *e);

/* Formats a byte count with the largest exact binary unit ("50MiB",
 * "9600KiB", "1000"). buf needs 32 bytes. */
const char *l2_fmt_bytes(uint64_t v, char *buf, size_t n);

/* L2 eviction priorities, under their PTX names.  The order is fixed:
 * reports list priorities in this order. */
#define L2_PRIO_LIST(X)                        \
    X(PRIO_EVICT_FIRST, "evict_first")         \
    X(PRIO_EVICT_NORMAL, "evict_normal")       \
    X(PRIO_EVICT_LAST, "evict_last")           \
    X(PRIO_EVICT_UNCHANGED, "evict_unchanged") \
    X(PRIO_NO_ALLOCATE, "no_allocate")

#define L2_X_ENUM(id, name) id,
#define L2_X_NAME(id, name) [id] = name,
enum l2_prio { L2_PRIO_LIST(L2_X_ENUM) L2_NPRIO };
extern const char *const l2_prio_names[L2_NPRIO];

/* The cuda::access_property names of the priorities, in this order. */
#define L2_PRIO_ALIASES(X)                \
    X(PRIO_EVICT_FIRST, "streaming")      \
    X(PRIO_EVICT_LAST, "persisting")      \
    X(PRIO_EVICT_NORMAL, "normal")        \
    X(PRIO_EVICT_UNCHANGED, "global")

/* Trace operations. */
#define L2_OP_LIST(X)              \
    X(OP_READ, 'R', "load")        \
    X(OP_WRITE, 'W', "store")      \
    X(OP_PREFETCH, 'P', "prefetch") \
    X(OP_APPLY, 'A', "applypriority") \
    X(OP_DISCARD, 'D', "discard")
#define L2_X_OPENUM(id, ch, name) id,
enum l2_op { L2_OP_LIST(L2_X_OPENUM) L2_NOP };
extern const char l2_op_chars[L2_NOP];

/*
 * Parses a priority given as a PTX name (evict_first ...), a
 * cuda::access_property name (streaming, persisting, normal, global).
 * Returns 0 and the priority, or -1 with a reason.  `shared` is rejected
 * with its own reason (a memory-space property, not an L2 one).
 */
int l2_prio_parse(const char *s, size_t n, enum l2_prio *out, l2_err *e);

#define L2_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Whether the n bytes at w are the word `lit`, or begin with `pfx` and go on. */
static inline int l2_word_is(const char *w, size_t n, const char *lit)
{
    return strlen(lit) == n && memcmp(w, lit, n) == 0;
}
static inline int l2_has_prefix(const char *w, size_t n, const char *pfx)
{
    size_t pn = strlen(pfx);
    return n > pn && memcmp(w, pfx, pn) == 0;
}

/* ceil(log2(v)), v >= 1: the shift of a power of two. */
static inline unsigned l2_log2_ceil(uint64_t v)
{
    unsigned k = 0;
    while (k < 63 && ((uint64_t)1 << k) < v)
        k++;
    return k;
}

/* The 64-bit hash of lines (shares, homes, sets; seeded by its callers):
 * every bit of the input moves every bit of the output, so that a share
 * of lines it picks does not follow their place in memory. */
static inline uint64_t l2_mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

/* Bits set: the popcnt instruction where the build targets it (ARCH in the
 * Makefile), else a table for sector masks and the bit trick for words. */
#ifdef __POPCNT__
static inline unsigned l2_popcount8(uint8_t m)
{
    return (unsigned)__builtin_popcount(m);
}

static inline unsigned l2_popcount32(uint32_t m)
{
    return (unsigned)__builtin_popcount(m);
}
#else
extern const uint8_t l2_popcount8_table[256];
static inline unsigned l2_popcount8(uint8_t m)
{
    return l2_popcount8_table[m];
}

static inline unsigned l2_popcount32(uint32_t m)
{
    m = m - ((m >> 1) & 0x55555555u);
    m = (m & 0x33333333u) + ((m >> 2) & 0x33333333u);
    return (((m + (m >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24;
}
#endif

/* Zeroed, 64-byte aligned memory for a large table that is read at random
 * (free with free()).  From 2 MiB up it is aligned to 2 MiB and, where the
 * kernel offers it, backed by huge pages: fewer TLB misses. */
void *l2_alloc_table(size_t bytes);

#endif

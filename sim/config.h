/*
 * config.h - the GPU configuration: one table of keys (name, type, bounds,
 * default, help) that parses config files and --set overrides, prints the
 * key list for --help and echoes the effective configuration in reports.
 *
 * Config files are `key = value` lines; `#` starts a comment.  Byte values
 * take B/KiB/MiB/GiB/TiB suffixes.  Unknown keys and out-of-range values are
 * errors naming the file and line.
 */
#ifndef L2SIM_CONFIG_H
#define L2SIM_CONFIG_H

#include <stdint.h>
#include <stdio.h>

#include "common.h"

enum cfg_type { CFG_BYTES, CFG_UINT, CFG_DOUBLE, CFG_STR, CFG_ENUM };

/* Room for a text value (CFG_STR): at most L2_CFG_STR_LEN - 1 characters. */
#define L2_CFG_STR_LEN 256

/* Set-index hash functions (see l2.c). */
#define L2_SETHASH_LIST(X) X(SETHASH_MIX, "mix") X(SETHASH_STRIPE, "stripe")
enum l2_sethash { L2_SETHASH_LIST(L2_X_ENUM) L2_NSETHASH };

/* Home-partition functions (see l2.h). */
#define L2_HOMEHASH_LIST(X) X(HOMEHASH_MIX, "mix") X(HOMEHASH_BALANCED, "balanced")
enum l2_homehash { L2_HOMEHASH_LIST(L2_X_ENUM) L2_NHOMEHASH };

/* SM to partition maps (see l2.c). */
#define L2_SMMAP_LIST(X) X(SMMAP_MOD, "mod") X(SMMAP_HALF, "half") X(SMMAP_TABLE, "table")
enum l2_smmap { L2_SMMAP_LIST(L2_X_ENUM) L2_NSMMAP };

/*
 * X(field, type, min, max, default, enum_names, help)
 * For CFG_STR the default is a string and min/max bound its length; for
 * CFG_ENUM min/max are unused and enum_names is the name table.
 */
#define L2_CONFIG_KEYS(X)                                                                       \
    X(name, CFG_STR, 1, 63, "H100 SXM5 80GB (built-in defaults)", NULL, "GPU name shown in reports")         \
    X(l2_size, CFG_BYTES, 128, 1ULL << 32, 50ULL << 20, NULL,                                 \
      "total L2 capacity (all partitions, at most 4 GiB); need not be a power of two")         \
    X(line_size, CFG_BYTES, 32, 1024, 128, NULL, "cache line size, a power of two")             \
    X(sector_size, CFG_BYTES, 8, 1024, 32, NULL,                                                \
      "sector size, a power of two dividing line_size, at most 8 sectors a line")               \
    X(ways, CFG_UINT, 1, 32, 16, NULL, "associativity (ways per set)")                          \
    X(partitions, CFG_UINT, 1, 16, 2, NULL, "L2 partitions; each holds l2_size/partitions")     \
    X(sms, CFG_UINT, 1, 4096, 132, NULL, "number of SMs (sm=N in traces must be below it)")    \
    X(sm_map, CFG_ENUM, 0, 0, SMMAP_MOD, &smmap_enum,                                       \
      "SM to partition: mod (sm mod partitions), half (consecutive halves) or table (sm_parts)")  \
    X(sm_parts, CFG_STR, 1, L2_CFG_STR_LEN - 1, "0", NULL,                                    \
      "with sm_map = table, the partition of each SM: one hexadecimal digit per SM, sms of them " \
      "(measured with tools/hwprobe/smpart.cu; it differs from board to board)")               \
    X(far_copy, CFG_UINT, 0, 1, 1, NULL,                                                        \
      "1: a load served by the far (home) partition leaves a copy in the near one")             \
    X(far_part_refresh, CFG_UINT, 0, 1, 0, NULL,                                                \
      "1: a load from the far partition for part of a line (not all its sectors) makes the home "  \
      "line most recent, as one for the whole line does; 0: it leaves the home line as old as it was") \
    X(near_refresh_pct, CFG_UINT, 0, 100, 100, NULL,                                          \
      "percent of the lines (chosen by a hash of the line) whose home line a load served whole by " \
      "the copy in the near partition makes most recent, as a hit at home does; the others' home " \
      "lines stay as old as they were")                                                         \
    X(store_copy, CFG_UINT, 0, 1, 1, NULL,                                                      \
      "1: a store from an SM whose near partition is not the line's home writes a copy there "  \
      "too (not an evict_first or no_allocate store)")                                          \
    X(partial_write_fill, CFG_UINT, 0, 1, 0, NULL,                                             \
      "1: a store that writes part of a sector (not all its bytes) that its home line lacks reads " \
      "the sector from DRAM first (sector_size bytes)")                                          \
    X(written_reprieve_pct, CFG_UINT, 0, 100, 0, NULL,                                          \
      "percent of the lines holding written data (a dirty line, or a copy a store wrote; chosen " \
      "by a hash of the line) that, met as a fill's victim, are kept as their set's most recent " \
      "line, clean, the fill taking the next victim (their write-back counts when they leave, " \
      "are stored to again or are read at home); the others go")                                                     \
    X(reprieve_again_pct, CFG_UINT, 0, 100, 0, NULL,                                          \
      "written_reprieve_pct > 0: percent of the reprieved lines (chosen by another hash of the " \
      "line) that, met as a fill's victim again while they still owe their write-back, are kept " \
      "once more, the same way; the others go")                                               \
    X(reprieve_empty_copy, CFG_UINT, 0, 1, 0, NULL,                                     \
      "written_reprieve_pct > 0, 1: a home line that a reprieve keeps leaves its copies in the other " \
      "partitions without data: they keep their ways and their age, and a load that finds one is "  \
      "served by the home partition (a far hit) and fills it again")                           \
    X(dirty_ways, CFG_UINT, 0, 32, 0, NULL,                                                   \
      "ways of a set that may hold written data (0: no limit): a store that leaves more writes back " \
      "the least recently used of the others, which stays, clean")                             \
    X(dirty_gap_ways, CFG_UINT, 0, 32, 0, NULL,                                               \
      "dirty_ways > 0: written data may hold at most the ways outside the set-aside less this many " \
      "(and never fewer than one)")                                                            \
    X(reprieve_min_ways, CFG_UINT, 1, 32, 1, NULL,                                            \
      "written_reprieve_pct > 0: a written line can have the reprieve only if the store that made it " \
      "written (from clean) left at least this many ways of its set holding written data, itself "  \
      "included (1: every written line the hash picks)")                                        \
    X(set_hash, CFG_ENUM, 0, 0, SETHASH_MIX, &sethash_enum,                                  \
      "set index: mix (a hash of each line) or stripe (consecutive lines in consecutive sets within "             \
      "hash_chunk runs); the home partition is home_hash's")                                                \
    X(hash_chunk, CFG_BYTES, 128, 1ULL << 40, 128ULL << 20, NULL,                               \
      "set_hash = stripe: bytes of the runs of consecutive lines (a power of two)")           \
    X(hash_block, CFG_BYTES, 0, 1ULL << 40, 0, NULL,                                            \
      "set_hash = stripe: within each aligned block of this many bytes (a power of two from line_size " \
      "to hash_chunk) the lines are rotated by a hashed amount before they take their sets, so that "  \
      "lines a power of two apart spread over the sets as contiguous ones do (0: no rotation)")    \
    X(hash_seed, CFG_UINT, 0, UINT32_MAX, 0, NULL, "seed of the set-index and home hashes")     \
    X(home_hash, CFG_ENUM, 0, 0, HOMEHASH_MIX, &homehash_enum,                                 \
      "home partition: mix (a hash of each line) or balanced (lines that lie a multiple of sets "  \
      "lines apart take the partitions in turn from a hashed start, so that with set_hash = stripe "  \
      "every set's lines split evenly between them)")                                               \
    X(first_ways, CFG_DOUBLE, 0, 32, 1.0, NULL,                                                 \
      "evict_first lines a set holds before an evict_first fill takes one of them (below that they age like "  \
      "normal lines; every other fill takes them first); a fraction f above n means a share f of the sets "     \
      "allows n+1")                                                                                             \
    X(first_max, CFG_UINT, 0, 32, 0, NULL,                                                      \
      "evict_first lines a set may grow to beyond first_ways (see first_grow); 0: no growth")        \
    X(first_grow, CFG_DOUBLE, 0, 1, 0.0, NULL,                                                  \
      "share of the evict_first fills into a set at its first_ways (by a hash of the line) that take the " \
      "least recently used normal line instead of an evict_first one, while the set holds fewer than "     \
      "first_max")                                                                                          \
    X(first_share, CFG_DOUBLE, 0, 1, 0.0, NULL,                                                 \
      "with a set-aside, first_ways is at most this share of the ways outside it; 0: first_ways always")     \
    X(first_store_ways, CFG_DOUBLE, 0, 32, 0.0, NULL,                                           \
      "lines written by evict_first stores kept per set, counted over groups of quota_sets sets, before such a "  \
      "store replaces the least recently used of them in its set (otherwise they are normal lines); "            \
      "fractional; 0: no limit")                                                                                \
    X(start_full, CFG_UINT, 0, 1, 0, NULL,                                                      \
      "1: the L2 starts full of clean normal lines that no access asks for (what earlier work left: an L2 "   \
      "is never empty once anything ran), older than every line the trace brings; 0: it starts empty, as "   \
      "after an invalidation")                                                                               \
    X(setaside, CFG_BYTES, 0, 1ULL << 40, 9830400, NULL,                                              \
      "persisting set-aside in force when the trace starts (cudaLimitPersistingL2CacheSize)")   \
    X(setaside_max, CFG_BYTES, 0, 1ULL << 40, 32768000, NULL,                                          \
      "largest set-aside a trace may request (persistingL2CacheMaxSize)")                       \
    X(setaside_floor_ways, CFG_UINT, 0, 32, 1, NULL,                                            \
      "evict_last ways per set kept even when the set-aside is 0")                              \
    X(quota_sets, CFG_UINT, 1, 512, 2, NULL,                                                    \
      "consecutive sets over which the set-aside quota is counted, a power of two: an evict_last line "     \
      "beyond quota x quota_sets in its group makes the least recently used one of its queue_sets group normal") \
    X(queue_sets, CFG_UINT, 1, 512, 256, NULL,                                                  \
      "consecutive sets whose evict_last lines are queued together, a power of two, at least quota_sets: "   \
      "a group keeps at most quota x queue_sets, and the oldest go first")                                 \
    X(policy_seed, CFG_UINT, 0, UINT32_MAX, 0, NULL,                                            \
      "seed of the address hash that picks interleaved and window shares")                      \
    X(dram_atom, CFG_BYTES, 8, 1024, 32, NULL,                                                  \
      "DRAM read and fill granule: a missing sector is read and filled with the rest of its granule") \
    /* timing model (see timing.h); none of these changes a hit rate */                         \
    X(clock_mhz, CFG_DOUBLE, 1, 100000, 1980, NULL,                                             \
      "SM clock in MHz: the cycle of latencies, @CYCLE and the ..._per_clk rates")              \
    X(launch_ns, CFG_DOUBLE, 0, 1000000000, 2200, NULL,                                         \
      "fixed time of every kernel outside its requests (launch, block dispatch, drain), ns")   \
    X(lat_near_hit, CFG_DOUBLE, 0, 1000000, 260, NULL, "latency of a near-partition hit, cycles") \
    X(lat_far_hit, CFG_DOUBLE, 0, 1000000, 440, NULL, "latency of a far-partition hit, cycles") \
    X(lat_dram, CFG_DOUBLE, 0, 1000000, 700, NULL,                                              \
      "latency of a miss served by DRAM through the near partition, cycles")                   \
    X(l2_slices, CFG_UINT, 1, 4096, 80, NULL, "L2 slices in all (the same number per partition)") \
    X(slice_bytes_per_clk, CFG_DOUBLE, 1, 1000000000, 44, NULL, "throughput of one L2 slice, bytes per cycle") \
    X(slice_req_bytes, CFG_UINT, 0, 4096, 0, NULL,                                                \
      "a request (the sectors of one line an access asks for) occupies a slice for this many bytes' " \
      "time beyond its own bytes")                                                               \
    X(xbar_bytes_per_clk, CFG_DOUBLE, 1, 1000000000, 480, NULL,                                    \
      "partition crossing: bytes per cycle into each partition from the others")              \
    X(dram_gbps, CFG_DOUBLE, 1, 1000000000, 3350, NULL, "DRAM peak bandwidth, GB/s (10^9 bytes)")   \
    X(dram_efficiency_pct, CFG_DOUBLE, 1, 100, 92, NULL,                                        \
      "share of dram_gbps that streaming reads achieve, percent")                               \
    X(dram_partial_efficiency_pct, CFG_DOUBLE, 1, 100, 92, NULL,                                \
      "share of dram_gbps achieved by reads of less than a line (scattered granules), percent") \
    X(wb_room_ways, CFG_UINT, 0, 32, 0, NULL,                                                   \
      "with fewer ways than this outside the set-aside, a kernel whose write-backs are a quarter " \
      "or more of its DRAM bytes moves all of them slower (0: never)")                          \
    X(wb_slow_per_way, CFG_DOUBLE, 0, 100, 0.0, NULL,                                           \
      "... by this much more time per way short of wb_room_ways (fewer write-backs: in "        \
      "proportion)")                                                                            \
    X(dram_channels, CFG_UINT, 1, 4096, 80, NULL, "DRAM channels sharing the bandwidth")        \
    X(mshr_per_slice, CFG_UINT, 1, 65536, 256, NULL, "line misses one L2 slice keeps in flight") \
    X(sm_inflight, CFG_UINT, 1, 1048576, 256, NULL,                                             \
      "lines (L2 requests) one SM keeps in flight when the trace gives no @CYCLE; a line of fewer " \
      "sectors holds its share of one")                                                         \
    X(sm_warps, CFG_UINT, 1, 1024, 64, NULL,                                                    \
      "resident warps per SM that sm_inflight assumes (full occupancy); a kernel line whose grid= and " \
      "block= leave fewer per SM keeps proportionally fewer lines in flight")                   \
    X(sm_bytes_per_clk, CFG_DOUBLE, 1, 1000000000, 64, NULL, "request bytes one SM sends per cycle")

struct l2_config {
#define L2_X_FIELD_CFG_BYTES(f) uint64_t f;
#define L2_X_FIELD_CFG_UINT(f) uint64_t f;
#define L2_X_FIELD_CFG_DOUBLE(f) double f;
#define L2_X_FIELD_CFG_STR(f) char f[L2_CFG_STR_LEN];
#define L2_X_FIELD_CFG_ENUM(f) unsigned f;
#define L2_X_FIELD(f, t, mn, mx, def, en, help) L2_X_FIELD_##t(f)
    L2_CONFIG_KEYS(L2_X_FIELD)
#undef L2_X_FIELD
};

extern const char *const l2_sethash_names[L2_NSETHASH];
extern const char *const l2_homehash_names[L2_NHOMEHASH];
extern const char *const l2_smmap_names[L2_NSMMAP];

/* Fills c with the table's defaults. */
void l2_config_defaults(struct l2_config *c);
/* Loads a config file over c. */
int l2_config_load(struct l2_config *c, const char *path, l2_err *e);
/* Applies one "key=value" override. */
int l2_config_set(struct l2_config *c, const char *kv, l2_err *e);
/* 1 when every key of a and b has the same value. */
int l2_config_equal(const struct l2_config *a, const struct l2_config *b);
/* Checks the relations between keys (geometry, set-aside bounds). */
int l2_config_check(const struct l2_config *c, l2_err *e);

/* Quantities derived from a checked configuration. */
static inline uint32_t l2_config_sets(const struct l2_config *c) /* per partition */
{
    return (uint32_t)(c->l2_size / (c->line_size * c->ways * c->partitions));
}

/* The partition sm_parts gives SM s (a hexadecimal digit), -1 when its
 * character is not one. */
static inline int l2_config_sm_part(const struct l2_config *c, size_t s)
{
    const char ch = c->sm_parts[s];
    return ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
}

static inline uint64_t l2_config_granule(const struct l2_config *c) /* DRAM transfer unit, bytes */
{
    return c->dram_atom > c->sector_size ? c->dram_atom : c->sector_size;
}
/* Writes "key = value" lines, each prefixed by `prefix`. */
void l2_config_print(const struct l2_config *c, FILE *f, const char *prefix);
/* Writes the key table (name, default, help) for --help. */
void l2_config_help(FILE *f);
/* Value of one key as text; NULL if no such key. */
const char *l2_config_get(const struct l2_config *c, const char *key, char *buf, size_t n);
/* Key i of the table (in its order) and its value as text; NULL past the
 * last key. */
const char *l2_config_entry(const struct l2_config *c, size_t i, const char **name, char *buf, size_t n);
/* The same as a JSON value: numbers for numeric keys (byte counts as whole
 * bytes), *text = 1 for the text keys (name, sm_map, sm_parts, set_hash, home_hash), whose
 * value the caller quotes. */
const char *l2_config_entry_json(const struct l2_config *c, size_t i, const char **name, char *buf, size_t n,
                                 int *text);

#endif

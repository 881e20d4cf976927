/* Column stats of a Parquet file from its footer alone: per catalog leaf
 * column, value and null counts, compressed size, and Iceberg single-value
 * lower/upper bounds (the `column_stats` of a commit, pyhoglake-client.md
 * §4). The client computes them from the footer its writer hands back; the
 * server's hydrator from a footer it fetched.
 *
 * Mapping. The catalog tree is walked depth-first in ordinal order, and
 * each column is looked up by name among the footer schema's children of
 * the node its parent matched (first match wins): struct children by
 * their names, a list's element as `col.list.element`, a map's entries as
 * `col.key_value.key` / `col.key_value.value` — the dotted path_in_schema
 * of pyhoglake, compared name by name so that a name holding a dot cannot
 * be mistaken for a nested path. Containers yield nothing themselves,
 * variant columns nothing at all, and footer columns the catalog does not
 * know are ignored. A catalog leaf that meets a footer group (or the
 * reverse) has no chunk and yields nothing.
 *
 * Counts. value_count sums the chunks' num_values (leaf slots, nulls
 * included), null_count their statistics' null counts, size_bytes their
 * total_compressed_size. A column any of whose chunks lacks metadata,
 * statistics or a null count is left out entirely: counts are never made
 * up.
 *
 * Bounds (both NULL unless every condition holds):
 *  - the footer leaf can honestly hold a bound of the catalog type (the
 *    table of §4.3, mirrored from the server's Kotlin hydrator, with the
 *    unsigned-width rule). Integer catalog types also refuse a leaf whose
 *    annotation gives its number another meaning (DATE, TIME, TIMESTAMP,
 *    DECIMAL...), which pyhoglake refuses as a value of the wrong type;
 *  - every row group holding a non-null value (num_values > null_count)
 *    has min_value and max_value (the deprecated min/max fields are not
 *    used); all-null row groups are skipped; some row group contributed;
 *  - every statistic decodes and the result is representable: a value of
 *    the physical type's width, timestamps scaled from the footer's unit
 *    without overflow (micros types refuse a NANOS footer; timestamp_ns
 *    scales raw ticks by the footer's unit), 4-byte types in int32 range,
 *    decimals within 16 bytes. Anything else drops the bounds, never the
 *    call.
 * Floats are aggregated in IEEE total order and a zero bound is written
 * -0.0 as a lower and +0.0 as an upper bound, whatever row-group order or
 * zero the footer had; a bound that would be NaN is dropped on its own.
 *
 * Errors: a footer whose row groups disagree with its schema (column
 * counts, chunk paths) or whose counts are negative, overflow, or have
 * more nulls than values is ERR_CORRUPT; ERR_NOMEM when the arena
 * runs out. */
#ifndef HL_PARQUET_COLSTATS_H
#define HL_PARQUET_COLSTATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lake/schema.h"
#include "parquet/meta.h"
#include "parquet/schema.h"
#include "util/arena.h"

struct pq_col_stats {
    int64_t field_id;
    int64_t value_count, null_count, size_bytes;
    const uint8_t *lower, *upper; /* NULL: no bound; owned by the arena passed in */
    size_t lower_len, upper_len;
};

/* One entry per catalog leaf column the footer holds stats for, in catalog
 * (ordinal, depth-first) order; *out (NULL when *n is 0) and the bounds live
 * in `arena`. `schema` is the tree of meta's schema (the writer's result and
 * the reader hand it out); NULL builds it here from meta. */
int pq_footer_column_stats(const struct pq_file_meta *meta, const struct pq_schema *schema,
                           const struct lake_table *table, struct arena *arena,
                           struct pq_col_stats **out, size_t *n, struct error *err);

/* The same for row group g alone (the row-group pruning of a scan): its
 * chunks' counts and bounds, under the same rules. g beyond the file's
 * row groups is ERR_INVALID. */
int pq_row_group_column_stats(const struct pq_file_meta *meta, const struct pq_schema *schema,
                              const struct lake_table *table, size_t g, struct arena *arena,
                              struct pq_col_stats **out, size_t *n, struct error *err);

/* One PLAIN-encoded statistic of footer leaf el (a footer's or a page
 * index's min or max) as an Iceberg single-value bound of catalog column c
 * (a lower bound when lower, which decides a zero's sign), into the arena,
 * under the rules above: NULL when the leaf cannot honestly bound c or the
 * value does not decode or is not representable, and *oom set when the
 * arena ran out. */
const uint8_t *pq_stat_bound(const struct lake_column *c, const struct pq_schema_element *el,
                             const uint8_t *plain, size_t len, bool lower, struct arena *arena,
                             size_t *bound_len, bool *oom);

#endif

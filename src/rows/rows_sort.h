/* Reordering rows of Arrow batches: gathering chosen rows of one or more
 * batches into a new batch (take), and a stable sort of row references by
 * sort keys in Iceberg's value order (sort).
 *
 * A batch is a struct array whose children are the top-level columns, as
 * the Parquet writer takes it; all batches share one schema. Formats
 * handled: b, c C s S i I l L, f g, d:P,S[,128], tdD tdm, tts ttm ttu ttn,
 * ts?:[zone], u U z Z, w:N, and nested +s +l +L +m of these. Arrays may
 * have non-zero offsets at every level and validity bitmaps (null_count
 * -1 means unknown).
 *
 * Both calls return 0, or -1 with a struct error (NULL allowed) whose
 * message names the column path and whose code says what failed:
 * ERR_INVALID for malformed arrays, a reference out of range or bad
 * arguments; ERR_NOT_FOUND for a key path that names no column;
 * ERR_UNSUPPORTED for a key on a struct, list or map (not comparable);
 * ERR_LIMIT when the result would not fit (32-bit offsets past 2 GiB);
 * ERR_NOMEM. Both only read the batches (safe to share between threads)
 * and keep no state.
 *
 * Memory: a take allocates its result plus 16 bytes per taken value at
 * each nesting level while it runs; a sort about 80 bytes per reference
 * (plus a table of the first long-valued key's distinct values). Speed
 * (Release, bench/sort): 1M rows of 100 batches by (string, string,
 * timestamptz) sort in 0.2-0.5 s and take in about 0.3 s. */
#ifndef HL_ROWS_SORT_H
#define HL_ROWS_SORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hoglake/arrow_abi.h"
#include "lake/schema.h"
#include "util/error.h"

/* A row: row `row` (0-based, before the batch's offset) of batches[batch]. */
struct rows_ref {
    uint32_t batch;
    uint32_t row;
};

/* Builds *out (a struct array of schema's columns, offset 0, owning its
 * memory through util/arrow.h; release it) holding rows refs[0..n) in that
 * order: a deep copy of each selected row, nested values included, with
 * validity kept and offsets rebuilt. Variable-width columns keep their
 * format (u stays u, U stays U); a result over 2 GiB of a 32-bit-offset
 * column fails with ERR_LIMIT (take fewer rows at a time). The batches
 * are borrowed. On failure *out is left released. */
int rows_take(const struct ArrowSchema *schema, const struct ArrowArray *const *batches,
              size_t nbatches, const struct rows_ref *refs, size_t n, struct ArrowArray *out,
              struct error *err);

enum { ROWS_SORT_MAX_DEPTH = 16 };

/* One sort key: a column by its index path (path[0] a top-level column,
 * then field indices into nested structs; a value under a null struct is
 * null). Nulls go first or last whatever the direction. */
struct rows_sort_key {
    int path[ROWS_SORT_MAX_DEPTH];
    int depth; /* entries used in path, >= 1 */
    bool descending;
    bool nulls_first;
};

/* The key for a table's sort field, for batches shaped as the Parquet
 * writer takes the table (rows_table_arrow_schema): its column's index
 * path. ERR_NOT_FOUND for a field id the table lacks, ERR_UNSUPPORTED
 * for a struct, list or map column or one inside a list or map. */
int rows_sort_key_for_field(const struct lake_table *t, const struct lake_sort_field *field,
                            struct rows_sort_key *out, struct error *err);

/* Sorts refs[0..n) in place, stably, by keys[0..nkeys) (the first deciding,
 * the next breaking its ties). Values compare as Iceberg orders them:
 * integers, dates, times and timestamps as signed integers; C S I L
 * unsigned; decimal128 as signed 128-bit; booleans false < true; strings,
 * binary and fixed-size binary by unsigned bytes, a prefix first; floats by
 * -Inf < negatives < -0.0 < +0.0 < positives < +Inf < NaN, every NaN (any
 * sign or payload) equal to the others (Java's Double.compare, which
 * Iceberg follows). Descending reverses the value order (NaN first).
 * With n or nkeys 0, refs are left as they are.
 * Fails before reordering anything (refs untouched) on a bad key, a nested
 * key, a malformed array or a reference out of range. */
int rows_sort(const struct ArrowSchema *schema, const struct ArrowArray *const *batches,
              size_t nbatches, const struct rows_sort_key *keys, size_t nkeys,
              struct rows_ref *refs, size_t n, struct error *err);

#endif

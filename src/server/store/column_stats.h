/* A data file's column statistics and their stored form: one bytea per
 * file, hog_data_file.column_stats (migration 11), instead of a row per
 * file and column. A row per column cost 149 bytes (tuple header, line
 * pointer, primary-key entry, then ~40 bytes of values); this form costs
 * about 28 bytes a column with 8-byte bounds.
 *
 * Layout (version 1): one version byte, 0x01, then each column in
 * ascending field id:
 *   flags        1 byte: 1 nan_count, 2 size_bytes, 4 lower, 8 upper bound
 *   field_id, value_count, null_count   unsigned LEB128 varints
 *   nan_count, size_bytes               varints, when flagged
 *   lower, upper                        a varint length, then the bytes,
 *                                       when flagged
 * SQL reads and writes the same layout (hog_column_stats_rows() and
 * hog_column_stats_encode() in migration 11); the integration tests hold
 * the two to each other. */
#ifndef HL_SERVER_STORE_COLUMN_STATS_H
#define HL_SERVER_STORE_COLUMN_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"
#include "util/error.h"

/* One column's statistics in one file. Bounds are Iceberg single-value
 * binary, borrowed (from the caller, or from the decoded value). */
struct store_column_stats {
    int64_t field_id;
    int64_t value_count, null_count;
    bool has_nan_count, has_size_bytes;
    int64_t nan_count, size_bytes;
    const uint8_t *lower, *upper; /* NULL: no bound */
    size_t lower_len, upper_len;
};

enum { STORE_COLUMN_STATS_VERSION = 1 };

/* Appends the stored form of n columns to out, in ascending field id
 * (`cols` is sorted in place). Field ids must be distinct, counts and ids
 * non-negative: ERR_INVALID otherwise. */
int store_column_stats_encode(struct store_column_stats *cols, size_t n, struct buf *out,
                              struct error *err);

/* Reads a stored value column by column. */
struct store_column_stats_reader {
    const uint8_t *at, *end;
};

/* Starts reading [data, data + n); a zero-length value has no columns.
 * ERR_CORRUPT for an unknown version. */
int store_column_stats_open(struct store_column_stats_reader *r, const uint8_t *data, size_t n,
                            struct error *err);
/* The next column: 1, 0 at the end, -1 (ERR_CORRUPT) when the bytes do
 * not add up. Bounds point into the value. */
int store_column_stats_next(struct store_column_stats_reader *r, struct store_column_stats *out,
                            struct error *err);

#endif

/* The Parquet reader: a file (any random-access source) in, Arrow arrays
 * out.
 *
 * Opening reads and validates the footer and schema; reading a row group
 * decodes the selected columns' pages (PLAIN, dictionary, RLE and
 * BIT_PACKED levels, the DELTA encodings, BYTE_STREAM_SPLIT; data pages v1
 * and v2; every codec in compress.h) and assembles nested data from the
 * levels into Arrow struct, list and map arrays; a read of row ranges
 * decodes only the pages that hold them, through the page index (below).
 * Nothing in the file is trusted: every offset, length and count is
 * checked against the source and the metadata, and a file that does not
 * add up is ERR_CORRUPT.
 *
 * Arrow types produced: see pq_reader_arrow_schema. Field ids appear in
 * each field's metadata as "PARQUET:field_id".
 *
 * Not thread-safe: one reader per thread (several may share a source). */
#ifndef HL_PARQUET_READER_H
#define HL_PARQUET_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hoglake/arrow_abi.h"
#include "parquet/meta.h"
#include "parquet/schema.h"

/* A random-access byte source. read_at must fill exactly len bytes. */
struct pq_source {
    int (*read_at)(void *ctx, uint64_t offset, void *dst, size_t len, struct error *err);
    uint64_t size;
    void *ctx;
    int fd; /* file sources: the descriptor to close; -1 otherwise */
};

/* A source over memory the caller keeps alive. */
void pq_source_memory(struct pq_source *src, const void *data, size_t len);
/* A source over a file, opened read-only; close with pq_source_close. */
int pq_source_file(struct pq_source *src, const char *path, struct error *err);
void pq_source_close(struct pq_source *src);

/* Footer only: reads and decodes the footer (into the caller's arena)
 * without touching any page. *footer_len receives the Thrift length. */
int pq_read_footer(const struct pq_source *src, struct arena *a, struct pq_file_meta *meta,
                   uint32_t *footer_len, struct error *err);
/* Decodes the footer from a file's last bytes (the footer, its 4-byte
 * length and "PAR1"), as a ranged read of footer_size + 8 bytes returns
 * them. */
int pq_parse_footer_tail(const void *tail, size_t len, struct arena *a, struct pq_file_meta *meta,
                         uint32_t *footer_len, struct error *err);

struct pq_reader;

int pq_reader_open(const struct pq_source *src, struct pq_reader **out, struct error *err);
void pq_reader_free(struct pq_reader *r);
const struct pq_file_meta *pq_reader_meta(const struct pq_reader *r);
const struct pq_schema *pq_reader_schema(const struct pq_reader *r);
uint32_t pq_reader_footer_size(const struct pq_reader *r);

/* What one column chunk of a row group may decode to, to bound what a
 * hostile file can make the reader allocate: a few bytes of RLE can claim
 * two billion values, and a dictionary entry can repeat without cost. A
 * chunk past a limit is ERR_UNSUPPORTED. */
struct pq_read_limits {
    uint64_t max_values; /* level entries; 0, the default, is INT32_MAX */
    size_t max_bytes;    /* decoded value bytes; 0, the default, is INT32_MAX */
};

/* INT32_MAX is also the maximum of both: what Arrow's 32-bit offsets
 * address. */
void pq_reader_set_limits(struct pq_reader *r, const struct pq_read_limits *limits);

/* INT96 timestamps (Spark, Impala, Hive) hold nanoseconds, and reach years
 * an int64 of nanoseconds cannot (before 1677 or after 2262: Spark writes
 * year 9999 and BC dates). By default an INT96 column reads as nanoseconds
 * ("tsn:"), unless one of its values, in any row group, lies outside that
 * range: then the whole column reads as microseconds ("tsu:"), the
 * precision DuckDB and Spark read INT96 at, digits below a microsecond
 * dropped. The unit holds for the whole file, not per row group, since a
 * stream has one schema; to know it before handing out a schema or a row
 * group, the reader decodes the selected INT96 columns of every row group
 * once beforehand. A caller that wants one unit asks for it here
 * (PQ_MILLIS, PQ_MICROS or PQ_NANOS; before reading), which skips that
 * pass; a value outside the asked unit's range is then ERR_UNSUPPORTED,
 * as is one outside the microsecond range by default. */
int pq_reader_set_int96_unit(struct pq_reader *r, enum pq_time_unit unit, struct error *err);

/* Selects the top-level columns to read, by name or by field id, in the
 * order given. Unknown names or ids are ERR_INVALID. Selecting nothing
 * (n == 0) reads every column. */
int pq_reader_select_names(struct pq_reader *r, const char *const *names, size_t n,
                           struct error *err);
int pq_reader_select_field_ids(struct pq_reader *r, const int32_t *ids, size_t n,
                               struct error *err);

/* The Arrow schema (a struct) of the selected columns. */
int pq_reader_arrow_schema(struct pq_reader *r, struct ArrowSchema *out, struct error *err);
/* Reads row group g of the selected columns as an Arrow struct array. The
 * caller owns *out (release it). */
int pq_reader_read_row_group(struct pq_reader *r, size_t g, struct ArrowArray *out,
                             struct error *err);
/* A stream over every row group. It takes the reader, which it frees on
 * release. */
int pq_reader_stream(struct pq_reader *r, struct ArrowArrayStream *out, struct error *err);

/* ---- the page index: reading only the pages that may match ----
 *
 * A caller that filters rows reads a column chunk's page index, keeps the
 * pages whose bounds may match (the predicate's business, not this
 * module's), turns them into row ranges, intersects the ranges of the
 * filtered columns, and reads the selected columns' rows in those ranges:
 *
 *     pq_reader_page_index(r, g, leaf, arena, &pi, err);
 *     keep[p] = ...pi.bounds.min_values[p], pi.bounds.max_values[p]...;
 *     n = pq_page_index_ranges(&pi, keep, ranges);
 *     pq_reader_read_row_ranges(r, g, ranges, n, &batch, &stats, err);
 *
 * Columns are addressed by leaf: the index of a column chunk in its row
 * group, which is the leaf's index in pq_reader_schema (leaves carry their
 * path and field id). */

/* Rows [begin, end) of a row group. */
struct pq_row_range {
    int64_t begin, end;
};

/* One column chunk's page index, checked against the file and its row
 * group before it is handed out (anything else is ERR_CORRUPT):
 *
 * - offsets (the OffsetIndex) lists the chunk's data pages, never its
 *   dictionary page, in file order: each lies inside the chunk and apart
 *   from the next; first_row_index rises strictly from 0 and stays below
 *   the row group's rows; there are pages exactly when there are rows.
 * - bounds (the ColumnIndex) has one entry per page in every list; on a
 *   page that holds a value (null_pages[p] false) min_values[p] and
 *   max_values[p] are PLAIN-encoded values of the leaf's physical type in
 *   the column's order (for fixed-width types exactly that wide; byte
 *   arrays may be cut short: a lower bound may be a prefix of the page's
 *   minimum, an upper bound a value past its maximum); boundary_order is
 *   one the format knows; null_counts, when present, are not negative.
 *   Whether each min is at most its max is not checked: bounds that lie
 *   make a filter wrong, never the reader unsafe.
 *
 * A chunk without an OffsetIndex has neither (a ColumnIndex without one is
 * of no use and is ignored). */
struct pq_page_index {
    int64_t num_rows; /* the row group's */
    bool has_offsets;
    struct pq_offset_index offsets;
    bool has_bounds;
    struct pq_column_index bounds;
};

/* Reads and checks the page index of column chunk `leaf` of row group g,
 * decoded into the caller's arena. ERR_INVALID for a row group or leaf the
 * file does not have. */
int pq_reader_page_index(struct pq_reader *r, size_t g, int leaf, struct arena *a,
                         struct pq_page_index *out, struct error *err);

/* The rows page p of an index with offsets holds. */
void pq_page_index_rows(const struct pq_page_index *pi, size_t p, struct pq_row_range *rows);

/* The rows of the pages keep[] marks (one flag per page), as ranges in
 * row order, adjacent pages merged, into out (room for a range per page);
 * returns how many. */
size_t pq_page_index_ranges(const struct pq_page_index *pi, const bool *keep,
                            struct pq_row_range *out);

/* What a row-range read decoded. */
struct pq_range_read_stats {
    uint64_t pages_read;        /* data pages decoded by their offset index */
    uint64_t pages_skipped;     /* data pages those chunks' indexes let it skip */
    uint64_t chunks_read_whole; /* chunks without an offset index, decoded whole */
};

/* Reads the rows of row group g in ranges[0..n) (sorted, disjoint, not
 * empty, inside the row group; else ERR_INVALID) of the selected columns,
 * as pq_reader_read_row_group does: the batch holds those rows only, in
 * order, so its row i is the i-th selected row of the row group. A chunk
 * with an offset index is read page by page: its dictionary page and the
 * data pages that hold a selected row, each checked against the index
 * (a data page of the size listed, starting a row, holding the rows
 * listed; else ERR_CORRUPT); a chunk without one is decoded whole. stats
 * may be NULL. */
int pq_reader_read_row_ranges(struct pq_reader *r, size_t g, const struct pq_row_range *ranges,
                              size_t n, struct ArrowArray *out, struct pq_range_read_stats *stats,
                              struct error *err);

#endif

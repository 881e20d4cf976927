/* The Parquet reader: a file (any random-access source) in, Arrow arrays
 * out.
 *
 * Opening reads and validates the footer and schema; reading a row group
 * decodes the selected columns' pages (PLAIN, dictionary, RLE and
 * BIT_PACKED levels, the DELTA encodings, BYTE_STREAM_SPLIT; data pages v1
 * and v2; every codec in compress.h) and assembles nested data from the
 * levels into Arrow struct, list and map arrays. Nothing in the file is
 * trusted: every offset, length and count is checked against the source
 * and the metadata, and a file that does not add up is ERR_CORRUPT.
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

#endif

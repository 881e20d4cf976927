/* The Parquet writer: Arrow batches in, a Parquet file out.
 *
 * The file's schema comes from a catalog table definition (every element
 * carries its field id; types map as in schema.h). Batches are Arrow struct
 * arrays whose children are the table's top-level columns in order, each of
 * the Arrow type its column type takes (see pq_arrow_format_for). Data is
 * encoded as it arrives: dictionary encoding with a fallback to PLAIN when
 * a dictionary grows past its limit, RLE/bit-packed levels, data pages v1,
 * one compression codec per file, row groups and pages cut by size, column
 * statistics and the page index. Memory stays bounded by one row group.
 *
 * Closing returns the footer as written, in parsed form, so a caller can
 * register the file without reading it back.
 *
 * Not thread-safe: one writer per thread (its own worker threads aside,
 * see pq_write_options.threads). */
#ifndef HL_PARQUET_WRITER_H
#define HL_PARQUET_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hoglake/arrow_abi.h"
#include "lake/schema.h"
#include "parquet/meta.h"
#include "parquet/schema.h"
#include "parquet/variant_shred.h"

struct pq_write_options {
    enum pq_codec codec;      /* default ZSTD */
    int level;                /* ZSTD level; 0 = 3 */
    int64_t row_group_bytes;  /* cut a row group past this much data (default 128 MiB) */
    int64_t row_group_rows;   /* and at this many rows (0, the default: no row limit) */
    int64_t page_bytes;       /* cut a data page past this much data (default 1 MiB) */
    int64_t page_rows;        /* and at this many rows (default 20,000; 0: no row limit) */
    int64_t dictionary_bytes; /* fall back to PLAIN past this dictionary size (default 1 MiB) */
    bool dictionary;          /* use dictionary encoding (default true) */
    bool page_index;          /* write ColumnIndex and OffsetIndex (default true) */
    const struct pq_key_value *kv; /* extra footer key-value metadata, copied */
    size_t nkv;
    /* GEOMETRY/GEOGRAPHY annotations for binary columns, by field id
     * (pq_infer_table_with hands them back from a file being converted) */
    const struct pq_column_logical *logicals;
    size_t nlogicals;
    /* INT64 columns, by field id, whose values are written
     * DELTA_BINARY_PACKED instead of through a dictionary or PLAIN (ids
     * and counters, such as Iceberg's lineage columns, shrink to their
     * deltas' bit width). */
    const int32_t *delta_field_ids;
    size_t ndelta;
    /* Threads that encode and compress pages, the calling one included
     * (0 or 1, the default: the calling thread alone). The file is the
     * same byte for byte whatever the count. Above 1, the writer starts
     * threads - 1 workers at open and joins them when it is closed or
     * freed; memory grows by up to 4 * threads pages in flight. */
    int threads;
};

enum { PQ_WRITE_MAX_THREADS = 64 };

void pq_write_options_default(struct pq_write_options *o);

/* Where bytes go. write must take all len bytes or fail (fill err). */
struct pq_sink {
    int (*write)(void *ctx, const void *data, size_t len, struct error *err);
    void *ctx;
};

/* Where a shredded variant column's values went in a file: one entry per
 * group of its layout (parquet/variant_shred.h, pq_variant_groups). */
struct pq_variant_counts {
    int64_t field_id;
    size_t ngroups;
    struct pq_shred_counts *groups;
};

/* What a closed file holds, owned by the result's arena. */
struct pq_write_result {
    struct arena arena;
    struct pq_file_meta meta; /* the footer as written */
    struct pq_schema schema;  /* leaves map column chunks to field ids */
    uint64_t file_size;
    uint32_t footer_size; /* the Thrift FileMetaData length (the 8-byte tail excluded) */
    struct pq_variant_counts *variant; /* the shredded variant columns, in table order */
    size_t nvariant;
};

struct pq_writer;

/* The table definition is copied into the writer's schema; it need not
 * outlive the call. */
int pq_writer_open(const struct lake_table *table, const struct pq_write_options *options,
                   const struct pq_sink *sink, struct pq_writer **out, struct error *err);
/* Appends a batch (borrowed: the caller keeps ownership). schema describes
 * batch and must be a struct whose fields match the table's top-level
 * columns by name, order and type. */
int pq_writer_write(struct pq_writer *w, const struct ArrowSchema *schema,
                    const struct ArrowArray *batch, struct error *err);
/* Flushes the last row group, the page index and the footer, and frees
 * the writer (whatever the outcome). */
int pq_writer_close(struct pq_writer *w, struct pq_write_result *result, struct error *err);
/* About how much memory the row group being built holds (its encoded
 * pages, the open page and the dictionary), for callers that keep many
 * writers open under one memory budget. */
size_t pq_writer_buffered_bytes(const struct pq_writer *w);
/* Abandons a writer without finishing the file. */
void pq_writer_free(struct pq_writer *w);
void pq_write_result_release(struct pq_write_result *r);

/* The Arrow format string a column type is written from ("l" for long,
 * "tsu:UTC" for timestamptz...). Writers also accept large variants ("U",
 * "Z", "+L") and any time zone for timestamptz. */
const char *pq_arrow_format_for(const struct lake_column *c, char *buf, size_t size);

/* A sink over a file descriptor (not closed). */
int pq_sink_fd_write(void *ctx, const void *data, size_t len, struct error *err);

#endif

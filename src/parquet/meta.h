/* Parquet metadata as C structs, and their Thrift encoding and decoding:
 * the file footer (FileMetaData), page headers, and the page index
 * (ColumnIndex, OffsetIndex).
 *
 * Decoding allocates from a caller-owned arena and copies every string and
 * binary out of the input, so the result outlives the input buffer. Every
 * decoder validates counts and lengths against the input and returns
 * ERR_CORRUPT for anything that does not add up. Fields this code does
 * not know are skipped. */
#ifndef HL_PARQUET_META_H
#define HL_PARQUET_META_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "parquet/pq.h"
#include "util/arena.h"
#include "util/buf.h"

struct pq_logical {
    enum pq_logical_kind kind;
    int32_t scale, precision; /* DECIMAL */
    bool utc;                 /* TIME, TIMESTAMP: isAdjustedToUTC */
    enum pq_time_unit unit;   /* TIME, TIMESTAMP */
    int8_t bit_width;         /* INTEGER */
    bool is_signed;           /* INTEGER */
    int8_t variant_version;   /* VARIANT */
    const char *crs;          /* GEOMETRY, GEOGRAPHY; NULL: the default, OGC:CRS84 */
    int32_t edge_algorithm;   /* GEOGRAPHY (enum pq_edge_algorithm; others kept as read) */
};

/* GEOMETRY or GEOGRAPHY: WKB, whose bytes have no order the format defines. */
bool pq_logical_is_geo(const struct pq_logical *l);
/* A GEOMETRY's or GEOGRAPHY's CRS: the file's, else the format's default. */
const char *pq_logical_crs(const struct pq_logical *l);
/* An edge algorithm's Parquet name ("SPHERICAL" ... "KARNEY"), else "OTHER". */
const char *pq_edge_algorithm_name(int32_t a);

struct pq_schema_element {
    bool has_type;
    enum pq_type type;
    int32_t type_length; /* FIXED_LEN_BYTE_ARRAY width; 0 when absent */
    bool has_repetition;
    enum pq_repetition repetition;
    const char *name;
    bool has_num_children;
    int32_t num_children;
    bool has_converted;
    enum pq_converted converted;
    bool has_decimal; /* scale and precision present */
    int32_t scale, precision;
    bool has_field_id;
    int32_t field_id;
    struct pq_logical logical;
};

/* min/max are PLAIN-encoded values of the column's physical type. */
struct pq_statistics {
    bool has_null_count;
    int64_t null_count;
    bool has_distinct_count;
    int64_t distinct_count;
    bool has_min, has_max; /* min_value / max_value (fields 6/5) */
    const uint8_t *min, *max;
    uint32_t min_len, max_len;
    bool has_legacy_min, has_legacy_max; /* deprecated min/max (fields 2/1) */
    const uint8_t *legacy_min, *legacy_max;
    uint32_t legacy_min_len, legacy_max_len;
};

/* GeospatialStatistics: the bounding box of a GEOMETRY or GEOGRAPHY chunk
 * and the WKB type codes it holds. */
struct pq_geo_statistics {
    bool has_bbox;
    double xmin, xmax, ymin, ymax;
    bool has_z, has_m;
    double zmin, zmax, mmin, mmax;
    int32_t *types;
    size_t ntypes;
};

struct pq_column_meta {
    enum pq_type type;
    int32_t *encodings;
    size_t nencodings;
    const char **path; /* path_in_schema */
    size_t npath;
    enum pq_codec codec;
    int64_t num_values;
    int64_t total_uncompressed_size;
    int64_t total_compressed_size;
    int64_t data_page_offset;
    bool has_index_page_offset;
    int64_t index_page_offset;
    bool has_dictionary_page_offset;
    int64_t dictionary_page_offset;
    bool has_statistics;
    struct pq_statistics statistics;
    bool has_geo_statistics;
    struct pq_geo_statistics geo_statistics;
};

struct pq_column_chunk {
    const char *file_path; /* NULL: this file */
    int64_t file_offset;
    bool has_meta;
    struct pq_column_meta meta;
    bool has_offset_index;
    int64_t offset_index_offset;
    int32_t offset_index_length;
    bool has_column_index;
    int64_t column_index_offset;
    int32_t column_index_length;
};

struct pq_row_group {
    struct pq_column_chunk *columns;
    size_t ncolumns;
    int64_t total_byte_size;
    int64_t num_rows;
    bool has_file_offset;
    int64_t file_offset;
    bool has_total_compressed_size;
    int64_t total_compressed_size;
    bool has_ordinal;
    int16_t ordinal;
};

struct pq_key_value {
    const char *key;
    const char *value; /* NULL when absent */
};

struct pq_file_meta {
    int32_t version;
    struct pq_schema_element *schema;
    size_t nschema;
    int64_t num_rows;
    struct pq_row_group *row_groups;
    size_t nrow_groups;
    struct pq_key_value *kv;
    size_t nkv;
    const char *created_by; /* NULL when absent */
    size_t ncolumn_orders;  /* TYPE_ORDER entries (other kinds are not kept) */
    bool encrypted;         /* an encryption_algorithm was present */
};

struct pq_page_header {
    enum pq_page_type type;
    int32_t uncompressed_size;
    int32_t compressed_size;
    bool has_crc;
    int32_t crc;
    /* DATA_PAGE and DATA_PAGE_V2 */
    int32_t num_values;
    enum pq_encoding encoding;
    /* DATA_PAGE */
    enum pq_encoding def_encoding;
    enum pq_encoding rep_encoding;
    /* DATA_PAGE_V2 */
    int32_t num_nulls;
    int32_t num_rows;
    int32_t def_levels_len;
    int32_t rep_levels_len;
    bool is_compressed;
    /* DICTIONARY_PAGE: num_values and encoding above, and */
    bool is_sorted;
    /* page statistics (written by some writers; decoded for completeness) */
    bool has_statistics;
    struct pq_statistics statistics;
};

struct pq_page_location {
    int64_t offset;
    int32_t compressed_page_size; /* header included */
    int64_t first_row_index;
};

struct pq_offset_index {
    struct pq_page_location *pages;
    size_t npages;
};

struct pq_column_index {
    bool *null_pages;
    const uint8_t **min_values, **max_values;
    uint32_t *min_lens, *max_lens;
    size_t npages;
    enum pq_boundary_order boundary_order;
    int64_t *null_counts; /* NULL when absent */
};

/* ---- decoding ---- */

int pq_decode_file_meta(const void *data, size_t len, struct arena *a, struct pq_file_meta *out,
                        struct error *err);
/* Decodes the page header at the start of data; *header_len receives its
 * size. Page statistics are decoded into the arena when a is not NULL and
 * skipped otherwise. */
int pq_decode_page_header(const void *data, size_t avail, struct arena *a,
                          struct pq_page_header *out, size_t *header_len, struct error *err);
int pq_decode_offset_index(const void *data, size_t len, struct arena *a,
                           struct pq_offset_index *out, struct error *err);
int pq_decode_column_index(const void *data, size_t len, struct arena *a,
                           struct pq_column_index *out, struct error *err);

/* ---- reading a footer leniently ---- */

/* Old parquet-rs versions wrote num_rows 0 in the footer while the row
 * groups held rows. True exactly in that case: the footer says 0, every
 * row group's count is at least 0, and they add up (without overflow) to
 * more than 0, which goes to *rows. Readers trust the row groups then;
 * any other disagreement between the two is still corrupt. */
bool pq_meta_rows_only_in_groups(const struct pq_file_meta *m, int64_t *rows);

/* ---- encoding (append to out; 0 or -1 when out of memory) ---- */

int pq_encode_file_meta(const struct pq_file_meta *m, struct buf *out);
int pq_encode_page_header(const struct pq_page_header *h, struct buf *out);
int pq_encode_offset_index(const struct pq_offset_index *oi, struct buf *out);
int pq_encode_column_index(const struct pq_column_index *ci, struct buf *out);

#endif

/* Parquet: the format's enumerations (values fixed by parquet.thrift) and
 * the error record every parquet function fills. */
#ifndef HL_PARQUET_PQ_H
#define HL_PARQUET_PQ_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

enum pq_type {
    PQ_BOOLEAN = 0,
    PQ_INT32 = 1,
    PQ_INT64 = 2,
    PQ_INT96 = 3,
    PQ_FLOAT = 4,
    PQ_DOUBLE = 5,
    PQ_BYTE_ARRAY = 6,
    PQ_FIXED_LEN_BYTE_ARRAY = 7,
};

enum pq_repetition { PQ_REQUIRED = 0, PQ_OPTIONAL = 1, PQ_REPEATED = 2 };

enum pq_converted {
    PQ_CT_UTF8 = 0,
    PQ_CT_MAP = 1,
    PQ_CT_MAP_KEY_VALUE = 2,
    PQ_CT_LIST = 3,
    PQ_CT_ENUM = 4,
    PQ_CT_DECIMAL = 5,
    PQ_CT_DATE = 6,
    PQ_CT_TIME_MILLIS = 7,
    PQ_CT_TIME_MICROS = 8,
    PQ_CT_TIMESTAMP_MILLIS = 9,
    PQ_CT_TIMESTAMP_MICROS = 10,
    PQ_CT_UINT_8 = 11,
    PQ_CT_UINT_16 = 12,
    PQ_CT_UINT_32 = 13,
    PQ_CT_UINT_64 = 14,
    PQ_CT_INT_8 = 15,
    PQ_CT_INT_16 = 16,
    PQ_CT_INT_32 = 17,
    PQ_CT_INT_64 = 18,
    PQ_CT_JSON = 19,
    PQ_CT_BSON = 20,
    PQ_CT_INTERVAL = 21,
};

enum pq_encoding {
    PQ_ENC_PLAIN = 0,
    PQ_ENC_PLAIN_DICTIONARY = 2,
    PQ_ENC_RLE = 3,
    PQ_ENC_BIT_PACKED = 4,
    PQ_ENC_DELTA_BINARY_PACKED = 5,
    PQ_ENC_DELTA_LENGTH_BYTE_ARRAY = 6,
    PQ_ENC_DELTA_BYTE_ARRAY = 7,
    PQ_ENC_RLE_DICTIONARY = 8,
    PQ_ENC_BYTE_STREAM_SPLIT = 9,
};

enum pq_codec {
    PQ_UNCOMPRESSED = 0,
    PQ_SNAPPY = 1,
    PQ_GZIP = 2,
    PQ_LZO = 3,
    PQ_BROTLI = 4,
    PQ_LZ4 = 5,
    PQ_ZSTD = 6,
    PQ_LZ4_RAW = 7,
};

enum pq_page_type {
    PQ_DATA_PAGE = 0,
    PQ_INDEX_PAGE = 1,
    PQ_DICTIONARY_PAGE = 2,
    PQ_DATA_PAGE_V2 = 3,
};

enum pq_boundary_order { PQ_UNORDERED = 0, PQ_ASCENDING = 1, PQ_DESCENDING = 2 };

/* LogicalType union members (field ids of the union). */
enum pq_logical_kind {
    PQ_LT_NONE = 0,
    PQ_LT_STRING = 1,
    PQ_LT_MAP = 2,
    PQ_LT_LIST = 3,
    PQ_LT_ENUM = 4,
    PQ_LT_DECIMAL = 5,
    PQ_LT_DATE = 6,
    PQ_LT_TIME = 7,
    PQ_LT_TIMESTAMP = 8,
    PQ_LT_INTEGER = 10,
    PQ_LT_UNKNOWN = 11,
    PQ_LT_JSON = 12,
    PQ_LT_BSON = 13,
    PQ_LT_UUID = 14,
    PQ_LT_FLOAT16 = 15,
    PQ_LT_VARIANT = 16,
    PQ_LT_GEOMETRY = 17,
    PQ_LT_GEOGRAPHY = 18,
    PQ_LT_OTHER = 100, /* a member this reader does not know */
};

/* GEOGRAPHY's EdgeInterpolationAlgorithm. */
enum pq_edge_algorithm {
    PQ_EDGE_SPHERICAL = 0,
    PQ_EDGE_VINCENTY = 1,
    PQ_EDGE_THOMAS = 2,
    PQ_EDGE_ANDOYER = 3,
    PQ_EDGE_KARNEY = 4,
};

enum pq_time_unit { PQ_MILLIS = 1, PQ_MICROS = 2, PQ_NANOS = 3 };

const char *pq_type_name(enum pq_type t);
const char *pq_encoding_name(int e);
const char *pq_codec_name(int c);
/* Parses a codec name ("zstd", "snappy", "gzip", "uncompressed", "lz4_raw"),
 * case-insensitively. */
bool pq_codec_parse(const char *name, enum pq_codec *out);

/* Limits that bound what a hostile file can make the reader allocate or
 * walk. */
enum {
    PQ_MAX_FOOTER_BYTES = 64 * 1024 * 1024,
    PQ_MAX_SCHEMA_DEPTH = 64,
    PQ_MAX_PAGE_BYTES = 1024 * 1024 * 1024,
    PQ_MAX_FOOTER_ARENA_BYTES = 512 * 1024 * 1024,
};

#endif

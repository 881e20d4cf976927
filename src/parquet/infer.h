/* The catalog table definition a Parquet file's schema maps to: the
 * inverse of pq_schema_from_table, widened to what other writers produce.
 *
 *   BOOLEAN                       boolean
 *   INT32 (INT 8/16 signed)       int8, int16      (unsigned) uint8, uint16
 *   INT32, INTEGER(32, signed)    int              INTEGER(32, unsigned) uint32
 *   INT32 DATE                    date
 *   INT32 TIME(MILLIS)            time (read as microseconds)
 *   INT64, INTEGER(64, signed)    long             INTEGER(64, unsigned) uint64
 *   INT64 TIME(MICROS)            time
 *   INT64 TIMESTAMP(false, unit)  timestamp_ms, timestamp, timestamp_ns
 *   INT64 TIMESTAMP(true, MILLIS|MICROS), legacy TIMESTAMP_*  timestamptz
 *   INT96                         timestamp_ns
 *   FLOAT, FLBA(2) FLOAT16        float            DOUBLE  double
 *   DECIMAL(p <= 38) on any physical type          decimal(p, s)
 *   BYTE_ARRAY STRING/UTF8/ENUM   string           JSON  json
 *   BYTE_ARRAY (none, BSON)       binary           FLBA(16) UUID  uuid
 *   BYTE_ARRAY GEOMETRY, GEOGRAPHY  binary (WKB; the annotation is handed back)
 *   UNKNOWN (only nulls)          nullable, of the type the caller names
 *   FLBA (other)                  binary
 *   LIST (and bare repeated fields)   list         MAP  map     group  struct
 *
 * Refused with ERR_UNSUPPORTED, naming the column: TIME(NANOS) and
 * TIMESTAMP(true, NANOS) (no lake type holds them exactly), INTERVAL,
 * VARIANT (unless asked for), the null (UNKNOWN) type (unless given a type),
 * decimals past precision 38, maps without values, and names or nesting
 * the catalog does not accept. */
#ifndef HL_PARQUET_INFER_H
#define HL_PARQUET_INFER_H

#include "lake/schema.h"
#include "parquet/schema.h"

struct pq_infer_options {
    /* Native VARIANT groups (a required binary metadata, and a binary value
     * or a shredded typed_value) as variant columns: for files published as
     * they are, which this library's writer does not produce. */
    bool variants;
    /* The wire name of a scalar type that UNKNOWN (null-only) columns take;
     * NULL: they are refused. */
    const char *unknown_as;
};

struct pq_infer_result {
    struct pq_column_logical *logicals; /* in t's arena */
    size_t nlogicals;
};

/* Fills t (initialised, no columns yet) with the columns of s. Field ids
 * are the file's when every element that maps to a column carries one and
 * no two are equal; otherwise they are assigned depth-first from 1, as the
 * catalog assigns them. Map keys are made required. opts and res may be
 * NULL. */
int pq_infer_table_with(const struct pq_schema *s, struct lake_table *t,
                        const struct pq_infer_options *opts, struct pq_infer_result *res,
                        struct error *err);

#endif

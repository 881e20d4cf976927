/* The 27 column types of the catalog and the rules attached to them. */
#ifndef HL_LAKE_TYPES_H
#define HL_LAKE_TYPES_H

#include <stdbool.h>

/* In wire-enum order; the database CHECK and docs/openapi.yaml list the same
 * names in the same order. New types are appended. */
enum lake_type {
    LT_BOOLEAN,
    LT_INT8,
    LT_INT16,
    LT_INT,
    LT_LONG,
    LT_UINT8,
    LT_UINT16,
    LT_UINT32,
    LT_UINT64,
    LT_FLOAT,
    LT_DOUBLE,
    LT_DECIMAL,
    LT_DATE,
    LT_TIME,
    LT_TIMESTAMP_S,
    LT_TIMESTAMP_MS,
    LT_TIMESTAMP,
    LT_TIMESTAMP_NS,
    LT_TIMESTAMPTZ,
    LT_STRING,
    LT_JSON,
    LT_UUID,
    LT_BINARY,
    LT_VARIANT,
    LT_LIST,
    LT_STRUCT,
    LT_MAP,
    LT__COUNT
};

const char *lake_type_name(enum lake_type t);

enum lake_type_lookup { LAKE_TYPE_OK, LAKE_TYPE_UNKNOWN, LAKE_TYPE_REFUSED };
/* Case-insensitive lookup of a wire name. For a permanently refused name
 * (int128, interval, geometry...) returns LAKE_TYPE_REFUSED and points
 * *reason at a sentence saying why. */
enum lake_type_lookup lake_type_lookup(const char *name, enum lake_type *out, const char **reason);

bool lake_type_is_container(enum lake_type t); /* list, struct, map */
bool lake_type_is_temporal(enum lake_type t);  /* date and every timestamp */
bool lake_type_is_timestamp(enum lake_type t); /* every timestamp type */

/* The promotion matrix (DuckLake's and Iceberg's intersection). */
bool lake_type_can_promote(enum lake_type from, enum lake_type to);

#endif

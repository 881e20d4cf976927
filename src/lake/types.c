#include "lake/types.h"

#include <stddef.h>
#include <string.h>
#include <strings.h>

static const char *const type_names[LT__COUNT] = {
    "boolean",     "int8",         "int16",     "int",          "long",        "uint8",  "uint16",
    "uint32",      "uint64",       "float",     "double",       "decimal",     "date",   "time",
    "timestamp_s", "timestamp_ms", "timestamp", "timestamp_ns", "timestamptz", "string", "json",
    "uuid",        "binary",       "variant",   "list",         "struct",      "map",
};

const char *lake_type_name(enum lake_type t)
{
    return (unsigned)t < LT__COUNT ? type_names[t] : "unknown";
}

#define TOO_WIDE                                                                                   \
    "needs 39 decimal digits, which exceeds Iceberg's widest exact numeric type decimal(38), and " \
    "is not supported"
#define NO_ICEBERG "has no Iceberg mapping and is not supported"
#define GEOMETRY                                                                                   \
    "is a DuckLake geometry type; geometry is out of scope for hoglake and is not supported"

static const struct {
    const char *name;
    const char *reason;
} refused[] = {
    {"int128", TOO_WIDE},       {"uint128", TOO_WIDE},      {"timetz", NO_ICEBERG},
    {"interval", NO_ICEBERG},   {"point", GEOMETRY},        {"linestring", GEOMETRY},
    {"polygon", GEOMETRY},      {"multipoint", GEOMETRY},   {"multilinestring", GEOMETRY},
    {"multipolygon", GEOMETRY}, {"linestring_z", GEOMETRY}, {"geometrycollection", GEOMETRY},
};

enum lake_type_lookup lake_type_lookup(const char *name, enum lake_type *out, const char **reason)
{
    for (int t = 0; t < LT__COUNT; t++) {
        if (strcasecmp(name, type_names[t]) == 0) {
            *out = (enum lake_type)t;
            return LAKE_TYPE_OK;
        }
    }
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        if (strcasecmp(name, refused[i].name) == 0) {
            if (reason)
                *reason = refused[i].reason;
            return LAKE_TYPE_REFUSED;
        }
    }
    return LAKE_TYPE_UNKNOWN;
}

bool lake_type_is_container(enum lake_type t)
{
    return t == LT_LIST || t == LT_STRUCT || t == LT_MAP;
}

bool lake_type_is_timestamp(enum lake_type t)
{
    return t == LT_TIMESTAMP_S || t == LT_TIMESTAMP_MS || t == LT_TIMESTAMP ||
           t == LT_TIMESTAMP_NS || t == LT_TIMESTAMPTZ;
}

bool lake_type_is_temporal(enum lake_type t)
{
    return t == LT_DATE || lake_type_is_timestamp(t);
}

bool lake_type_can_promote(enum lake_type from, enum lake_type to)
{
    switch (from) {
    case LT_INT8: return to == LT_INT16 || to == LT_INT || to == LT_LONG;
    case LT_INT16: return to == LT_INT || to == LT_LONG;
    case LT_INT: return to == LT_LONG;
    case LT_UINT8: return to == LT_UINT16 || to == LT_UINT32;
    case LT_UINT16: return to == LT_UINT32;
    case LT_FLOAT: return to == LT_DOUBLE;
    default: return false;
    }
}

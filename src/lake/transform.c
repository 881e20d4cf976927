#include "lake/transform.h"

#include <strings.h>

static const char *const transform_names[LTR__COUNT] = {
    "identity", "bucket", "truncate", "year", "month", "day", "hour",
};

const char *lake_transform_name(enum lake_transform t)
{
    return (unsigned)t < LTR__COUNT ? transform_names[t] : "unknown";
}

bool lake_transform_parse(const char *name, enum lake_transform *out)
{
    for (int t = 0; t < LTR__COUNT; t++) {
        if (strcasecmp(name, transform_names[t]) == 0) {
            *out = (enum lake_transform)t;
            return true;
        }
    }
    return false;
}

bool lake_transform_takes_param(enum lake_transform t)
{
    return t == LTR_BUCKET || t == LTR_TRUNCATE;
}

static bool bucketable(enum lake_type s)
{
    switch (s) {
    case LT_INT8:
    case LT_INT16:
    case LT_INT:
    case LT_LONG:
    case LT_UINT8:
    case LT_UINT16:
    case LT_DECIMAL:
    case LT_DATE:
    case LT_TIME:
    case LT_TIMESTAMP:
    case LT_TIMESTAMPTZ:
    case LT_STRING:
    case LT_UUID:
    case LT_BINARY: return true;
    default: return false;
    }
}

static bool truncatable(enum lake_type s)
{
    switch (s) {
    case LT_INT8:
    case LT_INT16:
    case LT_INT:
    case LT_LONG:
    case LT_UINT8:
    case LT_UINT16:
    case LT_UINT32:
    case LT_UINT64:
    case LT_DECIMAL:
    case LT_STRING:
    case LT_BINARY: return true;
    default: return false;
    }
}

bool lake_transform_accepts(enum lake_transform t, enum lake_type s)
{
    switch (t) {
    case LTR_IDENTITY: return !lake_type_is_container(s) && s != LT_VARIANT;
    case LTR_BUCKET: return bucketable(s);
    case LTR_TRUNCATE: return truncatable(s);
    case LTR_YEAR:
    case LTR_MONTH:
    case LTR_DAY: return lake_type_is_temporal(s);
    case LTR_HOUR: return lake_type_is_timestamp(s);
    case LTR__COUNT: break;
    }
    return false;
}

const char *lake_transform_accepted_types(enum lake_transform t)
{
    switch (t) {
    case LTR_IDENTITY: return "any scalar type except variant";
    case LTR_BUCKET:
        return "binary, date, decimal, int, int16, int8, long, string, time, timestamp, "
               "timestamptz, uint16, uint8, uuid";
    case LTR_TRUNCATE:
        return "binary, decimal, int, int16, int8, long, string, uint16, uint32, uint64, uint8";
    case LTR_YEAR:
    case LTR_MONTH:
    case LTR_DAY: return "date, timestamp, timestamp_ms, timestamp_ns, timestamp_s, timestamptz";
    case LTR_HOUR: return "timestamp, timestamp_ms, timestamp_ns, timestamp_s, timestamptz";
    case LTR__COUNT: break;
    }
    return "";
}

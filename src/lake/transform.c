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

/* The types bucket and truncate take (Iceberg's lists, plus the unsigned
 * integers each can map onto a signed Iceberg type). */
enum { TAKES_BUCKET = 1, TAKES_TRUNCATE = 2 };
static const unsigned char parameterized_transforms[LT__COUNT] = {
    [LT_INT8] = TAKES_BUCKET | TAKES_TRUNCATE,
    [LT_INT16] = TAKES_BUCKET | TAKES_TRUNCATE,
    [LT_INT] = TAKES_BUCKET | TAKES_TRUNCATE,
    [LT_LONG] = TAKES_BUCKET | TAKES_TRUNCATE,
    [LT_UINT8] = TAKES_BUCKET | TAKES_TRUNCATE,
    [LT_UINT16] = TAKES_BUCKET | TAKES_TRUNCATE,
    [LT_UINT32] = TAKES_TRUNCATE,
    [LT_UINT64] = TAKES_TRUNCATE,
    [LT_DECIMAL] = TAKES_BUCKET | TAKES_TRUNCATE,
    [LT_DATE] = TAKES_BUCKET,
    [LT_TIME] = TAKES_BUCKET,
    [LT_TIMESTAMP] = TAKES_BUCKET,
    [LT_TIMESTAMPTZ] = TAKES_BUCKET,
    [LT_STRING] = TAKES_BUCKET | TAKES_TRUNCATE,
    [LT_UUID] = TAKES_BUCKET,
    [LT_BINARY] = TAKES_BUCKET | TAKES_TRUNCATE,
};

static bool takes(enum lake_type s, unsigned transform)
{
    return (unsigned)s < LT__COUNT && (parameterized_transforms[s] & transform) != 0;
}

bool lake_transform_accepts(enum lake_transform t, enum lake_type s)
{
    switch (t) {
    case LTR_IDENTITY: return !lake_type_is_container(s) && s != LT_VARIANT;
    case LTR_BUCKET: return takes(s, TAKES_BUCKET);
    case LTR_TRUNCATE: return takes(s, TAKES_TRUNCATE);
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

/* Client-side partition values (pyhoglake-client.md §5): Iceberg partition
 * transforms applied to column values, the wire strings partition values
 * travel as, and the writer's fanout: grouping an Arrow batch's rows by
 * their partition tuple.
 *
 * Errors use struct error with ERR_INVALID (a ValidationError in
 * pyhoglake) or ERR_NOMEM. Thread-safe; no global state. */
#ifndef HL_LAKE_PARTITION_H
#define HL_LAKE_PARTITION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hoglake/arrow_abi.h"
#include "lake/schema.h"
#include "lake/transform.h"
#include "lake/types.h"
#include "util/buf.h"

/* One value of a catalog type, or the result of a transform. Which member
 * holds it depends on the type:
 *   boolean                          b
 *   int8 int16 int long uint8 uint16
 *   uint32                           i
 *   uint64                           u
 *   float double                     d (a float widened to double)
 *   decimal                          dec, the unscaled value (the scale is the
 *                                    column's)
 *   date                             i, days since 1970-01-01
 *   time                             i, microseconds since midnight
 *   timestamp_s _ms timestamp _ns
 *   timestamptz                      i, ticks since the epoch in the type's
 *                                    unit (s, ms, µs, ns, µs)
 *   string json binary uuid          bytes (not owned; uuid 16 bytes)
 * A null value has `null` set and no member. */
struct lake_value {
    bool null;
    union {
        bool b;
        int64_t i;
        uint64_t u;
        double d;
        __extension__ __int128 dec;
        struct {
            const uint8_t *data;
            size_t len;
        } bytes;
    };
};

/* The type a transform's result is rendered as: the source type for
 * identity and truncate, an integer (LT_INT) for bucket and the temporal
 * transforms. */
enum lake_type lake_partition_result_type(enum lake_transform t, enum lake_type source);

/* Parses a transform name (case-insensitive); `unknown partition transform`
 * otherwise. */
int lake_partition_parse_transform(const char *name, enum lake_transform *out, struct error *err);

/* Whether transform t with the given parameter can partition a column of
 * type source. Refusals, checked in this order: `requires transform_param`
 * (bucket/truncate without one), `positive bucket count` / `positive width`
 * (param <= 0), `bucket cannot be applied`, `truncate cannot be applied`,
 * `<t> transform cannot be applied` (the type gates of lake/transform.h),
 * and a parameter given to a transform that takes none. A param above
 * INT32_MAX is refused. */
int lake_partition_check(enum lake_transform t, bool has_param, int64_t param,
                         enum lake_type source, struct error *err);

/* Applies t (with param, ignored unless bucket/truncate) to one value of
 * type source. The result is of lake_partition_result_type(t, source); a
 * null stays null; a truncated string or binary points into in's bytes.
 * Refuses what lake_partition_check refuses, timestamp_s/_ms values whose
 * microseconds overflow int64 (`overflows`), and integer/decimal truncations
 * that leave the type's 64/128-bit range. */
int lake_partition_apply(enum lake_transform t, int32_t param, enum lake_type source,
                         const struct lake_value *in, struct lake_value *out, struct error *err);

/* Appends the wire string of a non-null value of the given type (scale: a
 * decimal's): integers in decimal (the full uint64 range), booleans
 * true/false, floats as Python's repr, decimals as Python's str(Decimal) at
 * the scale (exponent form below an adjusted exponent of -6), dates
 * YYYY-MM-DD, time and timestamps as Python's isoformat (timestamptz with
 * "+00:00"), timestamp_ns as integer nanoseconds, strings and json as is,
 * uuid as 8-4-4-4-12 lowercase, binary as padded base64. Refuses a date or
 * timestamp outside years 1..9999, a time outside one day, a string that is
 * not UTF-8 or holds a NUL byte, a uuid that is not 16 bytes. */
int lake_partition_render(enum lake_type type, int scale, const struct lake_value *v,
                          struct buf *out, struct error *err);

/* The rows of a batch grouped by partition tuple. All memory belongs to
 * the struct: `values` is one allocation holding the pointer table and
 * every string (strings may be shared between groups); free it only with
 * lake_partition_groups_free. */
struct lake_partition_groups {
    size_t nfields; /* the spec's fields */
    size_t ngroups; /* distinct tuples, numbered by first occurrence */
    int64_t nrows;
    char **values;          /* [g * nfields + f]: the wire string, NULL for a null value */
    uint32_t *group_of_row; /* [row]: its group */
    int64_t *group_rows;    /* [g]: how many rows the group has */
};

/* Computes each row's partition tuple under t's partition spec (t must be
 * partitioned) and groups the rows. batch is an Arrow struct array (schema
 * its ArrowSchema) whose children are t's top-level columns in table order,
 * each in the Arrow format the Parquet writer takes for its column type. A
 * source may be a struct leaf (a null parent makes its value null); sources
 * under a list or map, bad formats or malformed arrays are refused. An
 * empty batch gives no groups. On failure *out is left empty (safe to
 * free). */
int lake_partition_group_rows(const struct lake_table *t, const struct ArrowSchema *schema,
                              const struct ArrowArray *batch, struct lake_partition_groups *out,
                              struct error *err);
void lake_partition_groups_free(struct lake_partition_groups *g);

#endif

/* Writing a Variant from a sequence of calls rather than JSON text: for
 * typed values (Arrow arrays) whose types JSON cannot carry (float,
 * decimal of any scale, dates, times, timestamps, binary, uuid).
 *
 * The bytes are the canonical encoding variant.h describes, the same as
 * variant_from_json writes for every value JSON can express: a sorted
 * dictionary of the keys used, each once; the smallest integer type; a
 * decimal as the narrowest of decimal4/8/16 whose precision (9, 18, 38
 * digits) holds its unscaled value, its scale kept; a short string under
 * 64 bytes; objects with their fields and values in key order; the
 * fewest bytes for ids, offsets and counts. Floats stay float and
 * temporal values keep their type.
 *
 * One value: begin/end containers, a key before each object field's
 * value, primitives, then variant_builder_finish. Memory is kept from one
 * value to the next (one builder encodes a column). Not thread-safe.
 *
 * Errors: ERR_INVALID with reason "duplicate_key" (at end_object),
 * "nesting_too_deep" (past VARIANT_MAX_DEPTH containers), "variant_encoding"
 * (a key or string that is not UTF-8), "number_out_of_range" (a decimal
 * past 38 digits or of a scale outside 0..38, a time outside a day, a
 * string or container past 4 GiB); ERR_INTERNAL for calls out of order;
 * ERR_NOMEM. After any failure the value is abandoned: call
 * variant_builder_reset before the next. Not installed. */
#ifndef HL_VARIANT_BUILDER_H
#define HL_VARIANT_BUILDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"
#include "util/error.h"

__extension__ typedef __int128 variant_builder_i128;

struct variant_builder;

struct variant_builder *variant_builder_new(void);
void variant_builder_free(struct variant_builder *b);
/* Forgets the value being built (keeps the memory). */
void variant_builder_reset(struct variant_builder *b);

int variant_builder_begin_object(struct variant_builder *b, struct error *err);
/* The next field's name (copied). */
int variant_builder_key(struct variant_builder *b, const char *key, size_t len, struct error *err);
int variant_builder_end_object(struct variant_builder *b, struct error *err);
int variant_builder_begin_array(struct variant_builder *b, struct error *err);
int variant_builder_end_array(struct variant_builder *b, struct error *err);

int variant_builder_null(struct variant_builder *b, struct error *err);
int variant_builder_bool(struct variant_builder *b, bool v, struct error *err);
int variant_builder_int(struct variant_builder *b, int64_t v, struct error *err);
int variant_builder_float(struct variant_builder *b, float v, struct error *err);
int variant_builder_double(struct variant_builder *b, double v, struct error *err);
/* unscaled * 10^-scale; scale 0..38, at most 38 digits. */
int variant_builder_decimal(struct variant_builder *b, variant_builder_i128 unscaled, int scale,
                            struct error *err);
int variant_builder_string(struct variant_builder *b, const char *s, size_t len, struct error *err);
int variant_builder_binary(struct variant_builder *b, const void *p, size_t len, struct error *err);
/* Days since 1970-01-01. */
int variant_builder_date(struct variant_builder *b, int32_t days, struct error *err);
/* Microseconds since midnight, 0 to a day. */
int variant_builder_time(struct variant_builder *b, int64_t micros, struct error *err);
/* Since the epoch, in microseconds or (nanos) nanoseconds; utc: an
 * instant (timestamp, timestamp_nanos), else a local date-time
 * (timestamp_ntz, timestamp_ntz_nanos). */
int variant_builder_timestamp(struct variant_builder *b, int64_t v, bool nanos, bool utc,
                              struct error *err);
/* The 16 bytes of a UUID, in the order its text shows them. */
int variant_builder_uuid(struct variant_builder *b, const uint8_t bytes[16], struct error *err);

/* Appends the finished value's metadata and value bytes (both left as
 * they were on failure) and resets the builder for the next value. */
int variant_builder_finish(struct variant_builder *b, struct buf *metadata, struct buf *value,
                           struct error *err);

#endif

/* Iceberg single-value binary bounds of the 27 column types (docs/bounds.md).
 *
 * A column's lower/upper bound travels as the Iceberg single-value encoding
 * of the column's mapped Iceberg type (contract §6.1): the server checks and
 * sanitizes what writers send, stores the bytes, and renders them as JSON on
 * reads; the client encodes them from Parquet footer statistics. Both use
 * this module.
 *
 * `precision` and `scale` matter only for decimal (1 <= precision <= 38,
 * 0 <= scale <= precision); uint64 is always decimal(20,0). A refusal
 * fills a struct error (util/error.h): ERR_INVALID with a short reason as
 * its message ("nan_bound" also as its typed reason), or ERR_NOMEM. */
#ifndef HL_LAKE_BOUNDS_H
#define HL_LAKE_BOUNDS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lake/types.h"
#include "util/buf.h"
#include "util/error.h"

enum bound_role { BOUND_LOWER, BOUND_UPPER };

/* A longer bound (a string, json or binary column's) is dropped: it is
 * stored with its file and sent with every scan page that holds the file,
 * and one that long seldom prunes anything. The Parquet writer leaves such
 * bounds out of its statistics for the same reason. */
enum { BOUND_MAX_BYTES = 4096 };

/* What bound_sanitize did to one bound. */
enum bound_fix {
    BOUND_KEEP,             /* stored as sent */
    BOUND_CANONICAL,        /* rewritten in place: a signed zero for its role, or
                             * a decimal/uint64 re-encoded in minimal form */
    BOUND_DROP_UNDECODABLE, /* not a bound of the column type */
    BOUND_DROP_NAN,         /* a float/double NaN: never stored */
    BOUND_DROP_INVERTED,    /* lower > upper in the type's order: both dropped */
    BOUND_DROP_TOO_LONG     /* longer than BOUND_MAX_BYTES */
};

/* "keep", "canonical", "undecodable", "nan", "inverted", "too_long"
 * (metric labels). */
const char *bound_fix_name(enum bound_fix f);

/* False for variant, list, struct and map: they have no bounds. */
bool bound_type_has_bounds(enum lake_type t);

/* A decimal's unscaled value as the minimal big-endian two's complement
 * bytes (1 to 16): the form of decimal bounds and of decimal bucket hash
 * input. Returns the length written. */
__extension__ size_t bound_decimal_minimal(__int128 unscaled, uint8_t out[16]);
/* Bytes of the little-endian bound of an integer, date, time or timestamp
 * type: 4 for those that map to Iceberg int, 8 for Iceberg long; 0 for
 * every other type (uint64 among them: its bound is a decimal's). */
size_t bound_int_width(enum lake_type t);

/* A bound stored at a promoted type's other width, re-encoded for type t:
 * 4-byte ints widened to 8 (to long, uint32), 8-byte ints narrowed to 4
 * when the value fits int32, float widened to double, a double narrowed to
 * float when exact. False when none applies (bound_check has the last word
 * on the result). */
bool bound_adapt_width(enum lake_type t, const uint8_t *b, size_t n, uint8_t out[8],
                       size_t *out_len);

/* 0 when b[0..n) decodes as a bound of the type, else -1 and err (when
 * not NULL) says why:
 *   boolean         1 byte, 00 or 01
 *   int8 int16 int  4 bytes little-endian signed, within the type's range
 *   uint8 uint16    4 bytes little-endian, within [0, 2^8) / [0, 2^16)
 *   date            4 bytes little-endian days
 *   long, time,     8 bytes little-endian signed; time within [0, 1 day) µs,
 *   timestamps,     uint32 within [0, 2^32); timestamp_ns in ns, the other
 *   uint32          timestamps in µs
 *   uint64          1..9 bytes big-endian two's complement in [0, 2^64)
 *   decimal         1..16 bytes big-endian two's complement unscaled,
 *                   |unscaled| < 10^precision
 *   float / double  4 / 8 bytes little-endian IEEE 754 (NaN decodes; see
 *                   bound_sanitize)
 *   string, json    valid UTF-8, any length (empty included)
 *   uuid            16 bytes
 *   binary          anything
 * Non-minimal decimal/uint64 encodings decode (bound_sanitize shortens them). */
int bound_check(enum lake_type t, int precision, int scale, const uint8_t *b, size_t n,
                struct error *err);

/* <0, 0, >0 as a is below, equal to or above b in the type's order: signed
 * integers and temporals numerically, uint64 and decimals by value (any
 * widths), floats in Iceberg's total order (-NaN < -Inf < ... < -0.0 < +0.0 <
 * ... < +Inf < NaN), booleans false < true, string/json/binary/uuid as
 * unsigned bytes (a prefix first). Both should pass bound_check; otherwise
 * the result is a deterministic byte order, never a crash. */
int bound_compare(enum lake_type t, const uint8_t *a, size_t an, const uint8_t *b, size_t bn);

/* What the server applies to each incoming bound before storing it: one
 * longer than BOUND_MAX_BYTES is dropped before it is read. b is
 * rewritten in place (never longer) and *n updated on BOUND_CANONICAL:
 * a float/double zero becomes -0.0 as a lower bound and +0.0 as an upper
 * bound; a decimal/uint64 in non-minimal form is re-encoded minimal. */
enum bound_fix bound_sanitize(enum lake_type t, int precision, int scale, enum bound_role role,
                              uint8_t *b, size_t *n);

/* One side of a pair: data/len the bound (rewritten in place), present
 * whether there is one; fix receives what was done. */
struct bound_slot {
    uint8_t *data;
    size_t len;
    bool present;
    enum bound_fix fix;
};

/* bound_sanitize on each present bound (a dropped one becomes absent), then,
 * when both remain and lower > upper, drops both as BOUND_DROP_INVERTED.
 * Returns how many slots ended with a fix other than BOUND_KEEP (0..2), the
 * count for hoglake_stats_repaired_total. */
int bound_sanitize_pair(enum lake_type t, int precision, int scale, struct bound_slot *lower,
                        struct bound_slot *upper);

/* The decoded bound as it appears in a JSON response (contract §6.1):
 *   boolean                   true / false
 *   integer types             json_integer; a uint64 above 2^63-1 as an
 *                             exact raw number (util/jsonnum.h)
 *   decimal                   raw number, plain, exactly `scale` fraction
 *                             digits ("1.27", "0.00", "-0.0000001")
 *   float / double            raw number, the shortest text that reads back
 *                             as the same value at the type's width ("0.1",
 *                             "3.4028235e+38", "-0.0"); "Infinity" /
 *                             "-Infinity" strings
 *   date                      "YYYY-MM-DD"
 *   time                      "HH:MM[:SS[.fff|.ffffff]]" (LocalTime)
 *   timestamp_s/_ms/timestamp,
 *   timestamp_ns              LocalDateTime: "1970-01-01T00:00",
 *                             "2026-09-05T12:00:00.123456789"
 *   timestamptz               Instant: "2026-09-05T12:00:00Z"
 *                             (years above 9999 "+YYYYY", negative "-YYYY")
 *   string / json             the string
 *   uuid                      lowercase 8-4-4-4-12
 *   binary                    padded standard base64
 * Returns a new reference, or NULL with err filled: "nan_bound" for a NaN, the
 * bound_check reason for an undecodable bound, "out of memory". Serialize
 * the result with jsonnum_dumps(), never json_dumps(). */
json_t *bound_to_json(enum lake_type t, int precision, int scale, const uint8_t *b, size_t n,
                      struct error *err);

/* Encodes a value written in the text conventions of
 * tests/vectors/bounds_vectors.json `value_conventions` (integers, unscaled
 * decimals, days, µs/ns counts as decimal integer strings; floats as decimal
 * strings or NaN/Infinity/-Infinity; uuid 8-4-4-4-12; binary base64; string
 * and json verbatim, value[0..len) may hold NUL bytes) and appends the bytes
 * to out. Values outside the type's domain are refused, so what this
 * produces always passes bound_check. 0, or -1 with err filled. */
int bound_encode_text(enum lake_type t, int precision, int scale, const char *value, size_t len,
                      struct buf *out, struct error *err);

/* The inverse: appends the value text of a bound (floats as the shortest
 * round-trip text, "NaN" for every NaN). 0, or -1 with err filled. */
int bound_decode_text(enum lake_type t, int precision, int scale, const uint8_t *b, size_t n,
                      struct buf *out, struct error *err);

#endif

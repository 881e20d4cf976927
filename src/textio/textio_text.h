/* Scalar values and their canonical text, both ways: the value conventions
 * of `hoglake parquet cat` and `convert` (docs/cli-parquet.md).
 *
 * Formatting writes into a caller's buffer (RT_TEXT_MAX bytes suffice for
 * every fixed-width value) and returns the length. Parsing takes text with
 * a length (not necessarily NUL-terminated; an embedded NUL is simply a
 * bad character) and returns NULL on success or a static sentence saying
 * what is wrong ("expected an integer"). Nothing here allocates except the
 * base64 and hex helpers, which append to a struct buf. */
#ifndef HL_TEXTIO_TEXT_H
#define HL_TEXTIO_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rows/rows_value.h"
#include "util/buf.h"

enum { RT_TEXT_MAX = 96 };

__extension__ typedef __int128 rt_i128;
__extension__ typedef unsigned __int128 rt_u128;

/* ---- formatting ---- */

size_t rt_format_i64(int64_t v, char *out);
size_t rt_format_u64(uint64_t v, char *out);
/* Shortest text that reads back as the same value, in Python's repr
 * layout: "1.5", "100.0", "1e+16", "1.5e-07", "-0.0", and "NaN",
 * "Infinity", "-Infinity" for the values JSON numbers cannot hold. */
size_t rt_format_double(double v, char *out);
size_t rt_format_float(float v, char *out);
/* True when the formatted text is one of NaN/Infinity/-Infinity (JSON
 * carries those as strings). */
bool rt_float_is_special(double v);
/* An unscaled decimal at a scale: exactly `scale` digits after the point
 * ("-123.45", "0.05", "7"). */
size_t rt_format_decimal(rt_i128 unscaled, int scale, char *out);
/* Days since 1970-01-01 as "YYYY-MM-DD" (years outside 0..9999 as a sign
 * and at least five digits, "+10000-01-01"). */
size_t rt_format_date(int64_t days, char *out);
/* A time of day in `unit` since midnight as "HH:MM:SS" plus the unit's
 * sub-second digits; 0 when the value is outside a day. */
size_t rt_format_time(int64_t v, enum rows_unit unit, char *out);
/* An instant in `unit` since the epoch as "YYYY-MM-DDTHH:MM:SS" plus the
 * unit's sub-second digits, and "Z" when utc. */
size_t rt_format_timestamp(int64_t v, enum rows_unit unit, bool utc, char *out);
/* An interval (Arrow's month_day_nano) as DuckDB prints one: "1 year
 * 2 months 3 days 04:05:06.007", "49:00:00", "00:00:00" for zero; each part
 * only when not zero, the fraction without trailing zeros. */
size_t rt_format_interval(int32_t months, int32_t days, int64_t nanos, char *out);
/* 16 big-endian bytes as lowercase 8-4-4-4-12. */
size_t rt_format_uuid(const uint8_t *b, char *out);
/* Standard base64 with padding / lowercase hex, appended. 0 or -1. */
int rt_base64_encode(struct buf *out, const void *data, size_t len);
int rt_hex_encode(struct buf *out, const void *data, size_t len);

/* ---- parsing ---- */

/* JSON's integer grammar (-?(0|[1-9][0-9]*)) within [min, max]. */
const char *rt_parse_i64(const char *s, size_t n, int64_t min, int64_t max, int64_t *out);
/* Digits only (no sign) up to max. */
const char *rt_parse_u64(const char *s, size_t n, uint64_t max, uint64_t *out);
/* Which float forms to accept: a JSON number, and/or the words NaN,
 * Infinity, -Infinity. */
enum { RT_FLOAT_NUMBER = 1, RT_FLOAT_WORDS = 2 };
/* With the float forms, for the text parser: the text is a CSV field. */
enum { RT_TEXT_CSV = 4 };
/* A number as CSV files spell it beyond JSON's grammar, in JSON's: a
 * leading '+' dropped, a missing integer digit ('.5', '-.5') or fraction
 * digit ('5.') added as 0. Returns s itself when it needs no change (or
 * is not such a number: the strict parse then says why), else buf (cap
 * bytes) holding the respelling, its length in *len. */
const char *rt_number_respell(const char *s, size_t *len, char *buf, size_t cap);
const char *rt_parse_double(const char *s, size_t n, int forms, double *out);
const char *rt_parse_float(const char *s, size_t n, int forms, float *out);
/* A number in JSON's grammar, exactly, as decimal(precision, scale):
 * digits past the scale must be zeros, and the value must fit. */
const char *rt_parse_decimal(const char *s, size_t n, int precision, int scale, rt_i128 *out);
const char *rt_parse_bool(const char *s, size_t n, bool *out);
/* "YYYY-MM-DD" (or an expanded year: a sign and 4 to 12 digits). */
const char *rt_parse_date(const char *s, size_t n, int32_t *days);
/* "HH:MM:SS[.f{1,9}]" in `unit`; digits below the unit must be zeros. */
const char *rt_parse_time(const char *s, size_t n, enum rows_unit unit, int64_t *out);
/* "YYYY-MM-DD(T| )HH:MM:SS[.f{1,9}]" in `unit`. With utc, an offset (Z,
 * +HH:MM, +HHMM or +HH) is required and the value is taken to UTC;
 * without, none may be given. */
const char *rt_parse_timestamp(const char *s, size_t n, enum rows_unit unit, bool utc,
                               int64_t *out);
/* 8-4-4-4-12 hex digits, either case, into 16 big-endian bytes. */
const char *rt_parse_uuid(const char *s, size_t n, uint8_t *out);
/* Standard base64 with padding (canonical: unused bits zero), appended. */
const char *rt_base64_decode(const char *s, size_t n, struct buf *out);

#endif

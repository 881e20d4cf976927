/* Date and time text in a layout the user names with strftime-style
 * directives ("%Y/%m/%d %H:%M:%S", "%b %d %Y"), parsed here rather than by
 * strptime so that the result does not depend on the locale and the match
 * is exact: the whole value is consumed and every field is range-checked.
 *
 * Directives: %Y (4-digit year), %m, %d, %H, %I, %M, %S (1 or 2 digits),
 * %f (1 to 9 fraction digits), %p (AM/PM), %b, %B, %h (an English month
 * name, full or abbreviated, any case), %z (Z, +HH:MM, +HHMM or +HH), %F
 * (%Y-%m-%d), %T (%H:%M:%S) and %%. Any other character matches itself.
 * A format is compiled once and then used for every value. */
#ifndef HL_TEXTIO_TIMEFMT_H
#define HL_TEXTIO_TIMEFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rows/rows_value.h"
#include "util/error.h"

enum { TEXTIO_TIMEFMT_MAX = 64 };

struct textio_timefmt {
    const char *text;               /* the format as given (the caller's), for messages */
    char items[TEXTIO_TIMEFMT_MAX]; /* a directive letter, or 0: lits[i] */
    char lits[TEXTIO_TIMEFMT_MAX];
    size_t nitems;
    bool has_time; /* a time-of-day field is present */
};

/* A parsed value: a wall-clock date and time, and its UTC offset when the
 * text gave one. */
struct textio_civil {
    int64_t year;
    int month, day, hour, minute, second;
    int32_t nanos;
    bool has_offset;
    int32_t offset; /* seconds east of UTC */
};

/* Compiles fmt (which must outlive *out). A format needs a year, a month
 * and a day; %M needs an hour, %S a minute, %f a second, %I and %p each
 * other; no field twice. ERR_INVALID saying why otherwise. */
int textio_timefmt_compile(const char *fmt, struct textio_timefmt *out, struct error *err);

/* Parses s (n bytes) with f: NULL on success, else a static sentence
 * saying what does not match. */
const char *textio_timefmt_parse(const struct textio_timefmt *f, const char *s, size_t n,
                                 struct textio_civil *out);

/* The wall clock of c as seconds since 1970-01-01T00:00 (its offset not
 * applied). */
int64_t textio_civil_seconds(const struct textio_civil *c);

/* UTC seconds and nanoseconds (utc_secs, nanos) in `unit`: NULL, or why
 * not (digits below the unit, out of range). */
const char *textio_time_in_unit(int64_t utc_secs, int32_t nanos, enum rows_unit unit, int64_t *out);

#endif

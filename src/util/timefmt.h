/* ISO-8601 instants as microseconds since the Unix epoch (UTC). */
#ifndef HL_UTIL_TIMEFMT_H
#define HL_UTIL_TIMEFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Parses "YYYY-MM-DDTHH:MM:SS[.f{1,9}](Z|+HH:MM|-HH:MM)" (a 'T' or a space
 * between date and time; "+HHMM" and "+HH" offsets too). The offset is
 * required: a local time names no instant. Fractions below a microsecond are
 * truncated. Returns false on anything else. */
bool time_parse_iso8601(const char *s, int64_t *out_micros);

/* Formats an instant as "YYYY-MM-DDTHH:MM:SS[.mmm|.uuuuuu]Z", dropping
 * trailing zero sub-second groups. Years outside 0..9999 get a sign and five
 * or more digits. Returns the length written (buffer of 40 bytes suffices). */
size_t time_format_iso8601(int64_t micros, char *out, size_t out_size);

/* Days since 1970-01-01 for a proleptic Gregorian date, and back. */
int64_t time_days_from_civil(int64_t y, unsigned m, unsigned d);
void time_civil_from_days(int64_t days, int64_t *y, unsigned *m, unsigned *d);

int64_t time_now_micros(void);
/* Monotonic clock in nanoseconds, for measuring durations. */
int64_t time_mono_ns(void);

#endif

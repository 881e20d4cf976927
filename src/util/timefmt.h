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

/* Java's java.time text forms, for values that must read exactly as a JVM
 * would print them (Iceberg bounds). `digits` is the unit of v: 6 for
 * microseconds, 9 for nanoseconds (0..9 accepted). Each returns the length
 * written, or 0 when out_size is too small; 64 bytes always suffice.
 *
 * LocalDate.toString: "YYYY-MM-DD"; a year above 9999 as '+' and its digits
 * ("+10000-01-01"), a negative year as '-' and at least four digits
 * ("-0001-01-01"). */
size_t time_format_local_date(int64_t days, char *out, size_t out_size);
/* LocalTime.toString of v units since midnight: "HH:MM", then ":SS" only
 * when seconds or fraction are non-zero, then the fraction only when
 * non-zero, as 3, 6 or 9 digits (the fewest that hold it). 0 when v is
 * outside [0, 1 day). */
size_t time_format_local_time(int64_t v, int digits, char *out, size_t out_size);
/* LocalDateTime.toString of v units since 1970-01-01T00:00: date, 'T',
 * LocalTime.toString ("1970-01-01T00:00", "2026-09-05T12:00:00.123"). */
size_t time_format_local_datetime(int64_t v, int digits, char *out, size_t out_size);
/* Instant.toString of v units since the epoch: seconds always present,
 * fraction in groups of three digits when non-zero, 'Z'
 * ("2026-09-05T12:00:00Z", "1969-12-31T23:59:59.999999Z"). */
size_t time_format_instant(int64_t v, int digits, char *out, size_t out_size);

/* Days since 1970-01-01 for a proleptic Gregorian date, and back. */
int64_t time_days_from_civil(int64_t y, unsigned m, unsigned d);
void time_civil_from_days(int64_t days, int64_t *y, unsigned *m, unsigned *d);

int64_t time_now_micros(void);
/* Monotonic clock in nanoseconds, for measuring durations. */
int64_t time_mono_ns(void);
/* The CLOCK_MONOTONIC instant ms milliseconds from now, for
 * pthread_cond_timedwait on a condition variable using that clock. */
struct timespec;
void time_mono_deadline(struct timespec *due, int64_t ms);

#endif

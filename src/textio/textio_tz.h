/* Time zones for wall-clock times that carry no UTC offset: UTC, a fixed
 * offset, or an IANA zone read from the system tz database's TZif files
 * (RFC 8536) with the POSIX TZ rule of their footer for times past the
 * last listed transition.
 *
 * The files are read here, not through setenv("TZ") + mktime, because TZ
 * is process state (the library's threads and every later localtime see
 * it) and mktime's choice for a skipped or repeated local time is
 * unspecified. The rule here is PostgreSQL's: a local time that a
 * spring-forward skips takes the offset in force before the transition
 * (02:30 on a New York spring-forward day is 03:30 EDT), one that a
 * fall-back repeats takes the offset in force after it (01:30 on a
 * fall-back day is 01:30 EST, the later instant). */
#ifndef HL_TEXTIO_TZ_H
#define HL_TEXTIO_TZ_H

#include <stdint.h>

#include "util/arena.h"
#include "util/error.h"

struct textio_tz;

/* Opens `name`: "UTC" (or "Z"), an offset "+05:30", "-0800", "+05", or an
 * IANA name ("America/New_York") read from $TZDIR, else
 * /usr/share/zoneinfo. Allocated from ar. Fails with ERR_NOT_FOUND for an
 * unknown zone, ERR_INVALID for a name that cannot be one, ERR_CORRUPT or
 * ERR_UNSUPPORTED for a file it cannot use. */
int textio_tz_open(const char *name, struct arena *ar, const struct textio_tz **out,
                   struct error *err);

/* The offset east of UTC, in seconds, in force at instant utc. */
int32_t textio_tz_offset_at(const struct textio_tz *tz, int64_t utc);

/* The instant (UTC seconds) of wall-clock time `local` (seconds since
 * 1970-01-01T00:00 as read on the zone's clocks). */
int64_t textio_tz_to_utc(const struct textio_tz *tz, int64_t local);

#endif

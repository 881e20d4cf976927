#include "util/timefmt.h"

#include <stdio.h>
#include <time.h>

int64_t time_days_from_civil(int64_t y, unsigned m, unsigned d)
{
    /* Howard Hinnant's algorithm, valid for the whole int64 range we use. */
    y -= m <= 2;
    const int64_t era = (y >= 0 ? y : y - 399) / 400;
    const int64_t yoe = y - era * 400;
    const int64_t doy = (153 * (int64_t)(m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

void time_civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
    z += 719468;
    const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    const int64_t doe = z - era * 146097;
    const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const int64_t mp = (5 * doy + 2) / 153;
    *d = (unsigned)(doy - (153 * mp + 2) / 5 + 1);
    *m = (unsigned)(mp < 10 ? mp + 3 : mp - 9);
    *y = yoe + era * 400 + (*m <= 2);
}

static bool digits(const char **p, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        char c = (*p)[i];
        if (c < '0' || c > '9')
            return false;
        v = v * 10 + (c - '0');
    }
    *p += n;
    *out = v;
    return true;
}

static bool is_leap(int64_t y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static unsigned days_in_month(int64_t y, unsigned m)
{
    static const unsigned dm[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return m == 2 && is_leap(y) ? 29 : dm[m - 1];
}

bool time_parse_iso8601(const char *s, int64_t *out_micros)
{
    const char *p = s;
    int year, mon, day, hh, mm, ss;
    if (!digits(&p, 4, &year) || *p++ != '-' || !digits(&p, 2, &mon) || *p++ != '-' ||
        !digits(&p, 2, &day))
        return false;
    if (*p != 'T' && *p != 't' && *p != ' ')
        return false;
    p++;
    if (!digits(&p, 2, &hh) || *p++ != ':' || !digits(&p, 2, &mm) || *p++ != ':' ||
        !digits(&p, 2, &ss))
        return false;
    int64_t frac_us = 0;
    if (*p == '.' || *p == ',') {
        p++;
        int n = 0;
        int64_t scale = 100000;
        while (*p >= '0' && *p <= '9') {
            if (n < 6) {
                frac_us += (*p - '0') * scale;
                scale /= 10;
            }
            p++;
            if (++n > 9)
                return false;
        }
        if (n == 0)
            return false;
    }
    int offset_min = 0;
    if (*p == 'Z' || *p == 'z') {
        p++;
    } else if (*p == '+' || *p == '-') {
        int sign = *p++ == '-' ? -1 : 1;
        int oh, om = 0;
        if (!digits(&p, 2, &oh))
            return false;
        if (*p == ':') {
            p++;
            if (!digits(&p, 2, &om))
                return false;
        } else if (*p >= '0' && *p <= '9') {
            if (!digits(&p, 2, &om))
                return false;
        }
        /* ISO-8601 offsets stop at +/-18:00. */
        if (om > 59 || oh * 60 + om > 18 * 60)
            return false;
        offset_min = sign * (oh * 60 + om);
    } else {
        return false;
    }
    if (*p != '\0')
        return false;
    if (mon < 1 || mon > 12 || day < 1 || (unsigned)day > days_in_month(year, (unsigned)mon) ||
        hh > 23 || mm > 59 || ss > 59)
        return false;
    int64_t days = time_days_from_civil(year, (unsigned)mon, (unsigned)day);
    int64_t secs = days * 86400 + hh * 3600 + mm * 60 + ss - (int64_t)offset_min * 60;
    *out_micros = secs * 1000000 + frac_us;
    return true;
}

size_t time_format_iso8601(int64_t micros, char *out, size_t out_size)
{
    int64_t secs = micros / 1000000;
    int64_t us = micros % 1000000;
    if (us < 0) {
        us += 1000000;
        secs -= 1;
    }
    int64_t days = secs / 86400;
    int64_t rem = secs % 86400;
    if (rem < 0) {
        rem += 86400;
        days -= 1;
    }
    int64_t y;
    unsigned m, d;
    time_civil_from_days(days, &y, &m, &d);
    char year[24];
    if (y >= 0 && y <= 9999)
        snprintf(year, sizeof year, "%04lld", (long long)y);
    else
        snprintf(year, sizeof year, "%+06lld", (long long)y);
    char frac[12] = "";
    if (us % 1000 != 0)
        snprintf(frac, sizeof frac, ".%06lld", (long long)us);
    else if (us != 0)
        snprintf(frac, sizeof frac, ".%03lld", (long long)(us / 1000));
    int n =
        snprintf(out, out_size, "%s-%02u-%02uT%02lld:%02lld:%02lld%sZ", year, m, d,
                 (long long)(rem / 3600), (long long)(rem / 60 % 60), (long long)(rem % 60), frac);
    return n < 0 ? 0 : (size_t)n;
}

/* v = secs * per + frac with 0 <= frac < per, for per = 10^digits. */
static int64_t split_units(int64_t v, int digits, int64_t *secs)
{
    int64_t per = 1;
    for (int i = 0; i < digits; i++)
        per *= 10;
    int64_t s = v / per, frac = v % per;
    if (frac < 0) {
        frac += per;
        s -= 1;
    }
    *secs = s;
    for (int i = digits; i < 9; i++)
        frac *= 10;
    return frac; /* in nanoseconds */
}

static size_t finish(int n, size_t out_size)
{
    return n < 0 || (size_t)n >= out_size ? 0 : (size_t)n;
}

size_t time_format_local_date(int64_t days, char *out, size_t out_size)
{
    int64_t y;
    unsigned m, d;
    time_civil_from_days(days, &y, &m, &d);
    int n;
    if (y >= 0 && y <= 9999)
        n = snprintf(out, out_size, "%04lld-%02u-%02u", (long long)y, m, d);
    else if (y > 9999)
        n = snprintf(out, out_size, "+%lld-%02u-%02u", (long long)y, m, d);
    else /* '-' and at least four digits */
        n = snprintf(out, out_size, "%05lld-%02u-%02u", (long long)y, m, d);
    return finish(n, out_size);
}

/* "HH:MM[:SS[.fff|.ffffff|.fffffffff]]" (always_seconds: ":SS" kept; the
 * fraction is identical either way). */
static int format_clock_java(int64_t sec_of_day, int64_t nanos, bool always_seconds, char *out,
                             size_t out_size)
{
    int hh = (int)(sec_of_day / 3600), mm = (int)(sec_of_day / 60 % 60),
        ss = (int)(sec_of_day % 60);
    if (!always_seconds && ss == 0 && nanos == 0)
        return snprintf(out, out_size, "%02d:%02d", hh, mm);
    if (nanos == 0)
        return snprintf(out, out_size, "%02d:%02d:%02d", hh, mm, ss);
    if (nanos % 1000000 == 0)
        return snprintf(out, out_size, "%02d:%02d:%02d.%03d", hh, mm, ss, (int)(nanos / 1000000));
    if (nanos % 1000 == 0)
        return snprintf(out, out_size, "%02d:%02d:%02d.%06d", hh, mm, ss, (int)(nanos / 1000));
    return snprintf(out, out_size, "%02d:%02d:%02d.%09d", hh, mm, ss, (int)nanos);
}

size_t time_format_local_time(int64_t v, int digits, char *out, size_t out_size)
{
    if (digits < 0 || digits > 9 || v < 0)
        return 0;
    int64_t secs;
    int64_t nanos = split_units(v, digits, &secs);
    if (secs >= 86400)
        return 0;
    return finish(format_clock_java(secs, nanos, false, out, out_size), out_size);
}

static size_t format_datetime_java(int64_t v, int digits, bool instant, char *out, size_t out_size)
{
    if (digits < 0 || digits > 9)
        return 0;
    int64_t secs;
    int64_t nanos = split_units(v, digits, &secs);
    int64_t days = secs / 86400, rem = secs % 86400;
    if (rem < 0) {
        rem += 86400;
        days -= 1;
    }
    size_t n = time_format_local_date(days, out, out_size);
    if (n == 0 || n + 1 >= out_size)
        return 0;
    out[n++] = 'T';
    size_t c = finish(format_clock_java(rem, nanos, instant, out + n, out_size - n), out_size - n);
    if (c == 0)
        return 0;
    n += c;
    if (instant) {
        if (n + 1 >= out_size)
            return 0;
        out[n++] = 'Z';
        out[n] = '\0';
    }
    return n;
}

size_t time_format_local_datetime(int64_t v, int digits, char *out, size_t out_size)
{
    return format_datetime_java(v, digits, false, out, out_size);
}

size_t time_format_instant(int64_t v, int digits, char *out, size_t out_size)
{
    return format_datetime_java(v, digits, true, out, out_size);
}

int64_t time_now_micros(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int64_t time_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void time_mono_deadline(struct timespec *due, int64_t ms)
{
    clock_gettime(CLOCK_MONOTONIC, due);
    int64_t ns = due->tv_nsec + (ms % 1000) * 1000000;
    due->tv_sec += (time_t)(ms / 1000 + ns / 1000000000);
    due->tv_nsec = (long)(ns % 1000000000);
}

#include "textio/textio_text.h"
#include "util/strutil.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/base64.h"
#include "util/numfmt.h"
#include "util/timefmt.h"
#include "util/jsonnum.h"

/* ---- formatting ---- */

size_t rt_format_i64(int64_t v, char *out)
{
    return numfmt_i64(v, out);
}

size_t rt_format_u64(uint64_t v, char *out)
{
    return numfmt_u64(v, out);
}

bool rt_float_is_special(double v)
{
    return isnan(v) || isinf(v);
}

static size_t copy_text(char *out, const char *s)
{
    size_t n = strlen(s);
    memcpy(out, s, n + 1);
    return n;
}

static size_t format_shortest(double v, bool single, char *out)
{
    if (isnan(v))
        return copy_text(out, "NaN");
    if (isinf(v))
        return copy_text(out, v < 0 ? "-Infinity" : "Infinity");
    return numfmt_shortest(v, single, out);
}

size_t rt_format_double(double v, char *out)
{
    return format_shortest(v, false, out);
}

size_t rt_format_float(float v, char *out)
{
    return format_shortest((double)v, true, out);
}

size_t rt_format_decimal(rt_i128 v, int scale, char *out)
{
    return numfmt_decimal(v, scale, out);
}

static size_t format_civil(int64_t days, char *out)
{
    int64_t y;
    unsigned m, d;
    time_civil_from_days(days, &y, &m, &d);
    if (y >= 0 && y <= 9999) {
        /* Digits by hand: printf dominates a large read's time otherwise. */
        numfmt_fixed((uint64_t)y, 4, out);
        out[4] = '-';
        numfmt_fixed(m, 2, out + 5);
        out[7] = '-';
        numfmt_fixed(d, 2, out + 8);
        out[10] = '\0';
        return 10;
    }
    return (size_t)snprintf(out, RT_TEXT_MAX, "%+06lld-%02u-%02u", (long long)y, m, d);
}

size_t rt_format_date(int64_t days, char *out)
{
    return format_civil(days, out);
}

/* secs: within a day; frac: below a second, in `unit`. */
static size_t format_clock(int64_t secs, int64_t frac, enum rows_unit unit, char *out)
{
    numfmt_fixed((uint64_t)(secs / 3600), 2, out);
    out[2] = ':';
    numfmt_fixed((uint64_t)(secs / 60 % 60), 2, out + 3);
    out[5] = ':';
    numfmt_fixed((uint64_t)(secs % 60), 2, out + 6);
    size_t n = 8;
    if (unit != ROWS_SECONDS) {
        out[n++] = '.';
        numfmt_fixed((uint64_t)frac, (int)unit, out + n);
        n += (size_t)unit;
    }
    out[n] = '\0';
    return n;
}

/* "N unit" or "N units", after a space when something came before. */
static int put_count(char *out, int n, int64_t v, const char *unit)
{
    return snprintf(out + n, (size_t)(RT_TEXT_MAX - n), "%s%lld %s%s", n ? " " : "", (long long)v,
                    unit, v == 1 || v == -1 ? "" : "s");
}

size_t rt_format_interval(int32_t months, int32_t days, int64_t nanos, char *out)
{
    int n = 0;
    if (months / 12)
        n += put_count(out, n, months / 12, "year");
    if (months % 12)
        n += put_count(out, n, months % 12, "month");
    if (days)
        n += put_count(out, n, days, "day");
    if (nanos || n == 0) {
        /* The magnitude, so that INT64_MIN negates safely. */
        uint64_t mag = nanos < 0 ? 0 - (uint64_t)nanos : (uint64_t)nanos;
        uint64_t secs = mag / 1000000000u, frac = mag % 1000000000u;
        n += snprintf(out + n, (size_t)(RT_TEXT_MAX - n), "%s%s%02llu:%02llu:%02llu", n ? " " : "",
                      nanos < 0 ? "-" : "", (unsigned long long)(secs / 3600),
                      (unsigned long long)(secs / 60 % 60), (unsigned long long)(secs % 60));
        if (frac) {
            int digits = 9;
            while (frac % 10 == 0) {
                frac /= 10;
                digits--;
            }
            n += snprintf(out + n, (size_t)(RT_TEXT_MAX - n), ".%0*llu", digits,
                          (unsigned long long)frac);
        }
    }
    return (size_t)n;
}

size_t rt_format_time(int64_t v, enum rows_unit unit, char *out)
{
    int64_t per = rows_unit_per_second(unit);
    if (v < 0 || v / per >= 86400) {
        out[0] = '\0';
        return 0;
    }
    return format_clock(v / per, v % per, unit, out);
}

size_t rt_format_timestamp(int64_t v, enum rows_unit unit, bool utc, char *out)
{
    int64_t per = rows_unit_per_second(unit);
    int64_t secs = v / per, frac = v % per;
    if (frac < 0) {
        frac += per;
        secs--;
    }
    int64_t days = secs / 86400, rem = secs % 86400;
    if (rem < 0) {
        rem += 86400;
        days--;
    }
    size_t n = format_civil(days, out);
    out[n++] = 'T';
    n += format_clock(rem, frac, unit, out + n);
    if (utc) {
        out[n++] = 'Z';
        out[n] = '\0';
    }
    return n;
}

size_t rt_format_uuid(const uint8_t *b, char *out)
{
    return str_format_uuid(b, out);
}

int rt_base64_encode(struct buf *out, const void *data, size_t len)
{
    return base64_encode(out, data, len);
}

int rt_hex_encode(struct buf *out, const void *data, size_t len)
{
    if (buf_reserve(out, len * 2 + 1) != 0)
        return -1;
    str_hex_encode(data, len, out->data + out->len);
    out->len += len * 2;
    return 0;
}

/* ---- parsing ---- */

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* JSON's number grammar over the whole of s[0..n). */
static bool number_syntax(const char *s, size_t n, bool integer_only)
{
    if (!jsonnum_valid(s, n))
        return false;
    return !integer_only || (!memchr(s, '.', n) && !memchr(s, 'e', n) && !memchr(s, 'E', n));
}

const char *rt_number_respell(const char *s, size_t *len, char *buf, size_t cap)
{
    size_t n = *len, i = 0, k = 0;
    if (n == 0 || n + 3 > cap || jsonnum_valid(s, n))
        return s;
    if (s[0] == '+')
        i = 1;
    else if (s[0] == '-')
        buf[k++] = s[i++];
    /* A digit, or a point and a digit, after the sign: "+-1", ".e5" stay
     * refused. */
    bool digit_next = i < n && s[i] >= '0' && s[i] <= '9';
    bool point_digit = i + 1 < n && s[i] == '.' && s[i + 1] >= '0' && s[i + 1] <= '9';
    if (!digit_next && !point_digit)
        return s;
    if (point_digit)
        buf[k++] = '0';
    while (i < n) {
        buf[k++] = s[i];
        /* '5.' and '5.e3': a fraction digit after the point. */
        if (s[i] == '.' && (i + 1 == n || s[i + 1] == 'e' || s[i + 1] == 'E'))
            buf[k++] = '0';
        i++;
    }
    if (!jsonnum_valid(buf, k))
        return s;
    *len = k;
    return buf;
}

/* Magnitude of a syntactically valid integer; false on overflow. */
static bool magnitude(const char *s, size_t n, uint64_t *out)
{
    uint64_t v = 0;
    for (size_t i = s[0] == '-'; i < n; i++) {
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            return false;
        v = v * 10 + d;
    }
    *out = v;
    return true;
}

const char *rt_parse_i64(const char *s, size_t n, int64_t min, int64_t max, int64_t *out)
{
    if (!number_syntax(s, n, true))
        return "expected an integer";
    uint64_t m;
    if (!magnitude(s, n, &m))
        return "out of range";
    bool neg = s[0] == '-';
    if (m == 0) {
        if (min > 0 || max < 0)
            return "out of range";
        *out = 0;
        return NULL;
    }
    if (neg) {
        uint64_t lim = min < 0 ? (uint64_t)(-(min + 1)) + 1 : 0;
        if (m > lim)
            return "out of range";
        *out = m == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)m;
    } else {
        if (max < 0 || m > (uint64_t)max)
            return "out of range";
        *out = (int64_t)m;
    }
    if (*out < min)
        return "out of range";
    return NULL;
}

const char *rt_parse_u64(const char *s, size_t n, uint64_t max, uint64_t *out)
{
    if (!number_syntax(s, n, true))
        return "expected an integer";
    uint64_t m;
    if (!magnitude(s, n, &m) || m > max || (s[0] == '-' && m != 0))
        return "out of range";
    *out = m;
    return NULL;
}

static bool equals(const char *s, size_t n, const char *word)
{
    return strlen(word) == n && memcmp(s, word, n) == 0;
}

static const char *float_forms_error(int forms)
{
    if (forms == RT_FLOAT_WORDS)
        return "expected NaN, Infinity or -Infinity (numbers are not quoted)";
    if (forms == RT_FLOAT_NUMBER)
        return "expected a number";
    return "expected a number, NaN, Infinity or -Infinity";
}

/* Parses a float in either width: single selects strtof. */
static const char *parse_real(const char *s, size_t n, int forms, bool single, double *out)
{
    if (forms & RT_FLOAT_WORDS) {
        if (equals(s, n, "NaN")) {
            *out = NAN;
            return NULL;
        }
        if (equals(s, n, "Infinity") || equals(s, n, "-Infinity")) {
            *out = s[0] == '-' ? -INFINITY : INFINITY;
            return NULL;
        }
    }
    if (!(forms & RT_FLOAT_NUMBER) || !number_syntax(s, n, false))
        return float_forms_error(forms);
    char small[128];
    char *tmp = n < sizeof small ? small : malloc(n + 1);
    if (!tmp)
        return "out of memory";
    memcpy(tmp, s, n);
    tmp[n] = '\0';
    double v = single ? (double)strtof(tmp, NULL) : strtod(tmp, NULL);
    if (tmp != small)
        free(tmp);
    if (isinf(v))
        return "out of range";
    *out = v;
    return NULL;
}

const char *rt_parse_double(const char *s, size_t n, int forms, double *out)
{
    return parse_real(s, n, forms, false, out);
}

const char *rt_parse_float(const char *s, size_t n, int forms, float *out)
{
    double v;
    const char *e = parse_real(s, n, forms, true, &v);
    if (!e)
        *out = (float)v;
    return e;
}

const char *rt_parse_decimal(const char *s, size_t n, int precision, int scale, rt_i128 *out)
{
    if (!number_syntax(s, n, false))
        return "expected a decimal number";
    size_t i = s[0] == '-', end = i;
    while (end < n && s[end] != 'e' && s[end] != 'E')
        end++;
    /* Significant digits: from the first to the last non-zero one. */
    int64_t frac = 0, exp10 = 0, trailing = 0;
    size_t first = SIZE_MAX, last = SIZE_MAX;
    bool in_frac = false;
    for (size_t k = i; k < end; k++) {
        if (s[k] == '.') {
            in_frac = true;
            continue;
        }
        frac += in_frac;
        if (s[k] != '0') {
            if (first == SIZE_MAX)
                first = k;
            last = k;
            trailing = 0;
        } else {
            trailing++;
        }
    }
    if (end < n) {
        size_t k = end + 1;
        bool neg = s[k] == '-';
        if (s[k] == '+' || s[k] == '-')
            k++;
        for (; k < n; k++) {
            if (exp10 < 1000000)
                exp10 = exp10 * 10 + (s[k] - '0');
        }
        if (neg)
            exp10 = -exp10;
    }
    if (first == SIZE_MAX) {
        *out = 0;
        return NULL;
    }
    int64_t m = 0;
    for (size_t k = first; k <= last; k++)
        m += s[k] != '.';
    int64_t shift = exp10 - frac + scale + trailing;
    if (shift < 0)
        return "has more digits after the point than the column's scale";
    if (m + shift > precision)
        return "out of range for the column's precision";
    rt_u128 v = 0;
    for (size_t k = first; k <= last; k++)
        if (s[k] != '.')
            v = v * 10 + (rt_u128)(s[k] - '0');
    for (int64_t k = 0; k < shift; k++)
        v *= 10;
    *out = s[0] == '-' ? -(rt_i128)v : (rt_i128)v;
    return NULL;
}

const char *rt_parse_bool(const char *s, size_t n, bool *out)
{
    if (equals(s, n, "true"))
        *out = true;
    else if (equals(s, n, "false"))
        *out = false;
    else
        return "expected true or false";
    return NULL;
}

static bool digits_at(const char *s, size_t n, size_t *pos, int count, int64_t *out)
{
    int64_t v = 0;
    for (int i = 0; i < count; i++) {
        if (*pos >= n || !is_digit(s[*pos]))
            return false;
        v = v * 10 + (s[(*pos)++] - '0');
    }
    *out = v;
    return true;
}

static bool is_leap(int64_t y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static const char *parse_date_part(const char *s, size_t n, size_t *pos, int64_t *days)
{
    static const char *const bad = "expected a date YYYY-MM-DD";
    int64_t y, m, d;
    bool neg = false;
    if (*pos < n && (s[*pos] == '+' || s[*pos] == '-')) {
        neg = s[(*pos)++] == '-';
        size_t start = *pos;
        y = 0;
        while (*pos < n && is_digit(s[*pos]) && *pos - start < 12)
            y = y * 10 + (s[(*pos)++] - '0');
        if (*pos - start < 4)
            return bad;
        if (neg)
            y = -y;
    } else if (!digits_at(s, n, pos, 4, &y)) {
        return bad;
    }
    if (*pos >= n || s[(*pos)++] != '-' || !digits_at(s, n, pos, 2, &m) || *pos >= n ||
        s[(*pos)++] != '-' || !digits_at(s, n, pos, 2, &d))
        return bad;
    static const int dm[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (m < 1 || m > 12 || d < 1 || d > dm[m - 1] + (m == 2 && is_leap(y)))
        return "not a calendar date";
    *days = time_days_from_civil(y, (unsigned)m, (unsigned)d);
    return NULL;
}

const char *rt_parse_date(const char *s, size_t n, int32_t *days)
{
    size_t pos = 0;
    int64_t d;
    const char *e = parse_date_part(s, n, &pos, &d);
    if (e)
        return e;
    if (pos != n)
        return "expected a date YYYY-MM-DD";
    if (d < INT32_MIN || d > INT32_MAX)
        return "out of range";
    *days = (int32_t)d;
    return NULL;
}

/* HH:MM:SS[.f{1,9}] into seconds of the day and the fraction in `unit`. */
static const char *parse_clock(const char *s, size_t n, size_t *pos, enum rows_unit unit,
                               int64_t *secs, int64_t *frac)
{
    static const char *const bad = "expected a time HH:MM:SS[.ffffff]";
    int64_t h, m, sec;
    if (!digits_at(s, n, pos, 2, &h) || *pos >= n || s[(*pos)++] != ':' ||
        !digits_at(s, n, pos, 2, &m) || *pos >= n || s[(*pos)++] != ':' ||
        !digits_at(s, n, pos, 2, &sec))
        return bad;
    if (h > 23 || m > 59 || sec > 59)
        return "not a time of day";
    *secs = h * 3600 + m * 60 + sec;
    *frac = 0;
    if (*pos < n && s[*pos] == '.') {
        (*pos)++;
        int nd = 0;
        while (*pos < n && is_digit(s[*pos])) {
            if (++nd > 9)
                return bad;
            int dv = s[(*pos)++] - '0';
            if (nd <= (int)unit)
                *frac = *frac * 10 + dv;
            else if (dv != 0)
                return "has digits below the column's time unit";
        }
        if (nd == 0)
            return bad;
        for (; nd < (int)unit; nd++)
            *frac *= 10;
    }
    return NULL;
}

const char *rt_parse_time(const char *s, size_t n, enum rows_unit unit, int64_t *out)
{
    size_t pos = 0;
    int64_t secs, frac;
    const char *e = parse_clock(s, n, &pos, unit, &secs, &frac);
    if (e)
        return e;
    if (pos != n)
        return "expected a time HH:MM:SS[.ffffff]";
    *out = secs * rows_unit_per_second(unit) + frac;
    return NULL;
}

const char *rt_parse_timestamp(const char *s, size_t n, enum rows_unit unit, bool utc, int64_t *out)
{
    size_t pos = 0;
    int64_t days, secs, frac;
    const char *e = parse_date_part(s, n, &pos, &days);
    if (e)
        return "expected a timestamp YYYY-MM-DDTHH:MM:SS[.ffffff]";
    if (pos >= n || (s[pos] != 'T' && s[pos] != ' '))
        return "expected a timestamp YYYY-MM-DDTHH:MM:SS[.ffffff]";
    pos++;
    e = parse_clock(s, n, &pos, unit, &secs, &frac);
    if (e)
        return e;
    int64_t offset_min = 0;
    if (pos == n) {
        if (utc)
            return "a timestamptz needs a UTC offset (Z or +HH:MM)";
    } else if (!utc) {
        return "a timestamp without time zone takes no offset";
    } else if (s[pos] == 'Z' || s[pos] == 'z') {
        pos++;
    } else if (s[pos] == '+' || s[pos] == '-') {
        int sign = s[pos++] == '-' ? -1 : 1;
        int64_t oh, om = 0;
        if (!digits_at(s, n, &pos, 2, &oh))
            return "bad UTC offset";
        if (pos < n && s[pos] == ':')
            pos++;
        if (pos < n && !digits_at(s, n, &pos, 2, &om))
            return "bad UTC offset";
        if (om > 59 || oh * 60 + om > 18 * 60)
            return "bad UTC offset";
        offset_min = sign * (oh * 60 + om);
    }
    if (pos != n)
        return "unexpected text after the timestamp";
    int64_t t, v, per = rows_unit_per_second(unit);
    if (__builtin_mul_overflow(days, 86400, &t) || __builtin_add_overflow(t, secs, &t) ||
        __builtin_sub_overflow(t, offset_min * 60, &t))
        return "out of range for the column's time unit";
    if (t < 0 && frac > 0) {
        /* So that the earliest representable instant does not overflow on the way. */
        t++;
        frac -= per;
    }
    if (__builtin_mul_overflow(t, per, &v) || __builtin_add_overflow(v, frac, &v))
        return "out of range for the column's time unit";
    *out = v;
    return NULL;
}

const char *rt_parse_uuid(const char *s, size_t n, uint8_t *out)
{
    return str_parse_uuid(s, n, out) ? NULL : "expected a UUID 8-4-4-4-12";
}

const char *rt_base64_decode(const char *s, size_t n, struct buf *out)
{
    return base64_decode(s, n, out);
}

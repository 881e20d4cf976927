#include "textio/textio_timefmt.h"

#include <string.h>
#include <strings.h>

#include "util/timefmt.h"

static const char *const month_names[12] = {"january",   "february", "march",    "april",
                                            "may",       "june",     "july",     "august",
                                            "september", "october",  "november", "december"};

static int add_item(struct textio_timefmt *f, char item, char lit, struct error *err)
{
    if (f->nitems == TEXTIO_TIMEFMT_MAX)
        return error_fail(err, ERR_INVALID, "'%s' is longer than %d items", f->text,
                          TEXTIO_TIMEFMT_MAX);
    f->items[f->nitems] = item;
    f->lits[f->nitems++] = lit;
    return 0;
}

/* Adds directive d, or a shorthand's expansion. */
static int add_directive(struct textio_timefmt *f, char d, struct error *err)
{
    if (d == 'F')
        return add_item(f, 'Y', 0, err) || add_item(f, 0, '-', err) || add_item(f, 'm', 0, err) ||
                       add_item(f, 0, '-', err) || add_item(f, 'd', 0, err)
                   ? -1
                   : 0;
    if (d == 'T')
        return add_item(f, 'H', 0, err) || add_item(f, 0, ':', err) || add_item(f, 'M', 0, err) ||
                       add_item(f, 0, ':', err) || add_item(f, 'S', 0, err)
                   ? -1
                   : 0;
    if (d == '%')
        return add_item(f, 0, '%', err);
    if (d == 'B' || d == 'h')
        d = 'b';
    if (!d || !strchr("YmdHIMSfpbz", d))
        return error_fail(err, ERR_INVALID,
                          "'%s': unknown directive %%%c (known: %%Y %%m %%d %%H %%I %%M %%S %%f "
                          "%%p %%b %%B %%z %%F %%T %%%%)",
                          f->text, d ? d : ' ');
    return add_item(f, d, 0, err);
}

static bool has(const struct textio_timefmt *f, char d)
{
    return memchr(f->items, d, f->nitems) != NULL;
}

/* The rules on which fields a format names (see the header). */
static int check_fields(struct textio_timefmt *f, struct error *err)
{
    for (size_t i = 0; i < f->nitems; i++)
        if (f->items[i] && memchr(f->items + i + 1, f->items[i], f->nitems - i - 1))
            return error_fail(err, ERR_INVALID, "'%s' gives %%%c twice", f->text, f->items[i]);
    if (has(f, 'b') && has(f, 'm'))
        return error_fail(err, ERR_INVALID, "'%s' gives the month twice (%%m and %%b)", f->text);
    if (!has(f, 'Y') || !(has(f, 'm') || has(f, 'b')) || !has(f, 'd'))
        return error_fail(err, ERR_INVALID,
                          "'%s' needs a year (%%Y), a month (%%m or %%b) and a "
                          "day (%%d)",
                          f->text);
    if (has(f, 'H') && has(f, 'I'))
        return error_fail(err, ERR_INVALID, "'%s' gives the hour twice (%%H and %%I)", f->text);
    if (has(f, 'I') != has(f, 'p'))
        return error_fail(err, ERR_INVALID, "'%s': %%I (12-hour clock) and %%p (AM/PM) go together",
                          f->text);
    bool hour = has(f, 'H') || has(f, 'I');
    if ((has(f, 'M') && !hour) || (has(f, 'S') && !has(f, 'M')) || (has(f, 'f') && !has(f, 'S')))
        return error_fail(err, ERR_INVALID,
                          "'%s': a minute (%%M) needs an hour, a second (%%S) a minute, a "
                          "fraction (%%f) a second",
                          f->text);
    f->has_time = hour;
    return 0;
}

int textio_timefmt_compile(const char *fmt, struct textio_timefmt *out, struct error *err)
{
    memset(out, 0, sizeof *out);
    out->text = fmt;
    for (const char *c = fmt; *c; c++) {
        int rc = *c == '%' ? add_directive(out, *++c, err) : add_item(out, 0, *c, err);
        if (rc != 0)
            return -1; /* a lone '%' at the end among the reasons */
    }
    return check_fields(out, err);
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* min to max digits at *pos. */
static bool digits(const char *s, size_t n, size_t *pos, int min, int max, int64_t *out)
{
    int k = 0;
    int64_t v = 0;
    while (k < max && *pos < n && is_digit(s[*pos])) {
        v = v * 10 + (s[(*pos)++] - '0');
        k++;
    }
    *out = v;
    return k >= min;
}

/* An English month name, full or its first three letters, any case. */
static bool month_name(const char *s, size_t n, size_t *pos, int *month)
{
    for (int full = 1; full >= 0; full--) {
        for (int m = 0; m < 12; m++) {
            size_t len = full ? strlen(month_names[m]) : 3;
            if (n - *pos >= len && strncasecmp(s + *pos, month_names[m], len) == 0) {
                *pos += len;
                *month = m + 1;
                return true;
            }
        }
    }
    return false;
}

/* Z, +HH:MM, +HHMM or +HH, at most 18 hours. */
static const char *offset(const char *s, size_t n, size_t *pos, int32_t *out)
{
    if (*pos < n && (s[*pos] == 'Z' || s[*pos] == 'z')) {
        (*pos)++;
        *out = 0;
        return NULL;
    }
    if (*pos >= n || (s[*pos] != '+' && s[*pos] != '-'))
        return "expected a UTC offset (Z or +HH:MM)";
    int sign = s[(*pos)++] == '-' ? -1 : 1;
    int64_t h, m = 0;
    if (!digits(s, n, pos, 2, 2, &h))
        return "bad UTC offset";
    bool colon = *pos < n && s[*pos] == ':';
    *pos += colon;
    if ((colon || (*pos < n && is_digit(s[*pos]))) && !digits(s, n, pos, 2, 2, &m))
        return "bad UTC offset";
    if (m > 59 || h * 60 + m > 18 * 60)
        return "bad UTC offset";
    *out = (int32_t)(sign * (h * 3600 + m * 60));
    return NULL;
}

/* One field at *pos into c. */
static const char *field(char d, const char *s, size_t n, size_t *pos, struct textio_civil *c,
                         bool *pm)
{
    int64_t v;
    switch (d) {
    case 'Y':
        if (!digits(s, n, pos, 4, 4, &v))
            return "expected a 4-digit year";
        c->year = v;
        return NULL;
    case 'b': return month_name(s, n, pos, &c->month) ? NULL : "expected a month name";
    case 'f': {
        size_t start = *pos;
        if (!digits(s, n, pos, 1, 9, &v) || (*pos < n && is_digit(s[*pos])))
            return "expected 1 to 9 fraction digits";
        for (size_t k = *pos - start; k < 9; k++)
            v *= 10;
        c->nanos = (int32_t)v;
        return NULL;
    }
    case 'p':
        if (n - *pos >= 2 &&
            (strncasecmp(s + *pos, "AM", 2) == 0 || strncasecmp(s + *pos, "PM", 2) == 0)) {
            *pm = s[*pos] == 'P' || s[*pos] == 'p';
            *pos += 2;
            return NULL;
        }
        return "expected AM or PM";
    case 'z': c->has_offset = true; return offset(s, n, pos, &c->offset);
    default: break;
    }
    if (!digits(s, n, pos, 1, 2, &v))
        return "expected a number";
    switch (d) {
    case 'm': c->month = (int)v; break;
    case 'd': c->day = (int)v; break;
    case 'H':
    case 'I': c->hour = (int)v; break;
    case 'M': c->minute = (int)v; break;
    default: c->second = (int)v; break;
    }
    return NULL;
}

static bool is_leap(int64_t y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/* Range checks, and the 12-hour clock made 24-hour. */
static const char *check_ranges(const struct textio_timefmt *f, struct textio_civil *c, bool pm)
{
    static const int dm[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (c->month < 1 || c->month > 12)
        return "month out of range";
    if (c->day < 1 || c->day > dm[c->month - 1] + (c->month == 2 && is_leap(c->year)))
        return "day out of range for the month";
    if (has(f, 'I')) {
        if (c->hour < 1 || c->hour > 12)
            return "hour out of range (1 to 12 with AM/PM)";
        c->hour = c->hour % 12 + (pm ? 12 : 0);
    }
    if (c->hour > 23)
        return "hour out of range";
    if (c->minute > 59)
        return "minute out of range";
    if (c->second > 59)
        return "second out of range";
    return NULL;
}

const char *textio_timefmt_parse(const struct textio_timefmt *f, const char *s, size_t n,
                                 struct textio_civil *out)
{
    struct textio_civil c = {0};
    bool pm = false;
    size_t pos = 0;
    for (size_t i = 0; i < f->nitems; i++) {
        if (!f->items[i]) {
            if (pos >= n || s[pos] != f->lits[i])
                return "the text between fields does not match";
            pos++;
            continue;
        }
        const char *why = field(f->items[i], s, n, &pos, &c, &pm);
        if (why)
            return why;
    }
    if (pos != n)
        return "unexpected text after the value";
    const char *why = check_ranges(f, &c, pm);
    if (why)
        return why;
    *out = c;
    return NULL;
}

int64_t textio_civil_seconds(const struct textio_civil *c)
{
    return time_days_from_civil(c->year, (unsigned)c->month, (unsigned)c->day) * 86400 +
           c->hour * 3600 + c->minute * 60 + c->second;
}

const char *textio_time_in_unit(int64_t utc_secs, int32_t nanos, enum rows_unit unit, int64_t *out)
{
    int64_t per = rows_unit_per_second(unit), below = 1000000000 / per, v;
    if (nanos % below != 0)
        return "has digits below the column's time unit";
    if (__builtin_mul_overflow(utc_secs, per, &v) || __builtin_add_overflow(v, nanos / below, &v))
        return "out of range for the column's time unit";
    *out = v;
    return NULL;
}

#include "textio/textio_tz.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/bytes.h"
#include "util/search.h"
#include "util/timefmt.h"

/* A TZif file past this is not one (the largest zones are under 4 KiB). */
enum { TZIF_MAX = 1 << 20, MAX_OFFSET = 18 * 3600 };

/* When a POSIX TZ rule switches: day kind 'M' (month m, week w, weekday
 * d), 'J' (day 1..365, February 29 never counted) or 'n' (day 0..365),
 * at `time` seconds of local time. */
struct tz_when {
    char kind;
    int m, w, d;
    int32_t time;
};

/* A POSIX TZ string ("EST5EDT,M3.2.0,M11.1.0"), offsets east of UTC. */
struct tz_rule {
    int32_t std, dst;
    bool has_dst;
    struct tz_when start, end;
};

struct textio_tz {
    const int64_t *at;    /* transitions, UTC seconds, ascending */
    const int32_t *after; /* the offset from each transition on */
    size_t n;
    int32_t initial; /* before the first transition */
    bool has_rule;   /* past the last transition, the rule says */
    struct tz_rule rule;
};

/* ---- lookups over a list of transitions ---- */

static int32_t offset_before(const struct textio_tz *tz, size_t i)
{
    return i ? tz->after[i - 1] : tz->initial;
}

static int32_t min32(int32_t a, int32_t b)
{
    return a < b ? a : b;
}

static int32_t max32(int32_t a, int32_t b)
{
    return a > b ? a : b;
}

static int32_t list_offset_at(const struct textio_tz *tz, int64_t utc)
{
    /* The count of transitions at or before utc. */
    size_t n = LOWER_BOUND(tz->n, i, tz->at[i] <= utc);
    return n ? tz->after[n - 1] : tz->initial;
}

/* The wall clock first shows times of transition i's new offset (or of
 * its gap) at at[i] + the lower of its two offsets. */
static int64_t local_start(const struct textio_tz *tz, size_t i)
{
    return tz->at[i] + min32(offset_before(tz, i), tz->after[i]);
}

static int64_t list_to_utc(const struct textio_tz *tz, int64_t local)
{
    size_t lo = 0, hi = tz->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (local_start(tz, mid) <= local)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return local - tz->initial;
    size_t i = lo - 1;
    int32_t before = offset_before(tz, i), after = tz->after[i];
    if (local < tz->at[i] + max32(before, after)) /* skipped or repeated */
        return local - (after > before ? before : after);
    return local - after;
}

/* ---- the POSIX TZ rule ---- */

static bool is_leap(int64_t y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/* The local time (seconds since the epoch) at which w happens in year y. */
static int64_t when_in_year(const struct tz_when *w, int64_t y)
{
    int64_t day;
    if (w->kind == 'M') {
        static const int dm[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
        int64_t first = time_days_from_civil(y, (unsigned)w->m, 1);
        int64_t weekday = ((first + 4) % 7 + 7) % 7; /* 1970-01-01 was a Thursday */
        day = first + (w->d - weekday + 7) % 7 + 7 * (w->w - 1);
        int len = dm[w->m - 1] + (w->m == 2 && is_leap(y));
        while (day >= first + len)
            day -= 7; /* week 5: the last such weekday */
    } else {
        int64_t jan1 = time_days_from_civil(y, 1, 1);
        day = w->kind == 'J' ? jan1 + w->d - 1 + (is_leap(y) && w->d >= 60) : jan1 + w->d;
    }
    return day * 86400 + w->time;
}

/* The rule's transitions around year y (three years, in order), as a
 * transition list. */
static void rule_list(const struct tz_rule *r, int64_t y, int64_t at[6], int32_t after[6],
                      struct textio_tz *out)
{
    size_t n = 0;
    for (int64_t year = y - 1; year <= y + 1; year++) {
        int64_t s = when_in_year(&r->start, year) - r->std,
                e = when_in_year(&r->end, year) - r->dst;
        bool start_first = s < e;
        at[n] = start_first ? s : e;
        after[n++] = start_first ? r->dst : r->std;
        at[n] = start_first ? e : s;
        after[n++] = start_first ? r->std : r->dst;
    }
    *out = (struct textio_tz){
        .at = at, .after = after, .n = n, .initial = after[0] == r->dst ? r->std : r->dst};
}

static int64_t year_of(int64_t secs)
{
    int64_t y;
    unsigned m, d;
    int64_t days = secs / 86400 - (secs % 86400 < 0);
    time_civil_from_days(days, &y, &m, &d);
    return y;
}

/* Whether t (UTC or local) is past the listed transitions, where the rule
 * takes over. A day's margin covers the offsets. */
static bool past_list(const struct textio_tz *tz, int64_t t)
{
    return tz->has_rule && tz->rule.has_dst && (tz->n == 0 || t > tz->at[tz->n - 1] + 86400);
}

/* The transitions that cover t: tz's own, or past them the rule's around
 * t's year, built in year (with at and after). */
static const struct textio_tz *span(const struct textio_tz *tz, int64_t t, int64_t at[6],
                                    int32_t after[6], struct textio_tz *year)
{
    if (!past_list(tz, t))
        return tz;
    rule_list(&tz->rule, year_of(t), at, after, year);
    return year;
}

int32_t textio_tz_offset_at(const struct textio_tz *tz, int64_t utc)
{
    int64_t at[6];
    int32_t after[6];
    struct textio_tz year;
    return list_offset_at(span(tz, utc, at, after, &year), utc);
}

int64_t textio_tz_to_utc(const struct textio_tz *tz, int64_t local)
{
    int64_t at[6];
    int32_t after[6];
    struct textio_tz year;
    return list_to_utc(span(tz, local, at, after, &year), local);
}

/* ---- parsing POSIX TZ strings ---- */

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static long number(const char **p, long max)
{
    if (!is_digit(**p))
        return -1;
    long v = 0;
    while (is_digit(**p) && v <= max)
        v = v * 10 + (*(*p)++ - '0');
    return v > max ? -1 : v;
}

/* [+-]hh[:mm[:ss]] with hh up to max_hours, in seconds; false if bad. */
static bool hms(const char **p, long max_hours, int32_t *out)
{
    int sign = **p == '-' ? -1 : 1;
    *p += **p == '-' || **p == '+';
    long h = number(p, max_hours), m = 0, s = 0;
    if (h < 0)
        return false;
    if (**p == ':' && (++*p, (m = number(p, 59)) < 0))
        return false;
    if (**p == ':' && (++*p, (s = number(p, 59)) < 0))
        return false;
    *out = (int32_t)(sign * (h * 3600 + m * 60 + s));
    return true;
}

/* A zone abbreviation: three or more letters, or <...> quoted. */
static bool abbrev(const char **p)
{
    const char *s = *p;
    if (*s == '<') {
        const char *e = strchr(s, '>');
        if (!e || e - s < 4)
            return false;
        *p = e + 1;
        return true;
    }
    while ((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z'))
        s++;
    if (s - *p < 3)
        return false;
    *p = s;
    return true;
}

static bool when(const char **p, struct tz_when *w)
{
    long a = 0, b = 0, c = 0;
    w->kind = **p == 'M' || **p == 'J' ? *(*p)++ : 'n';
    if (w->kind == 'M') {
        a = number(p, 12);
        if (a < 1 || *(*p)++ != '.' || (b = number(p, 5)) < 1 || *(*p)++ != '.' ||
            (c = number(p, 6)) < 0)
            return false;
    } else if ((c = number(p, 365)) < (w->kind == 'J')) {
        return false;
    }
    w->m = (int)a, w->w = (int)b, w->d = (int)c;
    w->time = 2 * 3600;
    return **p != '/' || (++*p, hms(p, 167, &w->time));
}

static int parse_rule(const char *s, struct tz_rule *r, struct error *err)
{
    const char *p = s;
    memset(r, 0, sizeof *r);
    int32_t std;
    if (!abbrev(&p) || !hms(&p, 24, &std))
        goto bad;
    r->std = -std; /* POSIX counts west of UTC */
    if (!*p)
        return 0;
    if (!abbrev(&p))
        goto bad;
    r->has_dst = true;
    r->dst = r->std + 3600;
    int32_t dst;
    if (*p && *p != ',') {
        if (!hms(&p, 24, &dst))
            goto bad;
        r->dst = -dst;
    }
    if (*p != ',')
        return error_fail(err, ERR_UNSUPPORTED, "TZ rule '%s' gives no dates", s);
    p++;
    if (!when(&p, &r->start) || *p++ != ',' || !when(&p, &r->end) || *p)
        goto bad;
    return 0;
bad:
    return error_fail(err, ERR_CORRUPT, "bad TZ rule '%s'", s);
}

/* ---- TZif files ---- */

struct tzif_counts {
    uint32_t isut, isstd, leap, time, type, chars;
};

/* The header at p (44 bytes), and the size of the data block after it
 * with `tsize`-byte times. */
static bool header(const unsigned char *p, size_t avail, int tsize, struct tzif_counts *c,
                   size_t *block)
{
    if (avail < 44 || memcmp(p, "TZif", 4) != 0)
        return false;
    c->isut = be_load32(p + 20), c->isstd = be_load32(p + 24), c->leap = be_load32(p + 28);
    c->time = be_load32(p + 32), c->type = be_load32(p + 36), c->chars = be_load32(p + 40);
    uint64_t size = (uint64_t)c->time * ((uint64_t)tsize + 1) + (uint64_t)c->type * 6 + c->chars +
                    (uint64_t)c->leap * ((uint64_t)tsize + 4) + c->isstd + c->isut;
    *block = (size_t)size;
    return c->type >= 1 && size <= avail - 44;
}

static int parse_tzif(const unsigned char *d, size_t len, const char *name, struct arena *ar,
                      struct textio_tz *tz, struct error *err)
{
    struct tzif_counts c;
    size_t block;
    if (!header(d, len, 4, &c, &block))
        return error_fail(err, ERR_CORRUPT, "time zone '%s': not a TZif file", name);
    int tsize = 4;
    const unsigned char *p = d + 44, *end = d + len;
    if (d[4] >= '2') { /* the 64-bit block follows the 32-bit one */
        p += block;
        tsize = 8;
        if (!header(p, (size_t)(end - p), 8, &c, &block))
            return error_fail(err, ERR_CORRUPT, "time zone '%s': bad TZif header", name);
        p += 44;
    }
    if (c.leap)
        return error_fail(err, ERR_UNSUPPORTED,
                          "time zone '%s' counts leap seconds: give its plain name", name);
    int64_t *at = arena_calloc(ar, c.time ? c.time : 1, sizeof *at);
    int32_t *after = arena_calloc(ar, c.time ? c.time : 1, sizeof *after);
    if (!at || !after)
        return error_nomem(err);
    const unsigned char *idx = p + (size_t)c.time * (size_t)tsize, *types = idx + c.time;
    for (uint32_t i = 0; i < c.time; i++) {
        at[i] = tsize == 8 ? (int64_t)be_load64(p + (size_t)i * 8)
                           : (int32_t)be_load32(p + (size_t)i * 4);
        if (idx[i] >= c.type || (i && at[i] <= at[i - 1]))
            return error_fail(err, ERR_CORRUPT, "time zone '%s': bad transition", name);
        after[i] = (int32_t)be_load32(types + idx[i] * 6);
    }
    *tz = (struct textio_tz){
        .at = at, .after = after, .n = c.time, .initial = (int32_t)be_load32(types)};
    const unsigned char *footer = p + block;
    if (tsize == 8 && footer < end && *footer == '\n') {
        const unsigned char *nl = memchr(footer + 1, '\n', (size_t)(end - footer - 1));
        if (!nl)
            return error_fail(err, ERR_CORRUPT, "time zone '%s': bad TZif footer", name);
        if (nl > footer + 1) {
            char rule[128];
            snprintf(rule, sizeof rule, "%.*s", (int)(nl - footer - 1), (const char *)footer + 1);
            if (parse_rule(rule, &tz->rule, err) != 0)
                return error_prefix(err, "time zone '%s': ", name);
            tz->has_rule = true;
        }
    }
    return 0;
}

/* An IANA name: letters, digits and "/_-+", no empty, "." or ".." part. */
static bool zone_name_ok(const char *name)
{
    if (!*name || *name == '/' || strlen(name) > 255)
        return false;
    for (const char *c = name; *c; c++) {
        bool part_start = c == name || c[-1] == '/';
        if (part_start && (*c == '/' || *c == '.'))
            return false;
        if (!strchr("/_-+.", *c) && !(*c >= 'A' && *c <= 'Z') && !(*c >= 'a' && *c <= 'z') &&
            !is_digit(*c))
            return false;
    }
    return name[strlen(name) - 1] != '/';
}

static int load_zone(const char *name, struct arena *ar, struct textio_tz *tz, struct error *err)
{
    if (!zone_name_ok(name))
        return error_fail(err, ERR_INVALID, "'%s' is not a time zone name", name);
    const char *dir = getenv("TZDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir && *dir ? dir : "/usr/share/zoneinfo", name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return error_fail(err, errno == ENOENT || errno == ENOTDIR ? ERR_NOT_FOUND : ERR_IO,
                          "unknown time zone '%s' (%s: %s)", name, path, strerror(errno));
    unsigned char *data = malloc(TZIF_MAX);
    size_t len = data ? fread(data, 1, TZIF_MAX, f) : 0;
    int rc;
    if (!data)
        rc = error_nomem(err);
    else if (ferror(f))
        rc = error_fail(err, errno == EISDIR ? ERR_NOT_FOUND : ERR_IO,
                        "unknown time zone '%s' (%s: %s)", name, path, strerror(errno));
    else
        rc = parse_tzif(data, len, name, ar, tz, err);
    free(data);
    fclose(f);
    return rc;
}

/* "+05:30", "-0800", "+05": seconds east of UTC; false if s is not one. */
static bool fixed_offset(const char *s, int32_t *out)
{
    if (*s != '+' && *s != '-')
        return false;
    int sign = *s == '-' ? -1 : 1;
    const char *p = s + 1;
    if (!is_digit(p[0]) || !is_digit(p[1]))
        return false;
    int h = (p[0] - '0') * 10 + (p[1] - '0'), m = 0;
    p += 2;
    p += *p == ':' && p[1];
    if (*p) {
        if (!is_digit(p[0]) || !is_digit(p[1]) || p[2])
            return false;
        m = (p[0] - '0') * 10 + (p[1] - '0');
    }
    if (m > 59 || h * 3600 + m * 60 > MAX_OFFSET)
        return false;
    *out = sign * (h * 3600 + m * 60);
    return true;
}

int textio_tz_open(const char *name, struct arena *ar, const struct textio_tz **out,
                   struct error *err)
{
    struct textio_tz *tz = arena_calloc(ar, 1, sizeof *tz);
    if (!tz)
        return error_nomem(err);
    if (strcasecmp(name, "UTC") == 0 || strcmp(name, "Z") == 0) {
        tz->initial = 0;
    } else if (*name == '+' || *name == '-') {
        if (!fixed_offset(name, &tz->initial))
            return error_fail(err, ERR_INVALID,
                              "'%s' is not a UTC offset (+HH:MM, +HHMM or +HH, at most 18 hours)",
                              name);
    } else if (load_zone(name, ar, tz, err) != 0) {
        return -1;
    }
    *out = tz;
    return 0;
}

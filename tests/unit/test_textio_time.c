/* Date and time layouts (textio_timefmt) and time zones (textio_tz): exact
 * matches, range checks, leap days, fractions to the column's unit, 12-hour
 * clocks, month names; New York's DST edges from the TZif transitions and
 * from the footer rule past 2037, a southern-hemisphere rule, offsets and
 * unknown zones. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "textio/textio_timefmt.h"
#include "textio/textio_tz.h"
#include "util/timefmt.h"

static struct textio_timefmt compile(const char *fmt)
{
    struct textio_timefmt f;
    struct error err;
    if (textio_timefmt_compile(fmt, &f, &err) != 0)
        fail_msg("'%s': %s", fmt, err.msg);
    return f;
}

static struct textio_civil parse(const char *fmt, const char *text)
{
    struct textio_timefmt f = compile(fmt);
    struct textio_civil c;
    const char *why = textio_timefmt_parse(&f, text, strlen(text), &c);
    if (why)
        fail_msg("'%s' with '%s': %s", text, fmt, why);
    return c;
}

static void refused(const char *fmt, const char *text, const char *why)
{
    struct textio_timefmt f = compile(fmt);
    struct textio_civil c;
    const char *got = textio_timefmt_parse(&f, text, strlen(text), &c);
    if (!got || !strstr(got, why))
        fail_msg("'%s' with '%s': want '%s', got '%s'", text, fmt, why, got ? got : "(matched)");
}

static void bad_format(const char *fmt, const char *why)
{
    struct textio_timefmt f;
    struct error err;
    assert_int_equal(textio_timefmt_compile(fmt, &f, &err), -1);
    if (!strstr(err.msg, why))
        fail_msg("'%s': want '%s', got '%s'", fmt, why, err.msg);
}

/* Seconds since the epoch of a UTC date and time. */
static int64_t utc(int64_t y, unsigned mo, unsigned d, int h, int mi, int s)
{
    return time_days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s;
}

static void layouts(void **state)
{
    (void)state;
    struct textio_civil c = parse("%Y/%m/%d %H:%M:%S", "2015/01/01 01:00:07");
    assert_int_equal(textio_civil_seconds(&c), utc(2015, 1, 1, 1, 0, 7));
    c = parse("%m/%d/%Y", "1/2/2015"); /* one or two digits */
    assert_int_equal(textio_civil_seconds(&c), utc(2015, 1, 2, 0, 0, 0));
    c = parse("%b %d %Y", "Jun 12 1998");
    assert_int_equal(c.month, 6);
    c = parse("%B %d %Y", "SEPTEMBER 3 1998"); /* full names, any case */
    assert_int_equal(c.month, 9);
    c = parse("%d-%b-%Y", "03-sep-1998");
    assert_int_equal(c.month, 9);
    c = parse("%FT%T", "2024-02-29T23:59:59");
    assert_int_equal(textio_civil_seconds(&c), utc(2024, 2, 29, 23, 59, 59));
    c = parse("%Y%m%d%H%M%S", "20240229235958");
    assert_int_equal(c.second, 58);
    c = parse("%Y-%m-%d %%%H", "2024-01-01 %07");
    assert_int_equal(c.hour, 7);
    /* The whole value, and the literal text between fields. */
    refused("%Y-%m-%d", "2015-01-01 ", "unexpected text after the value");
    refused("%Y-%m-%d", "2015/01/01", "does not match");
    refused("%Y-%m-%d", "15-01-01", "4-digit year");
    refused("%b %d %Y", "Jux 12 1998", "month name");
}

static void ranges_and_leap_days(void **state)
{
    (void)state;
    parse("%Y-%m-%d", "2016-02-29");
    parse("%Y-%m-%d", "2000-02-29");
    refused("%Y-%m-%d", "2015-02-29", "day out of range");
    refused("%Y-%m-%d", "1900-02-29", "day out of range");
    refused("%Y-%m-%d", "2015-04-31", "day out of range");
    refused("%Y-%m-%d", "2015-13-01", "month out of range");
    refused("%Y-%m-%d", "2015-00-01", "month out of range");
    refused("%Y-%m-%d", "2015-01-00", "day out of range");
    refused("%F %T", "2015-01-01 24:00:00", "hour out of range");
    refused("%F %T", "2015-01-01 23:60:00", "minute out of range");
    refused("%F %T", "2015-01-01 23:59:60", "second out of range");
    refused("%F %T", "2015-01-01 123:00:00", "does not match");
}

static void twelve_hour_clock(void **state)
{
    (void)state;
    assert_int_equal(parse("%F %I:%M %p", "2015-01-01 1:05 PM").hour, 13);
    assert_int_equal(parse("%F %I:%M %p", "2015-01-01 12:00 am").hour, 0);
    assert_int_equal(parse("%F %I:%M %p", "2015-01-01 12:30 PM").hour, 12);
    refused("%F %I:%M %p", "2015-01-01 13:00 PM", "1 to 12");
    refused("%F %I:%M %p", "2015-01-01 0:00 AM", "1 to 12");
    refused("%F %I:%M %p", "2015-01-01 1:00 XM", "AM or PM");
}

static void fractions_and_units(void **state)
{
    (void)state;
    struct textio_civil c = parse("%F %T.%f", "2015-01-01 00:00:01.5");
    assert_int_equal(c.nanos, 500000000);
    c = parse("%F %T.%f", "2015-01-01 00:00:01.123456789");
    assert_int_equal(c.nanos, 123456789);
    refused("%F %T.%f", "2015-01-01 00:00:01.1234567891", "1 to 9 fraction digits");
    int64_t v;
    int64_t secs = textio_civil_seconds(&c);
    assert_null(textio_time_in_unit(secs, c.nanos, ROWS_NANOS, &v));
    assert_int_equal(v, secs * 1000000000 + 123456789);
    /* Nanoseconds do not fit microseconds: refused, not rounded. */
    assert_non_null(textio_time_in_unit(secs, c.nanos, ROWS_MICROS, &v));
    c = parse("%F %T.%f", "2015-01-01 00:00:01.123456");
    assert_null(textio_time_in_unit(textio_civil_seconds(&c), c.nanos, ROWS_MICROS, &v));
    assert_int_equal(v % 1000000, 123456);
    /* Before the epoch: the fraction still counts forward from the second. */
    c = parse("%F %T.%f", "1969-12-31 23:59:59.25");
    assert_null(textio_time_in_unit(textio_civil_seconds(&c), c.nanos, ROWS_MILLIS, &v));
    assert_int_equal(v, -750);
    /* Past what nanoseconds since 1970 hold (year 2262). */
    c = parse("%Y-%m-%d", "2300-01-01");
    assert_non_null(textio_time_in_unit(textio_civil_seconds(&c), 0, ROWS_NANOS, &v));
}

static void offsets(void **state)
{
    (void)state;
    struct textio_civil c = parse("%F %T%z", "2015-01-01 00:00:00+05:30");
    assert_true(c.has_offset);
    assert_int_equal(c.offset, 19800);
    assert_int_equal(parse("%F %T %z", "2015-01-01 00:00:00 -0800").offset, -28800);
    assert_int_equal(parse("%F %T%z", "2015-01-01 00:00:00Z").offset, 0);
    assert_int_equal(parse("%F %T%z", "2015-01-01 00:00:00-03").offset, -10800);
    assert_false(parse("%F %T", "2015-01-01 00:00:00").has_offset);
    refused("%F %T%z", "2015-01-01 00:00:00+19:00", "bad UTC offset");
    refused("%F %T%z", "2015-01-01 00:00:00+05:60", "bad UTC offset");
}

static void bad_formats(void **state)
{
    (void)state;
    bad_format("%Y-%q", "unknown directive %q");
    bad_format("%Y-%m-%d %", "unknown directive");
    bad_format("%Y-%m", "needs a year (%Y), a month (%m or %b) and a day (%d)");
    bad_format("%Y-%m-%d-%d", "gives %d twice");
    bad_format("%Y-%m-%d %b", "the month twice");
    bad_format("%F %I:%M", "%I (12-hour clock) and %p (AM/PM) go together");
    bad_format("%F %H:%M %p", "go together");
    bad_format("%F %H %I %p", "the hour twice");
    bad_format("%F %M", "a minute (%M) needs an hour");
    bad_format("%F %H:%M.%f", "a fraction (%f) a second");
}

static const struct textio_tz *zone(struct arena *ar, const char *name)
{
    const struct textio_tz *tz;
    struct error err;
    if (textio_tz_open(name, ar, &tz, &err) != 0)
        fail_msg("%s: %s", name, err.msg);
    return tz;
}

/* New York's 2018 transitions (from the TZif table) and 2040's (from the
 * footer rule, past the table's 2037): 2:00 EST -> 3:00 EDT on the second
 * Sunday of March, 2:00 EDT -> 1:00 EST on the first Sunday of November. */
static void new_york_dst_edges(void **state)
{
    (void)state;
    struct arena ar;
    arena_init(&ar, 0);
    const struct textio_tz *ny = zone(&ar, "America/New_York");
    static const struct {
        int64_t y;
        unsigned spring, fall; /* the days in March and November */
    } years[] = {{2018, 11, 4}, {2040, 11, 4}};
    for (size_t i = 0; i < sizeof years / sizeof years[0]; i++) {
        int64_t y = years[i].y;
        unsigned s = years[i].spring, f = years[i].fall;
        assert_int_equal(textio_tz_offset_at(ny, utc(y, 3, s, 6, 59, 59)), -5 * 3600);
        assert_int_equal(textio_tz_offset_at(ny, utc(y, 3, s, 7, 0, 0)), -4 * 3600);
        assert_int_equal(textio_tz_offset_at(ny, utc(y, 11, f, 5, 59, 59)), -4 * 3600);
        assert_int_equal(textio_tz_offset_at(ny, utc(y, 11, f, 6, 0, 0)), -5 * 3600);
        /* Spring: 01:59:59 EST, 02:30 skipped (taken as EST: 03:30 EDT), 03:00 EDT. */
        assert_int_equal(textio_tz_to_utc(ny, utc(y, 3, s, 1, 59, 59)), utc(y, 3, s, 6, 59, 59));
        assert_int_equal(textio_tz_to_utc(ny, utc(y, 3, s, 2, 30, 0)), utc(y, 3, s, 7, 30, 0));
        assert_int_equal(textio_tz_to_utc(ny, utc(y, 3, s, 3, 0, 0)), utc(y, 3, s, 7, 0, 0));
        /* Fall: 00:59:59 EDT; 01:30 twice, taken as the later (EST); 02:00 EST. */
        assert_int_equal(textio_tz_to_utc(ny, utc(y, 11, f, 0, 59, 59)), utc(y, 11, f, 4, 59, 59));
        assert_int_equal(textio_tz_to_utc(ny, utc(y, 11, f, 1, 30, 0)), utc(y, 11, f, 6, 30, 0));
        assert_int_equal(textio_tz_to_utc(ny, utc(y, 11, f, 2, 0, 0)), utc(y, 11, f, 7, 0, 0));
        /* Midsummer and midwinter. */
        assert_int_equal(textio_tz_to_utc(ny, utc(y, 7, 1, 12, 0, 0)), utc(y, 7, 1, 16, 0, 0));
        assert_int_equal(textio_tz_to_utc(ny, utc(y, 1, 15, 12, 0, 0)), utc(y, 1, 15, 17, 0, 0));
    }
    /* Before any DST: local mean time until 1883-11-18 (-4:56:02). */
    assert_int_equal(textio_tz_offset_at(ny, utc(1850, 1, 1, 0, 0, 0)), -(4 * 3600 + 56 * 60 + 2));
    arena_free(&ar);
}

/* Sydney's summer spans the new year (DST ends in April, starts in
 * October): the footer rule's transitions are ordered within the year. */
static void southern_rule(void **state)
{
    (void)state;
    struct arena ar;
    arena_init(&ar, 0);
    const struct textio_tz *syd = zone(&ar, "Australia/Sydney");
    assert_int_equal(textio_tz_to_utc(syd, utc(2045, 1, 15, 12, 0, 0)), utc(2045, 1, 15, 1, 0, 0));
    assert_int_equal(textio_tz_to_utc(syd, utc(2045, 7, 15, 12, 0, 0)), utc(2045, 7, 15, 2, 0, 0));
    assert_int_equal(textio_tz_offset_at(syd, utc(2045, 12, 31, 23, 0, 0)), 11 * 3600);
    arena_free(&ar);
}

static void fixed_zones_and_names(void **state)
{
    (void)state;
    struct arena ar;
    arena_init(&ar, 0);
    assert_int_equal(textio_tz_to_utc(zone(&ar, "UTC"), 1000), 1000);
    assert_int_equal(textio_tz_to_utc(zone(&ar, "+05:30"), 19800), 0);
    assert_int_equal(textio_tz_to_utc(zone(&ar, "-0800"), 0), 28800);
    assert_int_equal(textio_tz_offset_at(zone(&ar, "-03"), 0), -10800);
    static const struct {
        const char *name;
        enum error_code code;
    } bad[] = {{"+5", ERR_INVALID},
               {"+19:00", ERR_INVALID},
               {"+05:3", ERR_INVALID},
               {"../../etc/passwd", ERR_INVALID},
               {"/etc/localtime", ERR_INVALID},
               {"Mars/Olympus_Mons", ERR_NOT_FOUND},
               {"America", ERR_NOT_FOUND},
               {"", ERR_INVALID}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const struct textio_tz *tz;
        struct error err;
        if (textio_tz_open(bad[i].name, &ar, &tz, &err) == 0)
            fail_msg("'%s' opened", bad[i].name);
        if (err.code != bad[i].code)
            fail_msg("'%s': code %d, want %d (%s)", bad[i].name, err.code, bad[i].code, err.msg);
    }
    arena_free(&ar);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(layouts),
        cmocka_unit_test(ranges_and_leap_days),
        cmocka_unit_test(twelve_hour_clock),
        cmocka_unit_test(fractions_and_units),
        cmocka_unit_test(offsets),
        cmocka_unit_test(bad_formats),
        cmocka_unit_test(new_york_dst_edges),
        cmocka_unit_test(southern_rule),
        cmocka_unit_test(fixed_zones_and_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

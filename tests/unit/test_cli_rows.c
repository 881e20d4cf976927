/* Rows as text and back, for `hoglake parquet cat` and `convert`: every
 * type's text form (formatting and parsing, at the extremes), the JSON
 * reader, CSV/JSON Lines rows into Arrow batches and out again through a
 * real Parquet file, the conversions between file and schema types, and
 * every row error. Expected texts are written out by hand (dates and
 * float forms checked against Python's datetime and repr). */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rows/rows_adapt.h"
#include "rows/rows_json.h"
#include "rows/rows_schema.h"
#include "rows/rows_value.h"
#include "textio/csv.h"
#include "textio/textio_json.h"
#include "textio/textio_parse.h"
#include "textio/textio_render.h"
#include "textio/textio_schema.h"
#include "textio/textio_text.h"
#include "util/strutil.h"
#include "pq_testlib.h"
#include "util/arrow.h"

/* ---- scalar formatting ---- */

#define EXPECT_TEXT(call, want)                                                                    \
    do {                                                                                           \
        char t_[RT_TEXT_MAX];                                                                      \
        size_t n_ = (call);                                                                        \
        if (n_ != strlen(want) || strcmp(t_, (want)) != 0)                                         \
            fail_msg("%s gave '%s' (%zu), expected '%s'", #call, t_, n_, (want));                  \
    } while (0)

static void format_integers(void **state)
{
    (void)state;
    EXPECT_TEXT(rt_format_i64(INT64_MIN, t_), "-9223372036854775808");
    EXPECT_TEXT(rt_format_i64(INT64_MAX, t_), "9223372036854775807");
    EXPECT_TEXT(rt_format_i64(0, t_), "0");
    EXPECT_TEXT(rt_format_i64(-1, t_), "-1");
    EXPECT_TEXT(rt_format_i64(10, t_), "10");
    EXPECT_TEXT(rt_format_i64(-1000000, t_), "-1000000");
    EXPECT_TEXT(rt_format_i64(INT64_MIN + 1, t_), "-9223372036854775807");
    EXPECT_TEXT(rt_format_u64(0, t_), "0");
    EXPECT_TEXT(rt_format_u64(UINT64_MAX, t_), "18446744073709551615");
}

static void format_floats(void **state)
{
    (void)state;
    EXPECT_TEXT(rt_format_double(1.5, t_), "1.5");
    EXPECT_TEXT(rt_format_double(100.0, t_), "100.0");
    EXPECT_TEXT(rt_format_double(0.1, t_), "0.1");
    EXPECT_TEXT(rt_format_double(0.1 + 0.2, t_), "0.30000000000000004");
    EXPECT_TEXT(rt_format_double(1e16, t_), "1e+16");
    EXPECT_TEXT(rt_format_double(1234567890123456.0, t_), "1234567890123456.0");
    EXPECT_TEXT(rt_format_double(9007199254740992.0, t_), "9007199254740992.0");
    EXPECT_TEXT(rt_format_double(123456789012345678.0, t_), "1.2345678901234568e+17");
    EXPECT_TEXT(rt_format_double(1.5e-7, t_), "1.5e-07");
    EXPECT_TEXT(rt_format_double(0.0001, t_), "0.0001");
    EXPECT_TEXT(rt_format_double(1e-5, t_), "1e-05");
    EXPECT_TEXT(rt_format_double(-2.5e-300, t_), "-2.5e-300");
    EXPECT_TEXT(rt_format_double(DBL_MAX, t_), "1.7976931348623157e+308");
    EXPECT_TEXT(rt_format_double(5e-324, t_), "5e-324");
    EXPECT_TEXT(rt_format_double(0.0, t_), "0.0");
    EXPECT_TEXT(rt_format_double(-0.0, t_), "-0.0");
    EXPECT_TEXT(rt_format_double(NAN, t_), "NaN");
    EXPECT_TEXT(rt_format_double(-NAN, t_), "NaN");
    EXPECT_TEXT(rt_format_double(INFINITY, t_), "Infinity");
    EXPECT_TEXT(rt_format_double(-INFINITY, t_), "-Infinity");
    EXPECT_TEXT(rt_format_float(0.1f, t_), "0.1");
    EXPECT_TEXT(rt_format_float(16777216.0f, t_), "16777216.0");
    EXPECT_TEXT(rt_format_float(3.14159274f, t_), "3.1415927");
    EXPECT_TEXT(rt_format_float(FLT_MAX, t_), "3.4028235e+38");
    EXPECT_TEXT(rt_format_float(1e-45f, t_), "1e-45");
    EXPECT_TEXT(rt_format_float(-0.0f, t_), "-0.0");
    assert_true(rt_float_is_special(NAN) && rt_float_is_special(-INFINITY));
    assert_false(rt_float_is_special(DBL_MAX));
    /* float16: 1.0, -2.0, the largest, the smallest subnormal, infinity. */
    assert_true(rows_half_to_float(0x3c00) == 1.0f);
    assert_true(rows_half_to_float(0xc000) == -2.0f);
    assert_true(rows_half_to_float(0x7bff) == 65504.0f);
    assert_true(rows_half_to_float(0x0001) == ldexpf(1, -24));
    assert_true(isinf(rows_half_to_float(0x7c00)) && isnan(rows_half_to_float(0x7e00)));
}

/* The shortest text by the definition: the fewest significant digits
 * printf's correctly rounded %e gives that read back as v, trailing zeros
 * dropped, in the layout rt_format_double uses. */
static void shortest_by_search(double v, bool single, char *out)
{
    char tmp[48];
    for (int p = 1; p <= (single ? 9 : 17); p++) {
        snprintf(tmp, sizeof tmp, "%.*e", p - 1, v);
        if (single ? strtof(tmp, NULL) == (float)v : strtod(tmp, NULL) == v)
            break;
    }
    /* Python's repr layout, from the digits and exponent. */
    char digits[24];
    int nd = 0;
    const char *q = tmp + (tmp[0] == '-');
    for (; *q != 'e'; q++)
        if (*q != '.')
            digits[nd++] = *q;
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    int e = atoi(q + 1);
    char *o = out + sprintf(out, "%s", tmp[0] == '-' ? "-" : "");
    if (e < -4 || e >= 16) {
        o += sprintf(o, "%c", digits[0]);
        if (nd > 1)
            o += sprintf(o, ".%.*s", nd - 1, digits + 1);
        sprintf(o, "e%c%02d", e < 0 ? '-' : '+', e < 0 ? -e : e);
    } else if (e < 0) {
        sprintf(o, "0.%.*s%.*s", -e - 1, "0000", nd, digits);
    } else if (e + 1 >= nd) {
        sprintf(o, "%.*s%.*s.0", nd, digits, e + 1 - nd, "0000000000000000");
    } else {
        sprintf(o, "%.*s.%.*s", e + 1, digits, nd - e - 1, digits + e + 1);
    }
}

static void expect_shortest(double d)
{
    if (!isfinite(d) || d == 0)
        return; /* spelled apart from the digits (format_floats) */
    char want[64], got[RT_TEXT_MAX];
    shortest_by_search(d, false, want);
    size_t n = rt_format_double(d, got);
    if (n != strlen(want) || strcmp(got, want) != 0)
        fail_msg("%.17g printed '%s', the shortest is '%s'", d, got, want);
    float f = (float)d;
    if (!isfinite(f) || f == 0)
        return;
    shortest_by_search(f, true, want);
    n = rt_format_float(f, got);
    if (n != strlen(want) || strcmp(got, want) != 0)
        fail_msg("float %.9g printed '%s', the shortest is '%s'", (double)f, got, want);
}

/* Values with few decimals take a path without printf: it must give the
 * same text as the search, at its bounds too. */
static void shortest_without_printf(void **state)
{
    (void)state;
    EXPECT_TEXT(rt_format_double(82310.61, t_), "82310.61");
    EXPECT_TEXT(rt_format_double(-0.05, t_), "-0.05");
    EXPECT_TEXT(rt_format_double(1e21, t_), "1e+21");
    EXPECT_TEXT(rt_format_double(1e22, t_), "1e+22");
    EXPECT_TEXT(rt_format_double(1e23, t_), "1e+23");
    EXPECT_TEXT(rt_format_double(123456789012345.6, t_), "123456789012345.6");
    EXPECT_TEXT(rt_format_double(2251799813685247.0, t_), "2251799813685247.0");
    EXPECT_TEXT(rt_format_double(2.2250738585072014e-308, t_), "2.2250738585072014e-308");
    EXPECT_TEXT(rt_format_double(4.9406564584124654e-324, t_), "5e-324");
    EXPECT_TEXT(rt_format_double(1e-7, t_), "1e-07");
    EXPECT_TEXT(rt_format_float(0.3f, t_), "0.3");
    EXPECT_TEXT(rt_format_float(4194303.0f, t_), "4194303.0");
    EXPECT_TEXT(rt_format_float(1.17549435e-38f, t_), "1.1754944e-38");
    static const double fixed[] = {
        0.1,     0.2,        0.3,   0.1 + 0.2, 1.0 / 3,           99999.99,
        1e15,    1e16,       1e17,  0x1p51,    0x1p51 - 1,        0x1p51 + 1,
        0x1p52,  0x1p53 + 2, 9.5,   9.95,      9.999999999999999, 10.000000000000002,
        1e-4,    1e-5,       5e-5,  0.000123,  DBL_MIN,           DBL_TRUE_MIN,
        DBL_MAX, 4.35,       2.675, 1.005};
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++) {
        expect_shortest(fixed[i]);
        expect_shortest(-fixed[i]);
        expect_shortest(nextafter(fixed[i], 0));
        expect_shortest(nextafter(fixed[i], INFINITY));
    }
    static const double pow10[] = {1,    1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22, 1e23};
    struct rng g = {7};
    for (int i = 0; i < 60000; i++) {
        /* m / 10^k for m of up to 17 digits: every decimal length, around
         * the path's 2^51 bound. */
        uint64_t m = rng_below(&g, (uint64_t)pow10[1 + rng_below(&g, 17)]);
        double d = (double)m / pow10[rng_below(&g, 24)];
        if (i % 4 == 1)
            d = (double)(int64_t)rng_below(&g, 10000000) / 100; /* two decimals */
        if (i % 4 == 2) {
            uint64_t bits = rng_next(&g);
            memcpy(&d, &bits, 8);
            if (!isfinite(d) || d == 0)
                continue;
        }
        expect_shortest(i % 2 ? -d : d);
    }
}

static void floats_read_back_exactly(void **state)
{
    (void)state;
    struct rng g = {99};
    for (int i = 0; i < 20000; i++) {
        uint64_t bits = rng_next(&g);
        double d;
        memcpy(&d, &bits, 8);
        if (i % 3 == 0)
            d = (double)(int64_t)bits / 1e10;
        char t[RT_TEXT_MAX];
        size_t n = rt_format_double(d, t);
        double back;
        assert_null(rt_parse_double(t, n, RT_FLOAT_NUMBER | RT_FLOAT_WORDS, &back));
        if (isnan(d))
            assert_true(isnan(back));
        else if (memcmp(&d, &back, 8) != 0)
            fail_msg("%.17g printed '%s' read back %.17g", d, t, back);
        float f;
        uint32_t fb = (uint32_t)bits;
        memcpy(&f, &fb, 4);
        n = rt_format_float(f, t);
        float fback;
        assert_null(rt_parse_float(t, n, RT_FLOAT_NUMBER | RT_FLOAT_WORDS, &fback));
        if (!isnan(f) && memcmp(&f, &fback, 4) != 0)
            fail_msg("%.9g printed '%s' read back %.9g", (double)f, t, (double)fback);
    }
}

static rt_i128 i128_from_text(const char *digits)
{
    bool neg = digits[0] == '-';
    rt_i128 v = 0;
    for (const char *p = digits + neg; *p; p++)
        v = v * 10 + (*p - '0');
    return neg ? -v : v;
}

static void format_decimals(void **state)
{
    (void)state;
    EXPECT_TEXT(rt_format_decimal(-12345, 2, t_), "-123.45");
    EXPECT_TEXT(rt_format_decimal(5, 2, t_), "0.05");
    EXPECT_TEXT(rt_format_decimal(0, 2, t_), "0.00");
    EXPECT_TEXT(rt_format_decimal(7, 0, t_), "7");
    EXPECT_TEXT(rt_format_decimal(-1, 3, t_), "-0.001");
    rt_i128 max38 = i128_from_text("99999999999999999999999999999999999999");
    EXPECT_TEXT(rt_format_decimal(max38, 0, t_), "99999999999999999999999999999999999999");
    EXPECT_TEXT(rt_format_decimal(-max38, 38, t_), "-0.99999999999999999999999999999999999999");
    EXPECT_TEXT(rt_format_decimal(max38, 10, t_), "9999999999999999999999999999.9999999999");
}

static void format_temporal(void **state)
{
    (void)state;
    EXPECT_TEXT(rt_format_date(0, t_), "1970-01-01");
    EXPECT_TEXT(rt_format_date(-1, t_), "1969-12-31");
    EXPECT_TEXT(rt_format_date(19723, t_), "2024-01-01");
    EXPECT_TEXT(rt_format_date(-25508, t_), "1900-03-01");
    EXPECT_TEXT(rt_format_date(11016, t_), "2000-02-29");
    EXPECT_TEXT(rt_format_date(-719528, t_), "0000-01-01");
    EXPECT_TEXT(rt_format_date(-719529, t_), "-00001-12-31");
    EXPECT_TEXT(rt_format_date(2932896, t_), "9999-12-31");
    EXPECT_TEXT(rt_format_date(2932897, t_), "+10000-01-01");
    EXPECT_TEXT(rt_format_date(INT32_MIN, t_), "-5877641-06-23");
    EXPECT_TEXT(rt_format_date(INT32_MAX, t_), "+5881580-07-11");

    EXPECT_TEXT(rt_format_time(0, ROWS_MICROS, t_), "00:00:00.000000");
    EXPECT_TEXT(rt_format_time(86399999999, ROWS_MICROS, t_), "23:59:59.999999");
    EXPECT_TEXT(rt_format_time(45296789, ROWS_MILLIS, t_), "12:34:56.789");
    EXPECT_TEXT(rt_format_time(1, ROWS_NANOS, t_), "00:00:00.000000001");
    EXPECT_TEXT(rt_format_time(86399, ROWS_SECONDS, t_), "23:59:59");
    char t[RT_TEXT_MAX];
    assert_int_equal(rt_format_time(86400000000, ROWS_MICROS, t), 0);
    assert_int_equal(rt_format_time(-1, ROWS_MICROS, t), 0);

    /* Intervals: DuckDB 1.5's text of the same values. */
    EXPECT_TEXT(rt_format_interval(14, 3, 14706007000000, t_),
                "1 year 2 months 3 days 04:05:06.007");
    EXPECT_TEXT(rt_format_interval(0, 0, 0, t_), "00:00:00");
    EXPECT_TEXT(rt_format_interval(0, 3, 0, t_), "3 days");
    EXPECT_TEXT(rt_format_interval(1, 0, 0, t_), "1 month");
    EXPECT_TEXT(rt_format_interval(24, 0, 0, t_), "2 years");
    EXPECT_TEXT(rt_format_interval(13, 0, 0, t_), "1 year 1 month");
    EXPECT_TEXT(rt_format_interval(0, 0, 1500000000, t_), "00:00:01.5");
    EXPECT_TEXT(rt_format_interval(0, 0, 176400000000000, t_), "49:00:00");
    EXPECT_TEXT(rt_format_interval(0, 1, 1000000000, t_), "1 day 00:00:01");
    EXPECT_TEXT(rt_format_interval(0, 0, 1000, t_), "00:00:00.000001");
    EXPECT_TEXT(rt_format_interval(1, 1, 1000, t_), "1 month 1 day 00:00:00.000001");
    EXPECT_TEXT(rt_format_interval(0, -1, 0, t_), "-1 day");
    EXPECT_TEXT(rt_format_interval(0, 0, -3600000000000, t_), "-01:00:00");
    EXPECT_TEXT(rt_format_interval(-13, 0, 0, t_), "-1 year -1 month");
    char wide[RT_TEXT_MAX];
    assert_true(rt_format_interval(INT32_MIN, INT32_MIN, INT64_MIN, wide) < RT_TEXT_MAX);
    assert_string_equal(wide, "-178956970 years -8 months -2147483648 days "
                              "-2562047:47:16.854775808");

    EXPECT_TEXT(rt_format_timestamp(0, ROWS_SECONDS, false, t_), "1970-01-01T00:00:00");
    EXPECT_TEXT(rt_format_timestamp(-1, ROWS_MICROS, false, t_), "1969-12-31T23:59:59.999999");
    EXPECT_TEXT(rt_format_timestamp(-1, ROWS_MILLIS, false, t_), "1969-12-31T23:59:59.999");
    EXPECT_TEXT(rt_format_timestamp(-1500000, ROWS_MICROS, true, t_),
                "1969-12-31T23:59:58.500000Z");
    EXPECT_TEXT(rt_format_timestamp(-2208988800000001, ROWS_MICROS, false, t_),
                "1899-12-31T23:59:59.999999");
    EXPECT_TEXT(rt_format_timestamp(1704067200000001, ROWS_MICROS, true, t_),
                "2024-01-01T00:00:00.000001Z");
    EXPECT_TEXT(rt_format_timestamp(1709164799000000, ROWS_MICROS, false, t_),
                "2024-02-28T23:59:59.000000");
    EXPECT_TEXT(rt_format_timestamp(-1, ROWS_SECONDS, false, t_), "1969-12-31T23:59:59");
    EXPECT_TEXT(rt_format_timestamp(1704164645123456, ROWS_MICROS, false, t_),
                "2024-01-02T03:04:05.123456");
    EXPECT_TEXT(rt_format_timestamp(1704164645123456, ROWS_MICROS, true, t_),
                "2024-01-02T03:04:05.123456Z");
    EXPECT_TEXT(rt_format_timestamp(1704164645000, ROWS_MILLIS, true, t_),
                "2024-01-02T03:04:05.000Z");
    EXPECT_TEXT(rt_format_timestamp(INT64_MIN, ROWS_NANOS, false, t_),
                "1677-09-21T00:12:43.145224192");
    EXPECT_TEXT(rt_format_timestamp(INT64_MAX, ROWS_NANOS, false, t_),
                "2262-04-11T23:47:16.854775807");
    EXPECT_TEXT(rt_format_timestamp(-62135596800000000, ROWS_MICROS, true, t_),
                "0001-01-01T00:00:00.000000Z");
    EXPECT_TEXT(rt_format_timestamp(253402300800000000, ROWS_MICROS, false, t_),
                "+10000-01-01T00:00:00.000000");
}

static void format_bytes(void **state)
{
    (void)state;
    static const uint8_t u[16] = {0x01, 0x23, 0xab, 0xcd, 0,    0,    0x40, 0,
                                  0x80, 0,    0,    0,    0xff, 0xee, 0,    0x0f};
    EXPECT_TEXT(rt_format_uuid(u, t_), "0123abcd-0000-4000-8000-0000ffee000f");
    /* RFC 4648 section 10. */
    static const char *const plain[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
    static const char *const enc[] = {"",         "Zg==",     "Zm8=",    "Zm9v",
                                      "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
    for (int i = 0; i < 7; i++) {
        struct buf b = BUF_INIT;
        assert_int_equal(rt_base64_encode(&b, plain[i], strlen(plain[i])), 0);
        assert_string_equal(b.data ? b.data : "", enc[i]);
        buf_reset(&b);
        assert_null(rt_base64_decode(enc[i], strlen(enc[i]), &b));
        assert_int_equal(b.len, strlen(plain[i]));
        assert_memory_equal(b.data ? b.data : "", plain[i], b.len);
        buf_free(&b);
    }
    struct buf b = BUF_INIT;
    assert_int_equal(rt_hex_encode(&b, "\x00\xff\x10", 3), 0);
    assert_string_equal(b.data, "00ff10");
    buf_free(&b);
}

/* ---- scalar parsing ---- */

static void parse_integers(void **state)
{
    (void)state;
    int64_t v;
    uint64_t u;
#define OK_I(text, lo, hi, want)                                                                   \
    do {                                                                                           \
        const char *e_ = rt_parse_i64(text, strlen(text), lo, hi, &v);                             \
        if (e_ || v != (want))                                                                     \
            fail_msg("'%s': %s", text, e_ ? e_ : "wrong value");                                   \
    } while (0)
#define BAD_I(text, lo, hi, why)                                                                   \
    assert_string_equal(rt_parse_i64(text, strlen(text), lo, hi, &v), why)
    OK_I("-9223372036854775808", INT64_MIN, INT64_MAX, INT64_MIN);
    OK_I("9223372036854775807", INT64_MIN, INT64_MAX, INT64_MAX);
    OK_I("-0", INT64_MIN, INT64_MAX, 0);
    OK_I("-128", INT8_MIN, INT8_MAX, -128);
    OK_I("0", 0, UINT8_MAX, 0);
    BAD_I("9223372036854775808", INT64_MIN, INT64_MAX, "out of range");
    BAD_I("-9223372036854775809", INT64_MIN, INT64_MAX, "out of range");
    BAD_I("99999999999999999999999", INT64_MIN, INT64_MAX, "out of range");
    BAD_I("128", INT8_MIN, INT8_MAX, "out of range");
    BAD_I("-129", INT8_MIN, INT8_MAX, "out of range");
    BAD_I("-1", 0, UINT16_MAX, "out of range");
    BAD_I("01", INT64_MIN, INT64_MAX, "expected an integer");
    BAD_I("+1", INT64_MIN, INT64_MAX, "expected an integer");
    BAD_I("1.0", INT64_MIN, INT64_MAX, "expected an integer");
    BAD_I("1e3", INT64_MIN, INT64_MAX, "expected an integer");
    BAD_I("", INT64_MIN, INT64_MAX, "expected an integer");
    BAD_I(" 1", INT64_MIN, INT64_MAX, "expected an integer");
    BAD_I("-", INT64_MIN, INT64_MAX, "expected an integer");
    assert_null(rt_parse_u64("18446744073709551615", 20, UINT64_MAX, &u));
    assert_true(u == UINT64_MAX);
    assert_string_equal(rt_parse_u64("18446744073709551616", 20, UINT64_MAX, &u), "out of range");
    assert_string_equal(rt_parse_u64("-1", 2, UINT64_MAX, &u), "out of range");
    assert_null(rt_parse_u64("-0", 2, UINT64_MAX, &u));
    assert_true(u == 0);
    /* An embedded NUL is a bad character, not the end. */
    assert_non_null(rt_parse_i64("1\0"
                                 "2",
                                 3, INT64_MIN, INT64_MAX, &v));
#undef OK_I
#undef BAD_I
}

static void parse_floats(void **state)
{
    (void)state;
    double d;
    float f;
    const int both = RT_FLOAT_NUMBER | RT_FLOAT_WORDS;
    assert_null(rt_parse_double("-0.0", 4, both, &d));
    assert_true(d == 0 && signbit(d));
    assert_null(rt_parse_double("1E2", 3, RT_FLOAT_NUMBER, &d));
    assert_true(d == 100.0);
    assert_null(rt_parse_double("NaN", 3, RT_FLOAT_WORDS, &d));
    assert_true(isnan(d));
    assert_null(rt_parse_double("-Infinity", 9, both, &d));
    assert_true(isinf(d) && d < 0);
    assert_null(rt_parse_double("1e-400", 6, both, &d)); /* underflow rounds to zero */
    assert_true(d == 0);
    assert_string_equal(rt_parse_double("1e999", 5, both, &d), "out of range");
    assert_string_equal(rt_parse_float("3.5e38", 6, both, &f), "out of range");
    assert_null(rt_parse_float("3.4028235e38", 12, both, &f));
    assert_true(f == FLT_MAX);
    assert_string_equal(rt_parse_double("NaN", 3, RT_FLOAT_NUMBER, &d), "expected a number");
    assert_string_equal(rt_parse_double("1.5", 3, RT_FLOAT_WORDS, &d),
                        "expected NaN, Infinity or -Infinity (numbers are not quoted)");
    static const char *const bad[] = {"nan",  "inf", "1.", ".5", "+1",
                                      "0x10", "1e",  "",   " 1", "--1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (!rt_parse_double(bad[i], strlen(bad[i]), both, &d))
            fail_msg("'%s' was accepted", bad[i]);
}

static void parse_decimals(void **state)
{
    (void)state;
    rt_i128 v;
#define OK_D(text, p, s, want)                                                                     \
    do {                                                                                           \
        const char *e_ = rt_parse_decimal(text, strlen(text), p, s, &v);                           \
        if (e_ || v != i128_from_text(want))                                                       \
            fail_msg("'%s' as decimal(%d,%d): %s", text, p, s, e_ ? e_ : "wrong value");           \
    } while (0)
#define BAD_D(text, p, s, why)                                                                     \
    assert_string_equal(rt_parse_decimal(text, strlen(text), p, s, &v), why)
    OK_D("1.500", 10, 2, "150");
    OK_D("-123.45", 10, 2, "-12345");
    OK_D("0.05", 10, 2, "5");
    OK_D("-0", 10, 2, "0");
    OK_D("0.000", 5, 0, "0");
    OK_D("1e2", 5, 0, "100");
    OK_D("1.2E+3", 6, 1, "12000");
    OK_D("12345e-2", 5, 2, "12345");
    OK_D("-0.001", 10, 3, "-1");
    OK_D("1.000000000000000000000000000000000000000000000", 3, 2, "100");
    OK_D("99999999999999999999999999999999999999", 38, 0, "99999999999999999999999999999999999999");
    OK_D("-9999999999999999999999999999.9999999999", 38, 10,
         "-99999999999999999999999999999999999999");
    OK_D("0.00000000000000000000000000000000000001", 38, 38, "1");
    BAD_D("1.505", 10, 2, "has more digits after the point than the column's scale");
    BAD_D("1e-40", 38, 38, "has more digits after the point than the column's scale");
    BAD_D("100000000000000000000000000000000000000", 38, 0,
          "out of range for the column's precision");
    BAD_D("1000", 5, 2, "out of range for the column's precision");
    BAD_D("1e99999999999", 38, 0, "out of range for the column's precision");
    BAD_D("abc", 10, 2, "expected a decimal number");
    BAD_D("1,5", 10, 2, "expected a decimal number");
    BAD_D("", 10, 2, "expected a decimal number");
#undef OK_D
#undef BAD_D
}

static void parse_temporal(void **state)
{
    (void)state;
    int32_t d;
    int64_t v;
    assert_null(rt_parse_date("2024-02-29", 10, &d));
    assert_int_equal(d, 19782);
    assert_null(rt_parse_date("1969-12-31", 10, &d));
    assert_int_equal(d, -1);
    assert_null(rt_parse_date("+10000-01-01", 12, &d));
    assert_int_equal(d, 2932897);
    assert_null(rt_parse_date("-00001-12-31", 12, &d));
    assert_int_equal(d, -719529);
    assert_null(rt_parse_date("-5877641-06-23", 14, &d));
    assert_int_equal(d, INT32_MIN);
    assert_string_equal(rt_parse_date("-5877641-06-22", 14, &d), "out of range");
    assert_string_equal(rt_parse_date("2023-02-29", 10, &d), "not a calendar date");
    assert_string_equal(rt_parse_date("2024-13-01", 10, &d), "not a calendar date");
    assert_string_equal(rt_parse_date("2024-1-01", 9, &d), "expected a date YYYY-MM-DD");
    assert_string_equal(rt_parse_date("2024-01-01T", 11, &d), "expected a date YYYY-MM-DD");

    assert_null(rt_parse_time("23:59:59.999999", 15, ROWS_MICROS, &v));
    assert_int_equal(v, 86399999999);
    assert_null(rt_parse_time("12:00:00.5", 10, ROWS_MICROS, &v));
    assert_int_equal(v, 43200500000);
    assert_null(rt_parse_time("12:00:00.123456000", 18, ROWS_MICROS, &v));
    assert_int_equal(v, 43200123456);
    assert_null(rt_parse_time("00:00:01", 8, ROWS_MICROS, &v));
    assert_int_equal(v, 1000000);
    assert_string_equal(rt_parse_time("12:00:00.1234567", 16, ROWS_MICROS, &v),
                        "has digits below the column's time unit");
    assert_string_equal(rt_parse_time("24:00:00", 8, ROWS_MICROS, &v), "not a time of day");
    assert_string_equal(rt_parse_time("12:00", 5, ROWS_MICROS, &v),
                        "expected a time HH:MM:SS[.ffffff]");
    assert_string_equal(rt_parse_time("12:00:00.", 9, ROWS_MICROS, &v),
                        "expected a time HH:MM:SS[.ffffff]");

#define TS(text, unit, utc, want)                                                                  \
    do {                                                                                           \
        const char *e_ = rt_parse_timestamp(text, strlen(text), unit, utc, &v);                    \
        if (e_ || v != (want))                                                                     \
            fail_msg("'%s': %s (%lld)", text, e_ ? e_ : "wrong value", (long long)v);              \
    } while (0)
    TS("2024-01-02T03:04:05.123456", ROWS_MICROS, false, 1704164645123456);
    TS("2024-01-02 03:04:05.123456", ROWS_MICROS, false, 1704164645123456);
    TS("2024-01-02T03:04:05.123456Z", ROWS_MICROS, true, 1704164645123456);
    TS("2024-01-02T05:34:05.123456+02:30", ROWS_MICROS, true, 1704164645123456);
    TS("2024-01-01T22:04:05.123456-0500", ROWS_MICROS, true, 1704164645123456);
    TS("2024-01-02T04:04:05.123456+01", ROWS_MICROS, true, 1704164645123456);
    TS("1969-12-31T23:59:59.999", ROWS_MILLIS, false, -1);
    TS("1969-12-31T23:59:59.999999", ROWS_MICROS, false, -1);
    TS("1969-12-31T23:59:59", ROWS_SECONDS, false, -1);
    TS("1677-09-21T00:12:43.145224192", ROWS_NANOS, false, INT64_MIN);
    TS("2262-04-11T23:47:16.854775807", ROWS_NANOS, false, INT64_MAX);
    TS("2024-01-02T03:04:05.1", ROWS_NANOS, false, 1704164645100000000);
#undef TS
    assert_string_equal(
        rt_parse_timestamp("1677-09-21T00:12:43.145224191", 29, ROWS_NANOS, false, &v),
        "out of range for the column's time unit");
    assert_string_equal(rt_parse_timestamp("2024-01-02T03:04:05Z", 20, ROWS_MICROS, false, &v),
                        "a timestamp without time zone takes no offset");
    assert_string_equal(rt_parse_timestamp("2024-01-02T03:04:05", 19, ROWS_MICROS, true, &v),
                        "a timestamptz needs a UTC offset (Z or +HH:MM)");
    assert_string_equal(rt_parse_timestamp("2024-01-02T03:04:05.0001", 24, ROWS_MILLIS, false, &v),
                        "has digits below the column's time unit");
    assert_string_equal(rt_parse_timestamp("2024-01-02T03:04:05+19:00", 25, ROWS_MICROS, true, &v),
                        "bad UTC offset");
    assert_string_equal(rt_parse_timestamp("2024-01-02", 10, ROWS_MICROS, false, &v),
                        "expected a timestamp YYYY-MM-DDTHH:MM:SS[.ffffff]");
    assert_string_equal(rt_parse_timestamp("2024-01-02T03:04:05Zx", 21, ROWS_MICROS, true, &v),
                        "unexpected text after the timestamp");
}

static void parse_other(void **state)
{
    (void)state;
    uint8_t u[16];
    assert_null(rt_parse_uuid("0123ABCD-0000-4000-8000-0000FFEE000F", 36, u));
    char t[RT_TEXT_MAX];
    rt_format_uuid(u, t);
    assert_string_equal(t, "0123abcd-0000-4000-8000-0000ffee000f");
    assert_non_null(rt_parse_uuid("0123abcd00004000800000000000ffee000f", 36, u));
    assert_non_null(rt_parse_uuid("0123abcd-0000-4000-8000-0000ffee000", 35, u));
    assert_non_null(rt_parse_uuid("0123abcg-0000-4000-8000-0000ffee000f", 36, u));
    bool b;
    assert_null(rt_parse_bool("true", 4, &b));
    assert_true(b);
    assert_null(rt_parse_bool("false", 5, &b));
    assert_false(b);
    assert_non_null(rt_parse_bool("True", 4, &b));
    assert_non_null(rt_parse_bool("1", 1, &b));
    struct buf out = BUF_INIT;
    static const char *const bad64[] = {
        "Zm9vYmF", "Zm9=", "Zh==", "Zm9v!A==", "Zg=a", "=Zg=", "Zg== "};
    for (size_t i = 0; i < sizeof bad64 / sizeof bad64[0]; i++) {
        buf_reset(&out);
        if (!rt_base64_decode(bad64[i], strlen(bad64[i]), &out))
            fail_msg("base64 '%s' was accepted", bad64[i]);
    }
    buf_free(&out);
    size_t at = 0;
    assert_true(str_utf8_valid("h\xc3\xa9llo \xe6\x97\xa5 \xf0\x9f\x98\x80", 15, &at));
    assert_false(str_utf8_valid("ab\xc3\x28", 4, &at));
    assert_int_equal(at, 2);
    assert_false(str_utf8_valid("\xc0\xaf", 2, &at));         /* overlong */
    assert_false(str_utf8_valid("\xed\xa0\x80", 3, &at));     /* a surrogate */
    assert_false(str_utf8_valid("x\xe6\x97", 3, &at));        /* cut short */
    assert_false(str_utf8_valid("\xf4\x90\x80\x80", 4, &at)); /* past U+10FFFF */
    assert_true(str_utf8_valid("a\0b", 3, &at));
    /* Long ASCII runs go eight bytes at a time: a bad byte or a sequence
     * anywhere among them, across a word's edge, or cut at the end. */
    char text[40];
    for (size_t bad = 0; bad < 32; bad++) {
        memset(text, 'a', 32);
        text[bad] = (char)0xff;
        if (str_utf8_valid(text, 32, &at) || at != bad)
            fail_msg("0xff at %zu: found at %zu", bad, at);
        memset(text, 'a', 32);
        memcpy(text + bad, "\xe6\x97\xa5", 3);
        bool whole = bad + 3 <= 32;
        if (str_utf8_valid(text, 32, &at) != whole)
            fail_msg("a 3-byte sequence at %zu", bad);
    }
}

/* ---- the JSON reader ---- */

static void json_reader(void **state)
{
    (void)state;
    struct arena a;
    arena_init(&a, 0);
    struct error err;
    const char *text = " {\"n\": 18446744073709551615, \"f\": -0.0, \"big\": 1e400,"
                       " \"s\": \"\\u00e9\\ud83d\\ude00\\u0000x\\\"\\\\\\/\\b\\f\\n\\r\\t\","
                       " \"a\": [true, false, null, [], {}], \"k\": 1, \"k\": 2} ";
    const struct rj_value *v = rj_parse(text, strlen(text), &a, &err);
    if (!v)
        fail_msg("%s", err.msg);
    assert_int_equal(v->type, RJ_OBJECT);
    assert_int_equal(v->n, 7);
    assert_true(rj_key_is(v, 0, "n"));
    assert_string_equal(v->items[0].str, "18446744073709551615");
    assert_string_equal(v->items[1].str, "-0.0");
    assert_string_equal(v->items[2].str, "1e400");
    assert_int_equal(v->items[3].type, RJ_STRING);
    static const char want[] = "\xc3\xa9\xf0\x9f\x98\x80\0x\"\\/\b\f\n\r\t";
    assert_int_equal(v->items[3].len, sizeof want - 1);
    assert_memory_equal(v->items[3].str, want, sizeof want - 1);
    assert_int_equal(v->items[4].n, 5);
    assert_int_equal(v->items[4].items[0].type, RJ_TRUE);
    assert_int_equal(v->items[4].items[2].type, RJ_NULL);
    assert_int_equal(v->items[4].items[4].type, RJ_OBJECT);
    assert_true(rj_key_is(v, 6, "k")); /* duplicates kept, in order */
    assert_string_equal(v->items[6].str, "2");
    arena_free(&a);

    static const char *const bad[] = {"{\"a\":1,}",
                                      "[1,]",
                                      "{\"a\" 1}",
                                      "\"\\ud800\"",
                                      "\"\\udc00\"",
                                      "\"a\x01\"",
                                      "\"\xc3\x28\"",
                                      "{} x",
                                      "01",
                                      "-",
                                      "1.",
                                      "1e",
                                      "tru",
                                      "\"\\x\"",
                                      "\"abc",
                                      "{'a':1}",
                                      "",
                                      "[1 2]",
                                      "NaN"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (rj_parse(bad[i], strlen(bad[i]), NULL, &err))
            fail_msg("'%s' was accepted", bad[i]);
    assert_null(rj_parse("[1,]", 4, NULL, &err));
    assert_string_equal(err.msg, "at byte 4: expected a JSON value");
    assert_int_equal(err.code, ERR_MALFORMED);
    /* Deep nesting is refused, not a stack overflow. */
    char *deep = malloc(2 * RJ_MAX_DEPTH + 3);
    memset(deep, '[', RJ_MAX_DEPTH + 1);
    memset(deep + RJ_MAX_DEPTH + 1, ']', RJ_MAX_DEPTH + 1);
    assert_null(rj_parse(deep, 2 * RJ_MAX_DEPTH + 2, NULL, &err));
    assert_non_null(strstr(err.msg, "nested too deeply"));
    assert_int_equal(err.code, ERR_LIMIT);
    assert_non_null(rj_parse(deep + 1, 2 * RJ_MAX_DEPTH, NULL, &err));
    free(deep);
}

static void json_writer(void **state)
{
    (void)state;
    struct buf b = BUF_INIT;
    struct jw w;
    jw_init(&w, &b, false);
    jw_begin_object(&w);
    jw_key(&w, "s");
    jw_string(&w, "q\"\\\n\x01\x7f\xc3\xa9/\xff", 10);
    jw_key(&w, "a");
    jw_begin_array(&w);
    jw_int(&w, -1);
    jw_null(&w);
    jw_bool(&w, true);
    jw_begin_object(&w);
    jw_end_object(&w);
    jw_end_array(&w);
    jw_end_object(&w);
    assert_string_equal(b.data,
                        "{\"s\":\"q\\\"\\\\\\n\\u0001\x7f\xc3\xa9/\xef\xbf\xbd\",\"a\":[-1,null,"
                        "true,{}]}");
    buf_reset(&b);
    jw_init(&w, &b, true);
    jw_begin_object(&w);
    jw_key(&w, "a");
    jw_begin_array(&w);
    jw_int(&w, 1);
    jw_end_array(&w);
    jw_key(&w, "e");
    jw_begin_array(&w);
    jw_end_array(&w);
    jw_end_object(&w);
    assert_string_equal(b.data, "{\n  \"a\": [\n    1\n  ],\n  \"e\": []\n}");
    buf_free(&b);
}

/* ---- tables ---- */

struct tbl {
    struct arena arena;
    struct lake_table t;
};

static void tbl_init(struct tbl *x, const char *spec)
{
    arena_init(&x->arena, 0);
    lake_table_init(&x->t, &x->arena);
    x->t.name = "t";
    struct error err;
    if (textio_table_from_spec(spec, &x->t, &err) != 0)
        fail_msg("schema '%s': %s", spec, err.msg);
}

static void tbl_free(struct tbl *x)
{
    lake_table_release(&x->t);
    arena_free(&x->arena);
}

static void expect_spec_error(const char *spec, const char *needle)
{
    struct arena a;
    arena_init(&a, 0);
    struct lake_table t;
    lake_table_init(&t, &a);
    struct error err;
    assert_int_equal(textio_table_from_spec(spec, &t, &err), -1);
    if (!strstr(err.msg, needle))
        fail_msg("'%s': '%s' lacks '%s'", spec, err.msg, needle);
    lake_table_release(&t);
    arena_free(&a);
}

static int64_t id_of(struct tbl *x, const char *path)
{
    struct error err;
    struct lake_column *c = lake_table_find_path(&x->t, path, &err);
    if (!c)
        fail_msg("no column %s", path);
    return c->field_id;
}

static void schema_specs_and_field_ids(void **state)
{
    (void)state;
    struct tbl x;
    /* The catalog's numbering: depth-first from 1. */
    tbl_init(&x, "id:long!, s:struct<a:int, b:list<string>>, m:map<string,long>, z:date");
    assert_int_equal(id_of(&x, "id"), 1);
    assert_int_equal(id_of(&x, "s"), 2);
    assert_int_equal(id_of(&x, "s.a"), 3);
    assert_int_equal(id_of(&x, "s.b"), 4);
    assert_int_equal(x.t.root.children[1]->children[1]->children[0]->field_id, 5);
    assert_int_equal(id_of(&x, "m"), 6);
    assert_int_equal(x.t.root.children[2]->children[0]->field_id, 7);
    assert_int_equal(x.t.root.children[2]->children[1]->field_id, 8);
    assert_int_equal(id_of(&x, "z"), 9);
    assert_int_equal(x.t.next_field_id, 10);
    tbl_free(&x);

    /* Given ids are kept; the others take the smallest unclaimed, in order. */
    tbl_init(&x, "[{\"name\":\"a\",\"type\":\"long\",\"field_id\":2},"
                 " {\"name\":\"b\",\"type\":\"list\",\"children\":[{\"name\":\"element\","
                 "   \"type\":\"int\",\"field_id\":100}]},"
                 " {\"name\":\"c\",\"type\":\"string\",\"ordinal\":7}]");
    assert_int_equal(id_of(&x, "a"), 2);
    assert_int_equal(id_of(&x, "b"), 1);
    assert_int_equal(x.t.root.children[1]->children[0]->field_id, 100);
    assert_int_equal(id_of(&x, "c"), 3);
    assert_int_equal(x.t.next_field_id, 101);
    tbl_free(&x);

    expect_spec_error("[{\"name\":\"a\",\"type\":\"long\",\"field_id\":5},"
                      "{\"name\":\"b\",\"type\":\"long\",\"field_id\":5}]",
                      "field_id 5 is given to two columns");
    expect_spec_error("[{\"name\":\"a\",\"type\":\"long\",\"field_id\":0}]",
                      "column 'a': field_id must be an integer from 1 to 2147483647");
    expect_spec_error("[{\"name\":\"a\",\"type\":\"long\",\"field_id\":\"1\"}]",
                      "field_id must be an integer");
    expect_spec_error("[{\"name\":\"a\",\"type\":\"long\",\"field_id\":2147483648}]",
                      "field_id must be an integer");
    expect_spec_error("[{\"name\":\"a\",\"type\":\"nope\"}]", "unknown column type 'nope'");
    expect_spec_error("[{\"name\":\"a\",\"type\":\"long\",\"extra\":1}]", "extra");
    expect_spec_error("[{\"name\":\"a\"", "invalid JSON schema");
    expect_spec_error("id:long, ", "expected a name");
    expect_spec_error("@/nonexistent/schema.json", "/nonexistent/schema.json");
    expect_spec_error("{\"name\":\"a\"}", "expected a name");
}

/* ---- rows through Parquet ---- */

/* Where parsed rows go: a writer of table t. */
struct flush_to {
    struct pq_writer *w;
    const struct lake_table *t;
};

/* Moves the parser's pending rows into the writer, made the writer's
 * types as an append makes them (variant text encoded). */
static void flush_rows(struct textio_parser *p, const struct flush_to *to)
{
    struct error err;
    struct ArrowSchema s, ws;
    struct ArrowArray b;
    struct error perr = {0};
    assert_int_equal(textio_parser_take(p, &s, &b, &err), 0);
    if (rows_adapt_batch(&s, &b, to->t, &perr) != 0)
        fail_msg("adapt: %s", perr.msg);
    assert_int_equal(rows_table_arrow_schema(to->t, &ws), 0);
    if (pq_writer_write(to->w, &ws, &b, &perr) != 0)
        fail_msg("write: %s", perr.msg);
    b.release(&b);
    s.release(&s);
    ws.release(&ws);
}

/* Feeds text (CSV from its header on, or JSON Lines) to p, handing rows to
 * w (when given) every batch_rows rows. Returns 0, or -1 with the first
 * error in err. */
static int feed(struct textio_parser *p, enum textio_format in, const char *text, size_t len,
                const struct flush_to *w, int64_t batch_rows, struct error *err)
{
    int rc = 0;
    if (in == TEXTIO_CSV) {
        FILE *f = fmemopen((void *)text, len, "r");
        assert_non_null(f);
        struct csv_reader r;
        csv_reader_init(&r, f);
        assert_int_equal(csv_read_record(&r), 1);
        rc = textio_parser_csv_header(p, &r, err);
        int got;
        while (rc == 0 && (got = csv_read_record(&r)) != 0) {
            if (got < 0) {
                error_fail(err, ERR_MALFORMED, "%s", r.err);
                rc = -1;
            } else {
                rc = textio_parser_csv_row(p, &r, err);
            }
            if (rc == 0 && w && textio_parser_pending(p) >= batch_rows)
                flush_rows(p, w);
        }
        csv_reader_free(&r);
        fclose(f);
        return rc;
    }
    for (const char *line = text, *end = text + len; rc == 0 && line < end;) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        size_t n = nl ? (size_t)(nl - line) : (size_t)(end - line);
        rc = textio_parser_json_row(p, line, n, err);
        line += n + (nl != NULL);
        if (rc == 0 && w && textio_parser_pending(p) >= batch_rows)
            flush_rows(p, w);
    }
    return rc;
}

/* Text rows into a Parquet file in memory under t, batch_rows rows to a
 * batch (0: one batch), with small row groups and pages. */
static void text_to_parquet(const struct lake_table *t, enum textio_format in, const char *text,
                            int64_t batch_rows, struct buf *file)
{
    struct error err;
    struct textio_parser *p;
    if (textio_parser_new(t, &p, &err) != 0)
        fail_msg("%s", err.msg);
    struct pq_sink sink = {test_sink_buf_write, file};
    struct pq_write_options o;
    pq_write_options_default(&o);
    o.row_group_bytes = 64; /* a row group every few rows */
    o.page_bytes = 32;
    struct pq_writer *w;
    struct error perr = {0};
    if (pq_writer_open(t, &o, &sink, &w, &perr) != 0)
        fail_msg("%s", perr.msg);
    struct flush_to to = {w, t};
    if (feed(p, in, text, strlen(text), &to, batch_rows ? batch_rows : INT64_MAX, &err) != 0)
        fail_msg("row: %s", err.msg);
    if (textio_parser_pending(p) > 0)
        flush_rows(p, &to);
    textio_parser_free(p);
    struct pq_write_result res;
    if (pq_writer_close(w, &res, &perr) != 0)
        fail_msg("close: %s", perr.msg);
    pq_write_result_release(&res);
}

/* A Parquet file's rows as `out` text, row group by row group. */
static char *parquet_to_text(const struct buf *file, enum textio_format out)
{
    struct error err;
    struct pq_source src;
    pq_source_memory(&src, file->data, file->len);
    struct pq_reader *rd;
    struct error perr = {0};
    if (pq_reader_open(&src, &rd, &perr) != 0)
        fail_msg("%s", perr.msg);
    struct ArrowSchema schema;
    assert_int_equal(pq_reader_arrow_schema(rd, &schema, &perr), 0);
    assert_int_equal(rows_schema_mark_file_extensions(&schema, pq_reader_schema(rd)), 0);
    struct textio_render *render;
    if (textio_render_new(&schema, out, &render, &err) != 0)
        fail_msg("%s", err.msg);
    struct buf text = BUF_INIT;
    textio_render_header(render, &text);
    for (size_t g = 0; g < pq_reader_meta(rd)->nrow_groups; g++) {
        struct ArrowArray b;
        if (pq_reader_read_row_group(rd, g, &b, &perr) != 0)
            fail_msg("%s", perr.msg);
        for (int64_t i = 0; i < b.length; i++)
            if (textio_render_row(render, &b, i, &text, &err) != 0)
                fail_msg("render: %s", err.msg);
        b.release(&b);
    }
    textio_render_free(render);
    schema.release(&schema);
    pq_reader_free(rd);
    return buf_take(&text);
}

static char *through_parquet(const struct lake_table *t, enum textio_format in, const char *text,
                             enum textio_format out, int64_t batch_rows)
{
    struct buf file = BUF_INIT;
    text_to_parquet(t, in, text, batch_rows, &file);
    char *got = parquet_to_text(&file, out);
    buf_free(&file);
    return got;
}

static void expect_through(const char *spec, enum textio_format in, const char *text,
                           enum textio_format out, const char *want)
{
    struct tbl x;
    tbl_init(&x, spec);
    for (int64_t batch = 1; batch <= 3; batch += 2) {
        char *got = through_parquet(&x.t, in, text, out, batch);
        if (strcmp(got, want) != 0)
            fail_msg("got:\n%s\nwant:\n%s", got, want);
        free(got);
    }
    tbl_free(&x);
}

static const char all_types[] =
    "b:boolean, i8:int8, i16:int16, i32:int, i64:long, u8:uint8, u16:uint16, u32:uint32, "
    "u64:uint64, f:float, d:double, dec:decimal(38,10), dt:date, tm:time, tms:timestamp_ms, "
    "tus:timestamp, tns:timestamp_ns, tz:timestamptz, s:string, j:json, u:uuid, bin:binary";

static const char all_types_jsonl[] =
    "{\"b\":true,\"i8\":-128,\"i16\":-32768,\"i32\":-2147483648,\"i64\":-9223372036854775808,"
    "\"u8\":255,\"u16\":65535,\"u32\":4294967295,\"u64\":18446744073709551615,"
    "\"f\":3.4028235e+38,\"d\":1.7976931348623157e+308,"
    "\"dec\":\"-9999999999999999999999999999.9999999999\",\"dt\":\"-5877641-06-23\","
    "\"tm\":\"00:00:00.000000\",\"tms\":\"1969-12-31T23:59:59.999\","
    "\"tus\":\"1969-12-31T23:59:59.999999\",\"tns\":\"1677-09-21T00:12:43.145224192\","
    "\"tz\":\"0001-01-01T00:00:00.000000Z\",\"s\":\"\",\"j\":\"{}\","
    "\"u\":\"00000000-0000-0000-0000-000000000000\",\"bin\":\"\"}\n"
    "{\"b\":false,\"i8\":127,\"i16\":32767,\"i32\":2147483647,\"i64\":9223372036854775807,"
    "\"u8\":0,\"u16\":0,\"u32\":0,\"u64\":0,\"f\":\"NaN\",\"d\":\"-Infinity\","
    "\"dec\":\"9999999999999999999999999999.9999999999\",\"dt\":\"+5881580-07-11\","
    "\"tm\":\"23:59:59.999999\",\"tms\":\"2262-04-11T23:47:16.854\","
    "\"tus\":\"9999-12-31T23:59:59.999999\",\"tns\":\"2262-04-11T23:47:16.854775807\","
    "\"tz\":\"2024-01-02T03:04:05.123456Z\","
    "\"s\":\"h\xc3\xa9llo, \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80 \\\"q\\\" \\\\ "
    "\\n\\t\\u0001\","
    "\"j\":\"[1,{\\\"a\\\":null}]\",\"u\":\"ffffffff-ffff-ffff-ffff-ffffffffffff\","
    "\"bin\":\"AP8=\"}\n"
    "{\"b\":null,\"i8\":null,\"i16\":null,\"i32\":null,\"i64\":null,\"u8\":null,\"u16\":null,"
    "\"u32\":null,\"u64\":null,\"f\":null,\"d\":null,\"dec\":null,\"dt\":null,\"tm\":null,"
    "\"tms\":null,\"tus\":null,\"tns\":null,\"tz\":null,\"s\":null,\"j\":null,\"u\":null,"
    "\"bin\":null}\n"
    "{\"b\":true,\"i8\":0,\"i16\":0,\"i32\":0,\"i64\":0,\"u8\":1,\"u16\":1,\"u32\":1,\"u64\":1,"
    "\"f\":-0.0,\"d\":5e-324,\"dec\":\"0.0000000001\",\"dt\":\"1970-01-01\","
    "\"tm\":\"12:34:56.000001\",\"tms\":\"1970-01-01T00:00:00.000\","
    "\"tus\":\"1900-03-01T00:00:00.000001\",\"tns\":\"1969-12-31T23:59:59.999999999\","
    "\"tz\":\"1969-12-31T23:59:59.999999Z\",\"s\":\"a,b\",\"j\":\"\\\"str\\\"\","
    "\"u\":\"0123abcd-0000-4000-8000-0000ffee000f\",\"bin\":\"Zm9vYmE=\"}\n"
    "{\"b\":false,\"i8\":-1,\"i16\":-1,\"i32\":-1,\"i64\":-1,\"u8\":null,\"u16\":null,"
    "\"u32\":null,\"u64\":9223372036854775808,\"f\":1e-45,\"d\":0.30000000000000004,"
    "\"dec\":\"-0.0000000001\",\"dt\":\"1969-12-31\",\"tm\":null,\"tms\":null,\"tus\":null,"
    "\"tns\":null,\"tz\":null,\"s\":\"\\\"\",\"j\":\"null\",\"u\":null,\"bin\":null}\n";

static void jsonl_round_trip_all_types(void **state)
{
    (void)state;
    expect_through(all_types, TEXTIO_JSONL, all_types_jsonl, TEXTIO_JSONL, all_types_jsonl);
}

static const char all_types_csv[] =
    "b,i8,i16,i32,i64,u8,u16,u32,u64,f,d,dec,dt,tm,tms,tus,tns,tz,s,j,u,bin\r\n"
    "true,-128,-32768,-2147483648,-9223372036854775808,255,65535,4294967295,"
    "18446744073709551615,3.4028235e+38,1.7976931348623157e+308,"
    "-9999999999999999999999999999.9999999999,-5877641-06-23,00:00:00.000000,"
    "1969-12-31T23:59:59.999,1969-12-31T23:59:59.999999,1677-09-21T00:12:43.145224192,"
    "0001-01-01T00:00:00.000000Z,\"\",{},00000000-0000-0000-0000-000000000000,\"\"\r\n"
    "false,127,32767,2147483647,9223372036854775807,0,0,0,0,NaN,-Infinity,"
    "9999999999999999999999999999.9999999999,+5881580-07-11,23:59:59.999999,"
    "2262-04-11T23:47:16.854,9999-12-31T23:59:59.999999,2262-04-11T23:47:16.854775807,"
    "2024-01-02T03:04:05.123456Z,\"h\xc3\xa9llo, \xe6\x97\xa5 \"\"q\"\"\n\tend\","
    "\"[1,{\"\"a\"\":null}]\",ffffffff-ffff-ffff-ffff-ffffffffffff,AP8=\r\n"
    ",,,,,,,,,,,,,,,,,,,,,\r\n"
    "true,0,0,0,0,1,1,1,1,-0.0,Infinity,0.0000000001,1970-01-01,12:34:56.000001,"
    "1970-01-01T00:00:00.000,1900-03-01T00:00:00.000001,1969-12-31T23:59:59.999999999,"
    "1969-12-31T23:59:59.999999Z,\"a\r\nb\",\"\"\"s\"\"\",0123abcd-0000-4000-8000-0000ffee000f,"
    "Zm9vYmE=\r\n";

static void csv_round_trip_all_types(void **state)
{
    (void)state;
    expect_through(all_types, TEXTIO_CSV, all_types_csv, TEXTIO_CSV, all_types_csv);
}

static const char nested[] =
    "id:long!, s:struct<a:int!,b:list<string>,c:map<string,struct<x:double>>>, "
    "l:list<list<int!>>, m:map<long,list<string>>, ms:map<string,string!>";

static const char nested_jsonl[] =
    "{\"id\":1,\"s\":{\"a\":1,\"b\":[\"x\",null,\"\"],\"c\":{\"k1\":{\"x\":1.5},\"k2\":null,"
    "\"k3\":{\"x\":null}}},\"l\":[[1,2],[],null,[3]],\"m\":[{\"key\":-1,\"value\":[\"a\"]},"
    "{\"key\":2,\"value\":null},{\"key\":3,\"value\":[]}],\"ms\":{\"\":\"empty key\","
    "\"\xc3\xa9\":\"v\",\"\xc3\xa9\":\"dup\"}}\n"
    "{\"id\":2,\"s\":null,\"l\":null,\"m\":null,\"ms\":null}\n"
    "{\"id\":3,\"s\":{\"a\":0,\"b\":null,\"c\":{}},\"l\":[],\"m\":[],\"ms\":{}}\n"
    "{\"id\":4,\"s\":{\"a\":-7,\"b\":[],\"c\":null},\"l\":[[]],\"m\":[{\"key\":"
    "-9223372036854775808,\"value\":[null]}],\"ms\":{\"a\\\"b\":\"\\n\"}}\n";

static void jsonl_round_trip_nested(void **state)
{
    (void)state;
    expect_through(nested, TEXTIO_JSONL, nested_jsonl, TEXTIO_JSONL, nested_jsonl);
}

static const char nested_csv[] =
    "id,s,l,m,ms\r\n"
    "1,\"{\"\"a\"\":1,\"\"b\"\":[\"\"x\"\",null,\"\"\"\"],\"\"c\"\":{\"\"k1\"\":{\"\"x\"\":1.5},"
    "\"\"k2\"\":null}}\",\"[[1,2],[],null]\",\"[{\"\"key\"\":-1,\"\"value\"\":[\"\"a\"\"]}]\","
    "\"{\"\"k\"\":\"\"v\"\"}\"\r\n"
    "2,,,,\r\n"
    "3,\"{\"\"a\"\":0,\"\"b\"\":null,\"\"c\"\":{}}\",[],[],{}\r\n";

static void csv_round_trip_nested(void **state)
{
    (void)state;
    expect_through(nested, TEXTIO_CSV, nested_csv, TEXTIO_CSV, nested_csv);
}

/* Input forms that are accepted but not canonical come out canonical. */
static void jsonl_normalised(void **state)
{
    (void)state;
    expect_through("d:double, f:float, dec:decimal(6,3), tz:timestamptz, t:timestamp, u:uuid, "
                   "i:long, s:struct<a:int,b:string>",
                   TEXTIO_JSONL,
                   "{\"s\":{\"b\":\"x\"},\"i\":-0,\"d\":1E2,\"f\":\"Infinity\",\"dec\":1.5,"
                   "\"tz\":\"2024-01-02 05:34:05.1+02:30\",\"t\":\"2024-01-02 03:04:05\","
                   "\"u\":\"0123ABCD-0000-4000-8000-0000FFEE000F\"}\n"
                   "  {\"dec\":\"-0.000\"}  \n",
                   TEXTIO_JSONL,
                   "{\"d\":100.0,\"f\":\"Infinity\",\"dec\":\"1.500\","
                   "\"tz\":\"2024-01-02T03:04:05.100000Z\",\"t\":\"2024-01-02T03:04:05.000000\","
                   "\"u\":\"0123abcd-0000-4000-8000-0000ffee000f\",\"i\":0,"
                   "\"s\":{\"a\":null,\"b\":\"x\"}}\n"
                   "{\"d\":null,\"f\":null,\"dec\":\"0.000\",\"tz\":null,\"t\":null,\"u\":null,"
                   "\"i\":null,\"s\":null}\n");
    /* CSV: the header in any order, a nullable column left out. */
    expect_through("a:int, b:string, c:date", TEXTIO_CSV, "c,a\n2024-02-29,5\n,\n", TEXTIO_JSONL,
                   "{\"a\":5,\"b\":null,\"c\":\"2024-02-29\"}\n"
                   "{\"a\":null,\"b\":null,\"c\":null}\n");
    /* json map keys are text too: an object. */
    expect_through("mj:map<json,int>", TEXTIO_JSONL, "{\"mj\":{\"[1]\":1,\"{}\":null}}\n",
                   TEXTIO_JSONL, "{\"mj\":{\"[1]\":1,\"{}\":null}}\n");
    /* JSON Lines to CSV and back. */
    expect_through("a:int, s:string, l:list<int>", TEXTIO_JSONL,
                   "{\"a\":1,\"s\":\"\",\"l\":[1]}\n{\"a\":null,\"s\":null,\"l\":[]}\n", TEXTIO_CSV,
                   "a,s,l\r\n1,\"\",[1]\r\n,,[]\r\n");
}

/* ---- rows that do not parse ---- */

static void expect_row_error(const char *spec, enum textio_format in, const char *text,
                             const char *needle)
{
    struct tbl x;
    tbl_init(&x, spec);
    struct error err = {0};
    struct textio_parser *p;
    assert_int_equal(textio_parser_new(&x.t, &p, &err), 0);
    int rc = feed(p, in, text, strlen(text), NULL, 0, &err);
    textio_parser_free(p);
    if (rc == 0)
        fail_msg("'%s' was accepted for '%s'", text, spec);
    if (!strstr(err.msg, needle))
        fail_msg("'%s': message '%s' lacks '%s'", text, err.msg, needle);
    tbl_free(&x);
}

static void row_errors(void **state)
{
    (void)state;
    const enum textio_format J = TEXTIO_JSONL, C = TEXTIO_CSV;
    expect_row_error("id:long", J, "{\"id\":\"12\"}",
                     "column 'id': expected an integer, got a string");
    expect_row_error("id:long", J, "{\"id\":1.0}",
                     "column 'id': expected an integer: '1.0' (long)");
    expect_row_error("id:int8", J, "{\"id\":300}", "column 'id': out of range: '300' (int8)");
    expect_row_error("id:uint64", J, "{\"id\":-1}", "column 'id': out of range: '-1' (uint64)");
    expect_row_error("id:long", J, "{\"zz\":1}", "unknown column 'zz'");
    expect_row_error("id:long", J, "{\"id\":1,\"id\":2}", "column 'id' given twice");
    expect_row_error("id:long!", J, "{}", "column 'id': a required value is missing");
    expect_row_error("id:long!", J, "{\"id\":null}", "column 'id': null in a required column");
    expect_row_error("id:long", J, "[1]", "a row must be a JSON object, not an array");
    expect_row_error("id:long", J, "{\"id\":1", "invalid JSON at byte 8: expected ',' or '}'");
    expect_row_error("s:string", J, "{\"s\":\"\xff\"}", "invalid JSON at byte 7: invalid UTF-8");
    expect_row_error("d:date", J, "{\"d\":\"2024-02-30\"}",
                     "column 'd': not a calendar date: '2024-02-30' (date)");
    expect_row_error("d:date", J, "{\"d\":20240101}",
                     "column 'd': expected a string, got a number");
    expect_row_error("f:double", J, "{\"f\":\"1.5\"}", "expected NaN, Infinity or -Infinity");
    expect_row_error("f:float", J, "{\"f\":1e39}", "column 'f': out of range: '1e39' (float)");
    expect_row_error("f:double", J, "{\"f\":true}", "expected a number or \"NaN\"");
    expect_row_error("x:decimal(5,2)", J, "{\"x\":\"1.234\"}",
                     "column 'x': has more digits after the point than the column's scale: "
                     "'1.234' (decimal(5,2))");
    expect_row_error("x:decimal(5,2)", J, "{\"x\":1234}",
                     "out of range for the column's precision: '1234' (decimal(5,2))");
    expect_row_error("j:json", J, "{\"j\":\"{bad\"}", "column 'j': invalid JSON text at byte 2");
    expect_row_error("j:json", J, "{\"j\":{\"a\":1}}",
                     "column 'j': expected a string, got an object");
    expect_row_error("b:binary", J, "{\"b\":\"abc\"}", "column 'b': expected base64");
    expect_row_error("u:uuid", J, "{\"u\":\"xyz\"}", "column 'u': expected a UUID 8-4-4-4-12");
    expect_row_error("t:timestamptz", J, "{\"t\":\"2024-01-01T00:00:00\"}",
                     "column 't': a timestamptz needs a UTC offset");
    expect_row_error("t:boolean", J, "{\"t\":\"true\"}", "column 't': expected true or false");
    /* Nested paths. */
    expect_row_error("s:struct<a:int!,b:string>", J, "{\"s\":{\"b\":\"x\"}}",
                     "column 's.a': a required value is missing");
    expect_row_error("s:struct<a:int>", J, "{\"s\":{\"q\":1}}", "column 's': unknown field 'q'");
    expect_row_error("s:struct<a:int>", J, "{\"s\":[1]}",
                     "column 's': expected an object, got an array");
    expect_row_error("l:list<int!>", J, "{\"l\":[1,null]}",
                     "column 'l[1]': null in a required column");
    expect_row_error("l:list<list<int>>", J, "{\"l\":[[1],[2,\"x\"]]}",
                     "column 'l[1][1]': expected an integer, got a string");
    expect_row_error("m:map<string,int>", J, "{\"m\":{\"k\":\"v\"}}",
                     "column 'm{k}': expected an integer, got a string");
    expect_row_error("m:map<string,int>", J, "{\"m\":[]}",
                     "column 'm': expected an object, got an array");
    expect_row_error("m:map<json,int>", J, "{\"m\":{\"{x\":1}}",
                     "column 'm{{x}': invalid JSON text");
    expect_row_error("m:map<long,int>", J, "{\"m\":[{\"key\":\"a\",\"value\":1}]}",
                     "column 'm[0].key': expected an integer, got a string");
    expect_row_error("m:map<long,int>", J, "{\"m\":[{\"value\":1}]}",
                     "column 'm[0].key': a required value is missing");
    expect_row_error("m:map<long,int>", J, "{\"m\":[{\"key\":1,\"v\":1}]}",
                     "column 'm[0]': a map entry holds exactly \"key\" and \"value\"");
    expect_row_error("m:map<long,int>", J, "{\"m\":[5]}", "column 'm[0]': expected a {\"key\"");
    /* CSV. */
    expect_row_error("a:int,b:int", C, "a,b\n1,2\n3\n", "the record has 1 fields, the header 2");
    expect_row_error("a:int,b:int", C, "a,b\n1,2,3\n", "the record has 3 fields, the header 2");
    expect_row_error("a:int", C, "a,zz\n", "the header names column 'zz', which the schema lacks");
    expect_row_error("a:int", C, "a,a\n", "the header names column 'a' twice");
    expect_row_error("a:int!,b:int", C, "b\n1\n", "the header lacks column 'a', which is required");
    expect_row_error("a:int!", C, "a\n\n", "column 'a': null in a required column");
    expect_row_error("a:int", C, "a\n\"\"\n", "column 'a': expected an integer: '' (int)");
    expect_row_error("a:int", C, "a\n 1\n", "column 'a': expected an integer: ' 1' (int)");
    expect_row_error("s:string", C, "s\nab\xc3\x28\n", "column 's': invalid UTF-8 at byte 3");
    expect_row_error("j:json", C, "j\n\"{\"\"a\"\":}\"\n", "column 'j': invalid JSON text");
    expect_row_error("j:json", C, "j\n{\"\"a\"\":}\n", "a quote inside an unquoted field");
    expect_row_error("l:list<int>", C, "l\n\"[1,\"\"x\"\"]\"\n",
                     "column 'l[1]': expected an integer, got a string");
    expect_row_error("l:list<int>", C, "l\n[1\n", "column 'l': invalid JSON text at byte 3");
    expect_row_error("f:double", C, "f\nnan\n", "column 'f': expected a number, NaN, Infinity");
}

/* A variant column's values are JSON text to the parser (a CSV cell as it
 * is, a JSON Lines member written back), encoded on the way to the writer
 * and decoded by the renderer: object keys come back in key order. */
static void variant_text(void **state)
{
    (void)state;
    struct tbl x;
    tbl_init(&x, "a:int, v:variant");
    struct error err;
    struct textio_parser *p;
    assert_int_equal(textio_parser_new(&x.t, &p, &err), 0);
    const char *row = "{\"a\":1,\"v\":{\"b\":[1, 2.50],\"a\":\"x\"}}\n";
    assert_int_equal(feed(p, TEXTIO_JSONL, row, strlen(row), NULL, 0, &err), 0);
    struct ArrowSchema s;
    struct ArrowArray b;
    assert_int_equal(textio_parser_take(p, &s, &b, &err), 0);
    assert_string_equal(s.children[1]->format, "u");
    assert_true(rows_schema_is_json(s.children[1]));
    const int32_t *off = b.children[1]->buffers[1];
    const char *text = "{\"b\":[1,2.50],\"a\":\"x\"}"; /* numbers as written */
    assert_int_equal(off[1], (int32_t)strlen(text));
    assert_memory_equal(b.children[1]->buffers[2], text, strlen(text));
    b.release(&b);
    s.release(&s);
    textio_parser_free(p);
    tbl_free(&x);

    expect_through("a:int, v:variant", TEXTIO_JSONL,
                   "{\"a\":1,\"v\":{\"b\":[1,2.5],\"a\":\"x\"}}\n{\"a\":2,\"v\":null}\n"
                   "{\"a\":3,\"v\":\"s\"}\n",
                   TEXTIO_JSONL,
                   "{\"a\":1,\"v\":{\"a\":\"x\",\"b\":[1,2.5]}}\n{\"a\":2,\"v\":null}\n"
                   "{\"a\":3,\"v\":\"s\"}\n");
    expect_through("a:int, v:variant", TEXTIO_CSV, "a,v\n1,\"[true,{}]\"\n2,\n3,null\n", TEXTIO_CSV,
                   "a,v\r\n1,\"[true,{}]\"\r\n2,\r\n3,null\r\n");
}

/* ---- random batches: rendered, parsed back, identical ---- */

/* Makes generated values representable as text: times inside a day, NaNs
 * in their one canonical form (text carries no payload). */
static void sanitize(const struct lake_column *c, struct ArrowArray *a)
{
    for (size_t i = 0; i < c->nchildren; i++) {
        struct ArrowArray *k = c->type == LT_MAP    ? a->children[0]->children[i]
                               : c->type == LT_LIST ? a->children[0]
                                                    : a->children[i];
        sanitize(c->children[i], k);
    }
    uint8_t *v = (uint8_t *)a->buffers[a->n_buffers > 1 ? 1 : 0];
    for (int64_t i = 0; i < a->length; i++) {
        if (c->type == LT_TIME) {
            uint64_t t;
            memcpy(&t, v + i * 8, 8);
            t %= 86400000000ULL;
            memcpy(v + i * 8, &t, 8);
        } else if (c->type == LT_DOUBLE) {
            double d;
            memcpy(&d, v + i * 8, 8);
            if (isnan(d)) {
                d = NAN;
                memcpy(v + i * 8, &d, 8);
            }
        } else if (c->type == LT_FLOAT) {
            float f;
            memcpy(&f, v + i * 4, 4);
            if (isnan(f)) {
                f = NAN;
                memcpy(v + i * 4, &f, 4);
            }
        }
    }
}

static void random_round_trip(const char *columns, enum textio_format fmt, uint64_t seed)
{
    struct test_table tt;
    test_table_init(&tt, columns);
    struct rng g = {seed};
    struct gen_options o = {.null_per_mille = 150, .max_list_len = 3, .max_string_len = 10};
    struct ArrowSchema gs;
    struct ArrowArray batch;
    gen_batch(&tt.t, 400, &o, &g, &gs, &batch);
    gs.release(&gs);
    for (size_t i = 0; i < tt.t.root.nchildren; i++)
        sanitize(tt.t.root.children[i], batch.children[i]);

    /* Render the generated batch. */
    struct ArrowSchema schema;
    assert_int_equal(rows_table_arrow_schema(&tt.t, &schema), 0);
    struct textio_render *render;
    struct error err;
    if (textio_render_new(&schema, fmt, &render, &err) != 0)
        fail_msg("%s", err.msg);
    struct buf text = BUF_INIT;
    textio_render_header(render, &text);
    for (int64_t i = 0; i < batch.length; i++)
        if (textio_render_row(render, &batch, i, &text, &err) != 0)
            fail_msg("render: %s", err.msg);
    textio_render_free(render);

    /* Parse the text back and write it. */
    struct textio_parser *p;
    assert_int_equal(textio_parser_new(&tt.t, &p, &err), 0);
    if (feed(p, fmt, text.data, text.len, NULL, 0, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(textio_parser_pending(p), batch.length);
    struct ArrowSchema ps;
    struct ArrowArray parsed;
    assert_int_equal(textio_parser_take(p, &ps, &parsed, &err), 0);
    textio_parser_free(p);
    struct buf file = BUF_INIT;
    struct pq_write_result res;
    struct pq_write_options wo;
    pq_write_options_default(&wo);
    write_batches(&tt.t, &wo, &ps, &parsed, 1, &file, &res);
    /* The file holds exactly the generated values. */
    expect_file_equals(&tt.t, &file, &schema, &batch, 1);
    pq_write_result_release(&res);
    buf_free(&file);
    buf_free(&text);
    parsed.release(&parsed);
    ps.release(&ps);
    schema.release(&schema);
    batch.release(&batch);
    test_table_release(&tt);
}

static const char random_flat[] =
    "[{'name':'b','type':'boolean'},{'name':'i8','type':'int8'},{'name':'i16','type':'int16'},"
    "{'name':'i','type':'int'},{'name':'l','type':'long','nullable':false},"
    "{'name':'u8','type':'uint8'},{'name':'u16','type':'uint16'},{'name':'u32','type':'uint32'},"
    "{'name':'u64','type':'uint64'},{'name':'f','type':'float'},{'name':'d','type':'double'},"
    "{'name':'dec','type':'decimal','type_params':{'precision':38,'scale':7}},"
    "{'name':'dec0','type':'decimal','type_params':{'precision':18,'scale':0}},"
    "{'name':'dt','type':'date'},{'name':'tm','type':'time'},"
    "{'name':'ts','type':'timestamp_s'},{'name':'tms','type':'timestamp_ms'},"
    "{'name':'tus','type':'timestamp'},{'name':'tns','type':'timestamp_ns'},"
    "{'name':'tz','type':'timestamptz'},{'name':'s','type':'string'},"
    "{'name':'j','type':'json'},{'name':'u','type':'uuid'},{'name':'bin','type':'binary'}]";

static const char random_nested[] =
    "[{'name':'id','type':'long','nullable':false},"
    " {'name':'s','type':'struct','children':[{'name':'a','type':'int','nullable':false},"
    "   {'name':'l','type':'list','children':[{'name':'element','type':'struct','children':["
    "     {'name':'x','type':'double'},{'name':'m','type':'map','children':["
    "       {'name':'key','type':'string','nullable':false},{'name':'value','type':'uuid'}]}]}]}]},"
    " {'name':'mm','type':'map','children':[{'name':'key','type':'date','nullable':false},"
    "   {'name':'value','type':'list','children':[{'name':'element','type':'binary'}]}]},"
    " {'name':'ll','type':'list','nullable':false,'children':[{'name':'element','type':'list',"
    "   "
    "'children':[{'name':'element','type':'decimal','type_params':{'precision':9,'scale':3}}]}]}]";

static void random_jsonl(void **state)
{
    (void)state;
    random_round_trip(random_flat, TEXTIO_JSONL, 1);
    random_round_trip(random_nested, TEXTIO_JSONL, 2);
}

static void random_csv(void **state)
{
    (void)state;
    random_round_trip(random_flat, TEXTIO_CSV, 3);
    random_round_trip(random_nested, TEXTIO_CSV, 4);
}

/* ---- Parquet columns into other schema types ---- */

/* Writes rows (JSON Lines) under spec `from`, reads the file into spec
 * `to` through rows_adapt, writes that, and renders the result. Returns
 * NULL (with err) when adapting fails. */
static char *adapt_through(const char *from, const char *rows, const char *to, struct error *err)
{
    struct tbl a, b;
    tbl_init(&a, from);
    tbl_init(&b, to);
    struct buf file = BUF_INIT, file2 = BUF_INIT;
    text_to_parquet(&a.t, TEXTIO_JSONL, rows, 0, &file);
    struct pq_source src;
    pq_source_memory(&src, file.data, file.len);
    struct pq_reader *rd;
    struct error perr = {0};
    assert_int_equal(pq_reader_open(&src, &rd, &perr), 0);
    struct ArrowSchema fs, ws;
    assert_int_equal(pq_reader_arrow_schema(rd, &fs, &perr), 0);
    assert_int_equal(rows_table_arrow_schema(&b.t, &ws), 0);
    char *out = NULL;
    if (rows_adapt_check(&fs, &b.t, err) == 0) {
        struct pq_sink sink = {test_sink_buf_write, &file2};
        struct pq_writer *w;
        assert_int_equal(pq_writer_open(&b.t, NULL, &sink, &w, &perr), 0);
        bool ok = true;
        for (size_t g = 0; ok && g < pq_reader_meta(rd)->nrow_groups; g++) {
            struct ArrowArray rg;
            assert_int_equal(pq_reader_read_row_group(rd, g, &rg, &perr), 0);
            ok = rows_adapt_batch(&fs, &rg, &b.t, err) == 0;
            if (ok && pq_writer_write(w, &ws, &rg, &perr) != 0)
                fail_msg("write: %s", perr.msg);
            rg.release(&rg);
        }
        struct pq_write_result res;
        if (ok) {
            assert_int_equal(pq_writer_close(w, &res, &perr), 0);
            pq_write_result_release(&res);
            out = parquet_to_text(&file2, TEXTIO_JSONL);
        } else {
            pq_writer_free(w);
        }
    }
    ws.release(&ws);
    fs.release(&fs);
    pq_reader_free(rd);
    buf_free(&file);
    buf_free(&file2);
    tbl_free(&a);
    tbl_free(&b);
    return out;
}

static void adapt_conversions(void **state)
{
    (void)state;
    struct error err;
    char *got = adapt_through(
        "a:int, b:float, c:timestamp_ms, d:string, e:uint8, f:timestamptz, g:binary, "
        "s:struct<x:int8>, l:list<int16>, m:map<string,int>",
        "{\"a\":-5,\"b\":0.1,\"c\":\"1969-12-31T23:59:59.999\",\"d\":\"[1]\",\"e\":200,"
        "\"f\":\"2024-01-02T03:04:05.123456Z\",\"g\":\"aGk=\",\"s\":{\"x\":-1},\"l\":[1,null],"
        "\"m\":{\"k\":7}}\n"
        "{\"a\":null,\"b\":null,\"c\":null,\"d\":null,\"e\":null,\"f\":null,\"g\":null,\"s\":null,"
        "\"l\":null,\"m\":null}\n",
        "a:long, b:double, c:timestamp_ns, d:json, e:int16, f:timestamptz, g:string, "
        "s:struct<x:long>, l:list<int>, m:map<string,long>",
        &err);
    if (!got)
        fail_msg("%s", err.msg);
    assert_string_equal(got, "{\"a\":-5,\"b\":0.10000000149011612,"
                             "\"c\":\"1969-12-31T23:59:59.999000000\",\"d\":\"[1]\",\"e\":200,"
                             "\"f\":\"2024-01-02T03:04:05.123456Z\",\"g\":\"hi\","
                             "\"s\":{\"x\":-1},\"l\":[1,null],\"m\":{\"k\":7}}\n"
                             "{\"a\":null,\"b\":null,\"c\":null,\"d\":null,\"e\":null,\"f\":null,"
                             "\"g\":null,\"s\":null,\"l\":null,\"m\":null}\n");
    free(got);
    /* Narrowing is fine while values fit; exact unit changes too. */
    got = adapt_through("a:long, t:timestamp", "{\"a\":-128,\"t\":\"2024-01-02T03:04:05\"}\n",
                        "a:int8, t:timestamp_s", &err);
    if (!got)
        fail_msg("%s", err.msg);
    assert_string_equal(got, "{\"a\":-128,\"t\":\"2024-01-02T03:04:05.000\"}\n");
    free(got);

    struct {
        const char *from, *rows, *to, *needle;
    } bad[] = {
        {"a:long", "{\"a\":128}\n", "a:int8", "column 'a': value 128 does not fit a int8"},
        {"a:int", "{\"a\":-1}\n", "a:uint64", "column 'a': value -1 does not fit a uint64"},
        {"t:timestamp", "{\"t\":\"2024-01-02T03:04:05.5001\"}\n", "t:timestamp_ms",
         "column 't': value 1704164645500100 does not convert exactly to the column's "
         "millisecond unit"},
        {"d:string", "{\"d\":\"{x\"}\n", "d:json", "column 'd': value 0 is not valid JSON"},
        {"g:binary", "{\"g\":\"/w==\"}\n", "g:string", "column 'g': value 0 is not valid UTF-8"},
        {"t:timestamp", "{\"t\":null}\n", "t:timestamptz",
         "column 't': the input's values (Arrow 'tsu:') cannot be written as timestamptz"},
        {"d:double", "{\"d\":1}\n", "d:float", "cannot be written as float (Arrow 'f')"},
        {"s:struct<x:int>", "{\"s\":null}\n", "s:struct<y:int>",
         "column 's': field 0 is 'x' in the input, 'y' in the schema"},
        {"l:list<int>", "{\"l\":null}\n", "l:struct<x:int>", "the schema a struct of 1 fields"},
        {"x:decimal(10,2)", "{\"x\":1}\n", "x:decimal(10,3)",
         "the input's values (Arrow 'd:10,2') cannot be written as decimal"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        got = adapt_through(bad[i].from, bad[i].rows, bad[i].to, &err);
        if (got)
            fail_msg("%s -> %s accepted: %s", bad[i].from, bad[i].to, got);
        if (!strstr(err.msg, bad[i].needle))
            fail_msg("%s -> %s: '%s' lacks '%s'", bad[i].from, bad[i].to, err.msg, bad[i].needle);
        /* Compaction tells a column it cannot convert by this code. */
        assert_int_equal(err.code, ERR_INVALID);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(format_integers),
        cmocka_unit_test(format_floats),
        cmocka_unit_test(floats_read_back_exactly),
        cmocka_unit_test(shortest_without_printf),
        cmocka_unit_test(format_decimals),
        cmocka_unit_test(format_temporal),
        cmocka_unit_test(format_bytes),
        cmocka_unit_test(parse_integers),
        cmocka_unit_test(parse_floats),
        cmocka_unit_test(parse_decimals),
        cmocka_unit_test(parse_temporal),
        cmocka_unit_test(parse_other),
        cmocka_unit_test(json_reader),
        cmocka_unit_test(json_writer),
        cmocka_unit_test(schema_specs_and_field_ids),
        cmocka_unit_test(jsonl_round_trip_all_types),
        cmocka_unit_test(csv_round_trip_all_types),
        cmocka_unit_test(jsonl_round_trip_nested),
        cmocka_unit_test(csv_round_trip_nested),
        cmocka_unit_test(jsonl_normalised),
        cmocka_unit_test(row_errors),
        cmocka_unit_test(variant_text),
        cmocka_unit_test(random_jsonl),
        cmocka_unit_test(random_csv),
        cmocka_unit_test(adapt_conversions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

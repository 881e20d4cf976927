/* Pruning (src/expr): designed statistics for every operator, both the
 * decisions that prune and those that must not (NULLs, NaN, negation),
 * the scan plan's JSON statistics and Parquet row-group statistics as
 * inputs, and partition values through every transform. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "expr/expr.h"
#include "lake/bounds.h"
#include "lake/partition.h"
#include "pq_testlib.h"
#include "util/jsonnum.h"
#include "util/timefmt.h"

static const char columns[] =
    "[{'name':'i','type':'long'},{'name':'i2','type':'long'},{'name':'f','type':'double'},"
    "{'name':'fl','type':'float'},{'name':'s','type':'string'},{'name':'d','type':'date'},"
    "{'name':'ts','type':'timestamp'},{'name':'tss','type':'timestamp_s'},"
    "{'name':'dec','type':'decimal','type_params':{'precision':10,'scale':2}},"
    "{'name':'u64','type':'uint64'},{'name':'b','type':'boolean'},{'name':'u','type':'uuid'},"
    "{'name':'st','type':'struct','children':[{'name':'x','type':'int'}]},"
    "{'name':'tz','type':'timestamptz'},{'name':'tsn','type':'timestamp_ns'},"
    "{'name':'bin','type':'binary'},{'name':'tm','type':'time'},{'name':'i8','type':'int8'},"
    "{'name':'u32','type':'uint32'},{'name':'big','type':'decimal','type_params':"
    "{'precision':38,'scale':4}},{'name':'j','type':'json'}]";

static struct test_table tt;
static struct arena arena;

static int setup(void **state)
{
    (void)state;
    test_table_init(&tt, columns);
    arena_init(&arena, 0);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    arena_free(&arena);
    test_table_release(&tt);
    return 0;
}

static const struct lake_column *col(const char *path)
{
    struct error err;
    const struct lake_column *c = lake_table_find_path(&tt.t, path, &err);
    assert_non_null(c);
    return c;
}

/* Statistics of one column: bounds in bound_encode_text's conventions
 * (NULL: absent), counts (-1: unknown). */
static struct expr_field_stats stats(const char *path, const char *lo, const char *hi,
                                     int64_t nulls, int64_t values, int64_t nans)
{
    const struct lake_column *c = col(path);
    struct expr_field_stats s = {c->field_id, NULL, NULL, 0, 0, values, nulls, nans};
    const char *texts[2] = {lo, hi};
    for (int k = 0; k < 2; k++) {
        if (!texts[k])
            continue;
        struct buf b = BUF_INIT;
        struct error err;
        if (bound_encode_text(c->type, c->precision, c->scale, texts[k], strlen(texts[k]), &b,
                              &err) != 0)
            fail_msg("bound '%s': %s", texts[k], err.msg);
        uint8_t *bytes = arena_alloc(&arena, b.len + 1);
        memcpy(bytes, b.data ? b.data : "", b.len);
        if (k == 0)
            s.lower = bytes, s.lower_len = b.len;
        else
            s.upper = bytes, s.upper_len = b.len;
        buf_free(&b);
    }
    return s;
}

static struct expr_pred *pred(const char *text)
{
    struct expr_pred *p;
    struct error err;
    if (expr_compile_predicate(&arena, &tt.t, text, strlen(text), &p, &err) != 0)
        fail_msg("'%s': %s", text, err.msg);
    return p;
}

static bool may(const char *text, const struct expr_field_stats *s, size_t n)
{
    return expr_pred_may_match(pred(text), s, n);
}

#define PRUNED(text, s) assert_false(may(text, s, sizeof(s) / sizeof *(s)))
#define KEPT(text, s) assert_true(may(text, s, sizeof(s) / sizeof *(s)))

static void test_ranges(void **state)
{
    (void)state;
    struct expr_field_stats s[] = {stats("i", "10", "20", 0, 100, -1)};
    PRUNED("i = 5", s);
    KEPT("i = 10", s);
    KEPT("i = 15", s);
    KEPT("i = 20", s);
    PRUNED("i = 21", s);
    KEPT("i != 15", s);
    PRUNED("i < 10", s);
    KEPT("i < 11", s);
    KEPT("i <= 10", s);
    PRUNED("i <= 9", s);
    PRUNED("i > 20", s);
    KEPT("i > 19", s);
    KEPT("i >= 20", s);
    PRUNED("i >= 21", s);
    PRUNED("5 > i", s);
    KEPT("25 > i", s);
    PRUNED("i IN (1, 2, 30)", s);
    KEPT("i IN (1, 15)", s);
    KEPT("i IN (1, NULL, 15)", s);
    PRUNED("i IN (NULL)", s);
    KEPT("i NOT IN (15)", s);
    PRUNED("i BETWEEN 21 AND 30", s);
    PRUNED("i BETWEEN 0 AND 9", s);
    KEPT("i BETWEEN 5 AND 10", s);
    PRUNED("i NOT BETWEEN 10 AND 20", s);
    PRUNED("i NOT BETWEEN 5 AND 25", s);
    KEPT("i NOT BETWEEN 11 AND 20", s);
    PRUNED("i IS NULL", s);
    KEPT("i IS NOT NULL", s);
    PRUNED("i = NULL", s);
    /* AND, OR, NOT. */
    KEPT("i = 5 OR i = 15", s);
    PRUNED("i = 5 OR i = 25", s);
    PRUNED("i = 15 AND i = 25", s);
    KEPT("i = 15 AND s = 'x'", s);
    PRUNED("i = 25 AND s = 'x'", s);
    KEPT("i = 25 OR s = 'x'", s);
    KEPT("NOT (i < 10)", s);
    PRUNED("NOT (i <= 20)", s);
    PRUNED("NOT (i >= 10)", s);
    KEPT("NOT (i = 5 OR i = 25)", s);
    PRUNED("NOT (i >= 10 OR i2 = 1)", s);
    PRUNED("NOT NOT (i > 20)", s);
    /* Columns against columns: nothing to say. */
    KEPT("i < i2", s);
    PRUNED("i < i2 AND i > 30", s);
    /* A column without statistics. */
    KEPT("i2 = 1", s);
    KEPT("FALSE OR i2 = 1", s);
    PRUNED("FALSE", s);
}

static void test_equal_bounds(void **state)
{
    (void)state;
    struct expr_field_stats s[] = {stats("i", "15", "15", 0, 100, -1)};
    PRUNED("i != 15", s);
    KEPT("i != 16", s);
    PRUNED("NOT i = 15", s);
    PRUNED("i NOT IN (14, 15)", s);
    KEPT("i NOT IN (14, 16)", s);
    PRUNED("NOT (i IN (15))", s);
    /* With nulls: still no row != 15. */
    struct expr_field_stats n[] = {stats("i", "15", "15", 3, 100, -1)};
    PRUNED("i != 15", n);
    KEPT("i IS NULL", n);
    KEPT("i IS NULL OR i != 15", n);
}

static void test_nulls_and_missing(void **state)
{
    (void)state;
    struct expr_field_stats all_null[] = {stats("i", NULL, NULL, 100, 100, -1)};
    PRUNED("i = 5", all_null);
    PRUNED("NOT (i = 5)", all_null);
    PRUNED("i IN (1, 2)", all_null);
    PRUNED("i NOT IN (1, 2)", all_null);
    PRUNED("i IS NOT NULL", all_null);
    KEPT("i IS NULL", all_null);
    PRUNED("i BETWEEN 1 AND 2", all_null);
    struct expr_field_stats some_null[] = {stats("i", "10", "20", 5, 100, -1)};
    KEPT("i IS NULL", some_null);
    KEPT("i IS NOT NULL", some_null);
    struct expr_field_stats unknown[] = {stats("i", "10", "20", -1, -1, -1)};
    KEPT("i IS NULL", unknown);
    KEPT("i IS NOT NULL", unknown);
    PRUNED("i > 20", unknown);
    struct expr_field_stats no_lower[] = {stats("i", NULL, "20", 0, 100, -1)};
    KEPT("i < -1000", no_lower);
    PRUNED("i > 20", no_lower);
    KEPT("i != 20", no_lower);
    struct expr_field_stats no_upper[] = {stats("i", "10", NULL, 0, 100, -1)};
    KEPT("i > 1000", no_upper);
    PRUNED("i < 10", no_upper);
    struct expr_field_stats none[] = {stats("i2", "1", "1", 0, 1, -1)};
    KEPT("i = 5", none);
    assert_true(expr_pred_may_match(pred("i = 5"), NULL, 0));
}

static void test_floats(void **state)
{
    (void)state;
    struct expr_field_stats no_nan[] = {stats("f", "1.0", "2.0", 0, 100, 0)};
    PRUNED("f > 2", no_nan);
    KEPT("f >= 2", no_nan);
    PRUNED("f = 'NaN'", no_nan);
    KEPT("f != 1.5", no_nan);
    PRUNED("NOT (f <= 2)", no_nan);
    PRUNED("f < 1", no_nan);
    PRUNED("f IN ('NaN', 3)", no_nan);
    /* NaN sorts above every bound: unknown or positive NaN counts keep the
     * tests NaN can pass. */
    for (int64_t nans = -1; nans <= 1; nans += 2) {
        struct expr_field_stats maybe_nan[] = {stats("f", "1.0", "2.0", 0, 100, nans)};
        KEPT("f > 2", maybe_nan);
        KEPT("f = 'NaN'", maybe_nan);
        KEPT("NOT (f <= 2)", maybe_nan);
        KEPT("f IN ('NaN', 3)", maybe_nan);
        KEPT("f >= 'Infinity'", maybe_nan);
        PRUNED("f < 1", maybe_nan);
        PRUNED("f = 3", maybe_nan);
        struct expr_field_stats one[] = {stats("f", "1.5", "1.5", 0, 100, nans)};
        KEPT("f != 1.5", one);
        KEPT("NOT (f = 1.5)", one);
    }
    struct expr_field_stats one[] = {stats("f", "1.5", "1.5", 0, 100, 0)};
    PRUNED("f != 1.5", one);
    /* Zeros: -0.0 equals 0.0. */
    struct expr_field_stats zeros[] = {stats("f", "-0.0", "0.0", 0, 100, 0)};
    KEPT("f = 0", zeros);
    KEPT("f = -0.0", zeros);
    PRUNED("f < 0", zeros);
    PRUNED("f > 0", zeros);
    PRUNED("f != 0", zeros);
    struct expr_field_stats inf[] = {stats("f", "-Infinity", "Infinity", 0, 100, 0)};
    KEPT("f = 'Infinity'", inf);
    PRUNED("f = 'NaN'", inf);
    struct expr_field_stats fl[] = {stats("fl", "0.5", "0.75", 0, 10, 0)};
    PRUNED("fl > 0.75", fl);
    KEPT("fl = 0.5", fl);
    PRUNED("fl = 0.1", fl);
}

static void test_types(void **state)
{
    (void)state;
    struct expr_field_stats s[] = {
        stats("s", "apple", "banana", 0, 10, -1),
        stats("d", "20454", "20484", 0, 10, -1), /* 2026-01-01 .. 2026-01-31 */
        stats("ts", "1767225600000000", "1767311999999999", 0, 10, -1), /* that first day */
        stats("tss", "1767225600000000", "1767225600000000", 0, 10, -1),
        stats("dec", "100", "200", 0, 10, -1),
        stats("u64", "0", "5", 0, 10, -1),
        stats("b", "true", "true", 0, 10, -1),
        stats("u", "00000000-0000-0000-0000-000000000010", "00000000-0000-0000-0000-000000000020",
              0, 10, -1),
        stats("st.x", "1", "3", 0, 10, -1),
        stats("tz", "1767225600000000", "1767225600000000", 0, 10, -1),
        stats("tsn", "1767225600000000000", "1767225600000000001", 0, 10, -1),
        stats("bin", "AAE=", "AP8=", 0, 10, -1),
        stats("tm", "3600000000", "7200000000", 0, 10, -1),
        stats("i8", "-5", "5", 0, 10, -1),
        stats("u32", "4000000000", "4294967295", 0, 10, -1),
        stats("big", "-12345", "99999999999999999999999999999999999999", 0, 10, -1),
        stats("j", "[]", "{}", 0, 10, -1),
    };
    PRUNED("s = 'cherry'", s);
    PRUNED("s < 'apple'", s);
    KEPT("s <= 'apple'", s);
    KEPT("s >= 'banana'", s);
    PRUNED("s IN ('a', 'zz')", s);
    KEPT("s = 'b'", s);
    PRUNED("d = '2025-12-31'", s);
    PRUNED("d >= '2026-02-01'", s);
    KEPT("d BETWEEN '2026-01-31' AND '2026-03-01'", s);
    PRUNED("ts >= '2026-01-02'", s);
    KEPT("ts >= '2026-01-01 23:59:59.999999'", s);
    PRUNED("ts < '2026-01-01'", s);
    KEPT("ts BETWEEN '2025-01-01' AND '2026-01-01'", s);
    /* Seconds are bounded in microseconds. */
    PRUNED("tss = '2026-01-01 00:00:01'", s);
    KEPT("tss = '2026-01-01 00:00:00'", s);
    PRUNED("tz > '2026-01-01T01:00:00+01:00'", s);
    KEPT("tz >= '2026-01-01T01:00:00+01:00'", s);
    PRUNED("tsn > '2026-01-01 00:00:00.000000001'", s);
    KEPT("tsn = '2026-01-01 00:00:00.000000001'", s);
    PRUNED("dec = 2.5", s);
    KEPT("dec <= 1", s);
    PRUNED("dec < 1", s);
    PRUNED("u64 > 9223372036854775808", s);
    KEPT("u64 IN (5, 18446744073709551615)", s);
    KEPT("b", s);
    PRUNED("NOT b", s);
    PRUNED("b = FALSE", s);
    PRUNED("u = '00000000-0000-0000-0000-000000000009'", s);
    KEPT("u > '00000000-0000-0000-0000-00000000001f'", s);
    PRUNED("st.x > 3", s);
    KEPT("st IS NULL", s);
    PRUNED("bin < X'0001'", s);
    KEPT("bin = X'0042'", s);
    PRUNED("tm < '01:00'", s);
    KEPT("tm BETWEEN '01:30' AND '01:31'", s);
    PRUNED("i8 = -6", s);
    PRUNED("u32 < 4000000000", s);
    KEPT("u32 = 4294967295", s);
    PRUNED("big < -1.2346", s);
    KEPT("big <= -1.2345", s);
    PRUNED("j = '}'", s);
    KEPT("j = 'x'", s);
}

/* ---- the scan plan's JSON ---- */

/* A bound as the server renders it. */
static json_t *rendered(const struct lake_column *c, const char *value)
{
    struct buf b = BUF_INIT;
    struct error err;
    assert_int_equal(
        bound_encode_text(c->type, c->precision, c->scale, value, strlen(value), &b, &err), 0);
    json_t *j =
        bound_to_json(c->type, c->precision, c->scale, (const uint8_t *)b.data, b.len, &err);
    assert_non_null(j);
    buf_free(&b);
    return j;
}

static void expect_bytes(const struct lake_column *c, const uint8_t *got, size_t n,
                         const char *value)
{
    struct buf b = BUF_INIT;
    struct error err;
    assert_int_equal(
        bound_encode_text(c->type, c->precision, c->scale, value, strlen(value), &b, &err), 0);
    if (!got || n != b.len || memcmp(got, b.data ? b.data : "", n) != 0)
        fail_msg("column %s: the bound of '%s' did not come back", c->name, value);
    buf_free(&b);
}

static void test_json_stats(void **state)
{
    (void)state;
    /* Every type's bounds, rendered by bound_to_json, come back as the
     * same bytes. */
    static const struct {
        const char *path, *lo, *hi;
    } cases[] = {
        {"i", "-9223372036854775808", "9223372036854775807"},
        {"f", "-1.5", "1e300"},
        {"f", "-Infinity", "Infinity"},
        {"s", "", "\xc3\xa9t\xc3\xa9"},
        {"d", "-719162", "2932896"},
        {"ts", "-62135596800000000", "253402300799999999"},
        {"ts", "1767225600000000", "1767225600000001"},
        {"tss", "-1000000", "1767225600000000"},
        {"dec", "-9999999999", "9999999999"},
        {"dec", "5", "-5"},
        {"u64", "0", "18446744073709551615"},
        {"b", "false", "true"},
        {"u", "00000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff"},
        {"st.x", "-2147483648", "2147483647"},
        {"tz", "-1", "1767225600123456"},
        {"tsn", "-9223372036854775808", "1767225600000000001"},
        {"bin", "", "AP8A/w=="},
        {"tm", "0", "86399999999"},
        {"i8", "-128", "127"},
        {"u32", "0", "4294967295"},
        {"big", "-99999999999999999999999999999999999999", "1"},
        {"j", "{\"a\":1}", "null"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        const struct lake_column *c = col(cases[k].path);
        json_t *entry =
            json_pack("{s:I,s:i,s:i,s:o,s:o}", "field_id", (json_int_t)c->field_id, "value_count",
                      10, "null_count", 1, "lower_bound", rendered(c, cases[k].lo), "upper_bound",
                      rendered(c, cases[k].hi));
        json_t *all = json_pack("[o]", entry);
        struct expr_field_stats *s;
        size_t n;
        struct error err;
        if (expr_stats_from_json(&tt.t, all, &arena, &s, &n, &err) != 0)
            fail_msg("%s: %s", c->name, err.msg);
        assert_int_equal(n, 1);
        assert_int_equal(s[0].field_id, c->field_id);
        assert_int_equal(s[0].value_count, 10);
        assert_int_equal(s[0].null_count, 1);
        assert_int_equal(s[0].nan_count, -1);
        expect_bytes(c, s[0].lower, s[0].lower_len, cases[k].lo);
        expect_bytes(c, s[0].upper, s[0].upper_len, cases[k].hi);
        json_decref(all);
    }
}

static struct expr_field_stats one_from_json(const char *json_text)
{
    json_error_t jerr;
    json_t *all = json_loads(json_text, 0, &jerr);
    if (!all)
        fail_msg("%s: %s", json_text, jerr.text);
    struct expr_field_stats *s;
    size_t n;
    struct error err;
    if (expr_stats_from_json(&tt.t, all, &arena, &s, &n, &err) != 0)
        fail_msg("%s: %s", json_text, err.msg);
    assert_int_equal(n, 1);
    json_decref(all);
    return s[0];
}

static void test_json_forms(void **state)
{
    (void)state;
    char text[512];
    int64_t fid_f = col("f")->field_id, fid_fl = col("fl")->field_id,
            fid_dec = col("dec")->field_id, fid_big = col("big")->field_id,
            fid_i = col("i")->field_id, fid_ts = col("ts")->field_id, fid_tz = col("tz")->field_id,
            fid_tm = col("tm")->field_id;
    /* Decimals read by jansson as reals come back exactly up to 15 digits. */
    snprintf(text, sizeof text,
             "[{\"field_id\":%lld,\"value_count\":5,\"null_count\":0,\"lower_bound\":-12.5,"
             "\"upper_bound\":99999999.99,\"nan_count\":0}]",
             (long long)fid_dec);
    struct expr_field_stats s = one_from_json(text);
    expect_bytes(col("dec"), s.lower, s.lower_len, "-1250");
    expect_bytes(col("dec"), s.upper, s.upper_len, "9999999999");
    assert_int_equal(s.nan_count, 0);
    /* ... beyond that the bound is dropped, not guessed. */
    snprintf(text, sizeof text,
             "[{\"field_id\":%lld,\"value_count\":5,\"null_count\":0,\"lower_bound\":-12.5,"
             "\"upper_bound\":null}]",
             (long long)fid_big);
    s = one_from_json(text);
    assert_null(s.lower);
    assert_null(s.upper);
    /* Integers above 2^53 as reals likewise; below, exactly. */
    snprintf(text, sizeof text,
             "[{\"field_id\":%lld,\"value_count\":5,\"null_count\":0,\"lower_bound\":1e300,"
             "\"upper_bound\":4096.0}]",
             (long long)fid_i);
    s = one_from_json(text);
    assert_null(s.lower);
    expect_bytes(col("i"), s.upper, s.upper_len, "4096");
    /* A float bound that came through a double widens one step outward. */
    snprintf(text, sizeof text,
             "[{\"field_id\":%lld,\"value_count\":5,\"null_count\":0,\"lower_bound\":0.1,"
             "\"upper_bound\":0.1}]",
             (long long)fid_fl);
    s = one_from_json(text);
    float lo, hi;
    memcpy(&lo, s.lower, 4);
    memcpy(&hi, s.upper, 4);
    assert_true(lo == nextafterf(0.1f, -INFINITY));
    assert_true(hi == nextafterf(0.1f, INFINITY));
    /* A double is taken as it is; strings for the infinities. */
    snprintf(text, sizeof text,
             "[{\"field_id\":%lld,\"value_count\":5,\"null_count\":0,\"lower_bound\":\"-Infinity\","
             "\"upper_bound\":0.1}]",
             (long long)fid_f);
    s = one_from_json(text);
    expect_bytes(col("f"), s.lower, s.lower_len, "-Infinity");
    expect_bytes(col("f"), s.upper, s.upper_len, "0.1");
    /* LocalDateTime without seconds, Instant with Z, LocalTime HH:MM. */
    snprintf(text, sizeof text,
             "[{\"field_id\":%lld,\"value_count\":1,\"null_count\":0,\"lower_bound\":"
             "\"2026-01-01T00:00\",\"upper_bound\":\"+10000-01-01T00:00:00.5\"}]",
             (long long)fid_ts);
    s = one_from_json(text);
    expect_bytes(col("ts"), s.lower, s.lower_len, "1767225600000000");
    expect_bytes(col("ts"), s.upper, s.upper_len, "253402300800500000");
    snprintf(text, sizeof text,
             "[{\"field_id\":%lld,\"value_count\":1,\"null_count\":0,\"lower_bound\":"
             "\"1969-12-31T23:59:59.999999Z\",\"upper_bound\":\"bogus\"}]",
             (long long)fid_tz);
    s = one_from_json(text);
    expect_bytes(col("tz"), s.lower, s.lower_len, "-1");
    assert_null(s.upper);
    snprintf(text, sizeof text,
             "[{\"field_id\":%lld,\"value_count\":1,\"null_count\":0,\"lower_bound\":\"01:00\","
             "\"upper_bound\":\"23:59:59.999\"}]",
             (long long)fid_tm);
    s = one_from_json(text);
    expect_bytes(col("tm"), s.lower, s.lower_len, "3600000000");
    expect_bytes(col("tm"), s.upper, s.upper_len, "86399999000");
    /* A NaN never bounds. */
    snprintf(text, sizeof text,
             "[{\"field_id\":%lld,\"value_count\":1,\"null_count\":0,\"lower_bound\":\"NaN\","
             "\"upper_bound\":\"NaN\"}]",
             (long long)fid_f);
    s = one_from_json(text);
    assert_null(s.lower);
    assert_null(s.upper);
    /* Unknown fields are skipped; counts may be absent. */
    json_t *all = json_loads("[{\"field_id\":999999,\"value_count\":1,\"null_count\":0},"
                             "{\"field_id\":1}]",
                             0, NULL);
    struct expr_field_stats *list;
    size_t n;
    struct error err;
    assert_int_equal(expr_stats_from_json(&tt.t, all, &arena, &list, &n, &err), 0);
    assert_int_equal(n, 1);
    assert_int_equal(list[0].value_count, -1);
    assert_int_equal(list[0].null_count, -1);
    json_decref(all);
    /* A raw number (util/jsonnum.h) keeps a uint64 and a 38-digit decimal exact. */
    all = json_pack("[{s:I,s:i,s:i,s:o,s:o}]", "field_id", (json_int_t)col("u64")->field_id,
                    "value_count", 1, "null_count", 0, "lower_bound",
                    jsonnum_new("18446744073709551614", 20), "upper_bound",
                    jsonnum_new("18446744073709551615", 20));
    assert_int_equal(expr_stats_from_json(&tt.t, all, &arena, &list, &n, &err), 0);
    expect_bytes(col("u64"), list[0].lower, list[0].lower_len, "18446744073709551614");
    expect_bytes(col("u64"), list[0].upper, list[0].upper_len, "18446744073709551615");
    json_decref(all);
    /* Malformed entries. */
    static const char *const bad[] = {
        "{}",
        "[1]",
        "[{\"value_count\":1}]",
        "[{\"field_id\":\"1\"}]",
        "[{\"field_id\":1,\"null_count\":-1}]",
        "[{\"field_id\":1,\"value_count\":\"3\"}]",
    };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        all = json_loads(bad[k], 0, NULL);
        assert_non_null(all);
        assert_int_equal(expr_stats_from_json(&tt.t, all, &arena, &list, &n, &err), -1);
        assert_int_equal(err.code, ERR_MALFORMED);
        json_decref(all);
    }
}

/* ---- Parquet row groups ---- */

static void test_row_groups(void **state)
{
    (void)state;
    struct test_table t2;
    test_table_init(&t2, "[{'name':'v','type':'long'},{'name':'w','type':'string'},"
                         "{'name':'g','type':'double'}]");
    struct gen_options go = {0};
    struct rng g = {42};
    struct ArrowSchema schema;
    struct ArrowArray batch;
    gen_batch(&t2.t, 30, &go, &g, &schema, &batch);
    /* v = row number, w = 'r' + row number / 10, g NaN in row 25. */
    int64_t *v = (int64_t *)(uintptr_t)batch.children[0]->buffers[1];
    double *gv = (double *)(uintptr_t)batch.children[2]->buffers[1];
    for (int r = 0; r < 30; r++) {
        v[r] = r;
        gv[r] = r == 25 ? (double)NAN : (double)r;
    }
    for (int c = 0; c < 3; c += 2) {
        uint8_t *valid = (uint8_t *)(uintptr_t)batch.children[c]->buffers[0];
        if (valid)
            memset(valid, 0xff, 4);
        batch.children[c]->null_count = 0;
    }
    struct pq_write_options o;
    pq_write_options_default(&o);
    o.row_group_rows = 10;
    struct buf file = BUF_INIT;
    struct pq_write_result res;
    write_batches(&t2.t, &o, &schema, &batch, 1, &file, &res);
    assert_int_equal(res.meta.nrow_groups, 3);
    struct arena a;
    arena_init(&a, 0);
    struct error err;
    struct expr_pred *p_hi, *p_lo, *p_g;
    assert_int_equal(expr_compile_predicate(&a, &t2.t, "v >= 15", 7, &p_hi, &err), 0);
    assert_int_equal(expr_compile_predicate(&a, &t2.t, "v < 10", 6, &p_lo, &err), 0);
    assert_int_equal(expr_compile_predicate(&a, &t2.t, "g > 29", 6, &p_g, &err), 0);
    bool want_hi[3] = {false, true, true}, want_lo[3] = {true, false, false};
    for (size_t rg = 0; rg < 3; rg++) {
        struct expr_field_stats *s;
        size_t n;
        assert_int_equal(
            expr_stats_from_row_group(&t2.t, &res.meta, &res.schema, rg, &a, &s, &n, &err), 0);
        assert_int_equal(n, 3);
        assert_int_equal(s[0].field_id, t2.t.root.children[0]->field_id);
        assert_int_equal(s[0].value_count, 10);
        assert_int_equal(s[0].nan_count, -1);
        int64_t lo, hi;
        memcpy(&lo, s[0].lower, 8);
        memcpy(&hi, s[0].upper, 8);
        assert_int_equal(lo, (int64_t)rg * 10);
        assert_int_equal(hi, (int64_t)rg * 10 + 9);
        assert_int_equal(expr_pred_may_match(p_hi, s, n), want_hi[rg]);
        assert_int_equal(expr_pred_may_match(p_lo, s, n), want_lo[rg]);
        /* No NaN counts in a footer: a float's upper side never prunes. */
        assert_true(expr_pred_may_match(p_g, s, n));
    }
    struct expr_field_stats *s;
    size_t n;
    assert_int_equal(expr_stats_from_row_group(&t2.t, &res.meta, &res.schema, 3, &a, &s, &n, &err),
                     -1);
    assert_int_equal(err.code, ERR_INVALID);
    arena_free(&a);
    pq_write_result_release(&res);
    buf_free(&file);
    schema.release(&schema);
    batch.release(&batch);
    test_table_release(&t2);
}

/* ---- partitions ---- */

/* The wire string of transform tr applied to a value of type src. */
static const char *wire_at(enum lake_transform tr, int32_t param, enum lake_type src, int scale,
                           struct lake_value in)
{
    struct lake_value out;
    struct error err;
    if (lake_partition_apply(tr, param, src, &in, &out, &err) != 0)
        fail_msg("apply: %s", err.msg);
    struct buf b = BUF_INIT;
    assert_int_equal(
        lake_partition_render(lake_partition_result_type(tr, src), scale, &out, &b, &err), 0);
    char *s = arena_strdup(&arena, b.data);
    buf_free(&b);
    return s;
}

static const char *wire(enum lake_transform tr, int32_t param, enum lake_type src,
                        struct lake_value in)
{
    return wire_at(tr, param, src, 0, in);
}

static struct lake_value micros(const char *iso)
{
    struct lake_value v = {0};
    assert_true(time_parse_iso8601(iso, &v.i));
    return v;
}

static struct lake_value integer(int64_t i)
{
    struct lake_value v = {0};
    v.i = i;
    return v;
}

static struct lake_value bytes(const char *s)
{
    struct lake_value v = {0};
    v.bytes.data = (const uint8_t *)s;
    v.bytes.len = strlen(s);
    return v;
}

static bool may_part(const char *text, const struct lake_partition_field *spec, size_t n,
                     const char *const *values)
{
    return expr_pred_may_match_partition(pred(text), spec, n, values, n);
}

#define PART_PRUNED(text, f, v) assert_false(may_part(text, f, 1, v))
#define PART_KEPT(text, f, v) assert_true(may_part(text, f, 1, v))

static void test_partition_identity(void **state)
{
    (void)state;
    struct lake_partition_field f[] = {{col("i")->field_id, LTR_IDENTITY, 0}};
    const char *v[] = {"42"};
    PART_KEPT("i = 42", f, v);
    PART_PRUNED("i = 43", f, v);
    PART_PRUNED("i > 42", f, v);
    PART_KEPT("i >= 42", f, v);
    PART_KEPT("i IN (1, 42)", f, v);
    PART_PRUNED("i IN (1, 43)", f, v);
    PART_PRUNED("i NOT IN (42)", f, v);
    PART_KEPT("i NOT IN (41)", f, v);
    PART_PRUNED("i != 42", f, v);
    PART_PRUNED("NOT (i = 42)", f, v);
    PART_PRUNED("i IS NULL", f, v);
    PART_KEPT("i IS NOT NULL", f, v);
    PART_KEPT("i2 = 5", f, v);
    PART_KEPT("i = 43 OR i2 = 5", f, v);
    PART_PRUNED("i = 43 AND i2 = 5", f, v);
    PART_KEPT("i < i2", f, v);
    /* A null partition value: the column is null in every row. */
    const char *null_value[] = {NULL};
    PART_PRUNED("i = 42", f, null_value);
    PART_PRUNED("NOT (i = 1)", f, null_value);
    PART_PRUNED("i IN (1, 2)", f, null_value);
    PART_KEPT("i IS NULL", f, null_value);
    PART_PRUNED("i IS NOT NULL", f, null_value);
    PART_PRUNED("i < i2", f, null_value);
    PART_PRUNED("i2 > i", f, null_value);
    /* Values that do not parse, counts that do not match: maybe. */
    const char *bad[] = {"forty-two"};
    PART_KEPT("i = 43", f, bad);
    assert_true(expr_pred_may_match_partition(pred("i = 43"), f, 1, v, 0));
    /* Other types' wire strings. */
    struct lake_partition_field fs[] = {{col("s")->field_id, LTR_IDENTITY, 0}};
    const char *sv[] = {"apple"};
    PART_KEPT("s = 'apple'", fs, sv);
    PART_PRUNED("s > 'apple'", fs, sv);
    struct lake_partition_field fts[] = {{col("ts")->field_id, LTR_IDENTITY, 0}};
    const char *tsv[] = {"2026-01-02T03:04:05.123456"};
    PART_KEPT("ts = '2026-01-02 03:04:05.123456'", fts, tsv);
    PART_PRUNED("ts < '2026-01-02'", fts, tsv);
    struct lake_partition_field ftz[] = {{col("tz")->field_id, LTR_IDENTITY, 0}};
    const char *tzv[] = {"2026-01-02T03:04:05+00:00"};
    PART_KEPT("tz = '2026-01-02T04:04:05+01:00'", ftz, tzv);
    PART_PRUNED("tz > '2026-01-02T03:04:05Z'", ftz, tzv);
    struct lake_partition_field fns[] = {{col("tsn")->field_id, LTR_IDENTITY, 0}};
    const char *nsv[] = {"1767225600000000001"};
    PART_KEPT("tsn = '2026-01-01 00:00:00.000000001'", fns, nsv);
    PART_PRUNED("tsn = '2026-01-01 00:00:00'", fns, nsv);
    struct lake_partition_field fdec[] = {{col("dec")->field_id, LTR_IDENTITY, 0}};
    const char *decv[] = {"1.5E+1"};
    PART_KEPT("dec = 15", fdec, decv);
    PART_PRUNED("dec = 15.01", fdec, decv);
    struct lake_partition_field fb[] = {{col("b")->field_id, LTR_IDENTITY, 0}};
    const char *bv[] = {"false"};
    PART_PRUNED("b", fb, bv);
    PART_KEPT("NOT b", fb, bv);
    struct lake_partition_field ff[] = {{col("f")->field_id, LTR_IDENTITY, 0}};
    const char *fv[] = {"nan"};
    PART_KEPT("f = 'NaN'", ff, fv);
    PART_KEPT("f > 1e308", ff, fv);
    PART_PRUNED("f < 0", ff, fv);
    struct lake_partition_field fu[] = {{col("u")->field_id, LTR_IDENTITY, 0}};
    const char *uv[] = {"00000000-0000-0000-0000-0000000000ff"};
    PART_KEPT("u = '00000000-0000-0000-0000-0000000000FF'", fu, uv);
    PART_PRUNED("u < '00000000-0000-0000-0000-0000000000ff'", fu, uv);
    struct lake_partition_field fbin[] = {{col("bin")->field_id, LTR_IDENTITY, 0}};
    const char *binv[] = {"AP8="};
    PART_KEPT("bin = X'00FF'", fbin, binv);
    PART_PRUNED("bin = X'00'", fbin, binv);
}

static void test_partition_temporal(void **state)
{
    (void)state;
    int64_t ts = col("ts")->field_id;
    struct lake_value mid_jan = micros("2026-01-15T10:30:00Z");
    struct lake_partition_field day[] = {{ts, LTR_DAY, 0}};
    const char *dv[] = {wire(LTR_DAY, 0, LT_TIMESTAMP, mid_jan)};
    PART_PRUNED("ts >= '2026-01-16'", day, dv);
    PART_KEPT("ts >= '2026-01-15 23:00'", day, dv);
    PART_KEPT("ts < '2026-01-15 00:00:01'", day, dv);
    PART_PRUNED("ts < '2026-01-14 23:59:59'", day, dv);
    /* A strict bound at a transform's edge: the day before, the day after. */
    PART_PRUNED("ts < '2026-01-15'", day, dv);
    PART_KEPT("ts < '2026-01-15 00:00:00.000001'", day, dv);
    PART_PRUNED("ts > '2026-01-15 23:59:59.999999'", day, dv);
    PART_KEPT("ts > '2026-01-15 23:59:59.999998'", day, dv);
    PART_KEPT("ts = '2026-01-15 12:00'", day, dv);
    PART_PRUNED("ts = '2026-01-16 00:00'", day, dv);
    PART_PRUNED("ts BETWEEN '2026-01-01' AND '2026-01-10'", day, dv);
    PART_KEPT("ts IN ('2026-01-15 01:00', '2026-02-01')", day, dv);
    PART_PRUNED("ts IN ('2026-02-01')", day, dv);
    PART_KEPT("ts != '2026-01-15 10:30'", day, dv);
    PART_KEPT("ts NOT IN ('2026-01-15 10:30')", day, dv);
    PART_PRUNED("NOT (ts < '2026-01-16')", day, dv);
    PART_KEPT("ts IS NOT NULL", day, dv);
    PART_PRUNED("ts IS NULL", day, dv);
    struct lake_partition_field month[] = {{ts, LTR_MONTH, 0}};
    const char *mv[] = {wire(LTR_MONTH, 0, LT_TIMESTAMP, mid_jan)};
    PART_PRUNED("ts >= '2026-02-01'", month, mv);
    PART_KEPT("ts < '2026-01-31'", month, mv);
    PART_PRUNED("ts < '2025-12-31'", month, mv);
    struct lake_partition_field hour[] = {{ts, LTR_HOUR, 0}};
    const char *hv[] = {wire(LTR_HOUR, 0, LT_TIMESTAMP, mid_jan)};
    PART_KEPT("ts = '2026-01-15 10:59:59'", hour, hv);
    PART_PRUNED("ts = '2026-01-15 11:30'", hour, hv);
    /* Before 1970 the transforms floor. */
    const char *before[] = {wire(LTR_DAY, 0, LT_TIMESTAMP, micros("1969-12-31T23:00:00Z"))};
    assert_string_equal(before[0], "-1");
    PART_PRUNED("ts >= '1970-01-01'", day, before);
    PART_KEPT("ts >= '1969-12-31 22:00'", day, before);
    /* year of a date. */
    struct lake_partition_field year[] = {{col("d")->field_id, LTR_YEAR, 0}};
    const char *yv[] = {wire(LTR_YEAR, 0, LT_DATE, integer(time_days_from_civil(2026, 6, 1)))};
    assert_string_equal(yv[0], "56");
    PART_KEPT("d < '2026-01-02'", year, yv);
    PART_PRUNED("d < '2025-06-01'", year, yv);
    PART_PRUNED("d < '2026-01-01'", year, yv);
    PART_PRUNED("d > '2026-12-31'", year, yv);
    PART_KEPT("d > '2026-12-30'", year, yv);
    PART_PRUNED("d > '2027-01-01'", year, yv);
    /* Timestamps of other units project through the same transform. */
    struct lake_partition_field sday[] = {{col("tss")->field_id, LTR_DAY, 0}};
    struct lake_value secs = integer(micros("2026-01-15T10:30:00Z").i / 1000000);
    const char *sv[] = {wire(LTR_DAY, 0, LT_TIMESTAMP_S, secs)};
    PART_PRUNED("tss > '2026-01-16'", sday, sv);
    PART_KEPT("tss > '2026-01-15'", sday, sv);
    /* Two fields on one source both constrain it. */
    struct lake_partition_field both[] = {{ts, LTR_DAY, 0}, {ts, LTR_HOUR, 0}};
    const char *bv[] = {dv[0], hv[0]};
    assert_true(may_part("ts = '2026-01-15 10:00'", both, 2, bv));
    assert_false(may_part("ts = '2026-01-15 12:00'", both, 2, bv));
}

static void test_partition_bucket_truncate(void **state)
{
    (void)state;
    int64_t i = col("i")->field_id, s = col("s")->field_id;
    struct lake_partition_field bucket[] = {{i, LTR_BUCKET, 16}};
    const char *bv[] = {wire(LTR_BUCKET, 16, LT_LONG, integer(42))};
    /* Find values in other buckets. */
    int64_t other = 43;
    while (strcmp(wire(LTR_BUCKET, 16, LT_LONG, integer(other)), bv[0]) == 0)
        other++;
    int64_t same = 43;
    while (strcmp(wire(LTR_BUCKET, 16, LT_LONG, integer(same)), bv[0]) != 0)
        same++;
    char text[200];
    PART_KEPT("i = 42", bucket, bv);
    snprintf(text, sizeof text, "i = %lld", (long long)other);
    PART_PRUNED(text, bucket, bv);
    snprintf(text, sizeof text, "i = %lld", (long long)same);
    PART_KEPT(text, bucket, bv);
    snprintf(text, sizeof text, "i IN (%lld, 42)", (long long)other);
    PART_KEPT(text, bucket, bv);
    snprintf(text, sizeof text, "i IN (%lld)", (long long)other);
    PART_PRUNED(text, bucket, bv);
    snprintf(text, sizeof text, "i > %lld", (long long)other);
    PART_KEPT(text, bucket, bv);
    PART_KEPT("i != 42", bucket, bv);
    snprintf(text, sizeof text, "i NOT IN (%lld)", (long long)other);
    PART_KEPT(text, bucket, bv);
    struct lake_partition_field sbucket[] = {{s, LTR_BUCKET, 8}};
    const char *sbv[] = {wire(LTR_BUCKET, 8, LT_STRING, bytes("apple"))};
    PART_KEPT("s = 'apple'", sbucket, sbv);
    struct lake_partition_field trunc[] = {{i, LTR_TRUNCATE, 10}};
    const char *tv[] = {wire(LTR_TRUNCATE, 10, LT_LONG, integer(42))};
    assert_string_equal(tv[0], "40");
    PART_KEPT("i = 45", trunc, tv);
    PART_PRUNED("i = 50", trunc, tv);
    PART_PRUNED("i >= 50", trunc, tv);
    PART_KEPT("i < 41", trunc, tv);
    PART_PRUNED("i < 30", trunc, tv);
    PART_KEPT("i IN (1, 49)", trunc, tv);
    PART_PRUNED("i IN (1, 50)", trunc, tv);
    const char *neg[] = {wire(LTR_TRUNCATE, 10, LT_LONG, integer(-1))};
    assert_string_equal(neg[0], "-10");
    PART_PRUNED("i >= 0", trunc, neg);
    PART_KEPT("i > -10", trunc, neg);
    struct lake_partition_field strunc[] = {{s, LTR_TRUNCATE, 3}};
    const char *sv[] = {wire(LTR_TRUNCATE, 3, LT_STRING, bytes("apple"))};
    assert_string_equal(sv[0], "app");
    PART_KEPT("s = 'apples'", strunc, sv);
    PART_PRUNED("s = 'banana'", strunc, sv);
    PART_PRUNED("s > 'b'", strunc, sv);
    PART_PRUNED("s < 'apa'", strunc, sv);
    PART_KEPT("s < 'apq'", strunc, sv);
    PART_KEPT("s BETWEEN 'aa' AND 'apple pie'", strunc, sv);
    PART_PRUNED("s BETWEEN 'aa' AND 'ao'", strunc, sv);
    PART_KEPT("s != 'app'", strunc, sv);
    struct lake_partition_field dtrunc[] = {{col("dec")->field_id, LTR_TRUNCATE, 100}};
    struct lake_value d = {0};
    d.dec = 1234; /* 12.34 */
    const char *decv[] = {wire_at(LTR_TRUNCATE, 100, LT_DECIMAL, 2, d)};
    assert_string_equal(decv[0], "12.00");
    PART_KEPT("dec = 12.99", dtrunc, decv);
    PART_PRUNED("dec = 13", dtrunc, decv);
    PART_PRUNED("dec < 11.99", dtrunc, decv);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ranges),
        cmocka_unit_test(test_equal_bounds),
        cmocka_unit_test(test_nulls_and_missing),
        cmocka_unit_test(test_floats),
        cmocka_unit_test(test_types),
        cmocka_unit_test(test_json_stats),
        cmocka_unit_test(test_json_forms),
        cmocka_unit_test(test_row_groups),
        cmocka_unit_test(test_partition_identity),
        cmocka_unit_test(test_partition_temporal),
        cmocka_unit_test(test_partition_bucket_truncate),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

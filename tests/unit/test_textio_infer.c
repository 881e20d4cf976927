/* Schema inference from sampled rows (textio/textio_infer.h): the order
 * types widen in, nulls and empty strings, temporal forms, integers past
 * long, JSON kinds and nesting, NOT NULL from the sample, and refused
 * input. Every CSV case also reads its own input back through the parser
 * append uses, with the table the inferred spec declares: an inferred type
 * must read every sampled value. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "textio/colspec_format.h"
#include "textio/csv.h"
#include "textio/textio_infer.h"
#include "textio/textio_timefmt.h"
#include "textio/textio_parse.h"
#include "textio/textio_schema.h"
#include "util/arena.h"

/* Reads every row of csv text through a parser for the table `spec`
 * declares: the rows must all fit. */
static void reads_back(const char *csv, const char *null_marker, const char *spec)
{
    struct arena ar;
    arena_init(&ar, 0);
    struct lake_table t;
    lake_table_init(&t, &ar);
    struct error err;
    if (textio_table_from_spec(spec, &t, &err) != 0)
        fail_msg("spec '%s': %s", spec, err.msg);
    struct textio_parser *p;
    assert_int_equal(textio_parser_new(&t, &p, &err), 0);
    textio_parser_csv_null(p, null_marker);
    FILE *f = fmemopen((void *)csv, strlen(csv), "r");
    struct csv_reader r;
    csv_reader_init(&r, f);
    assert_int_equal(csv_read_record(&r), 1);
    assert_int_equal(textio_parser_csv_header(p, &r, &err), 0);
    while (csv_read_record(&r) > 0)
        if (textio_parser_csv_row(p, &r, &err) != 0)
            fail_msg("'%s' does not read back as '%s': %s", csv, spec, err.msg);
    csv_reader_free(&r);
    fclose(f);
    textio_parser_free(p);
    lake_table_release(&t);
    arena_free(&ar);
}

/* The spec inferred from CSV text (header first), checked to read back. */
static char *csv_spec_with(const char *csv, const char *null_marker, bool not_null)
{
    FILE *f = fmemopen((void *)csv, strlen(csv), "r");
    struct csv_reader r;
    csv_reader_init(&r, f);
    struct textio_infer *inf = textio_infer_new();
    struct error err;
    assert_int_equal(csv_read_record(&r), 1);
    const char *names[16];
    char copies[16][32];
    for (size_t i = 0; i < r.nfields; i++) {
        size_t len;
        snprintf(copies[i], sizeof copies[i], "%s", csv_field_text(&r, i, &len, NULL));
        names[i] = copies[i];
    }
    assert_int_equal(textio_infer_csv_columns(inf, names, r.nfields, &err), 0);
    while (csv_read_record(&r) > 0)
        if (textio_infer_csv_row(inf, &r, null_marker, &err) != 0)
            fail_msg("%s", err.msg);
    struct buf out = BUF_INIT;
    assert_int_equal(textio_infer_spec(inf, NULL, not_null, &out, NULL), 0);
    textio_infer_free(inf);
    csv_reader_free(&r);
    fclose(f);
    reads_back(csv, null_marker, out.data);
    return buf_take(&out);
}

static void expect_csv(const char *csv, const char *want)
{
    char *got = csv_spec_with(csv, NULL, false);
    if (strcmp(got, want) != 0)
        fail_msg("'%s' inferred '%s', want '%s'", csv, got, want);
    free(got);
}

/* One column "v" of the given values, a line each. */
static void expect_values(const char *lines, const char *type)
{
    char csv[1024], want[128];
    snprintf(csv, sizeof csv, "v\n%s", lines);
    snprintf(want, sizeof want, "v:%s", type);
    expect_csv(csv, want);
}

static void widening_order(void **state)
{
    (void)state;
    expect_values("true\nfalse\n", "boolean");
    expect_values("1\n-2\n0\n", "long");
    expect_values("1\n2.5\n", "double");
    expect_values("1.0\n2.0\n", "double"); /* DuckDB's double, not decimal */
    expect_values("1.5e3\n-0.25\nNaN\nInfinity\n", "double");
    expect_values("true\n1\n", "string");
    expect_values("1\nabc\n", "string");
    expect_values("2024-01-01\n5\n", "string");
}

static void integers_past_long(void **state)
{
    (void)state;
    expect_values("9223372036854775807\n-9223372036854775808\n", "long");
    expect_values("9223372036854775808\n1\n", "decimal(38,0)");
    expect_values("-99999999999999999999999999999999999999\n", "decimal(38,0)");
    /* 39 digits: past every decimal, still a double. */
    expect_values("999999999999999999999999999999999999999\n", "double");
    expect_values("9223372036854775808\n0.5\n", "double");
}

static void spellings_the_readers_refuse(void **state)
{
    (void)state;
    /* The readers take true/false only, JSON's number grammar with CSV's
     * spellings (+1, .5, 5.), and, without layouts, ISO timestamps with
     * seconds: what they refuse stays a string. */
    expect_values("T\nF\n", "string");
    expect_values("TRUE\nFalse\n", "string");
    expect_values("007\n010\n", "string");
    expect_values(".5\n1\n", "double");
    expect_values("-.5\n5.\n+2.5e3\n", "double");
    expect_values("+1\n-3\n", "long");
    expect_values("+-1\n", "string");
    expect_values(".e5\n", "string");
    expect_values("1.2.3\n", "string");
    expect_values("2024-01-01 10:00\n", "string");
    expect_values("2024/01/01 10:00:00\n", "string");
}

/* Layouts given: a column all of whose values one matches takes its
 * type (the first such layout), ISO still first; formats_used names the
 * layouts the columns rely on. */
static void layouts(void **state)
{
    (void)state;
    static const char *const texts[] = {"%Y/%m/%d %H:%M:%S", "%m/%d/%Y", "%d/%m/%Y",
                                        "%Y-%m-%d %H:%M%z"};
    struct textio_timefmt fmts[4];
    struct error err;
    for (int i = 0; i < 4; i++)
        assert_int_equal(textio_timefmt_compile(texts[i], &fmts[i], &err), 0);
    struct textio_infer *inf = textio_infer_new();
    assert_non_null(inf);
    assert_int_equal(textio_infer_formats(inf, fmts, 4, &err), 0);
    const char *names[] = {"a", "b", "c", "d", "e"};
    assert_int_equal(textio_infer_csv_columns(inf, names, 5, &err), 0);
    const char *rows = "2015/01/01 01:00:00,01/02/2015,13/02/2015,2024-01-01,2024-01-01 10:00+02\n"
                       "2015/12/31 23:59:59,12/31/2015,01/02/2015,2024-01-02,2024-01-01 10:00Z\n";
    FILE *f = fmemopen((void *)rows, strlen(rows), "r");
    assert_non_null(f);
    struct csv_reader r;
    csv_reader_init(&r, f);
    while (csv_read_record(&r) > 0)
        assert_int_equal(textio_infer_csv_row(inf, &r, NULL, &err), 0);
    struct buf out = BUF_INIT;
    uint32_t used = 0;
    assert_int_equal(textio_infer_spec(inf, NULL, false, &out, &used), 0);
    /* c: 13/02 is no month first: the day-first layout. d: ISO dates. */
    assert_string_equal(out.data, "a:timestamp, b:date, c:date, d:date, e:timestamptz");
    assert_int_equal(used, 0xf);
    buf_free(&out);
    csv_reader_free(&r);
    fclose(f);
    textio_infer_free(inf);
    /* More layouts than a mask holds. */
    struct textio_timefmt many[TEXTIO_INFER_MAX_FORMATS + 1];
    inf = textio_infer_new();
    assert_non_null(inf);
    assert_int_equal(textio_infer_formats(inf, many, TEXTIO_INFER_MAX_FORMATS + 1, &err), -1);
    assert_int_equal(err.code, ERR_LIMIT);
    textio_infer_free(inf);
}

static void nulls_and_empty_strings(void **state)
{
    (void)state;
    expect_values("\n1\n\n", "long");                /* empty unquoted fields are nulls */
    expect_values("\"\"\n1\n", "string");            /* a quoted empty string is a value */
    expect_csv("a,b\n,1\n,2\n", "a:string, b:long"); /* only nulls: string */
    expect_csv("a,b\n", "a:string, b:string");       /* no rows at all */
    char *got = csv_spec_with("v\nNA\n1\n", "NA", false);
    assert_string_equal(got, "v:long");
    free(got);
}

static void temporal_forms(void **state)
{
    (void)state;
    expect_values("2024-02-29\n1999-12-31\n", "date");
    expect_values("10:00:00\n23:59:59.5\n", "time");
    expect_values("2024-01-01 10:00:00\n2024-01-01T10:00:00.123456\n", "timestamp");
    expect_values("2024-01-01 10:00:00.123456789\n", "timestamp_ns");
    expect_values("2024-01-01T10:00:00Z\n2024-01-01 10:00:00+02:00\n", "timestamptz");
    expect_values("2024-01-01\n2024-01-01 10:00:00\n", "string");
    expect_values("2024-01-01 10:00:00\n2024-01-01 10:00:00Z\n", "string");
    expect_values("2024-02-30\n", "string"); /* not a day */
}

static void not_null_from_the_sample(void **state)
{
    (void)state;
    char *got = csv_spec_with("a,b,c\n1,,x\n2,3,y\n", NULL, true);
    assert_string_equal(got, "a:long!, b:long, c:string!");
    free(got);
    got = csv_spec_with("a\n", NULL, true); /* no row: nothing is known */
    assert_string_equal(got, "a:string");
    free(got);
}

static char *jsonl_spec(const char *lines, bool not_null)
{
    struct textio_infer *inf = textio_infer_new();
    struct error err;
    for (const char *s = lines; *s;) {
        const char *nl = strchr(s, '\n');
        size_t len = nl ? (size_t)(nl - s) : strlen(s);
        if (textio_infer_json_row(inf, s, len, &err) != 0)
            fail_msg("%.*s: %s", (int)len, s, err.msg);
        s += len + (nl != NULL);
    }
    struct buf out = BUF_INIT;
    assert_int_equal(textio_infer_spec(inf, NULL, not_null, &out, NULL), 0);
    textio_infer_free(inf);
    return buf_take(&out);
}

static void expect_jsonl(const char *lines, const char *want)
{
    char *got = jsonl_spec(lines, false);
    if (strcmp(got, want) != 0)
        fail_msg("'%s' inferred '%s', want '%s'", lines, got, want);
    free(got);
}

static void json_kinds(void **state)
{
    (void)state;
    expect_jsonl("{\"b\":true,\"n\":1,\"d\":1.5,\"s\":\"x\",\"t\":\"2024-01-01\"}",
                 "b:boolean, n:long, d:double, s:string, t:date");
    /* JSON strings do not read as numbers, nor numbers as strings. */
    expect_jsonl("{\"v\":\"1\"}", "v:string");
    expect_jsonl("{\"v\":1}\n{\"v\":\"a\"}", "v:variant");
    expect_jsonl("{\"v\":\"true\"}", "v:string");
    expect_jsonl("{\"v\":1}\n{\"v\":2.5}", "v:double");
    /* Members first seen later are columns after the others; missing ones
     * are nulls. */
    expect_jsonl("{\"a\":1}\n{\"b\":\"x\",\"a\":null}\n{}", "a:long, b:string");
}

static void json_nesting(void **state)
{
    (void)state;
    expect_jsonl("{\"o\":{\"x\":1,\"y\":[1,2]}}\n{\"o\":{\"z\":\"2024-01-01T00:00:00Z\"}}",
                 "o:struct<x:long, y:list<long>, z:timestamptz>");
    expect_jsonl("{\"l\":[]}\n{\"l\":null}", "l:list<string>");
    expect_jsonl("{\"l\":[[1],[2,null]]}", "l:list<list<long>>");
    /* Shapes that mix, empty objects, and field names a table cannot take
     * (JSON Lines has no renaming of nested members) are variants. */
    expect_jsonl("{\"v\":{\"a\":1}}\n{\"v\":[1]}", "v:variant");
    expect_jsonl("{\"v\":{}}", "v:variant");
    expect_jsonl("{\"v\":{\"a b\":1}}", "v:variant");
    expect_jsonl("{\"v\":{\"a\":1,\"A\":2}}", "v:variant");
    expect_jsonl("{\"v\":[[[[[[[[[1]]]]]]]]]}",
                 "v:list<list<list<list<list<list<list<variant>>>>>>>");
}

static void json_not_null(void **state)
{
    (void)state;
    char *got = jsonl_spec("{\"a\":1,\"b\":1,\"c\":{\"x\":1}}\n{\"a\":2,\"c\":{}}\n", true);
    assert_string_equal(got, "a:long!, b:long, c:struct<x:long>!");
    free(got);
}

static void caller_names(void **state)
{
    (void)state;
    struct textio_infer *inf = textio_infer_new();
    struct error err;
    const char *line = "{\"Order Id\":1,\"ok\":true}";
    assert_int_equal(textio_infer_json_row(inf, line, strlen(line), &err), 0);
    assert_int_equal(textio_infer_ncolumns(inf), 2);
    assert_string_equal(textio_infer_column_name(inf, 0), "Order Id");
    assert_int_equal(textio_infer_rows(inf), 1);
    const char *names[] = {"Order_Id", NULL};
    struct buf out = BUF_INIT;
    assert_int_equal(textio_infer_spec(inf, names, false, &out, NULL), 0);
    assert_string_equal(out.data, "Order_Id:long, ok:boolean");
    buf_free(&out);
    textio_infer_free(inf);
}

static void refused_input(void **state)
{
    (void)state;
    struct textio_infer *inf = textio_infer_new();
    struct error err;
    assert_int_equal(textio_infer_json_row(inf, "[1]", 3, &err), -1);
    assert_int_equal(err.code, ERR_INVALID);
    assert_int_equal(textio_infer_json_row(inf, "{\"a\":", 5, &err), -1);
    assert_int_equal(err.code, ERR_MALFORMED);
    assert_int_equal(textio_infer_rows(inf), 0);
    textio_infer_free(inf);

    inf = textio_infer_new();
    const char *names[] = {"a", "a"};
    assert_int_equal(textio_infer_csv_columns(inf, names, 2, &err), -1);
    textio_infer_free(inf);

    const char *text = "a,b\n1\n\xff\xfe,2\n";
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    struct csv_reader r;
    csv_reader_init(&r, f);
    inf = textio_infer_new();
    assert_int_equal(textio_infer_csv_columns(inf, (const char *[]){"a", "b"}, 2, &err), 0);
    assert_int_equal(csv_read_record(&r), 1);
    assert_int_equal(csv_read_record(&r), 1);
    assert_int_equal(textio_infer_csv_row(inf, &r, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "1 fields, the header 2"));
    assert_int_equal(csv_read_record(&r), 1);
    assert_int_equal(textio_infer_csv_row(inf, &r, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "invalid UTF-8"));
    textio_infer_free(inf);
    csv_reader_free(&r);
    fclose(f);
}

/* A table's columns written as a spec parse back to the same spec (what
 * table create --from prints for a Parquet file). */
static void spec_of_a_table(void **state)
{
    (void)state;
    static const char *const specs[] = {
        "id:long!, name:string, amount:decimal(10,2), tags:list<string!>",
        "attrs:map<string, long>, m:map<int, list<double>!>!",
        "addr:struct<zip:string!, geo:struct<lat:double, lon:double>>, t:timestamptz",
    };
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
        struct arena ar;
        arena_init(&ar, 0);
        struct lake_table t;
        lake_table_init(&t, &ar);
        struct error err;
        if (textio_table_from_spec(specs[i], &t, &err) != 0)
            fail_msg("%s: %s", specs[i], err.msg);
        struct buf out = BUF_INIT;
        assert_int_equal(colspec_format_columns(&t, &out), 0);
        assert_string_equal(out.data, specs[i]);
        buf_free(&out);
        lake_table_release(&t);
        arena_free(&ar);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(widening_order),
        cmocka_unit_test(integers_past_long),
        cmocka_unit_test(spellings_the_readers_refuse),
        cmocka_unit_test(layouts),
        cmocka_unit_test(nulls_and_empty_strings),
        cmocka_unit_test(temporal_forms),
        cmocka_unit_test(not_null_from_the_sample),
        cmocka_unit_test(json_kinds),
        cmocka_unit_test(json_nesting),
        cmocka_unit_test(json_not_null),
        cmocka_unit_test(caller_names),
        cmocka_unit_test(refused_input),
        cmocka_unit_test(spec_of_a_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The CLI's human output: text tables (alignment, cutting long cells,
 * whole columns, one row per line), sizes and counts, partition values as
 * text, and the progress line's formatting. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/output.h"
#include "cli/partition_text.h"
#include "cli/progress.h"

/* Prints the table and returns what reached stdout (caller frees). */
static char *printed(const struct out_table *t)
{
    fflush(stdout);
    FILE *tmp = tmpfile();
    assert_non_null(tmp);
    int saved = dup(STDOUT_FILENO);
    assert_true(saved >= 0);
    assert_true(dup2(fileno(tmp), STDOUT_FILENO) >= 0);
    out_table_print(t);
    fflush(stdout);
    assert_true(dup2(saved, STDOUT_FILENO) >= 0);
    close(saved);
    long n = ftell(tmp);
    assert_true(n >= 0);
    char *text = calloc(1, (size_t)n + 1);
    assert_non_null(text);
    rewind(tmp);
    assert_int_equal(fread(text, 1, (size_t)n, tmp), (size_t)n);
    fclose(tmp);
    return text;
}

static void aligns_columns(void **state)
{
    (void)state;
    static const char *const headers[] = {"ID", "NAME", "PATH"};
    struct out_table t;
    out_table_init(&t, 3, headers);
    out_table_row(&t, "1", "a", "x");
    out_table_row(&t, "12345", NULL, "two\nlines");
    char *text = printed(&t);
    assert_string_equal(text, "ID     NAME  PATH\n"
                              "1      a     x\n"
                              "12345        two lines\n");
    free(text);
    out_table_free(&t);
}

static void cuts_long_cells_unless_whole(void **state)
{
    (void)state;
    char long_cell[300];
    memset(long_cell, 'p', sizeof long_cell - 1);
    long_cell[sizeof long_cell - 1] = '\0';
    static const char *const headers[] = {"CUT", "WHOLE"};
    struct out_table t;
    out_table_init(&t, 2, headers);
    out_table_keep_whole(&t, 1);
    const char *cells[] = {long_cell, long_cell};
    out_table_add(&t, cells);
    assert_int_equal(t.nrows, 1);
    /* The cut cell keeps OUT_CELL_MAX - 4 characters and "...". */
    assert_int_equal(strlen(t.cells[0][0]), OUT_CELL_MAX - 1);
    assert_string_equal(t.cells[0][0] + OUT_CELL_MAX - 4, "...");
    assert_int_equal(strncmp(t.cells[0][0], long_cell, OUT_CELL_MAX - 4), 0);
    assert_string_equal(t.cells[0][1], long_cell);
    char *text = printed(&t);
    assert_non_null(strstr(text, long_cell));
    free(text);
    out_table_free(&t);
    assert_int_equal(t.nrows, 0);
}

static void sizes_in_binary_units(void **state)
{
    (void)state;
    char b[OUT_NUM_MAX];
    assert_string_equal(out_bytes(b, 0), "0 B");
    assert_string_equal(out_bytes(b, 1), "1 B");
    assert_string_equal(out_bytes(b, 1023), "1023 B");
    assert_string_equal(out_bytes(b, 1024), "1.0 KiB");
    assert_string_equal(out_bytes(b, 1536), "1.5 KiB");
    assert_string_equal(out_bytes(b, 1572864), "1.5 MiB");
    /* Just under 1 MiB would round to "1024.0 KiB": it reads 1.0 MiB. */
    assert_string_equal(out_bytes(b, 1048575), "1.0 MiB");
    assert_string_equal(out_bytes(b, (uint64_t)300 << 30), "300.0 GiB");
    assert_string_equal(out_bytes(b, UINT64_MAX), "16.0 EiB");
}

static void counts_with_separators_and_plurals(void **state)
{
    (void)state;
    char b[OUT_NUM_MAX];
    assert_string_equal(out_number(b, 0), "0");
    assert_string_equal(out_number(b, 999), "999");
    assert_string_equal(out_number(b, 1000), "1,000");
    assert_string_equal(out_number(b, 1024), "1,024");
    assert_string_equal(out_number(b, 1234567), "1,234,567");
    assert_string_equal(out_number(b, -12345), "-12,345");
    assert_string_equal(out_number(b, INT64_MIN), "-9,223,372,036,854,775,808");
    assert_string_equal(out_count(1, "row", "rows", b, sizeof b), "1 row");
    assert_string_equal(out_count(0, "row", "rows", b, sizeof b), "0 rows");
    assert_string_equal(out_count(2, "file", "files", b, sizeof b), "2 files");
    assert_string_equal(out_count(1024, "row group", "row groups", b, sizeof b),
                        "1,024 row groups");
}

/* A table document of columns ts (timestamp), d (date), team (string),
 * id (long), amount (decimal), blob (binary), at_ns (timestamp_ns) and a
 * struct loc.city, partitioned by `fields` (a JSON array text). */
static void spec_of(const char *fields, struct part_spec *spec)
{
    char doc[2048];
    snprintf(doc, sizeof doc,
             "{\"columns\": ["
             "{\"field_id\": 1, \"name\": \"ts\", \"type\": \"timestamp\"},"
             "{\"field_id\": 2, \"name\": \"d\", \"type\": \"date\"},"
             "{\"field_id\": 3, \"name\": \"team\", \"type\": \"string\"},"
             "{\"field_id\": 4, \"name\": \"id\", \"type\": \"long\"},"
             "{\"field_id\": 5, \"name\": \"amount\", \"type\": \"decimal\"},"
             "{\"field_id\": 6, \"name\": \"blob\", \"type\": \"binary\"},"
             "{\"field_id\": 7, \"name\": \"at_ns\", \"type\": \"timestamp_ns\"},"
             "{\"field_id\": 8, \"name\": \"loc\", \"type\": \"struct\", \"children\": ["
             "  {\"field_id\": 9, \"name\": \"city\", \"type\": \"string\"}]}],"
             " \"partition_spec\": {\"spec_id\": 3, \"fields\": %s}}",
             fields);
    json_error_t jerr;
    json_t *table = json_loads(doc, 0, &jerr);
    assert_non_null(table);
    assert_int_equal(part_spec_from_table(table, spec), 0);
    json_decref(table);
}

/* The text of one tuple under the spec `fields`. */
static void expect_part(const char *fields, const char *const *values, size_t n, const char *want)
{
    struct part_spec spec;
    spec_of(fields, &spec);
    struct buf out = BUF_INIT;
    assert_int_equal(part_text(&spec, values, n, &out), 0);
    assert_int_equal(buf_putc(&out, '\0'), 0);
    assert_string_equal(out.data, want);
    buf_free(&out);
    part_spec_free(&spec);
}

#define FIELD(id, tr) "{\"source_field_id\": " #id ", \"transform\": \"" tr "\"}"
#define FIELD_P(id, tr, p)                                                                         \
    "{\"source_field_id\": " #id ", \"transform\": \"" tr "\", \"transform_param\": " #p "}"

/* One field's spec, one stored value, the text wanted. */
struct one_value {
    const char *field;
    const char *value;
    const char *want;
};

static void expect_values(const struct one_value *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char fields[300];
        snprintf(fields, sizeof fields, "[%s]", cases[i].field);
        expect_part(fields, &cases[i].value, 1, cases[i].want);
    }
}

static void partitions_by_temporal_transforms(void **state)
{
    (void)state;
    static const struct one_value cases[] = {
        /* 2024-03-01 is day 19783, month 650 (54 * 12 + 2), year 54, and
         * 13:00 that day hour 19783 * 24 + 13. */
        {FIELD(1, "day"), "19783", "ts_day=2024-03-01"},
        {FIELD(1, "month"), "650", "ts_month=2024-03"},
        {FIELD(2, "year"), "54", "d_year=2024"},
        {FIELD(1, "hour"), "474805", "ts_hour=2024-03-01-13"},
        /* Before 1970: ordinals count down, dates floor. */
        {FIELD(1, "day"), "-1", "ts_day=1969-12-31"},
        {FIELD(1, "month"), "-1", "ts_month=1969-12"},
        {FIELD(1, "month"), "-13", "ts_month=1968-12"},
        {FIELD(1, "year"), "-70", "ts_year=1900"},
        {FIELD(1, "hour"), "-1", "ts_hour=1969-12-31-23"},
        /* Not an ordinal (a server this command does not know): the text. */
        {FIELD(1, "day"), "soon", "ts_day=\"soon\""},
    };
    expect_values(cases, sizeof cases / sizeof *cases);
}

static void partitions_by_bucket_truncate_identity(void **state)
{
    (void)state;
    static const struct one_value cases[] = {
        {FIELD_P(4, "bucket", 16), "5", "id_bucket[16]=5"},
        {FIELD_P(3, "truncate", 4), "abcd", "team_truncate[4]=\"abcd\""},
        {FIELD_P(4, "truncate", 10), "120", "id_truncate[10]=120"},
        /* Strings quoted, quotes and control characters escaped. */
        {FIELD(3, "identity"), "say \"hi\"\\\n", "team=\"say \\\"hi\\\"\\\\\\n\""},
        {FIELD(5, "identity"), "-12.50", "amount=-12.50"},
        {FIELD(2, "identity"), "1969-07-20", "d=1969-07-20"},
        {FIELD(6, "identity"), "aGk=", "blob=0x6869"},
        {FIELD(7, "identity"), "1709298000123456789", "at_ns=2024-03-01T13:00:00.123456789"},
        {FIELD(9, "identity"), "Paris", "loc.city=\"Paris\""},
    };
    expect_values(cases, sizeof cases / sizeof *cases);
}

static void partitions_with_nulls_and_several_fields(void **state)
{
    (void)state;
    const char *two[] = {"19783", "Government"};
    expect_part("[" FIELD(1, "day") ", " FIELD(3, "identity") "]", two, 2,
                "ts_day=2024-03-01/team=\"Government\"");
    /* A null is null, the string "null" is quoted. */
    const char *nulls[] = {NULL, "null"};
    expect_part("[" FIELD(1, "day") ", " FIELD(3, "identity") "]", nulls, 2,
                "ts_day=null/team=\"null\"");
    /* Another number of values than the spec has fields: unnamed. */
    struct part_spec spec;
    spec_of("[" FIELD(1, "day") "]", &spec);
    struct buf out = BUF_INIT;
    assert_int_equal(part_text(&spec, nulls, 2, &out), 0);
    assert_int_equal(buf_putc(&out, '\0'), 0);
    assert_string_equal(out.data, "[null,\"null\"]");
    buf_free(&out);
    part_spec_free(&spec);
    /* An unknown source column or transform still shows the value. */
    const char *v[] = {"x"};
    expect_part("[" FIELD(99, "identity") "]", v, 1, "?=\"x\"");
    expect_part("[" FIELD(4, "zorder") "]", v, 1, "id_zorder=\"x\"");
}

static void progress_line_with_a_known_total(void **state)
{
    (void)state;
    struct progress p;
    progress_start(&p, NULL, 200, 100.0);
    progress_add_input(&p, true, 3 << 20);
    progress_add_input(&p, true, 1 << 20);
    progress_advance(&p, 1 << 20, 250000, 102.0);
    char line[512];
    progress_format(&p, 102.0, line, sizeof line);
    /* A quarter done in 2 s: 6 s left. */
    assert_string_equal(line, "[######                  ]  25%  250,000 rows  1.0 MiB of 4.0 MiB  "
                              "125,000 rows/s, 512.0 KiB/s  6s left");
    /* Bytes past the total (a file that grew) stop at 100%. */
    progress_advance(&p, 4 << 20, 0, 110.0);
    progress_format(&p, 110.0, line, sizeof line);
    assert_non_null(strstr(line, "] 100%  250,000 rows  4.0 MiB of 4.0 MiB"));
    assert_null(strstr(line, "left"));
    progress_format_final(&p, 110.0, line, sizeof line);
    assert_string_equal(line, "read 250,000 rows, 5.0 MiB in 10s (25,000 rows/s, 512.0 KiB/s)");
    /* A narrow terminal: cut to one column less than its width. */
    p.columns = 20;
    assert_int_equal(progress_format(&p, 110.0, line, sizeof line), 19);
}

static void progress_line_of_a_pipe(void **state)
{
    (void)state;
    struct progress p;
    progress_start(&p, NULL, 200, 0.0);
    progress_add_input(&p, true, 1 << 20);
    progress_add_input(&p, false, 0);
    progress_advance(&p, 3 << 20, 1, 125.0);
    char line[512];
    progress_format(&p, 125.0, line, sizeof line);
    /* No total: no bar, no percentage, no time left. */
    assert_string_equal(line, "1 row  3.0 MiB  0 rows/s, 24.6 KiB/s");
    progress_format_final(&p, 3725.0, line, sizeof line);
    assert_string_equal(line, "read 1 row, 3.0 MiB in 1h02m (0 rows/s, 844 B/s)");
    /* A pipe whose position nobody counts (CSV): rows alone. */
    progress_start(&p, NULL, 200, 0.0);
    progress_add_input(&p, false, 0);
    progress_advance(&p, 0, 70000, 2.0);
    progress_format(&p, 2.0, line, sizeof line);
    assert_string_equal(line, "70,000 rows  35,000 rows/s");
    progress_format_final(&p, 2.0, line, sizeof line);
    assert_string_equal(line, "read 70,000 rows in 2s (35,000 rows/s)");
}

/* Drawing waits PROGRESS_DELAY, then at most every PROGRESS_INTERVAL, and
 * the final line replaces the bar. */
static void progress_draws_late_and_seldom(void **state)
{
    (void)state;
    FILE *tmp = tmpfile();
    assert_non_null(tmp);
    struct progress p;
    progress_start(&p, tmp, 80, 0.0);
    progress_add_input(&p, true, 100);
    progress_advance(&p, 10, 1, 0.5);
    assert_false(p.drawn);
    progress_advance(&p, 10, 1, 1.0);
    assert_true(p.drawn);
    progress_advance(&p, 10, 1, 1.05); /* too soon */
    progress_advance(&p, 10, 1, 1.2);
    progress_finish(&p, 2.0);
    fflush(tmp);
    long n = ftell(tmp);
    char text[1024] = {0};
    rewind(tmp);
    assert_int_equal(fread(text, 1, (size_t)n, tmp), (size_t)n);
    fclose(tmp);
    /* Two lines drawn (20% then 40%), then the final one. */
    assert_non_null(strstr(text, " 20%  2 rows"));
    assert_null(strstr(text, " 30%"));
    assert_non_null(strstr(text, " 40%  4 rows"));
    assert_non_null(strstr(text, "\rread 4 rows, 40 B in 2s (2 rows/s, 20 B/s)\033[K\n"));
    /* Nothing drawn: nothing to finish. */
    progress_start(&p, NULL, 80, 0.0);
    progress_advance(&p, 10, 1, 5.0);
    progress_finish(&p, 6.0);
    assert_false(p.drawn);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(aligns_columns),
        cmocka_unit_test(cuts_long_cells_unless_whole),
        cmocka_unit_test(sizes_in_binary_units),
        cmocka_unit_test(counts_with_separators_and_plurals),
        cmocka_unit_test(partitions_by_temporal_transforms),
        cmocka_unit_test(partitions_by_bucket_truncate_identity),
        cmocka_unit_test(partitions_with_nulls_and_several_fields),
        cmocka_unit_test(progress_line_with_a_known_total),
        cmocka_unit_test(progress_line_of_a_pipe),
        cmocka_unit_test(progress_draws_late_and_seldom),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

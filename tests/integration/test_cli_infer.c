/* Columns inferred from a file (docs/inference.md) against a real
 * hoglaked: `table create --from` for CSV (headers a table cannot take
 * sanitized, the same file then appended without a --map), JSON Lines
 * (nested members) and Parquet (its own schema); --dry-run prints and
 * creates nothing; `parquet convert` without --schema; refusals with their
 * exit codes. Then the inferred types next to DuckDB's read_csv_auto /
 * read_json_auto for written files and the vega-datasets ones, equal but
 * for the documented differences. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

#ifndef HOGLAKE_CLI_BIN
#error "HOGLAKE_CLI_BIN must be defined by the build"
#endif

static struct test_db db;
static struct test_server srv;
static PGconn *pg;
static char dir[256];

/* The spec of a "--columns '...'" or "--schema '...'" line in text. */
static char *spec_in(const char *text, const char *opt)
{
    char key[32];
    snprintf(key, sizeof key, "%s '", opt);
    const char *at = strstr(text, key);
    if (!at)
        fail_msg("no %s line in:\n%s", opt, text);
    at += strlen(key);
    const char *end = strchr(at, '\'');
    assert_non_null(end);
    return strndup(at, (size_t)(end - at));
}

/* The --columns a dry run of create --from prints for a file. */
static char *dry_run(const char *file, const char *extra)
{
    struct cli_out o;
    cli_do(&o, "table create local.ns.never --from '%s' --dry-run %s", file, extra);
    cli_out_expect(&o, 0, file);
    char *spec = spec_in(o.out, "--columns");
    cli_out_free(&o);
    return spec;
}

static int setup(void **state)
{
    (void)state;
    test_stack_up(&db, &srv, &pg, "cli_infer", NULL, NULL);
    setenv("HOGLAKE_TOKEN", srv.token, 1);
    test_scratch_dir(dir, sizeof dir, "cli-infer");
    cli_session(HOGLAKE_CLI_BIN, srv.base, dir);
    cli_ok("catalog create local --data-path file://$PWD/wh");
    cli_ok("namespace create local.ns");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    test_stack_down(&db, &srv, &pg);
    test_remove_tree(dir);
    return 0;
}

static const char flights_csv[] = "Flight Date,Price $,id,ok,at,zone\n"
                                  "2024-01-01,1.5,1,true,2024-01-01 10:00:00,007\n"
                                  "2024-01-02,,2,false,2024-01-02 11:30:00.25,\n"
                                  "2024-01-03,3,3,,2024-01-03 00:00:00,010\n";

static void csv_dry_run_creates_nothing(void **state)
{
    (void)state;
    test_write_file(dir, "flights.csv", flights_csv);
    struct cli_out o;
    cli_do(&o, "table create local.ns.flights --from flights.csv --dry-run");
    cli_out_expect(&o, 0, "dry run");
    expect_contains(o.out, "# columns inferred from flights.csv (3 rows sampled)\n", "comment");
    expect_contains(o.out,
                    "--columns 'Flight_Date:date, Price_:double, id:long, ok:boolean, "
                    "at:timestamp, zone:string'\n",
                    "spec");
    expect_contains(o.out, "--map 'Flight Date=Flight_Date,Price $=Price_'\n", "map");
    cli_out_free(&o);
    cli_refused(3, "", "table show local.ns.flights");
    /* --json: the same, as an object. */
    cli_do(&o, "--json table create local.ns.flights --from flights.csv --dry-run "
               "--not-null-from-sample");
    cli_out_expect(&o, 0, "json dry run");
    expect_contains(o.out, "\"columns\": \"Flight_Date:date!, Price_:double, id:long!", "json");
    expect_contains(o.out, "\"rows_sampled\": 3", "json rows");
    cli_out_free(&o);
}

static void csv_created_and_appended_as_is(void **state)
{
    (void)state;
    test_write_file(dir, "flights.csv", flights_csv);
    struct cli_out o;
    cli_do(&o,
           "table create local.ns.flights --from flights.csv --partition-by 'month(Flight_Date)'");
    cli_out_expect(&o, 0, "create");
    expect_contains(o.err, "--columns 'Flight_Date:date, Price_:double", "spec on stderr");
    expect_contains(o.out, "created table local.ns.flights", "created");
    cli_out_free(&o);
    /* No --map: headers match their sanitized columns. */
    cli_ok("append local.ns.flights flights.csv");
    cli_do(&o, "read local.ns.flights --format csv");
    cli_out_expect(&o, 0, "read");
    expect_contains(o.out, "2024-01-02,,2,false,2024-01-02T11:30:00.250000,", "row 2");
    expect_contains(o.out, "2024-01-03,3.0,3,,2024-01-03T00:00:00.000000,010", "row 3");
    cli_out_free(&o);
}

static void jsonl_nested(void **state)
{
    (void)state;
    test_write_file(
        dir, "events.jsonl",
        "{\"id\":1,\"user\":{\"name\":\"a\",\"tags\":[\"x\"]},\"at\":\"2024-01-01T"
        "00:00:00Z\",\"Score %\":0.5}\n"
        "\n"
        "{\"id\":2,\"user\":{\"name\":\"b\",\"tags\":[]},\"at\":null,\"extra\":true}\n");
    char *spec = dry_run("events.jsonl", "");
    assert_string_equal(spec, "id:long, user:struct<name:string, tags:list<string>>, "
                              "at:timestamptz, Score_:double, extra:boolean");
    free(spec);
    cli_ok("table create local.ns.events --from events.jsonl");
    /* No --map: "Score %" fills Score_, as a CSV header would. */
    cli_ok("append local.ns.events events.jsonl");
    cli_ok("%s", "append local.ns.events events.jsonl --map 'Score %=Score_'");
    struct cli_out o;
    cli_do(&o, "read local.ns.events --format jsonl");
    cli_out_expect(&o, 0, "read");
    expect_contains(o.out, "\"user\":{\"name\":\"b\",\"tags\":[]}", "nested");
    const char *first = strstr(o.out, "\"Score_\":0.5");
    assert_non_null(first);
    assert_non_null(strstr(first + 1, "\"Score_\":0.5")); /* both appends */
    cli_out_free(&o);
    /* A member that is neither a column nor one sanitized stays unknown;
     * one naming the column exactly wins over its sanitized twin. */
    test_write_file(dir, "odd.jsonl", "{\"id\":3,\"Score #\":1,\"Scor\":2}\n");
    cli_refused(1, "unknown column 'Scor'", "append local.ns.events odd.jsonl");
    test_write_file(dir, "twins.jsonl", "{\"id\":4,\"Score_\":1,\"Score %\":2}\n");
    cli_refused(1, "unknown column 'Score %'", "append local.ns.events twins.jsonl");
}

static void convert_without_schema_then_parquet(void **state)
{
    (void)state;
    test_write_file(dir, "flights.csv", flights_csv);
    struct cli_out o;
    cli_do(&o, "parquet convert flights.csv flights.parquet");
    cli_out_expect(&o, 0, "convert");
    char *converted = spec_in(o.err, "--schema");
    cli_out_free(&o);
    /* The Parquet file's own schema is what was inferred. */
    char *spec = dry_run("flights.parquet", "");
    assert_string_equal(spec, converted);
    free(spec);
    free(converted);
    cli_ok("table create local.ns.pq --from flights.parquet");
    cli_ok("append local.ns.pq flights.parquet");
    cli_do(&o, "read local.ns.pq --format csv");
    cli_out_expect(&o, 0, "read");
    expect_contains(o.out, "2024-01-01,1.5,1,true,2024-01-01T10:00:00.000000,007", "row");
    cli_out_free(&o);
    /* A value past the sample that the inferred type cannot read. */
    test_write_file(dir, "late.csv", "a\n1\n2\nx\n");
    cli_refused(1, "give --schema, or a larger --sample-rows",
                "parquet convert late.csv late.parquet --sample-rows 2");
    assert_int_not_equal(access("late.parquet", F_OK), 0);
    cli_ok("parquet convert late.csv late.parquet --sample-rows 0");
}

static void refusals(void **state)
{
    (void)state;
    test_write_file(dir, "f.csv", "a\n1\n");
    test_write_file(dir, "e.jsonl", "[1]\n");
    cli_refused(2, "exactly one of --columns",
                "table create local.ns.x --from f.csv --columns a:long");
    cli_refused(2, "--dry-run applies to --from",
                "table create local.ns.x --columns a:long --dry-run");
    cli_refused(2, "--sample-rows takes an integer >= 0",
                "table create local.ns.x --from f.csv --sample-rows -1");
    cli_refused(2, "--delimiter applies to CSV",
                "table create local.ns.x --from e.jsonl --delimiter ';'");
    cli_refused(2, "cannot tell the format", "table create local.ns.x --from f.txt");
    cli_refused(1, "No such file", "table create local.ns.x --from missing.csv");
    cli_refused(1, "e.jsonl line 1: a row must be a JSON object",
                "table create local.ns.x --from e.jsonl");
    cli_refused(2, "needs --schema", "parquet convert - out.parquet --from csv");
    cli_refused(2, "--sample-rows applies",
                "parquet convert f.csv out.parquet --schema a:long "
                "--sample-rows 5");
    cli_refused(3, "", "table show local.ns.x");
}

/* ---- DuckDB's types next to ours ---- */

/* DuckDB's name of each type we infer. */
static const char *ours_of(const char *duck)
{
    static const struct {
        const char *duck, *ours;
    } types[] = {{"BIGINT", "long"},     {"DOUBLE", "double"},
                 {"BOOLEAN", "boolean"}, {"DATE", "date"},
                 {"TIME", "time"},       {"TIMESTAMP", "timestamp"},
                 {"VARCHAR", "string"},  {"TIMESTAMP WITH TIME ZONE", "timestamptz"}};
    for (size_t i = 0; i < sizeof types / sizeof *types; i++)
        if (strcmp(types[i].duck, duck) == 0)
            return types[i].ours;
    return duck;
}

/* Where we differ from DuckDB on purpose (docs/inference.md). */
static const struct {
    const char *file, *column, *ours;
} differences[] = {
    {"written.csv", "big", "decimal(38,0)"},  /* past long: exact, not DOUBLE */
    {"written.csv", "flag", "string"},        /* T/F: the reader takes true/false */
    {"movies.jsonl", "Title", "variant"},     /* numbers and strings in one column */
    {"movies.jsonl", "Release Date", "date"}, /* Jun 12 1998: the layout %b %d %Y */
    {"stocks.csv", "date", "date"},           /* Jan 1 2000: likewise */
};

static const char *difference(const char *file, const char *column)
{
    for (size_t i = 0; i < sizeof differences / sizeof *differences; i++)
        if (strcmp(differences[i].file, file) == 0 && strcmp(differences[i].column, column) == 0)
            return differences[i].ours;
    return NULL;
}

/* The type of each top-level column of a spec, in order, into types. */
static size_t spec_types(char *spec, char **types, size_t max)
{
    size_t n = 0;
    int depth = 0;
    char *start = spec;
    for (char *s = spec;; s++) {
        if (*s == '<' || *s == '(')
            depth++;
        else if (*s == '>' || *s == ')')
            depth--;
        else if ((*s == ',' && depth == 0) || !*s) {
            bool end = !*s;
            *s = '\0';
            char *colon = strchr(start, ':');
            assert_non_null(colon);
            assert_true(n < max);
            types[n++] = colon + 1;
            if (end)
                break;
            start = s + 2;
        }
    }
    return n;
}

/* Compares our types for path (shown as `file`) with DuckDB's reader's. */
static void compare(const char *path, const char *file, const char *reader)
{
    char *spec = dry_run(path, "");
    char sql[1200];
    snprintf(sql, sizeof sql,
             "SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM %s('%s'))", reader,
             path);
    char *duck = test_duckdb(HL_NODE, HL_INTEROP_DIR, dir, sql);
    char *types[64];
    size_t n = spec_types(spec, types, 64), i = 0;
    for (char *line = strtok(duck, "\n"); line; line = strtok(NULL, "\n"), i++) {
        char *tab = strchr(line, '\t');
        assert_non_null(tab);
        *tab = '\0';
        if (i >= n)
            fail_msg("%s: DuckDB has more columns than '%s'", file, spec);
        const char *want = difference(file, line);
        if (!want)
            want = ours_of(tab + 1);
        if (strcmp(types[i], want) != 0)
            fail_msg("%s column %s: ours %s, DuckDB %s (want %s)", file, line, types[i], tab + 1,
                     want);
    }
    assert_int_equal(i, n);
    free(duck);
    free(spec);
}

static void agrees_with_duckdb(void **state)
{
    (void)state;
    test_write_file(dir, "written.csv",
                    "id,price,flag,day,at,atz,tod,zip,big,minutes,note\n"
                    "1,1.5,T,2024-01-01,2024-01-01 10:00:00,2024-01-01 10:00:00+02:00,10:00:00,"
                    "00501,99999999999999999999,2024-01-01 10:00,\"a, b\"\n"
                    "2,2,F,2024-02-29,2024-01-01 10:00:00.5,2024-01-01 10:00:00Z,23:59:59,"
                    "10010,1,2024-01-01 11:00,\n");
    char path[1200];
    snprintf(path, sizeof path, "%s/written.csv", dir);
    compare(path, "written.csv", "read_csv_auto");
    char data[512];
    snprintf(data, sizeof data, "%s/tools/node_modules/vega-datasets/data", HL_SOURCE_DIR);
    if (access(data, R_OK) != 0) {
        fprintf(stderr, "vega-datasets not installed (tools/): the real files are skipped\n");
        return;
    }
    static const char *const files[] = {"birdstrikes.csv",     "github.csv",    "unemployment.tsv",
                                        "airports.csv",        "zipcodes.csv",  "weather.csv",
                                        "seattle-weather.csv", "disasters.csv", "stocks.csv"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        snprintf(path, sizeof path, "%s/%s", data, files[i]);
        compare(path, files[i], "read_csv_auto");
    }
    /* movies.json is a JSON array: DuckDB writes it as JSON Lines. */
    char sql[1200];
    snprintf(sql, sizeof sql,
             "COPY (SELECT * FROM read_json_auto('%s/movies.json')) TO '%s/movies.jsonl' "
             "(FORMAT JSON)",
             data, dir);
    free(test_duckdb(HL_NODE, HL_INTEROP_DIR, dir, sql));
    snprintf(path, sizeof path, "%s/movies.jsonl", dir);
    compare(path, "movies.jsonl", "read_json_auto");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(csv_dry_run_creates_nothing),
        cmocka_unit_test(csv_created_and_appended_as_is),
        cmocka_unit_test(jsonl_nested),
        cmocka_unit_test(convert_without_schema_then_parquet),
        cmocka_unit_test(refusals),
        cmocka_unit_test(agrees_with_duckdb),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

/* `hoglake append` input options against a real hoglaked (docs/cli-parquet.md,
 * "Text input"): real-world headers (spaces, '$') mapped with --map, a
 * .tsv and --delimiter, a header-less file with and without --columns, a
 * null marker, standard input through a pipe, JSON Lines members mapped.
 * Each refusal (a two-byte delimiter, a bad --columns, - without
 * --format, unknown headers, all named at once) exits with its code and a
 * clear message and commits nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "harness.h"

#ifndef HOGLAKE_CLI_BIN
#error "HOGLAKE_CLI_BIN must be defined by the build"
#endif

static struct test_db db;
static struct test_server srv;
static PGconn *pg;
static char dir[256];

static void run(struct cli_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void run(struct cli_out *o, const char *fmt, ...)
{
    char args[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    cli_run(o, HOGLAKE_CLI_BIN, srv.base, dir, "%s", args);
}

static void ok(const char *args)
{
    struct cli_out o;
    run(&o, "%s", args);
    cli_out_expect(&o, 0, args);
    cli_out_free(&o);
}

/* Runs the command and checks its exit code and a piece of stderr. */
static void refused(int code, const char *needle, const char *args)
{
    struct cli_out o;
    run(&o, "%s", args);
    cli_out_expect(&o, code, args);
    expect_contains(o.err, needle, args);
    cli_out_free(&o);
}

static int64_t data_files(void)
{
    return sqli("SELECT count(*) FROM hog_data_file WHERE catalog_id = %lld",
                (long long)cat_id("local"));
}

static int cmp_lines(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The table's rows as CSV, lines sorted (files read in any order), CRLF
 * made LF: the header line sorts after rows starting with a digit. */
static void expect_rows(const char *table, const char *want)
{
    struct cli_out o;
    run(&o, "read local.ns.%s --format csv", table);
    cli_out_expect(&o, 0, "read");
    char *lines[64], got[4096] = "";
    size_t n = 0;
    for (char *l = strtok(o.out, "\r\n"); l && n < 64; l = strtok(NULL, "\r\n"))
        lines[n++] = l;
    qsort(lines, n, sizeof *lines, cmp_lines);
    for (size_t i = 0; i < n; i++)
        snprintf(got + strlen(got), sizeof got - strlen(got), "%s\n", lines[i]);
    if (strcmp(got, want) != 0)
        fail_msg("--- got\n%s--- want\n%s", got, want);
    cli_out_free(&o);
}

static int setup(void **state)
{
    (void)state;
    test_stack_up(&db, &srv, &pg, "cli_input", NULL, NULL);
    setenv("HOGLAKE_TOKEN", srv.token, 1);
    test_scratch_dir(dir, sizeof dir, "cli-input");
    ok("catalog create local --data-path file://$PWD/wh");
    ok("namespace create local.ns");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    test_stack_down(&db, &srv, &pg);
    test_remove_tree(dir);
    return 0;
}

static void make_flights(const char *name)
{
    char args[400];
    snprintf(args, sizeof args,
             "table create local.ns.%s --columns 'id:long!, flight_date:date, price:double, "
             "origin:string'",
             name);
    ok(args);
}

/* Headers with spaces and '$', a ';' delimiter, a null marker: mapped. */
static void mapped_headers_and_null_marker(void **state)
{
    (void)state;
    make_flights("flights");
    test_write_file(dir, "flights.csv",
                    "Flight Date;Price $;id;origin\n"
                    "2024-01-01;1.5;1;\"NA\"\n"
                    "2024-01-02;NA;2;SFO\n"
                    "2024-01-03;;3;NA\n");
    ok("append local.ns.flights flights.csv --delimiter ';' --null NA "
       "--map 'Flight Date=flight_date' --map 'Price $=price'");
    /* A quoted "NA" stays text; unquoted NA and an empty field are NULL. */
    expect_rows("flights", "1,2024-01-01,1.5,NA\n"
                           "2,2024-01-02,,SFO\n"
                           "3,2024-01-03,,\n"
                           "id,flight_date,price,origin\n");
}

/* Every unknown header in one message, with the --map to give. */
static void unknown_headers_listed_together(void **state)
{
    (void)state;
    make_flights("unknown");
    test_write_file(dir, "u.csv", "Flight Date,id,Price $,Zone\n2024-01-01,1,2.5,x\n");
    int64_t before = data_files();
    struct cli_out o;
    run(&o, "append local.ns.unknown u.csv");
    cli_out_expect(&o, 1, "unknown headers");
    expect_contains(o.err,
                    "u.csv: the header names 3 columns the table lacks: 'Flight Date', "
                    "'Price $', 'Zone'",
                    "every unknown header");
    expect_contains(o.err, "the table's columns: id, flight_date, price, origin", "the columns");
    expect_contains(o.err, "--map 'Flight Date=flight_date,Price $=price,Zone=COLUMN'",
                    "the --map to give");
    cli_out_free(&o);
    assert_int_equal(data_files(), before);
    /* A --map to a column the table lacks is a usage error. */
    refused(2, "the table has no column 'nope' (--map 'Zone=nope')",
            "append local.ns.unknown u.csv --map 'Zone=nope'");
    /* The suggested map, with Zone given a real column, goes through. */
    ok("append local.ns.unknown u.csv --map 'Flight Date=flight_date,Price $=price,Zone=origin'");
    expect_rows("unknown", "1,2024-01-01,2.5,x\n"
                           "id,flight_date,price,origin\n");
}

/* A .tsv is tab-separated; --delimiter tab and '\t' say the same. */
static void tsv_by_extension(void **state)
{
    (void)state;
    make_flights("tsv");
    test_write_file(dir, "a.tsv", "id\torigin\n1\tSan Jose, CA\n");
    test_write_file(dir, "b.txt", "id\torigin\n2\tx\n");
    test_write_file(dir, "c.csv", "id\torigin\n3\ty\n");
    ok("append local.ns.tsv a.tsv");
    ok("append local.ns.tsv b.txt --format tsv");
    ok("append local.ns.tsv c.csv --delimiter '\\t'");
    expect_rows("tsv", "1,,,\"San Jose, CA\"\n"
                       "2,,,x\n"
                       "3,,,y\n"
                       "id,flight_date,price,origin\n");
}

/* Header-less files: the table's order, or --columns's. */
static void header_less(void **state)
{
    (void)state;
    make_flights("nohead");
    test_write_file(dir, "all.csv", "1,2024-05-01,9.5,LAX\n");
    test_write_file(dir, "some.csv", "LAX,2\nSJC,3\n");
    ok("append local.ns.nohead all.csv --no-header");
    ok("append local.ns.nohead some.csv --no-header --columns origin,id");
    expect_rows("nohead", "1,2024-05-01,9.5,LAX\n"
                          "2,,,LAX\n"
                          "3,,,SJC\n"
                          "id,flight_date,price,origin\n");
    int64_t before = data_files();
    refused(2, "--columns: the table has no column 'zz'",
            "append local.ns.nohead some.csv --no-header --columns origin,zz");
    refused(2, "--columns lacks column 'id', which is required",
            "append local.ns.nohead some.csv --no-header --columns origin");
    refused(2, "--columns names 'id' twice",
            "append local.ns.nohead some.csv --no-header --columns id,id");
    refused(1, "some.csv line 1: 2 fields, but --columns names 3",
            "append local.ns.nohead some.csv --no-header --columns origin,id,price");
    refused(1, "some.csv line 1: 2 fields, but the table has 4 columns",
            "append local.ns.nohead some.csv --no-header");
    refused(2, "give --no-header too", "append local.ns.nohead some.csv --columns origin,id");
    refused(2, "the file has no names to map",
            "append local.ns.nohead some.csv --no-header --map 'a=id'");
    assert_int_equal(data_files(), before);
}

/* Runs `printf TEXT | hoglake --server S ARGS`: stdin is a pipe. */
static void run_piped(struct cli_out *o, const char *text, const char *args)
{
    char cmd[4096], outf[600], errf[600];
    snprintf(outf, sizeof outf, "%s/.pipe.out", dir);
    snprintf(errf, sizeof errf, "%s/.pipe.err", dir);
    snprintf(cmd, sizeof cmd, "cd '%s' && printf '%s' | '%s' --server %s %s >'%s' 2>'%s'", dir,
             text, HOGLAKE_CLI_BIN, srv.base, args, outf, errf);
    int status = system(cmd);
    o->code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    o->out = test_read_text(outf);
    o->err = test_read_text(errf);
}

/* "-" reads standard input, in the format --format gives. */
static void standard_input(void **state)
{
    (void)state;
    make_flights("piped");
    struct cli_out o;
    run_piped(&o, "id,Origin Airport\\n1,SFO\\n",
              "append local.ns.piped - --format csv --map "
              "'Origin Airport=origin'");
    cli_out_expect(&o, 0, "CSV through a pipe");
    expect_contains(o.out, "1 rows in 1 file", "the summary");
    cli_out_free(&o);
    run_piped(&o, "{\"id\":2,\"Origin $\":\"JFK\"}\\n",
              "append local.ns.piped - --format jsonl --map 'Origin $=origin'");
    cli_out_expect(&o, 0, "JSON Lines through a pipe, mapped");
    cli_out_free(&o);
    run_piped(&o, "3\\tBOS\\n",
              "append local.ns.piped - --format tsv --no-header --columns "
              "id,origin");
    cli_out_expect(&o, 0, "header-less TSV through a pipe");
    cli_out_free(&o);
    expect_rows("piped", "1,,,SFO\n"
                         "2,,,JFK\n"
                         "3,,,BOS\n"
                         "id,flight_date,price,origin\n");
    int64_t before = data_files();
    run_piped(&o, "id\\n4\\n", "append local.ns.piped -");
    cli_out_expect(&o, 2, "- without --format");
    expect_contains(o.err, "reading standard input (-) needs --format", "the message");
    cli_out_free(&o);
    refused(2, "Parquet is read at offsets", "append local.ns.piped - --format parquet");
    refused(2, "can be read once", "append local.ns.piped - - --format csv");
    /* Unknown JSON Lines members: all of a row's, in one message. */
    run_piped(&o, "{\"id\":5,\"A B\":1,\"c$\":2}\\n", "append local.ns.piped - --format jsonl");
    cli_out_expect(&o, 1, "unknown members");
    expect_contains(o.err, "stdin line 1: unknown columns 'A B', 'c$'", "every unknown member");
    cli_out_free(&o);
    assert_int_equal(data_files(), before);
}

/* Bad options: exit 2, nothing appended. */
static void bad_options(void **state)
{
    (void)state;
    make_flights("bad");
    test_write_file(dir, "ok.csv", "id\n1\n");
    test_write_file(dir, "ok.jsonl", "{\"id\":1}\n");
    int64_t before = data_files();
    refused(2, "--delimiter takes one ASCII character",
            "append local.ns.bad ok.csv --delimiter ';;'");
    refused(2, "--delimiter takes one ASCII character",
            "append local.ns.bad ok.csv --delimiter '\"'");
    refused(2, "--delimiter takes one ASCII character",
            "append local.ns.bad ok.csv --delimiter \"$(printf '\\302\\247')\"");
    refused(2, "--null applies to CSV input", "append local.ns.bad ok.jsonl --null NA");
    refused(2, "--map 'a': no '=' (expected OLD=NEW)", "append local.ns.bad ok.csv --map a");
    refused(2, "--format takes csv, tsv, json, jsonl or parquet, not 'xml'",
            "append local.ns.bad ok.csv --format xml");
    assert_int_equal(data_files(), before);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(mapped_headers_and_null_marker),
        cmocka_unit_test(unknown_headers_listed_together),
        cmocka_unit_test(tsv_by_extension),
        cmocka_unit_test(header_less),
        cmocka_unit_test(standard_input),
        cmocka_unit_test(bad_options),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

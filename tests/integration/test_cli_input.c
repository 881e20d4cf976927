/* `hoglake append` input options against a real hoglaked (docs/cli-parquet.md,
 * "Text input"): real-world headers (spaces, '$') mapped with --map, a
 * .tsv and --delimiter, a header-less file with and without --columns, a
 * null marker, standard input through a pipe, JSON Lines members mapped;
 * --timestamp-format and --timezone, JSON arrays, gzip and zstd inputs on
 * append and `parquet convert`, partly on vega-datasets' real files.
 * Each refusal (a two-byte delimiter, a bad --columns, - without
 * --format, unknown headers, all named at once, a bad format, an unknown
 * zone, a value no format matches, corrupt or truncated compressed data,
 * a malformed array) exits with its code and a clear message and commits
 * nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "harness.h"

#ifndef HOGLAKE_CLI_BIN
#error "HOGLAKE_CLI_BIN must be defined by the build"
#endif
#ifndef HL_VEGA_DATA
#error "HL_VEGA_DATA must be defined by the build"
#endif

static struct test_db db;
static struct test_server srv;
static PGconn *pg;
static char dir[256];

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
    cli_do(&o, "read local.ns.%s --format csv", table);
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

static void make_flights(const char *name)
{
    char args[400];
    snprintf(args, sizeof args,
             "table create local.ns.%s --columns 'id:long!, flight_date:date, price:double, "
             "origin:string'",
             name);
    cli_ok("%s", args);
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
    cli_ok("append local.ns.flights flights.csv --delimiter ';' --null NA "
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
    cli_do(&o, "append local.ns.unknown u.csv");
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
    cli_refused(2, "the table has no column 'nope' (--map 'Zone=nope')",
                "append local.ns.unknown u.csv --map 'Zone=nope'");
    /* The suggested map, with Zone given a real column, goes through. */
    cli_ok(
        "append local.ns.unknown u.csv --map 'Flight Date=flight_date,Price $=price,Zone=origin'");
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
    cli_ok("append local.ns.tsv a.tsv");
    cli_ok("append local.ns.tsv b.txt --format tsv");
    cli_ok("append local.ns.tsv c.csv --delimiter '\\t'");
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
    cli_ok("append local.ns.nohead all.csv --no-header");
    cli_ok("append local.ns.nohead some.csv --no-header --columns origin,id");
    expect_rows("nohead", "1,2024-05-01,9.5,LAX\n"
                          "2,,,LAX\n"
                          "3,,,SJC\n"
                          "id,flight_date,price,origin\n");
    int64_t before = data_files();
    cli_refused(2, "--columns: the table has no column 'zz'",
                "append local.ns.nohead some.csv --no-header --columns origin,zz");
    cli_refused(2, "--columns lacks column 'id', which is required",
                "append local.ns.nohead some.csv --no-header --columns origin");
    cli_refused(2, "--columns names 'id' twice",
                "append local.ns.nohead some.csv --no-header --columns id,id");
    cli_refused(1, "some.csv line 1: 2 fields, but --columns names 3",
                "append local.ns.nohead some.csv --no-header --columns origin,id,price");
    cli_refused(1, "some.csv line 1: 2 fields, but the table has 4 columns",
                "append local.ns.nohead some.csv --no-header");
    cli_refused(2, "give --no-header too", "append local.ns.nohead some.csv --columns origin,id");
    cli_refused(2, "the file has no names to map",
                "append local.ns.nohead some.csv --no-header --map 'a=id'");
    assert_int_equal(data_files(), before);
}

/* Runs `sh -c PRODUCER | hoglake --server S ARGS` in dir: stdin is a pipe. */
static void run_fed(struct cli_out *o, const char *producer, const char *args)
{
    char cmd[4096], outf[600], errf[600];
    snprintf(outf, sizeof outf, "%s/.pipe.out", dir);
    snprintf(errf, sizeof errf, "%s/.pipe.err", dir);
    snprintf(cmd, sizeof cmd, "cd '%s' && %s | '%s' --server %s %s >'%s' 2>'%s'", dir, producer,
             HOGLAKE_CLI_BIN, srv.base, args, outf, errf);
    int status = system(cmd);
    o->code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    o->out = test_read_text(outf);
    o->err = test_read_text(errf);
}

/* Runs `printf TEXT | hoglake --server S ARGS`. */
static void run_piped(struct cli_out *o, const char *text, const char *args)
{
    char producer[2048];
    snprintf(producer, sizeof producer, "printf '%s'", text);
    run_fed(o, producer, args);
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
    expect_contains(o.out, "1 row in 1 file", "the summary");
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
    cli_refused(2, "Parquet is read at offsets", "append local.ns.piped - --format parquet");
    cli_refused(2, "can be read once", "append local.ns.piped - - --format csv");
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
    cli_refused(2, "--delimiter takes one ASCII character",
                "append local.ns.bad ok.csv --delimiter ';;'");
    cli_refused(2, "--delimiter takes one ASCII character",
                "append local.ns.bad ok.csv --delimiter '\"'");
    cli_refused(2, "--delimiter takes one ASCII character",
                "append local.ns.bad ok.csv --delimiter \"$(printf '\\302\\247')\"");
    cli_refused(2, "--null applies to CSV input", "append local.ns.bad ok.jsonl --null NA");
    cli_refused(2, "--map 'a': no '=' (expected OLD=NEW)", "append local.ns.bad ok.csv --map a");
    cli_refused(2, "--format takes csv, tsv, json, jsonl or parquet, not 'xml'",
                "append local.ns.bad ok.csv --format xml");
    assert_int_equal(data_files(), before);
}

/* ---- dates and times ---- */

/* vega-datasets' file `name` (installed by npm ci --prefix tools). */
static const char *vega(const char *name)
{
    static char path[1024];
    snprintf(path, sizeof path, "%s/%s", HL_VEGA_DATA, name);
    if (access(path, R_OK) != 0)
        fail_msg("%s is missing: run npm ci --prefix tools", path);
    return path;
}

/* github.csv's "2015/01/01 01:00:00" with %Y/%m/%d %H:%M:%S. */
static void timestamp_format_real_csv(void **state)
{
    (void)state;
    cli_ok("table create local.ns.github --columns 'time:timestamp!, count:int'");
    struct cli_out o;
    cli_do(&o, "append local.ns.github '%s' --timestamp-format '%%Y/%%m/%%d %%H:%%M:%%S'",
           vega("github.csv"));
    cli_out_expect(&o, 0, "github.csv");
    expect_contains(o.out, "955 rows in 1 file", "every row");
    cli_out_free(&o);
    cli_do(&o, "read local.ns.github --format csv --where \"time < '2015-01-01T05:00:00'\"");
    cli_out_expect(&o, 0, "read");
    expect_contains(o.out, "2015-01-01T01:00:00.000000,2", "the first row");
    expect_contains(o.out, "2015-01-01T04:00:00.000000,3", "the second row");
    cli_out_free(&o);
    /* Without the format, ISO parsing stays and refuses the value. */
    int64_t before = data_files();
    char args[1200];
    snprintf(args, sizeof args, "append local.ns.github '%s'", vega("github.csv"));
    cli_refused(1, "github.csv line 2: column 'time': expected a timestamp", "%s", args);
    assert_int_equal(data_files(), before);
}

/* Several formats, tried in order, on date and timestamp columns; a value
 * that matches none names them; bad formats are usage errors. */
static void timestamp_formats_in_order(void **state)
{
    (void)state;
    cli_ok("table create local.ns.fmts --columns 'id:long!, d:date, t:timestamp_ms'");
    test_write_file(dir, "fmts.csv",
                    "id,d,t\n"
                    "1,01/02/2015,2015/01/01 01:00\n"
                    "2,2016-02-29,Feb 29 2016 11:59:58.250 PM\n"
                    "3,,\n");
    const char *fmts = "--timestamp-format '%m/%d/%Y' --timestamp-format '%Y-%m-%d' "
                       "--timestamp-format '%Y/%m/%d %H:%M' "
                       "--timestamp-format '%b %d %Y %I:%M:%S.%f %p'";
    char args[1024];
    snprintf(args, sizeof args, "append local.ns.fmts fmts.csv %s", fmts);
    cli_ok("%s", args);
    expect_rows("fmts", "1,2015-01-02,2015-01-01T01:00:00.000\n"
                        "2,2016-02-29,2016-02-29T23:59:58.250\n"
                        "3,,\n"
                        "id,d,t\n");
    int64_t before = data_files();
    test_write_file(dir, "bad.csv", "id,d,t\n4,2015-01-01,\n5,2015-02-30,\n");
    snprintf(args, sizeof args, "append local.ns.fmts bad.csv %s", fmts);
    cli_refused(1,
                "bad.csv line 3: column 'd': matches none of the formats '%m/%d/%Y', '%Y-%m-%d', "
                "'%Y/%m/%d %H:%M', '%b %d %Y %I:%M:%S.%f %p', nor ISO 8601: '2015-02-30' (date)",
                "%s", args);
    /* ISO text still reads after the formats: a T-separated instant none
     * of them matches. */
    test_write_file(dir, "iso.csv", "id,d,t\n7,2015-03-01,2015-03-01T10:00:00\n");
    test_write_file(dir, "frac.csv", "id,t\n6,2015-01-01 00:00:00.0001\n");
    cli_refused(1, "frac.csv line 2: column 't': has digits below the column's time unit", "%s",
                "append local.ns.fmts frac.csv --timestamp-format '%Y-%m-%d %H:%M:%S.%f'");
    cli_refused(2, "--timestamp-format '%Y-%q': unknown directive %q", "%s",
                "append local.ns.fmts fmts.csv --timestamp-format '%Y-%q'");
    cli_refused(2, "needs a year (%Y), a month (%m or %b) and a day (%d)", "%s",
                "append local.ns.fmts fmts.csv --timestamp-format '%H:%M'");
    assert_int_equal(data_files(), before);
    snprintf(args, sizeof args, "append local.ns.fmts iso.csv %s", fmts);
    cli_ok("%s", args);
    assert_int_equal(data_files(), before + 1);
}

/* timestamptz text without an offset: refused by default, taken in
 * --timezone's zone (New York's skipped and repeated hours by PostgreSQL's
 * rule); an offset in the text wins. */
static void timezones(void **state)
{
    (void)state;
    cli_ok("table create local.ns.zoned --columns 'id:long!, at:timestamptz'");
    test_write_file(dir, "ny.csv",
                    "id,at\n"
                    "1,2018-03-11 02:30:00\n"
                    "2,2018-11-04 01:30:00\n"
                    "3,2018-07-01T12:00:00-07:00\n"
                    "4,2045-07-01 12:00:00\n");
    int64_t before = data_files();
    cli_refused(1, "ny.csv line 2: column 'at': a timestamptz needs a UTC offset",
                "append local.ns.zoned ny.csv");
    cli_refused(2, "--timezone: unknown time zone 'America/Nowhere'",
                "append local.ns.zoned ny.csv --timezone America/Nowhere");
    cli_refused(2, "--timezone: '+5' is not a UTC offset",
                "append local.ns.zoned ny.csv --timezone +5");
    assert_int_equal(data_files(), before);
    cli_ok("append local.ns.zoned ny.csv --timezone America/New_York");
    test_write_file(dir, "kolkata.jsonl", "{\"id\":5,\"at\":\"2015/01/01 00:00\"}\n");
    cli_ok("%s", "append local.ns.zoned kolkata.jsonl --timezone +05:30 "
                 "--timestamp-format '%Y/%m/%d %H:%M'");
    expect_rows("zoned", "1,2018-03-11T07:30:00.000000Z\n"
                         "2,2018-11-04T06:30:00.000000Z\n"
                         "3,2018-07-01T19:00:00.000000Z\n"
                         "4,2045-07-01T16:00:00.000000Z\n"
                         "5,2014-12-31T18:30:00.000000Z\n"
                         "id,at\n");
}

/* ---- JSON arrays ---- */

/* flights-2k.json: one array of 2000 objects, "2001/01/01 06:55". */
static void json_array_real(void **state)
{
    (void)state;
    cli_ok("table create local.ns.flights2k --columns 'date:timestamp, delay:int, distance:int, "
           "origin:string, destination:string'");
    struct cli_out o;
    cli_do(&o, "append local.ns.flights2k '%s' --timestamp-format '%%Y/%%m/%%d %%H:%%M'",
           vega("flights-2k.json"));
    cli_out_expect(&o, 0, "flights-2k.json");
    expect_contains(o.out, "2,000 rows in 1 file", "every element");
    cli_out_free(&o);
    cli_do(&o, "read local.ns.flights2k --format csv --where \"date = '2001-01-01T06:55:00'\"");
    cli_out_expect(&o, 0, "read");
    expect_contains(o.out, "2001-01-01T06:55:00.000000,-19,1797,LAX,BNA", "the first element");
    cli_out_free(&o);
    /* convert: the same file into Parquet, read back. */
    cli_do(&o,
           "parquet convert '%s' flights.parquet --schema 'date:timestamp, delay:int, "
           "distance:int, origin:string, destination:string' --timestamp-format "
           "'%%Y/%%m/%%d %%H:%%M'",
           vega("flights-2k.json"));
    cli_out_expect(&o, 0, "convert flights-2k.json");
    cli_out_free(&o);
    cli_do(&o, "parquet cat flights.parquet --limit 1");
    cli_out_expect(&o, 0, "cat");
    expect_contains(o.out, "\"date\":\"2001-01-01T06:55:00.000000\",\"delay\":-19", "row one");
    cli_out_free(&o);
}

/* A movies.json-like array: member names with spaces mapped, "Jun 12
 * 1998" with %b %d %Y, an element spread over lines; JSON Lines in a
 * .json file; errors name the element's line. */
static void json_arrays(void **state)
{
    (void)state;
    cli_ok("table create local.ns.movies --columns 'title:string!, released:date, gross:long'");
    test_write_file(dir, "movies.json",
                    "[\n"
                    "  {\"Title\": \"The Land Girls\", \"Release Date\": \"Jun 12 1998\",\n"
                    "   \"US Gross\": 146083},\n"
                    "  {\"Title\": \"Pi, [a \\\"bracket\\\"]\", \"Release Date\": \"jul 10 1998\", "
                    "\"US Gross\": null}\n"
                    "]\n");
    test_write_file(dir, "lines.json", "{\"Title\":\"Lines\",\"Release Date\":\"JAN 01 2000\"}\n");
    const char *opts = "--map 'Title=title,Release Date=released,US Gross=gross' "
                       "--timestamp-format '%b %d %Y'";
    char args[1024];
    snprintf(args, sizeof args, "append local.ns.movies movies.json lines.json %s", opts);
    cli_ok("%s", args);
    expect_rows("movies", "\"Pi, [a \"\"bracket\"\"]\",1998-07-10,\n"
                          "Lines,2000-01-01,\n"
                          "The Land Girls,1998-06-12,146083\n"
                          "title,released,gross\n");
    int64_t before = data_files();
    test_write_file(dir, "bad-element.json",
                    "[{\"Title\": \"a\", \"Release Date\": \"Jun 12 1998\"},\n"
                    "\n"
                    " {\"Title\": \"b\", \"Release Date\": \"Jun 31 1998\"}]\n");
    snprintf(args, sizeof args, "append local.ns.movies bad-element.json %s", opts);
    cli_refused(1,
                "bad-element.json line 3: column 'released': does not match the format '%b %d %Y' "
                "(day out of range for the month), nor ISO 8601",
                "%s", args);
    test_write_file(dir, "garbage.json", "[{\"Title\": \"a\"}]\n{\"Title\": \"b\"}\n");
    snprintf(args, sizeof args, "append local.ns.movies garbage.json %s", opts);
    cli_refused(1, "garbage.json line 2: text after the array's closing ']'", "%s", args);
    test_write_file(dir, "comma.json", "[{\"Title\": \"a\"},\n]\n");
    snprintf(args, sizeof args, "append local.ns.movies comma.json %s", opts);
    cli_refused(1, "comma.json line 2: expected an element after ','", "%s", args);
    test_write_file(dir, "open.json", "[{\"Title\": \"a\"},\n {\"Title\": \"b\"}\n");
    snprintf(args, sizeof args, "append local.ns.movies open.json %s", opts);
    cli_refused(1, "open.json line 3: the input ends before the array's closing ']'", "%s", args);
    assert_int_equal(data_files(), before);
    /* convert refuses the same, leaving no output. */
    snprintf(args, sizeof args,
             "parquet convert garbage.json g.parquet --schema 'title:string!' --map Title=title");
    cli_refused(1, "garbage.json line 2: text after the array's closing ']'", "%s", args);
    char out[600];
    snprintf(out, sizeof out, "%s/g.parquet", dir);
    assert_int_not_equal(access(out, F_OK), 0);
}

/* ---- compressed inputs ---- */

static void path_in_dir(char *out, size_t size, const char *name)
{
    snprintf(out, size, "%s/%s", dir, name);
}

static void write_gzip(const char *name, const char *text)
{
    char path[600];
    path_in_dir(path, sizeof path, name);
    gzFile g = gzopen(path, "wb");
    assert_non_null(g);
    assert_int_equal(gzwrite(g, text, (unsigned)strlen(text)), (int)strlen(text));
    assert_int_equal(gzclose(g), Z_OK);
}

/* text zstd-compressed, cut to `keep` bytes of the frame (0: all). */
static void write_zstd(const char *name, const char *text, size_t keep)
{
    size_t cap = ZSTD_compressBound(strlen(text));
    char *z = malloc(cap);
    assert_non_null(z);
    size_t n = ZSTD_compress(z, cap, text, strlen(text), 3);
    assert_false(ZSTD_isError(n));
    char path[600];
    path_in_dir(path, sizeof path, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(z, 1, keep ? keep : n, f), keep ? keep : n);
    fclose(f);
    free(z);
}

/* .csv.gz, .tsv.gz, .jsonl.zst and .json.zst by their names, standard
 * input with --input-compression, an odd name with it; corrupt and
 * truncated data fail with the file's name and commit nothing. */
static void compressed_inputs(void **state)
{
    (void)state;
    make_flights("packed");
    write_gzip("a.csv.gz", "id,origin\n1,SFO\n");
    write_gzip("b.tsv.gz", "id\torigin\n2\tJFK\n");
    write_zstd("c.jsonl.zst", "{\"id\":3,\"origin\":\"BOS\"}\n", 0);
    write_zstd("d.json.zst", "[{\"id\":4,\"origin\":\"SEA\"}]", 0);
    write_gzip("e.dat", "id,origin\n5,LAX\n");
    cli_ok("append local.ns.packed a.csv.gz b.tsv.gz c.jsonl.zst d.json.zst");
    cli_ok("append local.ns.packed e.dat --format csv --input-compression gzip");
    struct cli_out o;
    run_fed(&o, "cat a.csv.gz", "append local.ns.packed - --format csv --input-compression gzip");
    cli_out_expect(&o, 0, "gzip through a pipe");
    cli_out_free(&o);
    expect_rows("packed", "1,,,SFO\n"
                          "1,,,SFO\n"
                          "2,,,JFK\n"
                          "3,,,BOS\n"
                          "4,,,SEA\n"
                          "5,,,LAX\n"
                          "id,flight_date,price,origin\n");
    int64_t before = data_files();
    test_write_file(dir, "corrupt.csv.gz", "id,origin\n6,SJC\n");
    cli_refused(1,
                "corrupt.csv.gz line 1: read error: gzip data is corrupt (incorrect header check)",
                "append local.ns.packed a.csv.gz corrupt.csv.gz");
    /* A zstd frame cut short: nothing of it decodes, and the append fails. */
    char text[4096] = "{\"id\":7,\"origin\":\"PDX\"}\n";
    for (int i = 0; i < 100; i++)
        snprintf(text + strlen(text), sizeof text - strlen(text), "{\"id\":%d}\n", 8 + i);
    write_zstd("cut.jsonl.zst", text, 40);
    cli_refused(1, "cut.jsonl.zst line 1: read error: truncated zstd data",
                "append local.ns.packed cut.jsonl.zst");
    cli_refused(2, "--input-compression takes gzip, zstd or none, not 'bzip2'",
                "append local.ns.packed a.csv.gz --input-compression bzip2");
    cli_refused(2, "Parquet is read at offsets: decompress 'x.parquet.gz' first",
                "append local.ns.packed x.parquet.gz");
    assert_int_equal(data_files(), before);
    /* convert reads them too, and leaves nothing after a truncated input. */
    cli_ok("parquet convert d.json.zst d.parquet --schema 'id:long!, origin:string'");
    cli_do(&o, "parquet cat d.parquet");
    cli_out_expect(&o, 0, "cat");
    expect_contains(o.out, "{\"id\":4,\"origin\":\"SEA\"}", "the converted row");
    cli_out_free(&o);
    cli_refused(1, "cut.jsonl.zst line 1: read error: truncated zstd data",
                "parquet convert cut.jsonl.zst cut.parquet --schema 'id:long!, origin:string'");
    char out[600];
    path_in_dir(out, sizeof out, "cut.parquet");
    assert_int_not_equal(access(out, F_OK), 0);
}

/* Both verbs list the shared options. */
static void help_lists_input_options(void **state)
{
    (void)state;
    static const char *const verbs[] = {"append --help", "parquet convert --help"};
    for (size_t i = 0; i < 2; i++) {
        struct cli_out o;
        cli_do(&o, "%s", verbs[i]);
        cli_out_expect(&o, 0, verbs[i]);
        expect_contains(o.out, "--timestamp-format", verbs[i]);
        expect_contains(o.out, "--timezone", verbs[i]);
        expect_contains(o.out, "--input-compression", verbs[i]);
        cli_out_free(&o);
    }
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
        cmocka_unit_test(timestamp_format_real_csv),
        cmocka_unit_test(timestamp_formats_in_order),
        cmocka_unit_test(timezones),
        cmocka_unit_test(json_array_real),
        cmocka_unit_test(json_arrays),
        cmocka_unit_test(compressed_inputs),
        cmocka_unit_test(help_lists_input_options),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

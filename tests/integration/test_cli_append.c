/* `hoglake append` and `hoglake read` against a real hoglaked: CSV, JSON
 * Lines and Parquet inputs in one commit, to a local warehouse and to moto
 * (configured by the AWS_* environment), rows read back through the scan
 * plan and by DuckDB, time travel, and bad input: a wrong type, a missing
 * required column, an unknown table, a server that disappears mid-append.
 * Each refusal exits non-zero with a clear message and leaves no catalog
 * rows; objects left in storage are printed (the commit may have landed). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

#ifndef HOGLAKE_CLI_BIN
#error "HOGLAKE_CLI_BIN must be defined by the build"
#endif

static struct test_db db;
static struct test_server srv;
static PGconn *pg;
static char dir[256];

static void expect_text_eq(const char *got, const char *want)
{
    if (strcmp(got, want) != 0)
        fail_msg("--- got\n%s--- want\n%s", got, want);
}

static int64_t data_files(const char *catalog)
{
    return sqli("SELECT count(*) FROM hog_data_file WHERE catalog_id = %lld",
                (long long)cat_id(catalog));
}

static int cmp_lines(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The lines of text, sorted, with CSV's CRLF line ends made LF. */
static char *sorted_lines(const char *text)
{
    char *copy = strdup(text);
    for (char *c = copy; *c; c++) {
        if (*c == '\r')
            *c = '\n';
    }
    char *lines[256];
    size_t n = 0;
    for (char *l = strtok(copy, "\n"); l && n < 256; l = strtok(NULL, "\n"))
        lines[n++] = l;
    qsort(lines, n, sizeof *lines, cmp_lines);
    size_t len = strlen(text) + 2;
    char *out = calloc(1, len);
    for (size_t i = 0; i < n; i++) {
        strcat(out, lines[i]);
        strcat(out, "\n");
    }
    free(copy);
    return out;
}

static int setup(void **state)
{
    (void)state;
    test_stack_up(&db, &srv, &pg, "cli_append", NULL, NULL);
    /* The commands this program runs act as the server's admin. */
    setenv("HOGLAKE_TOKEN", srv.token, 1);
    test_scratch_dir(dir, sizeof dir, "cli-append");
    cli_session(HOGLAKE_CLI_BIN, srv.base, dir);
    struct cli_out o;
    cli_do(&o, "catalog create local --data-path file://%s/wh", dir);
    cli_out_expect(&o, 0, "catalog create");
    cli_out_free(&o);
    cli_do(&o, "namespace create local.ns");
    cli_out_expect(&o, 0, "namespace create");
    cli_out_free(&o);
    cli_do(&o, "table create local.ns.ev --columns 'id:long!, name:string, amount:decimal(10,2), "
               "ts:timestamptz' --partition-by 'day(ts)'");
    cli_out_expect(&o, 0, "table create");
    cli_out_free(&o);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    test_stack_down(&db, &srv, &pg);
    test_remove_tree(dir);
    return 0;
}

static const char rows_csv[] = "id,name,amount,ts\n"
                               "1,a,1.50,2026-01-01T10:00:00Z\n"
                               "2,,2.25,\n"
                               "3,\"c, quoted\",-0.01,2026-01-02T00:00:00Z\n";
static const char rows_jsonl[] = "{\"id\":4,\"name\":\"d\",\"ts\":\"2026-01-01T23:59:59Z\"}\n"
                                 "{\"id\":5,\"name\":\"e\",\"amount\":\"7.00\"}\n";

static void append_three_formats(void **state)
{
    (void)state;
    test_write_file(dir, "a.csv", rows_csv);
    test_write_file(dir, "b.jsonl", rows_jsonl);
    test_write_file(dir, "c.csv", "id,name\n6,f\n");
    struct cli_out o;
    /* A Parquet input written by another tool (here our own converter,
     * with its own field ids: columns match by name). */
    cli_do(&o, "parquet convert c.csv c.parquet --schema 'name:string, id:long!'");
    cli_out_expect(&o, 0, "convert");
    cli_out_free(&o);

    cli_do(&o, "append local.ns.ev a.csv b.jsonl c.parquet --author cli --message three");
    cli_out_expect(&o, 0, "append");
    expect_contains(o.out, "6 rows in 3 files", "the summary");
    /* Partitions as dates, named as Iceberg names the day field. */
    expect_contains(o.out, "  ts_day=2026-01-01\n", "day 2026-01-01");
    expect_contains(o.out, "  ts_day=2026-01-02\n", "day 2026-01-02");
    expect_contains(o.out, "  ts_day=null\n", "null days");
    cli_out_free(&o);
    assert_int_equal(data_files("local"), 3);

    cli_do(&o, "read local.ns.ev --format csv");
    cli_out_expect(&o, 0, "read");
    char *got = sorted_lines(o.out);
    expect_text_eq(got, "1,a,1.50,2026-01-01T10:00:00.000000Z\n"
                        "2,,2.25,\n"
                        "3,\"c, quoted\",-0.01,2026-01-02T00:00:00.000000Z\n"
                        "4,d,,2026-01-01T23:59:59.000000Z\n"
                        "5,e,7.00,\n"
                        "6,f,,\n"
                        "id,name,amount,ts\n");
    free(got);
    cli_out_free(&o);

    /* --json: the snapshot and every file; time travel to before it. */
    test_write_file(dir, "d.jsonl", "{\"id\":7}\n");
    cli_do(&o, "--json append local.ns.ev d.jsonl");
    cli_out_expect(&o, 0, "append --json");
    json_t *doc = jparse(o.out);
    int64_t snap = jint(doc, "snapshot_id");
    assert_int_equal(snap, head_of("local"));
    assert_int_equal(json_array_size(json_object_get(doc, "files")), 1);
    json_decref(doc);
    cli_out_free(&o);
    cli_do(&o, "read local.ns.ev --snapshot %lld --format jsonl", (long long)snap - 1);
    cli_out_expect(&o, 0, "read --snapshot");
    int lines = 0;
    for (const char *p = o.out; (p = strchr(p, '\n')); p++)
        lines++;
    assert_int_equal(lines, 6);
    cli_out_free(&o);
    cli_do(&o, "read local.ns.ev --limit 2");
    cli_out_expect(&o, 0, "read --limit");
    lines = 0;
    for (const char *p = o.out; (p = strchr(p, '\n')); p++)
        lines++;
    assert_int_equal(lines, 2);
    cli_out_free(&o);
}

static void refusals_change_nothing(void **state)
{
    (void)state;
    int64_t before = data_files("local");
    struct cli_out o;
    test_write_file(dir, "wrong.csv", "id,name\n1,a\nx,b\n");
    cli_do(&o, "append local.ns.ev wrong.csv");
    cli_out_expect(&o, 1, "a wrong type");
    expect_contains(o.err, "wrong.csv line 3: column 'id'", "the wrong type's message");
    expect_contains(o.err, "nothing was committed or uploaded", "what is left");
    cli_out_free(&o);

    test_write_file(dir, "noid.csv", "name\na\n");
    cli_do(&o, "append local.ns.ev noid.csv");
    cli_out_expect(&o, 1, "a missing required column");
    expect_contains(o.err, "id", "the missing column's name");
    cli_out_free(&o);

    cli_do(&o, "append local.ns.nope noid.csv");
    cli_out_expect(&o, 3, "an unknown table");
    cli_out_free(&o);
    cli_do(&o, "append local.ns.ev noid.txt");
    cli_out_expect(&o, 2, "an unknown format");
    cli_out_free(&o);
    cli_do(&o, "append local.ns.ev");
    cli_out_expect(&o, 2, "no input");
    cli_out_free(&o);
    assert_int_equal(data_files("local"), before);
}

/* An input that holds no rows (a header-only CSV, a blank JSON Lines
 * file) appends nothing, partitioned or not: no snapshot, no file row, no
 * object, and the command says so and succeeds. */
static void empty_input_appends_nothing(void **state)
{
    (void)state;
    struct cli_out o;
    cli_do(&o, "table create local.ns.flat --columns 'id:long!, name:string'");
    cli_out_expect(&o, 0, "table create");
    cli_out_free(&o);
    test_write_file(dir, "header.csv", "id,name,amount,ts\n");
    test_write_file(dir, "flat.csv", "id,name\n");
    test_write_file(dir, "blank.jsonl", "\n\n");
    static const char *const runs[] = {"local.ns.ev header.csv", "local.ns.ev blank.jsonl",
                                       "local.ns.flat flat.csv", "local.ns.flat blank.jsonl"};
    char wh[400];
    snprintf(wh, sizeof wh, "%s/wh", dir);
    int64_t objects = test_count_files(wh, "");
    int64_t files = data_files("local");
    int64_t head = sqli("SELECT last_snapshot_id FROM hog_catalog WHERE name = 'local'");
    for (size_t i = 0; i < sizeof runs / sizeof *runs; i++) {
        cli_do(&o, "append %s", runs[i]);
        cli_out_expect(&o, 0, runs[i]);
        expect_text_eq(o.out, "nothing appended: the input holds no rows\n");
        cli_out_free(&o);
    }
    assert_int_equal(sqli("SELECT last_snapshot_id FROM hog_catalog WHERE name = 'local'"), head);
    assert_int_equal(data_files("local"), files);
    assert_int_equal(test_count_files(wh, ""), objects);
}

/* Runs the command and checks its exit code and, unless NULL, that its
 * standard error holds `err_has`. */
static void run_expect(int code, const char *what, const char *args, const char *err_has)
{
    struct cli_out o;
    cli_do(&o, "%s", args);
    cli_out_expect(&o, code, what);
    if (err_has)
        expect_contains(o.err, err_has, what);
    cli_out_free(&o);
}

/* A NOT NULL column relaxed with `table alter --drop-not-null`: the null
 * row refused before is appended after, and the earlier file's rows read
 * back unchanged. */
static void drop_not_null_then_append_nulls(void **state)
{
    (void)state;
    run_expect(0, "table create",
               "table create local.ns.books --columns 'id:long!, title:string!, pages:int!'", NULL);
    test_write_file(dir, "books1.csv", "id,title,pages\n1,Dune,412\n2,Emma,474\n");
    run_expect(0, "append books1", "append local.ns.books books1.csv", NULL);
    int64_t files = data_files("local");
    int64_t before_alter = head_of("local");

    test_write_file(dir, "books2.csv", "id,title,pages\n3,,\n");
    run_expect(1, "a null in a required column", "append local.ns.books books2.csv", "title");
    assert_int_equal(data_files("local"), files);
    run_expect(1, "an unknown column", "table alter local.ns.books --drop-not-null nope",
               "column 'nope' does not exist");
    assert_int_equal(head_of("local"), before_alter);

    run_expect(0, "table alter --drop-not-null",
               "table alter local.ns.books --drop-not-null title --drop-not-null pages", NULL);
    struct cli_out o;
    cli_do(&o, "--json table show local.ns.books --no-totals");
    cli_out_expect(&o, 0, "table show");
    json_t *t = jparse(o.out);
    json_t *cols = json_object_get(t, "columns");
    assert_true(json_is_false(json_object_get(json_array_get(cols, 0), "nullable")));
    assert_true(json_is_true(json_object_get(json_array_get(cols, 1), "nullable")));
    assert_true(json_is_true(json_object_get(json_array_get(cols, 2), "nullable")));
    json_decref(t);
    cli_out_free(&o);

    run_expect(0, "append books2 after the alter", "append local.ns.books books2.csv", NULL);
    assert_int_equal(data_files("local"), files + 1);
    cli_do(&o, "read local.ns.books --format jsonl");
    cli_out_expect(&o, 0, "read");
    char *got = sorted_lines(o.out);
    expect_text_eq(got, "{\"id\":1,\"title\":\"Dune\",\"pages\":412}\n"
                        "{\"id\":2,\"title\":\"Emma\",\"pages\":474}\n"
                        "{\"id\":3,\"title\":null,\"pages\":null}\n");
    free(got);
    cli_out_free(&o);
    /* The first file, read as of before the alter, is as it was. */
    cli_do(&o, "read local.ns.books --snapshot %lld --format jsonl", (long long)before_alter);
    cli_out_expect(&o, 0, "read before the alter");
    got = sorted_lines(o.out);
    expect_text_eq(got, "{\"id\":1,\"title\":\"Dune\",\"pages\":412}\n"
                        "{\"id\":2,\"title\":\"Emma\",\"pages\":474}\n");
    free(got);
    cli_out_free(&o);

    /* A list's required element, relaxed by its path. */
    run_expect(0, "table create tagged",
               "table create local.ns.tagged --columns 'id:long!, tags:list<string!>'", NULL);
    test_write_file(dir, "tags.jsonl", "{\"id\":1,\"tags\":[\"a\",null]}\n");
    run_expect(1, "a null element", "append local.ns.tagged tags.jsonl", "tags");
    run_expect(0, "table alter --drop-not-null tags.element",
               "table alter local.ns.tagged --drop-not-null tags.element", NULL);
    run_expect(0, "append tags", "append local.ns.tagged tags.jsonl", NULL);
    cli_do(&o, "read local.ns.tagged --format jsonl");
    cli_out_expect(&o, 0, "read tagged");
    expect_text_eq(o.out, "{\"id\":1,\"tags\":[\"a\",null]}\n");
    cli_out_free(&o);
}

/* To moto, with the object store configured by the environment. */
static void append_to_s3(void **state)
{
    (void)state;
    const char *endpoint = getenv("HOGLAKE_TEST_MOTO_ENDPOINT");
    if (!endpoint)
        fail_msg("HOGLAKE_TEST_MOTO_ENDPOINT is not set: run the suite through scripts/test.sh");
    setenv("AWS_ENDPOINT_URL", endpoint, 1);
    setenv("AWS_ACCESS_KEY_ID", getenv("HOGLAKE_TEST_S3_ACCESS_KEY"), 1);
    setenv("AWS_SECRET_ACCESS_KEY", getenv("HOGLAKE_TEST_S3_SECRET_KEY"), 1);
    setenv("AWS_REGION", getenv("HOGLAKE_TEST_S3_REGION"), 1);
    struct cli_out o;
    cli_do(&o, "catalog create remote --data-path s3://%s/cli", getenv("HOGLAKE_TEST_S3_BUCKET"));
    cli_out_expect(&o, 0, "catalog create");
    cli_out_free(&o);
    cli_do(&o, "namespace create remote.ns");
    cli_out_free(&o);
    cli_do(&o, "table create remote.ns.t --columns 'id:long!, name:string'");
    cli_out_expect(&o, 0, "table create");
    cli_out_free(&o);
    test_write_file(dir, "s3.jsonl", "{\"id\":1,\"name\":\"x\"}\n{\"id\":2}\n");
    cli_do(&o, "append remote.ns.t s3.jsonl");
    cli_out_expect(&o, 0, "append to S3");
    expect_contains(o.out, "s3://", "an s3 path");
    cli_out_free(&o);
    cli_do(&o, "read remote.ns.t");
    cli_out_expect(&o, 0, "read from S3");
    char *got = sorted_lines(o.out);
    expect_text_eq(got, "{\"id\":1,\"name\":\"x\"}\n{\"id\":2,\"name\":null}\n");
    free(got);
    cli_out_free(&o);
}

static int64_t active_claims(void)
{
    return sqli("SELECT count(*) FROM hog_upload WHERE catalog_id = %lld AND state = 'active'",
                (long long)cat_id("local"));
}

/* The input comes through a pipe; the server stops before it ends, once
 * the append has claimed the objects its first batch goes to. The commit's
 * outcome is then unknown: the object stays, listed, and its claim (which
 * the append could not abandon) is left to expire. */
static void server_disappears(void **state)
{
    (void)state;
    char fifo[512];
    snprintf(fifo, sizeof fifo, "%s/pipe.csv", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    int64_t before = data_files("local"), claims = active_claims();
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' --server %s append local.ns.ev pipe.csv 2>&1", dir,
             HOGLAKE_CLI_BIN, srv.base);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    FILE *w = fopen(fifo, "w"); /* waits for the command to open its input */
    assert_non_null(w);
    /* More than two of the command's batches (65536 rows): its reader
     * waits for whole blocks of input, so the first batch goes out once
     * the second is under way. */
    fputs("id,name,ts\n", w);
    for (int i = 0; i < 140000; i++)
        fprintf(w, "%d,a,2026-05-01T00:00:00Z\n", i);
    fflush(w);
    for (int i = 0; i < 1000 && active_claims() == claims; i++)
        sleep_ms(10);
    int64_t claimed = active_claims(); /* 8 for a partitioned table's first batch */
    assert_true(claimed > claims);
    test_server_stop(&srv);
    fclose(w);
    char out[8192];
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = '\0';
    int status = pclose(p);
    assert_int_equal(WEXITSTATUS(status), 1);
    expect_contains(out, "these objects stay in storage", "the report");
    expect_contains(out, "/wh/data/ns/ev/", "the object's path");
    test_server_start(&srv, &db, NULL);
    assert_int_equal(data_files("local"), before);
    assert_int_equal(active_claims(), claimed);
}

static int64_t table_gets(void)
{
    return test_route_requests(&srv, "GET",
                               "/v1/catalogs/{catalog}/namespaces/{namespace}/tables/{table}");
}

/* A cold `hoglake append` of text reads the table once: the definition it
 * parses the rows with is the read that opened the table, and the commit
 * goes against it. */
static void append_reads_the_table_once(void **state)
{
    (void)state;
    test_write_file(dir, "once.csv", "id,name\n100,once\n");
    int64_t before = table_gets();
    struct cli_out o;
    cli_do(&o, "append local.ns.ev once.csv");
    cli_out_expect(&o, 0, "append");
    cli_out_free(&o);
    assert_int_equal(table_gets() - before, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(append_three_formats),
        cmocka_unit_test(refusals_change_nothing),
        cmocka_unit_test(empty_input_appends_nothing),
        cmocka_unit_test(append_reads_the_table_once),
        cmocka_unit_test(drop_not_null_then_append_nulls),
        cmocka_unit_test(append_to_s3),
        cmocka_unit_test(server_disappears),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

/* The README's walkthrough, as a new user runs it, on five public files
 * from the npm package vega-datasets: flights (a JSON array, timestamps
 * as 2001/01/01 06:55), birdstrikes (headers with spaces and '$'), movies
 * (a JSON array, member names with spaces, dates as Jun 12 1998, a title
 * column mixing numbers and text), unemployment (TSV, rates as .097) and
 * github (timestamps as 2015/01/01 01:00:00). For each: `table create
 * --from FILE` with no schema written, `append` of the file as it is
 * (only the --timestamp-format the create printed), then DuckDB compares
 * what `read` returns with the source file (rows, sums, the earliest
 * instant), `export iceberg` prints its consumer, and `consumers` shows
 * every export caught up. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#ifndef HOGLAKE_CLI_BIN
#error "HOGLAKE_CLI_BIN, HL_NODE, HL_INTEROP_DIR and HL_VEGA_DATA must be defined by the build"
#endif

static struct test_db db;
static struct test_server srv;
static PGconn *pg;
static char dir[256];

static int setup(void **state)
{
    (void)state;
    test_stack_up(&db, &srv, &pg, "cli_walkthrough", NULL, NULL);
    setenv("HOGLAKE_TOKEN", srv.token, 1);
    test_scratch_dir(dir, sizeof dir, "walkthrough");
    cli_session(HOGLAKE_CLI_BIN, srv.base, dir);
    cli_ok("catalog create demo --data-path file://%s/warehouse", dir);
    cli_ok("namespace create demo.vega");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    test_stack_down(&db, &srv, &pg);
    test_remove_tree(dir);
    return 0;
}

/* One dataset: its file, the table it becomes, and a DuckDB expression
 * over the source (`src`, as DuckDB reads the file) that must equal the
 * same over the rows `read` returns (`ours`). */
struct dataset {
    const char *file, *table;
    const char *create;     /* more options of table create: how the export lays it out */
    const char *layout;     /* what the export says of that layout */
    const char *reader;     /* DuckDB's function reading the file */
    const char *source_agg; /* aggregates over the source's columns */
    const char *ours_agg;   /* the same over the table's columns */
};

static const struct dataset datasets[] = {
    {"flights-2k.json", "flights", "--primary-timestamp date --sort-by 'origin, destination'",
     "partitioned by day(date), sorted by origin,destination", "read_json_auto",
     "count(*), sum(delay), sum(distance), min(strptime(date, '%Y/%m/%d %H:%M'))",
     "count(*), sum(delay), sum(distance), min(date)"},
    {"birdstrikes.csv", "birdstrikes", "--primary-timestamp Flight_Date",
     "partitioned by day(Flight_Date), unsorted", "read_csv_auto",
     "count(*), sum(\"Cost Total $\"), count(DISTINCT \"Airport Name\"), min(\"Flight Date\")",
     "count(*), sum(Cost_Total_), count(DISTINCT Airport_Name), min(Flight_Date)"},
    {"movies.json", "movies", "", "unpartitioned, unsorted", "read_json_auto",
     "count(*), sum(\"Production Budget\"), round(sum(\"IMDB Rating\"), 1), "
     "min(strptime(\"Release Date\", '%b %d %Y'))::DATE",
     "count(*), sum(Production_Budget), round(sum(IMDB_Rating), 1), min(Release_Date)"},
    {"unemployment.tsv", "unemployment", "--sort-by id", "unpartitioned, sorted by id",
     "read_csv_auto", "count(*), round(sum(rate), 6), sum(id)",
     "count(*), round(sum(rate), 6), sum(id)"},
    {"github.csv", "github", "--primary-timestamp time", "partitioned by day(time), unsorted",
     "read_csv_auto", "count(*), sum(count), min(time)", "count(*), sum(count), min(time)"},
};
enum { NDATASETS = sizeof datasets / sizeof datasets[0] };

/* The --timestamp-format lines of create's report, as options. */
static void layouts_in(const char *report, char *out, size_t size)
{
    out[0] = '\0';
    size_t n = 0;
    for (const char *p = strstr(report, "--timestamp-format '"); p;
         p = strstr(p + 1, "--timestamp-format '")) {
        size_t len = strcspn(p, "\n");
        if (n + len + 2 >= size)
            fail_msg("too many layouts in:\n%s", report);
        n += (size_t)snprintf(out + n, size - n, " %.*s", (int)len, p);
    }
}

static char *duckdb(const char *sql)
{
    return test_duckdb(HL_NODE, HL_INTEROP_DIR, dir, sql);
}

/* create --from, append, read: the table holds the file's rows. */
static void load(const struct dataset *d)
{
    char path[600], qualified[128], layouts[512];
    snprintf(path, sizeof path, "%s/%s", HL_VEGA_DATA, d->file);
    snprintf(qualified, sizeof qualified, "demo.vega.%s", d->table);
    struct cli_out o;
    cli_do(&o, "table create %s --from '%s' %s", qualified, path, d->create);
    cli_out_expect(&o, 0, d->file);
    /* What was inferred is shown, ready to copy: the columns. */
    expect_contains(o.err, "--columns '", d->file);
    layouts_in(o.err, layouts, sizeof layouts);
    cli_out_free(&o);

    cli_do(&o, "append %s '%s'%s", qualified, path, layouts);
    cli_out_expect(&o, 0, d->file);
    cli_out_free(&o);

    char sql[2400], ours[700];
    snprintf(sql, sizeof sql, "SELECT %s FROM %s('%s')", d->source_agg, d->reader, path);
    char *want = duckdb(sql);
    snprintf(ours, sizeof ours, "%s/%s.parquet", dir, d->table);
    cli_ok("read %s --format parquet --output '%s'", qualified, ours);
    snprintf(sql, sizeof sql, "SELECT %s FROM '%s'", d->ours_agg, ours);
    char *got = duckdb(sql);
    if (strcmp(want, got) != 0)
        fail_msg("%s: the source reads\n%s\nthe table\n%s", d->file, want, got);
    fprintf(stderr, "%s: %s", d->file, got); /* what was compared, for the log */
    free(want);
    free(got);
}

static void five_datasets(void **state)
{
    (void)state;
    for (int i = 0; i < NDATASETS; i++)
        load(&datasets[i]);

    /* Each table exports to Iceberg; the export names its consumer. */
    char consumers[NDATASETS][128];
    for (int i = 0; i < NDATASETS; i++) {
        struct cli_out o;
        cli_do(&o, "export iceberg demo.vega.%s --to file://%s/iceberg/%s", datasets[i].table, dir,
               datasets[i].table);
        cli_out_expect(&o, 0, datasets[i].table);
        expect_contains(o.out, datasets[i].layout, datasets[i].table);
        const char *c = strstr(o.out, "consumer: ");
        if (!c || sscanf(c, "consumer: %127s", consumers[i]) != 1)
            fail_msg("no consumer in:\n%s", o.out);
        cli_out_free(&o);
    }
    /* ... and `consumers` lists each one, caught up with its table. */
    struct cli_out o;
    cli_do(&o, "--json consumers demo");
    cli_out_expect(&o, 0, "consumers");
    json_t *list = jparse(o.out);
    cli_out_free(&o);
    json_t *all = json_object_get(list, "consumers");
    for (int i = 0; i < NDATASETS; i++) {
        const json_t *found = NULL;
        size_t k;
        json_t *c;
        json_array_foreach (all, k, c)
            if (strcmp(jstr(c, "consumer_id"), consumers[i]) == 0)
                found = c;
        if (!found)
            fail_msg("consumer %s not listed", consumers[i]);
        const json_t *offsets = json_object_get(found, "offsets");
        assert_int_equal(json_array_size(offsets), 1);
        assert_int_equal(jint(json_array_get(offsets, 0), "lag"), 0);
    }
    json_decref(list);
    cli_do(&o, "consumers demo");
    cli_out_expect(&o, 0, "consumers");
    for (int i = 0; i < NDATASETS; i++)
        expect_contains(o.out, consumers[i], "the consumers listing");
    cli_out_free(&o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(five_datasets),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

/* Partition values in the CLI's human output against a real hoglaked:
 * append's summary, files and changes name each value by the partition
 * spec its file was written under (after the spec changes too) and show
 * it as a person reads it: dates for the temporal transforms, quoted text,
 * null for NULL, bucket and truncate with their parameter. --json keeps
 * the stored values. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#ifndef HOGLAKE_CLI_BIN
#error "HOGLAKE_CLI_BIN must be defined by the build"
#endif

static struct test_db db;
static struct test_server srv;
static PGconn *pg;
static char dir[256];

/* hoglake ARGS... in the scratch directory. */
#define run(o, ...) cli_run(o, HOGLAKE_CLI_BIN, srv.base, dir, __VA_ARGS__)

static void ok(const char *what, const char *args)
{
    struct cli_out o;
    run(&o, "%s", args);
    cli_out_expect(&o, 0, what);
    cli_out_free(&o);
}

static int setup(void **state)
{
    (void)state;
    test_stack_up(&db, &srv, &pg, "cli_partitions", NULL, NULL);
    setenv("HOGLAKE_TOKEN", srv.token, 1);
    test_scratch_dir(dir, sizeof dir, "cli-partitions");
    char args[400];
    snprintf(args, sizeof args, "catalog create local --data-path file://%s/wh", dir);
    ok("catalog create", args);
    ok("namespace create", "namespace create local.ns");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    test_stack_down(&db, &srv, &pg);
    test_remove_tree(dir);
    return 0;
}

/* The snapshot the last command's "snapshot N:" line names. */
static long long snapshot_of(const char *out)
{
    const char *s = strstr(out, "snapshot ");
    assert_non_null(s);
    return atoll(s + strlen("snapshot "));
}

static void named_by_the_spec_of_each_file(void **state)
{
    (void)state;
    ok("table create", "table create local.ns.p --columns 'id:long!, team:string, "
                       "ts:timestamptz, d:date' --partition-by 'month(ts), team'");
    test_write_file(dir, "a.csv",
                    "id,team,ts,d\n"
                    "1,Government,2024-03-01T13:00:00Z,2024-03-01\n"
                    "2,\"say \"\"hi\"\"\",1969-12-31T23:00:00Z,1969-12-31\n"
                    "3,,,\n");
    struct cli_out o;
    run(&o, "append local.ns.p a.csv");
    cli_out_expect(&o, 0, "append under month(ts), team");
    long long first = snapshot_of(o.out);
    expect_contains(o.out, ": 3 rows in 3 files\n", "the summary");
    expect_contains(o.out, "  ts_month=2024-03/team=\"Government\"\n", "a month and a team");
    expect_contains(o.out, "  ts_month=1969-12/team=\"say \\\"hi\\\"\"\n", "before 1970, quoted");
    expect_contains(o.out, "  ts_month=null/team=null\n", "nulls");
    cli_out_free(&o);

    /* A new spec: later files are named by it, earlier ones by theirs. */
    ok("table alter", "table alter local.ns.p --partition-by 'bucket(4, id), truncate(3, team), "
                      "day(ts), hour(ts), year(d)'");
    test_write_file(dir, "b.csv", "id,team,ts,d\n5,Government,2024-03-01T13:30:00Z,2024-03-01\n");
    run(&o, "append local.ns.p b.csv");
    cli_out_expect(&o, 0, "append under the new spec");
    cli_out_free(&o);
    /* The bucket as stored, from the JSON listing. */
    run(&o, "--json files local.ns.p");
    cli_out_expect(&o, 0, "files --json");
    json_t *files = json_loads(o.out, 0, NULL);
    assert_non_null(files);
    const char *bucket = NULL;
    size_t i;
    json_t *f;
    json_array_foreach (files, i, f) {
        const json_t *pv = json_object_get(f, "partition_values");
        if (json_array_size(pv) == 5)
            bucket = json_string_value(json_array_get(pv, 0));
    }
    assert_non_null(bucket);
    char want[300];
    snprintf(want, sizeof want,
             " id_bucket[4]=%s/team_truncate[3]=\"Gov\"/ts_day=2024-03-01/"
             "ts_hour=2024-03-01-13/d_year=2024 ",
             bucket);
    cli_out_free(&o);

    run(&o, "files local.ns.p");
    cli_out_expect(&o, 0, "files");
    expect_contains(o.out, want, "a file of the new spec");
    expect_contains(o.out, " ts_month=2024-03/team=\"Government\" ", "a file of the first spec");
    expect_contains(o.out, " ts_month=null/team=null ", "nulls of the first spec");
    expect_contains(o.out, "4 files, 4 rows, ", "the totals");
    cli_out_free(&o);
    /* As of the first append: only the first spec's files. */
    run(&o, "files local.ns.p --snapshot %lld", first);
    cli_out_expect(&o, 0, "files --snapshot");
    expect_contains(o.out, " ts_month=1969-12/team=\"say \\\"hi\\\"\" ", "time travel");
    assert_null(strstr(o.out, "id_bucket"));
    cli_out_free(&o);
    /* The changefeed plan names them the same way. */
    run(&o, "changes local.ns.p --from %lld", first - 1);
    cli_out_expect(&o, 0, "changes");
    expect_contains(o.out, want, "changes, the new spec");
    expect_contains(o.out, " ts_month=2024-03/team=\"Government\" ", "changes, the first spec");
    cli_out_free(&o);
    json_decref(files);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(named_by_the_spec_of_each_file),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

/* Retirement (POST /v1/catalogs/{c}/maintenance/retire, `hoglake
 * maintenance retire`, the retirement loop) against real hoglaked
 * processes, PostgreSQL and a file:// warehouse written by `hoglake
 * append`.
 *
 * A dropped table is retired only once its drop is at or below the expiry
 * floor: then it is marked under the catalog lock (the only time the run
 * holds it), and its files are reclaimed page by page without the lock:
 * objects deleted (DVs first), then rows, then its catalog rows; nothing
 * goes through the removal queue, and a live table beside it keeps every
 * file. A path another table names is kept, a failed delete keeps its row
 * for a later run, a table another worker holds is left to it, and two
 * servers' loops retiring while appends commit never delete a referenced
 * object. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "objstore/objstore.h"

#ifndef HOGLAKE_CLI_BIN
#error "HOGLAKE_CLI_BIN must be defined by the build"
#endif

#define CAT "rt"

static struct test_db db;
static struct test_server srv; /* reaches moto too */
static struct objstore *s3;    /* the test's own client of moto */
static PGconn *pg;
static char dir[256]; /* scratch: inputs, and the warehouse under wh/ */

#define cli(o, ...) cli_run((o), HOGLAKE_CLI_BIN, srv.base, dir, __VA_ARGS__)

static void make_table_cli(const char *name)
{
    cli_ok("table create " CAT ".ns.%s --columns 'id:long!, ts:timestamptz' --partition-by "
           "'day(ts)'",
           name);
}

/* Three rows over three days: three files per append. */
static void append_rows(const char *name, int first_id)
{
    char csv[256];
    snprintf(csv, sizeof csv,
             "id,ts\n%d,2026-03-01T10:00:00Z\n%d,2026-03-02T10:00:00Z\n%d,2026-03-03T10:00:00Z\n",
             first_id, first_id + 1, first_id + 2);
    test_write_file(dir, "rows.csv", csv);
    cli_ok("append " CAT ".ns.%s rows.csv", name);
}

static bool object_exists(const char *uri)
{
    struct stat st;
    assert_true(strncmp(uri, "file://", 7) == 0);
    return stat(uri + 7, &st) == 0;
}

/* The paths of a table's file rows (data and DVs), newline-separated
 * (malloc'd). */
static char *paths_of(int64_t table_id)
{
    char sql[512];
    snprintf(sql, sizeof sql,
             "SELECT path FROM hog_data_file WHERE catalog_id = %lld AND table_id = %lld"
             " UNION ALL SELECT path FROM hog_delete_file WHERE catalog_id = %lld"
             " AND table_id = %lld",
             (long long)cat_id(CAT), (long long)table_id, (long long)cat_id(CAT),
             (long long)table_id);
    PGresult *r = PQexec(pg, sql);
    assert_int_equal(PQresultStatus(r), PGRES_TUPLES_OK);
    size_t cap = 1, len = 0;
    for (int i = 0; i < PQntuples(r); i++)
        cap += strlen(PQgetvalue(r, i, 0)) + 1;
    char *out = calloc(1, cap);
    assert_non_null(out);
    for (int i = 0; i < PQntuples(r); i++)
        len += (size_t)sprintf(out + len, "%s\n", PQgetvalue(r, i, 0));
    PQclear(r);
    return out;
}

/* How many of the newline-separated paths exist. */
static int existing(const char *paths)
{
    char *copy = strdup(paths);
    int n = 0;
    for (char *p = strtok(copy, "\n"); p; p = strtok(NULL, "\n"))
        n += object_exists(p);
    free(copy);
    return n;
}

static int count_lines(const char *text)
{
    int n = 0;
    for (const char *c = text; *c; c++)
        n += *c == '\n';
    return n;
}

/* Every snapshot an hour old and a 60 s retention: expiry then moves the
 * floor to head. */
static void expire_catalog_to_head(const char *cat)
{
    cli_ok("catalog set-retention %s 60", cat);
    sql_exec("UPDATE hog_snapshot SET snapshot_time = now() - interval '1 hour'"
             " WHERE catalog_id = %lld",
             (long long)cat_id(cat));
    cli_ok("maintenance expire %s", cat);
    assert_int_equal(sqli("SELECT earliest_snapshot_id FROM hog_catalog WHERE name = '%s'", cat),
                     head_of(cat));
}

static void expire_to_head(void)
{
    expire_catalog_to_head(CAT);
}

static json_t *retire_catalog(const struct test_server *s, const char *cat, const char *query)
{
    char url[400];
    snprintf(url, sizeof url, "%s/v1/catalogs/%s/maintenance/retire%s", s->base, cat, query);
    struct http_result r;
    http_call(&r, "POST", url, NULL, NULL, 0, NULL);
    expect_status(&r, 200);
    json_t *out = json_incref(r.json);
    http_result_free(&r);
    return out;
}

static json_t *retire_on(const struct test_server *s, const char *query)
{
    return retire_catalog(s, CAT, query);
}

static int64_t rows_of_table(const char *relation, int64_t table_id)
{
    return sqli("SELECT count(*) FROM %s WHERE catalog_id = %lld AND table_id = %lld", relation,
                (long long)cat_id(CAT), (long long)table_id);
}

/* ---- setup ---- */

static int setup(void **state)
{
    (void)state;
    const char *moto = test_need_env("HOGLAKE_TEST_MOTO_ENDPOINT");
    const char *region =
        getenv("HOGLAKE_TEST_S3_REGION") ? getenv("HOGLAKE_TEST_S3_REGION") : "us-east-1";
    /* The server takes its keys from AWS_* (moto checks none). */
    setenv("AWS_ACCESS_KEY_ID", "hoglake", 0);
    setenv("AWS_SECRET_ACCESS_KEY", "hoglake-secret", 0);
    struct objstore_config cfg = {.s3_endpoint = moto, .s3_region = region};
    struct hl_error e;
    if (objstore_open(&cfg, &s3, &e) != 0)
        fail_msg("objstore_open: %s", e.message);
    test_db_create(&db, "retirement");
    const char *const extra[] = {
        "--retirement-pause-ms", "10", "--s3-endpoint", moto, "--s3-region", region, NULL};
    test_server_start(&srv, &db, extra);
    pg = test_db_connect(&db);
    test_sql_use(pg);
    setenv("HOGLAKE_TOKEN", srv.token, 1);
    test_scratch_dir(dir, sizeof dir, "retirement");
    cli_session(HOGLAKE_CLI_BIN, srv.base, dir);
    cli_ok("catalog create " CAT " --data-path file://%s/wh", dir);
    cli_ok("%s", "namespace create " CAT ".ns");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    test_stack_down(&db, &srv, &pg);
    test_remove_tree(dir);
    objstore_free(s3);
    return 0;
}

/* ---- tests ---- */

/* Finding 1: after the drop passed the floor, the files of the dropped
 * table stayed on disk and its rows stayed live. Now retire + cleanup
 * reclaim exactly them. */
static void dropped_table_is_retired(void **state)
{
    (void)state;
    make_table_cli("gone");
    make_table_cli("kept");
    append_rows("gone", 1);
    append_rows("gone", 10);
    append_rows("kept", 100);
    int64_t gone = table_id_of(CAT, "ns", "gone"), kept = table_id_of(CAT, "ns", "kept");
    char *kept_paths = paths_of(kept);
    assert_int_equal(count_lines(kept_paths), 3);
    /* A deletion vector on one of gone's files (its object beside them). */
    char dv[400];
    snprintf(dv, sizeof dv, "file://%s/wh/gone-dv.puffin", dir);
    test_write_file(dir, "wh/gone-dv.puffin", "puffin-ish");
    sql_exec("INSERT INTO hog_delete_file (catalog_id, delete_file_id, table_id, data_file_id,"
             " begin_snapshot, path, delete_count, file_size_bytes)"
             " SELECT catalog_id, 900001, table_id, min(data_file_id), max(begin_snapshot), '%s',"
             " 1, 10 FROM hog_data_file WHERE catalog_id = %lld AND table_id = %lld"
             " GROUP BY catalog_id, table_id",
             dv, (long long)cat_id(CAT), (long long)gone);
    char *gone_paths = paths_of(gone);
    assert_int_equal(count_lines(gone_paths), 7);
    assert_int_equal(existing(gone_paths), 7);

    cli_ok("%s", "table drop " CAT ".ns.gone");
    /* A consumer that read gone up to its drop (an offset below the drop
     * would rightly hold the floor, and so the retirement, back). */
    sql_exec("INSERT INTO hog_consumer_offset (catalog_id, consumer_id, table_uuid,"
             " committed_snapshot) SELECT catalog_id, 'c1', table_uuid, dropped_snapshot"
             " FROM hog_table WHERE catalog_id = %lld AND table_id = %lld",
             (long long)cat_id(CAT), (long long)gone);
    /* Not eligible while the floor is below the drop. */
    json_t *r = retire_on(&srv, "");
    assert_int_equal(jint(r, "tables_retired"), 0);
    assert_int_equal(jint(r, "tables_pending"), 0);
    assert_int_equal(jint(r, "batches"), 0);
    json_decref(r);
    assert_int_equal(rows_of_table("hog_data_file", gone), 6);
    assert_int_equal(rows_of_table("hog_file_partition_value", gone), 6); /* a day a file */

    expire_to_head();
    /* Expiry alone leaves them: the state the finding reported. */
    assert_int_equal(sqli("SELECT count(*) FROM hog_data_file WHERE catalog_id = %lld AND"
                          " table_id = %lld AND end_snapshot IS NULL",
                          (long long)cat_id(CAT), (long long)gone),
                     6);
    json_t *st = api_get_json(&srv, "/v1/catalogs/" CAT "/maintenance/status");
    size_t i;
    json_t *task;
    bool seen = false;
    json_array_foreach (json_object_get(st, "tasks"), i, task) {
        if (strcmp(jstr(task, "task"), "retirement") == 0) {
            assert_int_equal(jint(json_object_get(task, "backlog"), "eligible_tables"), 1);
            seen = true;
        }
    }
    assert_true(seen);
    json_decref(st);

    struct cli_out o;
    cli(&o, "maintenance retire " CAT);
    cli_out_expect(&o, 0, "maintenance retire");
    expect_contains(o.out, "tables retired       1 (1 newly marked)", "retire output");
    expect_contains(o.out, "files removed        6 data, 1 delete", "retire output");
    expect_contains(o.out,
                    "objects              removed 7, missing 0, still referenced 0, refused 0, "
                    "failed 0",
                    "retire output");
    expect_contains(o.out, "catalog lock held", "retire output");
    cli_out_free(&o);

    /* The objects and the catalog rows went in the run itself, and nothing
     * passed through the removal queue. */
    assert_int_equal(existing(gone_paths), 0);
    assert_int_equal(sqli("SELECT count(*) FROM hog_table WHERE catalog_id = %lld AND"
                          " table_id = %lld",
                          (long long)cat_id(CAT), (long long)gone),
                     0);
    const char *const relations[] = {
        "hog_data_file",     "hog_delete_file",    "hog_file_partition_value", "hog_column",
        "hog_table_version", "hog_partition_spec", "hog_table_stats"};
    for (size_t k = 0; k < sizeof relations / sizeof relations[0]; k++)
        assert_int_equal(rows_of_table(relations[k], gone), 0);
    assert_int_equal(sqli("SELECT count(*) FROM hog_consumer_offset WHERE catalog_id = %lld",
                          (long long)cat_id(CAT)),
                     0);
    assert_int_equal(sqli("SELECT count(*) FROM hog_file_removal WHERE catalog_id = %lld",
                          (long long)cat_id(CAT)),
                     0);

    assert_int_equal(existing(kept_paths), 3);
    char wh[300];
    snprintf(wh, sizeof wh, "%s/wh", dir);
    assert_int_equal(test_count_files(wh, ".parquet"), 3);
    assert_int_equal(test_count_files(wh, ".puffin"), 0);
    /* The live table still reads whole. */
    cli(&o, "read " CAT ".ns.kept --format csv");
    cli_out_expect(&o, 0, "read kept");
    assert_int_equal(count_lines(o.out), 4);
    cli_out_free(&o);

    /* Recorded, counted, and a second run finds nothing. */
    assert_int_equal(sqli("SELECT count(*) FROM hog_maintenance_run WHERE catalog_id = %lld"
                          " AND task = 'retirement' AND run_trigger = 'manual' AND status = 'ok'"
                          " AND (result->>'tables_retired')::int = 1",
                          (long long)cat_id(CAT)),
                     1);
    struct http_result h;
    api_get(&h, &srv, "/metrics");
    expect_status(&h, 200);
    expect_contains(h.body, "hoglake_tables_retired_total 1", "metrics");
    expect_contains(h.body, "hoglake_files_retired_total{file_kind=\"data\"} 6", "metrics");
    expect_contains(h.body, "hoglake_files_retired_total{file_kind=\"delete\"} 1", "metrics");
    expect_contains(h.body, "hoglake_files_removed_total{result=\"removed\"} 7", "metrics");
    http_result_free(&h);
    r = retire_on(&srv, "");
    assert_int_equal(jint(r, "tables_retired"), 0);
    assert_int_equal(jint(r, "tables_marked"), 0);
    assert_int_equal(jint(r, "batches"), 0);
    json_decref(r);
    free(gone_paths);
    free(kept_paths);
}

/* A table of n file rows (SQL; no objects: their paths are under the
 * warehouse, so each is missing) with `dvs` DVs, dropped past the floor
 * once expire_to_head runs. Returns its id. */
static int64_t dropped_table_with_rows(const char *name, int n, int dvs)
{
    json_t *t = make_table(&srv, CAT, "ns", name, "[{\"name\":\"id\",\"type\":\"long\"}]");
    json_decref(t);
    int64_t c = cat_id(CAT), tid = table_id_of(CAT, "ns", name);
    int64_t base = sqli("UPDATE hog_catalog SET next_file_id = next_file_id + %d"
                        " WHERE catalog_id = %lld RETURNING next_file_id - %d",
                        n + dvs, (long long)c, n + dvs);
    sql_exec("INSERT INTO hog_data_file (catalog_id, data_file_id, table_id, begin_snapshot,"
             " path, record_count, file_size_bytes, row_id_start)"
             " SELECT %lld, %lld + g, %lld, %lld, 'file://%s/wh/never/%s-' || g || '.parquet',"
             " 1, 1, g FROM generate_series(0, %d) g",
             (long long)c, (long long)base, (long long)tid, (long long)head_of(CAT), dir, name,
             n - 1);
    sql_exec("INSERT INTO hog_delete_file (catalog_id, delete_file_id, table_id, data_file_id,"
             " begin_snapshot, path, delete_count, file_size_bytes)"
             " SELECT %lld, %lld + %d + g, %lld, %lld + g, %lld,"
             " 'file://%s/wh/never/%s-' || g || '.puffin', 1, 1 FROM generate_series(0, %d) g",
             (long long)c, (long long)base, n, (long long)tid, (long long)base,
             (long long)head_of(CAT), dir, name, dvs - 1);
    struct http_result r;
    api_delete(&r, &srv, "/v1/catalogs/" CAT "/namespaces/ns/tables/%s", name);
    expect_status(&r, 200);
    http_result_free(&r);
    return tid;
}

static void pages_without_the_queue(void **state)
{
    (void)state;
    int64_t big = dropped_table_with_rows("big", 25, 5);
    expire_to_head();
    /* 30 files in pages of 4: DVs (5) first; the table's rows go with the
     * eighth, short page. The lock is held only to mark the table. */
    json_t *r = retire_on(&srv, "?batch=4");
    assert_int_equal(jint(r, "tables_marked"), 1);
    assert_int_equal(jint(r, "delete_files_removed"), 5);
    assert_int_equal(jint(r, "data_files_removed"), 25);
    assert_int_equal(jint(r, "missing"), 30);
    assert_int_equal(jint(r, "removed") + jint(r, "failed") + jint(r, "refused"), 0);
    assert_int_equal(jint(r, "batches"), 8);
    assert_int_equal(jint(r, "tables_retired"), 1);
    assert_int_equal(jint(r, "tables_pending"), 0);
    assert_true(jint(r, "lock_held_us") > 0);
    assert_false(json_is_true(json_object_get(r, "truncated")));
    json_decref(r);
    assert_int_equal(rows_of_table("hog_data_file", big), 0);
    assert_int_equal(sqli("SELECT count(*) FROM hog_file_removal WHERE catalog_id = %lld",
                          (long long)cat_id(CAT)),
                     0);

    /* Bad input changes nothing. */
    struct http_result h;
    char url[300];
    snprintf(url, sizeof url, "%s/v1/catalogs/" CAT "/maintenance/retire?batch=0", srv.base);
    http_call(&h, "POST", url, NULL, NULL, 0, NULL);
    expect_error(&h, 422, "validation");
    http_result_free(&h);
    snprintf(url, sizeof url, "%s/v1/catalogs/nope/maintenance/retire", srv.base);
    http_call(&h, "POST", url, NULL, NULL, 0, NULL);
    expect_status(&h, 404);
    http_result_free(&h);
    struct cli_out o;
    cli(&o, "maintenance retire " CAT " --batch x");
    assert_int_equal(o.code, 2);
    cli_out_free(&o);
}

/* A failed delete keeps its row (and so the table) for a later run, which
 * does not spin on it; a path outside the data path is refused (never
 * deleted) and its row goes; a path another table names keeps its object
 * and is audited, and the retired row goes. */
static void failed_refused_and_referenced_paths(void **state)
{
    (void)state;
    make_table_cli("owner");
    append_rows("owner", 500);
    int64_t owner = table_id_of(CAT, "ns", "owner");
    char *owner_paths = paths_of(owner);
    char shared[400];
    snprintf(shared, sizeof shared, "%.399s", owner_paths);
    *strchr(shared, '\n') = '\0';
    int64_t t = dropped_table_with_rows("odd", 3, 0);
    int64_t c = cat_id(CAT);
    sql_exec("UPDATE hog_data_file SET path = 'file://relative/not-absolute'"
             " WHERE catalog_id = %lld AND table_id = %lld AND row_id_start = 0",
             (long long)c, (long long)t);
    sql_exec("UPDATE hog_data_file SET path = 'file:///nowhere/outside.parquet'"
             " WHERE catalog_id = %lld AND table_id = %lld AND row_id_start = 1",
             (long long)c, (long long)t);
    sql_exec("UPDATE hog_data_file SET path = '%s'"
             " WHERE catalog_id = %lld AND table_id = %lld AND row_id_start = 2",
             shared, (long long)c, (long long)t);
    expire_to_head();

    json_t *r = retire_on(&srv, "");
    assert_int_equal(jint(r, "failed"), 1);
    assert_int_equal(jint(r, "refused"), 1);
    assert_int_equal(jint(r, "still_referenced"), 1);
    assert_int_equal(jint(r, "data_files_removed"), 2);
    assert_int_equal(jint(r, "batches"), 1);
    assert_int_equal(jint(r, "tables_retired"), 0);
    assert_int_equal(jint(r, "tables_pending"), 1);
    json_decref(r);
    expect_sql("file://relative/not-absolute",
               "SELECT string_agg(path, ',') FROM hog_data_file WHERE catalog_id = %lld"
               " AND table_id = %lld",
               (long long)c, (long long)t);
    assert_int_equal(existing(owner_paths), 3);
    struct http_result h;
    api_get(&h, &srv, "/metrics");
    expect_contains(h.body, "hoglake_files_removed_total{result=\"still_referenced\"} 1",
                    "metrics");
    http_result_free(&h);

    /* Once the delete can succeed, the next run finishes the table. */
    sql_exec("UPDATE hog_data_file SET path = 'file://%s/wh/never/odd-fixed.parquet'"
             " WHERE catalog_id = %lld AND table_id = %lld",
             dir, (long long)c, (long long)t);
    r = retire_on(&srv, "");
    assert_int_equal(jint(r, "tables_marked"), 0);
    assert_int_equal(jint(r, "missing"), 1);
    assert_int_equal(jint(r, "tables_retired"), 1);
    assert_int_equal(jint(r, "tables_pending"), 0);
    json_decref(r);
    assert_int_equal(existing(owner_paths), 3);
    free(owner_paths);
}

/* A marked table whose row another worker holds (its page transaction,
 * here this test's) is skipped, its files untouched; once released the
 * next run reclaims it. */
static void table_held_elsewhere_is_skipped(void **state)
{
    (void)state;
    int64_t t = dropped_table_with_rows("held", 6, 0);
    expire_to_head();
    int64_t c = cat_id(CAT);
    sql_exec("UPDATE hog_table SET retired_at = now() WHERE catalog_id = %lld AND table_id = %lld",
             (long long)c, (long long)t);
    PGconn *other = test_db_connect(&db);
    char sql[300];
    snprintf(sql, sizeof sql,
             "BEGIN; SELECT 1 FROM hog_table WHERE catalog_id = %lld AND table_id = %lld"
             " FOR NO KEY UPDATE",
             (long long)c, (long long)t);
    PGresult *res = PQexec(other, sql);
    assert_int_equal(PQresultStatus(res), PGRES_TUPLES_OK);
    PQclear(res);
    json_t *r = retire_on(&srv, "");
    assert_int_equal(jint(r, "batches"), 0);
    assert_int_equal(jint(r, "tables_pending"), 1);
    json_decref(r);
    assert_int_equal(rows_of_table("hog_data_file", t), 6);
    res = PQexec(other, "COMMIT");
    PQclear(res);
    PQfinish(other);
    r = retire_on(&srv, "");
    assert_int_equal(jint(r, "data_files_removed"), 6);
    assert_int_equal(jint(r, "tables_retired"), 1);
    json_decref(r);
}

/* A table a version-17 server half retired (some rows moved to the queue,
 * the rest still in place, no mark) is marked and finished like any
 * other. */
static void half_retired_table_is_finished(void **state)
{
    (void)state;
    int64_t t = dropped_table_with_rows("half", 10, 0);
    expire_to_head();
    int64_t c = cat_id(CAT);
    sql_exec("WITH gone AS (DELETE FROM hog_data_file WHERE catalog_id = %lld AND table_id = %lld"
             " AND row_id_start < 4 RETURNING path) INSERT INTO hog_file_removal (catalog_id,"
             " path, file_kind, reason) SELECT %lld, path, 'data', 'table_drop_gc' FROM gone",
             (long long)c, (long long)t, (long long)c);
    json_t *r = retire_on(&srv, "");
    assert_int_equal(jint(r, "data_files_removed"), 6);
    assert_int_equal(jint(r, "tables_retired"), 1);
    json_decref(r);
    struct cli_out o;
    cli(&o, "maintenance cleanup " CAT);
    cli_out_expect(&o, 0, "maintenance cleanup");
    expect_contains(o.out, "removed 0, missing 4, still referenced 0", "cleanup output");
    cli_out_free(&o);
}

static bool s3_object_exists(const char *uri)
{
    uint64_t size;
    struct hl_error e;
    if (objstore_head(s3, uri, &size, &e) == 0)
        return true;
    if (e.status != HL_ERR_NOT_FOUND)
        fail_msg("head %s: %s", uri, e.message);
    return false;
}

/* On S3 (moto): a retired table of 1,205 objects (DeleteObjects in more
 * than one request) goes, a live table's object in the same prefix stays,
 * and so does the object of a path the live table also names. */
static void s3_table_retired(void **state)
{
    (void)state;
    enum { N = 1205 };
    char prefix[300], data_path[320];
    snprintf(prefix, sizeof prefix, "s3://%s/retire-%ld-%ld/",
             test_need_env("HOGLAKE_TEST_S3_BUCKET"), (long)getpid(), (long)time(NULL));
    snprintf(data_path, sizeof data_path, "%.*s", (int)strlen(prefix) - 1, prefix);
    struct http_result r;
    make_catalog_at(&srv, "rt_s3", data_path);
    make_namespace(&srv, "rt_s3", "ns");
    json_decref(make_table(&srv, "rt_s3", "ns", "gone", "[{\"name\":\"id\",\"type\":\"long\"}]"));
    json_decref(make_table(&srv, "rt_s3", "ns", "live", "[{\"name\":\"id\",\"type\":\"long\"}]"));
    int64_t c = cat_id("rt_s3"), gone = table_id_of("rt_s3", "ns", "gone"),
            live = table_id_of("rt_s3", "ns", "live");
    char(*uri)[400] = calloc(N + 1, sizeof *uri);
    assert_non_null(uri);
    for (int i = 0; i <= N; i++) {
        snprintf(uri[i], sizeof uri[i], "%sf%05d.parquet", prefix, i);
        struct hl_error e;
        if (objstore_put(s3, uri[i], "parquet-ish", 11, 0, &e) != 0)
            fail_msg("put %s: %s", uri[i], e.message);
    }
    /* gone: f00000..f01204; live: f01205 and, wrongly registered twice,
     * f00000. */
    sql_exec("INSERT INTO hog_data_file (catalog_id, data_file_id, table_id, begin_snapshot,"
             " path, record_count, file_size_bytes, row_id_start)"
             " SELECT %lld, 1000000 + i, CASE WHEN i < %d THEN %lld ELSE %lld END, %lld,"
             " format('%sf%%s.parquet', lpad(i::text, 5, '0')), 1, 11, i"
             " FROM generate_series(0, %d) AS i",
             (long long)c, N, (long long)gone, (long long)live, (long long)head_of("rt_s3"), prefix,
             N);
    sql_exec("INSERT INTO hog_data_file (catalog_id, data_file_id, table_id, begin_snapshot,"
             " path, record_count, file_size_bytes, row_id_start)"
             " VALUES (%lld, 2000000, %lld, %lld, '%s', 1, 11, 0)",
             (long long)c, (long long)live, (long long)head_of("rt_s3"), uri[0]);
    sql_exec("UPDATE hog_catalog SET next_file_id = 2000001 WHERE catalog_id = %lld", (long long)c);
    api_delete(&r, &srv, "/v1/catalogs/rt_s3/namespaces/ns/tables/gone");
    expect_status(&r, 200);
    http_result_free(&r);
    expire_catalog_to_head("rt_s3");

    json_t *res = retire_catalog(&srv, "rt_s3", "");
    assert_int_equal(jint(res, "data_files_removed"), N);
    assert_int_equal(jint(res, "removed"), N - 1);
    assert_int_equal(jint(res, "still_referenced"), 1);
    assert_int_equal(jint(res, "failed") + jint(res, "refused"), 0);
    assert_int_equal(jint(res, "tables_retired"), 1);
    json_decref(res);
    assert_true(s3_object_exists(uri[0]));
    for (int i = 1; i < N; i += 101)
        assert_false(s3_object_exists(uri[i]));
    assert_false(s3_object_exists(uri[N - 1]));
    assert_true(s3_object_exists(uri[N]));
    assert_int_equal(sqli("SELECT count(*) FROM hog_data_file WHERE catalog_id = %lld"
                          " AND table_id = %lld",
                          (long long)c, (long long)gone),
                     0);
    free(uri);
}

/* Two servers' loops retire and clean up while appends commit to a live
 * table: the dropped tables' objects all go, every live file stays, and no
 * two retirement runs on the catalog overlap. */
static void loops_retire_beside_appends(void **state)
{
    (void)state;
    const char *const dropped[] = {"d1", "d2", "d3"};
    char *paths[3];
    make_table_cli("live");
    for (int i = 0; i < 3; i++) {
        make_table_cli(dropped[i]);
        append_rows(dropped[i], 1000 * (i + 1));
        append_rows(dropped[i], 1000 * (i + 1) + 10);
        paths[i] = paths_of(table_id_of(CAT, "ns", dropped[i]));
        assert_int_equal(existing(paths[i]), 6);
        cli_ok("table drop " CAT ".ns.%s", dropped[i]);
    }
    expire_to_head();
    int64_t live = table_id_of(CAT, "ns", "live");
    const char *const extra[] = {"--retirement-interval-ms",
                                 "30",
                                 "--retirement-batch",
                                 "2",
                                 "--retirement-pause-ms",
                                 "0",
                                 "--cleanup-interval-ms",
                                 "30",
                                 NULL};
    struct test_server a, b;
    test_server_start(&a, &db, extra);
    test_server_start(&b, &db, extra);
    for (int k = 0; k < 4; k++)
        append_rows("live", 50000 + 10 * k);
    int64_t c = cat_id(CAT);
    for (int i = 0; i < 400; i++) {
        if (sqli("SELECT count(*) FROM hog_table WHERE catalog_id = %lld AND dropped_snapshot"
                 " IS NOT NULL",
                 (long long)c) == 0 &&
            sqli("SELECT count(*) FROM hog_file_removal WHERE catalog_id = %lld"
                 " AND drained_at IS NULL AND reason = 'table_drop_gc'",
                 (long long)c) == 0)
            break;
        sleep_ms(50);
    }
    test_server_stop(&a);
    test_server_stop(&b);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(existing(paths[i]), 0);
        free(paths[i]);
    }
    char *live_paths = paths_of(live);
    assert_int_equal(count_lines(live_paths), 12);
    assert_int_equal(existing(live_paths), 12);
    free(live_paths);
    assert_int_equal(sqli("SELECT count(*) FROM hog_file_removal WHERE catalog_id = %lld"
                          " AND drained_outcome = 'registered'",
                          (long long)c),
                     0);
    assert_true(sqli("SELECT count(*) FROM hog_maintenance_run WHERE catalog_id = %lld"
                     " AND task = 'retirement' AND run_trigger = 'loop' AND status = 'ok'"
                     " AND (result->>'tables_retired')::int > 0",
                     (long long)c) >= 1);
    assert_int_equal(sqli("SELECT count(*) FROM hog_maintenance_run r1, hog_maintenance_run r2"
                          " WHERE r1.catalog_id = %lld AND r2.catalog_id = r1.catalog_id"
                          " AND r1.run_id < r2.run_id AND r1.task = 'retirement'"
                          " AND r2.task = 'retirement'"
                          " AND r1.started_at < r2.finished_at AND r2.started_at < r1.finished_at",
                          (long long)c),
                     0);
    struct cli_out o;
    cli(&o, "read " CAT ".ns.live --format csv");
    cli_out_expect(&o, 0, "read live");
    assert_int_equal(count_lines(o.out), 13);
    cli_out_free(&o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(dropped_table_is_retired),
        cmocka_unit_test(pages_without_the_queue),
        cmocka_unit_test(failed_refused_and_referenced_paths),
        cmocka_unit_test(table_held_elsewhere_is_skipped),
        cmocka_unit_test(half_retired_table_is_finished),
        cmocka_unit_test(s3_table_retired),
        cmocka_unit_test(loops_retire_beside_appends),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

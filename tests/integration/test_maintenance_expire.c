/* Snapshot expiry against a real hoglaked and PostgreSQL: retention off
 * expires nothing; the floor stops at head, at the batch and (with
 * consumer_floor) at the lowest consumer offset; snapshots, change rows,
 * ended metadata and ended file rows go while their paths are queued;
 * reads and offset commits below the floor answer 410; the ledger, runs and
 * status routes; and two servers' loops sweeping one database never run
 * the same catalog at once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define NS "ns"

static struct test_db db;
static struct test_server srv;
static PGconn *pg;

/* ---- helpers ---- */

/* n data-commit snapshots written with SQL, stamped an hour ago so any
 * retention window leaves them behind. */
static void old_snapshots(const char *cat, int n)
{
    int64_t c = cat_id(cat);
    sql_exec("WITH h AS (SELECT last_snapshot_id AS h, schema_version AS sv FROM hog_catalog"
             " WHERE catalog_id = %lld)"
             " INSERT INTO hog_snapshot (catalog_id, snapshot_id, snapshot_time, schema_version)"
             " SELECT %lld, h.h + g, now() - interval '1 hour', h.sv"
             " FROM h, generate_series(1, %d) g",
             (long long)c, (long long)c, n);
    sql_exec("UPDATE hog_catalog SET last_snapshot_id = last_snapshot_id + %d WHERE catalog_id ="
             " %lld",
             n, (long long)c);
    /* Earlier snapshots (catalog creation, DDL) are old too. */
    sql_exec("UPDATE hog_snapshot SET snapshot_time = now() - interval '1 hour'"
             " WHERE catalog_id = %lld",
             (long long)c);
}

static void set_options(const char *cat, json_t *body)
{
    struct http_result r;
    api_send(&r, &srv, "PATCH", body, "/v1/catalogs/%s/options", cat);
    expect_status(&r, 200);
    http_result_free(&r);
}

static void set_retention(const char *cat, int64_t seconds, bool consumer_floor)
{
    set_options(cat, jpack("{s:I,s:b}", "snapshot_retention_seconds", (json_int_t)seconds,
                           "consumer_floor", consumer_floor));
}

/* A POST without a body to srv's base + path. */
static void post_empty(struct http_result *r, const char *path)
{
    char url[512];
    snprintf(url, sizeof url, "%s%s", srv.base, path);
    http_call(r, "POST", url, NULL, NULL, 0, NULL);
}

/* POST .../maintenance/expire (batch <= 0: none given); returns the body. */
static json_t *expire(const char *cat, int64_t batch)
{
    struct http_result r;
    char path[256];
    if (batch > 0)
        snprintf(path, sizeof path, "/v1/catalogs/%s/maintenance/expire?batch=%lld", cat,
                 (long long)batch);
    else
        snprintf(path, sizeof path, "/v1/catalogs/%s/maintenance/expire", cat);
    post_empty(&r, path);
    expect_status(&r, 200);
    json_t *out = json_incref(r.json);
    http_result_free(&r);
    return out;
}

static int64_t earliest_of(const char *cat)
{
    return sqli("SELECT earliest_snapshot_id FROM hog_catalog WHERE name = '%s'", cat);
}

static int64_t snapshot_rows(const char *cat)
{
    return sqli("SELECT count(*) FROM hog_snapshot WHERE catalog_id = %lld",
                (long long)cat_id(cat));
}

static const char *table_uuid(const char *cat, const char *name)
{
    static char out[8][40];
    static int next;
    json_t *t = make_table(&srv, cat, NS, name, "[{\"name\":\"id\",\"type\":\"long\"}]");
    char *buf = out[next++ % 8];
    snprintf(buf, 40, "%s", jstr(t, "table_uuid"));
    json_decref(t);
    return buf;
}

static void new_catalog(const char *cat)
{
    make_catalog(&srv, cat);
    make_namespace(&srv, cat, NS);
}

/* ---- setup ---- */

static int setup(void **state)
{
    (void)state;
    test_stack_up(&db, &srv, &pg, "maint_expire", NULL, NULL);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    test_stack_down(&db, &srv, &pg);
    return 0;
}

/* ---- tests ---- */

static void retention_disabled_expires_nothing(void **state)
{
    (void)state;
    new_catalog("off");
    old_snapshots("off", 10);
    int64_t before = snapshot_rows("off");
    json_t *r = expire("off", 0);
    assert_int_equal(jint(r, "snapshots_expired"), 0);
    assert_int_equal(jint(r, "new_earliest_snapshot_id"), 0);
    assert_int_equal(jint(r, "data_files_queued"), 0);
    assert_int_equal(jint(r, "delete_files_queued"), 0);
    json_decref(r);
    assert_int_equal(snapshot_rows("off"), before);
    assert_int_equal(earliest_of("off"), 0);
}

static void batch_then_head(void **state)
{
    (void)state;
    const char *cat = "bh";
    new_catalog(cat);
    const char *uuid = table_uuid(cat, "t");
    old_snapshots(cat, 30);
    int64_t head = head_of(cat);
    set_retention(cat, 60, true);
    int64_t rows = snapshot_rows(cat);

    json_t *r = expire(cat, 7);
    assert_int_equal(jint(r, "snapshots_expired"), 7);
    assert_int_equal(jint(r, "new_earliest_snapshot_id"), 7);
    assert_false(json_is_true(json_object_get(r, "floored_by_consumer")));
    json_decref(r);
    assert_int_equal(earliest_of(cat), 7);
    assert_int_equal(snapshot_rows(cat), rows - 7);
    assert_int_equal(sqli("SELECT min(snapshot_id) FROM hog_snapshot WHERE catalog_id = %lld",
                          (long long)cat_id(cat)),
                     7);
    assert_int_equal(sqli("SELECT count(*) FROM hog_snapshot_change WHERE catalog_id = %lld"
                          " AND snapshot_id < 7",
                          (long long)cat_id(cat)),
                     0);

    /* Default batch: all the old snapshots go, but never head. */
    r = expire(cat, 0);
    assert_int_equal(jint(r, "new_earliest_snapshot_id"), head);
    assert_int_equal(jint(r, "snapshots_expired"), head - 7);
    json_decref(r);
    assert_int_equal(snapshot_rows(cat), 1);
    assert_int_equal(earliest_of(cat), head);
    /* Nothing left to do. */
    r = expire(cat, 0);
    assert_int_equal(jint(r, "snapshots_expired"), 0);
    json_decref(r);

    /* Reads and offsets below the floor are gone (410); the floor reads. */
    struct http_result h;
    api_get(&h, &srv, "/v1/catalogs/%s/namespaces?snapshot=%lld", cat, (long long)(head - 1));
    expect_error(&h, 410, "expired");
    http_result_free(&h);
    api_get(&h, &srv, "/v1/catalogs/%s/namespaces?snapshot=%lld", cat, (long long)head);
    expect_status(&h, 200);
    http_result_free(&h);
    api_send(&h, &srv, "PUT", jpack("{s:I}", "snapshot_id", (json_int_t)(head - 1)),
             "/v1/catalogs/%s/consumers/c1/offsets/%s", cat, uuid);
    expect_error(&h, 410, "expired");
    http_result_free(&h);
    api_send(&h, &srv, "PUT", jpack("{s:I}", "snapshot_id", (json_int_t)head),
             "/v1/catalogs/%s/consumers/c1/offsets/%s", cat, uuid);
    expect_status(&h, 200);
    http_result_free(&h);
}

static void recent_snapshots_are_kept(void **state)
{
    (void)state;
    const char *cat = "window";
    new_catalog(cat);
    old_snapshots(cat, 10);
    int64_t first_new = head_of(cat) + 1;
    /* Five snapshots inside the window. */
    sql_exec("INSERT INTO hog_snapshot (catalog_id, snapshot_id, snapshot_time, schema_version)"
             " SELECT catalog_id, last_snapshot_id + g, now(), schema_version"
             " FROM hog_catalog, generate_series(1, 5) g WHERE catalog_id = %lld",
             (long long)cat_id(cat));
    sql_exec("UPDATE hog_catalog SET last_snapshot_id = last_snapshot_id + 5 WHERE catalog_id ="
             " %lld",
             (long long)cat_id(cat));
    set_retention(cat, 600, true);
    json_t *r = expire(cat, 0);
    assert_int_equal(jint(r, "new_earliest_snapshot_id"), first_new);
    json_decref(r);
    assert_int_equal(snapshot_rows(cat), 5);
}

static void consumer_floor(void **state)
{
    (void)state;
    const char *cat = "cf";
    new_catalog(cat);
    const char *uuid = table_uuid(cat, "t");
    old_snapshots(cat, 20);
    int64_t head = head_of(cat);
    struct http_result h;
    api_send(&h, &srv, "PUT", jpack("{s:I}", "snapshot_id", (json_int_t)9),
             "/v1/catalogs/%s/consumers/slow/offsets/%s", cat, uuid);
    expect_status(&h, 200);
    http_result_free(&h);
    set_retention(cat, 60, true);

    json_t *r = expire(cat, 0);
    assert_int_equal(jint(r, "new_earliest_snapshot_id"), 9);
    assert_true(json_is_true(json_object_get(r, "floored_by_consumer")));
    json_decref(r);
    assert_int_equal(earliest_of(cat), 9);
    /* Again: the consumer still holds it. */
    r = expire(cat, 0);
    assert_int_equal(jint(r, "snapshots_expired"), 0);
    json_decref(r);

    /* consumer_floor off: the offset no longer holds the floor. */
    set_options(cat, jpack("{s:b}", "consumer_floor", false));
    r = expire(cat, 0);
    assert_int_equal(jint(r, "new_earliest_snapshot_id"), head);
    assert_false(json_is_true(json_object_get(r, "floored_by_consumer")));
    json_decref(r);
}

/* File and metadata rows: ended at or below the floor go and their paths
 * are queued; the rest stay. */
static void rows_and_paths(void **state)
{
    (void)state;
    const char *cat = "rows";
    new_catalog(cat);
    table_uuid(cat, "t");
    int64_t c = cat_id(cat), tid = table_id_of(cat, NS, "t");
    old_snapshots(cat, 20);
    int64_t head = head_of(cat);
    /* f1: begun at 3, ended at 6 (below the floor). f2: live. f3: ended at
     * head (above the floor reached with batch). DVs: d1 on f1, d2 on f2
     * ended at 5 (superseded by d3, live). */
    sql_exec("INSERT INTO hog_data_file (catalog_id, data_file_id, table_id, begin_snapshot,"
             " end_snapshot, path, record_count, file_size_bytes, row_id_start) VALUES"
             " (%lld, 1001, %lld, 3, 6, 'file:///x/f1.parquet', 1, 1, 0),"
             " (%lld, 1002, %lld, 3, NULL, 'file:///x/f2.parquet', 1, 1, 1),"
             " (%lld, 1003, %lld, 4, %lld, 'file:///x/f3.parquet', 1, 1, 2)",
             (long long)c, (long long)tid, (long long)c, (long long)tid, (long long)c,
             (long long)tid, (long long)head);
    sql_exec("INSERT INTO hog_delete_file (catalog_id, delete_file_id, table_id, data_file_id,"
             " begin_snapshot, end_snapshot, path, delete_count, file_size_bytes) VALUES"
             " (%lld, 2001, %lld, 1001, 4, NULL, 'file:///x/d1.puffin', 1, 1),"
             " (%lld, 2002, %lld, 1002, 4, 5, 'file:///x/d2.puffin', 1, 1),"
             " (%lld, 2003, %lld, 1002, 5, NULL, 'file:///x/d3.puffin', 1, 1)",
             (long long)c, (long long)tid, (long long)c, (long long)tid, (long long)c,
             (long long)tid);
    /* Partition values: they go with their file (no cascade takes them). */
    sql_exec("INSERT INTO hog_file_partition_value (catalog_id, data_file_id, key_index, value,"
             " table_id) SELECT %lld, f, k, f::text || '/' || k, %lld"
             " FROM generate_series(1001, 1003) f, generate_series(0, 1) k",
             (long long)c, (long long)tid);
    /* An ended table version (ended at 1): removed with the floor. */
    int64_t versions =
        sqli("SELECT count(*) FROM hog_table_version WHERE catalog_id = %lld", (long long)c);
    sql_exec("INSERT INTO hog_table_version (catalog_id, table_id, namespace_id, name,"
             " begin_snapshot, end_snapshot, properties)"
             " SELECT catalog_id, table_id, namespace_id, 'old_name', 0, 1, properties"
             " FROM hog_table_version WHERE catalog_id = %lld AND table_id = %lld LIMIT 1",
             (long long)c, (long long)tid);
    set_retention(cat, 60, true);

    json_t *r = expire(cat, 10);
    assert_int_equal(jint(r, "new_earliest_snapshot_id"), 10);
    assert_int_equal(jint(r, "data_files_queued"), 1);
    assert_int_equal(jint(r, "delete_files_queued"), 2);
    json_decref(r);
    expect_sql("1002,1003",
               "SELECT string_agg(data_file_id::text, ',' ORDER BY data_file_id)"
               " FROM hog_data_file WHERE catalog_id = %lld",
               (long long)c);
    expect_sql("2003",
               "SELECT string_agg(delete_file_id::text, ',' ORDER BY delete_file_id)"
               " FROM hog_delete_file WHERE catalog_id = %lld",
               (long long)c);
    expect_sql("1002/0,1002/1,1003/0,1003/1",
               "SELECT string_agg(value, ',' ORDER BY data_file_id, key_index)"
               " FROM hog_file_partition_value WHERE catalog_id = %lld",
               (long long)c);
    expect_sql("data:file:///x/f1.parquet,delete:file:///x/d1.puffin,delete:file:///x/d2.puffin",
               "SELECT string_agg(file_kind || ':' || path, ',' ORDER BY file_kind, path)"
               " FROM hog_file_removal WHERE catalog_id = %lld AND reason = 'snapshot_expiry'"
               " AND drained_at IS NULL",
               (long long)c);
    assert_int_equal(
        sqli("SELECT count(*) FROM hog_table_version WHERE catalog_id = %lld", (long long)c),
        versions);
}

/* An expiry that queues 10,000 paths or more refreshes the queue's
 * planner statistics (autovacuum is off for the queue here, so nothing
 * else can). */
static void bulk_purge_refreshes_queue_statistics(void **state)
{
    (void)state;
    const char *cat = "bulk";
    new_catalog(cat);
    table_uuid(cat, "t");
    int64_t c = cat_id(cat), tid = table_id_of(cat, NS, "t");
    old_snapshots(cat, 5);
    sql_exec("ALTER TABLE hog_file_removal SET (autovacuum_enabled = off)");
    sql_exec("ANALYZE hog_file_removal");
    sql_exec("INSERT INTO hog_data_file (catalog_id, data_file_id, table_id, begin_snapshot,"
             " end_snapshot, path, record_count, file_size_bytes, row_id_start)"
             " SELECT %lld, 500000 + g, %lld, 1, 2, 'file:///x/bulk-' || g || '.parquet', 1, 1, g"
             " FROM generate_series(1, 10000) g",
             (long long)c, (long long)tid);
    set_retention(cat, 60, true);
    json_t *r = expire(cat, 0);
    assert_int_equal(jint(r, "data_files_queued"), 10000);
    json_decref(r);
    int64_t queued = sqli("SELECT count(*) FROM hog_file_removal");
    assert_in_range(
        sqli("SELECT reltuples::bigint FROM pg_class WHERE oid = 'hog_file_removal'::regclass"),
        queued * 9 / 10, queued * 11 / 10);
    sql_exec("ALTER TABLE hog_file_removal RESET (autovacuum_enabled)");
}

/* A table counts each snapshot whose table-scoped changes name it once,
 * however many rows: after expiry, and after a delete of one of two rows
 * of a snapshot (the general check), the maintained count is the rows'. */
#define SNAPSHOTS_IN_ROWS                                                                          \
    "SELECT count(DISTINCT snapshot_id) FROM hog_snapshot_change"                                  \
    " WHERE catalog_id = %lld AND object_id = %lld AND kind LIKE 'table_%%'"
#define SNAPSHOTS_KEPT                                                                             \
    "SELECT snapshot_count FROM hog_table_live_totals WHERE catalog_id = %lld AND table_id = %lld"

static void snapshot_counts_follow_expiry(void **state)
{
    (void)state;
    const char *cat = "counts";
    new_catalog(cat);
    table_uuid(cat, "t");
    int64_t c = cat_id(cat), tid = table_id_of(cat, NS, "t");
    int64_t h0 = head_of(cat);
    old_snapshots(cat, 30);
    /* Every new snapshot inserts into t; every third deletes from it too. */
    sql_exec("INSERT INTO hog_snapshot_change (catalog_id, snapshot_id, kind, object_id)"
             " SELECT %lld, %lld + g, k, %lld FROM generate_series(1, 30) g,"
             " unnest(ARRAY['table_inserted_into', 'table_deleted_from']) k"
             " WHERE k = 'table_inserted_into' OR g %% 3 = 0",
             (long long)c, (long long)h0, (long long)tid);
    int64_t before = sqli(SNAPSHOTS_IN_ROWS, (long long)c, (long long)tid);
    assert_int_equal(sqli(SNAPSHOTS_KEPT, (long long)c, (long long)tid), before);
    set_retention(cat, 60, false);
    json_t *r = expire(cat, h0 + 20);
    json_decref(r);
    int64_t after = sqli(SNAPSHOTS_IN_ROWS, (long long)c, (long long)tid);
    assert_true(after < before);
    assert_int_equal(sqli(SNAPSHOTS_KEPT, (long long)c, (long long)tid), after);
    /* One row of a two-row snapshot: the snapshot still counts. */
    int64_t both = sqli("SELECT min(snapshot_id) FROM hog_snapshot_change WHERE catalog_id = %lld"
                        " AND kind = 'table_deleted_from'",
                        (long long)c);
    assert_true(both > 0);
    sql_exec("DELETE FROM hog_snapshot_change WHERE catalog_id = %lld AND snapshot_id = %lld"
             " AND kind = 'table_deleted_from'",
             (long long)c, (long long)both);
    assert_int_equal(sqli(SNAPSHOTS_KEPT, (long long)c, (long long)tid), after);
    assert_int_equal(sqli(SNAPSHOTS_IN_ROWS, (long long)c, (long long)tid), after);
}

static void ledger_runs_and_status(void **state)
{
    (void)state;
    const char *cat = "ledger";
    new_catalog(cat);
    old_snapshots(cat, 12);
    set_retention(cat, 60, true);
    for (int i = 0; i < 3; i++)
        json_decref(expire(cat, 2));
    json_t *page = api_get_json(&srv, "/v1/catalogs/%s/maintenance/runs?task=expiry&limit=2", cat);
    json_t *runs = json_object_get(page, "runs");
    assert_int_equal(json_array_size(runs), 2);
    assert_true(json_is_true(json_object_get(page, "has_more")));
    json_t *newest = json_array_get(runs, 0);
    assert_string_equal(jstr(newest, "task"), "expiry");
    assert_string_equal(jstr(newest, "trigger"), "manual");
    assert_string_equal(jstr(newest, "status"), "ok");
    assert_string_equal(jstr(newest, "catalog"), cat);
    assert_int_equal(jint(json_object_get(newest, "result"), "new_earliest_snapshot_id"), 6);
    json_int_t oldest_id = jint(json_array_get(runs, 1), "run_id");
    json_int_t newest_id = jint(newest, "run_id");
    json_decref(page);
    page = api_get_json(&srv, "/v1/catalogs/%s/maintenance/runs?before=%lld", cat,
                        (long long)oldest_id);
    assert_int_equal(json_array_size(json_object_get(page, "runs")), 1);
    assert_false(json_is_true(json_object_get(page, "has_more")));
    json_decref(page);

    json_t *st = api_get_json(&srv, "/v1/catalogs/%s/maintenance/status", cat);
    json_t *t0 = json_array_get(json_object_get(st, "tasks"), 0);
    assert_string_equal(jstr(t0, "task"), "expiry");
    json_t *backlog = json_object_get(t0, "backlog");
    assert_int_equal(jint(backlog, "earliest_snapshot_id"), 6);
    assert_int_equal(jint(backlog, "head_snapshot_id"), head_of(cat));
    assert_int_equal(jint(backlog, "snapshot_retention_seconds"), 60);
    assert_int_equal(jint(json_object_get(t0, "last_run"), "run_id"), newest_id);
    assert_non_null(json_object_get(t0, "loop")); /* the default loop is on */
    json_decref(st);

    struct http_result h;
    api_get(&h, &srv, "/v1/catalogs/%s/maintenance/runs?limit=0", cat);
    expect_error(&h, 422, "validation");
    http_result_free(&h);
    api_get(&h, &srv, "/v1/catalogs/%s/maintenance/runs?task=nope", cat);
    expect_error(&h, 422, "validation");
    http_result_free(&h);
    post_empty(&h, "/v1/catalogs/ledger/maintenance/expire?batch=0");
    expect_error(&h, 422, "validation");
    http_result_free(&h);
    post_empty(&h, "/v1/catalogs/nope/maintenance/expire");
    expect_error(&h, 404, "not_found");
    http_result_free(&h);
    api_get(&h, &srv, "/v1/catalogs/nope/maintenance/status");
    expect_error(&h, 404, "not_found");
    http_result_free(&h);

    /* The expired-snapshots counter and the catalog gauges. */
    api_get(&h, &srv, "/metrics");
    expect_status(&h, 200);
    assert_non_null(strstr(h.body, "hoglake_snapshots_expired_total "));
    assert_non_null(strstr(h.body, "hoglake_earliest_snapshot_id{catalog=\"ledger\"} 6"));
    assert_non_null(strstr(h.body, "hoglake_removal_queue_depth{catalog=\"ledger\"} 0"));
    http_result_free(&h);
}

/* One expiry of `cat` (query string `query`) on a server of its own started
 * with HOGLAKE_FAILPOINTS=failpoint and `extra`; returns the 200 body. */
/* One POST .../maintenance/expire<query> on server s; its 200 body. */
static json_t *post_expire(const struct test_server *s, const char *cat, const char *query)
{
    char url[512];
    snprintf(url, sizeof url, "%s/v1/catalogs/%s/maintenance/expire%s", s->base, cat, query);
    struct http_result r;
    http_call(&r, "POST", url, NULL, NULL, 0, NULL);
    expect_status(&r, 200);
    json_t *out = json_incref(r.json);
    http_result_free(&r);
    return out;
}

static json_t *expire_under_failpoint(const char *failpoint, const char *const *extra,
                                      const char *cat, const char *query)
{
    struct test_server f;
    setenv("HOGLAKE_FAILPOINTS", failpoint, 1);
    test_server_start(&f, &db, extra);
    unsetenv("HOGLAKE_FAILPOINTS");
    json_t *out = post_expire(&f, cat, query);
    test_server_stop(&f);
    return out;
}

/* Phase A cancelled by its statement timeout (failpoint: every batch above
 * one times out) is retried with half the batch until it fits. */
static void timeouts_halve_the_batch(void **state)
{
    (void)state;
    const char *cat = "halve";
    new_catalog(cat);
    old_snapshots(cat, 20);
    set_retention(cat, 60, true);
    json_t *r = expire_under_failpoint("expiry-advance-timeout", NULL, cat, "?batch=8");
    assert_int_equal(jint(r, "advance_halvings"), 3);
    assert_int_equal(jint(r, "snapshots_expired"), 1);
    assert_int_equal(jint(r, "new_earliest_snapshot_id"), 1);
    json_decref(r);
    assert_int_equal(earliest_of(cat), 1);
}

/* Purge pages that time out (failpoint: every page above one row) are
 * halved down to one row, and the purge still completes. */
static void failing_pages_are_halved(void **state)
{
    (void)state;
    const char *cat = "pagehalve";
    new_catalog(cat);
    table_uuid(cat, "t");
    int64_t c = cat_id(cat), tid = table_id_of(cat, NS, "t");
    old_snapshots(cat, 10);
    sql_exec("INSERT INTO hog_data_file (catalog_id, data_file_id, table_id, begin_snapshot,"
             " end_snapshot, path, record_count, file_size_bytes, row_id_start)"
             " SELECT %lld, 500 + g, %lld, 3, 4, 'file:///x/p' || g || '.parquet', 1, 1, g"
             " FROM generate_series(1, 3) g",
             (long long)c, (long long)tid);
    set_retention(cat, 60, true);
    const char *const extra[] = {"--expiry-purge-page", "4", NULL};
    struct test_server f;
    setenv("HOGLAKE_FAILPOINTS", "expiry-purge-timeout", 1);
    test_server_start(&f, &db, extra);
    unsetenv("HOGLAKE_FAILPOINTS");
    json_t *r = post_expire(&f, cat, "");
    /* 4 -> 2 -> 1, then three one-row pages and an empty one per arm. */
    assert_int_equal(jint(r, "purge_page"), 4);
    assert_int_equal(jint(r, "purge_halvings"), 2);
    assert_int_equal(jint(r, "purge_failures"), 2);
    assert_int_equal(jint(r, "data_files_queued"), 3);
    json_decref(r);
    /* The size it settled on is where the next run starts: no failure. */
    r = post_expire(&f, cat, "");
    assert_int_equal(jint(r, "purge_page"), 1);
    assert_int_equal(jint(r, "purge_failures"), 0);
    json_decref(r);
    /* A clean run lets the next one try twice the size (here it fails
     * again and settles back on one row). */
    r = post_expire(&f, cat, "");
    assert_int_equal(jint(r, "purge_page"), 2);
    assert_int_equal(jint(r, "purge_halvings"), 1);
    json_decref(r);
    test_server_stop(&f);
    assert_int_equal(
        sqli("SELECT count(*) FROM hog_data_file WHERE catalog_id = %lld", (long long)c), 0);
    assert_int_equal(
        sqli("SELECT count(*) FROM hog_file_removal WHERE catalog_id = %lld", (long long)c), 3);
}

/* The CLI: set-retention, maintenance expire/runs/status. */
static void cli_commands(void **state)
{
    (void)state;
    const char *cat = "clicat";
    new_catalog(cat);
    old_snapshots(cat, 8);
    int64_t head = head_of(cat);
    struct cli_out o;
    cli_run(&o, HOGLAKE_CLI_BIN, srv.base, "/tmp",
            "catalog set-retention %s 120 --consumer-floor off", cat);
    assert_int_equal(o.code, 0);
    assert_non_null(strstr(o.out, "120 s"));
    cli_out_free(&o);
    assert_int_equal(sqli("SELECT snapshot_retention_seconds FROM hog_catalog WHERE name = '%s'"
                          " AND NOT consumer_floor",
                          cat),
                     120);
    cli_run(&o, HOGLAKE_CLI_BIN, srv.base, "/tmp", "maintenance expire %s --batch 3", cat);
    assert_int_equal(o.code, 0);
    assert_non_null(strstr(o.out, "snapshots expired    3"));
    cli_out_free(&o);
    cli_run(&o, HOGLAKE_CLI_BIN, srv.base, "/tmp", "--json maintenance expire %s", cat);
    assert_int_equal(o.code, 0);
    json_t *r = jparse(o.out);
    assert_int_equal(jint(r, "new_earliest_snapshot_id"), head);
    json_decref(r);
    cli_out_free(&o);
    cli_run(&o, HOGLAKE_CLI_BIN, srv.base, "/tmp", "maintenance runs %s --task expiry", cat);
    assert_int_equal(o.code, 0);
    assert_non_null(strstr(o.out, "manual"));
    cli_out_free(&o);
    cli_run(&o, HOGLAKE_CLI_BIN, srv.base, "/tmp", "maintenance status %s", cat);
    assert_int_equal(o.code, 0);
    assert_non_null(strstr(o.out, "expiry"));
    assert_non_null(strstr(o.out, "\"head_snapshot_id\":"));
    cli_out_free(&o);
    cli_run(&o, HOGLAKE_CLI_BIN, srv.base, "/tmp", "catalog set-retention %s none", cat);
    assert_int_equal(o.code, 0);
    cli_out_free(&o);
    assert_int_equal(
        sqli("SELECT count(*) FROM hog_catalog WHERE name = '%s' AND snapshot_retention_seconds"
             " IS NULL",
             cat),
        1);
    cli_run(&o, HOGLAKE_CLI_BIN, srv.base, "/tmp", "maintenance expire nope");
    assert_int_not_equal(o.code, 0);
    cli_out_free(&o);
}

/* Two more servers whose loops sweep every 50 ms, three snapshots a run:
 * the catalog drains to head by the loops alone, and the ledger shows no
 * two runs on it overlapping and exactly the expired snapshots. */
static void loops_on_two_servers(void **state)
{
    (void)state;
    const char *cat = "loops";
    new_catalog(cat);
    old_snapshots(cat, 60);
    int64_t head = head_of(cat), rows = snapshot_rows(cat);
    set_retention(cat, 60, true);
    const char *const extra[] = {"--expiry-interval-ms", "50", "--expiry-batch", "3", NULL};
    struct test_server a, b;
    test_server_start(&a, &db, extra);
    test_server_start(&b, &db, extra);
    for (int i = 0; i < 400 && earliest_of(cat) != head; i++)
        sleep_ms(50);
    test_server_stop(&a);
    test_server_stop(&b);
    assert_int_equal(earliest_of(cat), head);
    int64_t c = cat_id(cat);
    assert_true(sqli("SELECT count(*) FROM hog_maintenance_run WHERE catalog_id = %lld"
                     " AND task = 'expiry' AND run_trigger = 'loop' AND status = 'ok'",
                     (long long)c) >= 20);
    assert_int_equal(sqli("SELECT sum((result->>'snapshots_expired')::bigint)"
                          " FROM hog_maintenance_run WHERE catalog_id = %lld",
                          (long long)c),
                     rows - 1);
    assert_int_equal(sqli("SELECT count(*) FROM hog_maintenance_run r1, hog_maintenance_run r2"
                          " WHERE r1.catalog_id = %lld AND r2.catalog_id = r1.catalog_id"
                          " AND r1.run_id < r2.run_id AND r1.task = r2.task"
                          " AND r1.started_at < r2.finished_at AND r2.started_at < r1.finished_at",
                          (long long)c),
                     0);
    assert_int_equal(sqli("SELECT max((result->>'snapshots_expired')::bigint)"
                          " FROM hog_maintenance_run WHERE catalog_id = %lld",
                          (long long)c),
                     3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(retention_disabled_expires_nothing),
        cmocka_unit_test(batch_then_head),
        cmocka_unit_test(recent_snapshots_are_kept),
        cmocka_unit_test(consumer_floor),
        cmocka_unit_test(rows_and_paths),
        cmocka_unit_test(bulk_purge_refreshes_queue_statistics),
        cmocka_unit_test(snapshot_counts_follow_expiry),
        cmocka_unit_test(ledger_runs_and_status),
        cmocka_unit_test(timeouts_halve_the_batch),
        cmocka_unit_test(failing_pages_are_halved),
        cmocka_unit_test(cli_commands),
        cmocka_unit_test(loops_on_two_servers),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

/* Table truncate over HTTP against a real hoglaked and PostgreSQL: the
 * required incarnation guard and every error, the one DDL snapshot with its
 * two change rows, exactly the live data files and deletion vectors ended
 * (ended rows and other tables untouched), time travel before the truncate
 * still seeing the files, the incarnation and the row-id allocator kept,
 * and a second truncate making another snapshot.
 *
 * The data commit endpoint is not exercised here: file and deletion-vector
 * rows are written with SQL exactly as a data commit writes them (a
 * snapshot without a schema_version bump, a change row, ids from the
 * catalog's file allocator, row ids from hog_table_stats). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define CAT "trc"
#define NS "ns"

static struct test_db db;
static struct test_server srv;
static PGconn *pg;

/* ---- helpers ---- */

static int64_t schema_version_of(const char *cat)
{
    return sqli("SELECT schema_version FROM hog_catalog WHERE name = '%s'", cat);
}

/* POST .../tables/{t}/truncate with an optional raw query string. */
static void truncate_call(struct http_result *r, const char *cat, const char *ns, const char *table,
                          const char *query)
{
    char url[1024];
    snprintf(url, sizeof url, "%s/v1/catalogs/%s/namespaces/%s/tables/%s/truncate%s%s", srv.base,
             cat, ns, table, query ? "?" : "", query ? query : "");
    http_call(r, "POST", url, NULL, NULL, 0, NULL);
}

static json_t *truncate_ok(const char *cat, const char *ns, const char *table, const char *uuid)
{
    char q[128];
    snprintf(q, sizeof q, "expected_table_uuid=%s", uuid);
    struct http_result r;
    truncate_call(&r, cat, ns, table, q);
    expect_status(&r, 200);
    json_t *out = json_incref(r.json);
    http_result_free(&r);
    return out;
}

static const char *uuid_of(json_t *table)
{
    return jstr(table, "table_uuid");
}

/* A data-commit snapshot written with SQL: the head advances, the
 * snapshot row keeps the catalog's schema_version, and one change row of
 * `kind` names the table. Returns the snapshot id. */
static int64_t sql_data_snapshot(int64_t table_id, const char *kind)
{
    int64_t c = cat_id(CAT);
    int64_t snap = sqli("UPDATE hog_catalog SET last_snapshot_id = last_snapshot_id + 1"
                        " WHERE catalog_id = %lld RETURNING last_snapshot_id",
                        (long long)c);
    sql_exec("INSERT INTO hog_snapshot (catalog_id, snapshot_id, snapshot_time, schema_version)"
             " SELECT catalog_id, last_snapshot_id, clock_timestamp(), schema_version"
             " FROM hog_catalog WHERE catalog_id = %lld",
             (long long)c);
    sql_exec("INSERT INTO hog_snapshot_change (catalog_id, snapshot_id, kind, object_id)"
             " VALUES (%lld, %lld, '%s', %lld)",
             (long long)c, (long long)snap, kind, (long long)table_id);
    return snap;
}

static int64_t next_file_id(void)
{
    return sqli("UPDATE hog_catalog SET next_file_id = next_file_id + 1 WHERE catalog_id = %lld"
                " RETURNING next_file_id - 1",
                (long long)cat_id(CAT));
}

/* Registers one data file at `snap` the way a commit does; returns its id. */
static int64_t sql_add_file(int64_t table_id, int64_t snap, int64_t records, int64_t bytes)
{
    int64_t c = cat_id(CAT), fid = next_file_id();
    int64_t row0 = sqli("UPDATE hog_table_stats SET next_row_id = next_row_id + %lld,"
                        " record_count = record_count + %lld,"
                        " file_size_bytes = file_size_bytes + %lld"
                        " WHERE catalog_id = %lld AND table_id = %lld RETURNING next_row_id - %lld",
                        (long long)records, (long long)records, (long long)bytes, (long long)c,
                        (long long)table_id, (long long)records);
    sql_exec("INSERT INTO hog_data_file (catalog_id, data_file_id, table_id, begin_snapshot,"
             " path, record_count, file_size_bytes, footer_size, row_id_start, stats_state)"
             " VALUES (%lld, %lld, %lld, %lld, 'file:///tmp/trc/t%lld/f%lld.parquet', %lld, %lld,"
             " 8, %lld, 'pending')",
             (long long)c, (long long)fid, (long long)table_id, (long long)snap,
             (long long)table_id, (long long)fid, (long long)records, (long long)bytes,
             (long long)row0);
    return fid;
}

/* A deletion vector on `file` at `snap`, superseding the live one. */
static int64_t sql_add_dv(int64_t table_id, int64_t file, int64_t snap, int64_t count)
{
    int64_t c = cat_id(CAT), id = next_file_id();
    sql_exec("UPDATE hog_delete_file SET end_snapshot = %lld WHERE catalog_id = %lld"
             " AND data_file_id = %lld AND end_snapshot IS NULL",
             (long long)snap, (long long)c, (long long)file);
    sql_exec("INSERT INTO hog_delete_file (catalog_id, delete_file_id, table_id, data_file_id,"
             " begin_snapshot, path, delete_count, file_size_bytes)"
             " VALUES (%lld, %lld, %lld, %lld, %lld, 'file:///tmp/trc/t%lld/d%lld.puffin', %lld,"
             " 100)",
             (long long)c, (long long)id, (long long)table_id, (long long)file, (long long)snap,
             (long long)table_id, (long long)id, (long long)count);
    return id;
}

/* Comma-separated ids of the table's data files (or DVs) visible at snap. */
static void expect_visible(const char *expected, const char *relation, const char *id_col,
                           int64_t table_id, int64_t snap)
{
    expect_sql(expected,
               "SELECT coalesce(string_agg(%s::text, ',' ORDER BY %s), '') FROM %s"
               " WHERE catalog_id = %lld AND table_id = %lld"
               " AND hog_visible(begin_snapshot, end_snapshot, %lld)",
               id_col, id_col, relation, (long long)cat_id(CAT), (long long)table_id,
               (long long)snap);
}

static void expect_files_at(const char *expected, int64_t table_id, int64_t snap)
{
    expect_visible(expected, "hog_data_file", "data_file_id", table_id, snap);
}

static void expect_dvs_at(const char *expected, int64_t table_id, int64_t snap)
{
    expect_visible(expected, "hog_delete_file", "delete_file_id", table_id, snap);
}

static int64_t end_of(const char *relation, const char *id_col, int64_t id)
{
    return sqli("SELECT end_snapshot FROM %s WHERE catalog_id = %lld AND %s = %lld", relation,
                (long long)cat_id(CAT), id_col, (long long)id);
}

/* The hog_table_stats row as text. */
static void stats_text(int64_t table_id, char *out, size_t size)
{
    char sql[512];
    snprintf(sql, sizeof sql,
             "SELECT record_count || '/' || file_size_bytes || '/' || next_row_id"
             " FROM hog_table_stats WHERE catalog_id = %lld AND table_id = %lld",
             (long long)cat_id(CAT), (long long)table_id);
    PGresult *r = PQexec(pg, sql);
    if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1)
        fail_msg("stats query failed: %s", PQerrorMessage(pg));
    snprintf(out, size, "%s", PQgetvalue(r, 0, 0));
    PQclear(r);
}

static json_t *get_table(const char *table, int64_t snap)
{
    if (snap < 0)
        return api_get_json(&srv, "/v1/catalogs/" CAT "/namespaces/" NS "/tables/%s", table);
    return api_get_json(&srv, "/v1/catalogs/" CAT "/namespaces/" NS "/tables/%s?snapshot=%lld",
                        table, (long long)snap);
}

static const char *cols = "[{'name':'id','type':'long'}]";

static json_t *create_table(const char *name)
{
    char *c = dq(cols);
    json_t *t = make_table(&srv, CAT, NS, name, c);
    free(c);
    return t;
}

/* ---- setup ---- */

static int setup(void **state)
{
    (void)state;
    test_stack_up(&db, &srv, &pg, "truncate", CAT, NS);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    test_stack_down(&db, &srv, &pg);
    return 0;
}

/* ---- tests ---- */

static void truncate_ends_exactly_the_live_rows(void **state)
{
    (void)state;
    json_t *t = create_table("events");
    json_t *other = create_table("other");
    int64_t tid = table_id_of(CAT, NS, "events"), oid = table_id_of(CAT, NS, "other");
    char uuid[64];
    snprintf(uuid, sizeof uuid, "%s", uuid_of(t));

    /* s1: files a, b. s2: DV on a. s3: file c; b retired (as compaction
     * would); a's DV superseded. other table: one live file. */
    int64_t s1 = sql_data_snapshot(tid, "table_inserted_into");
    int64_t a = sql_add_file(tid, s1, 100, 1000), b = sql_add_file(tid, s1, 50, 500);
    int64_t s2 = sql_data_snapshot(tid, "table_deleted_from");
    int64_t dv1 = sql_add_dv(tid, a, s2, 3);
    int64_t s3 = sql_data_snapshot(tid, "table_inserted_into");
    int64_t c = sql_add_file(tid, s3, 25, 250);
    sql_exec("UPDATE hog_data_file SET end_snapshot = %lld WHERE catalog_id = %lld"
             " AND data_file_id = %lld",
             (long long)s3, (long long)cat_id(CAT), (long long)b);
    int64_t dv2 = sql_add_dv(tid, a, s3, 7);
    int64_t s4 = sql_data_snapshot(oid, "table_inserted_into");
    int64_t o1 = sql_add_file(oid, s4, 10, 100);

    char before_stats[128], before_other[128];
    stats_text(tid, before_stats, sizeof before_stats);
    stats_text(oid, before_other, sizeof before_other);
    assert_string_equal(before_stats, "175/1750/175");
    int64_t h0 = head_of(CAT), sv0 = schema_version_of(CAT);
    assert_int_equal(h0, s4);
    json_t *pre = get_table("events", -1);
    assert_int_equal(jint(pre, "record_count"), 125);
    assert_int_equal(jint(pre, "file_count"), 2);
    json_decref(pre);
    int64_t version_rows = sqli("SELECT count(*) FROM hog_table_version WHERE catalog_id = %lld"
                                " AND table_id = %lld",
                                (long long)cat_id(CAT), (long long)tid);

    json_t *res = truncate_ok(CAT, NS, "events", uuid);
    int64_t T = jint(res, "snapshot_id");
    assert_int_equal(T, h0 + 1);
    assert_int_equal(jint(res, "schema_version"), sv0 + 1);
    assert_int_equal(json_object_size(res), 2);
    json_decref(res);
    expect_api_head(&srv, CAT, T, sv0 + 1);
    assert_int_equal(sqli("SELECT schema_version FROM hog_snapshot WHERE catalog_id = %lld AND"
                          " snapshot_id = %lld",
                          (long long)cat_id(CAT), (long long)T),
                     sv0 + 1);

    /* Exactly two change rows, both naming the table. */
    assert_int_equal(change_rows(CAT, T, NULL, 0), 2);
    assert_int_equal(change_rows(CAT, T, "table_altered", tid), 1);
    assert_int_equal(change_rows(CAT, T, "table_deleted_from", tid), 1);

    /* The live rows end at T; rows already ended keep their end. */
    assert_int_equal(end_of("hog_data_file", "data_file_id", a), T);
    assert_int_equal(end_of("hog_data_file", "data_file_id", c), T);
    assert_int_equal(end_of("hog_data_file", "data_file_id", b), s3);
    assert_int_equal(end_of("hog_delete_file", "delete_file_id", dv2), T);
    assert_int_equal(end_of("hog_delete_file", "delete_file_id", dv1), s3);
    assert_int_equal(sqli("SELECT count(*) FROM hog_data_file WHERE catalog_id = %lld AND"
                          " table_id = %lld AND end_snapshot IS NULL",
                          (long long)cat_id(CAT), (long long)tid),
                     0);
    assert_int_equal(sqli("SELECT count(*) FROM hog_delete_file WHERE catalog_id = %lld AND"
                          " table_id = %lld AND end_snapshot IS NULL",
                          (long long)cat_id(CAT), (long long)tid),
                     0);
    /* The other table is untouched. */
    assert_int_equal(end_of("hog_data_file", "data_file_id", o1), -1);
    char after_other[128];
    stats_text(oid, after_other, sizeof after_other);
    assert_string_equal(after_other, before_other);

    /* Time travel: before the truncate the files and the DV are visible. */
    char ids[64];
    snprintf(ids, sizeof ids, "%lld,%lld", (long long)a, (long long)c);
    expect_files_at(ids, tid, T - 1);
    snprintf(ids, sizeof ids, "%lld", (long long)dv2);
    expect_dvs_at(ids, tid, T - 1);
    snprintf(ids, sizeof ids, "%lld,%lld", (long long)a, (long long)b);
    expect_files_at(ids, tid, s2);
    snprintf(ids, sizeof ids, "%lld", (long long)dv1);
    expect_dvs_at(ids, tid, s2);
    expect_files_at("", tid, T);
    expect_dvs_at("", tid, T);

    /* Totals: exact from the visible files, so zero at the head and the
     * old figures before the truncate; hog_table_stats (gross counters and
     * the row-id allocator) is untouched. */
    json_t *now = get_table("events", -1);
    assert_int_equal(jint(now, "record_count"), 0);
    assert_int_equal(jint(now, "file_count"), 0);
    assert_int_equal(jint(now, "file_size_bytes"), 0);
    assert_string_equal(jstr(now, "table_uuid"), uuid);
    assert_int_equal(jint(now, "read_snapshot_id"), T);
    json_decref(now);
    json_t *then = get_table("events", T - 1);
    assert_int_equal(jint(then, "record_count"), 125);
    assert_int_equal(jint(then, "file_count"), 2);
    assert_int_equal(jint(then, "file_size_bytes"), 1250);
    json_decref(then);
    char after_stats[128];
    stats_text(tid, after_stats, sizeof after_stats);
    assert_string_equal(after_stats, before_stats);

    /* The incarnation and the definition rows are kept. */
    expect_sql(uuid,
               "SELECT table_uuid::text FROM hog_table WHERE catalog_id = %lld AND"
               " table_id = %lld AND dropped_snapshot IS NULL",
               (long long)cat_id(CAT), (long long)tid);
    assert_int_equal(sqli("SELECT count(*) FROM hog_table_version WHERE catalog_id = %lld"
                          " AND table_id = %lld",
                          (long long)cat_id(CAT), (long long)tid),
                     version_rows);

    /* A new file after the truncate continues the row ids. */
    int64_t s5 = sql_data_snapshot(tid, "table_inserted_into");
    int64_t d = sql_add_file(tid, s5, 5, 50);
    assert_int_equal(sqli("SELECT row_id_start FROM hog_data_file WHERE catalog_id = %lld AND"
                          " data_file_id = %lld",
                          (long long)cat_id(CAT), (long long)d),
                     175);
    snprintf(ids, sizeof ids, "%lld", (long long)d);
    expect_files_at(ids, tid, s5);
    json_decref(t);
    json_decref(other);
}

static void truncate_is_not_idempotent(void **state)
{
    (void)state;
    json_t *t = create_table("twice");
    int64_t tid = table_id_of(CAT, NS, "twice");
    int64_t s1 = sql_data_snapshot(tid, "table_inserted_into");
    int64_t f = sql_add_file(tid, s1, 10, 100);
    int64_t sv0 = schema_version_of(CAT);

    json_t *r1 = truncate_ok(CAT, NS, "twice", uuid_of(t));
    int64_t T1 = jint(r1, "snapshot_id");
    json_t *r2 = truncate_ok(CAT, NS, "twice", uuid_of(t));
    int64_t T2 = jint(r2, "snapshot_id");
    assert_int_equal(T2, T1 + 1);
    assert_int_equal(jint(r1, "schema_version"), sv0 + 1);
    assert_int_equal(jint(r2, "schema_version"), sv0 + 2);
    assert_int_equal(change_rows(CAT, T2, NULL, 0), 2);
    assert_int_equal(change_rows(CAT, T2, "table_altered", tid), 1);
    assert_int_equal(change_rows(CAT, T2, "table_deleted_from", tid), 1);
    /* The second one had nothing left to end. */
    assert_int_equal(end_of("hog_data_file", "data_file_id", f), T1);
    expect_api_head(&srv, CAT, T2, sv0 + 2);

    /* An empty table truncates too. */
    json_t *e = create_table("empty");
    int64_t h = head_of(CAT);
    json_t *r3 = truncate_ok(CAT, NS, "empty", uuid_of(e));
    assert_int_equal(jint(r3, "snapshot_id"), h + 1);
    json_decref(r1);
    json_decref(r2);
    json_decref(r3);
    json_decref(e);
    json_decref(t);
}

static void truncate_guards_and_errors(void **state)
{
    (void)state;
    json_t *t = create_table("guarded");
    char old_uuid[64];
    snprintf(old_uuid, sizeof old_uuid, "%s", uuid_of(t));
    int64_t h0 = head_of(CAT);
    struct http_result r;

    /* The guard is required and must be a UUID. */
    truncate_call(&r, CAT, NS, "guarded", NULL);
    expect_error(&r, 400, "bad_request");
    expect_detail_contains(&r, "expected_table_uuid");
    http_result_free(&r);
    truncate_call(&r, CAT, NS, "guarded", "expected_table_uuid=");
    expect_error(&r, 400, "bad_request");
    http_result_free(&r);
    truncate_call(&r, CAT, NS, "guarded", "expected_table_uuid=not-a-uuid");
    expect_error(&r, 400, "bad_request");
    expect_detail_contains(&r, "must be a UUID");
    http_result_free(&r);
    char q[160];
    snprintf(q, sizeof q, "expected_table_uuid=%s&read_snapshot=1", old_uuid);
    truncate_call(&r, CAT, NS, "guarded", q);
    expect_error(&r, 400, "bad_request");
    expect_detail_contains(&r, "unknown query parameter 'read_snapshot'");
    http_result_free(&r);

    /* 404s: catalog, namespace, table. */
    snprintf(q, sizeof q, "expected_table_uuid=%s", old_uuid);
    truncate_call(&r, "nocat", NS, "guarded", q);
    expect_error(&r, 404, "not_found");
    http_result_free(&r);
    truncate_call(&r, CAT, "nons", "guarded", q);
    expect_error(&r, 404, "not_found");
    http_result_free(&r);
    truncate_call(&r, CAT, NS, "missing", q);
    expect_error(&r, 404, "not_found");
    http_result_free(&r);

    /* Only POST. */
    char url[512];
    snprintf(url, sizeof url, "%s/v1/catalogs/" CAT "/namespaces/" NS "/tables/guarded/truncate",
             srv.base);
    http_call(&r, "GET", url, NULL, NULL, 0, NULL);
    expect_error(&r, 405, "method_not_allowed");
    http_result_free(&r);
    assert_int_equal(head_of(CAT), h0);

    /* Dropped and recreated: the old incarnation is refused. */
    api_delete(&r, &srv, "/v1/catalogs/" CAT "/namespaces/" NS "/tables/guarded");
    expect_status(&r, 200);
    http_result_free(&r);
    truncate_call(&r, CAT, NS, "guarded", q);
    expect_error(&r, 404, "not_found");
    http_result_free(&r);
    json_t *t2 = create_table("guarded");
    int64_t tid2 = table_id_of(CAT, NS, "guarded");
    int64_t h1 = head_of(CAT);
    truncate_call(&r, CAT, NS, "guarded", q);
    expect_error(&r, 409, "table_recreated");
    json_t *tables = json_object_get(r.json, "tables");
    assert_true(json_is_array(tables));
    assert_int_equal(json_array_size(tables), 1);
    assert_string_equal(json_string_value(json_array_get(tables, 0)), NS ".guarded");
    assert_string_equal(jstr(r.json, "retry"), "re-prepare");
    http_result_free(&r);
    assert_int_equal(head_of(CAT), h1);
    assert_int_equal(change_rows(CAT, h1, "table_deleted_from", tid2), 0);

    /* The live uuid works, in any case. */
    char upper[64];
    snprintf(upper, sizeof upper, "%s", uuid_of(t2));
    for (char *p = upper; *p; p++)
        if (*p >= 'a' && *p <= 'f')
            *p = (char)(*p - 'a' + 'A');
    snprintf(q, sizeof q, "expected_table_uuid=%s", upper);
    truncate_call(&r, CAT, NS, "guarded", q);
    expect_status(&r, 200);
    assert_int_equal(jint(r.json, "snapshot_id"), h1 + 1);
    http_result_free(&r);
    json_decref(t);
    json_decref(t2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(truncate_ends_exactly_the_live_rows),
        cmocka_unit_test(truncate_is_not_idempotent),
        cmocka_unit_test(truncate_guards_and_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

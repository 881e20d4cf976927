/* Migrations that move a catalog's data keep what it holds.
 *
 * Each test writes through the API, takes the database back to the shape
 * before its migration, starts the server again so the migration runs on
 * it, and expects every answer that shows the moved data to be what it
 * was: migration 11 (column statistics from a row per file and column into
 * one value per file) and migration 15 (partition values learn their
 * file's table). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define CAT "mig"
#define NS "ns"
#define TBL "/v1/catalogs/" CAT "/namespaces/" NS "/tables/t"

static void sql_ok(PGconn *c, const char *sql)
{
    PGresult *r = PQexec(c, sql);
    if (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK)
        fail_msg("%s: %s", sql, PQerrorMessage(c));
    PQclear(r);
}

/* A database of its own with a server on it, catalog CAT and namespace
 * NS; the returned connection serves sqli(). */
static PGconn *catalog_up(struct test_db *db, struct test_server *s, const char *name)
{
    test_db_create(db, name);
    test_server_start(s, db, NULL);
    PGconn *pg = test_db_connect(db);
    test_sql_use(pg);
    make_catalog(s, CAT);
    make_namespace(s, CAT, NS);
    return pg;
}

static void catalog_down(struct test_db *db, struct test_server *s, PGconn *pg)
{
    test_server_stop(s);
    PQfinish(pg);
    test_db_drop(db);
}

/* POSTs body (single quotes standing for double) to path under the
 * catalog and expects status. */
static void post_ok(const struct test_server *s, const char *path, const char *body, int status)
{
    char *b = dq(body);
    struct http_result r;
    api_send_text(&r, s, "POST", b, "/v1/catalogs/" CAT "%s", path);
    free(b);
    expect_status(&r, status);
    http_result_free(&r);
}

/* The answers that carry statistics, as one JSON text. */
static char *statistics_answers(const struct test_server *s, int64_t file_id)
{
    json_t *all = json_object();
    json_object_set_new(all, "file", api_get_json(s, TBL "/files/%lld/stats", (long long)file_id));
    json_object_set_new(all, "scan", api_get_json(s, TBL "/scan?include=column_stats"));
    json_object_set_new(all, "listing", api_get_json(s, TBL "/files"));
    char *text = json_dumps(all, JSON_SORT_KEYS | JSON_COMPACT);
    json_decref(all);
    assert_non_null(text);
    return text;
}

/* Version 10's statistics table, as migration 1 created it, and the
 * index migration 11 drops. */
static const char old_shape[] =
    "BEGIN;"
    "DROP VIEW hog_file_column_stats;"
    "CREATE TABLE hog_file_column_stats ("
    " catalog_id bigint NOT NULL, data_file_id bigint NOT NULL, field_id bigint NOT NULL,"
    " value_count bigint NOT NULL CHECK (value_count >= 0),"
    " null_count bigint NOT NULL CHECK (null_count >= 0),"
    " nan_count bigint CHECK (nan_count IS NULL OR nan_count >= 0),"
    " size_bytes bigint CHECK (size_bytes IS NULL OR size_bytes >= 0),"
    " lower_bound bytea, upper_bound bytea,"
    " PRIMARY KEY (catalog_id, data_file_id, field_id),"
    " FOREIGN KEY (catalog_id, data_file_id) REFERENCES hog_data_file ON DELETE CASCADE);"
    "INSERT INTO hog_file_column_stats SELECT d.catalog_id, d.data_file_id, s.*"
    " FROM hog_data_file d, hog_column_stats_rows(d.column_stats) s;"
    "ALTER TABLE hog_data_file DROP COLUMN column_stats;"
    "CREATE INDEX hog_data_file_row_ids"
    " ON hog_data_file (catalog_id, table_id, row_id_start, data_file_id);"
    "DROP FUNCTION hog_column_stats_rows(bytea);"
    "DROP FUNCTION hog_varint_read(bytea, int);"
    "DROP FUNCTION hog_column_stats_entry(bigint, bigint, bigint, bigint, bigint, bytea, bytea);"
    "DROP FUNCTION hog_varint(bigint);"
    "DELETE FROM hog_schema_migration WHERE version = 11;"
    "COMMIT;";

static void statistics_survive_migration_11(void **state)
{
    (void)state;
    struct test_db db;
    struct test_server s;
    PGconn *pg = catalog_up(&db, &s, "mig11");
    /* The SQL writer of the layout gives the bytes the C encoder's unit
     * test pins. */
    expect_sql("010401ac02000101", "SELECT encode('\\x01'::bytea || hog_column_stats_entry(1, 300,"
                                   " 0, NULL, NULL, '\\x01'::bytea, NULL), 'hex')");
    json_decref(
        make_table(&s, CAT, NS, "t",
                   "[{\"name\":\"id\",\"type\":\"long\"},{\"name\":\"s\",\"type\":\"string\"},"
                   "{\"name\":\"x\",\"type\":\"double\"}]"));
    post_ok(&s, "/commit",
            "{'appends':[{'namespace':'" NS "','table':'t','files':["
            "{'path':'s3://hoglake-test/" CAT "/t/1','record_count':300,'file_size_bytes':9,"
            "'column_stats':[{'field_id':3,'value_count':300,'null_count':2,'nan_count':1,"
            "'lower_bound':'AAAAAAAA8D8=','upper_bound':'AAAAAAAAAEA='},"
            "{'field_id':1,'value_count':300,'null_count':0,'size_bytes':2400,"
            "'lower_bound':'CgAAAAAAAAA=','upper_bound':'FAAAAAAAAAA='},"
            "{'field_id':2,'value_count':300,'null_count':300}]},"
            "{'path':'s3://hoglake-test/" CAT "/t/2','record_count':1,'file_size_bytes':9}]}]}",
            200);
    int64_t file_id = sqli("SELECT data_file_id FROM hog_data_file WHERE path LIKE '%%/t/1'");
    char *before = statistics_answers(&s, file_id);
    test_server_stop(&s);

    sql_ok(pg, old_shape);
    assert_int_equal(sqli("SELECT count(*) FROM hog_file_column_stats"), 3);
    expect_sql(
        "3|300|2|1|<null>|000000000000f03f",
        "SELECT field_id || '|' || value_count || '|' || null_count || '|' || nan_count"
        " || '|' || coalesce(size_bytes::text, '<null>') || '|' || encode(lower_bound, 'hex')"
        " FROM hog_file_column_stats WHERE field_id = 3");

    test_server_start(&s, &db, NULL);
    assert_int_equal(sqli("SELECT count(*) FROM hog_schema_migration WHERE version = 11"), 1);
    assert_int_equal(
        sqli("SELECT count(*) FROM pg_tables WHERE tablename = 'hog_file_column_stats'"), 0);
    assert_int_equal(sqli("SELECT count(*) FROM hog_data_file WHERE column_stats IS NOT NULL"), 1);
    assert_int_equal(
        sqli("SELECT count(*) FROM pg_indexes WHERE indexname = 'hog_data_file_row_ids'"), 0);
    char *after = statistics_answers(&s, file_id);
    assert_string_equal(after, before);
    /* And the answers did show the statistics. */
    assert_non_null(strstr(after, "\"nan_count\":1"));
    assert_non_null(strstr(after, "\"size_bytes\":2400"));
    free(before);
    free(after);
    catalog_down(&db, &s, pg);
}

/* The answers that read partition values: each table's filtered listing
 * and scan, and its files with their values. */
static char *partition_answers(const struct test_server *s)
{
    json_t *all = json_object();
    const char *tables[] = {"p1", "p2"};
    for (int t = 0; t < 2; t++) {
        char key[32];
        snprintf(key, sizeof key, "%s files x", tables[t]);
        json_object_set_new(all, key,
                            api_get_json(s,
                                         "/v1/catalogs/" CAT "/namespaces/" NS "/tables/%s"
                                         "/files?partition=0:x",
                                         tables[t]));
        snprintf(key, sizeof key, "%s scan y", tables[t]);
        json_object_set_new(all, key,
                            api_get_json(s,
                                         "/v1/catalogs/" CAT "/namespaces/" NS "/tables/%s"
                                         "/scan?partition=0:y",
                                         tables[t]));
        snprintf(key, sizeof key, "%s files", tables[t]);
        json_object_set_new(all, key,
                            api_get_json(s,
                                         "/v1/catalogs/" CAT "/namespaces/" NS "/tables/%s"
                                         "/files",
                                         tables[t]));
    }
    char *text = json_dumps(all, JSON_SORT_KEYS | JSON_COMPACT);
    json_decref(all);
    assert_non_null(text);
    return text;
}

/* Version 14's partition values: no table id, the catalog-wide index. */
static const char partition_values_v14[] =
    "BEGIN;"
    "CREATE INDEX hog_file_partition_value_lookup"
    " ON hog_file_partition_value (catalog_id, key_index, value, data_file_id);"
    "DROP INDEX hog_file_partition_value_in_table;"
    "ALTER TABLE hog_file_partition_value DROP COLUMN table_id;"
    "DELETE FROM hog_schema_migration WHERE version = 15;"
    "COMMIT;";

/* Migration 15 gives each partition value its file's table: filters
 * answer as before, from the table-scoped index. */
static void partition_values_learn_their_table_in_migration_15(void **state)
{
    (void)state;
    struct test_db db;
    struct test_server s;
    PGconn *pg = catalog_up(&db, &s, "mig15");
    for (int t = 1; t <= 2; t++) {
        char body[512];
        snprintf(body, sizeof body,
                 "{'name':'p%d','columns':[{'name':'k','type':'string'}],"
                 "'partition_fields':[{'source_field_id':1,'transform':'identity'}]}",
                 t);
        post_ok(&s, "/namespaces/" NS "/tables", body, 201);
    }
    /* Both tables hold both values; p1's files come first and last. */
    static const char body[] =
        "{'appends':["
        "{'namespace':'" NS "','table':'p1','files':["
        "{'path':'s3://hoglake-test/" CAT "/p1/1','record_count':1,'file_size_bytes':9,"
        "'partition_values':['x']},"
        "{'path':'s3://hoglake-test/" CAT "/p1/2','record_count':1,'file_size_bytes':9,"
        "'partition_values':['y']}]},"
        "{'namespace':'" NS "','table':'p2','files':["
        "{'path':'s3://hoglake-test/" CAT "/p2/1','record_count':1,'file_size_bytes':9,"
        "'partition_values':['x']},"
        "{'path':'s3://hoglake-test/" CAT "/p2/2','record_count':1,'file_size_bytes':9,"
        "'partition_values':['y']}]},"
        "{'namespace':'" NS "','table':'p1','files':["
        "{'path':'s3://hoglake-test/" CAT "/p1/3','record_count':1,'file_size_bytes':9,"
        "'partition_values':['x']}]}]}";
    post_ok(&s, "/commit", body, 200);
    char *before = partition_answers(&s);
    test_server_stop(&s);

    sql_ok(pg, partition_values_v14);
    assert_int_equal(sqli("SELECT count(*) FROM information_schema.columns"
                          " WHERE table_name = 'hog_file_partition_value'"
                          " AND column_name = 'table_id'"),
                     0);

    test_server_start(&s, &db, NULL);
    assert_int_equal(sqli("SELECT count(*) FROM hog_schema_migration WHERE version = 15"), 1);
    assert_int_equal(sqli("SELECT count(*) FROM hog_file_partition_value pv"
                          " JOIN hog_data_file d USING (catalog_id, data_file_id, table_id)"),
                     5);
    assert_int_equal(sqli("SELECT count(*) FROM information_schema.columns"
                          " WHERE table_name = 'hog_file_partition_value'"
                          " AND column_name = 'table_id' AND is_nullable = 'NO'"),
                     1);
    assert_int_equal(sqli("SELECT count(*) FROM pg_indexes"
                          " WHERE indexname = 'hog_file_partition_value_lookup'"),
                     0);
    char *after = partition_answers(&s);
    assert_string_equal(after, before);
    /* The answers did hold each table's files: p1 has two with x, p2 one
     * with y. */
    assert_non_null(strstr(after, "/p1/3"));
    assert_non_null(strstr(after, "/p2/2"));
    free(before);
    free(after);
    catalog_down(&db, &s, pg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(statistics_survive_migration_11),
        cmocka_unit_test(partition_values_learn_their_table_in_migration_15),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

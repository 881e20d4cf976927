/* Migrations that move a catalog's data keep what it holds.
 *
 * Migration 11 moved column statistics from a row per file and column
 * (hog_file_column_stats) into one value per file
 * (hog_data_file.column_stats). The test writes statistics through the
 * API, takes the database back to the version-10 shape (the old table,
 * filled by the SQL reader of the new layout, and no column_stats), starts
 * the server again so the migration runs on it, and expects every answer
 * that shows statistics to be what it was. */
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
    test_db_create(&db, "mig11");
    struct test_server s;
    test_server_start(&s, &db, NULL);
    PGconn *pg = test_db_connect(&db);
    test_sql_use(pg);
    /* The SQL writer of the layout gives the bytes the C encoder's unit
     * test pins. */
    expect_sql("010401ac02000101", "SELECT encode('\\x01'::bytea || hog_column_stats_entry(1, 300,"
                                   " 0, NULL, NULL, '\\x01'::bytea, NULL), 'hex')");
    make_catalog(&s, CAT);
    make_namespace(&s, CAT, NS);
    json_decref(
        make_table(&s, CAT, NS, "t",
                   "[{\"name\":\"id\",\"type\":\"long\"},{\"name\":\"s\",\"type\":\"string\"},"
                   "{\"name\":\"x\",\"type\":\"double\"}]"));
    char body[2048];
    snprintf(body, sizeof body,
             "{'appends':[{'namespace':'" NS "','table':'t','files':["
             "{'path':'s3://hoglake-test/" CAT "/t/1','record_count':300,'file_size_bytes':9,"
             "'column_stats':[{'field_id':3,'value_count':300,'null_count':2,'nan_count':1,"
             "'lower_bound':'AAAAAAAA8D8=','upper_bound':'AAAAAAAAAEA='},"
             "{'field_id':1,'value_count':300,'null_count':0,'size_bytes':2400,"
             "'lower_bound':'CgAAAAAAAAA=','upper_bound':'FAAAAAAAAAA='},"
             "{'field_id':2,'value_count':300,'null_count':300}]},"
             "{'path':'s3://hoglake-test/" CAT "/t/2','record_count':1,'file_size_bytes':9}]}]}");
    char *b = dq(body);
    struct http_result r;
    api_send_text(&r, &s, "POST", b, "/v1/catalogs/" CAT "/commit");
    free(b);
    expect_status(&r, 200);
    http_result_free(&r);
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
    test_server_stop(&s);
    PQfinish(pg);
    test_db_drop(&db);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(statistics_survive_migration_11),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

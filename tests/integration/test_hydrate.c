/* The hydrator (contract §7.4) against a real hoglaked and PostgreSQL, with
 * data written by libhoglake to file:// and to moto:
 *   - a file appended with deferred stats gets, once hydrated, exactly the
 *     column_stats rows the same rows appended with stats got;
 *   - a footer whose row count disagrees with the catalog fails the file,
 *     later passes leave it alone, and a rehydrate requeues it;
 *   - a vanished object fails; a storage error stays pending (counted);
 *   - a right footer_size reads only the tail; a wrong or absent one falls
 *     back to a whole-object read;
 *   - files of dropped tables are skipped;
 *   - a file another session holds is skipped, not waited for, and two
 *     servers hydrating the same backlog at once settle each file once;
 *   - the CLI verbs (`maintenance hydrate|rehydrate`) drive both endpoints;
 *   - a server with a short --hydrator-interval-ms hydrates a pending file
 *     on its own, recording the run with trigger "loop". */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "client_harness.h"
#include "harness.h"
#include "hoglake/hoglake.h"
#include "rows/rows_schema.h"
#include "textio/colspec.h"
#include "textio/textio_parse.h"
#include "util/arena.h"

static struct client_stack st;
static struct test_server looper; /* the loop test's server */

/* Every column kind the stats mapping treats differently: integers,
 * strings, decimals, timestamps, floats (signed zeros), booleans, dates,
 * a list (repeated leaf) and a struct. */
static const char spec[] = "id:long!, name:string, amount:decimal(10,2), ts:timestamp,"
                           " score:double, ok:boolean, day:date, tags:list<string>,"
                           " pt:struct<x:int, y:string>";
static const char rows[] =
    "{\"id\":1,\"name\":\"a\",\"amount\":\"12.34\",\"ts\":\"2026-01-15T10:00:00\","
    "\"score\":0.0,\"ok\":true,\"day\":\"2026-01-15\",\"tags\":[\"x\",\"y\"],"
    "\"pt\":{\"x\":3,\"y\":\"p\"}}\n"
    "{\"id\":2,\"name\":null,\"amount\":null,\"ts\":null,\"score\":-0.0,\"ok\":false,"
    "\"day\":null,\"tags\":null,\"pt\":null}\n"
    "{\"id\":3,\"name\":\"zz\",\"amount\":\"-0.50\",\"ts\":\"1969-12-31T23:00:00\","
    "\"score\":-7.25,\"ok\":null,\"day\":\"1969-12-31\",\"tags\":[],\"pt\":{\"x\":-1,\"y\":null}}"
    "\n";

static int setup(void **state)
{
    (void)state;
    client_stack_up(&st, "hydrate");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    test_server_stop(&looper);
    client_stack_down(&st);
    return 0;
}

/* ---- fixtures ---- */

struct fixture {
    hl_catalog *catalog;
    hl_namespace *ns;
    hl_table *table;
    const char *name;
    hl_client *client;
};

static void fixture_up(struct fixture *f, hl_client *c, const char *name)
{
    memset(f, 0, sizeof *f);
    f->name = name;
    f->client = c;
    char data_path[512];
    client_stack_data_path(&st, c, name, data_path, sizeof data_path);
    struct error e;
    json_t *cols = colspec_parse_columns(spec, &e);
    if (!cols)
        fail_msg("colspec: %s", e.msg);
    char *cols_text = json_dumps(cols, JSON_COMPACT);
    json_decref(cols);
    struct hl_error err;
    test_check(hl_catalog_create(c, name, data_path, &f->catalog, &err), &err, "catalog create");
    test_check(hl_namespace_create(f->catalog, "ns", &f->ns, &err), &err, "namespace create");
    test_check(hl_table_create(f->ns, "t", cols_text, NULL, &f->table, &err), &err, "table create");
    free(cols_text);
}

static void fixture_free(struct fixture *f)
{
    hl_table_free(f->table);
    hl_namespace_free(f->ns);
    hl_catalog_free(f->catalog);
}

/* Appends rows of the given shape; the new file's id. */
static int64_t append_rows(struct fixture *f, const char *shape, const char *jsonl, bool deferred)
{
    struct ArrowArrayStream s;
    test_rows_stream(shape, jsonl, &s);
    struct hl_append_options o;
    hl_append_options_init(&o);
    o.deferred_stats = deferred;
    struct hl_append_result *res;
    struct hl_error err;
    test_check(hl_table_append(f->table, &s, &o, &res, &err), &err, "append");
    assert_int_equal(res->nfiles, 1);
    int64_t id = sqli("SELECT data_file_id FROM hog_data_file WHERE catalog_id = %lld"
                      " AND begin_snapshot = %lld",
                      (long long)cat_id(f->name), (long long)res->snapshot_id);
    hl_append_result_free(res);
    return id;
}

/* Appends the fixture's rows; the new file's id. */
static int64_t append(struct fixture *f, bool deferred)
{
    return append_rows(f, spec, rows, deferred);
}

/* Makes the catalog's record_count of a file disagree with its footer
 * (delta != 0) or agree again. */
static void shift_record_count(const char *catalog, int64_t file, int delta)
{
    sql_exec("UPDATE hog_data_file SET record_count = record_count + %d WHERE catalog_id = %lld"
             " AND data_file_id = %lld",
             delta, (long long)cat_id(catalog), (long long)file);
}

static const char *state_of(const char *catalog, int64_t file)
{
    static char out[32];
    char sql[256];
    snprintf(sql, sizeof sql,
             "SELECT stats_state FROM hog_data_file WHERE catalog_id = %lld"
             " AND data_file_id = %lld",
             (long long)cat_id(catalog), (long long)file);
    PGresult *r = PQexec(st.pg, sql);
    assert_int_equal(PQntuples(r), 1);
    snprintf(out, sizeof out, "%s", PQgetvalue(r, 0, 0));
    PQclear(r);
    return out;
}

/* A POST without a body. */
static void post(struct http_result *r, const struct test_server *s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void post(struct http_result *r, const struct test_server *s, const char *fmt, ...)
{
    char url[1024];
    int n = snprintf(url, sizeof url, "%s", s->base);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(url + n, sizeof url - (size_t)n, fmt, ap);
    va_end(ap);
    http_call(r, "POST", url, NULL, NULL, 0, NULL);
}

struct pass {
    json_int_t hydrated, failed, transient, still_pending;
};

static struct pass hydrate(const struct test_server *s, const char *catalog, int batch)
{
    struct http_result r;
    post(&r, s, "/v1/catalogs/%s/maintenance/hydrate?batch=%d", catalog, batch);
    expect_status(&r, 200);
    struct pass p = {jint(r.json, "hydrated"), jint(r.json, "failed"),
                     jint(r.json, "transient_errors"), jint(r.json, "still_pending")};
    http_result_free(&r);
    return p;
}

static json_int_t rehydrate(const char *catalog)
{
    struct http_result r;
    post(&r, &st.srv, "/v1/catalogs/%s/maintenance/rehydrate", catalog);
    expect_status(&r, 200);
    json_int_t n = jint(r.json, "requeued");
    http_result_free(&r);
    return n;
}

/* The stats rows of a file, as text, in field order. */
static char *stats_rows(const char *catalog, int64_t file)
{
    char sql[512];
    snprintf(sql, sizeof sql,
             "SELECT coalesce(string_agg(format('%%s|%%s|%%s|%%s|%%s|%%s|%%s', field_id,"
             " value_count, null_count, nan_count, size_bytes, encode(lower_bound, 'hex'),"
             " encode(upper_bound, 'hex')), E'\\n' ORDER BY field_id), '')"
             " FROM hog_file_column_stats WHERE catalog_id = %lld AND data_file_id = %lld",
             (long long)cat_id(catalog), (long long)file);
    PGresult *r = PQexec(st.pg, sql);
    if (PQresultStatus(r) != PGRES_TUPLES_OK)
        fail_msg("%s", PQerrorMessage(st.pg));
    char *out = strdup(PQgetvalue(r, 0, 0));
    PQclear(r);
    return out;
}

/* ---- tests ---- */

static void same_as_client(hl_client *c, const char *catalog)
{
    struct fixture f;
    fixture_up(&f, c, catalog);
    int64_t shipped = append(&f, false);
    int64_t deferred = append(&f, true);
    assert_string_equal(state_of(catalog, deferred), "pending");
    assert_int_equal(sqli("SELECT count(*) FROM hog_file_column_stats WHERE data_file_id = %lld"
                          " AND catalog_id = %lld",
                          (long long)deferred, (long long)cat_id(catalog)),
                     0);
    struct pass p = hydrate(&st.srv, catalog, 10);
    assert_int_equal(p.hydrated, 1);
    assert_int_equal(p.failed, 0);
    assert_int_equal(p.still_pending, 0);
    assert_string_equal(state_of(catalog, deferred), "provided");
    char *want = stats_rows(catalog, shipped), *got = stats_rows(catalog, deferred);
    /* Leaves with stats: id, name, amount, ts, score, ok, day, tags'
     * element, pt.x, pt.y. */
    size_t lines = 1;
    for (const char *q = want; *q; q++)
        lines += *q == '\n';
    assert_int_equal(lines, 10);
    if (strcmp(want, got) != 0)
        fail_msg("hydrated stats differ from the client's:\n--- client\n%s\n--- hydrated\n%s", want,
                 got);
    free(want);
    free(got);
    /* The footer's row-group starts, and field ids present. */
    assert_int_equal(sqli("SELECT cardinality(split_offsets) FROM hog_data_file WHERE"
                          " catalog_id = %lld AND data_file_id = %lld",
                          (long long)cat_id(catalog), (long long)deferred),
                     1);
    assert_int_equal(sqli("SELECT missing_field_ids::int FROM hog_data_file WHERE"
                          " catalog_id = %lld AND data_file_id = %lld",
                          (long long)cat_id(catalog), (long long)deferred),
                     0);
    /* Nothing left: a second pass does nothing. */
    p = hydrate(&st.srv, catalog, 10);
    assert_int_equal(p.hydrated + p.failed + p.transient, 0);
    fixture_free(&f);
}

/* A pass loads a table's definition once for the files it is known to
 * hold for (up to the table's next DDL), and again past it: files before
 * and after a promotion (pt.x from int to long: 4-byte bounds, then 8),
 * pending in one backlog and hydrated in one pass, each get the
 * statistics the client shipped for the same rows at its snapshot. */
static void test_definition_follows_ddl_within_a_pass(void **state)
{
    (void)state;
    const char *catalog = "ddlspan";
    struct fixture f;
    fixture_up(&f, st.file_client, catalog);
    int64_t before_shipped = append(&f, false);
    int64_t before[2] = {append(&f, true), append(&f, true)};
    struct http_result r;
    api_send_text(&r, &st.srv, "POST",
                  "{\"ops\":[{\"op\":\"promote_column\",\"name\":\"pt.x\",\"to\":\"long\"}]}",
                  "/v1/catalogs/%s/namespaces/ns/tables/t/alter", catalog);
    expect_status(&r, 200);
    http_result_free(&r);
    hl_table_free(f.table);
    struct hl_error err;
    test_check(hl_table_open(f.ns, "t", &f.table, &err), &err, "table open");
    const char *x = strstr(spec, "x:int");
    assert_non_null(x);
    char wide_spec[sizeof spec + 8];
    snprintf(wide_spec, sizeof wide_spec, "%.*sx:long%s", (int)(x - spec), spec, x + 5);
    int64_t after_shipped = append_rows(&f, wide_spec, rows, false);
    int64_t after[2] = {append_rows(&f, wide_spec, rows, true),
                        append_rows(&f, wide_spec, rows, true)};
    struct pass p = hydrate(&st.srv, catalog, 10);
    assert_int_equal(p.hydrated, 4);
    assert_int_equal(p.still_pending, 0);
    char *want_before = stats_rows(catalog, before_shipped);
    char *want_after = stats_rows(catalog, after_shipped);
    assert_string_not_equal(want_before, want_after);
    for (int i = 0; i < 2; i++) {
        char *got = stats_rows(catalog, before[i]);
        assert_string_equal(got, want_before);
        free(got);
        got = stats_rows(catalog, after[i]);
        assert_string_equal(got, want_after);
        free(got);
    }
    free(want_before);
    free(want_after);
    fixture_free(&f);
}

static void test_same_as_client_file(void **state)
{
    (void)state;
    same_as_client(st.file_client, "same_file");
}

static void test_same_as_client_moto(void **state)
{
    (void)state;
    same_as_client(st.moto_client, "same_moto");
}

static void test_row_count_mismatch_fails_until_rehydrate(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f, st.file_client, "mismatch");
    int64_t id = append(&f, true);
    int64_t cid = cat_id("mismatch");
    shift_record_count("mismatch", id, 1);
    struct pass p = hydrate(&st.srv, "mismatch", 10);
    assert_int_equal(p.failed, 1);
    assert_int_equal(p.hydrated, 0);
    assert_int_equal(p.still_pending, 0);
    assert_string_equal(state_of("mismatch", id), "failed");
    assert_int_equal(
        sqli("SELECT count(*) FROM hog_file_column_stats WHERE catalog_id = %lld", (long long)cid),
        0);
    /* Failed files are not retried by passes. */
    p = hydrate(&st.srv, "mismatch", 10);
    assert_int_equal(p.failed + p.hydrated, 0);
    assert_string_equal(state_of("mismatch", id), "failed");
    /* Requeued, and once the catalog agrees with the footer, hydrated. */
    assert_int_equal(rehydrate("mismatch"), 1);
    assert_string_equal(state_of("mismatch", id), "pending");
    assert_int_equal(rehydrate("mismatch"), 0);
    shift_record_count("mismatch", id, -1);
    p = hydrate(&st.srv, "mismatch", 10);
    assert_int_equal(p.hydrated, 1);
    assert_string_equal(state_of("mismatch", id), "provided");
    /* The table-scoped form and its argument check. */
    struct http_result r;
    post(&r, &st.srv, "/v1/catalogs/mismatch/maintenance/rehydrate?namespace=ns");
    expect_status(&r, 422);
    http_result_free(&r);
    post(&r, &st.srv, "/v1/catalogs/mismatch/maintenance/rehydrate?namespace=ns&table=nope");
    expect_status(&r, 404);
    http_result_free(&r);
    post(&r, &st.srv, "/v1/catalogs/mismatch/maintenance/rehydrate?namespace=ns&table=t");
    expect_status(&r, 200);
    assert_int_equal(jint(r.json, "requeued"), 0);
    http_result_free(&r);
    post(&r, &st.srv, "/v1/catalogs/mismatch/maintenance/hydrate?batch=0");
    expect_status(&r, 422);
    expect_detail_contains(&r, "batch must be between 1 and ");
    expect_detail_contains(&r, ", got 0");
    http_result_free(&r);
    post(&r, &st.srv, "/v1/catalogs/nope/maintenance/hydrate");
    expect_status(&r, 404);
    http_result_free(&r);
    fixture_free(&f);
}

static char *local_path(const char *catalog, int64_t file)
{
    char sql[256];
    snprintf(sql, sizeof sql,
             "SELECT path FROM hog_data_file WHERE catalog_id = %lld AND data_file_id = %lld",
             (long long)cat_id(catalog), (long long)file);
    PGresult *r = PQexec(st.pg, sql);
    assert_int_equal(PQntuples(r), 1);
    const char *uri = PQgetvalue(r, 0, 0);
    assert_true(strncmp(uri, "file://", 7) == 0);
    char *p = strdup(uri + 7);
    PQclear(r);
    return p;
}

static void test_storage_errors(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f, st.file_client, "storage");
    int64_t gone = append(&f, true);
    int64_t unreadable = append(&f, true);
    /* One object deleted: failed for good. The other behind a storage
     * outage (a server whose store answers I/O errors): left pending. */
    char *p1 = local_path("storage", gone);
    assert_int_equal(unlink(p1), 0);
    setenv("HOGLAKE_FAILPOINTS", "hydrator-storage-outage", 1);
    struct test_server outage;
    test_server_start(&outage, &st.db, NULL);
    unsetenv("HOGLAKE_FAILPOINTS");
    struct pass p = hydrate(&outage, "storage", 10);
    assert_int_equal(p.failed, 0);
    assert_int_equal(p.transient, 2);
    test_server_stop(&outage);
    p = hydrate(&st.srv, "storage", 10);
    assert_int_equal(p.failed, 1);
    assert_int_equal(p.transient, 0);
    assert_int_equal(p.hydrated, 1);
    assert_string_equal(state_of("storage", gone), "failed");
    assert_string_equal(state_of("storage", unreadable), "provided");
    /* The counters and gauges. */
    struct http_result r;
    api_get(&r, &st.srv, "/metrics");
    expect_status(&r, 200);
    assert_non_null(strstr(r.body, "hoglake_stats_hydrated_total{result=\"failed\"}"));
    assert_non_null(strstr(r.body, "hoglake_stats_pending_files{catalog=\"storage\"} 0"));
    assert_non_null(strstr(r.body, "hoglake_stats_failed_files{catalog=\"storage\"} 1"));
    http_result_free(&r);
    free(p1);
    fixture_free(&f);
}

/* What the server refuses to read: an object replaced by a symbolic link
 * (here to a file outside the catalog), and one that is not the size its
 * writer registered. Neither is read; both fail, counted and audited. */
static void test_refused_objects(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f, st.file_client, "refused");
    int64_t linked = append(&f, true);
    int64_t resized = append(&f, true);
    char *p1 = local_path("refused", linked), *p2 = local_path("refused", resized);
    char outside[600];
    snprintf(outside, sizeof outside, "%s/../outside-%lld.parquet", st.warehouse,
             (long long)linked);
    assert_int_equal(rename(p1, outside), 0);
    assert_int_equal(symlink(outside, p1), 0);
    FILE *grow = fopen(p2, "a");
    assert_non_null(grow);
    fputs("appended", grow);
    fclose(grow);
    struct pass p = hydrate(&st.srv, "refused", 10);
    assert_int_equal(p.failed, 2);
    assert_int_equal(p.hydrated, 0);
    assert_string_equal(state_of("refused", linked), "failed");
    assert_string_equal(state_of("refused", resized), "failed");
    struct http_result r;
    api_get(&r, &st.srv, "/metrics");
    expect_status(&r, 200);
    assert_non_null(strstr(r.body, "hoglake_storage_refusals_total{reason=\"symlink\"}"));
    assert_non_null(strstr(r.body, "hoglake_storage_refusals_total{reason=\"size_mismatch\"}"));
    http_result_free(&r);
    char *log = test_read_text(st.srv.log);
    assert_non_null(strstr(log, "\"action\":\"storage_refused\""));
    free(log);
    unlink(p1);
    unlink(outside);
    free(p1);
    free(p2);
    fixture_free(&f);
}

static void test_footer_size_fallback(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f, st.file_client, "fallback");
    int64_t shipped = append(&f, false);
    int64_t wrong = append(&f, true), absent = append(&f, true);
    int64_t cid = cat_id("fallback");
    sql_exec("UPDATE hog_data_file SET footer_size = footer_size - 3 WHERE catalog_id = %lld"
             " AND data_file_id = %lld",
             (long long)cid, (long long)wrong);
    sql_exec("UPDATE hog_data_file SET footer_size = NULL WHERE catalog_id = %lld"
             " AND data_file_id = %lld",
             (long long)cid, (long long)absent);
    struct pass p = hydrate(&st.srv, "fallback", 10);
    assert_int_equal(p.hydrated, 2);
    char *want = stats_rows("fallback", shipped);
    int64_t ids[] = {wrong, absent};
    for (int i = 0; i < 2; i++) {
        char *got = stats_rows("fallback", ids[i]);
        assert_string_equal(got, want);
        free(got);
    }
    free(want);
    fixture_free(&f);
}

/* Overwrites the first bytes of a file:// object (its leading magic). */
static void clobber_head(const char *catalog, int64_t file)
{
    char *path = local_path(catalog, file);
    FILE *fp = fopen(path, "r+b");
    assert_non_null(fp);
    assert_int_equal(fwrite("XXXX", 1, 4, fp), 4);
    assert_int_equal(fclose(fp), 0);
    free(path);
}

/* With a right footer_size only the tail is read: a file whose head is
 * damaged still hydrates, while the same damage fails the whole-object
 * read a missing footer_size falls back to. */
static void test_ranged_read_takes_only_the_tail(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f, st.file_client, "ranged");
    int64_t shipped = append(&f, false);
    int64_t ranged = append(&f, true), whole = append(&f, true);
    clobber_head("ranged", ranged);
    clobber_head("ranged", whole);
    sql_exec("UPDATE hog_data_file SET footer_size = NULL WHERE catalog_id = %lld"
             " AND data_file_id = %lld",
             (long long)cat_id("ranged"), (long long)whole);
    struct pass p = hydrate(&st.srv, "ranged", 10);
    assert_int_equal(p.hydrated, 1);
    assert_int_equal(p.failed, 1);
    assert_string_equal(state_of("ranged", ranged), "provided");
    assert_string_equal(state_of("ranged", whole), "failed");
    char *want = stats_rows("ranged", shipped), *got = stats_rows("ranged", ranged);
    assert_string_equal(got, want);
    free(want);
    free(got);
    fixture_free(&f);
}

/* Files of a dropped table are neither hydrated nor counted as pending. */
static void test_dropped_tables_are_skipped(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f, st.file_client, "dropped");
    int64_t id = append(&f, true);
    struct hl_error err;
    test_check(hl_table_drop(f.table, NULL, &err), &err, "drop");
    struct pass p = hydrate(&st.srv, "dropped", 10);
    assert_int_equal(p.hydrated + p.failed + p.transient, 0);
    assert_int_equal(p.still_pending, 0);
    assert_string_equal(state_of("dropped", id), "pending");
    fixture_free(&f);
}

/* A file another session holds (as another hydrator's claim would) is
 * skipped, not waited for; once released, the next pass takes it. */
static void test_claimed_files_are_skipped(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f, st.file_client, "claimed");
    int64_t held = append(&f, true), free_one = append(&f, true);
    PGconn *other = test_db_connect(&st.db);
    char sql[256];
    snprintf(sql, sizeof sql,
             "BEGIN; SELECT 1 FROM hog_data_file WHERE catalog_id = %lld AND data_file_id = %lld"
             " FOR NO KEY UPDATE",
             (long long)cat_id("claimed"), (long long)held);
    PGresult *r = PQexec(other, sql);
    assert_int_equal(PQresultStatus(r), PGRES_TUPLES_OK);
    PQclear(r);
    struct pass p = hydrate(&st.srv, "claimed", 10);
    assert_int_equal(p.hydrated, 1);
    assert_int_equal(p.still_pending, 1);
    assert_string_equal(state_of("claimed", free_one), "provided");
    assert_string_equal(state_of("claimed", held), "pending");
    PQclear(PQexec(other, "COMMIT"));
    PQfinish(other);
    p = hydrate(&st.srv, "claimed", 10);
    assert_int_equal(p.hydrated, 1);
    assert_string_equal(state_of("claimed", held), "provided");
    fixture_free(&f);
}

struct racer {
    const struct test_server *s;
    struct pass p;
};

static void *race(void *arg)
{
    struct racer *r = arg;
    for (int i = 0; i < 4; i++) {
        struct pass p = hydrate(r->s, "race", 3);
        r->p.hydrated += p.hydrated;
        r->p.failed += p.failed;
    }
    return NULL;
}

static void test_two_servers_never_hydrate_one_file_twice(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f, st.file_client, "race");
    enum { N = 16 };
    for (int i = 0; i < N; i++)
        append(&f, true);
    struct racer a = {&st.srv, {0}}, b = {&st.srv2, {0}};
    pthread_t ta, tb;
    assert_int_equal(pthread_create(&ta, NULL, race, &a), 0);
    assert_int_equal(pthread_create(&tb, NULL, race, &b), 0);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    /* Whatever a pass skipped because the other held it, a last pass
     * finds settled: every file settled exactly once, all provided. */
    struct pass last = hydrate(&st.srv, "race", N);
    assert_int_equal(a.p.hydrated + b.p.hydrated + last.hydrated, N);
    assert_int_equal(a.p.failed + b.p.failed, 0);
    int64_t cid = cat_id("race");
    assert_int_equal(sqli("SELECT count(*) FROM hog_data_file WHERE catalog_id = %lld"
                          " AND stats_state = 'provided'",
                          (long long)cid),
                     N);
    assert_int_equal(
        sqli("SELECT count(*) FROM hog_file_column_stats WHERE catalog_id = %lld", (long long)cid),
        N * 10);
    fixture_free(&f);
}

/* Runs `hoglake maintenance ARGS...` through the verbs' command entry. */
static int cli_maintenance(char **argv, int argc)
{
    struct cli cli = {.client = st.file_client, .json = false};
    return cmd_maintenance(&cli, argc, argv);
}

static void test_cli_verbs(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f, st.file_client, "clicat");
    int64_t id = append(&f, true);
    shift_record_count("clicat", id, 2);
    char *hyd[] = {"hydrate", "clicat", "--batch", "5"};
    assert_int_equal(cli_maintenance(hyd, 4), EXIT_OK);
    assert_string_equal(state_of("clicat", id), "failed");
    char *req[] = {"rehydrate", "clicat", "--table", "ns.t"};
    assert_int_equal(cli_maintenance(req, 4), EXIT_OK);
    assert_string_equal(state_of("clicat", id), "pending");
    shift_record_count("clicat", id, -2);
    char *hyd_all[] = {"hydrate", "clicat"};
    assert_int_equal(cli_maintenance(hyd_all, 2), EXIT_OK);
    assert_string_equal(state_of("clicat", id), "provided");
    /* Manual passes are ledger runs like the loop's, newest first. */
    json_t *page = api_get_json(&st.srv, "/v1/catalogs/clicat/maintenance/runs?task=hydrator");
    json_t *runs = json_object_get(page, "runs");
    assert_int_equal(json_array_size(runs), 2);
    assert_string_equal(jstr(json_array_get(runs, 0), "trigger"), "manual");
    assert_int_equal(jint(json_object_get(json_array_get(runs, 0), "result"), "hydrated"), 1);
    assert_int_equal(jint(json_object_get(json_array_get(runs, 1), "result"), "failed"), 1);
    json_decref(page);
    /* Failures keep their exit codes. */
    char *missing[] = {"hydrate", "nocat"};
    assert_int_equal(cli_maintenance(missing, 2), EXIT_NOT_FOUND);
    char *zero[] = {"hydrate", "clicat", "--batch", "0"};
    assert_int_equal(cli_maintenance(zero, 4), EXIT_USAGE);
    char *bad_table[] = {"rehydrate", "clicat", "--table", "t"};
    assert_int_equal(cli_maintenance(bad_table, 4), EXIT_USAGE);
    char *no_table[] = {"rehydrate", "clicat", "--table", "ns.nope"};
    assert_int_equal(cli_maintenance(no_table, 4), EXIT_NOT_FOUND);
    fixture_free(&f);
}

/* Runs last: its loop hydrates whatever any catalog of the database has
 * pending. */
static void test_loop_hydrates_without_a_call(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f, st.file_client, "looped");
    int64_t id = append(&f, true);
    assert_string_equal(state_of("looped", id), "pending");
    const char *const extra[] = {"--hydrator-interval-ms", "150", NULL};
    test_server_start(&looper, &st.db, extra);
    for (int waited = 0; strcmp(state_of("looped", id), "provided") != 0; waited += 50) {
        if (waited > 20000) {
            test_server_dump_log(&looper);
            fail_msg("the hydrator loop did not hydrate file %lld within 20 s", (long long)id);
        }
        sleep_ms(50);
    }
    /* The run that did it is in the ledger as the loop's. */
    json_t *page =
        api_get_json(&st.srv, "/v1/catalogs/looped/maintenance/runs?task=hydrator&limit=500");
    json_t *runs = json_object_get(page, "runs"), *run;
    size_t i, hydrating = 0;
    json_array_foreach (runs, i, run) {
        assert_string_equal(jstr(run, "trigger"), "loop");
        assert_string_equal(jstr(run, "status"), "ok");
        json_t *res = json_object_get(run, "result");
        assert_non_null(res);
        jint(res, "transient_errors");
        if (jint(res, "hydrated") == 1) {
            assert_int_equal(jint(res, "still_pending"), 0);
            hydrating++;
        }
    }
    assert_int_equal(hydrating, 1);
    json_decref(page);
    json_t *status = api_get_json(&looper, "/v1/catalogs/looped/maintenance/status");
    json_t *task, *hyd = NULL;
    json_array_foreach (json_object_get(status, "tasks"), i, task) {
        if (strcmp(jstr(task, "task"), "hydrator") == 0)
            hyd = task;
    }
    assert_non_null(hyd);
    assert_int_equal(jint(hyd, "loop_interval_ms"), 150);
    assert_int_equal(jint(json_object_get(hyd, "backlog"), "pending_files"), 0);
    json_decref(status);
    test_server_stop(&looper);
    fixture_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_as_client_file),
        cmocka_unit_test(test_same_as_client_moto),
        cmocka_unit_test(test_definition_follows_ddl_within_a_pass),
        cmocka_unit_test(test_row_count_mismatch_fails_until_rehydrate),
        cmocka_unit_test(test_storage_errors),
        cmocka_unit_test(test_refused_objects),
        cmocka_unit_test(test_footer_size_fallback),
        cmocka_unit_test(test_ranged_read_takes_only_the_tail),
        cmocka_unit_test(test_dropped_tables_are_skipped),
        cmocka_unit_test(test_claimed_files_are_skipped),
        cmocka_unit_test(test_two_servers_never_hydrate_one_file_twice),
        cmocka_unit_test(test_cli_verbs),
        cmocka_unit_test(test_loop_hydrates_without_a_call),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

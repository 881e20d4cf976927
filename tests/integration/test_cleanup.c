/* Cleanup (POST /v1/catalogs/{c}/maintenance/cleanup) against real
 * hoglaked processes, PostgreSQL, file:// and moto: queue rows are written
 * with SQL (as expiry writes them), objects with objstore, and the test
 * checks the objects themselves afterwards.
 *
 * A queue row never authorises a delete: paths a live or ended data file
 * row, a DV row or an active upload names survive and are counted
 * still_referenced; missing objects are counted missing; failed deletes
 * release their rows with a backoff; concurrent passes on two servers
 * never work a row twice. Needs HOGLAKE_TEST_MOTO_ENDPOINT (scripts/test.sh
 * starts moto): without it the S3 test fails, it never skips. */
#include <pthread.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "harness.h"
#include "objstore/objstore.h"
#include "server/db/db.h"
#include "server/maintenance/cleanup.h"

#define CAT "cln"
#define NS "ns"

static struct test_db db;
static struct test_server srv, srv2;
static PGconn *pg;
static struct objstore *store; /* file:// and moto */
static char dir[256];          /* file:// objects live here */
static char s3base[512];       /* s3://bucket/<run>/ */
static int64_t table_id;

static void put_object(const char *uri)
{
    struct hl_error e;
    if (objstore_put(store, uri, "parquet-ish", 11, 0, &e) != 0)
        fail_msg("put %s: %s", uri, e.message);
}

static bool object_exists(const char *uri)
{
    uint64_t size;
    struct hl_error e;
    if (objstore_head(store, uri, &size, &e) == 0)
        return true;
    if (e.status != HL_ERR_NOT_FOUND)
        fail_msg("head %s: %s", uri, e.message);
    return false;
}

static void file_uri(char *out, size_t size, const char *name)
{
    snprintf(out, size, "file://%s/%s", dir, name);
}

/* The catalog and table the helpers below act on: CAT's, unless a test
 * switches to another. */
static const char *cur_cat = CAT;
static int64_t *cur_table = &table_id;

static int64_t queue(const char *path, const char *reason)
{
    return sqli("INSERT INTO hog_file_removal (catalog_id, path, file_kind, reason)"
                " VALUES (%lld, '%s', 'data', '%s') RETURNING removal_id",
                (long long)cat_id(cur_cat), path, reason);
}

/* n small file:// objects under dir/<sub>/, each queued for removal. */
static void put_and_queue(const char *sub, int n)
{
    for (int i = 0; i < n; i++) {
        char name[64], uri[400];
        snprintf(name, sizeof name, "%s/f%03d.parquet", sub, i);
        file_uri(uri, sizeof uri, name);
        put_object(uri);
        queue(uri, "snapshot_expiry");
    }
}

static int64_t live_file(const char *path, bool ended)
{
    int64_t id = sqli("UPDATE hog_catalog SET next_file_id = next_file_id + 1"
                      " WHERE catalog_id = %lld RETURNING next_file_id - 1",
                      (long long)cat_id(cur_cat));
    sql_exec("INSERT INTO hog_data_file (catalog_id, data_file_id, table_id, begin_snapshot,"
             " end_snapshot, path, record_count, file_size_bytes, row_id_start)"
             " VALUES (%lld, %lld, %lld, 1, %s, '%s', 1, 11, 0)",
             (long long)cat_id(cur_cat), (long long)id, (long long)*cur_table, ended ? "2" : "NULL",
             path);
    return id;
}

/* POST .../maintenance/cleanup (no body) with a raw query ("" or "?..."). */
static void post_cleanup(struct http_result *r, const struct test_server *s, const char *catalog,
                         const char *query)
{
    char url[400];
    snprintf(url, sizeof url, "%s/v1/catalogs/%s/maintenance/cleanup%s", s->base, catalog, query);
    http_call(r, "POST", url, NULL, NULL, 0, NULL);
}

static json_t *cleanup_on_catalog(const struct test_server *s, const char *catalog,
                                  const char *query)
{
    struct http_result r;
    post_cleanup(&r, s, catalog, query);
    expect_status(&r, 200);
    json_t *out = json_incref(r.json);
    http_result_free(&r);
    return out;
}

static json_t *cleanup_on(const struct test_server *s, const char *query)
{
    return cleanup_on_catalog(s, CAT, query);
}

static void expect_result(json_t *res, json_int_t removed, json_int_t missing,
                          json_int_t referenced)
{
    char *text = json_dumps(res, JSON_COMPACT);
    if (jint(res, "removed") != removed || jint(res, "missing") != missing ||
        jint(res, "still_referenced") != referenced)
        fail_msg("want removed %lld missing %lld still_referenced %lld, got %s", (long long)removed,
                 (long long)missing, (long long)referenced, text);
    free(text);
    json_decref(res);
}

static int64_t undrained(void)
{
    return sqli("SELECT count(*) FROM hog_file_removal WHERE catalog_id = %lld"
                " AND drained_at IS NULL",
                (long long)cat_id(cur_cat));
}

static void drain_all(void)
{
    sql_exec("UPDATE hog_file_removal SET drained_at = now(), drained_outcome = 'deleted'"
             " WHERE drained_at IS NULL");
}

static int setup(void **state)
{
    (void)state;
    const char *moto = test_need_env("HOGLAKE_TEST_MOTO_ENDPOINT");
    const char *key = getenv("HOGLAKE_TEST_S3_ACCESS_KEY");
    const char *secret = getenv("HOGLAKE_TEST_S3_SECRET_KEY");
    const char *region = getenv("HOGLAKE_TEST_S3_REGION");
    region = region ? region : "us-east-1";
    /* The servers take their keys from AWS_* (moto checks none). */
    setenv("AWS_ACCESS_KEY_ID", key ? key : "hoglake", 1);
    setenv("AWS_SECRET_ACCESS_KEY", secret ? secret : "hoglake-secret", 1);
    struct objstore_config cfg = {.s3_endpoint = moto, .s3_region = region};
    struct hl_error e;
    if (objstore_open(&cfg, &store, &e) != 0)
        fail_msg("objstore_open: %s", e.message);
    snprintf(s3base, sizeof s3base, "s3://%s/cleanup-%ld-%ld/",
             test_need_env("HOGLAKE_TEST_S3_BUCKET"), (long)getpid(), (long)time(NULL));
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(dir, sizeof dir, "%s/hl-cleanup-%ld", tmp, (long)getpid());

    test_db_create(&db, "cleanup");
    const char *extra[] = {"--s3-endpoint", moto, "--s3-region", region, NULL};
    test_server_start(&srv, &db, extra);
    test_server_start(&srv2, &db, extra);
    pg = test_db_connect(&db);
    test_sql_use(pg);
    char data_path[400];
    snprintf(data_path, sizeof data_path, "file://%s", dir);
    make_catalog_at(&srv, CAT, data_path);
    make_namespace(&srv, CAT, NS);
    json_decref(make_table(&srv, CAT, NS, "t", "[{\"name\":\"id\",\"type\":\"long\"}]"));
    table_id = table_id_of(CAT, NS, "t");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    test_server_stop(&srv2);
    test_stack_down(&db, &srv, &pg);
    objstore_free(store);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* Unreferenced objects go, a missing one is counted missing, and every
 * path some row still names survives: live and ended data files, a DV,
 * an active upload. */
static void test_file_store(void **state)
{
    (void)state;
    enum { N = 40 };
    char uri[N][400];
    for (int i = 0; i < N; i++) {
        char name[64];
        snprintf(name, sizeof name, "a/f%03d.parquet", i);
        file_uri(uri[i], sizeof uri[i], name);
        put_object(uri[i]);
        queue(uri[i], "snapshot_expiry");
    }
    char missing[400], live[400], ended[400], dv[400], upload[400], done_upload[400];
    file_uri(missing, sizeof missing, "a/never-written.parquet");
    file_uri(live, sizeof live, "a/live.parquet");
    file_uri(ended, sizeof ended, "a/ended.parquet");
    file_uri(dv, sizeof dv, "a/dv.puffin");
    file_uri(upload, sizeof upload, "a/upload.parquet");
    file_uri(done_upload, sizeof done_upload, "a/abandoned-upload.parquet");
    const char *kept[] = {live, ended, dv, upload};
    for (int i = 0; i < 4; i++)
        put_object(kept[i]);
    put_object(done_upload);
    int64_t fid = live_file(live, false);
    live_file(ended, true);
    sql_exec("INSERT INTO hog_delete_file (catalog_id, delete_file_id, table_id, data_file_id,"
             " begin_snapshot, end_snapshot, path, delete_count, file_size_bytes)"
             " VALUES (%lld, 1000000, %lld, %lld, 1, 3, '%s', 1, 11)",
             (long long)cat_id(CAT), (long long)table_id, (long long)fid, dv);
    /* The abandoned claim was queued when it was abandoned (below). */
    sql_exec("INSERT INTO hog_upload (catalog_id, upload_id, owner, prefix, path, file_kind,"
             " state, last_scheduled_at) VALUES (%lld, gen_random_uuid(), gen_random_uuid(), 'a/',"
             " '%s', 'data', 'active', NULL), (%lld, gen_random_uuid(), gen_random_uuid(), 'a/',"
             " '%s', 'data', 'abandoned', now())",
             (long long)cat_id(CAT), upload, (long long)cat_id(CAT), done_upload);
    queue(missing, "snapshot_expiry");
    int64_t bad[4];
    for (int i = 0; i < 4; i++)
        bad[i] = queue(kept[i], "table_drop_gc");
    queue(done_upload, "trino_upload");

    expect_result(cleanup_on(&srv, ""), N + 1, 1, 4);
    for (int i = 0; i < N; i++)
        assert_false(object_exists(uri[i]));
    assert_false(object_exists(done_upload));
    for (int i = 0; i < 4; i++) {
        assert_true(object_exists(kept[i]));
        expect_sql("registered",
                   "SELECT drained_outcome FROM hog_file_removal WHERE removal_id = %lld",
                   (long long)bad[i]);
    }
    expect_sql("absent", "SELECT drained_outcome FROM hog_file_removal WHERE path = '%s'", missing);
    assert_int_equal(undrained(), 0);
    assert_int_equal(sqli("SELECT count(*) FROM hog_file_removal WHERE drained_outcome ="
                          " 'deleted' AND attempts = 1"),
                     N + 1);
    /* Each violation gets an audit line with its path (the server's
     * default destination: its log; written by the audit thread). */
    char cmd[1200];
    snprintf(cmd, sizeof cmd,
             "grep -c 'hoglake.audit .*\"action\":\"cleanup_violation\".*\"object\":\"%s\"' '%s'"
             " >/dev/null",
             live, srv.log);
    for (int waited = 0; system(cmd) != 0; waited += 50) {
        if (waited > 5000)
            fail_msg("no cleanup_violation audit line for %s", live);
        sleep_ms(50);
    }
    /* The counters and the gauge. */
    struct http_result m;
    api_get(&m, &srv, "/metrics");
    expect_status(&m, 200);
    assert_non_null(strstr(m.body, "hoglake_files_removed_total{result=\"removed\"} 41"));
    assert_non_null(strstr(m.body, "hoglake_files_removed_total{result=\"still_referenced\"} 4"));
    assert_non_null(strstr(m.body, "hoglake_removal_queue_depth{catalog=\"" CAT "\"} 0"));
    http_result_free(&m);
    /* An empty queue is a pass that does nothing. */
    expect_result(cleanup_on(&srv, ""), 0, 0, 0);
}

/* S3 (moto): DeleteObjects over more than one request, a referenced
 * object survives. */
static void test_moto(void **state)
{
    (void)state;
    enum { N = 1205 };
    /* An S3 catalog of its own: cleanup deletes only beneath the data path
     * of the catalog the queue row belongs to. */
    char data_path[600];
    snprintf(data_path, sizeof data_path, "%.*s", (int)strlen(s3base) - 1, s3base);
    make_catalog_at(&srv, "cln_s3", data_path);
    make_namespace(&srv, "cln_s3", NS);
    json_decref(make_table(&srv, "cln_s3", NS, "t", "[{\"name\":\"id\",\"type\":\"long\"}]"));
    int64_t s3_table = table_id_of("cln_s3", NS, "t");
    cur_cat = "cln_s3";
    cur_table = &s3_table;
    char(*uri)[600] = calloc(N, sizeof *uri);
    assert_non_null(uri);
    for (int i = 0; i < N; i++) {
        snprintf(uri[i], sizeof uri[i], "%sf%05d.parquet", s3base, i);
        put_object(uri[i]);
    }
    sql_exec("INSERT INTO hog_file_removal (catalog_id, path, file_kind, reason)"
             " SELECT %lld, format('%sf%%s.parquet', lpad(i::text, 5, '0')), 'data',"
             " 'snapshot_expiry' FROM generate_series(0, %d) AS i",
             (long long)cat_id(cur_cat), s3base, N - 1);
    char live[700];
    snprintf(live, sizeof live, "%slive.parquet", s3base);
    put_object(live);
    live_file(live, false);
    queue(live, "snapshot_expiry");
    /* A path of another catalog queued here is refused, never deleted. */
    char foreign[600];
    file_uri(foreign, sizeof foreign, "not-this-catalogs.parquet");
    put_object(foreign);
    queue(foreign, "snapshot_expiry");

    json_t *res = cleanup_on_catalog(&srv, cur_cat, "?batch=5000");
    assert_int_equal(jint(res, "refused"), 1);
    expect_result(res, N, 0, 1); /* takes res */
    for (int i = 0; i < N; i += 97)
        assert_false(object_exists(uri[i]));
    assert_false(object_exists(uri[N - 1]));
    assert_true(object_exists(live));
    assert_true(object_exists(foreign));
    assert_int_equal(undrained(), 0);
    expect_sql("refused", "SELECT drained_outcome FROM hog_file_removal WHERE path = '%s'",
               foreign);
    cur_cat = CAT;
    cur_table = &table_id;
    free(uri);
}

/* ?batch bounds a pass; a bad batch is refused; claims under someone
 * else's live lease are left alone, expired leases are taken over. */
static void test_batch_and_leases(void **state)
{
    (void)state;
    put_and_queue("b", 25);
    struct http_result r;
    post_cleanup(&r, &srv, CAT, "?batch=0");
    expect_error(&r, 422, "validation");
    expect_detail_contains(&r, "batch must be between 1 and 100000, got 0");
    http_result_free(&r);
    post_cleanup(&r, &srv, CAT, "?batch=100001");
    expect_error(&r, 422, "validation");
    expect_detail_contains(&r, "batch must be between 1 and 100000, got 100001");
    http_result_free(&r);
    post_cleanup(&r, &srv, CAT, "?batch=x");
    expect_status(&r, 400);
    http_result_free(&r);
    post_cleanup(&r, &srv, "nope", "");
    expect_error(&r, 404, "not_found");
    http_result_free(&r);

    expect_result(cleanup_on(&srv, "?batch=10"), 10, 0, 0);
    assert_int_equal(undrained(), 15);
    /* Five rows leased by another server just now, five long ago. */
    sql_exec("UPDATE hog_file_removal SET claimed_at = now(), claimed_by = 'other'"
             " WHERE removal_id IN (SELECT removal_id FROM hog_file_removal"
             " WHERE drained_at IS NULL ORDER BY removal_id LIMIT 5)");
    sql_exec("UPDATE hog_file_removal SET claimed_at = now() - interval '1 hour',"
             " claimed_by = 'dead' WHERE removal_id IN (SELECT removal_id FROM hog_file_removal"
             " WHERE drained_at IS NULL AND claimed_by IS NULL ORDER BY removal_id LIMIT 5)");
    expect_result(cleanup_on(&srv2, ""), 10, 0, 0);
    assert_int_equal(undrained(), 5);
    assert_int_equal(sqli("SELECT count(*) FROM hog_file_removal WHERE drained_at IS NULL"
                          " AND claimed_by = 'other'"),
                     5);
    drain_all();
}

/* A delete that fails releases its row: attempts counted, claim cleared,
 * and no pass takes it again before its backoff ends. */
static void test_failure_backoff(void **state)
{
    (void)state;
    int64_t id = queue("file://relative/not-absolute", "snapshot_expiry");
    json_t *res = cleanup_on(&srv, "");
    assert_int_equal(jint(res, "failed"), 1);
    expect_result(res, 0, 0, 0);
    expect_sql("1|<null>|false",
               "SELECT attempts || '|' || coalesce(claimed_by, '<null>') || '|' ||"
               " (drained_at IS NOT NULL) FROM hog_file_removal WHERE removal_id = %lld",
               (long long)id);
    res = cleanup_on(&srv, "");
    assert_int_equal(jint(res, "failed"), 0);
    expect_result(res, 0, 0, 0);
    /* Past its backoff it is tried again. */
    sql_exec("UPDATE hog_file_removal SET last_attempt_at = now() - interval '1 hour'"
             " WHERE removal_id = %lld",
             (long long)id);
    res = cleanup_on(&srv2, "");
    assert_int_equal(jint(res, "failed"), 1);
    json_decref(res);
    expect_sql("2", "SELECT attempts FROM hog_file_removal WHERE removal_id = %lld", (long long)id);
    drain_all();
}

struct racer {
    const struct test_server *s;
    long status;
    json_int_t removed, missing, referenced;
};

static void *race(void *arg)
{
    struct racer *r = arg;
    struct http_result h;
    post_cleanup(&h, r->s, CAT, "?batch=700");
    r->status = h.status;
    if (h.json) {
        r->removed = json_integer_value(json_object_get(h.json, "removed"));
        r->missing = json_integer_value(json_object_get(h.json, "missing"));
        r->referenced = json_integer_value(json_object_get(h.json, "still_referenced"));
    }
    http_result_free(&h);
    return NULL;
}

/* Concurrent passes on two servers: every row is worked exactly once. A
 * row worked twice would show as missing (its file gone the first time). */
static void test_concurrent_passes(void **state)
{
    (void)state;
    enum { N = 4000, RACERS = 6 };
    char base[400];
    file_uri(base, sizeof base, "c/");
    for (int i = 0; i < N; i++) {
        char uri[500];
        snprintf(uri, sizeof uri, "%sf%05d.parquet", base, i);
        put_object(uri);
    }
    sql_exec("INSERT INTO hog_file_removal (catalog_id, path, file_kind, reason)"
             " SELECT %lld, format('%sf%%s.parquet', lpad(i::text, 5, '0')), 'data',"
             " 'snapshot_expiry' FROM generate_series(0, %d) AS i",
             (long long)cat_id(CAT), base, N - 1);
    struct racer racers[RACERS];
    pthread_t threads[RACERS];
    for (int i = 0; i < RACERS; i++) {
        racers[i] = (struct racer){.s = i % 2 ? &srv2 : &srv};
        assert_int_equal(pthread_create(&threads[i], NULL, race, &racers[i]), 0);
    }
    json_int_t removed = 0, missing = 0;
    for (int i = 0; i < RACERS; i++) {
        pthread_join(threads[i], NULL);
        assert_int_equal(racers[i].status, 200);
        removed += racers[i].removed;
        missing += racers[i].missing;
        assert_int_equal(racers[i].referenced, 0);
    }
    /* 6 x 700 >= N: between them the passes drain the queue. */
    assert_int_equal(missing, 0);
    assert_int_equal(removed, N);
    assert_int_equal(undrained(), 0);
    assert_int_equal(sqli("SELECT count(*) FROM hog_file_removal WHERE path LIKE '%s%%'"
                          " AND (attempts <> 1 OR drained_outcome <> 'deleted')",
                          base),
                     0);
}

/* The CLI verb (`hoglake maintenance cleanup CATALOG [--batch N]`), run
 * in-process through the maintenance command: it posts one pass with the
 * batch given. */
static int run_verb(int argc, char **argv)
{
    struct hl_client_options opts = {.server_url = srv.base, .token = srv.token};
    struct cli cli = {.client = NULL, .json = false};
    struct hl_error err;
    if (hl_client_new(&opts, &cli.client, &err) != HL_OK)
        fail_msg("hl_client_new: %s", err.message);
    char *args[8] = {"cleanup"};
    for (int i = 0; i < argc && i + 1 < 8; i++)
        args[i + 1] = argv[i];
    int rc = cmd_maintenance(&cli, argc + 1, args);
    hl_client_free(cli.client);
    return rc;
}

static void test_cli_verb(void **state)
{
    (void)state;
    put_and_queue("v", 5);
    char *bad[] = {CAT, "--batch", "0", NULL};
    assert_int_equal(run_verb(3, bad), EXIT_USAGE);
    char *three[] = {CAT, "--batch", "3", NULL};
    assert_int_equal(run_verb(3, three), EXIT_OK);
    assert_int_equal(undrained(), 2);
    char *all[] = {CAT, NULL};
    assert_int_equal(run_verb(1, all), EXIT_OK);
    assert_int_equal(undrained(), 0);
    char *unknown[] = {"nope", NULL};
    assert_int_equal(run_verb(1, unknown), EXIT_NOT_FOUND);
}

/* The ledger purge: drained rows past the retention go, in bounded
 * steps; undrained rows and recent ledger rows stay, whatever their age. */
static void test_ledger_purge(void **state)
{
    (void)state;
    drain_all();
    sql_exec("UPDATE hog_file_removal SET drained_at = now() - interval '31 days'");
    int64_t old = sqli("SELECT count(*) FROM hog_file_removal");
    assert_true(old > 10);
    int64_t young = queue("file:///young/drained", "snapshot_expiry");
    sql_exec("UPDATE hog_file_removal SET drained_at = now() - interval '29 days',"
             " drained_outcome = 'deleted' WHERE removal_id = %lld",
             (long long)young);
    int64_t pending = queue("file:///old/pending", "snapshot_expiry");
    sql_exec("UPDATE hog_file_removal SET scheduled_at = now() - interval '90 days'"
             " WHERE removal_id = %lld",
             (long long)pending);
    struct error err;
    int64_t purged = 0;
    assert_int_equal(cleanup_purge_ledger(pg, CLEANUP_LEDGER_RETENTION_SECONDS, 10, &purged, &err),
                     0);
    assert_int_equal(purged, 10);
    int64_t total = 10;
    while (purged > 0) {
        assert_int_equal(
            cleanup_purge_ledger(pg, CLEANUP_LEDGER_RETENTION_SECONDS, 1000, &purged, &err), 0);
        total += purged;
    }
    assert_int_equal(total, old);
    expect_sql("2", "SELECT count(*) FROM hog_file_removal WHERE removal_id IN (%lld, %lld)",
               (long long)young, (long long)pending);
}

static void receipt(const char *key, const char *age)
{
    sql_exec("INSERT INTO hog_commit_receipt (catalog_id, idempotency_key, fingerprint,"
             " snapshot_id, schema_version, created_at) VALUES (%lld, '%s', '\\xc1', 1, 1,"
             " now() - interval '%s')",
             (long long)cat_id(CAT), key, age);
}

static bool receipt_kept(const char *key)
{
    return sqli("SELECT count(*) FROM hog_commit_receipt WHERE idempotency_key = '%s'", key) == 1;
}

/* Each run purges the catalog's receipts past the receipt retention (7 days
 * by default), never those inside twice the snapshot retention, and its
 * maintenance runs older than 7 days. */
static void test_run_purges(void **state)
{
    (void)state;
    drain_all();
    const char *old = "00000000-0000-4000-8000-000000000001";
    const char *young = "00000000-0000-4000-8000-000000000002";
    const char *held = "00000000-0000-4000-8000-000000000003";
    receipt(old, "8 days");
    receipt(young, "6 days");
    receipt(held, "15 days");
    sql_exec("INSERT INTO hog_maintenance_run (catalog_id, task, run_trigger, started_at,"
             " finished_at, status) VALUES (%lld, 'expiry', 'manual', now() - interval '9 days',"
             " now() - interval '9 days', 'ok'), (%lld, 'expiry', 'manual',"
             " now() - interval '6 days', now() - interval '6 days', 'ok')",
             (long long)cat_id(CAT), (long long)cat_id(CAT));
    int64_t runs = sqli("SELECT count(*) FROM hog_maintenance_run WHERE catalog_id = %lld",
                        (long long)cat_id(CAT));
    /* Twice a 10-day snapshot retention holds everything younger than 20 days. */
    sql_exec("UPDATE hog_catalog SET snapshot_retention_seconds = 864000 WHERE catalog_id = %lld",
             (long long)cat_id(CAT));
    json_t *res = cleanup_on(&srv, "");
    assert_int_equal(jint(res, "receipts_purged"), 0);
    assert_int_equal(jint(res, "runs_purged"), 1);
    assert_int_equal(jint(res, "receipts_purge_failures"), 0);
    json_decref(res);
    /* The manual run itself is one more. */
    assert_int_equal(sqli("SELECT count(*) FROM hog_maintenance_run WHERE catalog_id = %lld",
                          (long long)cat_id(CAT)),
                     runs);
    sql_exec("UPDATE hog_catalog SET snapshot_retention_seconds = NULL WHERE catalog_id = %lld",
             (long long)cat_id(CAT));
    res = cleanup_on(&srv, "");
    assert_int_equal(jint(res, "receipts_purged"), 2);
    json_decref(res);
    assert_false(receipt_kept(old));
    assert_false(receipt_kept(held));
    assert_true(receipt_kept(young));

    /* A receipt retention under an hour would let ordinary retries
     * re-publish: the server refuses to start with one. */
    char cmd[1200];
    snprintf(cmd, sizeof cmd,
             "%s --port 0 --database-url '%s' --receipt-retention-seconds 600 2>/dev/null",
             HOGLAKED_BIN, db.url);
    int status = system(cmd);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 2);
}

static int64_t cleanup_runs(const char *trigger)
{
    return sqli("SELECT count(*) FROM hog_maintenance_run WHERE catalog_id = %lld"
                " AND task = 'cleanup' AND run_trigger = '%s' AND status = 'ok'",
                (long long)cat_id(CAT), trigger);
}

/* A manual pass is a ledger run with the backlog in /maintenance/status;
 * a server whose loop runs every 50 ms drains the queue by itself and
 * records its runs with trigger "loop". */
static void test_ledger_and_loop(void **state)
{
    (void)state;
    drain_all();
    put_and_queue("ledger", 3);
    json_t *st = api_get_json(&srv, "/v1/catalogs/%s/maintenance/status", CAT);
    json_t *task, *backlog = NULL;
    size_t i;
    json_array_foreach (json_object_get(st, "tasks"), i, task)
        if (strcmp(json_string_value(json_object_get(task, "task")), "cleanup") == 0)
            backlog = json_object_get(task, "backlog");
    assert_non_null(backlog);
    assert_int_equal(jint(backlog, "queued_removals"), 3);
    json_decref(st);

    int64_t manual = cleanup_runs("manual");
    json_t *res = cleanup_on(&srv, "");
    assert_non_null(json_object_get(res, "ledger_purged"));
    expect_result(res, 3, 0, 0);
    assert_int_equal(cleanup_runs("manual"), manual + 1);

    char first[400], last[400];
    file_uri(first, sizeof first, "loop/f000.parquet");
    file_uri(last, sizeof last, "loop/f004.parquet");
    put_and_queue("loop", 5);
    struct test_server looped;
    const char *const extra[] = {"--cleanup-interval-ms", "50", NULL};
    test_server_start(&looped, &db, extra);
    for (int waited = 0; undrained() > 0 && waited < 400; waited++)
        usleep(50 * 1000);
    test_server_stop(&looped);
    assert_int_equal(undrained(), 0);
    assert_false(object_exists(first));
    assert_false(object_exists(last));
    assert_true(cleanup_runs("loop") >= 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_file_store),        cmocka_unit_test(test_moto),
        cmocka_unit_test(test_batch_and_leases),  cmocka_unit_test(test_failure_backoff),
        cmocka_unit_test(test_concurrent_passes), cmocka_unit_test(test_cli_verb),
        cmocka_unit_test(test_ledger_purge),      cmocka_unit_test(test_ledger_and_loop),
        cmocka_unit_test(test_run_purges),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

/* The orphan sweep (POST /v1/catalogs/{c}/maintenance/orphans and
 * `hoglake maintenance orphans`) against real hoglaked processes,
 * PostgreSQL, file:// and moto. Objects are written with objstore and
 * back-dated with utimensat (file://); catalog rows are written with SQL
 * or real commits; the test checks the objects themselves afterwards.
 *
 * Kept: objects a live or ended data file row or a DV row names, an
 * active upload claim names, an undrained queue row holds, or younger
 * than the grace. Deleted: the rest, temp files of dead writers included,
 * through the removal queue (reason orphan_sweep). Attacks: a symbolic
 * link under the data path to a directory outside it, another catalog's
 * objects, a path registered while the sweep runs. Needs
 * HOGLAKE_TEST_MOTO_ENDPOINT: without it the S3 test fails, never skips. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "client_harness.h"
#include "objstore/objstore.h"

#define NS "ns"
/* Seconds objects are back-dated by: past the server's default grace (one
 * day), which the tests' servers keep. */
#define OLD_AGE (2 * 86400)

static struct client_stack st; /* two servers reading moto, a scratch warehouse */
static struct objstore *store; /* file:// and moto */
static char s3run[128];

/* ---- objects ---- */

static void put_sized(const char *uri, size_t size)
{
    char *data = malloc(size ? size : 1);
    assert_non_null(data);
    memset(data, 'x', size);
    struct hl_error e;
    if (objstore_put(store, uri, data, size, 0, &e) != 0)
        fail_msg("put %s: %s", uri, e.message);
    free(data);
}

static bool object_exists(const char *uri)
{
    uint64_t size;
    struct hl_error e;
    int rc = objstore_head(store, uri, &size, &e);
    if (rc != 0 && e.status != HL_ERR_NOT_FOUND)
        fail_msg("head %s: %s", uri, e.message);
    return rc == 0;
}

/* Sets a file's mtime `age` seconds in the past (uri file://...). */
static void backdate(const char *uri, int64_t age)
{
    assert_true(strncmp(uri, "file://", 7) == 0);
    struct timespec ts[2];
    clock_gettime(CLOCK_REALTIME, &ts[0]);
    ts[0].tv_sec -= (time_t)age;
    ts[1] = ts[0];
    if (utimensat(AT_FDCWD, uri + 7, ts, AT_SYMLINK_NOFOLLOW) != 0)
        fail_msg("utimensat %s", uri);
}

/* An old object of `size` bytes at file://<dir>/<name> (uri out). */
static void old_file(char *uri, size_t usize, const char *dir, const char *name, size_t size)
{
    snprintf(uri, usize, "file://%s/%s", dir, name);
    put_sized(uri, size);
    backdate(uri, OLD_AGE);
}

/* ---- catalogs and rows ---- */

static void catalog_at(const char *name, const char *data_path)
{
    make_catalog_at(&st.srv, name, data_path);
    make_namespace(&st.srv, name, NS);
    json_decref(make_table(&st.srv, name, NS, "t", "[{\"name\":\"id\",\"type\":\"long\"}]"));
}

/* A file:// catalog whose data path is <root>/<name>; its directory into dir. */
static void file_catalog(const char *name, char *dir, size_t size)
{
    snprintf(dir, size, "%s/%s", st.warehouse, name);
    char dp[400];
    snprintf(dp, sizeof dp, "file://%s", dir);
    catalog_at(name, dp);
}

static int64_t file_row(const char *cat, const char *path, bool ended, int64_t size)
{
    int64_t cid = cat_id(cat);
    int64_t id = sqli("UPDATE hog_catalog SET next_file_id = next_file_id + 1"
                      " WHERE catalog_id = %lld RETURNING next_file_id - 1",
                      (long long)cid);
    sql_exec("INSERT INTO hog_data_file (catalog_id, data_file_id, table_id, begin_snapshot,"
             " end_snapshot, path, record_count, file_size_bytes, row_id_start)"
             " VALUES (%lld, %lld, %lld, 1, %s, '%s', 1, %lld, 0)",
             (long long)cid, (long long)id, (long long)table_id_of(cat, NS, "t"),
             ended ? "2" : "NULL", path, (long long)size);
    return id;
}

static void dv_row(const char *cat, int64_t file_id, const char *path)
{
    sql_exec("INSERT INTO hog_delete_file (catalog_id, delete_file_id, table_id, data_file_id,"
             " begin_snapshot, path, delete_count, file_size_bytes)"
             " VALUES (%lld, 1000000 + %lld, %lld, %lld, 1, '%s', 1, 10)",
             (long long)cat_id(cat), (long long)file_id, (long long)table_id_of(cat, NS, "t"),
             (long long)file_id, path);
}

/* The owner of the upload claims this test makes. */
#define CLAIM_OWNER "99999999-9999-4999-8999-999999999999"

static void claim_row(const char *cat, const char *path, const char *state, const char *expires)
{
    sql_exec("INSERT INTO hog_upload (catalog_id, upload_id, owner, prefix, path, file_kind,"
             " state, expires_at) VALUES (%lld, gen_random_uuid(), '" CLAIM_OWNER "', 'p/',"
             " '%s', 'data', '%s', now() + interval '%s')",
             (long long)cat_id(cat), path, state, expires);
}

/* A real commit appending one file at path, consuming its claim (if any). */
static void commit_path(const struct test_server *s, const char *cat, const char *path, long want)
{
    char body[1200];
    snprintf(body, sizeof body,
             "{'upload_owner':'" CLAIM_OWNER "','appends':[{'namespace':'" NS "','table':'t',"
             "'files':[{'path':'%s','record_count':1,'file_size_bytes':10}]}]}",
             path);
    char *q = dq(body);
    struct http_result r;
    api_send_text(&r, s, "POST", q, "/v1/catalogs/%s/commit", cat);
    expect_status(&r, want);
    http_result_free(&r);
    free(q);
}

/* ---- sweeps ---- */

static json_t *sweep_on(const struct test_server *s, const char *cat, const char *query)
{
    return api_post_json(s, "/v1/catalogs/%s/maintenance/orphans%s", cat, query);
}

static json_t *sweep(const char *cat, const char *query)
{
    return sweep_on(&st.srv, cat, query);
}

/* Fails unless the result's counters are the given ones. */
struct counts {
    json_int_t listed, deleted, referenced, claimed, queued, young, orphans, bytes_deleted;
};

static void expect_counts(const json_t *res, struct counts want)
{
    struct counts got = {jint(res, "listed"),  jint(res, "deleted"),      jint(res, "referenced"),
                         jint(res, "claimed"), jint(res, "queued"),       jint(res, "young"),
                         jint(res, "orphans"), jint(res, "bytes_deleted")};
    if (memcmp(&got, &want, sizeof got) != 0) {
        char *text = json_dumps(res, JSON_COMPACT);
        fail_msg("want listed %lld deleted %lld referenced %lld claimed %lld queued %lld young "
                 "%lld orphans %lld bytes_deleted %lld, got %s",
                 (long long)want.listed, (long long)want.deleted, (long long)want.referenced,
                 (long long)want.claimed, (long long)want.queued, (long long)want.young,
                 (long long)want.orphans, (long long)want.bytes_deleted, text);
    }
}

/* One sweep of cat whose counters must be `want`. */
static void expect_sweep(const char *cat, const char *query, struct counts want)
{
    json_t *res = sweep(cat, query);
    expect_counts(res, want);
    json_decref(res);
}

/* Sorts strcmp-wise pointers to strings (qsort on char * elements). */
static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static char *joined(const char **v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_str);
    size_t len = 1;
    for (size_t i = 0; i < n; i++)
        len += strlen(v[i]) + 1;
    char *out = calloc(1, len);
    for (size_t i = 0; i < n; i++) {
        strcat(out, v[i]);
        strcat(out, "\n");
    }
    return out;
}

/* The result's `paths`, sorted, joined by newlines. */
static char *paths_of(const json_t *res)
{
    const json_t *paths = json_object_get(res, "paths");
    assert_true(json_is_array(paths));
    size_t n = json_array_size(paths);
    const char **v = calloc(n + 1, sizeof *v);
    assert_non_null(v);
    for (size_t i = 0; i < n; i++)
        v[i] = json_string_value(json_array_get(paths, i));
    char *out = joined(v, n);
    free(v);
    return out;
}

/* ---- fixture ---- */

static int setup(void **state)
{
    (void)state;
    client_stack_up(&st, "orphans");
    struct objstore_config cfg = {.s3_endpoint = test_need_env("HOGLAKE_TEST_MOTO_ENDPOINT"),
                                  .s3_region = test_need_env("HOGLAKE_TEST_S3_REGION")};
    struct hl_error e;
    if (objstore_open(&cfg, &store, &e) != 0)
        fail_msg("objstore_open: %s", e.message);
    snprintf(s3run, sizeof s3run, "orphans-%ld-%ld", (long)getpid(), (long)time(NULL));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    objstore_free(store);
    client_stack_down(&st);
    return 0;
}

/* ---- tests ---- */

/* Every kind of kept object is kept and counted, old orphans and a dead
 * writer's temp file go (dry run first: nothing goes, the list is exactly
 * the orphans), bytes are right, and a second run finds nothing. */
static void test_core(void **state)
{
    (void)state;
    char dir[300];
    file_catalog("o_core", dir, sizeof dir);
    char live[400], ended[400], dv[400], claimed[400], abandoned[400];
    char staged[400], young[400], orphan[3][400], temp[400];
    old_file(live, sizeof live, dir, "data/ns/t/live.parquet", 100);
    old_file(ended, sizeof ended, dir, "data/ns/t/ended.parquet", 100);
    old_file(dv, sizeof dv, dir, "data/ns/t/dv.puffin", 100);
    old_file(claimed, sizeof claimed, dir, "data/ns/t/claimed.parquet", 100);
    old_file(abandoned, sizeof abandoned, dir, "data/ns/t/abandoned.parquet", 11);
    old_file(staged, sizeof staged, dir, "data/ns/t/compacted-x.parquet", 100);
    snprintf(young, sizeof young, "file://%s/data/ns/t/young.parquet", dir);
    put_sized(young, 100);
    old_file(orphan[0], sizeof orphan[0], dir, "data/ns/t/refused-append-0.parquet", 1000);
    old_file(orphan[1], sizeof orphan[1], dir, "data/ns/t/refused-append-1.parquet", 2000);
    old_file(orphan[2], sizeof orphan[2], dir, "stray/deep/x.bin", 3);
    old_file(temp, sizeof temp, dir, "data/ns/t/.hl-tmp.AbCdEf012345", 50);
    int64_t fid = file_row("o_core", live, false, 100);
    file_row("o_core", ended, true, 100);
    dv_row("o_core", fid, dv);
    claim_row("o_core", claimed, "active", "1 day");
    claim_row("o_core", abandoned, "abandoned", "1 day");
    sql_exec("INSERT INTO hog_file_removal (catalog_id, path, file_kind, reason)"
             " VALUES (%lld, '%s', 'data', 'compaction_staging')",
             (long long)cat_id("o_core"), staged);

    const char *gone[] = {orphan[0], orphan[1], orphan[2], temp, abandoned};
    enum { NGONE = sizeof gone / sizeof gone[0] };
    const int64_t gone_bytes = 1000 + 2000 + 3 + 50 + 11;
    char *want_paths = joined((const char *[]){gone[0], gone[1], gone[2], gone[3], gone[4]}, NGONE);

    /* Dry run: classifies, lists exactly the orphans, touches nothing. */
    json_t *res = sweep("o_core", "?dry_run=true");
    expect_counts(res, (struct counts){11, 0, 3, 1, 1, 1, NGONE, 0});
    assert_int_equal(jint(res, "orphan_bytes"), gone_bytes);
    assert_int_equal(jint(res, "temp_files"), 1);
    assert_true(json_is_true(json_object_get(res, "dry_run")));
    char *got = paths_of(res);
    assert_string_equal(got, want_paths);
    free(got);
    json_decref(res);
    for (size_t i = 0; i < NGONE; i++)
        assert_true(object_exists(gone[i]));
    assert_int_equal(sqli("SELECT count(*) FROM hog_file_removal WHERE reason = 'orphan_sweep'"),
                     0);

    /* The run: the orphans go through the queue, the rest stays. */
    res = sweep("o_core", "");
    expect_counts(res, (struct counts){11, NGONE, 3, 1, 1, 1, NGONE, gone_bytes});
    assert_false(json_is_true(json_object_get(res, "truncated")));
    got = paths_of(res);
    assert_string_equal(got, want_paths);
    free(got);
    json_decref(res);
    for (size_t i = 0; i < NGONE; i++)
        assert_false(object_exists(gone[i]));
    const char *kept[] = {live, ended, dv, claimed, staged, young};
    for (size_t i = 0; i < sizeof kept / sizeof kept[0]; i++)
        assert_true(object_exists(kept[i]));
    assert_int_equal(sqli("SELECT count(*) FROM hog_file_removal WHERE catalog_id = %lld"
                          " AND reason = 'orphan_sweep' AND drained_outcome = 'deleted'",
                          (long long)cat_id("o_core")),
                     NGONE);
    /* The staging ticket was not drained by the sweep's cleanup. */
    assert_int_equal(sqli("SELECT count(*) FROM hog_file_removal WHERE path = '%s'"
                          " AND drained_at IS NULL",
                          staged),
                     1);

    /* Nothing left to find; the ledger and the metrics saw it. */
    expect_sweep("o_core", "", (struct counts){6, 0, 3, 1, 1, 1, 0, 0});
    assert_true(sqli("SELECT count(*) FROM hog_maintenance_run WHERE catalog_id = %lld"
                     " AND task = 'orphans' AND run_trigger = 'manual' AND status = 'ok'",
                     (long long)cat_id("o_core")) == 3);
    struct http_result r;
    api_get(&r, &st.srv, "/metrics");
    expect_status(&r, 200);
    expect_contains(r.body, "hoglake_orphans_deleted_total 5", "metrics");
    http_result_free(&r);

    /* The grace of a run: 3 days keeps the back-dated ones (2 days). */
    char fresh[400];
    old_file(fresh, sizeof fresh, dir, "late/orphan.parquet", 5);
    res = sweep("o_core", "?older_than_seconds=259200");
    assert_int_equal(jint(res, "young"), 2);
    assert_int_equal(jint(res, "deleted"), 0);
    json_decref(res);
    assert_true(object_exists(fresh));
    free(want_paths);
}

/* Bad parameters are refused with a typed error and change nothing. */
static void test_bad_parameters(void **state)
{
    (void)state;
    char dir[300], orphan[400];
    file_catalog("o_bad", dir, sizeof dir);
    old_file(orphan, sizeof orphan, dir, "x.parquet", 1);
    const struct {
        const char *query;
        long status;
        const char *code;
    } bad[] = {
        {"?older_than_seconds=59", 422, "validation"},
        {"?older_than_seconds=abc", 400, NULL},
        {"?limit=0", 422, "validation"},
        {"?limit=10000001", 422, "validation"},
        {"?dry_run=maybe", 400, NULL},
        {"?bogus=1", 400, NULL},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char url[600];
        snprintf(url, sizeof url, "%s/v1/catalogs/o_bad/maintenance/orphans%s", st.srv.base,
                 bad[i].query);
        struct http_result r;
        http_call(&r, "POST", url, NULL, NULL, 0, NULL);
        if (bad[i].code)
            expect_error(&r, bad[i].status, bad[i].code);
        else
            expect_status(&r, bad[i].status);
        http_result_free(&r);
    }
    struct http_result r;
    char url[600];
    snprintf(url, sizeof url, "%s/v1/catalogs/nope/maintenance/orphans", st.srv.base);
    http_call(&r, "POST", url, NULL, NULL, 0, NULL);
    expect_status(&r, 404);
    http_result_free(&r);
    assert_true(object_exists(orphan));
    assert_int_equal(sqli("SELECT count(*) FROM hog_maintenance_run WHERE catalog_id = %lld",
                          (long long)cat_id("o_bad")),
                     0);
}

/* `limit` bounds a run: it says truncated, and the next runs go on. */
static void test_limit(void **state)
{
    (void)state;
    char dir[300];
    file_catalog("o_limit", dir, sizeof dir);
    enum { N = 25 };
    for (int i = 0; i < N; i++) {
        char name[64], uri[400];
        snprintf(name, sizeof name, "o/%02d.parquet", i);
        old_file(uri, sizeof uri, dir, name, 1);
    }
    json_t *res = sweep("o_limit", "?limit=10");
    assert_int_equal(jint(res, "listed"), 10);
    assert_int_equal(jint(res, "deleted"), 10);
    assert_true(json_is_true(json_object_get(res, "truncated")));
    json_decref(res);
    assert_int_equal(test_count_files(dir, ".parquet"), N - 10);
    res = sweep("o_limit", "?limit=15");
    assert_int_equal(jint(res, "deleted"), 15);
    assert_false(json_is_true(json_object_get(res, "truncated")));
    json_decref(res);
    assert_int_equal(test_count_files(dir, ".parquet"), 0);
}

/* Attack: a symbolic link under the data path to a directory outside it
 * (and one to a file outside it). Nothing outside is listed or deleted. */
static void test_symlink_outside(void **state)
{
    (void)state;
    char dir[300], outside[300];
    file_catalog("o_link", dir, sizeof dir);
    snprintf(outside, sizeof outside, "%s/outside-victim", st.warehouse);
    char victim[400], victim_file[400], orphan[400];
    old_file(victim, sizeof victim, outside, "precious.parquet", 10);
    old_file(victim_file, sizeof victim_file, outside, "single.parquet", 10);
    old_file(orphan, sizeof orphan, dir, "data/real-orphan.parquet", 10);
    char link[400], flink[400];
    snprintf(link, sizeof link, "%s/data/linked", dir);
    snprintf(flink, sizeof flink, "%s/data/linked-file.parquet", dir);
    assert_int_equal(symlink(outside, link), 0);
    assert_int_equal(symlink(victim_file + 7, flink), 0);
    /* Only the real orphan: neither link nor what it points at. */
    expect_sweep("o_link", "", (struct counts){1, 1, 0, 0, 0, 0, 1, 10});
    assert_true(object_exists(victim));
    assert_true(object_exists(victim_file));
    assert_false(object_exists(orphan));
    struct stat sb;
    assert_int_equal(lstat(link, &sb), 0);
    assert_int_equal(lstat(flink, &sb), 0);
    /* The data path itself swapped for a link to the outside: still nothing. */
    char moved[400];
    snprintf(moved, sizeof moved, "%s.moved", dir);
    assert_int_equal(rename(dir, moved), 0);
    assert_int_equal(symlink(outside, dir), 0);
    expect_sweep("o_link", "", (struct counts){0, 0, 0, 0, 0, 0, 0, 0});
    assert_true(object_exists(victim));
    assert_true(object_exists(victim_file));
    unlink(dir);
    assert_int_equal(rename(moved, dir), 0);
}

/* Attack: another catalog's objects, in a directory whose name merely
 * starts like this catalog's data path. */
static void test_other_catalog(void **state)
{
    (void)state;
    char a[300], b[300];
    file_catalog("o_cat", a, sizeof a);
    file_catalog("o_cat2", b, sizeof b); /* <root>/o_cat2 starts with <root>/o_cat */
    char mine[400], theirs[400], theirs_ref[400];
    old_file(mine, sizeof mine, a, "x.parquet", 4);
    old_file(theirs, sizeof theirs, b, "x.parquet", 4);
    old_file(theirs_ref, sizeof theirs_ref, b, "live.parquet", 4);
    file_row("o_cat2", theirs_ref, false, 4);
    expect_sweep("o_cat", "", (struct counts){1, 1, 0, 0, 0, 0, 1, 4});
    assert_false(object_exists(mine));
    assert_true(object_exists(theirs));
    assert_true(object_exists(theirs_ref));
}

struct background {
    const struct test_server *s;
    const char *cat;
    json_t *res;
};

static void *background_sweep(void *arg)
{
    struct background *b = arg;
    b->res = sweep_on(b->s, b->cat, "");
    return NULL;
}

/* Attack: paths registered while the sweep runs. One is committed after
 * the sweep classified it and before it queued it (the queueing statement
 * sees it, under the catalog lock); one is committed after it was queued
 * (the path guard refuses the commit, and the object goes); and a
 * registration the path guard cannot see (a row written straight into the
 * catalog) is caught by cleanup's re-check. */
static void test_registered_meanwhile(void **state)
{
    (void)state;
    char dir[300];
    file_catalog("o_race", dir, sizeof dir);
    char dp[400];
    snprintf(dp, sizeof dp, "file://%s", dir);
    char early[400], late[400], sneaky[400], plain[400];
    old_file(early, sizeof early, dir, "a-early.parquet", 10);
    old_file(late, sizeof late, dir, "b-late.parquet", 10);
    old_file(sneaky, sizeof sneaky, dir, "c-sneaky.parquet", 10);
    old_file(plain, sizeof plain, dir, "d-plain.parquet", 10);

    struct test_server slow;
    setenv("HOGLAKE_FAILPOINTS", "orphans-slow-sweep", 1);
    test_server_start(&slow, &st.db, NULL);
    unsetenv("HOGLAKE_FAILPOINTS");
    struct background b = {&slow, "o_race", NULL};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, background_sweep, &b), 0);
    /* Classified by now; queueing waits 2 s. */
    sleep_ms(800);
    commit_path(&st.srv, "o_race", early, 200);
    /* Queued by now; the drain waits 2 s more. */
    int64_t cid = cat_id("o_race");
    for (int i = 0; i < 100 && sqli("SELECT count(*) FROM hog_file_removal WHERE catalog_id = %lld"
                                    " AND reason = 'orphan_sweep'",
                                    (long long)cid) == 0;
         i++)
        sleep_ms(50);
    assert_int_equal(sqli("SELECT count(*) FROM hog_file_removal WHERE catalog_id = %lld"
                          " AND reason = 'orphan_sweep' AND drained_at IS NULL",
                          (long long)cid),
                     3);
    {
        char body[1200];
        snprintf(body, sizeof body,
                 "{'appends':[{'namespace':'" NS "','table':'t','files':[{'path':'%s',"
                 "'record_count':1,'file_size_bytes':10}]}]}",
                 late);
        char *q = dq(body);
        struct http_result r;
        api_send_text(&r, &st.srv, "POST", q, "/v1/catalogs/o_race/commit");
        expect_error(&r, 409, "commit_conflict");
        expect_detail_contains(&r, "queued for removal");
        http_result_free(&r);
        free(q);
    }
    file_row("o_race", sneaky, false, 10);
    pthread_join(th, NULL);
    test_server_stop(&slow);
    /* early: referenced at queueing; sneaky: referenced at the drain. */
    expect_counts(b.res, (struct counts){4, 2, 2, 0, 0, 0, 4, 20});
    json_decref(b.res);
    assert_true(object_exists(early));
    assert_true(object_exists(sneaky));
    assert_false(object_exists(late));
    assert_false(object_exists(plain));
    expect_sql("registered",
               "SELECT drained_outcome FROM hog_file_removal WHERE path = '%s'"
               " AND reason = 'orphan_sweep'",
               sneaky);
    assert_int_equal(sqli("SELECT count(*) FROM hog_file_removal WHERE path = '%s'", early), 0);
}

/* Two servers sweep over and over while appends commit: every append
 * claims its path before writing (as libhoglake does), some objects are
 * old by the time they commit, some young. No registered object is ever
 * deleted, and every orphan older than the grace is. */
struct sweeper {
    const struct test_server *s;
    volatile bool *stop;
    int runs;
};

static void *sweep_loop(void *arg)
{
    struct sweeper *w = arg;
    while (!*w->stop) {
        json_decref(sweep_on(w->s, "o_conc", ""));
        w->runs++;
    }
    return NULL;
}

static void test_concurrent(void **state)
{
    (void)state;
    char dir[300];
    file_catalog("o_conc", dir, sizeof dir);
    enum { ORPHANS = 300, APPENDS = 40 };
    for (int i = 0; i < ORPHANS; i++) {
        char name[64], uri[400];
        snprintf(name, sizeof name, "junk/%03d/o.parquet", i);
        old_file(uri, sizeof uri, dir, name, 3);
    }
    volatile bool stop = false;
    struct sweeper w1 = {&st.srv, &stop, 0}, w2 = {&st.srv2, &stop, 0};
    pthread_t t1, t2;
    assert_int_equal(pthread_create(&t1, NULL, sweep_loop, &w1), 0);
    assert_int_equal(pthread_create(&t2, NULL, sweep_loop, &w2), 0);
    char(*paths)[400] = calloc(APPENDS, sizeof *paths);
    assert_non_null(paths);
    for (int i = 0; i < APPENDS; i++) {
        char name[64];
        snprintf(name, sizeof name, "data/ns/t/append-%03d.parquet", i);
        snprintf(paths[i], sizeof paths[i], "file://%s/%s", dir, name);
        bool old = i % 2 == 0;
        if (old) /* claimed first, so an old object waiting for its commit is kept */
            claim_row("o_conc", paths[i], "active", "1 hour");
        put_sized(paths[i], 10);
        if (old)
            backdate(paths[i], OLD_AGE);
        sleep_ms(20);
        commit_path(i % 3 ? &st.srv : &st.srv2, "o_conc", paths[i], 200);
    }
    stop = true;
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    assert_true(w1.runs > 0 && w2.runs > 0);
    json_decref(sweep("o_conc", ""));
    for (int i = 0; i < APPENDS; i++)
        if (!object_exists(paths[i]))
            fail_msg("registered %s was deleted", paths[i]);
    assert_int_equal(test_count_files(dir, ""), APPENDS);
    assert_int_equal(sqli("SELECT count(*) FROM hog_file_removal WHERE catalog_id = %lld"
                          " AND reason = 'orphan_sweep' AND drained_outcome = 'deleted'",
                          (long long)cat_id("o_conc")),
                     ORPHANS);
    free(paths);
}

/* The CLI verb as a process: --dry-run prints the paths, one a line, then
 * the counts; the run deletes; --json prints the result; bad durations
 * exit 2 without a request. */
static void test_cli(void **state)
{
    (void)state;
    char dir[300];
    file_catalog("o_cli", dir, sizeof dir);
    char a[400], b[400], kept[400];
    old_file(a, sizeof a, dir, "a.parquet", 5);
    old_file(b, sizeof b, dir, "b.parquet", 6);
    old_file(kept, sizeof kept, dir, "kept.parquet", 7);
    file_row("o_cli", kept, false, 7);
    int64_t requests =
        test_route_requests(&st.srv, "POST", "/v1/catalogs/{catalog}/maintenance/orphans");

    struct cli_out o;
    const char *bad[] = {"--older-than 10",   "--older-than 59s", "--older-than garbage",
                         "--older-than 1.5h", "--older-than -60", "--limit 0"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cli_run(&o, HOGLAKE_CLI_BIN, st.srv.base, "/tmp", "maintenance orphans o_cli %s", bad[i]);
        cli_out_expect(&o, 2, bad[i]);
        cli_out_free(&o);
    }
    cli_run(&o, HOGLAKE_CLI_BIN, st.srv.base, "/tmp", "maintenance orphans o_cli --older-than 10");
    expect_contains(o.err, "at least 60", "--older-than 10");
    cli_out_free(&o);
    assert_int_equal(
        test_route_requests(&st.srv, "POST", "/v1/catalogs/{catalog}/maintenance/orphans"),
        requests);

    cli_run(&o, HOGLAKE_CLI_BIN, st.srv.base, "/tmp", "maintenance orphans o_cli --dry-run");
    cli_out_expect(&o, 0, "dry run");
    char want[1200];
    snprintf(want, sizeof want, "%s\n%s\nwould delete 2 (11 B), listed 3, referenced 1", a, b);
    expect_contains(o.out, want, "dry run output");
    cli_out_free(&o);
    assert_true(object_exists(a) && object_exists(b));

    cli_run(&o, HOGLAKE_CLI_BIN, st.srv.base, "/tmp", "maintenance orphans o_cli --older-than 1h");
    cli_out_expect(&o, 0, "run");
    snprintf(want, sizeof want, "%s\n%s\ndeleted 2 (11 B), listed 3, referenced 1", a, b);
    expect_contains(o.out, want, "run output");
    cli_out_free(&o);
    assert_false(object_exists(a) || object_exists(b));
    assert_true(object_exists(kept));

    cli_run(&o, HOGLAKE_CLI_BIN, st.srv.base, "/tmp", "--json maintenance orphans o_cli --dry-run");
    cli_out_expect(&o, 0, "json");
    json_t *res = jparse(o.out);
    expect_counts(res, (struct counts){1, 0, 1, 0, 0, 0, 0, 0});
    json_decref(res);
    cli_out_free(&o);
}

/* moto, unsigned (it checks no signature): starts a multipart upload of
 * uri (s3://bucket/key) that nobody completes, or counts those under
 * prefix (s3://bucket/prefix). */
static void moto_call(struct http_result *r, const char *method, const char *uri, const char *query)
{
    char url[900];
    const char *key = strchr(uri + 5, '/');
    snprintf(url, sizeof url, "%s/%.*s%s%s", test_need_env("HOGLAKE_TEST_MOTO_ENDPOINT"),
             (int)(key - (uri + 5)), uri + 5, key, query);
    http_call(r, method, url, NULL, strcmp(method, "POST") == 0 ? "" : NULL, 0, NULL);
    expect_status(r, 200);
}

static void start_upload(const char *uri)
{
    struct http_result r;
    moto_call(&r, "POST", uri, "?uploads");
    http_result_free(&r);
}

static int uploads_under(const char *bucket, const char *prefix)
{
    char uri[600];
    snprintf(uri, sizeof uri, "s3://%s/", bucket);
    char query[400];
    snprintf(query, sizeof query, "?uploads&prefix=%s", prefix);
    struct http_result r;
    moto_call(&r, "GET", uri, query);
    int n = 0;
    for (const char *p = r.body; (p = strstr(p, "<Upload>")) != NULL; p++)
        n++;
    http_result_free(&r);
    return n;
}

/* S3 (moto): the core case once. moto cannot back-date, so the objects
 * age 61 s for real, and a run's older_than_seconds=60 lets them go. */
static void test_s3(void **state)
{
    (void)state;
    char dp[300];
    snprintf(dp, sizeof dp, "s3://%s/%s/cat", st.bucket, s3run);
    catalog_at("o_s3", dp);
    char live[400], claimed[400], orphan[400], orphan2[400], young[400], sibling[400];
    snprintf(live, sizeof live, "%s/data/ns/t/live.parquet", dp);
    snprintf(claimed, sizeof claimed, "%s/data/ns/t/claimed.parquet", dp);
    snprintf(orphan, sizeof orphan, "%s/data/ns/t/orphan.parquet", dp);
    snprintf(orphan2, sizeof orphan2, "%s/x/orphan2.bin", dp);
    snprintf(young, sizeof young, "%s/data/ns/t/young.parquet", dp);
    snprintf(sibling, sizeof sibling, "s3://%s/%s/cat2/old.parquet", st.bucket, s3run);
    put_sized(live, 10);
    put_sized(claimed, 10);
    put_sized(orphan, 100);
    put_sized(orphan2, 23);
    put_sized(sibling, 10);
    file_row("o_s3", live, false, 10);
    claim_row("o_s3", claimed, "active", "1 day");
    /* Incomplete multipart uploads: a dead writer's, a claimed writer's,
     * and another catalog's. moto dates every upload in 2010: all are old. */
    char partial[400], partial_claimed[400], partial_sibling[400], prefix[300];
    snprintf(partial, sizeof partial, "%s/data/ns/t/partial.parquet", dp);
    snprintf(partial_claimed, sizeof partial_claimed, "%s/data/ns/t/claimed-partial.parquet", dp);
    snprintf(partial_sibling, sizeof partial_sibling, "s3://%s/%s/cat2/partial.parquet", st.bucket,
             s3run);
    start_upload(partial);
    start_upload(partial_claimed);
    start_upload(partial_sibling);
    claim_row("o_s3", partial_claimed, "active", "1 day");
    snprintf(prefix, sizeof prefix, "%s/", s3run);
    assert_int_equal(uploads_under(st.bucket, prefix), 3);
    sleep_ms(61500);
    put_sized(young, 10);
    expect_sweep("o_s3", "?older_than_seconds=60&dry_run=true",
                 (struct counts){5, 0, 1, 1, 0, 1, 2, 0});
    assert_true(object_exists(orphan));
    assert_int_equal(uploads_under(st.bucket, prefix), 3);
    json_t *res = sweep("o_s3", "?older_than_seconds=60");
    expect_counts(res, (struct counts){5, 2, 1, 1, 0, 1, 2, 123});
    assert_int_equal(jint(res, "uploads_listed"), 2);
    assert_int_equal(jint(res, "uploads_orphaned"), 1);
    assert_int_equal(jint(res, "uploads_aborted"), 1);
    json_decref(res);
    /* The dead writer's upload is gone; the claimed one and the other
     * catalog's stay. */
    assert_int_equal(uploads_under(st.bucket, prefix), 2);
    char sibling_prefix[300];
    snprintf(sibling_prefix, sizeof sibling_prefix, "%s/cat2/", s3run);
    assert_int_equal(uploads_under(st.bucket, sibling_prefix), 1);
    assert_false(object_exists(orphan));
    assert_false(object_exists(orphan2));
    assert_true(object_exists(live));
    assert_true(object_exists(claimed));
    assert_true(object_exists(young));
    assert_true(object_exists(sibling));
    expect_sweep("o_s3", "?older_than_seconds=60", (struct counts){3, 0, 1, 1, 0, 1, 0, 0});
}

/* The loop is off by default; turned on, it sweeps every catalog, and its
 * ledger runs name no paths. Runs last: it sweeps the other tests'
 * catalogs too. */
static void test_loop(void **state)
{
    (void)state;
    json_t *status = api_get_json(&st.srv, "/v1/catalogs/o_core/maintenance/status");
    const json_t *tasks = json_object_get(status, "tasks");
    bool found = false;
    for (size_t i = 0; i < json_array_size(tasks); i++) {
        const json_t *t = json_array_get(tasks, i);
        if (strcmp(jstr(t, "task"), "orphans") == 0) {
            found = true;
            assert_true(json_is_null(json_object_get(t, "loop")));
        }
    }
    assert_true(found);
    json_decref(status);

    char dir[300], orphan[400];
    file_catalog("o_loop", dir, sizeof dir);
    old_file(orphan, sizeof orphan, dir, "x.parquet", 9);
    struct test_server looping;
    const char *extra[] = {"--orphan-interval-ms", "200", NULL};
    test_server_start(&looping, &st.db, extra);
    for (int i = 0; i < 200 && object_exists(orphan); i++)
        sleep_ms(50);
    test_server_stop(&looping);
    assert_false(object_exists(orphan));
    expect_sql("1|0|[]",
               "SELECT (result->>'deleted') || '|' || (result->>'failed') || '|' ||"
               " (result->'paths')::text FROM hog_maintenance_run WHERE catalog_id = %lld"
               " AND task = 'orphans' AND run_trigger = 'loop' AND (result->>'deleted')::int > 0",
               (long long)cat_id("o_loop"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_core),
        cmocka_unit_test(test_bad_parameters),
        cmocka_unit_test(test_limit),
        cmocka_unit_test(test_symlink_outside),
        cmocka_unit_test(test_other_catalog),
        cmocka_unit_test(test_registered_meanwhile),
        cmocka_unit_test(test_concurrent),
        cmocka_unit_test(test_cli),
        cmocka_unit_test(test_s3),
        cmocka_unit_test(test_loop),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

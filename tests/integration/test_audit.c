/* The audit log (contract §8.2) against a real hoglaked and PostgreSQL:
 *   - with --audit-log FILE every consequential action writes one JSON line
 *     (action, actor {token_id, name} of the caller's token, outcome,
 *     catalog, object, detail, request_id), successes and failures alike,
 *     in request order, after the transaction resolved (a commit's line
 *     names the snapshot that is the head by then);
 *   - every member of concurrent (group) commits gets its own line;
 *   - request ids: a caller's X-Request-Id is logged, a request without one
 *     gets a generated id, returned in the response and logged;
 *   - maintenance runs are audited with their result;
 *   - an audit path that cannot be written (a directory, /dev/full) fails
 *     no action; the failures are counted;
 *   - without --audit-log the lines go to the process log as logger
 *     hoglake.audit. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"

#define CAT "au"
#define DATA "s3://hoglake-test/" CAT

static struct test_db db;
static struct test_server srv;
static PGconn *pg;
static char dir[256], log_path[320];

static int setup(void **state)
{
    (void)state;
    test_scratch_dir(dir, sizeof dir, "audit");
    snprintf(log_path, sizeof log_path, "%s/audit.log", dir);
    test_db_create(&db, "audit");
    const char *const extra[] = {"--audit-log", log_path, NULL};
    test_server_start(&srv, &db, extra);
    pg = test_db_connect(&db);
    test_sql_use(pg);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    test_stack_down(&db, &srv, &pg);
    /* What the tests made there: the log and the directory used as one. */
    char path[400];
    snprintf(path, sizeof path, "%s/is-a-directory", dir);
    rmdir(path);
    unlink(log_path);
    rmdir(dir);
    return 0;
}

/* ---- reading the log ---- */

static size_t consumed; /* lines of the log already checked */

/* The n-th line (0-based) of the log, waiting up to 10 s for the writer;
 * NULL when it never came. Malloc'd. */
static char *line_at(size_t n, int wait_ms)
{
    for (int waited = 0;; waited += 20) {
        FILE *f = fopen(log_path, "r");
        char *line = NULL;
        size_t cap = 0, i = 0;
        ssize_t len;
        while (f && (len = getline(&line, &cap, f)) >= 0) {
            if (i++ == n && len > 0 && line[len - 1] == '\n') {
                fclose(f);
                line[len - 1] = '\0';
                return line;
            }
        }
        free(line);
        if (f)
            fclose(f);
        if (waited >= wait_ms)
            return NULL;
        sleep_ms(20);
    }
}

/* The next unchecked line, parsed; fails unless it is a JSON object with
 * the fixed fields and exactly the given action/outcome/catalog/object
 * (NULL: absent). Caller json_decref's. */
static json_t *next_line(const char *action, const char *outcome, const char *catalog,
                         const char *object)
{
    char *text = line_at(consumed, 10000);
    if (!text) {
        test_server_dump_log(&srv);
        fail_msg("audit line %zu (%s %s) never came", consumed, action, outcome);
    }
    consumed++;
    json_error_t e;
    json_t *o = json_loads(text, 0, &e);
    if (!o || !json_is_object(o))
        fail_msg("audit line is not a JSON object: %s", text);
    const char *const known[] = {"time",    "action", "actor",  "outcome",
                                 "catalog", "object", "detail", "request_id"};
    const char *key;
    json_t *v;
    json_object_foreach (o, key, v) {
        bool ok = false;
        for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
            ok |= strcmp(key, known[i]) == 0;
        if (!ok)
            fail_msg("unknown field %s in %s", key, text);
    }
    if (strcmp(jstr(o, "action"), action) != 0 || strcmp(jstr(o, "outcome"), outcome) != 0)
        fail_msg("expected %s/%s, got %s", action, outcome, text);
    /* Every request here carries the bootstrap admin token: its id and
     * name, never its secret. */
    json_t *actor = json_object_get(o, "actor");
    assert_true(json_is_object(actor) && json_object_size(actor) == 2);
    assert_string_equal(jstr(actor, "name"), "bootstrap-admin");
    char sql[200];
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM hog_token WHERE name = 'bootstrap-admin' AND token_id = '%s'",
             jstr(actor, "token_id"));
    assert_int_equal(sqli("%s", sql), 1);
    assert_null(strstr(text, srv.token));
    /* 2026-11-29T23:13:13.5Z: the fraction has as many digits as it needs. */
    const char *when = jstr(o, "time");
    assert_true(strlen(when) >= 20 && when[10] == 'T' && when[strlen(when) - 1] == 'Z');
    if (catalog)
        assert_string_equal(jstr(o, "catalog"), catalog);
    else
        assert_null(json_object_get(o, "catalog"));
    if (object)
        assert_string_equal(jstr(o, "object"), object);
    else
        assert_null(json_object_get(o, "object"));
    free(text);
    return o;
}

/* next_line, then the failure's error code in detail.error. */
static void next_failure(const char *action, const char *outcome, const char *catalog,
                         const char *object, const char *code)
{
    json_t *o = next_line(action, outcome, catalog, object);
    assert_string_equal(jstr(json_object_get(o, "detail"), "error"), code);
    json_decref(o);
}

static void next_ok(const char *action, const char *outcome, const char *catalog,
                    const char *object)
{
    json_decref(next_line(action, outcome, catalog, object));
}

/* No line beyond those checked (after giving the writer time). */
static void no_more_lines(void)
{
    char *extra = line_at(consumed, 300);
    if (extra)
        fail_msg("unexpected audit line: %s", extra);
}

/* ---- requests ---- */

/* Sends a single-quoted JSON body (NULL: none) with optional extra
 * headers. */
static void send(struct http_result *r, const char *method, const char *body,
                 const char *const *headers, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void send(struct http_result *r, const char *method, const char *body,
                 const char *const *headers, const char *fmt, ...)
{
    char url[1024];
    int n = snprintf(url, sizeof url, "%s", srv.base);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(url + n, sizeof url - (size_t)n, fmt, ap);
    va_end(ap);
    char *b = body ? dq(body) : NULL;
    http_call(r, method, url, b ? "application/json" : NULL, b, b ? strlen(b) : 0, headers);
    free(b);
}

static void send_expect(long status, const char *method, const char *body, const char *path)
{
    struct http_result r;
    send(&r, method, body, NULL, "%s", path);
    expect_status(&r, status);
    http_result_free(&r);
}

#define TBL "/v1/catalogs/" CAT "/namespaces/ns/tables"
#define APPEND(read, file)                                                                         \
    "{'read_snapshot':" read ",'appends':[{'namespace':'ns','table':'t','files':[{'path':'" DATA   \
    "/" file "','record_count':1,'file_size_bytes':10}]}]}"

/* ---- tests ---- */

static void every_action_is_audited(void **state)
{
    (void)state;
    /* Catalog create, with a generated request id that the response and the
     * line share. */
    struct http_result r;
    send(&r, "POST", "{'name':'" CAT "','data_path':'" DATA "'}", NULL, "/v1/catalogs");
    expect_status(&r, 201);
    assert_true(strncmp(r.request_id, "hl-", 3) == 0);
    json_t *o = next_line("catalog_create", "ok", CAT, NULL);
    assert_string_equal(jstr(o, "request_id"), r.request_id);
    assert_string_equal(jstr(json_object_get(o, "detail"), "name"), CAT);
    json_decref(o);
    http_result_free(&r);
    send_expect(409, "POST", "{'name':'" CAT "','data_path':'" DATA "'}", "/v1/catalogs");
    next_failure("catalog_create", "conflict", CAT, NULL, "already_exists");

    send_expect(200, "PATCH", "{'snapshot_retention_seconds':3600}",
                "/v1/catalogs/" CAT "/options");
    o = next_line("catalog_options", "ok", CAT, NULL);
    assert_int_equal(jint(json_object_get(o, "detail"), "snapshot_retention_seconds"), 3600);
    json_decref(o);
    send_expect(422, "PATCH", "{'snapshot_retention_seconds':-1}", "/v1/catalogs/" CAT "/options");
    next_failure("catalog_options", "validation", CAT, NULL, "validation");

    /* A caller's request id is logged as given. */
    static const char *const trace[] = {"X-Request-Id: audit-trace-7", NULL};
    send(&r, "POST", "{'name':'ns'}", trace, "/v1/catalogs/" CAT "/namespaces");
    expect_status(&r, 201);
    http_result_free(&r);
    o = next_line("namespace_create", "ok", CAT, "ns");
    assert_string_equal(jstr(o, "request_id"), "audit-trace-7");
    assert_int_equal(jint(json_object_get(o, "detail"), "snapshot_id"), head_of(CAT));
    json_decref(o);
    send_expect(409, "POST", "{'name':'ns'}", "/v1/catalogs/" CAT "/namespaces");
    next_failure("namespace_create", "conflict", CAT, "ns", "already_exists");

    send_expect(201, "POST", "{'name':'t','columns':[{'name':'id','type':'long'}]}", TBL);
    next_ok("table_create", "ok", CAT, "ns.t");
    send_expect(200, "POST", "{'ops':[{'op':'add_column','column':{'name':'c','type':'int'}}]}",
                TBL "/t/alter");
    next_ok("table_alter", "ok", CAT, "ns.t");
    int64_t read = head_of(CAT);

    /* A commit's line comes after its transaction: the snapshot it names
     * is already the head. */
    char body[600];
    snprintf(body, sizeof body, APPEND("%lld", "a/1.parquet"), (long long)read);
    send(&r, "POST", body, NULL, "/v1/catalogs/" CAT "/commit");
    expect_status(&r, 200);
    int64_t snap = jint(r.json, "snapshot_id");
    http_result_free(&r);
    o = next_line("commit", "committed", CAT, NULL);
    json_t *d = json_object_get(o, "detail");
    assert_int_equal(jint(d, "snapshot_id"), snap);
    assert_int_equal(snap, head_of(CAT));
    assert_int_equal(jint(d, "files"), 1);
    assert_false(json_is_true(json_object_get(d, "replayed")));
    json_decref(o);

    /* A DDL after the writer's read snapshot: the commit is refused and
     * audited with the contract's outcome. */
    send_expect(409, "POST", "{'ops':[{'op':'add_column','column':{'name':'c2','type':'int'}}]}",
                TBL "/t/alter");
    next_failure("table_alter", "conflict", CAT, "ns.t", "idless_files_present");
    send_expect(200, "POST", "{'ops':[{'op':'set_table_comment','comment':'audited'}]}",
                TBL "/t/alter");
    next_ok("table_alter", "ok", CAT, "ns.t");
    snprintf(body, sizeof body, APPEND("%lld", "a/2.parquet"), (long long)read);
    send_expect(409, "POST", body, "/v1/catalogs/" CAT "/commit");
    next_failure("commit", "ddl_since_read_snapshot", CAT, NULL, "ddl_since_read_snapshot");
    send_expect(422, "POST", "{'appends':[{'namespace':'ns','table':'t','files':[]}]}",
                "/v1/catalogs/" CAT "/commit");
    next_failure("commit", "validation", CAT, NULL, "validation");

    /* Offsets: a commit, then a regression. */
    json_t *t = api_get_json(&srv, TBL "/t");
    char uuid[64], path[300];
    snprintf(uuid, sizeof uuid, "%s", jstr(t, "table_uuid"));
    json_decref(t);
    char object[128];
    snprintf(object, sizeof object, "reader.%s", uuid);
    snprintf(path, sizeof path, "/v1/catalogs/" CAT "/consumers/reader/offsets/%s", uuid);
    snprintf(body, sizeof body, "{'snapshot_id':%lld}", (long long)snap);
    send_expect(200, "PUT", body, path);
    o = next_line("offset_commit", "ok", CAT, object);
    assert_int_equal(jint(json_object_get(o, "detail"), "committed_snapshot"), snap);
    json_decref(o);
    snprintf(body, sizeof body, "{'snapshot_id':%lld}", (long long)snap - 1);
    send_expect(409, "PUT", body, path);
    next_failure("offset_commit", "regression", CAT, object, "offset_regression");

    /* Views, drops, a missing object. */
    send_expect(201, "POST", "{'name':'v','sql':'select 1'}",
                "/v1/catalogs/" CAT "/namespaces/ns/views");
    next_ok("view_create", "ok", CAT, "ns.v");
    send_expect(200, "DELETE", NULL, "/v1/catalogs/" CAT "/namespaces/ns/views/v");
    next_ok("view_drop", "ok", CAT, "ns.v");
    send_expect(409, "DELETE", NULL, "/v1/catalogs/" CAT "/namespaces/ns");
    next_failure("namespace_drop", "conflict", CAT, "ns", "namespace_not_empty");
    send_expect(200, "DELETE", NULL, TBL "/t");
    next_ok("table_drop", "ok", CAT, "ns.t");
    send_expect(404, "DELETE", NULL, "/v1/catalogs/" CAT "/namespaces/nope");
    next_failure("namespace_drop", "not_found", CAT, "nope", "not_found");
    send_expect(200, "DELETE", NULL, "/v1/catalogs/" CAT "/namespaces/ns");
    next_ok("namespace_drop", "ok", CAT, "ns");

    /* A manual maintenance run, with its result. */
    send_expect(200, "POST", NULL, "/v1/catalogs/" CAT "/maintenance/expire");
    o = next_line("maintenance_expiry", "ok", CAT, NULL);
    jint(json_object_get(o, "detail"), "snapshots_expired");
    json_decref(o);

    /* Reads are not audited. */
    send_expect(200, "GET", NULL, "/v1/catalogs/" CAT);
    send_expect(200, "GET", NULL, "/v1/catalogs/" CAT "/snapshots");
    no_more_lines();
}

struct committer {
    int i;
    int64_t snapshot;
};

static void *commit_one(void *arg)
{
    struct committer *c = arg;
    char body[600];
    snprintf(body, sizeof body,
             "{'appends':[{'namespace':'g','table':'t','files':[{'path':'" DATA
             "/g/%d.parquet','record_count':1,'file_size_bytes':10}]}]}",
             c->i);
    struct http_result r;
    send(&r, "POST", body, NULL, "/v1/catalogs/" CAT "/commit");
    c->snapshot = r.status == 200 ? jint(r.json, "snapshot_id") : -1;
    http_result_free(&r);
    return NULL;
}

/* Concurrent commits (grouped or not): one line per request. */
static void each_concurrent_commit_gets_its_line(void **state)
{
    (void)state;
    send_expect(201, "POST", "{'name':'g'}", "/v1/catalogs/" CAT "/namespaces");
    next_ok("namespace_create", "ok", CAT, "g");
    send_expect(201, "POST", "{'name':'t','columns':[{'name':'id','type':'long'}]}",
                "/v1/catalogs/" CAT "/namespaces/g/tables");
    next_ok("table_create", "ok", CAT, "g.t");
    enum { N = 8 };
    struct committer c[N];
    pthread_t th[N];
    for (int i = 0; i < N; i++) {
        c[i] = (struct committer){.i = i};
        assert_int_equal(pthread_create(&th[i], NULL, commit_one, &c[i]), 0);
    }
    for (int i = 0; i < N; i++)
        pthread_join(th[i], NULL);
    bool seen[N] = {false};
    for (int k = 0; k < N; k++) {
        json_t *o = next_line("commit", "committed", CAT, NULL);
        int64_t s = jint(json_object_get(o, "detail"), "snapshot_id");
        json_decref(o);
        int match = -1;
        for (int i = 0; i < N; i++)
            if (c[i].snapshot == s && !seen[i])
                match = i;
        if (match < 0)
            fail_msg("a commit line names snapshot %lld, which no request got", (long long)s);
        seen[match] = true;
    }
    no_more_lines();
}

/* A metric sample's value (0 when absent). */
static double metric_of(const struct test_server *s, const char *name)
{
    struct http_result r;
    api_get(&r, s, "/metrics");
    expect_status(&r, 200);
    double v = 0;
    for (const char *at = r.body; (at = strstr(at, name)); at++)
        if (at == r.body || at[-1] == '\n') {
            v = strtod(at + strlen(name), NULL);
            break;
        }
    http_result_free(&r);
    return v;
}

static void unwritable_paths_fail_nothing(void **state)
{
    (void)state;
    char sub[300];
    snprintf(sub, sizeof sub, "%s/is-a-directory", dir);
    assert_int_equal(mkdir(sub, 0755), 0);
    const char *paths[] = {sub, "/dev/full"};
    for (int i = 0; i < 2; i++) {
        struct stat st;
        if (stat(paths[i], &st) != 0)
            continue; /* no /dev/full here */
        const char *const extra[] = {"--audit-log", paths[i], NULL};
        struct test_server s;
        test_server_start(&s, &db, extra);
        char name[32];
        snprintf(name, sizeof name, "unw%d", i);
        make_catalog(&s, name);
        make_namespace(&s, name, "ns");
        struct http_result r;
        api_send(&r, &s, "POST",
                 jparse("{\"name\":\"t\",\"columns\":[{\"name\":\"id\",\"type\":\"long\"}]}"),
                 "/v1/catalogs/%s/namespaces/ns/tables", name);
        expect_status(&r, 201);
        http_result_free(&r);
        /* The writer is asynchronous: wait for it to have tried. */
        for (int waited = 0; metric_of(&s, "hoglake_audit_write_failures_total ") < 3;
             waited += 20) {
            if (waited > 5000)
                fail_msg("audit failures to %s were not counted", paths[i]);
            sleep_ms(20);
        }
        test_server_stop(&s);
    }
}

static void default_is_the_process_log(void **state)
{
    (void)state;
    struct test_server s;
    test_server_start(&s, &db, NULL);
    make_catalog(&s, "deflog");
    test_server_stop(&s); /* the queue is written out on the way down */
    FILE *f = fopen(s.log, "r");
    assert_non_null(f);
    char line[4096];
    int found = 0;
    while (fgets(line, sizeof line, f)) {
        const char *at = strstr(line, " info  hoglake.audit {");
        if (!at)
            continue;
        json_t *o = json_loads(at + strlen(" info  hoglake.audit "), 0, NULL);
        assert_non_null(o);
        assert_string_equal(jstr(o, "action"), "catalog_create");
        assert_string_equal(jstr(o, "catalog"), "deflog");
        json_decref(o);
        found++;
    }
    fclose(f);
    assert_int_equal(found, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_action_is_audited),
        cmocka_unit_test(each_concurrent_commit_gets_its_line),
        cmocka_unit_test(unwritable_paths_fail_nothing),
        cmocka_unit_test(default_is_the_process_log),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

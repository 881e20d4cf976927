/* The server process: the embedded default, migrations under concurrent
 * start-up, lock timeouts, draining on SIGTERM, and the health probe. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

#ifndef HL_MIGRATION_COUNT
#error "HL_MIGRATION_COUNT must be defined by the build"
#endif

static int64_t catalog_lock_key(int64_t catalog_id)
{
    return (int64_t)((4740871ULL << 32) | ((uint64_t)catalog_id & 0xffffffffu));
}

/* Holds a catalog's advisory lock from outside, as a long DDL would. */
static PGconn *hold_catalog_lock(const struct test_db *db, const char *catalog)
{
    PGconn *c = test_db_connect(db);
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT catalog_id FROM hog_catalog WHERE name = '%s'", catalog);
    int64_t id = test_db_scalar(c, sql);
    snprintf(sql, sizeof sql, "SELECT pg_advisory_lock(%lld)", (long long)catalog_lock_key(id));
    PGresult *r = PQexec(c, sql);
    assert_int_equal(PQresultStatus(r), PGRES_TUPLES_OK);
    PQclear(r);
    return c;
}

static void lock_timeout_is_503_with_retry_after(void **state)
{
    (void)state;
    struct test_db db;
    test_db_create(&db, "life1");
    struct test_server s;
    static const char *const extra[] = {"--commit-lock-timeout-ms", "400", NULL};
    test_server_start(&s, &db, extra);
    make_catalog(&s, "locked");
    PGconn *holder = hold_catalog_lock(&db, "locked");
    struct http_result r;
    api_send(&r, &s, "POST", jpack("{s:s}", "name", "blocked"), "/v1/catalogs/locked/namespaces");
    expect_error(&r, 503, "commit_queue_timeout");
    assert_string_equal(r.retry_after, "1");
    http_result_free(&r);
    /* Reads never take the lock. */
    api_get(&r, &s, "/v1/catalogs/locked/namespaces");
    expect_status(&r, 200);
    http_result_free(&r);
    PQfinish(holder); /* releases the session lock */
    api_send(&r, &s, "POST", jpack("{s:s}", "name", "blocked"), "/v1/catalogs/locked/namespaces");
    expect_status(&r, 201);
    /* The timed-out attempt consumed no snapshot. */
    assert_int_equal(jint(r.json, "snapshot_id"), 1);
    http_result_free(&r);
    api_get(&r, &s, "/metrics");
    assert_non_null(strstr(r.body, "hoglake_commit_lock_wait_seconds_count "));
    http_result_free(&r);
    test_server_stop(&s);
    test_db_drop(&db);
}

struct pending_call {
    const struct test_server *server;
    long status;
    int64_t snapshot;
};

static void *blocked_create(void *arg)
{
    struct pending_call *p = arg;
    struct http_result r;
    api_send(&r, p->server, "POST", jpack("{s:s}", "name", "late"),
             "/v1/catalogs/drain/namespaces");
    p->status = r.status;
    p->snapshot = r.json && json_is_integer(json_object_get(r.json, "snapshot_id"))
                      ? json_integer_value(json_object_get(r.json, "snapshot_id"))
                      : -1;
    http_result_free(&r);
    return NULL;
}

static bool port_accepts(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    bool ok = connect(fd, (struct sockaddr *)&a, sizeof a) == 0;
    close(fd);
    return ok;
}

/* SIGTERM while a DDL is waiting on the lock: the listener closes at once,
 * the in-flight request still completes and is answered, then the process
 * exits 0. */
static void sigterm_drains_in_flight_requests(void **state)
{
    (void)state;
    struct test_db db;
    test_db_create(&db, "life2");
    struct test_server s;
    test_server_start(&s, &db, NULL);
    make_catalog(&s, "drain");
    PGconn *holder = hold_catalog_lock(&db, "drain");
    struct pending_call call = {&s, 0, 0};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, blocked_create, &call), 0);
    /* Wait until the request is inside the server, waiting for the lock. */
    PGconn *watch = test_db_connect(&db);
    for (int i = 0; i < 500; i++) {
        if (test_db_scalar(watch, WAITING_FOR_ADVISORY_LOCK) > 0)
            break;
        sleep_ms(10);
    }
    assert_int_equal(test_db_scalar(watch, WAITING_FOR_ADVISORY_LOCK), 1);
    PQfinish(watch);
    kill(s.pid, SIGTERM);
    sleep_ms(300);
    assert_int_equal(waitpid(s.pid, NULL, WNOHANG), 0); /* still draining */
    assert_false(port_accepts(s.port));                 /* but no longer listening */
    PQfinish(holder);
    pthread_join(th, NULL);
    assert_int_equal(call.status, 201);
    assert_int_equal(call.snapshot, 1);
    test_server_stop(&s); /* reaps it and checks exit status 0 */
    test_db_drop(&db);
}

/* Replicas starting at the same moment on a fresh database: the advisory
 * lock lets one migrate while the other waits, and both come up. */
static void concurrent_start_migrates_once(void **state)
{
    (void)state;
    struct test_db db;
    test_db_create(&db, "life3");
    struct test_server a, b, c;
    test_server_start(&a, &db, NULL);
    test_server_start(&b, &db, NULL);
    test_server_start(&c, &db, NULL);
    PGconn *conn = test_db_connect(&db);
    /* Each migration recorded once, numbered 1..N. */
    assert_int_equal(test_db_scalar(conn, "SELECT count(*) FROM hog_schema_migration"),
                     HL_MIGRATION_COUNT);
    assert_int_equal(test_db_scalar(conn, "SELECT max(version) FROM hog_schema_migration"),
                     HL_MIGRATION_COUNT);
    PQfinish(conn);
    make_catalog(&b, "together");
    struct http_result r;
    api_get(&r, &c, "/v1/catalogs/together");
    expect_status(&r, 200);
    http_result_free(&r);
    test_server_stop(&a);
    test_server_stop(&b);
    test_server_stop(&c);
    test_db_drop(&db);
}

/* An applied migration whose text changed stops the start. */
static void edited_migration_refuses_to_start(void **state)
{
    (void)state;
    struct test_db db;
    test_db_create(&db, "life4");
    struct test_server s;
    test_server_start(&s, &db, NULL);
    test_server_stop(&s);
    PGconn *conn = test_db_connect(&db);
    PGresult *r = PQexec(conn, "UPDATE hog_schema_migration SET sha256 = 'edited'");
    assert_int_equal(PQresultStatus(r), PGRES_COMMAND_OK);
    PQclear(r);
    PQfinish(conn);
    char port_file[300], cmd[2048];
    snprintf(port_file, sizeof port_file, "%s/port2", s.dir);
    snprintf(cmd, sizeof cmd, "%s --port 0 --port-file %s --database-url '%s' >%s/refused.log 2>&1",
             HOGLAKED_BIN, port_file, db.url, s.dir);
    int status = system(cmd);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 1);
    char log_path[300];
    snprintf(log_path, sizeof log_path, "%s/refused.log", s.dir);
    FILE *f = fopen(log_path, "r");
    assert_non_null(f);
    char buf[4096] = "";
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    assert_non_null(strstr(buf, "changed after it was applied"));
    test_db_drop(&db);
}

/* The embedded default: no database URL, a private cluster under the data
 * dir, catalogs defaulting to a local warehouse, state kept across
 * restarts, and the cluster stopped on exit. */
static void embedded_default_runs_and_persists(void **state)
{
    (void)state;
    struct test_server s;
    test_server_start(&s, NULL, NULL);
    struct http_result r;
    api_send(&r, &s, "POST", jpack("{s:s}", "name", "local"), "/v1/catalogs");
    expect_status(&r, 201);
    char expected[400];
    snprintf(expected, sizeof expected, "file://%s/data/warehouse/local", s.dir);
    assert_string_equal(jstr(r.json, "data_path"), expected);
    http_result_free(&r);
    make_namespace(&s, "local", "ns");
    char dir[256], pidfile[400];
    snprintf(dir, sizeof dir, "%s", s.dir);
    snprintf(pidfile, sizeof pidfile, "%s/data/pg/data/postmaster.pid", dir);
    struct stat st;
    assert_int_equal(stat(pidfile, &st), 0);
    test_server_stop(&s);
    /* The private cluster went down with the server. */
    assert_int_equal(stat(pidfile, &st), -1);

    /* A second start on the same data dir finds the catalog again. */
    char data_dir[300], port_file[300], cmd[1200];
    snprintf(data_dir, sizeof data_dir, "%s/data", dir);
    snprintf(port_file, sizeof port_file, "%s/port-again", dir);
    struct test_server again;
    memset(&again, 0, sizeof again);
    static char data_arg[300];
    snprintf(data_arg, sizeof data_arg, "%s", data_dir);
    const char *const extra[] = {"--data-dir", data_arg, NULL};
    test_server_start(&again, NULL, extra);
    api_get(&r, &again, "/v1/catalogs/local/namespaces");
    expect_status(&r, 200);
    assert_int_equal(json_array_size(r.json), 1);
    http_result_free(&r);

    /* A second server on the same data dir is refused. */
    snprintf(cmd, sizeof cmd, "%s --port 0 --data-dir %s >%s/second.log 2>&1", HOGLAKED_BIN,
             data_dir, dir);
    int status = system(cmd);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 1);
    (void)port_file;
    /* The refused server changed nothing: the running one still answers
     * and its cluster still goes down with it (a refused start that handed
     * the data dir to its own user left a cluster nobody could stop). */
    api_get(&r, &again, "/v1/catalogs/local/namespaces");
    expect_status(&r, 200);
    http_result_free(&r);
    test_server_stop(&again);
    assert_int_equal(stat(pidfile, &st), -1);

    /* A data dir the embedded mode refuses is refused before it is made. */
    char refused[400];
    snprintf(refused, sizeof refused, "%s/with space", dir);
    snprintf(cmd, sizeof cmd, "%s --port 0 --data-dir '%s' >%s/refused.log 2>&1", HOGLAKED_BIN,
             refused, dir);
    status = system(cmd);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 1);
    assert_int_equal(stat(refused, &st), -1);
}

static void healthz_follows_the_database(void **state)
{
    (void)state;
    struct test_db db;
    test_db_create(&db, "life5");
    struct test_server s;
    static const char *const extra[] = {"--health-probe-timeout-ms", "1000", NULL};
    test_server_start(&s, &db, extra);
    struct http_result r;
    api_get(&r, &s, "/healthz");
    expect_status(&r, 200);
    http_result_free(&r);
    /* Take the database away: no new connections, existing ones killed. */
    PGconn *admin = PQconnectdb(getenv("HOGLAKE_TEST_PG_URL"));
    assert_int_equal(PQstatus(admin), CONNECTION_OK);
    char sql[400];
    snprintf(sql, sizeof sql,
             "ALTER DATABASE %s ALLOW_CONNECTIONS false; SELECT pg_terminate_backend(pid) FROM"
             " pg_stat_activity WHERE datname = '%s'",
             db.name, db.name);
    PGresult *res = PQexec(admin, sql);
    PQclear(res);
    api_get(&r, &s, "/healthz");
    expect_status(&r, 503);
    assert_string_equal(r.body, "db unreachable");
    http_result_free(&r);
    /* Liveness does not depend on the database. */
    api_get(&r, &s, "/livez");
    expect_status(&r, 200);
    http_result_free(&r);
    /* Requests needing the database fail typed, not with a crash. */
    api_get(&r, &s, "/v1/catalogs");
    assert_true(r.status == 503);
    http_result_free(&r);
    snprintf(sql, sizeof sql, "ALTER DATABASE %s ALLOW_CONNECTIONS true", db.name);
    res = PQexec(admin, sql);
    PQclear(res);
    PQfinish(admin);
    api_get(&r, &s, "/healthz");
    expect_status(&r, 200);
    http_result_free(&r);
    api_get(&r, &s, "/v1/catalogs");
    expect_status(&r, 200);
    http_result_free(&r);
    test_server_stop(&s);
    test_db_drop(&db);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lock_timeout_is_503_with_retry_after),
        cmocka_unit_test(sigterm_drains_in_flight_requests),
        cmocka_unit_test(concurrent_start_migrates_once),
        cmocka_unit_test(edited_migration_refuses_to_start),
        cmocka_unit_test(embedded_default_runs_and_persists),
        cmocka_unit_test(healthz_follows_the_database),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

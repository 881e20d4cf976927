/* The settings every hoglaked connection to PostgreSQL runs with
 * (db_connect): the limits that keep a stuck statement or an abandoned
 * transaction from holding locks, the application name operators see in
 * pg_stat_activity, JIT off (compiling the catalog's short index walks
 * cost more than running them on a big catalog: bench/scale) and room for
 * a 54,000-table listing's sort in memory. */
#include <stdio.h>
#include <string.h>

#include <libpq-fe.h>

#include "harness.h"
#include "server/db/db.h"
#include "server/store/migrations.h"
#include "util/error.h"

static struct test_db db;

static void expect_setting(PGconn *c, const char *name, const char *want)
{
    char sql[128];
    /* pg_settings.setting: in the setting's base unit (ms), not rounded */
    snprintf(sql, sizeof sql, "SELECT setting FROM pg_settings WHERE name = '%s'", name);
    PGresult *r = PQexec(c, sql);
    assert_int_equal(PQresultStatus(r), PGRES_TUPLES_OK);
    if (strcmp(PQgetvalue(r, 0, 0), want) != 0)
        fail_msg("%s is '%s', not '%s'", name, PQgetvalue(r, 0, 0), want);
    PQclear(r);
}

static void session_settings(void **state)
{
    (void)state;
    struct error err;
    PGconn *c = db_connect(db.url, 10, &err);
    if (!c)
        fail_msg("db_connect: %s", err.msg);
    expect_setting(c, "jit", "off");
    expect_setting(c, "work_mem", "16384"); /* kB */
    char timeout[32];
    snprintf(timeout, sizeof timeout, "%d", (int)DB_STATEMENT_TIMEOUT_MS);
    expect_setting(c, "statement_timeout", timeout);
    expect_setting(c, "idle_in_transaction_session_timeout", "30000");
    expect_setting(c, "application_name", "hoglaked");
    PQfinish(c);
}

/* A migration's statements are not bound by the pool's statement timeout:
 * a big catalog's rewrite (migration 11 over 8M files, 15 over 10M
 * partition values) takes minutes, and a server that cannot finish its
 * migrations cannot start. The migration session lifts it when it takes
 * the migration lock. */
static void migrations_run_unbounded(void **state)
{
    (void)state;
    struct error err;
    PGconn *c = db_connect(db.url, 10, &err);
    if (!c)
        fail_msg("db_connect: %s", err.msg);
    if (store_migrations_lock(c, &err) != 0 || db_begin(c, &err) != 0)
        fail_msg("%s", err.msg);
    if (store_migrations_apply(c, "9999_probe.sql", 9999,
                               "CREATE TEMP TABLE probe AS"
                               " SELECT current_setting('statement_timeout') AS t;",
                               "digest", &err) != 0)
        fail_msg("store_migrations_apply: %s", err.msg);
    PGresult *r = PQexec(c, "SELECT t FROM probe");
    assert_int_equal(PQresultStatus(r), PGRES_TUPLES_OK);
    assert_string_equal(PQgetvalue(r, 0, 0), "0");
    PQclear(r);
    db_rollback(c);
    store_migrations_unlock(c);
    PQfinish(c);
}

/* What a walk of db_each_row saw, and when its callback stops it. */
struct walk {
    long rows, sum, last;
    bool ordered;
    long stop_at; /* the callback fails at this row (0: never) */
};

static int walk_row(void *ctx, const PGresult *r, int row, struct error *err)
{
    struct walk *w = ctx;
    long v = (long)db_i64(r, row, 0);
    w->ordered &= v > w->last;
    w->last = v;
    w->sum += v;
    if (++w->rows == w->stop_at)
        return error_fail(err, ERR_INTERNAL, "stopped at %ld", v);
    return 0;
}

/* The connection still answers after a walk. */
static void expect_usable(PGconn *c)
{
    PGresult *r = PQexec(c, "SELECT 41 + 1");
    assert_int_equal(PQresultStatus(r), PGRES_TUPLES_OK);
    assert_string_equal(PQgetvalue(r, 0, 0), "42");
    PQclear(r);
}

/* db_each_row hands every row over in order; a callback that stops the
 * walk and a statement that fails after some rows both end it with the
 * error, and leave the connection usable for the next statement. */
static void each_row_walks_stops_and_fails(void **state)
{
    (void)state;
    struct error err;
    PGconn *c = db_connect(db.url, 10, &err);
    if (!c)
        fail_msg("db_connect: %s", err.msg);
    struct db_params p;
    DB_PARAMS_IDS(&p, 20000);
    struct walk w = {.ordered = true};
    assert_int_equal(
        db_each_row(c, "SELECT x FROM generate_series(1, $1::int) x", &p, walk_row, &w, &err), 0);
    assert_int_equal(w.rows, 20000);
    assert_int_equal(w.sum, 20000L * 20001 / 2);
    assert_true(w.ordered);
    expect_usable(c);

    w = (struct walk){.ordered = true, .stop_at = 10};
    assert_int_equal(
        db_each_row(c, "SELECT x FROM generate_series(1, $1::int) x", &p, walk_row, &w, &err), -1);
    assert_string_equal(err.msg, "stopped at 10");
    assert_int_equal(w.rows, 10);
    expect_usable(c);

    w = (struct walk){.ordered = true};
    assert_int_equal(db_each_row(c, "SELECT 1 / (x - 5000) FROM generate_series(1, $1::int) x", &p,
                                 walk_row, &w, &err),
                     -1);
    assert_non_null(strstr(err.msg, "division by zero"));
    assert_true(w.rows < 5000);
    expect_usable(c);

    assert_int_equal(db_each_row(c, "SELECT nope", NULL, walk_row, &w, &err), -1);
    assert_non_null(strstr(err.msg, "nope"));
    expect_usable(c);
    PQfinish(c);
}

static int setup(void **state)
{
    (void)state;
    test_db_create(&db, "session");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    test_db_drop(&db);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(session_settings),
                                       cmocka_unit_test(migrations_run_unbounded),
                                       cmocka_unit_test(each_row_walks_stops_and_fails)};
    return cmocka_run_group_tests(tests, setup, teardown);
}

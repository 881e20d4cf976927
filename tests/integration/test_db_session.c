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
    const struct CMUnitTest tests[] = {cmocka_unit_test(session_settings)};
    return cmocka_run_group_tests(tests, setup, teardown);
}

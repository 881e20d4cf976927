/* The settings every hoglaked connection to PostgreSQL runs with
 * (db_connect): the limits that keep a stuck statement or an abandoned
 * transaction from holding locks, the application name operators see in
 * pg_stat_activity, JIT off (compiling the catalog's short index walks
 * cost more than running them on a big catalog: bench/scale) and room for
 * a 54,000-table listing's sort in memory. */
#include <stdio.h>
#include <stdlib.h>
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

/* A session as the server opens them (db_connect), or the test fails. */
static PGconn *connect_to_db(void)
{
    struct error err;
    PGconn *c = db_connect(db.url, 10, &err);
    if (!c)
        fail_msg("db_connect: %s", err.msg);
    return c;
}

static void session_settings(void **state)
{
    (void)state;
    PGconn *c = connect_to_db();
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
    PGconn *c = connect_to_db();
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

static int walk_row(void *ctx, const struct db_copy_row *row, struct error *err)
{
    struct walk *w = ctx;
    int64_t v;
    if (row->n != 1 || !db_copy_i64(row, 0, &v))
        return error_fail(err, ERR_INTERNAL, "not one bigint");
    w->ordered &= v > w->last;
    w->last = (long)v;
    w->sum += (long)v;
    if (++w->rows == w->stop_at)
        return error_fail(err, ERR_INTERNAL, "stopped at %ld", (long)v);
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

/* Walks `COPY (select) TO STDOUT (FORMAT binary)`, $1 being n. */
static int walk_series(PGconn *c, const char *select, int64_t n, int nfields, db_copy_row_fn *fn,
                       void *ctx, struct error *err)
{
    char *sql = db_copy_statement(select, 1, &n);
    assert_non_null(sql);
    int rc = db_copy_each_row(c, sql, nfields, fn, ctx, err);
    free(sql);
    return rc;
}

/* db_copy_each_row hands every row over in order; a callback that stops
 * the walk and a statement that fails after some rows both end it with
 * the error, and leave the connection usable for the next statement. */
static void copy_rows_walk_stop_and_fail(void **state)
{
    (void)state;
    struct error err;
    PGconn *c = connect_to_db();
    const char *series = "SELECT x::bigint FROM generate_series(1, $1) x";
    struct walk w = {.ordered = true};
    assert_int_equal(walk_series(c, series, 20000, 1, walk_row, &w, &err), 0);
    assert_int_equal(w.rows, 20000);
    assert_int_equal(w.sum, 20000L * 20001 / 2);
    assert_true(w.ordered);
    expect_usable(c);

    w = (struct walk){.ordered = true};
    assert_int_equal(walk_series(c, series, 0, 1, walk_row, &w, &err), 0);
    assert_int_equal(w.rows, 0);
    expect_usable(c);

    w = (struct walk){.ordered = true, .stop_at = 10};
    assert_int_equal(walk_series(c, series, 20000, 1, walk_row, &w, &err), -1);
    assert_string_equal(err.msg, "stopped at 10");
    assert_int_equal(w.rows, 10);
    expect_usable(c);

    w = (struct walk){.ordered = true};
    assert_int_equal(walk_series(c, "SELECT (1 / (x - 5000))::bigint FROM generate_series(1, $1) x",
                                 20000, 1, walk_row, &w, &err),
                     -1);
    assert_non_null(strstr(err.msg, "division by zero"));
    assert_true(w.rows < 5000);
    expect_usable(c);

    /* Rows of another width, a value of another type, text COPY and a
     * statement that is no COPY: typed errors, the connection usable. */
    w = (struct walk){.ordered = true};
    assert_int_equal(walk_series(c, "SELECT x::bigint, x FROM generate_series(1, $1) x", 3, 1,
                                 walk_row, &w, &err),
                     -1);
    assert_string_equal(err.msg, "malformed COPY data");
    expect_usable(c);
    assert_int_equal(
        walk_series(c, "SELECT x::int FROM generate_series(1, $1) x", 3, 1, walk_row, &w, &err),
        -1);
    assert_string_equal(err.msg, "not one bigint");
    expect_usable(c);
    assert_int_equal(
        db_copy_each_row(c, "COPY (SELECT 1::bigint) TO STDOUT", 1, walk_row, &w, &err), -1);
    assert_string_equal(err.msg, "COPY data without its header");
    expect_usable(c);
    assert_int_equal(db_copy_each_row(c, "SELECT nope", 1, walk_row, &w, &err), -1);
    assert_non_null(strstr(err.msg, "nope"));
    expect_usable(c);
    PQfinish(c);
}

struct typed {
    int rows;
    char uuid[37];
    char text[32];
    bool null_text;
};

static int typed_row(void *ctx, const struct db_copy_row *row, struct error *err)
{
    struct typed *t = ctx;
    (void)err;
    t->rows++;
    assert_int_equal(row->n, 3);
    assert_true(db_copy_uuid(row, 0, t->uuid));
    char other[37];
    int64_t v;
    assert_false(db_copy_uuid(row, 2, other)); /* a text is no uuid */
    assert_false(db_copy_i64(row, 0, &v));     /* nor a uuid a bigint */
    t->null_text = row->value[1] == NULL && row->len[1] == -1;
    assert_int_equal(row->len[2], (int32_t)strlen(row->value[2])); /* NUL-terminated */
    snprintf(t->text, sizeof t->text, "%s", row->value[2]);
    return 0;
}

/* Values as PostgreSQL stores them: a uuid's text, NULL, and text ending
 * where its length says (the byte after it is terminated in place). */
static void copy_rows_decode_values(void **state)
{
    (void)state;
    struct error err;
    PGconn *c = connect_to_db();
    struct typed t = {0};
    int64_t ids[] = {7, 11, 13, 17, 19, 23, 29, 31, 37, 41};
    char *sql = db_copy_statement("SELECT '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0'::uuid, NULL::text,"
                                  " ($10 - $1)::text || 'é'",
                                  10, ids);
    assert_non_null(sql);
    assert_non_null(strstr(sql, "(41 - 7)::text"));
    assert_int_equal(db_copy_each_row(c, sql, 3, typed_row, &t, &err), 0);
    free(sql);
    assert_int_equal(t.rows, 1);
    assert_string_equal(t.uuid, "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0");
    assert_true(t.null_text);
    assert_string_equal(t.text, "34é");
    /* A placeholder past the ids is refused, not left in the text. */
    assert_null(db_copy_statement("SELECT $2", 1, ids));
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
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(session_settings), cmocka_unit_test(migrations_run_unbounded),
        cmocka_unit_test(copy_rows_walk_stop_and_fail), cmocka_unit_test(copy_rows_decode_values)};
    return cmocka_run_group_tests(tests, setup, teardown);
}

/* Safe retries of `hoglake append`: --idempotency-key and --prepared
 * against a real hoglaked. The same key twice commits once and the second
 * run reports the first's snapshot; another key appends again; a key that
 * is not a UUID is a usage error; a run whose commit landed but whose
 * answer was lost (failpoint append-commit-answer-lost) is finished by a
 * re-run without a duplicate. And in libhoglake: a repeat of a committed
 * key with other files is refused and leaves no object or claim behind. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client_harness.h"
#include "harness.h"

#ifndef HOGLAKE_CLI_BIN
#error "HOGLAKE_CLI_BIN must be defined by the build"
#endif

static struct test_db db;
static struct test_server srv;
static PGconn *pg;
static char dir[256];

#define KEY_A "0b6a3a4e-52d7-4c8e-9a51-7c2f1e0d9a01"
#define KEY_B "0b6a3a4e-52d7-4c8e-9a51-7c2f1e0d9a02"
#define KEY_LOST "0b6a3a4e-52d7-4c8e-9a51-7c2f1e0d9a03"
#define KEY_LIB "0b6a3a4e-52d7-4c8e-9a51-7c2f1e0d9a04"

static void expect_has(const char *text, const char *needle)
{
    if (!strstr(text, needle))
        fail_msg("expected '%s' in:\n%s", needle, text);
}

/* The rows of the table as `hoglake read` prints them (JSON Lines). */
static int64_t rows_read(const char *table)
{
    struct cli_out o;
    cli_do(&o, "read %s", table);
    cli_out_expect(&o, 0, "read");
    int64_t n = 0;
    for (const char *p = o.out; (p = strchr(p, '\n')); p++)
        n++;
    cli_out_free(&o);
    return n;
}

/* The snapshot an append reported ("snapshot N: ..." or "already
 * committed: snapshot N ..."). */
static int64_t reported_snapshot(const char *out)
{
    const char *s = strstr(out, "snapshot ");
    assert_non_null(s);
    return strtoll(s + 9, NULL, 10);
}

static int setup(void **state)
{
    (void)state;
    test_stack_up(&db, &srv, &pg, "cli_retries", NULL, NULL);
    setenv("HOGLAKE_TOKEN", srv.token, 1);
    test_scratch_dir(dir, sizeof dir, "cli-retries");
    cli_session(HOGLAKE_CLI_BIN, srv.base, dir);
    test_write_file(dir, "batch.csv", "id,name\n1,a\n2,b\n3,c\n");
    struct cli_out o;
    cli_do(&o, "catalog create rt --data-path file://%s/wh", dir);
    cli_out_expect(&o, 0, "catalog create");
    cli_out_free(&o);
    cli_do(&o, "namespace create rt.ns");
    cli_out_expect(&o, 0, "namespace create");
    cli_out_free(&o);
    static const char *const tables[] = {"same", "other", "lost", "prep", "lib"};
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
        cli_do(&o, "table create rt.ns.%s --columns 'id:long!, name:string'", tables[i]);
        cli_out_expect(&o, 0, "table create");
        cli_out_free(&o);
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    test_stack_down(&db, &srv, &pg);
    test_remove_tree(dir);
    return 0;
}

static void same_key_twice_commits_once(void **state)
{
    (void)state;
    struct cli_out o;
    cli_do(&o, "append rt.ns.same batch.csv --idempotency-key " KEY_A);
    cli_out_expect(&o, 0, "first run");
    int64_t first = reported_snapshot(o.out);
    expect_has(o.out, "3 rows in 1 file");
    cli_out_free(&o);
    int64_t head = head_of("rt");
    int64_t objects = test_count_files(dir, ".parquet");

    /* The re-run: the batch is in, nothing is uploaded or committed. */
    cli_do(&o, "append rt.ns.same batch.csv --idempotency-key " KEY_A);
    cli_out_expect(&o, 0, "second run");
    expect_has(o.out, "already committed: snapshot");
    assert_int_equal(reported_snapshot(o.out), first);
    cli_out_free(&o);
    /* Keys compare case-insensitively, and --json says the same. */
    cli_do(&o, "append rt.ns.same batch.csv --json --idempotency-key %s",
           "0B6A3A4E-52D7-4C8E-9A51-7C2F1E0D9A01");
    cli_out_expect(&o, 0, "upper-case key");
    json_t *doc = jparse(o.out);
    assert_int_equal(jint(doc, "snapshot_id"), first);
    assert_true(json_is_true(json_object_get(doc, "already_committed")));
    json_decref(doc);
    cli_out_free(&o);
    assert_int_equal(head_of("rt"), head);
    assert_int_equal(test_count_files(dir, ".parquet"), objects);
    assert_int_equal(rows_read("rt.ns.same"), 3);
    /* The objects of a keyed append are under the key's directory. */
    assert_int_equal(sqli("SELECT count(*) FROM hog_data_file WHERE path LIKE '%%/" KEY_A "/%%'"),
                     1);
}

static void another_key_appends_again(void **state)
{
    (void)state;
    struct cli_out o;
    cli_do(&o, "append rt.ns.other batch.csv --idempotency-key " KEY_A);
    /* KEY_A is the catalog's already: the batch counts as in. */
    cli_out_expect(&o, 0, "key of another table's batch");
    expect_has(o.out, "already committed");
    cli_out_free(&o);
    assert_int_equal(rows_read("rt.ns.other"), 0);
    cli_do(&o, "append rt.ns.other batch.csv --idempotency-key " KEY_B);
    cli_out_expect(&o, 0, "key B");
    cli_out_free(&o);
    cli_do(&o, "append rt.ns.other batch.csv");
    cli_out_expect(&o, 0, "no key");
    cli_out_free(&o);
    assert_int_equal(rows_read("rt.ns.other"), 6);
}

static void bad_keys_are_usage_errors(void **state)
{
    (void)state;
    int64_t head = head_of("rt");
    struct cli_out o;
    static const char *const bad[] = {
        "--idempotency-key not-a-uuid",
        "--idempotency-key 0b6a3a4e52d74c8e9a517c2f1e0d9a01",
        "--idempotency-key 0b6a3a4e-52d7-4c8e-9a51-7c2f1e0d9a0g",
        "--idempotency-key",
        "--prepared --idempotency-key " KEY_B,
    };
    /* The table's name is checked before the key is looked up. */
    cli_do(&o, "append rt.same batch.csv --idempotency-key " KEY_B);
    assert_int_equal(o.code, 2);
    cli_out_free(&o);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cli_do(&o, "append rt.ns.same batch.csv %s", bad[i]);
        if (o.code != 2)
            fail_msg("'%s': exit %d, expected 2\n%s", bad[i], o.code, o.err);
        expect_has(o.err, "hoglake: ");
        cli_out_free(&o);
    }
    assert_int_equal(head_of("rt"), head);
}

/* The commit lands, its answer is lost: exit non-zero with the advice;
 * the re-run with the same key finds the commit and adds nothing. */
static void lost_answer_then_rerun(void **state)
{
    (void)state;
    struct cli_out o;
    int64_t head = head_of("rt");
    setenv("HOGLAKE_FAILPOINTS", "append-commit-answer-lost", 1);
    cli_do(&o, "append rt.ns.lost batch.csv --idempotency-key " KEY_LOST);
    unsetenv("HOGLAKE_FAILPOINTS");
    assert_int_not_equal(o.code, 0);
    expect_has(o.err, "outcome is unknown");
    expect_has(o.err, "--idempotency-key " KEY_LOST);
    cli_out_free(&o);
    /* It did commit. */
    assert_int_equal(head_of("rt"), head + 1);
    cli_do(&o, "append rt.ns.lost batch.csv --idempotency-key " KEY_LOST);
    cli_out_expect(&o, 0, "re-run");
    expect_has(o.out, "already committed");
    assert_int_equal(reported_snapshot(o.out), head + 1);
    cli_out_free(&o);
    assert_int_equal(head_of("rt"), head + 1);
    assert_int_equal(rows_read("rt.ns.lost"), 3);
}

/* --prepared prints its key before the upload; that key re-runs it. */
static void prepared_prints_its_key(void **state)
{
    (void)state;
    struct cli_out o;
    cli_do(&o, "append rt.ns.prep batch.csv --prepared");
    cli_out_expect(&o, 0, "prepared");
    const char *k = strstr(o.err, "idempotency key: ");
    assert_non_null(k);
    char key[37];
    snprintf(key, sizeof key, "%s", k + strlen("idempotency key: "));
    expect_has(o.err, "re-run with --idempotency-key");
    int64_t snapshot = reported_snapshot(o.out);
    cli_out_free(&o);
    assert_int_equal(sqli("SELECT count(*) FROM hog_commit_receipt WHERE idempotency_key::text"
                          " = '%s'",
                          key),
                     1);
    cli_do(&o, "append rt.ns.prep batch.csv --idempotency-key %s", key);
    cli_out_expect(&o, 0, "re-run of prepared");
    assert_int_equal(reported_snapshot(o.out), snapshot);
    cli_out_free(&o);
    assert_int_equal(rows_read("rt.ns.prep"), 3);
}

/* Past the CLI's receipt check (another run committing meanwhile): the
 * library's commit of other files under a committed key is refused, and
 * what it uploaded is deleted and its claims released. */
static void library_repeat_with_other_files(void **state)
{
    (void)state;
    hl_client *c = test_client_new(srv.base, NULL);
    hl_catalog *cat;
    hl_namespace *ns;
    hl_table *t;
    struct hl_error err;
    test_check(hl_catalog_open(c, "rt", &cat, &err), &err, "catalog");
    test_check(hl_namespace_open(cat, "ns", &ns, &err), &err, "namespace");
    test_check(hl_table_open(ns, "lib", &t, &err), &err, "table");
    struct hl_append_options o;
    hl_append_options_init(&o);
    o.idempotency_key = KEY_LIB;
    struct ArrowArrayStream s;
    test_rows_stream("id:long!, name:string", "{\"id\":1,\"name\":\"x\"}\n", &s);
    struct hl_append_result *res = NULL;
    test_check(hl_table_append(t, &s, &o, &res, &err), &err, "first");
    int64_t snapshot = res->snapshot_id;
    hl_append_result_free(res);
    int64_t objects = test_count_files(dir, ".parquet");

    test_rows_stream("id:long!, name:string", "{\"id\":1,\"name\":\"x\"}\n", &s);
    assert_int_equal(hl_table_append(t, &s, &o, &res, &err), HL_ERR_VALIDATION);
    expect_has(err.message, "already used with a different request");
    assert_int_equal(res->nuploaded, 0);
    assert_int_equal(res->nremoved, 1);
    hl_append_result_free(res);
    assert_int_equal(test_count_files(dir, ".parquet"), objects);
    assert_int_equal(sqli("SELECT count(*) FROM hog_upload WHERE state = 'active'"), 0);
    assert_int_equal(head_of("rt"), snapshot);
    /* A key that is not a UUID never reaches the server. */
    o.idempotency_key = "nope";
    test_rows_stream("id:long!, name:string", "{\"id\":1,\"name\":\"x\"}\n", &s);
    assert_int_equal(hl_table_append(t, &s, &o, NULL, &err), HL_ERR_INVALID_ARGUMENT);
    hl_table_free(t);
    hl_namespace_free(ns);
    hl_catalog_free(cat);
    hl_client_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(same_key_twice_commits_once),
        cmocka_unit_test(another_key_appends_again),
        cmocka_unit_test(bad_keys_are_usage_errors),
        cmocka_unit_test(lost_answer_then_rerun),
        cmocka_unit_test(prepared_prints_its_key),
        cmocka_unit_test(library_repeat_with_other_files),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

/* The hoglake command against a real server: every command group, human
 * and --json output, and the exit codes scripts rely on. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "harness.h"

#ifndef HOGLAKE_CLI_BIN
#error "HOGLAKE_CLI_BIN must be defined by the build"
#endif

static struct test_db db;
static struct test_server srv;

struct run {
    int code;
    char out[65536];
    char err[8192];
};

/* Runs `hoglake --server URL <args>` through the shell; args is a
 * printf-formatted, already shell-quoted argument string. */
static void cli(struct run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void cli(struct run *r, const char *fmt, ...)
{
    char args[4096], cmd[8192], err_path[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(err_path, sizeof err_path, "%s/cli.err", srv.dir);
    snprintf(cmd, sizeof cmd, "%s --server %s %s 2>%s", HOGLAKE_CLI_BIN, srv.base, args, err_path);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(r->out, 1, sizeof r->out - 1, p);
    r->out[n] = '\0';
    int status = pclose(p);
    r->code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    FILE *e = fopen(err_path, "r");
    n = e ? fread(r->err, 1, sizeof r->err - 1, e) : 0;
    r->err[n] = '\0';
    if (e)
        fclose(e);
}

#define expect_cli(r, code_)                                                                       \
    do {                                                                                           \
        if ((r)->code != (code_))                                                                  \
            fail_msg("exit %d, expected %d\nstdout: %s\nstderr: %s", (r)->code, (code_), (r)->out, \
                     (r)->err);                                                                    \
    } while (0)

static int setup(void **state)
{
    (void)state;
    test_db_create(&db, "cli");
    static const char *const extra[] = {"--warehouse", "s3://hoglake-test/wh", NULL};
    test_server_start(&srv, &db, extra);
    /* The commands this program runs act as the server's admin. */
    setenv("HOGLAKE_TOKEN", srv.token, 1);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    test_server_stop(&srv);
    test_db_drop(&db);
    return 0;
}

static void catalogs(void **state)
{
    (void)state;
    struct run r;
    cli(&r, "catalog create shop");
    expect_cli(&r, 0);
    assert_non_null(strstr(r.out, "created catalog shop at s3://hoglake-test/wh/shop"));
    cli(&r, "catalog create other --data-path s3://hoglake-test/elsewhere/");
    expect_cli(&r, 0);
    cli(&r, "catalog list");
    expect_cli(&r, 0);
    assert_non_null(strstr(r.out, "NAME"));
    assert_non_null(strstr(r.out, "s3://hoglake-test/elsewhere"));
    cli(&r, "--json catalog show shop");
    expect_cli(&r, 0);
    json_t *c = jparse(r.out);
    assert_string_equal(jstr(c, "data_path"), "s3://hoglake-test/wh/shop");
    assert_int_equal(jint(c, "head_snapshot_id"), 0);
    json_decref(c);
    cli(&r, "catalog set-options shop --retention 86400 --consumer-floor off");
    expect_cli(&r, 0);
    assert_non_null(strstr(r.out, "86400 s"));
    assert_non_null(strstr(r.out, "consumer floor       off"));
    cli(&r, "--json catalog options shop");
    c = jparse(r.out);
    assert_int_equal(jint(c, "snapshot_retention_seconds"), 86400);
    assert_true(json_is_false(json_object_get(c, "consumer_floor")));
    json_decref(c);
    cli(&r, "catalog set-options shop --retention none");
    expect_cli(&r, 0);
    assert_non_null(strstr(r.out, "none"));
    /* Exit codes: conflict 4, not found 3, server-side validation 1. */
    cli(&r, "catalog create shop");
    expect_cli(&r, 4);
    assert_non_null(strstr(r.err, "already_exists"));
    cli(&r, "catalog show missing");
    expect_cli(&r, 3);
    cli(&r, "catalog create Bad");
    expect_cli(&r, 1);
    assert_non_null(strstr(r.err, "validation"));
}

static void namespaces_and_views(void **state)
{
    (void)state;
    struct run r;
    cli(&r, "namespace create shop.sales");
    expect_cli(&r, 0);
    assert_non_null(strstr(r.out, "created namespace shop.sales (id 1, snapshot 1)"));
    cli(&r, "namespace list shop");
    expect_cli(&r, 0);
    assert_non_null(strstr(r.out, "sales"));
    cli(&r, "view create shop.sales.recent --sql 'SELECT * FROM orders'");
    expect_cli(&r, 0);
    cli(&r, "--json view show shop.sales.recent");
    expect_cli(&r, 0);
    json_t *v = jparse(r.out);
    assert_string_equal(jstr(v, "sql"), "SELECT * FROM orders");
    assert_string_equal(jstr(v, "dialect"), "trino");
    json_decref(v);
    cli(&r, "view list shop.sales");
    assert_non_null(strstr(r.out, "recent"));
    /* A namespace with a view cannot be dropped; conflict exit code. */
    cli(&r, "namespace drop shop.sales");
    expect_cli(&r, 4);
    assert_non_null(strstr(r.err, "namespace_not_empty"));
    cli(&r, "view drop shop.sales.recent");
    expect_cli(&r, 0);
    cli(&r, "namespace drop shop.sales --expected-id 99");
    expect_cli(&r, 4);
    cli(&r, "namespace drop shop.sales --expected-id 1");
    expect_cli(&r, 0);
    assert_non_null(strstr(r.out, "dropped namespace shop.sales"));
    /* It is still visible in the past. */
    cli(&r, "namespace list shop --snapshot 1");
    expect_cli(&r, 0);
    assert_non_null(strstr(r.out, "sales"));
    cli(&r, "namespace show shop.sales");
    expect_cli(&r, 3);
}

static void tables(void **state)
{
    (void)state;
    struct run r;
    cli(&r, "namespace create shop.core");
    expect_cli(&r, 0);
    cli(&r, "table create shop.core.events --columns 'id:long!, ts:timestamptz, "
            "name:string, amount:decimal(10,2), tags:list<string>, attrs:map<string,long>, "
            "addr:struct<zip:string,city:string!>' --partition-by 'month(ts), bucket(16, id)' "
            "--sort-by 'ts desc, addr.zip' --comment 'all events' --property owner=data");
    expect_cli(&r, 0);
    assert_non_null(strstr(r.out, "partitioned by  month(ts), bucket(16, id)"));
    assert_non_null(strstr(r.out, "sorted by       ts desc nulls last, addr.zip asc nulls first"));
    /* The server assigned exactly the ids the CLI predicted for the specs. */
    struct http_result h;
    api_get(&h, &srv, "/v1/catalogs/shop/namespaces/core/tables/events");
    expect_status(&h, 200);
    json_t *spec = json_object_get(h.json, "partition_spec");
    json_t *f0 = json_array_get(json_object_get(spec, "fields"), 0);
    json_t *f1 = json_array_get(json_object_get(spec, "fields"), 1);
    assert_int_equal(jint(f0, "source_field_id"), 2); /* ts */
    assert_string_equal(jstr(f0, "transform"), "month");
    assert_int_equal(jint(f1, "source_field_id"), 1); /* id */
    assert_int_equal(jint(f1, "transform_param"), 16);
    json_t *sort =
        json_array_get(json_object_get(json_object_get(h.json, "sort_spec"), "fields"), 1);
    assert_int_equal(jint(sort, "source_field_id"), 11); /* addr.zip */
    json_t *addr = json_array_get(json_object_get(h.json, "columns"), 6);
    assert_string_equal(jstr(addr, "name"), "addr");
    json_t *city = json_array_get(json_object_get(addr, "children"), 1);
    assert_true(json_is_false(json_object_get(city, "nullable")));
    assert_string_equal(jstr(json_object_get(h.json, "properties"), "owner"), "data");
    http_result_free(&h);

    cli(&r, "table alter shop.core.events --add-column score:float --add-column "
            "addr.country:string --rename-column name=label --promote-column score=double "
            "--column-comment label='display name' --partition-by 'day(ts)' --sort-by none");
    expect_cli(&r, 0);
    api_get(&h, &srv, "/v1/catalogs/shop/namespaces/core/tables/events");
    const char *body = h.body;
    assert_non_null(strstr(body, "\"name\":\"label\""));
    assert_non_null(strstr(body, "\"comment\":\"display name\""));
    assert_non_null(strstr(body, "\"name\":\"country\""));
    assert_null(strstr(body, "sort_spec"));
    spec = json_object_get(h.json, "partition_spec");
    assert_int_equal(jint(spec, "spec_id"), 2);
    assert_string_equal(jstr(json_array_get(json_object_get(spec, "fields"), 0), "transform"),
                        "day");
    http_result_free(&h);

    cli(&r, "table alter shop.core.events --ops '[{\"op\":\"rename_table\",\"new_name\":\"ev\"}]'");
    expect_cli(&r, 0);
    assert_non_null(strstr(r.out, "table           shop.core.ev"));
    cli(&r, "table list shop.core");
    expect_cli(&r, 0);
    assert_non_null(strstr(r.out, "ev "));
    cli(&r, "table show shop.core.ev --no-totals");
    expect_cli(&r, 0);
    assert_null(strstr(r.out, "totals"));
    assert_non_null(strstr(r.out, "decimal(10,2)"));
    cli(&r, "--json table show shop.core.events --snapshot 7");
    expect_cli(&r, 0); /* before the rename, it had the old name */
    json_t *old = jparse(r.out);
    assert_string_equal(jstr(old, "name"), "events");
    json_decref(old);
    /* A refused alter (unknown column in a spec) is a usage error, and an
     * incompatible promotion is refused by the server. */
    cli(&r, "table alter shop.core.ev --partition-by 'day(nope)'");
    expect_cli(&r, 2);
    cli(&r, "table alter shop.core.ev --promote-column amount=int");
    expect_cli(&r, 1);
    assert_non_null(strstr(r.err, "cannot promote"));
    cli(&r, "table drop shop.core.ev --expected-uuid 00000000-0000-0000-0000-000000000000");
    expect_cli(&r, 4);
    assert_non_null(strstr(r.err, "table_recreated"));
    cli(&r, "table drop shop.core.ev");
    expect_cli(&r, 0);
    cli(&r, "table show shop.core.ev");
    expect_cli(&r, 3);
}

static void snapshots(void **state)
{
    (void)state;
    struct run r;
    /* --limit is the page size: every page is fetched (test_cli_reads
     * checks the paging in detail). */
    cli(&r, "snapshots shop --limit 2");
    expect_cli(&r, 0);
    assert_non_null(strstr(r.out, "created namespace core"));
    assert_non_null(strstr(r.out, "dropped table "));
    cli(&r, "--json snapshots shop --before 3");
    expect_cli(&r, 0);
    json_t *list = jparse(r.out);
    /* Descending from 2, down to and including snapshot 0. */
    assert_int_equal(json_array_size(list), 3);
    assert_int_equal(jint(json_array_get(list, 0), "snapshot_id"), 2);
    assert_int_equal(jint(json_array_get(list, 2), "snapshot_id"), 0);
    /* --json after the command, among its options or last, says the
     * same as before it. */
    char *before = strdup(r.out);
    assert_non_null(before);
    static const char *const anywhere[] = {"snapshots shop --before 3 --json",
                                           "snapshots --json shop --before 3",
                                           "snapshots shop --json --before 3"};
    for (size_t k = 0; k < sizeof anywhere / sizeof anywhere[0]; k++) {
        cli(&r, "%s", anywhere[k]);
        expect_cli(&r, 0);
        assert_string_equal(r.out, before);
    }
    free(before);
    /* A value that reads like the option stays the option's value. */
    cli(&r, "snapshots shop --before --json");
    expect_cli(&r, 2);
    json_decref(list);
}

/* The end of a command's entry in the top-level help that starts at
 * line: the next line that starts another entry (two spaces, then a
 * word), or an empty one. Its continuation lines are indented further. */
static const char *entry_end(const char *line)
{
    const char *p = strchr(line, '\n');
    while (p && p[1] != '\n' && !(p[1] == ' ' && p[2] == ' ' && p[3] != ' '))
        p = strchr(p + 1, '\n');
    return p ? p : line + strlen(line);
}

/* Whether [from, end) holds word as a whole word ("hydrate" is not in
 * "rehydrate"). */
static bool lists_word(const char *from, const char *end, const char *word)
{
    size_t n = strlen(word);
    for (const char *hit = strstr(from, word); hit && hit + n <= end; hit = strstr(hit + 1, word))
        if (!isalnum((unsigned char)hit[-1]) && hit[-1] != '-' && !isalnum((unsigned char)hit[n]) &&
            hit[n] != '-')
            return true;
    return false;
}

static void usage_and_help(void **state)
{
    /* The top-level help names every verb of every group, on the group's
     * lines: a verb added to a group must be added there too. */
    static const char *const groups[] = {"catalog", "namespace",   "table",  "view",
                                         "token",   "maintenance", "parquet"};
    struct run top;
    cli(&top, "--help");
    expect_cli(&top, 0);
    for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++) {
        struct run h;
        cli(&h, "%s --help", groups[g]);
        expect_cli(&h, 0);
        char head[32];
        snprintf(head, sizeof head, "\n  %s ", groups[g]);
        const char *line = strstr(top.out, head);
        assert_non_null(line);
        const char *end = entry_end(line + 1);
        const char *verbs = strstr(h.out, "verbs:\n");
        assert_non_null(verbs);
        for (const char *p = verbs + 7; strncmp(p, "  ", 2) == 0;) {
            char name[32];
            size_t n = strcspn(p + 2, " \n");
            snprintf(name, sizeof name, "%.*s", (int)n, p + 2);
            if (!lists_word(line, end, name))
                fail_msg("'hoglake --help' does not list %s's verb %s", groups[g], name);
            p = strchr(p, '\n') + 1;
        }
    }

    (void)state;
    struct run r;
    static const char *const helps[] = {
        "--help",           "catalog --help",      "catalog create --help", "namespace drop --help",
        "table --help",     "table create --help", "table alter --help",    "view create --help",
        "snapshots --help",
    };
    for (size_t i = 0; i < sizeof helps / sizeof helps[0]; i++) {
        cli(&r, "%s", helps[i]);
        expect_cli(&r, 0);
        assert_non_null(strstr(r.out, "usage: hoglake"));
    }
    cli(&r, "table create shop.core.x");
    expect_cli(&r, 2);
    cli(&r, "table create shop.core.x --columns 'a:int' --bogus 1");
    expect_cli(&r, 2);
    cli(&r, "table create shop.core.x --columns 'a:list<int'");
    expect_cli(&r, 2);
    assert_non_null(strstr(r.err, "expected '>'"));
    cli(&r, "table show only.two");
    expect_cli(&r, 2);
    cli(&r, "frobnicate");
    expect_cli(&r, 2);
    cli(&r, "catalog");
    expect_cli(&r, 2);
    /* An unreachable server is a plain failure, with a message. */
    char cmd[600];
    snprintf(cmd, sizeof cmd, "%s --server http://127.0.0.1:1 catalog list >/dev/null 2>&1",
             HOGLAKE_CLI_BIN);
    int status = system(cmd);
    assert_int_equal(WEXITSTATUS(status), 1);
}

/* --primary-timestamp on create and alter (COL or none), shown by show. */
static void primary_timestamp(void **state)
{
    (void)state;
    struct run r;
    cli(&r, "table create shop.core.msgs --columns 'id:long!, at:timestamptz, d:date, s:string' "
            "--primary-timestamp at");
    expect_cli(&r, 0);
    assert_non_null(strstr(r.out, "primary ts      at\n"));
    cli(&r, "--json table show shop.core.msgs");
    expect_cli(&r, 0);
    json_t *t = jparse(r.out);
    assert_string_equal(jstr(t, "primary_timestamp_column"), "at");
    int64_t with_at = jint(t, "read_snapshot_id");
    json_decref(t);

    /* It names the column as the table has it before the alter, so the old
     * one can be dropped and the new one renamed in the same DDL. */
    cli(&r, "table alter shop.core.msgs --primary-timestamp d --rename-column d=day "
            "--drop-column at");
    expect_cli(&r, 0);
    assert_non_null(strstr(r.out, "primary ts      day\n"));
    assert_null(strstr(r.out, " at "));
    cli(&r, "table alter shop.core.msgs --primary-timestamp none");
    expect_cli(&r, 0);
    assert_null(strstr(r.out, "primary ts"));
    cli(&r, "table show shop.core.msgs --snapshot %lld", (long long)with_at);
    expect_cli(&r, 0);
    assert_non_null(strstr(r.out, "primary ts      at\n"));

    /* The server's rules reach the user as validation failures. */
    cli(&r, "table alter shop.core.msgs --primary-timestamp s");
    expect_cli(&r, 1);
    assert_non_null(strstr(r.err, "must be a date or timestamp column"));
    cli(&r, "table create shop.core.msgs2 --columns 'id:long' --primary-timestamp id");
    expect_cli(&r, 1);
    assert_non_null(strstr(r.err, "primary timestamp column 'id' is 'long'"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(catalogs),       cmocka_unit_test(namespaces_and_views),
        cmocka_unit_test(tables),         cmocka_unit_test(snapshots),
        cmocka_unit_test(usage_and_help), cmocka_unit_test(primary_timestamp),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

/* `hoglake consumers`, `hoglake offsets [list]|commit`, `hoglake snapshots
 * [list]|resolve` and the consumer `hoglake export iceberg` reports,
 * against a real hoglaked: the binary is run and its output, JSON and
 * exit codes checked against the API. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness.h"

#ifndef HOGLAKE_CLI_BIN
#error "HOGLAKE_CLI_BIN must be defined by the build"
#endif

static struct test_db db;
static struct test_server srv;
static PGconn *pg;
static char dir[256];
static char events_uuid[40];

/* Runs and expects the exit code, returning stdout (caller frees). */
static char *run_ok(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static char *run_ok(int code, const char *fmt, ...)
{
    char args[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    struct cli_out o;
    cli_run(&o, HOGLAKE_CLI_BIN, srv.base, dir, "%s", args);
    if (o.code != code)
        fail_msg("'%s': exit %d, expected %d\nstdout: %s\nstderr: %s", args, o.code, code, o.out,
                 o.err);
    char *out = code == 0 ? strdup(o.out) : strdup(o.err);
    cli_out_free(&o);
    return out;
}

static void expect_has(const char *text, const char *needle)
{
    if (!strstr(text, needle))
        fail_msg("expected '%s' in:\n%s", needle, text);
}

/* The line of text holding needle, into line. */
static void line_with(const char *text, const char *needle, char *line, size_t size)
{
    const char *hit = strstr(text, needle);
    if (!hit)
        fail_msg("no line with '%s' in:\n%s", needle, text);
    const char *start = hit;
    while (start > text && start[-1] != '\n')
        start--;
    size_t n = strcspn(start, "\n");
    snprintf(line, size, "%.*s", (int)n, start);
}

static int setup(void **state)
{
    (void)state;
    test_stack_up(&db, &srv, &pg, "cli_consumers", NULL, NULL);
    setenv("HOGLAKE_TOKEN", srv.token, 1);
    test_scratch_dir(dir, sizeof dir, "cli-consumers");
    /* 1,024 rows, for the thousands separator. */
    char *csv = malloc(16 * 1100);
    assert_non_null(csv);
    size_t n = (size_t)sprintf(csv, "id,name\n");
    for (int i = 0; i < 1024; i++)
        n += (size_t)sprintf(csv + n, "%d,n%d\n", i, i);
    test_write_file(dir, "many.csv", csv);
    free(csv);
    test_write_file(dir, "one.csv", "id,name\n9999,x\n");
    free(run_ok(0, "catalog create cons --data-path file://%s/wh", dir));
    free(run_ok(0, "namespace create cons.web"));
    free(run_ok(0, "table create cons.web.events --columns 'id:long!, name:string'"));
    free(run_ok(0, "append cons.web.events many.csv"));
    free(run_ok(0, "append cons.web.events one.csv"));
    json_t *t = api_get_json(&srv, "/v1/catalogs/cons/namespaces/web/tables/events");
    snprintf(events_uuid, sizeof events_uuid, "%s", jstr(t, "table_uuid"));
    json_decref(t);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    test_stack_down(&db, &srv, &pg);
    test_remove_tree(dir);
    return 0;
}

/* ---- snapshots ---- */

static void snapshots_in_words(void **state)
{
    (void)state;
    char *out = run_ok(0, "snapshots cons");
    expect_has(out, "created namespace web");
    expect_has(out, "created table events");
    expect_has(out, "appended events (+1 file, 1,024 rows)");
    expect_has(out, "appended events (+1 file, 1 row)");
    /* No raw kind:id left. */
    assert_null(strstr(out, "table_inserted_into"));
    /* The verb spelled out says the same. */
    char *listed = run_ok(0, "snapshots list cons");
    assert_string_equal(listed, out);
    free(listed);
    free(out);
    /* --json is the server's log, names and counts included. */
    out = run_ok(0, "snapshots cons --json");
    json_t *log = jparse(out);
    json_t *last = json_array_get(log, json_array_size(log) - 1);
    json_t *c = json_array_get(json_object_get(last, "changes"), 0);
    assert_string_equal(jstr(c, "name"), "events");
    assert_int_equal(jint(c, "rows_added"), 1);
    json_decref(log);
    free(out);
    free(run_ok(0, "snapshots --help"));
}

/* The instant of snapshot s as the server wrote it. */
static void snapshot_time(int64_t s, char *out, size_t size)
{
    json_t *r =
        api_get_json(&srv, "/v1/catalogs/cons/snapshots?after=%lld&limit=1", (long long)s - 1);
    snprintf(out, size, "%s",
             jstr(json_array_get(json_object_get(r, "snapshots"), 0), "snapshot_time"));
    json_decref(r);
}

static void snapshots_resolve(void **state)
{
    (void)state;
    int64_t head = head_of("cons");
    char at[64], want[120];
    snapshot_time(head - 1, at, sizeof at);
    char *out = run_ok(0, "snapshots resolve cons --at %s", at);
    snprintf(want, sizeof want, "snapshot %lld at %s\n", (long long)head - 1, at);
    expect_has(out, want);
    expect_has(out, "appended events (+1 file, 1,024 rows)");
    free(out);
    out = run_ok(0, "--json snapshots resolve cons --at %s", at);
    json_t *s = jparse(out);
    assert_int_equal(jint(s, "snapshot_id"), head - 1);
    json_decref(s);
    free(out);
    /* After the head: the head. */
    out = run_ok(0, "snapshots resolve cons --at 2999-01-01T00:00:00Z");
    snprintf(want, sizeof want, "snapshot %lld at ", (long long)head);
    expect_has(out, want);
    free(out);
    /* Before the catalog existed: not found, with a reason, not expired. */
    char *err = run_ok(3, "snapshots resolve cons --at 2000-01-01T00:00:00Z");
    expect_has(err, "catalog 'cons' did not exist at 2000-01-01T00:00:00Z (created ");
    expect_has(err, "before_catalog");
    free(err);
    err = run_ok(3, "read cons.web.events --at 2000-01-01T00:00:00Z");
    expect_has(err, "before_catalog");
    free(err);
    err = run_ok(3, "table list cons.web --at 2000-01-01T00:00:00Z");
    expect_has(err, "did not exist");
    free(err);
    /* Usage errors never reach the server. */
    free(run_ok(2, "snapshots resolve cons"));
    free(run_ok(2, "snapshots resolve cons --at yesterday"));
    free(run_ok(2, "snapshots resolve cons --at 2026-09-05T00:00:00"));
    free(run_ok(2, "snapshots resolve cons.web --at 2026-09-05T00:00:00Z"));
    free(run_ok(3, "snapshots resolve nocat --at 2026-09-05T00:00:00Z"));
}

/* ---- consumers and offsets ---- */

static void consumers_and_offsets(void **state)
{
    (void)state;
    char *out = run_ok(0, "consumers cons");
    expect_has(out, "0 consumers");
    free(out);
    int64_t head = head_of("cons");

    /* Commit by NAMESPACE.TABLE: the CLI resolves the uuid. */
    out = run_ok(0, "offsets commit cons feed web.events 2");
    char want[200];
    snprintf(want, sizeof want, "consumer feed: offset on web.events (%s) is snapshot 2",
             events_uuid);
    expect_has(out, want);
    free(out);
    json_t *off = api_get_json(&srv, "/v1/catalogs/cons/consumers/feed/offsets/%s", events_uuid);
    assert_int_equal(jint(off, "committed_snapshot"), 2);
    json_decref(off);
    /* And by uuid; an equal offset is a no-op. */
    free(run_ok(0, "offsets commit cons feed %s 2", events_uuid));
    free(run_ok(0, "offsets commit cons other %s %lld", events_uuid, (long long)head));

    /* Each consumer, its table by name, its offset and lag. */
    out = run_ok(0, "consumers cons");
    snprintf(want, sizeof want, "catalog cons: head snapshot %lld, 2 consumers", (long long)head);
    expect_has(out, want);
    char line[400], lag[40];
    line_with(out, "feed ", line, sizeof line);
    expect_has(line, "web.events");
    expect_has(line, events_uuid);
    char cells[6][100];
    assert_int_equal(sscanf(line, "%99s %99s %99s %99s %99s %99s", cells[0], cells[1], cells[2],
                            cells[3], cells[4], cells[5]),
                     6);
    assert_string_equal(cells[0], "feed");
    assert_string_equal(cells[2], "2");
    snprintf(lag, sizeof lag, "%lld", (long long)head - 2);
    assert_string_equal(cells[3], lag);
    line_with(out, "other ", line, sizeof line);
    assert_int_equal(sscanf(line, "%99s %99s %99s %99s", cells[0], cells[1], cells[2], cells[3]),
                     4);
    assert_string_equal(cells[3], "0");
    free(out);
    /* --json: the server's listing plus the head and each lag. */
    out = run_ok(0, "consumers cons --json");
    json_t *doc = jparse(out);
    assert_int_equal(jint(doc, "head_snapshot_id"), head);
    json_t *feed = json_array_get(json_object_get(doc, "consumers"), 0);
    assert_string_equal(jstr(feed, "consumer_id"), "feed");
    json_t *o = json_array_get(json_object_get(feed, "offsets"), 0);
    assert_int_equal(jint(o, "lag"), head - 2);
    assert_string_equal(jstr(o, "table_name"), "events");
    json_decref(doc);
    free(out);

    /* The listing of one consumer: with and without the verb. */
    out = run_ok(0, "offsets cons feed");
    char *listed = run_ok(0, "offsets list cons feed");
    assert_string_equal(out, listed);
    expect_has(out, "COMMITTED_SNAPSHOT");
    expect_has(out, events_uuid);
    free(listed);
    free(out);

    /* Offsets only move forward: 409, exit 4, the server's reason. */
    char *err = run_ok(4, "offsets commit cons other web.events 1");
    expect_has(err, "offset_regression");
    expect_has(err, "only move forward");
    free(err);
    err = run_ok(3, "offsets commit cons feed web.nope 1");
    expect_has(err, "not_found");
    free(err);
    static const char *const bad[] = {
        "offsets commit cons feed web.events x",
        "offsets commit cons feed web.events -1",
        "offsets commit cons feed web.events",
        "offsets commit cons.web feed web.events 1",
        "offsets commit cons feed web 1",
        "consumers",
        "consumers cons extra",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        free(run_ok(2, "%s", bad[i]));
    free(run_ok(3, "consumers nocat"));
    free(run_ok(0, "offsets --help"));
    free(run_ok(0, "consumers --help"));
}

/* The listing comes in pages: against a server whose pages hold one
 * offset, the CLI follows every page and joins a consumer's offsets split
 * across them, printing what one page gives. */
static void consumers_follow_pages(void **state)
{
    (void)state;
    free(run_ok(0, "table create cons.web.clicks --columns 'id:long'"));
    free(run_ok(0, "offsets commit cons feed web.clicks 1"));
    char *whole = run_ok(0, "consumers cons --json");
    struct test_server narrow;
    const char *extra[] = {"--page-size-max", "1", NULL};
    test_server_start(&narrow, &db, extra);
    json_t *one = api_get_json(&narrow, "/v1/catalogs/cons/consumers");
    assert_int_equal(json_array_size(json_object_get(one, "consumers")), 1);
    assert_true(json_is_string(json_object_get(one, "next_page_token")));
    json_decref(one);
    struct cli_out o;
    cli_run(&o, HOGLAKE_CLI_BIN, narrow.base, dir, "consumers cons --json");
    assert_int_equal(o.code, 0);
    json_t *a = jparse(whole), *b = jparse(o.out);
    char *ta = json_dumps(a, JSON_SORT_KEYS), *tb = json_dumps(b, JSON_SORT_KEYS);
    assert_string_equal(tb, ta);
    /* feed holds both of its offsets in one entry. */
    json_t *feed = json_array_get(json_object_get(b, "consumers"), 0);
    assert_string_equal(jstr(feed, "consumer_id"), "feed");
    assert_int_equal(json_array_size(json_object_get(feed, "offsets")), 2);
    free(ta);
    free(tb);
    json_decref(a);
    json_decref(b);
    cli_out_free(&o);
    test_server_stop(&narrow);
    free(whole);
}

/* ---- export ---- */

/* The export names its consumer, and that consumer is then listed. */
static void export_prints_its_consumer(void **state)
{
    (void)state;
    char *out = run_ok(0, "export iceberg cons.web.events --to file://%s/ice", dir);
    const char *c = strstr(out, "consumer: iceberg-");
    assert_non_null(c);
    char consumer[80];
    assert_int_equal(sscanf(c, "consumer: %79s", consumer), 1);
    free(out);
    out = run_ok(0, "--json export iceberg cons.web.events --to file://%s/ice", dir);
    json_t *doc = jparse(out);
    assert_string_equal(jstr(doc, "consumer"), consumer);
    json_decref(doc);
    free(out);
    out = run_ok(0, "consumers cons");
    expect_has(out, consumer);
    free(out);
    out = run_ok(0, "offsets cons %s", consumer);
    expect_has(out, events_uuid);
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(snapshots_in_words),         cmocka_unit_test(snapshots_resolve),
        cmocka_unit_test(consumers_and_offsets),      cmocka_unit_test(consumers_follow_pages),
        cmocka_unit_test(export_prints_its_consumer),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

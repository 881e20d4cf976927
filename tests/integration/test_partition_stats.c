/* The partition summary and GET /v1/catalogs/{c}/stats/partitions, against
 * a real hoglaked and PostgreSQL.
 *
 * The first server runs no sampler: the test takes the sampler's steps
 * itself (summary_step, on its own connection), so it can stop a walk
 * half way and commit, drop or expire beside it. What the report says is
 * checked against files whose sizes, partitions and deletion vectors the
 * test chose. A second server with the sampler's loop on shows a walk
 * published while commits go on, its totals equal to the file rows'. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "server/maintenance/compaction.h"
#include "server/maintenance/summary.h"

#ifndef HOGLAKE_CLI_BIN
#error "HOGLAKE_CLI_BIN must be defined by the build"
#endif

#define CAT "ps"
#define NS "ns"
#define DATA "s3://hoglake-test/" CAT
#define STATS "/v1/catalogs/" CAT "/stats/partitions"
#define TABLES "/v1/catalogs/" CAT "/namespaces/" NS "/tables/"
#define BIG ((int64_t)600 * 1024 * 1024) /* over compaction's 512 MiB target */

static struct test_db db;
static struct test_server srv;
static PGconn *pg;
static int file_seq;

/* Appends n files of `bytes` each to ns.table (partition value: NULL for
 * none, "~" for SQL null, else the text). */
static int64_t append_in(const char *ns, const char *table, const char *part, int n, int64_t bytes)
{
    char body[8192];
    int len = snprintf(body, sizeof body, "{'appends':[{'namespace':'%s','table':'%s','files':[",
                       ns, table);
    for (int i = 0; i < n; i++) {
        char pv[64] = "";
        if (part && strcmp(part, "~") == 0)
            snprintf(pv, sizeof pv, ",'partition_values':[null]");
        else if (part)
            snprintf(pv, sizeof pv, ",'partition_values':['%s']", part);
        len += snprintf(body + len, sizeof body - (size_t)len,
                        "%s{'path':'" DATA "/%s/f%d.parquet','record_count':10,"
                        "'file_size_bytes':%lld%s}",
                        i ? "," : "", table, ++file_seq, (long long)bytes, pv);
    }
    snprintf(body + len, sizeof body - (size_t)len, "]}]}");
    return api_commit(&srv, CAT, body);
}

static int64_t append(const char *table, const char *part, int n, int64_t bytes)
{
    return append_in(NS, table, part, n, bytes);
}

static int64_t add_dv(const char *table, int64_t data_file_id)
{
    char body[600];
    snprintf(body, sizeof body,
             "{'read_snapshot':%lld,'deletes':[{'namespace':'" NS "','table':'%s','files':"
             "[{'data_file_id':%lld,'path':'" DATA "/%s/dv%d.puffin','delete_count':1,"
             "'file_size_bytes':40}]}]}",
             (long long)head_of(CAT), table, (long long)data_file_id, table, ++file_seq);
    return api_commit(&srv, CAT, body);
}

static void create_table_in(const char *ns, const char *body_sq)
{
    char *b = dq(body_sq);
    struct http_result r;
    api_send_text(&r, &srv, "POST", b, "/v1/catalogs/" CAT "/namespaces/%s/tables", ns);
    free(b);
    expect_status(&r, 201);
    http_result_free(&r);
}

static void create_table(const char *body_sq)
{
    create_table_in(NS, body_sq);
}

static void alter(const char *table, const char *body_sq)
{
    char *b = dq(body_sq);
    struct http_result r;
    api_send_text(&r, &srv, "POST", b, "/v1/catalogs/" CAT "/namespaces/" NS "/tables/%s/alter",
                  table);
    free(b);
    expect_status(&r, 200);
    http_result_free(&r);
}

static void drop_table(const char *table)
{
    struct http_result r;
    api_delete(&r, &srv, "/v1/catalogs/" CAT "/namespaces/" NS "/tables/%s", table);
    expect_status(&r, 200);
    http_result_free(&r);
}

/* One sampler step; a published generation is due for a refresh once
 * refresh_s old, and refreshed by its changes when they touch fewer than
 * change_limit rows (0: always by a walk). */
static enum summary_step_outcome step_with(int64_t batch, int64_t refresh_s, int64_t change_limit)
{
    struct summary_options opt = {.interval_ms = 1,
                                  .batch = batch,
                                  .refresh_s = refresh_s,
                                  .small_bytes = COMPACTION_TARGET_BYTES,
                                  .change_limit = change_limit};
    enum summary_step_outcome outcome;
    int64_t files;
    struct error err = {0};
    if (summary_step(pg, cat_id(CAT), &opt, &outcome, &files, &err) != 0)
        fail_msg("summary_step: %s", err.msg);
    return outcome;
}

static enum summary_step_outcome step_after(int64_t batch, int64_t refresh_s)
{
    return step_with(batch, refresh_s, 0);
}

static enum summary_step_outcome step(int64_t batch)
{
    return step_after(batch, 0);
}

/* Steps until a walk publishes; how many steps it took. */
static int walk(int64_t batch)
{
    for (int n = 1; n <= 1000; n++)
        if (step(batch) == SUMMARY_PUBLISHED)
            return n;
    fail_msg("no walk published in 1000 steps");
    return 0;
}

/* Each of the queries after `path` is answered with `status`. */
static void expect_statuses(const char *path, const char *const *queries, size_t n, long status)
{
    for (size_t i = 0; i < n; i++) {
        struct http_result r;
        api_get(&r, &srv, "%s%s", path, queries[i]);
        expect_status(&r, status);
        http_result_free(&r);
    }
}

static json_t *stats(const char *query)
{
    return api_get_json(&srv, STATS "%s", query);
}

/* The report's partition of table with the given values JSON (NULL when
 * not listed). */
static const json_t *find(const json_t *report, const char *table, const char *values_json)
{
    json_t *want = jparse(values_json);
    const json_t *found = NULL;
    size_t i;
    json_t *p;
    json_array_foreach (json_object_get(report, "partitions"), i, p) {
        if (strcmp(jstr(p, "table"), table) == 0 &&
            json_equal(json_object_get(p, "partition_values"), want))
            found = p;
    }
    json_decref(want);
    return found;
}

/* ---- setup ---- */

static int setup(void **state)
{
    (void)state;
    test_db_create(&db, "partition_stats");
    const char *const extra[] = {"--summary-interval-ms", "0", NULL};
    test_server_start(&srv, &db, extra);
    pg = test_db_connect(&db);
    test_sql_use(pg);
    make_catalog(&srv, CAT);
    make_namespace(&srv, CAT, NS);
    create_table("{'name':'ev','columns':[{'name':'kind','type':'string'},"
                 "{'name':'id','type':'long'}],"
                 "'partition_fields':[{'source_field_id':1,'transform':'identity'}]}");
    create_table("{'name':'flat','columns':[{'name':'id','type':'long'}]}");
    cli_session(HOGLAKE_CLI_BIN, srv.base, "/tmp");
    make_namespace(&srv, CAT, "ns2");
    create_table_in("ns2", "{'name':'x','columns':[{'name':'id','type':'long'}]}");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    test_stack_down(&db, &srv, &pg);
    return 0;
}

/* ---- tests ---- */

/* Before any walk: no partitions and no freshness fields, never zeros
 * standing in for a sample. */
static void unsampled_catalog_reports_nothing(void **state)
{
    (void)state;
    append("ev", "a", 3, 100);
    json_t *r = stats("");
    assert_int_equal(json_array_size(json_object_get(r, "partitions")), 0);
    assert_false(json_is_true(json_object_get(r, "truncated")));
    assert_null(json_object_get(r, "sampled_at"));
    assert_null(json_object_get(r, "sampled_snapshot_id"));
    assert_int_equal(jint(r, "small_file_threshold_bytes"), COMPACTION_TARGET_BYTES);
    json_decref(r);
    json_t *st = api_get_json(&srv, "/v1/catalogs/" CAT "/maintenance/status");
    assert_null(json_object_get(st, "sampled_at"));
    json_decref(st);
    json_t *c = api_get_json(&srv, "/v1/catalogs/" CAT);
    assert_null(json_object_get(c, "live_rows"));
    assert_null(json_object_get(c, "live_size_bytes"));
    json_decref(c);
    json_t *l = api_get_json(&srv, TABLES "ev/partitions");
    assert_int_equal(jint(l, "total"), 0);
    assert_int_equal(json_array_size(json_object_get(l, "partitions")), 0);
    assert_null(json_object_get(l, "sampled_at"));
    json_decref(l);
}

/* Debt is the small files beyond the ones their bytes fill, plus the
 * deletion vectors; the report ranks by it and names only partitions that
 * have some. */
static void ranks_partitions_by_debt(void **state)
{
    (void)state;
    append("ev", "a", 2, 100); /* a: 5 small files of 100 bytes: debt 4 */
    append("ev", "b", 1, BIG); /* b: one big, one small with a DV: debt 1 */
    append("ev", "b", 1, 300);
    append("ev", "~", 3, 50);           /* null: 3 small: debt 2 */
    append("ev", "c", 1, 70);           /* c: one small file: nothing to merge, debt 0 */
    append("flat", NULL, 3, 20);        /* unpartitioned: debt 2 */
    append_in("ns2", "x", NULL, 2, 20); /* another namespace: debt 1 */
    int64_t b_small = sqli("SELECT data_file_id FROM hog_data_file WHERE catalog_id = %lld"
                           " AND file_size_bytes = 300",
                           (long long)cat_id(CAT));
    int64_t head = add_dv("ev", b_small);
    /* Batches of 3 over 16 files: six steps, the last one short. */
    assert_int_equal(walk(3), 6);

    json_t *r = stats("");
    assert_int_equal(jint(r, "sampled_snapshot_id"), head);
    assert_non_null(json_object_get(r, "sampled_at"));
    assert_int_equal(jint(r, "stale_spec_groups"), 0);
    json_t *parts = json_object_get(r, "partitions");
    assert_int_equal(json_array_size(parts), 5);
    const json_t *a = json_array_get(parts, 0);
    assert_ptr_equal(a, find(r, "ev", "[\"a\"]"));
    assert_string_equal(jstr(a, "namespace"), NS);
    assert_int_equal(jint(a, "debt_score"), 4);
    assert_int_equal(jint(a, "file_count"), 5);
    assert_int_equal(jint(a, "small_file_count"), 5);
    assert_int_equal(jint(a, "total_bytes"), 500);
    assert_int_equal(jint(a, "small_file_bytes"), 500);
    assert_int_equal(jint(a, "record_count"), 50);
    assert_int_equal(jint(a, "dv_count"), 0);
    assert_int_equal(jint(a, "spec_id"), 1);
    assert_false(json_is_true(json_object_get(a, "stale_spec")));
    /* The second append into `a` was the second commit of this test. */
    assert_int_equal(jint(a, "last_written_snapshot"),
                     sqli("SELECT max(begin_snapshot) FROM hog_data_file WHERE catalog_id = %lld"
                          " AND path LIKE '%%/ev/%%' AND file_size_bytes = 100",
                          (long long)cat_id(CAT)));
    json_t *ev = api_get_json(&srv, "/v1/catalogs/" CAT "/namespaces/" NS "/tables/ev");
    assert_string_equal(jstr(a, "table_uuid"), jstr(ev, "table_uuid"));
    json_decref(ev);
    /* Ties (2) in table id order: ev before flat. */
    const json_t *nul = json_array_get(parts, 1), *flat = json_array_get(parts, 2);
    assert_ptr_equal(nul, find(r, "ev", "[null]"));
    assert_int_equal(jint(nul, "debt_score"), 2);
    assert_ptr_equal(flat, find(r, "flat", "[]"));
    assert_int_equal(jint(flat, "debt_score"), 2);
    assert_null(json_object_get(flat, "spec_id"));
    const json_t *b = json_array_get(parts, 3);
    assert_ptr_equal(b, find(r, "ev", "[\"b\"]"));
    assert_int_equal(jint(b, "debt_score"), 1);
    assert_int_equal(jint(b, "dv_count"), 1);
    assert_int_equal(jint(b, "file_count"), 2);
    assert_int_equal(jint(b, "small_file_count"), 1);
    assert_int_equal(jint(b, "total_bytes"), BIG + 300);
    /* The same debt as b, a table created later. */
    const json_t *x = json_array_get(parts, 4);
    assert_ptr_equal(x, find(r, "x", "[]"));
    assert_string_equal(jstr(x, "namespace"), "ns2");
    assert_null(find(r, "ev", "[\"c\"]"));
    assert_false(json_is_true(json_object_get(r, "truncated")));
    json_decref(r);

    r = stats("?limit=2");
    assert_int_equal(json_array_size(json_object_get(r, "partitions")), 2);
    assert_true(json_is_true(json_object_get(r, "truncated")));
    json_decref(r);
    r = stats("?namespace=" NS "&table=flat");
    assert_int_equal(json_array_size(json_object_get(r, "partitions")), 1);
    assert_non_null(find(r, "flat", "[]"));
    json_decref(r);
    r = stats("?namespace=" NS);
    assert_int_equal(json_array_size(json_object_get(r, "partitions")), 4);
    assert_null(find(r, "x", "[]"));
    json_decref(r);
    r = stats("?namespace=ns2");
    assert_int_equal(json_array_size(json_object_get(r, "partitions")), 1);
    assert_non_null(find(r, "x", "[]"));
    json_decref(r);

    /* Status says how fresh it is. */
    json_t *st = api_get_json(&srv, "/v1/catalogs/" CAT "/maintenance/status");
    assert_int_equal(jint(st, "sampled_snapshot_id"), head);
    assert_true(jint(st, "sample_walk_ms") >= 0);
    assert_null(json_object_get(st, "sample_started_at"));
    json_decref(st);
    /* The published totals are the file rows', and the catalog shows them. */
    assert_int_equal(
        sqli("SELECT live_files FROM hog_summary WHERE catalog_id = %lld", (long long)cat_id(CAT)),
        sqli("SELECT count(*) FROM hog_data_file WHERE catalog_id = %lld"
             " AND end_snapshot IS NULL",
             (long long)cat_id(CAT)));
    json_t *c = api_get_json(&srv, "/v1/catalogs/" CAT);
    assert_int_equal(jint(c, "live_rows"),
                     sqli("SELECT sum(record_count) FROM hog_data_file WHERE catalog_id = %lld"
                          " AND end_snapshot IS NULL",
                          (long long)cat_id(CAT)));
    assert_int_equal(jint(c, "live_size_bytes"),
                     sqli("SELECT sum(file_size_bytes) FROM hog_data_file WHERE catalog_id = %lld"
                          " AND end_snapshot IS NULL",
                          (long long)cat_id(CAT)));
    json_decref(c);
}

/* The values JSON of a listing's partitions, in order, joined by spaces. */
static char *listing_values(const char *query, int64_t *total)
{
    json_t *l = api_get_json(&srv, TABLES "%s", query);
    *total = jint(l, "total");
    size_t i;
    json_t *p;
    char *out = calloc(1, 1024);
    assert_non_null(out);
    json_array_foreach (json_object_get(l, "partitions"), i, p) {
        char *v = json_dumps(json_object_get(p, "partition_values"), JSON_COMPACT);
        snprintf(out + strlen(out), 1024 - strlen(out), "%s%s", i ? " " : "", v);
        free(v);
    }
    json_decref(l);
    return out;
}

static void expect_listing(const char *query, int64_t total, const char *values)
{
    int64_t got_total;
    char *got = listing_values(query, &got_total);
    if (got_total != total || strcmp(got, values) != 0)
        fail_msg("%s: want total %lld [%s], got total %lld [%s]", query, (long long)total, values,
                 (long long)got_total, got);
    free(got);
}

/* One table's partitions: every group (debt or not), sorted by each
 * measure, paged, filtered by value prefixes. */
static void table_listing_sorts_filters_pages(void **state)
{
    (void)state;
    /* ev: a 5 x 100 B, b one big and one 300 B with a DV, null 3 x 50 B, c 70 B. */
    expect_listing("ev/partitions", 4, "[\"a\"] [\"b\"] [\"c\"] [null]");
    expect_listing("ev/partitions?sort=files", 4, "[\"a\"] [null] [\"b\"] [\"c\"]");
    expect_listing("ev/partitions?sort=total_size&order=asc", 4, "[\"c\"] [null] [\"a\"] [\"b\"]");
    expect_listing("ev/partitions?sort=avg_size", 4, "[\"b\"] [\"a\"] [\"c\"] [null]");
    expect_listing("ev/partitions?sort=debt&limit=2", 4, "[\"a\"] [null]");
    expect_listing("ev/partitions?sort=dvs&limit=1", 4, "[\"b\"]");
    expect_listing("ev/partitions?limit=2&offset=1", 4, "[\"b\"] [\"c\"]");
    expect_listing("ev/partitions?offset=9", 4, "");
    expect_listing("ev/partitions?filter=0:A", 1, "[\"a\"]");
    expect_listing("ev/partitions?filter=0:", 1, "[null]");
    expect_listing("ev/partitions?filter=0:z", 0, "");
    expect_listing("ev/partitions?filter=0:a&filter=0:b", 0, "");
    expect_listing("ev/partitions?filter=3:a", 0, ""); /* no such position */
    expect_listing("flat/partitions", 1, "[]");

    json_t *l = api_get_json(&srv, TABLES "ev/partitions?filter=0:b");
    const json_t *b = json_array_get(json_object_get(l, "partitions"), 0);
    assert_int_equal(jint(b, "file_count"), 2);
    assert_int_equal(jint(b, "dv_count"), 1);
    assert_int_equal(jint(b, "avg_file_bytes"), (BIG + 300) / 2);
    assert_int_equal(jint(b, "spec_id"), 1);
    assert_null(json_object_get(b, "table"));
    assert_int_equal(jint(l, "stale_spec_groups"), 0);
    assert_int_equal(jint(l, "sampled_snapshot_id"), head_of(CAT));
    json_decref(l);

    static const char *const invalid[] = {"?sort=bogus", "?order=up", "?limit=0", "?limit=1001",
                                          "?offset=-1"};
    expect_statuses(TABLES "ev/partitions", invalid, sizeof invalid / sizeof invalid[0], 422);
    static const char *const malformed[] = {"?filter=x", "?filter=1001:a", "?filter=:a",
                                            "?filter=-1:a", "?snapshot=1"};
    expect_statuses(TABLES "ev/partitions", malformed, sizeof malformed / sizeof malformed[0], 400);
    struct http_result r;
    api_get(&r, &srv, TABLES "nope/partitions");
    expect_status(&r, 404);
    http_result_free(&r);
}

/* `hoglake maintenance partitions`, run as a process: the report as a
 * table, its JSON as the API's, and what it says before any walk. */
static void cli_prints_the_report(void **state)
{
    (void)state;
    struct cli_out o;
    cli_do(&o, "maintenance partitions " CAT " --limit 2");
    cli_out_expect(&o, 0, "maintenance partitions");
    expect_contains(o.out, "sampled at ", "the freshness line");
    expect_contains(o.out, "TABLE", "the header");
    expect_contains(o.out, "ns.ev", "the first row");
    /* The rows in rank order: ev's `a` (debt 4), then its null partition. */
    const char *a = strstr(o.out, "ns.ev  a  ");
    const char *nul = strstr(o.out, "ns.ev  null  ");
    if (!a || !nul)
        fail_msg("rows not found in:\n%s", o.out);
    assert_non_null(a);
    assert_non_null(nul);
    assert_true(a < nul);
    expect_contains(o.out, "more partitions have debt", "the truncation note");
    cli_out_free(&o);

    cli_do(&o, "--json maintenance partitions " CAT " --table ns2.x");
    cli_out_expect(&o, 0, "maintenance partitions --json");
    json_t *cli_json = jparse(o.out), *api = stats("?namespace=ns2&table=x");
    assert_true(json_equal(cli_json, api));
    json_decref(cli_json);
    json_decref(api);
    cli_out_free(&o);

    cli_refused(2, "not both", "maintenance partitions " CAT " --namespace ns --table ns.ev");
    cli_refused(2, "NAMESPACE.TABLE", "maintenance partitions " CAT " --table ev");
    cli_refused(3, "ns.nope", "maintenance partitions " CAT " --table ns.nope");

    /* One table's groups, named by its live spec, biggest first. */
    cli_do(&o, "table partitions " CAT ".ns.ev --sort files --limit 3");
    cli_out_expect(&o, 0, "table partitions");
    expect_contains(o.out, "4 partition groups", "the total");
    const char *ga = strstr(o.out, "kind=\"a\"");
    const char *gnull = strstr(o.out, "kind=null");
    if (!ga || !gnull || ga > gnull || strstr(o.out, "kind=\"c\""))
        fail_msg("groups not in file-count order, limited to 3:\n%s", o.out);
    cli_out_free(&o);
    cli_do(&o, "--json table partitions " CAT ".ns.ev --filter 0:B --filter 0:b");
    cli_out_expect(&o, 0, "table partitions --json");
    cli_json = jparse(o.out);
    api = api_get_json(&srv, TABLES "ev/partitions?filter=0:B&filter=0:b");
    assert_true(json_equal(cli_json, api));
    assert_int_equal(jint(cli_json, "total"), 1);
    json_decref(cli_json);
    json_decref(api);
    cli_out_free(&o);
    cli_refused(1, "sort", "table partitions " CAT ".ns.ev --sort bogus");
    cli_refused(3, "nope", "table partitions " CAT ".ns.nope");

    make_catalog(&srv, "fresh");
    cli_do(&o, "maintenance partitions fresh");
    cli_out_expect(&o, 0, "maintenance partitions on an unsampled catalog");
    expect_contains(o.out, "not sampled yet", "the unsampled answer");
    cli_out_free(&o);
}

/* A walk counts the catalog at the snapshot it started at, whatever
 * commits while it goes; the next walk sees them. */
static void walk_counts_one_snapshot(void **state)
{
    (void)state;
    int64_t at = head_of(CAT);
    assert_int_equal(step(4), SUMMARY_WALKED);
    json_t *st = api_get_json(&srv, "/v1/catalogs/" CAT "/maintenance/status");
    assert_non_null(json_object_get(st, "sample_started_at"));
    json_decref(st);
    append("ev", "a", 3, 100); /* three more in `a` */
    alter("flat", "{'ops':[{'op':'set_table_comment','comment':'x'}]}");
    json_t *flat = api_get_json(&srv, "/v1/catalogs/" CAT "/namespaces/" NS "/tables/flat");
    struct http_result r0;
    api_send_text(&r0, &srv, "POST", "{}",
                  "/v1/catalogs/" CAT "/namespaces/" NS
                  "/tables/flat/truncate?expected_table_uuid=%s",
                  jstr(flat, "table_uuid"));
    json_decref(flat);
    expect_status(&r0, 200);
    http_result_free(&r0);
    walk(4);
    json_t *r = stats("");
    assert_int_equal(jint(r, "sampled_snapshot_id"), at);
    assert_int_equal(jint(find(r, "ev", "[\"a\"]"), "file_count"), 5);
    assert_non_null(find(r, "flat", "[]")); /* truncated after the walk began */
    json_decref(r);

    walk(4);
    r = stats("");
    assert_int_equal(jint(r, "sampled_snapshot_id"), head_of(CAT));
    assert_int_equal(jint(find(r, "ev", "[\"a\"]"), "file_count"), 8);
    assert_int_equal(jint(find(r, "ev", "[\"a\"]"), "debt_score"), 7);
    assert_null(find(r, "flat", "[]"));
    json_decref(r);
}

/* Files under a spec the table no longer has are stale groups; a dropped
 * table leaves the report at once (names are the head's) and its files
 * leave the next walk. */
static void stale_specs_and_dropped_tables(void **state)
{
    (void)state;
    alter("ev", "{'ops':[{'op':'set_partition_spec','fields':[{'source_field_id':2,"
                "'transform':'identity'}]}]}");
    append("ev", "7", 2, 10);
    append("flat", NULL, 2, 10);
    walk(100);
    json_t *r = stats("");
    /* a, b, c and null were written under spec 1. */
    assert_int_equal(jint(r, "stale_spec_groups"), 4);
    assert_true(json_is_true(json_object_get(find(r, "ev", "[\"a\"]"), "stale_spec")));
    const json_t *seven = find(r, "ev", "[\"7\"]");
    assert_false(json_is_true(json_object_get(seven, "stale_spec")));
    assert_int_equal(jint(seven, "spec_id"), 2);
    json_decref(r);
    r = stats("?namespace=" NS "&table=flat");
    assert_int_equal(jint(r, "stale_spec_groups"), 0);
    assert_int_equal(json_array_size(json_object_get(r, "partitions")), 1);
    json_decref(r);
    r = stats("?namespace=" NS "&table=ev");
    assert_int_equal(jint(r, "stale_spec_groups"), 4);
    json_decref(r);

    drop_table("flat");
    r = stats("");
    assert_null(find(r, "flat", "[]"));
    json_decref(r);
    int64_t flat_buckets_before =
        sqli("SELECT count(*) FROM hog_summary_bucket b JOIN hog_summary s USING (catalog_id)"
             " WHERE b.catalog_id = %lld AND b.generation = s.published_generation"
             " AND b.table_id NOT IN (SELECT table_id FROM hog_table_version"
             "  WHERE catalog_id = %lld AND end_snapshot IS NULL)",
             (long long)cat_id(CAT), (long long)cat_id(CAT));
    assert_int_equal(flat_buckets_before, 1);
    walk(100);
    assert_int_equal(
        sqli("SELECT count(*) FROM hog_summary_bucket b JOIN hog_summary s USING (catalog_id)"
             " WHERE b.catalog_id = %lld AND b.generation = s.published_generation"
             " AND b.table_id NOT IN (SELECT table_id FROM hog_table_version"
             "  WHERE catalog_id = %lld AND end_snapshot IS NULL)",
             (long long)cat_id(CAT), (long long)cat_id(CAT)),
        0);
}

/* A walk whose snapshot fell below the expiry floor may have lost files
 * to the purge: it starts again at the head. Buckets of generations
 * neither published nor being built are deleted. */
static void walk_below_the_floor_starts_again(void **state)
{
    (void)state;
    int64_t gen0 =
        sqli("SELECT generation FROM hog_summary WHERE catalog_id = %lld", (long long)cat_id(CAT));
    assert_int_equal(step(2), SUMMARY_WALKED);
    int64_t started_at = sqli("SELECT scan_snapshot FROM hog_summary WHERE catalog_id = %lld",
                              (long long)cat_id(CAT));
    append("ev", "7", 1, 10);
    struct http_result r0;
    api_send(&r0, &srv, "PATCH", jpack("{s:i}", "snapshot_retention_seconds", 60),
             "/v1/catalogs/" CAT "/options");
    expect_status(&r0, 200);
    http_result_free(&r0);
    sql_exec("UPDATE hog_snapshot SET snapshot_time = now() - interval '1 hour'"
             " WHERE catalog_id = %lld",
             (long long)cat_id(CAT));
    json_decref(api_post_json(&srv, "/v1/catalogs/" CAT "/maintenance/expire"));
    int64_t head = head_of(CAT);
    assert_true(sqli("SELECT earliest_snapshot_id FROM hog_catalog WHERE catalog_id = %lld",
                     (long long)cat_id(CAT)) > started_at);
    walk(2);
    json_t *r = stats("");
    assert_int_equal(jint(r, "sampled_snapshot_id"), head);
    json_decref(r);
    /* The abandoned walk's generation was skipped over. */
    assert_int_equal(sqli("SELECT published_generation FROM hog_summary WHERE catalog_id = %lld",
                          (long long)cat_id(CAT)),
                     gen0 + 2);
    /* Idle steps purge every older generation, a batch at a time. */
    for (int i = 0; i < 50; i++)
        assert_int_equal(step_after(2, 3600), SUMMARY_IDLE);
    assert_int_equal(sqli("SELECT count(DISTINCT generation) FROM hog_summary_bucket"
                          " WHERE catalog_id = %lld",
                          (long long)cat_id(CAT)),
                     1);
}

/* The published buckets, every measure but last_written_snapshot (a walk
 * gives the newest live file's, a refresh keeps the newest ever added),
 * into table `name`. */
static void save_published(const char *name)
{
    sql_exec("DROP TABLE IF EXISTS %s", name);
    sql_exec("CREATE TABLE %s AS SELECT b.table_id, b.namespace_id, b.spec_id,"
             " b.partition_values, b.stale_spec, b.file_count, b.small_count, b.total_bytes,"
             " b.small_bytes, b.dv_count, b.record_count, b.debt_score"
             " FROM hog_summary_bucket b JOIN hog_summary s USING (catalog_id)"
             " WHERE b.catalog_id = %lld AND b.generation = s.published_generation",
             name, (long long)cat_id(CAT));
}

static int64_t rows_differing(const char *a, const char *b)
{
    return sqli("SELECT (SELECT count(*) FROM (TABLE %s EXCEPT ALL TABLE %s) x)"
                " + (SELECT count(*) FROM (TABLE %s EXCEPT ALL TABLE %s) y)",
                a, b, b, a);
}

static int64_t summary_value(const char *column)
{
    return sqli("SELECT %s FROM hog_summary WHERE catalog_id = %lld", column,
                (long long)cat_id(CAT));
}

static int64_t newest_file(const char *table, int64_t bytes)
{
    return sqli("SELECT max(data_file_id) FROM hog_data_file WHERE catalog_id = %lld"
                " AND table_id = %lld AND end_snapshot IS NULL AND file_size_bytes = %lld",
                (long long)cat_id(CAT), (long long)table_id_of(CAT, NS, table), (long long)bytes);
}

/* A refresh brings the published counts to the head by the changes since
 * their snapshot: three rounds of appends, deletion vectors (new, replaced,
 * on a file of the same round), a truncate, a drop, a spec change and a
 * table created (and one created and dropped) between refreshes, then a
 * walk at the same head counts exactly what the refreshes kept. */
static void changes_refresh_matches_a_walk(void **state)
{
    (void)state;
    walk(100);
    int64_t gen = summary_value("published_generation");
    create_table("{'name':'rf','columns':[{'name':'kind','type':'string'},"
                 "{'name':'id','type':'long'}],"
                 "'partition_fields':[{'source_field_id':1,'transform':'identity'}]}");
    for (int round = 0; round < 3; round++) {
        append("rf", "p", 3, 111);
        append("rf", round ? "q" : "~", 2, BIG);
        append("ev", "a", 1, 100 + round);
        append("ev", "7", 2, 10);
        add_dv("rf", newest_file("rf", 111)); /* a file of this round */
        add_dv("ev", newest_file("ev", 10));  /* then replaced below */
        add_dv("ev", newest_file("ev", 10));
        if (round == 0) {
            create_table("{'name':'gone','columns':[{'name':'id','type':'long'}]}");
            append("gone", NULL, 3, 7);
            create_table_in("ns2", "{'name':'brief','columns':[{'name':'id','type':'long'}]}");
            append_in("ns2", "brief", NULL, 2, 5);
            struct http_result r;
            api_delete(&r, &srv, "/v1/catalogs/" CAT "/namespaces/ns2/tables/brief");
            expect_status(&r, 200);
            http_result_free(&r);
        }
        if (round == 1) {
            json_t *x = api_get_json(&srv, "/v1/catalogs/" CAT "/namespaces/ns2/tables/x");
            struct http_result r;
            api_send_text(&r, &srv, "POST", "{}",
                          "/v1/catalogs/" CAT "/namespaces/ns2/tables/x/truncate"
                          "?expected_table_uuid=%s",
                          jstr(x, "table_uuid"));
            expect_status(&r, 200);
            http_result_free(&r);
            json_decref(x);
            alter("rf", "{'ops':[{'op':'set_partition_spec','fields':[{'source_field_id':2,"
                        "'transform':'identity'}]}]}");
        }
        if (round == 2)
            drop_table("gone");
        assert_int_equal(step_with(100, 0, 100000), SUMMARY_REFRESHED);
        assert_int_equal(summary_value("published_snapshot"), head_of(CAT));
        assert_int_equal(summary_value("published_generation"), gen);
    }
    save_published("hl_test_refreshed");
    int64_t files = summary_value("live_files"), buckets = summary_value("buckets");
    int64_t stale = summary_value("stale_spec_buckets");
    walk(100); /* change_limit 0: a walk from the first file */
    assert_true(summary_value("published_generation") > gen);
    save_published("hl_test_walked");
    assert_int_equal(rows_differing("hl_test_refreshed", "hl_test_walked"), 0);
    assert_true(sqli("SELECT count(*) FROM hl_test_walked") > 5);
    assert_true(sqli("SELECT count(*) FROM hl_test_walked WHERE stale_spec") > 0);
    assert_int_equal(summary_value("live_files"), files);
    assert_int_equal(summary_value("buckets"), buckets);
    assert_int_equal(summary_value("stale_spec_buckets"), stale);
    sql_exec("DROP TABLE hl_test_refreshed");
    sql_exec("DROP TABLE hl_test_walked");
}

/* Too many changes, or a floor past the published snapshot: a walk. */
static void refresh_walks_when_changes_cannot_serve(void **state)
{
    (void)state;
    walk(100);
    append("ev", "a", 3, 100);
    assert_int_equal(step_with(100, 0, 2), SUMMARY_PUBLISHED); /* 3 rows >= 2 */
    append("ev", "a", 1, 100);
    assert_int_equal(step_with(100, 0, 100000), SUMMARY_REFRESHED);
    append("ev", "a", 1, 100);
    sql_exec("UPDATE hog_snapshot SET snapshot_time = now() - interval '1 hour'"
             " WHERE catalog_id = %lld",
             (long long)cat_id(CAT));
    json_decref(api_post_json(&srv, "/v1/catalogs/" CAT "/maintenance/expire"));
    assert_true(sqli("SELECT earliest_snapshot_id FROM hog_catalog WHERE catalog_id = %lld",
                     (long long)cat_id(CAT)) > summary_value("published_snapshot"));
    assert_int_equal(step_with(100, 0, 100000), SUMMARY_PUBLISHED);
    assert_int_equal(summary_value("published_snapshot"), head_of(CAT));
}

static void bad_requests_are_refused(void **state)
{
    (void)state;
    struct http_result r;
    static const char *const invalid[] = {"?limit=0", "?limit=501", "?table=ev"};
    expect_statuses(STATS, invalid, sizeof invalid / sizeof invalid[0], 422);
    static const char *const malformed[] = {"?limit=x", "?bogus=1"};
    expect_statuses(STATS, malformed, sizeof malformed / sizeof malformed[0], 400);
    /* Names and prefixes reach SQL as text: bytes that are not UTF-8 are
     * the client's error, not a 500. */
    static const char *const not_utf8[] = {"?namespace=%FF", "?namespace=" NS "&table=%C3%28"};
    expect_statuses(STATS, not_utf8, sizeof not_utf8 / sizeof not_utf8[0], 400);
    static const char *const not_utf8_filter[] = {"?filter=0:%FF", "?filter=0:a%E2%82"};
    expect_statuses(TABLES "ev/partitions", not_utf8_filter,
                    sizeof not_utf8_filter / sizeof not_utf8_filter[0], 400);
    api_get(&r, &srv, STATS "?namespace=nope");
    expect_status(&r, 404);
    http_result_free(&r);
    api_get(&r, &srv, STATS "?namespace=" NS "&table=nope");
    expect_status(&r, 404);
    http_result_free(&r);
    api_get(&r, &srv, "/v1/catalogs/nope/stats/partitions");
    expect_status(&r, 404);
    http_result_free(&r);
    char url[300];
    snprintf(url, sizeof url, "%s" STATS, srv.base);
    static const char *const anonymous[] = {"Authorization:", NULL};
    http_call(&r, "GET", url, NULL, NULL, 0, anonymous);
    expect_status(&r, 401);
    http_result_free(&r);
}

/* The loop: a second server walks in small batches while commits go on,
 * and publishes generations whose totals are the file rows' at their
 * snapshot. */
static void loop_publishes_beside_commits(void **state)
{
    (void)state;
    struct test_server loop;
    const char *const extra[] = {"--summary-interval-ms",
                                 "20",
                                 "--summary-batch",
                                 "3",
                                 "--summary-refresh-seconds",
                                 "0",
                                 NULL};
    test_server_start(&loop, &db, extra);
    for (int i = 0; i < 10; i++)
        append("ev", i % 2 ? "7" : "8", 2, 10);
    int64_t head = head_of(CAT);
    int64_t sampled = 0;
    for (int i = 0; i < 500 && sampled < head; i++) {
        sleep_ms(20);
        json_t *st = api_get_json(&loop, "/v1/catalogs/" CAT "/maintenance/status");
        json_t *s = json_object_get(st, "sampled_snapshot_id");
        sampled = s ? json_integer_value(s) : 0;
        json_decref(st);
    }
    assert_int_equal(sampled, head);
    /* Stop the loop before comparing: a later walk would publish again. */
    char *metrics = NULL;
    {
        struct http_result r;
        char url[300];
        snprintf(url, sizeof url, "%s/metrics", loop.base);
        http_call(&r, "GET", url, NULL, NULL, 0, NULL);
        expect_status(&r, 200);
        metrics = strdup(r.body);
        http_result_free(&r);
    }
    test_server_stop(&loop);
    expect_contains(metrics, "hoglake_summary_generations_published_total", "metrics");
    expect_contains(metrics, "hoglake_summary_files_sampled_total", "metrics");
    free(metrics);
    int64_t snap = sqli("SELECT published_snapshot FROM hog_summary WHERE catalog_id = %lld",
                        (long long)cat_id(CAT));
    assert_int_equal(
        sqli("SELECT live_files FROM hog_summary WHERE catalog_id = %lld", (long long)cat_id(CAT)),
        sqli("SELECT count(*) FROM hog_data_file d JOIN hog_table t USING (catalog_id, table_id)"
             " WHERE d.catalog_id = %lld AND d.begin_snapshot <= %lld"
             " AND (d.end_snapshot IS NULL OR d.end_snapshot > %lld)"
             " AND (t.dropped_snapshot IS NULL OR t.dropped_snapshot > %lld)",
             (long long)cat_id(CAT), (long long)snap, (long long)snap, (long long)snap));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(unsampled_catalog_reports_nothing),
        cmocka_unit_test(ranks_partitions_by_debt),
        cmocka_unit_test(table_listing_sorts_filters_pages),
        cmocka_unit_test(cli_prints_the_report),
        cmocka_unit_test(walk_counts_one_snapshot),
        cmocka_unit_test(stale_specs_and_dropped_tables),
        cmocka_unit_test(walk_below_the_floor_starts_again),
        cmocka_unit_test(changes_refresh_matches_a_walk),
        cmocka_unit_test(refresh_walks_when_changes_cannot_serve),
        cmocka_unit_test(bad_requests_are_refused),
        cmocka_unit_test(loop_publishes_beside_commits),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

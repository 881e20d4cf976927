/* The commit protocol over HTTP against a real hoglaked and PostgreSQL:
 * appends (file rows, row ids, counters, change rows), statistics
 * (validation and sanitizing), partition values, paths, value ranges,
 * table resolution (unknown, dropped, recreated), the conflict check
 * against read_snapshot, idempotency receipts and replays, deletion
 * vectors, the removal-queue guard, the lock timeout, and the checks an
 * append makes before the lock being verified under it.
 *
 * Request bodies are written with single quotes; dq() makes them JSON. */
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness.h"

#define CAT "cm"
#define NS "ns"
#define DATA "s3://hoglake-test/" CAT

static struct test_db db;
static struct test_server srv;
static PGconn *pg;

/* ---- helpers ---- */

/* POSTs a printf-formatted, single-quoted body to /commit (or a variant). */
static void vpost(struct http_result *r, const char *endpoint, const char *fmt, va_list ap)
{
    char body[16384];
    vsnprintf(body, sizeof body, fmt, ap);
    char *b = dq(body);
    api_send_text(r, &srv, "POST", b, "/v1/catalogs/%s/%s", CAT, endpoint);
    free(b);
}

static void post(struct http_result *r, const char *endpoint, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void post(struct http_result *r, const char *endpoint, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vpost(r, endpoint, fmt, ap);
    va_end(ap);
}

/* A commit that must succeed; returns its snapshot id. */
static int64_t commit_ok(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int64_t commit_ok(const char *fmt, ...)
{
    struct http_result r;
    va_list ap;
    va_start(ap, fmt);
    vpost(&r, "commit", fmt, ap);
    va_end(ap);
    expect_status(&r, 200);
    int64_t snap = jint(r.json, "snapshot_id");
    http_result_free(&r);
    return snap;
}

/* A commit that must fail with status/code (detail containing needle when
 * given) and change nothing. */
static void commit_fails(long status, const char *code, const char *needle, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void commit_fails(long status, const char *code, const char *needle, const char *fmt, ...)
{
    int64_t h0 = head_of(CAT);
    int64_t files0 = sqli("SELECT count(*) FROM hog_data_file");
    struct http_result r;
    va_list ap;
    va_start(ap, fmt);
    vpost(&r, "commit", fmt, ap);
    va_end(ap);
    expect_error(&r, status, code);
    if (needle)
        expect_detail_contains(&r, needle);
    http_result_free(&r);
    assert_int_equal(head_of(CAT), h0);
    assert_int_equal(sqli("SELECT count(*) FROM hog_data_file"), files0);
}

static void make(const char *table, const char *columns)
{
    char *c = dq(columns);
    json_t *t = make_table(&srv, CAT, NS, table, c);
    free(c);
    json_decref(t);
}

static const char *uuid_of(const char *table, char *out, size_t n)
{
    json_t *t = api_get_json(&srv, "/v1/catalogs/%s/namespaces/%s/tables/%s", CAT, NS, table);
    snprintf(out, n, "%s", jstr(t, "table_uuid"));
    json_decref(t);
    return out;
}

static int64_t file_id(const char *path)
{
    return sqli("SELECT data_file_id FROM hog_data_file WHERE path = '%s'", path);
}

/* A sample's value: needle is the start of its line ("name{labels} "). */
static double metric_value(const char *needle)
{
    struct http_result r;
    api_get(&r, &srv, "/metrics");
    expect_status(&r, 200);
    const char *at = r.body;
    while ((at = strstr(at, needle)) && at != r.body && at[-1] != '\n')
        at++;
    double v = at ? strtod(at + strlen(needle), NULL) : 0;
    http_result_free(&r);
    return v;
}

static int64_t metric(const char *needle)
{
    return (int64_t)metric_value(needle);
}

static int setup(void **state)
{
    (void)state;
    test_stack_up(&db, &srv, &pg, "commits", CAT, NS);
    make("events", "[{'name':'id','type':'long','nullable':false},{'name':'v','type':'double'},"
                   "{'name':'s','type':'string'},{'name':'tags','type':'list','children':["
                   "{'name':'element','type':'string'}]},{'name':'var','type':'variant'}]");
    make("other", "[{'name':'id','type':'long'}]");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    test_stack_down(&db, &srv, &pg);
    return 0;
}

/* ---- appends ---- */

static void append_registers_files_and_row_ids(void **state)
{
    (void)state;
    int64_t h0 = head_of(CAT);
    int64_t sv0 = sqli("SELECT schema_version FROM hog_catalog WHERE name = '" CAT "'");
    int64_t tid = table_id_of(CAT, NS, "events");
    int64_t rows0 =
        sqli("SELECT next_row_id FROM hog_table_stats WHERE table_id = %lld", (long long)tid);
    int64_t snap = commit_ok(
        "{'author':'tester','message':'first','appends':[{'namespace':'" NS "','table':'events',"
        "'files':[{'path':'" DATA "/data/ns/events/a.parquet','record_count':10,"
        "'file_size_bytes':1000,'footer_size':200,'split_offsets':[4,500]},"
        "{'path':'" DATA "/data/ns/events/b.parquet','record_count':5,'file_size_bytes':300}]}]}");
    assert_int_equal(snap, h0 + 1);
    assert_int_equal(head_of(CAT), h0 + 1);
    /* Data commits do not bump the schema version. */
    assert_int_equal(sqli("SELECT schema_version FROM hog_catalog WHERE name = '" CAT "'"), sv0);
    expect_sql("tester|first",
               "SELECT author || '|' || commit_message FROM hog_snapshot WHERE snapshot_id = %lld"
               " AND catalog_id = %lld",
               (long long)snap, (long long)cat_id(CAT));
    assert_int_equal(change_rows(CAT, snap, "table_inserted_into", tid), 1);
    assert_int_equal(change_rows(CAT, snap, NULL, 0), 1);
    /* Files in request order, with contiguous ids and row ranges. */
    int64_t a = file_id(DATA "/data/ns/events/a.parquet"),
            b = file_id(DATA "/data/ns/events/b.parquet");
    assert_int_equal(b, a + 1);
    expect_sql("10|1000|200|{4,500}|pending",
               "SELECT record_count || '|' || file_size_bytes || '|' || footer_size || '|' ||"
               " split_offsets::text || '|' || stats_state FROM hog_data_file"
               " WHERE data_file_id = %lld",
               (long long)a);
    assert_int_equal(
        sqli("SELECT row_id_start FROM hog_data_file WHERE data_file_id = %lld", (long long)a),
        rows0);
    assert_int_equal(
        sqli("SELECT row_id_start FROM hog_data_file WHERE data_file_id = %lld", (long long)b),
        rows0 + 10);
    assert_int_equal(
        sqli("SELECT begin_snapshot FROM hog_data_file WHERE data_file_id = %lld", (long long)b),
        snap);
    assert_int_equal(
        sqli("SELECT next_row_id FROM hog_table_stats WHERE table_id = %lld", (long long)tid),
        rows0 + 15);
    /* The table's totals at head count the new files. */
    json_t *t = api_get_json(&srv, "/v1/catalogs/%s/namespaces/%s/tables/events?snapshot=%lld", CAT,
                             NS, (long long)snap);
    assert_true(jint(t, "record_count") >= 15);
    json_decref(t);
}

/* A commit's transaction plans generically and without sequential scans:
 * every statement it runs (its own, its triggers', its foreign-key checks)
 * is an index probe, and stays one on tables whose statistics predate
 * their rows. A trigger of the test's own records what the commit's
 * statements ran under. */
static void commit_plans_index_probes(void **state)
{
    (void)state;
    sql_exec("CREATE TABLE test_seen (seqscan text, plans text)");
    sql_exec("CREATE FUNCTION test_seen_record() RETURNS trigger LANGUAGE plpgsql AS $$"
             " BEGIN INSERT INTO test_seen VALUES (current_setting('enable_seqscan'),"
             " current_setting('plan_cache_mode')); RETURN NULL; END $$");
    sql_exec("CREATE TRIGGER test_seen_record AFTER INSERT ON hog_data_file"
             " FOR EACH STATEMENT EXECUTE FUNCTION test_seen_record()");
    commit_ok("{'appends':[{'namespace':'" NS "','table':'events','files':[{'path':'" DATA
              "/data/ns/events/probe.parquet','record_count':1,'file_size_bytes':10}]}]}");
    expect_sql("off|force_generic_plan", "SELECT string_agg(seqscan || '|' || plans, ',')"
                                         " FROM test_seen");
    sql_exec("DROP TRIGGER test_seen_record ON hog_data_file");
    sql_exec("DROP FUNCTION test_seen_record()");
    sql_exec("DROP TABLE test_seen");
}

static void one_commit_spans_tables_atomically(void **state)
{
    (void)state;
    int64_t ev = table_id_of(CAT, NS, "events"), ot = table_id_of(CAT, NS, "other");
    int64_t ev_rows =
        sqli("SELECT next_row_id FROM hog_table_stats WHERE table_id = %lld", (long long)ev);
    /* Two groups for events are merged: their files keep request order. */
    int64_t snap =
        commit_ok("{'appends':[{'namespace':'" NS "','table':'events','files':[{'path':'" DATA
                  "/m/e1.parquet','record_count':3,'file_size_bytes':30}]},"
                  "{'namespace':'" NS "','table':'other','files':[{'path':'" DATA
                  "/m/o1.parquet','record_count':7,'file_size_bytes':70}]},"
                  "{'namespace':'" NS "','table':'events','files':[{'path':'" DATA
                  "/m/e2.parquet','record_count':4,'file_size_bytes':40}]}]}");
    assert_int_equal(change_rows(CAT, snap, NULL, 0), 2);
    assert_int_equal(change_rows(CAT, snap, "table_inserted_into", ev), 1);
    assert_int_equal(change_rows(CAT, snap, "table_inserted_into", ot), 1);
    assert_int_equal(
        sqli("SELECT row_id_start FROM hog_data_file WHERE path = '" DATA "/m/e2.parquet'"),
        ev_rows + 3);
    /* A failure in any table writes nothing anywhere. */
    commit_fails(422, "validation", "unknown table",
                 "{'appends':[{'namespace':'" NS "','table':'other','files':[{'path':'" DATA
                 "/m/o2.parquet','record_count':1,'file_size_bytes':1}]},"
                 "{'namespace':'" NS "','table':'nope','files':[{'path':'" DATA
                 "/m/n.parquet','record_count':1,'file_size_bytes':1}]}]}");
    assert_int_equal(
        sqli("SELECT count(*) FROM hog_data_file WHERE path = '" DATA "/m/o2.parquet'"), 0);
}

/* ---- statistics ---- */

static void stats_are_stored_and_sanitized(void **state)
{
    (void)state;
    int64_t repaired0 = metric("hoglake_stats_repaired_total{source=\"commit\"} ");
    /* id (1): a clean bound pair; v (2): +0.0 lower and -0.0 upper, which
     * are canonicalised; s (3): an inverted pair, dropped; tags.element (5):
     * a NaN-free bound that is not base64, dropped; null_count above
     * value_count, clamped. */
    commit_ok("{'appends':[{'namespace':'" NS "','table':'events','files':[{'path':'" DATA
              "/st/1.parquet','record_count':4,'file_size_bytes':100,'column_stats':["
              "{'field_id':1,'value_count':4,'null_count':0,'lower_bound':'AQAAAAAAAAA=',"
              "'upper_bound':'BAAAAAAAAAA='},"
              "{'field_id':2,'value_count':4,'null_count':9,'nan_count':1,"
              "'lower_bound':'AAAAAAAAAAA=','upper_bound':'AAAAAAAAAIA='},"
              "{'field_id':3,'value_count':4,'null_count':0,'lower_bound':'eg==',"
              "'upper_bound':'YQ=='},"
              "{'field_id':5,'value_count':6,'null_count':1,'lower_bound':'!!!'}]}]}]}");
    int64_t f = file_id(DATA "/st/1.parquet");
    expect_sql("provided", "SELECT stats_state FROM hog_data_file WHERE data_file_id = %lld",
               (long long)f);
    expect_sql("\\x0100000000000000|\\x0400000000000000",
               "SELECT lower_bound::text || '|' || upper_bound::text FROM hog_file_column_stats"
               " WHERE data_file_id = %lld AND field_id = 1",
               (long long)f);
    expect_sql("4|4|\\x0000000000000080|\\x0000000000000000",
               "SELECT value_count || '|' || null_count || '|' || lower_bound::text || '|' ||"
               " upper_bound::text FROM hog_file_column_stats WHERE data_file_id = %lld"
               " AND field_id = 2",
               (long long)f);
    expect_sql("<null>",
               "SELECT coalesce(lower_bound::text, upper_bound::text) FROM hog_file_column_stats"
               " WHERE data_file_id = %lld AND field_id = 3",
               (long long)f);
    expect_sql("<null>",
               "SELECT lower_bound::text FROM hog_file_column_stats WHERE data_file_id = %lld"
               " AND field_id = 5",
               (long long)f);
    /* The null_count clamp, then the nan_count clamp it implies, the zero
     * lower and upper bounds, the two bounds of the inverted pair and the
     * bad base64: seven repairs. */
    assert_int_equal(metric("hoglake_stats_repaired_total{source=\"commit\"} ") - repaired0, 7);
    /* A top-level column has one value per row at most: clamped. A list's
     * element (field 5 above, 6 values for 4 rows) is not. */
    int64_t before = metric("hoglake_stats_repaired_total{source=\"commit\"} ");
    commit_ok("{'appends':[{'namespace':'" NS "','table':'events','files':[{'path':'" DATA
              "/st/2.parquet','record_count':2,'file_size_bytes':100,'column_stats':["
              "{'field_id':1,'value_count':5,'null_count':0}]}]}]}");
    expect_sql("2",
               "SELECT value_count FROM hog_file_column_stats WHERE field_id = 1 AND"
               " data_file_id = %lld",
               (long long)file_id(DATA "/st/2.parquet"));
    expect_sql("6",
               "SELECT value_count FROM hog_file_column_stats WHERE field_id = 5 AND"
               " data_file_id = %lld",
               (long long)f);
    assert_int_equal(metric("hoglake_stats_repaired_total{source=\"commit\"} ") - before, 1);
    /* A bound of s (3) longer than 4,096 bytes is dropped; one of 4,096
     * bytes is kept, with the other side. */
    char keep[5500] = "", drop[5500] = "";
    for (int i = 0; i < 1365; i++) {
        strcat(keep, "YWFh"); /* "aaa" */
        strcat(drop, "YWFh");
    }
    strcat(keep, "YQ=="); /* 4,096 a's */
    strcat(drop, "YWE="); /* 4,097 */
    before = metric("hoglake_stats_repaired_total{source=\"commit\"} ");
    commit_ok("{'appends':[{'namespace':'" NS "','table':'events','files':[{'path':'" DATA
              "/st/3.parquet','record_count':2,'file_size_bytes':100,'column_stats':["
              "{'field_id':3,'value_count':2,'null_count':0,'lower_bound':'%s',"
              "'upper_bound':'Yg=='}]}]},{'namespace':'" NS "','table':'events','files':[{"
              "'path':'" DATA "/st/4.parquet','record_count':2,'file_size_bytes':100,"
              "'column_stats':[{'field_id':3,'value_count':2,'null_count':0,'lower_bound':'%s',"
              "'upper_bound':'Yg=='}]}]}]}",
              drop, keep);
    expect_sql("<null>|\\x62",
               "SELECT coalesce(octet_length(lower_bound)::text, '<null>') || '|' ||"
               " upper_bound::text FROM hog_file_column_stats WHERE field_id = 3 AND"
               " data_file_id = %lld",
               (long long)file_id(DATA "/st/3.parquet"));
    expect_sql("4096|\\x62",
               "SELECT octet_length(lower_bound) || '|' || upper_bound::text FROM"
               " hog_file_column_stats WHERE field_id = 3 AND data_file_id = %lld",
               (long long)file_id(DATA "/st/4.parquet"));
    assert_int_equal(metric("hoglake_stats_repaired_total{source=\"commit\"} ") - before, 1);
}

static void stats_refusals(void **state)
{
    (void)state;
#define FILE_FMT                                                                                   \
    "{'appends':[{'namespace':'" NS "','table':'events','files':[{'path':'" DATA                   \
    "/sr/x.parquet','record_count':1,'file_size_bytes':10,'column_stats':[%s]}]}]}"
    char body[1024];
    snprintf(body, sizeof body, FILE_FMT, "{'field_id':99,'value_count':1,'null_count':0}");
    commit_fails(422, "validation", "not a live column", "%s", body);
    snprintf(body, sizeof body, FILE_FMT, "{'field_id':4,'value_count':1,'null_count':0}");
    commit_fails(422, "validation", "list column", "%s", body);
    snprintf(body, sizeof body, FILE_FMT, "{'field_id':6,'value_count':1,'null_count':0}");
    commit_fails(422, "validation", "variant column", "%s", body);
    snprintf(body, sizeof body, FILE_FMT,
             "{'field_id':1,'value_count':1,'null_count':0},"
             "{'field_id':1,'value_count':1,'null_count':0}");
    commit_fails(422, "validation", "two statistics", "%s", body);
    snprintf(body, sizeof body, FILE_FMT, "{'field_id':1,'value_count':-1,'null_count':0}");
    commit_fails(422, "validation", "value_count", "%s", body);
    snprintf(body, sizeof body, FILE_FMT, "{'field_id':1,'value_count':1}");
    commit_fails(400, "bad_request", "null_count", "%s", body);
    /* Empty column_stats is "provided, nothing for these columns". */
    commit_ok(FILE_FMT, "");
    expect_sql("provided",
               "SELECT stats_state FROM hog_data_file WHERE path = '" DATA "/sr/x.parquet'");
}

/* ---- partitions ---- */

static void partition_values_follow_the_spec(void **state)
{
    (void)state;
    make("parted", "[{'name':'id','type':'long'},{'name':'ts','type':'timestamptz'}]");
    struct http_result r;
    char *ops = dq("{'ops':[{'op':'set_partition_spec','fields':[{'source_field_id':2,"
                   "'transform':'day'},{'source_field_id':1,'transform':'bucket',"
                   "'transform_param':4}]}]}");
    api_send_text(&r, &srv, "POST", ops, "/v1/catalogs/%s/namespaces/%s/tables/parted/alter", CAT,
                  NS);
    free(ops);
    expect_status(&r, 200);
    http_result_free(&r);
    int64_t head = head_of(CAT);
    commit_fails(422, "validation", "partitioned by 2",
                 "{'read_snapshot':%lld,'appends':[{'namespace':'" NS "','table':'parted',"
                 "'files':[{'path':'" DATA "/p/1.parquet','record_count':1,"
                 "'file_size_bytes':1,'partition_values':['2026-01-01']}]}]}",
                 (long long)head);
    commit_fails(422, "validation", "partitioned by 2",
                 "{'read_snapshot':%lld,'appends':[{'namespace':'" NS "','table':'parted',"
                 "'files':[{'path':'" DATA
                 "/p/1.parquet','record_count':1,'file_size_bytes':1}]}]}",
                 (long long)head);
    commit_fails(
        422, "validation", "not partitioned",
        "{'appends':[{'namespace':'" NS "','table':'other','files':[{'path':'" DATA
        "/p/o.parquet','record_count':1,'file_size_bytes':1,'partition_values':['x']}]}]}");
    commit_fails(400, "bad_request", "partition_values[0]",
                 "{'read_snapshot':%lld,'appends':[{'namespace':'" NS "','table':'parted',"
                 "'files':[{'path':'" DATA "/p/1.parquet','record_count':1,"
                 "'file_size_bytes':1,'partition_values':[1,'2']}]}]}",
                 (long long)head);
    commit_ok("{'read_snapshot':%lld,'appends':[{'namespace':'" NS "','table':'parted',"
              "'files':[{'path':'" DATA "/p/1.parquet','record_count':1,"
              "'file_size_bytes':1,'partition_values':['2026-01-01',null]}]}]}",
              (long long)head);
    int64_t f = file_id(DATA "/p/1.parquet");
    expect_sql("0=2026-01-01,1=<null>",
               "SELECT string_agg(key_index || '=' || coalesce(value, '<null>'), ',' ORDER BY"
               " key_index) FROM hog_file_partition_value WHERE data_file_id = %lld",
               (long long)f);
    assert_true(sqli("SELECT spec_id FROM hog_data_file WHERE data_file_id = %lld", (long long)f) >=
                0);
    /* Without read_snapshot the append is accepted and counted. */
    int64_t blind0 = metric("hoglake_blind_partitioned_appends_total ");
    commit_ok("{'appends':[{'namespace':'" NS "','table':'parted','files':[{'path':'" DATA
              "/p/2.parquet','record_count':1,'file_size_bytes':1,"
              "'partition_values':['2026-01-02','3']}]}]}");
    assert_int_equal(metric("hoglake_blind_partitioned_appends_total ") - blind0, 1);
}

/* ---- paths and ranges ---- */

static void paths_and_ranges_are_checked(void **state)
{
    (void)state;
#define ONE_FMT                                                                                    \
    "{'appends':[{'namespace':'" NS "','table':'other','files':[{'path':'%s',"                     \
    "'record_count':%s,'file_size_bytes':%s%s}]}]}"
    const char *bad_paths[] = {"s3://elsewhere/x.parquet",
                               DATA "x.parquet",
                               DATA "/",
                               DATA "/a//b.parquet",
                               DATA "/a/../b.parquet",
                               DATA "/./b.parquet",
                               DATA "/a b.parquet",
                               DATA "/dir/"};
    for (size_t i = 0; i < sizeof bad_paths / sizeof *bad_paths; i++)
        commit_fails(422, "validation", NULL, ONE_FMT, bad_paths[i], "1", "1", "");
    commit_fails(422, "validation", "record_count", ONE_FMT, DATA "/r.parquet", "281474976710657",
                 "1", "");
    commit_fails(422, "validation", "record_count", ONE_FMT, DATA "/r.parquet", "-1", "1", "");
    commit_fails(422, "validation", "file_size_bytes", ONE_FMT, DATA "/r.parquet", "1", "-5", "");
    commit_fails(422, "validation", "footer_size", ONE_FMT, DATA "/r.parquet", "1", "100",
                 ",'footer_size':93");
    commit_fails(422, "validation", "split_offsets", ONE_FMT, DATA "/r.parquet", "1", "100",
                 ",'split_offsets':[4,4]");
    commit_fails(422, "validation", "split_offsets", ONE_FMT, DATA "/r.parquet", "1", "100",
                 ",'split_offsets':[100]");
    commit_fails(422, "validation", "split_offsets", ONE_FMT, DATA "/r.parquet", "1", "100",
                 ",'split_offsets':[]");
    /* 2^48 records is the limit, inclusive. */
    commit_ok(ONE_FMT, DATA "/r/max.parquet", "281474976710656", "1", "");
    /* One object, one registration: not twice in a commit, and not again. */
    commit_fails(422, "validation", "already registered", ONE_FMT, DATA "/r/max.parquet", "1", "1",
                 "");
    commit_fails(422, "validation", "appears twice",
                 "{'appends':[{'namespace':'" NS "','table':'other','files':[{'path':'" DATA
                 "/r/d.parquet','record_count':1,'file_size_bytes':1},{'path':'" DATA
                 "/r/d.parquet','record_count':1,'file_size_bytes':1}]}]}");
    /* Whitespace beyond ASCII: a no-break space, a line separator. */
    commit_fails(422, "validation", "whitespace", ONE_FMT, DATA "/r/a\u00a0b.parquet", "1", "1",
                 "");
    commit_fails(422, "validation", "whitespace", ONE_FMT, DATA "/r/a\u2028b.parquet", "1", "1",
                 "");
    /* Shape errors are 400. */
    commit_fails(400, "bad_request", "unknown field", ONE_FMT, DATA "/r.parquet", "1", "1",
                 ",'colour':1");
    commit_fails(400, "bad_request", "record_count", ONE_FMT, DATA "/r.parquet", "'1'", "1", "");
    commit_fails(422, "validation", "nothing to commit", "{'appends':[]}");
    commit_fails(422, "validation", "at least one file",
                 "{'appends':[{'namespace':'" NS "','table':'other','files':[]}]}");
    commit_fails(400, "bad_request", "idempotency_key", "{'idempotency_key':'nope','appends':[]}");
    commit_fails(422, "validation", "read_snapshot",
                 "{'read_snapshot':-1,'appends':[{'namespace':'" NS "','table':'other',"
                 "'files':[{'path':'" DATA "/r.parquet','record_count':1,'file_size_bytes':1}]}]}");
}

/* ---- tables: unknown, dropped, recreated ---- */

static void table_identity_is_checked(void **state)
{
    (void)state;
    make("gone", "[{'name':'id','type':'long'}]");
    char uuid[64];
    uuid_of("gone", uuid, sizeof uuid);
    struct http_result r;
    api_delete(&r, &srv, "/v1/catalogs/%s/namespaces/%s/tables/gone", CAT, NS);
    expect_status(&r, 200);
    http_result_free(&r);
#define GONE_FMT                                                                                   \
    "{'appends':[{'namespace':'" NS "','table':'gone'%s,'files':[{'path':'" DATA                   \
    "/g/1.parquet','record_count':1,'file_size_bytes':1}]}]}"
    commit_fails(409, "table_dropped", "dropped at snapshot", GONE_FMT, "");
    make("gone", "[{'name':'id','type':'long'}]");
    char expected[100];
    snprintf(expected, sizeof expected, ",'expected_table_uuid':'%s'", uuid);
    int64_t h0 = head_of(CAT);
    struct http_result rr;
    post(&rr, "commit", GONE_FMT, expected);
    expect_error(&rr, 409, "table_recreated");
    assert_string_equal(json_string_value(json_array_get(json_object_get(rr.json, "tables"), 0)),
                        NS ".gone");
    assert_string_equal(jstr(rr.json, "retry"), "re-prepare");
    http_result_free(&rr);
    assert_int_equal(head_of(CAT), h0);
    uuid_of("gone", uuid, sizeof uuid);
    snprintf(expected, sizeof expected, ",'expected_table_uuid':'%s'", uuid);
    commit_ok(GONE_FMT, expected);
}

/* ---- conflicts ---- */

static void conflict_check_against_read_snapshot(void **state)
{
    (void)state;
    make("cf", "[{'name':'id','type':'long'},{'name':'x','type':'int'}]");
    make("cf2", "[{'name':'id','type':'long'}]");
    int64_t read = head_of(CAT);
#define CF_FMT                                                                                     \
    "{'read_snapshot':%lld,'appends':[{'namespace':'" NS "','table':'%s',"                         \
    "'files':[{'path':'" DATA "/cf/%s.parquet','record_count':1,"                                  \
    "'file_size_bytes':1}]}]}"
    /* Appends never conflict with appends. */
    commit_ok(CF_FMT, (long long)read, "cf", "1");
    commit_ok(CF_FMT, (long long)read, "cf", "2");
    commit_fails(422, "validation", "after the catalog's head", CF_FMT, (long long)head_of(CAT) + 5,
                 "cf", "3");
    /* DDL after the read: every conflicting change is DDL. */
    struct http_result r;
    char *ops = dq("{'ops':[{'op':'drop_column','name':'x'}]}");
    api_send_text(&r, &srv, "POST", ops, "/v1/catalogs/%s/namespaces/%s/tables/cf/alter", CAT, NS);
    free(ops);
    expect_status(&r, 200);
    http_result_free(&r);
    ops = dq("{'ops':[{'op':'set_table_comment','comment':'c'}]}");
    api_send_text(&r, &srv, "POST", ops, "/v1/catalogs/%s/namespaces/%s/tables/cf2/alter", CAT, NS);
    free(ops);
    expect_status(&r, 200);
    http_result_free(&r);
    int64_t h0 = head_of(CAT);
    post(&r, "commit",
         "{'read_snapshot':%lld,'appends':[{'namespace':'" NS
         "','table':'cf2','files':[{'path':'" DATA
         "/cf/4.parquet','record_count':1,'file_size_bytes':1}]},{'namespace':'" NS
         "','table':'cf','files':[{'path':'" DATA "/cf/5.parquet','record_count':1,"
         "'file_size_bytes':1}]}]}",
         (long long)read);
    expect_error(&r, 409, "ddl_since_read_snapshot");
    json_t *tables = json_object_get(r.json, "tables");
    assert_int_equal(json_array_size(tables), 2);
    assert_string_equal(json_string_value(json_array_get(tables, 0)), NS ".cf");
    assert_string_equal(json_string_value(json_array_get(tables, 1)), NS ".cf2");
    assert_int_equal(jint(r.json, "read_snapshot"), read);
    assert_string_equal(jstr(r.json, "retry"), "re-prepare");
    http_result_free(&r);
    assert_int_equal(head_of(CAT), h0);
    /* The DDL is reported even when the stats also name a dropped field. */
    commit_fails(409, "ddl_since_read_snapshot", NULL,
                 "{'read_snapshot':%lld,'appends':[{'namespace':'" NS "','table':'cf','files':[{"
                 "'path':'" DATA "/cf/6.parquet','record_count':1,'file_size_bytes':1,"
                 "'column_stats':[{'field_id':2,'value_count':1,'null_count':0}]}]}]}",
                 (long long)read);
    /* Re-read: accepted. */
    commit_ok(CF_FMT, (long long)head_of(CAT), "cf", "7");
    /* Below the floor: 410, with the floor and its instant as the commit's
     * reads found them. */
    int64_t floor_us = sqli("SELECT coalesce((extract(epoch FROM earliest_snapshot_time)"
                            " * 1000000)::bigint, -1) FROM hog_catalog WHERE name = '" CAT "'");
    sql_exec("UPDATE hog_catalog SET earliest_snapshot_id = %lld,"
             " earliest_snapshot_time = '2026-01-02T03:04:05Z' WHERE name = '" CAT "'",
             (long long)read + 1);
    commit_fails(410, "expired", "reached at 2026-01-02T03:04:05", CF_FMT, (long long)read, "cf",
                 "8");
    sql_exec("UPDATE hog_catalog SET earliest_snapshot_id = 0, earliest_snapshot_time ="
             " CASE WHEN %lld < 0 THEN NULL ELSE to_timestamp(%lld / 1e6) END"
             " WHERE name = '" CAT "'",
             (long long)floor_us, (long long)floor_us);
}

/* ---- receipts ---- */

static void receipts_make_commits_idempotent(void **state)
{
    (void)state;
    const char *key = "0b9f1a6e-5c7d-4e1b-9a2f-3c4d5e6f7a8b";
#define RC_FMT                                                                                     \
    "{'idempotency_key':'%s','appends':[{'namespace':'" NS "','table':'other','files':["           \
    "{'path':'" DATA "/rc/1.parquet','record_count':1,'file_size_bytes':10,'column_stats':["       \
    "{'field_id':1,'value_count':1,'null_count':0}]},"                                             \
    "{'path':'" DATA "/rc/2.parquet','record_count':2,'file_size_bytes':20}]}]}"
    struct http_result r;
    /* The prepared endpoint needs a key. */
    post(&r, "commit/prepared",
         "{'appends':[{'namespace':'" NS "','table':'other','files':[{'path':'" DATA
         "/rc/0.parquet','record_count':1,'file_size_bytes':1}]}]}");
    expect_error(&r, 422, "validation");
    http_result_free(&r);
    post(&r, "commit/prepared", RC_FMT, key);
    expect_status(&r, 200);
    int64_t snap = jint(r.json, "snapshot_id"), sv = jint(r.json, "schema_version");
    http_result_free(&r);
    int64_t h0 = head_of(CAT);
    /* The same request, files in another order and the key in capitals:
     * the same request by its canonical fingerprint. */
#define REORDERED_FMT                                                                              \
    "{'appends':[{'namespace':'" NS "','table':'other','files':["                                  \
    "{'path':'" DATA "/rc/2.parquet','record_count':2,'file_size_bytes':20},"                      \
    "{'path':'" DATA "/rc/1.parquet','record_count':1,'file_size_bytes':10,'column_stats':["       \
    "{'field_id':1,'value_count':1,'null_count':0}]}]}],'idempotency_key':'%s'}"
    post(&r, "commit", REORDERED_FMT, "0B9F1A6E-5C7D-4E1B-9A2F-3C4D5E6F7A8B");
    expect_status(&r, 200);
    assert_int_equal(jint(r.json, "snapshot_id"), snap);
    assert_int_equal(jint(r.json, "schema_version"), sv);
    http_result_free(&r);
    assert_int_equal(head_of(CAT), h0);
    assert_int_equal(
        sqli("SELECT count(*) FROM hog_data_file WHERE path = '" DATA "/rc/1.parquet'"), 1);
    /* The same key with another payload. */
    commit_fails(422, "validation", "different request",
                 "{'idempotency_key':'%s','appends':[{'namespace':'" NS "','table':'other',"
                 "'files':[{'path':'" DATA
                 "/rc/3.parquet','record_count':1,'file_size_bytes':1}]}]}",
                 key);
    /* The receipt endpoint. */
    json_t *rec = api_get_json(&srv, "/v1/catalogs/%s/commit/receipts/%s", CAT, key);
    assert_string_equal(jstr(rec, "operation_id"), key);
    assert_int_equal(jint(rec, "snapshot_id"), snap);
    json_decref(rec);
    api_get(&r, &srv, "/v1/catalogs/%s/commit/receipts/%s", CAT,
            "11111111-2222-3333-4444-555555555555");
    expect_error(&r, 404, "no_receipt");
    http_result_free(&r);
    api_get(&r, &srv, "/v1/catalogs/%s/commit/receipts/not-a-uuid", CAT);
    expect_error(&r, 400, "bad_request");
    http_result_free(&r);
    /* A replay answers before any other check, even after the table is
     * dropped. */
    make("ephemeral", "[{'name':'id','type':'long'}]");
    const char *k2 = "6a1f0d4c-3b2e-4f5a-8c7d-9e0f1a2b3c4d";
#define EB_FMT                                                                                     \
    "{'idempotency_key':'%s','appends':[{'namespace':'" NS "','table':'ephemeral',"                \
    "'files':[{'path':'" DATA "/rc/e.parquet','record_count':1,"                                   \
    "'file_size_bytes':1}]}]}"
    post(&r, "commit/prepared", EB_FMT, k2);
    expect_status(&r, 200);
    int64_t esnap = jint(r.json, "snapshot_id");
    http_result_free(&r);
    api_delete(&r, &srv, "/v1/catalogs/%s/namespaces/%s/tables/ephemeral", CAT, NS);
    expect_status(&r, 200);
    http_result_free(&r);
    post(&r, "commit/prepared", EB_FMT, k2);
    expect_status(&r, 200);
    assert_int_equal(jint(r.json, "snapshot_id"), esnap);
    http_result_free(&r);
}

/* ---- deletion vectors ---- */

static void deletion_vectors(void **state)
{
    (void)state;
    make("dv", "[{'name':'id','type':'long'}]");
    make("dv2", "[{'name':'id','type':'long'}]");
    commit_ok("{'appends':[{'namespace':'" NS "','table':'dv','files':[{'path':'" DATA
              "/dv/a.parquet','record_count':100,'file_size_bytes':1}]},{'namespace':'" NS
              "','table':'dv2','files':[{'path':'" DATA "/dv/b.parquet','record_count':10,"
              "'file_size_bytes':1}]}]}");
    int64_t a = file_id(DATA "/dv/a.parquet"), b = file_id(DATA "/dv/b.parquet");
    int64_t dvt = table_id_of(CAT, NS, "dv");
    int64_t read = head_of(CAT);
#define DEL_FMT                                                                                    \
    "{'read_snapshot':%lld,'deletes':[{'namespace':'" NS "','table':'%s','files':"                 \
    "[{'data_file_id':%lld,'path':'" DATA "/dv/%s.puffin','delete_count':%d,"                      \
    "'file_size_bytes':50}]}]}"
    commit_fails(422, "validation", "needs read_snapshot",
                 "{'deletes':[{'namespace':'" NS "','table':'dv','files':[{'data_file_id':%lld,"
                 "'path':'" DATA "/dv/x.puffin','delete_count':1,'file_size_bytes':1}]}]}",
                 (long long)a);
    commit_fails(422, "validation", "unknown data file", DEL_FMT, (long long)read, "dv",
                 (long long)99999, "x", 1);
    commit_fails(422, "validation", "does not belong", DEL_FMT, (long long)read, "dv", (long long)b,
                 "x", 1);
    commit_fails(422, "validation", "deletes 101 rows", DEL_FMT, (long long)read, "dv",
                 (long long)a, "x", 101);
    commit_fails(409, "commit_conflict", "added after read_snapshot", DEL_FMT, (long long)read - 1,
                 "dv", (long long)a, "x", 1);
    commit_fails(422, "validation", "must be positive", DEL_FMT, (long long)read, "dv",
                 (long long)a, "x", 0);
    int64_t s1 = commit_ok(DEL_FMT, (long long)read, "dv", (long long)a, "d1", 5);
    assert_int_equal(change_rows(CAT, s1, "table_deleted_from", dvt), 1);
    expect_sql("5|1",
               "SELECT delete_count || '|' || count(*) OVER () FROM hog_delete_file"
               " WHERE data_file_id = %lld AND end_snapshot IS NULL",
               (long long)a);
    /* A newer DV than the writer's read is a conflict; a smaller one is
     * refused; a larger one supersedes. */
    commit_fails(409, "commit_conflict", "new deletion vector", DEL_FMT, (long long)read, "dv",
                 (long long)a, "d2", 6);
    commit_fails(422, "validation", "fewer than", DEL_FMT, (long long)head_of(CAT), "dv",
                 (long long)a, "d2", 4);
    int64_t s2 = commit_ok(DEL_FMT, (long long)head_of(CAT), "dv", (long long)a, "d2", 8);
    expect_sql("8",
               "SELECT delete_count FROM hog_delete_file WHERE data_file_id = %lld"
               " AND end_snapshot IS NULL",
               (long long)a);
    assert_int_equal(
        sqli("SELECT end_snapshot FROM hog_delete_file WHERE path = '" DATA "/dv/d1.puffin'"), s2);
    /* Two DVs on one file in one commit must be merged by the client. */
    commit_fails(422, "validation", "merge them",
                 "{'read_snapshot':%lld,'deletes':[{'namespace':'" NS "','table':'dv','files':["
                 "{'data_file_id':%lld,'path':'" DATA "/dv/d3.puffin','delete_count':9,"
                 "'file_size_bytes':1},{'data_file_id':%lld,'path':'" DATA "/dv/d4.puffin',"
                 "'delete_count':9,'file_size_bytes':1}]}]}",
                 (long long)head_of(CAT), (long long)a, (long long)a);
    /* A retired target (as compaction retires files, which never conflicts
     * as DDL does): after the read is a conflict, before it a refusal. */
    int64_t r0 = head_of(CAT);
    sql_exec("UPDATE hog_catalog SET last_snapshot_id = last_snapshot_id + 1 WHERE name = '" CAT
             "'");
    sql_exec("INSERT INTO hog_snapshot (catalog_id, snapshot_id, schema_version) SELECT"
             " catalog_id, last_snapshot_id, schema_version FROM hog_catalog WHERE name = '" CAT
             "'");
    sql_exec("INSERT INTO hog_snapshot_change (catalog_id, snapshot_id, kind, object_id) VALUES"
             " (%lld, %lld, 'table_compacted', %lld)",
             (long long)cat_id(CAT), (long long)r0 + 1, (long long)table_id_of(CAT, NS, "dv2"));
    sql_exec("UPDATE hog_data_file SET end_snapshot = %lld WHERE data_file_id = %lld",
             (long long)r0 + 1, (long long)b);
    commit_fails(409, "commit_conflict", "retired at snapshot", DEL_FMT, (long long)r0, "dv2",
                 (long long)b, "x", 1);
    commit_fails(422, "validation", "already retired", DEL_FMT, (long long)head_of(CAT), "dv2",
                 (long long)b, "x", 1);
}

/* ---- the removal queue and the lock ---- */

static void queued_paths_are_refused(void **state)
{
    (void)state;
    sql_exec("INSERT INTO hog_file_removal (catalog_id, path, file_kind, reason) VALUES"
             " (%lld, '" DATA "/q/1.parquet', 'data', 'snapshot_expiry')",
             (long long)cat_id(CAT));
    commit_fails(409, "commit_conflict", "queued for removal",
                 "{'appends':[{'namespace':'" NS "','table':'other','files':[{'path':'" DATA
                 "/q/1.parquet','record_count':1,'file_size_bytes':1}]}]}");
    sql_exec("UPDATE hog_file_removal SET drained_at = now(), drained_outcome = 'deleted'"
             " WHERE path = '" DATA "/q/1.parquet'");
    commit_ok("{'appends':[{'namespace':'" NS "','table':'other','files':[{'path':'" DATA
              "/q/1.parquet','record_count':1,'file_size_bytes':1}]}]}");
}

static void lock_timeout_is_503(void **state)
{
    (void)state;
    struct test_server quick;
    const char *extra[] = {"--commit-lock-timeout-ms", "300", NULL};
    test_server_start(&quick, &db, extra);
    PGconn *holder = test_db_connect(&db);
    char sql[200];
    snprintf(sql, sizeof sql, "BEGIN; SELECT pg_advisory_xact_lock((4740871::bigint << 32) | %lld)",
             (long long)cat_id(CAT));
    PGresult *res = PQexec(holder, sql);
    PQclear(res);
    struct http_result r;
    char *b = dq("{'appends':[{'namespace':'" NS "','table':'other','files':[{'path':'" DATA
                 "/lk/1.parquet','record_count':1,'file_size_bytes':1}]}]}");
    api_send_text(&r, &quick, "POST", b, "/v1/catalogs/%s/commit", CAT);
    free(b);
    expect_error(&r, 503, "commit_queue_timeout");
    assert_string_equal(r.retry_after, "1");
    http_result_free(&r);
    res = PQexec(holder, "ROLLBACK");
    PQclear(res);
    PQfinish(holder);
    test_server_stop(&quick);
}

/* The optimistic reads run under the commit's settings, its lock budget
 * among them: a table they read, held past it, times the commit out (503,
 * nothing written) within the budget's order, where the reads waited for
 * the statement timeout (60 s); once the table is free, the next commit
 * on the same server goes through. */
static void blocked_reads_are_503(void **state)
{
    (void)state;
    struct test_server quick;
    const char *extra[] = {"--commit-lock-timeout-ms", "300", NULL};
    test_server_start(&quick, &db, extra);
    int64_t h0 = head_of(CAT);
    PGconn *holder = test_db_connect(&db);
    PQclear(PQexec(holder, "BEGIN; LOCK TABLE hog_table_stats IN ACCESS EXCLUSIVE MODE"));
    struct http_result r;
    char *b = dq("{'appends':[{'namespace':'" NS "','table':'other','files':[{'path':'" DATA
                 "/rb/1.parquet','record_count':1,'file_size_bytes':1}]}]}");
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    api_send_text(&r, &quick, "POST", b, "/v1/catalogs/%s/commit", CAT);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    PQclear(PQexec(holder, "ROLLBACK")); /* before any assertion: a failed one returns */
    /* Two waits of 300 ms (the reads, then the locked path's); far below
     * the statement timeout whatever the machine's load. */
    assert_true(t1.tv_sec - t0.tv_sec < 20);
    PQfinish(holder);
    expect_error(&r, 503, "commit_queue_timeout");
    http_result_free(&r);
    assert_int_equal(head_of(CAT), h0);
    api_send_text(&r, &quick, "POST", b, "/v1/catalogs/%s/commit", CAT);
    free(b);
    expect_status(&r, 200);
    assert_int_equal(jint(r.json, "snapshot_id"), h0 + 1);
    http_result_free(&r);
    test_server_stop(&quick);
}

/* ---- checks made before the lock, verified under it ---- */

struct racer {
    const char *body;
    struct http_result r;
    pthread_t t;
};

static void *send_racer(void *arg)
{
    struct racer *h = arg;
    char *b = dq(h->body);
    api_send_text(&h->r, &srv, "POST", b, "/v1/catalogs/%s/commit", CAT);
    free(b);
    return NULL;
}

/* Sends `body` while the test holds the catalog lock; once the commit has
 * read, validated and queued behind the lock, runs `interfere` (SQL, in
 * the lock holder's transaction) and releases the lock. */
static void commit_across(const char *body, const char *interfere, struct http_result *out)
{
    PGconn *holder = test_db_connect(&db);
    char sql[200];
    snprintf(sql, sizeof sql, "BEGIN; SELECT pg_advisory_xact_lock((4740871::bigint << 32) | %lld)",
             (long long)cat_id(CAT));
    PQclear(PQexec(holder, sql));
    struct racer h = {.body = body};
    assert_int_equal(pthread_create(&h.t, NULL, send_racer, &h), 0);
    /* Until the commit waits for the lock (it read and validated first). */
    for (int i = 0; i < 500 && sqli(WAITING_FOR_ADVISORY_LOCK) == 0; i++)
        sleep_ms(10);
    assert_int_equal(sqli(WAITING_FOR_ADVISORY_LOCK), 1);
    PGresult *res = PQexec(holder, interfere);
    if (PQresultStatus(res) != PGRES_COMMAND_OK && PQresultStatus(res) != PGRES_TUPLES_OK)
        fail_msg("interference failed: %s", PQerrorMessage(holder));
    PQclear(res);
    PQclear(PQexec(holder, "COMMIT"));
    PQfinish(holder);
    pthread_join(h.t, NULL);
    *out = h.r;
}

/* A one-file append to 'other' at read_snapshot rs, path <DATA>/ck/<n>. */
static void ck_body(char *out, size_t size, int64_t rs, int n)
{
    snprintf(out, size,
             "{'read_snapshot':%lld,'appends':[{'namespace':'" NS "','table':'other','files':["
             "{'path':'" DATA "/ck/%d.parquet','record_count':1,'file_size_bytes':1}]}]}",
             (long long)rs, n);
}

static void checks_before_the_lock_are_verified_under_it(void **state)
{
    (void)state;
    const char *revalidated = "hoglake_commit_revalidations_total ";
    /* An undisturbed append commits on what it read before the lock. */
    int64_t before = metric(revalidated);
    int64_t rs = head_of(CAT);
    commit_ok("{'read_snapshot':%lld,'appends':[{'namespace':'" NS "','table':'other','files':["
              "{'path':'" DATA "/ck/0.parquet','record_count':3,'file_size_bytes':1}]}]}",
              (long long)rs);
    assert_int_equal(metric(revalidated), before);

    char body[1024], sql[1024];
    struct http_result r;
    int64_t id = cat_id(CAT);
    int64_t files0 = sqli("SELECT count(*) FROM hog_data_file");

    /* The path is queued for removal while the commit waits. */
    rs = head_of(CAT);
    ck_body(body, sizeof body, rs, 1);
    snprintf(
        sql, sizeof sql,
        "INSERT INTO hog_file_removal (catalog_id, path, file_kind, reason) VALUES (%lld, '" DATA
        "/ck/1.parquet', 'data', 'snapshot_expiry')",
        (long long)id);
    commit_across(body, sql, &r);
    expect_error(&r, 409, "commit_conflict");
    expect_detail_contains(&r, "queued for removal");
    http_result_free(&r);
    assert_int_equal(metric(revalidated), before + 1);

    /* The table is altered (the rows a DDL writes) while the commit waits. */
    snprintf(sql, sizeof sql,
             "INSERT INTO hog_snapshot (catalog_id, snapshot_id, snapshot_time, schema_version)"
             " SELECT catalog_id, last_snapshot_id + 1, clock_timestamp(), schema_version + 1"
             " FROM hog_catalog WHERE catalog_id = %lld;"
             " INSERT INTO hog_snapshot_change (catalog_id, snapshot_id, kind, object_id)"
             " SELECT c.catalog_id, c.last_snapshot_id + 1, 'table_altered', t.table_id"
             " FROM hog_catalog c JOIN hog_table_version t ON t.catalog_id = c.catalog_id"
             " WHERE c.catalog_id = %lld AND t.name = 'other' AND t.end_snapshot IS NULL;"
             " UPDATE hog_catalog SET last_snapshot_id = last_snapshot_id + 1,"
             " schema_version = schema_version + 1 WHERE catalog_id = %lld",
             (long long)id, (long long)id, (long long)id);
    ck_body(body, sizeof body, rs, 2);
    commit_across(body, sql, &r);
    expect_error(&r, 409, "ddl_since_read_snapshot");
    http_result_free(&r);
    assert_int_equal(metric(revalidated), before + 2);

    /* Expiry raises the floor above read_snapshot while the commit waits. */
    rs = head_of(CAT) - 1;
    int64_t floor0 =
        sqli("SELECT earliest_snapshot_id FROM hog_catalog WHERE catalog_id = %lld", (long long)id);
    snprintf(sql, sizeof sql,
             "UPDATE hog_catalog SET earliest_snapshot_id = %lld WHERE catalog_id = %lld",
             (long long)rs + 1, (long long)id);
    ck_body(body, sizeof body, rs, 3);
    commit_across(body, sql, &r);
    expect_error(&r, 410, "expired");
    http_result_free(&r);
    assert_int_equal(metric(revalidated), before + 3);
    sql_exec("UPDATE hog_catalog SET earliest_snapshot_id = %lld WHERE catalog_id = %lld",
             (long long)floor0, (long long)id);

    /* The same key commits elsewhere while the commit waits: it replays. */
    rs = head_of(CAT);
    snprintf(body, sizeof body,
             "{'idempotency_key':'5d1c7e0a-1111-4c2b-9d3e-7f8a9b0c1d2e','read_snapshot':%lld,"
             "'appends':[{'namespace':'" NS "','table':'other','files':["
             "{'path':'" DATA "/ck/4.parquet','record_count':1,'file_size_bytes':1}]}]}",
             (long long)rs);
    int64_t first = commit_ok("%s", body);
    sql_exec("DELETE FROM hog_commit_receipt WHERE catalog_id = %lld", (long long)id);
    snprintf(sql, sizeof sql,
             "INSERT INTO hog_commit_receipt (catalog_id, idempotency_key, fingerprint,"
             " snapshot_id, schema_version) SELECT %lld, '5d1c7e0a-1111-4c2b-9d3e-7f8a9b0c1d2e',"
             " '\\xc1'::bytea || sha256('x'), %lld, 0",
             (long long)id, (long long)first);
    /* (A receipt with another fingerprint: the key was used for another
     * request, which the pre-lock read could not know.) */
    commit_across(body, sql, &r);
    expect_error(&r, 422, "validation");
    expect_detail_contains(&r, "already used with a different request");
    http_result_free(&r);
    assert_int_equal(metric(revalidated), before + 4);

    /* None of the refused commits wrote a file. */
    assert_int_equal(sqli("SELECT count(*) FROM hog_data_file"), files0 + 1);
}

/* A row-id or byte counter that would pass int64 refuses the commit and
 * writes nothing, whether it was there when the commit read the table or
 * got there while the commit waited for the lock. */
static void counter_overflow_is_refused(void **state)
{
    (void)state;
    long long id = (long long)cat_id(CAT);
    long long tid = (long long)sqli("SELECT table_id FROM hog_table_version WHERE catalog_id = %lld"
                                    " AND name = 'other' AND end_snapshot IS NULL",
                                    id);
#define STATS_WHERE "WHERE catalog_id = %lld AND table_id = %lld"
    long long next =
        (long long)sqli("SELECT next_row_id FROM hog_table_stats " STATS_WHERE, id, tid);
    long long bytes =
        (long long)sqli("SELECT file_size_bytes FROM hog_table_stats " STATS_WHERE, id, tid);
    sql_exec("UPDATE hog_table_stats SET next_row_id = 9223372036854775800 " STATS_WHERE, id, tid);
    commit_fails(422, "validation", "would overflow",
                 "{'appends':[{'namespace':'" NS "','table':'other','files':[{'path':'" DATA
                 "/ov/1.parquet','record_count':10,'file_size_bytes':1}]}]}");
    sql_exec("UPDATE hog_table_stats SET next_row_id = %lld " STATS_WHERE, next, id, tid);
    sql_exec("UPDATE hog_table_stats SET file_size_bytes = 9223372036854775800 " STATS_WHERE, id,
             tid);
    commit_fails(422, "validation", "would overflow",
                 "{'appends':[{'namespace':'" NS "','table':'other','files':[{'path':'" DATA
                 "/ov/2.parquet','record_count':1,'file_size_bytes':10}]}]}");
    sql_exec("UPDATE hog_table_stats SET file_size_bytes = %lld " STATS_WHERE, bytes, id, tid);
    /* Moved there while the commit waited for the lock: the statement that
     * advances the allocator refuses it, and the locked path answers. */
    char sql[512], body[512];
    int64_t h0 = head_of(CAT);
    snprintf(sql, sizeof sql,
             "UPDATE hog_table_stats SET next_row_id = 9223372036854775800 " STATS_WHERE, id, tid);
    snprintf(body, sizeof body,
             "{'read_snapshot':%lld,'appends':[{'namespace':'" NS "','table':'other','files':["
             "{'path':'" DATA "/ov/3.parquet','record_count':10,'file_size_bytes':1}]}]}",
             (long long)h0);
    struct http_result r;
    commit_across(body, sql, &r);
    expect_error(&r, 422, "validation");
    expect_detail_contains(&r, "would overflow");
    http_result_free(&r);
    assert_int_equal(head_of(CAT), h0);
    sql_exec("UPDATE hog_table_stats SET next_row_id = %lld " STATS_WHERE, next, id, tid);
#undef STATS_WHERE
}

/* ---- the catalog's identity ---- */

/* A commit names its catalog; its id and data path (which never change
 * for an id) are kept in the process between commits. A row deleted by
 * hand and a catalog made again under the name, with another data path,
 * must not be mistaken for the old one: a commit is checked against the
 * new path and lands in the new catalog, and a commit to a catalog no
 * longer there is a 404. */
static void one_file_body(char *b, size_t size, const char *data_path, int k)
{
    snprintf(b, size,
             "{'appends':[{'namespace':'n','table':'t','files':[{'path':'%s/t/f%d.parquet',"
             "'record_count':1,'file_size_bytes':100,'footer_size':10}]}]}",
             data_path, k);
}

/* Catalog "again" at data_path, with table n.t. */
static void make_again(const char *data_path)
{
    make_catalog_at(&srv, "again", data_path);
    make_namespace(&srv, "again", "n");
    json_decref(make_table(&srv, "again", "n", "t", "[{\"name\":\"id\",\"type\":\"long\"}]"));
}

static void a_catalog_made_again_is_found_again(void **state)
{
    (void)state;
    char b[512];
    make_again("s3://hoglake-test/again");
    one_file_body(b, sizeof b, "s3://hoglake-test/again", 1);
    assert_true(api_commit(&srv, "again", b) > 0);

    sql_exec("DELETE FROM hog_catalog WHERE name = 'again'");
    make_again("s3://hoglake-test/elsewhere");
    int64_t h0 = head_of("again");
    /* Under the old catalog's path: refused against the new one's. */
    one_file_body(b, sizeof b, "s3://hoglake-test/again", 2);
    assert_int_equal(api_commit_status(&srv, "again", b), -422);
    one_file_body(b, sizeof b, "s3://hoglake-test/elsewhere", 3);
    assert_int_equal(api_commit(&srv, "again", b), h0 + 1);
    assert_int_equal(sqli("SELECT count(*) FROM hog_data_file f JOIN hog_catalog c"
                          " USING (catalog_id) WHERE c.name = 'again'"),
                     1);

    /* Renamed by hand, and the name taken by a third catalog: a path the
     * renamed one would take is refused, and nothing lands in it. */
    sql_exec("UPDATE hog_catalog SET name = 'renamed' WHERE name = 'again'");
    make_again("s3://hoglake-test/third");
    one_file_body(b, sizeof b, "s3://hoglake-test/elsewhere", 4);
    assert_int_equal(api_commit_status(&srv, "again", b), -422);
    assert_int_equal(sqli("SELECT count(*) FROM hog_data_file f JOIN hog_catalog c"
                          " USING (catalog_id) WHERE c.name = 'renamed'"),
                     1);
    one_file_body(b, sizeof b, "s3://hoglake-test/third", 5);
    int64_t third = api_commit(&srv, "again", b);
    assert_int_equal(third, head_of("again"));

    sql_exec("DELETE FROM hog_catalog WHERE name IN ('again', 'renamed')");
    one_file_body(b, sizeof b, "s3://hoglake-test/third", 6);
    assert_int_equal(api_commit_status(&srv, "again", b), -404);
}

/* ---- group commit ---- */

/* Commits that wait for the lock together commit as one group, each with
 * its own snapshot; one whose check fails inside the group (its path was
 * queued for removal, or another member registered it first) is taken out,
 * the rest commit, and it gets the locked path's answer. */
static void waiting_commits_commit_as_a_group(void **state)
{
    (void)state;
    int64_t groups0 = metric("hoglake_commit_groups_total ");
    int64_t merged0 = metric("hoglake_commit_groups_merged_total ");
    int64_t revalidated0 = metric("hoglake_commit_revalidations_total ");
    long long id = (long long)cat_id(CAT);
    PGconn *holder = test_db_connect(&db);
    char sql[512];
    snprintf(sql, sizeof sql, "BEGIN; SELECT pg_advisory_xact_lock((4740871::bigint << 32) | %lld)",
             id);
    PQclear(PQexec(holder, sql));
    int64_t h0 = head_of(CAT);
    char bodies[4][512];
    ck_body(bodies[0], sizeof bodies[0], h0, 100); /* leads, alone */
    ck_body(bodies[1], sizeof bodies[1], h0, 101);
    ck_body(bodies[2], sizeof bodies[2], h0, 102); /* its path gets queued for removal */
    ck_body(bodies[3], sizeof bodies[3], h0, 101); /* the same path as [1] */
    struct racer racers[4];
    for (int i = 0; i < 4; i++) {
        racers[i] = (struct racer){.body = bodies[i]};
        assert_int_equal(pthread_create(&racers[i].t, NULL, send_racer, &racers[i]), 0);
        /* The first leads and waits for the lock; the others queue. */
        for (int k = 0; k < 500 && metric("hoglake_commit_group_queued ") < i + 1; k++)
            sleep_ms(10);
        assert_int_equal(metric("hoglake_commit_group_queued "), i + 1);
    }
    snprintf(
        sql, sizeof sql,
        "INSERT INTO hog_file_removal (catalog_id, path, file_kind, reason) VALUES (%lld, '" DATA
        "/ck/102.parquet', 'data', 'snapshot_expiry'); COMMIT",
        id);
    PQclear(PQexec(holder, sql));
    PQfinish(holder);
    for (int i = 0; i < 4; i++)
        pthread_join(racers[i].t, NULL);
    expect_status(&racers[0].r, 200);
    expect_error(&racers[2].r, 409, "commit_conflict");
    expect_detail_contains(&racers[2].r, "queued for removal");
    /* Whichever of [1] and [3] went first commits; the other is refused. */
    int winner = racers[1].r.status == 200 ? 1 : 3;
    expect_status(&racers[winner].r, 200);
    expect_error(&racers[4 - winner].r, 422, "validation");
    expect_detail_contains(&racers[4 - winner].r, "already registered");
    assert_int_equal(jint(racers[0].r.json, "snapshot_id"), h0 + 1);
    assert_int_equal(jint(racers[winner].r.json, "snapshot_id"), h0 + 2);
    assert_int_equal(head_of(CAT), h0 + 2);
    /* The leader's own transaction, and either the group that kept the
     * winner, or none: the loser's fallback can beat the group to the
     * lock, and then the winner's check fails too and it commits on the
     * locked path. Each of the three either commits in a group or is
     * revalidated. */
    int64_t groups = metric("hoglake_commit_groups_total ") - groups0;
    int64_t revalidated = metric("hoglake_commit_revalidations_total ") - revalidated0;
    assert_true(groups == 1 || groups == 2);
    assert_int_equal(groups + revalidated, 4);
    /* Two entries with one path: no round of these went merged. */
    assert_int_equal(metric("hoglake_commit_groups_merged_total "), merged0);
    assert_int_equal(metric("hoglake_commit_group_queued "), 0);
    for (int i = 0; i < 4; i++)
        http_result_free(&racers[i].r);

    /* Three valid commits queued behind a leader: one transaction for the
     * three, with consecutive snapshots. Each of the two rounds is timed
     * from its batch's sending to its COMMIT's answer, the leader's while
     * the test holds the lock for at least 300 ms. */
    groups0 = metric("hoglake_commit_groups_total ");
    int64_t rounds0 = metric("hoglake_commit_round_seconds_count ");
    double round_time0 = metric_value("hoglake_commit_round_seconds_sum ");
    holder = test_db_connect(&db);
    snprintf(sql, sizeof sql, "BEGIN; SELECT pg_advisory_xact_lock((4740871::bigint << 32) | %lld)",
             id);
    PQclear(PQexec(holder, sql));
    h0 = head_of(CAT);
    for (int i = 0; i < 4; i++) {
        ck_body(bodies[i], sizeof bodies[i], h0, 110 + i);
        racers[i] = (struct racer){.body = bodies[i]};
        assert_int_equal(pthread_create(&racers[i].t, NULL, send_racer, &racers[i]), 0);
        for (int k = 0; k < 500 && metric("hoglake_commit_group_queued ") < i + 1; k++)
            sleep_ms(10);
    }
    /* The leader's round is sent: its lock request waits in PostgreSQL. */
    for (int k = 0; k < 500 && sqli(WAITING_FOR_ADVISORY_LOCK) < 1; k++)
        sleep_ms(10);
    sleep_ms(300);
    PQclear(PQexec(holder, "COMMIT"));
    PQfinish(holder);
    bool seen[5] = {false};
    for (int i = 0; i < 4; i++) {
        pthread_join(racers[i].t, NULL);
        expect_status(&racers[i].r, 200);
        int64_t snap = jint(racers[i].r.json, "snapshot_id") - h0;
        assert_true(snap >= 1 && snap <= 4 && !seen[snap]);
        seen[snap] = true;
        http_result_free(&racers[i].r);
    }
    assert_int_equal(head_of(CAT), h0 + 4);
    assert_int_equal(metric("hoglake_commit_groups_total "), groups0 + 2);
    assert_int_equal(metric("hoglake_commit_groups_merged_total "), merged0 + 1);
    assert_int_equal(metric("hoglake_commit_round_seconds_count "), rounds0 + 2);
    assert_true(metric_value("hoglake_commit_round_seconds_sum ") - round_time0 >= 0.3);
}

/* Queues `bodies` behind a commit the test holds the catalog lock
 * against (the first racer leads alone and waits for the lock; the others
 * queue behind it), runs `meanwhile` (SQL, or NULL) in the lock's
 * transaction, releases the lock and joins them all. */
static void queue_behind_lock(const char *const *bodies, struct racer *racers, int n,
                              const char *meanwhile)
{
    PGconn *holder = test_db_connect(&db);
    char sql[160];
    snprintf(sql, sizeof sql, "BEGIN; SELECT pg_advisory_xact_lock((4740871::bigint << 32) | %lld)",
             (long long)cat_id(CAT));
    PQclear(PQexec(holder, sql));
    int64_t queued0 = metric("hoglake_commit_group_queued ");
    for (int i = 0; i < n; i++) {
        racers[i] = (struct racer){.body = bodies[i]};
        assert_int_equal(pthread_create(&racers[i].t, NULL, send_racer, &racers[i]), 0);
        for (int k = 0; k < 500 && metric("hoglake_commit_group_queued ") < queued0 + i + 1; k++)
            sleep_ms(10);
        assert_int_equal(metric("hoglake_commit_group_queued "), queued0 + i + 1);
    }
    if (meanwhile)
        PQclear(PQexec(holder, meanwhile));
    PQclear(PQexec(holder, "COMMIT"));
    PQfinish(holder);
    for (int i = 0; i < n; i++)
        pthread_join(racers[i].t, NULL);
}

/* Appends queued together go as one set of writes, each commit still its
 * own snapshot (in queue order), files, row ids, totals and receipt, as if
 * they had committed one by one. (A group where two commits share a path
 * goes entry by entry: waiting_commits_commit_as_a_group.) */
static void a_group_writes_its_commits_as_one(void **state)
{
    (void)state;
    long long id = (long long)cat_id(CAT);
    long long other = (long long)table_id_of(CAT, NS, "other"),
              events = (long long)table_id_of(CAT, NS, "events");
#define STATS_OF(t, col)                                                                           \
    sqli("SELECT " col " FROM hog_table_stats WHERE catalog_id = %lld AND table_id = %lld", id, t)
#define LIVE_OF(t, col)                                                                            \
    sqli("SELECT " col " FROM hog_table_live_totals WHERE catalog_id = %lld AND table_id = %lld",  \
         id, t)
    int64_t next_other = STATS_OF(other, "next_row_id"),
            next_events = STATS_OF(events, "next_row_id");
    int64_t live_other = LIVE_OF(other, "record_count"),
            snaps_other = LIVE_OF(other, "snapshot_count");
    int64_t snaps_events = LIVE_OF(events, "snapshot_count");
    int64_t merged0 = metric("hoglake_commit_groups_merged_total ");
    int64_t h0 = head_of(CAT);
    const char *bodies[] = {
        /* leads alone */
        "{'appends':[{'namespace':'" NS "','table':'other','files':["
        "{'path':'" DATA "/mg/0.parquet','record_count':1,'file_size_bytes':1}]}]}",
        /* then these four, one group */
        "{'author':'a1','message':'m1','idempotency_key':'6a1c7e0a-1111-4c2b-9d3e-7f8a9b0c1d21',"
        "'appends':[{'namespace':'" NS "','table':'other','files':["
        "{'path':'" DATA "/mg/1a.parquet','record_count':5,'file_size_bytes':10},"
        "{'path':'" DATA "/mg/1b.parquet','record_count':7,'file_size_bytes':20}]}]}",
        "{'appends':[{'namespace':'" NS "','table':'events','files':["
        "{'path':'" DATA "/mg/2a.parquet','record_count':3,'file_size_bytes':30}]},"
        "{'namespace':'" NS "','table':'other','files':["
        "{'path':'" DATA "/mg/2b.parquet','record_count':11,'file_size_bytes':40}]}]}",
        "{'author':'a3','idempotency_key':'6a1c7e0a-1111-4c2b-9d3e-7f8a9b0c1d23',"
        "'appends':[{'namespace':'" NS "','table':'other','files':["
        "{'path':'" DATA "/mg/3.parquet','record_count':2,'file_size_bytes':50}]}]}",
        "{'message':'m4','appends':[{'namespace':'" NS "','table':'events','files':["
        "{'path':'" DATA "/mg/4.parquet','record_count':4,'file_size_bytes':60}]}]}",
    };
    struct racer racers[5];
    queue_behind_lock(bodies, racers, 5, NULL);
    for (int i = 0; i < 5; i++) {
        expect_status(&racers[i].r, 200);
        /* In queue order: the leader first, then the group's entries. */
        assert_int_equal(jint(racers[i].r.json, "snapshot_id"), h0 + 1 + i);
    }
    assert_int_equal(metric("hoglake_commit_groups_merged_total "), merged0 + 1);
    assert_int_equal(head_of(CAT), h0 + 5);
    /* Each file at its commit's snapshot, with its commit's ids and rows:
     * a table's ranges follow one another in commit order. */
    const struct {
        const char *path;
        int snap;
        const long long *table;
        int64_t rows_before; /* the table's rows before it, from this test's */
    } files[] = {
        {DATA "/mg/0.parquet", 1, &other, 0},   {DATA "/mg/1a.parquet", 2, &other, 1},
        {DATA "/mg/1b.parquet", 2, &other, 6},  {DATA "/mg/2a.parquet", 3, &events, 0},
        {DATA "/mg/2b.parquet", 3, &other, 13}, {DATA "/mg/3.parquet", 4, &other, 24},
        {DATA "/mg/4.parquet", 5, &events, 3},
    };
    int64_t last_id = 0;
    for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
        int64_t fid = file_id(files[k].path);
        assert_true(fid > last_id); /* ids in commit and file order */
        last_id = fid;
        expect_sql("ok",
                   "SELECT CASE WHEN begin_snapshot = %lld AND table_id = %lld"
                   " AND row_id_start = %lld THEN 'ok' ELSE begin_snapshot || '/' || table_id"
                   " || '/' || row_id_start END FROM hog_data_file WHERE data_file_id = %lld",
                   (long long)(h0 + files[k].snap), *files[k].table,
                   (long long)((*files[k].table == other ? next_other : next_events) +
                               files[k].rows_before),
                   (long long)fid);
    }
    assert_int_equal(STATS_OF(other, "next_row_id"), next_other + 26);
    assert_int_equal(STATS_OF(events, "next_row_id"), next_events + 7);
    assert_int_equal(LIVE_OF(other, "record_count"), live_other + 26);
    assert_int_equal(LIVE_OF(other, "snapshot_count"), snaps_other + 4);
    assert_int_equal(LIVE_OF(other, "changed_snapshot"), h0 + 4);
    assert_int_equal(LIVE_OF(events, "snapshot_count"), snaps_events + 2);
    assert_int_equal(LIVE_OF(events, "changed_snapshot"), h0 + 5);
    /* Each snapshot its own author, message and change rows. */
    expect_sql("a1|m1,|,a3|,|m4",
               "SELECT string_agg(coalesce(author, '') || '|' || coalesce(commit_message, ''), ','"
               " ORDER BY snapshot_id) FROM hog_snapshot WHERE catalog_id = %lld"
               " AND snapshot_id BETWEEN %lld AND %lld",
               id, (long long)(h0 + 2), (long long)(h0 + 5));
    assert_int_equal(change_rows(CAT, h0 + 3, "table_inserted_into", events), 1);
    assert_int_equal(change_rows(CAT, h0 + 3, "table_inserted_into", other), 1);
    assert_int_equal(change_rows(CAT, h0 + 3, NULL, 0), 2);
    assert_int_equal(change_rows(CAT, h0 + 5, NULL, 0), 1);
    /* Each key's receipt names its commit: sent again, each replays it. */
    for (int i = 1; i <= 3; i += 2) {
        struct http_result r;
        char *b = dq(bodies[i]);
        api_send_text(&r, &srv, "POST", b, "/v1/catalogs/%s/commit", CAT);
        free(b);
        expect_status(&r, 200);
        assert_int_equal(jint(r.json, "snapshot_id"), h0 + 1 + i);
        http_result_free(&r);
    }
    assert_int_equal(head_of(CAT), h0 + 5);
    for (int i = 0; i < 5; i++)
        http_result_free(&racers[i].r);

    /* An entry whose check fails (its path was queued for removal while it
     * waited) leaves the merged round; the others commit merged, and it
     * gets the locked path's answer. */
    merged0 = metric("hoglake_commit_groups_merged_total ");
    h0 = head_of(CAT);
    const char *more[] = {
        "{'appends':[{'namespace':'" NS "','table':'other','files':["
        "{'path':'" DATA "/mg/5.parquet','record_count':1,'file_size_bytes':1}]}]}",
        "{'appends':[{'namespace':'" NS "','table':'other','files':["
        "{'path':'" DATA "/mg/6.parquet','record_count':1,'file_size_bytes':1}]}]}",
        "{'appends':[{'namespace':'" NS "','table':'other','files':["
        "{'path':'" DATA "/mg/7.parquet','record_count':1,'file_size_bytes':1}]}]}",
        "{'appends':[{'namespace':'" NS "','table':'other','files':["
        "{'path':'" DATA "/mg/8.parquet','record_count':1,'file_size_bytes':1}]}]}",
    };
    char removal[256];
    snprintf(
        removal, sizeof removal,
        "INSERT INTO hog_file_removal (catalog_id, path, file_kind, reason) VALUES (%lld, '" DATA
        "/mg/7.parquet', 'data', 'snapshot_expiry')",
        id);
    queue_behind_lock(more, racers, 4, removal);
    expect_error(&racers[2].r, 409, "commit_conflict");
    expect_detail_contains(&racers[2].r, "queued for removal");
    assert_int_equal(jint(racers[0].r.json, "snapshot_id"), h0 + 1);
    assert_int_equal(jint(racers[1].r.json, "snapshot_id"), h0 + 2);
    assert_int_equal(jint(racers[3].r.json, "snapshot_id"), h0 + 3);
    assert_int_equal(head_of(CAT), h0 + 3);
    assert_int_equal(metric("hoglake_commit_groups_merged_total "), merged0 + 1);
    for (int i = 0; i < 4; i++)
        http_result_free(&racers[i].r);

    /* Merged writes that fail have no one owner: the round goes entry by
     * entry. Here the table's row ids have room for one of two 10-record
     * commits, not both: one commits, the other is refused (which one is
     * a race: the second's fallback to the locked path may take the lock
     * before the first's next round). */
    merged0 = metric("hoglake_commit_groups_merged_total ");
    h0 = head_of(CAT);
    int64_t next = STATS_OF(other, "next_row_id");
    const char *full[] = {
        "{'appends':[{'namespace':'" NS "','table':'other','files':["
        "{'path':'" DATA "/mg/9.parquet','record_count':1,'file_size_bytes':1}]}]}",
        "{'appends':[{'namespace':'" NS "','table':'other','files':["
        "{'path':'" DATA "/mg/10.parquet','record_count':10,'file_size_bytes':1}]}]}",
        "{'appends':[{'namespace':'" NS "','table':'other','files':["
        "{'path':'" DATA "/mg/11.parquet','record_count':10,'file_size_bytes':1}]}]}",
    };
    char room[256];
    snprintf(room, sizeof room,
             "UPDATE hog_table_stats SET next_row_id = 9223372036854775807 - 15"
             " WHERE catalog_id = %lld AND table_id = %lld",
             id, other);
    queue_behind_lock(full, racers, 3, room);
    expect_status(&racers[0].r, 200);
    int won = racers[1].r.status == 200 ? 1 : 2;
    expect_status(&racers[won].r, 200);
    expect_error(&racers[3 - won].r, 422, "validation");
    expect_detail_contains(&racers[3 - won].r, "would overflow");
    assert_int_equal(head_of(CAT), h0 + 2);
    assert_int_equal(metric("hoglake_commit_groups_merged_total "), merged0);
    sql_exec("UPDATE hog_table_stats SET next_row_id = %lld WHERE catalog_id = %lld"
             " AND table_id = %lld",
             (long long)(next + 11), id, other);
    for (int i = 0; i < 3; i++)
        http_result_free(&racers[i].r);
#undef STATS_OF
#undef LIVE_OF
}

/* Runs `sql` on an admin connection to the test database's cluster, then
 * ends the server's sessions so its pool reconnects under the database's
 * settings. */
static void reconnect_server_with(const char *sql)
{
    sql_exec("%s", sql);
    sql_exec("SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity"
             " WHERE datname = current_database() AND pid <> pg_backend_pid()");
    /* A pooled connection whose end has not reached the server yet answers
     * 503 (retry) once; the pool then reconnects. */
    long status = 0;
    for (int i = 0; i < 50 && status != 200; i++) {
        struct http_result r;
        api_get(&r, &srv, "/v1/catalogs/%s/namespaces/%s/tables/events", CAT, NS);
        status = r.status;
        http_result_free(&r);
        if (status != 200)
            sleep_ms(20);
    }
    assert_int_equal(status, 200);
}

/* A commit's probes of a table's change rows stay probes however many
 * commits the table took. With `kind IN (...)`, the generic plan a pooled
 * connection settles on walked every change row of the table (3.5 ms a
 * commit after 60,000 commits into one table: bench/scale). 20,000 change
 * rows written in SQL, the server's sessions made to plan generically,
 * then pg_stat_statements counts the buffers each statement touched: 64
 * a table lookup (its joins, and the plan's own reads) against 415 when
 * it walked the 20,000 rows. */
static void change_probes_ignore_history(void **state)
{
    (void)state;
    enum { HISTORY = 20000 };
    make("long_history", "[{'name':'id','type':'long'}]");
    int64_t cat = cat_id(CAT), tid = table_id_of(CAT, NS, "long_history"), h0 = head_of(CAT);
    sql_exec("INSERT INTO hog_snapshot (catalog_id, snapshot_id, snapshot_time, schema_version)"
             " SELECT c.catalog_id, c.last_snapshot_id + g,"
             "  now() - interval '1 hour' + g * interval '1 ms', c.schema_version"
             " FROM hog_catalog c, generate_series(1, %d) g WHERE c.catalog_id = %lld",
             HISTORY, (long long)cat);
    /* The table's appends, and as many objects again, each named once:
     * the statistics of a catalog of many tables (few rows per object),
     * under which the generic plan filtered the kinds. */
    sql_exec("INSERT INTO hog_snapshot_change (catalog_id, snapshot_id, kind, object_id)"
             " SELECT %lld, %lld + g, 'table_inserted_into', %lld FROM generate_series(1, %d) g"
             " UNION ALL SELECT %lld, %lld + g, 'view_created', 1000000000 + g"
             " FROM generate_series(1, %d) g",
             (long long)cat, (long long)h0, (long long)tid, HISTORY, (long long)cat, (long long)h0,
             HISTORY);
    sql_exec("UPDATE hog_catalog SET last_snapshot_id = last_snapshot_id + %d"
             " WHERE catalog_id = %lld",
             HISTORY, (long long)cat);
    sql_exec("ANALYZE hog_snapshot_change");
    sql_exec("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
    reconnect_server_with("DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET plan_cache_mode"
                          " = force_generic_plan', current_database()); END $$");
    /* New sessions: their first commits also read the system catalogs. */
    for (int i = 0; i < 6; i++) {
        if (i == 3)
            sql_exec("SELECT pg_stat_statements_reset()");
        commit_ok("{'read_snapshot':%lld,'appends':[{'namespace':'" NS "','table':'long_history',"
                  "'files':[{'path':'" DATA "/lh/%d.parquet','record_count':1,"
                  "'file_size_bytes':10}]}]}",
                  (long long)h0, i);
    }
    expect_sql("t", "SELECT bool_and(shared_blks_hit + shared_blks_read <= 150 * calls)"
                    " AND count(*) > 0 FROM pg_stat_statements"
                    " WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())"
                    " AND query LIKE '%%hog_snapshot_change%%' AND query NOT LIKE '%%INSERT%%'");
    reconnect_server_with("DO $$ BEGIN EXECUTE format('ALTER DATABASE %I RESET plan_cache_mode',"
                          " current_database()); END $$");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(append_registers_files_and_row_ids),
        cmocka_unit_test(commit_plans_index_probes),
        cmocka_unit_test(one_commit_spans_tables_atomically),
        cmocka_unit_test(stats_are_stored_and_sanitized),
        cmocka_unit_test(stats_refusals),
        cmocka_unit_test(partition_values_follow_the_spec),
        cmocka_unit_test(paths_and_ranges_are_checked),
        cmocka_unit_test(table_identity_is_checked),
        cmocka_unit_test(conflict_check_against_read_snapshot),
        cmocka_unit_test(receipts_make_commits_idempotent),
        cmocka_unit_test(deletion_vectors),
        cmocka_unit_test(queued_paths_are_refused),
        cmocka_unit_test(lock_timeout_is_503),
        cmocka_unit_test(blocked_reads_are_503),
        cmocka_unit_test(checks_before_the_lock_are_verified_under_it),
        cmocka_unit_test(counter_overflow_is_refused),
        cmocka_unit_test(a_catalog_made_again_is_found_again),
        cmocka_unit_test(waiting_commits_commit_as_a_group),
        cmocka_unit_test(a_group_writes_its_commits_as_one),
        cmocka_unit_test(change_probes_ignore_history),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

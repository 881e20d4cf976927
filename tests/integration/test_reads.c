/* The file read endpoints over HTTP against a real hoglaked and PostgreSQL:
 * GET .../files (every sort key and order, paging, partition filters,
 * ordering bounds), GET .../scan (deletion-vector pairing, include and
 * stats_fields, decoded bounds of many types, pages bounded in statistics),
 * GET .../files/{file_id}/stats, GET .../changes (windows, compaction
 * outputs, truncates), time travel on all of them, and every error. Pages:
 * the pages of every listing tile it exactly, a token pins its listing's
 * snapshot while commits land, tokens that are not the listing's are 400,
 * and --page-size-max caps the pages.
 *
 * Data gets in through POST /commit, with column statistics carrying real
 * Iceberg single-value bounds. Compaction, failed statistics and the expiry
 * floor have no endpoint yet: those rows are written with SQL exactly as
 * the server would write them. Bodies are single-quoted; dq() makes them
 * JSON. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness.h"

#define CAT "rd"
#define NS "ns"
#define DATA "s3://hoglake-test/" CAT
#define TBL "/v1/catalogs/" CAT "/namespaces/" NS "/tables/"

static struct test_db db;
static struct test_server srv;
static PGconn *pg;

/* ---- helpers ---- */

static void vpost(struct http_result *r, const char *path, const char *fmt, va_list ap)
{
    char body[65536];
    vsnprintf(body, sizeof body, fmt, ap);
    char *b = dq(body);
    api_send_text(r, &srv, "POST", b, "%s", path);
    free(b);
}

/* POST /commit that must succeed; returns its snapshot. */
static int64_t commit_ok(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int64_t commit_ok(const char *fmt, ...)
{
    struct http_result r;
    va_list ap;
    va_start(ap, fmt);
    vpost(&r, "/v1/catalogs/" CAT "/commit", fmt, ap);
    va_end(ap);
    expect_status(&r, 200);
    int64_t snap = jint(r.json, "snapshot_id");
    http_result_free(&r);
    return snap;
}

/* One file appended to NS.table; `extra` is more single-quoted members of
 * the file registration (",'column_stats':[...]"). */
static int64_t append(const char *table, const char *name, int records, int size, const char *extra)
{
    return commit_ok("{'appends':[{'namespace':'" NS "','table':'%s','files':[{'path':'" DATA
                     "/%s/%s','record_count':%d,'file_size_bytes':%d%s}]}]}",
                     table, table, name, records, size, extra ? extra : "");
}

/* POST .../tables with a single-quoted body; returns the create snapshot. */
static int64_t create_table(const char *body)
{
    struct http_result r;
    char *b = dq(body);
    api_send_text(&r, &srv, "POST", b, "/v1/catalogs/%s/namespaces/%s/tables", CAT, NS);
    free(b);
    expect_status(&r, 201);
    int64_t snap = jint(r.json, "snapshot_id");
    http_result_free(&r);
    return snap;
}

static int64_t alter_ok(const char *table, const char *ops)
{
    struct http_result r;
    char *b = dq(ops);
    api_send_text(&r, &srv, "POST", b, TBL "%s/alter", table);
    free(b);
    expect_status(&r, 200);
    int64_t snap = jint(r.json, "snapshot_id");
    http_result_free(&r);
    return snap;
}

static const char *uuid_of(const char *table, char *out, size_t n)
{
    json_t *t = api_get_json(&srv, TBL "%s", table);
    snprintf(out, n, "%s", jstr(t, "table_uuid"));
    json_decref(t);
    return out;
}

static int64_t truncate_ok(const char *table)
{
    char uuid[64];
    uuid_of(table, uuid, sizeof uuid);
    struct http_result r;
    api_send_text(&r, &srv, "POST", "", TBL "%s/truncate?expected_table_uuid=%s", table, uuid);
    expect_status(&r, 200);
    int64_t snap = jint(r.json, "snapshot_id");
    http_result_free(&r);
    return snap;
}

static int64_t file_id(const char *table, const char *name)
{
    return sqli("SELECT data_file_id FROM hog_data_file WHERE path = '" DATA "/%s/%s'", table,
                name);
}

/* A deletion vector on one file through /commit. */
static int64_t delete_rows(const char *table, int64_t read, int64_t target, const char *name,
                           int count)
{
    return commit_ok("{'read_snapshot':%lld,'deletes':[{'namespace':'" NS "','table':'%s',"
                     "'files':[{'data_file_id':%lld,'path':'" DATA "/%s/%s',"
                     "'delete_count':%d,'file_size_bytes':40}]}]}",
                     (long long)read, table, (long long)target, table, name, count);
}

/* A snapshot written with SQL the way a data commit or a compaction
 * writes one: the head advances without a schema_version bump and one
 * change row of `kind` names the table. */
static int64_t sql_snapshot(const char *table, const char *kind)
{
    int64_t c = cat_id(CAT);
    int64_t snap = sqli("UPDATE hog_catalog SET last_snapshot_id = last_snapshot_id + 1"
                        " WHERE catalog_id = %lld RETURNING last_snapshot_id",
                        (long long)c);
    sql_exec("INSERT INTO hog_snapshot (catalog_id, snapshot_id, snapshot_time, schema_version)"
             " SELECT catalog_id, last_snapshot_id, clock_timestamp(), schema_version"
             " FROM hog_catalog WHERE catalog_id = %lld",
             (long long)c);
    sql_exec("INSERT INTO hog_snapshot_change (catalog_id, snapshot_id, kind, object_id)"
             " VALUES (%lld, %lld, '%s', %lld)",
             (long long)c, (long long)snap, kind, (long long)table_id_of(CAT, NS, table));
    return snap;
}

/* GET expecting 200 with a JSON body. */
static json_t *get_ok(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static json_t *get_ok(const char *fmt, ...)
{
    char path[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(path, sizeof path, fmt, ap);
    va_end(ap);
    return api_get_json(&srv, "%s", path);
}

/* GET expecting an error envelope. */
static void get_fails(long status, const char *code, const char *needle, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void get_fails(long status, const char *code, const char *needle, const char *fmt, ...)
{
    char path[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(path, sizeof path, fmt, ap);
    va_end(ap);
    struct http_result r;
    api_get(&r, &srv, "%s", path);
    expect_error(&r, status, code);
    if (needle)
        expect_detail_contains(&r, needle);
    http_result_free(&r);
}

/* GET expecting 200; the raw body (exact numbers the test parser cannot
 * hold). Caller frees. */
static char *get_body(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *get_body(const char *fmt, ...)
{
    char path[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(path, sizeof path, fmt, ap);
    va_end(ap);
    struct http_result r;
    api_get(&r, &srv, "%s", path);
    expect_status(&r, 200);
    char *body = strdup(r.body);
    http_result_free(&r);
    return body;
}

static void expect_has(const char *body, const char *needle)
{
    if (!strstr(body, needle))
        fail_msg("expected the body to contain\n  %s\nbody:\n  %s", needle, body);
}

static void expect_lacks(const char *body, const char *needle)
{
    if (strstr(body, needle))
        fail_msg("expected the body not to contain\n  %s\nbody:\n  %s", needle, body);
}

static const json_t *data_file_of(const json_t *item)
{
    const json_t *df = json_object_get(item, "data_file");
    return df ? df : item;
}

/* The files of a page of GET .../files or .../scan ({"files": [...],
 * "next_page_token"}), or the array itself (a changes plan's member). */
static const json_t *files_of(const json_t *page)
{
    return json_is_array(page) ? page : json_object_get(page, "files");
}

/* The data_file_ids of a DataFile[] or ScanFile[] are exactly the n ids
 * given (long long), in order. */
static void expect_ids(const json_t *page, int n, ...)
{
    const json_t *arr = files_of(page);
    char got[1024] = "", want[1024] = "";
    size_t gl = 0, wl = 0;
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n; i++)
        wl += (size_t)snprintf(want + wl, sizeof want - wl, "%s%lld", i ? "," : "",
                               va_arg(ap, long long));
    va_end(ap);
    if (!json_is_array(arr))
        fail_msg("expected an array of files");
    for (size_t i = 0; i < json_array_size(arr) && gl < sizeof got - 24; i++)
        gl +=
            (size_t)snprintf(got + gl, sizeof got - gl, "%s%lld", i ? "," : "",
                             (long long)jint(data_file_of(json_array_get(arr, i)), "data_file_id"));
    if (strcmp(got, want) != 0)
        fail_msg("file ids: got [%s], want [%s]", got, want);
}

/* GET .../files?query and compare the ids. */
#define EXPECT_FILES(table, query, ...)                                                            \
    do {                                                                                           \
        json_t *a_ = get_ok(TBL table "/files%s", query);                                          \
        expect_ids(a_, __VA_ARGS__);                                                               \
        json_decref(a_);                                                                           \
    } while (0)

/* The data_file_ids of a page of files or a scan, comma-separated. */
static void ids_text(const json_t *page, char *out, size_t size)
{
    const json_t *arr = files_of(page);
    size_t n = 0;
    out[0] = '\0';
    for (size_t i = 0; i < json_array_size(arr); i++)
        n +=
            (size_t)snprintf(out + n, size - n, "%s%lld", i ? "," : "",
                             (long long)jint(data_file_of(json_array_get(arr, i)), "data_file_id"));
}

#define EXPECT_SCAN(table, query, ...)                                                             \
    do {                                                                                           \
        json_t *a_ = get_ok(TBL table "/scan%s", query);                                           \
        expect_ids(a_, __VA_ARGS__);                                                               \
        json_decref(a_);                                                                           \
    } while (0)

static const json_t *find_file(const json_t *page, int64_t id)
{
    const json_t *arr = files_of(page);
    for (size_t i = 0; i < json_array_size(arr); i++) {
        const json_t *f = data_file_of(json_array_get(arr, i));
        if (jint(f, "data_file_id") == id)
            return f;
    }
    fail_msg("file %lld is not in the answer", (long long)id);
    return NULL;
}

static const json_t *scan_item(const json_t *page, int64_t id)
{
    const json_t *arr = files_of(page);
    for (size_t i = 0; i < json_array_size(arr); i++)
        if (jint(data_file_of(json_array_get(arr, i)), "data_file_id") == id)
            return json_array_get(arr, i);
    fail_msg("file %lld is not in the scan", (long long)id);
    return NULL;
}

static void expect_json(const json_t *v, const char *expected)
{
    json_t *want = jparse(expected);
    if (!json_equal(v, want)) {
        char *got = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
        fail_msg("got %s, want %s", got ? got : "(null)", expected);
    }
    json_decref(want);
}

/* An ISO-8601 instant of a snapshot's time, for at_timestamp. */
static void snapshot_time(int64_t snap, char *out, size_t n)
{
    char sql[300];
    snprintf(sql, sizeof sql,
             "SELECT to_char(snapshot_time AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')"
             " FROM hog_snapshot WHERE catalog_id = %lld AND snapshot_id = %lld",
             (long long)cat_id(CAT), (long long)snap);
    PGresult *r = PQexec(pg, sql);
    assert_int_equal(PQresultStatus(r), PGRES_TUPLES_OK);
    assert_int_equal(PQntuples(r), 1);
    snprintf(out, n, "%s", PQgetvalue(r, 0, 0));
    PQclear(r);
}

/* ---- pages ---- */

/* A page's next_page_token: a copy (caller frees), or NULL on the last
 * page; the member must be there either way. */
static char *next_token_of(const json_t *page)
{
    const json_t *t = json_object_get(page, "next_page_token");
    if (!t)
        fail_msg("the page has no next_page_token member");
    if (json_is_null(t))
        return NULL;
    if (!json_is_string(t) || !*json_string_value(t))
        fail_msg("next_page_token is not a non-empty string");
    return strdup(json_string_value(t));
}

/* Appends the arrays of `page` (files, and delete_files when present) to
 * `all`'s; returns how many entries the page held. */
static size_t gather(json_t *all, const json_t *page)
{
    static const char *const members[] = {"files", "delete_files"};
    size_t n = 0;
    for (size_t i = 0; i < 2; i++) {
        json_t *from = json_object_get(page, members[i]);
        if (!from)
            continue;
        json_t *into = json_object_get(all, members[i]);
        if (!into)
            json_object_set_new(all, members[i], into = json_array());
        json_array_extend(into, from);
        n += json_array_size(from);
    }
    return n;
}

/* Every page of GET `path` at `limit` entries a page (0: the default),
 * each checked (no more than the limit, only the last without a token),
 * gathered into {"files": [...], "delete_files": [...]}; *npages (may be
 * NULL) gets the count. */
static json_t *all_pages(const char *path, int limit, int *npages)
{
    json_t *all = json_object();
    char *token = NULL;
    int pages = 0;
    do {
        char url[2048], sep = strchr(path, '?') ? '&' : '?';
        size_t len = (size_t)snprintf(url, sizeof url, "%s", path);
        if (limit) {
            len += (size_t)snprintf(url + len, sizeof url - len, "%climit=%d", sep, limit);
            sep = '&';
        }
        if (token)
            snprintf(url + len, sizeof url - len, "%cpage_token=%s", sep, token);
        json_t *page = get_ok("%s", url);
        size_t n = gather(all, page);
        free(token);
        token = next_token_of(page);
        if (limit && n > (size_t)limit)
            fail_msg("a page of %s held %zu entries, over the limit %d", path, n, limit);
        if (token && n == 0)
            fail_msg("a page of %s held nothing but named a next page", path);
        json_decref(page);
        pages++;
    } while (token);
    if (npages)
        *npages = pages;
    return all;
}

/* The pages of `path` at `limit` tile its one-page listing (limit 10000)
 * exactly: the same entries, once each, in the same order. */
static void expect_pages_tile(const char *path, int limit)
{
    json_t *paged = all_pages(path, limit, NULL);
    json_t *whole = all_pages(path, 10000, NULL);
    if (!json_equal(paged, whole)) {
        char *a = json_dumps(paged, JSON_COMPACT), *b = json_dumps(whole, JSON_COMPACT);
        fail_msg("%s in pages of %d:\n%s\nin one page:\n%s", path, limit, a, b);
    }
    json_decref(paged);
    json_decref(whole);
}

/* The first page of GET path at `limit`, and its token (NULL on the last). */
static json_t *first_page(const char *path, int limit, char **token)
{
    json_t *page = get_ok("%s%climit=%d", path, strchr(path, '?') ? '&' : '?', limit);
    *token = next_token_of(page);
    return page;
}

static int setup(void **state)
{
    (void)state;
    test_stack_up(&db, &srv, &pg, "reads", CAT, NS);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    test_stack_down(&db, &srv, &pg);
    return 0;
}

/* ---- GET .../files ---- */

static void files_sort_order_and_paging(void **state)
{
    (void)state;
    create_table("{'name':'lst','columns':[{'name':'id','type':'long'}]}");
    int64_t s1 = commit_ok("{'appends':[{'namespace':'" NS "','table':'lst','files':["
                           "{'path':'" DATA "/lst/c','record_count':10,'file_size_bytes':300,"
                           "'footer_size':20},"
                           "{'path':'" DATA "/lst/a','record_count':0,'file_size_bytes':100}]}]}");
    int64_t s2 = append("lst", "b", 5, 200, ",'column_stats':[]");
    commit_ok("{'appends':[{'namespace':'" NS "','table':'lst','files':["
              "{'path':'" DATA "/lst/d','record_count':7,'file_size_bytes':300,"
              "'column_stats':[]},"
              "{'path':'" DATA "/lst/e','record_count':1,'file_size_bytes':50}]}]}");
    long long A = file_id("lst", "c"), B = file_id("lst", "a"), C = file_id("lst", "b"),
              D = file_id("lst", "d"), E = file_id("lst", "e");
    /* What only a hydrator and a compaction can set. */
    sql_exec("UPDATE hog_data_file SET stats_state = 'failed' WHERE data_file_id = %lld", E);
    sql_exec("UPDATE hog_data_file SET explicit_row_ids = true WHERE data_file_id = %lld", D);

    /* Default: (begin_snapshot, row_id_start, data_file_id). B holds no
     * rows, so B and C start at the same row id. */
    EXPECT_FILES("lst", "", 5, A, B, C, D, E);
    EXPECT_FILES("lst", "?order=asc", 5, A, B, C, D, E);
    EXPECT_FILES("lst", "?order=desc", 5, E, D, C, B, A);
    EXPECT_FILES("lst", "?sort=begin_snapshot", 5, A, B, C, D, E);
    EXPECT_FILES("lst", "?sort=begin_snapshot&order=desc", 5, E, D, C, B, A);
    EXPECT_FILES("lst", "?sort=id", 5, A, B, C, D, E);
    EXPECT_FILES("lst", "?sort=id&order=desc", 5, E, D, C, B, A);
    EXPECT_FILES("lst", "?sort=path", 5, B, C, A, D, E);
    EXPECT_FILES("lst", "?sort=path&order=desc", 5, E, D, A, C, B);
    EXPECT_FILES("lst", "?sort=record_count", 5, B, E, C, D, A);
    EXPECT_FILES("lst", "?sort=record_count&order=desc", 5, A, D, C, E, B);
    /* Ties break on data_file_id, in the same direction. */
    EXPECT_FILES("lst", "?sort=size", 5, E, B, C, A, D);
    EXPECT_FILES("lst", "?sort=size&order=desc", 5, D, A, C, B, E);
    /* stats = stats_state, alphabetically: failed, pending, provided. */
    EXPECT_FILES("lst", "?sort=stats", 5, E, A, B, C, D);
    EXPECT_FILES("lst", "?sort=stats&order=desc", 5, D, C, B, A, E);

    /* Paging. */
    EXPECT_FILES("lst", "?limit=2", 2, A, B);
    EXPECT_FILES("lst", "?limit=2&offset=2", 2, C, D);
    EXPECT_FILES("lst", "?limit=2&offset=4", 1, E);
    EXPECT_FILES("lst", "?offset=3", 2, D, E);
    EXPECT_FILES("lst", "?offset=5", 0);
    EXPECT_FILES("lst", "?offset=9223372036854775807", 0);
    EXPECT_FILES("lst", "?limit=1&offset=0", 1, A);
    EXPECT_FILES("lst", "?limit=10000", 5, A, B, C, D, E);
    EXPECT_FILES("lst", "?sort=size&order=desc&limit=2&offset=1", 2, A, C);

    /* The DataFile members and the row-id span as ordering bounds. */
    json_t *a = get_ok(TBL "lst/files");
    char want[600];
    snprintf(want, sizeof want,
             "{'data_file_id':%lld,'path':'" DATA "/lst/c','file_format':'parquet',"
             "'record_count':10,'file_size_bytes':300,'row_id_start':0,'stats_state':'pending',"
             "'begin_snapshot':%lld,'footer_size':20,'explicit_row_ids':false,"
             "'ordering_bounds':{'lower_bound':0,'upper_bound':9}}",
             A, (long long)s1);
    char *w = dq(want);
    expect_json(find_file(a, A), w);
    free(w);
    /* No rows: no last row id. Explicit row ids: only the minimum. */
    expect_json(json_object_get(find_file(a, B), "ordering_bounds"),
                "{\"lower_bound\":10,\"upper_bound\":null}");
    expect_json(json_object_get(find_file(a, C), "ordering_bounds"),
                "{\"lower_bound\":10,\"upper_bound\":14}");
    expect_json(json_object_get(find_file(a, D), "ordering_bounds"),
                "{\"lower_bound\":15,\"upper_bound\":null}");
    assert_true(json_is_true(json_object_get(find_file(a, D), "explicit_row_ids")));
    assert_int_equal(jint(find_file(a, C), "begin_snapshot"), s2);
    assert_string_equal(jstr(find_file(a, C), "stats_state"), "provided");
    assert_string_equal(jstr(find_file(a, E), "stats_state"), "failed");
    /* Unpartitioned: no spec_id and no partition_values; scan-only members
     * never appear here. */
    assert_null(json_object_get(find_file(a, A), "spec_id"));
    assert_null(json_object_get(find_file(a, A), "partition_values"));
    assert_null(json_object_get(find_file(a, A), "column_stats"));
    assert_null(json_object_get(find_file(a, C), "footer_size"));
    json_decref(a);
}

static void files_partition_filters(void **state)
{
    (void)state;
    create_table("{'name':'prt','columns':[{'name':'k','type':'string'},{'name':'n','type':"
                 "'long'}],'partition_fields':[{'source_field_id':1,'transform':'identity'},"
                 "{'source_field_id':2,'transform':'identity'}]}");
    int64_t read = head_of(CAT);
    commit_ok("{'read_snapshot':%lld,'appends':[{'namespace':'" NS "','table':'prt','files':["
              "{'path':'" DATA "/prt/1','record_count':1,'file_size_bytes':1,"
              "'partition_values':['x','1']},"
              "{'path':'" DATA "/prt/2','record_count':1,'file_size_bytes':1,"
              "'partition_values':['x',null]},"
              "{'path':'" DATA "/prt/3','record_count':1,'file_size_bytes':1,"
              "'partition_values':['','1']},"
              "{'path':'" DATA "/prt/4','record_count':1,'file_size_bytes':1,"
              "'partition_values':[null,'2']},"
              "{'path':'" DATA "/prt/5','record_count':1,'file_size_bytes':1,"
              "'partition_values':['y:z','1']}]}]}",
              (long long)read);
    long long P1 = file_id("prt", "1"), P2 = file_id("prt", "2"), P3 = file_id("prt", "3"),
              P4 = file_id("prt", "4"), P5 = file_id("prt", "5");
    EXPECT_FILES("prt", "", 5, P1, P2, P3, P4, P5);
    EXPECT_FILES("prt", "?partition=0:x", 2, P1, P2);
    /* ANDed. */
    EXPECT_FILES("prt", "?partition=0:x&partition=1:1", 1, P1);
    EXPECT_FILES("prt", "?partition=1:1&partition=0:x", 1, P1);
    EXPECT_FILES("prt", "?partition=0:x&partition=0:y", 0);
    EXPECT_FILES("prt", "?partition=1:1", 3, P1, P3, P5);
    /* key_index alone asks for NULL; key_index: with nothing after it is
     * the empty string. */
    EXPECT_FILES("prt", "?partition=1", 1, P2);
    EXPECT_FILES("prt", "?partition=0", 1, P4);
    EXPECT_FILES("prt", "?partition=0:", 1, P3);
    EXPECT_FILES("prt", "?partition=0:&partition=1", 0);
    /* The value is everything after the first colon, percent-decoded. */
    EXPECT_FILES("prt", "?partition=0:y:z", 1, P5);
    EXPECT_FILES("prt", "?partition=0:y%3Az", 1, P5);
    EXPECT_FILES("prt", "?partition=0:X", 0);
    EXPECT_FILES("prt", "?partition=0:nope", 0);
    /* A key index the spec does not have matches nothing. */
    EXPECT_FILES("prt", "?partition=7:x", 0);
    EXPECT_FILES("prt", "?partition=1:1&sort=path&order=desc&limit=2", 2, P5, P3);
    /* Partition values in key order, null for NULL; the live spec id. */
    json_t *a = get_ok(TBL "prt/files?partition=0:x");
    expect_json(json_object_get(find_file(a, P2), "partition_values"), "[\"x\",null]");
    assert_true(jint(find_file(a, P2), "spec_id") >= 0);
    json_decref(a);
    /* Malformed filters are 400. */
    get_fails(400, "bad_request", "key_index:value", TBL "prt/files?partition=a:x");
    get_fails(400, "bad_request", "key_index:value", TBL "prt/files?partition=-1:x");
    get_fails(400, "bad_request", "key_index:value", TBL "prt/files?partition=:x");
    get_fails(400, "bad_request", "key_index:value", TBL "prt/files?partition=");
    get_fails(400, "bad_request", "key_index:value",
              TBL "prt/files?partition=99999999999999999999:x");
    get_fails(400, "bad_request", "UTF-8", TBL "prt/files?partition=0:%%ff");
    char q[2000] = "";
    size_t n = 0;
    for (int i = 0; i < 65; i++)
        n += (size_t)snprintf(q + n, sizeof q - n, "%spartition=0:x", i ? "&" : "?");
    /* The front door's cap on query parameters (64 by default) answers
     * first; raised, the handler's own cap on filters still holds. */
    get_fails(400, "bad_request", "more than 64 query parameters", TBL "prt/files%s", q);
    struct test_server wide;
    const char *extra[] = {"--max-query-params", "100", NULL};
    test_server_start(&wide, &db, extra);
    struct http_result r;
    api_get(&r, &wide, TBL "prt/files%s", q);
    expect_error(&r, 400, "bad_request");
    expect_detail_contains(&r, "at most 64 partition filters");
    http_result_free(&r);
    test_server_stop(&wide);

    /* The scan plan takes the same filters and keeps exactly the files the
     * listing keeps. */
    static const char *const filters[] = {
        "",
        "?partition=0:x",
        "?partition=0:x&partition=1:1",
        "?partition=1",
        "?partition=0",
        "?partition=0:",
        "?partition=0:y%3Az",
        "?partition=7:x",
        "?partition=0:x&partition=0:y",
        "?partition=1:1&partition=0:x",
    };
    for (size_t i = 0; i < sizeof filters / sizeof filters[0]; i++) {
        json_t *listed = get_ok(TBL "prt/files%s", filters[i]);
        json_t *planned = get_ok(TBL "prt/scan%s", filters[i]);
        char lids[256], sids[256];
        ids_text(listed, lids, sizeof lids);
        ids_text(planned, sids, sizeof sids);
        if (strcmp(lids, sids) != 0)
            fail_msg("scan%s kept [%s], the listing [%s]", filters[i], sids, lids);
        json_decref(listed);
        json_decref(planned);
    }
    /* Filtered pages resume after their last file, and a token answers
     * only the filters it was issued for. */
    json_t *p1 = get_ok(TBL "prt/scan?partition=1:1&limit=1");
    expect_ids(p1, 1, P1);
    char *token = next_token_of(p1);
    assert_non_null(token);
    json_t *p2 = get_ok(TBL "prt/scan?partition=1:1&limit=2&page_token=%s", token);
    expect_ids(p2, 2, P3, P5);
    assert_null(next_token_of(p2));
    get_fails(400, "bad_request", "other query parameters",
              TBL "prt/scan?partition=0:x&limit=1&page_token=%s", token);
    free(token);
    json_decref(p1);
    json_decref(p2);
    /* At an earlier snapshot the filter sees the files as they were: a
     * truncate ends them at the head, not before it. */
    int64_t before_truncate = head_of(CAT);
    truncate_ok("prt");
    EXPECT_SCAN("prt", "?partition=0:x", 0);
    char travel[64];
    snprintf(travel, sizeof travel, "?partition=0:x&snapshot=%lld", (long long)before_truncate);
    EXPECT_SCAN("prt", travel, 2, P1, P2);
    get_fails(400, "bad_request", "key_index:value", TBL "prt/scan?partition=x");
}

/* The filter's candidates come from the asked table's partition values
 * only (hog_file_partition_value_in_table): one commit appends to two
 * tables, interleaved, with the same values, and each table's filters see
 * its own files and all of them. */
static void partition_filters_stay_in_their_table(void **state)
{
    (void)state;
    for (int t = 0; t < 2; t++)
        create_table(t ? "{'name':'pb','columns':[{'name':'k','type':'string'}],"
                         "'partition_fields':[{'source_field_id':1,'transform':'identity'}]}"
                       : "{'name':'pa','columns':[{'name':'k','type':'string'}],"
                         "'partition_fields':[{'source_field_id':1,'transform':'identity'}]}");
    int64_t read = head_of(CAT);
    commit_ok("{'read_snapshot':%lld,'appends':["
              "{'namespace':'" NS "','table':'pa','files':["
              "{'path':'" DATA "/pa/1','record_count':1,'file_size_bytes':1,"
              "'partition_values':['d1']},"
              "{'path':'" DATA "/pa/2','record_count':1,'file_size_bytes':1,"
              "'partition_values':['d2']}]},"
              "{'namespace':'" NS "','table':'pb','files':["
              "{'path':'" DATA "/pb/1','record_count':1,'file_size_bytes':1,"
              "'partition_values':['d1']}]},"
              "{'namespace':'" NS "','table':'pa','files':["
              "{'path':'" DATA "/pa/3','record_count':1,'file_size_bytes':1,"
              "'partition_values':['d1']}]}]}",
              (long long)read);
    long long A1 = file_id("pa", "1"), A2 = file_id("pa", "2"), A3 = file_id("pa", "3"),
              B1 = file_id("pb", "1");
    EXPECT_FILES("pa", "?partition=0:d1", 2, A1, A3);
    EXPECT_FILES("pa", "?partition=0:d2", 1, A2);
    EXPECT_FILES("pb", "?partition=0:d1", 1, B1);
    EXPECT_FILES("pb", "?partition=0:d2", 0);
    EXPECT_SCAN("pa", "?partition=0:d1", 2, A1, A3);
    EXPECT_SCAN("pb", "?partition=0:d1", 1, B1);
    /* Every partition value row names its file's table. */
    assert_int_equal(sqli("SELECT count(*) FROM hog_file_partition_value pv"
                          " JOIN hog_data_file d USING (catalog_id, data_file_id)"
                          " WHERE pv.table_id <> d.table_id"),
                     0);
}

static void files_ordering_bounds_follow_the_sort_order(void **state)
{
    (void)state;
    create_table("{'name':'srt','columns':[{'name':'id','type':'long'},{'name':'s','type':"
                 "'string'}],'sort_fields':[{'source_field_id':1,'direction':'desc',"
                 "'null_order':'nulls_last'}]}");
    /* id 10..20; only s (a..c); none at all. */
    int64_t s1 = commit_ok(
        "{'appends':[{'namespace':'" NS "','table':'srt','files':["
        "{'path':'" DATA "/srt/1','record_count':3,'file_size_bytes':1,'column_stats':["
        "{'field_id':1,'value_count':3,'null_count':0,'lower_bound':'CgAAAAAAAAA=',"
        "'upper_bound':'FAAAAAAAAAA='}]},"
        "{'path':'" DATA "/srt/2','record_count':3,'file_size_bytes':1,'column_stats':["
        "{'field_id':2,'value_count':3,'null_count':0,'lower_bound':'YQ==','upper_bound':'Yw=='}]},"
        "{'path':'" DATA "/srt/3','record_count':3,'file_size_bytes':1}]}]}");
    long long X1 = file_id("srt", "1"), X2 = file_id("srt", "2"), X3 = file_id("srt", "3");
    json_t *a = get_ok(TBL "srt/files");
    expect_json(json_object_get(find_file(a, X1), "ordering_bounds"),
                "{\"lower_bound\":10,\"upper_bound\":20,\"field_id\":1}");
    expect_json(json_object_get(find_file(a, X2), "ordering_bounds"),
                "{\"lower_bound\":null,\"upper_bound\":null,\"field_id\":1}");
    expect_json(json_object_get(find_file(a, X3), "ordering_bounds"),
                "{\"lower_bound\":null,\"upper_bound\":null,\"field_id\":1}");
    json_decref(a);
    /* A new sort order leads with s. */
    alter_ok("srt", "{'ops':[{'op':'set_sort_order','sort_fields':[{'source_field_id':2}]}]}");
    a = get_ok(TBL "srt/files");
    expect_json(json_object_get(find_file(a, X1), "ordering_bounds"),
                "{\"lower_bound\":null,\"upper_bound\":null,\"field_id\":2}");
    expect_json(json_object_get(find_file(a, X2), "ordering_bounds"),
                "{\"lower_bound\":\"a\",\"upper_bound\":\"c\",\"field_id\":2}");
    json_decref(a);
    /* Time travel reads the sort order of its snapshot. */
    a = get_ok(TBL "srt/files?snapshot=%lld", (long long)s1);
    expect_json(json_object_get(find_file(a, X1), "ordering_bounds"),
                "{\"lower_bound\":10,\"upper_bound\":20,\"field_id\":1}");
    json_decref(a);
    /* Unsorted again: the row-id spans. */
    alter_ok("srt", "{'ops':[{'op':'set_sort_order','sort_fields':[]}]}");
    a = get_ok(TBL "srt/files");
    expect_json(json_object_get(find_file(a, X2), "ordering_bounds"),
                "{\"lower_bound\":3,\"upper_bound\":5}");
    json_decref(a);
}

static void files_parameter_errors(void **state)
{
    (void)state;
    get_fails(422, "validation", "'sort' must be one of", TBL "lst/files?sort=bogus");
    get_fails(422, "validation", "'sort' must be one of", TBL "lst/files?sort=ID");
    get_fails(422, "validation", "'order' must be asc or desc", TBL "lst/files?order=up");
    get_fails(422, "validation", "limit must be >= 1, got 0", TBL "lst/files?limit=0");
    get_fails(422, "validation", "limit must be >= 1, got -3", TBL "lst/files?limit=-3");
    get_fails(400, "bad_request", "'limit' must be an integer", TBL "lst/files?limit=ten");
    get_fails(422, "validation", "offset must be >= 0", TBL "lst/files?offset=-1");
    get_fails(400, "bad_request", "'offset' must be an integer", TBL "lst/files?offset=1.5");
    get_fails(400, "bad_request", "unknown query parameter 'page'", TBL "lst/files?page=2");
    get_fails(400, "bad_request", "unknown query parameter 'include'",
              TBL "lst/files?include=column_stats");
    get_fails(404, "not_found", "catalog 'nope'",
              "/v1/catalogs/nope/namespaces/" NS "/tables/lst/files");
    get_fails(404, "not_found", "namespace 'nope'",
              "/v1/catalogs/" CAT "/namespaces/nope/tables/lst/files");
    get_fails(404, "not_found", "table 'ns.nope'", TBL "nope/files");
    get_fails(404, "not_found", "table 'ns.nope'", TBL "nope/scan");
    get_fails(404, "not_found", "table 'ns.nope'", TBL "nope/files/1/stats");
    get_fails(404, "not_found", "table 'ns.nope'", TBL "nope/changes?from_snapshot=0");
    get_fails(404, "not_found", "no route", TBL "lst/files/1");
    struct http_result r;
    api_send_text(&r, &srv, "POST", "{}", TBL "lst/scan");
    expect_error(&r, 405, "method_not_allowed");
    assert_string_equal(r.allow, "GET");
    http_result_free(&r);
}

/* ---- bounds of many types: scan and stats ---- */

/* Stats of the typed table's first file, one per leaf. */
#define TYPED_STATS                                                                                \
    "{'field_id':1,'value_count':3,'null_count':0,'lower_bound':'AQAAAAAAAAA=',"                   \
    "'upper_bound':'6AMAAAAAAAA='},"                                                               \
    "{'field_id':2,'value_count':3,'null_count':1,'nan_count':1,'size_bytes':64,"                  \
    "'lower_bound':'AAAAAAAAAIA=','upper_bound':'AAAAAAAA8H8='},"                                  \
    "{'field_id':3,'value_count':3,'null_count':0,'lower_bound':'YXBwbGU=',"                       \
    "'upper_bound':'cGVhcg=='},"                                                                   \
    "{'field_id':4,'value_count':3,'null_count':0,'lower_bound':'/2o=','upper_bound':'SZYC0g=='}," \
    "{'field_id':5,'value_count':3,'null_count':0,'lower_bound':'AJDZH7taBgA=',"                   \
    "'upper_bound':'QHLbH7taBgA='},"                                                               \
    "{'field_id':6,'value_count':3,'null_count':0,'lower_bound':'AAAAAAAAAAAAAAAAAAAAAQ==',"       \
    "'upper_bound':'95w+CWd8S72keT80nLeF5w=='},"                                                   \
    "{'field_id':7,'value_count':3,'null_count':0,'lower_bound':'AA==','upper_bound':'AQ=='},"     \
    "{'field_id':8,'value_count':3,'null_count':0,'lower_bound':'BQ==',"                           \
    "'upper_bound':'AP//////////'},"                                                               \
    "{'field_id':9,'value_count':3,'null_count':0,'lower_bound':'+f///w==',"                       \
    "'upper_bound':'KgAAAA=='},"                                                                   \
    "{'field_id':10,'value_count':3,'null_count':0,'lower_bound':'zczMPQ==',"                      \
    "'upper_bound':'AADAPw=='},"                                                                   \
    "{'field_id':12,'value_count':3,'null_count':2,'lower_bound':'MDIxMzQ=',"                      \
    "'upper_bound':'OTQxMDU='},"                                                                   \
    "{'field_id':13,'value_count':3,'null_count':0,'lower_bound':'5k8AAA=='},"                     \
    "{'field_id':14,'value_count':3,'null_count':0,'lower_bound':'AIAAAAAAAAAF',"                  \
    "'upper_bound':'AIAAAAAAAAAF'}"

static int64_t typed_before_promotion;

static void scan_and_stats_decode_bounds(void **state)
{
    (void)state;
    create_table("{'name':'typed','columns':[{'name':'id','type':'long','nullable':false},"
                 "{'name':'d','type':'double'},{'name':'s','type':'string'},"
                 "{'name':'dec','type':'decimal','type_params':{'precision':10,'scale':2}},"
                 "{'name':'ts','type':'timestamptz'},{'name':'u','type':'uuid'},"
                 "{'name':'b','type':'boolean'},{'name':'big','type':'uint64'},"
                 "{'name':'n','type':'int'},{'name':'f','type':'float'},"
                 "{'name':'addr','type':'struct','children':[{'name':'zip','type':'string'}]},"
                 "{'name':'dt','type':'date'},{'name':'big2','type':'uint64'}]}");
    commit_ok("{'appends':[{'namespace':'" NS "','table':'typed','files':["
              "{'path':'" DATA "/typed/1','record_count':3,'file_size_bytes':10,"
              "'column_stats':[" TYPED_STATS "]},"
              "{'path':'" DATA "/typed/2','record_count':3,'file_size_bytes':10}]}]}");
    long long T1 = file_id("typed", "1"), T2 = file_id("typed", "2");
    char *body = get_body(TBL "typed/scan?include=column_stats");
    /* Exactly as a client receives them: exact integers above 2^63, a
     * signed zero, infinities as strings, decimals at their scale. */
    const char *expected[] = {
        "{\"field_id\":1,\"value_count\":3,\"null_count\":0,\"lower_bound\":1,"
        "\"upper_bound\":1000}",
        "{\"field_id\":2,\"value_count\":3,\"null_count\":1,\"lower_bound\":-0.0,"
        "\"upper_bound\":\"Infinity\",\"nan_count\":1}",
        "{\"field_id\":3,\"value_count\":3,\"null_count\":0,\"lower_bound\":\"apple\","
        "\"upper_bound\":\"pear\"}",
        "{\"field_id\":4,\"value_count\":3,\"null_count\":0,\"lower_bound\":-1.50,"
        "\"upper_bound\":12345678.90}",
        "{\"field_id\":5,\"value_count\":3,\"null_count\":0,"
        "\"lower_bound\":\"2026-09-05T12:00:00Z\",\"upper_bound\":\"2026-09-05T12:00:00.123456Z\"}",
        "{\"field_id\":6,\"value_count\":3,\"null_count\":0,"
        "\"lower_bound\":\"00000000-0000-0000-0000-000000000001\","
        "\"upper_bound\":\"f79c3e09-677c-4bbd-a479-3f349cb785e7\"}",
        "{\"field_id\":7,\"value_count\":3,\"null_count\":0,\"lower_bound\":false,"
        "\"upper_bound\":true}",
        "{\"field_id\":8,\"value_count\":3,\"null_count\":0,\"lower_bound\":5,"
        "\"upper_bound\":18446744073709551615}",
        "{\"field_id\":9,\"value_count\":3,\"null_count\":0,\"lower_bound\":-7,"
        "\"upper_bound\":42}",
        "{\"field_id\":10,\"value_count\":3,\"null_count\":0,\"lower_bound\":0.1,"
        "\"upper_bound\":1.5}",
        "{\"field_id\":12,\"value_count\":3,\"null_count\":2,\"lower_bound\":\"02134\","
        "\"upper_bound\":\"94105\"}",
        "{\"field_id\":13,\"value_count\":3,\"null_count\":0,\"lower_bound\":\"2026-01-01\","
        "\"upper_bound\":null}",
        "{\"field_id\":14,\"value_count\":3,\"null_count\":0,"
        "\"lower_bound\":9223372036854775813,\"upper_bound\":9223372036854775813}",
    };
    char all[4096] = "\"column_stats\":[";
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++) {
        expect_has(body, expected[i]);
        strcat(all, i ? "," : "");
        strcat(all, expected[i]);
    }
    strcat(all, "]");
    /* In field-id order, nothing else. */
    expect_has(body, all);
    /* The pending file carries no column_stats at all: do not prune. */
    json_t *a = get_ok(TBL "typed/scan?include=column_stats&stats_fields=1");
    assert_null(json_object_get(data_file_of(scan_item(a, T2)), "column_stats"));
    assert_non_null(json_object_get(data_file_of(scan_item(a, T1)), "column_stats"));
    json_decref(a);
    free(body);

    /* The per-file stats: names, dotted paths, types, type_params. */
    body = get_body(TBL "typed/files/%lld/stats", T1);
    char head[200];
    snprintf(head, sizeof head,
             "{\"data_file_id\":%lld,\"stats_state\":\"provided\",\"columns\":[{\"field_id\":1,",
             T1);
    expect_has(body, head);
    expect_has(body, "{\"field_id\":1,\"name\":\"id\",\"path\":\"id\",\"type\":\"long\","
                     "\"value_count\":3,\"null_count\":0,\"lower_bound\":1,\"upper_bound\":1000}");
    expect_has(body, "{\"field_id\":2,\"name\":\"d\",\"path\":\"d\",\"type\":\"double\","
                     "\"value_count\":3,\"null_count\":1,\"lower_bound\":-0.0,"
                     "\"upper_bound\":\"Infinity\",\"nan_count\":1,\"size_bytes\":64}");
    expect_has(body, "{\"field_id\":4,\"name\":\"dec\",\"path\":\"dec\",\"type\":\"decimal\","
                     "\"value_count\":3,\"null_count\":0,\"lower_bound\":-1.50,"
                     "\"upper_bound\":12345678.90,\"type_params\":{\"precision\":10,\"scale\":2}}");
    expect_has(body, "{\"field_id\":8,\"name\":\"big\",\"path\":\"big\",\"type\":\"uint64\","
                     "\"value_count\":3,\"null_count\":0,\"lower_bound\":5,"
                     "\"upper_bound\":18446744073709551615}");
    expect_has(body, "{\"field_id\":12,\"name\":\"zip\",\"path\":\"addr.zip\",\"type\":\"string\","
                     "\"value_count\":3,\"null_count\":2,\"lower_bound\":\"02134\","
                     "\"upper_bound\":\"94105\"}");
    expect_has(body, "\"type\":\"timestamptz\"");
    expect_has(body, "\"type\":\"uuid\"");
    expect_has(body, "\"type\":\"boolean\"");
    expect_lacks(body, "no_stats_reason");
    free(body);
    json_t *st = get_ok(TBL "typed/files/%lld/stats", T2);
    assert_string_equal(jstr(st, "stats_state"), "pending");
    assert_int_equal(json_array_size(json_object_get(st, "columns")), 0);
    assert_true(strncmp(jstr(st, "no_stats_reason"), "pending", 7) == 0);
    json_decref(st);

    /* Promotions: bounds written at the old width decode at the new one
     * (int -> long as the same number, float -> double widened exactly),
     * and a read before the promotion still sees the old type. */
    typed_before_promotion = head_of(CAT);
    alter_ok("typed", "{'ops':[{'op':'promote_column','name':'n','to':'long'},"
                      "{'op':'promote_column','name':'f','to':'double'}]}");
    body = get_body(TBL "typed/scan?include=column_stats&stats_fields=9,10");
    expect_has(body, "\"column_stats\":[{\"field_id\":9,\"value_count\":3,\"null_count\":0,"
                     "\"lower_bound\":-7,\"upper_bound\":42},{\"field_id\":10,\"value_count\":3,"
                     "\"null_count\":0,\"lower_bound\":0.10000000149011612,\"upper_bound\":1.5}]");
    free(body);
    body = get_body(TBL "typed/files/%lld/stats", T1);
    expect_has(body, "\"field_id\":9,\"name\":\"n\",\"path\":\"n\",\"type\":\"long\"");
    expect_has(body, "\"type\":\"double\",\"value_count\":3,\"null_count\":0,"
                     "\"lower_bound\":0.10000000149011612");
    free(body);
    body =
        get_body(TBL "typed/files/%lld/stats?snapshot=%lld", T1, (long long)typed_before_promotion);
    expect_has(body, "\"field_id\":10,\"name\":\"f\",\"path\":\"f\",\"type\":\"float\","
                     "\"value_count\":3,\"null_count\":0,\"lower_bound\":0.1,");
    free(body);
}

static void dropped_columns_leave_the_statistics(void **state)
{
    (void)state;
    create_table("{'name':'drp','columns':[{'name':'a','type':'long'},{'name':'b','type':"
                 "'long'}]}");
    int64_t s = append("drp", "1", 2, 1,
                       ",'column_stats':[{'field_id':1,'value_count':2,'null_count':0,"
                       "'lower_bound':'BQAAAAAAAAA='},{'field_id':2,'value_count':2,"
                       "'null_count':0,'upper_bound':'BQAAAAAAAAA='}]");
    long long F = file_id("drp", "1");
    alter_ok("drp", "{'ops':[{'op':'drop_column','name':'b'}]}");
    json_t *st = get_ok(TBL "drp/files/%lld/stats", F);
    expect_json(json_object_get(st, "columns"),
                "[{\"field_id\":1,\"name\":\"a\",\"path\":\"a\",\"type\":\"long\","
                "\"value_count\":2,\"null_count\":0,\"lower_bound\":5,\"upper_bound\":null}]");
    json_decref(st);
    st = get_ok(TBL "drp/files/%lld/stats?snapshot=%lld", F, (long long)s);
    assert_int_equal(json_array_size(json_object_get(st, "columns")), 2);
    json_decref(st);
    json_t *a = get_ok(TBL "drp/scan?include=column_stats");
    expect_json(json_object_get(data_file_of(json_array_get(files_of(a), 0)), "column_stats"),
                "[{\"field_id\":1,\"value_count\":2,\"null_count\":0,\"lower_bound\":5,"
                "\"upper_bound\":null}]");
    json_decref(a);
    a = get_ok(TBL "drp/scan?include=column_stats&snapshot=%lld", (long long)s);
    assert_int_equal(json_array_size(json_object_get(data_file_of(json_array_get(files_of(a), 0)),
                                                     "column_stats")),
                     2);
    json_decref(a);
}

/* ---- GET .../scan ---- */

static void scan_pairs_deletion_vectors(void **state)
{
    (void)state;
    create_table("{'name':'dvt','columns':[{'name':'id','type':'long'}]}");
    create_table("{'name':'dvo','columns':[{'name':'id','type':'long'}]}");
    int64_t s1 = commit_ok("{'appends':[{'namespace':'" NS "','table':'dvt','files':["
                           "{'path':'" DATA "/dvt/1','record_count':100,'file_size_bytes':9},"
                           "{'path':'" DATA "/dvt/2','record_count':50,'file_size_bytes':9}]},"
                           "{'namespace':'" NS "','table':'dvo','files':[{'path':'" DATA
                           "/dvo/1','record_count':10,'file_size_bytes':9}]}]}");
    long long F1 = file_id("dvt", "1"), F2 = file_id("dvt", "2"), O1 = file_id("dvo", "1");
    int64_t s2 = delete_rows("dvt", s1, F1, "d1.puffin", 5);
    int64_t s3 =
        commit_ok("{'read_snapshot':%lld,'deletes':[{'namespace':'" NS "','table':'dvt',"
                  "'files':[{'data_file_id':%lld,'path':'" DATA "/dvt/d2.puffin',"
                  "'delete_count':9,'file_size_bytes':41},{'data_file_id':%lld,'path':'" DATA
                  "/dvt/d3.puffin','delete_count':1,'file_size_bytes':42}]},"
                  "{'namespace':'" NS "','table':'dvo','files':[{'data_file_id':%lld,"
                  "'path':'" DATA "/dvo/d.puffin','delete_count':2,'file_size_bytes':1}]}]}",
                  (long long)s2, F1, F2, O1);
    (void)s3;
    long long DV1 = sqli("SELECT delete_file_id FROM hog_delete_file WHERE path = '" DATA
                         "/dvt/d1.puffin'"),
              DV2 = sqli("SELECT delete_file_id FROM hog_delete_file WHERE path = '" DATA
                         "/dvt/d2.puffin'"),
              DV3 = sqli("SELECT delete_file_id FROM hog_delete_file WHERE path = '" DATA
                         "/dvt/d3.puffin'");
    /* Before any delete: no delete_file members. */
    json_t *a = get_ok(TBL "dvt/scan?snapshot=%lld", (long long)s1);
    expect_ids(a, 2, F1, F2);
    assert_null(json_object_get(scan_item(a, F1), "delete_file"));
    assert_null(json_object_get(scan_item(a, F2), "delete_file"));
    /* ScanFile: only data_file (and delete_file). */
    assert_int_equal(json_object_size(scan_item(a, F1)), 1);
    json_decref(a);
    a = get_ok(TBL "dvt/scan?snapshot=%lld", (long long)s2);
    char want[400];
    snprintf(want, sizeof want,
             "{\"delete_file_id\":%lld,\"data_file_id\":%lld,\"path\":\"" DATA
             "/dvt/d1.puffin\",\"file_format\":\"puffin-dv\",\"delete_count\":5,"
             "\"file_size_bytes\":40,\"begin_snapshot\":%lld}",
             DV1, F1, (long long)s2);
    expect_json(json_object_get(scan_item(a, F1), "delete_file"), want);
    assert_null(json_object_get(scan_item(a, F2), "delete_file"));
    json_decref(a);
    /* At the head the superseding vector, and the other file's own. */
    a = get_ok(TBL "dvt/scan");
    expect_ids(a, 2, F1, F2);
    assert_int_equal(jint(json_object_get(scan_item(a, F1), "delete_file"), "delete_file_id"), DV2);
    assert_int_equal(jint(json_object_get(scan_item(a, F1), "delete_file"), "delete_count"), 9);
    assert_int_equal(jint(json_object_get(scan_item(a, F2), "delete_file"), "delete_file_id"), DV3);
    json_decref(a);
    /* A truncate ends both; time travel still pairs them. */
    int64_t s4 = truncate_ok("dvt");
    a = get_ok(TBL "dvt/scan");
    expect_ids(a, 0);
    json_decref(a);
    a = get_ok(TBL "dvt/scan?snapshot=%lld", (long long)(s4 - 1));
    assert_int_equal(jint(json_object_get(scan_item(a, F1), "delete_file"), "delete_file_id"), DV2);
    json_decref(a);
    /* The other table is untouched. */
    a = get_ok(TBL "dvo/scan");
    expect_ids(a, 1, O1);
    assert_non_null(json_object_get(scan_item(a, O1), "delete_file"));
    json_decref(a);
}

static void scan_include_and_stats_fields(void **state)
{
    (void)state;
    create_table("{'name':'inc','columns':[{'name':'a','type':'long'},{'name':'b','type':'long'},"
                 "{'name':'c','type':'long'}]}");
    commit_ok("{'appends':[{'namespace':'" NS "','table':'inc','files':["
              "{'path':'" DATA "/inc/1','record_count':2,'file_size_bytes':200,"
              "'split_offsets':[4,100],'column_stats':[{'field_id':1,'value_count':2,"
              "'null_count':0,'lower_bound':'BQAAAAAAAAA=','upper_bound':'BQAAAAAAAAA='},"
              "{'field_id':2,'value_count':2,'null_count':2}]},"
              "{'path':'" DATA "/inc/2','record_count':2,'file_size_bytes':200,"
              "'column_stats':[]},"
              "{'path':'" DATA "/inc/3','record_count':2,'file_size_bytes':200,"
              "'split_offsets':[4]}]}]}");
    long long F1 = file_id("inc", "1"), F2 = file_id("inc", "2"), F3 = file_id("inc", "3");
    const char *s1 = "[{\"field_id\":1,\"value_count\":2,\"null_count\":0,\"lower_bound\":5,"
                     "\"upper_bound\":5},{\"field_id\":2,\"value_count\":2,\"null_count\":2,"
                     "\"lower_bound\":null,\"upper_bound\":null}]";

    /* Nothing asked: neither member. */
    json_t *a = get_ok(TBL "inc/scan");
    expect_ids(a, 3, F1, F2, F3);
    for (size_t i = 0; i < 3; i++) {
        const json_t *df = data_file_of(json_array_get(files_of(a), i));
        assert_null(json_object_get(df, "column_stats"));
        assert_null(json_object_get(df, "split_offsets"));
        assert_null(json_object_get(df, "ordering_bounds"));
    }
    json_decref(a);

    const char *both[] = {"include=column_stats,split_offsets",
                          "include=split_offsets,column_stats",
                          "include=column_stats&include=split_offsets",
                          "include=column_stats,column_stats&include=split_offsets",
                          "include=%20column_stats%20,split_offsets"};
    for (size_t k = 0; k < sizeof both / sizeof both[0]; k++) {
        a = get_ok(TBL "inc/scan?%s", both[k]);
        expect_json(json_object_get(data_file_of(scan_item(a, F1)), "column_stats"), s1);
        /* Provided without rows: an empty array. Pending: absent. */
        expect_json(json_object_get(data_file_of(scan_item(a, F2)), "column_stats"), "[]");
        assert_null(json_object_get(data_file_of(scan_item(a, F3)), "column_stats"));
        expect_json(json_object_get(data_file_of(scan_item(a, F1)), "split_offsets"), "[4,100]");
        assert_null(json_object_get(data_file_of(scan_item(a, F2)), "split_offsets"));
        expect_json(json_object_get(data_file_of(scan_item(a, F3)), "split_offsets"), "[4]");
        json_decref(a);
    }
    a = get_ok(TBL "inc/scan?include=column_stats");
    expect_json(json_object_get(data_file_of(scan_item(a, F1)), "column_stats"), s1);
    assert_null(json_object_get(data_file_of(scan_item(a, F1)), "split_offsets"));
    json_decref(a);
    a = get_ok(TBL "inc/scan?include=split_offsets");
    assert_null(json_object_get(data_file_of(scan_item(a, F1)), "column_stats"));
    expect_json(json_object_get(data_file_of(scan_item(a, F1)), "split_offsets"), "[4,100]");
    json_decref(a);

    /* stats_fields narrows the rows; lists and repeats union. */
    a = get_ok(TBL "inc/scan?include=column_stats&stats_fields=2");
    expect_json(json_object_get(data_file_of(scan_item(a, F1)), "column_stats"),
                "[{\"field_id\":2,\"value_count\":2,\"null_count\":2,\"lower_bound\":null,"
                "\"upper_bound\":null}]");
    expect_json(json_object_get(data_file_of(scan_item(a, F2)), "column_stats"), "[]");
    assert_null(json_object_get(data_file_of(scan_item(a, F3)), "column_stats"));
    json_decref(a);
    const char *union_forms[] = {"stats_fields=2,1", "stats_fields=2&stats_fields=1",
                                 "stats_fields=1,2,1,2", "stats_fields=%201%20,2,99"};
    for (size_t k = 0; k < sizeof union_forms / sizeof union_forms[0]; k++) {
        a = get_ok(TBL "inc/scan?include=column_stats&%s", union_forms[k]);
        expect_json(json_object_get(data_file_of(scan_item(a, F1)), "column_stats"), s1);
        json_decref(a);
    }
    /* A column without statistics, an unknown id: provided, no rows. */
    const char *empty_forms[] = {"stats_fields=3", "stats_fields=99", "stats_fields=-1"};
    for (size_t k = 0; k < sizeof empty_forms / sizeof empty_forms[0]; k++) {
        a = get_ok(TBL "inc/scan?include=column_stats&%s", empty_forms[k]);
        expect_json(json_object_get(data_file_of(scan_item(a, F1)), "column_stats"), "[]");
        assert_null(json_object_get(data_file_of(scan_item(a, F3)), "column_stats"));
        json_decref(a);
    }

    /* Malformed lists: 400. */
    get_fails(400, "bad_request", "non-empty values", TBL "inc/scan?include=");
    get_fails(400, "bad_request", "non-empty values", TBL "inc/scan?include=column_stats,");
    get_fails(400, "bad_request", "non-empty values", TBL "inc/scan?include=,column_stats");
    get_fails(400, "bad_request", "non-empty values", TBL "inc/scan?include=column_stats&include=");
    get_fails(400, "bad_request", "integer field ids",
              TBL "inc/scan?include=column_stats&stats_fields=a");
    get_fails(400, "bad_request", "integer field ids",
              TBL "inc/scan?include=column_stats&stats_fields=");
    get_fails(400, "bad_request", "integer field ids",
              TBL "inc/scan?include=column_stats&stats_fields=1,,2");
    get_fails(400, "bad_request", "integer field ids",
              TBL "inc/scan?include=column_stats&stats_fields=1.5");
    get_fails(400, "bad_request", "integer field ids",
              TBL "inc/scan?include=column_stats&stats_fields=99999999999999999999");
    /* Oversized: more than 16 distinct include values. Repeats of one
     * value are one value. */
    char q[1024] = "";
    size_t n = 0;
    for (int i = 0; i < 17; i++)
        n += (size_t)snprintf(q + n, sizeof q - n, "%sx%d", i ? "," : "", i);
    get_fails(400, "bad_request", "more than 16 distinct", TBL "inc/scan?include=%s", q);
    n = 0;
    for (int i = 0; i < 40; i++)
        n += (size_t)snprintf(q + n, sizeof q - n, "%scolumn_stats", i ? "," : "");
    a = get_ok(TBL "inc/scan?include=%s", q);
    json_decref(a);
    /* Well formed but unusable: 422, after every 400. */
    get_fails(422, "validation", "unknown value(s) 'bogus'; supported: column_stats",
              TBL "inc/scan?include=bogus");
    get_fails(422, "validation", "unknown value(s) 'x', 'y'",
              TBL "inc/scan?include=column_stats,x,y,x");
    get_fails(422, "validation", "'Column_Stats'", TBL "inc/scan?include=Column_Stats");
    get_fails(422, "validation", "stats_fields requires include=column_stats",
              TBL "inc/scan?stats_fields=1");
    get_fails(422, "validation", "stats_fields requires include=column_stats",
              TBL "inc/scan?include=split_offsets&stats_fields=1");
    get_fails(400, "bad_request", "integer field ids", TBL "inc/scan?include=bogus&stats_fields=x");
    get_fails(400, "bad_request", "non-empty values", TBL "inc/scan?include=&stats_fields=1");
    get_fails(400, "bad_request", "unknown query parameter 'sort'", TBL "inc/scan?sort=id");
}

/* A page holds at most 100,000 statistics entries: an unnarrowed scan of a
 * wide table comes in shorter pages, each file whole; stats_fields brings
 * the pages back to their full size. */
static void scan_pages_bound_statistics(void **state)
{
    (void)state;
    char *cols = malloc(64 * 1000 + 256);
    size_t n = (size_t)sprintf(cols, "{'name':'wide','columns':[");
    for (int i = 1; i <= 1000; i++)
        n += (size_t)sprintf(cols + n, "%s{'name':'c%d','type':'long'}", i > 1 ? "," : "", i);
    sprintf(cols + n, "]}");
    int64_t snap = create_table(cols);
    free(cols);
    int64_t c = cat_id(CAT), tid = table_id_of(CAT, NS, "wide");
    /* 1001 files with a statistics row for each of the 1000 columns. */
    int64_t base = sqli("UPDATE hog_catalog SET next_file_id = next_file_id + 1001"
                        " WHERE catalog_id = %lld RETURNING next_file_id - 1001",
                        (long long)c);
    sql_exec("INSERT INTO hog_data_file (catalog_id, data_file_id, table_id, begin_snapshot, path,"
             " record_count, file_size_bytes, row_id_start, stats_state)"
             " SELECT %lld, %lld + g, %lld, %lld, '" DATA "/wide/' || g, 1, 1, g, 'provided'"
             " FROM generate_series(0, 1000) g",
             (long long)c, (long long)base, (long long)tid, (long long)snap);
    /* Encoded by the SQL side of the layout, read by the server's. */
    sql_exec("UPDATE hog_data_file SET column_stats = (SELECT '\\x01'::bytea"
             " || string_agg(hog_column_stats_entry(f, 1, 0, NULL, NULL,"
             " '\\x0100000000000000'::bytea, NULL), ''::bytea ORDER BY f)"
             " FROM generate_series(1, 1000) f)"
             " WHERE catalog_id = %lld AND data_file_id BETWEEN %lld AND %lld + 1000",
             (long long)c, (long long)base, (long long)base);
    /* 100 files of 1000 entries fill a page; the next starts at file 101. */
    char *token;
    json_t *a = first_page(TBL "wide/scan?include=column_stats", 1000, &token);
    assert_int_equal(json_array_size(files_of(a)), 100);
    for (size_t i = 0; i < 100; i++)
        assert_int_equal(json_array_size(json_object_get(
                             data_file_of(json_array_get(files_of(a), i)), "column_stats")),
                         1000);
    assert_non_null(token);
    json_decref(a);
    a = get_ok(TBL "wide/scan?include=column_stats&page_token=%s", token);
    free(token);
    assert_int_equal(json_array_size(files_of(a)), 100);
    assert_int_equal(jint(data_file_of(json_array_get(files_of(a), 0)), "data_file_id"),
                     base + 100);
    json_decref(a);
    /* Narrowed: two pages of the default size, every file once. */
    int pages;
    a = all_pages(TBL "wide/scan?include=column_stats&stats_fields=7,1000", 0, &pages);
    assert_int_equal(pages, 2);
    assert_int_equal(json_array_size(files_of(a)), 1001);
    for (size_t i = 0; i < json_array_size(files_of(a)); i++) {
        const json_t *df = data_file_of(json_array_get(files_of(a), i));
        assert_int_equal(jint(df, "data_file_id"), base + (int64_t)i);
        assert_int_equal(json_array_size(json_object_get(df, "column_stats")), 2);
    }
    expect_json(
        json_array_get(
            json_object_get(data_file_of(json_array_get(files_of(a), 0)), "column_stats"), 0),
        "{\"field_id\":7,\"value_count\":1,\"null_count\":0,\"lower_bound\":1,"
        "\"upper_bound\":null}");
    json_decref(a);
    /* Without statistics, and the file listing: 1000 a page by default. */
    a = first_page(TBL "wide/scan", 1000, &token);
    assert_int_equal(json_array_size(files_of(a)), 1000);
    json_decref(a);
    free(token);
    a = get_ok(TBL "wide/files");
    assert_int_equal(json_array_size(files_of(a)), 1000);
    token = next_token_of(a);
    assert_non_null(token);
    json_decref(a);
    a = get_ok(TBL "wide/files?page_token=%s", token);
    free(token);
    assert_int_equal(json_array_size(files_of(a)), 1);
    assert_null(next_token_of(a));
    json_decref(a);
    a = get_ok(TBL "wide/files?sort=path&limit=3");
    assert_int_equal(json_array_size(files_of(a)), 3);
    json_decref(a);
}

/* ---- GET .../files/{file_id}/stats ---- */

static void file_stats_visibility_and_errors(void **state)
{
    (void)state;
    long long inc2 = file_id("inc", "2"), lst = file_id("lst", "c");
    json_t *st = get_ok(TBL "inc/files/%lld/stats", inc2);
    assert_string_equal(jstr(st, "stats_state"), "provided");
    assert_int_equal(json_array_size(json_object_get(st, "columns")), 0);
    assert_true(strncmp(jstr(st, "no_stats_reason"), "provided", 8) == 0);
    json_decref(st);
    long long failed = file_id("lst", "e");
    st = get_ok(TBL "lst/files/%lld/stats", failed);
    assert_string_equal(jstr(st, "stats_state"), "failed");
    assert_true(strncmp(jstr(st, "no_stats_reason"), "failed", 6) == 0);
    json_decref(st);
    /* Another table's file, an unknown id, a malformed id. */
    get_fails(404, "not_found", "data file", TBL "inc/files/%lld/stats", lst);
    get_fails(404, "not_found", "data file 999999999 in table 'ns.inc'",
              TBL "inc/files/999999999/stats");
    get_fails(400, "bad_request", "{file_id} must be an integer", TBL "inc/files/abc/stats");
    get_fails(400, "bad_request", "{file_id} must be an integer", TBL "inc/files/1x/stats");
    /* Not visible at the snapshot: before its commit, after a truncate. */
    int64_t born = sqli("SELECT begin_snapshot FROM hog_data_file WHERE data_file_id = %lld", inc2);
    get_fails(404, "not_found", "at snapshot", TBL "inc/files/%lld/stats?snapshot=%lld", inc2,
              (long long)born - 1);
    long long dvt1 = file_id("dvt", "1");
    get_fails(404, "not_found", "data file", TBL "dvt/files/%lld/stats", dvt1);
    int64_t truncated_at =
        sqli("SELECT end_snapshot FROM hog_data_file WHERE data_file_id = %lld", dvt1);
    st = get_ok(TBL "dvt/files/%lld/stats?snapshot=%lld", dvt1, (long long)truncated_at - 1);
    assert_string_equal(jstr(st, "stats_state"), "pending");
    json_decref(st);
    get_fails(400, "bad_request", "unknown query parameter 'include'",
              TBL "inc/files/%lld/stats?include=column_stats", inc2);
}

/* ---- time travel ---- */

static void time_travel_across_commits_truncate_and_drop(void **state)
{
    (void)state;
    int64_t born = create_table("{'name':'tt','columns':[{'name':'id','type':'long'}]}");
    int64_t s1 = append("tt", "1", 1, 1, NULL);
    int64_t s2 = append("tt", "2", 1, 1, NULL);
    int64_t s3 = truncate_ok("tt");
    int64_t s4 = append("tt", "3", 1, 1, NULL);
    long long G1 = file_id("tt", "1"), G2 = file_id("tt", "2"), G3 = file_id("tt", "3");
    char q[64];
    snprintf(q, sizeof q, "?snapshot=%lld", (long long)born);
    EXPECT_FILES("tt", q, 0);
    snprintf(q, sizeof q, "?snapshot=%lld", (long long)s1);
    EXPECT_FILES("tt", q, 1, G1);
    snprintf(q, sizeof q, "?snapshot=%lld", (long long)s2);
    EXPECT_FILES("tt", q, 2, G1, G2);
    snprintf(q, sizeof q, "?snapshot=%lld", (long long)s3);
    EXPECT_FILES("tt", q, 0);
    snprintf(q, sizeof q, "?snapshot=%lld", (long long)s4);
    EXPECT_FILES("tt", q, 1, G3);
    EXPECT_FILES("tt", "", 1, G3);
    json_t *a = get_ok(TBL "tt/scan?snapshot=%lld", (long long)s2);
    expect_ids(a, 2, G1, G2);
    json_decref(a);
    /* at_timestamp resolves to the newest snapshot at or before it. */
    char ts[64];
    snapshot_time(s2, ts, sizeof ts);
    a = get_ok(TBL "tt/files?at_timestamp=%s", ts);
    expect_ids(a, 2, G1, G2);
    json_decref(a);
    a = get_ok(TBL "tt/scan?at_timestamp=%s", ts);
    expect_ids(a, 2, G1, G2);
    json_decref(a);
    json_t *st = get_ok(TBL "tt/files/%lld/stats?at_timestamp=%s", G2, ts);
    assert_int_equal(jint(st, "data_file_id"), G2);
    json_decref(st);
    a = get_ok(TBL "tt/files?at_timestamp=2999-01-01T00:00:00Z");
    expect_ids(a, 1, G3);
    json_decref(a);
    /* The table is not visible before its creation. */
    const char *paths[] = {"files", "scan", "files/1/stats"};
    for (size_t i = 0; i < 3; i++) {
        get_fails(404, "not_found", "at snapshot", TBL "tt/%s?snapshot=%lld", paths[i],
                  (long long)born - 1);
        get_fails(422, "validation", "mutually exclusive",
                  TBL "tt/%s?snapshot=1&at_timestamp=2026-01-01T00:00:00Z", paths[i]);
        get_fails(400, "bad_request", "'snapshot' must be an integer", TBL "tt/%s?snapshot=x",
                  paths[i]);
        get_fails(422, "validation", "out of range", TBL "tt/%s?snapshot=999999", paths[i]);
        get_fails(400, "bad_request", "at_timestamp", TBL "tt/%s?at_timestamp=yesterday", paths[i]);
    }
    /* Dropped: gone at the head, still there before the drop; a new
     * incarnation under the name starts empty. */
    struct http_result r;
    api_delete(&r, &srv, TBL "tt");
    expect_status(&r, 200);
    int64_t dropped = jint(r.json, "snapshot_id");
    http_result_free(&r);
    get_fails(404, "not_found", "table 'ns.tt'", TBL "tt/files");
    get_fails(404, "not_found", "table 'ns.tt'", TBL "tt/scan");
    snprintf(q, sizeof q, "?snapshot=%lld", (long long)dropped - 1);
    EXPECT_FILES("tt", q, 1, G3);
    create_table("{'name':'tt','columns':[{'name':'id','type':'long'}]}");
    EXPECT_FILES("tt", "", 0);
    EXPECT_FILES("tt", q, 1, G3);
    get_fails(404, "not_found", "data file", TBL "tt/files/%lld/stats", G3);
}

/* Reads below the expiry floor are 410 on every endpoint. */
static void reads_below_the_floor_are_410(void **state)
{
    (void)state;
    make_catalog(&srv, "old");
    make_namespace(&srv, "old", NS);
    json_t *t = make_table(&srv, "old", NS, "t", "[{\"name\":\"id\",\"type\":\"long\"}]");
    json_decref(t);
    struct http_result r;
    char *b = dq("{'appends':[{'namespace':'" NS "','table':'t','files':[{'path':"
                 "'s3://hoglake-test/old/1','record_count':1,'file_size_bytes':1}]}]}");
    api_send_text(&r, &srv, "POST", b, "/v1/catalogs/old/commit");
    free(b);
    expect_status(&r, 200);
    int64_t s = jint(r.json, "snapshot_id");
    http_result_free(&r);
    long long f = sqli("SELECT data_file_id FROM hog_data_file WHERE path = "
                       "'s3://hoglake-test/old/1'");
    sql_exec("UPDATE hog_catalog SET earliest_snapshot_id = %lld,"
             " earliest_snapshot_time = now() WHERE name = 'old'",
             (long long)s);
#define OLD "/v1/catalogs/old/namespaces/" NS "/tables/t/"
    get_fails(410, "expired", "below the expiry floor", OLD "files?snapshot=%lld",
              (long long)s - 1);
    get_fails(410, "expired", "below the expiry floor", OLD "scan?snapshot=%lld", (long long)s - 1);
    get_fails(410, "expired", "below the expiry floor", OLD "files/%lld/stats?snapshot=%lld", f,
              (long long)s - 1);
    get_fails(410, "expired", "from_snapshot", OLD "changes?from_snapshot=%lld", (long long)s - 1);
    /* An instant after the catalog's creation whose snapshots are gone is
     * expired; one before its creation never had any (404). */
    long long before_floor =
        sqli("SELECT (extract(epoch FROM snapshot_time) * 1000000)::bigint - 1 FROM hog_snapshot"
             " WHERE catalog_id = %lld AND snapshot_id = %lld",
             (long long)cat_id("old"), (long long)s);
    time_t secs = (time_t)(before_floor / 1000000);
    struct tm tm;
    gmtime_r(&secs, &tm);
    char at[64], base[32];
    strftime(base, sizeof base, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(at, sizeof at, "%s.%06lldZ", base, before_floor % 1000000);
    get_fails(410, "expired", "before the earliest retained snapshot", OLD "files?at_timestamp=%s",
              at);
    get_fails(410, "expired", NULL, OLD "scan?at_timestamp=%s", at);
    get_fails(404, "before_catalog", "catalog 'old' did not exist at 2000-01-01T00:00:00Z",
              OLD "files?at_timestamp=2000-01-01T00:00:00Z");
    get_fails(404, "before_catalog", NULL, OLD "scan?at_timestamp=2000-01-01T00:00:00Z");
    /* At the floor itself everything reads. */
    json_t *a = get_ok(OLD "files?snapshot=%lld", (long long)s);
    expect_ids(a, 1, f);
    json_decref(a);
    a = get_ok(OLD "changes?from_snapshot=%lld", (long long)s);
    assert_int_equal(json_array_size(json_object_get(a, "files")), 0);
    json_decref(a);
#undef OLD
}

/* ---- GET .../changes ---- */

static void changes_windows(void **state)
{
    (void)state;
    int64_t c0 = create_table("{'name':'chg','columns':[{'name':'id','type':'long'}]}");
    char uuid[64];
    uuid_of("chg", uuid, sizeof uuid);
    int64_t s1 = commit_ok("{'appends':[{'namespace':'" NS "','table':'chg','files':["
                           "{'path':'" DATA "/chg/1','record_count':4,'file_size_bytes':1},"
                           "{'path':'" DATA "/chg/2','record_count':4,'file_size_bytes':1}]}]}");
    int64_t s2 = append("chg", "3", 4, 1, NULL);
    long long H1 = file_id("chg", "1"), H2 = file_id("chg", "2"), H3 = file_id("chg", "3");
    int64_t s3 = delete_rows("chg", s2, H1, "d1.puffin", 2);
    long long DV =
        sqli("SELECT delete_file_id FROM hog_delete_file WHERE path = '" DATA "/chg/d1.puffin'");
    /* A compaction (written as the compactor writes it): H2 and H3 end,
     * one output begins, the snapshot says table_compacted. */
    int64_t s4 = sql_snapshot("chg", "table_compacted");
    long long H4 = sqli("UPDATE hog_catalog SET next_file_id = next_file_id + 1"
                        " WHERE name = '" CAT "' RETURNING next_file_id - 1");
    sql_exec("UPDATE hog_data_file SET end_snapshot = %lld WHERE data_file_id IN (%lld, %lld)",
             (long long)s4, H2, H3);
    sql_exec("INSERT INTO hog_data_file (catalog_id, data_file_id, table_id, begin_snapshot, path,"
             " record_count, file_size_bytes, row_id_start, stats_state, explicit_row_ids)"
             " VALUES (%lld, %lld, %lld, %lld, '" DATA "/chg/compacted', 8, 1, 4, 'provided',"
             " true)",
             (long long)cat_id(CAT), H4, (long long)table_id_of(CAT, NS, "chg"), (long long)s4);
    int64_t s5 = append("chg", "5", 1, 1, NULL);
    long long H5 = file_id("chg", "5");
    int64_t s6 = truncate_ok("chg");
    int64_t s7 = append("chg", "6", 1, 1, NULL);
    long long H6 = file_id("chg", "6");

    /* (c0, s5]: every append but the compaction output, and the vector. */
    json_t *p =
        get_ok(TBL "chg/changes?from_snapshot=%lld&to_snapshot=%lld", (long long)c0, (long long)s5);
    assert_string_equal(jstr(p, "table_uuid"), uuid);
    assert_int_equal(jint(p, "from_snapshot"), c0);
    assert_int_equal(jint(p, "to_snapshot"), s5);
    expect_ids(json_object_get(p, "files"), 4, H1, H2, H3, H5);
    json_t *dvs = json_object_get(p, "delete_files");
    assert_int_equal(json_array_size(dvs), 1);
    char want[400];
    snprintf(want, sizeof want,
             "{\"delete_file_id\":%lld,\"data_file_id\":%lld,\"path\":\"" DATA
             "/chg/d1.puffin\",\"file_format\":\"puffin-dv\",\"delete_count\":2,"
             "\"file_size_bytes\":40,\"begin_snapshot\":%lld}",
             DV, H1, (long long)s3);
    /* The DeleteFile, with its target rendered as the files are and no
     * vector before it. */
    const json_t *h1 = find_file(json_object_get(p, "files"), H1);
    json_t *dv_want = jparse(want);
    json_object_set_new(dv_want, "data_file", json_deep_copy(h1));
    json_object_set_new(dv_want, "superseded_delete_file", json_null());
    char *dv_text = json_dumps(dv_want, JSON_COMPACT);
    expect_json(json_array_get(dvs, 0), dv_text);
    free(dv_text);
    json_decref(dv_want);
    /* DataFile members, without ordering bounds. */
    assert_int_equal(jint(h1, "begin_snapshot"), s1);
    assert_null(json_object_get(h1, "ordering_bounds"));
    assert_string_equal(jstr(h1, "file_format"), "parquet");
    json_decref(p);
    /* Narrow windows. */
    p = get_ok(TBL "chg/changes?from_snapshot=%lld&to_snapshot=%lld", (long long)s1, (long long)s2);
    expect_ids(json_object_get(p, "files"), 1, H3);
    assert_int_equal(json_array_size(json_object_get(p, "delete_files")), 0);
    json_decref(p);
    p = get_ok(TBL "chg/changes?from_snapshot=%lld&to_snapshot=%lld", (long long)s2, (long long)s3);
    expect_ids(json_object_get(p, "files"), 0);
    assert_int_equal(json_array_size(json_object_get(p, "delete_files")), 1);
    json_decref(p);
    p = get_ok(TBL "chg/changes?from_snapshot=%lld&to_snapshot=%lld", (long long)s3, (long long)s4);
    expect_ids(json_object_get(p, "files"), 0);
    json_decref(p);
    p = get_ok(TBL "chg/changes?from_snapshot=%lld&to_snapshot=%lld", (long long)s2, (long long)s2);
    expect_ids(json_object_get(p, "files"), 0);
    assert_int_equal(jint(p, "from_snapshot"), s2);
    json_decref(p);
    /* Crossing the truncate: 409; starting exactly at it is fine, and
     * to_snapshot defaults to the head. */
    get_fails(409, "reconciliation_required", "truncated at snapshot",
              TBL "chg/changes?from_snapshot=%lld", (long long)c0);
    get_fails(409, "reconciliation_required", NULL,
              TBL "chg/changes?from_snapshot=%lld&to_snapshot=%lld", (long long)s5, (long long)s6);
    p = get_ok(TBL "chg/changes?from_snapshot=%lld", (long long)s6);
    expect_ids(json_object_get(p, "files"), 1, H6);
    assert_int_equal(jint(p, "to_snapshot"), head_of(CAT));
    json_decref(p);
    p = get_ok(TBL "chg/changes?from_snapshot=%lld&to_snapshot=%lld", (long long)s6, (long long)s7);
    expect_ids(json_object_get(p, "files"), 1, H6);
    json_decref(p);
    p = get_ok(TBL "chg/changes?from_snapshot=%lld&to_snapshot=%lld", (long long)s5, (long long)s5);
    expect_ids(json_object_get(p, "files"), 0);
    json_decref(p);
    /* Other DDL (an alter) is not a truncate. */
    int64_t s8 = alter_ok("chg", "{'ops':[{'op':'set_table_comment','comment':'x'}]}");
    p = get_ok(TBL "chg/changes?from_snapshot=%lld&to_snapshot=%lld", (long long)s7, (long long)s8);
    expect_ids(json_object_get(p, "files"), 0);
    json_decref(p);

    /* Errors. */
    get_fails(400, "bad_request", "'from_snapshot' is required", TBL "chg/changes");
    get_fails(400, "bad_request", "'from_snapshot' is required", TBL "chg/changes?to_snapshot=%lld",
              (long long)s5);
    get_fails(400, "bad_request", "'from_snapshot' must be an integer",
              TBL "chg/changes?from_snapshot=x");
    get_fails(400, "bad_request", "'to_snapshot' must be an integer",
              TBL "chg/changes?from_snapshot=1&to_snapshot=x");
    get_fails(422, "validation", "is after to_snapshot",
              TBL "chg/changes?from_snapshot=%lld&to_snapshot=%lld", (long long)s5, (long long)s4);
    get_fails(422, "validation", "is after the head",
              TBL "chg/changes?from_snapshot=0&to_snapshot=%lld", (long long)head_of(CAT) + 1);
    get_fails(422, "validation", ">= 0", TBL "chg/changes?from_snapshot=-1");
    get_fails(400, "bad_request", "unknown query parameter 'snapshot'",
              TBL "chg/changes?from_snapshot=0&snapshot=1");
    /* The table must be visible at the window's end. */
    get_fails(404, "not_found", "at snapshot", TBL "chg/changes?from_snapshot=0&to_snapshot=%lld",
              (long long)c0 - 1);
}

/* ---- paging ---- */

static int64_t pg_created;
static long long PG1;

/* A table whose listings need several pages in every order: files in
 * several commits (an empty one among them, pending, failed and provided
 * statistics, two partitions), deletion vectors, split offsets. */
static void make_paged_table(void)
{
    pg_created = create_table("{'name':'pgd','columns':[{'name':'k','type':'string'},"
                              "{'name':'n','type':'long'}],'partition_fields':"
                              "[{'source_field_id':1,'transform':'identity'}]}");
    int64_t read = head_of(CAT);
    char files[8192];
    for (int c = 0; c < 3; c++) {
        size_t n = 0;
        for (int i = 0; i < 6; i++)
            n += (size_t)snprintf(files + n, sizeof files - n,
                                  "%s{'path':'" DATA "/pgd/%d-%d','record_count':%d,"
                                  "'file_size_bytes':%d,'partition_values':['%s']%s%s}",
                                  i ? "," : "", c, i, (i * 7 + c) % 5, 100 + (i * 13 + c * 5) % 7,
                                  i % 2 ? "a" : "b", i % 3 ? ",'column_stats':[]" : "",
                                  i == 4 ? ",'split_offsets':[4]" : "");
        read = commit_ok("{'read_snapshot':%lld,'appends':[{'namespace':'" NS "','table':'pgd',"
                         "'files':[%s]}]}",
                         (long long)read, files);
    }
    PG1 = file_id("pgd", "0-0");
    sql_exec("UPDATE hog_data_file SET stats_state = 'failed' WHERE data_file_id = %lld", PG1 + 3);
    /* Vectors on files with rows: the second, third and fifth. */
    static const int targets[] = {1, 2, 4};
    for (int i = 0; i < 3; i++) {
        char name[16];
        snprintf(name, sizeof name, "d%d.puffin", i);
        read = delete_rows("pgd", read, PG1 + targets[i], name, 1 + i);
    }
}

/* Every listing, in pages of any size, is its one-page listing exactly:
 * each entry once, in order, whatever the sort, filter or window. */
static void pages_tile_every_listing(void **state)
{
    (void)state;
    make_paged_table();
    static const char *const sorts[] = {"id",   "path",  "record_count",
                                        "size", "stats", "begin_snapshot"};
    for (size_t i = 0; i < sizeof sorts / sizeof sorts[0]; i++) {
        for (int desc = 0; desc < 2; desc++) {
            char path[200];
            snprintf(path, sizeof path, TBL "pgd/files?sort=%s&order=%s", sorts[i],
                     desc ? "desc" : "asc");
            /* Pages of 1 to 5: every key a boundary somewhere. */
            expect_pages_tile(path, 1 + (int)(2 * i + (size_t)desc) % 5);
        }
    }
    expect_pages_tile(TBL "pgd/files?partition=0:a", 2);
    expect_pages_tile(TBL "pgd/files?partition=0:b&sort=path&order=desc", 3);
    expect_pages_tile(TBL "pgd/scan", 1);
    expect_pages_tile(TBL "pgd/scan?include=column_stats,split_offsets", 4);
    char path[200];
    snprintf(path, sizeof path, TBL "pgd/scan?snapshot=%lld", (long long)head_of(CAT) - 2);
    expect_pages_tile(path, 5);
    /* The changes: the files, then the vectors, across page boundaries,
     * and a page the files fill exactly (the next starts the vectors). */
    snprintf(path, sizeof path, TBL "pgd/changes?from_snapshot=%lld", (long long)pg_created);
    expect_pages_tile(path, 1);
    expect_pages_tile(path, 5);
    expect_pages_tile(path, 19);
    int pages;
    json_t *all = all_pages(path, 18, &pages);
    assert_int_equal(pages, 2);
    assert_int_equal(json_array_size(json_object_get(all, "files")), 18);
    assert_int_equal(json_array_size(json_object_get(all, "delete_files")), 3);
    json_decref(all);
    /* offset still works, and its page's token continues after it. */
    json_t *whole = get_ok(TBL "pgd/files?sort=size");
    char *token;
    json_t *page = first_page(TBL "pgd/files?sort=size&offset=5", 3, &token);
    json_t *next = get_ok(TBL "pgd/files?sort=size&limit=3&page_token=%s", token);
    free(token);
    for (size_t i = 0; i < 6; i++)
        assert_int_equal(jint(json_array_get(files_of(i < 3 ? page : next), i % 3), "data_file_id"),
                         jint(json_array_get(files_of(whole), i + 5), "data_file_id"));
    json_decref(whole);
    json_decref(page);
    json_decref(next);
}

/* A listing's pages all read the snapshot its first page read, however
 * many commits land in between (and even a truncate). */
static void tokens_pin_the_snapshot(void **state)
{
    (void)state;
    create_table("{'name':'pin','columns':[{'name':'id','type':'long'}]}");
    int64_t from = head_of(CAT);
    for (int i = 0; i < 6; i++) {
        char name[8];
        snprintf(name, sizeof name, "%d", i);
        append("pin", name, 1, 1, NULL);
    }
    int64_t pinned = head_of(CAT);
    char changes[200];
    snprintf(changes, sizeof changes, TBL "pin/changes?from_snapshot=%lld", (long long)from);
    const char *paths[] = {TBL "pin/files", TBL "pin/scan", changes};
    json_t *firsts[3];
    char *tokens[3];
    for (int k = 0; k < 3; k++)
        firsts[k] = first_page(paths[k], 2, &tokens[k]);
    /* Commits land: more files, a truncate, more files. */
    append("pin", "6", 1, 1, NULL);
    truncate_ok("pin");
    append("pin", "7", 1, 1, NULL);
    for (int k = 0; k < 3; k++) {
        json_t *all = json_object();
        gather(all, firsts[k]);
        json_decref(firsts[k]);
        char *token = tokens[k];
        while (token) {
            json_t *page = get_ok("%s%climit=2&page_token=%s", paths[k], k == 2 ? '&' : '?', token);
            free(token);
            gather(all, page);
            token = next_token_of(page);
            json_decref(page);
        }
        /* Exactly the listing at the first page's snapshot. */
        char at[240];
        if (k == 2)
            snprintf(at, sizeof at, "%s&to_snapshot=%lld", paths[k], (long long)pinned);
        else
            snprintf(at, sizeof at, "%s?snapshot=%lld", paths[k], (long long)pinned);
        json_t *then = all_pages(at, 0, NULL);
        assert_true(json_equal(all, then));
        assert_int_equal(json_array_size(files_of(json_object_get(all, "files"))), 6);
        json_decref(then);
        json_decref(all);
    }
    /* A new listing reads the head. */
    json_t *now = get_ok(TBL "pin/files");
    expect_ids(now, 1, (long long)file_id("pin", "7"));
    json_decref(now);
}

/* Replaces the hex digit at i (from the end when negative) with another. */
static char *tampered(const char *token, int i)
{
    char *t = strdup(token);
    size_t at = i < 0 ? strlen(t) - (size_t)-i : (size_t)i;
    t[at] = t[at] == '0' ? '1' : '0';
    return t;
}

/* Tokens that are not this listing's are 400, never a 500: garbage,
 * tampered or cut, another kind of listing, another table or catalog,
 * other parameters, another window. Below the floor they are 410. */
static void page_token_errors(void **state)
{
    (void)state;
    char *files, *scan, *changes, *sized;
    json_decref(first_page(TBL "pgd/files", 2, &files));
    json_decref(first_page(TBL "pgd/scan", 2, &scan));
    json_decref(first_page(TBL "pgd/files?sort=size", 2, &sized));
    char path[200];
    snprintf(path, sizeof path, TBL "pgd/changes?from_snapshot=%lld", (long long)pg_created);
    json_decref(first_page(path, 2, &changes));
    const char *not_ours = "not a page token this server issued";
    get_fails(400, "bad_request", not_ours, TBL "pgd/files?page_token=xyz");
    get_fails(400, "bad_request", not_ours, TBL "pgd/files?page_token=abc");
    get_fails(400, "bad_request", not_ours, TBL "pgd/files?page_token=");
    get_fails(400, "bad_request", not_ours, TBL "pgd/files?page_token=%0128d", 0);
    char *bad = tampered(files, -1); /* the check */
    get_fails(400, "bad_request", not_ours, TBL "pgd/files?page_token=%s", bad);
    free(bad);
    bad = tampered(files, -20); /* the key */
    get_fails(400, "bad_request", not_ours, TBL "pgd/files?page_token=%s", bad);
    free(bad);
    bad = tampered(files, 9); /* the catalog */
    get_fails(400, "bad_request", not_ours, TBL "pgd/files?page_token=%s", bad);
    free(bad);
    get_fails(400, "bad_request", not_ours, TBL "pgd/files?page_token=%.*s", (int)strlen(files) - 2,
              files);
    get_fails(400, "bad_request", not_ours, TBL "pgd/files?page_token=%s00", files);
    /* Another kind of listing. */
    get_fails(400, "bad_request", "continues a scan plan, not a file listing",
              TBL "pgd/files?page_token=%s", scan);
    get_fails(400, "bad_request", "continues a file listing, not a scan plan",
              TBL "pgd/scan?page_token=%s", files);
    get_fails(400, "bad_request", "continues a file listing, not a changes plan",
              "%s&page_token=%s", path, files);
    /* Other parameters: a sort, an order, a filter, a snapshot, a window. */
    const char *other = "issued for a listing with other query parameters";
    get_fails(400, "bad_request", other, TBL "pgd/files?sort=id&page_token=%s", sized);
    get_fails(400, "bad_request", other, TBL "pgd/files?sort=size&order=desc&page_token=%s", sized);
    get_fails(400, "bad_request", other, TBL "pgd/files?partition=0:a&page_token=%s", files);
    get_fails(400, "bad_request", other, TBL "pgd/files?snapshot=%lld&page_token=%s",
              (long long)head_of(CAT), files);
    get_fails(400, "bad_request", other, TBL "pgd/scan?include=column_stats&page_token=%s", scan);
    get_fails(400, "bad_request", other, "%s&to_snapshot=%lld&page_token=%s", path,
              (long long)head_of(CAT), changes);
    get_fails(400, "bad_request", other, TBL "pgd/changes?from_snapshot=0&page_token=%s", changes);
    /* Another table, another catalog (same names, same parameters). */
    get_fails(400, "bad_request", "issued for another table", TBL "lst/files?page_token=%s", files);
    get_fails(400, "bad_request", "issued for another table", TBL "lst/scan?page_token=%s", scan);
    make_catalog(&srv, "rd2");
    make_namespace(&srv, "rd2", NS);
    json_decref(make_table(&srv, "rd2", NS, "pgd", "[{\"name\":\"id\",\"type\":\"long\"}]"));
    get_fails(400, "bad_request", "issued for another catalog",
              "/v1/catalogs/rd2/namespaces/" NS "/tables/pgd/files?page_token=%s", files);
    /* offset says where a page starts, and so does a token. */
    get_fails(422, "validation", "offset and page_token are mutually exclusive",
              TBL "pgd/files?offset=1&page_token=%s", files);
    /* limit: not an integer, below 1; above the maximum it is clamped. */
    const char *routes[] = {TBL "pgd/files", TBL "pgd/scan", path};
    for (int k = 0; k < 3; k++) {
        char sep = strchr(routes[k], '?') ? '&' : '?';
        get_fails(400, "bad_request", "'limit' must be an integer", "%s%climit=ten", routes[k],
                  sep);
        get_fails(422, "validation", "limit must be >= 1, got 0", "%s%climit=0", routes[k], sep);
        get_fails(422, "validation", "limit must be >= 1, got -1", "%s%climit=-1", routes[k], sep);
        json_decref(get_ok("%s%climit=9223372036854775807", routes[k], sep));
    }
    /* The listing's snapshot expired since its first page: 410. */
    append("lst", "after-the-tokens", 1, 1, NULL);
    int64_t floor = sqli("SELECT earliest_snapshot_id FROM hog_catalog WHERE name = '" CAT "'");
    sql_exec("UPDATE hog_catalog SET earliest_snapshot_id = last_snapshot_id WHERE name = '" CAT
             "'");
    get_fails(410, "expired", "page_token's snapshot", TBL "pgd/files?page_token=%s", files);
    get_fails(410, "expired", "page_token's snapshot", TBL "pgd/scan?page_token=%s", scan);
    sql_exec("UPDATE hog_catalog SET earliest_snapshot_id = %lld WHERE name = '" CAT "'",
             (long long)floor);
    json_decref(get_ok(TBL "pgd/files?page_token=%s", files));
    free(files);
    free(scan);
    free(changes);
    free(sized);
}

/* --page-size-max caps every page, and the default page with it. */
static void page_size_max_caps_pages(void **state)
{
    (void)state;
    struct test_server small;
    const char *extra[] = {"--page-size-max", "2", NULL};
    test_server_start(&small, &db, extra);
    const char *routes[] = {TBL "pgd/files", TBL "pgd/scan", TBL "pgd/files?limit=5",
                            TBL "pgd/scan?limit=3"};
    for (size_t k = 0; k < sizeof routes / sizeof routes[0]; k++) {
        json_t *page = api_get_json(&small, "%s", routes[k]);
        assert_int_equal(json_array_size(files_of(page)), 2);
        char *token = next_token_of(page);
        assert_non_null(token);
        free(token);
        json_decref(page);
    }
    json_t *page =
        api_get_json(&small, TBL "pgd/changes?from_snapshot=%lld&limit=100", (long long)pg_created);
    assert_int_equal(json_array_size(json_object_get(page, "files")), 2);
    json_decref(page);
    test_server_stop(&small);
}

/* ---- --page-bytes-max ---- */

/* What an entry of a page weighs of itself against --page-bytes-max: its
 * file's path and partition values (their JSON text as stored), and the
 * paths of the vectors it carries (a scan file's, a changefeed vector's
 * and the one it superseded). */
static int64_t entry_weight(const json_t *entry)
{
    const json_t *df = data_file_of(entry);
    int64_t w = (int64_t)strlen(jstr(df, "path"));
    w += sqli("SELECT coalesce(octet_length(json_agg(value ORDER BY key_index)::text), 0)"
              " FROM hog_file_partition_value WHERE catalog_id = %lld AND data_file_id = %lld",
              (long long)cat_id(CAT), (long long)jint(df, "data_file_id"));
    const json_t *dv = json_object_get(entry, "delete_file");
    if (dv)
        w += (int64_t)strlen(jstr(dv, "path"));
    if (json_object_get(entry, "delete_file_id")) {
        w += (int64_t)strlen(jstr(entry, "path"));
        const json_t *old = json_object_get(entry, "superseded_delete_file");
        if (json_is_object(old))
            w += (int64_t)strlen(jstr(old, "path"));
    }
    return w;
}

/* A page's entries: its files, then (a changefeed page's) its vectors. */
static json_t *page_entries(const json_t *page)
{
    json_t *all = json_array();
    json_array_extend(all, (json_t *)files_of(page));
    const json_t *dvs = json_object_get(page, "delete_files");
    if (dvs)
        json_array_extend(all, (json_t *)dvs);
    return all;
}

/* Walks every page of GET `path` on server `s` (limit 10000, so only the
 * byte budget ends a page) and checks each against the bytes of its
 * entries (entry_weight, and `weight`, an SQL expression over
 * hog_data_file for what the page carries besides): the entries before a
 * page's last one weigh less than the budget, and a page that is not the
 * last weighs at least the budget (the next entry would have fitted
 * otherwise). Each file must carry `member` (its statistics or offsets,
 * never dropped for the budget) when `with` says so. Returns every page's
 * entries in order, and *npages the count. */
static json_t *budget_pages(struct test_server *s, const char *path, int64_t budget,
                            const char *weight, const char *member, const char *with, int *npages)
{
    json_t *all = json_array();
    char *token = NULL;
    *npages = 0;
    do {
        char sep = strchr(path, '?') ? '&' : '?';
        json_t *page = token ? api_get_json(s, "%s%climit=10000&page_token=%s", path, sep, token)
                             : api_get_json(s, "%s%climit=10000", path, sep);
        free(token);
        token = next_token_of(page);
        json_t *entries = page_entries(page);
        size_t n = json_array_size(entries);
        assert_true(n > 0);
        int64_t before_last = 0, total = 0;
        for (size_t i = 0; i < n; i++) {
            const json_t *df = data_file_of(json_array_get(entries, i));
            long long id = (long long)jint(df, "data_file_id");
            int64_t w = entry_weight(json_array_get(entries, i)) +
                        sqli("SELECT %s FROM hog_data_file WHERE data_file_id = %lld", weight, id);
            if (i + 1 < n)
                before_last += w;
            total += w;
            if (sqli("SELECT (%s)::int FROM hog_data_file WHERE data_file_id = %lld", with, id))
                assert_non_null(json_object_get(df, member));
        }
        json_array_extend(all, entries);
        if (before_last >= budget)
            fail_msg("%s page %d: %lld bytes before its last entry, budget %lld", path, *npages,
                     (long long)before_last, (long long)budget);
        if (token && total < budget)
            fail_msg("%s page %d: ended at %lld bytes, under the budget %lld", path, *npages,
                     (long long)total, (long long)budget);
        json_decref(entries);
        json_decref(page);
        ++*npages;
    } while (token);
    return all;
}

/* The same entries, in the same order, as one page of the default server. */
static void expect_same_files(json_t *paged, const char *path)
{
    json_t *whole = get_ok("%s%climit=10000", path, strchr(path, '?') ? '&' : '?');
    assert_null(next_token_of(whole));
    json_t *entries = page_entries(whole);
    if (!json_equal(paged, entries)) {
        char *a = json_dumps(paged, JSON_COMPACT), *b = json_dumps(entries, JSON_COMPACT);
        fail_msg("%s under the byte budget:\n%s\nin one page:\n%s", path, a, b);
    }
    json_decref(entries);
    json_decref(whole);
    json_decref(paged);
}

/* A page ends before the file that would take its statistics, split
 * offsets or ordering statistics to --page-bytes-max; a file alone over
 * it still makes a page; the pages hold every file once, complete. */
static void page_bytes_max_ends_pages(void **state)
{
    (void)state;
    char cols[4096];
    size_t n = (size_t)sprintf(cols, "{'name':'heavy','columns':[");
    for (int i = 1; i <= 50; i++)
        n += (size_t)sprintf(cols + n, "%s{'name':'c%d','type':'long'}", i > 1 ? "," : "", i);
    sprintf(cols + n, "],'sort_fields':[{'source_field_id':1}]}");
    int64_t snap = create_table(cols);
    long long c = (long long)cat_id(CAT), tid = (long long)table_id_of(CAT, NS, "heavy");
    /* 40 files; file g has statistics for columns 1..k, k from 1 to 50
     * (about 14 bytes a column), and 20 * (g % 5) split offsets. */
    long long base = (long long)sqli("UPDATE hog_catalog SET next_file_id = next_file_id + 40"
                                     " WHERE catalog_id = %lld RETURNING next_file_id - 40",
                                     c);
    sql_exec("INSERT INTO hog_data_file (catalog_id, data_file_id, table_id, begin_snapshot, path,"
             " record_count, file_size_bytes, row_id_start, stats_state, split_offsets)"
             " SELECT %lld, %lld + g, %lld, %lld, '" DATA "/heavy/' || g, 1, 1000000 - g, g,"
             " 'provided', (SELECT array_agg(x * 10) FROM generate_series(1, 20 * (g %% 5)) x)"
             " FROM generate_series(0, 39) g",
             c, base, tid, (long long)snap);
    sql_exec("UPDATE hog_data_file d SET column_stats = (SELECT '\\x01'::bytea"
             " || string_agg(hog_column_stats_entry(f, 1, 0, NULL, NULL,"
             " '\\x0100000000000000'::bytea, '\\x0200000000000000'::bytea), ''::bytea ORDER BY f)"
             " FROM generate_series(1, 1 + (d.data_file_id - %lld) * 7 %% 50) f)"
             " WHERE catalog_id = %lld AND table_id = %lld",
             base, c, tid);
    const int64_t budget = 600;
    struct test_server small;
    const char *extra[] = {"--page-bytes-max", "600", NULL};
    test_server_start(&small, &db, extra);
    static const struct {
        const char *path, *weight, *member, *with;
        int min_pages;
    } cases[] = {
        {TBL "heavy/scan?include=column_stats", "octet_length(column_stats)", "column_stats",
         "true", 20},
        {TBL "heavy/scan?include=split_offsets", "8 * coalesce(cardinality(split_offsets), 0)",
         "split_offsets", "split_offsets IS NOT NULL", 10},
        {TBL "heavy/scan?include=column_stats,split_offsets",
         "octet_length(column_stats) + 8 * coalesce(cardinality(split_offsets), 0)", "column_stats",
         "true", 20},
        /* The listing carries the statistics of a sorted table's lead. */
        {TBL "heavy/files", "octet_length(column_stats)", "ordering_bounds", "true", 20},
        {TBL "heavy/files?sort=size", "octet_length(column_stats)", "ordering_bounds", "true", 20},
        /* Without them, the paths alone weigh (40 of about 45 bytes). */
        {TBL "heavy/scan", "0", "data_file_id", "true", 2},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        int pages;
        json_t *all = budget_pages(&small, cases[k].path, budget, cases[k].weight, cases[k].member,
                                   cases[k].with, &pages);
        if (pages < cases[k].min_pages)
            fail_msg("%s: %d pages", cases[k].path, pages);
        assert_int_equal(json_array_size(all), 40);
        expect_same_files(all, cases[k].path);
    }
    /* An offset counts the budget from the first file it returns. */
    json_t *page = api_get_json(&small, TBL "heavy/files?offset=30&limit=10000");
    int64_t first = jint(data_file_of(json_array_get(files_of(page), 0)), "data_file_id");
    assert_int_equal(first, base + 30);
    assert_true(json_array_size(files_of(page)) > 1);
    json_decref(page);
    test_server_stop(&small);
}

/* Writers choose a file's path and its partition values (up to 2,048
 * bytes each, 64 values a file), so a page of 10,000 files could hold
 * gigabytes: every page weighs them, with its vectors' paths. Files of 8
 * identity partition fields of 1,500-byte values and 1,200-byte paths,
 * some with vectors (one superseded), walked through a 30,000-byte
 * budget: every listing ends its pages at the budget, never holds more
 * than one entry past it, and tiles what one page of the default server
 * holds. */
static void page_bytes_max_weighs_paths_and_partition_values(void **state)
{
    (void)state;
    enum { FIELDS = 8, VALUE = 1500, PATH = 1200, FILES = 12 };
    char body[4096];
    size_t n = (size_t)sprintf(body, "{'name':'broad','columns':[");
    for (int i = 1; i <= FIELDS; i++)
        n += (size_t)sprintf(body + n, "%s{'name':'p%d','type':'string'}", i > 1 ? "," : "", i);
    n += (size_t)sprintf(body + n, "],'partition_fields':[");
    for (int i = 1; i <= FIELDS; i++)
        n += (size_t)sprintf(body + n, "%s{'source_field_id':%d,'transform':'identity'}",
                             i > 1 ? "," : "", i);
    sprintf(body + n, "]}");
    int64_t created = create_table(body);
    char value[VALUE + 1], stem[PATH + 1];
    memset(stem, 'p', PATH);
    stem[PATH] = '\0';
    int64_t head = created;
    for (int f = 0; f < FILES; f++) {
        char values[FIELDS * (VALUE + 4) + 1];
        size_t m = 0;
        for (int i = 0; i < FIELDS; i++) {
            memset(value, 'a' + (f + i) % 26, VALUE);
            value[VALUE] = '\0';
            m += (size_t)sprintf(values + m, "%s'%s'", i ? "," : "", value);
        }
        head = commit_ok("{'appends':[{'namespace':'" NS "','table':'broad','files':[{'path':'" DATA
                         "/broad/%s%d','record_count':10,'file_size_bytes':9,"
                         "'partition_values':[%s]}]}]}",
                         stem, f, values);
    }
    /* Vectors with long paths on three files; the first one superseded. */
    char name[1100];
    memset(name, 'd', 1000);
    for (int k = 0; k < 4; k++) {
        char target[PATH + 16];
        snprintf(target, sizeof target, "%s%d", stem, k % 3);
        snprintf(name + 1000, sizeof name - 1000, "%d.puffin", k);
        head = delete_rows("broad", head, file_id("broad", target), name, 1 + k);
    }
    const int64_t budget = 30000;
    struct test_server small;
    const char *extra[] = {"--page-bytes-max", "30000", NULL};
    test_server_start(&small, &db, extra);
    char changes[128];
    snprintf(changes, sizeof changes, TBL "broad/changes?from_snapshot=%lld", (long long)created);
    const char *paths[] = {TBL "broad/files", TBL "broad/files?sort=path&order=desc",
                           TBL "broad/scan", TBL "broad/scan?include=split_offsets", changes};
    for (size_t k = 0; k < sizeof paths / sizeof paths[0]; k++) {
        int pages;
        json_t *all = budget_pages(&small, paths[k], budget, "0", "data_file_id", "true", &pages);
        /* About 13,300 bytes a file: three files a page at most. */
        if (pages < FILES / 3)
            fail_msg("%s: %d pages", paths[k], pages);
        expect_same_files(all, paths[k]);
    }
    test_server_stop(&small);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(files_sort_order_and_paging),
        cmocka_unit_test(files_partition_filters),
        cmocka_unit_test(partition_filters_stay_in_their_table),
        cmocka_unit_test(files_ordering_bounds_follow_the_sort_order),
        cmocka_unit_test(files_parameter_errors),
        cmocka_unit_test(scan_and_stats_decode_bounds),
        cmocka_unit_test(dropped_columns_leave_the_statistics),
        cmocka_unit_test(scan_pairs_deletion_vectors),
        cmocka_unit_test(scan_include_and_stats_fields),
        cmocka_unit_test(scan_pages_bound_statistics),
        cmocka_unit_test(file_stats_visibility_and_errors),
        cmocka_unit_test(time_travel_across_commits_truncate_and_drop),
        cmocka_unit_test(reads_below_the_floor_are_410),
        cmocka_unit_test(changes_windows),
        cmocka_unit_test(pages_tile_every_listing),
        cmocka_unit_test(tokens_pin_the_snapshot),
        cmocka_unit_test(page_token_errors),
        cmocka_unit_test(page_size_max_caps_pages),
        cmocka_unit_test(page_bytes_max_ends_pages),
        cmocka_unit_test(page_bytes_max_weighs_paths_and_partition_values),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

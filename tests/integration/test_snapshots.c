/* The snapshot log: paging forwards and backwards, limits, has_more at page
 * boundaries, the change rows of each DDL, times, and density. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness.h"

static struct test_db db;
static struct test_server srv;
static PGconn *pg;

/* The fixture catalog "snap": one DDL per snapshot 1..HEAD, with the
 * change each must carry. */
enum { HEAD = 12 };
static const char *want_kind[HEAD + 1];
static int64_t want_object[HEAD + 1];
/* The name each change carries: the object's as of its snapshot. */
static const char *const want_name[HEAD + 1] = {NULL, "a",  "b", "t1", "v1", "t1", "t2",
                                                "v1", "t1", "c", "c",  "v2", "d"};

/* ---- helpers ---- */

static int64_t catalog_head(const char *cat)
{
    struct http_result r;
    api_get(&r, &srv, "/v1/catalogs/%s", cat);
    expect_status(&r, 200);
    int64_t h = jint(r.json, "head_snapshot_id");
    assert_int_equal(jint(r.json, "schema_version"), h);
    http_result_free(&r);
    return h;
}

/* Records the DDL that made snapshot `s`, and checks it was the next one. */
static void record(int64_t s, const char *kind, int64_t object_id)
{
    assert_true(s >= 1 && s <= HEAD);
    assert_int_equal(catalog_head("snap"), s);
    want_kind[s] = kind;
    want_object[s] = object_id;
}

static int64_t post_ok(const char *path, const char *body, long status, int64_t *snapshot)
{
    struct http_result r;
    api_send_text(&r, &srv, "POST", body, "%s", path);
    expect_status(&r, status);
    int64_t id = -1;
    if (json_object_get(r.json, "namespace_id"))
        id = jint(r.json, "namespace_id");
    *snapshot = jint(r.json, "snapshot_id");
    http_result_free(&r);
    return id;
}

static int64_t delete_ok(const char *path)
{
    struct http_result r;
    api_delete(&r, &srv, "%s", path);
    expect_status(&r, 200);
    int64_t s = jint(r.json, "snapshot_id");
    assert_int_equal(jint(r.json, "schema_version"), s);
    http_result_free(&r);
    return s;
}

static int64_t table_id_by_uuid(const char *uuid)
{
    return sqli("SELECT table_id FROM hog_table WHERE table_uuid = '%s'", uuid);
}

static int64_t view_id_of(const char *uuid)
{
    return sqli("SELECT view_id FROM hog_view WHERE view_uuid = '%s'", uuid);
}

/* A refused DDL that must not consume a snapshot id. */
static void refused(const char *path, const char *body, long status)
{
    int64_t h = catalog_head("snap");
    struct http_result r;
    api_send_text(&r, &srv, "POST", body, "%s", path);
    expect_status(&r, status);
    http_result_free(&r);
    assert_int_equal(catalog_head("snap"), h);
}

static void build_history(void)
{
    const char *nsp = "/v1/catalogs/snap/namespaces";
    int64_t s, id;
    make_catalog(&srv, "snap");
    id = post_ok(nsp, "{\"name\":\"a\"}", 201, &s);
    record(s, "namespace_created", id); /* 1 */
    refused(nsp, "{\"name\":\"a\"}", 409);
    id = post_ok(nsp, "{\"name\":\"b\"}", 201, &s);
    record(s, "namespace_created", id); /* 2 */

    json_t *t1 = make_table(&srv, "snap", "a", "t1", "[{\"name\":\"x\",\"type\":\"int\"}]");
    int64_t t1_id = table_id_by_uuid(jstr(t1, "table_uuid"));
    record(jint(t1, "snapshot_id"), "table_created", t1_id); /* 3 */
    json_decref(t1);

    struct http_result r;
    api_send_text(&r, &srv, "POST", "{\"name\":\"v1\",\"sql\":\"select 1\"}",
                  "/v1/catalogs/snap/namespaces/a/views");
    expect_status(&r, 201);
    int64_t v1_id = view_id_of(jstr(r.json, "view_uuid"));
    record(jint(r.json, "snapshot_id"), "view_created", v1_id); /* 4 */
    http_result_free(&r);
    refused("/v1/catalogs/snap/namespaces/a/views", "{\"name\":\"v1\",\"sql\":\"select 2\"}", 409);

    api_send_text(
        &r, &srv, "POST",
        "{\"ops\":[{\"op\":\"add_column\",\"column\":{\"name\":\"y\",\"type\":\"long\"}}]}",
        "/v1/catalogs/snap/namespaces/a/tables/t1/alter");
    expect_status(&r, 200);
    http_result_free(&r);
    record(5, "table_altered", t1_id); /* 5 */

    json_t *t2 = make_table(&srv, "snap", "b", "t2", "[{\"name\":\"x\",\"type\":\"string\"}]");
    record(jint(t2, "snapshot_id"), "table_created",
           table_id_by_uuid(jstr(t2, "table_uuid"))); /* 6 */
    json_decref(t2);
    refused("/v1/catalogs/snap/namespaces/b/tables",
            "{\"name\":\"t2\",\"columns\":[{\"name\":\"x\",\"type\":\"int\"}]}", 409);

    record(delete_ok("/v1/catalogs/snap/namespaces/a/views/v1"), "view_dropped", v1_id);   /* 7 */
    record(delete_ok("/v1/catalogs/snap/namespaces/a/tables/t1"), "table_dropped", t1_id); /* 8 */
    id = post_ok(nsp, "{\"name\":\"c\"}", 201, &s);
    record(s, "namespace_created", id);                                           /* 9 */
    record(delete_ok("/v1/catalogs/snap/namespaces/c"), "namespace_dropped", id); /* 10 */
    refused(nsp, "{\"name\":\"1bad\"}", 422);

    api_send_text(&r, &srv, "POST", "{\"name\":\"v2\",\"sql\":\"select 2\",\"dialect\":\"spark\"}",
                  "/v1/catalogs/snap/namespaces/b/views");
    expect_status(&r, 201);
    record(jint(r.json, "snapshot_id"), "view_created", view_id_of(jstr(r.json, "view_uuid")));
    http_result_free(&r); /* 11 */
    id = post_ok(nsp, "{\"name\":\"d\"}", 201, &s);
    record(s, "namespace_created", id); /* 12 */
    assert_int_equal(catalog_head("snap"), HEAD);
}

static int setup(void **state)
{
    (void)state;
    test_db_create(&db, "snapshots");
    test_server_start(&srv, &db, NULL);
    pg = test_db_connect(&db);
    test_sql_use(pg);
    build_history();
    /* Another catalog's history must never show up in "snap"'s log. */
    make_catalog(&srv, "snap-other");
    make_namespace(&srv, "snap-other", "x");
    make_namespace(&srv, "snap-other", "y");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    PQfinish(pg);
    test_server_stop(&srv);
    test_db_drop(&db);
    return 0;
}

/* One page of the log (caller json_decref's). */
static json_t *page(const char *cat, const char *query)
{
    struct http_result r;
    api_get(&r, &srv, "/v1/catalogs/%s/snapshots%s", cat, query);
    expect_status(&r, 200);
    json_t *p = json_incref(r.json);
    http_result_free(&r);
    assert_true(json_is_array(json_object_get(p, "snapshots")));
    assert_true(json_is_boolean(json_object_get(p, "has_more")));
    assert_int_equal(json_object_size(p), 2);
    return p;
}

/* A page holds exactly ids first, first+step, ... (count of them). */
static void expect_page(const char *cat, const char *query, int64_t first, int step, size_t count,
                        bool has_more)
{
    json_t *p = page(cat, query);
    json_t *snaps = json_object_get(p, "snapshots");
    if (json_array_size(snaps) != count) {
        char *d = json_dumps(p, JSON_COMPACT);
        fail_msg("snapshots%s: expected %zu snapshots, got %zu: %.2000s", query, count,
                 json_array_size(snaps), d);
    }
    for (size_t i = 0; i < count; i++)
        assert_int_equal(jint(json_array_get(snaps, i), "snapshot_id"), first + (int64_t)i * step);
    if (json_is_true(json_object_get(p, "has_more")) != has_more)
        fail_msg("snapshots%s: expected has_more %s", query, has_more ? "true" : "false");
    json_decref(p);
}

static void expect_page_error(const char *cat, const char *query, long status, const char *code,
                              const char *needle)
{
    struct http_result r;
    api_get(&r, &srv, "/v1/catalogs/%s/snapshots%s", cat, query);
    expect_error(&r, status, code);
    if (needle)
        expect_detail_contains(&r, needle);
    http_result_free(&r);
}

/* Parses the server's snapshot_time: YYYY-MM-DDTHH:MM:SS[.fff|.ffffff]Z.
 * Fails the test on any other shape. */
static int64_t parse_time(const char *s)
{
    int y, mo, d, h, mi, sec, n = 0;
    if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &sec, &n) != 6 || n != 19)
        fail_msg("snapshot_time '%s' is not ISO-8601", s);
    const char *p = s + 19;
    int64_t frac = 0;
    if (*p == '.') {
        p++;
        int digits = 0;
        while (*p >= '0' && *p <= '9') {
            frac = frac * 10 + (*p - '0');
            p++;
            digits++;
        }
        if (digits != 3 && digits != 6)
            fail_msg("snapshot_time '%s': %d fractional digits", s, digits);
        if (digits == 3)
            frac *= 1000;
    }
    if (strcmp(p, "Z") != 0)
        fail_msg("snapshot_time '%s' does not end in Z", s);
    struct tm tm = {0};
    tm.tm_year = y - 1900;
    tm.tm_mon = mo - 1;
    tm.tm_mday = d;
    tm.tm_hour = h;
    tm.tm_min = mi;
    tm.tm_sec = sec;
    return (int64_t)timegm(&tm) * 1000000 + frac;
}

/* ---- tests ---- */

static void default_page_is_ascending_after_zero(void **state)
{
    (void)state;
    /* after defaults to 0, and ids > after are listed: 1..head. */
    expect_page("snap", "", 1, 1, HEAD, false);
    expect_page("snap", "?after=0", 1, 1, HEAD, false);
    /* A negative cursor reaches snapshot 0. */
    expect_page("snap", "?after=-1", 0, 1, HEAD + 1, false);
    json_t *p = page("snap", "?after=-1");
    json_t *s0 = json_array_get(json_object_get(p, "snapshots"), 0);
    assert_int_equal(jint(s0, "snapshot_id"), 0);
    assert_int_equal(jint(s0, "schema_version"), 0);
    assert_int_equal(json_array_size(json_object_get(s0, "changes")), 0);
    json_decref(p);
}

static void changes_match_each_ddl(void **state)
{
    (void)state;
    json_t *p = page("snap", "?before=1000");
    json_t *snaps = json_object_get(p, "snapshots");
    assert_int_equal(json_array_size(snaps), HEAD + 1);
    for (size_t i = 0; i < json_array_size(snaps); i++) {
        json_t *s = json_array_get(snaps, i);
        int64_t id = jint(s, "snapshot_id");
        assert_int_equal(id, HEAD - (int64_t)i);
        /* Every DDL bumps schema_version with the snapshot id. */
        assert_int_equal(jint(s, "schema_version"), id);
        jstr(s, "snapshot_time");
        /* DDL snapshots carry no author or message. */
        assert_null(json_object_get(s, "author"));
        assert_null(json_object_get(s, "message"));
        assert_int_equal(json_object_size(s), 4);
        json_t *changes = json_object_get(s, "changes");
        assert_true(json_is_array(changes));
        if (id == 0) {
            assert_int_equal(json_array_size(changes), 0);
            continue;
        }
        if (json_array_size(changes) != 1)
            fail_msg("snapshot %lld: expected one change, got %zu", (long long)id,
                     json_array_size(changes));
        json_t *c = json_array_get(changes, 0);
        assert_int_equal(json_object_size(c), 3);
        assert_string_equal(jstr(c, "name"), want_name[id]);
        if (strcmp(jstr(c, "kind"), want_kind[id]) != 0 || jint(c, "object_id") != want_object[id])
            fail_msg("snapshot %lld: expected %s/%lld, got %s/%lld", (long long)id, want_kind[id],
                     (long long)want_object[id], jstr(c, "kind"), (long long)jint(c, "object_id"));
        /* And the API agrees with the rows. */
        assert_int_equal(sqli("SELECT count(*) FROM hog_snapshot_change s JOIN hog_catalog c"
                              " USING (catalog_id) WHERE c.name = 'snap' AND s.snapshot_id ="
                              " %lld AND s.kind = '%s' AND s.object_id = %lld",
                              (long long)id, want_kind[id], (long long)want_object[id]),
                         1);
    }
    json_decref(p);
    assert_int_equal(sqli("SELECT count(*) FROM hog_snapshot_change s JOIN hog_catalog c USING"
                          " (catalog_id) WHERE c.name = 'snap'"),
                     HEAD);
}

static void paging_forwards(void **state)
{
    (void)state;
    expect_page("snap", "?limit=5", 1, 1, 5, true);
    expect_page("snap", "?after=5&limit=5", 6, 1, 5, true);
    expect_page("snap", "?after=10&limit=5", 11, 1, 2, false);
    /* Exactly a page left: no more. One more than a page: more. */
    expect_page("snap", "?after=7&limit=5", 8, 1, 5, false);
    expect_page("snap", "?after=6&limit=5", 7, 1, 5, true);
    expect_page("snap", "?after=11&limit=1", 12, 1, 1, false);
    expect_page("snap", "?after=10&limit=1", 11, 1, 1, true);
    expect_page("snap", "?limit=12", 1, 1, 12, false);
    expect_page("snap", "?limit=11", 1, 1, 11, true);
    /* Past the head: empty, no more. */
    expect_page("snap", "?after=12", 0, 1, 0, false);
    expect_page("snap", "?after=1000000", 0, 1, 0, false);
    /* Walking the whole log in pages of 4 visits every id once. */
    int64_t after = 0, seen = 0;
    for (int guard = 0; guard < 10; guard++) {
        char q[64];
        snprintf(q, sizeof q, "?after=%lld&limit=4", (long long)after);
        json_t *p = page("snap", q);
        json_t *snaps = json_object_get(p, "snapshots");
        for (size_t i = 0; i < json_array_size(snaps); i++) {
            assert_int_equal(jint(json_array_get(snaps, i), "snapshot_id"), after + 1);
            after++;
            seen++;
        }
        bool more = json_is_true(json_object_get(p, "has_more"));
        json_decref(p);
        if (!more)
            break;
    }
    assert_int_equal(seen, HEAD);
}

static void paging_backwards(void **state)
{
    (void)state;
    expect_page("snap", "?before=13&limit=5", 12, -1, 5, true);
    expect_page("snap", "?before=8&limit=5", 7, -1, 5, true);
    expect_page("snap", "?before=3&limit=5", 2, -1, 3, false);
    /* Boundaries: exactly a page left (4..0) vs one more (5..1, 0 left). */
    expect_page("snap", "?before=5&limit=5", 4, -1, 5, false);
    expect_page("snap", "?before=6&limit=5", 5, -1, 5, true);
    expect_page("snap", "?before=1&limit=1", 0, -1, 1, false);
    expect_page("snap", "?before=0", 0, -1, 0, false);
    expect_page("snap", "?before=1000", 12, -1, 13, false);
    /* before with after=0 is allowed (0 is the default). */
    expect_page("snap", "?after=0&before=13&limit=3", 12, -1, 3, true);
    expect_page("snap", "?before=13&after=0&limit=3", 12, -1, 3, true);
    /* Walk down from head+1 in pages of 5: ids head..0, each once. */
    int64_t before = HEAD + 1, seen = 0;
    for (int guard = 0; guard < 10; guard++) {
        char q[64];
        snprintf(q, sizeof q, "?before=%lld&limit=5", (long long)before);
        json_t *p = page("snap", q);
        json_t *snaps = json_object_get(p, "snapshots");
        for (size_t i = 0; i < json_array_size(snaps); i++) {
            assert_int_equal(jint(json_array_get(snaps, i), "snapshot_id"), before - 1);
            before--;
            seen++;
        }
        bool more = json_is_true(json_object_get(p, "has_more"));
        json_decref(p);
        if (!more)
            break;
    }
    assert_int_equal(seen, HEAD + 1);
    assert_int_equal(before, 0);
}

static void cursor_and_limit_errors(void **state)
{
    (void)state;
    expect_page_error("snap", "?before=10&after=3", 422, "validation", "mutually exclusive");
    expect_page_error("snap", "?after=3&before=0", 422, "validation", "mutually exclusive");
    expect_page_error("snap", "?limit=0", 422, "validation", "limit must be >= 1, got 0");
    expect_page_error("snap", "?limit=-5", 422, "validation", "got -5");
    expect_page_error("snap", "?limit=abc", 400, "bad_request", "limit");
    expect_page_error("snap", "?limit=1.5", 400, "bad_request", "limit");
    expect_page_error("snap", "?limit=", 400, "bad_request", "limit");
    expect_page_error("snap", "?after=x", 400, "bad_request", "after");
    expect_page_error("snap", "?before=1e3", 400, "bad_request", "before");
    expect_page_error("snap", "?after=99999999999999999999", 400, "bad_request", "after");
    expect_page_error("snap", "?cursor=1", 400, "bad_request", "cursor");
    expect_page_error("snap", "?snapshot=1", 400, "bad_request", NULL);
    /* Unknown catalog: 404, but parameter validation comes first. */
    expect_page_error("nope", "", 404, "not_found", "catalog 'nope'");
    expect_page_error("nope", "?after=2&limit=3", 404, "not_found", NULL);
    expect_page_error("nope", "?limit=0", 422, "validation", NULL);
    expect_page_error("nope", "?limit=x", 400, "bad_request", NULL);
    /* The log is read-only. */
    struct http_result r;
    api_send_text(&r, &srv, "POST", "{}", "/v1/catalogs/snap/snapshots");
    expect_error(&r, 405, "method_not_allowed");
    assert_string_equal(r.allow, "GET");
    http_result_free(&r);
    /* limit=1 works and pages. */
    expect_page("snap", "?limit=1", 1, 1, 1, true);
}

/* Default 1000 and the 10000 cap need a long log: snapshots are inserted
 * directly (the log reads rows; it does not care how they got there). */
static void default_limit_and_cap(void **state)
{
    (void)state;
    make_catalog(&srv, "snap-big");
    sql_exec("BEGIN");
    sql_exec("INSERT INTO hog_snapshot (catalog_id, snapshot_id, snapshot_time, schema_version)"
             " SELECT c.catalog_id, g, clock_timestamp() + g * interval '1 millisecond', g"
             " FROM hog_catalog c, generate_series(1, 10050) g WHERE c.name = 'snap-big'");
    sql_exec("UPDATE hog_catalog SET last_snapshot_id = 10050, schema_version = 10050"
             " WHERE name = 'snap-big'");
    sql_exec("COMMIT");
    assert_int_equal(catalog_head("snap-big"), 10050);
    expect_page("snap-big", "", 1, 1, 1000, true);
    expect_page("snap-big", "?after=9000", 9001, 1, 1000, true);
    expect_page("snap-big", "?after=9050", 9051, 1, 1000, false);
    expect_page("snap-big", "?limit=20000", 1, 1, 10000, true);
    expect_page("snap-big", "?limit=10001", 1, 1, 10000, true);
    expect_page("snap-big", "?limit=10000", 1, 1, 10000, true);
    expect_page("snap-big", "?limit=9223372036854775807", 1, 1, 10000, true);
    expect_page("snap-big", "?after=50&limit=20000", 51, 1, 10000, false);
    expect_page("snap-big", "?before=10051&limit=20000", 10050, -1, 10000, true);
    expect_page("snap-big", "?before=10000", 9999, -1, 1000, true);
    /* 10051 rows: head - earliest + 1. */
    assert_int_equal(sqli("SELECT count(*) FROM hog_snapshot s JOIN hog_catalog c USING"
                          " (catalog_id) WHERE c.name = 'snap-big'"),
                     10051);
}

static void times_are_iso_and_ordered(void **state)
{
    (void)state;
    json_t *p = page("snap", "?after=-1");
    json_t *snaps = json_object_get(p, "snapshots");
    assert_int_equal(json_array_size(snaps), HEAD + 1);
    int64_t prev = 0;
    for (size_t i = 0; i < json_array_size(snaps); i++) {
        json_t *s = json_array_get(snaps, i);
        int64_t id = jint(s, "snapshot_id");
        int64_t t = parse_time(jstr(s, "snapshot_time"));
        if (i > 0 && t < prev)
            fail_msg("snapshot %lld is older than snapshot %lld", (long long)id,
                     (long long)(id - 1));
        prev = t;
        /* Exactly the stored instant, to the microsecond. */
        int64_t stored = sqli("SELECT (extract(epoch FROM s.snapshot_time) * 1000000)::bigint"
                              " FROM hog_snapshot s JOIN hog_catalog c USING (catalog_id)"
                              " WHERE c.name = 'snap' AND s.snapshot_id = %lld",
                              (long long)id);
        if (stored != t)
            fail_msg("snapshot %lld: snapshot_time %s is %lld us, stored %lld us", (long long)id,
                     jstr(s, "snapshot_time"), (long long)t, (long long)stored);
    }
    /* Recent: within a day of now. */
    int64_t now = (int64_t)time(NULL) * 1000000;
    assert_true(prev <= now + 60000000LL && prev > now - 86400000000LL);
    json_decref(p);
}

static void ids_are_dense(void **state)
{
    (void)state;
    int64_t head = catalog_head("snap");
    assert_int_equal(head, HEAD);
    int64_t earliest = sqli("SELECT earliest_snapshot_id FROM hog_catalog WHERE name = 'snap'");
    assert_int_equal(earliest, 0);
    assert_int_equal(sqli("SELECT count(*) FROM hog_snapshot s JOIN hog_catalog c USING"
                          " (catalog_id) WHERE c.name = 'snap'"),
                     head - earliest + 1);
    assert_int_equal(sqli("SELECT min(snapshot_id) FROM hog_snapshot s JOIN hog_catalog c USING"
                          " (catalog_id) WHERE c.name = 'snap'"),
                     earliest);
    assert_int_equal(sqli("SELECT max(snapshot_id) FROM hog_snapshot s JOIN hog_catalog c USING"
                          " (catalog_id) WHERE c.name = 'snap'"),
                     head);
    /* The other catalog has its own dense log, not interleaved with ours. */
    expect_page("snap-other", "?after=-1", 0, 1, 3, false);
    expect_page("snap", "?after=-1", 0, 1, HEAD + 1, false);
    /* Once the rows below a floor are gone, the log starts at the floor. */
    make_catalog(&srv, "snap-floor");
    for (int i = 0; i < 6; i++) {
        char n[8];
        snprintf(n, sizeof n, "n%d", i);
        make_namespace(&srv, "snap-floor", n);
    }
    sql_exec("BEGIN");
    sql_exec("UPDATE hog_catalog SET earliest_snapshot_id = 4 WHERE name = 'snap-floor'");
    sql_exec("DELETE FROM hog_snapshot s USING hog_catalog c WHERE c.catalog_id = s.catalog_id"
             " AND c.name = 'snap-floor' AND s.snapshot_id < 4");
    sql_exec("COMMIT");
    expect_page("snap-floor", "", 4, 1, 3, false);
    expect_page("snap-floor", "?before=100", 6, -1, 3, false);
    assert_int_equal(sqli("SELECT count(*) FROM hog_snapshot s JOIN hog_catalog c USING"
                          " (catalog_id) WHERE c.name = 'snap-floor'"),
                     6 - 4 + 1);
}

/* An ISO-8601 text of µs since the epoch, in UTC. */
static void iso_us(int64_t us, char *out, size_t size)
{
    time_t secs = (time_t)(us / 1000000);
    struct tm tm;
    gmtime_r(&secs, &tm);
    char base[32];
    strftime(base, sizeof base, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out, size, "%s.%06lldZ", base, (long long)(us % 1000000));
}

static void resolve_fails(const char *cat, const char *at, long status, const char *code,
                          const char *needle)
{
    struct http_result r;
    api_get(&r, &srv, "/v1/catalogs/%s/snapshots/resolve?at_timestamp=%s", cat, at);
    expect_error(&r, status, code);
    if (needle)
        expect_detail_contains(&r, needle);
    http_result_free(&r);
}

/* Before the catalog was created is 404 before_catalog (it never had a
 * snapshot there); after its creation but below the expiry floor is 410. */
static void resolve_before_catalog_or_expired(void **state)
{
    (void)state;
    int64_t born = sqli("SELECT (extract(epoch FROM s.snapshot_time) * 1000000)::bigint FROM"
                        " hog_snapshot s JOIN hog_catalog c USING (catalog_id)"
                        " WHERE c.name = 'snap' AND s.snapshot_id = 0");
    char at[64], born_text[64], needle[200];
    iso_us(born - 1, at, sizeof at);
    iso_us(born, born_text, sizeof born_text);
    snprintf(needle, sizeof needle, "catalog 'snap' did not exist at %s (created %s)", at,
             born_text);
    resolve_fails("snap", at, 404, "before_catalog", needle);
    resolve_fails("snap", "2000-01-01T00:00:00Z", 404, "before_catalog", NULL);
    /* Snapshot 0's own instant resolves to it. */
    json_t *zero =
        api_get_json(&srv, "/v1/catalogs/snap/snapshots/resolve?at_timestamp=%s", born_text);
    assert_int_equal(jint(zero, "snapshot_id"), 0);
    json_decref(zero);
    /* The same reads through time travel. */
    struct http_result r;
    api_get(&r, &srv, "/v1/catalogs/snap/namespaces?at_timestamp=%s", at);
    expect_error(&r, 404, "before_catalog");
    http_result_free(&r);

    /* A catalog whose first snapshots expired: between its creation and
     * the floor is expired, before its creation still before_catalog. */
    make_catalog(&srv, "snap-gone");
    for (int i = 0; i < 3; i++) {
        char n[8];
        snprintf(n, sizeof n, "g%d", i);
        make_namespace(&srv, "snap-gone", n);
    }
    int64_t id = cat_id("snap-gone");
    int64_t t2 = sqli("SELECT (extract(epoch FROM snapshot_time) * 1000000)::bigint FROM"
                      " hog_snapshot WHERE catalog_id = %lld AND snapshot_id = 2",
                      (long long)id);
    int64_t created = sqli("SELECT (extract(epoch FROM created_at) * 1000000)::bigint FROM"
                           " hog_catalog WHERE catalog_id = %lld",
                           (long long)id);
    sql_exec("BEGIN");
    sql_exec("UPDATE hog_catalog SET earliest_snapshot_id = 2, earliest_snapshot_time = now()"
             " WHERE catalog_id = %lld",
             (long long)id);
    sql_exec("DELETE FROM hog_snapshot WHERE catalog_id = %lld AND snapshot_id < 2", (long long)id);
    sql_exec("COMMIT");
    iso_us(t2 - 1, at, sizeof at);
    resolve_fails("snap-gone", at, 410, "expired", "before the earliest retained snapshot");
    iso_us(created - 1, at, sizeof at);
    resolve_fails("snap-gone", at, 404, "before_catalog", "catalog 'snap-gone' did not exist at");
}

/* A data commit's change rows carry the table's name and what it added. */
static void data_changes_carry_names_and_counts(void **state)
{
    (void)state;
    make_catalog(&srv, "snap-data");
    make_namespace(&srv, "snap-data", "web");
    json_decref(
        make_table(&srv, "snap-data", "web", "events", "[{\"name\":\"x\",\"type\":\"int\"}]"));
    char *b =
        dq("{'appends':[{'namespace':'web','table':'events','files':["
           "{'path':'s3://hoglake-test/snap-data/1','record_count':1000,'file_size_bytes':9},"
           "{'path':'s3://hoglake-test/snap-data/2','record_count':24,'file_size_bytes':9}]}]}");
    struct http_result r;
    api_send_text(&r, &srv, "POST", b, "/v1/catalogs/snap-data/commit");
    free(b);
    expect_status(&r, 200);
    int64_t s = jint(r.json, "snapshot_id");
    http_result_free(&r);
    json_t *p = page("snap-data", "");
    json_t *last = json_array_get(json_object_get(p, "snapshots"), (size_t)s - 1);
    assert_int_equal(jint(last, "snapshot_id"), s);
    json_t *c = json_array_get(json_object_get(last, "changes"), 0);
    assert_string_equal(jstr(c, "kind"), "table_inserted_into");
    assert_string_equal(jstr(c, "name"), "events");
    assert_int_equal(jint(c, "files_added"), 2);
    assert_int_equal(jint(c, "rows_added"), 1024);
    assert_null(json_object_get(c, "delete_files_added"));
    /* The table's creation has no counts. */
    json_t *created = json_array_get(
        json_object_get(json_array_get(json_object_get(p, "snapshots"), (size_t)s - 2), "changes"),
        0);
    assert_string_equal(jstr(created, "kind"), "table_created");
    assert_null(json_object_get(created, "files_added"));
    json_decref(p);
}

/* What a snapshot weighs against --page-bytes-max, from its rows. */
static int64_t snapshot_weight(int64_t catalog, int64_t id)
{
    return sqli("SELECT coalesce(octet_length(author), 0) + coalesce(octet_length(commit_message),"
                " 0) + 128 * (SELECT count(*) FROM hog_snapshot_change c WHERE c.catalog_id = %lld"
                " AND c.snapshot_id = %lld) FROM hog_snapshot WHERE catalog_id = %lld"
                " AND snapshot_id = %lld",
                (long long)catalog, (long long)id, (long long)catalog, (long long)id);
}

/* Every page of the log on server s in one direction (limit 10000: only
 * the byte budget ends a page), each checked against the snapshots'
 * weights: those before a page's last weigh less than the budget, and a
 * page with more after it weighs at least the budget. Each snapshot keeps
 * its message and all its change rows. Returns all pages' snapshots. */
static json_t *budget_log(struct test_server *s, const char *cat, bool backwards, int64_t budget,
                          int *npages)
{
    int64_t c = cat_id(cat);
    json_t *all = json_array();
    int64_t cursor = backwards ? head_of(cat) + 1 : 0;
    bool more = true;
    for (*npages = 0; more; ++*npages) {
        struct http_result r;
        api_get(&r, s, "/v1/catalogs/%s/snapshots?limit=10000&%s=%lld", cat,
                backwards ? "before" : "after", (long long)cursor);
        expect_status(&r, 200);
        json_t *snaps = json_object_get(r.json, "snapshots");
        more = json_is_true(json_object_get(r.json, "has_more"));
        size_t n = json_array_size(snaps);
        assert_true(n > 0);
        int64_t before_last = 0, total = 0;
        for (size_t i = 0; i < n; i++) {
            json_t *snap = json_array_get(snaps, i);
            int64_t id = jint(snap, "snapshot_id"), w = snapshot_weight(c, id);
            total += w;
            before_last += i + 1 < n ? w : 0;
            assert_int_equal(json_array_size(json_object_get(snap, "changes")),
                             sqli("SELECT count(*) FROM hog_snapshot_change WHERE catalog_id ="
                                  " %lld AND snapshot_id = %lld",
                                  (long long)c, (long long)id));
            if (sqli("SELECT (commit_message IS NOT NULL)::int FROM hog_snapshot WHERE"
                     " catalog_id = %lld AND snapshot_id = %lld",
                     (long long)c, (long long)id))
                assert_non_null(json_object_get(snap, "message"));
            json_array_append(all, snap);
            cursor = id;
        }
        if (before_last >= budget || (more && total < budget))
            fail_msg("page %d of %s: %lld bytes before its last snapshot, %lld in all, budget"
                     " %lld, has_more %d",
                     *npages, cat, (long long)before_last, (long long)total, (long long)budget,
                     more);
        http_result_free(&r);
    }
    return all;
}

/* The log's pages end before the snapshot that would take their authors,
 * messages and change rows past --page-bytes-max (a snapshot alone over
 * it still makes a page), in both directions, and together they are the
 * log a single page gives. */
static void page_bytes_end_pages(void **state)
{
    (void)state;
    make_catalog(&srv, "snap-heavy");
    make_namespace(&srv, "snap-heavy", "web");
    for (int t = 0; t < 3; t++) {
        char name[8];
        snprintf(name, sizeof name, "t%d", t);
        json_decref(
            make_table(&srv, "snap-heavy", "web", name, "[{\"name\":\"x\",\"type\":\"int\"}]"));
    }
    /* Messages of 100 to 1,900 bytes; every third commit appends to all
     * three tables (three change rows). */
    for (int k = 1; k <= 12; k++) {
        char message[2000], body[4096];
        memset(message, 'm', sizeof message);
        message[100 + (k * 700) % 1800] = '\0';
        int n = snprintf(body, sizeof body, "{\"author\":\"w%d\",\"message\":\"%s\",\"appends\":[",
                         k, message);
        for (int t = 0; t < (k % 3 ? 1 : 3); t++)
            n += snprintf(body + n, sizeof body - (size_t)n,
                          "%s{\"namespace\":\"web\",\"table\":\"t%d\",\"files\":[{\"path\":"
                          "\"s3://hoglake-test/snap-heavy/%d-%d\",\"record_count\":1,"
                          "\"file_size_bytes\":9}]}",
                          t ? "," : "", t, k, t);
        snprintf(body + n, sizeof body - (size_t)n, "]}");
        struct http_result r;
        api_send_text(&r, &srv, "POST", body, "/v1/catalogs/snap-heavy/commit");
        expect_status(&r, 200);
        http_result_free(&r);
    }
    struct test_server small;
    const char *extra[] = {"--page-bytes-max", "2500", NULL};
    test_server_start(&small, &db, extra);
    char query[64];
    snprintf(query, sizeof query, "?limit=10000&before=%lld", (long long)head_of("snap-heavy") + 1);
    for (int backwards = 0; backwards < 2; backwards++) {
        int pages;
        json_t *all = budget_log(&small, "snap-heavy", backwards, 2500, &pages);
        assert_true(pages >= 5);
        json_t *one = page("snap-heavy", backwards ? query : "?limit=10000");
        json_t *whole = json_object_get(one, "snapshots");
        assert_true(json_array_size(whole) >= 16);
        if (!json_equal(all, whole)) {
            char *a = json_dumps(all, JSON_COMPACT), *b = json_dumps(whole, JSON_COMPACT);
            fail_msg("the log in budgeted pages:\n%.3000s\nin one page:\n%.3000s", a, b);
        }
        json_decref(one);
        json_decref(all);
    }
    test_server_stop(&small);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(default_page_is_ascending_after_zero),
        cmocka_unit_test(changes_match_each_ddl),
        cmocka_unit_test(paging_forwards),
        cmocka_unit_test(paging_backwards),
        cmocka_unit_test(cursor_and_limit_errors),
        cmocka_unit_test(default_limit_and_cap),
        cmocka_unit_test(times_are_iso_and_ordered),
        cmocka_unit_test(ids_are_dense),
        cmocka_unit_test(resolve_before_catalog_or_expired),
        cmocka_unit_test(data_changes_carry_names_and_counts),
        cmocka_unit_test(page_bytes_end_pages),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

/* Namespaces: create, list (ordered, time travel), get, drop (guards,
 * emptiness, reuse of a dropped name), and the snapshot each DDL makes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness.h"

static struct test_db db;
static struct test_server srv;
static PGconn *pg;

static int setup(void **state)
{
    (void)state;
    test_db_create(&db, "namespaces");
    test_server_start(&srv, &db, NULL);
    pg = test_db_connect(&db);
    test_sql_use(pg);
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

/* ---- helpers ---- */

static void create_ns(struct http_result *r, const char *cat, const char *name)
{
    api_send(r, &srv, "POST", jpack("{s:s}", "name", name), "/v1/catalogs/%s/namespaces", cat);
}

/* Creates a namespace, checks the 201 body and that the catalog moved by
 * exactly one snapshot and one schema version; returns the namespace_id. */
static int64_t create_ns_ok(const char *cat, const char *name)
{
    int64_t h0, sv0;
    api_head(&srv, cat, &h0, &sv0);
    struct http_result r;
    create_ns(&r, cat, name);
    expect_status(&r, 201);
    assert_int_equal(json_object_size(r.json), 3);
    assert_string_equal(jstr(r.json, "name"), name);
    int64_t id = jint(r.json, "namespace_id");
    assert_int_equal(jint(r.json, "snapshot_id"), h0 + 1);
    http_result_free(&r);
    expect_api_head(&srv, cat, h0 + 1, sv0 + 1);
    assert_int_equal(change_rows(cat, h0 + 1, NULL, 0), 1);
    assert_int_equal(change_rows(cat, h0 + 1, "namespace_created", id), 1);
    assert_int_equal(sqli("SELECT count(*) FROM hog_snapshot s JOIN hog_catalog c USING"
                          " (catalog_id) WHERE c.name = '%s' AND s.snapshot_id = %lld AND"
                          " s.schema_version = %lld",
                          cat, (long long)(h0 + 1), (long long)(sv0 + 1)),
                     1);
    return id;
}

/* A refused request leaves head and schema_version where they were. */
#define EXPECT_NO_DDL(cat, call)                                                                   \
    do {                                                                                           \
        int64_t h_, s_;                                                                            \
        api_head(&srv, (cat), &h_, &s_);                                                           \
        call;                                                                                      \
        expect_api_head(&srv, (cat), h_, s_);                                                      \
    } while (0)

static void drop_ns(struct http_result *r, const char *cat, const char *name, const char *query)
{
    api_delete(r, &srv, "/v1/catalogs/%s/namespaces/%s%s", cat, name, query ? query : "");
}

/* Drops a namespace, checks the CommitResult against the catalog and the
 * change row; returns the drop snapshot. */
static int64_t drop_ns_ok(const char *cat, const char *name, int64_t ns_id, const char *query)
{
    int64_t h0, sv0;
    api_head(&srv, cat, &h0, &sv0);
    struct http_result r;
    drop_ns(&r, cat, name, query);
    expect_status(&r, 200);
    assert_int_equal(json_object_size(r.json), 2);
    assert_int_equal(jint(r.json, "snapshot_id"), h0 + 1);
    assert_int_equal(jint(r.json, "schema_version"), sv0 + 1);
    http_result_free(&r);
    expect_api_head(&srv, cat, h0 + 1, sv0 + 1);
    assert_int_equal(change_rows(cat, h0 + 1, NULL, 0), 1);
    assert_int_equal(change_rows(cat, h0 + 1, "namespace_dropped", ns_id), 1);
    assert_int_equal(sqli("SELECT count(*) FROM hog_namespace n JOIN hog_catalog c USING"
                          " (catalog_id) WHERE c.name = '%s' AND n.namespace_id = %lld AND"
                          " n.dropped_snapshot = %lld",
                          cat, (long long)ns_id, (long long)(h0 + 1)),
                     1);
    return h0 + 1;
}

/* Asserts a Namespace[] listing: names[i] / ids[i], in order. */
static void expect_listing(const json_t *list, const char *const *names, const int64_t *ids)
{
    assert_true(json_is_array(list));
    size_t n = 0;
    while (names[n])
        n++;
    if (json_array_size(list) != n) {
        char *d = json_dumps(list, JSON_COMPACT);
        fail_msg("expected %zu namespaces, got %s", n, d);
    }
    for (size_t i = 0; i < n; i++) {
        json_t *e = json_array_get(list, i);
        assert_string_equal(jstr(e, "name"), names[i]);
        assert_int_equal(jint(e, "namespace_id"), ids[i]);
        assert_int_equal(json_object_size(e), 2);
    }
}

static void expect_list_at(const char *cat, const char *query, const char *const *names,
                           const int64_t *ids)
{
    json_t *l = api_get_json(&srv, "/v1/catalogs/%s/namespaces%s", cat, query);
    expect_listing(l, names, ids);
    json_decref(l);
}

static void expect_list_error(const char *cat, const char *query, long status, const char *code,
                              const char *needle)
{
    struct http_result r;
    api_get(&r, &srv, "/v1/catalogs/%s/namespaces%s", cat, query);
    expect_error(&r, status, code);
    if (needle)
        expect_detail_contains(&r, needle);
    http_result_free(&r);
}

static int64_t now_micros(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* ISO-8601 with microseconds; offset_min != 0 writes local time at that
 * offset (URL-encoded, so a '+' survives the query string). */
static void iso(int64_t micros, int offset_min, char *out, size_t size)
{
    int64_t local = micros + (int64_t)offset_min * 60 * 1000000;
    time_t secs = (time_t)(local / 1000000);
    struct tm tm;
    gmtime_r(&secs, &tm);
    char base[40];
    strftime(base, sizeof base, "%Y-%m-%dT%H:%M:%S", &tm);
    if (offset_min == 0)
        snprintf(out, size, "%s.%06lldZ", base, (long long)(local % 1000000));
    else
        snprintf(out, size, "%s.%06lld%s%02d:%02d", base, (long long)(local % 1000000),
                 offset_min > 0 ? "%2B" : "-", abs(offset_min) / 60, abs(offset_min) % 60);
}

/* snapshot_time of one snapshot, in microseconds since the epoch. */
static int64_t snapshot_micros(const char *cat, int64_t snapshot)
{
    return sqli("SELECT (extract(epoch FROM s.snapshot_time) * 1000000)::bigint FROM hog_snapshot"
                " s JOIN hog_catalog c USING (catalog_id) WHERE c.name = '%s' AND"
                " s.snapshot_id = %lld",
                cat, (long long)snapshot);
}

static const char *const none[] = {NULL};

/* ---- create ---- */

static void create_returns_namespace_and_bumps(void **state)
{
    (void)state;
    make_catalog(&srv, "nsc");
    expect_api_head(&srv, "nsc", 0, 0);
    assert_int_equal(create_ns_ok("nsc", "alpha"), 1);
    assert_int_equal(create_ns_ok("nsc", "beta"), 2);
    assert_int_equal(create_ns_ok("nsc", "Mixed_Case-9"), 3);
    expect_api_head(&srv, "nsc", 3, 3);
    assert_int_equal(sqli("SELECT count(*) FROM hog_namespace n JOIN hog_catalog c USING"
                          " (catalog_id) WHERE c.name = 'nsc' AND n.name = 'beta' AND"
                          " n.namespace_id = 2 AND n.created_snapshot = 2 AND n.dropped_snapshot"
                          " IS NULL"),
                     1);
    /* Ids are per catalog: another catalog starts again at 1. */
    make_catalog(&srv, "nsc2");
    assert_int_equal(create_ns_ok("nsc2", "alpha"), 1);
    expect_api_head(&srv, "nsc", 3, 3);
}

/* Every DDL, namespace, table and view alike, advances head and
 * schema_version by exactly one. */
static void every_ddl_bumps_by_exactly_one(void **state)
{
    (void)state;
    make_catalog(&srv, "bump");
    int64_t ns = create_ns_ok("bump", "ns");
    expect_api_head(&srv, "bump", 1, 1);

    json_t *t = make_table(&srv, "bump", "ns", "t", "[{\"name\":\"a\",\"type\":\"int\"}]");
    assert_int_equal(jint(t, "snapshot_id"), 2);
    json_decref(t);
    expect_api_head(&srv, "bump", 2, 2);
    assert_int_equal(change_rows("bump", 2, NULL, 0), 1);

    struct http_result r;
    api_send(&r, &srv, "POST", jpack("{s:s,s:s}", "name", "v", "sql", "select 1"),
             "/v1/catalogs/bump/namespaces/ns/views");
    expect_status(&r, 201);
    assert_int_equal(jint(r.json, "snapshot_id"), 3);
    http_result_free(&r);
    expect_api_head(&srv, "bump", 3, 3);

    api_delete(&r, &srv, "/v1/catalogs/bump/namespaces/ns/views/v");
    expect_status(&r, 200);
    assert_int_equal(jint(r.json, "snapshot_id"), 4);
    assert_int_equal(jint(r.json, "schema_version"), 4);
    http_result_free(&r);
    expect_api_head(&srv, "bump", 4, 4);

    api_delete(&r, &srv, "/v1/catalogs/bump/namespaces/ns/tables/t");
    expect_status(&r, 200);
    assert_int_equal(jint(r.json, "snapshot_id"), 5);
    assert_int_equal(jint(r.json, "schema_version"), 5);
    http_result_free(&r);
    expect_api_head(&srv, "bump", 5, 5);

    drop_ns_ok("bump", "ns", ns, NULL);
    expect_api_head(&srv, "bump", 6, 6);
    /* Dense: snapshots 0..6, each with its schema_version equal to its id. */
    assert_int_equal(sqli("SELECT count(*) FROM hog_snapshot s JOIN hog_catalog c USING"
                          " (catalog_id) WHERE c.name = 'bump' AND s.snapshot_id ="
                          " s.schema_version"),
                     7);
}

static void namespace_names(void **state)
{
    (void)state;
    make_catalog(&srv, "nsnames");
    char n128[130], n129[131];
    memset(n128, 'q', 128);
    n128[128] = '\0';
    memset(n129, 'q', 129);
    n129[129] = '\0';
    n128[0] = n129[0] = '_';
    int64_t id = create_ns_ok("nsnames", n128);
    json_t *g = api_get_json(&srv, "/v1/catalogs/nsnames/namespaces/%s", n128);
    assert_string_equal(jstr(g, "name"), n128);
    assert_int_equal(jint(g, "namespace_id"), id);
    json_decref(g);
    create_ns_ok("nsnames", "_");
    create_ns_ok("nsnames", "a-1_B");

    static const char *const bad[] = {"1abc", "a.b", "", "a b", "-a", "a/b", "\xc3\xa9t\xc3\xa9",
                                      "a$"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct http_result r;
        EXPECT_NO_DDL("nsnames", create_ns(&r, "nsnames", bad[i]));
        expect_error(&r, 422, "validation");
        expect_detail_contains(&r, "invalid namespace name");
        expect_detail_contains(&r, "^[A-Za-z_][A-Za-z0-9_-]{0,127}$");
        http_result_free(&r);
    }
    struct http_result r;
    EXPECT_NO_DDL("nsnames", create_ns(&r, "nsnames", n129));
    expect_error(&r, 422, "validation");
    /* A long name is shortened in the message. */
    expect_detail_contains(&r, "...");
    http_result_free(&r);
    assert_int_equal(sqli("SELECT count(*) FROM hog_namespace n JOIN hog_catalog c USING"
                          " (catalog_id) WHERE c.name = 'nsnames'"),
                     3);

    /* Malformed bodies are 400, not 422. */
    static const char *const malformed[] = {"{}", "{\"name\":7}", "{\"name\":null}",
                                            "{\"name\":\"ok\",\"extra\":1}", "[\"ok\"]"};
    for (size_t i = 0; i < sizeof malformed / sizeof malformed[0]; i++) {
        EXPECT_NO_DDL("nsnames", api_send_text(&r, &srv, "POST", malformed[i],
                                               "/v1/catalogs/nsnames/namespaces"));
        expect_error(&r, 400, "bad_request");
        http_result_free(&r);
    }
    /* The name is validated before the catalog is looked up. */
    create_ns(&r, "nope", "1bad");
    expect_error(&r, 422, "validation");
    http_result_free(&r);
    create_ns(&r, "nope", "good");
    expect_error(&r, 404, "not_found");
    expect_detail_contains(&r, "catalog 'nope'");
    http_result_free(&r);
}

static void duplicate_namespace_is_409(void **state)
{
    (void)state;
    make_catalog(&srv, "nsdup");
    int64_t id = create_ns_ok("nsdup", "dup");
    struct http_result r;
    EXPECT_NO_DDL("nsdup", create_ns(&r, "nsdup", "dup"));
    expect_error(&r, 409, "already_exists");
    expect_detail_contains(&r, "namespace 'dup' already exists");
    http_result_free(&r);
    /* Names are case-sensitive. */
    int64_t id2 = create_ns_ok("nsdup", "Dup");
    assert_true(id2 != id);
    assert_int_equal(sqli("SELECT count(*) FROM hog_namespace n JOIN hog_catalog c USING"
                          " (catalog_id) WHERE c.name = 'nsdup' AND n.name = 'dup'"),
                     1);
}

/* ---- list, get, time travel ---- */

static void list_is_ordered_and_time_travels(void **state)
{
    (void)state;
    make_catalog(&srv, "nstt");
    int64_t zeta = create_ns_ok("nstt", "zeta");   /* s1 */
    int64_t alpha = create_ns_ok("nstt", "alpha"); /* s2 */
    int64_t mid = create_ns_ok("nstt", "mid");     /* s3 */
    expect_list_at("nstt", "", (const char *const[]){"alpha", "mid", "zeta", NULL},
                   (const int64_t[]){alpha, mid, zeta});
    expect_list_at("nstt", "?snapshot=0", none, NULL);
    expect_list_at("nstt", "?snapshot=1", (const char *const[]){"zeta", NULL},
                   (const int64_t[]){zeta});
    expect_list_at("nstt", "?snapshot=2", (const char *const[]){"alpha", "zeta", NULL},
                   (const int64_t[]){alpha, zeta});
    expect_list_at("nstt", "?snapshot=3", (const char *const[]){"alpha", "mid", "zeta", NULL},
                   (const int64_t[]){alpha, mid, zeta});
    int64_t dropped = drop_ns_ok("nstt", "mid", mid, NULL); /* s4 */
    assert_int_equal(dropped, 4);
    expect_list_at("nstt", "", (const char *const[]){"alpha", "zeta", NULL},
                   (const int64_t[]){alpha, zeta});
    expect_list_at("nstt", "?snapshot=4", (const char *const[]){"alpha", "zeta", NULL},
                   (const int64_t[]){alpha, zeta});
    expect_list_at("nstt", "?snapshot=3", (const char *const[]){"alpha", "mid", "zeta", NULL},
                   (const int64_t[]){alpha, mid, zeta});

    /* GET of one namespace time travels too. */
    json_t *g = api_get_json(&srv, "/v1/catalogs/nstt/namespaces/mid?snapshot=3");
    assert_string_equal(jstr(g, "name"), "mid");
    assert_int_equal(jint(g, "namespace_id"), mid);
    json_decref(g);
    struct http_result r;
    api_get(&r, &srv, "/v1/catalogs/nstt/namespaces/mid");
    expect_error(&r, 404, "not_found");
    expect_detail_contains(&r, "namespace 'mid' in catalog 'nstt'");
    http_result_free(&r);
    api_get(&r, &srv, "/v1/catalogs/nstt/namespaces/alpha?snapshot=1");
    expect_error(&r, 404, "not_found");
    expect_detail_contains(&r, "at snapshot 1");
    http_result_free(&r);

    /* Parameter errors. */
    expect_list_error("nstt", "?snapshot=5", 422, "validation", "out of range [0, 4]");
    expect_list_error("nstt", "?snapshot=-1", 422, "validation", "out of range");
    expect_list_error("nstt", "?snapshot=abc", 400, "bad_request", "snapshot");
    expect_list_error("nstt", "?snapshot=1.5", 400, "bad_request", "snapshot");
    expect_list_error("nstt", "?snapshot=", 400, "bad_request", NULL);
    expect_list_error("nstt", "?snapshot=99999999999999999999", 400, "bad_request", NULL);
    expect_list_error("nstt", "?snapshot=1&at_timestamp=2030-01-01T00:00:00Z", 422, "validation",
                      "mutually exclusive");
    /* A malformed value is reported before the conflict. */
    expect_list_error("nstt", "?snapshot=x&at_timestamp=2030-01-01T00:00:00Z", 400, "bad_request",
                      NULL);
    expect_list_error("nstt", "?snapshot=1&at_timestamp=soon", 400, "bad_request", NULL);
    expect_list_error("nstt", "?snapshots=1", 400, "bad_request", "snapshots");
    expect_list_error("nope", "", 404, "not_found", "catalog 'nope'");
    api_get(&r, &srv, "/v1/catalogs/nstt/namespaces/alpha?snapshot=9");
    expect_error(&r, 422, "validation");
    http_result_free(&r);
    api_get(&r, &srv, "/v1/catalogs/nope/namespaces/alpha");
    expect_error(&r, 404, "not_found");
    http_result_free(&r);
}

static void list_at_timestamp(void **state)
{
    (void)state;
    make_catalog(&srv, "nsts");
    int64_t first = create_ns_ok("nsts", "first"); /* s1 */
    sleep_ms(30);
    int64_t between = now_micros();
    sleep_ms(30);
    int64_t second = create_ns_ok("nsts", "second"); /* s2 */
    int64_t t1 = snapshot_micros("nsts", 1), t2 = snapshot_micros("nsts", 2);
    assert_true(t1 < between && between < t2);

    const char *const only_first[] = {"first", NULL};
    const int64_t first_ids[] = {first};
    const char *const both[] = {"first", "second", NULL};
    const int64_t both_ids[] = {first, second};
    char ts[64], q[128];

    iso(between, 0, ts, sizeof ts);
    snprintf(q, sizeof q, "?at_timestamp=%s", ts);
    expect_list_at("nsts", q, only_first, first_ids);
    /* The same instant written with other offsets. */
    iso(between, 120, ts, sizeof ts);
    snprintf(q, sizeof q, "?at_timestamp=%s", ts);
    expect_list_at("nsts", q, only_first, first_ids);
    iso(between, -330, ts, sizeof ts);
    snprintf(q, sizeof q, "?at_timestamp=%s", ts);
    expect_list_at("nsts", q, only_first, first_ids);
    /* A snapshot's own time resolves to it (<=); one microsecond earlier
     * does not. */
    iso(t2, 0, ts, sizeof ts);
    snprintf(q, sizeof q, "?at_timestamp=%s", ts);
    expect_list_at("nsts", q, both, both_ids);
    iso(t2 - 1, 0, ts, sizeof ts);
    snprintf(q, sizeof q, "?at_timestamp=%s", ts);
    expect_list_at("nsts", q, only_first, first_ids);
    iso(t1, 0, ts, sizeof ts);
    snprintf(q, sizeof q, "?at_timestamp=%s", ts);
    expect_list_at("nsts", q, only_first, first_ids);
    /* After head resolves to head. */
    expect_list_at("nsts", "?at_timestamp=2999-01-01T00:00:00Z", both, both_ids);
    /* Before snapshot 0 the catalog did not exist: nothing ever expired. */
    expect_list_error("nsts", "?at_timestamp=2000-01-01T00:00:00Z", 404, "before_catalog",
                      "catalog 'nsts' did not exist at 2000-01-01T00:00:00Z (created ");
    /* GET of one namespace. */
    iso(between, 0, ts, sizeof ts);
    struct http_result r;
    api_get(&r, &srv, "/v1/catalogs/nsts/namespaces/second?at_timestamp=%s", ts);
    expect_error(&r, 404, "not_found");
    http_result_free(&r);
    api_get(&r, &srv, "/v1/catalogs/nsts/namespaces/first?at_timestamp=%s", ts);
    expect_status(&r, 200);
    assert_int_equal(jint(r.json, "namespace_id"), first);
    http_result_free(&r);

    /* Malformed instants. */
    static const char *const bad[] = {"2026-01-01T00:00:00",  "2026-01-01", "yesterday", "",
                                      "2026-13-01T00:00:00Z", "1700000000"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(q, sizeof q, "?at_timestamp=%s", bad[i]);
        expect_list_error("nsts", q, 400, "bad_request", "at_timestamp");
    }
}

static void reads_below_the_floor_are_410(void **state)
{
    (void)state;
    make_catalog(&srv, "nsfloor");
    int64_t a = create_ns_ok("nsfloor", "a"); /* s1 */
    int64_t b = create_ns_ok("nsfloor", "b"); /* s2 */
    int64_t c = create_ns_ok("nsfloor", "c"); /* s3 */
    int64_t t1 = snapshot_micros("nsfloor", 1), t2 = snapshot_micros("nsfloor", 2);
    sql_exec("UPDATE hog_catalog SET earliest_snapshot_id = 2 WHERE name = 'nsfloor'");
    json_t *o = api_get_json(&srv, "/v1/catalogs/nsfloor/options");
    assert_int_equal(jint(o, "earliest_snapshot_id"), 2);
    json_decref(o);

    expect_list_error("nsfloor", "?snapshot=1", 410, "expired", "earliest retained snapshot is 2");
    expect_list_error("nsfloor", "?snapshot=0", 410, "expired", NULL);
    expect_list_at("nsfloor", "?snapshot=2", (const char *const[]){"a", "b", NULL},
                   (const int64_t[]){a, b});
    expect_list_at("nsfloor", "", (const char *const[]){"a", "b", "c", NULL},
                   (const int64_t[]){a, b, c});
    char ts[64], q[128];
    iso(t1, 0, ts, sizeof ts);
    snprintf(q, sizeof q, "?at_timestamp=%s", ts);
    expect_list_error("nsfloor", q, 410, "expired", NULL);
    iso(t2, 0, ts, sizeof ts);
    snprintf(q, sizeof q, "?at_timestamp=%s", ts);
    expect_list_at("nsfloor", q, (const char *const[]){"a", "b", NULL}, (const int64_t[]){a, b});
    /* Out of range still wins over expired for values past head. */
    expect_list_error("nsfloor", "?snapshot=4", 422, "validation", NULL);
    struct http_result r;
    api_get(&r, &srv, "/v1/catalogs/nsfloor/namespaces/a?snapshot=1");
    expect_error(&r, 410, "expired");
    http_result_free(&r);
    api_get(&r, &srv, "/v1/catalogs/nsfloor/namespaces/a?snapshot=2");
    expect_status(&r, 200);
    http_result_free(&r);
    /* Once expiry has recorded when the floor was reached, the catalog
     * shows it and the 410 names it. */
    sql_exec("UPDATE hog_catalog SET earliest_snapshot_time = '2026-01-02T03:04:05.123456Z'"
             " WHERE name = 'nsfloor'");
    json_t *cat = api_get_json(&srv, "/v1/catalogs/nsfloor");
    assert_string_equal(jstr(cat, "earliest_snapshot_time"), "2026-01-02T03:04:05.123456Z");
    json_decref(cat);
    expect_list_error("nsfloor", "?snapshot=1", 410, "expired",
                      "reached at 2026-01-02T03:04:05.123456Z");
}

static void get_namespace(void **state)
{
    (void)state;
    make_catalog(&srv, "nsget");
    int64_t id = create_ns_ok("nsget", "here");
    json_t *g = api_get_json(&srv, "/v1/catalogs/nsget/namespaces/here");
    assert_int_equal(json_object_size(g), 2);
    assert_string_equal(jstr(g, "name"), "here");
    assert_int_equal(jint(g, "namespace_id"), id);
    json_decref(g);
    struct http_result r;
    api_get(&r, &srv, "/v1/catalogs/nsget/namespaces/there");
    expect_error(&r, 404, "not_found");
    expect_detail_contains(&r, "namespace 'there' in catalog 'nsget'");
    http_result_free(&r);
    /* Names are case-sensitive. */
    api_get(&r, &srv, "/v1/catalogs/nsget/namespaces/HERE");
    expect_error(&r, 404, "not_found");
    http_result_free(&r);
    api_get(&r, &srv, "/v1/catalogs/nsget/namespaces/here?expected_namespace_id=1");
    expect_error(&r, 400, "bad_request");
    http_result_free(&r);
}

static void wrong_methods_are_405(void **state)
{
    (void)state;
    make_catalog(&srv, "nsmeth");
    make_namespace(&srv, "nsmeth", "ns");
    struct http_result r;
    api_send_text(&r, &srv, "PUT", "{}", "/v1/catalogs/nsmeth/namespaces/ns");
    expect_error(&r, 405, "method_not_allowed");
    assert_string_equal(r.allow, "GET, DELETE");
    http_result_free(&r);
    api_delete(&r, &srv, "/v1/catalogs/nsmeth/namespaces");
    expect_error(&r, 405, "method_not_allowed");
    assert_string_equal(r.allow, "GET, POST");
    http_result_free(&r);
    /* The namespace survived. */
    json_t *g = api_get_json(&srv, "/v1/catalogs/nsmeth/namespaces/ns");
    json_decref(g);
}

/* ---- drop ---- */

static void drop_and_reuse_the_name(void **state)
{
    (void)state;
    make_catalog(&srv, "nsdrop");
    int64_t keep = create_ns_ok("nsdrop", "keep");             /* s1 */
    int64_t old = create_ns_ok("nsdrop", "gone");              /* s2 */
    int64_t dropped = drop_ns_ok("nsdrop", "gone", old, NULL); /* s3 */
    struct http_result r;
    api_get(&r, &srv, "/v1/catalogs/nsdrop/namespaces/gone");
    expect_error(&r, 404, "not_found");
    http_result_free(&r);
    expect_list_at("nsdrop", "", (const char *const[]){"keep", NULL}, (const int64_t[]){keep});

    /* Dropping again is a 404 and makes no snapshot. */
    EXPECT_NO_DDL("nsdrop", drop_ns(&r, "nsdrop", "gone", NULL));
    expect_error(&r, 404, "not_found");
    expect_detail_contains(&r, "namespace 'gone' in catalog 'nsdrop'");
    http_result_free(&r);

    /* The name is reusable and gets a new id. */
    int64_t fresh = create_ns_ok("nsdrop", "gone"); /* s4 */
    assert_true(fresh != old);
    assert_true(fresh > old);
    expect_list_at("nsdrop", "", (const char *const[]){"gone", "keep", NULL},
                   (const int64_t[]){fresh, keep});
    /* The old incarnation is still visible before its drop, and neither at
     * the drop snapshot. */
    char q[64];
    snprintf(q, sizeof q, "?snapshot=%lld", (long long)(dropped - 1));
    expect_list_at("nsdrop", q, (const char *const[]){"gone", "keep", NULL},
                   (const int64_t[]){old, keep});
    snprintf(q, sizeof q, "?snapshot=%lld", (long long)dropped);
    expect_list_at("nsdrop", q, (const char *const[]){"keep", NULL}, (const int64_t[]){keep});
    json_t *g = api_get_json(&srv, "/v1/catalogs/nsdrop/namespaces/gone?snapshot=%lld",
                             (long long)(dropped - 1));
    assert_int_equal(jint(g, "namespace_id"), old);
    json_decref(g);
    g = api_get_json(&srv, "/v1/catalogs/nsdrop/namespaces/gone");
    assert_int_equal(jint(g, "namespace_id"), fresh);
    json_decref(g);
    assert_int_equal(sqli("SELECT count(*) FROM hog_namespace n JOIN hog_catalog c USING"
                          " (catalog_id) WHERE c.name = 'nsdrop' AND n.name = 'gone'"),
                     2);
    /* Dropping the new one works as well, with its own change row. */
    drop_ns_ok("nsdrop", "gone", fresh, NULL);

    /* Missing namespace or catalog. */
    EXPECT_NO_DDL("nsdrop", drop_ns(&r, "nsdrop", "never", NULL));
    expect_error(&r, 404, "not_found");
    http_result_free(&r);
    drop_ns(&r, "nope", "keep", NULL);
    expect_error(&r, 404, "not_found");
    expect_detail_contains(&r, "catalog 'nope'");
    http_result_free(&r);
    EXPECT_NO_DDL("nsdrop", drop_ns(&r, "nsdrop", "keep", "?cascade=true"));
    expect_error(&r, 400, "bad_request");
    http_result_free(&r);
}

static void drop_guarded_by_expected_id(void **state)
{
    (void)state;
    make_catalog(&srv, "nsguard");
    int64_t id = create_ns_ok("nsguard", "g");
    struct http_result r;
    char q[64];
    snprintf(q, sizeof q, "?expected_namespace_id=%lld", (long long)(id + 100));
    EXPECT_NO_DDL("nsguard", drop_ns(&r, "nsguard", "g", q));
    expect_error(&r, 409, "commit_conflict");
    expect_detail_contains(&r, "no longer has the expected identity");
    http_result_free(&r);
    static const char *const malformed[] = {
        "?expected_namespace_id=abc", "?expected_namespace_id=1.0",
        "?expected_namespace_id=", "?expected_namespace_id=0x1"};
    for (size_t i = 0; i < sizeof malformed / sizeof malformed[0]; i++) {
        EXPECT_NO_DDL("nsguard", drop_ns(&r, "nsguard", "g", malformed[i]));
        expect_error(&r, 400, "bad_request");
        expect_detail_contains(&r, "expected_namespace_id");
        http_result_free(&r);
    }
    json_t *g = api_get_json(&srv, "/v1/catalogs/nsguard/namespaces/g");
    assert_int_equal(jint(g, "namespace_id"), id);
    json_decref(g);

    /* The guard's purpose: a stale id refuses the re-created namespace. */
    snprintf(q, sizeof q, "?expected_namespace_id=%lld", (long long)id);
    drop_ns_ok("nsguard", "g", id, q);
    int64_t id2 = create_ns_ok("nsguard", "g");
    EXPECT_NO_DDL("nsguard", drop_ns(&r, "nsguard", "g", q));
    expect_error(&r, 409, "commit_conflict");
    http_result_free(&r);
    snprintf(q, sizeof q, "?expected_namespace_id=%lld", (long long)id2);
    drop_ns_ok("nsguard", "g", id2, q);
    /* A guard on a missing namespace is a 404. */
    EXPECT_NO_DDL("nsguard", drop_ns(&r, "nsguard", "g", q));
    expect_error(&r, 404, "not_found");
    http_result_free(&r);
}

static void drop_refuses_non_empty(void **state)
{
    (void)state;
    make_catalog(&srv, "nsfull");
    int64_t id = create_ns_ok("nsfull", "full");
    json_decref(make_table(&srv, "nsfull", "full", "t", "[{\"name\":\"a\",\"type\":\"int\"}]"));
    struct http_result r;
    EXPECT_NO_DDL("nsfull", drop_ns(&r, "nsfull", "full", NULL));
    expect_error(&r, 409, "namespace_not_empty");
    expect_detail_contains(&r, "namespace 'full' in catalog 'nsfull' is not empty: 1 table(s) "
                               "remain");
    http_result_free(&r);

    api_send(&r, &srv, "POST", jpack("{s:s,s:s}", "name", "v", "sql", "select 1"),
             "/v1/catalogs/nsfull/namespaces/full/views");
    expect_status(&r, 201);
    http_result_free(&r);
    json_decref(make_table(&srv, "nsfull", "full", "t2", "[{\"name\":\"a\",\"type\":\"int\"}]"));
    EXPECT_NO_DDL("nsfull", drop_ns(&r, "nsfull", "full", NULL));
    expect_error(&r, 409, "namespace_not_empty");
    expect_detail_contains(&r, "2 table(s) and 1 view(s)");
    http_result_free(&r);

    /* The identity guard is checked before emptiness. */
    EXPECT_NO_DDL("nsfull", drop_ns(&r, "nsfull", "full", "?expected_namespace_id=999"));
    expect_error(&r, 409, "commit_conflict");
    http_result_free(&r);

    api_delete(&r, &srv, "/v1/catalogs/nsfull/namespaces/full/tables/t");
    expect_status(&r, 200);
    http_result_free(&r);
    api_delete(&r, &srv, "/v1/catalogs/nsfull/namespaces/full/tables/t2");
    expect_status(&r, 200);
    http_result_free(&r);
    /* Views alone also block. */
    EXPECT_NO_DDL("nsfull", drop_ns(&r, "nsfull", "full", NULL));
    expect_error(&r, 409, "namespace_not_empty");
    expect_detail_contains(&r, "is not empty: 1 view(s) remain");
    http_result_free(&r);
    api_delete(&r, &srv, "/v1/catalogs/nsfull/namespaces/full/views/v");
    expect_status(&r, 200);
    http_result_free(&r);
    /* Dropped tables and views no longer count. */
    drop_ns_ok("nsfull", "full", id, NULL);
    assert_int_equal(sqli("SELECT count(*) FROM hog_namespace n JOIN hog_catalog c USING"
                          " (catalog_id) WHERE c.name = 'nsfull' AND n.dropped_snapshot IS NOT"
                          " NULL"),
                     1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(create_returns_namespace_and_bumps),
        cmocka_unit_test(every_ddl_bumps_by_exactly_one),
        cmocka_unit_test(namespace_names),
        cmocka_unit_test(duplicate_namespace_is_409),
        cmocka_unit_test(list_is_ordered_and_time_travels),
        cmocka_unit_test(list_at_timestamp),
        cmocka_unit_test(reads_below_the_floor_are_410),
        cmocka_unit_test(get_namespace),
        cmocka_unit_test(wrong_methods_are_405),
        cmocka_unit_test(drop_and_reuse_the_name),
        cmocka_unit_test(drop_guarded_by_expected_id),
        cmocka_unit_test(drop_refuses_non_empty),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

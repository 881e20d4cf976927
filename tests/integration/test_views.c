/* Views: create (name, sql, dialect rules), duplicates, list and get with
 * time travel, drop, and re-creation after a drop. */
#include <ctype.h>
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
    test_db_create(&db, "views");
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

/* The stored sql text of a live view, exactly as PostgreSQL holds it
 * (caller frees). */
static char *stored_sql(const char *cat, const char *name)
{
    const char *params[2] = {cat, name};
    PGresult *r = PQexecParams(pg,
                               "SELECT v.sql FROM hog_view v JOIN hog_catalog c USING (catalog_id)"
                               " WHERE c.name = $1 AND v.name = $2 AND v.end_snapshot IS NULL",
                               2, NULL, params, NULL, NULL, 0);
    if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1) {
        PQclear(r);
        fail_msg("no live view %s in %s", name, cat);
    }
    char *s = strdup(PQgetvalue(r, 0, 0));
    PQclear(r);
    return s;
}

/* The view_id of the view with this uuid. */
static int64_t view_id_of(const char *uuid)
{
    return sqli("SELECT view_id FROM hog_view WHERE view_uuid = '%s'", uuid);
}

#define EXPECT_NO_DDL(cat, call)                                                                   \
    do {                                                                                           \
        int64_t h_, s_;                                                                            \
        api_head(&srv, (cat), &h_, &s_);                                                           \
        call;                                                                                      \
        expect_api_head(&srv, (cat), h_, s_);                                                      \
    } while (0)

static bool is_uuid(const char *s)
{
    if (strlen(s) != 36)
        return false;
    for (int i = 0; i < 36; i++) {
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            if (s[i] != '-')
                return false;
        } else if (!isxdigit((unsigned char)s[i]) || isupper((unsigned char)s[i])) {
            return false;
        }
    }
    return true;
}

static void create_view(struct http_result *r, const char *cat, const char *ns, json_t *body)
{
    api_send(r, &srv, "POST", body, "/v1/catalogs/%s/namespaces/%s/views", cat, ns);
}

/* Creates a view (dialect NULL = default) and checks everything the create
 * promises: 201 shape, one snapshot, the change row and the stored row.
 * Returns the View (caller json_decref's). */
static json_t *create_view_ok(const char *cat, const char *ns, const char *name, const char *sql,
                              const char *dialect)
{
    int64_t h0, sv0;
    api_head(&srv, cat, &h0, &sv0);
    json_t *body = dialect ? jpack("{s:s,s:s,s:s}", "name", name, "sql", sql, "dialect", dialect)
                           : jpack("{s:s,s:s}", "name", name, "sql", sql);
    struct http_result r;
    create_view(&r, cat, ns, body);
    expect_status(&r, 201);
    json_t *v = json_incref(r.json);
    http_result_free(&r);
    assert_int_equal(json_object_size(v), 6);
    assert_string_equal(jstr(v, "name"), name);
    assert_string_equal(jstr(v, "namespace"), ns);
    assert_string_equal(jstr(v, "dialect"), dialect ? dialect : "trino");
    assert_string_equal(jstr(v, "sql"), sql);
    assert_true(is_uuid(jstr(v, "view_uuid")));
    assert_int_equal(jint(v, "snapshot_id"), h0 + 1);
    expect_api_head(&srv, cat, h0 + 1, sv0 + 1);
    int64_t id = view_id_of(jstr(v, "view_uuid"));
    assert_int_equal(change_rows(cat, h0 + 1, NULL, 0), 1);
    assert_int_equal(change_rows(cat, h0 + 1, "view_created", id), 1);
    assert_int_equal(sqli("SELECT count(*) FROM hog_view v JOIN hog_catalog c USING (catalog_id)"
                          " JOIN hog_namespace n ON n.catalog_id = v.catalog_id AND"
                          " n.namespace_id = v.namespace_id WHERE c.name = '%s' AND n.name = '%s'"
                          " AND v.view_id = %lld AND v.begin_snapshot = %lld AND v.end_snapshot"
                          " IS NULL AND v.dialect = '%s'",
                          cat, ns, (long long)id, (long long)(h0 + 1), dialect ? dialect : "trino"),
                     1);
    return v;
}

static int64_t drop_view_ok(const char *cat, const char *ns, const char *name, int64_t view_id)
{
    int64_t h0, sv0;
    api_head(&srv, cat, &h0, &sv0);
    struct http_result r;
    api_delete(&r, &srv, "/v1/catalogs/%s/namespaces/%s/views/%s", cat, ns, name);
    expect_status(&r, 200);
    assert_int_equal(json_object_size(r.json), 2);
    assert_int_equal(jint(r.json, "snapshot_id"), h0 + 1);
    assert_int_equal(jint(r.json, "schema_version"), sv0 + 1);
    http_result_free(&r);
    expect_api_head(&srv, cat, h0 + 1, sv0 + 1);
    assert_int_equal(change_rows(cat, h0 + 1, NULL, 0), 1);
    assert_int_equal(change_rows(cat, h0 + 1, "view_dropped", view_id), 1);
    assert_int_equal(sqli("SELECT count(*) FROM hog_view v JOIN hog_catalog c USING (catalog_id)"
                          " WHERE c.name = '%s' AND v.view_id = %lld AND v.end_snapshot = %lld",
                          cat, (long long)view_id, (long long)(h0 + 1)),
                     1);
    return h0 + 1;
}

/* The View read back (without snapshot_id) equals the create response. */
static void expect_same_view(const json_t *read, const json_t *created)
{
    assert_int_equal(json_object_size(read), 5);
    static const char *const keys[] = {"name", "namespace", "view_uuid", "dialect", "sql"};
    for (size_t i = 0; i < 5; i++)
        assert_string_equal(jstr(read, keys[i]), jstr(created, keys[i]));
}

static json_t *get_view(const char *cat, const char *ns, const char *name, const char *query)
{
    struct http_result r;
    api_get(&r, &srv, "/v1/catalogs/%s/namespaces/%s/views/%s%s", cat, ns, name, query);
    expect_status(&r, 200);
    json_t *v = json_incref(r.json);
    http_result_free(&r);
    return v;
}

static void expect_get_error(const char *cat, const char *ns, const char *name, const char *query,
                             long status, const char *code)
{
    struct http_result r;
    api_get(&r, &srv, "/v1/catalogs/%s/namespaces/%s/views/%s%s", cat, ns, name, query);
    expect_error(&r, status, code);
    http_result_free(&r);
}

/* A listing holds exactly these view uuids, in this order. */
static void expect_views(const char *cat, const char *ns, const char *query,
                         const json_t *const *views)
{
    struct http_result r;
    api_get(&r, &srv, "/v1/catalogs/%s/namespaces/%s/views%s", cat, ns, query);
    expect_status(&r, 200);
    assert_true(json_is_array(r.json));
    size_t n = 0;
    while (views[n])
        n++;
    if (json_array_size(r.json) != n)
        fail_msg("expected %zu views in %s%s, got %s", n, ns, query, r.body);
    for (size_t i = 0; i < n; i++)
        expect_same_view(json_array_get(r.json, i), views[i]);
    http_result_free(&r);
}

static void expect_list_error(const char *cat, const char *ns, const char *query, long status,
                              const char *code)
{
    struct http_result r;
    api_get(&r, &srv, "/v1/catalogs/%s/namespaces/%s/views%s", cat, ns, query);
    expect_error(&r, status, code);
    http_result_free(&r);
}

/* ---- create ---- */

static void create_returns_view(void **state)
{
    (void)state;
    make_catalog(&srv, "vw");
    make_namespace(&srv, "vw", "ns");
    json_t *v = create_view_ok("vw", "ns", "v1", "select 1", NULL);
    json_t *got = get_view("vw", "ns", "v1", "");
    expect_same_view(got, v);
    json_decref(got);
    /* An explicit dialect is kept. */
    json_t *s = create_view_ok("vw", "ns", "v_spark", "SELECT 2", "spark_3");
    json_t *t = create_view_ok("vw", "ns", "v_trino", "SELECT 3", "trino");
    assert_string_not_equal(jstr(v, "view_uuid"), jstr(s, "view_uuid"));
    assert_string_not_equal(jstr(s, "view_uuid"), jstr(t, "view_uuid"));
    /* The uuid is the stored one. */
    assert_int_equal(sqli("SELECT count(*) FROM hog_view WHERE view_uuid = '%s' AND name = 'v1'",
                          jstr(v, "view_uuid")),
                     1);
    json_decref(v);
    json_decref(s);
    json_decref(t);
}

static void sql_is_stored_verbatim(void **state)
{
    (void)state;
    make_catalog(&srv, "vsql");
    make_namespace(&srv, "vsql", "ns");
    static const char *const texts[] = {
        "  SELECT 'h\xc3\xa9llo \xe2\x9c\x93 \xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e \xf0\x9f\x98\x80'"
        " AS greeting\n  FROM t\r\n\tWHERE x = \"q\" -- trailing comment \\ backslash\n  ",
        "select\n\n\n1",
        "SELECT '{\"json\": [1, 2]}' /* not parsed: ; DROP TABLE x; */",
        "not even sql )(",
        "x",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        char name[16];
        snprintf(name, sizeof name, "v%zu", i);
        json_t *v = create_view_ok("vsql", "ns", name, texts[i], NULL);
        json_t *got = get_view("vsql", "ns", name, "");
        assert_string_equal(jstr(got, "sql"), texts[i]);
        json_decref(got);
        char *stored = stored_sql("vsql", name);
        assert_string_equal(stored, texts[i]);
        free(stored);
        json_decref(v);
    }
    /* A large body (100 KiB) round-trips too. */
    size_t n = 100 * 1024;
    char *big = malloc(n + 1);
    assert_non_null(big);
    for (size_t i = 0; i < n; i++)
        big[i] = "select 1 union all\n"[i % 19];
    big[n] = '\0';
    json_decref(create_view_ok("vsql", "ns", "big", big, NULL));
    char *stored = stored_sql("vsql", "big");
    assert_string_equal(stored, big);
    free(stored);
    free(big);
    /* The cap is 1 MiB of sql: exactly that is accepted, one byte more is
     * refused. */
    n = 1024 * 1024;
    big = malloc(n + 2);
    assert_non_null(big);
    memset(big, 'x', n + 1);
    big[n] = '\0';
    json_decref(create_view_ok("vsql", "ns", "max", big, NULL));
    big[n] = 'x';
    big[n + 1] = '\0';
    struct http_result r;
    EXPECT_NO_DDL("vsql",
                  create_view(&r, "vsql", "ns", jpack("{s:s,s:s}", "name", "over", "sql", big)));
    expect_error(&r, 422, "validation");
    expect_detail_contains(&r, "over the maximum");
    http_result_free(&r);
    free(big);
}

static void invalid_names_are_422(void **state)
{
    (void)state;
    make_catalog(&srv, "vname");
    make_namespace(&srv, "vname", "ns");
    char n128[129], n129[130];
    memset(n128, 'w', 128);
    n128[128] = '\0';
    memset(n129, 'w', 129);
    n129[129] = '\0';
    json_decref(create_view_ok("vname", "ns", n128, "select 1", NULL));
    json_decref(create_view_ok("vname", "ns", "_Under-Score_1", "select 1", NULL));
    const char *bad[] = {"1v", "v.x", "", "v x", "-v", "v/x", "v\xc3\xa9", n129};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct http_result r;
        EXPECT_NO_DDL("vname", create_view(&r, "vname", "ns",
                                           jpack("{s:s,s:s}", "name", bad[i], "sql", "select 1")));
        expect_error(&r, 422, "validation");
        expect_detail_contains(&r, "invalid view name");
        http_result_free(&r);
    }
    assert_int_equal(sqli("SELECT count(*) FROM hog_view v JOIN hog_catalog c USING (catalog_id)"
                          " WHERE c.name = 'vname'"),
                     2);
}

static void blank_sql_and_bad_dialect_are_422(void **state)
{
    (void)state;
    make_catalog(&srv, "vbad");
    make_namespace(&srv, "vbad", "ns");
    static const char *const blank[] = {"", " ", "\n\t \r\n", "\t\t"};
    for (size_t i = 0; i < sizeof blank / sizeof blank[0]; i++) {
        struct http_result r;
        EXPECT_NO_DDL("vbad", create_view(&r, "vbad", "ns",
                                          jpack("{s:s,s:s}", "name", "v", "sql", blank[i])));
        expect_error(&r, 422, "validation");
        expect_detail_contains(&r, "view sql must not be blank");
        http_result_free(&r);
    }
    char d32[33], d33[34];
    memset(d32, 'd', 32);
    d32[32] = '\0';
    memset(d33, 'd', 33);
    d33[33] = '\0';
    const char *bad_dialects[] = {"", "Trino", "1sql", "tri-no", "tri no", "_trino", d33};
    for (size_t i = 0; i < sizeof bad_dialects / sizeof bad_dialects[0]; i++) {
        struct http_result r;
        EXPECT_NO_DDL("vbad", create_view(&r, "vbad", "ns",
                                          jpack("{s:s,s:s,s:s}", "name", "v", "sql", "select 1",
                                                "dialect", bad_dialects[i])));
        expect_error(&r, 422, "validation");
        expect_detail_contains(&r, "view dialect");
        http_result_free(&r);
    }
    json_decref(create_view_ok("vbad", "ns", "v32", "select 1", d32));
    json_decref(create_view_ok("vbad", "ns", "vduck", "select 1", "duckdb"));

    /* Malformed bodies: 400. */
    static const char *const malformed[] = {
        "{\"name\":\"v\"}",
        "{\"sql\":\"select 1\"}",
        "{\"name\":\"v\",\"sql\":1}",
        "{\"name\":\"v\",\"sql\":null}",
        "{\"name\":\"v\",\"sql\":\"select 1\",\"dialect\":7}",
        "{\"name\":\"v\",\"sql\":\"select 1\",\"dialect\":null}",
        "{\"name\":\"v\",\"sql\":\"select 1\",\"columns\":[]}",
        "{\"name\":\"v\",\"sql\":\"select 1\"",
    };
    for (size_t i = 0; i < sizeof malformed / sizeof malformed[0]; i++) {
        struct http_result r;
        EXPECT_NO_DDL("vbad", api_send_text(&r, &srv, "POST", malformed[i],
                                            "/v1/catalogs/vbad/namespaces/ns/views"));
        expect_error(&r, 400, "bad_request");
        http_result_free(&r);
    }
    assert_int_equal(sqli("SELECT count(*) FROM hog_view v JOIN hog_catalog c USING (catalog_id)"
                          " WHERE c.name = 'vbad'"),
                     2);
}

static void duplicate_view_is_409(void **state)
{
    (void)state;
    make_catalog(&srv, "vdup");
    make_namespace(&srv, "vdup", "a");
    make_namespace(&srv, "vdup", "b");
    json_t *v = create_view_ok("vdup", "a", "v", "select 1", NULL);
    struct http_result r;
    EXPECT_NO_DDL("vdup",
                  create_view(&r, "vdup", "a", jpack("{s:s,s:s}", "name", "v", "sql", "select 2")));
    expect_error(&r, 409, "already_exists");
    expect_detail_contains(&r, "view 'v' already exists in namespace 'a'");
    http_result_free(&r);
    /* The original is untouched. */
    json_t *got = get_view("vdup", "a", "v", "");
    expect_same_view(got, v);
    json_decref(got);
    /* The same name in another namespace is a different view; names are
     * case-sensitive. */
    json_t *other = create_view_ok("vdup", "b", "v", "select 2", NULL);
    json_t *upper = create_view_ok("vdup", "a", "V", "select 3", NULL);
    assert_string_not_equal(jstr(other, "view_uuid"), jstr(v, "view_uuid"));
    json_decref(other);
    json_decref(upper);
    json_decref(v);
}

static void missing_namespace_or_catalog_is_404(void **state)
{
    (void)state;
    make_catalog(&srv, "v404");
    make_namespace(&srv, "v404", "ns");
    struct http_result r;
    EXPECT_NO_DDL("v404", create_view(&r, "v404", "nope",
                                      jpack("{s:s,s:s}", "name", "v", "sql", "select 1")));
    expect_error(&r, 404, "not_found");
    expect_detail_contains(&r, "namespace 'nope' in catalog 'v404'");
    http_result_free(&r);
    create_view(&r, "nope", "ns", jpack("{s:s,s:s}", "name", "v", "sql", "select 1"));
    expect_error(&r, 404, "not_found");
    expect_detail_contains(&r, "catalog 'nope'");
    http_result_free(&r);
    /* A dropped namespace is missing too. */
    make_namespace(&srv, "v404", "gone");
    api_delete(&r, &srv, "/v1/catalogs/v404/namespaces/gone");
    expect_status(&r, 200);
    http_result_free(&r);
    EXPECT_NO_DDL("v404", create_view(&r, "v404", "gone",
                                      jpack("{s:s,s:s}", "name", "v", "sql", "select 1")));
    expect_error(&r, 404, "not_found");
    http_result_free(&r);
    expect_list_error("v404", "gone", "", 404, "not_found");
    expect_list_error("v404", "nope", "", 404, "not_found");
    expect_list_error("nope", "ns", "", 404, "not_found");
    expect_get_error("v404", "ns", "nope", "", 404, "not_found");
    expect_get_error("v404", "nope", "v", "", 404, "not_found");
    expect_get_error("nope", "ns", "v", "", 404, "not_found");
    api_get(&r, &srv, "/v1/catalogs/v404/namespaces/ns/views/missing");
    expect_error(&r, 404, "not_found");
    expect_detail_contains(&r, "view 'ns.missing' in catalog 'v404'");
    http_result_free(&r);
    /* An empty namespace lists no views. */
    expect_views("v404", "ns", "", (const json_t *const[]){NULL});
}

/* ---- list, get, time travel ---- */

static void list_and_get_time_travel(void **state)
{
    (void)state;
    make_catalog(&srv, "vtt");
    make_namespace(&srv, "vtt", "ns");                                                    /* s1 */
    make_namespace(&srv, "vtt", "other");                                                 /* s2 */
    json_t *vb = create_view_ok("vtt", "ns", "vb", "select 'b'", NULL);                   /* s3 */
    json_t *va = create_view_ok("vtt", "ns", "va", "select 'a'", NULL);                   /* s4 */
    json_t *vo = create_view_ok("vtt", "other", "vo", "select 'o'", NULL);                /* s5 */
    int64_t dropped = drop_view_ok("vtt", "ns", "va", view_id_of(jstr(va, "view_uuid"))); /* s6 */
    assert_int_equal(dropped, 6);

    expect_views("vtt", "ns", "", (const json_t *const[]){vb, NULL});
    expect_views("vtt", "ns", "?snapshot=6", (const json_t *const[]){vb, NULL});
    expect_views("vtt", "ns", "?snapshot=5", (const json_t *const[]){va, vb, NULL});
    expect_views("vtt", "ns", "?snapshot=4", (const json_t *const[]){va, vb, NULL});
    expect_views("vtt", "ns", "?snapshot=3", (const json_t *const[]){vb, NULL});
    expect_views("vtt", "ns", "?snapshot=2", (const json_t *const[]){NULL});
    expect_views("vtt", "other", "", (const json_t *const[]){vo, NULL});
    expect_views("vtt", "other", "?snapshot=4", (const json_t *const[]){NULL});
    /* The namespace did not exist yet at snapshot 1. */
    expect_list_error("vtt", "other", "?snapshot=1", 404, "not_found");

    expect_get_error("vtt", "ns", "va", "", 404, "not_found");
    json_t *old = get_view("vtt", "ns", "va", "?snapshot=5");
    expect_same_view(old, va);
    json_decref(old);
    expect_get_error("vtt", "ns", "va", "?snapshot=3", 404, "not_found");
    expect_get_error("vtt", "ns", "va", "?snapshot=6", 404, "not_found");

    /* at_timestamp: the time of snapshot 4 sees va; one microsecond
     * before it does not. */
    int64_t t4 = sqli("SELECT (extract(epoch FROM s.snapshot_time) * 1000000)::bigint FROM"
                      " hog_snapshot s JOIN hog_catalog c USING (catalog_id) WHERE c.name = 'vtt'"
                      " AND s.snapshot_id = 4");
    char q[96];
    for (int delta = 0; delta <= 1; delta++) {
        int64_t t = t4 - delta;
        time_t secs = (time_t)(t / 1000000);
        struct tm tm;
        gmtime_r(&secs, &tm);
        char base[32];
        strftime(base, sizeof base, "%Y-%m-%dT%H:%M:%S", &tm);
        snprintf(q, sizeof q, "?at_timestamp=%s.%06lldZ", base, (long long)(t % 1000000));
        if (delta == 0)
            expect_views("vtt", "ns", q, (const json_t *const[]){va, vb, NULL});
        else
            expect_views("vtt", "ns", q, (const json_t *const[]){vb, NULL});
    }
    expect_views("vtt", "ns", "?at_timestamp=2999-01-01T00:00:00%2B01:00",
                 (const json_t *const[]){vb, NULL});
    expect_list_error("vtt", "ns", "?at_timestamp=1999-01-01T00:00:00Z", 404, "before_catalog");

    /* Parameter errors on list and get. */
    expect_list_error("vtt", "ns", "?snapshot=7", 422, "validation");
    expect_list_error("vtt", "ns", "?snapshot=-1", 422, "validation");
    expect_list_error("vtt", "ns", "?snapshot=x", 400, "bad_request");
    expect_list_error("vtt", "ns", "?at_timestamp=2020-01-01", 400, "bad_request");
    expect_list_error("vtt", "ns", "?snapshot=1&at_timestamp=2020-01-01T00:00:00Z", 422,
                      "validation");
    expect_list_error("vtt", "ns", "?limit=1", 400, "bad_request");
    expect_get_error("vtt", "ns", "vb", "?snapshot=99", 422, "validation");
    expect_get_error("vtt", "ns", "vb", "?snapshot=1&at_timestamp=2020-01-01T00:00:00Z", 422,
                     "validation");
    expect_get_error("vtt", "ns", "vb", "?snapshot=x", 400, "bad_request");

    /* Below the retention floor: 410. */
    PGresult *res =
        PQexec(pg, "UPDATE hog_catalog SET earliest_snapshot_id = 4 WHERE name = 'vtt'");
    assert_int_equal(PQresultStatus(res), PGRES_COMMAND_OK);
    PQclear(res);
    expect_list_error("vtt", "ns", "?snapshot=3", 410, "expired");
    expect_get_error("vtt", "ns", "vb", "?snapshot=3", 410, "expired");
    expect_views("vtt", "ns", "?snapshot=4", (const json_t *const[]){va, vb, NULL});
    json_decref(va);
    json_decref(vb);
    json_decref(vo);
}

/* A dropped namespace's views stay readable at the snapshots where both
 * were live. */
static void views_of_a_dropped_namespace_time_travel(void **state)
{
    (void)state;
    make_catalog(&srv, "vnsgone");
    make_namespace(&srv, "vnsgone", "ns");                                /* s1 */
    json_t *v = create_view_ok("vnsgone", "ns", "v", "select 42", NULL);  /* s2 */
    drop_view_ok("vnsgone", "ns", "v", view_id_of(jstr(v, "view_uuid"))); /* s3 */
    struct http_result r;
    api_delete(&r, &srv, "/v1/catalogs/vnsgone/namespaces/ns"); /* s4 */
    expect_status(&r, 200);
    assert_int_equal(jint(r.json, "snapshot_id"), 4);
    http_result_free(&r);
    expect_list_error("vnsgone", "ns", "", 404, "not_found");
    expect_views("vnsgone", "ns", "?snapshot=2", (const json_t *const[]){v, NULL});
    expect_views("vnsgone", "ns", "?snapshot=3", (const json_t *const[]){NULL});
    json_t *old = get_view("vnsgone", "ns", "v", "?snapshot=2");
    expect_same_view(old, v);
    json_decref(old);
    expect_get_error("vnsgone", "ns", "v", "?snapshot=4", 404, "not_found");
    /* A namespace of the same name made later does not inherit it. */
    make_namespace(&srv, "vnsgone", "ns"); /* s5 */
    expect_views("vnsgone", "ns", "", (const json_t *const[]){NULL});
    expect_get_error("vnsgone", "ns", "v", "", 404, "not_found");
    json_decref(v);
}

/* Routes answer only their methods. */
static void wrong_methods_are_405(void **state)
{
    (void)state;
    make_catalog(&srv, "vmeth");
    make_namespace(&srv, "vmeth", "ns");
    struct http_result r;
    api_send_text(&r, &srv, "PUT", "{}", "/v1/catalogs/vmeth/namespaces/ns/views");
    expect_error(&r, 405, "method_not_allowed");
    assert_string_equal(r.allow, "GET, POST");
    http_result_free(&r);
    api_send_text(&r, &srv, "POST", "{}", "/v1/catalogs/vmeth/namespaces/ns/views/v");
    expect_error(&r, 405, "method_not_allowed");
    assert_string_equal(r.allow, "GET, DELETE");
    http_result_free(&r);
    api_delete(&r, &srv, "/v1/catalogs/vmeth/namespaces/ns/views");
    expect_error(&r, 405, "method_not_allowed");
    http_result_free(&r);
}

/* ---- drop ---- */

static void drop_view(void **state)
{
    (void)state;
    make_catalog(&srv, "vdrop");
    make_namespace(&srv, "vdrop", "ns");
    json_t *v = create_view_ok("vdrop", "ns", "v", "select 1", NULL);
    json_t *keep = create_view_ok("vdrop", "ns", "keep", "select 2", NULL);
    int64_t id = view_id_of(jstr(v, "view_uuid"));
    drop_view_ok("vdrop", "ns", "v", id);
    expect_get_error("vdrop", "ns", "v", "", 404, "not_found");
    expect_views("vdrop", "ns", "", (const json_t *const[]){keep, NULL});

    struct http_result r;
    /* Dropping again, a missing view, namespace or catalog: 404, no DDL. */
    EXPECT_NO_DDL("vdrop", api_delete(&r, &srv, "/v1/catalogs/vdrop/namespaces/ns/views/v"));
    expect_error(&r, 404, "not_found");
    expect_detail_contains(&r, "view 'ns.v' in catalog 'vdrop'");
    http_result_free(&r);
    EXPECT_NO_DDL("vdrop", api_delete(&r, &srv, "/v1/catalogs/vdrop/namespaces/ns/views/never"));
    expect_error(&r, 404, "not_found");
    http_result_free(&r);
    EXPECT_NO_DDL("vdrop", api_delete(&r, &srv, "/v1/catalogs/vdrop/namespaces/nope/views/keep"));
    expect_error(&r, 404, "not_found");
    expect_detail_contains(&r, "namespace 'nope'");
    http_result_free(&r);
    api_delete(&r, &srv, "/v1/catalogs/nope/namespaces/ns/views/keep");
    expect_error(&r, 404, "not_found");
    expect_detail_contains(&r, "catalog 'nope'");
    http_result_free(&r);
    EXPECT_NO_DDL("vdrop",
                  api_delete(&r, &srv, "/v1/catalogs/vdrop/namespaces/ns/views/keep?force=1"));
    expect_error(&r, 400, "bad_request");
    http_result_free(&r);
    json_t *still = get_view("vdrop", "ns", "keep", "");
    expect_same_view(still, keep);
    json_decref(still);
    /* A view of the same name in another namespace is not affected. */
    make_namespace(&srv, "vdrop", "ns2");
    json_t *twin = create_view_ok("vdrop", "ns2", "keep", "select 3", NULL);
    drop_view_ok("vdrop", "ns", "keep", view_id_of(jstr(keep, "view_uuid")));
    still = get_view("vdrop", "ns2", "keep", "");
    expect_same_view(still, twin);
    json_decref(still);
    json_decref(twin);
    json_decref(keep);
    json_decref(v);
}

static void recreate_after_drop_gets_new_uuid(void **state)
{
    (void)state;
    make_catalog(&srv, "vre");
    make_namespace(&srv, "vre", "ns");
    json_t *first = create_view_ok("vre", "ns", "v", "select 'first'", NULL); /* s2 */
    int64_t first_id = view_id_of(jstr(first, "view_uuid"));
    int64_t dropped = drop_view_ok("vre", "ns", "v", first_id);                    /* s3 */
    json_t *second = create_view_ok("vre", "ns", "v", "select 'second'", "spark"); /* s4 */
    int64_t second_id = view_id_of(jstr(second, "view_uuid"));
    assert_string_not_equal(jstr(first, "view_uuid"), jstr(second, "view_uuid"));
    assert_true(second_id > first_id);
    json_t *now = get_view("vre", "ns", "v", "");
    expect_same_view(now, second);
    json_decref(now);
    char q[48];
    snprintf(q, sizeof q, "?snapshot=%lld", (long long)(dropped - 1));
    json_t *then = get_view("vre", "ns", "v", q);
    expect_same_view(then, first);
    json_decref(then);
    snprintf(q, sizeof q, "?snapshot=%lld", (long long)dropped);
    expect_get_error("vre", "ns", "v", q, 404, "not_found");
    expect_views("vre", "ns", "?snapshot=2", (const json_t *const[]){first, NULL});
    expect_views("vre", "ns", "", (const json_t *const[]){second, NULL});
    assert_int_equal(sqli("SELECT count(*) FROM hog_view v JOIN hog_catalog c USING (catalog_id)"
                          " WHERE c.name = 'vre' AND v.name = 'v'"),
                     2);
    json_decref(first);
    json_decref(second);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(create_returns_view),
        cmocka_unit_test(sql_is_stored_verbatim),
        cmocka_unit_test(invalid_names_are_422),
        cmocka_unit_test(blank_sql_and_bad_dialect_are_422),
        cmocka_unit_test(duplicate_view_is_409),
        cmocka_unit_test(missing_namespace_or_catalog_is_404),
        cmocka_unit_test(list_and_get_time_travel),
        cmocka_unit_test(views_of_a_dropped_namespace_time_travel),
        cmocka_unit_test(wrong_methods_are_405),
        cmocka_unit_test(drop_view),
        cmocka_unit_test(recreate_after_drop_gets_new_uuid),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

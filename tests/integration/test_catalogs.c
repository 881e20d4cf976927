/* Catalogs: list, create (name and data_path rules, prefix disjointness,
 * duplicates, the default warehouse), get, and the retention options. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static struct test_db db;
static struct test_server srv;    /* no --warehouse */
static struct test_server wh_srv; /* --warehouse s3://hoglake-test/wh, same database */
static PGconn *pg;

static int setup(void **state)
{
    (void)state;
    test_db_create(&db, "catalogs");
    /* The file:// cases below name paths under /tmp (never created). */
    static const char *const roots[] = {"--file-roots", "/tmp", NULL};
    test_server_start(&srv, &db, roots);
    static const char *const wh[] = {"--warehouse", "s3://hoglake-test/wh", NULL};
    test_server_start(&wh_srv, &db, wh);
    pg = test_db_connect(&db);
    test_sql_use(pg);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    PQfinish(pg);
    test_server_stop(&wh_srv);
    test_server_stop(&srv);
    test_db_drop(&db);
    return 0;
}

/* ---- helpers ---- */

/* Rows in hog_catalog with this name (0 or 1). */
static int64_t catalog_rows(const char *name)
{
    char *lit = PQescapeLiteral(pg, name, strlen(name));
    int64_t n = sqli("SELECT count(*) FROM hog_catalog WHERE name = %s", lit);
    PQfreemem(lit);
    return n;
}

static void create_catalog(struct http_result *r, const struct test_server *s, const char *name,
                           const char *data_path)
{
    json_t *body = data_path ? jpack("{s:s,s:s}", "name", name, "data_path", data_path)
                             : jpack("{s:s}", "name", name);
    api_send(r, s, "POST", body, "/v1/catalogs");
}

/* Creates a catalog and checks the 201 carries the expected data_path. */
static void create_ok(const char *name, const char *data_path, const char *want_path)
{
    struct http_result r;
    create_catalog(&r, &srv, name, data_path);
    expect_status(&r, 201);
    assert_string_equal(jstr(r.json, "name"), name);
    assert_string_equal(jstr(r.json, "data_path"), want_path);
    http_result_free(&r);
    assert_int_equal(catalog_rows(name), 1);
}

/* A create refused with 422 whose detail contains `needle`; nothing is
 * written. */
static void create_422(const char *name, const char *data_path, const char *needle)
{
    struct http_result r;
    create_catalog(&r, &srv, name, data_path);
    expect_error(&r, 422, "validation");
    if (needle)
        expect_detail_contains(&r, needle);
    http_result_free(&r);
    assert_int_equal(catalog_rows(name), 0);
}

static void patch_options(struct http_result *r, const char *catalog, const char *body)
{
    api_send_text(r, &srv, "PATCH", body, "/v1/catalogs/%s/options", catalog);
}

/* Asserts the options object: retention < 0 means "absent". */
static void expect_options(const json_t *o, bool floor, int64_t earliest, int64_t retention)
{
    json_t *f = json_object_get(o, "consumer_floor");
    assert_true(json_is_boolean(f));
    assert_int_equal(json_is_true(f), floor);
    assert_int_equal(jint(o, "earliest_snapshot_id"), earliest);
    json_t *ret = json_object_get(o, "snapshot_retention_seconds");
    if (retention < 0) {
        assert_null(ret);
        assert_int_equal(json_object_size(o), 2);
    } else {
        assert_true(json_is_integer(ret));
        assert_int_equal(json_integer_value(ret), retention);
        assert_int_equal(json_object_size(o), 3);
    }
}

static char *repeat(char c, size_t n)
{
    char *s = malloc(n + 1);
    assert_non_null(s);
    memset(s, c, n);
    s[n] = '\0';
    return s;
}

static const char *const known_capabilities[] = {
    "atomic-table-creation-v1",
    "idempotent-append-v1",
    "idempotent-delete-v1",
    "idempotent-mutation-v1",
    "guarded-table-lifecycle-v1",
    "atomic-table-replacement-v1",
    "guarded-schema-evolution-v1",
    "recursive-write-schema-v1",
    "atomic-partitioned-table-creation-v1",
    "atomic-sorted-table-creation-v1",
    "versioned-table-metadata-v1",
    "claimed-uploads-v1",
    "atomic-dml-transactions-v1",
    NULL,
};

static void expect_capabilities(const json_t *cat)
{
    json_t *caps = json_object_get(cat, "capabilities");
    assert_true(json_is_array(caps));
    assert_true(json_array_size(caps) >= 1);
    for (size_t i = 0; i < json_array_size(caps); i++) {
        const char *c = json_string_value(json_array_get(caps, i));
        assert_non_null(c);
        bool known = false;
        for (const char *const *k = known_capabilities; *k; k++)
            known = known || strcmp(*k, c) == 0;
        if (!known)
            fail_msg("unknown capability '%s'", c);
        for (size_t j = 0; j < i; j++)
            assert_string_not_equal(c, json_string_value(json_array_get(caps, j)));
    }
    /* What this server implements is advertised (each has its endpoints'
     * tests: test_commits, test_commit_endpoints, test_upload_claims). */
    static const char *const implemented[] = {
        "idempotent-append-v1",       "idempotent-delete-v1",        "idempotent-mutation-v1",
        "guarded-table-lifecycle-v1", "guarded-schema-evolution-v1", "versioned-table-metadata-v1",
        "claimed-uploads-v1",         "atomic-dml-transactions-v1",
    };
    for (size_t k = 0; k < sizeof implemented / sizeof implemented[0]; k++) {
        bool found = false;
        for (size_t i = 0; i < json_array_size(caps); i++)
            found =
                found || strcmp(json_string_value(json_array_get(caps, i)), implemented[k]) == 0;
        if (!found)
            fail_msg("capability '%s' is not advertised", implemented[k]);
    }
}

/* ---- create ---- */

static void create_returns_catalog_shape(void **state)
{
    (void)state;
    struct http_result r;
    create_catalog(&r, &srv, "shape", "s3://hoglake-test/shape/");
    expect_status(&r, 201);
    assert_string_equal(r.content_type, "application/json");
    assert_string_equal(jstr(r.json, "name"), "shape");
    assert_string_equal(jstr(r.json, "data_path"), "s3://hoglake-test/shape");
    assert_int_equal(jint(r.json, "head_snapshot_id"), 0);
    assert_int_equal(jint(r.json, "schema_version"), 0);
    expect_capabilities(r.json);
    /* Never expired, never sampled: the optional members are omitted. */
    assert_null(json_object_get(r.json, "earliest_snapshot_time"));
    assert_null(json_object_get(r.json, "table_count"));
    json_t *created = json_incref(r.json);
    http_result_free(&r);

    /* GET answers the same object. */
    json_t *got = api_get_json(&srv, "%s", "/v1/catalogs/shape");
    assert_true(json_equal(created, got));
    json_decref(got);
    json_decref(created);

    /* Rows: the normalised path, allocators at 0, and exactly snapshot 0. */
    assert_int_equal(sqli("SELECT count(*) FROM hog_catalog WHERE name = 'shape' AND data_path ="
                          " 's3://hoglake-test/shape' AND last_snapshot_id = 0 AND schema_version"
                          " = 0 AND earliest_snapshot_id = 0"),
                     1);
    assert_int_equal(sqli("SELECT count(*) FROM hog_snapshot s JOIN hog_catalog c USING"
                          " (catalog_id) WHERE c.name = 'shape'"),
                     1);
    assert_int_equal(sqli("SELECT count(*) FROM hog_snapshot s JOIN hog_catalog c USING"
                          " (catalog_id) WHERE c.name = 'shape' AND s.snapshot_id = 0 AND"
                          " s.schema_version = 0 AND s.snapshot_time <= clock_timestamp()"),
                     1);
    assert_int_equal(sqli("SELECT count(*) FROM hog_snapshot_change s JOIN hog_catalog c USING"
                          " (catalog_id) WHERE c.name = 'shape'"),
                     0);
}

static void data_path_is_normalised(void **state)
{
    (void)state;
    create_ok("norm-multi", "s3://hoglake-norm/a/b///", "s3://hoglake-norm/a/b");
    create_ok("norm-bucket", "s3://hoglake-norm2/", "s3://hoglake-norm2");
    create_ok("norm-bare", "s3://hoglake-norm3", "s3://hoglake-norm3");
    create_ok("norm-file", "file:///tmp/hoglake-norm/x/", "file:///tmp/hoglake-norm/x");
    create_ok("norm-dots", "s3://my.bucket-1/p.q/..r/.s", "s3://my.bucket-1/p.q/..r/.s");
    assert_int_equal(sqli("SELECT count(*) FROM hog_catalog WHERE name LIKE 'norm-%%' AND"
                          " data_path LIKE '%%/'"),
                     0);
}

static void list_is_ordered_by_name(void **state)
{
    (void)state;
    /* Created out of order; letters and digits only, so every collation
     * agrees on the order. */
    static const char *const created[] = {"lz", "la", "l9", "lm", "l0b", NULL};
    static const char *const sorted[] = {"l0b", "l9", "la", "lm", "lz", NULL};
    for (const char *const *n = created; *n; n++)
        make_catalog(&srv, *n);
    json_t *list = api_get_json(&srv, "%s", "/v1/catalogs");
    assert_true(json_is_array(list));
    assert_int_equal(json_array_size(list), sqli("SELECT count(*) FROM hog_catalog"));
    const char *const *want = sorted;
    for (size_t i = 0; i < json_array_size(list); i++) {
        json_t *c = json_array_get(list, i);
        const char *name = jstr(c, "name");
        /* Every entry is the full Catalog object. */
        char path[200];
        snprintf(path, sizeof path, "/v1/catalogs/%s", name);
        json_t *one = api_get_json(&srv, "%s", path);
        assert_true(json_equal(one, c));
        json_decref(one);
        if (*want && strcmp(name, *want) == 0)
            want++;
        else
            for (const char *const *n = sorted; *n; n++)
                if (strcmp(name, *n) == 0)
                    fail_msg("catalog '%s' listed out of order", name);
    }
    assert_null(*want);
    json_decref(list);
    /* The listing agrees with the database's own ordering. */
    PGresult *res = PQexec(pg, "SELECT name FROM hog_catalog ORDER BY name");
    assert_int_equal(PQresultStatus(res), PGRES_TUPLES_OK);
    list = api_get_json(&srv, "%s", "/v1/catalogs");
    assert_int_equal(PQntuples(res), (int)json_array_size(list));
    for (int i = 0; i < PQntuples(res); i++)
        assert_string_equal(PQgetvalue(res, i, 0), jstr(json_array_get(list, (size_t)i), "name"));
    PQclear(res);
    json_decref(list);
    /* No query parameters are accepted. */
    struct http_result r;
    api_get(&r, &srv, "/v1/catalogs?limit=1");
    expect_error(&r, 400, "bad_request");
    http_result_free(&r);
}

static void catalog_names(void **state)
{
    (void)state;
    char *n63 = repeat('n', 63);
    char *n64 = repeat('n', 64);
    create_ok("7lead", "s3://hoglake-names/7lead", "s3://hoglake-names/7lead");
    create_ok("a", "s3://hoglake-names/a", "s3://hoglake-names/a");
    create_ok("x_y-z9", "s3://hoglake-names/x_y-z9", "s3://hoglake-names/x_y-z9");
    create_ok(n63, "s3://hoglake-names/n63", "s3://hoglake-names/n63");
    /* The 63-character name round-trips through GET. */
    char path[200];
    snprintf(path, sizeof path, "/v1/catalogs/%s", n63);
    json_t *got = api_get_json(&srv, "%s", path);
    assert_string_equal(jstr(got, "name"), n63);
    json_decref(got);

    static const char *const bad[] = {"Upper", "upper-X", "_lead",       "-lead", "a.b",
                                      "a b",   "a/b",     "caf\xc3\xa9", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        create_422(bad[i], "s3://hoglake-names/bad", "invalid catalog name");
    create_422(n64, "s3://hoglake-names/n64", "invalid catalog name");
    /* The name is checked before the data_path. */
    create_422("BAD", "gs://nope", "invalid catalog name");
    assert_int_equal(sqli("SELECT count(*) FROM hog_catalog WHERE data_path LIKE"
                          " 's3://hoglake-names/%%'"),
                     4);
    free(n63);
    free(n64);
}

static void data_path_rules(void **state)
{
    (void)state;
    /* Exactly 512 characters is accepted, 513 is not. */
    const char *prefix = "s3://hoglake-len/";
    char *p512 = malloc(600), *p513 = malloc(600);
    assert_non_null(p512);
    assert_non_null(p513);
    snprintf(p512, 600, "%s%0*d", prefix, (int)(512 - strlen(prefix)), 0);
    snprintf(p513, 600, "%s%0*d", prefix, (int)(513 - strlen(prefix)), 1);
    assert_int_equal(strlen(p512), 512);
    assert_int_equal(strlen(p513), 513);
    create_ok("len512", p512, p512);
    create_422("len513", p513, "513 bytes, over the maximum 512");
    /* Far past the limit as well. */
    char *huge = repeat('h', 5000);
    memcpy(huge, "s3://hoglake-len2/", 18);
    create_422("len5000", huge, "over the maximum 512");
    free(huge);
    free(p512);
    free(p513);

    static const struct {
        const char *path;
        const char *needle;
    } bad[] = {
        {"", "must not be blank"},
        {"s3://hoglake-ws/a b", "whitespace or control"},
        {"s3://hoglake-ws/a\tb", "whitespace or control"},
        {"s3://hoglake-ws/a\nb", "whitespace or control"},
        {"s3://hoglake-ws/a\x01"
         "b",
         "whitespace or control"},
        {"s3://hoglake-ws/a\x7f"
         "b",
         "whitespace or control"},
        {" s3://hoglake-ws/a", "whitespace or control"},
        /* bucket names: 3-63 of a-z 0-9 . -, not starting or ending with . - */
        {"s3://ab/x", "valid bucket"},
        {"s3://Hoglake/x", "valid bucket"},
        {"s3://-hoglake/x", "valid bucket"},
        {"s3://hoglake-/x", "valid bucket"},
        {"s3://.hoglake/x", "valid bucket"},
        {"s3://hog_lake/x", "valid bucket"},
        {"s3:///x", "valid bucket"},
        {"s3://", NULL},
        {"s3://hoglake\xc3\xa9/x", "valid bucket"},
        /* segments */
        {"s3://hoglake-seg/a/./b", "'.' or '..' segments"},
        {"s3://hoglake-seg/a/../b", "'.' or '..' segments"},
        {"s3://hoglake-seg/a//b", "empty, '.' or '..' segments"},
        {"s3://hoglake-seg/.", "'.' or '..' segments"},
        {"s3://hoglake-seg/..", "'.' or '..' segments"},
        {"s3://hoglake-seg/../", "'.' or '..' segments"},
        {"file:///tmp/../x", "'.' or '..' segments"},
        {"file:///tmp//x", "empty, '.' or '..' segments"},
        {"file:///./x", "'.' or '..' segments"},
        {"file:////x", "empty, '.' or '..' segments"},
        /* schemes */
        {"gs://hoglake-scheme/x", "s3://<bucket>[/<prefix>] or file:///"},
        {"http://hoglake-scheme/x", "s3://<bucket>[/<prefix>] or file:///"},
        {"S3://hoglake-scheme/x", "s3://<bucket>[/<prefix>] or file:///"},
        {"s3:/hoglake-scheme/x", "s3://<bucket>[/<prefix>] or file:///"},
        {"/tmp/hoglake-scheme", "s3://<bucket>[/<prefix>] or file:///"},
        {"file://relative/x", "s3://<bucket>[/<prefix>] or file:///"},
        {"file:///", NULL},
        {"hoglake-scheme", "s3://<bucket>[/<prefix>] or file:///"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char name[32];
        snprintf(name, sizeof name, "badpath%zu", i);
        create_422(name, bad[i].path, bad[i].needle);
    }
    /* 63 characters of bucket is the maximum. */
    char b63[120], b64[120];
    snprintf(b63, sizeof b63, "s3://%063d/x", 0);
    snprintf(b64, sizeof b64, "s3://%064d/x", 0);
    create_ok("bucket63", b63, b63);
    create_422("bucket64", b64, "valid bucket");
    create_ok("bucket3", "s3://abc", "s3://abc");

    /* A data_path of the wrong JSON type is malformed input, not a 422. */
    struct http_result r;
    api_send(&r, &srv, "POST", jparse("{\"name\":\"wrongtype\",\"data_path\":17}"), "/v1/catalogs");
    expect_error(&r, 400, "bad_request");
    http_result_free(&r);
    api_send(&r, &srv, "POST", jparse("{\"name\":\"wrongtype\",\"data_path\":null}"),
             "/v1/catalogs");
    expect_error(&r, 400, "bad_request");
    http_result_free(&r);
    assert_int_equal(catalog_rows("wrongtype"), 0);
}

static void data_paths_must_be_disjoint(void **state)
{
    (void)state;
    create_ok("ovl-base", "s3://hoglake-ovl/a", "s3://hoglake-ovl/a");
    /* Sharing characters but not a segment boundary is no overlap. */
    create_ok("ovl-sibling", "s3://hoglake-ovl/ab", "s3://hoglake-ovl/ab");
    create_ok("ovl-bucket", "s3://hoglake-ovlx", "s3://hoglake-ovlx");
    /* Inside an existing prefix, its parent, or the same place. */
    create_422("ovl-child", "s3://hoglake-ovl/a/x",
               "overlaps catalog 'ovl-base' (data_path 's3://hoglake-ovl/a')");
    create_422("ovl-deep", "s3://hoglake-ovl/a/x/y/z", "overlaps catalog 'ovl-base'");
    create_422("ovl-same", "s3://hoglake-ovl/a", "overlaps catalog 'ovl-base'");
    create_422("ovl-slash", "s3://hoglake-ovl/a/", "overlaps catalog 'ovl-base'");
    create_422("ovl-parent", "s3://hoglake-ovl", "must be disjoint");
    create_422("ovl-parent2", "s3://hoglake-ovl/", "must be disjoint");
    /* Existing deep path; the new one is its ancestor. */
    create_ok("ovl2-deep", "s3://hoglake-ovl2/p/q/r", "s3://hoglake-ovl2/p/q/r");
    create_422("ovl2-anc", "s3://hoglake-ovl2/p", "overlaps catalog 'ovl2-deep'");
    create_422("ovl2-anc2", "s3://hoglake-ovl2/p/q", "overlaps catalog 'ovl2-deep'");
    create_ok("ovl2-rr", "s3://hoglake-ovl2/p/q/rr", "s3://hoglake-ovl2/p/q/rr");
    create_ok("ovl2-qq", "s3://hoglake-ovl2/p/qq", "s3://hoglake-ovl2/p/qq");
    /* file:// paths follow the same rule. */
    create_ok("ovl-file", "file:///tmp/hoglake-ovl/a", "file:///tmp/hoglake-ovl/a");
    create_422("ovl-file-child", "file:///tmp/hoglake-ovl/a/b", "overlaps catalog 'ovl-file'");
    create_422("ovl-file-parent", "file:///tmp/hoglake-ovl", "overlaps catalog 'ovl-file'");
    create_ok("ovl-file-sib", "file:///tmp/hoglake-ovl/a-b", "file:///tmp/hoglake-ovl/a-b");
    assert_int_equal(sqli("SELECT count(*) FROM hog_catalog WHERE name LIKE 'ovl%%'"), 8);
}

static void duplicate_name_is_409(void **state)
{
    (void)state;
    create_ok("dup", "s3://hoglake-dup/one", "s3://hoglake-dup/one");
    struct http_result r;
    /* A different, disjoint path: still a duplicate name. */
    create_catalog(&r, &srv, "dup", "s3://hoglake-dup/two");
    expect_error(&r, 409, "already_exists");
    expect_detail_contains(&r, "catalog 'dup' already exists");
    http_result_free(&r);
    /* The same path: the name check comes first, so 409 rather than 422. */
    create_catalog(&r, &srv, "dup", "s3://hoglake-dup/one");
    expect_error(&r, 409, "already_exists");
    http_result_free(&r);
    assert_int_equal(catalog_rows("dup"), 1);
    assert_int_equal(sqli("SELECT count(*) FROM hog_catalog WHERE data_path ="
                          " 's3://hoglake-dup/one'"),
                     1);
    assert_int_equal(sqli("SELECT count(*) FROM hog_catalog WHERE data_path ="
                          " 's3://hoglake-dup/two'"),
                     0);
    assert_int_equal(sqli("SELECT count(*) FROM hog_snapshot s JOIN hog_catalog c USING"
                          " (catalog_id) WHERE c.name = 'dup'"),
                     1);
}

static void malformed_create_is_400(void **state)
{
    (void)state;
    static const char *const bodies[] = {
        "{\"data_path\":\"s3://hoglake-mal/x\"}",
        "{\"name\":null,\"data_path\":\"s3://hoglake-mal/x\"}",
        "{\"name\":[\"mal\"],\"data_path\":\"s3://hoglake-mal/x\"}",
        "{\"name\":\"mal\",\"data_path\":\"s3://hoglake-mal/x\",\"capabilities\":[]}",
        "{\"name\":\"mal\",\"data_path\":\"s3://hoglake-mal/x\"",
    };
    for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; i++) {
        struct http_result r;
        api_send_text(&r, &srv, "POST", bodies[i], "/v1/catalogs");
        expect_error(&r, 400, "bad_request");
        http_result_free(&r);
    }
    assert_int_equal(catalog_rows("mal"), 0);
}

static void get_missing_is_404(void **state)
{
    (void)state;
    struct http_result r;
    api_get(&r, &srv, "/v1/catalogs/nope");
    expect_error(&r, 404, "not_found");
    expect_detail_contains(&r, "catalog 'nope'");
    http_result_free(&r);
    /* An invalid name is simply not found. */
    api_get(&r, &srv, "/v1/catalogs/NOPE");
    expect_error(&r, 404, "not_found");
    http_result_free(&r);
    make_catalog(&srv, "present");
    api_get(&r, &srv, "/v1/catalogs/present?snapshot=0");
    expect_error(&r, 400, "bad_request");
    http_result_free(&r);
}

/* ---- races: the checks hold under concurrency ---- */

enum { RACERS = 8 };

struct racer {
    const struct test_server *server;
    char name[32];
    char path[96];
    long status;
    char error[48];
};

static void *race_create(void *arg)
{
    struct racer *r = arg;
    struct http_result res;
    create_catalog(&res, r->server, r->name, r->path);
    r->status = res.status;
    const char *e = res.json ? json_string_value(json_object_get(res.json, "error")) : NULL;
    snprintf(r->error, sizeof r->error, "%s", e ? e : "");
    http_result_free(&res);
    return NULL;
}

/* Runs the racers at once, half through each server; returns how many got
 * `ok` and checks every other answer is `fail_status`/`fail_code`. */
static int run_race(struct racer *racers, long fail_status, const char *fail_code)
{
    pthread_t threads[RACERS];
    for (int i = 0; i < RACERS; i++) {
        racers[i].server = i % 2 ? &wh_srv : &srv;
        assert_int_equal(pthread_create(&threads[i], NULL, race_create, &racers[i]), 0);
    }
    int created = 0;
    for (int i = 0; i < RACERS; i++)
        pthread_join(threads[i], NULL);
    for (int i = 0; i < RACERS; i++) {
        if (racers[i].status == 201)
            created++;
        else if (racers[i].status != fail_status || strcmp(racers[i].error, fail_code) != 0)
            fail_msg("racer %d (%s, %s) got %ld %s", i, racers[i].name, racers[i].path,
                     racers[i].status, racers[i].error);
    }
    return created;
}

static void disjointness_holds_under_concurrency(void **state)
{
    (void)state;
    /* Eight nested paths, each overlapping all the others. */
    struct racer racers[RACERS];
    memset(racers, 0, sizeof racers);
    for (int i = 0; i < RACERS; i++) {
        snprintf(racers[i].name, sizeof racers[i].name, "race-nest%d", i);
        int n = snprintf(racers[i].path, sizeof racers[i].path, "s3://hoglake-race/p");
        for (int k = 0; k < i; k++)
            n += snprintf(racers[i].path + n, sizeof racers[i].path - (size_t)n, "/%d", k);
    }
    assert_int_equal(run_race(racers, 422, "validation"), 1);
    assert_int_equal(sqli("SELECT count(*) FROM hog_catalog WHERE name LIKE 'race-nest%%'"), 1);
    assert_int_equal(sqli("SELECT count(*) FROM hog_catalog WHERE data_path LIKE"
                          " 's3://hoglake-race/%%'"),
                     1);

    /* One name, eight disjoint paths. */
    memset(racers, 0, sizeof racers);
    for (int i = 0; i < RACERS; i++) {
        snprintf(racers[i].name, sizeof racers[i].name, "race-name");
        snprintf(racers[i].path, sizeof racers[i].path, "s3://hoglake-race2/n%d", i);
    }
    assert_int_equal(run_race(racers, 409, "already_exists"), 1);
    assert_int_equal(catalog_rows("race-name"), 1);
    assert_int_equal(sqli("SELECT count(*) FROM hog_snapshot s JOIN hog_catalog c USING"
                          " (catalog_id) WHERE c.name = 'race-name'"),
                     1);
}

/* ---- the default warehouse ---- */

static void default_warehouse_names_the_path(void **state)
{
    (void)state;
    struct http_result r;
    create_catalog(&r, &wh_srv, "whcat", NULL);
    expect_status(&r, 201);
    assert_string_equal(jstr(r.json, "data_path"), "s3://hoglake-test/wh/whcat");
    assert_int_equal(jint(r.json, "head_snapshot_id"), 0);
    http_result_free(&r);
    assert_int_equal(sqli("SELECT count(*) FROM hog_catalog WHERE name = 'whcat' AND data_path ="
                          " 's3://hoglake-test/wh/whcat'"),
                     1);
    assert_int_equal(sqli("SELECT count(*) FROM hog_snapshot s JOIN hog_catalog c USING"
                          " (catalog_id) WHERE c.name = 'whcat' AND s.snapshot_id = 0"),
                     1);
    /* An explicit data_path still wins. */
    create_catalog(&r, &wh_srv, "whexplicit", "s3://hoglake-whx/here");
    expect_status(&r, 201);
    assert_string_equal(jstr(r.json, "data_path"), "s3://hoglake-whx/here");
    http_result_free(&r);
    /* The derived path is checked for disjointness like any other. */
    create_ok("whblock", "s3://hoglake-test/wh/whtaken/sub", "s3://hoglake-test/wh/whtaken/sub");
    create_catalog(&r, &wh_srv, "whtaken", NULL);
    expect_error(&r, 422, "validation");
    expect_detail_contains(&r, "overlaps catalog 'whblock'");
    http_result_free(&r);
    assert_int_equal(catalog_rows("whtaken"), 0);
    /* The derived name is still validated. */
    create_catalog(&r, &wh_srv, "WhBad", NULL);
    expect_error(&r, 422, "validation");
    expect_detail_contains(&r, "invalid catalog name");
    http_result_free(&r);
}

static void no_warehouse_requires_data_path(void **state)
{
    (void)state;
    struct http_result r;
    create_catalog(&r, &srv, "nowh", NULL);
    expect_error(&r, 422, "validation");
    expect_detail_contains(&r, "data_path is required");
    http_result_free(&r);
    assert_int_equal(catalog_rows("nowh"), 0);
}

/* A warehouse configured with a trailing slash must not produce an empty
 * path segment. */
static void warehouse_with_trailing_slash(void **state)
{
    (void)state;
    struct test_server s2;
    static const char *const wh[] = {"--warehouse", "s3://hoglake-test/wh2/", NULL};
    test_server_start(&s2, &db, wh);
    struct http_result r;
    create_catalog(&r, &s2, "whslash", NULL);
    long status = r.status;
    char body[512];
    snprintf(body, sizeof body, "%s", r.body);
    const char *got = status == 201 ? jstr(r.json, "data_path") : "";
    bool ok = status == 201 && strcmp(got, "s3://hoglake-test/wh2/whslash") == 0;
    http_result_free(&r);
    test_server_stop(&s2);
    if (!ok)
        fail_msg("POST /v1/catalogs {name:whslash} on --warehouse s3://hoglake-test/wh2/: "
                 "expected 201 data_path s3://hoglake-test/wh2/whslash, got %ld %s",
                 status, body);
}

/* ---- options ---- */

static void options_defaults(void **state)
{
    (void)state;
    make_catalog(&srv, "optdef");
    json_t *o = api_get_json(&srv, "%s", "/v1/catalogs/optdef/options");
    expect_options(o, true, 0, -1);
    json_decref(o);
    struct http_result r;
    api_get(&r, &srv, "/v1/catalogs/nope/options");
    expect_error(&r, 404, "not_found");
    expect_detail_contains(&r, "catalog 'nope'");
    http_result_free(&r);
    api_get(&r, &srv, "/v1/catalogs/optdef/options?x=1");
    expect_error(&r, 400, "bad_request");
    http_result_free(&r);
}

#define OPT_ROW(cat) "SELECT count(*) FROM hog_catalog WHERE name = '" cat "' AND "

static void options_patch(void **state)
{
    (void)state;
    make_catalog(&srv, "optp");
    struct http_result r;

    patch_options(&r, "optp", "{\"snapshot_retention_seconds\":3600}");
    expect_status(&r, 200);
    expect_options(r.json, true, 0, 3600);
    http_result_free(&r);
    assert_int_equal(sqli(OPT_ROW("optp") "snapshot_retention_seconds = 3600 AND consumer_floor"),
                     1);
    json_t *o = api_get_json(&srv, "%s", "/v1/catalogs/optp/options");
    expect_options(o, true, 0, 3600);
    json_decref(o);

    /* Each field is independent: absent means unchanged. */
    patch_options(&r, "optp", "{\"consumer_floor\":false}");
    expect_status(&r, 200);
    expect_options(r.json, false, 0, 3600);
    http_result_free(&r);

    /* {} changes nothing and still answers the options. */
    patch_options(&r, "optp", "{}");
    expect_status(&r, 200);
    expect_options(r.json, false, 0, 3600);
    http_result_free(&r);

    patch_options(&r, "optp", "{\"snapshot_retention_seconds\":86400,\"consumer_floor\":true}");
    expect_status(&r, 200);
    expect_options(r.json, true, 0, 86400);
    http_result_free(&r);

    /* null disables expiry. */
    patch_options(&r, "optp", "{\"snapshot_retention_seconds\":null}");
    expect_status(&r, 200);
    expect_options(r.json, true, 0, -1);
    http_result_free(&r);
    assert_int_equal(sqli(OPT_ROW("optp") "snapshot_retention_seconds IS NULL AND consumer_floor"),
                     1);
    o = api_get_json(&srv, "%s", "/v1/catalogs/optp/options");
    expect_options(o, true, 0, -1);
    json_decref(o);

    /* Options are not snapshotted. */
    json_t *cat = api_get_json(&srv, "%s", "/v1/catalogs/optp");
    assert_int_equal(jint(cat, "head_snapshot_id"), 0);
    assert_int_equal(jint(cat, "schema_version"), 0);
    json_decref(cat);
    assert_int_equal(sqli("SELECT count(*) FROM hog_snapshot s JOIN hog_catalog c USING"
                          " (catalog_id) WHERE c.name = 'optp'"),
                     1);

    /* Largest accepted retention (100 years) and one past it. */
    patch_options(&r, "optp", "{\"snapshot_retention_seconds\":3153600000}");
    expect_status(&r, 200);
    expect_options(r.json, true, 0, 3153600000LL);
    http_result_free(&r);
    patch_options(&r, "optp", "{\"snapshot_retention_seconds\":3153600001}");
    expect_error(&r, 422, "validation");
    http_result_free(&r);
    patch_options(&r, "optp", "{\"snapshot_retention_seconds\":1}");
    expect_status(&r, 200);
    expect_options(r.json, true, 0, 1);
    http_result_free(&r);
}

static void options_patch_refusals(void **state)
{
    (void)state;
    make_catalog(&srv, "optbad");
    struct http_result r;
    patch_options(&r, "optbad", "{\"snapshot_retention_seconds\":600,\"consumer_floor\":false}");
    expect_status(&r, 200);
    http_result_free(&r);

    static const char *const v422[] = {
        "{\"snapshot_retention_seconds\":0}",
        "{\"snapshot_retention_seconds\":-1}",
        "{\"snapshot_retention_seconds\":-9223372036854775807}",
        "{\"snapshot_retention_seconds\":0,\"consumer_floor\":true}",
    };
    for (size_t i = 0; i < sizeof v422 / sizeof v422[0]; i++) {
        patch_options(&r, "optbad", v422[i]);
        expect_error(&r, 422, "validation");
        expect_detail_contains(&r, "null disables expiry");
        http_result_free(&r);
    }
    static const char *const v400[] = {
        "{\"snapshot_retention_seconds\":1.5}",
        "{\"snapshot_retention_seconds\":60.0}",
        "{\"snapshot_retention_seconds\":\"60\"}",
        "{\"snapshot_retention_seconds\":true}",
        "{\"snapshot_retention_seconds\":[60]}",
        "{\"consumer_floor\":\"yes\"}",
        "{\"consumer_floor\":1}",
        "{\"consumer_floor\":null}",
        "{\"snapshot_retention_seconds\":60,\"consumer_floor\":\"no\"}",
        "{\"retention\":60}",
        "{\"snapshot_retention_seconds\":60,\"earliest_snapshot_id\":3}",
        "[]",
        "null",
        "{",
    };
    for (size_t i = 0; i < sizeof v400 / sizeof v400[0]; i++) {
        patch_options(&r, "optbad", v400[i]);
        expect_error(&r, 400, "bad_request");
        http_result_free(&r);
    }
    /* An empty body is malformed too. */
    char url[200];
    snprintf(url, sizeof url, "%s/v1/catalogs/optbad/options", srv.base);
    http_call(&r, "PATCH", url, "application/json", NULL, 0, NULL);
    expect_error(&r, 400, "bad_request");
    http_result_free(&r);
    /* Nothing changed. */
    json_t *o = api_get_json(&srv, "%s", "/v1/catalogs/optbad/options");
    expect_options(o, false, 0, 600);
    json_decref(o);
    assert_int_equal(sqli(OPT_ROW("optbad") "snapshot_retention_seconds = 600 AND NOT"
                                            " consumer_floor"),
                     1);

    /* Unknown catalog. */
    patch_options(&r, "nope", "{\"consumer_floor\":true}");
    expect_error(&r, 404, "not_found");
    http_result_free(&r);
    patch_options(&r, "nope", "{}");
    expect_error(&r, 404, "not_found");
    http_result_free(&r);
    /* The value check runs before the catalog lookup. */
    patch_options(&r, "nope", "{\"snapshot_retention_seconds\":0}");
    expect_error(&r, 422, "validation");
    http_result_free(&r);
}

static void wrong_methods_are_405(void **state)
{
    (void)state;
    make_catalog(&srv, "meth");
    struct http_result r;
    api_delete(&r, &srv, "/v1/catalogs/meth");
    expect_error(&r, 405, "method_not_allowed");
    assert_string_equal(r.allow, "GET");
    http_result_free(&r);
    api_send_text(&r, &srv, "POST", "{}", "/v1/catalogs/meth/options");
    expect_error(&r, 405, "method_not_allowed");
    assert_string_equal(r.allow, "GET, PATCH");
    http_result_free(&r);
    api_send_text(&r, &srv, "PATCH", "{}", "/v1/catalogs");
    expect_error(&r, 405, "method_not_allowed");
    assert_string_equal(r.allow, "GET, POST");
    http_result_free(&r);
    /* Still there. */
    assert_int_equal(catalog_rows("meth"), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(create_returns_catalog_shape),
        cmocka_unit_test(data_path_is_normalised),
        cmocka_unit_test(list_is_ordered_by_name),
        cmocka_unit_test(catalog_names),
        cmocka_unit_test(data_path_rules),
        cmocka_unit_test(data_paths_must_be_disjoint),
        cmocka_unit_test(duplicate_name_is_409),
        cmocka_unit_test(malformed_create_is_400),
        cmocka_unit_test(get_missing_is_404),
        cmocka_unit_test(disjointness_holds_under_concurrency),
        cmocka_unit_test(default_warehouse_names_the_path),
        cmocka_unit_test(no_warehouse_requires_data_path),
        cmocka_unit_test(warehouse_with_trailing_slash),
        cmocka_unit_test(options_defaults),
        cmocka_unit_test(options_patch),
        cmocka_unit_test(options_patch_refusals),
        cmocka_unit_test(wrong_methods_are_405),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

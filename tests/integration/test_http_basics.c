/* Transport-level behaviour: probes, metrics, the OpenAPI document,
 * routing errors, body limits, malformed input, request ids, stubs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static struct test_db db;
static struct test_server srv;

static int setup(void **state)
{
    (void)state;
    test_db_create(&db, "http");
    static const char *const extra[] = {"--max-body-bytes", "65536", NULL};
    test_server_start(&srv, &db, extra);
    make_catalog(&srv, "basics");
    make_namespace(&srv, "basics", "ns");
    json_decref(make_table(&srv, "basics", "ns", "t", "[{\"name\":\"a\",\"type\":\"int\"}]"));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    test_server_stop(&srv);
    test_db_drop(&db);
    return 0;
}

static void probes_answer(void **state)
{
    (void)state;
    struct http_result r;
    api_get(&r, &srv, "/livez");
    expect_status(&r, 200);
    assert_string_equal(r.body, "ok");
    assert_non_null(strstr(r.content_type, "text/plain"));
    http_result_free(&r);
    api_get(&r, &srv, "/healthz");
    expect_status(&r, 200);
    assert_string_equal(r.body, "ok");
    http_result_free(&r);
    /* No trailing-slash normalisation. */
    api_get(&r, &srv, "/healthz/");
    expect_error(&r, 404, "not_found");
    http_result_free(&r);
}

static void info_reports_version(void **state)
{
    (void)state;
    struct http_result r;
    api_get(&r, &srv, "/v1/info");
    expect_status(&r, 200);
    assert_string_equal(jstr(r.json, "version"), HOGLAKE_VERSION);
    http_result_free(&r);
}

static void metrics_count_requests_by_route(void **state)
{
    (void)state;
    struct http_result r;
    for (int i = 0; i < 3; i++) {
        api_get(&r, &srv, "/v1/catalogs/basics");
        expect_status(&r, 200);
        http_result_free(&r);
    }
    api_get(&r, &srv, "/v1/catalogs/nope");
    expect_status(&r, 404);
    http_result_free(&r);
    api_get(&r, &srv, "/metrics");
    expect_status(&r, 200);
    assert_non_null(strstr(r.content_type, "version=0.0.4"));
    const char *ok_line =
        "hoglake_http_requests_total{route=\"/v1/catalogs/{catalog}\",method=\"GET\","
        "status=\"200\"} ";
    const char *p = strstr(r.body, ok_line);
    assert_non_null(p);
    assert_true(atof(p + strlen(ok_line)) >= 3);
    assert_non_null(strstr(r.body, "hoglake_http_requests_total{route=\"/v1/catalogs/{catalog}\","
                                   "method=\"GET\",status=\"404\"} 1"));
    assert_non_null(strstr(r.body, "# TYPE hoglake_http_request_duration_seconds histogram"));
    assert_non_null(strstr(r.body, "hoglake_http_request_duration_seconds_bucket{route=\"/v1/"
                                   "catalogs/{catalog}\",method=\"GET\",le=\"+Inf\"}"));
    assert_non_null(strstr(r.body, "hoglake_db_pool_max 10\n"));
    assert_non_null(strstr(r.body, "hoglake_db_pool_active "));
    assert_non_null(strstr(r.body, "hoglake_request_pool_max 10\n"));
    /* The DDL in setup waited for the catalog lock at least three times. */
    p = strstr(r.body, "hoglake_commit_lock_wait_seconds_count ");
    assert_non_null(p);
    assert_true(atoi(p + strlen("hoglake_commit_lock_wait_seconds_count ")) >= 2);
    http_result_free(&r);
}

static void openapi_is_served(void **state)
{
    (void)state;
    struct http_result r;
    api_get(&r, &srv, "/openapi.yaml");
    expect_status(&r, 200);
    assert_string_equal(r.content_type, "application/yaml");
    assert_true(strncmp(r.body, "openapi: 3", 10) == 0);
    http_result_free(&r);
}

static void routing_errors(void **state)
{
    (void)state;
    struct http_result r;
    api_get(&r, &srv, "/v2/catalogs");
    expect_error(&r, 404, "not_found");
    http_result_free(&r);
    api_delete(&r, &srv, "/v1/catalogs");
    expect_error(&r, 405, "method_not_allowed");
    assert_string_equal(r.allow, "GET, POST");
    http_result_free(&r);
    char url[200];
    snprintf(url, sizeof url, "%s/v1/catalogs/basics/options", srv.base);
    http_call(&r, "PUT", url, "application/json", "{}", 2, NULL);
    expect_error(&r, 405, "method_not_allowed");
    assert_string_equal(r.allow, "GET, PATCH");
    http_result_free(&r);
    /* Path segments are decoded before they reach SQL: bytes that are not
     * UTF-8 text are the client's error, never the database's. */
    api_get(&r, &srv, "/v1/catalogs/%%ff%%fe");
    expect_error(&r, 400, "bad_request");
    http_result_free(&r);
    api_get(&r, &srv, "/v1/catalogs/basics/namespaces/a%%01b/tables");
    expect_error(&r, 400, "bad_request");
    http_result_free(&r);
    api_get(&r, &srv, "/v1/catalogs/basics/namespaces/%%C3%%A9t%%C3%%A9");
    expect_error(&r, 404, "not_found");
    http_result_free(&r);
    /* So are query values (names, timestamps, filters reach SQL as text). */
    api_get(&r, &srv, "/v1/catalogs/basics/snapshots/resolve?at_timestamp=%%ff");
    expect_error(&r, 400, "bad_request");
    expect_detail_contains(&r, "'at_timestamp' is not valid UTF-8");
    http_result_free(&r);
    api_send_text(&r, &srv, "POST", "",
                  "/v1/catalogs/basics/maintenance/rehydrate?namespace=%%C3%%28&table=t");
    expect_error(&r, 400, "bad_request");
    expect_detail_contains(&r, "'namespace' is not valid UTF-8");
    http_result_free(&r);
    api_send_text(&r, &srv, "POST", "",
                  "/v1/catalogs/basics/maintenance/rehydrate?namespace=%%C3%%A9t%%C3%%A9&table=t");
    expect_error(&r, 404, "not_found");
    http_result_free(&r);
    /* An encoded NUL must not shorten a name: "ns%00" is not "ns". */
    api_get(&r, &srv, "/v1/catalogs/basics/namespaces/ns%%00x");
    expect_error(&r, 400, "bad_request");
    expect_detail_contains(&r, "{namespace}");
    http_result_free(&r);
    api_delete(&r, &srv, "/v1/catalogs/basics/namespaces/ns%%00/tables/t");
    expect_error(&r, 400, "bad_request");
    http_result_free(&r);
    api_get(&r, &srv, "/v1/catalogs/basics/namespaces/ns/tables/t");
    expect_status(&r, 200);
    http_result_free(&r);
    /* Nor a query value. */
    api_get(&r, &srv, "/v1/catalogs/basics/namespaces?snapshot=1%%00");
    expect_error(&r, 400, "bad_request");
    http_result_free(&r);
}

static void oversized_body_is_413(void **state)
{
    (void)state;
    size_t n = 70000;
    char *big = malloc(n + 1);
    assert_non_null(big);
    memset(big, ' ', n);
    big[0] = '{';
    big[n - 1] = '}';
    big[n] = '\0';
    char url[200];
    snprintf(url, sizeof url, "%s/v1/catalogs", srv.base);
    struct http_result r;
    http_call(&r, "POST", url, "application/json", big, n, NULL);
    expect_error(&r, 413, "payload_too_large");
    http_result_free(&r);
    free(big);
    /* The server still serves afterwards. */
    api_get(&r, &srv, "/livez");
    expect_status(&r, 200);
    http_result_free(&r);
}

static void post_raw(struct http_result *r, const char *path, const char *ct, const char *body)
{
    char url[300];
    snprintf(url, sizeof url, "%s%s", srv.base, path);
    http_call(r, "POST", url, ct, body, body ? strlen(body) : 0, NULL);
}

static void malformed_bodies_are_400(void **state)
{
    (void)state;
    static const struct {
        const char *ct;
        const char *body;
        const char *detail;
    } cases[] = {
        {"application/json", "{\"name\": ", "malformed JSON"},
        {"application/json", "null", "JSON object"},
        {"application/json", "[1,2]", "JSON object"},
        {"application/json", "\"x\"", "JSON object"},
        {"application/json", NULL, "body is required"},
        {"text/plain", "{\"name\":\"x\"}", "Content-Type"},
        {NULL, "{\"name\":\"x\"}", "Content-Type"},
        {"application/json", "{\"name\":\"a\",\"name\":\"b\"}", "malformed JSON"},
        {"application/json", "{\"name\":\"x\",\"data_path\":\"s3://b-b/x\",\"extra\":1}",
         "unknown field 'extra'"},
        {"application/json", "{\"name\":\"\xff\xfe\"}", "malformed JSON"},
        {"application/json", "{\"name\":17}", "must be a string"},
        {"application/json", "{\"data_path\":\"s3://bucket/x\"}", "missing required field"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct http_result r;
        post_raw(&r, "/v1/catalogs", cases[i].ct, cases[i].body);
        expect_error(&r, 400, "bad_request");
        expect_detail_contains(&r, cases[i].detail);
        http_result_free(&r);
    }
    /* Nesting far past any sane depth is refused, not a crash. */
    size_t depth = 60000;
    char *deep = malloc(depth + 1);
    assert_non_null(deep);
    memset(deep, '[', depth);
    deep[depth] = '\0';
    struct http_result r;
    post_raw(&r, "/v1/catalogs", "application/json", deep);
    expect_error(&r, 400, "bad_request");
    http_result_free(&r);
    free(deep);
}

static void unknown_query_parameters_are_400(void **state)
{
    (void)state;
    struct http_result r;
    api_get(&r, &srv, "/v1/catalogs/basics/namespaces?snapshotz=1");
    expect_error(&r, 400, "bad_request");
    expect_detail_contains(&r, "snapshotz");
    http_result_free(&r);
    api_get(&r, &srv, "/v1/catalogs/basics/namespaces?snapshot=abc");
    expect_error(&r, 400, "bad_request");
    http_result_free(&r);
    api_get(&r, &srv, "/v1/catalogs/basics/namespaces/ns/tables/t?totals=maybe");
    expect_error(&r, 400, "bad_request");
    http_result_free(&r);
}

static void request_id_is_echoed(void **state)
{
    (void)state;
    char url[200];
    snprintf(url, sizeof url, "%s/v1/catalogs", srv.base);
    static const char *const hdrs[] = {"X-Request-Id: trace-42", NULL};
    struct http_result r;
    http_call(&r, "GET", url, NULL, NULL, 0, hdrs);
    expect_status(&r, 200);
    assert_string_equal(r.request_id, "trace-42");
    http_result_free(&r);
    /* Without one (or with an unusable one) the server makes one up, a new
     * one per request. */
    static const char *const bad[] = {"X-Request-Id: has space", NULL};
    char first[160];
    http_call(&r, "GET", url, NULL, NULL, 0, NULL);
    expect_status(&r, 200);
    assert_int_equal(strlen(r.request_id), 19);
    assert_true(strncmp(r.request_id, "hl-", 3) == 0);
    snprintf(first, sizeof first, "%s", r.request_id);
    http_result_free(&r);
    http_call(&r, "GET", url, NULL, NULL, 0, bad);
    expect_status(&r, 200);
    assert_true(strncmp(r.request_id, "hl-", 3) == 0);
    assert_string_not_equal(r.request_id, first);
    http_result_free(&r);
}

static void unimplemented_stubs_are_501(void **state)
{
    (void)state;
    struct http_result r;
    api_get(&r, &srv, "/v1/catalogs/basics/publications");
    expect_error(&r, 501, "not_implemented");
    http_result_free(&r);
    api_send_text(&r, &srv, "POST", "{}", "/v1/catalogs/basics/publications");
    expect_error(&r, 501, "not_implemented");
    http_result_free(&r);
    api_get(&r, &srv, "/v1/catalogs/basics/publications/p1");
    expect_error(&r, 501, "not_implemented");
    http_result_free(&r);
    api_delete(&r, &srv, "/v1/catalogs/basics/publications/p1");
    expect_error(&r, 501, "not_implemented");
    http_result_free(&r);
    api_get(&r, &srv, "/v1/catalogs/basics/export");
    expect_error(&r, 501, "not_implemented");
    http_result_free(&r);
}

/* Random bytes and mangled JSON at every body-taking route: the answer is
 * always a typed 4xx, never a 5xx, and the server keeps serving. */
static void garbage_never_yields_5xx(void **state)
{
    (void)state;
    static const char *const paths[] = {
        "/v1/catalogs",
        "/v1/catalogs/basics/namespaces",
        "/v1/catalogs/basics/namespaces/ns/tables",
        "/v1/catalogs/basics/namespaces/ns/tables/t/alter",
        "/v1/catalogs/basics/namespaces/ns/views",
    };
    static const char *const seeds[] = {
        "{\"name\":\"t2\",\"columns\":[{\"name\":\"a\",\"type\":\"struct\",\"children\":[{\"name\":"
        "\"b\",\"type\":\"map\",\"children\":[{\"name\":\"key\",\"type\":\"string\",\"nullable\":"
        "false},{\"name\":\"value\",\"type\":\"decimal\",\"type_params\":{\"precision\":9}}]}]}]}",
        "{\"ops\":[{\"op\":\"set_partition_spec\",\"fields\":[{\"source_field_id\":1,\"transform\":"
        "\"bucket\",\"transform_param\":4}]},{\"op\":\"add_column\",\"column\":{\"name\":\"z\","
        "\"type\":\"list\",\"children\":[{\"name\":\"element\",\"type\":\"int\"}]}}]}",
        "{\"name\":\"v\",\"sql\":\"select 1\",\"dialect\":\"trino\"}",
        "{\"name\":\"ok\",\"data_path\":\"file:///tmp/x\"}",
    };
    unsigned seed = 12345;
    int counts[6] = {0};
    for (int iter = 0; iter < 400; iter++) {
        const char *base = seeds[iter % 4];
        size_t n = strlen(base);
        char *body = malloc(n + 1);
        assert_non_null(body);
        memcpy(body, base, n + 1);
        int flips = 1 + (int)(iter % 5);
        for (int k = 0; k < flips; k++) {
            seed = seed * 1103515245u + 12345u;
            size_t pos = (seed >> 8) % n;
            seed = seed * 1103515245u + 12345u;
            static const char alphabet[] = "{}[]\":,0123456789-ez\\ \x01\x80\xff";
            body[pos] = alphabet[(seed >> 8) % (sizeof alphabet - 1)];
        }
        char url[300];
        snprintf(url, sizeof url, "%s%s", srv.base, paths[iter % 5]);
        struct http_result r;
        http_call(&r, "POST", url, "application/json", body, n, NULL);
        if (r.status >= 500)
            fail_msg("POST %s with %s answered %ld: %s", paths[iter % 5], body, r.status, r.body);
        counts[r.status / 100]++;
        http_result_free(&r);
        free(body);
    }
    /* The mutations must mostly have been refused as malformed. */
    assert_true(counts[4] > 200);
    struct http_result r;
    api_get(&r, &srv, "/healthz");
    expect_status(&r, 200);
    http_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(probes_answer),
        cmocka_unit_test(info_reports_version),
        cmocka_unit_test(metrics_count_requests_by_route),
        cmocka_unit_test(openapi_is_served),
        cmocka_unit_test(routing_errors),
        cmocka_unit_test(oversized_body_is_413),
        cmocka_unit_test(malformed_bodies_are_400),
        cmocka_unit_test(unknown_query_parameters_are_400),
        cmocka_unit_test(request_id_is_echoed),
        cmocka_unit_test(unimplemented_stubs_are_501),
        cmocka_unit_test(garbage_never_yields_5xx),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

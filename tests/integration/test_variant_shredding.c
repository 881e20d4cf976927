/* Shredding declarations of variant columns over HTTP against a real
 * hoglaked and PostgreSQL: every vector of
 * tests/vectors/variant_shredding_vectors.json sent as a create-table
 * request as a client writes it (lone surrogates as \u escapes, integers
 * past int64 as digits), an accepted one read back as declared, a refused
 * one answered 422 in exactly the vector's words and leaving the catalog
 * as it was; declarations at add_column, on nested variants and on other
 * types; and lone surrogates anywhere else refused as before. libhoglake
 * reaches the same decision on every vector with no request
 * (hl_shredding_validate, and hl_table_create / hl_table_alter before they
 * send anything). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client_harness.h"
#include "harness.h"
#include "util/buf.h"
#include "util/jsonx.h"
#include "vectors_testlib.h"

#define CAT "vs"
#define NS "ns"
#define PREFIX "variant column 'v' has an invalid type_params.shredding: "

static struct test_db db;
static struct test_server srv;
static PGconn *pg;

static int setup(void **state)
{
    (void)state;
    test_stack_up(&db, &srv, &pg, "shredding", CAT, NS);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    test_stack_down(&db, &srv, &pg);
    return 0;
}

static json_t *load_lenient(const char *text, size_t len)
{
    json_error_t jerr;
    json_t *v = jsonx_loadb_lenient(text, len, JSON_ALLOW_NUL | JSON_DECODE_ANY, &jerr, NULL);
    if (!v)
        fail_msg("JSON: %s in %.200s", jerr.text, text);
    return v;
}

static json_t *load_vectors(void)
{
    return vectors_load_lenient(HL_SHARED_VECTORS "/variant_shredding_vectors.json");
}

/* The declaration as JSON text a client sends: lone surrogates as their
 * \u escapes again. */
static char *request_text(const json_t *decl)
{
    char *text = jsonx_escape_stand_ins(json_dumps(decl, JSON_COMPACT | JSON_ENCODE_ANY));
    assert_non_null(text);
    return text;
}

static void create_with(struct http_result *r, const char *table, const char *decl_text)
{
    struct buf body = BUF_INIT;
    assert_int_equal(buf_printf(&body,
                                "{\"name\":\"%s\",\"columns\":[{\"name\":\"id\",\"type\":\"long\"},"
                                "{\"name\":\"v\",\"type\":\"variant\",\"type_params\":"
                                "{\"shredding\":%s}}]}",
                                table, decl_text),
                     0);
    api_send_text(r, &srv, "POST", body.data, "/v1/catalogs/%s/namespaces/%s/tables", CAT, NS);
    buf_free(&body);
}

/* The detail of an error answer, read as the server wrote it (a lone
 * surrogate in it is a \u escape, which jansson alone refuses). */
static const char *detail_of(const struct http_result *r, json_t **owner)
{
    *owner = load_lenient(r->body, r->body_len);
    return json_string_value(json_object_get(*owner, "detail"));
}

static const json_t *column_v(const json_t *table)
{
    const json_t *cols = json_object_get(table, "columns");
    for (size_t i = 0; i < json_array_size(cols); i++)
        if (strcmp(jstr(json_array_get(cols, i), "name"), "v") == 0)
            return json_array_get(cols, i);
    fail_msg("no column v");
    return NULL;
}

static void every_vector(void **state)
{
    (void)state;
    json_t *doc = load_vectors();
    const json_t *vectors = json_object_get(doc, "vectors");
    assert_int_equal(json_array_size(vectors), 205);
    size_t i, failures = 0;
    const json_t *v;
    json_array_foreach ((json_t *)vectors, i, v) {
        const char *id = json_string_value(json_object_get(v, "id"));
        const json_t *decl = json_object_get(v, "declaration");
        bool accept = strcmp(json_string_value(json_object_get(v, "expect")), "accept") == 0;
        char table[32];
        snprintf(table, sizeof table, "t%zu", i);
        char *text = request_text(decl);
        int64_t head = head_of(CAT);
        struct http_result r;
        create_with(&r, table, text);
        free(text);
        if (accept) {
            if (r.status != 201) {
                printf("%s: %ld %.300s\n", id, r.status, r.body);
                failures++;
            } else {
                /* Read back as declared, from the catalog's rows. */
                json_t *t =
                    api_get_json(&srv, "/v1/catalogs/%s/namespaces/%s/tables/%s", CAT, NS, table);
                const json_t *params = json_object_get(column_v(t), "type_params");
                bool same = json_is_null(decl)
                                ? params == NULL
                                : json_equal(json_object_get(params, "shredding"), (json_t *)decl);
                if (!same) {
                    printf("%s: read back differs\n", id);
                    failures++;
                }
                json_decref(t);
            }
            http_result_free(&r);
            continue;
        }
        char want[4096];
        snprintf(want, sizeof want, PREFIX "%s %s", json_string_value(json_object_get(v, "path")),
                 json_string_value(json_object_get(v, "problem")));
        json_t *answer = NULL;
        const char *detail = r.status == 422 ? detail_of(&r, &answer) : NULL;
        if (!detail || strcmp(detail, want) != 0 ||
            strcmp(json_string_value(json_object_get(answer, "error")), "validation") != 0) {
            printf("%s: %ld\n  got:  %.600s\n  want: %s\n", id, r.status, detail ? detail : r.body,
                   want);
            failures++;
        }
        if (head_of(CAT) != head) {
            printf("%s: a refused create moved the head\n", id);
            failures++;
        }
        json_decref(answer);
        http_result_free(&r);
    }
    json_decref(doc);
    assert_int_equal(failures, 0);
}

/* add_column takes a declaration on a top-level variant, as create does;
 * a nested variant and any other type take none. */
static void add_column_and_nesting(void **state)
{
    (void)state;
    struct http_result r;
    create_with(&r, "plain", "null");
    expect_status(&r, 201);
    http_result_free(&r);
    const char *ops =
        "{\"ops\":[{\"op\":\"add_column\",\"column\":{\"name\":\"extra\",\"type\":\"variant\","
        "\"type_params\":{\"shredding\":{\"type\":\"object\",\"fields\":[{\"name\":"
        "\"$browser\",\"type\":\"string\"},{\"name\":\"price\",\"type\":"
        "\"decimal8\",\"precision\":18,\"scale\":2}]}}}}]}";
    api_send_text(&r, &srv, "POST", ops, "/v1/catalogs/%s/namespaces/%s/tables/plain/alter", CAT,
                  NS);
    expect_status(&r, 200);
    http_result_free(&r);
    json_t *t = api_get_json(&srv, "/v1/catalogs/%s/namespaces/%s/tables/plain", CAT, NS);
    const json_t *cols = json_object_get(t, "columns");
    const json_t *extra = json_array_get(cols, json_array_size(cols) - 1);
    assert_string_equal(jstr(extra, "name"), "extra");
    const json_t *decl = json_object_get(json_object_get(extra, "type_params"), "shredding");
    assert_string_equal(jstr(decl, "type"), "object");
    assert_int_equal(json_array_size(json_object_get(decl, "fields")), 2);
    json_decref(t);

    /* A bad declaration at add_column: the same words, nothing added. */
    int64_t head = head_of(CAT);
    api_send_text(&r, &srv, "POST",
                  "{\"ops\":[{\"op\":\"add_column\",\"column\":{\"name\":\"v\",\"type\":"
                  "\"variant\",\"type_params\":{\"shredding\":{\"type\":\"text\"}}}}]}",
                  "/v1/catalogs/%s/namespaces/%s/tables/plain/alter", CAT, NS);
    expect_error(&r, 422, "validation");
    expect_detail_contains(&r, PREFIX "$ has an unknown type 'text'");
    http_result_free(&r);
    assert_int_equal(head_of(CAT), head);

    /* Nested in a struct: refused; undeclared, fine. */
    api_send_text(&r, &srv, "POST",
                  "{\"name\":\"nested\",\"columns\":[{\"name\":\"s\",\"type\":\"struct\","
                  "\"children\":[{\"name\":\"v\",\"type\":\"variant\",\"type_params\":"
                  "{\"shredding\":{\"type\":\"string\"}}}]}]}",
                  "/v1/catalogs/%s/namespaces/%s/tables", CAT, NS);
    expect_error(&r, 422, "validation");
    expect_detail_contains(&r, "variant column 's.v' is nested in a struct, list or map");
    http_result_free(&r);
    api_send_text(&r, &srv, "POST",
                  "{\"name\":\"nested\",\"columns\":[{\"name\":\"s\",\"type\":\"struct\","
                  "\"children\":[{\"name\":\"v\",\"type\":\"variant\",\"type_params\":"
                  "{\"shredding\":null}}]}]}",
                  "/v1/catalogs/%s/namespaces/%s/tables", CAT, NS);
    expect_status(&r, 201);
    http_result_free(&r);
    /* Any other type takes no type_params; a variant's take only shredding. */
    api_send_text(&r, &srv, "POST",
                  "{\"name\":\"other\",\"columns\":[{\"name\":\"j\",\"type\":\"string\","
                  "\"type_params\":{\"shredding\":{\"type\":\"string\"}}}]}",
                  "/v1/catalogs/%s/namespaces/%s/tables", CAT, NS);
    expect_error(&r, 422, "validation");
    expect_detail_contains(&r, "takes no type_params");
    http_result_free(&r);
    /* A struct shaped as VARIANT storage is pointed to the variant type;
     * one field more or less is a struct like any other. */
    api_send_text(&r, &srv, "POST",
                  "{\"name\":\"other\",\"columns\":[{\"name\":\"p\",\"type\":\"struct\","
                  "\"children\":[{\"name\":\"metadata\",\"type\":\"binary\",\"nullable\":"
                  "false},{\"name\":\"value\",\"type\":\"binary\"}]}]}",
                  "/v1/catalogs/%s/namespaces/%s/tables", CAT, NS);
    expect_error(&r, 422, "validation");
    expect_detail_contains(&r, "struct column 'p' is shaped as VARIANT storage");
    http_result_free(&r);
    api_send_text(&r, &srv, "POST",
                  "{\"name\":\"other\",\"columns\":[{\"name\":\"p\",\"type\":\"struct\","
                  "\"children\":[{\"name\":\"metadata\",\"type\":\"binary\",\"nullable\":"
                  "false},{\"name\":\"value\",\"type\":\"binary\"},{\"name\":\"extra\","
                  "\"type\":\"int\"}]}]}",
                  "/v1/catalogs/%s/namespaces/%s/tables", CAT, NS);
    expect_status(&r, 201);
    http_result_free(&r);
    api_send_text(&r, &srv, "POST",
                  "{\"name\":\"other2\",\"columns\":[{\"name\":\"v\",\"type\":\"variant\","
                  "\"type_params\":{\"shred\":{\"type\":\"string\"}}}]}",
                  "/v1/catalogs/%s/namespaces/%s/tables", CAT, NS);
    expect_status(&r, 400);
    expect_detail_contains(&r, "shred");
    http_result_free(&r);
}

/* A lone surrogate outside a declaration's field names is refused as it
 * always was (400), naming where it is; one in a field name is the
 * grammar's, and the answer shows it as it came. */
static void lone_surrogates_elsewhere(void **state)
{
    (void)state;
    struct http_result r;
    int64_t head = head_of(CAT);
    api_send_text(&r, &srv, "POST",
                  "{\"name\":\"c\",\"comment\":\"a\\udc00\",\"columns\":[{\"name\":\"id\","
                  "\"type\":\"long\"}]}",
                  "/v1/catalogs/%s/namespaces/%s/tables", CAT, NS);
    expect_error(&r, 400, "bad_request");
    expect_detail_contains(&r, "$.comment holds a lone UTF-16 surrogate");
    http_result_free(&r);
    create_with(&r, "lone",
                "{\"type\":\"object\",\"fields\":[{\"name\":\"x\\ud800\",\"type\":"
                "\"string\"},{\"name\":\"y\",\"type\":\"text\"}]}");
    expect_status(&r, 422);
    assert_non_null(strstr(r.body, "has a field name with an unpaired surrogate"));
    http_result_free(&r);
    create_with(&r, "lone",
                "{\"type\":\"object\",\"fields\":[{\"name\":\"\\ud800\",\"type\":"
                "\"text\"}]}");
    expect_status(&r, 422);
    http_result_free(&r);
    create_with(&r, "lone",
                "{\"type\":\"object\",\"fields\":[{\"name\":\"ok\",\"type\":"
                "\"te\\udfffxt\"}]}");
    expect_error(&r, 400, "bad_request");
    http_result_free(&r);
    assert_int_equal(head_of(CAT), head);
    /* U+10F800, a private-use character written as its surrogate pair,
     * is text like any other: stored and answered as it came. */
    api_send_text(&r, &srv, "POST",
                  "{\"name\":\"pua\",\"comment\":\"a\\udbfe\\udc00\",\"columns\":[{\"name\":"
                  "\"id\",\"type\":\"long\"}]}",
                  "/v1/catalogs/%s/namespaces/%s/tables", CAT, NS);
    expect_status(&r, 201);
    http_result_free(&r);
    json_t *t = api_get_json(&srv, "/v1/catalogs/%s/namespaces/%s/tables/pua", CAT, NS);
    assert_string_equal(jstr(t, "comment"), "a\xf4\x8f\xa0\x80");
    json_decref(t);
}

static void client_every_vector(void **state)
{
    (void)state;
    json_t *doc = load_vectors();
    const json_t *vectors = json_object_get(doc, "vectors");
    size_t i, failures = 0;
    const json_t *v;
    json_array_foreach ((json_t *)vectors, i, v) {
        const char *id = json_string_value(json_object_get(v, "id"));
        char *text = request_text(json_object_get(v, "declaration"));
        struct hl_error err;
        hl_status st = hl_shredding_validate("v", text, &err);
        free(text);
        if (strcmp(json_string_value(json_object_get(v, "expect")), "accept") == 0) {
            if (st != HL_OK) {
                printf("%s: refused: %s\n", id, err.message);
                failures++;
            }
            continue;
        }
        /* The message shows a lone surrogate as its escape; so does the
         * vector once written back as JSON text. */
        char want[4096];
        snprintf(want, sizeof want, PREFIX "%s %s", json_string_value(json_object_get(v, "path")),
                 json_string_value(json_object_get(v, "problem")));
        char *shown = jsonx_escape_stand_ins(strdup(want));
        if (st != HL_ERR_VALIDATION || strcmp(err.code, "validation") != 0 ||
            strcmp(err.message, shown) != 0) {
            printf("%s: %d\n  got:  %s\n  want: %s\n", id, (int)st, err.message, shown);
            failures++;
        }
        free(shown);
    }
    json_decref(doc);
    assert_int_equal(failures, 0);
}

/* hl_table_create and hl_table_alter refuse a bad declaration before any
 * request: the server counts none. */
static void client_refuses_before_sending(void **state)
{
    (void)state;
    hl_client *c = test_client_new(srv.base, NULL);
    struct hl_error err;
    hl_catalog *cat;
    hl_namespace *ns;
    test_check(hl_catalog_open(c, CAT, &cat, &err), &err, "catalog");
    test_check(hl_namespace_open(cat, NS, &ns, &err), &err, "namespace");
    int64_t creates = test_route_requests(&srv, "POST",
                                          "/v1/catalogs/{catalog}/namespaces/"
                                          "{namespace}/tables");
    hl_table *t = NULL;
    hl_status st =
        hl_table_create(ns, "local",
                        "[{\"name\":\"v\",\"type\":\"VARIANT\",\"type_params\":{\"shredding\":"
                        "{\"type\":\"decimal4\",\"precision\":10,\"scale\":2}}}]",
                        NULL, &t, &err);
    assert_int_equal(st, HL_ERR_VALIDATION);
    assert_string_equal(err.message, PREFIX "$ has precision 10 and scale 2, which decimal4 does "
                                            "not hold");
    st = hl_table_create(ns, "local",
                         "[{\"name\":\"s\",\"type\":\"struct\",\"children\":[{\"name\":"
                         "\"v\",\"type\":\"variant\",\"type_params\":{\"shredding\":"
                         "{\"type\":\"string\"}}}]}]",
                         NULL, &t, &err);
    assert_int_equal(st, HL_ERR_VALIDATION);
    assert_non_null(strstr(err.message, "'s.v' is nested"));
    st = hl_table_create(ns, "local",
                         "[{\"name\":\"id\",\"type\":\"long\",\"comment\":\"\\ud800\"}]", NULL, &t,
                         &err);
    assert_int_equal(st, HL_ERR_INVALID_ARGUMENT);
    assert_int_equal(test_route_requests(&srv, "POST",
                                         "/v1/catalogs/{catalog}/namespaces/"
                                         "{namespace}/tables"),
                     creates);
    /* A good one goes out and reads back. */
    test_check(hl_table_create(ns, "local",
                               "[{\"name\":\"v\",\"type\":\"variant\",\"type_params\":"
                               "{\"shredding\":{\"type\":\"array\",\"element\":"
                               "{\"type\":\"string\"}}}}]",
                               NULL, &t, &err),
               &err, "create");
    int64_t alters = test_route_requests(
        &srv, "POST", "/v1/catalogs/{catalog}/namespaces/{namespace}/tables/{table}/alter");
    st = hl_table_alter(t,
                        "[{\"op\":\"add_column\",\"column\":{\"name\":\"w\",\"type\":"
                        "\"variant\",\"type_params\":{\"shredding\":{\"type\":\"object\","
                        "\"fields\":[]}}}}]",
                        NULL, &err);
    assert_int_equal(st, HL_ERR_VALIDATION);
    assert_string_equal(err.message, "variant column 'w' has an invalid type_params.shredding: $ "
                                     "has no fields");
    assert_int_equal(test_route_requests(&srv, "POST",
                                         "/v1/catalogs/{catalog}/namespaces/{namespace}/"
                                         "tables/{table}/alter"),
                     alters);
    char *info = NULL;
    test_check(hl_table_info(t, NULL, &info, &err), &err, "info");
    assert_non_null(strstr(info, "\"shredding\":{\"type\":\"array\""));
    free(info);
    hl_table_free(t);
    hl_namespace_free(ns);
    hl_catalog_free(cat);
    hl_client_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_vector),
        cmocka_unit_test(add_column_and_nesting),
        cmocka_unit_test(lone_surrogates_elsewhere),
        cmocka_unit_test(client_every_vector),
        cmocka_unit_test(client_refuses_before_sending),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

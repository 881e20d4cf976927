/* The CLI's compact column, partition and sort forms. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "textio/colspec.h"

static json_t *parse_ok(const char *spec)
{
    struct error err;
    json_t *cols = colspec_parse_columns(spec, &err);
    if (!cols)
        fail_msg("'%s' refused: %s", spec, err.msg);
    return cols;
}

static void expect_json(const json_t *got, const char *want_text)
{
    json_t *want = json_loads(want_text, 0, NULL);
    assert_non_null(want);
    if (!json_equal(got, want)) {
        char *g = json_dumps(got, JSON_COMPACT | JSON_SORT_KEYS);
        fail_msg("got %s\nwant %s", g, want_text);
    }
    json_decref(want);
}

static void scalars_and_not_null(void **state)
{
    (void)state;
    json_t *c = parse_ok(" id:long! , name:STRING, amount:decimal(10, 2), d:decimal(7)");
    expect_json(c, "[{\"name\":\"id\",\"type\":\"long\",\"nullable\":false},"
                   "{\"name\":\"name\",\"type\":\"string\",\"nullable\":true},"
                   "{\"name\":\"amount\",\"type\":\"decimal\",\"nullable\":true,"
                   "\"type_params\":{\"precision\":10,\"scale\":2}},"
                   "{\"name\":\"d\",\"type\":\"decimal\",\"nullable\":true,"
                   "\"type_params\":{\"precision\":7,\"scale\":0}}]");
    json_decref(c);
}

static void containers(void **state)
{
    (void)state;
    json_t *c = parse_ok("tags:list<string!>, m:map<string, list<int>>, "
                         "a:struct<zip:string, geo:struct<lat:double!, lon:double>>!");
    expect_json(c, "[{\"name\":\"tags\",\"type\":\"list\",\"nullable\":true,\"children\":["
                   "{\"name\":\"element\",\"type\":\"string\",\"nullable\":false}]},"
                   "{\"name\":\"m\",\"type\":\"map\",\"nullable\":true,\"children\":["
                   "{\"name\":\"key\",\"type\":\"string\",\"nullable\":false},"
                   "{\"name\":\"value\",\"type\":\"list\",\"nullable\":true,\"children\":["
                   "{\"name\":\"element\",\"type\":\"int\",\"nullable\":true}]}]},"
                   "{\"name\":\"a\",\"type\":\"struct\",\"nullable\":false,\"children\":["
                   "{\"name\":\"zip\",\"type\":\"string\",\"nullable\":true},"
                   "{\"name\":\"geo\",\"type\":\"struct\",\"nullable\":true,\"children\":["
                   "{\"name\":\"lat\",\"type\":\"double\",\"nullable\":false},"
                   "{\"name\":\"lon\",\"type\":\"double\",\"nullable\":true}]}]}]");
    /* Ids are predicted depth-first from 1, as the server assigns them. */
    colspec_predict_field_ids(c);
    assert_int_equal(colspec_find_field_id(c, "tags"), 1);
    assert_int_equal(colspec_find_field_id(c, "m"), 3);
    assert_int_equal(colspec_find_field_id(c, "a"), 7);
    assert_int_equal(colspec_find_field_id(c, "a.zip"), 8);
    assert_int_equal(colspec_find_field_id(c, "a.geo.lon"), 11);
    assert_int_equal(colspec_find_field_id(c, "a.nope"), -1);
    assert_int_equal(colspec_find_field_id(c, "zip"), -1);
    json_decref(c);
}

static void syntax_errors(void **state)
{
    (void)state;
    static const struct {
        const char *spec;
        const char *msg;
    } bad[] = {
        {"", "expected a name"},
        {"id", "expected ':'"},
        {"id:", "expected a name"},
        {"t:list<int", "expected '>'"},
        {"m:map<string>", "expected ','"},
        {"s:struct<>", "expected a name"},
        {"d:decimal(x)", "expected a number"},
        {"d:decimal(10,2", "expected ')'"},
        {"a:int b:int", "unexpected text"},
        {"a:int,", "expected a name"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct error err;
        json_t *c = colspec_parse_columns(bad[i].spec, &err);
        if (c || !strstr(err.msg, bad[i].msg))
            fail_msg("'%s': want error '%s', got %s", bad[i].spec, bad[i].msg,
                     c ? "success" : err.msg);
        assert_int_equal(err.code, ERR_MALFORMED);
    }
    /* Nesting is bounded, so hostile input cannot exhaust the stack. */
    char deep[400] = "x:";
    for (int i = 0; i < 40; i++)
        strcat(deep, "list<");
    strcat(deep, "int");
    struct error err;
    assert_null(colspec_parse_columns(deep, &err));
    assert_non_null(strstr(err.msg, "nested too deeply"));
    assert_int_equal(err.code, ERR_LIMIT);
}

static void partition_and_sort(void **state)
{
    (void)state;
    json_t *c = parse_ok("id:long, ts:timestamp, s:string, a:struct<z:int>");
    colspec_predict_field_ids(c);
    struct error err;
    json_t *p = colspec_parse_partition("id, month(ts), bucket(16, id), truncate( 4 , s), day(ts),"
                                        " identity(a.z)",
                                        c, &err);
    assert_non_null(p);
    expect_json(p, "[{\"source_field_id\":1,\"transform\":\"identity\"},"
                   "{\"source_field_id\":2,\"transform\":\"month\"},"
                   "{\"source_field_id\":1,\"transform\":\"bucket\",\"transform_param\":16},"
                   "{\"source_field_id\":3,\"transform\":\"truncate\",\"transform_param\":4},"
                   "{\"source_field_id\":2,\"transform\":\"day\"},"
                   "{\"source_field_id\":5,\"transform\":\"identity\"}]");
    json_decref(p);
    p = colspec_parse_partition("none", c, &err);
    expect_json(p, "[]");
    json_decref(p);
    assert_null(colspec_parse_partition("month(nope)", c, &err));
    assert_non_null(strstr(err.msg, "no column 'nope'"));
    assert_int_equal(err.code, ERR_NOT_FOUND);
    assert_null(colspec_parse_partition("bucket(x, id)", c, &err));
    assert_non_null(strstr(err.msg, "must be a number"));
    assert_int_equal(err.code, ERR_MALFORMED);

    json_t *s = colspec_parse_sort("ts desc, id, s asc nulls last, a.z nulls first", c, &err);
    assert_non_null(s);
    expect_json(s, "[{\"source_field_id\":2,\"direction\":\"desc\"},"
                   "{\"source_field_id\":1},"
                   "{\"source_field_id\":3,\"direction\":\"asc\",\"null_order\":\"nulls_last\"},"
                   "{\"source_field_id\":5,\"null_order\":\"nulls_first\"}]");
    json_decref(s);
    assert_null(colspec_parse_sort("ts sideways", c, &err));
    assert_null(colspec_parse_sort("ts desc nulls middle", c, &err));
    json_decref(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(scalars_and_not_null),
        cmocka_unit_test(containers),
        cmocka_unit_test(syntax_errors),
        cmocka_unit_test(partition_and_sort),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Tracing spans as OpenTelemetry-shaped JSON lines (src/util/spans.c). */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "util/spans.h"

static bool is_hex(const char *s, size_t n)
{
    if (!s || strlen(s) != n)
        return false;
    for (size_t i = 0; i < n; i++) {
        if (!strchr("0123456789abcdef", s[i]))
            return false;
    }
    return strspn(s, "0") != n;
}

static void test_lines(void **state)
{
    (void)state;
    char path[] = "/tmp/hl-spans-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    struct tracer *t;
    assert_int_equal(tracer_open(path, "hoglake-test", &t), 0);
    assert_non_null(t);
    struct span *root = span_start(t, "iceberg.export", NULL);
    struct span *child = span_start(t, "iceberg.snapshot.commit", root);
    span_attr_str(child, "hyp_partition_spec", "day(message_created_at)");
    span_attr_int(child, "rows", 42);
    span_fail(child, "iceberg_partition_spec_drift", "the spec moved");
    span_end(child);
    span_end(root);
    tracer_close(t);

    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[4096];
    json_t *got[2];
    for (int i = 0; i < 2; i++) {
        assert_non_null(fgets(line, sizeof line, f));
        got[i] = json_loads(line, 0, NULL);
        assert_non_null(got[i]);
    }
    assert_null(fgets(line, sizeof line, f));
    fclose(f);
    unlink(path);
    /* The child ended first. */
    json_t *c = got[0], *r = got[1];
    assert_string_equal(json_string_value(json_object_get(c, "name")), "iceberg.snapshot.commit");
    json_t *cc = json_object_get(c, "context"), *rc = json_object_get(r, "context");
    const char *trace = json_string_value(json_object_get(rc, "trace_id"));
    assert_true(is_hex(trace, 32));
    assert_true(is_hex(json_string_value(json_object_get(rc, "span_id")), 16));
    assert_string_equal(json_string_value(json_object_get(cc, "trace_id")), trace);
    assert_string_equal(json_string_value(json_object_get(c, "parent_id")),
                        json_string_value(json_object_get(rc, "span_id")));
    assert_null(json_object_get(r, "parent_id"));
    json_t *attrs = json_object_get(c, "attributes");
    assert_string_equal(json_string_value(json_object_get(attrs, "hyp_partition_spec")),
                        "day(message_created_at)");
    assert_int_equal(json_integer_value(json_object_get(attrs, "rows")), 42);
    assert_string_equal(json_string_value(json_object_get(attrs, "error_kind")),
                        "iceberg_partition_spec_drift");
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(c, "status"), "status_code")), "ERROR");
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(r, "status"), "status_code")), "OK");
    assert_string_equal(
        json_string_value(json_object_get(
            json_object_get(json_object_get(r, "resource"), "attributes"), "service.name")),
        "hoglake-test");
    const char *start = json_string_value(json_object_get(r, "start_time"));
    const char *end = json_string_value(json_object_get(r, "end_time"));
    assert_true(strlen(start) == 30 && start[10] == 'T' && start[29] == 'Z');
    assert_true(strcmp(start, end) <= 0);
    json_decref(c);
    json_decref(r);
}

static void test_disabled(void **state)
{
    (void)state;
    struct tracer *t = (struct tracer *)1;
    assert_int_equal(tracer_open(NULL, "x", &t), 0);
    assert_null(t);
    assert_int_equal(tracer_open("", "x", &t), 0);
    assert_null(t);
    struct span *s = span_start(NULL, "nothing", NULL);
    assert_null(s);
    span_attr_str(s, "k", "v");
    span_fail(s, "kind", "text");
    span_end(s);
    tracer_close(NULL);
    assert_int_equal(tracer_open("/nonexistent-dir/x/spans.jsonl", "x", &t), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_lines),
                                       cmocka_unit_test(test_disabled)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}

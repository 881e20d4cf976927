/* The audit log's line format and escaping, the outcome mapping, the file
 * sink (whole lines from many threads, unwritable destinations counted,
 * never fatal), the audited-route table against the router, and the
 * whole-family gauge replacement the metrics sampler relies on. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "server/auth/audit.h"
#include "server/auth/audit_request.h"
#include "server/http/router.h"
#include "server/metrics.h"
#include "server/server.h"

/* 2026-09-05T00:00:00.123456Z */
static const int64_t T = 1788566400123456LL;

static void minimal_line_has_fixed_fields_in_order(void **state)
{
    (void)state;
    struct audit_event ev = {.action = "table_drop", .outcome = "ok"};
    char *line = audit_format(&ev, T);
    /* No actor: the server's own work. */
    assert_string_equal(line, "{\"time\":\"2026-09-05T00:00:00.123456Z\",\"action\":\"table_drop\","
                              "\"actor\":{\"token_id\":null,\"name\":\"hoglaked\"},"
                              "\"outcome\":\"ok\"}");
    free(line);
}

static void every_field_and_escaping(void **state)
{
    (void)state;
    json_t *detail = json_pack("{s:I,s:s}", "snapshot_id", (json_int_t)42, "note", "a\nb");
    const struct audit_actor actor = {"0b5c4c4e-8d1a-4f7e-9a51-1f0f3a2b9c10", "etl \"nightly\""};
    struct audit_event ev = {.action = "commit",
                             .actor = &actor,
                             .outcome = "committed",
                             .catalog = "c\"q",
                             .object = "ns.t\\x\t\x01",
                             .detail = detail,
                             .request_id = "req-1"};
    char *line = audit_format(&ev, T);
    assert_string_equal(line, "{\"time\":\"2026-09-05T00:00:00.123456Z\",\"action\":\"commit\","
                              "\"actor\":{\"token_id\":\"0b5c4c4e-8d1a-4f7e-9a51-1f0f3a2b9c10\","
                              "\"name\":\"etl \\\"nightly\\\"\"},"
                              "\"outcome\":\"committed\",\"catalog\":\"c\\\"q\","
                              "\"object\":\"ns.t\\\\x\\t\\u0001\",\"detail\":{\"snapshot_id\":42,"
                              "\"note\":\"a\\nb\"},\"request_id\":\"req-1\"}");
    /* One line, and the detail is the caller's still. */
    assert_null(strchr(line, '\n'));
    assert_int_equal(detail->refcount, 1);
    free(line);
    json_decref(detail);
}

static void invalid_utf8_is_sanitised_not_dropped(void **state)
{
    (void)state;
    struct audit_event ev = {.action = "namespace_drop", .outcome = "not_found", .object = "n\xff"};
    char *line = audit_format(&ev, T);
    assert_non_null(line);
    assert_non_null(strstr(line, "\"object\":\"n?\""));
    free(line);
}

static void outcomes_follow_the_contract(void **state)
{
    (void)state;
    assert_string_equal(audit_outcome(200, NULL, "committed"), "committed");
    assert_string_equal(audit_outcome(201, NULL, "ok"), "ok");
    assert_string_equal(audit_outcome(409, "commit_conflict", "ok"), "conflict");
    assert_string_equal(audit_outcome(409, "already_exists", "ok"), "conflict");
    assert_string_equal(audit_outcome(409, "ddl_since_read_snapshot", "ok"),
                        "ddl_since_read_snapshot");
    assert_string_equal(audit_outcome(409, "table_recreated", "ok"), "table_recreated");
    assert_string_equal(audit_outcome(409, "offset_regression", "ok"), "regression");
    assert_string_equal(audit_outcome(404, "not_found", "ok"), "not_found");
    assert_string_equal(audit_outcome(400, "bad_request", "ok"), "validation");
    assert_string_equal(audit_outcome(422, "validation", "ok"), "validation");
    assert_string_equal(audit_outcome(410, "expired", "ok"), "validation");
    assert_string_equal(audit_outcome(503, "commit_queue_timeout", "ok"), "timeout");
    assert_string_equal(audit_outcome(500, "internal_error", "ok"), "error");
}

struct emitter {
    struct audit *a;
    int id;
};

enum { THREADS = 8, PER_THREAD = 500 };

static void *emit_many(void *arg)
{
    struct emitter *e = arg;
    char object[64];
    /* Long enough that a torn write would show. */
    json_t *detail = json_pack("{s:s}", "pad",
                               "0123456789012345678901234567890123456789"
                               "0123456789012345678901234567890123456789");
    for (int i = 0; i < PER_THREAD; i++) {
        snprintf(object, sizeof object, "t%d.%d", e->id, i);
        struct audit_event ev = {
            .action = "commit", .outcome = "committed", .object = object, .detail = detail};
        audit_emit(e->a, &ev);
    }
    json_decref(detail);
    return NULL;
}

static void file_lines_stay_whole_across_threads(void **state)
{
    (void)state;
    char path[] = "/tmp/hl-audit-unit-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    struct audit *a = audit_open(path, NULL);
    assert_non_null(a);
    struct emitter e[THREADS];
    pthread_t th[THREADS];
    for (int i = 0; i < THREADS; i++) {
        e[i] = (struct emitter){a, i};
        assert_int_equal(pthread_create(&th[i], NULL, emit_many, &e[i]), 0);
    }
    for (int i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    audit_close(a); /* writes what is queued */
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[1024];
    int n = 0, next[THREADS] = {0};
    while (fgets(line, sizeof line, f)) {
        json_t *o = json_loads(line, 0, NULL);
        assert_non_null(o);
        int t, i;
        assert_int_equal(sscanf(json_string_value(json_object_get(o, "object")), "t%d.%d", &t, &i),
                         2);
        /* Each thread's lines in the order it emitted them. */
        assert_int_equal(i, next[t]++);
        json_decref(o);
        n++;
    }
    fclose(f);
    unlink(path);
    assert_int_equal(n, THREADS * PER_THREAD);
}

static double failures(struct metrics *m)
{
    struct buf b = BUF_INIT;
    assert_int_equal(metrics_render(m, &b), 0);
    const char *at = strstr(b.data, "\nhoglake_audit_write_failures_total ");
    double v = at ? strtod(at + strlen("\nhoglake_audit_write_failures_total "), NULL) : 0;
    buf_free(&b);
    return v;
}

static void unwritable_destinations_are_counted(void **state)
{
    (void)state;
    const char *paths[] = {"/tmp", "/nonexistent-dir/audit.log", "/dev/full"};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        if (i == 2 && access("/dev/full", W_OK) != 0)
            continue;
        struct metrics *m = metrics_create();
        struct audit *a = audit_open(paths[i], m);
        assert_non_null(a);
        struct audit_event ev = {.action = "table_create", .outcome = "ok"};
        for (int k = 0; k < 3; k++)
            audit_emit(a, &ev);
        audit_close(a);
        assert_int_equal((int)failures(m), 3);
        metrics_destroy(m);
    }
}

static void no_sink_and_incomplete_events_are_no_ops(void **state)
{
    (void)state;
    struct audit_event ev = {.action = "commit", .outcome = "committed"};
    audit_emit(NULL, &ev);
    struct audit *a = audit_open("-", NULL);
    struct audit_event half = {.action = "commit"};
    audit_emit(a, &half);
    audit_close(a);
    audit_close(NULL);
}

static void audited_routes_exist(void **state)
{
    (void)state;
    size_t n;
    const struct route *routes = router_routes(&n);
    const char *method, *pattern;
    size_t count = 0;
    for (size_t i = 0; (pattern = audit_route_at(i, &method)); i++, count++) {
        bool found = false;
        for (size_t r = 0; r < n; r++)
            found |=
                strcmp(routes[r].method, method) == 0 && strcmp(routes[r].pattern, pattern) == 0;
        if (!found)
            fail_msg("audited route %s %s is not in the router", method, pattern);
    }
    assert_true(count >= 14);
    assert_string_equal(audit_action_of("POST", "/v1/catalogs/{catalog}/commit"), "commit");
    assert_null(audit_action_of("GET", "/v1/catalogs/{catalog}"));
}

static void gauge_replace_drops_vanished_series(void **state)
{
    (void)state;
    struct metrics *m = metrics_create();
    const char *two[] = {"catalog=\"a\",consumer=\"x\"", "catalog=\"a\",consumer=\"y\""};
    const double v2[] = {3, 4};
    metrics_gauge_replace(m, "hoglake_consumer_lag_snapshots", two, v2, 2);
    const char *one[] = {"catalog=\"a\",consumer=\"y\""};
    const double v1[] = {5};
    metrics_gauge_replace(m, "hoglake_consumer_lag_snapshots", one, v1, 1);
    struct buf b = BUF_INIT;
    assert_int_equal(metrics_render(m, &b), 0);
    assert_null(strstr(b.data, "consumer=\"x\""));
    assert_non_null(
        strstr(b.data, "\nhoglake_consumer_lag_snapshots{catalog=\"a\",consumer=\"y\"} 5\n"));
    buf_free(&b);
    metrics_gauge_replace(m, "hoglake_consumer_lag_snapshots", NULL, NULL, 0);
    b = (struct buf)BUF_INIT;
    assert_int_equal(metrics_render(m, &b), 0);
    assert_null(strstr(b.data, "\nhoglake_consumer_lag_snapshots{"));
    buf_free(&b);
    metrics_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(minimal_line_has_fixed_fields_in_order),
        cmocka_unit_test(every_field_and_escaping),
        cmocka_unit_test(invalid_utf8_is_sanitised_not_dropped),
        cmocka_unit_test(outcomes_follow_the_contract),
        cmocka_unit_test(file_lines_stay_whole_across_threads),
        cmocka_unit_test(unwritable_destinations_are_counted),
        cmocka_unit_test(no_sink_and_incomplete_events_are_no_ops),
        cmocka_unit_test(audited_routes_exist),
        cmocka_unit_test(gauge_replace_drops_vanished_series),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The metrics sampler and the key series of contract §8.1 against a real
 * hoglaked: after commits, drops and offset commits, one sample later
 * /metrics holds exactly the snapshot count, table count, live rows and
 * bytes, each consumer's lag (head minus its lowest offset), the largest
 * lag, a fresh last-sample time and a small head age; at most 100 consumers
 * per catalog get a series (the most lagging); hoglake_commits_total uses
 * the contract's result values. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness.h"

#define CAT "mx"
#define DATA "s3://hoglake-test/" CAT

static struct test_db db;
static struct test_server srv;
static PGconn *pg;

static int setup(void **state)
{
    (void)state;
    test_db_create(&db, "metrics");
    const char *const extra[] = {"--metrics-interval-ms", "100", NULL};
    test_server_start(&srv, &db, extra);
    pg = test_db_connect(&db);
    test_sql_use(pg);
    make_catalog(&srv, CAT);
    make_namespace(&srv, CAT, "ns");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    test_stack_down(&db, &srv, &pg);
    return 0;
}

/* The value of the sample whose line starts with `series` followed by a
 * space ("name{labels}"); NAN when there is none. */
static double sample_of(const char *body, const char *series)
{
    size_t n = strlen(series);
    for (const char *at = body; (at = strstr(at, series)); at += n)
        if ((at == body || at[-1] == '\n') && at[n] == ' ')
            return strtod(at + n + 1, NULL);
    return NAN;
}

static char *scrape(void)
{
    struct http_result r;
    api_get(&r, &srv, "/metrics");
    expect_status(&r, 200);
    char *body = strdup(r.body);
    http_result_free(&r);
    return body;
}

/* Scrapes until `series` reads `want` (a sample after the last change),
 * up to 10 s; returns that scrape. */
static char *scrape_when(const char *series, double want)
{
    for (int waited = 0;; waited += 50) {
        char *body = scrape();
        if (sample_of(body, series) == want)
            return body;
        if (waited > 10000) {
            fprintf(stderr, "%s\n", body);
            fail_msg("%s never became %g", series, want);
        }
        free(body);
        sleep_ms(50);
    }
}

static void expect_sample(const char *body, const char *series, double want)
{
    double got = sample_of(body, series);
    if (got != want)
        fail_msg("%s: want %g, got %g", series, want, got);
}

static void put_offset(const char *cat, const char *consumer, const char *uuid, int64_t snap)
{
    struct http_result r;
    api_send(&r, &srv, "PUT", jpack("{s:I}", "snapshot_id", (json_int_t)snap),
             "/v1/catalogs/%s/consumers/%s/offsets/%s", cat, consumer, uuid);
    expect_status(&r, 200);
    http_result_free(&r);
}

static void key_series_after_a_sample(void **state)
{
    (void)state;
    char *cols = dq("[{'name':'id','type':'long'}]");
    json_t *t = make_table(&srv, CAT, "ns", "t", cols);
    char uuid[64];
    snprintf(uuid, sizeof uuid, "%s", jstr(t, "table_uuid"));
    json_decref(t);
    json_decref(make_table(&srv, CAT, "ns", "gone", cols));
    free(cols);
    int64_t first =
        api_commit_status(&srv, CAT,
                          "{'appends':[{'namespace':'ns','table':'t','files':[{'path':'" DATA
                          "/1.parquet','record_count':3,'file_size_bytes':30}]}]}");
    assert_true(first > 0);
    /* Files of a dropped table are not live data. */
    assert_true(
        api_commit_status(&srv, CAT,
                          "{'appends':[{'namespace':'ns','table':'gone','files':[{'path':'" DATA
                          "/g.parquet','record_count':100,'file_size_bytes':1000}]}]}") > 0);
    struct http_result r;
    api_delete(&r, &srv, "/v1/catalogs/" CAT "/namespaces/ns/tables/gone");
    expect_status(&r, 200);
    http_result_free(&r);
    /* A DDL between a writer's read and its commit, and a bad commit: the
     * contract's result labels. */
    int64_t read = head_of(CAT);
    api_send(&r, &srv, "POST",
             jparse("{\"ops\":[{\"op\":\"set_table_comment\",\"comment\":\"x\"}]}"),
             "/v1/catalogs/" CAT "/namespaces/ns/tables/t/alter");
    expect_status(&r, 200);
    http_result_free(&r);
    char body[400];
    snprintf(
        body, sizeof body,
        "{'read_snapshot':%lld,'appends':[{'namespace':'ns','table':'t','files':[{'path':'" DATA
        "/x.parquet','record_count':1,'file_size_bytes':1}]}]}",
        (long long)read);
    assert_int_equal(api_commit_status(&srv, CAT, body), -409);
    assert_int_equal(
        api_commit_status(&srv, CAT, "{'appends':[{'namespace':'ns','table':'t','files':[]}]}"),
        -422);
    int64_t second =
        api_commit_status(&srv, CAT,
                          "{'appends':[{'namespace':'ns','table':'t','files':[{'path':'" DATA
                          "/2.parquet','record_count':4,'file_size_bytes':40}]}]}");
    assert_true(second > first);
    put_offset(CAT, "slow", uuid, first);
    put_offset(CAT, "fast", uuid, second);
    int64_t head = head_of(CAT);
    assert_int_equal(head, second);

    time_t before = time(NULL);
    /* The sample that saw the last offset put (fast's): one that ran
     * between the two puts has slow's lag right but no fast series. */
    char *m =
        scrape_when("hoglake_consumer_lag_snapshots{catalog=\"" CAT "\",consumer=\"fast\"}", 0);
    expect_sample(m, "hoglake_consumer_lag_snapshots{catalog=\"" CAT "\",consumer=\"slow\"}",
                  (double)(head - first));
    expect_sample(m, "hoglake_consumer_lag_max{catalog=\"" CAT "\"}", (double)(head - first));
    expect_sample(m, "hoglake_snapshot_count{catalog=\"" CAT "\"}", (double)(head + 1));
    expect_sample(m, "hoglake_head_snapshot_id{catalog=\"" CAT "\"}", (double)head);
    expect_sample(m, "hoglake_earliest_snapshot_id{catalog=\"" CAT "\"}", 0);
    expect_sample(m, "hoglake_table_count{catalog=\"" CAT "\"}", 1);
    expect_sample(m, "hoglake_live_rows{catalog=\"" CAT "\"}", 7);
    expect_sample(m, "hoglake_live_bytes{catalog=\"" CAT "\"}", 70);
    double age = sample_of(m, "hoglake_head_age_seconds{catalog=\"" CAT "\"}");
    assert_true(age >= 0 && age < 30);
    double last = sample_of(m, "hoglake_metrics_last_sample_epoch");
    assert_true(last >= (double)before - 1 && last <= (double)time(NULL) + 1);
    assert_true(isnan(sample_of(m, "hoglake_metrics_sample_errors_total")));
    expect_sample(m, "hoglake_commits_total{catalog=\"" CAT "\",result=\"committed\"}", 3);
    expect_sample(
        m, "hoglake_commits_total{catalog=\"" CAT "\",result=\"ddl_since_read_snapshot\"}", 1);
    expect_sample(m, "hoglake_commits_total{catalog=\"" CAT "\",result=\"validation\"}", 1);
    free(m);
}

/* Advances a catalog's head by n snapshots directly (data commits would do
 * the same; the sampler only reads the head). */
static void add_snapshots(const char *cat, int n)
{
    int64_t c = cat_id(cat);
    sql_exec("INSERT INTO hog_snapshot (catalog_id, snapshot_id, snapshot_time, schema_version)"
             " SELECT %lld, h.last_snapshot_id + g, clock_timestamp(), h.schema_version"
             " FROM hog_catalog h, generate_series(1, %d) g WHERE h.catalog_id = %lld",
             (long long)c, n, (long long)c);
    sql_exec("UPDATE hog_catalog SET last_snapshot_id = last_snapshot_id + %d WHERE catalog_id ="
             " %lld",
             n, (long long)c);
}

static void at_most_100_consumers_per_catalog(void **state)
{
    (void)state;
    make_catalog(&srv, "many");
    make_namespace(&srv, "many", "ns");
    char *cols = dq("[{'name':'id','type':'long'}]");
    json_t *t = make_table(&srv, "many", "ns", "t", cols);
    free(cols);
    char uuid[64];
    snprintf(uuid, sizeof uuid, "%s", jstr(t, "table_uuid"));
    json_decref(t);
    add_snapshots("many", 120);
    int64_t head = head_of("many");
    /* Consumer c<i> sits at snapshot i + 1: c100 lags least. */
    for (int i = 0; i <= 100; i++) {
        char consumer[16];
        snprintf(consumer, sizeof consumer, "c%03d", i);
        put_offset("many", consumer, uuid, i + 1);
    }
    char *m = scrape_when("hoglake_consumer_lag_snapshots{catalog=\"many\",consumer=\"c099\"}",
                          (double)(head - 100));
    int series = 0;
    for (const char *at = m; (at = strstr(at, "\nhoglake_consumer_lag_snapshots{catalog=\"many\""));
         at++)
        series++;
    assert_int_equal(series, 100);
    assert_true(
        isnan(sample_of(m, "hoglake_consumer_lag_snapshots{catalog=\"many\",consumer=\"c100\"}")));
    expect_sample(m, "hoglake_consumer_lag_snapshots{catalog=\"many\",consumer=\"c000\"}",
                  (double)(head - 1));
    expect_sample(m, "hoglake_consumer_lag_max{catalog=\"many\"}", (double)(head - 1));
    free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(key_series_after_a_sample),
        cmocka_unit_test(at_most_100_consumers_per_catalog),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

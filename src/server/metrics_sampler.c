#include "server/metrics_sampler.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "server/db/db.h"
#include "server/metrics.h"
#include "util/log.h"
#include "util/timefmt.h"

/* Per catalog: name, head, earliest, readable snapshots, head age, live
 * tables. Index lookups only. */
static const char catalogs_sql[] =
    "SELECT c.name, c.last_snapshot_id, c.earliest_snapshot_id,"
    " c.last_snapshot_id - c.earliest_snapshot_id + 1,"
    " coalesce(extract(epoch FROM clock_timestamp() - s.snapshot_time), 0)::float8,"
    " (SELECT count(*) FROM hog_table t WHERE t.catalog_id = c.catalog_id"
    "   AND t.dropped_snapshot IS NULL)"
    " FROM hog_catalog c LEFT JOIN hog_snapshot s"
    "  ON s.catalog_id = c.catalog_id AND s.snapshot_id = c.last_snapshot_id"
    " ORDER BY c.name";

/* Per catalog: rows and bytes of live files of live tables (through the
 * hog_data_file_live partial index). Catalogs without any come out as 0. */
static const char live_sql[] = "SELECT c.name, coalesce(sum(d.record_count), 0)::float8,"
                               " coalesce(sum(d.file_size_bytes), 0)::float8"
                               " FROM hog_catalog c LEFT JOIN (hog_data_file d JOIN hog_table t"
                               "  ON t.catalog_id = d.catalog_id AND t.table_id = d.table_id"
                               "  AND t.dropped_snapshot IS NULL)"
                               "  ON d.catalog_id = c.catalog_id AND d.end_snapshot IS NULL"
                               " GROUP BY c.name ORDER BY c.name";

/* Per catalog, its most lagging consumers (at most $1), most lagging
 * first: name, consumer, lag. Offsets on tables no longer in hog_table do
 * not hold a consumer back (as for the expiry floor). */
static const char lag_sql[] =
    "SELECT name, consumer_id, lag FROM ("
    " SELECT c.name, o.consumer_id, c.last_snapshot_id - min(o.committed_snapshot) AS lag,"
    "  row_number() OVER (PARTITION BY c.catalog_id"
    "   ORDER BY c.last_snapshot_id - min(o.committed_snapshot) DESC, o.consumer_id) AS rank"
    " FROM hog_consumer_offset o JOIN hog_catalog c ON c.catalog_id = o.catalog_id"
    " WHERE EXISTS (SELECT 1 FROM hog_table t WHERE t.catalog_id = o.catalog_id"
    "  AND t.table_uuid = o.table_uuid)"
    " GROUP BY c.catalog_id, c.name, c.last_snapshot_id, o.consumer_id) x"
    " WHERE rank <= $1 ORDER BY name, rank";

enum { LABELS_MAX = 640 };

/* Label sets and values for one family, one row each. */
struct series_set {
    char (*labels)[LABELS_MAX];
    const char **ptrs;
    double *values;
    size_t n;
};

static int set_init(struct series_set *s, size_t cap)
{
    memset(s, 0, sizeof *s);
    size_t c = cap ? cap : 1;
    s->labels = malloc(c * sizeof *s->labels);
    s->ptrs = malloc(c * sizeof *s->ptrs);
    s->values = malloc(c * sizeof *s->values);
    return s->labels && s->ptrs && s->values ? 0 : -1;
}

static void set_free(struct series_set *s)
{
    free(s->labels);
    free(s->ptrs);
    free(s->values);
}

static void set_add(struct series_set *s, const char *catalog, const char *consumer, double v)
{
    char cat[300], con[300];
    metrics_label_escape(catalog, cat, sizeof cat);
    if (consumer) {
        metrics_label_escape(consumer, con, sizeof con);
        snprintf(s->labels[s->n], LABELS_MAX, "catalog=\"%s\",consumer=\"%s\"", cat, con);
    } else {
        snprintf(s->labels[s->n], LABELS_MAX, "catalog=\"%s\"", cat);
    }
    s->ptrs[s->n] = s->labels[s->n];
    s->values[s->n++] = v;
}

/* Replaces `family` with column `col` of every row of r (catalog in
 * column 0). */
static int publish(struct metrics *m, const char *family, const PGresult *r, int col)
{
    struct series_set s;
    int rows = PQntuples(r);
    if (set_init(&s, (size_t)rows) != 0) {
        set_free(&s);
        return -1;
    }
    for (int i = 0; i < rows; i++)
        set_add(&s, db_str(r, i, 0), NULL, strtod(PQgetvalue(r, i, col), NULL));
    metrics_gauge_replace(m, family, s.ptrs, s.values, s.n);
    set_free(&s);
    return 0;
}

static int sample_catalogs(PGconn *pg, struct metrics *m, struct error *err)
{
    PGresult *r = db_exec(pg, catalogs_sql, NULL, err);
    if (!r)
        return -1;
    /* Also set by expiry passes, per catalog: updated, not replaced. */
    for (int i = 0; i < PQntuples(r); i++) {
        char cat[300], labels[320];
        metrics_label_escape(db_str(r, i, 0), cat, sizeof cat);
        snprintf(labels, sizeof labels, "catalog=\"%s\"", cat);
        metrics_gauge_set(m, "hoglake_head_snapshot_id", labels, (double)db_i64(r, i, 1));
        metrics_gauge_set(m, "hoglake_earliest_snapshot_id", labels, (double)db_i64(r, i, 2));
    }
    int rc = publish(m, "hoglake_snapshot_count", r, 3) |
             publish(m, "hoglake_head_age_seconds", r, 4) | publish(m, "hoglake_table_count", r, 5);
    PQclear(r);
    return rc;
}

static int sample_live(PGconn *pg, struct metrics *m, struct error *err)
{
    PGresult *r = db_exec(pg, live_sql, NULL, err);
    if (!r)
        return -1;
    int rc = publish(m, "hoglake_live_rows", r, 1) | publish(m, "hoglake_live_bytes", r, 2);
    PQclear(r);
    return rc;
}

static int sample_lag(PGconn *pg, struct metrics *m, struct error *err)
{
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, METRICS_MAX_CONSUMERS);
    PGresult *r = db_exec(pg, lag_sql, &p, err);
    if (!r)
        return -1;
    int rows = PQntuples(r);
    struct series_set lag, max;
    int rc = -1;
    /* Both initialised before either is checked: set_free runs on both. */
    bool ready = set_init(&lag, (size_t)rows) == 0;
    ready = set_init(&max, (size_t)rows) == 0 && ready;
    if (ready) {
        for (int i = 0; i < rows; i++) {
            const char *cat = db_str(r, i, 0);
            double v = (double)db_i64(r, i, 2);
            set_add(&lag, cat, db_str(r, i, 1), v);
            /* Rows come most lagging first within each catalog. */
            if (i == 0 || strcmp(cat, db_str(r, i - 1, 0)) != 0)
                set_add(&max, cat, NULL, v);
        }
        metrics_gauge_replace(m, "hoglake_consumer_lag_snapshots", lag.ptrs, lag.values, lag.n);
        metrics_gauge_replace(m, "hoglake_consumer_lag_max", max.ptrs, max.values, max.n);
        rc = 0;
    }
    set_free(&lag);
    set_free(&max);
    PQclear(r);
    return rc;
}

int metrics_sample(struct db_conn *conn, struct metrics *m)
{
    int (*const steps[])(PGconn *, struct metrics *, struct error *) = {sample_catalogs,
                                                                        sample_live, sample_lag};
    PGconn *pg = conn->pg;
    struct error err;
    int failed = 0;
    if (db_conn_statement_timeout(conn, 5000, &err) != 0) {
        log_warn("metrics sample: %s", err.msg);
        failed++;
    }
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        memset(&err, 0, sizeof err);
        if (steps[i](pg, m, &err) != 0) {
            log_warn("metrics sample: %s", err.msg[0] ? err.msg : "out of memory");
            failed++;
        }
    }
    /* Back to the session's own limit before the pool hands it out. */
    db_conn_statement_timeout(conn, DB_STATEMENT_TIMEOUT_MS, &err);
    if (failed)
        metrics_counter_add(m, "hoglake_metrics_sample_errors_total", "", failed);
    else
        metrics_gauge_set(m, "hoglake_metrics_last_sample_epoch", "",
                          (double)time_now_micros() / 1e6);
    return failed;
}

struct metrics_sampler {
    struct db_pool *pool;
    struct metrics *metrics;
    int64_t interval_ms;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t wake; /* CLOCK_MONOTONIC */
    bool stopping;
};

static void sample_now(struct metrics_sampler *s)
{
    /* A short wait: a busy pool skips this sample rather than queueing
     * behind requests. */
    struct db_conn *conn = db_pool_acquire(s->pool, 1000);
    if (!conn) {
        metrics_counter_add(s->metrics, "hoglake_metrics_sample_errors_total", "", 1);
        return;
    }
    metrics_sample(conn, s->metrics);
    db_pool_release(conn);
}

static void *sampler_main(void *arg)
{
    struct metrics_sampler *s = arg;
    pthread_mutex_lock(&s->mu);
    while (!s->stopping) {
        pthread_mutex_unlock(&s->mu);
        sample_now(s);
        pthread_mutex_lock(&s->mu);
        struct timespec due;
        time_mono_deadline(&due, s->interval_ms);
        int rc = 0;
        while (!s->stopping && rc != ETIMEDOUT)
            rc = pthread_cond_timedwait(&s->wake, &s->mu, &due);
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

struct metrics_sampler *metrics_sampler_start(struct db_pool *pool, struct metrics *m,
                                              int64_t interval_ms, char *err, size_t err_size)
{
    struct metrics_sampler *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, err_size, "out of memory");
        return NULL;
    }
    s->pool = pool;
    s->metrics = m;
    s->interval_ms = interval_ms;
    pthread_mutex_init(&s->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&s->wake, &ca);
    pthread_condattr_destroy(&ca);
    int rc = pthread_create(&s->thread, NULL, sampler_main, s);
    if (rc != 0) {
        snprintf(err, err_size, "cannot start the metrics sampler: %s", strerror(rc));
        pthread_cond_destroy(&s->wake);
        pthread_mutex_destroy(&s->mu);
        free(s);
        return NULL;
    }
    log_info("metrics sampler every %lld ms", (long long)interval_ms);
    return s;
}

void metrics_sampler_stop(struct metrics_sampler *s)
{
    if (!s)
        return;
    pthread_mutex_lock(&s->mu);
    s->stopping = true;
    pthread_cond_broadcast(&s->wake);
    pthread_mutex_unlock(&s->mu);
    pthread_join(s->thread, NULL);
    pthread_cond_destroy(&s->wake);
    pthread_mutex_destroy(&s->mu);
    free(s);
}

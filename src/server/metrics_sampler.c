#include "server/metrics_sampler.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/db/db.h"
#include "server/metrics.h"
#include "server/store/metrics.h"
#include "util/log.h"
#include "util/ticker.h"
#include "util/timefmt.h"

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

/* Replaces `family` with gauge g of every row of v. */
static int publish(struct metrics *m, const char *family, const struct store_metrics_rows *v,
                   enum store_metrics_gauge g)
{
    struct series_set s;
    int rows = store_metrics_rows_count(v);
    if (set_init(&s, (size_t)rows) != 0) {
        set_free(&s);
        return -1;
    }
    for (int i = 0; i < rows; i++)
        set_add(&s, store_metrics_rows_catalog(v, i), NULL, store_metrics_rows_gauge(v, i, g));
    metrics_gauge_replace(m, family, s.ptrs, s.values, s.n);
    set_free(&s);
    return 0;
}

static int sample_catalogs(PGconn *pg, struct metrics *m, struct error *err)
{
    struct store_metrics_rows v;
    if (store_metrics_catalogs(pg, &v, err) != 0)
        return -1;
    /* Also set by expiry passes, per catalog: updated, not replaced. */
    for (int i = 0; i < store_metrics_rows_count(&v); i++) {
        char cat[300], labels[320];
        metrics_label_escape(store_metrics_rows_catalog(&v, i), cat, sizeof cat);
        snprintf(labels, sizeof labels, "catalog=\"%s\"", cat);
        metrics_gauge_set(m, "hoglake_head_snapshot_id", labels,
                          store_metrics_rows_gauge(&v, i, STORE_METRICS_HEAD));
        metrics_gauge_set(m, "hoglake_earliest_snapshot_id", labels,
                          store_metrics_rows_gauge(&v, i, STORE_METRICS_EARLIEST));
    }
    int rc = publish(m, "hoglake_snapshot_count", &v, STORE_METRICS_SNAPSHOTS) |
             publish(m, "hoglake_head_age_seconds", &v, STORE_METRICS_HEAD_AGE) |
             publish(m, "hoglake_table_count", &v, STORE_METRICS_TABLES);
    store_metrics_rows_free(&v);
    return rc;
}

static int sample_live(PGconn *pg, struct metrics *m, struct error *err)
{
    struct store_metrics_rows v;
    if (store_metrics_live(pg, &v, err) != 0)
        return -1;
    int rc = publish(m, "hoglake_live_rows", &v, STORE_METRICS_LIVE_ROWS) |
             publish(m, "hoglake_live_bytes", &v, STORE_METRICS_LIVE_BYTES);
    store_metrics_rows_free(&v);
    return rc;
}

static int sample_lag(PGconn *pg, struct metrics *m, struct error *err)
{
    struct store_metrics_lag v;
    if (store_metrics_consumer_lag(pg, METRICS_MAX_CONSUMERS, &v, err) != 0)
        return -1;
    int rows = store_metrics_lag_count(&v);
    struct series_set lag, max;
    int rc = -1;
    /* Both initialised before either is checked: set_free runs on both. */
    bool ready = set_init(&lag, (size_t)rows) == 0;
    ready = set_init(&max, (size_t)rows) == 0 && ready;
    if (ready) {
        for (int i = 0; i < rows; i++) {
            const char *cat = store_metrics_lag_catalog(&v, i);
            double snapshots = (double)store_metrics_lag_snapshots(&v, i);
            set_add(&lag, cat, store_metrics_lag_consumer(&v, i), snapshots);
            /* Rows come most lagging first within each catalog. */
            if (i == 0 || strcmp(cat, store_metrics_lag_catalog(&v, i - 1)) != 0)
                set_add(&max, cat, NULL, snapshots);
        }
        metrics_gauge_replace(m, "hoglake_consumer_lag_snapshots", lag.ptrs, lag.values, lag.n);
        metrics_gauge_replace(m, "hoglake_consumer_lag_max", max.ptrs, max.values, max.n);
        rc = 0;
    }
    set_free(&lag);
    set_free(&max);
    store_metrics_lag_free(&v);
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
    struct ticker *ticker;
};

static void sample_now(struct ticker *t, void *arg)
{
    (void)t;
    struct metrics_sampler *s = arg;
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

struct metrics_sampler *metrics_sampler_start(struct db_pool *pool, struct metrics *m,
                                              int64_t interval_ms, struct error *err)
{
    struct metrics_sampler *s = calloc(1, sizeof *s);
    if (!s) {
        error_nomem(err);
        return NULL;
    }
    s->pool = pool;
    s->metrics = m;
    s->ticker = ticker_start("metrics sampler", interval_ms, sample_now, s, err);
    if (!s->ticker) {
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
    ticker_stop(s->ticker);
    free(s);
}

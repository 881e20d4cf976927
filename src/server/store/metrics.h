/* The store of the sampled gauges: the read-only queries the metrics
 * sampler (server/metrics_sampler.h) runs over every catalog. They read
 * hog_catalog, hog_snapshot, hog_table, hog_data_file and
 * hog_consumer_offset and own no table; index lookups only. */
#ifndef HL_SERVER_STORE_METRICS_H
#define HL_SERVER_STORE_METRICS_H

#include <libpq-fe.h>
#include <stdint.h>

struct error;

/* Per-catalog rows of gauges, by catalog name, over the query's result. */
struct store_metrics_rows {
    PGresult *r;
};
enum store_metrics_gauge {
    /* store_metrics_catalogs */
    STORE_METRICS_HEAD,
    STORE_METRICS_EARLIEST,
    STORE_METRICS_SNAPSHOTS, /* readable snapshots */
    STORE_METRICS_HEAD_AGE,  /* seconds since the head's commit */
    STORE_METRICS_TABLES,    /* live tables */
    /* store_metrics_live */
    STORE_METRICS_LIVE_ROWS,
    STORE_METRICS_LIVE_BYTES,
};
/* Every catalog: head, earliest, readable snapshots, head age, live
 * tables. */
int store_metrics_catalogs(PGconn *pg, struct store_metrics_rows *out, struct error *err);
/* Every catalog: rows and bytes of the live files of its live tables (0
 * for none). */
int store_metrics_live(PGconn *pg, struct store_metrics_rows *out, struct error *err);
int store_metrics_rows_count(const struct store_metrics_rows *v);
const char *store_metrics_rows_catalog(const struct store_metrics_rows *v, int i);
/* A gauge of the rows' query. */
double store_metrics_rows_gauge(const struct store_metrics_rows *v, int i,
                                enum store_metrics_gauge g);
void store_metrics_rows_free(struct store_metrics_rows *v);

/* Per catalog, its most lagging consumers (at most max_per_catalog), by
 * catalog name and most lagging first, over the query's result. Offsets
 * on tables no longer in hog_table do not hold a consumer back (as for
 * the expiry floor). */
struct store_metrics_lag {
    PGresult *r;
};
int store_metrics_consumer_lag(PGconn *pg, int64_t max_per_catalog, struct store_metrics_lag *out,
                               struct error *err);
int store_metrics_lag_count(const struct store_metrics_lag *v);
const char *store_metrics_lag_catalog(const struct store_metrics_lag *v, int i);
const char *store_metrics_lag_consumer(const struct store_metrics_lag *v, int i);
/* Snapshots between the consumer's lowest offset and the head. */
int64_t store_metrics_lag_snapshots(const struct store_metrics_lag *v, int i);
void store_metrics_lag_free(struct store_metrics_lag *v);

#endif

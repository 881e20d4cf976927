/* The metrics sampler (contract §7.5, §8.1): a background thread that
 * every HOGLAKE_METRICS_INTERVAL_MS reads the per-catalog gauges /metrics
 * cannot compute itself without touching the database:
 *   hoglake_head_snapshot_id, hoglake_earliest_snapshot_id,
 *   hoglake_snapshot_count, hoglake_head_age_seconds, hoglake_table_count,
 *   hoglake_live_rows, hoglake_live_bytes            {catalog}
 *   hoglake_consumer_lag_snapshots                   {catalog, consumer}
 *   hoglake_consumer_lag_max                         {catalog}
 * plus hoglake_metrics_last_sample_epoch and
 * hoglake_metrics_sample_errors_total.
 *
 * A sample is three read statements on one pooled connection, outside any
 * transaction of its own (so never inside a commit's), each bounded by a
 * 5 s statement timeout; a statement that fails counts one error and the
 * others still publish. The catalog facts are index lookups; live rows and
 * bytes sum the live data files through their partial index (the one
 * statement that grows with the catalog); consumer lag keeps the 100 most
 * lagging consumers of each catalog. A consumer's lag is the head minus its
 * lowest committed offset over tables that still exist. Each family is
 * replaced whole, so consumers (and their series) that went away vanish. */
#ifndef HL_SERVER_METRICS_SAMPLER_H
#define HL_SERVER_METRICS_SAMPLER_H

#include <libpq-fe.h>
#include <stdint.h>

#include "util/error.h"

struct db_pool;
struct metrics;
struct metrics_sampler;

/* Most consumers per catalog with a lag series. */
enum { METRICS_MAX_CONSUMERS = 100 };

/* Starts the thread, which samples at once and then every interval_ms
 * (> 0). NULL (err filled) when it cannot start. */
struct metrics_sampler *metrics_sampler_start(struct db_pool *pool, struct metrics *m,
                                              int64_t interval_ms, struct error *err);
/* Stops and joins the thread (a sample in progress finishes). NULL is a
 * no-op. */
void metrics_sampler_stop(struct metrics_sampler *s);

/* One sample on conn (its statement bound is the session's again after);
 * returns how many statements failed (0: all published, and the
 * last-sample gauge moved). */
struct db_conn;
int metrics_sample(struct db_conn *conn, struct metrics *m);

#endif

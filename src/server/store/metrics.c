#include "server/store/metrics.h"

#include <stdlib.h>

#include "server/db/db.h"

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

/* Per catalog: rows and bytes of live files of live tables, from the
 * tables' maintained totals (migration 10): one row per table, where
 * summing the file rows read every file of the catalog on every sample
 * (440 ms at 290,000 files; seconds at 10M). Catalogs without any come
 * out as 0. */
static const char live_sql[] =
    "SELECT c.name, coalesce(sum(l.record_count), 0)::float8,"
    " coalesce(sum(l.file_size_bytes), 0)::float8"
    " FROM hog_catalog c LEFT JOIN (hog_table_live_totals l JOIN hog_table t"
    "  ON t.catalog_id = l.catalog_id AND t.table_id = l.table_id"
    "  AND t.dropped_snapshot IS NULL)"
    "  ON l.catalog_id = c.catalog_id"
    " GROUP BY c.name ORDER BY c.name";

/* Per catalog, its most lagging consumers (at most $1), most lagging
 * first: name, consumer, lag. */
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

int store_metrics_catalogs(PGconn *pg, struct store_metrics_rows *out, struct error *err)
{
    out->r = db_exec(pg, catalogs_sql, NULL, err);
    return out->r ? 0 : -1;
}

int store_metrics_live(PGconn *pg, struct store_metrics_rows *out, struct error *err)
{
    out->r = db_exec(pg, live_sql, NULL, err);
    return out->r ? 0 : -1;
}

int store_metrics_rows_count(const struct store_metrics_rows *v)
{
    return PQntuples(v->r);
}

const char *store_metrics_rows_catalog(const struct store_metrics_rows *v, int i)
{
    return db_str(v->r, i, 0);
}

double store_metrics_rows_gauge(const struct store_metrics_rows *v, int i,
                                enum store_metrics_gauge g)
{
    /* Each gauge's column in its own query, the catalog's name first. */
    static const int col[] = {
        [STORE_METRICS_HEAD] = 1,       [STORE_METRICS_EARLIEST] = 2, [STORE_METRICS_SNAPSHOTS] = 3,
        [STORE_METRICS_HEAD_AGE] = 4,   [STORE_METRICS_TABLES] = 5,   [STORE_METRICS_LIVE_ROWS] = 1,
        [STORE_METRICS_LIVE_BYTES] = 2,
    };
    if (g == STORE_METRICS_HEAD || g == STORE_METRICS_EARLIEST)
        return (double)db_i64(v->r, i, col[g]);
    return strtod(PQgetvalue(v->r, i, col[g]), NULL);
}

void store_metrics_rows_free(struct store_metrics_rows *v)
{
    PQclear(v->r);
    v->r = NULL;
}

int store_metrics_consumer_lag(PGconn *pg, int64_t max_per_catalog, struct store_metrics_lag *out,
                               struct error *err)
{
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, max_per_catalog);
    out->r = db_exec(pg, lag_sql, &p, err);
    return out->r ? 0 : -1;
}

int store_metrics_lag_count(const struct store_metrics_lag *v)
{
    return PQntuples(v->r);
}

const char *store_metrics_lag_catalog(const struct store_metrics_lag *v, int i)
{
    return db_str(v->r, i, 0);
}

const char *store_metrics_lag_consumer(const struct store_metrics_lag *v, int i)
{
    return db_str(v->r, i, 1);
}

int64_t store_metrics_lag_snapshots(const struct store_metrics_lag *v, int i)
{
    return db_i64(v->r, i, 2);
}

void store_metrics_lag_free(struct store_metrics_lag *v)
{
    PQclear(v->r);
    v->r = NULL;
}

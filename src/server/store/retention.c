#include "server/store/retention.h"

#include <stdlib.h>

#include "server/db/db.h"
#include "server/store/files.h"
#include "util/strutil.h"

int store_retention_lock(PGconn *pg, int64_t lock_key, int lock_timeout_ms, struct error *err)
{
    if (db_set_lock_timeout(pg, lock_timeout_ms, err) != 0)
        return -1;
    struct db_params p;
    DB_PARAMS_IDS(&p, lock_key);
    return db_run(pg, "SELECT pg_advisory_xact_lock($1::bigint)", &p, err);
}

int store_retention_stall(PGconn *pg, struct error *err)
{
    return db_run(pg, "SET LOCAL statement_timeout = 10", NULL, err) != 0 ||
                   db_run(pg, "SELECT pg_sleep(1)", NULL, err) != 0
               ? -1
               : 0;
}

/* Offsets on a table incarnation that a newer incarnation replaced, where
 * the same consumer already tracks the newer one. */
static const char release_offsets_sql[] =
    "DELETE FROM hog_consumer_offset o USING hog_table old, hog_table nw, hog_consumer_offset n"
    " WHERE o.catalog_id = $1 AND old.catalog_id = $1 AND old.table_uuid = o.table_uuid"
    " AND nw.catalog_id = $1 AND nw.replaced_table_id = old.table_id"
    " AND n.catalog_id = $1 AND n.consumer_id = o.consumer_id AND n.table_uuid = nw.table_uuid";

int store_retention_release_offsets(PGconn *pg, int64_t catalog_id, int64_t *released,
                                    struct error *err)
{
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, catalog_id);
    return db_run_count(pg, release_offsets_sql, &p, released, err);
}

/* Floor inputs read under the lock: earliest, head, retention on?,
 * consumer_floor, first snapshot in the window, lowest live offset. */
static const char floor_inputs_sql[] =
    "SELECT c.earliest_snapshot_id, c.last_snapshot_id,"
    " c.snapshot_retention_seconds IS NOT NULL, c.consumer_floor,"
    " (SELECT s.snapshot_id FROM hog_snapshot s WHERE s.catalog_id = c.catalog_id"
    "   AND s.snapshot_id >= c.earliest_snapshot_id"
    "   AND s.snapshot_time >= now() - make_interval(secs => c.snapshot_retention_seconds)"
    "   ORDER BY s.snapshot_id LIMIT 1),"
    " (SELECT min(o.committed_snapshot) FROM hog_consumer_offset o WHERE o.catalog_id ="
    "   c.catalog_id AND EXISTS (SELECT 1 FROM hog_table t WHERE t.catalog_id = o.catalog_id"
    "   AND t.table_uuid = o.table_uuid))"
    " FROM hog_catalog c WHERE c.catalog_id = $1";

int store_retention_read_floor(PGconn *pg, int64_t catalog_id, struct store_retention_floor *out,
                               struct error *err)
{
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, catalog_id);
    PGresult *r = db_exec(pg, floor_inputs_sql, &p, err);
    if (!r)
        return -1;
    if (PQntuples(r) != 1) {
        PQclear(r);
        return 0;
    }
    *out = (struct store_retention_floor){
        .earliest = db_i64(r, 0, 0),
        .head = db_i64(r, 0, 1),
        .retention_enabled = db_bool(r, 0, 2),
        .consumer_floor = db_bool(r, 0, 3),
        .window_present = !db_isnull(r, 0, 4),
        .window_first = db_isnull(r, 0, 4) ? 0 : db_i64(r, 0, 4),
        .consumer_present = !db_isnull(r, 0, 5),
        .consumer_min = db_isnull(r, 0, 5) ? 0 : db_i64(r, 0, 5),
    };
    PQclear(r);
    return 1;
}

static const char *const ended_metadata_sql[] = {
    "DELETE FROM hog_table_version WHERE catalog_id = $1 AND end_snapshot <= $2",
    "DELETE FROM hog_column WHERE catalog_id = $1 AND end_snapshot <= $2",
    "DELETE FROM hog_partition_spec WHERE catalog_id = $1 AND end_snapshot <= $2",
    "DELETE FROM hog_sort_spec WHERE catalog_id = $1 AND end_snapshot <= $2",
    "DELETE FROM hog_view WHERE catalog_id = $1 AND end_snapshot <= $2",
};

int store_retention_advance(PGconn *pg, int64_t catalog_id, int64_t from, int64_t floor,
                            int64_t *expired, struct error *err)
{
    struct db_params p;
    DB_PARAMS_IDS(&p, catalog_id, from, floor);
    /* Change rows first, by range: cheaper than one cascade probe per
     * snapshot finding them. The delete takes every row of the snapshots
     * it touches, which the table totals' trigger may then take as given
     * (migration 13): only for that statement. */
    if (db_run(pg, "SELECT set_config('hoglake.whole_snapshots', 'on', true)", NULL, err) != 0 ||
        db_run(pg,
               "DELETE FROM hog_snapshot_change WHERE catalog_id = $1"
               " AND snapshot_id >= $2 AND snapshot_id < $3",
               &p, err) != 0 ||
        db_run(pg, "SELECT set_config('hoglake.whole_snapshots', 'off', true)", NULL, err) != 0 ||
        db_run_count(pg,
                     "DELETE FROM hog_snapshot WHERE catalog_id = $1"
                     " AND snapshot_id >= $2 AND snapshot_id < $3",
                     &p, expired, err) != 0)
        return -1;
    DB_PARAMS_IDS(&p, catalog_id, floor);
    if (db_run(pg,
               "UPDATE hog_catalog SET earliest_snapshot_id = $2,"
               " earliest_snapshot_time = coalesce((SELECT snapshot_time FROM hog_snapshot"
               "  WHERE catalog_id = $1 AND snapshot_id = $2), earliest_snapshot_time)"
               " WHERE catalog_id = $1",
               &p, err) != 0)
        return -1;
    for (size_t i = 0; i < sizeof ended_metadata_sql / sizeof ended_metadata_sql[0]; i++)
        if (db_run(pg, ended_metadata_sql[i], &p, err) != 0)
            return -1;
    return 0;
}

/* One page of ended data files (end_snapshot <= floor) with every one of
 * their deletion vectors and partition values (no cascade does it:
 * migration 17); returns the data files taken and the DVs. */
static const char purge_data_page_sql[] =
    "WITH df AS (SELECT data_file_id FROM hog_data_file WHERE catalog_id = $1"
    "   AND end_snapshot IS NOT NULL AND end_snapshot <= $2 ORDER BY end_snapshot LIMIT $3),"
    " dv AS (DELETE FROM hog_delete_file d USING df WHERE d.catalog_id = $1"
    "   AND d.data_file_id = df.data_file_id RETURNING d.path),"
    " gone AS (DELETE FROM hog_data_file f USING df WHERE f.catalog_id = $1"
    "   AND f.data_file_id = df.data_file_id"
    "   RETURNING f.data_file_id, f.path)," STORE_GONE_FILES_PARTITION_VALUES
    " q1 AS (INSERT INTO hog_file_removal (catalog_id, path, file_kind, reason)"
    "   SELECT $1, path, 'data', 'snapshot_expiry' FROM gone RETURNING 1),"
    " q2 AS (INSERT INTO hog_file_removal (catalog_id, path, file_kind, reason)"
    "   SELECT $1, path, 'delete', 'snapshot_expiry' FROM dv RETURNING 1)"
    " SELECT (SELECT count(*) FROM q1), (SELECT count(*) FROM q2)";

/* The second arm: superseded deletion vectors whose data file lives on. */
static const char purge_dv_page_sql[] =
    "WITH d AS (SELECT delete_file_id FROM hog_delete_file WHERE catalog_id = $1"
    "   AND end_snapshot IS NOT NULL AND end_snapshot <= $2 LIMIT $3),"
    " gone AS (DELETE FROM hog_delete_file f USING d WHERE f.catalog_id = $1"
    "   AND f.delete_file_id = d.delete_file_id RETURNING f.path),"
    " q AS (INSERT INTO hog_file_removal (catalog_id, path, file_kind, reason)"
    "   SELECT $1, path, 'delete', 'snapshot_expiry' FROM gone RETURNING 1)"
    " SELECT 0::bigint, (SELECT count(*) FROM q)";

int store_retention_page_bound(PGconn *pg, struct error *err)
{
    return db_run(pg, "SET LOCAL statement_timeout = 5000", NULL, err);
}

int store_retention_purge_page(PGconn *pg, enum store_retention_arm arm, int64_t catalog_id,
                               int64_t floor, int64_t page, int64_t *data, int64_t *dv,
                               struct error *err)
{
    struct db_params p;
    DB_PARAMS_IDS(&p, catalog_id, floor, page);
    PGresult *r = db_exec(
        pg, arm == STORE_RETENTION_ENDED_FILES ? purge_data_page_sql : purge_dv_page_sql, &p, err);
    if (!r)
        return -1;
    *data = db_i64(r, 0, 0);
    *dv = db_i64(r, 0, 1);
    PQclear(r);
    return 0;
}

/* One row of catalog_id's hog_catalog, selected by sql: NULL on failure,
 * else the result (no row: the catalog is gone). */
static PGresult *catalog_row(PGconn *pg, const char *sql, int64_t catalog_id, struct error *err)
{
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, catalog_id);
    return db_exec(pg, sql, &p, err);
}

int store_retention_state(PGconn *pg, int64_t catalog_id, struct store_retention_state *out,
                          struct error *err)
{
    PGresult *r = catalog_row(pg,
                              "SELECT name, last_snapshot_id, earliest_snapshot_id,"
                              " (SELECT count(*) FROM hog_file_removal WHERE catalog_id = $1"
                              "  AND drained_at IS NULL)"
                              " FROM hog_catalog WHERE catalog_id = $1",
                              catalog_id, err);
    if (!r)
        return -1;
    int found = PQntuples(r) == 1;
    if (found) {
        str_copy(out->catalog, sizeof out->catalog, db_str(r, 0, 0));
        out->head = db_i64(r, 0, 1);
        out->earliest = db_i64(r, 0, 2);
        out->queue_depth = db_i64(r, 0, 3);
    }
    PQclear(r);
    return found;
}

int store_retention_settings(PGconn *pg, int64_t catalog_id, struct store_retention_settings *out,
                             struct error *err)
{
    PGresult *r = catalog_row(pg,
                              "SELECT snapshot_retention_seconds, consumer_floor,"
                              " earliest_snapshot_id, last_snapshot_id"
                              " FROM hog_catalog WHERE catalog_id = $1",
                              catalog_id, err);
    if (!r)
        return -1;
    int found = PQntuples(r) == 1;
    if (found)
        *out = (struct store_retention_settings){
            .has_retention = !db_isnull(r, 0, 0),
            .retention_s = db_isnull(r, 0, 0) ? 0 : db_i64(r, 0, 0),
            .consumer_floor = db_bool(r, 0, 1),
            .earliest = db_i64(r, 0, 2),
            .head = db_i64(r, 0, 3),
        };
    PQclear(r);
    return found;
}

/* The effective retention: the configured one, but never less than twice
 * the catalog's snapshot retention (capped). */
static const char purge_receipts_sql[] =
    "DELETE FROM hog_commit_receipt WHERE catalog_id = $1 AND idempotency_key IN"
    " (SELECT r.idempotency_key FROM hog_commit_receipt r, hog_catalog c"
    "  WHERE r.catalog_id = $1 AND c.catalog_id = $1 AND r.created_at < now() -"
    "  make_interval(secs => GREATEST($2, LEAST(2 * COALESCE(c.snapshot_retention_seconds, 0), "
    "  2592000))) ORDER BY r.created_at LIMIT $3)";
_Static_assert(STORE_RETENTION_RECEIPT_CAP_SECONDS == 2592000, "purge_receipts_sql's cap");

int store_retention_purge_receipts(PGconn *pg, int64_t catalog_id, int64_t retention_s,
                                   int64_t limit, int64_t *purged, struct error *err)
{
    struct db_params p;
    DB_PARAMS_IDS(&p, catalog_id, retention_s, limit);
    return db_run_count(pg, purge_receipts_sql, &p, purged, err);
}

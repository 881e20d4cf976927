#include "server/store/retirement.h"

#include "server/db/db.h"
#include "server/store/files.h"

/* Eligible: dropped at or below the floor. The floor only rises, so a
 * table once eligible stays so. */
#define ELIGIBLE                                                                                   \
    " t.dropped_snapshot IS NOT NULL AND t.dropped_snapshot <= (SELECT earliest_snapshot_id"       \
    "  FROM hog_catalog c WHERE c.catalog_id = t.catalog_id)"

static const char next_sql[] =
    "SELECT t.table_id FROM hog_table t WHERE t.catalog_id = $1 AND" ELIGIBLE
    " ORDER BY t.dropped_snapshot, t.table_id LIMIT 1";

static const char eligible_sql[] =
    "SELECT count(*) FROM hog_table t WHERE t.catalog_id = $1 AND" ELIGIBLE;

/* Deletion vectors first: deleting a data file would cascade to its DVs
 * without queueing their paths. */
static const char dv_sql[] =
    "WITH d AS (SELECT delete_file_id FROM hog_delete_file WHERE catalog_id = $1"
    "   AND table_id = $2 LIMIT $3),"
    " gone AS (DELETE FROM hog_delete_file f USING d WHERE f.catalog_id = $1"
    "   AND f.delete_file_id = d.delete_file_id RETURNING f.path),"
    " q AS (INSERT INTO hog_file_removal (catalog_id, path, file_kind, reason)"
    "   SELECT $1, path, 'delete', 'table_drop_gc' FROM gone RETURNING 1)"
    " SELECT count(*) FROM q";

/* A page in the order of hog_data_file_page, read from the index alone,
 * deleted by primary key with its partition values (no cascade does it:
 * migration 17). The table's DVs went first, so none names these files. */
static const char data_sql[] =
    "WITH df AS (SELECT data_file_id FROM hog_data_file WHERE catalog_id = $1"
    "   AND table_id = $2 ORDER BY begin_snapshot, row_id_start, data_file_id LIMIT $3),"
    " gone AS (DELETE FROM hog_data_file f WHERE f.catalog_id = $1 AND f.table_id = $2"
    "   AND f.data_file_id = ANY(ARRAY(SELECT data_file_id FROM df))"
    "   RETURNING f.data_file_id, f.path)," STORE_GONE_FILES_PARTITION_VALUES
    " q AS (INSERT INTO hog_file_removal (catalog_id, path, file_kind, reason)"
    "   SELECT $1, path, 'data', 'table_drop_gc' FROM gone RETURNING 1)"
    " SELECT count(*) FROM q";

/* Offsets on the retired incarnation would otherwise outlive it: nothing
 * can read it any more. */
static const char purge_sql[] =
    "WITH t AS (DELETE FROM hog_table WHERE catalog_id = $1 AND table_id = $2"
    "   RETURNING table_uuid),"
    " o AS (DELETE FROM hog_consumer_offset WHERE catalog_id = $1"
    "   AND table_uuid IN (SELECT table_uuid FROM t))"
    " SELECT count(*) FROM t";

int store_retirement_next(PGconn *pg, int64_t catalog_id, int64_t *table_id, struct error *err)
{
    struct db_params p;
    DB_PARAMS_IDS(&p, catalog_id);
    return db_scalar_i64(pg, next_sql, &p, table_id, err);
}

int store_retirement_eligible(PGconn *pg, int64_t catalog_id, int64_t *tables, struct error *err)
{
    struct db_params p;
    DB_PARAMS_IDS(&p, catalog_id);
    return db_scalar_i64(pg, eligible_sql, &p, tables, err) < 0 ? -1 : 0;
}

int store_retirement_batch(PGconn *pg, int64_t catalog_id, int64_t table_id, int64_t limit,
                           struct store_retirement_batch *out, struct error *err)
{
    *out = (struct store_retirement_batch){0};
    struct db_params p;
    DB_PARAMS_IDS(&p, catalog_id, table_id, limit);
    if (db_scalar_i64(pg, dv_sql, &p, &out->delete_files, err) < 0)
        return -1;
    int64_t left = limit - out->delete_files;
    if (left == 0)
        return 0;
    DB_PARAMS_IDS(&p, catalog_id, table_id, left);
    if (db_scalar_i64(pg, data_sql, &p, &out->data_files, err) < 0)
        return -1;
    if (out->data_files == left)
        return 0;
    DB_PARAMS_IDS(&p, catalog_id, table_id);
    int64_t purged = 0;
    if (db_scalar_i64(pg, purge_sql, &p, &purged, err) < 0)
        return -1;
    out->purged = purged == 1;
    return 0;
}

#include "server/store/retirement.h"

#include <stdint.h>

#include "server/db/db.h"
#include "server/store/files.h"

/* Eligible: dropped at or below the floor. The floor only rises, so a
 * table once eligible stays so, and a marked table is one. The floor is
 * read once ($1 is the catalog), so that hog_table_dropped bounds the
 * walk to the dropped tables not yet marked. */
#define ELIGIBLE_UNMARKED                                                                          \
    " t.catalog_id = $1 AND t.dropped_snapshot IS NOT NULL AND t.retired_at IS NULL"               \
    " AND t.dropped_snapshot <= (SELECT earliest_snapshot_id FROM hog_catalog"                     \
    "  WHERE catalog_id = $1)"

static const char mark_sql[] =
    "UPDATE hog_table t SET retired_at = clock_timestamp() WHERE" ELIGIBLE_UNMARKED;

static const char eligible_sql[] =
    "SELECT (SELECT count(*) FROM hog_table WHERE catalog_id = $1 AND retired_at IS NOT NULL)"
    " + (SELECT count(*) FROM hog_table t WHERE" ELIGIBLE_UNMARKED ")";

static const char take_sql[] =
    "SELECT table_id FROM hog_table WHERE catalog_id = $1 AND retired_at IS NOT NULL"
    " AND table_id <> ALL($2::bigint[])"
    " ORDER BY retired_at, table_id LIMIT 1 FOR NO KEY UPDATE SKIP LOCKED";

static const char page_dvs_sql[] =
    "SELECT delete_file_id, path FROM hog_delete_file WHERE catalog_id = $1 AND table_id = $2"
    " AND delete_file_id > $4 ORDER BY delete_file_id LIMIT $3 FOR UPDATE SKIP LOCKED";

static const char page_data_sql[] =
    "SELECT data_file_id, path, begin_snapshot, row_id_start FROM hog_data_file"
    " WHERE catalog_id = $1 AND table_id = $2"
    " AND (begin_snapshot, row_id_start, data_file_id) > ($4, $5, $6)"
    " ORDER BY begin_snapshot, row_id_start, data_file_id LIMIT $3 FOR UPDATE SKIP LOCKED";

/* By primary key, with the partition values (no cascade: migration 17). */
static const char delete_sql[] =
    "WITH gone AS (DELETE FROM hog_data_file f WHERE f.catalog_id = $1 AND f.table_id = $2"
    "   AND f.data_file_id = ANY($4::bigint[]) RETURNING "
    "f.data_file_id)," STORE_GONE_FILES_PARTITION_VALUES
    " dv AS (DELETE FROM hog_delete_file WHERE catalog_id = $1 AND table_id = $2"
    "   AND delete_file_id = ANY($3::bigint[]))"
    " SELECT count(*) FROM gone";

/* Offsets on the retired incarnation would otherwise outlive it: nothing
 * can read it any more. */
static const char purge_sql[] =
    "WITH t AS (DELETE FROM hog_table h WHERE h.catalog_id = $1 AND h.table_id = $2"
    "   AND NOT EXISTS (SELECT 1 FROM hog_data_file WHERE catalog_id = $1 AND table_id = $2)"
    "   AND NOT EXISTS (SELECT 1 FROM hog_delete_file WHERE catalog_id = $1 AND table_id = $2)"
    "   RETURNING table_uuid),"
    " o AS (DELETE FROM hog_consumer_offset WHERE catalog_id = $1"
    "   AND table_uuid IN (SELECT table_uuid FROM t))"
    " SELECT count(*) FROM t";

int store_retirement_mark(PGconn *pg, int64_t catalog_id, int64_t *marked, struct error *err)
{
    struct db_params p;
    DB_PARAMS_IDS(&p, catalog_id);
    return db_run_count(pg, mark_sql, &p, marked, err);
}

int store_retirement_eligible(PGconn *pg, int64_t catalog_id, int64_t *tables, struct error *err)
{
    struct db_params p;
    DB_PARAMS_IDS(&p, catalog_id);
    return db_scalar_i64(pg, eligible_sql, &p, tables, err) < 0 ? -1 : 0;
}

int store_retirement_take(PGconn *pg, int64_t catalog_id, const char *skip_ids, int64_t *table_id,
                          struct error *err)
{
    /* The page's transaction stays open while its objects are deleted: at
     * the largest batch, 100,000 of them, a hundred DeleteObjects requests,
     * past the pool's 30 s idle limit (db/pool.c). */
    if (db_run(pg, "SET LOCAL idle_in_transaction_session_timeout = '15min'", NULL, err) != 0)
        return -1;
    struct db_params p;
    DB_PARAMS_IDS(&p, catalog_id);
    db_param_str(&p, skip_ids);
    return db_scalar_i64(pg, take_sql, &p, table_id, err);
}

void store_retired_cursor_start(struct store_retired_cursor *c)
{
    *c = (struct store_retired_cursor){INT64_MIN, INT64_MIN, INT64_MIN, INT64_MIN};
}

int store_retirement_page(PGconn *pg, int64_t catalog_id, int64_t table_id, int64_t limit,
                          const struct store_retired_cursor *after, struct store_retired_page *out,
                          struct error *err)
{
    *out = (struct store_retired_page){0};
    struct db_params p;
    DB_PARAMS_IDS(&p, catalog_id, table_id, limit, after->dv_after);
    if (!(out->dvs = db_exec(pg, page_dvs_sql, &p, err)))
        return -1;
    int64_t left = limit - PQntuples(out->dvs);
    if (left == 0)
        return 0;
    DB_PARAMS_IDS(&p, catalog_id, table_id, left, after->snap, after->row, after->id);
    if (!(out->data = db_exec(pg, page_data_sql, &p, err))) {
        store_retired_page_free(out);
        return -1;
    }
    return 0;
}

void store_retired_page_advance(const struct store_retired_page *p,
                                struct store_retired_cursor *cursor)
{
    int dvs = p->dvs ? PQntuples(p->dvs) : 0, data = p->data ? PQntuples(p->data) : 0;
    if (dvs > 0)
        cursor->dv_after = db_i64(p->dvs, dvs - 1, 0);
    if (data > 0) {
        cursor->id = db_i64(p->data, data - 1, 0);
        cursor->snap = db_i64(p->data, data - 1, 2);
        cursor->row = db_i64(p->data, data - 1, 3);
    }
}

static int dv_rows(const struct store_retired_page *p)
{
    return p->dvs ? PQntuples(p->dvs) : 0;
}

int store_retired_page_count(const struct store_retired_page *p)
{
    return dv_rows(p) + (p->data ? PQntuples(p->data) : 0);
}

enum store_retired_kind store_retired_page_kind(const struct store_retired_page *p, int i)
{
    return i < dv_rows(p) ? STORE_RETIRED_DELETE_FILE : STORE_RETIRED_DATA_FILE;
}

int64_t store_retired_page_id(const struct store_retired_page *p, int i)
{
    int dvs = dv_rows(p);
    return i < dvs ? db_i64(p->dvs, i, 0) : db_i64(p->data, i - dvs, 0);
}

const char *store_retired_page_path(const struct store_retired_page *p, int i)
{
    int dvs = dv_rows(p);
    return i < dvs ? db_str(p->dvs, i, 1) : db_str(p->data, i - dvs, 1);
}

void store_retired_page_free(struct store_retired_page *p)
{
    PQclear(p->dvs);
    PQclear(p->data);
    *p = (struct store_retired_page){0};
}

int store_retirement_delete(PGconn *pg, int64_t catalog_id, int64_t table_id, const char *dv_ids,
                            const char *data_ids, struct error *err)
{
    struct db_params p;
    DB_PARAMS_IDS(&p, catalog_id, table_id);
    db_param_str(&p, dv_ids);
    db_param_str(&p, data_ids);
    return db_run(pg, delete_sql, &p, err);
}

int store_retirement_purge(PGconn *pg, int64_t catalog_id, int64_t table_id, bool *purged,
                           struct error *err)
{
    struct db_params p;
    DB_PARAMS_IDS(&p, catalog_id, table_id);
    int64_t n = 0;
    if (db_scalar_i64(pg, purge_sql, &p, &n, err) < 0)
        return -1;
    *purged = n == 1;
    return 0;
}

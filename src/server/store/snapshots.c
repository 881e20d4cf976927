/* hog_snapshot and hog_snapshot_change reads (see snapshots.h). */
#include "server/store/snapshots.h"

#include "server/db/db.h"
#include "server/store/page_budget.h"
#include "util/buf.h"

/* A snapshot's weight b.w against the budget $4, over the page window w. */
#define SNAPSHOT_FITS STORE_PAGE_FITS("b.w", "w", "$4")

int store_snapshots_page(struct db_conn *db, int64_t catalog_id, int64_t from, bool descending,
                         int64_t limit, int64_t budget_bytes, struct store_snapshot_rows *out,
                         struct error *err)
{
    struct db_params p;
    DB_PARAMS_IDS(&p, catalog_id, from, limit + 1, budget_bytes);
    /* The page and its change rows in one statement, ordered so each
     * snapshot's changes follow it. A snapshot's weight is counted once
     * (OFFSET 0 keeps the lateral from being inlined into both of its
     * uses); the window sums the weights in page order as the index walk
     * goes, so it stops at the LIMIT. */
    const char *dir = descending ? "DESC" : "ASC";
    struct buf sql = BUF_INIT;
    int bad =
        buf_printf(&sql,
                   "WITH page AS (SELECT s.snapshot_id, s.snapshot_time, s.schema_version,"
                   " s.author, s.commit_message, " SNAPSHOT_FITS " AS fits FROM hog_snapshot s"
                   " CROSS JOIN LATERAL (SELECT coalesce(octet_length(s.author), 0)"
                   " + coalesce(octet_length(s.commit_message), 0) + 128 * (SELECT count(*)"
                   " FROM hog_snapshot_change c WHERE c.catalog_id = $1"
                   " AND c.snapshot_id = s.snapshot_id) AS w OFFSET 0) b"
                   " WHERE s.catalog_id = $1 AND s.snapshot_id %s $2"
                   " WINDOW w AS (ORDER BY s.snapshot_id %s ROWS UNBOUNDED PRECEDING)"
                   " ORDER BY s.snapshot_id %s LIMIT $3)",
                   descending ? "<" : ">", dir, dir);
    /* The author and message come with a snapshot's first row only: a
     * commit of many tables has a change row per table, and a copy of a
     * long message in each was the reader's memory times the tables. Each
     * change row also carries its object's name as of the snapshot
     * (a dropped table: its last name) and, for a data change, what that
     * snapshot added to the table: index probes per row, never a scan. */
    bad |= buf_printf(
        &sql,
        " SELECT p.snapshot_id, (extract(epoch FROM p.snapshot_time) * 1000000)::bigint,"
        " p.schema_version, CASE WHEN row_number() OVER w = 1 AND p.fits THEN p.author END,"
        " CASE WHEN row_number() OVER w = 1 AND p.fits THEN p.commit_message END, c.kind,"
        " c.object_id,"
        " CASE WHEN c.kind LIKE 'table%%' THEN (SELECT v.name FROM hog_table_version v"
        "  WHERE v.catalog_id = $1 AND v.table_id = c.object_id"
        "  AND v.begin_snapshot <= c.snapshot_id ORDER BY v.begin_snapshot DESC LIMIT 1)"
        " WHEN c.kind LIKE 'namespace%%' THEN (SELECT n.name FROM hog_namespace n"
        "  WHERE n.catalog_id = $1 AND n.namespace_id = c.object_id)"
        " WHEN c.kind LIKE 'view%%' THEN (SELECT w.name FROM hog_view w"
        "  WHERE w.catalog_id = $1 AND w.view_id = c.object_id) END,"
        " a.files, a.rows, d.files, NOT p.fits"
        " FROM page p LEFT JOIN hog_snapshot_change c ON c.catalog_id = $1"
        " AND c.snapshot_id = p.snapshot_id AND p.fits"
        " LEFT JOIN LATERAL (SELECT count(*) AS files, coalesce(sum(f.record_count), 0) AS rows"
        "  FROM hog_data_file f WHERE f.catalog_id = $1 AND f.table_id = c.object_id"
        "  AND f.begin_snapshot = c.snapshot_id) a ON c.kind = 'table_inserted_into'"
        " LEFT JOIN LATERAL (SELECT count(*) AS files FROM hog_delete_file x"
        "  WHERE x.catalog_id = $1 AND x.table_id = c.object_id"
        "  AND x.begin_snapshot = c.snapshot_id) d ON c.kind = 'table_deleted_from'"
        " WINDOW w AS (PARTITION BY p.snapshot_id ORDER BY c.kind, c.object_id)"
        " ORDER BY p.snapshot_id %s, c.kind, c.object_id",
        dir);
    out->r = db_exec_built(db->pg, &sql, bad, &p, err);
    return out->r ? 0 : -1;
}

int store_snapshot_rows_count(const struct store_snapshot_rows *rows)
{
    return PQntuples(rows->r);
}

void store_snapshot_row(const struct store_snapshot_rows *rows, int i,
                        struct store_snapshot_row *out)
{
    const PGresult *r = rows->r;
    out->snapshot_id = db_i64(r, i, 0);
    out->time_us = db_i64(r, i, 1);
    out->schema_version = db_i64(r, i, 2);
    out->author = db_str(r, i, 3);
    out->message = db_str(r, i, 4);
    out->kind = db_str(r, i, 5);
    out->object_id = out->kind ? db_i64(r, i, 6) : 0;
    out->name = db_str(r, i, 7);
    out->files_added = db_isnull(r, i, 8) ? -1 : db_i64(r, i, 8);
    out->rows_added = db_isnull(r, i, 9) ? -1 : db_i64(r, i, 9);
    out->delete_files_added = db_isnull(r, i, 10) ? -1 : db_i64(r, i, 10);
    out->past_budget = db_bool(r, i, 11);
}

void store_snapshot_rows_free(struct store_snapshot_rows *rows)
{
    PQclear(rows->r);
    rows->r = NULL;
}

int store_snapshots_find_truncate(struct db_conn *db, int64_t catalog_id, int64_t table_id,
                                  int64_t from, int64_t to, int64_t *snapshot_id, struct error *err)
{
    struct db_params p;
    DB_PARAMS_IDS(&p, catalog_id, table_id, from, to);
    PGresult *r = db_exec(db->pg,
                          "SELECT min(a.snapshot_id) FROM hog_snapshot_change a"
                          " WHERE a.catalog_id = $1 AND a.object_id = $2"
                          " AND a.kind = 'table_altered' AND a.snapshot_id > $3"
                          " AND a.snapshot_id <= $4 AND EXISTS (SELECT 1 FROM"
                          "  hog_snapshot_change b WHERE b.catalog_id = $1"
                          "  AND b.object_id = $2 AND b.kind = 'table_deleted_from'"
                          "  AND b.snapshot_id = a.snapshot_id)",
                          &p, err);
    if (!r)
        return -1;
    int found = !db_isnull(r, 0, 0);
    if (found)
        *snapshot_id = db_i64(r, 0, 0);
    PQclear(r);
    return found;
}

int store_snapshot_at(struct db_conn *db, int64_t catalog_id, int64_t at_us, int64_t floor,
                      int64_t *snapshot, struct error *err)
{
    struct db_params p;
    DB_PARAMS_IDS(&p, catalog_id, at_us, floor);
    /* One probe of hog_snapshot_time (migration 9): stamps rise with ids. */
    return db_scalar_i64(db->pg,
                         "SELECT max(snapshot_id) FROM (SELECT snapshot_id FROM hog_snapshot"
                         " WHERE catalog_id = $1 AND snapshot_time <= 'epoch'::timestamptz"
                         " + $2::bigint * interval '1 microsecond'"
                         " ORDER BY snapshot_time DESC, snapshot_id DESC LIMIT 1) latest"
                         " WHERE snapshot_id >= $3",
                         &p, snapshot, err);
}

int store_snapshot_catalog_created(struct db_conn *db, int64_t catalog_id, int64_t *created_us,
                                   struct error *err)
{
    struct db_params p;
    DB_PARAMS_IDS(&p, catalog_id);
    return db_scalar_i64(db->pg,
                         "SELECT (extract(epoch FROM coalesce((SELECT s.snapshot_time FROM"
                         " hog_snapshot s WHERE s.catalog_id = $1 AND s.snapshot_id = 0),"
                         " c.created_at)) * 1000000)::bigint FROM hog_catalog c"
                         " WHERE c.catalog_id = $1",
                         &p, created_us, err);
}

int store_snapshot_allocate(struct db_conn *db, int64_t catalog_id, bool ddl, int64_t nfile_ids,
                            struct store_snapshot_allocation *out, struct error *err)
{
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, catalog_id);
    db_param_bool(&p, ddl);
    db_param_i64(&p, nfile_ids);
    PGresult *r = db_exec(db->pg,
                          "UPDATE hog_catalog SET last_snapshot_id = last_snapshot_id + 1,"
                          " schema_version = schema_version + $2::boolean::int,"
                          " next_file_id = next_file_id + $3 WHERE catalog_id = $1"
                          " RETURNING last_snapshot_id, schema_version, next_file_id - $3",
                          &p, err);
    if (!r)
        return -1;
    out->snapshot_id = db_i64(r, 0, 0);
    out->schema_version = db_i64(r, 0, 1);
    out->first_file_id = db_i64(r, 0, 2);
    PQclear(r);
    DB_PARAMS_IDS(&p, catalog_id, out->snapshot_id, out->schema_version);
    return db_run(
        db->pg,
        "INSERT INTO hog_snapshot (catalog_id, snapshot_id, snapshot_time, schema_version)"
        " VALUES ($1, $2, clock_timestamp(), $3)",
        &p, err);
}

int store_snapshot_change_add(struct db_conn *db, int64_t catalog_id, int64_t snapshot_id,
                              const char *kind, int64_t object_id, struct error *err)
{
    struct db_params p;
    DB_PARAMS_IDS(&p, catalog_id, snapshot_id);
    db_param_str(&p, kind);
    db_param_i64(&p, object_id);
    return db_run(db->pg,
                  "INSERT INTO hog_snapshot_change (catalog_id, snapshot_id, kind, object_id)"
                  " VALUES ($1, $2, $3, $4)",
                  &p, err);
}

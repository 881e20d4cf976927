/* The store of hydration state (hydration.h). */
#include "server/store/hydration.h"

#include <stdlib.h>
#include <string.h>

#include "server/db/db.h"
#include "server/db/pgarray.h"
#include "server/store/column_stats.h"
#include "util/strutil.h"

/* How long a claimed file's transaction may sit idle during its fetch. */
#define HYDRATE_CLAIM_TIMEOUT "15min"

int store_hydration_claim_timeout(struct db_conn *db, struct error *err)
{
    return db_run(db->pg,
                  "SET LOCAL idle_in_transaction_session_timeout = '" HYDRATE_CLAIM_TIMEOUT "'",
                  NULL, err);
}

int store_hydration_claim(struct db_conn *db, int64_t catalog_id, int64_t after, size_t max,
                          struct arena *a, struct store_pending_file *files, size_t *n,
                          struct error *err)
{
    struct db_params p;
    DB_PARAMS_IDS(&p, catalog_id, after, (int64_t)max);
    /* NO KEY UPDATE: hydrators exclude each other, while a commit adding a
     * deletion vector for the file (whose foreign key check takes KEY
     * SHARE) does not wait for the fetch. */
    PGresult *r = db_exec(db->pg,
                          "SELECT d.data_file_id, d.table_id, d.begin_snapshot, d.record_count,"
                          " d.file_size_bytes, d.footer_size, d.split_offsets IS NOT NULL, d.path"
                          " FROM hog_data_file d JOIN hog_table t"
                          "  ON t.catalog_id = d.catalog_id AND t.table_id = d.table_id"
                          " WHERE d.catalog_id = $1 AND d.stats_state = 'pending'"
                          " AND d.end_snapshot IS NULL AND t.dropped_snapshot IS NULL"
                          " AND d.data_file_id > $2 ORDER BY d.data_file_id LIMIT $3"
                          " FOR NO KEY UPDATE OF d SKIP LOCKED",
                          &p, err);
    if (!r)
        return -1;
    int rows = PQntuples(r);
    int rc = 0;
    for (int i = 0; rc == 0 && i < rows; i++) {
        struct store_pending_file *f = &files[i];
        f->id = db_i64(r, i, 0);
        f->table_id = db_i64(r, i, 1);
        f->begin_snapshot = db_i64(r, i, 2);
        f->record_count = db_i64(r, i, 3);
        f->file_size = db_i64(r, i, 4);
        f->has_footer_size = db_i64_opt(r, i, 5, &f->footer_size);
        f->has_splits = db_bool(r, i, 6);
        f->path = arena_strdup(a, db_str(r, i, 7));
        if (!f->path)
            rc = error_nomem(err);
    }
    PQclear(r);
    *n = rc == 0 ? (size_t)rows : 0;
    return rc;
}

/* The statistics as bytea's hex input text (into text; n 0: none, and
 * text stays empty). 0 or -1. */
static int stats_text(const struct pq_col_stats *stats, size_t n, struct buf *text,
                      struct error *err)
{
    if (n == 0)
        return 0;
    struct store_column_stats *cols = calloc(n, sizeof *cols);
    if (!cols)
        return error_nomem(err);
    for (size_t i = 0; i < n; i++)
        cols[i] = (struct store_column_stats){
            .field_id = stats[i].field_id,
            .value_count = stats[i].value_count,
            .null_count = stats[i].null_count,
            .has_size_bytes = true,
            .size_bytes = stats[i].size_bytes,
            .lower = stats[i].lower,
            .lower_len = stats[i].lower_len,
            .upper = stats[i].upper,
            .upper_len = stats[i].upper_len,
        };
    struct buf value = BUF_INIT;
    int rc = store_column_stats_encode(cols, n, &value, err);
    free(cols);
    if (rc == 0 && (buf_reserve(text, value.len * 2 + 3) != 0 || buf_puts(text, "\\x") != 0))
        rc = error_nomem(err);
    if (rc == 0) {
        str_hex_encode(value.data, value.len, text->data + text->len);
        text->len += value.len * 2;
    }
    buf_free(&value);
    return rc;
}

int store_hydration_settle(struct db_conn *db, int64_t catalog_id,
                           const struct store_hydration_outcome *o, struct error *err)
{
    struct pg_array array;
    pg_array_init(&array);
    pg_array_i64_list(&array, o->splits, o->nsplits);
    const char *splits_text = pg_array_text(&array);
    struct buf stats = BUF_INIT;
    int rc = splits_text ? 0 : error_nomem(err);
    if (rc == 0 && o->provided)
        rc = stats_text(o->stats, o->nstats, &stats, err);
    if (rc == 0) {
        /* One UPDATE of the row: the state is in partial indexes, so each
         * update of it writes the row's every index entry again. */
        struct db_params p;
        DB_PARAMS_IDS(&p, catalog_id, o->file_id);
        db_param_str(&p, o->provided ? "provided" : "failed");
        db_param_bool(&p, o->provided && o->missing_field_ids);
        db_param_str(&p, splits_text);
        if (stats.data)
            db_param_str(&p, stats.data);
        else
            db_param_null(&p);
        rc = db_run(db->pg,
                    "UPDATE hog_data_file SET stats_state = $3, missing_field_ids = $4,"
                    " split_offsets = coalesce(split_offsets, ($5::text[])[1]::bigint[]),"
                    " column_stats = coalesce($6::bytea, column_stats)"
                    " WHERE catalog_id = $1 AND data_file_id = $2",
                    &p, err);
    }
    buf_free(&stats);
    pg_array_free(&array);
    return rc;
}

int store_hydration_backlog(PGconn *pg, int64_t catalog_id, int64_t *pending, int64_t *failed,
                            struct error *err)
{
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, catalog_id);
    PGresult *r = db_exec(pg,
                          "SELECT count(*) FILTER (WHERE d.stats_state = 'pending'),"
                          " count(*) FILTER (WHERE d.stats_state = 'failed')"
                          " FROM hog_data_file d JOIN hog_table t"
                          "  ON t.catalog_id = d.catalog_id AND t.table_id = d.table_id"
                          " WHERE d.catalog_id = $1 AND d.stats_state <> 'provided'"
                          " AND d.end_snapshot IS NULL AND t.dropped_snapshot IS NULL",
                          &p, err);
    if (!r)
        return -1;
    *pending = db_i64(r, 0, 0);
    *failed = db_i64(r, 0, 1);
    PQclear(r);
    return 0;
}

int store_hydration_requeue_failed(struct db_conn *db, int64_t catalog_id, int64_t table_id,
                                   int64_t *requeued, struct error *err)
{
    struct db_params p;
    DB_PARAMS_IDS(&p, catalog_id, table_id);
    PGresult *r = db_exec(db->pg,
                          "WITH u AS (UPDATE hog_data_file SET stats_state = 'pending'"
                          " WHERE catalog_id = $1 AND stats_state = 'failed'"
                          " AND end_snapshot IS NULL AND ($2 = 0 OR table_id = $2) RETURNING 1)"
                          " SELECT count(*) FROM u",
                          &p, err);
    if (!r)
        return -1;
    *requeued = db_i64(r, 0, 0);
    PQclear(r);
    return 0;
}

int store_file_stats_set(struct db_conn *db, int64_t catalog_id, int64_t data_file_id,
                         const struct pq_col_stats *stats, size_t n, struct error *err)
{
    if (n == 0)
        return 0;
    struct buf text = BUF_INIT;
    int rc = stats_text(stats, n, &text, err);
    if (rc == 0) {
        struct db_params p;
        DB_PARAMS_IDS(&p, catalog_id, data_file_id);
        db_param_str(&p, text.data);
        rc = db_run(db->pg,
                    "UPDATE hog_data_file SET column_stats = $3::bytea"
                    " WHERE catalog_id = $1 AND data_file_id = $2",
                    &p, err);
    }
    buf_free(&text);
    return rc;
}

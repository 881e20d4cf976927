/* Compaction's staging ticket and commit (compaction_commit.h). */
#include "server/maintenance/compaction_commit.h"

#include <string.h>

#include "server/db/db.h"
#include "server/db/pgarray.h"
#include "server/maintenance/compaction.h"
#include "server/maintenance/file_stats.h"
#include "server/store/hydration.h"

int cpt_stage(struct srv_ctx *ctx, const struct catalog_row *cat, const struct cpt_group *g,
              struct arena *a, const char **path, int64_t *ticket, struct api_error *err)
{
    size_t dl = strlen(cat->data_path);
    bool slash = dl && cat->data_path[dl - 1] == '/';
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, cat->id);
    db_param_str(&p, cat->data_path);
    db_param_str(&p, slash ? "" : "/");
    db_param_str(&p, g->ns_name);
    db_param_str(&p, g->table_name);
    /* Where appends put the table's files (client/append.c), named apart
     * by the prefix. */
    PGresult *r = ctx_query(ctx,
                            "INSERT INTO hog_file_removal (catalog_id, path, file_kind, reason)"
                            " VALUES ($1, $2 || $3 || 'data/' || $4 || '/' || $5 || '/compacted-'"
                            " || gen_random_uuid()::text || '.parquet', 'data',"
                            " 'compaction_staging') RETURNING removal_id, path",
                            &p, "staging ticket", err);
    if (!r)
        return -1;
    *ticket = db_i64(r, 0, 0);
    *path = arena_strdup(a, db_str(r, 0, 1));
    PQclear(r);
    return *path ? 0 : api_nomem(err);
}

/* The inputs as arrays: ids, paths, record counts. */
struct input_arrays {
    struct pg_array ids, paths, recs;
    const char *ids_text, *paths_text, *recs_text;
};

static int input_arrays(const struct cpt_group *g, struct input_arrays *x, struct api_error *err)
{
    pg_array_init(&x->ids);
    pg_array_init(&x->paths);
    pg_array_init(&x->recs);
    for (size_t i = 0; i < g->ninputs; i++) {
        pg_array_i64(&x->ids, g->inputs[i].id);
        pg_array_str(&x->paths, g->inputs[i].path);
        pg_array_i64(&x->recs, g->inputs[i].record_count);
    }
    x->ids_text = pg_array_text(&x->ids);
    x->paths_text = pg_array_text(&x->paths);
    x->recs_text = pg_array_text(&x->recs);
    return x->ids_text && x->paths_text && x->recs_text ? 0 : api_nomem(err);
}

static void input_arrays_free(struct input_arrays *x)
{
    pg_array_free(&x->ids);
    pg_array_free(&x->paths);
    pg_array_free(&x->recs);
}

/* Everything the commit re-checks, in one statement: inputs live with the
 * planned identity, inputs with a live DV, DDL since schema_snapshot, the
 * ticket untouched (locked), the claim still ours. */
static int verify(struct srv_ctx *ctx, const struct catalog_row *cat, const char *claimant,
                  const struct cpt_group *g, int64_t schema_snapshot, int64_t ticket,
                  const struct input_arrays *x, enum cpt_commit_outcome *o, struct api_error *err)
{
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, cat->id);
    db_param_i64(&p, g->table_id);
    db_param_str(&p, x->ids_text);
    db_param_str(&p, x->paths_text);
    db_param_str(&p, x->recs_text);
    db_param_i64(&p, schema_snapshot);
    db_param_i64(&p, ticket);
    db_param_str(&p, g->key);
    db_param_str(&p, claimant);
    PGresult *r =
        ctx_query(ctx,
                  "SELECT (SELECT count(*) FROM unnest($3::bigint[], $4::text[], $5::bigint[])"
                  "   AS u(id, path, recs) JOIN hog_data_file d ON d.catalog_id = $1"
                  "   AND d.table_id = $2 AND d.data_file_id = u.id AND d.end_snapshot IS NULL"
                  "   AND d.path = u.path AND d.record_count = u.recs),"
                  " (SELECT count(*) FROM hog_delete_file x WHERE x.catalog_id = $1"
                  "   AND x.data_file_id = ANY ($3::bigint[]) AND x.end_snapshot IS NULL),"
                  " EXISTS (SELECT 1 FROM hog_snapshot_change c WHERE c.catalog_id = $1"
                  "   AND c.object_id = $2 AND c.kind IN ('table_altered', 'table_dropped')"
                  "   AND c.snapshot_id > $6),"
                  " EXISTS (SELECT 1 FROM hog_file_removal f WHERE f.removal_id = $7"
                  "   AND f.catalog_id = $1 AND f.drained_at IS NULL AND f.claimed_at IS NULL),"
                  " EXISTS (SELECT 1 FROM hog_compaction_claim k WHERE k.catalog_id = $1"
                  "   AND k.table_id = $2 AND k.group_key = $8 AND k.claimant = $9)",
                  &p, "compaction verify", err);
    if (!r)
        return -1;
    int64_t live = db_i64(r, 0, 0), dvs = db_i64(r, 0, 1);
    bool ddl = db_bool(r, 0, 2), ticket_ok = db_bool(r, 0, 3), claim_ok = db_bool(r, 0, 4);
    PQclear(r);
    if (dvs > 0)
        *o = CPT_DV_SUPERSEDED;
    else if (live != (int64_t)g->ninputs || ddl || !ticket_ok || !claim_ok)
        *o = CPT_CONFLICT;
    else
        *o = CPT_COMMITTED;
    return 0;
}

/* The output's file row, partition values (the inputs', shared by
 * construction) and statistics; the inputs ended. */
static int write_rows(struct srv_ctx *ctx, const struct catalog_row *cat, const struct cpt_group *g,
                      const struct input_arrays *x, int64_t snapshot, int64_t file_id,
                      const struct cpt_output *out, struct api_error *err)
{
    struct pg_array splits;
    pg_array_init(&splits);
    pg_array_i64_list(&splits, out->splits, out->nsplits);
    const char *splits_text = out->nsplits ? pg_array_text(&splits) : NULL;
    if (out->nsplits && !splits_text) {
        pg_array_free(&splits);
        return api_nomem(err);
    }
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, cat->id);
    db_param_i64(&p, g->table_id);
    db_param_str(&p, x->ids_text);
    db_param_i64(&p, snapshot);
    PGresult *r = ctx_query(ctx,
                            "UPDATE hog_data_file SET end_snapshot = $4 WHERE catalog_id = $1"
                            " AND table_id = $2 AND data_file_id = ANY ($3::bigint[])"
                            " AND end_snapshot IS NULL",
                            &p, "end compaction inputs", err);
    int rc = r ? 0 : -1;
    if (r && strtoll(PQcmdTuples(r), NULL, 10) != (long long)g->ninputs)
        rc = api_fail(err, 500, "internal_error", "compaction: inputs changed under the lock");
    PQclear(r);
    if (rc == 0) {
        db_params_init(&p);
        db_param_i64(&p, cat->id);
        db_param_i64(&p, file_id);
        db_param_i64(&p, g->table_id);
        db_param_i64(&p, snapshot);
        db_param_str(&p, out->path);
        db_param_i64(&p, out->records);
        db_param_i64(&p, out->file_size);
        db_param_i64(&p, out->footer_size);
        db_param_i64(&p, out->min_row_id);
        if (g->spec_id >= 0)
            db_param_i64(&p, g->spec_id);
        else
            db_param_null(&p);
        db_param_str(&p, splits_text);
        rc = ctx_exec(ctx,
                      "INSERT INTO hog_data_file (catalog_id, data_file_id, table_id,"
                      " begin_snapshot, path, record_count, file_size_bytes, footer_size,"
                      " row_id_start, stats_state, spec_id, explicit_row_ids, split_offsets)"
                      " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'provided', $10, true,"
                      " ($11::text[])[1]::bigint[])",
                      &p, "compaction output", err);
    }
    pg_array_free(&splits);
    if (rc == 0) {
        db_params_init(&p);
        db_param_i64(&p, cat->id);
        db_param_i64(&p, file_id);
        db_param_i64(&p, g->inputs[0].id);
        rc = ctx_exec(ctx,
                      "INSERT INTO hog_file_partition_value (catalog_id, data_file_id,"
                      " key_index, value) SELECT $1, $2, key_index, value"
                      " FROM hog_file_partition_value WHERE catalog_id = $1 AND data_file_id = $3",
                      &p, "compaction partition values", err);
    }
    struct error e;
    if (rc == 0 &&
        store_file_stats_insert(ctx->db, cat->id, file_id, out->stats, out->nstats, &e) != 0)
        rc = api_from_error(err, &e, "file statistics");
    return rc;
}

/* The ticket settled 'registered' and the claim kept a short while. */
static int settle(struct srv_ctx *ctx, const struct catalog_row *cat, const char *claimant,
                  const struct cpt_group *g, int64_t ticket, struct api_error *err)
{
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, cat->id);
    db_param_i64(&p, ticket);
    if (ctx_exec(ctx,
                 "UPDATE hog_file_removal SET drained_at = now(), drained_outcome = 'registered'"
                 " WHERE catalog_id = $1 AND removal_id = $2",
                 &p, "settle staging ticket", err) != 0)
        return -1;
    db_params_init(&p);
    db_param_i64(&p, cat->id);
    db_param_i64(&p, g->table_id);
    db_param_str(&p, g->key);
    db_param_str(&p, claimant);
    db_param_i64(&p, COMPACTION_COMMITTED_TTL_S);
    return ctx_exec(ctx,
                    "UPDATE hog_compaction_claim SET expires_at = now() + make_interval(secs => $5)"
                    " WHERE catalog_id = $1 AND table_id = $2 AND group_key = $3"
                    " AND claimant = $4",
                    &p, "compaction claim committed", err);
}

int cpt_commit(struct srv_ctx *ctx, const struct catalog_row *cat, const char *claimant,
               const struct cpt_group *g, int64_t schema_snapshot, int64_t ticket,
               const struct cpt_output *out, enum cpt_commit_outcome *o, int64_t *snapshot_id,
               struct api_error *err)
{
    struct input_arrays x;
    int rc = input_arrays(g, &x, err);
    struct ddl_txn t;
    if (rc == 0)
        rc = ddl_begin_ctx(ctx, cat, ddl_lock_budget_after(ctx->srv, 0), &t, err);
    if (rc == 0)
        rc = verify(ctx, cat, claimant, g, schema_snapshot, ticket, &x, o, err);
    int64_t file_id = 0;
    if (rc == 0 && *o == CPT_COMMITTED) {
        rc = ddl_allocate_data(&t, 1, &file_id, err);
        if (rc == 0)
            rc = ddl_change(&t, "table_compacted", g->table_id, err);
        if (rc == 0)
            rc = write_rows(ctx, cat, g, &x, t.snapshot_id, file_id, out, err);
        if (rc == 0)
            rc = settle(ctx, cat, claimant, g, ticket, err);
        if (rc == 0)
            rc = ddl_commit(&t, err);
        if (rc == 0)
            *snapshot_id = t.snapshot_id;
    }
    if ((rc != 0 || *o != CPT_COMMITTED) && ctx->db &&
        PQtransactionStatus(ctx->db->pg) != PQTRANS_IDLE) {
        struct error ignored;
        db_run(ctx->db->pg, "ROLLBACK", NULL, &ignored);
    }
    input_arrays_free(&x);
    return rc;
}

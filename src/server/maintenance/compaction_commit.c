/* Compaction's staging ticket and commit (compaction_commit.h). */
#include "server/maintenance/compaction_commit.h"

#include "server/db/db.h"
#include "server/maintenance/compaction.h"
#include "server/store/compaction.h"
#include "server/store/hydration.h"

int cpt_stage(struct srv_ctx *ctx, const struct catalog_row *cat, const struct cpt_group *g,
              struct arena *a, const char **path, int64_t *ticket, struct error *err)
{
    if (store_compaction_stage(ctx->db, cat->id, cat->data_path, g->ns_name, g->table_name, a, path,
                               ticket, err) != 0)
        return error_prefix(err, "staging ticket");
    return 0;
}

/* Everything the commit re-checks, in one statement: inputs live with the
 * planned identity, inputs whose live DV is not the planned one (a delete
 * committed since: the rewrite kept rows it deletes), DDL since
 * schema_snapshot, the ticket untouched (locked), the claim still ours. */
static int verify(struct srv_ctx *ctx, const struct catalog_row *cat, const char *claimant,
                  const struct cpt_group *g, int64_t schema_snapshot, int64_t ticket,
                  const struct store_compaction_inputs *x, enum cpt_commit_outcome *o,
                  struct error *err)
{
    struct store_compaction_check c;
    if (store_compaction_verify(ctx->db, cat->id, g->table_id, x, schema_snapshot, ticket, g->key,
                                claimant, &c, err) != 0)
        return error_prefix(err, "compaction verify");
    if (c.dvs_changed > 0)
        *o = CPT_DV_SUPERSEDED;
    else if (c.live != (int64_t)g->ninputs || c.altered || !c.ticket_untouched || !c.claim_held)
        *o = CPT_CONFLICT;
    else
        *o = CPT_COMMITTED;
    return 0;
}

/* The inputs ended with their DVs; the output's file row, partition
 * values (the inputs', shared by construction) and statistics, when there
 * is an output. */
static int write_rows(struct srv_ctx *ctx, const struct catalog_row *cat, const struct cpt_group *g,
                      const struct store_compaction_inputs *x, int64_t snapshot, int64_t file_id,
                      const struct store_compaction_output *out, struct error *err)
{
    int64_t ended = 0;
    if (store_compaction_end_inputs(ctx->db, cat->id, g->table_id, x, snapshot, &ended, err) != 0)
        return error_prefix(err, "end compaction inputs");
    if (ended != (int64_t)g->ninputs)
        return error_fail(err, ERR_INTERNAL, "compaction: inputs changed under the lock");
    if (!out->path)
        return 0;
    if (store_compaction_insert_output(ctx->db, cat->id, g->table_id, file_id, snapshot, g->spec_id,
                                       out, g->inputs[0].id, err) != 0)
        return error_prefix(err, "compaction output");
    if (store_file_stats_set(ctx->db, cat->id, file_id, out->stats, out->nstats, err) != 0)
        return error_prefix(err, "file statistics");
    return 0;
}

int cpt_commit(struct srv_ctx *ctx, const struct catalog_row *cat, const char *claimant,
               const struct cpt_group *g, int64_t schema_snapshot, int64_t ticket,
               const struct store_compaction_output *out, enum cpt_commit_outcome *o,
               int64_t *snapshot_id, struct error *err)
{
    struct store_compaction_inputs x;
    int rc = store_compaction_inputs_init(&x, g->inputs, g->ninputs, err) == 0
                 ? 0
                 : error_prefix(err, "compaction inputs");
    struct ddl_txn t;
    if (rc == 0)
        rc = ddl_begin_ctx(ctx, cat, ddl_lock_budget_after(ctx->srv, 0), &t, err);
    if (rc == 0)
        rc = verify(ctx, cat, claimant, g, schema_snapshot, ticket, &x, o, err);
    int64_t file_id = 0;
    if (rc == 0 && *o == CPT_COMMITTED) {
        rc = ddl_allocate_data(&t, out->path ? 1 : 0, &file_id, err);
        if (rc == 0)
            rc = ddl_change(&t, "table_compacted", g->table_id, err);
        if (rc == 0)
            rc = write_rows(ctx, cat, g, &x, t.snapshot_id, file_id, out, err);
        if (rc == 0 &&
            store_compaction_settle(ctx->db, cat->id, g->table_id, ticket, out->path != NULL,
                                    g->key, claimant, COMPACTION_COMMITTED_TTL_S, err) != 0)
            rc = error_prefix(err, "settle staging ticket");
        if (rc == 0)
            rc = ddl_commit(&t, err);
        if (rc == 0)
            *snapshot_id = t.snapshot_id;
    }
    if ((rc != 0 || *o != CPT_COMMITTED) && ctx->db)
        db_rollback(ctx->db->pg);
    store_compaction_inputs_free(&x);
    return rc;
}

/* One compaction pass over a catalog: plan, rewrite, commit (compaction.h). */
#include "server/maintenance/compaction.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "objstore/objstore.h"
#include "server/maintenance/compaction_commit.h"
#include "server/maintenance/compaction_plan.h"
#include "server/maintenance/compaction_rewrite.h"
#include "server/maintenance/pass_ctx.h"
#include "server/metrics.h"
#include "server/server.h"
#include "server/storage_guard.h"
#include "server/store/catalogs.h"
#include "server/store/compaction.h"
#include "server/store/tables.h"
#include "util/failpoint.h"
#include "util/log.h"
#include "util/timefmt.h"

static void count_skip(struct metrics *m, const char *reason, int64_t *counter)
{
    char labels[64];
    snprintf(labels, sizeof labels, "reason=\"%s\"", reason);
    metrics_counter_add(m, "hoglake_compaction_skipped_total", labels, 1);
    (*counter)++;
}

/* The table's live definition at the head (*at), and the output's layout:
 * the same plus the row-id column. */
static int load_layout(struct srv_ctx *ctx, const struct catalog_row *cat,
                       const struct cpt_group *g, struct lake_table *live,
                       struct lake_table *layout, int64_t *at, struct error *err)
{
    if (store_catalog_head(ctx->db, cat->id, at, err) != 0)
        return error_prefix(err, "catalog head");
    struct table_ref ref = {.table_id = g->table_id, .name = g->table_name, .properties = "{}"};
    if (store_table_load(ctx, cat, &ref, *at, false, live, err) != 0 ||
        store_table_load(ctx, cat, &ref, *at, false, layout, err) != 0)
        return error_prefix(err, "table load");
    char msg[256];
    if (cpt_add_row_id_column(layout, msg, sizeof msg) != 0)
        return error_fail(err, ERR_INTERNAL, "compaction layout: %s", msg);
    return 0;
}

/* Counts what became of a group that ran to its end: committed, or the
 * reason it was skipped. */
static void count_outcome(struct metrics *m, const struct cpt_group *g, enum cpt_rewrite_outcome ro,
                          enum cpt_commit_outcome co, const struct store_compaction_output *out,
                          int64_t snapshot, const char *msg, struct compaction_result *res)
{
    switch (ro) {
    case CPT_REFUSED: count_skip(m, "storage_refused", &res->storage_refused); break;
    case CPT_REWRITTEN: break;
    case CPT_UNCONVERTIBLE:
        count_skip(m, "unconvertible_schema", &res->unconvertible_schema);
        break;
    case CPT_INVALID_DATA: count_skip(m, "invalid_data", &res->invalid_data); break;
    case CPT_STORAGE: count_skip(m, "failed_groups", &res->failed_groups); break;
    }
    if (ro != CPT_REWRITTEN) {
        log_warn("compaction: group %s of table %s.%s skipped: %s", g->key, g->ns_name,
                 g->table_name, msg);
        return;
    }
    if (co == CPT_DV_SUPERSEDED) {
        count_skip(m, "dv_superseded", &res->dv_superseded);
        return;
    }
    if (co == CPT_CONFLICT) {
        count_skip(m, "skipped_conflicts", &res->skipped_conflicts);
        return;
    }
    res->groups_compacted++;
    res->files_in += (int64_t)g->ninputs;
    res->files_out += out->path ? 1 : 0;
    res->bytes_in += g->bytes;
    res->bytes_out += out->file_size;
    /* The rewrite checked each vector holds exactly its catalog count of
     * positions, all in the file: those are the rows it dropped. */
    int64_t dvs = 0, dropped = 0;
    for (size_t i = 0; i < g->ninputs; i++)
        if (g->inputs[i].dv.id != 0) {
            dvs++;
            dropped += g->inputs[i].dv.count;
        }
    res->dvs_applied += dvs;
    res->rows_dropped += dropped;
    res->variant_columns_carried += out->variant_carried;
    res->variant_columns_reencoded += out->variant_reencoded;
    metrics_counter_add(m, "hoglake_compaction_groups_total", "", 1);
    metrics_counter_add(m, "hoglake_compaction_files_rewritten_total", "", (double)g->ninputs);
    metrics_counter_add(m, "hoglake_compaction_bytes_total", "", (double)g->bytes);
    log_info("compaction: table %s.%s: %zu files (%lld bytes, %lld rows deleted by %lld deletion"
             " vectors) -> %s (%lld bytes) at snapshot %lld",
             g->ns_name, g->table_name, g->ninputs, (long long)g->bytes, (long long)dropped,
             (long long)dvs, out->path ? out->path : "no file, every row deleted",
             (long long)out->file_size, (long long)snapshot);
}

/* Stages, rewrites and commits one claimed group, counting the outcome.
 * Returns -1 only for a database failure or out of memory. */
static int run_group(struct srv_ctx *ctx, const struct catalog_row *cat, struct objstore *store,
                     const char *claimant, const struct cpt_group *g, struct compaction_result *res,
                     struct error *err)
{
    struct metrics *m = ctx->srv->metrics;
    struct arena a;
    arena_init(&a, 0);
    struct lake_table live, layout;
    lake_table_init(&live, &a);
    lake_table_init(&layout, &a);
    int64_t at = 0, ticket = 0, snapshot = 0;
    const char *path = NULL;
    struct store_compaction_output out = {0};
    enum cpt_rewrite_outcome ro = CPT_STORAGE;
    enum cpt_commit_outcome co = CPT_CONFLICT;
    struct cpt_refusal refusal = {0};
    char msg[600] = "";
    bool keep_claim = false;
    int rc = load_layout(ctx, cat, g, &live, &layout, &at, err);
    if (rc == 0)
        rc = cpt_stage(ctx, cat, g, &a, &path, &ticket, err);
    if (rc == 0 &&
        cpt_rewrite(store, &live, &layout, g, path, &a, &out, &ro, &refusal, msg, sizeof msg) != 0)
        rc = error_nomem(err);
    if (rc == 0 && ro == CPT_REFUSED)
        storage_record_refusal(ctx->srv, cat->name, refusal.operation, refusal.path, NULL,
                               &refusal.err);
    /* A crash between the upload and the commit: the ticket stays
     * undrained and the claim in place, as a dead server leaves them. */
    if (rc == 0 && ro == CPT_REWRITTEN && failpoint_on("compaction-crash-before-commit")) {
        keep_claim = true;
        rc = error_fail(err, ERR_INTERNAL, "compaction died before its commit (failpoint)");
    }
    /* A slow rewrite, so tests can change the catalog before the commit. */
    if (rc == 0 && ro == CPT_REWRITTEN && failpoint_on("compaction-slow-commit"))
        usleep(2000 * 1000);
    if (rc == 0 && ro == CPT_REWRITTEN)
        rc = cpt_commit(ctx, cat, claimant, g, at, ticket, &out, &co, &snapshot, err);
    if (rc == 0)
        count_outcome(m, g, ro, co, &out, snapshot, msg, res);
    keep_claim = keep_claim || (rc == 0 && ro == CPT_REWRITTEN && co == CPT_COMMITTED);
    /* A group not committed is left to cleanup (its ticket stays
     * undrained, whatever was uploaded is unreferenced) and its files to
     * the next pass. */
    if (!keep_claim && ctx->db)
        cpt_release_claim(ctx, cat, claimant, g);
    lake_table_release(&live);
    lake_table_release(&layout);
    arena_free(&a);
    return rc;
}

int compaction_run(struct srv_ctx *ctx, const struct catalog_row *cat, const char *claimant,
                   const struct compaction_options *opt, struct compaction_result *out,
                   struct error *err)
{
    memset(out, 0, sizeof *out);
    int64_t t0 = time_mono_ns();
    struct arena a;
    arena_init(&a, 0);
    struct cpt_group *groups;
    size_t n;
    int rc = cpt_plan(ctx, cat, claimant, opt, &a, &groups, &n, out, err);
    out->plan_ms = (time_mono_ns() - t0) / 1000000;
    if (out->claimed_elsewhere)
        metrics_counter_add(ctx->srv->metrics, "hoglake_compaction_skipped_total",
                            "reason=\"claimed_elsewhere\"", (double)out->claimed_elsewhere);
    if (out->heap_budget_exceeded)
        metrics_counter_add(ctx->srv->metrics, "hoglake_compaction_skipped_total",
                            "reason=\"heap_budget_exceeded\"", (double)out->heap_budget_exceeded);
    struct hl_error e;
    struct objstore *store = rc == 0 ? storage_view(ctx->srv, cat->data_path, &e) : NULL;
    if (rc == 0 && !store)
        rc = error_fail(err, ERR_INTERNAL, "compaction: %s", e.message);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        rc = run_group(ctx, cat, store, claimant, &groups[i], out, err);
        /* The claims of groups never started go with the failure. */
        for (size_t j = i + 1; rc != 0 && j < n && ctx->db; j++)
            cpt_release_claim(ctx, cat, claimant, &groups[j]);
    }
    /* Groups planned and never started keep their claims on a failure:
     * released above, or here when the store could not be confined. */
    for (size_t j = 0; !store && rc != 0 && j < n && ctx->db; j++)
        cpt_release_claim(ctx, cat, claimant, &groups[j]);
    objstore_free(store);
    arena_free(&a);
    return rc;
}

json_t *compaction_result_json(const struct compaction_result *r)
{
    json_t *o = json_pack(
        "{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I}", "groups_compacted",
        (json_int_t)r->groups_compacted, "files_in", (json_int_t)r->files_in, "files_out",
        (json_int_t)r->files_out, "bytes_in", (json_int_t)r->bytes_in, "bytes_out",
        (json_int_t)r->bytes_out, "skipped_conflicts", (json_int_t)r->skipped_conflicts,
        "dv_superseded", (json_int_t)r->dv_superseded, "unconvertible_schema",
        (json_int_t)r->unconvertible_schema, "invalid_data", (json_int_t)r->invalid_data,
        "heap_budget_exceeded", (json_int_t)r->heap_budget_exceeded, "failed_groups",
        (json_int_t)r->failed_groups, "storage_refused", (json_int_t)r->storage_refused,
        "dvs_applied", (json_int_t)r->dvs_applied, "rows_dropped", (json_int_t)r->rows_dropped);
    json_t *planner = json_pack(
        "{s:I,s:I,s:I,s:I,s:I,s:I,s:I}", "claimed_elsewhere", (json_int_t)r->claimed_elsewhere,
        "candidates_files", (json_int_t)r->candidates_files, "candidates_with_dv",
        (json_int_t)r->candidates_dv, "candidates_claimed", (json_int_t)r->candidates_claimed,
        "plan_ms", (json_int_t)r->plan_ms, "variant_columns_carried",
        (json_int_t)r->variant_columns_carried, "variant_columns_reencoded",
        (json_int_t)r->variant_columns_reencoded);
    json_t *left = json_pack("{s:I,s:I,s:I,s:I,s:b}", "left_too_few_files",
                             (json_int_t)r->left_too_few_files, "left_too_few_partitions",
                             (json_int_t)r->left_too_few_partitions, "left_over_budget_files",
                             (json_int_t)r->left_over_budget_files, "left_claimed_files",
                             (json_int_t)r->left_claimed_files, "batch_reached", r->batch_reached);
    if (!o || !planner || !left || json_object_update(o, planner) != 0 ||
        json_object_update(o, left) != 0) {
        json_decref(o);
        o = NULL;
    }
    json_decref(planner);
    json_decref(left);
    return o;
}

void compaction_task_init(struct compaction_task *t, struct server *srv)
{
    memset(t, 0, sizeof *t);
    t->srv = srv;
    t->opt.batch = COMPACTION_DEFAULT_BATCH;
    t->opt.target_bytes = COMPACTION_TARGET_BYTES;
    t->opt.max_group_bytes = srv->cfg.compaction_max_group_bytes;
    char host[64] = "";
    if (srv->cfg.instance_name[0])
        snprintf(host, sizeof host, "%.63s", srv->cfg.instance_name);
    else if (gethostname(host, sizeof host - 1) != 0)
        snprintf(host, sizeof host, "hoglaked");
    /* pid and start time tell apart two servers on one host and a
     * restarted one, whose earlier claims are then someone else's. */
    snprintf(t->claimant, sizeof t->claimant, "%s/%ld/%lld", host, (long)getpid(),
             (long long)time_now_micros());
}

int compaction_pass(void *ctx, PGconn *pg, int64_t catalog_id, json_t **result, struct error *err)
{
    const struct compaction_task *t = ctx;
    struct compaction_result res;
    memset(&res, 0, sizeof res);
    struct pass_ctx pc;
    int rc = pass_ctx_open(&pc, t->srv, pg, catalog_id, err);
    if (rc == 1 && compaction_run(&pc.ctx, &pc.cat, t->claimant, &t->opt, &res, err) != 0)
        rc = pass_engine_failed(err);
    *result = compaction_result_json(&res);
    if (rc >= 0 && !*result)
        rc = error_nomem(err);
    pass_ctx_close(&pc);
    return rc < 0 ? -1 : 0;
}

json_t *compaction_backlog(void *ctx, PGconn *pg, int64_t catalog_id)
{
    const struct compaction_task *t = ctx;
    struct store_compaction_backlog b;
    struct error err;
    if (store_compaction_backlog(pg, catalog_id, t->opt.target_bytes, &b, &err) != 0)
        return NULL;
    return json_pack("{s:I,s:I,s:I,s:I}", "small_files", (json_int_t)b.small_files,
                     "small_file_partitions", (json_int_t)b.partitions, "alone_files",
                     (json_int_t)b.alone_files, "target_bytes", (json_int_t)t->opt.target_bytes);
}

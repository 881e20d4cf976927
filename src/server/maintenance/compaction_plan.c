/* Compaction's planner and claims (compaction_plan.h). */
#include "server/maintenance/compaction_plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/db/db.h"
#include "server/store/compaction.h"
#include "util/buf.h"
#include "util/log.h"

/* Candidates read per table at most: a bound on one pass's memory. */
enum { CPT_MAX_CANDIDATES = 100000 };

size_t cpt_plan_bucket(const int64_t *sizes, const bool *reclaim, size_t n, int64_t target,
                       size_t max_files, size_t min_files, struct cpt_span *out)
{
    size_t kept = 0, start = 0;
    int64_t bytes = 0;
    bool reclaims = false;
    for (size_t i = 0; i < n; i++) {
        bytes += sizes[i];
        reclaims = reclaims || (reclaim && reclaim[i]);
        size_t count = i - start + 1;
        bool closes = bytes >= target || count >= max_files || i + 1 == n;
        if (!closes)
            continue;
        /* Sizes ascend: the group's largest is its last. */
        int64_t largest = sizes[i];
        int64_t fit = largest > 0 ? target / largest : (int64_t)min_files;
        size_t need = fit < (int64_t)min_files ? (size_t)(fit < 0 ? 0 : fit) : min_files;
        if (need < 2)
            need = 2;
        if (count >= need || reclaims)
            out[kept++] = (struct cpt_span){start, count};
        start = i + 1;
        bytes = 0;
        reclaims = false;
    }
    return kept;
}

bool cpt_worth_reclaiming(int64_t records, int64_t deleted)
{
    return deleted > 0 && deleted >= records - deleted;
}

static int cmp_input_id(const void *a, const void *b)
{
    const struct store_compaction_input *x = a, *y = b;
    return (x->id > y->id) - (x->id < y->id);
}

/* The group's key: hex SHA-256 of its spec, partition values and sorted
 * input ids. */
static int group_key(struct cpt_group *g)
{
    struct buf b = BUF_INIT;
    int rc = buf_printf(&b, "%lld\n%s\n", (long long)g->spec_id, g->partition_json);
    for (size_t i = 0; rc == 0 && i < g->ninputs; i++)
        rc = buf_printf(&b, "%lld,", (long long)g->inputs[i].id);
    if (rc == 0)
        rc = sha256_hex(b.data, b.len, g->key);
    buf_free(&b);
    return rc;
}

/* Claims g for `claimant`: refused when another unexpired claim holds the
 * same key or any of its files. *claimed false then. */
static int claim(struct srv_ctx *ctx, const struct catalog_row *cat, const char *claimant,
                 const struct cpt_group *g, bool *claimed, struct error *err)
{
    /* The claim is its own short transaction, so it holds the planner's
     * lock only while it checks and writes. */
    if (db_begin(ctx->db->pg, err) != 0 ||
        store_compaction_claim(ctx->db, cat->id, g->table_id, g->key, g->inputs, g->ninputs,
                               claimant, COMPACTION_CLAIM_TTL_S, claimed, err) != 0 ||
        db_commit(ctx->db->pg, err) != 0) {
        db_rollback(ctx->db->pg);
        return error_prefix(err, "compaction claim");
    }
    return 0;
}

void cpt_release_claim(struct srv_ctx *ctx, const struct catalog_row *cat, const char *claimant,
                       const struct cpt_group *g)
{
    struct error dberr;
    if (store_compaction_release_claim(ctx->db, cat->id, g->table_id, g->key, claimant, &dberr) !=
        0)
        log_warn("compaction: cannot release the claim on group %s: %s", g->key, dberr.msg);
}

/* The planning state across one catalog. */
struct planner {
    struct srv_ctx *ctx;
    const struct catalog_row *cat;
    const char *claimant;
    const struct compaction_options *opt;
    struct arena *a;
    struct cpt_group *groups;
    size_t ngroups;
    struct compaction_result *res;
};

/* Builds the group of c's rows rows[0..count) (one bucket), then refuses
 * it (over the memory budget, claimed elsewhere) or claims it. */
static int take_group(struct planner *pl, const struct store_compaction_table *t,
                      const struct store_compaction_candidates *c, const int *rows, size_t count,
                      struct error *err)
{
    struct cpt_group g = {.table_id = t->id, .ns_name = t->ns, .table_name = t->name};
    g.inputs = arena_calloc(pl->a, count, sizeof *g.inputs);
    if (!g.inputs)
        return error_nomem(err);
    g.spec_id = store_compaction_candidates_spec_id(c, rows[0]);
    g.partition_json = arena_strdup(pl->a, store_compaction_candidates_partition(c, rows[0]));
    if (!g.partition_json)
        return error_nomem(err);
    for (size_t i = 0; i < count; i++) {
        struct store_compaction_input *in = &g.inputs[i];
        if (store_compaction_candidates_input(c, rows[i], pl->a, in) != 0)
            return error_nomem(err);
        g.bytes += in->size;
        g.records += in->record_count;
    }
    g.ninputs = count;
    qsort(g.inputs, count, sizeof *g.inputs, cmp_input_id);
    if (g.bytes > pl->opt->max_group_bytes) {
        pl->res->heap_budget_exceeded++;
        pl->res->left_over_budget_files += (int64_t)count;
        return 0;
    }
    if (group_key(&g) != 0)
        return error_nomem(err);
    bool claimed = false;
    if (claim(pl->ctx, pl->cat, pl->claimant, &g, &claimed, err) != 0)
        return -1;
    if (!claimed) {
        pl->res->claimed_elsewhere++;
        pl->res->left_claimed_files += (int64_t)count;
        return 0;
    }
    pl->groups[pl->ngroups++] = g;
    return 0;
}

/* Groups one bucket (rows of c with equal spec and partition values,
 * ascending size). */
static int plan_bucket(struct planner *pl, const struct store_compaction_table *t,
                       const struct store_compaction_candidates *c, const int *rows, size_t n,
                       struct error *err)
{
    int64_t *sizes = calloc(n ? n : 1, sizeof *sizes);
    bool *reclaim = calloc(n ? n : 1, sizeof *reclaim);
    struct cpt_span *spans = calloc(n ? n : 1, sizeof *spans);
    int rc = sizes && reclaim && spans ? 0 : error_nomem(err);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        sizes[i] = store_compaction_candidates_live_bytes(c, rows[i]);
        reclaim[i] = cpt_worth_reclaiming(store_compaction_candidates_records(c, rows[i]),
                                          store_compaction_candidates_deleted(c, rows[i]));
    }
    size_t kept =
        rc == 0 ? cpt_plan_bucket(sizes, reclaim, n, pl->opt->target_bytes,
                                  COMPACTION_MAX_INPUT_FILES, COMPACTION_MIN_INPUT_FILES, spans)
                : 0;
    size_t grouped = 0;
    for (size_t k = 0; k < kept; k++)
        grouped += spans[k].count;
    if (rc == 0 && grouped < n) {
        pl->res->left_too_few_files += (int64_t)(n - grouped);
        pl->res->left_too_few_partitions++;
    }
    for (size_t k = 0; rc == 0 && k < kept && pl->ngroups < (size_t)pl->opt->batch; k++)
        rc = take_group(pl, t, c, rows + spans[k].start, spans[k].count, err);
    free(sizes);
    free(reclaim);
    free(spans);
    return rc;
}

static bool same_bucket(const struct store_compaction_candidates *c, int a, int b)
{
    return store_compaction_candidates_spec_id(c, a) == store_compaction_candidates_spec_id(c, b) &&
           strcmp(store_compaction_candidates_partition(c, a),
                  store_compaction_candidates_partition(c, b)) == 0;
}

static int plan_table(struct planner *pl, const struct store_compaction_table *t, struct error *err)
{
    struct store_compaction_candidates c;
    if (store_compaction_candidates(pl->ctx->db, pl->cat->id, t->id, pl->opt->target_bytes,
                                    CPT_MAX_CANDIDATES, &c, err) != 0)
        return error_prefix(err, "compaction candidates");
    int nrows = store_compaction_candidates_count(&c);
    int *rows = calloc(nrows ? (size_t)nrows : 1, sizeof *rows);
    int rc = rows ? 0 : error_nomem(err);
    size_t n = 0;
    for (int i = 0; rc == 0 && i < nrows && pl->ngroups < (size_t)pl->opt->batch; i++) {
        pl->res->candidates_files++;
        if (n > 0 && !same_bucket(&c, rows[0], i)) {
            rc = plan_bucket(pl, t, &c, rows, n, err);
            n = 0;
        }
        if (store_compaction_candidates_deleted(&c, i) > 0)
            pl->res->candidates_dv++;
        if (store_compaction_candidates_claimed(&c, i)) {
            pl->res->candidates_claimed++;
            pl->res->left_claimed_files++;
        } else
            rows[n++] = i;
    }
    if (rc == 0 && n > 0 && pl->ngroups < (size_t)pl->opt->batch)
        rc = plan_bucket(pl, t, &c, rows, n, err);
    free(rows);
    store_compaction_candidates_free(&c);
    return rc;
}

int cpt_plan(struct srv_ctx *ctx, const struct catalog_row *cat, const char *claimant,
             const struct compaction_options *opt, struct arena *a, struct cpt_group **groups,
             size_t *ngroups, struct compaction_result *res, struct error *err)
{
    struct planner pl = {ctx, cat, claimant, opt, a, NULL, 0, res};
    *groups = NULL;
    *ngroups = 0;
    pl.groups = arena_calloc(a, (size_t)opt->batch, sizeof *pl.groups);
    if (!pl.groups)
        return error_nomem(err);
    /* Expired claims only keep files from being planned: gone first. */
    if (store_compaction_expire_claims(ctx->db, cat->id, err) != 0)
        return error_prefix(err, "expired claims");
    struct store_compaction_table *tables = NULL;
    size_t ntables = 0;
    if (store_compaction_tables(ctx->db, cat->id, a, &tables, &ntables, err) != 0)
        return error_prefix(err, "compaction tables");
    for (size_t i = 0; i < ntables && pl.ngroups < (size_t)opt->batch; i++)
        if (plan_table(&pl, &tables[i], err) != 0)
            return -1;
    pl.res->batch_reached = pl.ngroups == (size_t)opt->batch;
    *groups = pl.groups;
    *ngroups = pl.ngroups;
    return 0;
}

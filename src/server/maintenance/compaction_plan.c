/* Compaction's planner and claims (compaction_plan.h). */
#include "server/maintenance/compaction_plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/db/db.h"
#include "server/db/pgarray.h"
#include "util/buf.h"
#include "util/log.h"

/* Candidates read per table at most: a bound on one pass's memory. */
enum { CPT_MAX_CANDIDATES = 100000 };

/* The planning lock class of contract §4.2 (4740873), per catalog: claims
 * are checked for overlap and inserted under it. */
#define PLAN_LOCK_SQL                                                                              \
    "SELECT pg_advisory_xact_lock((4740873::bigint << 32) | ($1::bigint & 4294967295))"

size_t cpt_plan_bucket(const int64_t *sizes, size_t n, int64_t target, size_t max_files,
                       size_t min_files, struct cpt_span *out)
{
    size_t kept = 0, start = 0;
    int64_t bytes = 0;
    for (size_t i = 0; i < n; i++) {
        bytes += sizes[i];
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
        if (count >= need)
            out[kept++] = (struct cpt_span){start, count};
        start = i + 1;
        bytes = 0;
    }
    return kept;
}

/* A live table, as the planner walks them. */
struct plan_table {
    int64_t id;
    const char *ns, *name;
    bool variant;
};

static int load_tables(struct srv_ctx *ctx, const struct catalog_row *cat, struct arena *a,
                       struct plan_table **out, size_t *n, struct api_error *err)
{
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, cat->id);
    PGresult *r = ctx_query(ctx,
                            "SELECT t.table_id, n.name, v.name, EXISTS (SELECT 1 FROM hog_column c"
                            "  WHERE c.catalog_id = t.catalog_id AND c.table_id = t.table_id"
                            "  AND c.end_snapshot IS NULL AND c.col_type = 'variant')"
                            " FROM hog_table t JOIN hog_table_version v ON v.catalog_id ="
                            "  t.catalog_id AND v.table_id = t.table_id AND v.end_snapshot IS NULL"
                            " JOIN hog_namespace n ON n.catalog_id = v.catalog_id"
                            "  AND n.namespace_id = v.namespace_id AND n.dropped_snapshot IS NULL"
                            " WHERE t.catalog_id = $1 AND t.dropped_snapshot IS NULL"
                            " ORDER BY n.name, v.name",
                            &p, "compaction tables", err);
    if (!r)
        return -1;
    *n = (size_t)PQntuples(r);
    *out = arena_calloc(a, *n ? *n : 1, sizeof **out);
    bool ok = *out != NULL;
    for (size_t i = 0; ok && i < *n; i++) {
        struct plan_table *t = &(*out)[i];
        t->id = db_i64(r, (int)i, 0);
        t->ns = arena_strdup(a, db_str(r, (int)i, 1));
        t->name = arena_strdup(a, db_str(r, (int)i, 2));
        t->variant = db_bool(r, (int)i, 3);
        ok = t->ns && t->name;
    }
    PQclear(r);
    return ok ? 0 : api_nomem(err);
}

/* The candidate files of one table, bucketed: ordered by spec, partition
 * values and size. */
static PGresult *load_candidates(struct srv_ctx *ctx, const struct catalog_row *cat,
                                 int64_t table_id, int64_t target, struct api_error *err)
{
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, cat->id);
    db_param_i64(&p, table_id);
    db_param_i64(&p, target);
    db_param_i64(&p, CPT_MAX_CANDIDATES);
    return ctx_query(
        ctx,
        "SELECT d.data_file_id, d.path, d.record_count, d.file_size_bytes, d.row_id_start,"
        " d.explicit_row_ids, coalesce(d.spec_id, -1),"
        " coalesce((SELECT json_agg(v.value ORDER BY v.key_index) FROM hog_file_partition_value v"
        "  WHERE v.catalog_id = d.catalog_id AND v.data_file_id = d.data_file_id)::text, '[]'),"
        " EXISTS (SELECT 1 FROM hog_delete_file x WHERE x.catalog_id = d.catalog_id"
        "  AND x.data_file_id = d.data_file_id AND x.end_snapshot IS NULL),"
        " EXISTS (SELECT 1 FROM hog_compaction_claim c WHERE c.catalog_id = d.catalog_id"
        "  AND c.table_id = d.table_id AND c.expires_at > now()"
        "  AND d.data_file_id = ANY (c.input_file_ids))"
        " FROM hog_data_file d WHERE d.catalog_id = $1 AND d.table_id = $2"
        " AND d.end_snapshot IS NULL AND d.file_size_bytes < $3"
        " ORDER BY 7, 8, d.file_size_bytes, d.data_file_id LIMIT $4",
        &p, "compaction candidates", err);
}

static int cmp_input_id(const void *a, const void *b)
{
    const struct cpt_input *x = a, *y = b;
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
                 const struct cpt_group *g, bool *claimed, struct api_error *err)
{
    struct pg_array ids;
    pg_array_init(&ids);
    for (size_t i = 0; i < g->ninputs; i++)
        pg_array_i64(&ids, g->inputs[i].id);
    const char *ids_text = pg_array_text(&ids);
    if (!ids_text) {
        pg_array_free(&ids);
        return api_nomem(err);
    }
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, cat->id);
    int rc = ctx_exec(ctx, "BEGIN", NULL, "claim begin", err);
    if (rc == 0)
        rc = ctx_exec(ctx, "SELECT set_config('lock_timeout', '15000', true)", NULL,
                      "claim lock timeout", err);
    if (rc == 0)
        rc = ctx_exec(ctx, PLAN_LOCK_SQL, &p, "planning lock", err);
    PGresult *r = NULL;
    if (rc == 0) {
        db_params_init(&p);
        db_param_i64(&p, cat->id);
        db_param_i64(&p, g->table_id);
        db_param_str(&p, g->key);
        db_param_str(&p, ids_text);
        db_param_str(&p, claimant);
        db_param_i64(&p, COMPACTION_CLAIM_TTL_S);
        r = ctx_query(
            ctx,
            "INSERT INTO hog_compaction_claim AS k (catalog_id, table_id, group_key,"
            " input_file_ids, claimant, claimed_at, expires_at)"
            " SELECT $1, $2, $3, $4::bigint[], $5, now(), now() + make_interval(secs => $6)"
            " WHERE NOT EXISTS (SELECT 1 FROM hog_compaction_claim c"
            "  WHERE c.catalog_id = $1 AND c.table_id = $2 AND c.expires_at > now()"
            "  AND c.input_file_ids && $4::bigint[]"
            "  AND NOT (c.group_key = $3 AND c.claimant = $5))"
            " ON CONFLICT (catalog_id, table_id, group_key) DO UPDATE"
            " SET claimant = excluded.claimant, claimed_at = excluded.claimed_at,"
            " expires_at = excluded.expires_at, input_file_ids = excluded.input_file_ids"
            " WHERE k.expires_at <= now() OR k.claimant = excluded.claimant"
            " RETURNING 1",
            &p, "compaction claim", err);
        rc = r ? 0 : -1;
    }
    pg_array_free(&ids);
    if (rc == 0) {
        *claimed = PQntuples(r) == 1;
        PQclear(r);
        rc = ctx_exec(ctx, "COMMIT", NULL, "claim commit", err);
    }
    if (rc != 0 && ctx->db && PQtransactionStatus(ctx->db->pg) != PQTRANS_IDLE) {
        struct error ignored;
        db_run(ctx->db->pg, "ROLLBACK", NULL, &ignored);
    }
    return rc;
}

void cpt_release_claim(struct srv_ctx *ctx, const struct catalog_row *cat, const char *claimant,
                       const struct cpt_group *g)
{
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, cat->id);
    db_param_i64(&p, g->table_id);
    db_param_str(&p, g->key);
    db_param_str(&p, claimant);
    struct error dberr;
    if (db_run(ctx->db->pg,
               "DELETE FROM hog_compaction_claim WHERE catalog_id = $1 AND table_id = $2"
               " AND group_key = $3 AND claimant = $4",
               &p, &dberr) != 0)
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

/* Builds the group of r's rows rows[0..count) (one bucket), then refuses
 * it (over the memory budget, claimed elsewhere) or claims it. */
static int take_group(struct planner *pl, const struct plan_table *t, const PGresult *r,
                      const int *rows, size_t count, struct api_error *err)
{
    struct cpt_group g = {.table_id = t->id, .ns_name = t->ns, .table_name = t->name};
    g.inputs = arena_calloc(pl->a, count, sizeof *g.inputs);
    if (!g.inputs)
        return api_nomem(err);
    g.spec_id = db_i64(r, rows[0], 6);
    g.partition_json = arena_strdup(pl->a, db_str(r, rows[0], 7));
    if (!g.partition_json)
        return api_nomem(err);
    for (size_t i = 0; i < count; i++) {
        struct cpt_input *in = &g.inputs[i];
        int row = rows[i];
        in->id = db_i64(r, row, 0);
        in->path = arena_strdup(pl->a, db_str(r, row, 1));
        in->record_count = db_i64(r, row, 2);
        in->size = db_i64(r, row, 3);
        in->row_id_start = db_i64(r, row, 4);
        in->explicit_row_ids = db_bool(r, row, 5);
        if (!in->path)
            return api_nomem(err);
        g.bytes += in->size;
        g.records += in->record_count;
    }
    g.ninputs = count;
    qsort(g.inputs, count, sizeof *g.inputs, cmp_input_id);
    if (g.bytes > pl->opt->max_group_bytes) {
        pl->res->heap_budget_exceeded++;
        return 0;
    }
    if (group_key(&g) != 0)
        return api_nomem(err);
    bool claimed = false;
    if (claim(pl->ctx, pl->cat, pl->claimant, &g, &claimed, err) != 0)
        return -1;
    if (!claimed) {
        pl->res->claimed_elsewhere++;
        return 0;
    }
    pl->groups[pl->ngroups++] = g;
    return 0;
}

/* Groups one bucket (rows of r with equal spec and partition values,
 * ascending size). */
static int plan_bucket(struct planner *pl, const struct plan_table *t, const PGresult *r,
                       const int *rows, size_t n, struct api_error *err)
{
    int64_t *sizes = calloc(n ? n : 1, sizeof *sizes);
    struct cpt_span *spans = calloc(n ? n : 1, sizeof *spans);
    int rc = sizes && spans ? 0 : api_nomem(err);
    for (size_t i = 0; rc == 0 && i < n; i++)
        sizes[i] = db_i64(r, rows[i], 3);
    size_t kept = rc == 0
                      ? cpt_plan_bucket(sizes, n, pl->opt->target_bytes, COMPACTION_MAX_INPUT_FILES,
                                        COMPACTION_MIN_INPUT_FILES, spans)
                      : 0;
    for (size_t k = 0; rc == 0 && k < kept && pl->ngroups < (size_t)pl->opt->batch; k++)
        rc = take_group(pl, t, r, rows + spans[k].start, spans[k].count, err);
    free(sizes);
    free(spans);
    return rc;
}

static bool same_bucket(const PGresult *r, int a, int b)
{
    return db_i64(r, a, 6) == db_i64(r, b, 6) && strcmp(db_str(r, a, 7), db_str(r, b, 7)) == 0;
}

static int plan_table(struct planner *pl, const struct plan_table *t, struct api_error *err)
{
    PGresult *r = load_candidates(pl->ctx, pl->cat, t->id, pl->opt->target_bytes, err);
    if (!r)
        return -1;
    int nrows = PQntuples(r);
    int *rows = calloc(nrows ? (size_t)nrows : 1, sizeof *rows);
    int rc = rows ? 0 : api_nomem(err);
    size_t n = 0;
    for (int i = 0; rc == 0 && i < nrows && pl->ngroups < (size_t)pl->opt->batch; i++) {
        pl->res->candidates_files++;
        if (n > 0 && !same_bucket(r, rows[0], i)) {
            rc = plan_bucket(pl, t, r, rows, n, err);
            n = 0;
        }
        if (db_bool(r, i, 8))
            pl->res->candidates_dv++;
        else if (db_bool(r, i, 9))
            pl->res->candidates_claimed++;
        else
            rows[n++] = i;
    }
    if (rc == 0 && n > 0 && pl->ngroups < (size_t)pl->opt->batch)
        rc = plan_bucket(pl, t, r, rows, n, err);
    free(rows);
    PQclear(r);
    return rc;
}

int cpt_plan(struct srv_ctx *ctx, const struct catalog_row *cat, const char *claimant,
             const struct compaction_options *opt, struct arena *a, struct cpt_group **groups,
             size_t *ngroups, struct compaction_result *res, struct api_error *err)
{
    struct planner pl = {ctx, cat, claimant, opt, a, NULL, 0, res};
    *groups = NULL;
    *ngroups = 0;
    pl.groups = arena_calloc(a, (size_t)opt->batch, sizeof *pl.groups);
    if (!pl.groups)
        return api_nomem(err);
    /* Expired claims only keep files from being planned: gone first. */
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, cat->id);
    if (ctx_exec(ctx,
                 "DELETE FROM hog_compaction_claim WHERE catalog_id = $1 AND expires_at <= now()",
                 &p, "expired claims", err) != 0)
        return -1;
    struct plan_table *tables;
    size_t ntables;
    if (load_tables(ctx, cat, a, &tables, &ntables, err) != 0)
        return -1;
    for (size_t i = 0; i < ntables && pl.ngroups < (size_t)opt->batch; i++) {
        if (tables[i].variant) {
            res->tables_variant++;
            continue;
        }
        if (plan_table(&pl, &tables[i], err) != 0)
            return -1;
    }
    *groups = pl.groups;
    *ngroups = pl.ngroups;
    return 0;
}

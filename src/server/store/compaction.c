/* The store of compaction (compaction.h). */
#include "server/store/compaction.h"

#include <string.h>

#include "server/db/db.h"
#include "server/store/change_probe.h"

/* The planning lock class of contract §4.2 (4740873), per catalog: claims
 * are checked for overlap and inserted under it. */
#define PLAN_LOCK_SQL                                                                              \
    "SELECT pg_advisory_xact_lock((4740873::bigint << 32) | ($1::bigint & 4294967295))"

int store_compaction_tables(struct db_conn *db, int64_t catalog_id, struct arena *a,
                            struct store_compaction_table **out, size_t *n, struct error *err)
{
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, catalog_id);
    PGresult *r = db_exec(db->pg,
                          "SELECT t.table_id, n.name, v.name"
                          " FROM hog_table t JOIN hog_table_version v ON v.catalog_id ="
                          "  t.catalog_id AND v.table_id = t.table_id AND v.end_snapshot IS NULL"
                          " JOIN hog_namespace n ON n.catalog_id = v.catalog_id"
                          "  AND n.namespace_id = v.namespace_id AND n.dropped_snapshot IS NULL"
                          " WHERE t.catalog_id = $1 AND t.dropped_snapshot IS NULL"
                          " ORDER BY n.name, v.name",
                          &p, err);
    if (!r)
        return -1;
    *n = (size_t)PQntuples(r);
    *out = arena_calloc(a, *n ? *n : 1, sizeof **out);
    bool ok = *out != NULL;
    for (size_t i = 0; ok && i < *n; i++) {
        struct store_compaction_table *t = &(*out)[i];
        t->id = db_i64(r, (int)i, 0);
        t->ns = arena_strdup(a, db_str(r, (int)i, 1));
        t->name = arena_strdup(a, db_str(r, (int)i, 2));
        ok = t->ns && t->name;
    }
    PQclear(r);
    return ok ? 0 : error_nomem(err);
}

int store_compaction_candidates(struct db_conn *db, int64_t catalog_id, int64_t table_id,
                                int64_t target, int64_t limit,
                                struct store_compaction_candidates *out, struct error *err)
{
    struct db_params p;
    DB_PARAMS_IDS(&p, catalog_id, table_id, target, limit);
    /* Small files through hog_data_file_by_size, plus every file with a
     * live deletion vector (hog_delete_file_live), whatever its size: its
     * live bytes decide. */
    out->r = db_exec(
        db->pg,
        "WITH c AS (SELECT data_file_id FROM hog_data_file WHERE catalog_id = $1"
        "  AND table_id = $2 AND end_snapshot IS NULL AND file_size_bytes < $3"
        " UNION SELECT data_file_id FROM hog_delete_file WHERE catalog_id = $1"
        "  AND table_id = $2 AND end_snapshot IS NULL),"
        " f AS (SELECT d.*, x.delete_file_id, x.path AS dv_path, x.delete_count,"
        "  x.file_size_bytes AS dv_size, (d.file_size_bytes::numeric"
        "   * greatest(d.record_count - coalesce(x.delete_count, 0), 0)"
        "   / greatest(d.record_count, 1))::bigint AS live_bytes"
        "  FROM c JOIN hog_data_file d ON d.catalog_id = $1 AND d.data_file_id = c.data_file_id"
        "  AND d.end_snapshot IS NULL LEFT JOIN hog_delete_file x ON x.catalog_id = $1"
        "  AND x.data_file_id = d.data_file_id AND x.end_snapshot IS NULL)"
        "SELECT f.data_file_id, f.path, f.record_count, f.file_size_bytes, f.row_id_start,"
        " f.explicit_row_ids, coalesce(f.spec_id, -1),"
        " coalesce((SELECT json_agg(v.value ORDER BY v.key_index) FROM hog_file_partition_value v"
        "  WHERE v.catalog_id = f.catalog_id AND v.data_file_id = f.data_file_id)::text, '[]'),"
        " coalesce(f.delete_file_id, 0),"
        " EXISTS (SELECT 1 FROM hog_compaction_claim c WHERE c.catalog_id = f.catalog_id"
        "  AND c.table_id = f.table_id AND c.expires_at > now()"
        "  AND f.data_file_id = ANY (c.input_file_ids)),"
        " f.dv_path, coalesce(f.delete_count, 0), coalesce(f.dv_size, 0), f.live_bytes"
        " FROM f WHERE f.live_bytes < $3"
        " ORDER BY 7, 8, f.live_bytes, f.data_file_id LIMIT $4",
        &p, err);
    return out->r ? 0 : -1;
}

int store_compaction_candidates_count(const struct store_compaction_candidates *v)
{
    return PQntuples(v->r);
}

int64_t store_compaction_candidates_live_bytes(const struct store_compaction_candidates *v, int row)
{
    return db_i64(v->r, row, 13);
}

int64_t store_compaction_candidates_records(const struct store_compaction_candidates *v, int row)
{
    return db_i64(v->r, row, 2);
}

int64_t store_compaction_candidates_deleted(const struct store_compaction_candidates *v, int row)
{
    return db_i64(v->r, row, 11);
}

int64_t store_compaction_candidates_spec_id(const struct store_compaction_candidates *v, int row)
{
    return db_i64(v->r, row, 6);
}

const char *store_compaction_candidates_partition(const struct store_compaction_candidates *v,
                                                  int row)
{
    return db_str(v->r, row, 7);
}

bool store_compaction_candidates_claimed(const struct store_compaction_candidates *v, int row)
{
    return db_bool(v->r, row, 9);
}

int store_compaction_candidates_input(const struct store_compaction_candidates *v, int row,
                                      struct arena *a, struct store_compaction_input *in)
{
    in->id = db_i64(v->r, row, 0);
    in->path = arena_strdup(a, db_str(v->r, row, 1));
    in->record_count = db_i64(v->r, row, 2);
    in->size = db_i64(v->r, row, 3);
    in->row_id_start = db_i64(v->r, row, 4);
    in->explicit_row_ids = db_bool(v->r, row, 5);
    in->dv = (struct store_compaction_dv){.id = db_i64(v->r, row, 8)};
    if (in->dv.id != 0) {
        in->dv.path = arena_strdup(a, db_str(v->r, row, 10));
        in->dv.count = db_i64(v->r, row, 11);
        in->dv.size = db_i64(v->r, row, 12);
        if (!in->dv.path)
            return -1;
    }
    return in->path ? 0 : -1;
}

void store_compaction_candidates_free(struct store_compaction_candidates *v)
{
    PQclear(v->r);
    v->r = NULL;
}

int store_compaction_expire_claims(struct db_conn *db, int64_t catalog_id, struct error *err)
{
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, catalog_id);
    return db_run(db->pg,
                  "DELETE FROM hog_compaction_claim WHERE catalog_id = $1 AND expires_at <= now()",
                  &p, err);
}

int store_compaction_claim(struct db_conn *db, int64_t catalog_id, int64_t table_id,
                           const char *group_key, const struct store_compaction_input *inputs,
                           size_t n, const char *claimant, int64_t ttl_s, bool *claimed,
                           struct error *err)
{
    struct pg_array ids;
    pg_array_init(&ids);
    for (size_t i = 0; i < n; i++)
        pg_array_i64(&ids, inputs[i].id);
    const char *ids_text = pg_array_text(&ids);
    if (!ids_text) {
        pg_array_free(&ids);
        return error_nomem(err);
    }
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, catalog_id);
    int rc = db_set_lock_timeout(db->pg, 15000, err);
    if (rc == 0)
        rc = db_run(db->pg, PLAN_LOCK_SQL, &p, err);
    PGresult *r = NULL;
    if (rc == 0) {
        DB_PARAMS_IDS(&p, catalog_id, table_id);
        db_param_str(&p, group_key);
        db_param_str(&p, ids_text);
        db_param_str(&p, claimant);
        db_param_i64(&p, ttl_s);
        r = db_exec(db->pg,
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
                    &p, err);
        rc = r ? 0 : -1;
    }
    pg_array_free(&ids);
    if (rc == 0) {
        *claimed = PQntuples(r) == 1;
        PQclear(r);
    }
    return rc;
}

int store_compaction_release_claim(struct db_conn *db, int64_t catalog_id, int64_t table_id,
                                   const char *group_key, const char *claimant, struct error *err)
{
    struct db_params p;
    DB_PARAMS_IDS(&p, catalog_id, table_id);
    db_param_str(&p, group_key);
    db_param_str(&p, claimant);
    return db_run(db->pg,
                  "DELETE FROM hog_compaction_claim WHERE catalog_id = $1 AND table_id = $2"
                  " AND group_key = $3 AND claimant = $4",
                  &p, err);
}

int store_compaction_stage(struct db_conn *db, int64_t catalog_id, const char *data_path,
                           const char *ns, const char *table, struct arena *a, const char **path,
                           int64_t *ticket, struct error *err)
{
    size_t dl = strlen(data_path);
    bool slash = dl && data_path[dl - 1] == '/';
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, catalog_id);
    db_param_str(&p, data_path);
    db_param_str(&p, slash ? "" : "/");
    db_param_str(&p, ns);
    db_param_str(&p, table);
    /* Where appends put the table's files (client/append.c), named apart
     * by the prefix. */
    PGresult *r = db_exec(db->pg,
                          "INSERT INTO hog_file_removal (catalog_id, path, file_kind, reason)"
                          " VALUES ($1, $2 || $3 || 'data/' || $4 || '/' || $5 || '/compacted-'"
                          " || gen_random_uuid()::text || '.parquet', 'data',"
                          " 'compaction_staging') RETURNING removal_id, path",
                          &p, err);
    if (!r)
        return -1;
    *ticket = db_i64(r, 0, 0);
    *path = arena_strdup(a, db_str(r, 0, 1));
    PQclear(r);
    return *path ? 0 : error_nomem(err);
}

int store_compaction_inputs_init(struct store_compaction_inputs *x,
                                 const struct store_compaction_input *in, size_t n,
                                 struct error *err)
{
    pg_array_init(&x->ids);
    pg_array_init(&x->paths);
    pg_array_init(&x->recs);
    pg_array_init(&x->dvs);
    for (size_t i = 0; i < n; i++) {
        pg_array_i64(&x->ids, in[i].id);
        pg_array_str(&x->paths, in[i].path);
        pg_array_i64(&x->recs, in[i].record_count);
        pg_array_i64(&x->dvs, in[i].dv.id);
    }
    x->ids_text = pg_array_text(&x->ids);
    x->paths_text = pg_array_text(&x->paths);
    x->recs_text = pg_array_text(&x->recs);
    x->dvs_text = pg_array_text(&x->dvs);
    return x->ids_text && x->paths_text && x->recs_text && x->dvs_text ? 0 : error_nomem(err);
}

void store_compaction_inputs_free(struct store_compaction_inputs *x)
{
    pg_array_free(&x->ids);
    pg_array_free(&x->paths);
    pg_array_free(&x->recs);
    pg_array_free(&x->dvs);
}

/* $1 catalog, $2 table; $3-$5 the inputs' ids, paths and records; $6 the
 * plan's schema snapshot; $7 the plan's removal ticket; $8-$9 the claim;
 * $10 the inputs' deletion vectors (0: none). */
/* clang-format off */
static const char verify_sql[] =
    "SELECT (SELECT count(*) FROM unnest($3::bigint[], $4::text[], $5::bigint[])"
    "   AS u(id, path, recs) JOIN hog_data_file d ON d.catalog_id = $1"
    "   AND d.table_id = $2 AND d.data_file_id = u.id AND d.end_snapshot IS NULL"
    "   AND d.path = u.path AND d.record_count = u.recs),"
    " (SELECT count(*) FROM unnest($3::bigint[], $10::bigint[]) AS u(id, dv)"
    "   WHERE u.dv <> coalesce((SELECT x.delete_file_id FROM hog_delete_file x"
    "   WHERE x.catalog_id = $1 AND x.data_file_id = u.id"
    "   AND x.end_snapshot IS NULL), 0)),"
    STORE_CHANGED_AFTER("$1", "$2", "table_altered", "$6")
    " OR" STORE_CHANGED_AFTER("$1", "$2", "table_dropped", "$6") ","
    " EXISTS (SELECT 1 FROM hog_file_removal f WHERE f.removal_id = $7"
    "   AND f.catalog_id = $1 AND f.drained_at IS NULL AND f.claimed_at IS NULL),"
    " EXISTS (SELECT 1 FROM hog_compaction_claim k WHERE k.catalog_id = $1"
    "   AND k.table_id = $2 AND k.group_key = $8 AND k.claimant = $9)";
/* clang-format on */

int store_compaction_verify(struct db_conn *db, int64_t catalog_id, int64_t table_id,
                            const struct store_compaction_inputs *x, int64_t schema_snapshot,
                            int64_t ticket, const char *group_key, const char *claimant,
                            struct store_compaction_check *out, struct error *err)
{
    struct db_params p;
    DB_PARAMS_IDS(&p, catalog_id, table_id);
    db_param_str(&p, x->ids_text);
    db_param_str(&p, x->paths_text);
    db_param_str(&p, x->recs_text);
    db_param_i64(&p, schema_snapshot);
    db_param_i64(&p, ticket);
    db_param_str(&p, group_key);
    db_param_str(&p, claimant);
    db_param_str(&p, x->dvs_text);
    PGresult *r = db_exec(db->pg, verify_sql, &p, err);
    if (!r)
        return -1;
    out->live = db_i64(r, 0, 0);
    out->dvs_changed = db_i64(r, 0, 1);
    out->altered = db_bool(r, 0, 2);
    out->ticket_untouched = db_bool(r, 0, 3);
    out->claim_held = db_bool(r, 0, 4);
    PQclear(r);
    return 0;
}

int store_compaction_end_inputs(struct db_conn *db, int64_t catalog_id, int64_t table_id,
                                const struct store_compaction_inputs *x, int64_t snapshot,
                                int64_t *ended, struct error *err)
{
    struct db_params p;
    DB_PARAMS_IDS(&p, catalog_id, table_id);
    db_param_str(&p, x->ids_text);
    db_param_i64(&p, snapshot);
    /* A deletion vector ends with its data file, as a truncate ends them. */
    return db_run_count(db->pg,
                        "WITH dv AS (UPDATE hog_delete_file SET end_snapshot = $4"
                        "  WHERE catalog_id = $1 AND table_id = $2"
                        "  AND data_file_id = ANY ($3::bigint[]) AND end_snapshot IS NULL)"
                        " UPDATE hog_data_file SET end_snapshot = $4 WHERE catalog_id = $1"
                        " AND table_id = $2 AND data_file_id = ANY ($3::bigint[])"
                        " AND end_snapshot IS NULL",
                        &p, ended, err);
}

int store_compaction_insert_output(struct db_conn *db, int64_t catalog_id, int64_t table_id,
                                   int64_t file_id, int64_t snapshot, int64_t spec_id,
                                   const struct store_compaction_output *out,
                                   int64_t partition_from, struct error *err)
{
    struct pg_array splits;
    pg_array_init(&splits);
    pg_array_i64_list(&splits, out->splits, out->nsplits);
    const char *splits_text = out->nsplits ? pg_array_text(&splits) : NULL;
    if (out->nsplits && !splits_text) {
        pg_array_free(&splits);
        return error_nomem(err);
    }
    struct db_params p;
    DB_PARAMS_IDS(&p, catalog_id, file_id, table_id, snapshot);
    db_param_str(&p, out->path);
    db_param_i64(&p, out->records);
    db_param_i64(&p, out->file_size);
    db_param_i64(&p, out->footer_size);
    db_param_i64(&p, out->min_row_id);
    if (spec_id >= 0)
        db_param_i64(&p, spec_id);
    else
        db_param_null(&p);
    db_param_str(&p, splits_text);
    int rc = db_run(db->pg,
                    "INSERT INTO hog_data_file (catalog_id, data_file_id, table_id,"
                    " begin_snapshot, path, record_count, file_size_bytes, footer_size,"
                    " row_id_start, stats_state, spec_id, explicit_row_ids, split_offsets)"
                    " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'provided', $10, true,"
                    " ($11::text[])[1]::bigint[])",
                    &p, err);
    pg_array_free(&splits);
    if (rc != 0)
        return -1;
    DB_PARAMS_IDS(&p, catalog_id, file_id, partition_from);
    return db_run(db->pg,
                  "INSERT INTO hog_file_partition_value (catalog_id, data_file_id,"
                  " table_id, key_index, value) SELECT $1, $2, table_id, key_index, value"
                  " FROM hog_file_partition_value WHERE catalog_id = $1 AND data_file_id = $3",
                  &p, err);
}

int store_compaction_settle(struct db_conn *db, int64_t catalog_id, int64_t table_id,
                            int64_t ticket, bool registered, const char *group_key,
                            const char *claimant, int64_t ttl_s, struct error *err)
{
    struct db_params p;
    DB_PARAMS_IDS(&p, catalog_id, ticket);
    db_param_str(&p, registered ? "registered" : "absent");
    if (db_run(db->pg,
               "UPDATE hog_file_removal SET drained_at = now(), drained_outcome = $3"
               " WHERE catalog_id = $1 AND removal_id = $2",
               &p, err) != 0)
        return -1;
    DB_PARAMS_IDS(&p, catalog_id, table_id);
    db_param_str(&p, group_key);
    db_param_str(&p, claimant);
    db_param_i64(&p, ttl_s);
    return db_run(db->pg,
                  "UPDATE hog_compaction_claim SET expires_at = now() + make_interval(secs => $5)"
                  " WHERE catalog_id = $1 AND table_id = $2 AND group_key = $3"
                  " AND claimant = $4",
                  &p, err);
}

int store_compaction_backlog(PGconn *pg, int64_t catalog_id, int64_t target_bytes,
                             struct store_compaction_backlog *out, struct error *err)
{
    struct db_params p;
    DB_PARAMS_IDS(&p, catalog_id, target_bytes);
    PGresult *r = db_exec(
        pg,
        "WITH s AS (SELECT d.table_id, d.spec_id,"
        "  (SELECT json_agg(v.value ORDER BY v.key_index) FROM hog_file_partition_value v"
        "   WHERE v.catalog_id = d.catalog_id AND v.data_file_id = d.data_file_id)::text AS part"
        "  FROM hog_data_file d JOIN hog_table t"
        "  ON t.catalog_id = d.catalog_id AND t.table_id = d.table_id"
        "  WHERE d.catalog_id = $1 AND d.end_snapshot IS NULL"
        "  AND t.dropped_snapshot IS NULL AND d.file_size_bytes < $2),"
        " g AS (SELECT count(*) AS n FROM s GROUP BY table_id, spec_id, part)"
        "SELECT coalesce(sum(n), 0)::bigint, count(*),"
        " coalesce(sum(n) FILTER (WHERE n = 1), 0)::bigint FROM g",
        &p, err);
    if (!r)
        return -1;
    out->small_files = db_i64(r, 0, 0);
    out->partitions = db_i64(r, 0, 1);
    out->alone_files = db_i64(r, 0, 2);
    PQclear(r);
    return 0;
}

/* What a commit reads (commit_reads.h). */
#include "server/store/commit_reads.h"

#include <string.h>

#include "server/db/db.h"
#include "server/store/change_probe.h"

/* The request's tables (namespace $2[i], name $3[i], ordinality i + 1)
 * joined to their live namespace and table-version rows. */
#define LIVE_TABLES_FROM                                                                           \
    " FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS u(ns, name, ord)"                     \
    " JOIN hog_namespace n ON n.catalog_id = $1 AND n.name = u.ns AND n.dropped_snapshot IS NULL"  \
    " JOIN hog_table_version v ON v.catalog_id = $1 AND v.namespace_id = n.namespace_id"           \
    "  AND v.name = u.name AND v.end_snapshot IS NULL"

/* Whether table t has a change of one kind after snapshot $4. */
#define CHANGED_SINCE(kind) STORE_CHANGED_AFTER("$1", "t.table_id", kind, "$4")

/* Appends never conflict with appends: only DDL on a touched table
 * invalidates what the writer read. */
#define DDL_SINCE " (" CHANGED_SINCE("table_dropped") " OR" CHANGED_SINCE("table_altered") ")"
/* A guarded table's rows must be as the writer read them: any insert or
 * delete since conflicts (compaction keeps the rows: it never does). */
#define ROWS_SINCE                                                                                 \
    " (" CHANGED_SINCE("table_created") " OR" CHANGED_SINCE(                                       \
        "table_inserted_into") " OR" CHANGED_SINCE("table_deleted_from") ")"

/* $1 catalog, $2/$3 the tables' names, $4 read_snapshot (NULL: none), $5
 * per table (in the names' order) 1 when it is guarded, else 0: a
 * subscript per row, where a list of the guarded tables' ordinals was a
 * search of it per row. */
static const char live_tables_sql[] =
    "SELECT u.ord, t.table_id, t.table_uuid::text, s.spec_id,"
    " (SELECT count(*) FROM hog_partition_field f WHERE f.catalog_id = $1"
    "   AND f.table_id = t.table_id AND f.spec_id = s.spec_id),"
    " ts.next_row_id, ts.file_size_bytes," DDL_SINCE ","
    " ($5::bigint[])[u.ord] = 1 AND" ROWS_SINCE LIVE_TABLES_FROM
    " JOIN hog_table t ON t.catalog_id = $1 AND t.table_id = v.table_id"
    "  AND t.dropped_snapshot IS NULL"
    " LEFT JOIN hog_partition_spec s ON s.catalog_id = $1 AND s.table_id = t.table_id"
    "  AND s.end_snapshot IS NULL"
    " LEFT JOIN hog_table_stats ts ON ts.catalog_id = $1 AND ts.table_id = t.table_id";

/* The table ids are resolved first (an InitPlan, run once) and the columns
 * then read by (catalog, table) from hog_column_live. As a semi-join, a
 * plan made while the catalog's tables were still unanalyzed walked every
 * live column of the catalog and probed the namespace's tables for each:
 * 3 s per commit with 500 tables of 20 columns, for the minute until
 * autovacuum analyzed them (bench/scale). */
static const char live_columns_sql[] =
    "SELECT c.table_id, c.field_id, c.col_type,"
    " coalesce((c.type_params->>'precision')::int, 0),"
    " coalesce((c.type_params->>'scale')::int, 0), coalesce(c.parent_field_id, 0)"
    " FROM hog_column c WHERE c.catalog_id = $1 AND c.end_snapshot IS NULL"
    "  AND c.table_id = ANY (ARRAY(SELECT v.table_id" LIVE_TABLES_FROM "))"
    " ORDER BY c.table_id, c.field_id";

/* Sorted by the target, for store_commit_dv_target's binary search. */
static const char dv_targets_sql[] =
    "SELECT f.data_file_id, f.table_id, f.begin_snapshot, f.end_snapshot,"
    " f.record_count, d.delete_file_id, d.begin_snapshot, d.delete_count"
    " FROM hog_data_file f LEFT JOIN hog_delete_file d"
    "  ON d.catalog_id = f.catalog_id AND d.data_file_id = f.data_file_id"
    "  AND d.end_snapshot IS NULL"
    " WHERE f.catalog_id = $1 AND f.data_file_id = ANY($2::bigint[])"
    " ORDER BY f.data_file_id";

/* A queued path may still be deleted by the drain (retryable); a path any
 * file or DV row names, live or ended, is one object registered twice:
 * its rows would count twice, and the expiry of one row would delete the
 * other's data. A claimed path is the owner's ($3) alone; with claims
 * required ($4), every path ($2, of kind $5) must be an active claim of
 * the owner of its kind. The first column is enum
 * store_commit_path_state, and the first state found answers. */
static const char path_guard_sql[] =
    "SELECT * FROM ((SELECT 1, path FROM hog_file_removal WHERE catalog_id = $1"
    "  AND drained_at IS NULL AND path = ANY($2::text[]) LIMIT 1)"
    " UNION ALL (SELECT 2, path FROM hog_data_file WHERE catalog_id = $1"
    "  AND path = ANY($2::text[]) LIMIT 1)"
    " UNION ALL (SELECT 2, path FROM hog_delete_file WHERE catalog_id = $1"
    "  AND path = ANY($2::text[]) LIMIT 1)"
    " UNION ALL (SELECT 3, path FROM hog_upload WHERE catalog_id = $1"
    "  AND path = ANY($2::text[]) AND (state <> 'active' OR owner IS DISTINCT FROM $3::uuid)"
    "  LIMIT 1)"
    " UNION ALL (SELECT 4, u.path FROM unnest($2::text[], $5::text[]) AS u(path, kind)"
    "  WHERE $4::boolean AND NOT EXISTS (SELECT 1 FROM hog_upload h WHERE h.catalog_id = $1"
    "   AND h.path = u.path AND h.state = 'active' AND h.owner = $3::uuid"
    "   AND h.file_kind = u.kind) LIMIT 1)) g(state, path) ORDER BY state LIMIT 1";

void store_commit_reads_init(struct store_commit_reads *r, const struct catalog_ident *cat)
{
    memset(r, 0, sizeof *r);
    r->cat = *cat;
    pg_array_init(&r->namespaces);
    pg_array_init(&r->names);
    pg_array_init(&r->guarded);
    pg_array_init(&r->dv_ids);
    pg_array_init(&r->paths);
    pg_array_init(&r->kinds);
}

void store_commit_reads_free(struct store_commit_reads *r)
{
    pg_array_free(&r->namespaces);
    pg_array_free(&r->names);
    pg_array_free(&r->guarded);
    pg_array_free(&r->dv_ids);
    pg_array_free(&r->paths);
    pg_array_free(&r->kinds);
}

void store_commit_reads_table(struct store_commit_reads *r, const char *namespace_name,
                              const char *name, bool guarded)
{
    pg_array_str(&r->namespaces, namespace_name);
    pg_array_str(&r->names, name);
    pg_array_i64(&r->guarded, guarded ? 1 : 0);
    r->ntables++;
}

void store_commit_reads_path(struct store_commit_reads *r, const char *path, const char *kind)
{
    pg_array_str(&r->paths, path);
    pg_array_str(&r->kinds, kind);
}

void store_commit_reads_dv_target(struct store_commit_reads *r, int64_t data_file_id)
{
    pg_array_i64(&r->dv_ids, data_file_id);
}

int store_commit_queue_reads(struct store_commit_batch *s, struct store_commit_reads *r,
                             struct store_commit_read_slots *at, struct error *err)
{
    *at = (struct store_commit_read_slots){-1, -1, -1, -1, -1, -1};
    const char *namespaces = pg_array_text(&r->namespaces), *names = pg_array_text(&r->names);
    const char *guarded = pg_array_text(&r->guarded), *dv_ids = pg_array_text(&r->dv_ids);
    const char *paths = pg_array_text(&r->paths), *kinds = pg_array_text(&r->kinds);
    if (!namespaces || !names || !guarded || !dv_ids || !paths || !kinds)
        return error_nomem(err);
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, r->cat.id);
    db_param_str(&p, r->cat.name);
    db_param_str(&p, r->cat.data_path);
    if ((at->head = store_commit_batch_add(
             s,
             "SELECT last_snapshot_id, earliest_snapshot_id,"
             " (extract(epoch FROM earliest_snapshot_time) * 1000000)::bigint"
             " FROM hog_catalog WHERE catalog_id = $1 AND name = $2 AND data_path = $3",
             &p, "catalog head", err)) < 0)
        return -1;
    if (r->receipt) {
        db_params_init(&p);
        db_param_i64(&p, r->cat.id);
        db_param_str(&p, r->key);
        if ((at->receipt = store_commit_batch_add(s,
                                                  "SELECT fingerprint, snapshot_id, schema_version"
                                                  " FROM hog_commit_receipt WHERE catalog_id = $1"
                                                  " AND idempotency_key = $2",
                                                  &p, "receipt lookup", err)) < 0)
            return -1;
    }
    db_params_init(&p);
    db_param_i64(&p, r->cat.id);
    db_param_str(&p, namespaces);
    db_param_str(&p, names);
    if (r->columns &&
        (at->columns = store_commit_batch_add(s, live_columns_sql, &p, "columns", err)) < 0)
        return -1;
    if (r->has_read_snapshot)
        db_param_i64(&p, r->read_snapshot);
    else
        db_param_null(&p);
    db_param_str(&p, guarded);
    if ((at->live = store_commit_batch_add(s, live_tables_sql, &p, "table lookup", err)) < 0)
        return -1;
    if (r->dv_targets) {
        db_params_init(&p);
        db_param_i64(&p, r->cat.id);
        db_param_str(&p, dv_ids);
        if ((at->dv_targets =
                 store_commit_batch_add(s, dv_targets_sql, &p, "deletion vector targets", err)) < 0)
            return -1;
    }
    if (r->path_guard) {
        db_params_init(&p);
        db_param_i64(&p, r->cat.id);
        db_param_str(&p, paths);
        db_param_str(&p, r->upload_owner);
        db_param_bool(&p, r->claims_required);
        db_param_str(&p, kinds);
        if ((at->paths = store_commit_batch_add(s, path_guard_sql, &p, "path checks", err)) < 0)
            return -1;
    }
    return 0;
}

/* The first row's two bigints: 1, or 0 when there is no row. */
static int first_row_pair(const PGresult *r, int64_t *a, int64_t *b)
{
    if (PQntuples(r) == 0)
        return 0;
    *a = db_i64(r, 0, 0);
    *b = db_i64(r, 0, 1);
    return 1;
}

/* A nullable bigint: whether it is there, with *out its value or 0. */
static bool optional_i64(const PGresult *r, int row, int col, int64_t *out)
{
    bool present = !db_isnull(r, row, col);
    *out = present ? db_i64(r, row, col) : 0;
    return present;
}

int store_commit_head(const struct store_commit_batch *s, int at, struct store_commit_head *out)
{
    const PGresult *r = s->b.results[at];
    if (first_row_pair(r, &out->head, &out->earliest) == 0)
        return 0;
    out->has_earliest_time = optional_i64(r, 0, 2, &out->earliest_time_us);
    return 1;
}

int store_commit_receipt(const struct store_commit_batch *s, int at, struct arena *arena,
                         struct store_commit_receipt *out, struct error *err)
{
    const PGresult *r = s->b.results[at];
    if (PQntuples(r) == 0)
        return 0;
    size_t n = 0;
    unsigned char *fp = PQunescapeBytea((const unsigned char *)db_str(r, 0, 0), &n);
    if (!fp)
        return error_nomem(err);
    uint8_t *copy = arena_alloc(arena, n ? n : 1);
    if (copy && n)
        memcpy(copy, fp, n);
    PQfreemem(fp);
    if (!copy)
        return error_nomem(err);
    out->fingerprint = copy;
    out->fingerprint_len = n;
    out->snapshot_id = db_i64(r, 0, 1);
    out->schema_version = db_i64(r, 0, 2);
    return 1;
}

int store_commit_live_count(const struct store_commit_batch *s, int at)
{
    return PQntuples(s->b.results[at]);
}

void store_commit_live_table(const struct store_commit_batch *s, int at, int i,
                             struct store_commit_live_table *out)
{
    const PGresult *r = s->b.results[at];
    out->ordinal = db_i64(r, i, 0);
    out->table_id = db_i64(r, i, 1);
    out->uuid = db_str(r, i, 2);
    out->has_spec = optional_i64(r, i, 3, &out->spec_id);
    out->nspec_fields = db_i64(r, i, 4);
    out->has_allocator = optional_i64(r, i, 5, &out->next_row_id);
    out->stats_bytes = db_i64(r, i, 6);
    out->ddl_since_read = db_bool(r, i, 7);
    out->data_since_read = db_bool(r, i, 8);
}

/* The first row of r whose integer column col is not below v, the rows
 * sorted by that column: a binary search, so a lookup per request item
 * stays n log n over the request (a scan per item was quadratic in a
 * body's deletion vectors). */
static int first_row_at_least(const PGresult *r, int col, int64_t v)
{
    int lo = 0, hi = PQntuples(r);
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (db_i64(r, mid, col) < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int store_commit_columns_of(const struct store_commit_batch *s, int at, int64_t table_id,
                            int *first)
{
    const PGresult *r = s->b.results[at];
    int rows = PQntuples(r), start = first_row_at_least(r, 0, table_id);
    int end = start;
    while (end < rows && db_i64(r, end, 0) == table_id)
        end++;
    *first = start;
    return end - start;
}

void store_commit_column(const struct store_commit_batch *s, int at, int i,
                         struct store_commit_column *out)
{
    const PGresult *r = s->b.results[at];
    out->field_id = db_i64(r, i, 1);
    out->type = db_str(r, i, 2);
    out->precision = (int)db_i64(r, i, 3);
    out->scale = (int)db_i64(r, i, 4);
    out->parent_field_id = db_i64(r, i, 5);
}

int store_commit_dv_target(const struct store_commit_batch *s, int at, int64_t data_file_id,
                           struct store_commit_dv_target *out)
{
    const PGresult *r = s->b.results[at];
    int row = first_row_at_least(r, 0, data_file_id);
    if (row == PQntuples(r) || db_i64(r, row, 0) != data_file_id)
        return 0;
    out->table_id = db_i64(r, row, 1);
    out->begin = db_i64(r, row, 2);
    out->ended = optional_i64(r, row, 3, &out->end);
    out->records = db_i64(r, row, 4);
    out->has_live_dv = optional_i64(r, row, 5, &out->dv_id);
    out->dv_begin = out->has_live_dv ? db_i64(r, row, 6) : 0;
    out->dv_count = out->has_live_dv ? db_i64(r, row, 7) : 0;
    return 1;
}

enum store_commit_path_state store_commit_path_guard(const struct store_commit_batch *s, int at,
                                                     const char **path)
{
    const PGresult *r = s->b.results[at];
    if (PQntuples(r) == 0)
        return STORE_COMMIT_PATH_FREE;
    *path = db_str(r, 0, 1);
    switch (db_i64(r, 0, 0)) {
    case 1: return STORE_COMMIT_PATH_QUEUED;
    case 2: return STORE_COMMIT_PATH_REGISTERED;
    case 3: return STORE_COMMIT_PATH_CLAIMED;
    default: return STORE_COMMIT_PATH_UNCLAIMED;
    }
}

int store_commit_dropped_at(struct db_conn *db, int64_t catalog_id, const char *namespace_name,
                            const char *name, int64_t *snapshot, struct error *err)
{
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, catalog_id);
    db_param_str(&p, namespace_name);
    db_param_str(&p, name);
    return db_scalar_i64(
        db->pg,
        "SELECT max(t.dropped_snapshot) FROM hog_namespace n"
        " JOIN hog_table_version v ON v.catalog_id = n.catalog_id"
        "  AND v.namespace_id = n.namespace_id"
        " JOIN hog_table t ON t.catalog_id = v.catalog_id AND t.table_id = v.table_id"
        " WHERE n.catalog_id = $1 AND n.name = $2 AND v.name = $3"
        "  AND t.dropped_snapshot IS NOT NULL AND v.end_snapshot = t.dropped_snapshot",
        &p, snapshot, err);
}

int store_commit_receipt_get(struct db_conn *db, int64_t catalog_id, const char *key,
                             int64_t *snapshot_id, int64_t *schema_version, struct error *err)
{
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, catalog_id);
    db_param_str(&p, key);
    PGresult *r = db_exec(db->pg,
                          "SELECT snapshot_id, schema_version FROM hog_commit_receipt"
                          " WHERE catalog_id = $1 AND idempotency_key = $2::uuid",
                          &p, err);
    if (!r)
        return -1;
    int found = first_row_pair(r, snapshot_id, schema_version);
    PQclear(r);
    return found;
}

#include "server/commit.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lake/bounds.h"
#include "lake/types.h"
#include "server/catalog.h"
#include "server/db/db.h"
#include "server/db/pgarray.h"
#include "server/metrics.h"
#include "server/server.h"
#include "util/base64.h"
#include "util/log.h"

/* A live leaf or container column, for checking statistics. */
struct column_info {
    int64_t field_id;
    enum lake_type type;
    int precision, scale;
    int64_t parent_field_id; /* 0 for a top-level column */
    bool repeated;           /* under a list or map: may hold more values than the file has rows */
};

/* What the commit learns about each table it touches. */
struct table_live {
    int64_t table_id;
    const char *uuid;
    bool has_spec;
    int64_t spec_id;
    int64_t nspec_fields;
    struct column_info *cols; /* sorted by field id; loaded when stats are sent */
    size_t ncols;
    int64_t row_id_start; /* the first row id of this commit's files */
    int64_t records, bytes;
};

struct commit_ctx {
    struct srv_req *req;
    struct catalog_row cat;
    struct ddl_txn txn; /* lock, head, and the allocated snapshot */
    struct commit_request *c;
    struct table_live *live; /* one per c->tables entry */
    int64_t first_file_id;
    int64_t repaired; /* statistics fixed instead of refused */
    bool in_txn;
};

/* ---- small helpers ---- */

static int fail_nomem(struct api_error *err)
{
    return api_nomem(err);
}

static const char *table_label(struct commit_ctx *x, size_t i)
{
    const struct commit_table *t = &x->c->tables[i];
    return arena_sprintf(&x->req->arena, "%s.%s", t->namespace_name, t->name);
}

/* The array literal's text, or a 500-free failure when memory ran out. */
static const char *array_text(struct pg_array *a, struct api_error *err)
{
    const char *t = pg_array_text(a);
    if (!t)
        fail_nomem(err);
    return t;
}

static int check_paths(struct commit_ctx *x, struct api_error *err)
{
    for (size_t t = 0; t < x->c->ntables; t++) {
        const struct commit_table *ct = &x->c->tables[t];
        for (size_t i = 0; i < ct->nfiles; i++)
            if (commit_check_path(x->cat.data_path, ct->files[i].path, "file path", err) != 0)
                return -1;
        for (size_t i = 0; i < ct->ndvs; i++)
            if (commit_check_path(x->cat.data_path, ct->dvs[i].path, "deletion vector path", err) !=
                0)
                return -1;
    }
    return 0;
}

/* ---- step 3: replays ---- */

static json_t *commit_result(int64_t snapshot_id, int64_t schema_version)
{
    return json_pack("{s:I,s:I}", "snapshot_id", (json_int_t)snapshot_id, "schema_version",
                     (json_int_t)schema_version);
}

/* *replayed is set when the key's receipt answers the request. */
static int replay_check(struct commit_ctx *x, json_t **result, bool *replayed,
                        struct api_error *err)
{
    *replayed = false;
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, x->cat.id);
    db_param_str(&p, x->c->key);
    PGresult *r = req_query(x->req,
                            "SELECT fingerprint, snapshot_id, schema_version FROM "
                            "hog_commit_receipt WHERE catalog_id = $1 AND idempotency_key = $2",
                            &p, "receipt lookup", err);
    if (!r)
        return -1;
    if (PQntuples(r) == 0) {
        PQclear(r);
        return 0;
    }
    size_t n = 0;
    unsigned char *fp = PQunescapeBytea((const unsigned char *)db_str(r, 0, 0), &n);
    int64_t snapshot = db_i64(r, 0, 1), version = db_i64(r, 0, 2);
    PQclear(r);
    if (!fp)
        return fail_nomem(err);
    bool known = n == COMMIT_FINGERPRINT_BYTES && fp[0] == COMMIT_FINGERPRINT_VERSION;
    bool same = known && memcmp(fp, x->c->fingerprint, n) == 0;
    PQfreemem(fp);
    if (known && !same)
        return api_validation(err,
                              "idempotency_key %s was already used with a different request "
                              "(snapshot %lld)",
                              x->c->key, (long long)snapshot);
    if (!known) {
        /* A receipt from a format this server does not know: the safest
         * answer is the stored outcome (never publish twice). */
        metrics_counter_add(x->req->srv->metrics, "hoglake_receipt_unknown_digest_total", "", 1);
    }
    if (!(*result = commit_result(snapshot, version)))
        return fail_nomem(err);
    *replayed = true;
    return 0;
}

/* ---- step 7: the live tables ---- */

static int resolve_table(struct commit_ctx *x, size_t i, struct api_error *err)
{
    const struct commit_table *t = &x->c->tables[i];
    struct table_live *l = &x->live[i];
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, x->cat.id);
    db_param_str(&p, t->namespace_name);
    db_param_str(&p, t->name);
    PGresult *r =
        req_query(x->req,
                  "SELECT t.table_id, t.table_uuid::text FROM hog_namespace n"
                  " JOIN hog_table_version v ON v.catalog_id = n.catalog_id"
                  "  AND v.namespace_id = n.namespace_id"
                  " JOIN hog_table t ON t.catalog_id = v.catalog_id"
                  "  AND t.table_id = v.table_id"
                  " WHERE n.catalog_id = $1 AND n.name = $2 AND n.dropped_snapshot IS NULL"
                  "  AND v.name = $3 AND v.end_snapshot IS NULL"
                  "  AND t.dropped_snapshot IS NULL",
                  &p, "table lookup", err);
    if (!r)
        return -1;
    if (PQntuples(r) == 1) {
        l->table_id = db_i64(r, 0, 0);
        l->uuid = arena_strdup(&x->req->arena, db_str(r, 0, 1));
        PQclear(r);
        if (!l->uuid)
            return fail_nomem(err);
        for (size_t k = 0; k < t->nexpected; k++) {
            if (strcmp(t->expected_uuids[k], l->uuid) != 0) {
                json_t *tables = json_pack("[s]", table_label(x, i));
                if (tables)
                    api_error_set_extra(err, "tables", tables);
                api_error_set_extra(err, "retry", json_string("re-prepare"));
                return api_conflict(err, "table_recreated",
                                    "table '%s.%s' is now incarnation %s, not the expected %s",
                                    t->namespace_name, t->name, l->uuid, t->expected_uuids[k]);
            }
        }
        return 0;
    }
    PQclear(r);
    /* Dropped (a version row ended by the drop) or never there. */
    r = req_query(x->req,
                  "SELECT max(t.dropped_snapshot) FROM hog_namespace n"
                  " JOIN hog_table_version v ON v.catalog_id = n.catalog_id"
                  "  AND v.namespace_id = n.namespace_id"
                  " JOIN hog_table t ON t.catalog_id = v.catalog_id AND t.table_id = v.table_id"
                  " WHERE n.catalog_id = $1 AND n.name = $2 AND v.name = $3"
                  "  AND t.dropped_snapshot IS NOT NULL AND v.end_snapshot = t.dropped_snapshot",
                  &p, "dropped table lookup", err);
    if (!r)
        return -1;
    bool dropped = !db_isnull(r, 0, 0);
    int64_t at = dropped ? db_i64(r, 0, 0) : 0;
    PQclear(r);
    if (dropped)
        return api_conflict(err, "table_dropped", "table '%s.%s' was dropped at snapshot %lld",
                            t->namespace_name, t->name, (long long)at);
    return api_validation(err, "unknown table '%s.%s' in catalog '%s'", t->namespace_name, t->name,
                          x->cat.name);
}

/* ---- step 8: conflicts since read_snapshot ---- */

static int conflict_check(struct commit_ctx *x, struct api_error *err)
{
    int64_t rs = x->c->read_snapshot;
    if (rs > x->txn.head)
        return api_validation(err, "read_snapshot %lld is after the catalog's head %lld",
                              (long long)rs, (long long)x->txn.head);
    if (rs < x->txn.earliest) {
        x->cat.earliest = x->txn.earliest;
        return timetravel_expired(err, &x->cat, rs, "read_snapshot");
    }
    struct pg_array ids;
    pg_array_init(&ids);
    for (size_t i = 0; i < x->c->ntables; i++)
        pg_array_i64(&ids, x->live[i].table_id);
    const char *ids_text = array_text(&ids, err);
    if (!ids_text) {
        pg_array_free(&ids);
        return -1;
    }
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, x->cat.id);
    db_param_i64(&p, rs);
    db_param_str(&p, ids_text);
    /* Appends never conflict with appends: only DDL on a touched table
     * (and, for guarded delete targets, which /commit has none of, their
     * data changes) invalidates what the writer read. */
    PGresult *r = req_query(x->req,
                            "SELECT DISTINCT object_id, kind IN ('table_dropped', 'table_altered')"
                            " FROM hog_snapshot_change WHERE catalog_id = $1 AND snapshot_id > $2"
                            "  AND object_id = ANY($3::bigint[])"
                            "  AND kind IN ('table_dropped', 'table_altered')",
                            &p, "conflict check", err);
    pg_array_free(&ids);
    if (!r)
        return -1;
    int n = PQntuples(r);
    if (n == 0) {
        PQclear(r);
        return 0;
    }
    bool all_ddl = true;
    json_t *tables = json_array();
    for (int row = 0; row < n; row++) {
        all_ddl &= db_bool(r, row, 1);
        int64_t id = db_i64(r, row, 0);
        for (size_t i = 0; i < x->c->ntables; i++)
            if (x->live[i].table_id == id && tables)
                json_array_append_new(tables, json_string(table_label(x, i)));
    }
    PQclear(r);
    if (!all_ddl) {
        json_decref(tables);
        return api_conflict(err, "commit_conflict",
                            "a touched table changed since read_snapshot %lld; refresh and retry",
                            (long long)rs);
    }
    /* Sorted, so the answer does not depend on row order. */
    size_t nt = json_array_size(tables);
    for (size_t a = 1; a < nt; a++)
        for (size_t b = a; b > 0 && strcmp(json_string_value(json_array_get(tables, b - 1)),
                                           json_string_value(json_array_get(tables, b))) > 0;
             b--) {
            json_t *tmp = json_incref(json_array_get(tables, b));
            json_array_set(tables, b, json_array_get(tables, b - 1));
            json_array_set_new(tables, b - 1, tmp);
        }
    api_error_set_extra(err, "tables", tables);
    api_error_set_extra(err, "read_snapshot", json_integer(rs));
    api_error_set_extra(err, "retry", json_string("re-prepare"));
    return api_conflict(err, "ddl_since_read_snapshot",
                        "a touched table's definition changed after read_snapshot %lld; "
                        "re-prepare against the new definition",
                        (long long)rs);
}

/* ---- step 9: validating appends ---- */

static int load_spec(struct commit_ctx *x, size_t i, struct api_error *err)
{
    struct table_live *l = &x->live[i];
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, x->cat.id);
    db_param_i64(&p, l->table_id);
    PGresult *r = req_query(x->req,
                            "SELECT s.spec_id, (SELECT count(*) FROM hog_partition_field f"
                            "  WHERE f.catalog_id = s.catalog_id AND f.table_id = s.table_id"
                            "   AND f.spec_id = s.spec_id)"
                            " FROM hog_partition_spec s WHERE s.catalog_id = $1"
                            "  AND s.table_id = $2 AND s.end_snapshot IS NULL",
                            &p, "partition spec", err);
    if (!r)
        return -1;
    if (PQntuples(r) == 1) {
        l->has_spec = true;
        l->spec_id = db_i64(r, 0, 0);
        l->nspec_fields = db_i64(r, 0, 1);
    }
    PQclear(r);
    return 0;
}

static const struct column_info *find_column(const struct table_live *l, int64_t field_id)
{
    size_t lo = 0, hi = l->ncols;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (l->cols[mid].field_id == field_id)
            return &l->cols[mid];
        if (l->cols[mid].field_id < field_id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static int load_columns(struct commit_ctx *x, size_t i, struct api_error *err)
{
    struct table_live *l = &x->live[i];
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, x->cat.id);
    db_param_i64(&p, l->table_id);
    PGresult *r =
        req_query(x->req,
                  "SELECT field_id, col_type, coalesce((type_params->>'precision')::int, 0),"
                  " coalesce((type_params->>'scale')::int, 0),"
                  " coalesce(parent_field_id, 0) FROM hog_column"
                  " WHERE catalog_id = $1 AND table_id = $2 AND end_snapshot IS NULL"
                  " ORDER BY field_id",
                  &p, "columns", err);
    if (!r)
        return -1;
    int n = PQntuples(r);
    l->cols = arena_calloc(&x->req->arena, (size_t)(n ? n : 1), sizeof *l->cols);
    if (!l->cols) {
        PQclear(r);
        return fail_nomem(err);
    }
    for (int row = 0; row < n; row++) {
        struct column_info *c = &l->cols[row];
        c->field_id = db_i64(r, row, 0);
        const char *why;
        if (lake_type_lookup(db_str(r, row, 1), &c->type, &why) != LAKE_TYPE_OK) {
            PQclear(r);
            return api_fail(err, 500, "internal_error", "stored column type '%s' is unknown",
                            db_str(r, row, 1));
        }
        c->precision = (int)db_i64(r, row, 2);
        c->scale = (int)db_i64(r, row, 3);
        c->parent_field_id = db_i64(r, row, 4);
    }
    l->ncols = (size_t)n;
    PQclear(r);
    /* Parents have lower field ids, so one pass in id order settles each
     * column from its parent. */
    for (size_t k = 0; k < l->ncols; k++) {
        struct column_info *c = &l->cols[k];
        const struct column_info *parent =
            c->parent_field_id ? find_column(l, c->parent_field_id) : NULL;
        if (parent)
            c->repeated = parent->repeated || parent->type == LT_LIST || parent->type == LT_MAP;
    }
    return 0;
}

/* Decodes a base64 bound into the request arena; *out stays NULL (and
 * the repair is counted) when it is not base64 at all. */
static int decode_bound(struct commit_ctx *x, const char *b64, uint8_t **out, size_t *out_len,
                        struct api_error *err)
{
    *out = NULL;
    *out_len = 0;
    if (!b64)
        return 0;
    struct buf raw = BUF_INIT;
    if (base64_decode(b64, strlen(b64), &raw) != NULL) {
        buf_free(&raw);
        x->repaired++;
        return 0;
    }
    *out = arena_alloc(&x->req->arena, raw.len ? raw.len : 1);
    if (!*out) {
        buf_free(&raw);
        return fail_nomem(err);
    }
    if (raw.len)
        memcpy(*out, raw.data, raw.len);
    *out_len = raw.len;
    buf_free(&raw);
    return 0;
}

/* Sanitizes a stat's bounds as the contract asks (bounds.h): undecodable,
 * NaN and inverted bounds are dropped, zero bounds canonicalised. */
static int take_bounds(struct commit_ctx *x, const struct column_info *col, struct commit_stat *s,
                       struct api_error *err)
{
    uint8_t *lo, *hi;
    size_t lo_len, hi_len;
    if (decode_bound(x, s->lower_b64, &lo, &lo_len, err) != 0 ||
        decode_bound(x, s->upper_b64, &hi, &hi_len, err) != 0)
        return -1;
    struct bound_slot lower = {lo, lo_len, lo != NULL, BOUND_KEEP};
    struct bound_slot upper = {hi, hi_len, hi != NULL, BOUND_KEEP};
    x->repaired += bound_sanitize_pair(col->type, col->precision, col->scale, &lower, &upper);
    s->lower = lower.present ? lower.data : NULL;
    s->lower_len = lower.present ? lower.len : 0;
    s->upper = upper.present ? upper.data : NULL;
    s->upper_len = upper.present ? upper.len : 0;
    return 0;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int check_stats(struct commit_ctx *x, size_t ti, size_t fi, struct api_error *err)
{
    const struct commit_table *t = &x->c->tables[ti];
    struct commit_file *f = &t->files[fi];
    const struct table_live *l = &x->live[ti];
    if (f->nstats == 0)
        return 0;
    int64_t *ids = arena_calloc(&x->req->arena, f->nstats, sizeof *ids);
    if (!ids)
        return fail_nomem(err);
    for (size_t i = 0; i < f->nstats; i++)
        ids[i] = f->stats[i].field_id;
    qsort(ids, f->nstats, sizeof *ids, cmp_i64);
    for (size_t i = 1; i < f->nstats; i++)
        if (ids[i] == ids[i - 1])
            return api_validation(err, "%s.%s: file '%.300s' has two statistics for field id %lld",
                                  t->namespace_name, t->name, f->path, (long long)ids[i]);
    for (size_t i = 0; i < f->nstats; i++) {
        struct commit_stat *s = &f->stats[i];
        const struct column_info *col = find_column(l, s->field_id);
        if (!col)
            return api_validation(err,
                                  "%s.%s: file '%.300s' has statistics for field id %lld, "
                                  "which is not a live column",
                                  t->namespace_name, t->name, f->path, (long long)s->field_id);
        if (lake_type_is_container(col->type) || col->type == LT_VARIANT)
            return api_validation(err,
                                  "%s.%s: file '%.300s' has statistics for field id %lld, a "
                                  "%s column, which has none",
                                  t->namespace_name, t->name, f->path, (long long)s->field_id,
                                  lake_type_name(col->type));
        /* Impossible counts are clamped rather than refused: a column
         * outside any list or map has one value per row. */
        if (!col->repeated && s->value_count > f->record_count) {
            s->value_count = f->record_count;
            x->repaired++;
        }
        if (s->null_count > s->value_count) {
            s->null_count = s->value_count;
            x->repaired++;
        }
        bool floating = col->type == LT_FLOAT || col->type == LT_DOUBLE;
        if (s->has_nan_count && !floating) {
            s->has_nan_count = false;
            x->repaired++;
        } else if (s->has_nan_count && s->nan_count > s->value_count - s->null_count) {
            s->nan_count = s->value_count - s->null_count;
            x->repaired++;
        }
        if (take_bounds(x, col, s, err) != 0)
            return -1;
    }
    return 0;
}

static int validate_appends(struct commit_ctx *x, size_t ti, struct api_error *err)
{
    const struct commit_table *t = &x->c->tables[ti];
    struct table_live *l = &x->live[ti];
    if (t->nfiles == 0)
        return 0;
    if (load_spec(x, ti, err) != 0)
        return -1;
    bool stats = false;
    for (size_t i = 0; i < t->nfiles; i++)
        stats |= t->files[i].nstats > 0;
    if (stats && load_columns(x, ti, err) != 0)
        return -1;
    bool partitioned = l->has_spec && l->nspec_fields > 0;
    for (size_t i = 0; i < t->nfiles; i++) {
        const struct commit_file *f = &t->files[i];
        if (partitioned &&
            (!f->has_partition_values || (int64_t)f->npartition_values != l->nspec_fields))
            return api_validation(err,
                                  "%s.%s is partitioned by %lld field(s); file '%.300s' carries "
                                  "%zu partition value(s)",
                                  t->namespace_name, t->name, (long long)l->nspec_fields, f->path,
                                  f->has_partition_values ? f->npartition_values : 0);
        if (!partitioned && f->has_partition_values)
            return api_validation(err,
                                  "%s.%s is not partitioned; file '%.300s' carries partition "
                                  "values",
                                  t->namespace_name, t->name, f->path);
        if (__builtin_add_overflow(l->records, f->record_count, &l->records) ||
            __builtin_add_overflow(l->bytes, f->file_size_bytes, &l->bytes))
            return api_validation(err, "%s.%s: the files' record counts or sizes overflow",
                                  t->namespace_name, t->name);
        if (check_stats(x, ti, i, err) != 0)
            return -1;
    }
    return 0;
}

/* ---- steps 10 and 15: deletion vectors ---- */

struct dv_target {
    int64_t table_id, begin, end, records;
    bool ended;
    bool has_live_dv;
    int64_t dv_id, dv_begin, dv_count;
};

/* Checks every DV against its target (contract §4.5); fills targets[]
 * parallel to the table's DVs. */
static int validate_dvs(struct commit_ctx *x, size_t ti, struct dv_target *targets,
                        struct api_error *err)
{
    const struct commit_table *t = &x->c->tables[ti];
    if (t->ndvs == 0)
        return 0;
    for (size_t i = 0; i < t->ndvs; i++)
        for (size_t k = 0; k < i; k++)
            if (t->dvs[i].data_file_id == t->dvs[k].data_file_id)
                return api_validation(err,
                                      "%s.%s: two deletion vectors for data file %lld in one "
                                      "commit; merge them",
                                      t->namespace_name, t->name,
                                      (long long)t->dvs[i].data_file_id);
    struct pg_array ids;
    pg_array_init(&ids);
    for (size_t i = 0; i < t->ndvs; i++)
        pg_array_i64(&ids, t->dvs[i].data_file_id);
    const char *ids_text = array_text(&ids, err);
    if (!ids_text) {
        pg_array_free(&ids);
        return -1;
    }
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, x->cat.id);
    db_param_str(&p, ids_text);
    PGresult *r = req_query(x->req,
                            "SELECT f.data_file_id, f.table_id, f.begin_snapshot, f.end_snapshot,"
                            " f.record_count, d.delete_file_id, d.begin_snapshot, d.delete_count"
                            " FROM hog_data_file f LEFT JOIN hog_delete_file d"
                            "  ON d.catalog_id = f.catalog_id AND d.data_file_id = f.data_file_id"
                            "  AND d.end_snapshot IS NULL"
                            " WHERE f.catalog_id = $1 AND f.data_file_id = ANY($2::bigint[])",
                            &p, "deletion vector targets", err);
    pg_array_free(&ids);
    if (!r)
        return -1;
    int rows = PQntuples(r);
    int64_t rs = x->c->read_snapshot;
    int rc = 0;
    for (size_t i = 0; i < t->ndvs && rc == 0; i++) {
        const struct commit_dv *d = &t->dvs[i];
        struct dv_target *g = &targets[i];
        int row = -1;
        for (int k = 0; k < rows; k++)
            if (db_i64(r, k, 0) == d->data_file_id)
                row = k;
        if (row < 0) {
            rc = api_validation(err,
                                "%s.%s: deletion vector '%.300s' targets unknown data file "
                                "%lld",
                                t->namespace_name, t->name, d->path, (long long)d->data_file_id);
            break;
        }
        g->table_id = db_i64(r, row, 1);
        g->begin = db_i64(r, row, 2);
        g->ended = !db_isnull(r, row, 3);
        g->end = g->ended ? db_i64(r, row, 3) : 0;
        g->records = db_i64(r, row, 4);
        g->has_live_dv = !db_isnull(r, row, 5);
        if (g->has_live_dv) {
            g->dv_id = db_i64(r, row, 5);
            g->dv_begin = db_i64(r, row, 6);
            g->dv_count = db_i64(r, row, 7);
        }
        if (g->begin > rs)
            rc = api_conflict(err, "commit_conflict",
                              "data file %lld was added after read_snapshot %lld",
                              (long long)d->data_file_id, (long long)rs);
        else if (g->table_id != x->live[ti].table_id)
            rc = api_validation(err, "data file %lld does not belong to %s.%s",
                                (long long)d->data_file_id, t->namespace_name, t->name);
        else if (g->ended && g->end > rs)
            rc = api_conflict(err, "commit_conflict",
                              "data file %lld was retired at snapshot %lld, after read_snapshot "
                              "%lld",
                              (long long)d->data_file_id, (long long)g->end, (long long)rs);
        else if (g->ended)
            rc = api_validation(err, "data file %lld was already retired at read_snapshot %lld",
                                (long long)d->data_file_id, (long long)rs);
        else if (d->delete_count > g->records)
            rc = api_validation(err,
                                "deletion vector '%.300s' deletes %lld rows of a %lld-row "
                                "file",
                                d->path, (long long)d->delete_count, (long long)g->records);
        else if (g->has_live_dv && g->dv_begin > rs)
            rc = api_conflict(err, "commit_conflict",
                              "data file %lld got a new deletion vector after read_snapshot "
                              "%lld",
                              (long long)d->data_file_id, (long long)rs);
        else if (g->has_live_dv && g->dv_count > d->delete_count)
            rc = api_validation(err,
                                "deletion vector '%.300s' deletes %lld rows, fewer than the %lld "
                                "its predecessor deletes",
                                d->path, (long long)d->delete_count, (long long)g->dv_count);
    }
    PQclear(r);
    return rc;
}

/* ---- step 11: paths queued for removal or already registered ---- */

static int path_reuse_guard(struct commit_ctx *x, struct api_error *err)
{
    struct pg_array paths;
    pg_array_init(&paths);
    for (size_t t = 0; t < x->c->ntables; t++) {
        const struct commit_table *ct = &x->c->tables[t];
        for (size_t i = 0; i < ct->nfiles; i++)
            pg_array_str(&paths, ct->files[i].path);
        for (size_t i = 0; i < ct->ndvs; i++)
            pg_array_str(&paths, ct->dvs[i].path);
    }
    const char *text = array_text(&paths, err);
    if (!text) {
        pg_array_free(&paths);
        return -1;
    }
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, x->cat.id);
    db_param_str(&p, text);
    /* A queued path may still be deleted by the drain (retryable); a path
     * any file or DV row names, live or ended, is one object registered
     * twice: its rows would count twice, and the expiry of one row would
     * delete the other's data. */
    PGresult *r = req_query(x->req,
                            "(SELECT 1, path FROM hog_file_removal WHERE catalog_id = $1"
                            "  AND drained_at IS NULL AND path = ANY($2::text[]) LIMIT 1)"
                            " UNION ALL (SELECT 2, path FROM hog_data_file WHERE catalog_id = $1"
                            "  AND path = ANY($2::text[]) LIMIT 1)"
                            " UNION ALL (SELECT 2, path FROM hog_delete_file WHERE catalog_id = $1"
                            "  AND path = ANY($2::text[]) LIMIT 1)",
                            &p, "path checks", err);
    pg_array_free(&paths);
    if (!r)
        return -1;
    int rc = 0;
    if (PQntuples(r) > 0) {
        if (db_i64(r, 0, 0) == 1)
            rc = api_conflict(err, "commit_conflict",
                              "path '%.300s' is queued for removal and cannot be registered "
                              "until the queue drains",
                              db_str(r, 0, 1));
        else
            rc = api_validation(err,
                                "path '%.300s' is already registered in this catalog; every "
                                "object is registered once",
                                db_str(r, 0, 1));
    }
    PQclear(r);
    return rc;
}

/* ---- step 12: allocation ---- */

static int allocate(struct commit_ctx *x, struct api_error *err)
{
    int64_t nids = (int64_t)(x->c->nfiles + x->c->ndvs);
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, x->cat.id);
    db_param_i64(&p, nids);
    /* A data commit does not change the schema version. */
    PGresult *r = req_query(x->req,
                            "UPDATE hog_catalog SET last_snapshot_id = last_snapshot_id + 1,"
                            " next_file_id = next_file_id + $2 WHERE catalog_id = $1"
                            " RETURNING last_snapshot_id, next_file_id - $2, schema_version",
                            &p, "allocation", err);
    if (!r)
        return -1;
    x->txn.snapshot_id = db_i64(r, 0, 0);
    x->first_file_id = db_i64(r, 0, 1);
    x->txn.schema_version = db_i64(r, 0, 2);
    PQclear(r);
    db_params_init(&p);
    db_param_i64(&p, x->cat.id);
    db_param_i64(&p, x->txn.snapshot_id);
    db_param_i64(&p, x->txn.schema_version);
    db_param_str(&p, x->c->author);
    db_param_str(&p, x->c->message);
    return req_exec(x->req,
                    "INSERT INTO hog_snapshot (catalog_id, snapshot_id, snapshot_time,"
                    " schema_version, author, commit_message)"
                    " VALUES ($1, $2, clock_timestamp(), $3, $4, $5)",
                    &p, "snapshot row", err);
}

/* ---- steps 13 to 16: the rows ---- */

static int write_changes(struct commit_ctx *x, struct api_error *err)
{
    struct pg_array kinds, ids;
    pg_array_init(&kinds);
    pg_array_init(&ids);
    for (size_t i = 0; i < x->c->ntables; i++) {
        if (x->c->tables[i].nfiles) {
            pg_array_str(&kinds, "table_inserted_into");
            pg_array_i64(&ids, x->live[i].table_id);
        }
        if (x->c->tables[i].ndvs) {
            pg_array_str(&kinds, "table_deleted_from");
            pg_array_i64(&ids, x->live[i].table_id);
        }
    }
    const char *k = array_text(&kinds, err), *o = k ? array_text(&ids, err) : NULL;
    int rc = -1;
    if (k && o) {
        struct db_params p;
        db_params_init(&p);
        db_param_i64(&p, x->cat.id);
        db_param_i64(&p, x->txn.snapshot_id);
        db_param_str(&p, k);
        db_param_str(&p, o);
        rc = req_exec(x->req,
                      "INSERT INTO hog_snapshot_change (catalog_id, snapshot_id, kind, object_id)"
                      " SELECT $1, $2, u.kind, u.id FROM unnest($3::text[], $4::bigint[])"
                      " AS u(kind, id)",
                      &p, "change rows", err);
    }
    pg_array_free(&kinds);
    pg_array_free(&ids);
    return rc;
}

/* Advances each appended table's row-id allocator and gross counters,
 * learning where this commit's rows start. */
static int allocate_rows(struct commit_ctx *x, struct api_error *err)
{
    struct pg_array tids, recs, bytes;
    pg_array_init(&tids);
    pg_array_init(&recs);
    pg_array_init(&bytes);
    size_t n = 0;
    for (size_t i = 0; i < x->c->ntables; i++) {
        if (!x->c->tables[i].nfiles)
            continue;
        pg_array_i64(&tids, x->live[i].table_id);
        pg_array_i64(&recs, x->live[i].records);
        pg_array_i64(&bytes, x->live[i].bytes);
        n++;
    }
    int rc = -1;
    const char *a = array_text(&tids, err), *b = a ? array_text(&recs, err) : NULL,
               *c = b ? array_text(&bytes, err) : NULL;
    PGresult *r = NULL;
    if (c) {
        struct db_params p;
        db_params_init(&p);
        db_param_i64(&p, x->cat.id);
        db_param_str(&p, a);
        db_param_str(&p, b);
        db_param_str(&p, c);
        r = req_query(
            x->req,
            "UPDATE hog_table_stats s SET next_row_id = s.next_row_id + u.recs,"
            " record_count = s.record_count + u.recs,"
            " file_size_bytes = s.file_size_bytes + u.bytes"
            " FROM unnest($2::bigint[], $3::bigint[], $4::bigint[]) AS u(tid, recs, bytes)"
            " WHERE s.catalog_id = $1 AND s.table_id = u.tid"
            "  AND s.next_row_id <= 9223372036854775807 - u.recs"
            "  AND s.file_size_bytes <= 9223372036854775807 - u.bytes"
            " RETURNING s.table_id, s.next_row_id - u.recs",
            &p, "row ids", err);
    }
    if (r) {
        if ((size_t)PQntuples(r) != n) {
            rc = api_validation(err, "the table's row ids or byte counters would overflow");
        } else {
            for (int row = 0; row < PQntuples(r); row++)
                for (size_t i = 0; i < x->c->ntables; i++)
                    if (x->live[i].table_id == db_i64(r, row, 0))
                        x->live[i].row_id_start = db_i64(r, row, 1);
            rc = 0;
        }
        PQclear(r);
    }
    pg_array_free(&tids);
    pg_array_free(&recs);
    pg_array_free(&bytes);
    return rc;
}

struct file_rows {
    struct pg_array id, tid, path, recs, size, footer, rid, state, spec, splits;
    struct pg_array s_file, s_field, s_values, s_nulls, s_nans, s_size, s_lower, s_upper;
    struct pg_array p_file, p_key, p_value;
};

static void file_rows_init(struct file_rows *f)
{
    struct pg_array *all[] = {
        &f->id,     &f->tid,    &f->path,    &f->recs,    &f->size,    &f->footer,   &f->rid,
        &f->state,  &f->spec,   &f->splits,  &f->s_file,  &f->s_field, &f->s_values, &f->s_nulls,
        &f->s_nans, &f->s_size, &f->s_lower, &f->s_upper, &f->p_file,  &f->p_key,    &f->p_value};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        pg_array_init(all[i]);
}

static void file_rows_free(struct file_rows *f)
{
    struct pg_array *all[] = {
        &f->id,     &f->tid,    &f->path,    &f->recs,    &f->size,    &f->footer,   &f->rid,
        &f->state,  &f->spec,   &f->splits,  &f->s_file,  &f->s_field, &f->s_values, &f->s_nulls,
        &f->s_nans, &f->s_size, &f->s_lower, &f->s_upper, &f->p_file,  &f->p_key,    &f->p_value};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        pg_array_free(all[i]);
}

/* Runs `sql` with the catalog as $1, the new snapshot as $2 when
 * with_snapshot, and then the arrays. */
static int exec_arrays(struct commit_ctx *x, const char *sql, bool with_snapshot,
                       struct pg_array *const *arrays, size_t n, const char *context,
                       struct api_error *err)
{
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, x->cat.id);
    if (with_snapshot)
        db_param_i64(&p, x->txn.snapshot_id);
    for (size_t i = 0; i < n; i++) {
        const char *t = array_text(arrays[i], err);
        if (!t)
            return -1;
        db_param_str(&p, t);
    }
    return req_exec(x->req, sql, &p, context, err);
}

/* Writes the appended files, their statistics and partition values, with
 * ids from the catalog allocator and row ids from each table's, in
 * request order. */
static int write_appends(struct commit_ctx *x, struct api_error *err)
{
    struct file_rows f;
    file_rows_init(&f);
    int64_t next_id = x->first_file_id;
    size_t nstats = 0, nparts = 0;
    for (size_t t = 0; t < x->c->ntables; t++) {
        const struct commit_table *ct = &x->c->tables[t];
        const struct table_live *l = &x->live[t];
        int64_t row = l->row_id_start;
        for (size_t i = 0; i < ct->nfiles; i++) {
            const struct commit_file *cf = &ct->files[i];
            int64_t id = next_id++;
            pg_array_i64(&f.id, id);
            pg_array_i64(&f.tid, l->table_id);
            pg_array_str(&f.path, cf->path);
            pg_array_i64(&f.recs, cf->record_count);
            pg_array_i64(&f.size, cf->file_size_bytes);
            if (cf->has_footer_size)
                pg_array_i64(&f.footer, cf->footer_size);
            else
                pg_array_null(&f.footer);
            pg_array_i64(&f.rid, row);
            row += cf->record_count;
            pg_array_str(&f.state, cf->has_stats ? "provided" : "pending");
            if (l->has_spec)
                pg_array_i64(&f.spec, l->spec_id);
            else
                pg_array_null(&f.spec);
            pg_array_i64_list(&f.splits, cf->split_offsets, cf->nsplit_offsets);
            for (size_t s = 0; s < cf->nstats; s++) {
                const struct commit_stat *st = &cf->stats[s];
                pg_array_i64(&f.s_file, id);
                pg_array_i64(&f.s_field, st->field_id);
                pg_array_i64(&f.s_values, st->value_count);
                pg_array_i64(&f.s_nulls, st->null_count);
                if (st->has_nan_count)
                    pg_array_i64(&f.s_nans, st->nan_count);
                else
                    pg_array_null(&f.s_nans);
                if (st->has_size_bytes)
                    pg_array_i64(&f.s_size, st->size_bytes);
                else
                    pg_array_null(&f.s_size);
                pg_array_bytes(&f.s_lower, st->lower, st->lower_len);
                pg_array_bytes(&f.s_upper, st->upper, st->upper_len);
                nstats++;
            }
            for (size_t k = 0; k < cf->npartition_values; k++) {
                pg_array_i64(&f.p_file, id);
                pg_array_i64(&f.p_key, (int64_t)k);
                pg_array_str(&f.p_value, cf->partition_values[k]);
                nparts++;
            }
        }
    }
    struct pg_array *files[] = {&f.id,     &f.tid, &f.path,  &f.recs, &f.size,
                                &f.footer, &f.rid, &f.state, &f.spec, &f.splits};
    struct pg_array *stats[] = {&f.s_file, &f.s_field, &f.s_values, &f.s_nulls,
                                &f.s_nans, &f.s_size,  &f.s_lower,  &f.s_upper};
    struct pg_array *parts[] = {&f.p_file, &f.p_key, &f.p_value};
    int rc = exec_arrays(x,
                         "INSERT INTO hog_data_file (catalog_id, data_file_id, table_id,"
                         " begin_snapshot, path, record_count, file_size_bytes, footer_size,"
                         " row_id_start, stats_state, spec_id, split_offsets)"
                         " SELECT $1, u.id, u.tid, $2, u.path, u.recs, u.size, u.footer, u.rid,"
                         " u.state, u.spec, u.splits::bigint[]"
                         " FROM unnest($3::bigint[], $4::bigint[], $5::text[], $6::bigint[],"
                         "  $7::bigint[], $8::bigint[], $9::bigint[], $10::text[], $11::bigint[],"
                         "  $12::text[]) AS u(id, tid, path, recs, size, footer, rid, state, spec,"
                         "  splits)",
                         true, files, sizeof files / sizeof files[0], "data files", err);
    if (rc == 0 && nstats)
        rc = exec_arrays(x,
                         "INSERT INTO hog_file_column_stats (catalog_id, data_file_id, field_id,"
                         " value_count, null_count, nan_count, size_bytes, lower_bound,"
                         " upper_bound)"
                         " SELECT $1, u.* FROM unnest($2::bigint[], $3::bigint[], $4::bigint[],"
                         "  $5::bigint[], $6::bigint[], $7::bigint[], $8::bytea[], $9::bytea[])"
                         " AS u",
                         false, stats, sizeof stats / sizeof stats[0], "file statistics", err);
    if (rc == 0 && nparts)
        rc = exec_arrays(x,
                         "INSERT INTO hog_file_partition_value (catalog_id, data_file_id,"
                         " key_index, value)"
                         " SELECT $1, u.* FROM unnest($2::bigint[], $3::int[], $4::text[]) AS u",
                         false, parts, sizeof parts / sizeof parts[0], "partition values", err);
    file_rows_free(&f);
    return rc;
}

static int write_deletes(struct commit_ctx *x, struct dv_target **targets, struct api_error *err)
{
    struct pg_array ended, id, tid, target, path, count, size;
    struct pg_array *all[] = {&ended, &id, &tid, &target, &path, &count, &size};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        pg_array_init(all[i]);
    /* DV ids follow the data files' in the shared allocator. */
    int64_t next_id = x->first_file_id + (int64_t)x->c->nfiles;
    size_t nended = 0;
    for (size_t t = 0; t < x->c->ntables; t++) {
        const struct commit_table *ct = &x->c->tables[t];
        for (size_t i = 0; i < ct->ndvs; i++) {
            const struct commit_dv *d = &ct->dvs[i];
            if (targets[t][i].has_live_dv) {
                pg_array_i64(&ended, targets[t][i].dv_id);
                nended++;
            }
            pg_array_i64(&id, next_id++);
            pg_array_i64(&tid, x->live[t].table_id);
            pg_array_i64(&target, d->data_file_id);
            pg_array_str(&path, d->path);
            pg_array_i64(&count, d->delete_count);
            pg_array_i64(&size, d->file_size_bytes);
        }
    }
    struct pg_array *ends[] = {&ended};
    struct pg_array *rows[] = {&id, &tid, &target, &path, &count, &size};
    int rc = 0;
    /* The superseded vectors end first: one live DV per data file. */
    if (nended)
        rc = exec_arrays(x,
                         "UPDATE hog_delete_file SET end_snapshot = $2 WHERE catalog_id = $1"
                         " AND delete_file_id = ANY($3::bigint[]) AND end_snapshot IS NULL",
                         true, ends, 1, "superseded deletion vectors", err);
    if (rc == 0)
        rc = exec_arrays(x,
                         "INSERT INTO hog_delete_file (catalog_id, delete_file_id, table_id,"
                         " data_file_id, begin_snapshot, path, delete_count, file_size_bytes)"
                         " SELECT $1, u.id, u.tid, u.target, $2, u.path, u.count, u.size"
                         " FROM unnest($3::bigint[], $4::bigint[], $5::bigint[], $6::text[],"
                         "  $7::bigint[], $8::bigint[]) AS u(id, tid, target, path, count, size)",
                         true, rows, sizeof rows / sizeof rows[0], "deletion vectors", err);
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        pg_array_free(all[i]);
    return rc;
}

static int write_receipt(struct commit_ctx *x, struct api_error *err)
{
    /* bytea's hex input form. */
    char hex[3 + 2 * COMMIT_FINGERPRINT_BYTES];
    static const char digits[] = "0123456789abcdef";
    hex[0] = '\\';
    hex[1] = 'x';
    for (size_t i = 0; i < COMMIT_FINGERPRINT_BYTES; i++) {
        hex[2 + 2 * i] = digits[x->c->fingerprint[i] >> 4];
        hex[3 + 2 * i] = digits[x->c->fingerprint[i] & 15];
    }
    hex[2 + 2 * COMMIT_FINGERPRINT_BYTES] = '\0';
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, x->cat.id);
    db_param_str(&p, x->c->key);
    db_param_str(&p, hex);
    db_param_i64(&p, x->txn.snapshot_id);
    db_param_i64(&p, x->txn.schema_version);
    return req_exec(x->req,
                    "INSERT INTO hog_commit_receipt (catalog_id, idempotency_key, fingerprint,"
                    " snapshot_id, schema_version) VALUES ($1, $2::uuid, $3::bytea, $4, $5)",
                    &p, "receipt", err);
}

/* ---- blind partitioned appends ---- */

/* The tables already warned about, per process ("once per table per
 * pod"): a small set, as few tables ever take blind appends. */
static pthread_mutex_t blind_mu = PTHREAD_MUTEX_INITIALIZER;
static int64_t (*blind_seen)[2];
static size_t blind_n, blind_cap;

static bool first_blind_append(int64_t catalog_id, int64_t table_id)
{
    bool first = true;
    pthread_mutex_lock(&blind_mu);
    for (size_t i = 0; i < blind_n && first; i++)
        first = !(blind_seen[i][0] == catalog_id && blind_seen[i][1] == table_id);
    if (first && blind_n == blind_cap) {
        size_t cap = blind_cap ? blind_cap * 2 : 16;
        void *p = realloc(blind_seen, cap * sizeof *blind_seen);
        if (p) {
            blind_seen = p;
            blind_cap = cap;
        }
    }
    if (first && blind_n < blind_cap) {
        blind_seen[blind_n][0] = catalog_id;
        blind_seen[blind_n][1] = table_id;
        blind_n++;
    }
    pthread_mutex_unlock(&blind_mu);
    return first;
}

/* Counts an accepted append with partition values but no read_snapshot,
 * and warns once per table. */
static void note_blind_appends(struct commit_ctx *x)
{
    metrics_counter_add(x->req->srv->metrics, "hoglake_blind_partitioned_appends_total", "", 1);
    for (size_t i = 0; i < x->c->ntables; i++) {
        bool blind = false;
        for (size_t f = 0; f < x->c->tables[i].nfiles; f++)
            blind |= x->c->tables[i].files[f].has_partition_values;
        if (blind && first_blind_append(x->cat.id, x->live[i].table_id))
            log_warn("catalog %s: table %s.%s took partition values without a read_snapshot: "
                     "the writer did not pin the spec it partitioned by",
                     x->cat.name, x->c->tables[i].namespace_name, x->c->tables[i].name);
    }
}

/* ---- the whole commit ---- */

static int run(struct commit_ctx *x, json_t **result, bool *replayed, struct api_error *err)
{
    struct commit_request *c = x->c;
    if (!c->has_key && check_paths(x, err) != 0)
        return -1;
    if (ddl_begin(x->req, &x->cat, &x->txn, err) != 0)
        return -1;
    x->in_txn = true;
    if (c->has_key) {
        if (replay_check(x, result, replayed, err) != 0)
            return -1;
        if (*replayed)
            return 0;
        if (check_paths(x, err) != 0)
            return -1;
    }
    if (c->has_partition_values && !c->has_read_snapshot &&
        x->req->srv->cfg.refuse_blind_partitioned_appends)
        return api_validation(err, "partition values without a read_snapshot are refused on "
                                   "this server: pin the spec you partitioned by");
    x->live = arena_calloc(&x->req->arena, c->ntables, sizeof *x->live);
    if (!x->live)
        return fail_nomem(err);
    for (size_t i = 0; i < c->ntables; i++)
        if (resolve_table(x, i, err) != 0)
            return -1;
    if (c->has_read_snapshot && conflict_check(x, err) != 0)
        return -1;
    struct dv_target **targets = arena_calloc(&x->req->arena, c->ntables, sizeof *targets);
    if (!targets)
        return fail_nomem(err);
    for (size_t i = 0; i < c->ntables; i++) {
        targets[i] = arena_calloc(&x->req->arena, c->tables[i].ndvs ? c->tables[i].ndvs : 1,
                                  sizeof **targets);
        if (!targets[i])
            return fail_nomem(err);
        if (validate_appends(x, i, err) != 0 || validate_dvs(x, i, targets[i], err) != 0)
            return -1;
    }
    if (path_reuse_guard(x, err) != 0 || allocate(x, err) != 0 || write_changes(x, err) != 0)
        return -1;
    if (c->nfiles && (allocate_rows(x, err) != 0 || write_appends(x, err) != 0))
        return -1;
    if (c->ndvs && write_deletes(x, targets, err) != 0)
        return -1;
    if (c->has_key && write_receipt(x, err) != 0)
        return -1;
    if (ddl_commit(&x->txn, err) != 0)
        return -1;
    x->in_txn = false;
    if (c->has_partition_values && !c->has_read_snapshot)
        note_blind_appends(x);
    if (!(*result = commit_result(x->txn.snapshot_id, x->txn.schema_version)))
        return fail_nomem(err);
    return 0;
}

int commit_run(struct srv_req *req, const char *catalog_name, struct commit_request *c,
               json_t **result, struct api_error *err)
{
    struct commit_ctx x = {.req = req, .c = c};
    *result = NULL;
    if (catalog_load(req, catalog_name, &x.cat, err) != 0)
        return -1; /* no catalog, so no per-catalog count */
    bool replayed = false;
    int rc = run(&x, result, &replayed, err);
    if (x.in_txn) {
        /* A replay wrote nothing; a failure must write nothing. Rolling back
         * here keeps the connection for the next request. */
        struct api_error ignored = {0};
        req_exec(req, "ROLLBACK", NULL, "rollback", &ignored);
        json_decref(ignored.extra);
    }
    char labels[300], esc[200];
    metrics_label_escape(x.cat.name, esc, sizeof esc);
    snprintf(labels, sizeof labels, "catalog=\"%s\",result=\"%s\"", esc,
             rc != 0    ? err->code
             : replayed ? "replay"
                        : "ok");
    metrics_counter_add(req->srv->metrics, "hoglake_commits_total", labels, 1);
    if (rc == 0 && x.repaired) {
        metrics_counter_add(req->srv->metrics, "hoglake_stats_repaired_total", "source=\"commit\"",
                            (double)x.repaired);
    }
    if (rc == 0 && !replayed)
        log_info("audit action=commit catalog=%s snapshot=%lld files=%zu deletes=%zu%s%s",
                 x.cat.name, (long long)x.txn.snapshot_id, c->nfiles, c->ndvs,
                 c->has_key ? " key=" : "", c->has_key ? c->key : "");
    return rc;
}

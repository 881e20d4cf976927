#include "server/store/tables.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/db/db.h"
#include "server/store/change_probe.h"
#include "util/buf.h"
#include "util/log.h"

int store_table_find(struct db_conn *db, struct arena *arena, int64_t catalog_id,
                     int64_t namespace_id, const char *name, int64_t snapshot,
                     struct table_ref *out, struct error *err)
{
    struct db_params p;
    DB_PARAMS_IDS(&p, catalog_id, namespace_id);
    db_param_str(&p, name);
    db_param_i64(&p, snapshot);
    PGresult *r = db_exec(db->pg,
                          "SELECT t.table_id, t.table_uuid, v.name, v.comment, v.properties::text,"
                          " v.begin_snapshot, coalesce(v.primary_timestamp_field_id, 0)"
                          " FROM hog_table_version v JOIN hog_table t USING (catalog_id, table_id)"
                          " WHERE v.catalog_id = $1 AND v.namespace_id = $2 AND v.name = $3"
                          " AND hog_visible(v.begin_snapshot, v.end_snapshot, $4)",
                          &p, err);
    if (!r)
        return -1;
    if (PQntuples(r) == 0) {
        PQclear(r);
        return 0;
    }
    out->table_id = db_i64(r, 0, 0);
    out->table_uuid = arena_strdup(arena, db_str(r, 0, 1));
    out->name = arena_strdup(arena, db_str(r, 0, 2));
    out->comment = db_isnull(r, 0, 3) ? NULL : arena_strdup(arena, db_str(r, 0, 3));
    out->properties = arena_strdup(arena, db_str(r, 0, 4));
    out->version_begin = db_i64(r, 0, 5);
    out->primary_ts_field_id = db_i64(r, 0, 6);
    PQclear(r);
    if (!out->table_uuid || !out->name || !out->properties)
        return error_nomem(err);
    return 1;
}

/* A stored shredding declaration (jsonb as text; NULL: none) onto its
 * loaded column. */
static int load_shredding(struct lake_table *t, int64_t field_id, const char *text,
                          struct error *err)
{
    if (!text)
        return 0;
    json_t *decl = json_loads(text, JSON_DECODE_ANY, NULL);
    if (!decl)
        return error_fail(err, ERR_INVALID, "column %lld: its shredding declaration is not JSON",
                          (long long)field_id);
    int rc = lake_table_load_shredding(t, field_id, decl, err);
    json_decref(decl);
    return rc;
}

static int load_columns(struct srv_ctx *ctx, const struct catalog_row *cat, int64_t table_id,
                        int64_t snapshot, struct lake_table *t, struct error *err)
{
    struct db_params p;
    DB_PARAMS_IDS(&p, cat->id, table_id, snapshot);
    PGresult *r = db_exec(ctx->db->pg,
                          "SELECT field_id, coalesce(parent_field_id, 0), name, col_type,"
                          " coalesce((type_params->>'precision')::int, 0),"
                          " coalesce((type_params->>'scale')::int, 0), nullable, ordinal, comment,"
                          " type_params->'shredding'"
                          " FROM hog_column WHERE catalog_id = $1 AND table_id = $2"
                          " AND hog_visible(begin_snapshot, end_snapshot, $3) ORDER BY field_id",
                          &p, err);
    if (!r)
        return -1;
    struct error lerr;
    for (int i = 0; i < PQntuples(r); i++) {
        enum lake_type type;
        if (lake_type_lookup(db_str(r, i, 3), &type, NULL) != LAKE_TYPE_OK) {
            error_fail(err, ERR_INTERNAL, "table %lld: stored column type '%s' is unknown",
                       (long long)table_id, db_str(r, i, 3));
            PQclear(r);
            return -1;
        }
        if (lake_table_load_column(t, db_i64(r, i, 0), db_i64(r, i, 1), db_str(r, i, 2), type,
                                   (int)db_i64(r, i, 4), (int)db_i64(r, i, 5), db_bool(r, i, 6),
                                   (int)db_i64(r, i, 7), db_str(r, i, 8), &lerr) != 0 ||
            load_shredding(t, db_i64(r, i, 0), db_str(r, i, 9), &lerr) != 0) {
            PQclear(r);
            /* Stored rows the model cannot hold are our corruption, not the
             * client's mistake. */
            if (lerr.code == ERR_NOMEM)
                return error_nomem(err);
            return error_fail(err, ERR_INTERNAL, "table %lld: corrupt column rows: %s",
                              (long long)table_id, lerr.msg);
        }
    }
    PQclear(r);
    return 0;
}

static int load_specs(struct srv_ctx *ctx, const struct catalog_row *cat, int64_t table_id,
                      int64_t snapshot, struct lake_table *t, struct error *err)
{
    struct db_params p;
    DB_PARAMS_IDS(&p, cat->id, table_id, snapshot);
    /* One round trip for both: kind 0 rows are partition fields, kind 1
     * sort fields. */
    PGresult *r = db_exec(
        ctx->db->pg,
        "SELECT 0, s.spec_id, f.key_index, f.source_field_id, f.transform,"
        " coalesce(f.transform_param, 0), NULL, NULL"
        " FROM hog_partition_spec s JOIN hog_partition_field f USING (catalog_id, table_id, "
        "spec_id)"
        " WHERE s.catalog_id = $1 AND s.table_id = $2"
        " AND hog_visible(s.begin_snapshot, s.end_snapshot, $3)"
        " UNION ALL"
        " SELECT 1, s.sort_id, f.key_index, f.source_field_id, NULL, 0, f.direction, f.null_order"
        " FROM hog_sort_spec s JOIN hog_sort_field f USING (catalog_id, table_id, sort_id)"
        " WHERE s.catalog_id = $1 AND s.table_id = $2"
        " AND hog_visible(s.begin_snapshot, s.end_snapshot, $3)"
        " ORDER BY 1, 3",
        &p, err);
    if (!r)
        return -1;
    for (int i = 0; i < PQntuples(r); i++) {
        int rc;
        if (db_i64(r, i, 0) == 0) {
            struct lake_partition_field f = {.source_field_id = db_i64(r, i, 3),
                                             .param = (int32_t)db_i64(r, i, 5)};
            if (!lake_transform_parse(db_str(r, i, 4), &f.transform)) {
                error_fail(err, ERR_INTERNAL, "table %lld: stored transform '%s' is unknown",
                           (long long)table_id, db_str(r, i, 4));
                PQclear(r);
                return -1;
            }
            t->spec_id = db_i64(r, i, 1);
            rc = lake_table_load_partition_field(t, &f, err);
        } else {
            struct lake_sort_field f = {.source_field_id = db_i64(r, i, 3),
                                        .descending = strcmp(db_str(r, i, 6), "desc") == 0,
                                        .nulls_first = strcmp(db_str(r, i, 7), "nulls_first") == 0};
            t->sort_id = db_i64(r, i, 1);
            rc = lake_table_load_sort_field(t, &f, err);
        }
        if (rc != 0) {
            PQclear(r);
            return -1;
        }
    }
    PQclear(r);
    return 0;
}

static int load_file_facts(struct srv_ctx *ctx, const struct catalog_row *cat, int64_t table_id,
                           struct lake_table *t, struct error *err)
{
    struct db_params p;
    DB_PARAMS_IDS(&p, cat->id, table_id);
    PGresult *r = db_exec(ctx->db->pg,
                          "SELECT count(*), count(*) FILTER (WHERE missing_field_ids),"
                          " count(*) FILTER (WHERE stats_state <> 'provided'),"
                          " (SELECT next_field_id FROM hog_table WHERE catalog_id = $1"
                          "  AND table_id = $2)"
                          " FROM hog_data_file WHERE catalog_id = $1 AND table_id = $2"
                          " AND end_snapshot IS NULL",
                          &p, err);
    if (!r)
        return -1;
    t->live_files = db_i64(r, 0, 0);
    t->idless_files = db_i64(r, 0, 1);
    t->pending_files = db_i64(r, 0, 2);
    /* Field ids are never reused, even those of dropped columns. */
    int64_t next = db_i64(r, 0, 3);
    if (next > t->next_field_id)
        t->next_field_id = next;
    PQclear(r);
    return 0;
}

int store_table_load(struct srv_ctx *ctx, const struct catalog_row *cat,
                     const struct table_ref *ref, int64_t snapshot, bool file_facts,
                     struct lake_table *t, struct error *err)
{
    t->name = ref->name;
    t->comment = ref->comment;
    json_error_t jerr;
    t->properties = json_loads(ref->properties, 0, &jerr);
    if (!t->properties)
        return error_nomem(err);
    if (load_columns(ctx, cat, ref->table_id, snapshot, t, err) != 0 ||
        load_specs(ctx, cat, ref->table_id, snapshot, t, err) != 0)
        return -1;
    struct error lerr;
    if (ref->primary_ts_field_id > 0 &&
        lake_table_load_primary_ts(t, ref->primary_ts_field_id, &lerr) != 0) {
        /* The alter rules keep the id live; anything else is corruption. */
        return error_fail(err, ERR_INTERNAL, "table %lld: %s", (long long)ref->table_id, lerr.msg);
    }
    if (file_facts && load_file_facts(ctx, cat, ref->table_id, t, err) != 0)
        return -1;
    return 0;
}

/* ---- writing ---- */

struct row_collector {
    json_t *rows;
    bool only_dirty; /* alter: new or changed columns only */
    int failed;
};

static void collect_column(struct lake_column *c, void *ctx)
{
    struct row_collector *rc = ctx;
    if (rc->only_dirty && c->stored && !c->changed)
        return;
    json_t *params = lake_column_type_params(c);
    json_t *row =
        json_pack("{s:I,s:s,s:s,s:o?,s:b,s:i,s:o?,s:o?}", "field_id", (json_int_t)c->field_id,
                  "name", c->name, "col_type", lake_type_name(c->type), "type_params", params,
                  "nullable", c->nullable, "ordinal", c->ordinal, "parent_field_id",
                  c->parent ? json_integer(c->parent->field_id) : NULL, "comment",
                  c->comment ? json_string(c->comment) : NULL);
    if (!row || json_array_append_new(rc->rows, row) != 0)
        rc->failed = 1;
}

static int insert_columns(const struct store_ddl *txn, int64_t table_id, struct lake_table *t,
                          bool only_dirty, struct error *err)
{
    struct row_collector rc = {json_array(), only_dirty, 0};
    if (!rc.rows)
        return error_nomem(err);
    lake_table_walk(t, collect_column, &rc);
    if (rc.failed) {
        json_decref(rc.rows);
        return error_nomem(err);
    }
    if (json_array_size(rc.rows) == 0) {
        json_decref(rc.rows);
        return 0;
    }
    char *rows = json_dumps(rc.rows, JSON_COMPACT);
    json_decref(rc.rows);
    if (!rows)
        return error_nomem(err);
    struct db_params p;
    DB_PARAMS_IDS(&p, txn->catalog_id, table_id, txn->snapshot_id);
    db_param_str(&p, rows);
    /* One statement for the whole tree, however many nodes. */
    int r = db_run(txn->db->pg,
                   "INSERT INTO hog_column (catalog_id, table_id, field_id, begin_snapshot, name,"
                   " col_type, type_params, nullable, ordinal, parent_field_id, comment)"
                   " SELECT $1, $2, x.field_id, $3, x.name, x.col_type, x.type_params, x.nullable,"
                   " x.ordinal, x.parent_field_id, x.comment"
                   " FROM jsonb_to_recordset($4::jsonb) AS x(field_id bigint, name text,"
                   " col_type text, type_params jsonb, nullable boolean, ordinal int,"
                   " parent_field_id bigint, comment text)",
                   &p, err);
    free(rows);
    if (r != 0)
        return -1;
    return 0;
}

static int insert_version(const struct store_ddl *txn, int64_t table_id, int64_t namespace_id,
                          const struct lake_table *t, struct error *err)
{
    char *props = t->properties ? json_dumps(t->properties, JSON_COMPACT) : strdup("{}");
    if (!props)
        return error_nomem(err);
    struct db_params p;
    DB_PARAMS_IDS(&p, txn->catalog_id, table_id, txn->snapshot_id, namespace_id);
    db_param_str(&p, t->name);
    db_param_str(&p, t->comment);
    db_param_str(&p, props);
    db_param_i64(&p, t->primary_ts_field_id);
    int r = db_run(txn->db->pg,
                   "INSERT INTO hog_table_version (catalog_id, table_id, begin_snapshot,"
                   " namespace_id, name, comment, properties, primary_timestamp_field_id)"
                   " VALUES ($1, $2, $3, $4, $5, $6, $7, nullif($8, 0))",
                   &p, err);
    free(props);
    if (r != 0)
        return -1;
    return 0;
}

/* Ends the live spec (or sort order) and inserts the model's, if any. */
static int write_spec(const struct store_ddl *txn, int64_t table_id, struct lake_table *t,
                      bool sort, struct error *err)
{
    PGconn *pg = txn->db->pg;
    struct db_params p;
    DB_PARAMS_IDS(&p, txn->catalog_id, table_id, txn->snapshot_id);
    const char *end_sql = sort ? "UPDATE hog_sort_spec SET end_snapshot = $3 WHERE catalog_id = $1"
                                 " AND table_id = $2 AND end_snapshot IS NULL"
                               : "UPDATE hog_partition_spec SET end_snapshot = $3 WHERE"
                                 " catalog_id = $1 AND table_id = $2 AND end_snapshot IS NULL";
    if (db_run(pg, end_sql, &p, err) != 0)
        return -1;
    size_t n = sort ? t->nsort_fields : t->nspec_fields;
    if (n == 0)
        return 0;
    json_t *fields = json_array();
    for (size_t i = 0; fields && i < n; i++) {
        json_t *f;
        if (sort) {
            const struct lake_sort_field *sf = &t->sort_fields[i];
            f = json_pack("{s:i,s:I,s:s,s:s}", "key_index", (int)i, "source_field_id",
                          (json_int_t)sf->source_field_id, "direction",
                          sf->descending ? "desc" : "asc", "null_order",
                          sf->nulls_first ? "nulls_first" : "nulls_last");
        } else {
            const struct lake_partition_field *pf = &t->spec_fields[i];
            f = json_pack("{s:i,s:I,s:s,s:o?}", "key_index", (int)i, "source_field_id",
                          (json_int_t)pf->source_field_id, "transform",
                          lake_transform_name(pf->transform), "transform_param",
                          lake_transform_takes_param(pf->transform) ? json_integer(pf->param)
                                                                    : NULL);
        }
        if (json_array_append_new(fields, f) != 0) {
            json_decref(fields);
            fields = NULL;
        }
    }
    char *text = fields ? json_dumps(fields, JSON_COMPACT) : NULL;
    json_decref(fields);
    if (!text)
        return error_nomem(err);
    db_param_str(&p, text);
    /* Spec ids count up per table across its whole history. */
    const char *sql =
        sort
            ? "WITH s AS (INSERT INTO hog_sort_spec (catalog_id, table_id, sort_id, begin_snapshot)"
              " SELECT $1, $2, coalesce(max(sort_id), 0) + 1, $3 FROM hog_sort_spec"
              " WHERE catalog_id = $1 AND table_id = $2 RETURNING sort_id)"
              " INSERT INTO hog_sort_field (catalog_id, table_id, sort_id, key_index,"
              " source_field_id, direction, null_order)"
              " SELECT $1, $2, s.sort_id, x.key_index, x.source_field_id, x.direction,"
              " x.null_order FROM s, jsonb_to_recordset($4::jsonb) AS x(key_index int,"
              " source_field_id bigint, direction text, null_order text)"
              " RETURNING sort_id"
            : "WITH s AS (INSERT INTO hog_partition_spec (catalog_id, table_id, spec_id,"
              " begin_snapshot) SELECT $1, $2, coalesce(max(spec_id), 0) + 1, $3"
              " FROM hog_partition_spec WHERE catalog_id = $1 AND table_id = $2"
              " RETURNING spec_id)"
              " INSERT INTO hog_partition_field (catalog_id, table_id, spec_id, key_index,"
              " source_field_id, transform, transform_param)"
              " SELECT $1, $2, s.spec_id, x.key_index, x.source_field_id, x.transform,"
              " x.transform_param FROM s, jsonb_to_recordset($4::jsonb) AS x(key_index int,"
              " source_field_id bigint, transform text, transform_param int)"
              " RETURNING spec_id";
    PGresult *r = db_exec(pg, sql, &p, err);
    free(text);
    if (!r)
        return -1;
    if (sort)
        t->sort_id = db_i64(r, 0, 0);
    else
        t->spec_id = db_i64(r, 0, 0);
    PQclear(r);
    return 0;
}

int store_table_insert(struct store_ddl at, int64_t namespace_id, struct lake_table *t,
                       struct table_ref *ref, struct error *err)
{
    const struct store_ddl *txn = &at;
    PGconn *pg = txn->db->pg;
    struct db_params p;
    DB_PARAMS_IDS(&p, txn->catalog_id, txn->snapshot_id, t->next_field_id);
    PGresult *r = db_exec(pg,
                          "WITH id AS (UPDATE hog_catalog SET next_table_id = next_table_id + 1"
                          " WHERE catalog_id = $1 RETURNING next_table_id - 1 AS table_id),"
                          " t AS (INSERT INTO hog_table (catalog_id, table_id, created_snapshot,"
                          " next_field_id) SELECT $1, table_id, $2, $3 FROM id"
                          " RETURNING table_id, table_uuid),"
                          " s AS (INSERT INTO hog_table_stats (catalog_id, table_id)"
                          " SELECT $1, table_id FROM t)"
                          " SELECT table_id, table_uuid FROM t",
                          &p, err);
    if (!r)
        return -1;
    ref->table_id = db_i64(r, 0, 0);
    ref->table_uuid = arena_strdup(txn->arena, db_str(r, 0, 1));
    PQclear(r);
    if (!ref->table_uuid)
        return error_nomem(err);
    ref->name = t->name;
    ref->comment = t->comment;
    ref->version_begin = txn->snapshot_id;
    ref->primary_ts_field_id = t->primary_ts_field_id;
    if (insert_version(txn, ref->table_id, namespace_id, t, err) != 0 ||
        insert_columns(txn, ref->table_id, t, false, err) != 0)
        return -1;
    if (t->partitioned && write_spec(txn, ref->table_id, t, false, err) != 0)
        return -1;
    if (t->sorted && write_spec(txn, ref->table_id, t, true, err) != 0)
        return -1;
    return 0;
}

struct ended_collector {
    struct buf ids; /* a Postgres array literal being built */
    int failed;
};

static void collect_changed(struct lake_column *c, void *ctx)
{
    struct ended_collector *ec = ctx;
    if (c->stored && c->changed)
        ec->failed |=
            buf_printf(&ec->ids, "%s%lld", ec->ids.len > 1 ? "," : "", (long long)c->field_id);
}

int store_table_write_changes(struct store_ddl at, int64_t namespace_id,
                              const struct table_ref *ref, struct lake_table *t, struct error *err)
{
    const struct store_ddl *txn = &at;
    PGconn *pg = txn->db->pg;
    struct db_params p;

    /* End the rows of dropped and changed columns, then insert the new
     * versions: ending first keeps the live-ordinal index satisfied. */
    struct ended_collector ec = {BUF_INIT, 0};
    ec.failed |= buf_putc(&ec.ids, '{');
    for (size_t i = 0; i < t->nended; i++)
        ec.failed |= buf_printf(&ec.ids, "%s%lld", ec.ids.len > 1 ? "," : "",
                                (long long)t->ended_field_ids[i]);
    lake_table_walk(t, collect_changed, &ec);
    ec.failed |= buf_putc(&ec.ids, '}');
    if (ec.failed) {
        buf_free(&ec.ids);
        return error_nomem(err);
    }
    if (ec.ids.len > 2) {
        DB_PARAMS_IDS(&p, txn->catalog_id, ref->table_id, txn->snapshot_id);
        db_param_str(&p, ec.ids.data);
        int r =
            db_run(pg,
                   "UPDATE hog_column SET end_snapshot = $3 WHERE catalog_id = $1"
                   " AND table_id = $2 AND field_id = ANY($4::bigint[]) AND end_snapshot IS NULL",
                   &p, err);
        if (r != 0) {
            buf_free(&ec.ids);
            return -1;
        }
    }
    buf_free(&ec.ids);
    if (insert_columns(txn, ref->table_id, t, true, err) != 0)
        return -1;

    DB_PARAMS_IDS(&p, txn->catalog_id, ref->table_id, t->next_field_id);
    if (db_run(pg,
               "UPDATE hog_table SET next_field_id = $3 WHERE catalog_id = $1 AND table_id = $2"
               " AND next_field_id <> $3",
               &p, err) != 0)
        return -1;

    if (t->name_changed || t->comment_changed || t->properties_changed || t->primary_ts_changed) {
        DB_PARAMS_IDS(&p, txn->catalog_id, ref->table_id, txn->snapshot_id);
        if (db_run(pg,
                   "UPDATE hog_table_version SET end_snapshot = $3 WHERE catalog_id = $1"
                   " AND table_id = $2 AND end_snapshot IS NULL",
                   &p, err) != 0)
            return -1;
        if (insert_version(txn, ref->table_id, namespace_id, t, err) != 0)
            return -1;
    }
    if (t->spec_changed && write_spec(txn, ref->table_id, t, false, err) != 0)
        return -1;
    if (t->sort_changed && write_spec(txn, ref->table_id, t, true, err) != 0)
        return -1;
    return 0;
}

/* A table's totals at snapshot S (migration 10): the maintained row `l`
 * (joined only when nothing changed the table after S) as it is, else
 * computed from the rows. Fenced with OFFSET 0 where used, so the CASE runs
 * once per table and its fallback only for the tables that need it. */
#define TOTALS_AT(l, catalog, table, snapshot)                                                     \
    "CASE WHEN " l ".table_id IS NOT NULL THEN ROW(" l ".record_count, " l ".file_count, " l       \
    ".file_size_bytes, " l ".snapshot_count)::hog_table_totals ELSE hog_table_totals_at(" catalog  \
    ", " table ", " snapshot ") END"

/* $1 catalog, $2 table, $3 snapshot. */
/* clang-format off */
static const char table_totals_sql[] =
    "SELECT (x.tot).records, (x.tot).files, (x.tot).bytes FROM (SELECT "
    TOTALS_AT("l", "$1", "$2", "$3") " AS tot"
    " FROM (SELECT 1) one LEFT JOIN hog_table_live_totals l ON l.catalog_id = $1"
    " AND l.table_id = $2 AND l.changed_snapshot <= $3 OFFSET 0) x";

/* A listed table's totals as the columns r, f, b, s: the maintained row's
 * when `ready` (nothing changed the table after the listed snapshot),
 * else NULL and the composite `later` computed from the rows. Plain
 * columns, and a composite only where needed: carrying 54,000 composites
 * through the merge cost more than the walk. */
#define LISTED_TOTALS(ready, catalog, table, snapshot)                                             \
    "CASE WHEN " ready " THEN l.record_count END AS r,"                                            \
    " CASE WHEN " ready " THEN l.file_count END AS f,"                                             \
    " CASE WHEN " ready " THEN l.file_size_bytes END AS b,"                                        \
    " CASE WHEN " ready " THEN l.snapshot_count END AS s,"                                         \
    " CASE WHEN NOT (" ready ") THEN hog_table_totals_at(" catalog ", " table ", " snapshot        \
    ") END AS later"

/* $1 catalog, $2 namespace, $3 snapshot. The tables visible at $3 are
 * those whose live version began by then, read with their totals in one
 * walk of the listing index in name order (migration 12), merged with the
 * versions live at $3 that have ended since (none at the head). Each side
 * is ordered in its own subquery so the two merge without a sort (sorting
 * 54,000 names cost 50 ms). */
static const char tables_list_sql[] =
    "SELECT x.name, x.table_uuid, x.comment, coalesce(x.r, (x.later).records),"
    " coalesce(x.f, (x.later).files), coalesce(x.b, (x.later).bytes),"
    " coalesce(x.s, (x.later).snapshots) FROM ("
    "(SELECT l.name, l.table_uuid, l.comment, "
    LISTED_TOTALS("l.changed_snapshot <= $3", "$1", "l.table_id", "$3")
    " FROM hog_table_live_totals l"
    " WHERE l.catalog_id = $1 AND l.namespace_id = $2 AND l.name IS NOT NULL"
    " AND l.listed_snapshot <= $3 ORDER BY l.name)"
    " UNION ALL "
    "(SELECT v.name, t.table_uuid, v.comment, "
    LISTED_TOTALS("l.table_id IS NOT NULL", "$1", "v.table_id", "$3")
    " FROM hog_table_version v JOIN hog_table t USING (catalog_id, table_id)"
    " LEFT JOIN hog_table_live_totals l ON l.catalog_id = v.catalog_id"
    "  AND l.table_id = v.table_id AND l.changed_snapshot <= $3"
    " WHERE v.catalog_id = $1 AND v.namespace_id = $2 AND v.end_snapshot > $3"
    " AND v.begin_snapshot <= $3 ORDER BY v.name)) x ORDER BY x.name";

/* $1 catalog, $2 namespace: the listing at the catalog's head, when the
 * transaction sees the head it lists. Every live row is then the head's
 * (its version began and its totals changed at or before the head, and
 * no version has ended after it), so the walk alone answers: no merge,
 * no choice of totals per row (PostgreSQL alone, 54,000 tables at 1x:
 * 35-36 ms instead of 40-41). */
static const char tables_list_head_sql[] =
    "SELECT l.name, l.table_uuid, l.comment, l.record_count, l.file_count,"
    " l.file_size_bytes, l.snapshot_count FROM hog_table_live_totals l"
    " WHERE l.catalog_id = $1 AND l.namespace_id = $2 AND l.name IS NOT NULL ORDER BY l.name";
/* clang-format on */

int store_table_totals(struct srv_ctx *ctx, const struct catalog_row *cat, int64_t table_id,
                       int64_t snapshot, struct table_totals *out, struct error *err)
{
    struct db_params p;
    DB_PARAMS_IDS(&p, cat->id, table_id, snapshot);
    PGresult *r = db_exec(ctx->db->pg, table_totals_sql, &p, err);
    if (!r)
        return -1;
    out->records = db_i64(r, 0, 0);
    out->files = db_i64(r, 0, 1);
    out->bytes = db_i64(r, 0, 2);
    PQclear(r);
    return 0;
}

/* The walk of a listing: the caller's callback over each row. */
struct listed_tables {
    store_table_summary_fn *fn;
    void *ctx;
};

static int listed_table_row(void *ctx, const struct db_copy_row *row, struct error *err)
{
    const struct listed_tables *walk = ctx;
    char uuid[37];
    struct store_table_summary t = {
        .name = row->value[0], .table_uuid = uuid, .comment = row->value[2]};
    if (!t.name || !db_copy_uuid(row, 1, uuid) || !db_copy_i64(row, 3, &t.records) ||
        !db_copy_i64(row, 4, &t.files) || !db_copy_i64(row, 5, &t.bytes) ||
        !db_copy_i64(row, 6, &t.snapshots))
        return error_fail(err, ERR_INTERNAL, "a listed table's row is not as selected");
    return walk->fn(walk->ctx, &t, err);
}

int store_tables_list(struct db_conn *db, int64_t catalog_id, int64_t namespace_id,
                      int64_t snapshot, store_table_summary_fn *fn, void *ctx, struct error *err)
{
    /* The walk in name order whatever the heap's order: where the rows lie
     * apart, the planner counts a random page per row (though they are
     * cached) and would scan and sort instead, 120 ms more for 54,000
     * names. Transaction-scoped: the caller's transaction ends it. The
     * same statement reads whether the snapshot is the head this
     * transaction sees. */
    struct db_params p;
    DB_PARAMS_IDS(&p, catalog_id, snapshot);
    PGresult *r = db_exec(db->pg,
                          "SELECT set_config('enable_seqscan', 'off', true),"
                          " set_config('enable_bitmapscan', 'off', true),"
                          " (SELECT c.last_snapshot_id = $2 FROM hog_catalog c"
                          "  WHERE c.catalog_id = $1)",
                          &p, err);
    if (!r)
        return -1;
    bool at_head = PQntuples(r) == 1 && db_bool(r, 0, 2);
    PQclear(r);
    /* Totals are exact at the listed snapshot; snapshot_count counts the
     * retained snapshots whose table-scoped changes name the table. */
    int64_t ids[] = {catalog_id, namespace_id, snapshot};
    char *sql =
        db_copy_statement(at_head ? tables_list_head_sql : tables_list_sql, at_head ? 2 : 3, ids);
    if (!sql)
        return error_nomem(err);
    struct listed_tables walk = {fn, ctx};
    int rc = db_copy_each_row(db->pg, sql, 7, listed_table_row, &walk, err);
    free(sql);
    return rc;
}

int store_table_name_taken(struct db_conn *db, int64_t catalog_id, int64_t namespace_id,
                           const char *name, struct error *err)
{
    struct db_params p;
    DB_PARAMS_IDS(&p, catalog_id, namespace_id);
    db_param_str(&p, name);
    return db_exists(db->pg,
                     "SELECT 1 FROM hog_table_version WHERE catalog_id = $1"
                     " AND namespace_id = $2 AND name = $3 AND end_snapshot IS NULL",
                     &p, err);
}

/* Runs a statement ending a table's rows: $1 the catalog, $2 the table, $3
 * the DDL's snapshot. */
static int end_rows(struct store_ddl at, int64_t table_id, const char *sql, struct error *err)
{
    struct db_params p;
    DB_PARAMS_IDS(&p, at.catalog_id, table_id, at.snapshot_id);
    return db_run(at.db->pg, sql, &p, err);
}

int store_table_drop(struct store_ddl at, int64_t table_id, struct error *err)
{
    /* O(columns): the definition rows end; file rows are left for
     * retirement, and are unreachable once the table is dropped. */
    return end_rows(at, table_id,
                    "WITH t AS (UPDATE hog_table SET dropped_snapshot = $3"
                    "  WHERE catalog_id = $1 AND table_id = $2),"
                    " v AS (UPDATE hog_table_version SET end_snapshot = $3"
                    "  WHERE catalog_id = $1 AND table_id = $2 AND end_snapshot IS NULL),"
                    " c AS (UPDATE hog_column SET end_snapshot = $3"
                    "  WHERE catalog_id = $1 AND table_id = $2 AND end_snapshot IS NULL),"
                    " ps AS (UPDATE hog_partition_spec SET end_snapshot = $3"
                    "  WHERE catalog_id = $1 AND table_id = $2 AND end_snapshot IS NULL)"
                    " UPDATE hog_sort_spec SET end_snapshot = $3"
                    "  WHERE catalog_id = $1 AND table_id = $2 AND end_snapshot IS NULL",
                    err);
}

int store_table_truncate(struct store_ddl at, int64_t table_id, struct error *err)
{
    /* Set-based, over the partial "live" indexes: O(live rows). */
    return end_rows(at, table_id,
                    "WITH dv AS (UPDATE hog_delete_file SET end_snapshot = $3"
                    "  WHERE catalog_id = $1 AND table_id = $2 AND end_snapshot IS NULL)"
                    " UPDATE hog_data_file SET end_snapshot = $3"
                    "  WHERE catalog_id = $1 AND table_id = $2 AND end_snapshot IS NULL",
                    err);
}

/* $1 catalog, $2 table, $3 snapshot: the first DDL on the table after $3,
 * the first of each kind (change_probe.h); least() skips the kinds that
 * have none. */
/* clang-format off */
static const char ddl_after_sql[] =
    "SELECT least("
    STORE_FIRST_CHANGE_AFTER("$1", "$2", "table_created", "$3") ","
    STORE_FIRST_CHANGE_AFTER("$1", "$2", "table_altered", "$3") ","
    STORE_FIRST_CHANGE_AFTER("$1", "$2", "table_dropped", "$3") ")";
/* clang-format on */

int store_table_ddl_after(struct db_conn *db, int64_t catalog_id, int64_t table_id, int64_t after,
                          int64_t *first, struct error *err)
{
    struct db_params p;
    DB_PARAMS_IDS(&p, catalog_id, table_id, after);
    return db_scalar_i64(db->pg, ddl_after_sql, &p, first, err);
}

/* $1 catalog, $2 table, $3 snapshot: see store_table_definition_until. One
 * statement, so the head and the change rows are read at one moment. */
/* clang-format off */
static const char definition_until_sql[] =
    "SELECT CASE WHEN $3 < c.earliest_snapshot_id THEN $3 + 1"
    " ELSE least(c.last_snapshot_id + 1,"
    STORE_FIRST_CHANGE_AFTER("$1", "$2", "table_created", "$3") ","
    STORE_FIRST_CHANGE_AFTER("$1", "$2", "table_altered", "$3") ","
    STORE_FIRST_CHANGE_AFTER("$1", "$2", "table_dropped", "$3") ") END"
    " FROM hog_catalog c WHERE c.catalog_id = $1";
/* clang-format on */

int store_table_definition_until(struct db_conn *db, int64_t catalog_id, int64_t table_id,
                                 int64_t snapshot, int64_t *until, struct error *err)
{
    struct db_params p;
    DB_PARAMS_IDS(&p, catalog_id, table_id, snapshot);
    int found = db_scalar_i64(db->pg, definition_until_sql, &p, until, err);
    if (found == 0)
        *until = snapshot + 1;
    return found < 0 ? -1 : 0;
}

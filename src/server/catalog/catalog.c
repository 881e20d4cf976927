#include "server/catalog/catalog.h"

#include <stdio.h>
#include <string.h>

#include "server/db/db.h"
#include "server/metrics.h"
#include "server/server.h"
#include "util/timefmt.h"

#define CATALOG_LOCK_CLASS 4740871LL

int64_t catalog_lock_key(int64_t catalog_id)
{
    return (int64_t)(((uint64_t)CATALOG_LOCK_CLASS << 32) | ((uint64_t)catalog_id & 0xffffffffu));
}

static const char *dup_or_null(struct arena *arena, const PGresult *r, int row, int col)
{
    const char *v = db_str(r, row, col);
    return v ? arena_strdup(arena, v) : NULL;
}

#define CATALOG_SELECT                                                                             \
    "SELECT catalog_id, name, data_path, last_snapshot_id, schema_version,"                        \
    " earliest_snapshot_id,"                                                                       \
    " (extract(epoch FROM earliest_snapshot_time) * 1000000)::bigint,"                             \
    " snapshot_retention_seconds, consumer_floor FROM hog_catalog"

static int catalog_from_row(struct arena *arena, const PGresult *r, int row,
                            struct catalog_row *out, struct api_error *err)
{
    memset(out, 0, sizeof *out);
    out->id = db_i64(r, row, 0);
    out->name = dup_or_null(arena, r, row, 1);
    out->data_path = dup_or_null(arena, r, row, 2);
    out->head = db_i64(r, row, 3);
    out->schema_version = db_i64(r, row, 4);
    out->earliest = db_i64(r, row, 5);
    out->has_earliest_time = !db_isnull(r, row, 6);
    out->earliest_time_us = out->has_earliest_time ? db_i64(r, row, 6) : 0;
    out->has_retention = !db_isnull(r, row, 7);
    out->retention_s = out->has_retention ? db_i64(r, row, 7) : 0;
    out->consumer_floor = db_bool(r, row, 8);
    if (!out->name || !out->data_path)
        return api_nomem(err);
    return 0;
}

int catalog_load(struct srv_req *req, const char *name, struct catalog_row *out,
                 struct api_error *err)
{
    struct db_conn *db = req_db(req, err);
    if (!db)
        return -1;
    struct db_params p;
    db_params_init(&p);
    db_param_str(&p, name);
    PGresult *r =
        req_query_prepared(req, CATALOG_SELECT " WHERE name = $1", &p, "catalog lookup", err);
    if (!r)
        return -1;
    if (PQntuples(r) == 0) {
        PQclear(r);
        return catalog_not_found(err, name);
    }
    int rc = catalog_from_row(&req->arena, r, 0, out, err);
    PQclear(r);
    return rc;
}

int catalog_not_found(struct api_error *err, const char *name)
{
    return api_not_found(err, "catalog '%.200s'", name);
}

int catalog_load_id(struct srv_ctx *ctx, int64_t id, struct catalog_row *out, struct api_error *err)
{
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, id);
    PGresult *r =
        ctx_query(ctx, CATALOG_SELECT " WHERE catalog_id = $1", &p, "catalog lookup", err);
    if (!r)
        return -1;
    int rc = PQntuples(r) == 0 ? api_not_found(err, "catalog %lld", (long long)id)
                               : catalog_from_row(ctx->arena, r, 0, out, err);
    PQclear(r);
    return rc;
}

int catalog_load_all(struct srv_req *req, struct catalog_row **out, size_t *count,
                     struct api_error *err)
{
    struct db_conn *db = req_db(req, err);
    if (!db)
        return -1;
    PGresult *r = req_query(req, CATALOG_SELECT " ORDER BY name", NULL, "catalog list", err);
    if (!r)
        return -1;
    size_t n = (size_t)PQntuples(r);
    *out = arena_calloc(&req->arena, n ? n : 1, sizeof **out);
    if (!*out) {
        PQclear(r);
        return api_nomem(err);
    }
    for (size_t i = 0; i < n; i++) {
        if (catalog_from_row(&req->arena, r, (int)i, &(*out)[i], err) != 0) {
            PQclear(r);
            return -1;
        }
    }
    *count = n;
    PQclear(r);
    return 0;
}

/* Only what this server implements is advertised: clients choose code paths
 * by these strings and must not fall back. */
static const char *const capabilities[] = {
    "idempotent-append-v1",
    "guarded-table-lifecycle-v1",
    "guarded-schema-evolution-v1",
    "versioned-table-metadata-v1",
};

json_t *catalog_to_json(const struct catalog_row *c)
{
    json_t *caps = json_array();
    for (size_t i = 0; caps && i < sizeof capabilities / sizeof capabilities[0]; i++)
        json_array_append_new(caps, json_string(capabilities[i]));
    json_t *o = json_pack("{s:s,s:s,s:I,s:I,s:o*}", "name", c->name, "data_path", c->data_path,
                          "head_snapshot_id", (json_int_t)c->head, "schema_version",
                          (json_int_t)c->schema_version, "capabilities", caps);
    if (o && c->has_earliest_time) {
        char ts[48];
        time_format_iso8601(c->earliest_time_us, ts, sizeof ts);
        json_object_set_new(o, "earliest_snapshot_time", json_string(ts));
    }
    return o;
}

int timetravel_expired(struct api_error *err, const struct catalog_row *cat, int64_t snapshot,
                       const char *what)
{
    char when[80] = "";
    if (cat->has_earliest_time) {
        char ts[48];
        time_format_iso8601(cat->earliest_time_us, ts, sizeof ts);
        snprintf(when, sizeof when, ", reached at %s", ts);
    }
    return api_fail(err, 410, "expired",
                    "%s %lld is below the expiry floor (earliest retained snapshot is %lld%s) for "
                    "catalog '%s'",
                    what, (long long)snapshot, (long long)cat->earliest, when, cat->name);
}

int timetravel_resolve(struct srv_req *req, const struct catalog_row *cat, int64_t *snapshot,
                       bool *at_head, struct api_error *err)
{
    bool has_snap = false;
    int64_t snap = 0;
    if (req_arg_i64(req, "snapshot", &has_snap, &snap, err) != 0)
        return -1;
    const char *ts_text = req_arg(req, "at_timestamp");
    int64_t ts = 0;
    if (ts_text && !time_parse_iso8601(ts_text, &ts))
        return api_bad_request(err,
                               "query parameter 'at_timestamp' must be an ISO-8601 instant with "
                               "an offset (e.g. 2026-09-05T00:00:00Z), got '%.64s'",
                               ts_text);
    if (has_snap && ts_text)
        return api_validation(err,
                              "snapshot and at_timestamp are mutually exclusive; supply at most "
                              "one");
    *at_head = !has_snap && !ts_text;
    if (*at_head) {
        *snapshot = cat->head;
        return 0;
    }
    if (has_snap) {
        if (snap < 0 || snap > cat->head)
            return api_validation(err, "snapshot %lld out of range [0, %lld] for catalog '%s'",
                                  (long long)snap, (long long)cat->head, cat->name);
        if (snap < cat->earliest)
            return timetravel_expired(err, cat, snap, "snapshot");
        *snapshot = snap;
        return 0;
    }
    struct db_conn *db = req_db(req, err);
    if (!db)
        return -1;
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, cat->id);
    db_param_i64(&p, ts);
    db_param_i64(&p, cat->earliest);
    PGresult *r = req_query(req,
                            "SELECT max(snapshot_id) FROM hog_snapshot WHERE catalog_id = $1"
                            " AND snapshot_time <= 'epoch'::timestamptz + $2::bigint * interval '1 "
                            "microsecond'"
                            " AND snapshot_id >= $3",
                            &p, "time travel", err);
    if (!r)
        return -1;
    bool none = db_isnull(r, 0, 0);
    int64_t found = none ? 0 : db_i64(r, 0, 0);
    PQclear(r);
    if (none) {
        char t[48];
        time_format_iso8601(ts, t, sizeof t);
        return api_fail(err, 410, "expired",
                        "at_timestamp %s is before the earliest retained snapshot "
                        "(earliest_snapshot_id %lld) of catalog '%s'",
                        t, (long long)cat->earliest, cat->name);
    }
    /* The head read above may be older than a snapshot committed since;
     * never resolve past the head this request is working from. */
    *snapshot = found > cat->head ? cat->head : found;
    return 0;
}

int namespace_resolve(struct srv_req *req, const struct catalog_row *cat, const char *name,
                      int64_t snapshot, bool time_travel, int64_t *namespace_id,
                      struct api_error *err)
{
    struct db_conn *db = req_db(req, err);
    if (!db)
        return -1;
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, cat->id);
    db_param_str(&p, name);
    db_param_i64(&p, snapshot);
    PGresult *r = req_query(req,
                            "SELECT namespace_id FROM hog_namespace WHERE catalog_id = $1 AND name "
                            "= $2 AND hog_visible(created_snapshot, dropped_snapshot, $3)",
                            &p, "namespace lookup", err);
    if (!r)
        return -1;
    if (PQntuples(r) == 0) {
        PQclear(r);
        if (!time_travel)
            return api_not_found(err, "namespace '%.200s' in catalog '%s'", name, cat->name);
        return api_not_found(err, "namespace '%.200s' in catalog '%s' at snapshot %lld", name,
                             cat->name, (long long)snapshot);
    }
    *namespace_id = db_i64(r, 0, 0);
    PQclear(r);
    return 0;
}

int table_resolve(struct srv_req *req, const struct catalog_row *cat, const char *ns_name,
                  int64_t namespace_id, const char *name, int64_t snapshot, bool time_travel,
                  struct table_ref *out, struct api_error *err)
{
    struct db_conn *db = req_db(req, err);
    if (!db)
        return -1;
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, cat->id);
    db_param_i64(&p, namespace_id);
    db_param_str(&p, name);
    db_param_i64(&p, snapshot);
    PGresult *r =
        req_query(req,
                  "SELECT t.table_id, t.table_uuid, v.name, v.comment, v.properties::text,"
                  " v.begin_snapshot, coalesce(v.primary_timestamp_field_id, 0)"
                  " FROM hog_table_version v JOIN hog_table t USING (catalog_id, table_id)"
                  " WHERE v.catalog_id = $1 AND v.namespace_id = $2 AND v.name = $3"
                  " AND hog_visible(v.begin_snapshot, v.end_snapshot, $4)",
                  &p, "table lookup", err);
    if (!r)
        return -1;
    if (PQntuples(r) == 0) {
        PQclear(r);
        if (!time_travel)
            return api_not_found(err, "table '%.200s.%.200s' in catalog '%s'", ns_name, name,
                                 cat->name);
        return api_not_found(err, "table '%.200s.%.200s' in catalog '%s' at snapshot %lld", ns_name,
                             name, cat->name, (long long)snapshot);
    }
    out->table_id = db_i64(r, 0, 0);
    out->table_uuid = dup_or_null(&req->arena, r, 0, 1);
    out->name = dup_or_null(&req->arena, r, 0, 2);
    out->comment = dup_or_null(&req->arena, r, 0, 3);
    out->properties = dup_or_null(&req->arena, r, 0, 4);
    out->version_begin = db_i64(r, 0, 5);
    out->primary_ts_field_id = db_i64(r, 0, 6);
    PQclear(r);
    if (!out->table_uuid || !out->name || !out->properties)
        return api_nomem(err);
    return 0;
}

/* ---- DDL transactions ---- */

int64_t ddl_lock_budget_after(const struct server *srv, int64_t queued_ns)
{
    /* The budget counts time already spent queued for a worker, but never
     * drops below a second so a queued request still gets a fair try. */
    int configured = srv->cfg.commit_lock_timeout_ms;
    if (configured <= 0)
        return 0;
    int64_t budget = configured - queued_ns / 1000000;
    int64_t floor = configured < 1000 ? configured : 1000;
    return budget < floor ? floor : budget;
}

int64_t ddl_lock_budget_ms(const struct srv_req *req)
{
    return ddl_lock_budget_after(req->srv, req->queue_wait_ns);
}

int ddl_begin(struct srv_req *req, const struct catalog_row *cat, struct ddl_txn *t,
              struct api_error *err)
{
    struct srv_ctx ctx;
    if (req_ctx(req, &ctx, err) != 0)
        return -1;
    return ddl_begin_ctx(&ctx, cat, ddl_lock_budget_ms(req), t, err);
}

int ddl_begin_ctx(struct srv_ctx *ctx, const struct catalog_row *cat, int64_t lock_budget_ms,
                  struct ddl_txn *t, struct api_error *err)
{
    memset(t, 0, sizeof *t);
    t->ctx = *ctx;
    t->cat = cat;
    struct error dberr;
    if (ctx_exec(ctx, "BEGIN", NULL, "begin", err) != 0)
        return -1;
    char ms[24];
    snprintf(ms, sizeof ms, "%lld", (long long)lock_budget_ms);
    struct db_params p;
    db_params_init(&p);
    db_param_str(&p, ms);
    if (ctx_exec(ctx, "SELECT set_config('lock_timeout', $1, true)", &p, "lock timeout", err) != 0)
        return -1;
    db_params_init(&p);
    db_param_i64(&p, catalog_lock_key(cat->id));
    int64_t t0 = time_mono_ns();
    int rc = db_run(ctx->db->pg, "SELECT pg_advisory_xact_lock($1::bigint)", &p, &dberr);
    metrics_observe(ctx->srv->metrics, "hoglake_commit_lock_wait_seconds", "",
                    (double)(time_mono_ns() - t0) / 1e9);
    if (rc != 0)
        return api_from_error(err, &dberr, "catalog lock");
    db_params_init(&p);
    db_param_i64(&p, cat->id);
    PGresult *r = ctx_query(ctx,
                            "SELECT last_snapshot_id, earliest_snapshot_id FROM hog_catalog"
                            " WHERE catalog_id = $1",
                            &p, "catalog head", err);
    if (!r)
        return -1;
    if (PQntuples(r) == 0) {
        PQclear(r);
        return api_not_found(err, "catalog '%s'", cat->name);
    }
    t->head = db_i64(r, 0, 0);
    t->earliest = db_i64(r, 0, 1);
    PQclear(r);
    return 0;
}

int ddl_begin_in_namespace(struct srv_req *req, struct catalog_row *cat, struct ddl_txn *t,
                           int64_t *namespace_id, struct api_error *err)
{
    if (catalog_load(req, req->params[0], cat, err) != 0 || ddl_begin(req, cat, t, err) != 0)
        return -1;
    return namespace_resolve(req, cat, req->params[1], t->head, false, namespace_id, err);
}

/* The snapshot (and, for a data snapshot, nfile_ids file ids: the first
 * in *first_file_id) allocated under the lock, and its snapshot row. Only
 * DDL bumps schema_version. */
static int allocate(struct ddl_txn *t, bool ddl, int64_t nfile_ids, int64_t *first_file_id,
                    struct api_error *err)
{
    PGconn *pg = t->ctx.db->pg;
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, t->cat->id);
    db_param_bool(&p, ddl);
    db_param_i64(&p, nfile_ids);
    struct error dberr;
    PGresult *r = db_exec(pg,
                          "UPDATE hog_catalog SET last_snapshot_id = last_snapshot_id + 1,"
                          " schema_version = schema_version + $2::boolean::int,"
                          " next_file_id = next_file_id + $3 WHERE catalog_id = $1"
                          " RETURNING last_snapshot_id, schema_version, next_file_id - $3",
                          &p, &dberr);
    if (!r)
        return api_from_error(err, &dberr, "snapshot allocation");
    t->snapshot_id = db_i64(r, 0, 0);
    t->schema_version = db_i64(r, 0, 1);
    if (first_file_id)
        *first_file_id = db_i64(r, 0, 2);
    PQclear(r);
    db_params_init(&p);
    db_param_i64(&p, t->cat->id);
    db_param_i64(&p, t->snapshot_id);
    db_param_i64(&p, t->schema_version);
    if (db_run(pg,
               "INSERT INTO hog_snapshot (catalog_id, snapshot_id, snapshot_time, schema_version)"
               " VALUES ($1, $2, clock_timestamp(), $3)",
               &p, &dberr) != 0)
        return api_from_error(err, &dberr, "snapshot row");
    return 0;
}

int ddl_allocate(struct ddl_txn *t, struct api_error *err)
{
    return allocate(t, true, 0, NULL, err);
}

int ddl_allocate_data(struct ddl_txn *t, int64_t nfile_ids, int64_t *first_file_id,
                      struct api_error *err)
{
    return allocate(t, false, nfile_ids, first_file_id, err);
}

int ddl_change(struct ddl_txn *t, const char *kind, int64_t object_id, struct api_error *err)
{
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, t->cat->id);
    db_param_i64(&p, t->snapshot_id);
    db_param_str(&p, kind);
    db_param_i64(&p, object_id);
    if (ctx_exec(&t->ctx,
                 "INSERT INTO hog_snapshot_change (catalog_id, snapshot_id, kind, object_id)"
                 " VALUES ($1, $2, $3, $4)",
                 &p, "change row", err) != 0)
        return -1;
    return 0;
}

int ddl_commit(struct ddl_txn *t, struct api_error *err)
{
    if (ctx_exec(&t->ctx, "COMMIT", NULL, "commit", err) != 0)
        return -1;
    return 0;
}

json_t *ddl_result_json(const struct ddl_txn *t)
{
    return json_pack("{s:I,s:I}", "snapshot_id", (json_int_t)t->snapshot_id, "schema_version",
                     (json_int_t)t->schema_version);
}

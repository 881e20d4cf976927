#include "server/catalog/catalog.h"

#include <stdio.h>
#include <string.h>

#include "server/catalog/catalog_idents.h"
#include "server/db/db.h"
#include "server/metrics.h"
#include "server/server.h"
#include "server/store/namespaces.h"
#include "server/store/snapshots.h"
#include "util/timefmt.h"

int catalog_load(struct srv_req *req, const char *name, struct catalog_row *out,
                 struct api_error *err)
{
    struct db_conn *db = req_db(req, err);
    if (!db)
        return -1;
    struct error e;
    int found = store_catalog_get(db, &req->arena, name, out, &e);
    if (found < 0)
        return api_from_error(err, &e, "catalog lookup");
    return found ? 0 : catalog_not_found(err, name);
}

int catalog_ident_load(struct srv_req *req, const char *name, bool fresh, struct catalog_ident *out,
                       bool *cached, struct api_error *err)
{
    struct catalog_idents *idents = req->srv->catalog_idents;
    *cached = false;
    if (!fresh) {
        int hit = catalog_idents_get(idents, name, &req->arena, out);
        if (hit < 0)
            return api_nomem(err);
        if (hit) {
            *cached = true;
            return 0;
        }
    }
    struct catalog_row cat;
    if (catalog_load(req, name, &cat, err) != 0) {
        if (err->status == 404)
            catalog_idents_forget(idents, name);
        return -1;
    }
    *out = (struct catalog_ident){.id = cat.id, .name = cat.name, .data_path = cat.data_path};
    catalog_idents_put(idents, out);
    return 0;
}

int catalog_not_found(struct api_error *err, const char *name)
{
    return api_not_found(err, "catalog '%.200s'", name);
}

int catalog_load_id(struct srv_ctx *ctx, int64_t id, struct catalog_row *out, struct error *err)
{
    int found = store_catalog_get_by_id(ctx->db, ctx->arena, id, out, err);
    if (found < 0)
        return error_prefix(err, "catalog lookup");
    return found ? 0 : error_fail(err, ERR_NOT_FOUND, "catalog %lld", (long long)id);
}

int catalog_load_all(struct srv_req *req, struct catalog_row **out, size_t *count,
                     struct api_error *err)
{
    struct db_conn *db = req_db(req, err);
    if (!db)
        return -1;
    struct error e;
    if (store_catalogs_all(db, &req->arena, out, count, &e) != 0)
        return api_from_error(err, &e, "catalog list");
    return 0;
}

/* Only what this server implements is advertised: clients choose code paths
 * by these strings and must not fall back. */
static const char *const capabilities[] = {
    "idempotent-append-v1",       "idempotent-delete-v1",        "idempotent-mutation-v1",
    "guarded-table-lifecycle-v1", "guarded-schema-evolution-v1", "versioned-table-metadata-v1",
    "claimed-uploads-v1",         "atomic-dml-transactions-v1",
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

int snapshot_expired(struct error *err, const struct catalog_row *cat, int64_t snapshot,
                     const char *what)
{
    char when[80] = "";
    if (cat->has_earliest_time) {
        char ts[48];
        time_format_iso8601(cat->earliest_time_us, ts, sizeof ts);
        snprintf(when, sizeof when, ", reached at %s", ts);
    }
    return error_fail(err, ERR_EXPIRED,
                      "%s %lld is below the expiry floor (earliest retained snapshot is %lld%s) "
                      "for catalog '%s'",
                      what, (long long)snapshot, (long long)cat->earliest, when, cat->name);
}

int timetravel_expired(struct api_error *err, const struct catalog_row *cat, int64_t snapshot,
                       const char *what)
{
    struct error e;
    snapshot_expired(&e, cat, snapshot, what);
    return api_from_error(err, &e, what);
}

/* No retained snapshot is as old as `ts`: 404 before_catalog when the
 * catalog did not exist yet (nothing was there to expire), else 410. */
static int timetravel_too_early(struct db_conn *db, const struct catalog_row *cat, int64_t ts,
                                struct api_error *err)
{
    struct error e;
    int64_t created = 0;
    if (store_snapshot_catalog_created(db, cat->id, &created, &e) < 0)
        return api_from_error(err, &e, "time travel");
    char t[48], c[48];
    time_format_iso8601(ts, t, sizeof t);
    if (ts < created) {
        time_format_iso8601(created, c, sizeof c);
        return api_fail(err, 404, "before_catalog", "catalog '%s' did not exist at %s (created %s)",
                        cat->name, t, c);
    }
    return api_fail(err, 410, "expired",
                    "at_timestamp %s is before the earliest retained snapshot "
                    "(earliest_snapshot_id %lld) of catalog '%s'",
                    t, (long long)cat->earliest, cat->name);
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
    struct error e;
    int64_t found = 0;
    int rc = store_snapshot_at(db, cat->id, ts, cat->earliest, &found, &e);
    if (rc < 0)
        return api_from_error(err, &e, "time travel");
    if (rc == 0)
        return timetravel_too_early(db, cat, ts, err);
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
    struct error e;
    int found = store_namespace_find(db, cat->id, name, snapshot, namespace_id, &e);
    if (found < 0)
        return api_from_error(err, &e, "namespace lookup");
    if (found)
        return 0;
    if (!time_travel)
        return api_not_found(err, "namespace '%.200s' in catalog '%s'", name, cat->name);
    return api_not_found(err, "namespace '%.200s' in catalog '%s' at snapshot %lld", name,
                         cat->name, (long long)snapshot);
}

int table_resolve(struct srv_req *req, const struct catalog_row *cat, const char *ns_name,
                  int64_t namespace_id, const char *name, int64_t snapshot, bool time_travel,
                  struct table_ref *out, struct api_error *err)
{
    struct db_conn *db = req_db(req, err);
    if (!db)
        return -1;
    struct error e;
    int found = store_table_find(db, &req->arena, cat->id, namespace_id, name, snapshot, out, &e);
    if (found < 0)
        return api_from_error(err, &e, "table lookup");
    if (found)
        return 0;
    if (!time_travel)
        return api_not_found(err, "table '%.200s.%.200s' in catalog '%s'", ns_name, name,
                             cat->name);
    return api_not_found(err, "table '%.200s.%.200s' in catalog '%s' at snapshot %lld", ns_name,
                         name, cat->name, (long long)snapshot);
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
    struct error e;
    if (ddl_begin_ctx(&ctx, cat, ddl_lock_budget_ms(req), t, &e) != 0)
        return api_from_error(err, &e, "DDL");
    return 0;
}

int ddl_begin_ctx(struct srv_ctx *ctx, const struct catalog_row *cat, int64_t lock_budget_ms,
                  struct ddl_txn *t, struct error *err)
{
    memset(t, 0, sizeof *t);
    t->ctx = *ctx;
    t->cat = cat;
    int64_t waited = 0;
    if (db_begin(ctx->db->pg, err) != 0)
        return error_prefix(err, "catalog lock");
    int found =
        store_catalog_lock(ctx->db, cat->id, lock_budget_ms, &waited, &t->head, &t->earliest, err);
    if (waited > 0)
        metrics_observe(ctx->srv->metrics, "hoglake_commit_lock_wait_seconds", "",
                        (double)waited / 1e9);
    if (found < 0)
        return error_prefix(err, "catalog lock");
    return found ? 0 : error_fail(err, ERR_NOT_FOUND, "catalog '%s'", cat->name);
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
                    struct error *err)
{
    struct store_snapshot_allocation a;
    if (store_snapshot_allocate(t->ctx.db, t->cat->id, ddl, nfile_ids, &a, err) != 0)
        return error_prefix(err, "snapshot allocation");
    t->snapshot_id = a.snapshot_id;
    t->schema_version = a.schema_version;
    if (first_file_id)
        *first_file_id = a.first_file_id;
    return 0;
}

int ddl_allocate(struct ddl_txn *t, struct error *err)
{
    return allocate(t, true, 0, NULL, err);
}

int ddl_allocate_data(struct ddl_txn *t, int64_t nfile_ids, int64_t *first_file_id,
                      struct error *err)
{
    return allocate(t, false, nfile_ids, first_file_id, err);
}

int ddl_change(struct ddl_txn *t, const char *kind, int64_t object_id, struct error *err)
{
    if (store_snapshot_change_add(t->ctx.db, t->cat->id, t->snapshot_id, kind, object_id, err) != 0)
        return error_prefix(err, "change row");
    return 0;
}

int ddl_commit(struct ddl_txn *t, struct error *err)
{
    if (db_commit(t->ctx.db->pg, err) != 0)
        return error_prefix(err, "commit");
    return 0;
}

struct store_ddl ddl_store(const struct ddl_txn *t)
{
    return (struct store_ddl){t->ctx.db, t->cat->id, t->snapshot_id, t->ctx.arena};
}

json_t *ddl_result_json(const struct ddl_txn *t)
{
    return json_pack("{s:I,s:I}", "snapshot_id", (json_int_t)t->snapshot_id, "schema_version",
                     (json_int_t)t->schema_version);
}

/* Views: named SQL text, stored verbatim and versioned like tables. */
#include <stdio.h>
#include <string.h>

#include "lake/ident.h"
#include "server/catalog/catalog.h"
#include "server/db/db.h"
#include "server/http/handlers.h"
#include "util/jsonx.h"

enum { VIEW_SQL_MAX = 1024 * 1024 };

static bool valid_dialect(const char *d)
{
    if (!(d[0] >= 'a' && d[0] <= 'z'))
        return false;
    size_t n = 1;
    for (; d[n]; n++)
        if (!((d[n] >= 'a' && d[n] <= 'z') || (d[n] >= '0' && d[n] <= '9') || d[n] == '_'))
            return false;
    return n <= 32;
}

#define VIEW_COLUMNS "name, view_uuid, dialect, sql"

static json_t *view_json(const PGresult *r, int row, const char *ns)
{
    return json_pack("{s:s,s:s,s:s,s:s,s:s}", "name", db_str(r, row, 0), "namespace", ns,
                     "view_uuid", db_str(r, row, 1), "dialect", db_str(r, row, 2), "sql",
                     db_str(r, row, 3));
}

/* Resolves catalog, snapshot and namespace for a view read. */
static int read_context(struct srv_req *req, struct catalog_row *cat, int64_t *snap, bool *at_head,
                        int64_t *ns_id, struct api_error *err)
{
    if (catalog_load(req, req->params[0], cat, err) != 0 ||
        timetravel_resolve(req, cat, snap, at_head, err) != 0 ||
        namespace_resolve(req, cat, req->params[1], *snap, !*at_head, ns_id, err) != 0)
        return -1;
    return 0;
}

int h_views_list(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    struct catalog_row cat;
    int64_t snap, ns_id;
    bool at_head;
    if (read_context(req, &cat, &snap, &at_head, &ns_id, err) != 0)
        return -1;
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, cat.id);
    db_param_i64(&p, ns_id);
    db_param_i64(&p, snap);
    PGresult *r =
        req_query(req,
                  "SELECT " VIEW_COLUMNS " FROM hog_view WHERE catalog_id = $1"
                  " AND namespace_id = $2 AND hog_visible(begin_snapshot, end_snapshot, $3)"
                  " ORDER BY name",
                  &p, "view list", err);
    if (!r)
        return -1;
    json_t *out = json_array();
    for (int i = 0; out && i < PQntuples(r); i++)
        json_array_append_new(out, view_json(r, i, req->params[1]));
    PQclear(r);
    if (api_json(res, 200, out) != 0)
        return api_nomem(err);
    return 0;
}

int h_views_create(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    json_t *jname, *jsql, *jdialect;
    const struct jfield fields[] = {
        {"name", JF_STRING, true, false, &jname},
        {"sql", JF_STRING, true, false, &jsql},
        {"dialect", JF_STRING, false, false, &jdialect},
    };
    json_t *body = req_json_fields(req, fields, 3, err);
    if (!body)
        return -1;
    int rc = -1;
    PGresult *r = NULL;
    const char *name = json_string_value(jname);
    const char *sql = json_string_value(jsql);
    const char *dialect = jdialect ? json_string_value(jdialect) : "trino";
    if (api_check_ident("view", name, err) != 0)
        goto out;
    if (strspn(sql, " \t\r\n") == strlen(sql)) {
        api_validation(err, "view sql must not be blank");
        goto out;
    }
    if (json_string_length(jsql) > VIEW_SQL_MAX) {
        api_validation(err, "view sql is %zu bytes, over the maximum %d", json_string_length(jsql),
                       VIEW_SQL_MAX);
        goto out;
    }
    if (!valid_dialect(dialect)) {
        api_validation(err, "view dialect must match ^[a-z][a-z0-9_]{0,31}$, got '%.40s'", dialect);
        goto out;
    }
    struct catalog_row cat;
    struct ddl_txn t;
    int64_t ns_id;
    const char *ns = req->params[1];
    if (ddl_begin_in_namespace(req, &cat, &t, &ns_id, err) != 0)
        goto out;
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, cat.id);
    db_param_i64(&p, ns_id);
    db_param_str(&p, name);
    bool exists;
    if (req_exists(
            req,
            "SELECT 1 FROM hog_view WHERE catalog_id = $1 AND namespace_id = $2 AND name = $3"
            " AND end_snapshot IS NULL",
            &p, "view create", &exists, err) != 0)
        goto out;
    if (exists) {
        api_conflict(err, "already_exists", "view '%s' already exists in namespace '%s'", name, ns);
        goto out;
    }
    if (ddl_allocate(&t, err) != 0)
        goto out;
    db_params_init(&p);
    db_param_i64(&p, cat.id);
    db_param_i64(&p, ns_id);
    db_param_str(&p, name);
    db_param_str(&p, dialect);
    db_param_str(&p, sql);
    db_param_i64(&p, t.snapshot_id);
    r = req_query(req,
                  "WITH id AS (UPDATE hog_catalog SET next_view_id = next_view_id + 1"
                  " WHERE catalog_id = $1 RETURNING next_view_id - 1 AS view_id)"
                  " INSERT INTO hog_view (catalog_id, view_id, namespace_id, name, dialect, sql,"
                  " begin_snapshot) SELECT $1, view_id, $2, $3, $4, $5, $6 FROM id"
                  " RETURNING view_id, " VIEW_COLUMNS,
                  &p, "view", err);
    if (!r)
        goto out;
    if (ddl_change(&t, "view_created", db_i64(r, 0, 0), err) != 0 || ddl_commit(&t, err) != 0)
        goto out;
    json_t *v = json_pack("{s:s,s:s,s:s,s:s,s:s,s:I}", "name", db_str(r, 0, 1), "namespace", ns,
                          "view_uuid", db_str(r, 0, 2), "dialect", db_str(r, 0, 3), "sql",
                          db_str(r, 0, 4), "snapshot_id", (json_int_t)t.snapshot_id);
    if (api_json(res, 201, v) != 0) {
        api_nomem(err);
        goto out;
    }
    rc = 0;
out:
    PQclear(r);
    json_decref(body);
    return rc;
}

int h_view_get(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    struct catalog_row cat;
    int64_t snap, ns_id;
    bool at_head;
    if (read_context(req, &cat, &snap, &at_head, &ns_id, err) != 0)
        return -1;
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, cat.id);
    db_param_i64(&p, ns_id);
    db_param_str(&p, req->params[2]);
    db_param_i64(&p, snap);
    PGresult *r = req_query(req,
                            "SELECT " VIEW_COLUMNS " FROM hog_view WHERE catalog_id = $1"
                            " AND namespace_id = $2 AND name = $3"
                            " AND hog_visible(begin_snapshot, end_snapshot, $4)",
                            &p, "view lookup", err);
    if (!r)
        return -1;
    if (PQntuples(r) == 0) {
        PQclear(r);
        if (!at_head)
            return api_not_found(err, "view '%.200s.%.200s' in catalog '%s' at snapshot %lld",
                                 req->params[1], req->params[2], cat.name, (long long)snap);
        return api_not_found(err, "view '%.200s.%.200s' in catalog '%s'", req->params[1],
                             req->params[2], cat.name);
    }
    json_t *v = view_json(r, 0, req->params[1]);
    PQclear(r);
    if (api_json(res, 200, v) != 0)
        return api_nomem(err);
    return 0;
}

int h_view_drop(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    struct catalog_row cat;
    struct ddl_txn t;
    int64_t ns_id;
    const char *ns = req->params[1], *name = req->params[2];
    if (ddl_begin_in_namespace(req, &cat, &t, &ns_id, err) != 0)
        return -1;
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, cat.id);
    db_param_i64(&p, ns_id);
    db_param_str(&p, name);
    PGresult *r =
        req_query(req,
                  "SELECT view_id FROM hog_view WHERE catalog_id = $1 AND namespace_id = $2"
                  " AND name = $3 AND end_snapshot IS NULL",
                  &p, "view drop", err);
    if (!r)
        return -1;
    if (PQntuples(r) == 0) {
        PQclear(r);
        return api_not_found(err, "view '%.200s.%.200s' in catalog '%s'", ns, name, cat.name);
    }
    int64_t view_id = db_i64(r, 0, 0);
    PQclear(r);
    if (ddl_allocate(&t, err) != 0)
        return -1;
    db_params_init(&p);
    db_param_i64(&p, cat.id);
    db_param_i64(&p, view_id);
    db_param_i64(&p, t.snapshot_id);
    if (req_exec(req,
                 "UPDATE hog_view SET end_snapshot = $3 WHERE catalog_id = $1 AND view_id = $2", &p,
                 "view drop", err) != 0)
        return -1;
    if (ddl_change(&t, "view_dropped", view_id, err) != 0 || ddl_commit(&t, err) != 0)
        return -1;
    if (api_json(res, 200, ddl_result_json(&t)) != 0)
        return api_nomem(err);
    return 0;
}

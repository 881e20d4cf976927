/* Namespaces: versioned by their create and drop snapshots. */
#include <stdio.h>
#include <string.h>

#include "lake/ident.h"
#include "server/catalog/catalog.h"
#include "server/db/db.h"
#include "server/http/handlers.h"
#include "util/jsonx.h"

int h_namespaces_list(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    struct catalog_row cat;
    int64_t snap;
    bool at_head;
    if (catalog_load(req, req->params[0], &cat, err) != 0 ||
        timetravel_resolve(req, &cat, &snap, &at_head, err) != 0)
        return -1;
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, cat.id);
    db_param_i64(&p, snap);
    PGresult *r =
        req_query(req,
                  "SELECT name, namespace_id FROM hog_namespace WHERE catalog_id = $1"
                  " AND hog_visible(created_snapshot, dropped_snapshot, $2) ORDER BY name",
                  &p, "namespace list", err);
    if (!r)
        return -1;
    json_t *out = json_array();
    for (int i = 0; out && i < PQntuples(r); i++)
        json_array_append_new(out, json_pack("{s:s,s:I}", "name", db_str(r, i, 0), "namespace_id",
                                             (json_int_t)db_i64(r, i, 1)));
    PQclear(r);
    if (api_json(res, 200, out) != 0)
        return api_nomem(err);
    return 0;
}

int h_namespaces_create(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    json_t *jname;
    const struct jfield fields[] = {{"name", JF_STRING, true, false, &jname}};
    json_t *body = req_json_fields(req, fields, 1, err);
    if (!body)
        return -1;
    int rc = -1;
    const char *name = json_string_value(jname);
    if (api_check_ident("namespace", name, err) != 0)
        goto out;
    struct catalog_row cat;
    struct ddl_txn t;
    if (catalog_load(req, req->params[0], &cat, err) != 0 || ddl_begin(req, &cat, &t, err) != 0)
        goto out;
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, cat.id);
    db_param_str(&p, name);
    bool exists;
    if (req_exists(req,
                   "SELECT 1 FROM hog_namespace WHERE catalog_id = $1 AND name = $2"
                   " AND dropped_snapshot IS NULL",
                   &p, "namespace create", &exists, err) != 0)
        goto out;
    if (exists) {
        api_conflict(err, "already_exists", "namespace '%s' already exists", name);
        goto out;
    }
    if (ddl_allocate(&t, err) != 0)
        goto out;
    db_params_init(&p);
    db_param_i64(&p, cat.id);
    db_param_str(&p, name);
    db_param_i64(&p, t.snapshot_id);
    PGresult *r =
        req_query(req,
                  "WITH id AS (UPDATE hog_catalog SET next_namespace_id = next_namespace_id + 1"
                  " WHERE catalog_id = $1 RETURNING next_namespace_id - 1 AS namespace_id)"
                  " INSERT INTO hog_namespace (catalog_id, namespace_id, name, created_snapshot)"
                  " SELECT $1, namespace_id, $2, $3 FROM id RETURNING namespace_id",
                  &p, "namespace", err);
    if (!r)
        goto out;
    int64_t ns_id = db_i64(r, 0, 0);
    PQclear(r);
    if (ddl_change(&t, "namespace_created", ns_id, err) != 0 || ddl_commit(&t, err) != 0)
        goto out;
    if (api_json(res, 201,
                 json_pack("{s:s,s:I,s:I}", "name", name, "namespace_id", (json_int_t)ns_id,
                           "snapshot_id", (json_int_t)t.snapshot_id)) != 0) {
        api_nomem(err);
        goto out;
    }
    rc = 0;
out:
    json_decref(body);
    return rc;
}

int h_namespace_get(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    struct catalog_row cat;
    int64_t snap, ns_id;
    bool at_head;
    if (catalog_load(req, req->params[0], &cat, err) != 0 ||
        timetravel_resolve(req, &cat, &snap, &at_head, err) != 0 ||
        namespace_resolve(req, &cat, req->params[1], snap, !at_head, &ns_id, err) != 0)
        return -1;
    if (api_json(
            res, 200,
            json_pack("{s:s,s:I}", "name", req->params[1], "namespace_id", (json_int_t)ns_id)) != 0)
        return api_nomem(err);
    return 0;
}

int h_namespace_drop(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    bool has_expected;
    int64_t expected;
    if (req_arg_i64(req, "expected_namespace_id", &has_expected, &expected, err) != 0)
        return -1;
    struct catalog_row cat;
    struct ddl_txn t;
    int64_t ns_id;
    const char *ns = req->params[1];
    if (ddl_begin_in_namespace(req, &cat, &t, &ns_id, err) != 0)
        return -1;
    if (has_expected && expected != ns_id)
        return api_conflict(err, "commit_conflict",
                            "namespace '%s' no longer has the expected identity (expected "
                            "namespace_id %lld, live is %lld)",
                            ns, (long long)expected, (long long)ns_id);
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, cat.id);
    db_param_i64(&p, ns_id);
    PGresult *r = req_query(req,
                            "SELECT (SELECT count(*) FROM hog_table_version WHERE catalog_id = $1"
                            "  AND namespace_id = $2 AND end_snapshot IS NULL),"
                            " (SELECT count(*) FROM hog_view WHERE catalog_id = $1"
                            "  AND namespace_id = $2 AND end_snapshot IS NULL)",
                            &p, "namespace drop", err);
    if (!r)
        return -1;
    int64_t tables = db_i64(r, 0, 0), views = db_i64(r, 0, 1);
    PQclear(r);
    if (tables || views) {
        char what[96];
        if (tables && views)
            snprintf(what, sizeof what, "%lld table(s) and %lld view(s)", (long long)tables,
                     (long long)views);
        else if (tables)
            snprintf(what, sizeof what, "%lld table(s)", (long long)tables);
        else
            snprintf(what, sizeof what, "%lld view(s)", (long long)views);
        return api_conflict(err, "namespace_not_empty",
                            "namespace '%s' in catalog '%s' is not empty: %s remain", ns, cat.name,
                            what);
    }
    if (ddl_allocate(&t, err) != 0)
        return -1;
    db_params_init(&p);
    db_param_i64(&p, cat.id);
    db_param_i64(&p, ns_id);
    db_param_i64(&p, t.snapshot_id);
    if (req_exec(req,
                 "UPDATE hog_namespace SET dropped_snapshot = $3 WHERE catalog_id = $1"
                 " AND namespace_id = $2",
                 &p, "namespace drop", err) != 0)
        return -1;
    if (ddl_change(&t, "namespace_dropped", ns_id, err) != 0 || ddl_commit(&t, err) != 0)
        return -1;
    if (api_json(res, 200, ddl_result_json(&t)) != 0)
        return api_nomem(err);
    return 0;
}

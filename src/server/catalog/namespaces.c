/* Namespaces: versioned by their create and drop snapshots. */
#include <stdio.h>
#include <string.h>

#include "lake/ident.h"
#include "server/catalog/catalog.h"
#include "server/http/handlers.h"
#include "server/store/namespaces.h"
#include "util/jsonx.h"

int h_namespaces_list(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    struct catalog_row cat;
    int64_t snap;
    bool at_head;
    if (catalog_load(req, req->params[0], &cat, err) != 0 ||
        timetravel_resolve(req, &cat, &snap, &at_head, err) != 0)
        return -1;
    struct db_conn *db = req_db(req, err);
    if (!db)
        return -1;
    struct store_namespace *ns;
    size_t n;
    struct error dberr;
    if (store_namespaces_list(db, &req->arena, cat.id, snap, &ns, &n, &dberr) != 0)
        return api_from_error(err, &dberr, "namespace list");
    json_t *out = json_array();
    for (size_t i = 0; out && i < n; i++)
        json_array_append_new(out, json_pack("{s:s,s:I}", "name", ns[i].name, "namespace_id",
                                             (json_int_t)ns[i].namespace_id));
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
    struct db_conn *db = req_db(req, err);
    if (!db)
        goto out;
    struct error dberr;
    int exists = store_namespace_exists(db, cat.id, name, &dberr);
    if (exists < 0) {
        api_from_error(err, &dberr, "namespace create");
        goto out;
    }
    if (exists) {
        api_conflict(err, "already_exists", "namespace '%s' already exists", name);
        goto out;
    }
    if (ddl_allocate(&t, &dberr) != 0) {
        api_from_error(err, &dberr, "namespace create");
        goto out;
    }
    int64_t ns_id;
    if (store_namespace_insert(db, cat.id, name, t.snapshot_id, &ns_id, &dberr) != 0) {
        api_from_error(err, &dberr, "namespace");
        goto out;
    }
    if (ddl_change(&t, "namespace_created", ns_id, &dberr) != 0 || ddl_commit(&t, &dberr) != 0) {
        api_from_error(err, &dberr, "namespace create");
        goto out;
    }
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
    struct db_conn *db = req_db(req, err);
    if (!db)
        return -1;
    struct error dberr;
    int64_t tables, views;
    if (store_namespace_count_contents(db, cat.id, ns_id, &tables, &views, &dberr) != 0)
        return api_from_error(err, &dberr, "namespace drop");
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
    if (ddl_allocate(&t, &dberr) != 0 ||
        store_namespace_drop(db, cat.id, ns_id, t.snapshot_id, &dberr) != 0 ||
        ddl_change(&t, "namespace_dropped", ns_id, &dberr) != 0 || ddl_commit(&t, &dberr) != 0)
        return api_from_error(err, &dberr, "namespace drop");
    if (api_json(res, 200, ddl_result_json(&t)) != 0)
        return api_nomem(err);
    return 0;
}

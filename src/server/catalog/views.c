/* Views: named SQL text, stored verbatim and versioned like tables. */
#include <stdio.h>
#include <string.h>

#include "lake/ident.h"
#include "server/catalog/catalog.h"
#include "server/http/handlers.h"
#include "server/store/views.h"
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

static json_t *view_json(const struct store_view *v, const char *ns)
{
    return json_pack("{s:s,s:s,s:s,s:s,s:s}", "name", v->name, "namespace", ns, "view_uuid",
                     v->view_uuid, "dialect", v->dialect, "sql", v->sql);
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
    struct db_conn *db = req_db(req, err);
    if (!db)
        return -1;
    struct store_view *views;
    size_t n;
    struct error dberr;
    if (store_views_list(db, &req->arena, cat.id, ns_id, snap, &views, &n, &dberr) != 0)
        return api_from_error(err, &dberr, "view list");
    json_t *out = json_array();
    for (size_t i = 0; out && i < n; i++)
        json_array_append_new(out, view_json(&views[i], req->params[1]));
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
    struct db_conn *db = req_db(req, err);
    if (!db)
        goto out;
    struct error dberr;
    int exists = store_view_exists(db, cat.id, ns_id, name, &dberr);
    if (exists < 0) {
        api_from_error(err, &dberr, "view create");
        goto out;
    }
    if (exists) {
        api_conflict(err, "already_exists", "view '%s' already exists in namespace '%s'", name, ns);
        goto out;
    }
    if (ddl_allocate(&t, &dberr) != 0) {
        api_from_error(err, &dberr, "view create");
        goto out;
    }
    struct store_view created;
    if (store_view_insert(db, &req->arena, cat.id, ns_id, name, dialect, sql, t.snapshot_id,
                          &created, &dberr) != 0) {
        api_from_error(err, &dberr, "view");
        goto out;
    }
    if (ddl_change(&t, "view_created", created.view_id, &dberr) != 0 ||
        ddl_commit(&t, &dberr) != 0) {
        api_from_error(err, &dberr, "view create");
        goto out;
    }
    json_t *v = json_pack("{s:s,s:s,s:s,s:s,s:s,s:I}", "name", created.name, "namespace", ns,
                          "view_uuid", created.view_uuid, "dialect", created.dialect, "sql",
                          created.sql, "snapshot_id", (json_int_t)t.snapshot_id);
    if (api_json(res, 201, v) != 0) {
        api_nomem(err);
        goto out;
    }
    rc = 0;
out:
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
    struct db_conn *db = req_db(req, err);
    if (!db)
        return -1;
    struct store_view view;
    struct error dberr;
    int found = store_view_get(db, &req->arena, cat.id, ns_id, req->params[2], snap, &view, &dberr);
    if (found < 0)
        return api_from_error(err, &dberr, "view lookup");
    if (!found) {
        if (!at_head)
            return api_not_found(err, "view '%.200s.%.200s' in catalog '%s' at snapshot %lld",
                                 req->params[1], req->params[2], cat.name, (long long)snap);
        return api_not_found(err, "view '%.200s.%.200s' in catalog '%s'", req->params[1],
                             req->params[2], cat.name);
    }
    json_t *v = view_json(&view, req->params[1]);
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
    struct db_conn *db = req_db(req, err);
    if (!db)
        return -1;
    struct error dberr;
    int64_t view_id;
    int found = store_view_find_live(db, cat.id, ns_id, name, &view_id, &dberr);
    if (found < 0)
        return api_from_error(err, &dberr, "view drop");
    if (!found)
        return api_not_found(err, "view '%.200s.%.200s' in catalog '%s'", ns, name, cat.name);
    if (ddl_allocate(&t, &dberr) != 0 ||
        store_view_drop(db, cat.id, view_id, t.snapshot_id, &dberr) != 0 ||
        ddl_change(&t, "view_dropped", view_id, &dberr) != 0 || ddl_commit(&t, &dberr) != 0)
        return api_from_error(err, &dberr, "view drop");
    if (api_json(res, 200, ddl_result_json(&t)) != 0)
        return api_nomem(err);
    return 0;
}

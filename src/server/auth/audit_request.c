#include "server/auth/audit_request.h"

#include <stdio.h>
#include <string.h>

#include "server/auth/audit.h"
#include "server/http/router.h"
#include "server/server.h"
#include "util/strutil.h"

/* What an audited route's line carries as detail on success, unless the
 * handler set req->audit.detail: nothing, the snapshot it made, or the
 * whole (small) response body. Failures carry the error envelope. */
enum audit_detail { AD_NONE, AD_SNAPSHOT, AD_BODY };

/* The consequential routes and their audit actions. Manual maintenance
 * runs go through the runs ledger and are audited there (server/maintenance/maintenance.c);
 * rehydrate is not a run, so it is listed here. */
static const struct {
    const char *method, *pattern, *action;
    enum audit_detail detail;
} audited[] = {
    {"POST", "/v1/catalogs", "catalog_create", AD_BODY},
    {"PATCH", "/v1/catalogs/{catalog}/options", "catalog_options", AD_BODY},
    {"POST", "/v1/catalogs/{catalog}/namespaces", "namespace_create", AD_SNAPSHOT},
    {"DELETE", "/v1/catalogs/{catalog}/namespaces/{namespace}", "namespace_drop", AD_SNAPSHOT},
    {"POST", "/v1/catalogs/{catalog}/namespaces/{namespace}/tables", "table_create", AD_SNAPSHOT},
    {"DELETE", "/v1/catalogs/{catalog}/namespaces/{namespace}/tables/{table}", "table_drop",
     AD_SNAPSHOT},
    {"POST", "/v1/catalogs/{catalog}/namespaces/{namespace}/tables/{table}/alter", "table_alter",
     AD_SNAPSHOT},
    {"POST", "/v1/catalogs/{catalog}/namespaces/{namespace}/tables/{table}/truncate",
     "table_truncate", AD_SNAPSHOT},
    {"POST", "/v1/catalogs/{catalog}/namespaces/{namespace}/views", "view_create", AD_SNAPSHOT},
    {"DELETE", "/v1/catalogs/{catalog}/namespaces/{namespace}/views/{view}", "view_drop",
     AD_SNAPSHOT},
    {"POST", "/v1/catalogs/{catalog}/commit", "commit", AD_NONE},
    {"POST", "/v1/catalogs/{catalog}/commit/prepared", "commit", AD_NONE},
    {"POST", "/v1/catalogs/{catalog}/commit/deletes/prepared", "commit", AD_NONE},
    {"POST", "/v1/catalogs/{catalog}/commit/mutations/prepared", "commit", AD_NONE},
    {"POST", "/v1/catalogs/{catalog}/commit/uploads", "commit", AD_NONE},
    {"POST", "/v1/catalogs/{catalog}/commit/transaction", "commit", AD_NONE},
    {"PUT", "/v1/catalogs/{catalog}/consumers/{consumer}/offsets/{table_uuid}", "offset_commit",
     AD_BODY},
    {"POST", "/v1/catalogs/{catalog}/maintenance/rehydrate", "maintenance_rehydrate", AD_BODY},
    /* Never the body: it holds the secret. The handler sets the detail. */
    {"POST", "/v1/tokens", "token_create", AD_NONE},
    {"DELETE", "/v1/tokens/{token_id}", "token_revoke", AD_NONE},
};
enum { NAUDITED = sizeof audited / sizeof audited[0] };

static int audited_index(const char *method, const char *pattern)
{
    for (int i = 0; i < NAUDITED; i++)
        if (strcmp(audited[i].method, method) == 0 && strcmp(audited[i].pattern, pattern) == 0)
            return i;
    return -1;
}

const char *audit_action_of(const char *method, const char *pattern)
{
    int i = audited_index(method, pattern);
    return i < 0 ? NULL : audited[i].action;
}

const char *audit_route_at(size_t i, const char **method)
{
    if (i >= NAUDITED)
        return NULL;
    *method = audited[i].method;
    return audited[i].pattern;
}

struct audit_actor audit_actor_of(const struct srv_req *req)
{
    struct audit_actor a = {req->caller.token_id[0] ? req->caller.token_id : NULL,
                            req->caller.name[0] ? req->caller.name : "anonymous"};
    return a;
}

static json_t *success_detail(enum audit_detail kind, json_t *body)
{
    json_t *sid = json_object_get(body, "snapshot_id");
    switch (kind) {
    case AD_SNAPSHOT: return sid ? json_pack("{s:O}", "snapshot_id", sid) : NULL;
    case AD_BODY: return json_incref(body);
    case AD_NONE: break;
    }
    return NULL;
}

void audit_request(struct server *srv, const struct srv_req *req, int rc, const struct srv_res *res,
                   const struct api_error *err)
{
    int k = audited_index(req->route->method, req->route->pattern);
    if (k < 0)
        return;
    /* On a catalog's routes, path parameter 0 is the catalog and the later
     * ones name the object; elsewhere (tokens) they all name the object. */
    bool in_catalog = route_in_catalog(req->route);
    char object[1100] = "";
    size_t n = 0;
    for (int i = in_catalog ? 1 : 0; i < API_MAX_PATH_PARAMS && req->params[i] && n < sizeof object;
         i++)
        n += (size_t)snprintf(object + n, sizeof object - n, "%s%s", n ? "." : "", req->params[i]);
    /* A create names its new object in the body: the catalog itself, or
     * the last part of the object. */
    json_t *body = NULL;
    const char *created = NULL;
    if (str_ends_with(audited[k].action, "_create") && req->body &&
        (body = json_loadb(req->body, req->body_len, 0, NULL)))
        created = json_string_value(json_object_get(body, "name"));
    const char *catalog = in_catalog ? req->params[0] : NULL;
    if (created && strcmp(audited[k].action, "catalog_create") == 0)
        catalog = created;
    else if (created && n < sizeof object)
        snprintf(object + n, sizeof object - n, "%s%s", n ? "." : "", created);
    const char *success = strcmp(audited[k].action, "commit") == 0 ? "committed" : "ok";
    json_t *detail;
    if (rc != 0)
        detail = json_pack("{s:s,s:s}", "error", err->code ? err->code : "internal_error", "detail",
                           err->detail);
    else if (req->audit.detail)
        detail = json_incref(req->audit.detail);
    else
        detail = success_detail(audited[k].detail, res->json);
    struct audit_actor actor = audit_actor_of(req);
    struct audit_event ev = {
        .action = audited[k].action,
        .actor = &actor,
        .outcome = audit_outcome(rc == 0 ? res->status : err->status, err->code, success),
        .catalog = req->audit.catalog ? req->audit.catalog : catalog,
        .object = req->audit.object ? req->audit.object : (object[0] ? object : NULL),
        .detail = detail,
        .request_id = req->request_id,
    };
    audit_emit(srv->audit, &ev);
    json_decref(detail);
    json_decref(body);
}

/* POST /commit, POST /commit/prepared and GET /commit/receipts/{operation}:
 * the HTTP side of the commit protocol (commit.c does the work). */
#include <string.h>

#include "server/catalog/catalog.h"
#include "server/commit/commit.h"
#include "server/commit/commit_req.h"
#include "server/db/db.h"
#include "server/http/handlers.h"
#include "util/strutil.h"

static int commit_common(struct srv_req *req, struct srv_res *res, bool key_required,
                         struct api_error *err)
{
    json_t *body = req_json_body(req, err);
    if (!body) {
        commit_count_refusal(req, req->params[0], err);
        return -1;
    }
    struct commit_request c;
    json_t *result = NULL;
    int rc = commit_request_parse(body, &req->arena, &c, err);
    if (rc == 0 && key_required && !c.has_key)
        rc = api_validation(err, "this endpoint needs an idempotency_key");
    if (rc == 0)
        rc = commit_run(req, req->params[0], &c, &result, err);
    else
        commit_count_refusal(req, req->params[0], err);
    json_decref(body);
    if (rc != 0)
        return -1;
    return api_json(res, 200, result);
}

int h_commit(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    return commit_common(req, res, false, err);
}

int h_commit_prepared(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    return commit_common(req, res, true, err);
}

int h_commit_receipt(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    const char *key = req->params[1];
    if (!str_is_uuid(key))
        return api_bad_request(err, "the receipt's operation id must be a UUID, got '%.40s'", key);
    struct catalog_row cat;
    if (catalog_load(req, req->params[0], &cat, err) != 0)
        return -1;
    char lower[37];
    str_lower(lower, sizeof lower, key);
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, cat.id);
    db_param_str(&p, lower);
    PGresult *r = req_query(req,
                            "SELECT snapshot_id, schema_version FROM hog_commit_receipt"
                            " WHERE catalog_id = $1 AND idempotency_key = $2::uuid",
                            &p, "receipt", err);
    if (!r)
        return -1;
    if (PQntuples(r) == 0) {
        PQclear(r);
        /* A missing receipt does not prove a request is not still running. */
        return api_not_found(err, "no receipt for operation %s in catalog '%s'", lower, cat.name);
    }
    json_t *body =
        json_pack("{s:s,s:I,s:I}", "operation_id", lower, "snapshot_id",
                  (json_int_t)db_i64(r, 0, 0), "schema_version", (json_int_t)db_i64(r, 0, 1));
    PQclear(r);
    if (!body)
        return api_nomem(err);
    return api_json(res, 200, body);
}

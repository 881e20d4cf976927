/* POST /v1/catalogs/{catalog}/maintenance/cleanup: one cleanup pass over
 * the catalog's removal queue, run by the request (see server/cleanup.h). */
#include "server/catalog.h"
#include "server/cleanup.h"
#include "server/handlers/handlers.h"

int h_maintenance_cleanup(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    bool has_batch = false;
    int64_t batch = CLEANUP_DEFAULT_BATCH;
    if (req_arg_i64(req, "batch", &has_batch, &batch, err) != 0)
        return -1;
    struct catalog_row cat;
    if (catalog_load(req, req->params[0], &cat, err) != 0)
        return -1;
    struct db_conn *conn = req_db(req, err);
    if (!conn)
        return -1;
    struct cleanup_result r;
    /* The pass checks the batch range (422). */
    if (cleanup_pass(req->srv, conn, cat.id, cat.name, batch, &r, err) != 0)
        return -1;
    json_t *body = cleanup_result_json(&r);
    if (!body)
        return api_nomem(err);
    return api_json(res, 200, body);
}

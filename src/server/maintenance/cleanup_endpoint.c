/* POST /v1/catalogs/{catalog}/maintenance/cleanup: one cleanup pass over
 * the catalog's removal queue now, through the maintenance framework (same
 * lock and ledger as the loop; see cleanup.h). */
#include "server/http/handlers.h"
#include "server/maintenance/cleanup.h"
#include "server/maintenance/maintenance.h"
#include "server/server.h"

int h_maintenance_cleanup(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    const struct maint_task *registered = maintenance_task(req->srv->maint, "cleanup");
    if (!registered)
        return api_fail(err, 500, "internal_error", "internal server error");
    struct cleanup_task ct = *(const struct cleanup_task *)registered->ctx;
    int64_t batch;
    if (req_arg_range(req, "batch", CLEANUP_DEFAULT_BATCH, 1, CLEANUP_MAX_BATCH, &batch, err) != 0)
        return -1;
    ct.batch = batch;
    struct maint_task task = *registered;
    task.ctx = &ct;
    return maint_run_reply(req, res, &task, err);
}

/* POST /v1/catalogs/{c}/maintenance/compact?batch=N: one compaction pass
 * now (N groups, default 1), through the maintenance framework (same lock
 * and ledger as the loop). */
#include "server/http/handlers.h"
#include "server/maintenance/compaction.h"
#include "server/maintenance/maintenance.h"
#include "server/server.h"

int h_maintenance_compact(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    const struct maint_task *registered = maintenance_task(req->srv->maint, "compaction");
    if (!registered)
        return api_fail(err, 500, "internal_error", "internal server error");
    struct compaction_task ct = *(const struct compaction_task *)registered->ctx;
    /* batch counts groups */
    if (req_arg_range(req, "batch", ct.opt.batch, 1, COMPACTION_MAX_BATCH, &ct.opt.batch, err) != 0)
        return -1;
    struct maint_task task = *registered;
    task.ctx = &ct;
    return maint_run_reply(req, res, &task, err);
}

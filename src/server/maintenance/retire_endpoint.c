/* POST /v1/catalogs/{c}/maintenance/retire: one retirement run now,
 * through the maintenance framework (same lock and ledger as the loop). */
#include "server/http/handlers.h"
#include "server/maintenance/maintenance.h"
#include "server/maintenance/retire.h"
#include "server/server.h"

enum { RETIRE_MAX_BATCH = 100000 };

int h_maintenance_retire(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    const struct maint_task *registered = maintenance_task(req->srv->maint, "retirement");
    if (!registered)
        return api_fail(err, 500, "internal_error", "internal server error");
    struct retirement_task rt = *(const struct retirement_task *)registered->ctx;
    if (req_arg_range(req, "batch", rt.opt.batch, 1, RETIRE_MAX_BATCH, &rt.opt.batch, err) != 0)
        return -1;
    struct maint_task task = *registered;
    task.ctx = &rt;
    return maint_run_reply(req, res, &task, err);
}

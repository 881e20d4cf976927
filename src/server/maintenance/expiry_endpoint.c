/* POST /v1/catalogs/{c}/maintenance/expire: one expiry pass now, through
 * the maintenance framework (same lock and ledger as the loop). */
#include "server/http/handlers.h"
#include "server/maintenance/expiry.h"
#include "server/maintenance/maintenance.h"
#include "server/server.h"

int h_maintenance_expire(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    const struct maint_task *registered = maintenance_task(req->srv->maint, "expiry");
    if (!registered)
        return api_fail(err, 500, "internal_error", "internal server error");
    struct expiry_task et = *(const struct expiry_task *)registered->ctx;
    bool has_batch;
    int64_t batch;
    if (req_arg_i64(req, "batch", &has_batch, &batch, err) != 0)
        return -1;
    if (has_batch) {
        if (batch < 1)
            return api_validation(err, "batch must be at least 1, got %lld", (long long)batch);
        et.opt.batch = batch;
    }
    struct maint_task task = *registered;
    task.ctx = &et;
    return maint_run_reply(req, res, &task, err);
}

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
    bool has_batch;
    int64_t batch;
    if (req_arg_i64(req, "batch", &has_batch, &batch, err) != 0)
        return -1;
    if (has_batch) {
        if (batch < 1 || batch > RETIRE_MAX_BATCH)
            return api_validation(err, "batch must be between 1 and %d, got %lld", RETIRE_MAX_BATCH,
                                  (long long)batch);
        rt.opt.batch = batch;
    }
    struct maint_task task = *registered;
    task.ctx = &rt;
    return maint_run_reply(req, res, &task, err);
}

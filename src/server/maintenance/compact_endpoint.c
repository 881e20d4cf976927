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
    bool has_batch;
    int64_t batch;
    if (req_arg_i64(req, "batch", &has_batch, &batch, err) != 0)
        return -1;
    if (has_batch) {
        if (batch < 1 || batch > COMPACTION_MAX_BATCH)
            return api_validation(err, "batch must be between 1 and %d groups, got %lld",
                                  COMPACTION_MAX_BATCH, (long long)batch);
        ct.opt.batch = batch;
    }
    struct maint_task task = *registered;
    task.ctx = &ct;
    return maint_run_reply(req, res, &task, err);
}

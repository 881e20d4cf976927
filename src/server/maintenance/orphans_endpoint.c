/* POST /v1/catalogs/{c}/maintenance/orphans?dry_run&older_than_seconds&limit:
 * one orphan sweep now, through the maintenance framework (same lock and
 * ledger as the loop; see orphans.h). */
#include "server/http/handlers.h"
#include "server/maintenance/maintenance.h"
#include "server/maintenance/orphans.h"
#include "server/server.h"

int h_maintenance_orphans(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    const struct maint_task *registered = maintenance_task(req->srv->maint, "orphans");
    if (!registered)
        return api_fail(err, 500, "internal_error", "internal server error");
    struct orphans_task ot = *(const struct orphans_task *)registered->ctx;
    bool has_dry, has_older;
    bool dry_run = false;
    int64_t older = ot.opt.grace_s, limit;
    if (req_arg_bool(req, "dry_run", &has_dry, &dry_run, err) != 0 ||
        req_arg_i64(req, "older_than_seconds", &has_older, &older, err) != 0 ||
        req_arg_range(req, "limit", ot.opt.limit, 1, ORPHANS_MAX_LIMIT, &limit, err) != 0)
        return -1;
    if (older < ORPHANS_MIN_GRACE_SECONDS)
        return api_validation(err, "older_than_seconds must be at least %d, got %lld",
                              ORPHANS_MIN_GRACE_SECONDS, (long long)older);
    ot.opt.dry_run = dry_run;
    ot.opt.list_paths = true;
    ot.opt.grace_s = older;
    ot.opt.limit = limit;
    struct maint_task task = *registered;
    task.ctx = &ot;
    return maint_run_reply(req, res, &task, err);
}

/* POST /v1/catalogs/{c}/maintenance/expire: one expiry pass now, through
 * the maintenance framework (same lock and ledger as the loop). */
#include <stdio.h>

#include "server/catalog.h"
#include "server/db/db.h"
#include "server/expiry.h"
#include "server/handlers/handlers.h"
#include "server/maintenance.h"
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
    struct catalog_row cat;
    struct db_conn *db = maint_catalog_db(req, &cat, err);
    if (!db)
        return -1;
    json_t *result = NULL;
    bool ok;
    struct db_err dberr = {0};
    int wait_ms = (int)ddl_lock_budget_ms(req);
    switch (maintenance_run_manual(req->srv->maint, db->pg, &task, cat.id, wait_ms, &result, &ok,
                                   &dberr)) {
    case MAINT_BUSY:
        api_fail(err, 503, "maintenance_busy", "another expiry of catalog '%s' is running; retry",
                 cat.name);
        err->retry_after = true;
        return -1;
    case MAINT_ERROR: return api_db_error(err, &dberr, "expiry");
    case MAINT_RAN: break;
    }
    if (!ok) {
        json_decref(result);
        return api_db_error(err, &dberr, "expiry");
    }
    if (api_json(res, 200, result) != 0)
        return api_nomem(err);
    return 0;
}

/* The maintenance ledger and status routes, shared by every task. */
#include <stdio.h>
#include <string.h>

#include "server/auth/audit.h"
#include "server/auth/audit_request.h"
#include "server/catalog/catalog.h"
#include "server/db/db.h"
#include "server/http/handlers.h"
#include "server/maintenance/maintenance.h"
#include "server/server.h"
#include "server/store/maintenance_runs.h"

enum { RUNS_DEFAULT_LIMIT = 50, RUNS_MAX_LIMIT = 500 };

static const char *const ledger_tasks[] = {"hydrator", "expiry",     "cleanup", "compaction",
                                           "verify",   "retirement", "reindex", "orphans"};

int h_maintenance_runs(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    const char *task = req_arg(req, "task");
    bool has_before;
    int64_t before = 0, limit;
    if (req_arg_i64(req, "before", &has_before, &before, err) != 0 ||
        req_arg_range(req, "limit", RUNS_DEFAULT_LIMIT, 1, RUNS_MAX_LIMIT, &limit, err) != 0)
        return -1;
    if (task) {
        bool known = false;
        for (size_t i = 0; i < sizeof ledger_tasks / sizeof ledger_tasks[0]; i++)
            known = known || strcmp(task, ledger_tasks[i]) == 0;
        if (!known)
            return api_validation(err,
                                  "unknown task '%.40s' (hydrator, expiry, cleanup, compaction, "
                                  "verify, retirement, reindex or orphans)",
                                  task);
    }
    struct catalog_row cat;
    if (catalog_load(req, req->params[0], &cat, err) != 0)
        return -1;
    struct db_conn *db = req_db(req, err);
    if (!db)
        return -1;
    struct store_runs_rows rows;
    struct error dberr;
    /* One more says whether there is a next page. */
    if (store_runs_page(db->pg, cat.id, task, has_before, before, limit + 1, &rows, &dberr) != 0)
        return api_from_error(err, &dberr, "maintenance runs");
    int n = store_runs_rows_count(&rows);
    bool has_more = n > limit;
    json_t *runs = json_array();
    for (int i = 0; runs && i < n && i < limit; i++) {
        json_t *run = maintenance_run_json(&rows, i);
        if (!run || json_array_append_new(runs, run) != 0) {
            json_decref(runs);
            runs = NULL;
        }
    }
    store_runs_rows_free(&rows);
    if (!runs)
        return api_nomem(err);
    if (api_json(res, 200, json_pack("{s:o,s:b}", "runs", runs, "has_more", has_more)) != 0)
        return api_nomem(err);
    return 0;
}

struct db_conn *maint_catalog_db(struct srv_req *req, struct catalog_row *cat,
                                 struct api_error *err)
{
    if (catalog_load(req, req->params[0], cat, err) != 0)
        return NULL;
    return req_db(req, err);
}

int maint_run_reply(struct srv_req *req, struct srv_res *res, const struct maint_task *task,
                    struct api_error *err)
{
    struct catalog_row cat;
    struct db_conn *db = maint_catalog_db(req, &cat, err);
    if (!db)
        return -1;
    json_t *result = NULL;
    bool ok;
    struct error dberr = {0};
    int wait_ms = (int)ddl_lock_budget_ms(req);
    struct audit_actor actor = audit_actor_of(req);
    struct maint_origin origin = {&actor, req->request_id};
    switch (maintenance_run_manual(req->srv->maint, db->pg, task, cat.id, &origin, wait_ms, &result,
                                   &ok, &dberr)) {
    case MAINT_BUSY:
        api_fail(err, 503, "maintenance_busy",
                 "another %s run of catalog '%s' is in progress; retry", task->name, cat.name);
        err->retry_after = true;
        return -1;
    case MAINT_ERROR: return api_from_error(err, &dberr, task->name);
    case MAINT_RAN: break;
    }
    if (!ok) {
        json_decref(result);
        return api_from_error(err, &dberr, task->name);
    }
    if (api_json(res, 200, result) != 0)
        return api_nomem(err);
    return 0;
}

int h_maintenance_status(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    struct catalog_row cat;
    struct db_conn *db = maint_catalog_db(req, &cat, err);
    if (!db)
        return -1;
    struct error dberr = {0};
    json_t *status = maintenance_status(req->srv->maint, db->pg, cat.id, cat.name, &dberr);
    if (!status)
        return dberr.msg[0] ? api_from_error(err, &dberr, "maintenance status") : api_nomem(err);
    if (api_json(res, 200, status) != 0)
        return api_nomem(err);
    return 0;
}

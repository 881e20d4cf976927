/* The hydrator's endpoints: run one pass now (POST .../maintenance/hydrate,
 * through the maintenance framework: same lock and ledger as the loop) and
 * requeue failed files (POST .../maintenance/rehydrate). */
#include "server/http/handlers.h"
#include "server/maintenance/hydrate.h"
#include "server/maintenance/maintenance.h"
#include "server/server.h"

/* A pass over at most this many files answers within a request's time. */
enum { HYDRATE_DEFAULT_BATCH = 100, HYDRATE_MAX_BATCH = 10000 };

int h_maintenance_hydrate(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    const struct maint_task *registered = maintenance_task(req->srv->maint, "hydrator");
    if (!registered)
        return api_fail(err, 500, "internal_error", "internal server error");
    int64_t batch;
    if (req_arg_range(req, "batch", HYDRATE_DEFAULT_BATCH, 1, HYDRATE_MAX_BATCH, &batch, err) != 0)
        return -1;
    struct hydrate_task ht = *(const struct hydrate_task *)registered->ctx;
    ht.batch = batch;
    struct maint_task task = *registered;
    task.ctx = &ht;
    return maint_run_reply(req, res, &task, err);
}

int h_maintenance_rehydrate(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    const char *ns = req_arg(req, "namespace"), *table = req_arg(req, "table");
    if ((ns == NULL) != (table == NULL))
        return api_validation(err, "namespace and table go together: give both or neither");
    struct catalog_row cat;
    if (catalog_load(req, req->params[0], &cat, err) != 0)
        return -1;
    int64_t table_id = 0;
    if (ns) {
        int64_t ns_id;
        struct table_ref ref;
        if (namespace_resolve(req, &cat, ns, cat.head, false, &ns_id, err) != 0 ||
            table_resolve(req, &cat, ns, ns_id, table, cat.head, false, &ref, err) != 0)
            return -1;
        table_id = ref.table_id;
    }
    int64_t n;
    struct srv_ctx ctx;
    if (req_ctx(req, &ctx, err) != 0)
        return -1;
    struct error e;
    if (hydrate_requeue_failed(&ctx, &cat, table_id, &n, &e) != 0)
        return api_from_error(err, &e, "rehydrate");
    json_t *body = json_pack("{s:I}", "requeued", (json_int_t)n);
    if (!body || api_json(res, 200, body) != 0)
        return api_nomem(err);
    return 0;
}

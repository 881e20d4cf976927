/* The hydrator as a maintenance-framework task (hydrate.h). */
#include "server/maintenance/hydrate.h"
#include "server/maintenance/task_req.h"

int hydrate_task_pass(void *ctx, PGconn *pg, int64_t catalog_id, json_t **result, struct error *err)
{
    const struct hydrate_task *t = ctx;
    *result = NULL;
    struct task_req tr;
    int rc = task_req_open(&tr, t->srv, pg, catalog_id, err);
    if (rc == 1) {
        struct api_error e = {0};
        struct hydrate_result r;
        if (hydrate_pass(&tr.req, &tr.cat, t->batch, &r, &e) != 0)
            rc = task_fail(err, &e);
        else if (!(*result = hydrate_result_json(&r)))
            rc = task_fail(err, NULL);
        else
            rc = 0;
    } else if (rc == 0 && !(*result = json_object())) {
        rc = task_fail(err, NULL);
    }
    task_req_close(&tr);
    return rc;
}

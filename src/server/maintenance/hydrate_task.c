/* The hydrator as a maintenance-framework task (hydrate.h). */
#include "server/maintenance/hydrate.h"
#include "server/maintenance/pass_ctx.h"

int hydrate_task_pass(void *ctx, PGconn *pg, int64_t catalog_id, json_t **result, struct error *err)
{
    const struct hydrate_task *t = ctx;
    *result = NULL;
    struct pass_ctx pc;
    int rc = pass_ctx_open(&pc, t->srv, pg, catalog_id, err);
    if (rc == 1) {
        struct hydrate_result r;
        if (hydrate_pass(&pc.ctx, &pc.cat, t->batch, &r, err) != 0)
            rc = -1;
        else if (!(*result = hydrate_result_json(&r)))
            rc = error_nomem(err);
        else
            rc = 0;
    } else if (rc == 0 && !(*result = json_object())) {
        rc = error_nomem(err);
    }
    pass_ctx_close(&pc);
    return rc;
}

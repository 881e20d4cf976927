/* The hydrator as a maintenance-framework task: the framework hands a pass
 * a bare connection and a catalog id, hydrate_pass wants a request. The
 * adapter builds that request around the same pooled connection. */
#include <stdio.h>
#include <string.h>

#include "server/db/db.h"
#include "server/hydrate.h"
#include "server/server.h"

static void to_db_err(const struct api_error *e, struct db_err *out)
{
    out->sqlstate[0] = '\0';
    snprintf(out->message, sizeof out->message, "%.500s", e->detail[0] ? e->detail : "failed");
}

int hydrate_task_pass(void *ctx, PGconn *pg, int64_t catalog_id, json_t **result,
                      struct db_err *err)
{
    const struct hydrate_task *t = ctx;
    *result = NULL;
    struct srv_req req;
    memset(&req, 0, sizeof req);
    req.srv = t->srv;
    req.method = "LOOP";
    req.path = "hydrator";
    /* The framework's connection came from the pool: reuse its slot (and
     * so its prepared statements) rather than wrapping the handle anew. */
    req.db = db_pool_owner(t->srv->pool, pg);
    if (!req.db) {
        snprintf(err->message, sizeof err->message, "hydrator: connection not from the pool");
        err->sqlstate[0] = '\0';
        return -1;
    }
    arena_init(&req.arena, 64 * 1024 * 1024);
    struct api_error aerr;
    memset(&aerr, 0, sizeof aerr);
    struct catalog_row cat;
    struct hydrate_result r;
    int rc = -1;
    if (catalog_load_id(&req, catalog_id, &cat, &aerr) == 0 &&
        hydrate_pass(&req, &cat, t->batch, &r, &aerr) == 0) {
        *result = hydrate_result_json(&r);
        if (*result)
            rc = 0;
        else
            snprintf(aerr.detail, sizeof aerr.detail, "out of memory");
    }
    if (rc != 0)
        to_db_err(&aerr, err);
    json_decref(aerr.extra);
    arena_free(&req.arena);
    return rc;
}

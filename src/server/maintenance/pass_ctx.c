/* A maintenance pass's context (pass_ctx.h). */
#include "server/maintenance/pass_ctx.h"

#include <string.h>

#include "server/db/db.h"
#include "server/http/api.h"
#include "server/server.h"

int pass_fail(struct error *err, struct api_error *e)
{
    error_fail(err, e->status == 503 ? ERR_UNAVAILABLE : ERR_INTERNAL, "%s",
               e->detail[0] ? e->detail : "failed");
    json_decref(e->extra);
    e->extra = NULL;
    return -1;
}

int pass_ctx_open(struct pass_ctx *p, struct server *srv, PGconn *pg, int64_t catalog_id,
                  struct error *err)
{
    memset(p, 0, sizeof *p);
    arena_init(&p->arena, REQUEST_ARENA_LIMIT);
    p->ctx = (struct srv_ctx){srv, db_pool_owner(srv->pool, pg), &p->arena};
    if (!p->ctx.db)
        return error_fail(err, ERR_INTERNAL, "the pass's connection is not from the pool");
    struct api_error e = {0};
    if (catalog_load_id(&p->ctx, catalog_id, &p->cat, &e) == 0)
        return 1;
    if (e.status == 404) { /* gone since the sweep listed it */
        json_decref(e.extra);
        return 0;
    }
    return pass_fail(err, &e);
}

void pass_ctx_close(struct pass_ctx *p)
{
    arena_free(&p->arena);
}

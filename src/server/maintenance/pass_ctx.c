/* A maintenance pass's context (pass_ctx.h). */
#include "server/maintenance/pass_ctx.h"

#include <string.h>

#include "server/db/db.h"
#include "server/server.h"

int pass_engine_failed(struct error *err)
{
    if (err->code != ERR_UNAVAILABLE)
        err->code = ERR_INTERNAL;
    err->reason = NULL;
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
    if (catalog_load_id(&p->ctx, catalog_id, &p->cat, err) == 0)
        return 1;
    if (err->code == ERR_NOT_FOUND) /* gone since the sweep listed it */
        return 0;
    return pass_engine_failed(err);
}

void pass_ctx_close(struct pass_ctx *p)
{
    arena_free(&p->arena);
}

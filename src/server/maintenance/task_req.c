/* A maintenance pass's request (task_req.h). */
#include "server/maintenance/task_req.h"

#include <stdio.h>
#include <string.h>

#include "server/db/db.h"
#include "server/server.h"

int task_fail(struct error *err, struct api_error *e)
{
    error_fail(err, e && e->status == 503 ? ERR_UNAVAILABLE : ERR_INTERNAL, "%s",
               !e             ? "out of memory"
               : e->detail[0] ? e->detail
                              : "failed");
    if (e) {
        json_decref(e->extra);
        e->extra = NULL;
    }
    return -1;
}

int task_req_open(struct task_req *t, struct server *srv, PGconn *pg, int64_t catalog_id,
                  struct error *err)
{
    memset(t, 0, sizeof *t);
    t->req.srv = srv;
    arena_init(&t->req.arena, REQUEST_ARENA_LIMIT);
    t->req.db = db_pool_owner(srv->pool, pg);
    if (!t->req.db) {
        error_fail(err, ERR_INTERNAL, "the pass's connection is not from the pool");
        return -1;
    }
    struct api_error e = {0};
    if (catalog_load_id(&t->req, catalog_id, &t->cat, &e) == 0)
        return 1;
    if (e.status == 404) { /* gone since the sweep listed it */
        json_decref(e.extra);
        return 0;
    }
    return task_fail(err, &e);
}

void task_req_close(struct task_req *t)
{
    arena_free(&t->req.arena);
}

/* A maintenance pass's request. The framework (maintenance.h) hands a pass
 * a bare pooled connection and a catalog id; the engines it runs (the same
 * ones the endpoints call) want a request and the catalog's row. */
#ifndef HL_SERVER_MAINTENANCE_TASK_REQ_H
#define HL_SERVER_MAINTENANCE_TASK_REQ_H

#include <libpq-fe.h>
#include <stdint.h>

#include "server/catalog/catalog.h"
#include "server/http/api.h"

struct server;
struct error;

struct task_req {
    struct srv_req req;
    struct catalog_row cat;
};

/* Opens t on pg, which must be a connection of srv's pool (its slot, and
 * so its prepared statements, is reused), and loads catalog_id. Returns 1
 * with the catalog loaded, 0 when it is gone (nothing to do), -1 with err
 * filled. Call task_req_close whatever it returns. */
int task_req_open(struct task_req *t, struct server *srv, PGconn *pg, int64_t catalog_id,
                  struct error *err);
void task_req_close(struct task_req *t);

/* Fills the framework's err from an engine's API error (freeing its
 * extra), or with "out of memory" when e is NULL, and returns -1. A 503
 * stays "database unavailable" (no SQLSTATE); anything else is an internal
 * error (XX000), so the manual endpoint answers what the engine meant. */
int task_fail(struct error *err, struct api_error *e);

#endif

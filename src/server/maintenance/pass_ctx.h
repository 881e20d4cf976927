/* A maintenance pass's context. The framework (maintenance.h) hands a pass
 * a bare pooled connection and a catalog id; the engines it runs (the same
 * ones the endpoints call) take a context (server/ctx.h) and the catalog's
 * row. No HTTP request is involved. */
#ifndef HL_SERVER_MAINTENANCE_PASS_CTX_H
#define HL_SERVER_MAINTENANCE_PASS_CTX_H

#include <libpq-fe.h>
#include <stdint.h>

#include "server/catalog/catalog.h"
#include "server/ctx.h"
#include "util/arena.h"
#include "util/error.h"

struct server;
struct api_error;

struct pass_ctx {
    struct srv_ctx ctx; /* its arena is `arena` below: do not copy a pass_ctx */
    struct arena arena;
    struct catalog_row cat;
};

/* Opens p on pg, which must be a connection of srv's pool (its slot, and
 * so its prepared statements, is reused), and loads catalog_id. Returns 1
 * with the catalog loaded, 0 when it is gone (nothing to do), -1 with err
 * filled. Call pass_ctx_close whatever it returns. */
int pass_ctx_open(struct pass_ctx *p, struct server *srv, PGconn *pg, int64_t catalog_id,
                  struct error *err);
void pass_ctx_close(struct pass_ctx *p);

/* Fills the framework's err from the API error of an engine not yet on
 * struct error (compaction, cleanup; freeing its extra) and returns -1. A
 * 503 stays unavailable; anything else is internal, so the manual endpoint
 * answers what the engine meant. */
int pass_fail(struct error *err, struct api_error *e);

#endif

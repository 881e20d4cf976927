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

/* Narrows err, the failure of pass_ctx_open's catalog load or of the
 * compaction and cleanup engines, to what the framework has always
 * recorded for them: ERR_UNAVAILABLE stays (retry), anything else becomes
 * ERR_INTERNAL, and the typed reason goes (a lock timeout, a unique
 * violation); the message stays. Their manual endpoints therefore answer
 * 503 unavailable or 500, as before these engines failed with struct
 * error. Returns -1. */
int pass_engine_failed(struct error *err);

#endif

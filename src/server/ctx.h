/* What server logic runs with, whoever asked for it. */
#ifndef HL_SERVER_CTX_H
#define HL_SERVER_CTX_H

#include "util/arena.h"

struct server;
struct db_conn;

/* The catalog's DDL transactions, table loads and the maintenance engines
 * take a context, never an HTTP request: the server, the database
 * connection the work runs on and an arena for what it allocates. A
 * request lends its own (req_ctx, server/http/api.h); a maintenance pass
 * builds one around its pooled connection (maintenance/pass_ctx.h). */
struct srv_ctx {
    struct server *srv;
    struct db_conn *db;
    struct arena *arena;
};

/* The most a context's arena may hold: a request's, a maintenance pass's. */
enum { REQUEST_ARENA_LIMIT = 512 * 1024 * 1024 };

#endif

/* hoglaked's process-wide state, shared read-only by all handlers (the
 * pool and metrics are internally synchronised). */
#ifndef HL_SERVER_SERVER_H
#define HL_SERVER_SERVER_H

#include <libpq-fe.h>
#include <pthread.h>
#include <stddef.h>

#include "server/config.h"

struct db_pool;
struct metrics;
struct http_server;
struct maintenance;
struct objstore;
struct audit;
struct catalog_idents;
struct auth;

struct server {
    struct config cfg;
    struct db_pool *pool;
    struct metrics *metrics;
    struct http_server *http;
    struct maintenance *maint; /* background loops and manual passes */
    struct objstore *objstore; /* data files: hydrator reads, cleanup deletes */
    struct audit *audit;       /* the audit log (server/auth/audit.h) */
    struct auth *auth;         /* the request gate (server/auth/auth.h) */
    /* The commit path's catalog identities (server/catalog/catalog_idents.h). */
    struct catalog_idents *catalog_idents;
    /* Where file:// catalogs may be (storage_guard.h): resolved paths. */
    char **file_roots;
    size_t nfile_roots;
    /* /healthz probes on their own connection, so a busy pool still
     * answers; the mutex serialises probes. */
    pthread_mutex_t probe_mu;
    PGconn *probe_conn;
    char *conninfo;
    const char *openapi_yaml;
    size_t openapi_len;
};

/* Request entry points for the HTTP transport (see server/http/http.h). */
struct http_request;
struct http_reply;
struct http_route_info;
struct http_outcome;
bool server_is_inline(void *srv, const char *method, const char *path,
                      struct http_route_info *info);
void server_handle(void *srv, const struct http_request *req, struct http_reply *reply);
void server_request_completed(void *srv, const struct http_outcome *outcome);
/* Counts a request or connection a resource limit refused
 * (hoglake_requests_refused_total; reasons in docs/limits.md). */
void server_count_refusal(struct server *srv, const char *reason);

#endif

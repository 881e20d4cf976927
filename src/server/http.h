/* hoglaked's HTTP transport: libmicrohttpd for connection I/O, a fixed pool
 * of worker threads for request handling.
 *
 * I/O threads read a request whole (bounded by max_body_bytes: 413 past it),
 * then either answer it on the spot (cheap routes with no database work) or
 * suspend the connection and queue the request for a worker. The worker
 * builds the response and resumes the connection. Time spent queued is
 * measured and handed to the handler, which is how a request that waited
 * too long is shed with a 503 before it takes a database connection.
 *
 * Stopping drains: no new connections, in-flight requests finish (up to a
 * deadline), queued ones not yet started get 503, then everything closes. */
#ifndef HL_SERVER_HTTP_H
#define HL_SERVER_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "server/api.h"

struct http_server;

struct http_request {
    const char *method;
    const char *path;
    const struct query_arg *args;
    size_t nargs;
    const char *content_type;
    const char *request_id;
    const char *authorization; /* the Authorization header; NULL when absent */
    const char *host;          /* the Host header; NULL when absent */
    const char *body;          /* NULL when empty */
    size_t body_len;
    int64_t queue_wait_ns;
};

struct http_reply {
    int status;
    char *body; /* malloc'd, taken by the transport */
    size_t body_len;
    const char *content_type; /* static */
    bool retry_after;
    bool no_store;                /* "Cache-Control: no-store" */
    const char *www_authenticate; /* static; NULL = none */
    char allow[48];               /* for 405: the methods the path accepts */
    const char *route;            /* static route pattern for metrics; NULL = unmatched */
};

struct http_handlers {
    void *ctx;
    /* Whether a request can be answered on the I/O thread (fast, no I/O). */
    bool (*is_inline)(void *ctx, const char *method, const char *path);
    /* Builds the reply. Runs on a worker, or inline when is_inline said so. */
    void (*handle)(void *ctx, const struct http_request *req, struct http_reply *reply);
    /* Called once per answered request, after the reply is queued. */
    void (*completed)(void *ctx, const char *method, const char *route, int status,
                      int64_t total_ns);
};

struct http_options {
    const char *listen;
    int port; /* 0 = any free port */
    int workers;
    int64_t max_body_bytes;          /* the commit routes' (large_body) bodies */
    int64_t max_metadata_body_bytes; /* every other route's */
    int64_t max_inflight_body_bytes;
    int max_query_params;
    int header_timeout_ms;
    int request_timeout_ms;
    int max_connections; /* 0: from the open-file limit */
    int max_client_connections;
    /* HTTPS when both are set: PEM text of the certificate (chain) and its
     * private key, borrowed for as long as the server runs. */
    const char *tls_cert_pem;
    const char *tls_key_pem;
};

/* Starts listening and the workers. NULL with a message on failure. */
struct http_server *http_server_start(const struct http_options *opts,
                                      const struct http_handlers *handlers, char *err,
                                      size_t err_size);
int http_server_port(const struct http_server *s);
/* Worker pool gauges. */
void http_server_pool_stats(struct http_server *s, int *active, int *queued, int *max);
/* Drains and stops; frees s. */
void http_server_stop(struct http_server *s, int drain_timeout_ms);

#endif

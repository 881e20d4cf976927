/* hoglaked's HTTP transport: libmicrohttpd for connection I/O, a fixed pool
 * of worker threads for request handling, and its own front door.
 *
 * The front door (a thread of this module) owns the listening socket: it
 * accepts, applies the connection caps (per client address, and a global
 * one below the process's file limit with headroom kept for probes), and
 * holds each new connection until its request line has arrived, refusing a
 * garbage line or one with too many query parameters with a 400 at once.
 * Only then does libmicrohttpd get the connection. The same thread enforces
 * the header and whole-request deadlines and lingers after refusals so the
 * client reads the answer rather than a reset. docs/limits.md lists every
 * limit and what a client sees.
 *
 * I/O threads learn a request's route once its headers are in (is_inline),
 * which sets its body limit; bodies are charged to a global in-flight
 * budget and JSON-scanned (util/json_budget.h) as they arrive, so a hostile
 * body is refused without ever being held whole. A complete request is then
 * either answered on the spot (cheap routes with no database work) or the
 * connection is suspended and the request queued for a worker. The worker
 * builds the response and resumes the connection. Time spent queued is
 * measured and handed to the handler, which is how a request that waited
 * too long is shed with a 503 before it takes a database connection.
 *
 * Stopping drains: no new connections, in-flight requests finish (up to a
 * deadline), queued ones not yet started get 503, then everything closes.
 *
 * http_internal.h says which of the transport's files holds what. */
#ifndef HL_SERVER_HTTP_HTTP_H
#define HL_SERVER_HTTP_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "server/http/api.h"
#include "util/error.h"

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
    /* The transport scanned the whole body against the route's JSON budget
     * as it arrived, and it passed: a parse need not scan it again. */
    bool body_within_json_budget;
    int64_t queue_wait_ns;
};

struct http_reply {
    int status;
    char *body; /* malloc'd, taken by the transport */
    size_t body_len;
    const char *content_type; /* static */
    bool retry_after;
    bool close;                   /* "Connection: close": the transport refused the request */
    bool no_store;                /* "Cache-Control: no-store" */
    const char *www_authenticate; /* static; NULL = none */
    char allow[48];               /* for 405: the methods the path accepts */
    const char *route;            /* static route pattern for metrics; NULL = unmatched */
};

/* What the transport needs to know about a request's route before its
 * body arrives. */
struct http_route_info {
    const char *route; /* static route pattern (metrics label); NULL when none matches */
    bool large_body;   /* bodies up to max_body_bytes (commits); else max_metadata_body_bytes */
    bool probe;        /* /livez, /healthz, /metrics: served even past max_connections */
    /* The JSON budget a body is scanned against as it arrives (and again
     * before it is parsed); json_max_depth 0 = no scan. */
    int json_max_depth;
    int64_t json_max_values;
};

/* How a request, or a connection refused before any request, ended. */
struct http_outcome {
    const char *method; /* NULL: a connection closed or refused before any request was read */
    const char *route;  /* static route pattern; NULL = unmatched */
    int status;         /* 0: closed without an answer */
    /* Why a resource limit refused it (static, one of the reasons in
     * docs/limits.md), else NULL. */
    const char *refused;
    int64_t total_ns;
};

struct http_handlers {
    void *ctx;
    /* Whether a request can be answered on the I/O thread (fast, no I/O).
     * Asked once per request, as soon as its headers are in; also fills
     * *info, which the transport's limits need before the body. */
    bool (*is_inline)(void *ctx, const char *method, const char *path,
                      struct http_route_info *info);
    /* Builds the reply. Runs on a worker, or inline when is_inline said so. */
    void (*handle)(void *ctx, const struct http_request *req, struct http_reply *reply);
    /* Called once per answered request, after the reply is queued, and once
     * per connection a limit closed or refused without reading a request. */
    void (*completed)(void *ctx, const struct http_outcome *outcome);
};

struct http_options {
    const char *listen;
    int port; /* 0 = any free port */
    /* A socket bound already (http_bind), e.g. to a privileged port while
     * the process was still root: the server listens on it instead of
     * binding listen:port (still named in messages), and takes it, on
     * failure too. false (the zero default): the server binds its own. */
    bool prebound;
    int listen_fd;
    int workers;
    int64_t max_body_bytes;          /* the commit routes' (large_body) bodies */
    int64_t max_metadata_body_bytes; /* every other route's */
    int64_t max_inflight_body_bytes;
    int max_query_params;
    int header_timeout_ms;
    int request_timeout_ms;
    int max_connections;        /* past it only probes are served; 0: from the open-file limit */
    int max_client_connections; /* open connections from one client address */
    /* HTTPS when both are set: PEM text of the certificate (chain) and its
     * private key, borrowed for as long as the server runs. */
    const char *tls_cert_pem;
    const char *tls_key_pem;
};

/* Binds a TCP socket to address (IPv4 or IPv6; an IPv6 one for IPv6
 * only) and port (0: any free one, then *bound_port says which; bound_port
 * may be NULL): nonblocking, close-on-exec, SO_REUSEADDR. It does not
 * listen yet: connections are refused, as with no socket at all, until
 * http_server_start serves on it. So a server started as root can bind a
 * port below 1024 before dropping root. The descriptor, or -1 with a
 * message. */
int http_bind(const char *address, int port, int *bound_port, struct error *err);

/* Raises the soft open-file limit to the hard one, starts listening (on
 * opts->listen_fd when prebound), the front door and the workers. NULL
 * with a message on failure. */
struct http_server *http_server_start(const struct http_options *opts,
                                      const struct http_handlers *handlers, struct error *err);
int http_server_port(const struct http_server *s);
/* Worker pool gauges. */
void http_server_pool_stats(struct http_server *s, int *active, int *queued, int *max);
/* Drains and stops; frees s. */
void http_server_stop(struct http_server *s, int drain_timeout_ms);

#endif

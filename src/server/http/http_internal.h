/* The HTTP transport's insides, shared by its files and by nothing else
 * (http.h is the transport's interface to the rest of the server):
 *
 *   http.c       exchanges: libmicrohttpd's request callbacks, the body
 *                limits and budgets, the worker pool, replies; starting
 *                and stopping the whole transport
 *   http_door.c  connections: the front door thread (accept, the caps,
 *                the first request line, deadlines, lingering), the
 *                connection table and libmicrohttpd's connection
 *                callbacks, the listening socket
 *   http_body.c  the memory a request body is held in
 *
 * The structures are here because both sides read the server's limits
 * and a request's connection record. */
#ifndef HL_SERVER_HTTP_HTTP_INTERNAL_H
#define HL_SERVER_HTTP_HTTP_INTERNAL_H

#include <microhttpd.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "server/http/http.h"
#include "util/error.h"

enum {
    CLIENT_BUCKETS = 4096, /* per-client table: chains of client entries */
};

static const int64_t MS = 1000000;

/* Why a limit refused a request or connection: the label values of
 * hoglake_requests_refused_total (docs/limits.md). */
static const char R_BODY_TOO_LARGE[] = "body_too_large";
static const char R_INFLIGHT[] = "inflight_bodies";
static const char R_JSON_BUDGET[] = "json_budget";
static const char R_QUERY_PARAMS[] = "query_params";
static const char R_CONNECTIONS[] = "connections";
static const char R_CLIENT_CONNECTIONS[] = "client_connections";
static const char R_HEADER_TIMEOUT[] = "header_timeout";
static const char R_REQUEST_TIMEOUT[] = "request_timeout";
static const char R_BAD_REQUEST_LINE[] = "bad_request_line";
static const char R_LINE_TOO_LONG[] = "request_line_too_long";

/* ---- connections ---- */

enum conn_phase {
    PH_DOOR,     /* accepted; the front door waits for its request line */
    PH_HEADERS,  /* libmicrohttpd's: waiting for a request's line and headers */
    PH_BODY,     /* receiving a request body */
    PH_HANDLING, /* queued, running or answering: no receive deadline */
    PH_LINGER,   /* closed by us after a refusal: drained until the client goes */
};

/* A client address and how many connections it holds open. */
struct client {
    unsigned char key[17]; /* family, then the address */
    int conns;
    struct client *next;
};

/* One TCP connection, from its accept to its close (and linger). Fields
 * are guarded by the server's conns_mu; the I/O thread serving the
 * connection may read without it what only that thread writes
 * (too_many_params), and reserve, which is fixed at accept. */
struct conn {
    int fd;
    enum conn_phase phase;
    struct client *client;
    struct sockaddr_storage addr;
    socklen_t addrlen;
    int64_t start_ns;         /* when the current request began: accept, or the last one's end */
    int64_t deadline_ns;      /* when its phase's time is up; 0: none */
    int64_t discarded;        /* lingering: bytes thrown away */
    bool started;             /* libmicrohttpd knows it (NOTIFY_STARTED) */
    bool reserve;             /* accepted past max_connections: probes only */
    bool line_seen;           /* the current request's line arrived */
    bool answered_any;        /* a request completed on it */
    bool too_many_params;     /* the current request line (a kept-alive one) has too many */
    bool linger;              /* a refusal went out before the body was read */
    struct conn *prev, *next; /* open connections, or lingering ones */
};

/* A request body's bytes, NUL-terminated. One whose length is declared and
 * large is mapped directly, at that size: its pages cost nothing until its
 * bytes arrive, and all of them go back to the system the moment the
 * request is done (an allocator may keep freed blocks, and a sanitizer's
 * quarantine keeps them for a while, which a burst of large bodies would
 * turn into resident memory). Others grow on the heap. */
struct body {
    char *data;
    size_t len;
    size_t cap; /* bytes data holds, the NUL's included */
    bool mapped;
};

struct http_server {
    struct MHD_Daemon *daemon;
    struct http_handlers handlers;
    int64_t max_body_bytes;
    int64_t max_metadata_body_bytes;
    int64_t max_inflight_body_bytes;
    int max_query_params;
    int64_t header_timeout_ns;
    int64_t request_timeout_ns;
    int max_client_connections;
    int soft_cap; /* past it, probes only */
    int hard_cap; /* past it, refused */
    bool tls;
    int port;
    _Atomic int inflight;
    _Atomic int64_t body_bytes; /* request body bytes held, over all requests */
    _Atomic bool draining;

    pthread_mutex_t mu;
    pthread_cond_t job_ready;
    struct exchange *queue_head, *queue_tail;
    int queued;
    int active;
    bool closing; /* workers: answer what is left with 503 and exit */
    int nworkers;
    pthread_t *workers;

    /* The front door and the connection tables. */
    pthread_mutex_t conns_mu;
    struct conn **by_fd; /* open connections by descriptor */
    int fd_table_size;
    struct client *clients[CLIENT_BUCKETS];
    struct conn *open_conns; /* every open connection, door's and libmicrohttpd's */
    struct conn *lingering;
    int open; /* connections counted against the caps */
    int nlinger;
    bool stopping; /* no new lingering sockets */
    int listen_fd, door_epfd, wake_fd;
    int64_t accept_paused_until;
    pthread_t door;
    bool door_running;
    _Atomic bool door_quit;
};

/* ---- replies (http.c) ---- */

/* Makes r an error answer {"error": code, "detail": detail}. */
void http_set_reply_text(struct http_reply *r, int status, const char *code, const char *detail);
/* Writes a refusal straight to a socket nobody else writes to (see
 * http.c). */
void http_send_raw_reply(int fd, const struct http_reply *r, const char *request_id);

/* ---- connections (http_door.c) ---- */

/* The connection record of a libmicrohttpd connection; NULL when it has
 * none. */
struct conn *http_conn_of(struct MHD_Connection *mhd);
/* Enters a phase, and with it the phase's deadline; c may be NULL. */
void http_conn_enter(struct http_server *srv, struct conn *c, enum conn_phase phase);
/* A request on a connection ended (answered, or the connection is going):
 * the next one's header deadline counts from now. */
void http_conn_next_request(struct http_server *srv, struct conn *c);
/* Lingers after the connection closes: a refusal went out before its body
 * was read. c may be NULL. */
void http_conn_set_linger(struct http_server *srv, struct conn *c);
/* libmicrohttpd's MHD_OPTION_NOTIFY_CONNECTION callback (cls: the server). */
void http_on_connection(void *cls, struct MHD_Connection *mhd, void **socket_context,
                        enum MHD_ConnectionNotificationCode code);
/* libmicrohttpd's MHD_OPTION_URI_LOG_CALLBACK (cls: the server). */
void *http_on_uri(void *cls, const char *uri, struct MHD_Connection *mhd);

/* The descriptors the process may use, after raising its soft limit. */
int http_raise_open_files(void);
/* Sets the connection caps and the size of the descriptor table from the
 * open-file limit nofile. */
void http_derive_caps(struct http_server *srv, const struct http_options *opts, int nofile);
/* Listens on the socket handed in (opts->prebound; srv->listen_fd holds
 * it already), or binds one of its own; sets srv->port. 0, or -1 with a
 * message. */
int http_open_listener(struct http_server *srv, const struct http_options *opts, struct error *err);
/* Starts the door thread on srv->listen_fd. 0, or -1 with a message. */
int http_start_door(struct http_server *srv, struct error *err);
/* Stops the door thread, which closes every socket the door holds; or,
 * when it never started, closes the listener. */
void http_stop_door(struct http_server *srv);
/* Frees the connection table and the door's descriptors, once the door
 * thread and libmicrohttpd are gone. */
void http_door_free(struct http_server *srv);

/* ---- request bodies (http_body.c) ---- */

void http_body_free(struct body *b);
/* Room for a declared length at once (mapped when large). 0, or -1 when
 * memory runs out. */
int http_body_reserve_declared(struct body *b, size_t declared);
/* Appends n bytes and keeps the NUL. 0, or -1 when memory runs out. */
int http_body_append(struct body *b, const char *data, size_t n);

#endif

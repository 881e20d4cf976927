/* The HTTP transport's front door and its connection table (http.h is the
 * transport as a whole; http_internal.h says how its files divide it).
 *
 * The door is a thread of its own with its own epoll. It owns the
 * listening socket: it accepts, counts each new connection against the
 * caps (per client address, and a global one below the process's file
 * limit with headroom kept for probes), and holds the connection until its
 * request line has arrived, refusing a garbage line, one too long or one
 * with too many query parameters at once (400/414). Only then does
 * libmicrohttpd get the connection. The same thread enforces the header
 * and whole-request deadlines of every connection, libmicrohttpd's too,
 * and lingers after refusals so the client reads the answer rather than a
 * reset. libmicrohttpd's connection callbacks (here as well) keep the
 * table in step once a connection is handed over. */
#include "server/http/http_internal.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <unistd.h>

#include "util/log.h"
#include "util/timefmt.h"

enum {
    REQUEST_LINE_MAX = 8192, /* longer first request lines get 414 */
    METHOD_MAX = 32,
    TICK_MS = 50,                  /* how often deadlines are checked */
    PARAMS_GRACE_MS = 250,         /* see http_on_uri */
    LINGER_MS = 2000,              /* how long a refused client may keep sending */
    LINGER_MAX = 256,              /* sockets lingering at once; past it, close at once */
    LINGER_DISCARD_MAX = 16 << 20, /* bytes one lingering socket may send us */
    FD_TABLE_MAX = 1 << 20,        /* the open-file limit is raised no further */
    FD_RESERVE_MIN = 128,          /* descriptors kept from connections: database, files */
    PROBE_HEADROOM_MIN = 16,       /* connections past max_connections, for probes */
};

/* Reports a connection a limit closed or refused before any request. */
static void report_refusal(struct http_server *srv, const char *reason, int status)
{
    struct http_outcome o = {.status = status, .refused = reason};
    if (reason && srv->handlers.completed)
        srv->handlers.completed(srv->handlers.ctx, &o);
}

/* ---- the per-client table ---- */

static void client_key(const struct sockaddr_storage *ss, unsigned char key[17])
{
    memset(key, 0, 17);
    if (ss->ss_family == AF_INET) {
        key[0] = 4;
        memcpy(key + 1, &((const struct sockaddr_in *)(const void *)ss)->sin_addr, 4);
    } else if (ss->ss_family == AF_INET6) {
        key[0] = 6;
        memcpy(key + 1, &((const struct sockaddr_in6 *)(const void *)ss)->sin6_addr, 16);
    }
}

static size_t client_bucket(const unsigned char key[17])
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (int i = 0; i < 17; i++)
        h = (h ^ key[i]) * 16777619u;
    return h % CLIENT_BUCKETS;
}

/* The entry of an address, made on first sight; NULL when memory runs out. */
static struct client *client_get(struct http_server *srv, const struct sockaddr_storage *ss)
{
    unsigned char key[17];
    client_key(ss, key);
    struct client **head = &srv->clients[client_bucket(key)];
    for (struct client *c = *head; c; c = c->next)
        if (memcmp(c->key, key, sizeof key) == 0)
            return c;
    struct client *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    memcpy(c->key, key, sizeof key);
    c->next = *head;
    *head = c;
    return c;
}

/* Drops an entry once its address holds no connection. */
static void client_put(struct http_server *srv, struct client *cl)
{
    if (!cl || cl->conns > 0)
        return;
    for (struct client **p = &srv->clients[client_bucket(cl->key)]; *p; p = &(*p)->next) {
        if (*p == cl) {
            *p = cl->next;
            free(cl);
            return;
        }
    }
}

/* ---- connection bookkeeping (conns_mu held) ---- */

static void list_insert(struct conn **head, struct conn *c)
{
    c->prev = NULL;
    c->next = *head;
    if (*head)
        (*head)->prev = c;
    *head = c;
}

static void list_remove(struct conn **head, struct conn *c)
{
    if (c->prev)
        c->prev->next = c->next;
    else
        *head = c->next;
    if (c->next)
        c->next->prev = c->prev;
    c->prev = c->next = NULL;
}

/* Stops counting a connection against the caps and forgets its descriptor
 * (the caller closes or hands on the socket). */
static void conn_forget(struct http_server *srv, struct conn *c)
{
    list_remove(&srv->open_conns, c);
    if (c->fd >= 0 && c->fd < srv->fd_table_size && srv->by_fd[c->fd] == c)
        srv->by_fd[c->fd] = NULL;
    if (c->client) {
        c->client->conns--;
        client_put(srv, c->client);
        c->client = NULL;
    }
    srv->open--;
}

/* Enters a phase; the header and body phases run against deadlines that
 * count from the start of the request, not from its last byte, so a
 * trickle cannot stretch them. */
static void conn_enter_locked(struct http_server *srv, struct conn *c, enum conn_phase phase)
{
    c->phase = phase;
    if (phase == PH_HEADERS || phase == PH_DOOR)
        c->deadline_ns = c->start_ns + srv->header_timeout_ns;
    else if (phase == PH_BODY)
        c->deadline_ns = c->start_ns + srv->request_timeout_ns;
    else
        c->deadline_ns = 0;
}

void http_conn_enter(struct http_server *srv, struct conn *c, enum conn_phase phase)
{
    if (!c)
        return;
    pthread_mutex_lock(&srv->conns_mu);
    conn_enter_locked(srv, c, phase);
    pthread_mutex_unlock(&srv->conns_mu);
}

/* Turns a connection we are done with into a lingering socket: answered
 * and shut for writing, read and thrown away until the client closes (or
 * LINGER_MS), so that closing it does not reset the connection before the
 * client has read the answer. Takes c out of open_conns first. */
static void linger_begin(struct http_server *srv, struct conn *c, int fd)
{
    bool fresh = c->phase != PH_DOOR; /* door sockets are in the door's epoll already */
    c->fd = fd;
    c->phase = PH_LINGER;
    c->deadline_ns = time_mono_ns() + LINGER_MS * MS;
    c->discarded = 0;
    shutdown(fd, SHUT_WR);
    struct epoll_event ev = {.events = EPOLLIN | EPOLLRDHUP, .data.ptr = c};
    if (epoll_ctl(srv->door_epfd, fresh ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, fd, &ev) != 0) {
        close(fd);
        free(c);
        return;
    }
    list_insert(&srv->lingering, c);
    srv->nlinger++;
}

static void linger_end(struct http_server *srv, struct conn *c)
{
    epoll_ctl(srv->door_epfd, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    list_remove(&srv->lingering, c);
    srv->nlinger--;
    free(c);
}

static void linger_drain(struct http_server *srv, struct conn *c)
{
    char scratch[16384];
    for (;;) {
        ssize_t n = recv(c->fd, scratch, sizeof scratch, MSG_DONTWAIT);
        if (n > 0) {
            c->discarded += n;
            if (c->discarded <= LINGER_DISCARD_MAX)
                continue;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
            return;
        }
        linger_end(srv, c); /* the client is gone, or kept sending past all patience */
        return;
    }
}

/* Closes a socket the front door owns, lingering when there is room. */
static void door_close(struct http_server *srv, struct conn *c, bool linger)
{
    if (linger && !srv->stopping && srv->nlinger < LINGER_MAX) {
        linger_begin(srv, c, c->fd);
        return;
    }
    epoll_ctl(srv->door_epfd, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    free(c);
}

/* Refuses a connection still at the front door, with an answer. */
static void door_refuse(struct http_server *srv, struct conn *c, int status, const char *code,
                        const char *detail, const char *reason)
{
    struct http_reply r = {.retry_after = status == 503 || status == 429};
    http_set_reply_text(&r, status, code, detail);
    http_send_raw_reply(c->fd, &r, NULL);
    free(r.body);
    conn_forget(srv, c);
    report_refusal(srv, reason, status);
    door_close(srv, c, true);
}

/* ---- the front door: accept and admission ---- */

static void door_refuse_new(struct http_server *srv, struct conn *c, bool per_client)
{
    char detail[200];
    if (per_client) {
        snprintf(detail, sizeof detail,
                 "too many open connections from your address (at most %d); retry",
                 srv->max_client_connections);
        door_refuse(srv, c, 429, "too_many_connections", detail, R_CLIENT_CONNECTIONS);
    } else {
        door_refuse(srv, c, 503, "unavailable", "the server is at its connection limit; retry",
                    R_CONNECTIONS);
    }
}

/* Counts a new connection in, or refuses it; conns_mu held. */
static void admit(struct http_server *srv, int fd, const struct sockaddr_storage *ss, socklen_t len)
{
    struct conn *stale = srv->by_fd[fd];
    if (stale) { /* libmicrohttpd dropped it without telling; its number is back */
        conn_forget(srv, stale);
        free(stale);
    }
    struct conn *c = calloc(1, sizeof *c);
    struct client *cl = c ? client_get(srv, ss) : NULL;
    struct epoll_event ev = {.events = EPOLLIN | EPOLLRDHUP | EPOLLET, .data.ptr = c};
    if (!cl || epoll_ctl(srv->door_epfd, EPOLL_CTL_ADD, fd, &ev) != 0) {
        log_warn("http: cannot take a new connection: %s", cl ? strerror(errno) : "out of memory");
        client_put(srv, cl);
        free(c);
        close(fd);
        return;
    }
    *c = (struct conn){.fd = fd, .phase = PH_DOOR, .addr = *ss, .addrlen = len};
    c->start_ns = time_mono_ns();
    c->deadline_ns = c->start_ns + srv->header_timeout_ns;
    c->client = cl;
    c->reserve = srv->open >= srv->soft_cap;
    bool over_client = cl->conns >= srv->max_client_connections;
    bool over_all = srv->open >= srv->hard_cap;
    cl->conns++;
    srv->open++;
    list_insert(&srv->open_conns, c);
    srv->by_fd[fd] = c;
    if (over_all || over_client)
        door_refuse_new(srv, c, over_client);
}

static void pause_accepting(struct http_server *srv, int err)
{
    log_warn("http: accept failed (%s): pausing new connections for 100 ms", strerror(err));
    srv->accept_paused_until = time_mono_ns() + 100 * MS;
    struct epoll_event ev = {.events = 0, .data.ptr = &srv->listen_fd};
    epoll_ctl(srv->door_epfd, EPOLL_CTL_MOD, srv->listen_fd, &ev);
}

static bool set_nonblocking(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    return fl >= 0 && fcntl(fd, F_SETFL, fl | O_NONBLOCK) == 0 &&
           fcntl(fd, F_SETFD, FD_CLOEXEC) == 0;
}

static void door_accept(struct http_server *srv)
{
    for (;;) {
        struct sockaddr_storage ss;
        socklen_t len = sizeof ss;
        int fd = accept(srv->listen_fd, (struct sockaddr *)&ss, &len);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                pause_accepting(srv, errno);
            return;
        }
        if (fd >= srv->fd_table_size || !set_nonblocking(fd)) {
            close(fd); /* past the table: the open-file limit is being exceeded elsewhere */
            continue;
        }
        pthread_mutex_lock(&srv->conns_mu);
        admit(srv, fd, &ss, len);
        pthread_mutex_unlock(&srv->conns_mu);
        /* A TLS connection's first bytes are a handshake, not a request
         * line: libmicrohttpd takes it at once (see door_examine). */
    }
}

/* ---- the front door: the first request line ---- */

enum line_verdict { LINE_INCOMPLETE, LINE_OK, LINE_GARBAGE, LINE_TOO_MANY_PARAMS };

static bool is_tchar(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* Counts a query's parameters the way libmicrohttpd splits them: one per
 * '&'-separated piece, empty pieces included (it makes a record of each). */
static int count_params(const char *target, size_t len)
{
    const char *q = memchr(target, '?', len);
    if (!q)
        return 0;
    int n = 1;
    for (const char *p = q + 1; p < target + len; p++)
        n += *p == '&';
    return n;
}

/* The "HTTP/d.d" and line end after the target, from p[i]. */
static enum line_verdict check_version(const char *p, size_t n, size_t i)
{
    static const char shape[] = "HTTP/d.d";
    for (size_t k = 0; k < sizeof shape - 1; k++, i++) {
        if (i == n)
            return LINE_INCOMPLETE;
        bool ok = shape[k] == 'd' ? p[i] >= '0' && p[i] <= '9' : p[i] == shape[k];
        if (!ok)
            return LINE_GARBAGE;
    }
    if (i < n && p[i] == '\r')
        i++;
    if (i == n)
        return LINE_INCOMPLETE;
    return p[i] == '\n' ? LINE_OK : LINE_GARBAGE;
}

/* Checks what a new connection sent so far (n bytes) against
 * METHOD SP TARGET SP HTTP/d.d CRLF, refusing as soon as a byte rules it
 * out, and counts the query parameters as they come. libmicrohttpd 0.9.75
 * closes without an answer on some garbage, waits for a line end that
 * never comes on other (a TLS handshake, a NUL), and runs out of its
 * connection memory on a few hundred parameters, then never answers. */
static enum line_verdict check_request_line(const char *p, size_t n, int max_params)
{
    size_t i = 0;
    while (i < n && (p[i] == '\r' || p[i] == '\n'))
        i++; /* empty lines before a request line are to be ignored (RFC 9112 2.2) */
    size_t m = i;
    while (i < n && is_tchar((unsigned char)p[i]))
        i++;
    if (i - m > METHOD_MAX)
        return LINE_GARBAGE;
    if (i == n)
        return LINE_INCOMPLETE;
    if (p[i] != ' ' || i == m)
        return LINE_GARBAGE;
    size_t t = ++i;
    while (i < n && p[i] != ' ') {
        unsigned char c = (unsigned char)p[i];
        if (c < 0x20 || c == 0x7f)
            return LINE_GARBAGE;
        i++;
    }
    if (count_params(p + t, i - t) > max_params)
        return LINE_TOO_MANY_PARAMS;
    if (i == n)
        return LINE_INCOMPLETE;
    if (i == t)
        return LINE_GARBAGE;
    return check_version(p, n, i + 1);
}

/* Gives a connection whose request line looks right to libmicrohttpd. */
static void door_hand_over(struct http_server *srv, struct conn *c)
{
    epoll_ctl(srv->door_epfd, EPOLL_CTL_DEL, c->fd, NULL);
    c->phase = PH_HEADERS; /* the deadline runs on from the accept */
    c->line_seen = !srv->tls;
    if (MHD_add_connection(srv->daemon, c->fd, (const struct sockaddr *)&c->addr, c->addrlen) ==
        MHD_YES)
        return;
    /* libmicrohttpd closed the socket already. */
    log_warn("http: libmicrohttpd refused a connection: %s", strerror(errno));
    conn_forget(srv, c);
    free(c);
}

/* A door connection has new bytes: look at them without taking them. */
static void door_examine(struct http_server *srv, struct conn *c)
{
    if (srv->tls) {
        door_hand_over(srv, c);
        return;
    }
    char line[REQUEST_LINE_MAX];
    ssize_t n = recv(c->fd, line, sizeof line, MSG_PEEK | MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return;
    if (n <= 0) { /* gone before it said anything */
        conn_forget(srv, c);
        door_close(srv, c, false);
        return;
    }
    char detail[160];
    switch (check_request_line(line, (size_t)n, srv->max_query_params)) {
    case LINE_OK: door_hand_over(srv, c); return;
    case LINE_INCOMPLETE:
        if ((size_t)n < sizeof line)
            return;
        snprintf(detail, sizeof detail, "the request line is longer than %d bytes",
                 REQUEST_LINE_MAX);
        door_refuse(srv, c, 414, "uri_too_long", detail, R_LINE_TOO_LONG);
        return;
    case LINE_GARBAGE:
        door_refuse(srv, c, 400, "bad_request",
                    "the request line is not METHOD SP TARGET SP HTTP/x.y", R_BAD_REQUEST_LINE);
        return;
    case LINE_TOO_MANY_PARAMS:
        snprintf(detail, sizeof detail, "more than %d query parameters", srv->max_query_params);
        door_refuse(srv, c, 400, "bad_request", detail, R_QUERY_PARAMS);
        return;
    }
}

/* ---- deadlines ---- */

/* Why a connection is closed at its deadline; NULL for an idle keep-alive
 * connection, which is closed without being counted as a refusal. */
static const char *timeout_reason(const struct conn *c)
{
    if (c->too_many_params)
        return R_QUERY_PARAMS;
    if (c->phase == PH_BODY)
        return R_REQUEST_TIMEOUT;
    return c->line_seen || !c->answered_any ? R_HEADER_TIMEOUT : NULL;
}

/* Closes a connection whose time is up. Door sockets are ours to close;
 * libmicrohttpd's are shut down, which it sees as the client leaving: the
 * descriptor stays valid until NOTIFY_CLOSED, which takes conns_mu first. */
static void expire(struct http_server *srv, struct conn *c)
{
    if (c->phase != PH_DOOR && !c->started)
        return; /* handed over, not yet taken up: its descriptor is not ours; next tick */
    const char *reason = timeout_reason(c);
    c->deadline_ns = 0;
    if (c->phase == PH_DOOR) {
        conn_forget(srv, c);
        door_close(srv, c, false);
    } else {
        shutdown(c->fd, SHUT_RDWR);
    }
    report_refusal(srv, reason, 0);
}

static void door_tick(struct http_server *srv, int64_t now)
{
    pthread_mutex_lock(&srv->conns_mu);
    for (struct conn *c = srv->open_conns, *next; c; c = next) {
        next = c->next;
        if (c->deadline_ns && now >= c->deadline_ns)
            expire(srv, c);
    }
    for (struct conn *c = srv->lingering, *next; c; c = next) {
        next = c->next;
        if (now >= c->deadline_ns)
            linger_end(srv, c);
    }
    if (srv->accept_paused_until && now >= srv->accept_paused_until) {
        srv->accept_paused_until = 0;
        struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &srv->listen_fd};
        epoll_ctl(srv->door_epfd, EPOLL_CTL_MOD, srv->listen_fd, &ev);
    }
    pthread_mutex_unlock(&srv->conns_mu);
}

static void door_event(struct http_server *srv, const struct epoll_event *ev)
{
    if (ev->data.ptr == &srv->listen_fd) {
        door_accept(srv);
        return;
    }
    if (ev->data.ptr == &srv->wake_fd) {
        uint64_t v;
        if (read(srv->wake_fd, &v, sizeof v) < 0)
            log_debug("http: wake read: %s", strerror(errno));
        return;
    }
    struct conn *c = ev->data.ptr;
    pthread_mutex_lock(&srv->conns_mu);
    if (c->phase == PH_DOOR)
        door_examine(srv, c);
    else if (c->phase == PH_LINGER)
        linger_drain(srv, c);
    pthread_mutex_unlock(&srv->conns_mu);
}

/* Closes what only the door holds: the listener, connections that never
 * sent a request line, lingering sockets. */
static void door_close_all(struct http_server *srv)
{
    pthread_mutex_lock(&srv->conns_mu);
    srv->stopping = true;
    close(srv->listen_fd);
    srv->listen_fd = -1;
    for (struct conn *c = srv->open_conns, *next; c; c = next) {
        next = c->next;
        if (c->phase == PH_DOOR) {
            conn_forget(srv, c);
            door_close(srv, c, false);
        }
    }
    while (srv->lingering)
        linger_end(srv, srv->lingering);
    pthread_mutex_unlock(&srv->conns_mu);
}

static void *door_main(void *arg)
{
    struct http_server *srv = arg;
    struct epoll_event evs[64];
    int64_t next_tick = 0;
    while (!atomic_load(&srv->door_quit)) {
        int n = epoll_wait(srv->door_epfd, evs, 64, TICK_MS);
        for (int i = 0; i < n; i++)
            door_event(srv, &evs[i]);
        int64_t now = time_mono_ns();
        if (now >= next_tick) {
            door_tick(srv, now);
            next_tick = now + TICK_MS * MS;
        }
    }
    door_close_all(srv);
    return NULL;
}

/* ---- libmicrohttpd's connection callbacks ---- */

struct conn *http_conn_of(struct MHD_Connection *mhd)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(mhd, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return ci ? ci->socket_context : NULL;
}

void http_on_connection(void *cls, struct MHD_Connection *mhd, void **socket_context,
                        enum MHD_ConnectionNotificationCode code)
{
    struct http_server *srv = cls;
    pthread_mutex_lock(&srv->conns_mu);
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(mhd, MHD_CONNECTION_INFO_CONNECTION_FD);
        int fd = ci ? ci->connect_fd : -1;
        struct conn *c = fd >= 0 && fd < srv->fd_table_size ? srv->by_fd[fd] : NULL;
        if (c)
            c->started = true;
        *socket_context = c;
    } else if (*socket_context) {
        struct conn *c = *socket_context;
        *socket_context = NULL;
        conn_forget(srv, c);
        int fd = c->linger && !srv->stopping && srv->nlinger < LINGER_MAX ? dup(c->fd) : -1;
        if (fd >= 0)
            linger_begin(srv, c, fd); /* libmicrohttpd closes its descriptor, we keep ours */
        else
            free(c);
    }
    pthread_mutex_unlock(&srv->conns_mu);
}

/* Each request line libmicrohttpd reads. A connection's first one passed
 * the front door; later ones on a kept-alive connection did not, so their
 * parameters are counted here: too many get a 400 in on_request if
 * libmicrohttpd gets that far, else (it ran out of connection memory and
 * will not answer) the connection is closed after a short grace. */
void *http_on_uri(void *cls, const char *uri, struct MHD_Connection *mhd)
{
    struct http_server *srv = cls;
    struct conn *c = http_conn_of(mhd);
    if (!c)
        return NULL;
    bool too_many = count_params(uri, strlen(uri)) > srv->max_query_params;
    pthread_mutex_lock(&srv->conns_mu);
    c->line_seen = true;
    int64_t grace = time_mono_ns() + PARAMS_GRACE_MS * MS;
    if (too_many) {
        c->too_many_params = true;
        if (!c->deadline_ns || c->deadline_ns > grace)
            c->deadline_ns = grace;
    }
    pthread_mutex_unlock(&srv->conns_mu);
    return NULL;
}

/* A request on a connection ended (answered, or the connection is going):
 * the next one's header deadline counts from now. */
void http_conn_next_request(struct http_server *srv, struct conn *c)
{
    pthread_mutex_lock(&srv->conns_mu);
    c->start_ns = time_mono_ns();
    c->line_seen = false;
    c->too_many_params = false;
    c->answered_any = true;
    conn_enter_locked(srv, c, PH_HEADERS);
    pthread_mutex_unlock(&srv->conns_mu);
}

void http_conn_set_linger(struct http_server *srv, struct conn *c)
{
    if (!c)
        return;
    pthread_mutex_lock(&srv->conns_mu);
    c->linger = true;
    pthread_mutex_unlock(&srv->conns_mu);
}

/* ---- the listening socket and the door thread ---- */

/* The port a bound socket has (the one picked when 0 was asked); -1 with
 * errno set on failure. */
static int bound_port_of(int fd)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    if (getsockname(fd, (struct sockaddr *)&ss, &len) != 0)
        return -1;
    if (ss.ss_family == AF_INET)
        return ntohs(((struct sockaddr_in *)(void *)&ss)->sin_port);
    if (ss.ss_family == AF_INET6)
        return ntohs(((struct sockaddr_in6 *)(void *)&ss)->sin6_port);
    errno = EAFNOSUPPORT;
    return -1;
}

int http_bind(const char *address, int port, int *bound_port, struct error *err)
{
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof ss);
    struct sockaddr_in *sin4 = (struct sockaddr_in *)(void *)&ss;
    struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)(void *)&ss;
    socklen_t len;
    if (inet_pton(AF_INET, address, &sin4->sin_addr) == 1) {
        sin4->sin_family = AF_INET;
        sin4->sin_port = htons((uint16_t)port);
        len = sizeof *sin4;
    } else if (inet_pton(AF_INET6, address, &sin6->sin6_addr) == 1) {
        sin6->sin6_family = AF_INET6;
        sin6->sin6_port = htons((uint16_t)port);
        len = sizeof *sin6;
    } else {
        error_fail(err, ERR_INVALID, "listen address '%s' is not an IPv4 or IPv6 address", address);
        return -1;
    }
    int fd = socket(ss.ss_family, SOCK_STREAM, 0);
    int one = 1, bound = -1;
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
        (ss.ss_family == AF_INET6 &&
         setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one) != 0) ||
        bind(fd, (struct sockaddr *)&ss, len) != 0 || !set_nonblocking(fd) ||
        (bound = bound_port_of(fd)) < 0) {
        error_fail(err, ERR_IO, "cannot listen on %s:%d: %s", address, port, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    if (bound_port)
        *bound_port = bound;
    return fd;
}

/* Listening starts only here, as the server is about to serve, so a
 * socket bound long before (http_bind) still refuses connections in the
 * meantime instead of queueing them. On failure srv->listen_fd is left
 * for http_stop_door to close. */
int http_open_listener(struct http_server *srv, const struct http_options *opts, struct error *err)
{
    if (!opts->prebound && (srv->listen_fd = http_bind(opts->listen, opts->port, NULL, err)) < 0)
        return -1;
    int port = bound_port_of(srv->listen_fd);
    if (port < 0 || !set_nonblocking(srv->listen_fd) || listen(srv->listen_fd, SOMAXCONN) != 0) {
        error_fail(err, ERR_IO, "cannot listen on %s:%d: %s", opts->listen ? opts->listen : "?",
                   port < 0 ? opts->port : port, strerror(errno));
        return -1;
    }
    srv->port = port;
    return 0;
}

int http_start_door(struct http_server *srv, struct error *err)
{
    srv->door_epfd = epoll_create1(EPOLL_CLOEXEC);
    srv->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    struct epoll_event lev = {.events = EPOLLIN, .data.ptr = &srv->listen_fd};
    struct epoll_event wev = {.events = EPOLLIN, .data.ptr = &srv->wake_fd};
    if (srv->door_epfd < 0 || srv->wake_fd < 0 ||
        epoll_ctl(srv->door_epfd, EPOLL_CTL_ADD, srv->listen_fd, &lev) != 0 ||
        epoll_ctl(srv->door_epfd, EPOLL_CTL_ADD, srv->wake_fd, &wev) != 0) {
        error_fail(err, ERR_IO, "cannot set up the connection loop: %s", strerror(errno));
        return -1;
    }
    if (pthread_create(&srv->door, NULL, door_main, srv) != 0) {
        error_fail(err, ERR_IO, "cannot start the connection thread");
        return -1;
    }
    srv->door_running = true;
    return 0;
}

/* Stops the door thread; it closes the listener, door connections and
 * lingering sockets on its way out. */
void http_stop_door(struct http_server *srv)
{
    if (srv->door_running) {
        atomic_store(&srv->door_quit, true);
        uint64_t one = 1;
        if (write(srv->wake_fd, &one, sizeof one) < 0)
            log_debug("http: wake write: %s", strerror(errno));
        pthread_join(srv->door, NULL);
        srv->door_running = false;
    } else if (srv->listen_fd >= 0) {
        close(srv->listen_fd);
        srv->listen_fd = -1;
    }
}

void http_door_free(struct http_server *srv)
{
    /* Only a connection libmicrohttpd dropped without telling (it failed
     * to set it up) can be left here; its socket is closed already. */
    while (srv->open_conns) {
        struct conn *c = srv->open_conns;
        list_remove(&srv->open_conns, c);
        free(c);
    }
    if (srv->door_epfd >= 0)
        close(srv->door_epfd);
    if (srv->wake_fd >= 0)
        close(srv->wake_fd);
    for (size_t i = 0; i < CLIENT_BUCKETS; i++) {
        while (srv->clients[i]) {
            struct client *next = srv->clients[i]->next;
            free(srv->clients[i]);
            srv->clients[i] = next;
        }
    }
    free(srv->by_fd);
}

/* ---- limits derived at start ---- */

/* Raises the soft open-file limit to the hard one (at most FD_TABLE_MAX)
 * and returns the descriptors the process may use. */
int http_raise_open_files(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return 1024;
    rlim_t want = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > FD_TABLE_MAX ? (rlim_t)FD_TABLE_MAX
                                                                             : rl.rlim_max;
    if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > want)
        return (int)want;
    if (rl.rlim_cur < want) {
        rlim_t was = rl.rlim_cur;
        rl.rlim_cur = want;
        if (setrlimit(RLIMIT_NOFILE, &rl) != 0) {
            log_warn("cannot raise the open-file limit from %llu to %llu: %s",
                     (unsigned long long)was, (unsigned long long)want, strerror(errno));
            return (int)was;
        }
    }
    return (int)rl.rlim_cur;
}

/* The connection caps: the hard cap leaves descriptors for the database
 * pool, files and logs; the soft one (max_connections, or derived) leaves
 * headroom under the hard one for probes. */
void http_derive_caps(struct http_server *srv, const struct http_options *opts, int nofile)
{
    int reserve = nofile / 8 > FD_RESERVE_MIN ? nofile / 8 : FD_RESERVE_MIN;
    int hard =
        nofile - reserve > PROBE_HEADROOM_MIN * 2 ? nofile - reserve : PROBE_HEADROOM_MIN * 2;
    int headroom = hard / 16 > PROBE_HEADROOM_MIN ? hard / 16 : PROBE_HEADROOM_MIN;
    int soft = opts->max_connections > 0 ? opts->max_connections : hard - headroom;
    if (soft > hard - headroom) {
        if (opts->max_connections > 0)
            log_warn("--max-connections %d leaves no headroom under the open-file limit (%d): "
                     "using %d",
                     opts->max_connections, nofile, hard - headroom);
        soft = hard - headroom;
    }
    srv->soft_cap = soft;
    srv->hard_cap = hard;
    srv->fd_table_size = nofile;
    log_info("http: at most %d connections (%d past which only probes are served), %d from one "
             "address",
             hard, soft, opts->max_client_connections);
}

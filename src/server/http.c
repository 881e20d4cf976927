#include "server/http.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "util/buf.h"
#include "util/log.h"
#include "util/strutil.h"
#include "util/timefmt.h"

enum exchange_state { EX_READING, EX_QUEUED, EX_DONE };

/* One request on one connection, from its headers to its completion. */
struct exchange {
    struct http_server *srv;
    struct MHD_Connection *conn;
    enum exchange_state state;
    char *method;
    char *path;
    struct query_arg *args;
    size_t nargs, args_cap;
    char *content_type;
    char *request_id;
    char *authorization; /* a credential: wiped when freed */
    char *host;
    struct buf body;
    bool body_too_large;
    int64_t arrived_ns;
    int64_t queued_ns;
    struct http_reply reply;
    struct exchange *next_job; /* worker queue link */
};

struct http_server {
    struct MHD_Daemon *daemon;
    struct http_handlers handlers;
    int64_t max_body_bytes;
    int port;
    _Atomic int inflight;
    _Atomic bool draining;

    pthread_mutex_t mu;
    pthread_cond_t job_ready;
    struct exchange *queue_head, *queue_tail;
    int queued;
    int active;
    bool closing; /* workers: answer what is left with 503 and exit */
    int nworkers;
    pthread_t *workers;
};

static void free_exchange(struct exchange *ex)
{
    free(ex->method);
    free(ex->path);
    for (size_t i = 0; i < ex->nargs; i++) {
        free((char *)ex->args[i].key);
        free((char *)ex->args[i].value);
    }
    free(ex->args);
    free(ex->content_type);
    free(ex->request_id);
    if (ex->authorization)
        explicit_bzero(ex->authorization, strlen(ex->authorization));
    free(ex->authorization);
    free(ex->host);
    buf_free(&ex->body);
    free(ex->reply.body);
    free(ex);
}

static void set_reply_text(struct http_reply *r, int status, const char *code, const char *detail)
{
    r->status = status;
    free(r->body);
    struct buf b = BUF_INIT;
    if (buf_printf(&b, "{\"error\":\"%s\",\"detail\":\"%s\"}", code, detail) != 0) {
        buf_free(&b);
        r->body = NULL;
        r->body_len = 0;
    } else {
        r->body_len = b.len;
        r->body = buf_take(&b);
    }
    r->content_type = "application/json";
}

static enum MHD_Result collect_arg(void *cls, enum MHD_ValueKind kind, const char *key,
                                   const char *value)
{
    (void)kind;
    struct exchange *ex = cls;
    if (ex->nargs == ex->args_cap) {
        size_t cap = ex->args_cap ? ex->args_cap * 2 : 8;
        struct query_arg *grown = realloc(ex->args, cap * sizeof *grown);
        if (!grown)
            return MHD_NO;
        ex->args = grown;
        ex->args_cap = cap;
    }
    char *k = strdup(key ? key : "");
    char *v = strdup(value ? value : "");
    if (!k || !v) {
        free(k);
        free(v);
        return MHD_NO;
    }
    ex->args[ex->nargs].key = k;
    ex->args[ex->nargs].value = v;
    ex->nargs++;
    return MHD_YES;
}

static bool sane_request_id(const char *id)
{
    size_t n = strlen(id);
    if (n == 0 || n > 128)
        return false;
    for (const char *p = id; *p; p++)
        if (*p < 0x21 || *p > 0x7e)
            return false;
    return true;
}

/* An id for a request that came without a usable one: "hl-" and 16 hex
 * digits, random per process start and then counted, so ids stay unique
 * across replicas without a syscall per request. */
static char *generate_request_id(void)
{
    static _Atomic uint64_t next; /* 0 until seeded; seeds are odd */
    uint64_t base = atomic_load(&next);
    if (base == 0) {
        uint64_t r = 0;
        if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r)
            r = (uint64_t)time_mono_ns() ^ ((uint64_t)getpid() << 32);
        uint64_t zero = 0;
        atomic_compare_exchange_strong(&next, &zero, r | 1);
    }
    uint64_t id = atomic_fetch_add(&next, 1);
    char *out = malloc(20);
    if (out)
        snprintf(out, 20, "hl-%016llx", (unsigned long long)id);
    return out;
}

static struct exchange *new_exchange(struct http_server *srv, struct MHD_Connection *conn,
                                     const char *method, const char *url)
{
    struct exchange *ex = calloc(1, sizeof *ex);
    if (!ex)
        return NULL;
    ex->srv = srv;
    ex->conn = conn;
    ex->arrived_ns = time_mono_ns();
    ex->method = strdup(method);
    ex->path = strdup(url);
    if (!ex->method || !ex->path)
        goto fail;
    MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, collect_arg, ex);
    const char *ct = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Content-Type");
    if (ct && !(ex->content_type = strdup(ct)))
        goto fail;
    const char *authz = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Authorization");
    if (authz && !(ex->authorization = strdup(authz)))
        goto fail;
    const char *host = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Host");
    if (host && !(ex->host = strdup(host)))
        goto fail;
    const char *rid = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "X-Request-Id");
    ex->request_id = rid && sane_request_id(rid) ? strdup(rid) : generate_request_id();
    if (!ex->request_id)
        goto fail;
    atomic_fetch_add(&srv->inflight, 1);
    return ex;
fail:
    free_exchange(ex);
    return NULL;
}

static void run_handler(struct http_server *srv, struct exchange *ex, int64_t queue_wait_ns)
{
    struct http_request req = {
        .method = ex->method,
        .path = ex->path,
        .args = ex->args,
        .nargs = ex->nargs,
        .content_type = ex->content_type,
        .request_id = ex->request_id,
        .authorization = ex->authorization,
        .host = ex->host,
        .body = ex->body.len ? ex->body.data : NULL,
        .body_len = ex->body.len,
        .queue_wait_ns = queue_wait_ns,
    };
    srv->handlers.handle(srv->handlers.ctx, &req, &ex->reply);
    ex->state = EX_DONE;
}

static enum MHD_Result queue_reply(struct http_server *srv, struct exchange *ex)
{
    struct http_reply *r = &ex->reply;
    struct MHD_Response *resp =
        MHD_create_response_from_buffer(r->body_len, r->body ? r->body : (char *)"",
                                        r->body ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
    if (!resp)
        return MHD_NO;
    r->body = NULL; /* now owned by the response */
    MHD_add_response_header(resp, "Content-Type",
                            r->content_type ? r->content_type : "application/json");
    if (ex->request_id)
        MHD_add_response_header(resp, "X-Request-Id", ex->request_id);
    if (r->retry_after)
        MHD_add_response_header(resp, "Retry-After", "1");
    if (r->allow[0])
        MHD_add_response_header(resp, "Allow", r->allow);
    if (r->www_authenticate)
        MHD_add_response_header(resp, "WWW-Authenticate", r->www_authenticate);
    if (r->no_store)
        MHD_add_response_header(resp, "Cache-Control", "no-store");
    if (atomic_load(&srv->draining))
        MHD_add_response_header(resp, "Connection", "close");
    enum MHD_Result rc = MHD_queue_response(ex->conn, (unsigned)r->status, resp);
    MHD_destroy_response(resp);
    if (srv->handlers.completed)
        srv->handlers.completed(srv->handlers.ctx, ex->method, r->route, r->status,
                                time_mono_ns() - ex->arrived_ns);
    return rc;
}

static void enqueue(struct http_server *srv, struct exchange *ex)
{
    pthread_mutex_lock(&srv->mu);
    ex->queued_ns = time_mono_ns();
    ex->state = EX_QUEUED;
    ex->next_job = NULL;
    if (srv->queue_tail)
        srv->queue_tail->next_job = ex;
    else
        srv->queue_head = ex;
    srv->queue_tail = ex;
    srv->queued++;
    pthread_cond_signal(&srv->job_ready);
    pthread_mutex_unlock(&srv->mu);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **con_cls)
{
    (void)version;
    struct http_server *srv = cls;
    struct exchange *ex = *con_cls;
    if (!ex) {
        ex = new_exchange(srv, conn, method, url);
        if (!ex)
            return MHD_NO;
        *con_cls = ex;
        const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Content-Length");
        if (cl && strtoull(cl, NULL, 10) > (unsigned long long)srv->max_body_bytes)
            ex->body_too_large = true;
        return MHD_YES;
    }
    if (*upload_data_size) {
        if (!ex->body_too_large) {
            if (ex->body.len + *upload_data_size > (size_t)srv->max_body_bytes)
                ex->body_too_large = true;
            else if (buf_append(&ex->body, upload_data, *upload_data_size) != 0)
                return MHD_NO;
        }
        *upload_data_size = 0;
        return MHD_YES;
    }
    switch (ex->state) {
    case EX_READING:
        if (ex->body_too_large) {
            char detail[128];
            snprintf(detail, sizeof detail, "request body exceeds the limit of %lld bytes",
                     (long long)srv->max_body_bytes);
            set_reply_text(&ex->reply, 413, "payload_too_large", detail);
            ex->state = EX_DONE;
            return queue_reply(srv, ex);
        }
        if (srv->handlers.is_inline(srv->handlers.ctx, ex->method, ex->path)) {
            run_handler(srv, ex, 0);
            return queue_reply(srv, ex);
        }
        MHD_suspend_connection(conn);
        enqueue(srv, ex);
        return MHD_YES;
    case EX_QUEUED:
        /* Resumed spuriously before the worker finished: stay suspended. */
        return MHD_YES;
    case EX_DONE: return queue_reply(srv, ex);
    }
    return MHD_NO;
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode code)
{
    (void)conn;
    (void)code;
    struct http_server *srv = cls;
    struct exchange *ex = *con_cls;
    if (!ex)
        return;
    *con_cls = NULL;
    free_exchange(ex);
    atomic_fetch_sub(&srv->inflight, 1);
}

static void *worker_main(void *arg)
{
    struct http_server *srv = arg;
    for (;;) {
        pthread_mutex_lock(&srv->mu);
        while (!srv->queue_head && !srv->closing)
            pthread_cond_wait(&srv->job_ready, &srv->mu);
        struct exchange *ex = srv->queue_head;
        if (!ex) {
            pthread_mutex_unlock(&srv->mu);
            return NULL;
        }
        srv->queue_head = ex->next_job;
        if (!srv->queue_head)
            srv->queue_tail = NULL;
        srv->queued--;
        srv->active++;
        bool closing = srv->closing;
        pthread_mutex_unlock(&srv->mu);

        if (closing) {
            set_reply_text(&ex->reply, 503, "unavailable", "the server is shutting down");
            ex->reply.retry_after = true;
            ex->state = EX_DONE;
        } else {
            run_handler(srv, ex, time_mono_ns() - ex->queued_ns);
        }
        struct MHD_Connection *conn = ex->conn;
        pthread_mutex_lock(&srv->mu);
        srv->active--;
        pthread_mutex_unlock(&srv->mu);
        /* Last touch of ex: once resumed, the I/O thread may free it. */
        MHD_resume_connection(conn);
    }
}

/* Decodes %HH in paths and query arguments. A decoded NUL would end the C
 * string early and silently shorten a name ("ns%00/x" addressing "ns"),
 * so it becomes 0x01 instead: a control character every consumer
 * refuses. */
static size_t unescape(void *cls, struct MHD_Connection *conn, char *s)
{
    (void)cls;
    (void)conn;
    char *out = s;
    for (const char *in = s; *in; in++) {
        int hi, lo;
        if (in[0] == '%' && (hi = str_hex_digit(in[1])) >= 0 && (lo = str_hex_digit(in[2])) >= 0) {
            char c = (char)(hi * 16 + lo);
            *out++ = c ? c : '\x01';
            in += 2;
        } else {
            *out++ = *in;
        }
    }
    *out = '\0';
    return (size_t)(out - s);
}

static void log_mhd(void *cls, const char *fmt, va_list ap)
{
    (void)cls;
    char line[512];
    vsnprintf(line, sizeof line, fmt, ap);
    size_t n = strlen(line);
    while (n && line[n - 1] == '\n')
        line[--n] = '\0';
    log_debug("http: %s", line);
}

struct http_server *http_server_start(const struct http_options *opts,
                                      const struct http_handlers *handlers, char *err,
                                      size_t err_size)
{
    struct http_server *srv = calloc(1, sizeof *srv);
    if (!srv) {
        snprintf(err, err_size, "out of memory");
        return NULL;
    }
    srv->handlers = *handlers;
    srv->max_body_bytes = opts->max_body_bytes;
    pthread_mutex_init(&srv->mu, NULL);
    pthread_cond_init(&srv->job_ready, NULL);

    struct sockaddr_in sin4;
    struct sockaddr_in6 sin6;
    struct sockaddr *addr;
    unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL |
                         MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;
    memset(&sin4, 0, sizeof sin4);
    memset(&sin6, 0, sizeof sin6);
    if (inet_pton(AF_INET, opts->listen, &sin4.sin_addr) == 1) {
        sin4.sin_family = AF_INET;
        sin4.sin_port = htons((uint16_t)opts->port);
        addr = (struct sockaddr *)&sin4;
    } else if (inet_pton(AF_INET6, opts->listen, &sin6.sin6_addr) == 1) {
        sin6.sin6_family = AF_INET6;
        sin6.sin6_port = htons((uint16_t)opts->port);
        addr = (struct sockaddr *)&sin6;
        flags |= MHD_USE_IPv6;
    } else {
        snprintf(err, err_size, "listen address '%s' is not an IPv4 or IPv6 address", opts->listen);
        goto fail;
    }

    srv->nworkers = opts->workers;
    srv->workers = calloc((size_t)opts->workers, sizeof *srv->workers);
    if (!srv->workers) {
        snprintf(err, err_size, "out of memory");
        goto fail;
    }
    for (int i = 0; i < opts->workers; i++) {
        if (pthread_create(&srv->workers[i], NULL, worker_main, srv) != 0) {
            srv->nworkers = i;
            snprintf(err, err_size, "cannot start worker threads");
            goto fail_workers;
        }
    }

    /* TLS 1.2 and 1.3 only: nothing older is safe for bearer tokens. */
    static const char tls_priorities[] = "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2";
    bool tls = opts->tls_cert_pem && opts->tls_key_pem;
    if (tls && MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
        snprintf(err, err_size, "this libmicrohttpd was built without TLS support");
        goto fail_workers;
    }
    struct MHD_OptionItem tls_opts[] = {
        {tls ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END, 0, (void *)opts->tls_cert_pem},
        {MHD_OPTION_HTTPS_MEM_KEY, 0, (void *)opts->tls_key_pem},
        {MHD_OPTION_HTTPS_PRIORITIES, 0, (void *)tls_priorities},
        {MHD_OPTION_END, 0, NULL},
    };
    if (tls)
        flags |= MHD_USE_TLS;
    srv->daemon = MHD_start_daemon(
        flags, 0, NULL, NULL, on_request, srv, MHD_OPTION_SOCK_ADDR, addr,
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, srv, MHD_OPTION_THREAD_POOL_SIZE, 2u,
        MHD_OPTION_CONNECTION_TIMEOUT, 120u, MHD_OPTION_CONNECTION_LIMIT, 4096u,
        MHD_OPTION_EXTERNAL_LOGGER, log_mhd, NULL, MHD_OPTION_UNESCAPE_CALLBACK, unescape, NULL,
        MHD_OPTION_ARRAY, tls_opts, MHD_OPTION_END);
    if (!srv->daemon) {
        snprintf(err, err_size, "cannot listen on %s:%d (in use, or not permitted%s)", opts->listen,
                 opts->port, tls ? ", or the TLS certificate and key do not load or match" : "");
        goto fail_workers;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(srv->daemon, MHD_DAEMON_INFO_BIND_PORT);
    srv->port = info ? info->port : opts->port;
    return srv;

fail_workers:
    pthread_mutex_lock(&srv->mu);
    srv->closing = true;
    pthread_cond_broadcast(&srv->job_ready);
    pthread_mutex_unlock(&srv->mu);
    for (int i = 0; i < srv->nworkers; i++)
        pthread_join(srv->workers[i], NULL);
fail:
    free(srv->workers);
    pthread_mutex_destroy(&srv->mu);
    pthread_cond_destroy(&srv->job_ready);
    free(srv);
    return NULL;
}

int http_server_port(const struct http_server *s)
{
    return s->port;
}

void http_server_pool_stats(struct http_server *s, int *active, int *queued, int *max)
{
    pthread_mutex_lock(&s->mu);
    *active = s->active;
    *queued = s->queued;
    *max = s->nworkers;
    pthread_mutex_unlock(&s->mu);
}

void http_server_stop(struct http_server *s, int drain_timeout_ms)
{
    if (!s)
        return;
    atomic_store(&s->draining, true);
    MHD_socket fd = MHD_quiesce_daemon(s->daemon);
    if (fd != MHD_INVALID_SOCKET)
        close(fd);
    int64_t deadline = time_mono_ns() + (int64_t)drain_timeout_ms * 1000000;
    while (atomic_load(&s->inflight) > 0 && time_mono_ns() < deadline) {
        struct timespec ts = {0, 10 * 1000000};
        nanosleep(&ts, NULL);
    }
    int left = atomic_load(&s->inflight);
    if (left > 0)
        log_warn("shutdown: %d request(s) still in flight after %d ms", left, drain_timeout_ms);
    /* Workers answer anything still queued with 503 and exit once the
     * requests they are running are done; only then may connections close. */
    pthread_mutex_lock(&s->mu);
    s->closing = true;
    pthread_cond_broadcast(&s->job_ready);
    pthread_mutex_unlock(&s->mu);
    for (int i = 0; i < s->nworkers; i++)
        pthread_join(s->workers[i], NULL);
    /* Let the I/O threads send the replies just resumed: libmicrohttpd
     * aborts if it is stopped while a connection is still suspended, which
     * a loaded machine can take well over a second to undo. */
    deadline = time_mono_ns() + (int64_t)10 * 1000000000;
    while (atomic_load(&s->inflight) > 0 && time_mono_ns() < deadline) {
        struct timespec ts = {0, 5 * 1000000};
        nanosleep(&ts, NULL);
    }
    MHD_stop_daemon(s->daemon);
    free(s->workers);
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->job_ready);
    free(s);
}

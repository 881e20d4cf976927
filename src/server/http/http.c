/* The HTTP transport's exchanges (http.h is the transport as a whole;
 * http_internal.h says how its files divide it): libmicrohttpd's request
 * callbacks, from a request's headers to its completion; the body limits,
 * the in-flight budget and the JSON scan a body is held to as it arrives;
 * the worker pool that runs handlers; replies, and refusals written around
 * the library; and starting and stopping the transport as a whole. The
 * connections the exchanges run on are the front door's (http_door.c). */
#include "server/http/http_internal.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/array.h"
#include "util/json_budget.h"
#include "util/log.h"
#include "util/random.h"
#include "util/strutil.h"
#include "util/timefmt.h"

enum {
    CONNECTION_LIMIT_SLACK = 16, /* libmicrohttpd's own cap sits just above ours */
};

enum exchange_state { EX_READING, EX_QUEUED, EX_DONE };

/* One request on one connection, from its headers to its completion. */
struct exchange {
    struct http_server *srv;
    struct MHD_Connection *mhd;
    struct conn *conn;
    enum exchange_state state;
    char *method;
    char *path;
    struct query_arg *args;
    size_t nargs, args_cap;
    bool too_many_args;
    bool args_failed; /* memory ran out copying them */
    char *content_type;
    char *request_id;
    char *authorization; /* a credential: wiped when freed */
    char *host;
    struct http_route_info info;
    bool run_inline;
    int64_t declared; /* Content-Length; -1 when absent */
    int64_t limit;    /* the route's body limit */
    struct body body;
    int64_t charged; /* body bytes charged to the in-flight budget */
    bool scanning;
    struct json_budget_scan scan;
    const char *refusal; /* the reason, once the transport refused the request */
    int64_t arrived_ns;
    int64_t queued_ns;
    struct http_reply reply;
    struct exchange *next_job; /* worker queue link */
};

/* ---- replies and outcomes ---- */

static int error_json(char *out, size_t size, const char *code, const char *detail)
{
    int n = snprintf(out, size, "{\"error\":\"%s\",\"detail\":\"%s\"}", code, detail);
    return n < 0 || (size_t)n >= size ? -1 : n;
}

void http_set_reply_text(struct http_reply *r, int status, const char *code, const char *detail)
{
    r->status = status;
    free(r->body);
    char text[768];
    int n = error_json(text, sizeof text, code, detail);
    r->body = n < 0 ? NULL : strdup(text);
    r->body_len = r->body ? (size_t)n : 0;
    r->content_type = "application/json";
}

/* Writes a refusal straight to a socket nobody else writes to: one still
 * at the front door, or one libmicrohttpd is reading a body from and is
 * about to drop (it cannot queue an answer in the middle of a body). Best
 * effort: a socket that will not take a few hundred bytes at once is
 * closed anyway. */
void http_send_raw_reply(int fd, const struct http_reply *r, const char *request_id)
{
    char id_line[200] = "", msg[1536];
    if (request_id)
        snprintf(id_line, sizeof id_line, "X-Request-Id: %s\r\n", request_id);
    int n = snprintf(msg, sizeof msg,
                     "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\n%s%sConnection: "
                     "close\r\nContent-Length: %zu\r\n\r\n%.*s",
                     r->status, MHD_get_reason_phrase_for((unsigned)r->status),
                     r->retry_after ? "Retry-After: 1\r\n" : "", id_line, r->body_len,
                     (int)r->body_len, r->body ? r->body : "");
    if (n > 0 && (size_t)n < sizeof msg &&
        send(fd, msg, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
        log_debug("http: could not send a refusal: %s", strerror(errno));
}

/* ---- exchanges ---- */

static void release_body(struct exchange *ex)
{
    http_body_free(&ex->body);
    if (ex->charged)
        atomic_fetch_sub(&ex->srv->body_bytes, ex->charged);
    ex->charged = 0;
}

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
    release_body(ex);
    free(ex->reply.body);
    free(ex);
}

/* Refuses the request being read: the answer goes out at once (queued
 * before the body, written by refuse_mid_body in it), and the connection
 * closes after it. The body is dropped and its bytes given back. */
static void refuse(struct exchange *ex, int status, const char *code, const char *detail,
                   const char *reason)
{
    http_set_reply_text(&ex->reply, status, code, detail);
    ex->reply.retry_after = status == 503;
    ex->reply.close = true;
    ex->refusal = reason;
    release_body(ex);
}

static enum MHD_Result collect_arg(void *cls, enum MHD_ValueKind kind, const char *key,
                                   const char *value)
{
    (void)kind;
    struct exchange *ex = cls;
    if (ex->nargs >= (size_t)ex->srv->max_query_params) {
        ex->too_many_args = true; /* stop here: the rest is not copied */
        return MHD_NO;
    }
    if (ARRAY_RESERVE(ex->args, ex->args_cap, ex->nargs + 1, 8) != 0) {
        ex->args_failed = true;
        return MHD_NO;
    }
    char *k = strdup(key ? key : "");
    char *v = strdup(value ? value : "");
    if (!k || !v) {
        free(k);
        free(v);
        ex->args_failed = true;
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
        if (random_bytes_nonblocking(&r, sizeof r) != 0)
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

static int copy_header(struct MHD_Connection *conn, const char *name, char **out)
{
    const char *v = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, name);
    return v && !(*out = strdup(v)) ? -1 : 0;
}

static struct exchange *new_exchange(struct http_server *srv, struct MHD_Connection *conn,
                                     const char *method, const char *url)
{
    struct exchange *ex = calloc(1, sizeof *ex);
    if (!ex)
        return NULL;
    ex->srv = srv;
    ex->mhd = conn;
    ex->arrived_ns = time_mono_ns();
    ex->method = strdup(method);
    ex->path = strdup(url);
    if (!ex->method || !ex->path)
        goto fail;
    MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, collect_arg, ex);
    if (ex->args_failed || copy_header(conn, "Content-Type", &ex->content_type) != 0 ||
        copy_header(conn, "Authorization", &ex->authorization) != 0 ||
        copy_header(conn, "Host", &ex->host) != 0)
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
        .body_within_json_budget = ex->scanning && ex->scan.verdict == JSON_BUDGET_OK,
        .queue_wait_ns = queue_wait_ns,
    };
    srv->handlers.handle(srv->handlers.ctx, &req, &ex->reply);
    release_body(ex); /* not needed for sending the answer */
    ex->state = EX_DONE;
}

static void report_answer(struct http_server *srv, const struct exchange *ex)
{
    struct http_outcome o = {
        .method = ex->method,
        .route = ex->reply.route ? ex->reply.route : ex->info.route,
        .status = ex->reply.status,
        .refused = ex->refusal,
        .total_ns = time_mono_ns() - ex->arrived_ns,
    };
    if (srv->handlers.completed)
        srv->handlers.completed(srv->handlers.ctx, &o);
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
    if (r->close || atomic_load(&srv->draining))
        MHD_add_response_header(resp, "Connection", "close");
    enum MHD_Result rc = MHD_queue_response(ex->mhd, (unsigned)r->status, resp);
    MHD_destroy_response(resp);
    report_answer(srv, ex);
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

/* The declared Content-Length, -1 when there is none. */
static int64_t declared_length(struct MHD_Connection *conn)
{
    const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Content-Length");
    int64_t n;
    return cl && str_parse_int64(cl, &n) && n >= 0 ? n : -1;
}

/* What can be refused from the headers alone; true when it was. */
static bool refuse_from_headers(struct http_server *srv, struct exchange *ex)
{
    char detail[200];
    if (ex->conn && ex->conn->reserve && !ex->info.probe) {
        refuse(ex, 503, "unavailable",
               "the server is at its connection limit: only /livez, /healthz and /metrics are "
               "served on this connection; retry",
               R_CONNECTIONS);
    } else if (ex->too_many_args || (ex->conn && ex->conn->too_many_params)) {
        snprintf(detail, sizeof detail, "more than %d query parameters", srv->max_query_params);
        refuse(ex, 400, "bad_request", detail, R_QUERY_PARAMS);
    } else if (ex->declared > ex->limit) {
        snprintf(detail, sizeof detail,
                 "the request body of %lld bytes exceeds this route's limit of %lld bytes",
                 (long long)ex->declared, (long long)ex->limit);
        refuse(ex, 413, "payload_too_large", detail, R_BODY_TOO_LARGE);
    } else if (ex->declared > srv->max_inflight_body_bytes - atomic_load(&srv->body_bytes)) {
        refuse(ex, 503, "unavailable", "the server holds too many request bodies at once; retry",
               R_INFLIGHT);
    }
    return ex->refusal != NULL;
}

/* The first call for a request: its headers are in, its body is not. */
static enum MHD_Result begin_exchange(struct http_server *srv, struct MHD_Connection *conn,
                                      const char *url, const char *method, void **con_cls)
{
    struct exchange *ex = new_exchange(srv, conn, method, url);
    if (!ex)
        return MHD_NO;
    *con_cls = ex;
    ex->conn = http_conn_of(conn);
    ex->run_inline = srv->handlers.is_inline(srv->handlers.ctx, ex->method, ex->path, &ex->info);
    ex->limit = ex->info.large_body ? srv->max_body_bytes : srv->max_metadata_body_bytes;
    ex->declared = declared_length(conn);
    bool has_body =
        ex->declared > 0 || MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Transfer-Encoding");
    if (refuse_from_headers(srv, ex)) {
        if (has_body)
            http_conn_set_linger(srv, ex->conn); /* the body is on its way: let it land */
        http_conn_enter(srv, ex->conn, PH_HANDLING);
        ex->state = EX_DONE;
        return queue_reply(srv, ex);
    }
    http_conn_enter(srv, ex->conn, has_body ? PH_BODY : PH_HANDLING);
    if (has_body && ex->info.json_max_depth > 0) {
        int64_t values = ex->declared >= 0 ? json_budget_values_for((size_t)ex->declared,
                                                                    ex->info.json_max_values)
                                           : ex->info.json_max_values;
        json_budget_begin(&ex->scan, ex->info.json_max_depth, values);
        ex->scanning = true;
    }
    return MHD_YES;
}

static bool charge(struct http_server *srv, struct exchange *ex, size_t n)
{
    int64_t before = atomic_fetch_add(&srv->body_bytes, (int64_t)n);
    ex->charged += (int64_t)n;
    return before + (int64_t)n <= srv->max_inflight_body_bytes;
}

/* Too many values is a matter of size (413); nesting that deep is a body
 * no client means to send (400). */
static void refuse_budget(struct exchange *ex)
{
    char detail[400];
    json_budget_describe(&ex->scan, detail, sizeof detail);
    if (ex->scan.verdict == JSON_BUDGET_TOO_DEEP)
        refuse(ex, 400, "bad_request", detail, R_JSON_BUDGET);
    else
        refuse(ex, 413, "payload_too_large", detail, R_JSON_BUDGET);
}

/* Refuses a request in the middle of its body, at once: libmicrohttpd
 * cannot queue an answer there, so the answer is written to the socket
 * here and the connection dropped (MHD_NO), lingering so the client reads
 * it rather than a reset. A TLS stream cannot be written around the
 * library: there the rest of the body is read and thrown away, and the
 * answer goes out once it is in. */
static enum MHD_Result refuse_mid_body(struct http_server *srv, struct exchange *ex)
{
    const union MHD_ConnectionInfo *ci =
        srv->tls ? NULL : MHD_get_connection_info(ex->mhd, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (!ci)
        return MHD_YES;
    http_send_raw_reply(ci->connect_fd, &ex->reply, ex->request_id);
    http_conn_set_linger(srv, ex->conn);
    report_answer(srv, ex);
    return MHD_NO;
}

/* A piece of the body: limit, in-flight budget and JSON budget first, so a
 * body past any of them is refused as it comes instead of held. False
 * when memory runs out. */
static bool take_body(struct http_server *srv, struct exchange *ex, const char *data, size_t n)
{
    char detail[160];
    if (ex->refusal)
        return true; /* refused over TLS: thrown away until the answer can go */
    if ((int64_t)(ex->body.len + n) > ex->limit) {
        snprintf(detail, sizeof detail, "the request body exceeds this route's limit of %lld bytes",
                 (long long)ex->limit);
        refuse(ex, 413, "payload_too_large", detail, R_BODY_TOO_LARGE);
    } else if (!charge(srv, ex, n)) {
        refuse(ex, 503, "unavailable", "the server holds too many request bodies at once; retry",
               R_INFLIGHT);
    } else if (ex->scanning && json_budget_feed(&ex->scan, data, n) != JSON_BUDGET_OK) {
        refuse_budget(ex);
    } else {
        if (ex->body.cap == 0 && ex->declared > 0 &&
            http_body_reserve_declared(&ex->body, (size_t)ex->declared) != 0)
            return false;
        return http_body_append(&ex->body, data, n) == 0;
    }
    return true;
}

/* The last call for a request: its body (if any) is in. */
static enum MHD_Result body_complete(struct http_server *srv, struct exchange *ex)
{
    http_conn_enter(srv, ex->conn, PH_HANDLING);
    if (!ex->refusal && ex->scanning) {
        /* A chunked body's length is known only now. */
        if (json_budget_end(&ex->scan) == JSON_BUDGET_OK &&
            ex->scan.values > json_budget_values_for(ex->body.len, ex->info.json_max_values))
            ex->scan.verdict = JSON_BUDGET_TOO_MANY_VALUES;
        if (ex->scan.verdict != JSON_BUDGET_OK)
            refuse_budget(ex);
    }
    if (ex->refusal) {
        ex->state = EX_DONE;
        return queue_reply(srv, ex);
    }
    if (ex->run_inline) {
        run_handler(srv, ex, 0);
        return queue_reply(srv, ex);
    }
    MHD_suspend_connection(ex->mhd);
    enqueue(srv, ex);
    return MHD_YES;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **con_cls)
{
    (void)version;
    struct http_server *srv = cls;
    struct exchange *ex = *con_cls;
    if (!ex)
        return begin_exchange(srv, conn, url, method, con_cls);
    if (*upload_data_size) {
        bool refused_before = ex->refusal != NULL;
        if (!take_body(srv, ex, upload_data, *upload_data_size))
            return MHD_NO;
        *upload_data_size = 0;
        return ex->refusal && !refused_before ? refuse_mid_body(srv, ex) : MHD_YES;
    }
    switch (ex->state) {
    case EX_READING: return body_complete(srv, ex);
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
    (void)code;
    struct http_server *srv = cls;
    struct conn *c = http_conn_of(conn);
    if (c)
        http_conn_next_request(srv, c);
    struct exchange *ex = *con_cls;
    if (!ex)
        return;
    *con_cls = NULL;
    free_exchange(ex);
    atomic_fetch_sub(&srv->inflight, 1);
}

/* ---- workers ---- */

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
            http_set_reply_text(&ex->reply, 503, "unavailable", "the server is shutting down");
            ex->reply.retry_after = true;
            ex->state = EX_DONE;
        } else {
            run_handler(srv, ex, time_mono_ns() - ex->queued_ns);
        }
        struct MHD_Connection *conn = ex->mhd;
        pthread_mutex_lock(&srv->mu);
        srv->active--;
        pthread_mutex_unlock(&srv->mu);
        /* Last touch of ex: once resumed, the I/O thread may free it. */
        MHD_resume_connection(conn);
    }
}

static void stop_workers(struct http_server *srv)
{
    pthread_mutex_lock(&srv->mu);
    srv->closing = true;
    pthread_cond_broadcast(&srv->job_ready);
    pthread_mutex_unlock(&srv->mu);
    for (int i = 0; i < srv->nworkers; i++)
        pthread_join(srv->workers[i], NULL);
    srv->nworkers = 0;
}

static int start_workers(struct http_server *srv, int n, struct error *err)
{
    srv->workers = calloc((size_t)n, sizeof *srv->workers);
    if (!srv->workers) {
        error_nomem(err);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        if (pthread_create(&srv->workers[i], NULL, worker_main, srv) != 0) {
            error_fail(err, ERR_IO, "cannot start worker threads");
            return -1;
        }
        srv->nworkers = i + 1;
    }
    return 0;
}

/* ---- libmicrohttpd ---- */

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

static int start_daemon(struct http_server *srv, const struct http_options *opts, struct error *err)
{
    unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL |
                         MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG | MHD_USE_NO_LISTEN_SOCKET |
                         MHD_USE_ITC;
    /* TLS 1.2 and 1.3 only: nothing older is safe for bearer tokens. */
    static const char tls_priorities[] = "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2";
    if (srv->tls && MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
        error_fail(err, ERR_UNSUPPORTED, "this libmicrohttpd was built without TLS support");
        return -1;
    }
    struct MHD_OptionItem tls_opts[] = {
        {srv->tls ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END, 0, (void *)opts->tls_cert_pem},
        {MHD_OPTION_HTTPS_MEM_KEY, 0, (void *)opts->tls_key_pem},
        {MHD_OPTION_HTTPS_PRIORITIES, 0, (void *)tls_priorities},
        {MHD_OPTION_END, 0, NULL},
    };
    if (srv->tls)
        flags |= MHD_USE_TLS;
    /* Our deadlines come first; libmicrohttpd's idle timeout is left to
     * bound a client that stops reading its answer. */
    int64_t longest_ms =
        (srv->header_timeout_ns > srv->request_timeout_ns ? srv->header_timeout_ns
                                                          : srv->request_timeout_ns) /
        MS;
    unsigned idle_s = (unsigned)(longest_ms / 1000 + 2);
    srv->daemon = MHD_start_daemon(
        flags, 0, NULL, NULL, on_request, srv, MHD_OPTION_EXTERNAL_LOGGER, log_mhd, NULL,
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, srv, MHD_OPTION_NOTIFY_CONNECTION,
        http_on_connection, srv, MHD_OPTION_URI_LOG_CALLBACK, http_on_uri, srv,
        MHD_OPTION_THREAD_POOL_SIZE, 2u, MHD_OPTION_CONNECTION_TIMEOUT, idle_s,
        MHD_OPTION_CONNECTION_LIMIT, (unsigned)(srv->hard_cap + CONNECTION_LIMIT_SLACK),
        MHD_OPTION_UNESCAPE_CALLBACK, unescape, NULL, MHD_OPTION_ARRAY, tls_opts, MHD_OPTION_END);
    if (!srv->daemon) {
        error_fail(err, ERR_IO, "cannot start the HTTP engine%s",
                   srv->tls ? " (do the TLS certificate and key load and match?)" : "");
        return -1;
    }
    return 0;
}

static void copy_limits(struct http_server *srv, const struct http_options *opts)
{
    srv->max_body_bytes = opts->max_body_bytes;
    /* --max-body-bytes stays a ceiling on every body, as it was before
     * the metadata routes got their own (smaller) limit. */
    srv->max_metadata_body_bytes = opts->max_metadata_body_bytes < opts->max_body_bytes
                                       ? opts->max_metadata_body_bytes
                                       : opts->max_body_bytes;
    srv->max_inflight_body_bytes = opts->max_inflight_body_bytes;
    srv->max_query_params = opts->max_query_params;
    srv->header_timeout_ns = (int64_t)opts->header_timeout_ms * MS;
    srv->request_timeout_ns = (int64_t)opts->request_timeout_ms * MS;
    srv->max_client_connections = opts->max_client_connections;
    srv->tls = opts->tls_cert_pem && opts->tls_key_pem;
}

static void free_server(struct http_server *srv)
{
    http_door_free(srv);
    free(srv->workers);
    pthread_mutex_destroy(&srv->mu);
    pthread_cond_destroy(&srv->job_ready);
    pthread_mutex_destroy(&srv->conns_mu);
    free(srv);
}

struct http_server *http_server_start(const struct http_options *opts,
                                      const struct http_handlers *handlers, struct error *err)
{
    struct http_server *srv = calloc(1, sizeof *srv);
    if (!srv) {
        error_nomem(err);
        if (opts->prebound && opts->listen_fd >= 0)
            close(opts->listen_fd); /* taken in every case, as http.h says */
        return NULL;
    }
    srv->handlers = *handlers;
    srv->door_epfd = srv->wake_fd = -1;
    srv->listen_fd = opts->prebound ? opts->listen_fd : -1; /* ours now: closed on failure too */
    pthread_mutex_init(&srv->mu, NULL);
    pthread_cond_init(&srv->job_ready, NULL);
    pthread_mutex_init(&srv->conns_mu, NULL);
    copy_limits(srv, opts);
    http_derive_caps(srv, opts, http_raise_open_files());
    srv->by_fd = calloc((size_t)srv->fd_table_size, sizeof *srv->by_fd);
    if (!srv->by_fd) {
        error_nomem(err);
        goto fail;
    }
    if (start_workers(srv, opts->workers, err) != 0 || start_daemon(srv, opts, err) != 0 ||
        http_open_listener(srv, opts, err) != 0 || http_start_door(srv, err) != 0)
        goto fail;
    return srv;

fail:
    http_stop_door(srv);
    stop_workers(srv);
    if (srv->daemon)
        MHD_stop_daemon(srv->daemon);
    free_server(srv);
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
    http_stop_door(s); /* no new connections */
    int64_t deadline = time_mono_ns() + (int64_t)drain_timeout_ms * MS;
    while (atomic_load(&s->inflight) > 0 && time_mono_ns() < deadline) {
        struct timespec ts = {0, 10 * 1000000};
        nanosleep(&ts, NULL);
    }
    int left = atomic_load(&s->inflight);
    if (left > 0)
        log_warn("shutdown: %d request(s) still in flight after %d ms", left, drain_timeout_ms);
    /* Workers answer anything still queued with 503 and exit once the
     * requests they are running are done; only then may connections close. */
    stop_workers(s);
    /* Let the I/O threads send the replies just resumed: libmicrohttpd
     * aborts if it is stopped while a connection is still suspended, which
     * a loaded machine can take well over a second to undo. */
    deadline = time_mono_ns() + (int64_t)10 * 1000000000;
    while (atomic_load(&s->inflight) > 0 && time_mono_ns() < deadline) {
        struct timespec ts = {0, 5 * 1000000};
        nanosleep(&ts, NULL);
    }
    MHD_stop_daemon(s->daemon);
    free_server(s);
}

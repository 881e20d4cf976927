/* Turns a transport request into a handler call and its result into a
 * transport reply: routing, admission (shedding), the request arena, the
 * database connection's release, and response serialisation. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/auth/audit_request.h"
#include "server/auth/auth.h"
#include "server/db/db.h"
#include "server/http/api.h"
#include "server/http/http.h"
#include "server/http/router.h"
#include "server/metrics.h"
#include "server/server.h"
#include "util/jsonnum.h"
#include "util/jsonx.h"
#include "util/log.h"
#include "util/strutil.h"

/* The routes served on connections accepted past --max-connections, so a
 * flood of connections never blinds the probes. */
static bool is_probe(const struct route *r)
{
    static const char *const probes[] = {"/livez", "/healthz", "/metrics"};
    for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++)
        if (strcmp(r->pattern, probes[i]) == 0)
            return true;
    return false;
}

bool server_is_inline(void *ctx, const char *method, const char *path, struct http_route_info *info)
{
    const struct server *srv = ctx;
    char scratch[2048];
    char allow[48];
    const struct route *r;
    const char *params[API_MAX_PATH_PARAMS];
    /* Every body is JSON to the handlers that read one; an unmatched path
     * gets the small body limit and is answered 404 or 405. */
    *info = (struct http_route_info){.json_max_depth = srv->cfg.json_max_depth,
                                     .json_max_values = srv->cfg.json_max_values};
    if (router_match(method, path, scratch, sizeof scratch, &r, params, allow, sizeof allow) !=
        ROUTE_FOUND)
        return false;
    info->route = r->pattern;
    info->large_body = (r->flags & ROUTE_LARGE_BODY) != 0;
    info->probe = is_probe(r);
    return (r->flags & ROUTE_INLINE) && !auth_may_query(srv->auth, r);
}

static void reply_from_response(struct srv_res *res, struct http_reply *reply)
{
    reply->status = res->status;
    reply->retry_after = res->retry_after;
    reply->no_store = res->no_store;
    reply->www_authenticate = res->www_authenticate;
    if (res->json) {
        /* jsonnum_dumps: byte-identical to json_dumps, and it also prints the
         * exact raw numbers (uint64 and decimal bounds) that json_dumps refuses. */
        char *body = jsonnum_dumps(res->json, JSON_COMPACT);
        /* A refusal may quote a lone surrogate the request held (as its
         * stand-in): it shows as the escape it came as. */
        if (res->status >= 400)
            body = jsonx_escape_stand_ins(body);
        if (!body) {
            reply->status = 500;
            body = strdup("{\"error\":\"internal_error\",\"detail\":\"internal server error\"}");
        }
        reply->body = body;
        reply->body_len = body ? strlen(body) : 0;
        reply->content_type = "application/json";
    } else {
        reply->body = res->text;
        res->text = NULL;
        reply->body_len = reply->body ? strlen(reply->body) : 0;
        reply->content_type = res->content_type ? res->content_type : "text/plain; charset=utf-8";
    }
}

/* The name of a pattern's i-th {parameter}, for messages. */
static void param_name(const char *pattern, int i, char *out, size_t size)
{
    const char *p = pattern;
    for (int k = 0; (p = strchr(p, '{')) != NULL; k++, p++) {
        if (k == i) {
            snprintf(out, size, "%.*s", (int)strcspn(p + 1, "}"), p + 1);
            return;
        }
    }
    snprintf(out, size, "?");
}

/* Path parameters reach SQL as text: they must be valid UTF-8 without
 * control characters (PostgreSQL would refuse them with an error that is
 * the client's, not ours). */
static int check_path_params(const struct srv_req *req, struct api_error *err)
{
    for (int i = 0; i < API_MAX_PATH_PARAMS && req->params[i]; i++) {
        const char *p = req->params[i];
        size_t n = strlen(p);
        char copy[1024], name[32];
        param_name(req->route->pattern, i, name, sizeof name);
        if (n >= sizeof copy)
            return api_bad_request(err, "path parameter {%s} is too long (%zu bytes)", name, n);
        memcpy(copy, p, n + 1);
        str_utf8_sanitize(copy);
        if (strcmp(copy, p) != 0 || str_has_control(p))
            return api_bad_request(err, "path parameter {%s} is not valid UTF-8 text", name);
    }
    return 0;
}

/* Query arguments reach SQL as text too (names, timestamps, filter
 * values): a value that is not UTF-8 is the client's error, refused before
 * any handler reads it. */
static int check_query_args(const struct srv_req *req, struct api_error *err)
{
    for (size_t i = 0; i < req->nargs; i++) {
        const char *v = req->args[i].value;
        if (!str_utf8_valid(v, strlen(v), NULL))
            return api_bad_request(err, "query parameter '%.64s' is not valid UTF-8 text",
                                   req->args[i].key);
    }
    return 0;
}

void server_handle(void *ctx, const struct http_request *hreq, struct http_reply *reply)
{
    struct server *srv = ctx;
    struct srv_req req;
    memset(&req, 0, sizeof req);
    struct srv_res res;
    memset(&res, 0, sizeof res);
    struct api_error err;
    memset(&err, 0, sizeof err);

    char scratch[2048];
    const struct route *route = NULL;
    enum route_match_result m = router_match(hreq->method, hreq->path, scratch, sizeof scratch,
                                             &route, req.params, reply->allow, sizeof reply->allow);
    int rc;
    bool refused = false;
    if (m == ROUTE_NO_PATH) {
        rc = api_not_found(&err, "no route for %.200s", hreq->path);
    } else if (m == ROUTE_BAD_METHOD) {
        rc = api_fail(&err, 405, "method_not_allowed", "%.200s does not accept %.16s", hreq->path,
                      hreq->method);
    } else {
        reply->route = route->pattern;
        req.srv = srv;
        req.route = route;
        req.method = hreq->method;
        req.path = hreq->path;
        req.args = hreq->args;
        req.nargs = hreq->nargs;
        req.content_type = hreq->content_type;
        req.request_id = hreq->request_id;
        req.body = hreq->body;
        req.body_len = hreq->body_len;
        req.body_within_json_budget = hreq->body_within_json_budget;
        req.queue_wait_ns = hreq->queue_wait_ns;
        arena_init(&req.arena, REQUEST_ARENA_LIMIT);
        if (!(route->flags & ROUTE_INLINE))
            metrics_observe(srv->metrics, "hoglake_request_queue_wait_seconds", "",
                            (double)hreq->queue_wait_ns / 1e9);
        int budget_ms = srv->cfg.commit_lock_timeout_ms;
        if (!(route->flags & ROUTE_NO_SHED) && budget_ms > 0 &&
            hreq->queue_wait_ns > (int64_t)budget_ms * 1000000) {
            /* Waiting this long already spent the caller's lock budget;
             * answer before taking a database connection. */
            metrics_counter_add(srv->metrics, "hoglake_requests_shed_total", "", 1);
            rc = api_fail(&err, 503, "commit_queue_timeout",
                          "the request waited %lld ms for a worker, over the %d ms budget; retry "
                          "the identical request",
                          (long long)(hreq->queue_wait_ns / 1000000), budget_ms);
            err.retry_after = true;
        } else if ((rc = auth_gate(&req, hreq->authorization, hreq->host, &err)) != 0) {
            refused = rc == -1; /* audited by the gate, as access_denied */
            rc = -1;
        } else if (check_path_params(&req, &err) != 0) {
            rc = -1;
        } else if ((route->args && req_only_args(&req, route->args, &err) != 0) ||
                   check_query_args(&req, &err) != 0) {
            rc = -1;
        } else {
            rc = route->handler(&req, &res, &err);
        }
        if (req.db) {
            db_rollback(req.db->pg);
            db_pool_release(req.db);
            req.db = NULL;
        }
        if (!refused)
            audit_request(srv, &req, rc, &res, &err);
        json_decref(req.audit.detail);
    }
    if (rc != 0) {
        json_decref(res.json);
        free(res.text);
        memset(&res, 0, sizeof res);
        api_error_to_response(&err, &res);
    }
    reply_from_response(&res, reply);
    json_decref(res.json);
    free(res.text);
    arena_free(&req.arena);
}

void server_count_refusal(struct server *srv, const char *reason)
{
    char labels[96];
    snprintf(labels, sizeof labels, "reason=\"%s\"", reason);
    metrics_counter_add(srv->metrics, "hoglake_requests_refused_total", labels, 1);
}

void server_request_completed(void *ctx, const struct http_outcome *o)
{
    struct server *srv = ctx;
    if (o->refused)
        server_count_refusal(srv, o->refused);
    if (!o->method)
        return; /* a connection refused before it sent a request */
    const char *route = o->route;
    char labels[400], esc[256];
    metrics_label_escape(route ? route : "unmatched", esc, sizeof esc);
    snprintf(labels, sizeof labels, "route=\"%s\",method=\"%s\",status=\"%d\"", esc,
             route ? o->method : "other", o->status);
    metrics_counter_add(srv->metrics, "hoglake_http_requests_total", labels, 1);
    snprintf(labels, sizeof labels, "route=\"%s\",method=\"%s\"", esc, route ? o->method : "other");
    metrics_observe(srv->metrics, "hoglake_http_request_duration_seconds", labels,
                    (double)o->total_ns / 1e9);
}

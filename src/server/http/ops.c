/* Probes, metrics, instance info, the OpenAPI document and the
 * specified-but-unimplemented stubs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/db/db.h"
#include "server/http/handlers.h"
#include "server/http/http.h"
#include "server/metrics.h"
#include "server/server.h"
#include "util/buf.h"
#include "util/log.h"
#include "util/timefmt.h"

/* Process liveness only: it never touches the database, so an orchestrator
 * does not restart the server for a database outage (the embedded one is
 * restarted by its supervisor; /healthz reports it). */
int h_livez(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    (void)req;
    if (api_text(res, 200, "text/plain; charset=utf-8", "ok") != 0)
        return api_nomem(err);
    return 0;
}

/* Probes the database on the probe connection within timeout_ms
 * (db_probe), opening the connection first when there is none. */
static bool probe_once(struct server *srv, int timeout_ms)
{
    int64_t deadline = time_mono_ns() + (int64_t)timeout_ms * 1000000;
    /* A connection the database hung up on (it restarted) is replaced
     * before probing, so a recovered database reads healthy at once. */
    if (srv->probe_conn && !db_conn_alive(srv->probe_conn)) {
        PQfinish(srv->probe_conn);
        srv->probe_conn = NULL;
    }
    if (!srv->probe_conn) {
        struct error err;
        int connect_s = (timeout_ms + 999) / 1000;
        srv->probe_conn = db_connect(srv->conninfo, connect_s < 2 ? 2 : connect_s, &err);
        if (!srv->probe_conn) {
            log_warn("health probe: %s", err.msg);
            return false;
        }
    }
    if (db_probe(srv->probe_conn, deadline))
        return true;
    /* A hung or failed probe connection is discarded, never reused. */
    PQfinish(srv->probe_conn);
    srv->probe_conn = NULL;
    return false;
}

int h_healthz(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    struct server *srv = req->srv;
    pthread_mutex_lock(&srv->probe_mu);
    bool ok = probe_once(srv, srv->cfg.health_probe_timeout_ms);
    pthread_mutex_unlock(&srv->probe_mu);
    if (!ok) {
        if (api_text(res, 503, "text/plain; charset=utf-8", "db unreachable") != 0)
            return api_nomem(err);
        return 0;
    }
    if (api_text(res, 200, "text/plain; charset=utf-8", "ok") != 0)
        return api_nomem(err);
    return 0;
}

int h_metrics(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    struct server *srv = req->srv;
    struct db_pool_stats ps;
    db_pool_get_stats(srv->pool, &ps);
    metrics_gauge_set(srv->metrics, "hoglake_db_pool_active", "", ps.active);
    metrics_gauge_set(srv->metrics, "hoglake_db_pool_idle", "", ps.idle);
    metrics_gauge_set(srv->metrics, "hoglake_db_pool_pending", "", ps.pending);
    metrics_gauge_set(srv->metrics, "hoglake_db_pool_max", "", ps.max);
    if (srv->http) {
        int active, queued, max;
        http_server_pool_stats(srv->http, &active, &queued, &max);
        metrics_gauge_set(srv->metrics, "hoglake_request_pool_active", "", active);
        metrics_gauge_set(srv->metrics, "hoglake_request_pool_queued", "", queued);
        metrics_gauge_set(srv->metrics, "hoglake_request_pool_max", "", max);
    }
    struct buf out = BUF_INIT;
    if (metrics_render(srv->metrics, &out) != 0) {
        buf_free(&out);
        return api_nomem(err);
    }
    res->status = 200;
    res->content_type = "text/plain; version=0.0.4; charset=utf-8";
    res->text = buf_take(&out);
    return 0;
}

int h_openapi(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    if (api_text(res, 200, "application/yaml", req->srv->openapi_yaml) != 0)
        return api_nomem(err);
    return 0;
}

int h_info(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    json_t *o = json_pack("{s:s}", "version", HOGLAKE_VERSION);
    if (o && req->srv->cfg.instance_name[0])
        json_object_set_new(o, "name", json_string(req->srv->cfg.instance_name));
    /* Who the server takes the caller for: what a client checks first
     * when a request is refused. */
    const struct token_grant *g = &req->caller;
    json_t *caller = json_pack("{s:s?,s:s,s:s,s:s?}", "token_id",
                               g->token_id[0] ? g->token_id : NULL, "name", g->name, "role",
                               role_name(g->role), "catalog", g->catalog[0] ? g->catalog : NULL);
    if (caller && !json_object_get(caller, "token_id"))
        json_object_set_new(caller, "token_id", json_null());
    if (caller && !json_object_get(caller, "catalog"))
        json_object_set_new(caller, "catalog", json_null());
    if (o)
        json_object_set_new(o, "caller", caller);
    else
        json_decref(caller);
    if (api_json(res, 200, o) != 0)
        return api_nomem(err);
    return 0;
}

int h_publications_stub(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    (void)req;
    (void)res;
    return api_fail(err, 501, "not_implemented",
                    "CDC publications are specified but not yet implemented");
}

int h_export_stub(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    (void)req;
    (void)res;
    return api_fail(err, 501, "not_implemented",
                    "catalog export is specified but not yet implemented");
}

#include "server/auth/auth.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "server/auth/audit.h"
#include "server/auth/auth_cache.h"
#include "server/catalog/catalog.h"
#include "server/db/db.h"
#include "server/http/router.h"
#include "server/metrics.h"
#include "server/server.h"
#include "server/store/tokens.h"
#include "util/strutil.h"
#include "util/timefmt.h"

struct auth {
    bool enabled;
    bool metrics_public;
    struct auth_cache *cache;
};

/* RFC 6750 §3: a request without credentials gets the bare challenge; a
 * credential that failed says so. */
#define CHALLENGE "Bearer realm=\"hoglake\""
#define CHALLENGE_INVALID "Bearer realm=\"hoglake\", error=\"invalid_token\""

struct auth *auth_new(bool enabled, bool metrics_public)
{
    struct auth *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    a->enabled = enabled;
    a->metrics_public = metrics_public;
    if (enabled && !(a->cache = auth_cache_new((int64_t)AUTH_CACHE_TTL_MS * 1000000))) {
        free(a);
        return NULL;
    }
    return a;
}

void auth_free(struct auth *a)
{
    if (!a)
        return;
    auth_cache_free(a->cache);
    free(a);
}

void auth_forget(struct auth *a, const char *token_id)
{
    if (a && a->cache)
        auth_cache_forget(a->cache, token_id);
}

bool auth_host_is_loopback(const char *host)
{
    static const char *const names[] = {"localhost", "127.0.0.1", "[::1]"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        size_t n = strlen(names[i]);
        if (strncasecmp(host, names[i], n) != 0)
            continue;
        const char *rest = host + n;
        if (*rest == '\0')
            return true;
        if (*rest != ':' || rest[1] == '\0')
            continue;
        int64_t port;
        if (str_parse_int64(rest + 1, &port) && port > 0 && port <= 65535)
            return true;
    }
    return false;
}

bool auth_listen_is_loopback(const char *address)
{
    struct in_addr v4;
    struct in6_addr v6;
    if (inet_pton(AF_INET, address, &v4) == 1)
        return (ntohl(v4.s_addr) >> 24) == 127;
    if (inet_pton(AF_INET6, address, &v6) == 1)
        return memcmp(&v6, &in6addr_loopback, sizeof v6) == 0;
    return false;
}

/* The role a route needs (ROLE_NONE for public and any-token routes). */
static enum auth_role required_role(enum route_access access)
{
    switch (access) {
    case ACCESS_READER: return ROLE_READER;
    case ACCESS_WRITER: return ROLE_WRITER;
    case ACCESS_OWNER: return ROLE_OWNER;
    case ACCESS_ADMIN: return ROLE_ADMIN;
    case ACCESS_UNDECLARED:
    case ACCESS_PUBLIC:
    case ACCESS_ANY:
    case ACCESS_METRICS: break;
    }
    return ROLE_NONE;
}

static void set_anonymous(struct srv_req *req, enum auth_role role)
{
    memset(&req->caller, 0, sizeof req->caller);
    str_copy(req->caller.name, sizeof req->caller.name, "anonymous");
    req->caller.role = role;
}

/* Counts and audits a refusal; `grant` names the token when one was
 * identified (never its secret). */
static void record_refusal(struct srv_req *req, const char *reason, const struct api_error *err,
                           const struct token_grant *grant)
{
    struct server *srv = req->srv;
    char labels[64];
    snprintf(labels, sizeof labels, "reason=\"%s\"", reason);
    metrics_counter_add(srv->metrics, "hoglake_auth_refusals_total", labels, 1);
    json_t *required = err->extra ? json_object_get(err->extra, "required_role") : NULL;
    json_t *detail = json_pack("{s:s,s:s,s:s}", "method", req->route->method, "route",
                               req->route->pattern, "reason", reason);
    if (detail && required)
        json_object_set(detail, "required_role", required);
    struct audit_actor actor = {grant && grant->token_id[0] ? grant->token_id : NULL,
                                grant ? grant->name : "anonymous"};
    const char *outcome = err->status == 401   ? "unauthenticated"
                          : err->status == 404 ? "not_found"
                                               : "forbidden";
    struct audit_event ev = {
        .action = "access_denied",
        .actor = &actor,
        .outcome = outcome,
        .catalog = route_in_catalog(req->route) ? req->params[0] : NULL,
        .detail = detail,
        .request_id = req->request_id,
    };
    audit_emit(srv->audit, &ev);
    json_decref(detail);
}

static int unauthenticated(struct srv_req *req, struct api_error *err, const char *reason,
                           const struct token_grant *grant, const char *detail)
{
    api_fail(err, 401, "unauthenticated", "%s", detail);
    err->www_authenticate = strcmp(reason, "missing") == 0 ? CHALLENGE : CHALLENGE_INVALID;
    record_refusal(req, reason, err, grant);
    return -1;
}

static int forbidden(struct srv_req *req, struct api_error *err, const char *reason,
                     enum auth_role needed, const char *detail)
{
    api_fail(err, 403, "forbidden", "%s", detail);
    if (needed != ROLE_NONE)
        api_error_set_extra(err, "required_role", json_string(role_name(needed)));
    record_refusal(req, reason, err, &req->caller);
    return -1;
}

/* The grant of the presented secret: from the cache, else the store.
 * 1 found, 0 no such token, -1 the store failed (err filled). */
static int find_grant(struct srv_req *req, const char *secret, size_t len, struct token_grant *out,
                      struct api_error *err)
{
    struct auth_cache *cache = req->srv->auth->cache;
    uint8_t digest[SHA256_BYTES];
    if (token_secret_hash(secret, len, digest) != 0)
        return api_fail(err, 500, "internal_error", "internal server error");
    int64_t now = time_mono_ns();
    switch (auth_cache_get(cache, digest, now, out)) {
    case AUTH_CACHE_GRANT: return 1;
    case AUTH_CACHE_UNKNOWN: return 0;
    case AUTH_CACHE_MISS: break;
    }
    struct db_conn *db = req_db(req, err);
    if (!db)
        return -1;
    struct error dberr;
    int found = store_token_lookup(db, digest, out, &dberr);
    if (found < 0) {
        api_from_error(err, &dberr, "token lookup");
        return -1;
    }
    auth_cache_put(cache, digest, found ? out : NULL, now);
    return found;
}

/* Establishes req->caller from the Authorization header, or refuses. */
static int authenticate(struct srv_req *req, const char *authorization, struct api_error *err)
{
    if (!authorization)
        return unauthenticated(req, err, "missing", NULL,
                               "this request needs a token: send Authorization: Bearer <secret>");
    size_t len;
    const char *secret = token_bearer(authorization, &len);
    if (!secret || !token_secret_wellformed(secret, len))
        return unauthenticated(req, err, "malformed", NULL,
                               "the Authorization header does not hold a hoglake bearer token "
                               "(Bearer hlk_...)");
    struct token_grant grant;
    int found = find_grant(req, secret, len, &grant, err);
    if (found < 0)
        return -2;
    if (found == 0)
        return unauthenticated(req, err, "unknown", NULL, "the token is not valid");
    if (grant.revoked)
        return unauthenticated(req, err, "revoked", &grant, "the token was revoked");
    if (grant.expires_us != 0 && time_now_micros() >= grant.expires_us) {
        char when[48], detail[96];
        time_format_iso8601(grant.expires_us, when, sizeof when);
        snprintf(detail, sizeof detail, "the token expired at %s", when);
        return unauthenticated(req, err, "expired", &grant, detail);
    }
    req->caller = grant;
    return 0;
}

/* Whether the authenticated caller may use the route. */
static int authorize(struct srv_req *req, struct api_error *err)
{
    const struct route *route = req->route;
    const struct token_grant *g = &req->caller;
    if (g->catalog_id != 0 && route_in_catalog(route) && strcmp(g->catalog, req->params[0]) != 0) {
        catalog_not_found(err, req->params[0]);
        record_refusal(req, "catalog_scope", err, g);
        return -1;
    }
    if (route->access == ACCESS_METRICS && g->catalog_id != 0)
        return forbidden(req, err, "forbidden", ROLE_NONE,
                         "the metrics describe every catalog: they need a token that is not "
                         "scoped to one catalog");
    enum auth_role needed = required_role(route->access);
    if (g->role < needed) {
        char detail[200];
        snprintf(detail, sizeof detail, "this request needs the %s role; the token '%s' has %s",
                 role_name(needed), g->name, role_name(g->role));
        return forbidden(req, err, "forbidden", needed, detail);
    }
    return 0;
}

bool auth_may_query(const struct auth *a, const struct route *route)
{
    return a->enabled && route->access != ACCESS_PUBLIC &&
           !(route->access == ACCESS_METRICS && a->metrics_public);
}

int auth_gate(struct srv_req *req, const char *authorization, const char *host,
              struct api_error *err)
{
    const struct auth *a = req->srv->auth;
    if (!a->enabled) {
        set_anonymous(req, ROLE_ADMIN);
        if (host && !auth_host_is_loopback(host)) {
            char detail[300];
            snprintf(detail, sizeof detail,
                     "this server runs with --auth off and answers only requests addressed to a "
                     "loopback name (localhost, 127.0.0.1, [::1]), not '%.150s'",
                     host);
            return forbidden(req, err, "host", ROLE_NONE, detail);
        }
        return 0;
    }
    enum route_access access = req->route->access;
    if (access == ACCESS_PUBLIC || (access == ACCESS_METRICS && a->metrics_public)) {
        set_anonymous(req, ROLE_NONE);
        return 0;
    }
    if (access == ACCESS_UNDECLARED) { /* router_check keeps this from happening */
        api_fail(err, 500, "internal_error", "internal server error");
        return -2;
    }
    int rc = authenticate(req, authorization, err);
    return rc != 0 ? rc : authorize(req, err);
}

#include "server/http/api.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lake/ident.h"
#include "server/db/db.h"
#include "server/http/router.h"
#include "server/server.h"
#include "util/json_budget.h"
#include "util/jsonx.h"
#include "util/log.h"
#include "util/strutil.h"

static int vfail(struct api_error *err, int status, const char *code, const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));

static int vfail(struct api_error *err, int status, const char *code, const char *fmt, va_list ap)
{
    err->status = status;
    err->code = code;
    vsnprintf(err->detail, sizeof err->detail, fmt, ap);
    return -1;
}

int api_fail(struct api_error *err, int status, const char *code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(err, status, code, fmt, ap);
    va_end(ap);
    return -1;
}

int api_bad_request(struct api_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(err, 400, "bad_request", fmt, ap);
    va_end(ap);
    return -1;
}

int api_validation(struct api_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(err, 422, "validation", fmt, ap);
    va_end(ap);
    return -1;
}

int api_not_found(struct api_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(err, 404, "not_found", fmt, ap);
    va_end(ap);
    return -1;
}

int api_conflict(struct api_error *err, const char *code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(err, 409, code, fmt, ap);
    va_end(ap);
    return -1;
}

int api_nomem(struct api_error *err)
{
    return api_fail(err, 500, "internal_error", "internal server error");
}

int api_from_error(struct api_error *err, const struct error *e, const char *context)
{
    if (db_error_is(e, SQLSTATE_LOCK_NOT_AVAILABLE)) {
        api_fail(err, 503, "commit_queue_timeout",
                 "timed out waiting for the catalog lock; retry the identical request");
        err->retry_after = true;
        return -1;
    }
    if (db_error_is(e, SQLSTATE_QUERY_CANCELED) || db_error_is(e, SQLSTATE_DEADLOCK_DETECTED) ||
        db_error_is(e, SQLSTATE_SERIALIZATION_FAILURE)) {
        api_fail(err, 503, "unavailable", "the database cancelled the statement (%s); retry",
                 e->reason);
        err->retry_after = true;
        return -1;
    }
    if (db_error_is(e, SQLSTATE_UNIQUE_VIOLATION))
        return api_conflict(err, "already_exists", "%s already exists", context);
    switch (e->code) {
    case ERR_MALFORMED: return api_bad_request(err, "%s", e->msg);
    case ERR_INVALID:
    case ERR_UNSUPPORTED: return api_validation(err, "%s", e->msg);
    case ERR_CONFLICT: return api_conflict(err, e->reason ? e->reason : "conflict", "%s", e->msg);
    case ERR_NOT_FOUND: return api_not_found(err, "%s", e->msg);
    case ERR_EXPIRED: return api_fail(err, 410, "expired", "%s", e->msg);
    case ERR_NOMEM: return api_nomem(err);
    case ERR_UNAVAILABLE:
        log_warn("database unavailable during %s: %s", context, e->msg);
        api_fail(err, 503, "unavailable", "the catalog database is unavailable; retry");
        err->retry_after = true;
        return -1;
    default: break;
    }
    log_error("%s failed: %s", context, e->msg);
    return api_fail(err, 500, "internal_error", "internal server error");
}

void api_error_set_extra(struct api_error *err, const char *key, json_t *value)
{
    if (!value)
        return;
    if (!err->extra)
        err->extra = json_object();
    if (!err->extra || json_object_set_new(err->extra, key, value) != 0)
        json_decref(value);
}

void api_error_to_response(struct api_error *err, struct srv_res *res)
{
    if (!err->code) {
        /* A handler returned -1 without saying why: a bug, not client input. */
        log_error("handler failed without an error code");
        api_fail(err, 500, "internal_error", "internal server error");
    }
    /* Details quote client input; make sure they are valid UTF-8. */
    str_utf8_sanitize(err->detail);
    json_t *body = json_object();
    if (body) {
        if (err->extra)
            json_object_update(body, err->extra);
        json_object_set_new(body, "error", json_string(err->code));
        json_object_set_new(body, "detail", json_string(err->detail));
    }
    json_decref(err->extra);
    err->extra = NULL;
    res->status = err->status;
    res->json = body;
    res->retry_after = err->retry_after;
    res->www_authenticate = err->www_authenticate;
    if (!body) {
        res->text = strdup("{\"error\":\"internal_error\",\"detail\":\"internal server error\"}");
        res->content_type = "application/json";
    }
}

int api_json(struct srv_res *res, int status, json_t *body)
{
    res->status = status;
    res->json = body;
    return body ? 0 : -1;
}

int api_text(struct srv_res *res, int status, const char *content_type, const char *text)
{
    res->status = status;
    res->content_type = content_type;
    res->text = strdup(text);
    return res->text ? 0 : -1;
}

const char *req_arg(const struct srv_req *req, const char *key)
{
    const char *v = NULL;
    for (size_t i = 0; i < req->nargs; i++)
        if (strcmp(req->args[i].key, key) == 0)
            v = req->args[i].value;
    return v;
}

int req_only_args(const struct srv_req *req, const char *const *allowed, struct api_error *err)
{
    for (size_t i = 0; i < req->nargs; i++) {
        bool ok = false;
        for (const char *const *a = allowed; *a; a++)
            if (strcmp(req->args[i].key, *a) == 0)
                ok = true;
        if (!ok)
            return api_bad_request(err, "unknown query parameter '%.64s'", req->args[i].key);
    }
    return 0;
}

int req_arg_i64(const struct srv_req *req, const char *key, bool *present, int64_t *out,
                struct api_error *err)
{
    const char *v = req_arg(req, key);
    *present = v != NULL;
    if (!v)
        return 0;
    if (!str_parse_int64(v, out))
        return api_bad_request(err, "query parameter '%s' must be an integer, got '%.40s'", key, v);
    return 0;
}

int req_arg_word(const struct srv_req *req, const char *key, const char *const *words, size_t n,
                 bool *present, size_t *index, struct api_error *err)
{
    const char *v = req_arg(req, key);
    *present = v != NULL;
    *index = 0;
    if (!v)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (strcmp(words[i], v) == 0) {
            *index = i;
            return 0;
        }
    char list[512] = "";
    size_t len = 0;
    for (size_t i = 0; i < n && len < sizeof list; i++)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%s",
                                i == 0       ? ""
                                : i + 1 == n ? (n == 2 ? " or " : ", or ")
                                             : ", ",
                                words[i]);
    return api_validation(err, "query parameter '%s' must be %s%s, got '%.64s'", key,
                          n > 2 ? "one of " : "", list, v);
}

int req_arg_range(const struct srv_req *req, const char *key, int64_t dflt, int64_t min,
                  int64_t max, int64_t *out, struct api_error *err)
{
    bool present;
    if (req_arg_i64(req, key, &present, out, err) != 0)
        return -1;
    if (!present)
        *out = dflt;
    if (*out < min || *out > max)
        return api_validation(err, "%s must be between %lld and %lld, got %lld", key,
                              (long long)min, (long long)max, (long long)*out);
    return 0;
}

int req_page_limit(const struct srv_req *req, int64_t dflt, int64_t max, int64_t *limit,
                   struct api_error *err)
{
    bool present;
    if (req_arg_i64(req, "limit", &present, limit, err) != 0)
        return -1;
    if (!present)
        *limit = dflt;
    if (*limit < 1)
        return api_validation(err, "limit must be >= 1, got %lld", (long long)*limit);
    if (*limit > max)
        *limit = max;
    return 0;
}

int req_arg_bool(const struct srv_req *req, const char *key, bool *present, bool *out,
                 struct api_error *err)
{
    const char *v = req_arg(req, key);
    *present = v != NULL;
    if (!v)
        return 0;
    if (!str_parse_bool(v, out))
        return api_bad_request(err, "query parameter '%s' must be true or false, got '%.40s'", key,
                               v);
    return 0;
}

static bool is_json_content_type(const char *ct)
{
    static const char json[] = "application/json";
    if (strncasecmp(ct, json, sizeof json - 1) != 0)
        return false;
    char next = ct[sizeof json - 1];
    return next == '\0' || next == ';' || next == ' ';
}

/* The JSON budget (util/json_budget.h), checked before jansson allocates
 * anything: a body that would cost far more memory than its size is
 * refused with 413, one nested too deep with 400 (as the transport does; it
 * scans bodies as they arrive, and this is the check every parse goes
 * through, whatever fed the body). */
static int check_json_budget(const struct srv_req *req, struct api_error *err)
{
    if (req->body_within_json_budget)
        return 0; /* one scan per body: the transport's, with the same limits */
    const struct config *cfg = &req->srv->cfg;
    struct json_budget_scan scan;
    if (json_budget_check(req->body, req->body_len, cfg->json_max_depth,
                          json_budget_values_for(req->body_len, cfg->json_max_values),
                          &scan) == JSON_BUDGET_OK)
        return 0;
    server_count_refusal(req->srv, "json_budget");
    char detail[400];
    json_budget_describe(&scan, detail, sizeof detail);
    if (scan.verdict == JSON_BUDGET_TOO_DEEP)
        return api_bad_request(err, "%s", detail);
    return api_fail(err, 413, "payload_too_large", "%s", detail);
}

json_t *req_json_body(const struct srv_req *req, struct api_error *err)
{
    if (!req->body || req->body_len == 0) {
        api_bad_request(err, "a JSON request body is required");
        return NULL;
    }
    if (!req->content_type || !is_json_content_type(req->content_type)) {
        api_bad_request(err, "Content-Type must be application/json, got '%.64s'",
                        req->content_type ? req->content_type : "(none)");
        return NULL;
    }
    if (check_json_budget(req, err) != 0)
        return NULL;
    json_error_t jerr;
    /* NULs and lone surrogates are parsed so they can be refused by name
     * below: C strings and PostgreSQL text cannot hold them, and a
     * silently cut value is worse than a refusal. */
    bool lone = false;
    json_t *v = jsonx_loadb_lenient(req->body, req->body_len,
                                    JSON_REJECT_DUPLICATES | JSON_DECODE_ANY | JSON_ALLOW_NUL,
                                    &jerr, &lone);
    if (!v) {
        api_bad_request(err, "malformed JSON at line %d column %d: %s", jerr.line, jerr.column,
                        jerr.text);
        return NULL;
    }
    if (!json_is_object(v)) {
        json_decref(v);
        api_bad_request(err, "the request body must be a JSON object");
        return NULL;
    }
    /* The field names of a variant column's shredding declaration are
     * left to its grammar, which names the field at fault. */
    char where[256];
    switch (jsonx_find_unstorable(v, lone, "shredding", "name", where, sizeof where)) {
    case JSONX_STORABLE: break;
    case JSONX_NUL:
        json_decref(v);
        api_validation(err,
                       "the text at %s contains a NUL character, which hoglake does not "
                       "store",
                       where);
        return NULL;
    case JSONX_LONE_SURROGATE:
        json_decref(v);
        api_bad_request(err, "the text at %s holds a lone UTF-16 surrogate, which is not Unicode",
                        where);
        return NULL;
    }
    return v;
}

json_t *req_json_fields(const struct srv_req *req, const struct jfield *fields, size_t nfields,
                        struct api_error *err)
{
    json_t *body = req_json_body(req, err);
    if (!body)
        return NULL;
    struct error e;
    if (jsonx_read_object(body, "", fields, nfields, &e) != 0) {
        json_decref(body);
        api_bad_request(err, "%s", e.msg);
        return NULL;
    }
    return body;
}

int api_check_ident(const char *kind, const char *name, struct api_error *err)
{
    if (lake_ident_valid(name))
        return 0;
    char shown[80];
    lake_ident_shown(name, shown, sizeof shown);
    return api_validation(err, "invalid %s name '%s' (must match %s)", kind, shown,
                          LAKE_IDENT_PATTERN);
}

struct db_conn *req_db(struct srv_req *req, struct api_error *err)
{
    if (req->db)
        return req->db;
    int timeout =
        req->srv->cfg.commit_lock_timeout_ms > 0 ? req->srv->cfg.commit_lock_timeout_ms : 30000;
    req->db = db_pool_acquire(req->srv->pool, timeout);
    if (!req->db) {
        api_fail(err, 503, "unavailable", "no database connection available; retry");
        err->retry_after = true;
        return NULL;
    }
    /* A read gets the read bound, so no reader holds a worker and a
     * connection for long; a write keeps the session's. */
    bool read = req->route && strcmp(req->route->method, "GET") == 0;
    int bound = read ? req->srv->cfg.statement_timeout_ms : DB_STATEMENT_TIMEOUT_MS;
    struct error dberr;
    if (db_conn_statement_timeout(req->db, bound, &dberr) != 0) {
        api_from_error(err, &dberr, "statement timeout");
        return NULL;
    }
    return req->db;
}

int req_ctx(struct srv_req *req, struct srv_ctx *out, struct api_error *err)
{
    struct db_conn *db = req_db(req, err);
    if (!db)
        return -1;
    *out = (struct srv_ctx){req->srv, db, &req->arena};
    return 0;
}

PGresult *req_query(struct srv_req *req, const char *sql, const struct db_params *params,
                    const char *context, struct api_error *err)
{
    struct db_conn *db = req_db(req, err);
    if (!db)
        return NULL;
    struct error dberr;
    PGresult *r = db_exec(db->pg, sql, params, &dberr);
    if (!r)
        api_from_error(err, &dberr, context);
    return r;
}

int req_exec(struct srv_req *req, const char *sql, const struct db_params *params,
             const char *context, struct api_error *err)
{
    PGresult *r = req_query(req, sql, params, context, err);
    if (!r)
        return -1;
    PQclear(r);
    return 0;
}

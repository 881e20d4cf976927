/* The handler-facing side of a request: what a handler reads (path
 * parameters, query arguments, the body), what it writes (a JSON or text
 * response), and the one error type every handler fails with.
 *
 * A request and everything hanging off it belongs to the worker thread
 * running its handler; the arena is freed when the response has been built. */
#ifndef HL_SERVER_HTTP_API_H
#define HL_SERVER_HTTP_API_H

#include <jansson.h>
#include <libpq-fe.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "server/auth/token.h"
#include "server/ctx.h"
#include "util/arena.h"

struct server;
struct route;
struct db_conn;
struct error;

enum { API_MAX_PATH_PARAMS = 4 };

struct query_arg {
    const char *key;
    const char *value; /* "" for "?key" without '=' */
};

struct srv_req {
    struct server *srv;
    const struct route *route;
    const char *method;
    const char *path;
    const char *params[API_MAX_PATH_PARAMS]; /* path parameters, in pattern order */
    const struct query_arg *args;
    size_t nargs;
    const char *content_type; /* NULL when absent */
    const char *request_id;   /* NULL when absent */
    const char *body;         /* NUL-terminated; NULL when there was none */
    size_t body_len;
    bool body_within_json_budget; /* the transport's scan passed it (http.h) */
    int64_t queue_wait_ns;        /* time spent waiting for a worker */
    /* Who is calling, as auth_gate established it before the handler ran:
     * the token's grant; with --auth off "anonymous" with the admin role;
     * on a public route, ROLE_NONE. */
    struct token_grant caller;
    struct arena arena;
    struct db_conn *db; /* acquired by req_db(); released after the handler */
    /* What the audit line of an audited route says beyond the defaults
     * (catalog: path parameter 0; object: the later ones, dot-joined).
     * Set by handlers; strings in the arena, detail owned. */
    struct {
        const char *catalog;
        const char *object;
        json_t *detail; /* written on success only */
    } audit;
};

struct srv_res {
    int status;
    bool no_store;                /* add "Cache-Control: no-store" (a response holding a secret) */
    const char *www_authenticate; /* static; a 401's WWW-Authenticate value */
    json_t *json;                 /* owned; the body when set */
    char *text;                   /* owned (malloc); the body when json is NULL */
    const char *content_type;     /* static string for text bodies */
    bool retry_after;             /* add "Retry-After: 1" */
};

/* A typed failure: one status, one stable code, prose detail, and optional
 * extra members merged into the envelope (e.g. "tables", "read_snapshot"). */
struct api_error {
    int status;
    const char *code; /* static string */
    char detail[1024];
    json_t *extra; /* owned; may be NULL */
    bool retry_after;
    const char *www_authenticate; /* static; the 401's WWW-Authenticate value */
};

/* Handlers return 0 on success (res filled) or -1 with err filled. */
typedef int (*api_handler_fn)(struct srv_req *req, struct srv_res *res, struct api_error *err);

/* Fills err and returns -1, so handlers can `return api_fail(...)`. */
int api_fail(struct api_error *err, int status, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int api_bad_request(struct api_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
int api_validation(struct api_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
int api_not_found(struct api_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
int api_conflict(struct api_error *err, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int api_nomem(struct api_error *err);
/* The one way an internal error becomes an answer. From the database: a
 * lock timeout is 503 commit_queue_timeout, a cancelled statement 503, a
 * unique violation 409 already_exists (a race the handler's own check
 * lost; `context` names what), a lost database 503. Otherwise by code:
 * MALFORMED 400, INVALID and UNSUPPORTED 422, CONFLICT 409 with the
 * reason as its code, NOT_FOUND 404; anything else is a 500 with a generic
 * body, logged with `context`. */
int api_from_error(struct api_error *err, const struct error *e, const char *context);
/* Attaches an extra member to the error envelope (takes the reference). */
void api_error_set_extra(struct api_error *err, const char *key, json_t *value);

/* Builds the one error envelope {"error", "detail", ...extra}. */
void api_error_to_response(struct api_error *err, struct srv_res *res);

/* Responses. api_json takes ownership of body. */
int api_json(struct srv_res *res, int status, json_t *body);
int api_text(struct srv_res *res, int status, const char *content_type, const char *text);

/* ---- request reading ---- */

/* The last value of a query argument, or NULL when absent. */
const char *req_arg(const struct srv_req *req, const char *key);
/* Refuses any query argument not in `allowed` (NULL-terminated): a typo in
 * a parameter name should not silently change what a read returns. */
int req_only_args(const struct srv_req *req, const char *const *allowed, struct api_error *err);
/* Optional int64 query argument: absent -> *present = false. Malformed ->
 * 400 naming the parameter. */
int req_arg_i64(const struct srv_req *req, const char *key, bool *present, int64_t *out,
                struct api_error *err);
int req_arg_bool(const struct srv_req *req, const char *key, bool *present, bool *out,
                 struct api_error *err);
/* Optional query argument that must be one of the n `words`: absent ->
 * *present = false; *index is the word's position. Any other value -> 422
 * naming them ("must be asc or desc" for two). */
int req_arg_word(const struct srv_req *req, const char *key, const char *const *words, size_t n,
                 bool *present, size_t *index, struct api_error *err);
/* Optional integer query argument within [min, max]: `dflt` when absent,
 * 400 when not an integer, 422 "<key> must be between <min> and <max>,
 * got <v>" outside. */
int req_arg_range(const struct srv_req *req, const char *key, int64_t dflt, int64_t min,
                  int64_t max, int64_t *out, struct api_error *err);
/* A paged read's ?limit=: `dflt` when absent, 400 not an integer, 422
 * below 1, clamped to `max` (never refused: a client may ask for the page
 * size it likes without knowing the server's maximum). */
int req_page_limit(const struct srv_req *req, int64_t dflt, int64_t max, int64_t *limit,
                   struct api_error *err);
/* Parses the body as a JSON object: 400 on a missing body, a wrong
 * Content-Type, malformed JSON or a non-object. Returns a new reference. */
json_t *req_json_body(const struct srv_req *req, struct api_error *err);
struct jfield;
/* req_json_body, then the body's members read against `fields`
 * (util/jsonx.h): a missing, unknown or mistyped member is a 400. Returns
 * the body, which the fields borrow from (caller json_decref's it). */
json_t *req_json_fields(const struct srv_req *req, const struct jfield *fields, size_t nfields,
                        struct api_error *err);
/* 422 unless `name` is a valid identifier; `kind` names it in the detail
 * ("namespace", "table", "view"). */
int api_check_ident(const char *kind, const char *name, struct api_error *err);

/* Acquires the request's database connection (once); 503 when the pool has
 * nothing to give within the admission budget. */
struct db_conn *req_db(struct srv_req *req, struct api_error *err);
/* The request's context for logic that does not speak HTTP (server/ctx.h):
 * its server, connection (acquired as req_db does) and arena. */
int req_ctx(struct srv_req *req, struct srv_ctx *out, struct api_error *err);

struct db_params;
/* Runs one statement on the request's connection. A failure becomes the
 * API error (api_from_error, naming `context` in logs) and NULL/-1. */
PGresult *req_query(struct srv_req *req, const char *sql, const struct db_params *params,
                    const char *context, struct api_error *err);
int req_exec(struct srv_req *req, const char *sql, const struct db_params *params,
             const char *context, struct api_error *err);

#endif

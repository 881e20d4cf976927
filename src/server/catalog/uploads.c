/* Upload claims (contract 2.7): a writer claims a path before it uploads
 * there, so that an object whose commit never comes is known and reclaimed.
 * The server makes the path: the writer's prefix (inside the catalog's
 * data path) plus the upload id plus the kind's extension, so a claim names
 * one object and a replay of the same id names the same one. A commit
 * naming the owner consumes its claims (store/commit_writes.h); abandoned
 * and expired claims are queued for cleanup (store/uploads.h). No catalog
 * lock is taken. */
#include <stdio.h>
#include <string.h>

#include "server/catalog/catalog.h"
#include "server/commit/commit_req.h"
#include "server/db/db.h"
#include "server/db/pgarray.h"
#include "server/http/handlers.h"
#include "server/store/uploads.h"
#include "util/jsonx.h"
#include "util/strutil.h"
#include "util/timefmt.h"

enum { P_CATALOG = 0, P_UPLOAD = 1 };

enum {
    UPLOAD_LEASE_SECONDS = 86400,
    UPLOAD_MAX_CLAIMS = 1000,   /* per request */
    UPLOAD_MAX_ABANDON = 10000, /* paths per request */
    UPLOAD_PREFIX_MAX = 1024,   /* bytes */
    UPLOAD_SCHEDULE_DEFAULT = 1000,
    UPLOAD_SCHEDULE_MAX = 10000,
};

/* What every claim request names: its owner, prefix and kind. */
struct claim_spec {
    const char *owner; /* lowercase UUID */
    char owner_buf[37];
    const char *prefix;
    const char *kind; /* "data" or "delete" */
};

static int read_owner(const json_t *v, char out[37], struct api_error *err)
{
    if (!str_is_uuid(json_string_value(v)))
        return api_bad_request(err, "owner must be a UUID");
    str_lower(out, 37, json_string_value(v));
    return 0;
}

static int read_spec(const json_t *owner, const json_t *prefix, const json_t *kind,
                     struct claim_spec *s, struct api_error *err)
{
    if (read_owner(owner, s->owner_buf, err) != 0)
        return -1;
    s->owner = s->owner_buf;
    s->prefix = json_string_value(prefix);
    s->kind = json_string_value(kind);
    if (strcmp(s->kind, "data") != 0 && strcmp(s->kind, "delete") != 0)
        return api_validation(err, "file_kind must be data or delete, got '%.40s'", s->kind);
    if (strlen(s->prefix) > UPLOAD_PREFIX_MAX)
        return api_validation(err, "prefix is longer than %d bytes", UPLOAD_PREFIX_MAX);
    return 0;
}

/* The path of upload id under the spec's prefix, checked as a commit will
 * check it, so a claimed path is always one the owner can register. */
static int claim_path(const struct catalog_row *cat, const struct claim_spec *s, const char *id,
                      char *out, size_t size, struct api_error *err)
{
    int n = snprintf(out, size, "%s%s.%s", s->prefix, id,
                     strcmp(s->kind, "data") == 0 ? "parquet" : "puffin");
    if (n < 0 || (size_t)n >= size)
        return api_validation(err, "prefix is too long");
    struct error e;
    if (commit_check_path(cat->data_path, out, "upload path", &e) != 0)
        return api_from_error(err, &e, "upload claim");
    return 0;
}

static json_t *claim_json(const struct store_uploads_rows *rows, int i)
{
    char expires[40];
    time_format_iso8601(store_uploads_expires_us(rows, i), expires, sizeof expires);
    return json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s}", "upload_id", store_uploads_id(rows, i),
                     "owner", store_uploads_owner(rows, i), "prefix", store_uploads_prefix(rows, i),
                     "path", store_uploads_path(rows, i), "file_kind", store_uploads_kind(rows, i),
                     "state", store_uploads_state(rows, i), "expires_at", expires);
}

/* Claims ids[0..n) for the spec; on success *rows holds one row per id in
 * ids' order (index map in order[]). */
static int claim(struct srv_req *req, const struct catalog_row *cat, const struct claim_spec *s,
                 char (*ids)[37], size_t n, struct store_uploads_rows *rows, int *order,
                 struct api_error *err)
{
    struct pg_array id_list, path_list;
    pg_array_init(&id_list);
    pg_array_init(&path_list);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        char path[UPLOAD_PREFIX_MAX + 64];
        rc = claim_path(cat, s, ids[i], path, sizeof path, err);
        pg_array_str(&id_list, ids[i]);
        pg_array_str(&path_list, path);
    }
    const char *id_text = rc == 0 ? pg_array_text(&id_list) : NULL;
    const char *path_text = rc == 0 ? pg_array_text(&path_list) : NULL;
    struct db_conn *db = NULL;
    if (rc == 0 && (!id_text || !path_text))
        rc = api_nomem(err);
    if (rc == 0 && !(db = req_db(req, err)))
        rc = -1;
    struct error dberr;
    if (rc == 0 && store_uploads_claim(db->pg, cat->id, s->owner, s->prefix, s->kind, id_text,
                                       path_text, UPLOAD_LEASE_SECONDS, rows, &dberr) != 0)
        rc = api_from_error(err, &dberr, "upload claim");
    pg_array_free(&id_list);
    pg_array_free(&path_list);
    if (rc != 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        order[i] = -1;
        for (int r = 0; r < store_uploads_count(rows); r++)
            if (strcmp(store_uploads_id(rows, r), ids[i]) == 0)
                order[i] = r;
        int r = order[i];
        if (r < 0) {
            store_uploads_rows_free(rows);
            api_fail(err, 503, "unavailable",
                     "upload %s is being claimed by a concurrent request; retry", ids[i]);
            err->retry_after = true;
            return -1;
        }
        if (strcmp(store_uploads_owner(rows, r), s->owner) != 0 ||
            strcmp(store_uploads_prefix(rows, r), s->prefix) != 0 ||
            strcmp(store_uploads_kind(rows, r), s->kind) != 0) {
            store_uploads_rows_free(rows);
            return api_conflict(err, "upload_id_conflict",
                                "upload %s is already claimed with another owner, prefix or "
                                "file_kind",
                                ids[i]);
        }
    }
    return 0;
}

int h_upload_claim(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    const char *id = req->params[P_UPLOAD];
    if (!str_is_uuid(id))
        return api_bad_request(err, "the upload id must be a UUID");
    json_t *owner, *prefix, *kind;
    const struct jfield fields[] = {{"owner", JF_STRING, true, false, &owner},
                                    {"prefix", JF_STRING, true, false, &prefix},
                                    {"file_kind", JF_STRING, true, false, &kind}};
    json_t *body = req_json_fields(req, fields, 3, err);
    if (!body)
        return -1;
    struct claim_spec s;
    char ids[1][37];
    str_lower(ids[0], sizeof ids[0], id);
    struct catalog_row cat;
    struct store_uploads_rows rows;
    int order[1];
    int rc = read_spec(owner, prefix, kind, &s, err);
    if (rc == 0)
        rc = catalog_load(req, req->params[P_CATALOG], &cat, err);
    if (rc == 0)
        rc = claim(req, &cat, &s, ids, 1, &rows, order, err);
    json_decref(body);
    if (rc != 0)
        return -1;
    json_t *out = claim_json(&rows, order[0]);
    store_uploads_rows_free(&rows);
    if (!out || api_json(res, 200, out) != 0)
        return api_nomem(err);
    return 0;
}

int h_upload_claim_batch(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    json_t *owner, *prefix, *kind, *jids;
    const struct jfield fields[] = {{"owner", JF_STRING, true, false, &owner},
                                    {"prefix", JF_STRING, true, false, &prefix},
                                    {"file_kind", JF_STRING, true, false, &kind},
                                    {"upload_ids", JF_ARRAY, true, false, &jids}};
    json_t *body = req_json_fields(req, fields, 4, err);
    if (!body)
        return -1;
    struct claim_spec s;
    size_t n = json_array_size(jids);
    char(*ids)[37] = NULL;
    int *order = NULL;
    int rc = read_spec(owner, prefix, kind, &s, err);
    if (rc == 0 && (n == 0 || n > UPLOAD_MAX_CLAIMS))
        rc = api_validation(err, "upload_ids must hold 1 to %d ids, got %zu", UPLOAD_MAX_CLAIMS, n);
    if (rc == 0 && (!(ids = arena_calloc(&req->arena, n, sizeof *ids)) ||
                    !(order = arena_calloc(&req->arena, n, sizeof *order))))
        rc = api_nomem(err);
    for (size_t i = 0; i < n && rc == 0; i++) {
        const char *v = json_string_value(json_array_get(jids, i));
        if (!v || !str_is_uuid(v))
            rc = api_bad_request(err, "upload_ids[%zu] must be a UUID", i);
        else
            str_lower(ids[i], sizeof ids[i], v);
    }
    for (size_t i = 1; i < n && rc == 0; i++)
        for (size_t k = 0; k < i && rc == 0; k++)
            if (strcmp(ids[i], ids[k]) == 0)
                rc = api_validation(err, "upload id %s appears twice", ids[i]);
    struct catalog_row cat;
    struct store_uploads_rows rows;
    if (rc == 0)
        rc = catalog_load(req, req->params[P_CATALOG], &cat, err);
    if (rc == 0)
        rc = claim(req, &cat, &s, ids, n, &rows, order, err);
    json_t *out = NULL, *list = NULL;
    if (rc == 0) {
        list = json_array();
        for (size_t i = 0; list && i < n; i++)
            if (json_array_append_new(list, claim_json(&rows, order[i])) != 0) {
                json_decref(list);
                list = NULL;
            }
        char expires[40];
        time_format_iso8601(store_uploads_expires_us(&rows, order[0]), expires, sizeof expires);
        out = list ? json_pack("{s:s,s:s,s:s,s:s,s:o}", "owner", s.owner, "prefix", s.prefix,
                               "file_kind", s.kind, "expires_at", expires, "uploads", list)
                   : NULL;
        store_uploads_rows_free(&rows);
    }
    json_decref(body);
    if (rc != 0)
        return -1;
    if (!out || api_json(res, 200, out) != 0)
        return api_nomem(err);
    return 0;
}

/* The owner of a renew or abandon body, and the catalog. */
static struct db_conn *owner_request(struct srv_req *req, const json_t *owner, char out[37],
                                     struct catalog_row *cat, struct api_error *err)
{
    if (read_owner(owner, out, err) != 0 ||
        catalog_load(req, req->params[P_CATALOG], cat, err) != 0)
        return NULL;
    return req_db(req, err);
}

static int reply_count(struct srv_res *res, const char *key, int64_t n, struct api_error *err)
{
    if (api_json(res, 200, json_pack("{s:I}", key, (json_int_t)n)) != 0)
        return api_nomem(err);
    return 0;
}

int h_upload_renew(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    json_t *owner;
    const struct jfield fields[] = {{"owner", JF_STRING, true, false, &owner}};
    json_t *body = req_json_fields(req, fields, 1, err);
    if (!body)
        return -1;
    char who[37];
    struct catalog_row cat;
    struct db_conn *db = owner_request(req, owner, who, &cat, err);
    json_decref(body);
    if (!db)
        return -1;
    int64_t renewed;
    struct error dberr;
    if (store_uploads_renew(db->pg, cat.id, who, UPLOAD_LEASE_SECONDS, &renewed, &dberr) != 0)
        return api_from_error(err, &dberr, "upload renew");
    return reply_count(res, "renewed", renewed, err);
}

int h_upload_abandon(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    json_t *owner, *paths;
    const struct jfield fields[] = {{"owner", JF_STRING, true, false, &owner},
                                    {"paths", JF_ARRAY, false, false, &paths}};
    json_t *body = req_json_fields(req, fields, 2, err);
    if (!body)
        return -1;
    struct pg_array list;
    pg_array_init(&list);
    int rc = 0;
    if (paths && json_array_size(paths) > UPLOAD_MAX_ABANDON)
        rc = api_validation(err, "paths must hold at most %d paths", UPLOAD_MAX_ABANDON);
    for (size_t i = 0; paths && i < json_array_size(paths) && rc == 0; i++) {
        const char *p = json_string_value(json_array_get(paths, i));
        if (!p)
            rc = api_bad_request(err, "paths[%zu] must be a string", i);
        else
            pg_array_str(&list, p);
    }
    const char *text = NULL;
    if (rc == 0 && paths && !(text = pg_array_text(&list)))
        rc = api_nomem(err);
    char who[37];
    struct catalog_row cat;
    struct db_conn *db = rc == 0 ? owner_request(req, owner, who, &cat, err) : NULL;
    int64_t abandoned = 0;
    struct error dberr;
    if (db && store_uploads_abandon(db->pg, cat.id, who, text, &abandoned, &dberr) != 0)
        rc = api_from_error(err, &dberr, "upload abandon");
    pg_array_free(&list);
    json_decref(body);
    if (rc != 0 || !db)
        return -1;
    return reply_count(res, "abandoned", abandoned, err);
}

int h_upload_schedule_expired(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    int64_t limit;
    if (req_arg_range(req, "limit", UPLOAD_SCHEDULE_DEFAULT, 1, UPLOAD_SCHEDULE_MAX, &limit, err) !=
        0)
        return -1;
    struct catalog_row cat;
    if (catalog_load(req, req->params[P_CATALOG], &cat, err) != 0)
        return -1;
    struct db_conn *db = req_db(req, err);
    if (!db)
        return -1;
    int64_t scheduled;
    struct error dberr;
    if (store_uploads_schedule_expired(db->pg, cat.id, limit, &scheduled, &dberr) != 0)
        return api_from_error(err, &dberr, "upload schedule-expired");
    return reply_count(res, "scheduled", scheduled, err);
}

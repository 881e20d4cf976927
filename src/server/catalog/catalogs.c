/* Catalogs and their retention options. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lake/ident.h"
#include "server/catalog/catalog.h"
#include "server/db/db.h"
#include "server/http/handlers.h"
#include "server/server.h"
#include "server/storage_guard.h"
#include "server/store/catalogs.h"
#include "server/store/summary.h"
#include "util/jsonx.h"
#include "util/strutil.h"

enum { DATA_PATH_MAX = 512 };
#define RETENTION_MAX_SECONDS 3153600000LL /* 100 years */

static bool valid_bucket(const char *b, size_t n)
{
    if (n < 3 || n > 63)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = b[i];
        bool edge = i == 0 || i == n - 1;
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              (!edge && (c == '-' || c == '.'))))
            return false;
    }
    return true;
}

/* Checks a path's segments (after the scheme and bucket): none empty, none
 * "." or "..". */
static bool clean_segments(const char *p)
{
    while (*p) {
        const char *slash = strchr(p, '/');
        size_t len = slash ? (size_t)(slash - p) : strlen(p);
        if (len == 0 || (len == 1 && p[0] == '.') || (len == 2 && p[0] == '.' && p[1] == '.'))
            return false;
        if (!slash)
            break;
        p = slash + 1;
    }
    return true;
}

/* Validates a data_path and writes its normalised form (no trailing
 * slash) into out. */
static int validate_data_path(const char *dp, char *out, size_t out_size, struct api_error *err)
{
    size_t n = strlen(dp);
    if (n == 0)
        return api_validation(err, "data_path must not be blank");
    if (n > DATA_PATH_MAX)
        return api_validation(err, "data_path is %zu bytes, over the maximum %d", n, DATA_PATH_MAX);
    if (str_has_space_or_control(dp))
        return api_validation(err, "data_path must not contain whitespace or control characters");
    if (strpbrk(dp, "%\\?#"))
        return api_validation(err, "data_path must not contain '%%', '\\', '?' or '#': it is "
                                   "taken literally and must have one spelling");
    char norm[DATA_PATH_MAX + 1];
    snprintf(norm, sizeof norm, "%s", dp);
    while (n > 0 && norm[n - 1] == '/')
        norm[--n] = '\0';
    if (str_starts_with(norm, "s3://")) {
        const char *bucket = norm + 5;
        const char *slash = strchr(bucket, '/');
        size_t blen = slash ? (size_t)(slash - bucket) : strlen(bucket);
        if (!valid_bucket(bucket, blen))
            return api_validation(err,
                                  "data_path must be s3://<bucket>[/<prefix>] with a valid bucket "
                                  "name (3-63 of a-z, 0-9, '-', '.'), got '%.200s'",
                                  dp);
        if (slash && !clean_segments(slash + 1))
            return api_validation(err, "data_path must not contain empty, '.' or '..' segments");
    } else if (str_starts_with(norm, "file:///")) {
        if (!clean_segments(norm + 8))
            return api_validation(err, "data_path must not contain empty, '.' or '..' segments");
    } else {
        return api_validation(err,
                              "data_path must be an s3://<bucket>[/<prefix>] or file:///<absolute "
                              "dir> URI, got '%.200s'",
                              dp);
    }
    snprintf(out, out_size, "%s", norm);
    return 0;
}

/* Whether two normalised data paths overlap: one is a prefix of the other
 * on a segment boundary. */
static bool paths_overlap(const char *a, const char *b)
{
    size_t na = strlen(a), nb = strlen(b);
    size_t n = na < nb ? na : nb;
    if (strncmp(a, b, n) != 0)
        return false;
    if (na == nb)
        return true;
    const char *longer = na > nb ? a : b;
    return longer[n] == '/';
}

int h_catalogs_list(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    struct catalog_row *cats;
    size_t n;
    if (catalog_load_all(req, &cats, &n, err) != 0)
        return -1;
    /* A token scoped to one catalog sees only that one. */
    int64_t only = req->caller.catalog_id;
    json_t *out = json_array();
    for (size_t i = 0; out && i < n; i++) {
        if (only != 0 && cats[i].id != only)
            continue;
        if (json_array_append_new(out, catalog_to_json(&cats[i])) != 0) {
            json_decref(out);
            out = NULL;
        }
    }
    if (api_json(res, 200, out) != 0)
        return api_nomem(err);
    return 0;
}

int h_catalogs_create(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    json_t *jname, *jpath;
    const struct jfield fields[] = {
        {"name", JF_STRING, true, false, &jname},
        {"data_path", JF_STRING, false, false, &jpath},
    };
    json_t *body = req_json_fields(req, fields, 2, err);
    if (!body)
        return -1;
    char name[128];
    snprintf(name, sizeof name, "%s", json_string_value(jname));
    char given_path[800];
    int rc = -1;
    if (!lake_catalog_name_valid(json_string_value(jname))) {
        char shown[80];
        lake_ident_shown(json_string_value(jname), shown, sizeof shown);
        api_validation(err, "invalid catalog name '%s' (must match %s)", shown,
                       LAKE_CATALOG_PATTERN);
        goto out;
    }
    if (jpath) {
        snprintf(given_path, sizeof given_path, "%s", json_string_value(jpath));
        if (json_string_length(jpath) >= sizeof given_path) {
            api_validation(err, "data_path is %zu characters, over the maximum %d",
                           json_string_length(jpath), DATA_PATH_MAX);
            goto out;
        }
    } else if (req->srv->cfg.warehouse[0]) {
        snprintf(given_path, sizeof given_path, "%s/%s", req->srv->cfg.warehouse, name);
    } else {
        api_validation(err, "data_path is required: this server has no default warehouse");
        goto out;
    }
    char data_path[DATA_PATH_MAX + 1];
    if (validate_data_path(given_path, data_path, sizeof data_path, err) != 0)
        goto out;
    if (str_starts_with(data_path, "file://") &&
        storage_check_file_data_path(req->srv, data_path, err) != 0)
        goto out;

    struct db_conn *db = req_db(req, err);
    if (!db)
        goto out;
    struct error dberr;
    struct store_catalog_path *cats;
    size_t ncats;
    if (db_begin(db->pg, &dberr) != 0 || store_catalog_create_lock(db, &dberr) != 0 ||
        store_catalogs_list_paths(db, &req->arena, &cats, &ncats, &dberr) != 0) {
        api_from_error(err, &dberr, "catalog create");
        goto out;
    }
    for (size_t i = 0; i < ncats; i++) {
        if (strcmp(cats[i].name, name) == 0) {
            api_conflict(err, "already_exists", "catalog '%s' already exists", name);
            goto out;
        }
    }
    for (size_t i = 0; i < ncats; i++) {
        if (paths_overlap(data_path, cats[i].data_path)) {
            api_validation(err,
                           "data_path '%s' overlaps catalog '%s' (data_path '%s'); catalog "
                           "data_paths must be disjoint",
                           data_path, cats[i].name, cats[i].data_path);
            goto out;
        }
    }
    if (store_catalog_insert(db, name, data_path, &dberr) != 0 || db_commit(db->pg, &dberr) != 0) {
        char what[160];
        snprintf(what, sizeof what, "catalog '%s'", name);
        api_from_error(err, &dberr, what);
        goto out;
    }
    struct catalog_row c;
    if (catalog_load(req, name, &c, err) != 0)
        goto out;
    if (api_json(res, 201, catalog_to_json(&c)) != 0) {
        api_nomem(err);
        goto out;
    }
    rc = 0;
out:
    json_decref(body);
    return rc;
}

/* One catalog, with its live rows and bytes as its partition summary last
 * counted them (gross of deletion vectors; absent until it was sampled,
 * never zeros standing in). */
int h_catalog_get(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    struct catalog_row c;
    if (catalog_load(req, req->params[0], &c, err) != 0)
        return -1;
    struct db_conn *db = req_db(req, err);
    if (!db)
        return -1;
    struct store_summary_info info;
    struct error dberr = {0};
    if (store_summary_info(db->pg, c.id, &info, &dberr) != 0)
        return api_from_error(err, &dberr, "catalog totals");
    json_t *o = catalog_to_json(&c);
    if (o && info.published) {
        json_object_set_new(o, "live_rows", json_integer((json_int_t)info.live_rows));
        json_object_set_new(o, "live_size_bytes", json_integer((json_int_t)info.live_bytes));
    }
    if (api_json(res, 200, o) != 0)
        return api_nomem(err);
    return 0;
}

static json_t *options_json(const struct catalog_row *c)
{
    json_t *o = json_pack("{s:b,s:I}", "consumer_floor", c->consumer_floor, "earliest_snapshot_id",
                          (json_int_t)c->earliest);
    if (o && c->has_retention)
        json_object_set_new(o, "snapshot_retention_seconds", json_integer(c->retention_s));
    return o;
}

int h_catalog_options_get(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    struct catalog_row c;
    if (catalog_load(req, req->params[0], &c, err) != 0)
        return -1;
    if (api_json(res, 200, options_json(&c)) != 0)
        return api_nomem(err);
    return 0;
}

int h_catalog_options_patch(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    json_t *jret, *jfloor;
    const struct jfield fields[] = {
        {"snapshot_retention_seconds", JF_INT, false, true, &jret},
        {"consumer_floor", JF_BOOL, false, false, &jfloor},
    };
    json_t *body = req_json_fields(req, fields, 2, err);
    if (!body)
        return -1;
    int rc = -1;
    if (jret && !json_is_null(jret)) {
        json_int_t v = json_integer_value(jret);
        if (v <= 0 || v > RETENTION_MAX_SECONDS) {
            api_validation(err,
                           "snapshot_retention_seconds must be between 1 and %lld (got %lld); "
                           "null disables expiry",
                           RETENTION_MAX_SECONDS, (long long)v);
            goto out;
        }
    }
    struct catalog_row c;
    if (catalog_load(req, req->params[0], &c, err) != 0)
        goto out;
    if (jret || jfloor) {
        struct store_catalog_options o = {
            .set_retention = jret != NULL,
            .has_retention = jret && !json_is_null(jret),
            .retention_s = jret ? json_integer_value(jret) : 0,
            .set_consumer_floor = jfloor != NULL,
            .consumer_floor = json_is_true(jfloor),
        };
        struct db_conn *db = req_db(req, err);
        struct error dberr;
        if (!db)
            goto out;
        if (store_catalog_update_options(db, c.id, &o, &dberr) != 0) {
            api_from_error(err, &dberr, "catalog options");
            goto out;
        }
        if (catalog_load(req, req->params[0], &c, err) != 0)
            goto out;
    }
    if (api_json(res, 200, options_json(&c)) != 0) {
        api_nomem(err);
        goto out;
    }
    rc = 0;
out:
    json_decref(body);
    return rc;
}

/* API tokens: create (the only time a secret is shown), list, revoke. */
#include <stdio.h>
#include <string.h>

#include "server/auth/auth.h"
#include "server/catalog/catalog.h"
#include "server/db/db.h"
#include "server/http/handlers.h"
#include "server/server.h"
#include "server/store/tokens.h"
#include "util/jsonx.h"
#include "util/strutil.h"
#include "util/timefmt.h"

/* Ten years: a longer-lived credential should be an unexpiring one, said
 * so explicitly by leaving the field out. */
#define TOKEN_MAX_LIFETIME_SECONDS (10LL * 366 * 86400)

static int check_name(const char *name, struct api_error *err)
{
    size_t n = strlen(name);
    if (n == 0 || n > TOKEN_NAME_MAX)
        return api_validation(err, "name must be 1 to %d bytes, got %zu", TOKEN_NAME_MAX, n);
    if (str_has_control(name))
        return api_validation(err, "name must not contain control characters");
    return 0;
}

/* The catalog a new token is scoped to: 0 for every catalog. */
static int scope_of(struct srv_req *req, const json_t *jcatalog, enum auth_role role,
                    int64_t *catalog_id, struct api_error *err)
{
    *catalog_id = 0;
    if (!jcatalog || json_is_null(jcatalog))
        return 0;
    if (role == ROLE_ADMIN)
        return api_validation(err, "an admin token acts on the whole instance: it cannot be "
                                   "scoped to a catalog (leave catalog out)");
    struct catalog_row cat;
    if (catalog_load(req, json_string_value(jcatalog), &cat, err) != 0)
        return -1;
    *catalog_id = cat.id;
    return 0;
}

static int set_time(json_t *o, const char *key, const struct store_token_rows *v, int row,
                    enum store_token_time which)
{
    int64_t us;
    if (!store_token_rows_time(v, row, which, &us))
        return json_object_set_new(o, key, json_null());
    char when[48];
    time_format_iso8601(us, when, sizeof when);
    return json_object_set_new(o, key, json_string(when));
}

/* The Token object of a row (without the secret; new reference), NULL
 * when out of memory. */
static json_t *token_json(const struct store_token_rows *v, int row)
{
    const char *by = store_token_rows_created_by(v, row);
    json_t *o = json_pack("{s:s,s:s,s:s,s:s?}", "token_id", store_token_rows_id(v, row), "name",
                          store_token_rows_name(v, row), "role", store_token_rows_role(v, row),
                          "catalog", store_token_rows_catalog(v, row));
    if (o && (set_time(o, "created_at", v, row, STORE_TOKEN_CREATED) != 0 ||
              set_time(o, "expires_at", v, row, STORE_TOKEN_EXPIRES) != 0 ||
              set_time(o, "revoked_at", v, row, STORE_TOKEN_REVOKED) != 0 ||
              json_object_set_new(o, "created_by", by ? json_string(by) : json_null()) != 0)) {
        json_decref(o);
        return NULL;
    }
    if (o && !json_object_get(o, "catalog"))
        json_object_set_new(o, "catalog", json_null());
    return o;
}

int h_tokens_create(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    json_t *jname, *jrole, *jcatalog, *jexpires;
    const struct jfield fields[] = {
        {"name", JF_STRING, true, false, &jname},
        {"role", JF_STRING, true, false, &jrole},
        {"catalog", JF_STRING, false, true, &jcatalog},
        {"expires_in_seconds", JF_INT, false, true, &jexpires},
    };
    json_t *body = req_json_fields(req, fields, sizeof fields / sizeof fields[0], err);
    if (!body)
        return -1;
    int rc = -1;
    char secret[TOKEN_SECRET_LEN + 1] = "";
    struct store_token_new t = {.name = json_string_value(jname),
                                .role = role_parse(json_string_value(jrole)),
                                .created_by =
                                    req->caller.token_id[0] ? req->caller.token_id : NULL};
    if (check_name(t.name, err) != 0)
        goto out;
    if (t.role == ROLE_NONE) {
        char shown[40];
        snprintf(shown, sizeof shown, "%.32s", json_string_value(jrole));
        str_utf8_sanitize(shown);
        api_validation(err, "role must be reader, writer, owner or admin, got '%s'", shown);
        goto out;
    }
    if (jexpires && !json_is_null(jexpires)) {
        json_int_t v = json_integer_value(jexpires);
        if (v <= 0 || v > TOKEN_MAX_LIFETIME_SECONDS) {
            api_validation(err,
                           "expires_in_seconds must be between 1 and %lld (got %lld); leave it "
                           "out for a token that does not expire",
                           TOKEN_MAX_LIFETIME_SECONDS, (long long)v);
            goto out;
        }
        t.expires_in_seconds = v;
    }
    if (scope_of(req, jcatalog, t.role, &t.catalog_id, err) != 0)
        goto out;
    uint8_t digest[SHA256_BYTES];
    if (token_secret_new(secret) != 0 || token_secret_hash(secret, TOKEN_SECRET_LEN, digest) != 0) {
        api_fail(err, 503, "unavailable", "the server could not generate a secret; retry");
        goto out;
    }
    struct db_conn *db = req_db(req, err);
    if (!db)
        goto out;
    struct error dberr;
    struct store_token_rows row;
    if (store_token_insert(db, &t, digest, &row, &dberr) != 0) {
        api_from_error(err, &dberr, "token");
        goto out;
    }
    json_t *token = store_token_rows_count(&row) == 1 ? token_json(&row, 0) : NULL;
    store_token_rows_free(&row);
    if (!token) {
        error_nomem(&dberr);
        api_from_error(err, &dberr, "token");
        goto out;
    }
    req->audit.detail = json_deep_copy(token);
    req->audit.object =
        arena_strdup(&req->arena, json_string_value(json_object_get(token, "token_id")));
    json_object_set_new(token, "secret", json_string(secret));
    if (api_json(res, 201, token) != 0) {
        api_nomem(err);
        goto out;
    }
    res->no_store = true;
    rc = 0;
out:
    explicit_bzero(secret, sizeof secret);
    json_decref(body);
    return rc;
}

int h_tokens_list(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    struct db_conn *db = req_db(req, err);
    if (!db)
        return -1;
    struct error dberr;
    struct store_token_rows rows;
    if (store_token_list(db, &rows, &dberr) != 0)
        return api_from_error(err, &dberr, "token list");
    json_t *list = json_array();
    for (int i = 0; list && i < store_token_rows_count(&rows); i++) {
        if (json_array_append_new(list, token_json(&rows, i)) != 0) {
            json_decref(list);
            list = NULL;
        }
    }
    store_token_rows_free(&rows);
    if (!list) {
        error_nomem(&dberr);
        return api_from_error(err, &dberr, "token list");
    }
    if (api_json(res, 200, list) != 0)
        return api_nomem(err);
    return 0;
}

int h_token_revoke(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    const char *id = req->params[0];
    bool found = false;
    if (str_is_uuid(id)) {
        struct db_conn *db = req_db(req, err);
        if (!db)
            return -1;
        struct error dberr;
        int rc = store_token_revoke(db, id, &dberr);
        if (rc < 0)
            return api_from_error(err, &dberr, "token revoke");
        found = rc == 1;
    }
    if (!found)
        return api_not_found(err, "token '%.64s'", id);
    auth_forget(req->srv->auth, id);
    res->status = 204; /* no body */
    return 0;
}

#include "server/auth/token_store.h"

#include <stdio.h>
#include <string.h>

#include "server/db/db.h"
#include "util/strutil.h"
#include "util/timefmt.h"

/* A digest as bytea's text input ("\x" and hex). */
static void digest_param(const uint8_t digest[SHA256_BYTES], char out[2 + 2 * SHA256_BYTES + 1])
{
    out[0] = '\\';
    out[1] = 'x';
    str_hex_encode(digest, SHA256_BYTES, out + 2);
}

#define EPOCH_US(col) "(extract(epoch FROM " col ") * 1000000)::bigint"

int token_store_lookup(struct db_conn *c, const uint8_t digest[SHA256_BYTES],
                       struct token_grant *out, bool *found, struct error *err)
{
    static const char sql[] =
        "SELECT t.token_id, t.name, t.role, coalesce(t.catalog_id, 0), coalesce(c.name, ''),"
        " coalesce(" EPOCH_US("t.expires_at") ", 0), t.revoked_at IS NOT NULL"
                                              " FROM hog_token t LEFT JOIN hog_catalog c USING "
                                              "(catalog_id) WHERE t.secret_hash = $1";
    char hexdigest[2 + 2 * SHA256_BYTES + 1];
    digest_param(digest, hexdigest);
    struct db_params p;
    db_params_init(&p);
    db_param_str(&p, hexdigest);
    PGresult *r = db_exec_prepared(c, sql, &p, err);
    if (!r)
        return -1;
    *found = PQntuples(r) == 1;
    if (*found) {
        memset(out, 0, sizeof *out);
        str_copy(out->token_id, sizeof out->token_id, db_str(r, 0, 0));
        str_copy(out->name, sizeof out->name, db_str(r, 0, 1));
        out->role = role_parse(db_str(r, 0, 2));
        out->catalog_id = db_i64(r, 0, 3);
        str_copy(out->catalog, sizeof out->catalog, db_str(r, 0, 4));
        out->expires_us = db_i64(r, 0, 5);
        out->revoked = db_bool(r, 0, 6);
    }
    PQclear(r);
    return 0;
}

/* The Token columns, in the order token_json reads them. */
#define TOKEN_COLUMNS                                                                              \
    "t.token_id, t.name, t.role, c.name, " EPOCH_US("t.created_at") ", " EPOCH_US(                 \
        "t.expires_at") ", " EPOCH_US("t.revoked_at") ", t.created_by"

static int set_time(json_t *o, const char *key, const PGresult *r, int row, int col)
{
    if (db_isnull(r, row, col))
        return json_object_set_new(o, key, json_null());
    char when[48];
    time_format_iso8601(db_i64(r, row, col), when, sizeof when);
    return json_object_set_new(o, key, json_string(when));
}

static json_t *token_json(const PGresult *r, int row)
{
    json_t *o =
        json_pack("{s:s,s:s,s:s,s:s?}", "token_id", db_str(r, row, 0), "name", db_str(r, row, 1),
                  "role", db_str(r, row, 2), "catalog", db_str(r, row, 3));
    if (o &&
        (set_time(o, "created_at", r, row, 4) != 0 || set_time(o, "expires_at", r, row, 5) != 0 ||
         set_time(o, "revoked_at", r, row, 6) != 0 ||
         json_object_set_new(o, "created_by",
                             db_str(r, row, 7) ? json_string(db_str(r, row, 7)) : json_null()) !=
             0)) {
        json_decref(o);
        return NULL;
    }
    if (o && !json_object_get(o, "catalog"))
        json_object_set_new(o, "catalog", json_null());
    return o;
}

static void nomem(struct error *err)
{
    error_nomem(err);
}

json_t *token_store_insert(struct db_conn *c, const struct token_new *t,
                           const uint8_t digest[SHA256_BYTES], struct error *err)
{
    char hexdigest[2 + 2 * SHA256_BYTES + 1];
    digest_param(digest, hexdigest);
    struct db_params p;
    db_params_init(&p);
    db_param_str(&p, t->name);
    db_param_str(&p, role_name(t->role));
    if (t->catalog_id > 0)
        db_param_i64(&p, t->catalog_id);
    else
        db_param_null(&p);
    db_param_str(&p, hexdigest);
    if (t->expires_in_seconds > 0)
        db_param_i64(&p, t->expires_in_seconds);
    else
        db_param_null(&p);
    db_param_str(&p, t->created_by);
    PGresult *r =
        db_exec(c->pg,
                "WITH t AS (INSERT INTO hog_token (name, role, catalog_id, secret_hash,"
                " expires_at, created_by) VALUES ($1, $2, $3, $4::bytea,"
                " now() + make_interval(secs => $5::bigint), $6::uuid) RETURNING *)"
                " SELECT " TOKEN_COLUMNS " FROM t LEFT JOIN hog_catalog c USING (catalog_id)",
                &p, err);
    if (!r)
        return NULL;
    json_t *out = PQntuples(r) == 1 ? token_json(r, 0) : NULL;
    PQclear(r);
    if (!out)
        nomem(err);
    return out;
}

json_t *token_store_list(struct db_conn *c, struct error *err)
{
    PGresult *r = db_exec(c->pg,
                          "SELECT " TOKEN_COLUMNS " FROM hog_token t LEFT JOIN hog_catalog c"
                          " USING (catalog_id) ORDER BY t.created_at DESC, t.token_id",
                          NULL, err);
    if (!r)
        return NULL;
    json_t *out = json_array();
    for (int i = 0; out && i < PQntuples(r); i++) {
        if (json_array_append_new(out, token_json(r, i)) != 0) {
            json_decref(out);
            out = NULL;
        }
    }
    PQclear(r);
    if (!out)
        nomem(err);
    return out;
}

int token_store_revoke(struct db_conn *c, const char *token_id, bool *found, struct error *err)
{
    struct db_params p;
    db_params_init(&p);
    db_param_str(&p, token_id);
    PGresult *r = db_exec(c->pg,
                          "UPDATE hog_token SET revoked_at = coalesce(revoked_at, now())"
                          " WHERE token_id = $1::uuid RETURNING token_id",
                          &p, err);
    if (!r)
        return -1;
    *found = PQntuples(r) == 1;
    PQclear(r);
    return 0;
}

int token_store_has_live_admin(struct db_conn *c, bool *exists, struct error *err)
{
    PGresult *r = db_exec(c->pg,
                          "SELECT EXISTS (SELECT 1 FROM hog_token WHERE role = 'admin' AND"
                          " revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now()))",
                          NULL, err);
    if (!r)
        return -1;
    *exists = db_bool(r, 0, 0);
    PQclear(r);
    return 0;
}

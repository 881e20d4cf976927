#include "server/store/tokens.h"

#include <stdio.h>
#include <string.h>

#include "server/db/db.h"
#include "util/strutil.h"

/* Instance-wide advisory lock class 4740877, beside catalog creation's
 * 4740876: one bootstrap at a time across replicas. */
#define BOOTSTRAP_LOCK_KEY "20361911669358592" /* 4740877 << 32 */

/* A digest as bytea's text input ("\x" and hex). */
static void digest_param(const uint8_t digest[SHA256_BYTES], char out[2 + 2 * SHA256_BYTES + 1])
{
    out[0] = '\\';
    out[1] = 'x';
    str_hex_encode(digest, SHA256_BYTES, out + 2);
}

#define EPOCH_US(col) "(extract(epoch FROM " col ") * 1000000)::bigint"

int store_token_lookup(struct db_conn *c, const uint8_t digest[SHA256_BYTES],
                       struct token_grant *out, struct error *err)
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
    bool found = PQntuples(r) == 1;
    if (found) {
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
    return found ? 1 : 0;
}

/* The Token columns, in the order the row accessors read them. */
#define TOKEN_COLUMNS                                                                              \
    "t.token_id, t.name, t.role, c.name, " EPOCH_US("t.created_at") ", " EPOCH_US(                 \
        "t.expires_at") ", " EPOCH_US("t.revoked_at") ", t.created_by"

enum { COL_ID, COL_NAME, COL_ROLE, COL_CATALOG, COL_CREATED, COL_EXPIRES, COL_REVOKED, COL_BY };

int store_token_rows_count(const struct store_token_rows *v)
{
    return PQntuples(v->r);
}

const char *store_token_rows_id(const struct store_token_rows *v, int i)
{
    return db_str(v->r, i, COL_ID);
}

const char *store_token_rows_name(const struct store_token_rows *v, int i)
{
    return db_str(v->r, i, COL_NAME);
}

const char *store_token_rows_role(const struct store_token_rows *v, int i)
{
    return db_str(v->r, i, COL_ROLE);
}

const char *store_token_rows_catalog(const struct store_token_rows *v, int i)
{
    return db_str(v->r, i, COL_CATALOG);
}

bool store_token_rows_time(const struct store_token_rows *v, int i, enum store_token_time which,
                           int64_t *us)
{
    int col = which == STORE_TOKEN_CREATED   ? COL_CREATED
              : which == STORE_TOKEN_EXPIRES ? COL_EXPIRES
                                             : COL_REVOKED;
    if (db_isnull(v->r, i, col))
        return false;
    *us = db_i64(v->r, i, col);
    return true;
}

const char *store_token_rows_created_by(const struct store_token_rows *v, int i)
{
    return db_str(v->r, i, COL_BY);
}

void store_token_rows_free(struct store_token_rows *v)
{
    PQclear(v->r);
    v->r = NULL;
}

int store_token_insert(struct db_conn *c, const struct store_token_new *t,
                       const uint8_t digest[SHA256_BYTES], struct store_token_rows *out,
                       struct error *err)
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
    out->r = db_exec(c->pg,
                     "WITH t AS (INSERT INTO hog_token (name, role, catalog_id, secret_hash,"
                     " expires_at, created_by) VALUES ($1, $2, $3, $4::bytea,"
                     " now() + make_interval(secs => $5::bigint), $6::uuid) RETURNING *)"
                     " SELECT " TOKEN_COLUMNS " FROM t LEFT JOIN hog_catalog c USING (catalog_id)",
                     &p, err);
    return out->r ? 0 : -1;
}

int store_token_list(struct db_conn *c, struct store_token_rows *out, struct error *err)
{
    out->r = db_exec(c->pg,
                     "SELECT " TOKEN_COLUMNS " FROM hog_token t LEFT JOIN hog_catalog c"
                     " USING (catalog_id) ORDER BY t.created_at DESC, t.token_id",
                     NULL, err);
    return out->r ? 0 : -1;
}

int store_token_revoke(struct db_conn *c, const char *token_id, struct error *err)
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
    bool found = PQntuples(r) == 1;
    PQclear(r);
    return found ? 1 : 0;
}

int store_token_has_live_admin(struct db_conn *c, struct error *err)
{
    PGresult *r = db_exec(c->pg,
                          "SELECT EXISTS (SELECT 1 FROM hog_token WHERE role = 'admin' AND"
                          " revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now()))",
                          NULL, err);
    if (!r)
        return -1;
    bool exists = db_bool(r, 0, 0);
    PQclear(r);
    return exists ? 1 : 0;
}

int store_token_lock_bootstrap(struct db_conn *c, struct error *err)
{
    return db_run(c->pg, "SELECT pg_advisory_xact_lock(" BOOTSTRAP_LOCK_KEY ")", NULL, err);
}

int store_token_revoke_bootstrap_admins(struct db_conn *c, struct error *err)
{
    return db_run(c->pg,
                  "UPDATE hog_token SET revoked_at = now() WHERE role = 'admin' AND"
                  " created_by IS NULL AND revoked_at IS NULL",
                  NULL, err);
}

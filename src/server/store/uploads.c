#include "server/store/uploads.h"

#include "server/db/db.h"

#define CLAIM_COLUMNS                                                                              \
    "upload_id::text, owner::text, prefix, path, file_kind, state,"                                \
    " (extract(epoch FROM expires_at) * 1000000)::bigint"

/* The claims the INSERT makes come from its RETURNING: the SELECT beside
 * it sees the table as it was before the statement. */
static const char claim_sql[] =
    "WITH ins AS (INSERT INTO hog_upload (catalog_id, upload_id, owner, prefix, path, file_kind,"
    "   expires_at)"
    "  SELECT $1, u.id, $2::uuid, $3, u.path, $4, now() + make_interval(secs => $7)"
    "  FROM unnest($5::uuid[], $6::text[]) AS u(id, path)"
    "  ON CONFLICT DO NOTHING RETURNING " CLAIM_COLUMNS ")"
    " SELECT * FROM ins UNION ALL SELECT " CLAIM_COLUMNS " FROM hog_upload"
    " WHERE catalog_id = $1 AND upload_id = ANY($5::uuid[])";

/* Abandoning queues at once: the writer says it is done with the paths.
 * Registered claims (their commit landed) never match. */
static const char abandon_sql[] =
    "WITH a AS (UPDATE hog_upload SET state = 'abandoned', last_scheduled_at = now()"
    "  WHERE catalog_id = $1 AND owner = $2::uuid AND state = 'active'"
    "  AND ($3::text[] IS NULL OR path = ANY($3::text[])) RETURNING path, file_kind),"
    " q AS (INSERT INTO hog_file_removal (catalog_id, path, file_kind, reason)"
    "  SELECT $1, path, file_kind, 'upload_abandoned' FROM a)"
    " SELECT count(*) FROM a";

static const char fence_expired_sql[] =
    "UPDATE hog_upload SET state = 'abandoned' WHERE catalog_id = $1 AND upload_id IN"
    " (SELECT upload_id FROM hog_upload WHERE catalog_id = $1 AND state = 'active'"
    "  AND expires_at < now() ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED)";

static const char queue_abandoned_sql[] =
    "WITH a AS (UPDATE hog_upload SET last_scheduled_at = now() WHERE catalog_id = $1"
    "  AND upload_id IN (SELECT upload_id FROM hog_upload WHERE catalog_id = $1"
    "   AND state = 'abandoned' AND last_scheduled_at IS NULL LIMIT $2 FOR UPDATE SKIP LOCKED)"
    "  RETURNING path, file_kind),"
    " q AS (INSERT INTO hog_file_removal (catalog_id, path, file_kind, reason)"
    "  SELECT $1, path, file_kind, 'upload_abandoned' FROM a)"
    " SELECT count(*) FROM a";

int store_uploads_count(const struct store_uploads_rows *v)
{
    return PQntuples(v->r);
}

const char *store_uploads_id(const struct store_uploads_rows *v, int i)
{
    return db_str(v->r, i, 0);
}

const char *store_uploads_owner(const struct store_uploads_rows *v, int i)
{
    return db_str(v->r, i, 1);
}

const char *store_uploads_prefix(const struct store_uploads_rows *v, int i)
{
    return db_str(v->r, i, 2);
}

const char *store_uploads_path(const struct store_uploads_rows *v, int i)
{
    return db_str(v->r, i, 3);
}

const char *store_uploads_kind(const struct store_uploads_rows *v, int i)
{
    return db_str(v->r, i, 4);
}

const char *store_uploads_state(const struct store_uploads_rows *v, int i)
{
    return db_str(v->r, i, 5);
}

int64_t store_uploads_expires_us(const struct store_uploads_rows *v, int i)
{
    return db_i64(v->r, i, 6);
}

void store_uploads_rows_free(struct store_uploads_rows *v)
{
    PQclear(v->r);
    v->r = NULL;
}

int store_uploads_claim(PGconn *pg, int64_t catalog_id, const char *owner, const char *prefix,
                        const char *kind, const char *ids_array, const char *paths_array,
                        int64_t lease_s, struct store_uploads_rows *out, struct error *err)
{
    struct db_params p;
    DB_PARAMS_IDS(&p, catalog_id);
    db_param_str(&p, owner);
    db_param_str(&p, prefix);
    db_param_str(&p, kind);
    db_param_str(&p, ids_array);
    db_param_str(&p, paths_array);
    db_param_i64(&p, lease_s);
    out->r = db_exec(pg, claim_sql, &p, err);
    return out->r ? 0 : -1;
}

int store_uploads_renew(PGconn *pg, int64_t catalog_id, const char *owner, int64_t lease_s,
                        int64_t *renewed, struct error *err)
{
    struct db_params p;
    DB_PARAMS_IDS(&p, catalog_id);
    db_param_str(&p, owner);
    db_param_i64(&p, lease_s);
    return db_run_count(pg,
                        "UPDATE hog_upload SET expires_at = now() + make_interval(secs => $3)"
                        " WHERE catalog_id = $1 AND owner = $2::uuid AND state = 'active'",
                        &p, renewed, err);
}

int store_uploads_abandon(PGconn *pg, int64_t catalog_id, const char *owner,
                          const char *paths_array, int64_t *abandoned, struct error *err)
{
    struct db_params p;
    DB_PARAMS_IDS(&p, catalog_id);
    db_param_str(&p, owner);
    db_param_str(&p, paths_array);
    return db_scalar_i64(pg, abandon_sql, &p, abandoned, err) < 0 ? -1 : 0;
}

int store_uploads_schedule_expired(PGconn *pg, int64_t catalog_id, int64_t limit,
                                   int64_t *scheduled, struct error *err)
{
    struct db_params p;
    DB_PARAMS_IDS(&p, catalog_id, limit);
    if (db_run(pg, fence_expired_sql, &p, err) != 0)
        return -1;
    return db_scalar_i64(pg, queue_abandoned_sql, &p, scheduled, err) < 0 ? -1 : 0;
}

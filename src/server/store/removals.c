#include "server/store/removals.h"

#include "server/db/db.h"

/* A claimable row: undrained, not under someone's live lease, past its
 * retry backoff, and (for compaction staging) past the grace period. */
static const char claim_sql[] =
    "UPDATE hog_file_removal SET claimed_at = now(), claimed_by = $2"
    " WHERE removal_id IN (SELECT removal_id FROM hog_file_removal"
    "  WHERE catalog_id = $1 AND drained_at IS NULL"
    "  AND (claimed_at IS NULL OR claimed_at < now() - make_interval(secs => $4))"
    "  AND (last_attempt_at IS NULL OR last_attempt_at <"
    "   now() - make_interval(secs => power(2, least(attempts, 12))))"
    "  AND (reason <> 'compaction_staging' OR scheduled_at < now() - make_interval(secs => $5))"
    "  ORDER BY removal_id LIMIT $3 FOR UPDATE SKIP LOCKED)"
    " RETURNING removal_id, path";

/* The one reference check: each probe is an index lookup on (catalog_id,
 * path) (hog_data_file_path, hog_delete_file_path, hog_upload's unique
 * key). Ended rows count: an ended file is still readable by time travel
 * until expiry purges its row. */
static const char referenced_sql[] =
    "SELECT p FROM unnest($2::text[]) AS p"
    " WHERE EXISTS (SELECT 1 FROM hog_data_file WHERE catalog_id = $1 AND path = p)"
    " OR EXISTS (SELECT 1 FROM hog_delete_file WHERE catalog_id = $1 AND path = p)"
    " OR EXISTS (SELECT 1 FROM hog_upload WHERE catalog_id = $1 AND path = p"
    "  AND state = 'active')";

/* One statement per outcome, each an = ANY on the primary key: a join
 * with unnest($ids, $outcomes) let the planner, once autoanalyze had seen
 * the claims, run a nested loop rescanning the array per row (300-550 ms
 * for 1000 rows instead of ~10). */
static const char settle_sql[] =
    "UPDATE hog_file_removal SET drained_at = now(), drained_outcome = $3,"
    " attempts = attempts + 1, last_attempt_at = now()"
    " WHERE catalog_id = $1 AND removal_id = ANY($2::bigint[]) AND claimed_by = $4"
    " AND drained_at IS NULL";

static const char release_sql[] =
    "UPDATE hog_file_removal SET claimed_at = NULL, claimed_by = NULL,"
    " attempts = attempts + 1, last_attempt_at = now()"
    " WHERE catalog_id = $1 AND removal_id = ANY($2::bigint[]) AND claimed_by = $3"
    " AND drained_at IS NULL";

static const char depth_sql[] =
    "SELECT count(*) FROM hog_file_removal WHERE catalog_id = $1 AND drained_at IS NULL";

int store_removals_claimed_count(const struct store_removals_claimed *v)
{
    return PQntuples(v->r);
}

int64_t store_removals_claimed_id(const struct store_removals_claimed *v, int i)
{
    return db_i64(v->r, i, 0);
}

const char *store_removals_claimed_path(const struct store_removals_claimed *v, int i)
{
    return db_str(v->r, i, 1);
}

void store_removals_claimed_free(struct store_removals_claimed *v)
{
    PQclear(v->r);
    v->r = NULL;
}

int store_removals_claim(PGconn *pg, int64_t catalog_id, const char *token, int64_t limit,
                         int64_t lease_s, int64_t grace_s, struct store_removals_claimed *out,
                         struct error *err)
{
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, catalog_id);
    db_param_str(&p, token);
    db_param_i64(&p, limit);
    db_param_i64(&p, lease_s);
    db_param_i64(&p, grace_s);
    out->r = db_exec(pg, claim_sql, &p, err);
    return out->r ? 0 : -1;
}

int store_removals_referenced(PGconn *pg, int64_t catalog_id, const char *paths_array,
                              struct store_removals_paths *out, struct error *err)
{
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, catalog_id);
    db_param_str(&p, paths_array);
    out->r = db_exec(pg, referenced_sql, &p, err);
    return out->r ? 0 : -1;
}

int store_removals_paths_count(const struct store_removals_paths *v)
{
    return PQntuples(v->r);
}

const char *store_removals_paths_path(const struct store_removals_paths *v, int i)
{
    return db_str(v->r, i, 0);
}

void store_removals_paths_free(struct store_removals_paths *v)
{
    PQclear(v->r);
    v->r = NULL;
}

int store_removals_settle(PGconn *pg, int64_t catalog_id, const char *ids_array,
                          const char *outcome, const char *token, int64_t *settled,
                          struct error *err)
{
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, catalog_id);
    db_param_str(&p, ids_array);
    db_param_str(&p, outcome);
    db_param_str(&p, token);
    return db_run_count(pg, settle_sql, &p, settled, err);
}

int store_removals_release(PGconn *pg, int64_t catalog_id, const char *ids_array, const char *token,
                           int64_t *released, struct error *err)
{
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, catalog_id);
    db_param_str(&p, ids_array);
    db_param_str(&p, token);
    return db_run_count(pg, release_sql, &p, released, err);
}

/* One row of bigint columns about the catalog's queue ($1 the catalog). */
static PGresult *queue_row(PGconn *pg, const char *sql, int64_t catalog_id, struct error *err)
{
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, catalog_id);
    return db_exec(pg, sql, &p, err);
}

int store_removals_depth(PGconn *pg, int64_t catalog_id, int64_t *depth, struct error *err)
{
    PGresult *r = queue_row(pg, depth_sql, catalog_id, err);
    if (!r)
        return -1;
    *depth = db_i64(r, 0, 0);
    PQclear(r);
    return 0;
}

int store_removals_backlog(PGconn *pg, int64_t catalog_id, struct store_removals_backlog *out,
                           struct error *err)
{
    PGresult *r =
        queue_row(pg,
                  "SELECT count(*), COALESCE(extract(epoch FROM now() - min(scheduled_at)),"
                  " 0)::bigint FROM hog_file_removal"
                  " WHERE catalog_id = $1 AND drained_at IS NULL",
                  catalog_id, err);
    if (!r)
        return -1;
    out->queued = db_i64(r, 0, 0);
    out->oldest_age_s = db_i64(r, 0, 1);
    PQclear(r);
    return 0;
}

int store_removals_purge_ledger(PGconn *pg, int64_t retention_s, int64_t limit, int64_t *purged,
                                struct error *err)
{
    struct db_params p;
    DB_PARAMS_IDS(&p, retention_s, limit);
    return db_run_count(pg,
                        "DELETE FROM hog_file_removal WHERE removal_id IN (SELECT removal_id"
                        " FROM (SELECT removal_id, drained_at FROM hog_file_removal"
                        " ORDER BY removal_id LIMIT $2) head"
                        " WHERE drained_at < now() - make_interval(secs => $1))",
                        &p, purged, err);
}

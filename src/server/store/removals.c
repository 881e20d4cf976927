#include "server/store/removals.h"

#include "server/db/db.h"

/* A claimable row: undrained, not under someone's live lease, past its
 * retry backoff, and (for compaction staging) past the grace period.
 *
 * The walk must start at the first undrained row. The queue is FIFO and
 * its drained rows stay as the ledger, in front of the undrained ones in
 * removal_id order; the planner cannot see that and, ordering by
 * removal_id, took the primary key and walked every drained row on each
 * claim (42 ms a claim behind 200,000 drained rows in the 1x bench/scale
 * catalog, more as the ledger grows). The order (catalog_id, removal_id)
 * over a range of one catalog is one only hog_file_removal_drain gives:
 * 1.7 ms to the first row, 12.6 ms the claim. */
static const char claim_sql[] =
    "UPDATE hog_file_removal SET claimed_at = now(), claimed_by = $2"
    " WHERE removal_id IN (SELECT removal_id FROM hog_file_removal"
    "  WHERE catalog_id >= $1 AND catalog_id <= $1 AND drained_at IS NULL"
    "  AND (claimed_at IS NULL OR claimed_at < now() - make_interval(secs => $4))"
    "  AND (last_attempt_at IS NULL OR last_attempt_at <"
    "   now() - make_interval(secs => power(2, least(attempts, 12))))"
    "  AND (reason <> 'compaction_staging' OR scheduled_at < now() - make_interval(secs => $5))"
    "  AND ($6::bigint[] IS NULL OR removal_id = ANY($6::bigint[]))"
    "  ORDER BY catalog_id, removal_id LIMIT $3 FOR UPDATE SKIP LOCKED)"
    " RETURNING removal_id, path";

/* The one reference check: each probe is an index lookup on (catalog_id,
 * path) (hog_data_file_path, hog_delete_file_path, hog_upload's unique
 * key). Ended rows count: an ended file is still readable by time travel
 * until expiry purges its row. $3: a table whose rows do not count (the
 * one retirement reclaims), or NULL. */
static const char referenced_sql[] =
    "SELECT p FROM unnest($2::text[]) AS p"
    " WHERE EXISTS (SELECT 1 FROM hog_data_file WHERE catalog_id = $1 AND path = p"
    "  AND table_id IS DISTINCT FROM $3::bigint)"
    " OR EXISTS (SELECT 1 FROM hog_delete_file WHERE catalog_id = $1 AND path = p"
    "  AND table_id IS DISTINCT FROM $3::bigint)"
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

/* A statement over the catalog ($1) and one array literal ($2). */
static PGresult *catalog_paths(PGconn *pg, const char *sql, int64_t catalog_id, const char *array,
                               struct error *err)
{
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, catalog_id);
    db_param_str(&p, array);
    return db_exec(pg, sql, &p, err);
}

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
                         int64_t lease_s, int64_t grace_s, const char *only_ids,
                         struct store_removals_claimed *out, struct error *err)
{
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, catalog_id);
    db_param_str(&p, token);
    db_param_i64(&p, limit);
    db_param_i64(&p, lease_s);
    db_param_i64(&p, grace_s);
    db_param_str(&p, only_ids);
    out->r = db_exec(pg, claim_sql, &p, err);
    return out->r ? 0 : -1;
}

int store_removals_referenced(PGconn *pg, int64_t catalog_id, int64_t except_table_id,
                              const char *paths_array, struct store_removals_paths *out,
                              struct error *err)
{
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, catalog_id);
    db_param_str(&p, paths_array);
    if (except_table_id > 0)
        db_param_i64(&p, except_table_id);
    else
        db_param_null(&p);
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

int store_removals_analyze_after(PGconn *pg, int64_t queued, struct error *err)
{
    if (queued < STORE_REMOVALS_ANALYZE_ROWS)
        return 0;
    return db_run(pg, "ANALYZE hog_file_removal", NULL, err);
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

/* ---- the orphan sweep ---- */

/* Each listed path ($2, in order) with why it is kept, NULL for an orphan:
 * index lookups on (catalog_id, path) as in referenced_sql. An ended file
 * row keeps its object (time travel reads it until expiry purges the row);
 * an active upload claim keeps it, as cleanup's re-check does (a claim past
 * its lease is abandoned and queued by cleanup's runs, and so deleted
 * there); an undrained queue row (a compaction staging ticket too) already
 * owns its fate. */
#define ORPHAN_CLASS_SQL                                                                           \
    "SELECT u.p, CASE"                                                                             \
    " WHEN EXISTS (SELECT 1 FROM hog_data_file WHERE catalog_id = $1 AND path = u.p)"              \
    "  OR EXISTS (SELECT 1 FROM hog_delete_file WHERE catalog_id = $1 AND path = u.p)"             \
    "  THEN 1"                                                                                     \
    " WHEN EXISTS (SELECT 1 FROM hog_upload WHERE catalog_id = $1 AND path = u.p"                  \
    "  AND state = 'active') THEN 2"                                                               \
    " WHEN EXISTS (SELECT 1 FROM hog_file_removal WHERE catalog_id = $1 AND path = u.p"            \
    "  AND drained_at IS NULL) THEN 3"                                                             \
    " ELSE 0 END AS class, u.i"                                                                    \
    " FROM unnest($2::text[]) WITH ORDINALITY AS u(p, i)"

_Static_assert(STORE_ORPHAN_NONE == 0 && STORE_ORPHAN_REFERENCED == 1 &&
                   STORE_ORPHAN_CLAIMED == 2 && STORE_ORPHAN_QUEUED == 3,
               "ORPHAN_CLASS_SQL's class numbers");

int store_removals_classify(PGconn *pg, int64_t catalog_id, const char *paths_array,
                            struct store_removals_classes *out, struct error *err)
{
    out->r = catalog_paths(pg, ORPHAN_CLASS_SQL " ORDER BY u.i", catalog_id, paths_array, err);
    return out->r ? 0 : -1;
}

int store_removals_classes_count(const struct store_removals_classes *v)
{
    return PQntuples(v->r);
}

enum store_orphan_class store_removals_classes_class(const struct store_removals_classes *v, int i)
{
    return (enum store_orphan_class)db_i64(v->r, i, 1);
}

void store_removals_classes_free(struct store_removals_classes *v)
{
    PQclear(v->r);
    v->r = NULL;
}

int store_removals_queue_orphans(PGconn *pg, int64_t catalog_id, const char *paths_array,
                                 struct store_removals_claimed *out, struct error *err)
{
    out->r = catalog_paths(pg,
                           "INSERT INTO hog_file_removal (catalog_id, path, file_kind, reason)"
                           " SELECT $1, c.p, 'data', 'orphan_sweep' FROM (" ORPHAN_CLASS_SQL
                           ") c WHERE c.class = 0 ORDER BY c.i RETURNING removal_id, path",
                           catalog_id, paths_array, err);
    return out->r ? 0 : -1;
}

int store_removals_outcomes(PGconn *pg, int64_t catalog_id, const char *ids_array,
                            struct store_removals_outcomes *out, struct error *err)
{
    out->r = catalog_paths(pg,
                           "SELECT removal_id, drained_outcome FROM hog_file_removal"
                           " WHERE catalog_id = $1 AND removal_id = ANY($2::bigint[])",
                           catalog_id, ids_array, err);
    return out->r ? 0 : -1;
}

int store_removals_outcomes_count(const struct store_removals_outcomes *v)
{
    return PQntuples(v->r);
}

int64_t store_removals_outcomes_id(const struct store_removals_outcomes *v, int i)
{
    return db_i64(v->r, i, 0);
}

const char *store_removals_outcomes_outcome(const struct store_removals_outcomes *v, int i)
{
    return db_isnull(v->r, i, 1) ? NULL : db_str(v->r, i, 1);
}

void store_removals_outcomes_free(struct store_removals_outcomes *v)
{
    PQclear(v->r);
    v->r = NULL;
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

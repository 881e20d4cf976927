/* The store of file removals: owns hog_file_removal, the queue of objects
 * to delete and, once drained, the removal ledger. Cleanup's statements:
 * claiming rows under a lease, checking claimed paths against what still
 * names them (hog_data_file, hog_delete_file, hog_upload), settling and
 * releasing claims, the queue's depth and backlog, and purging old ledger
 * rows. (Expiry queues rows with its purges: store/retention.h.)
 *
 * Every statement autocommits: the caller holds no transaction. Id and
 * path lists travel as PostgreSQL array literals (db/pgarray.h). */
#ifndef HL_SERVER_STORE_REMOVALS_H
#define HL_SERVER_STORE_REMOVALS_H

#include <libpq-fe.h>
#include <stdint.h>

struct error;

/* Rows a claim leased: removal id and path, over the query's result. */
struct store_removals_claimed {
    PGresult *r;
};
int store_removals_claimed_count(const struct store_removals_claimed *v);
int64_t store_removals_claimed_id(const struct store_removals_claimed *v, int i);
const char *store_removals_claimed_path(const struct store_removals_claimed *v, int i);
void store_removals_claimed_free(struct store_removals_claimed *v);

/* Leases up to limit claimable rows of the catalog to `token`: undrained,
 * not under a live lease (lease_s), past their retry backoff and, for
 * compaction staging, past grace_s; only rows of only_ids (a bigint[]
 * literal) unless it is NULL. */
int store_removals_claim(PGconn *pg, int64_t catalog_id, const char *token, int64_t limit,
                         int64_t lease_s, int64_t grace_s, const char *only_ids,
                         struct store_removals_claimed *out, struct error *err);

/* The paths (of paths_array) a file row, a DV row or an active upload
 * still names, over the query's result; the rows of except_table_id (the
 * table retirement reclaims; 0: none) do not count. */
struct store_removals_paths {
    PGresult *r;
};
int store_removals_referenced(PGconn *pg, int64_t catalog_id, int64_t except_table_id,
                              const char *paths_array, struct store_removals_paths *out,
                              struct error *err);
int store_removals_paths_count(const struct store_removals_paths *v);
const char *store_removals_paths_path(const struct store_removals_paths *v, int i);
void store_removals_paths_free(struct store_removals_paths *v);

/* Drains the rows of ids_array still claimed by token as `outcome`;
 * *settled how many it held. */
int store_removals_settle(PGconn *pg, int64_t catalog_id, const char *ids_array,
                          const char *outcome, const char *token, int64_t *settled,
                          struct error *err);
/* Releases the claims of ids_array token holds after a failed delete,
 * counting an attempt (the backoff); *released how many it held. */
int store_removals_release(PGconn *pg, int64_t catalog_id, const char *ids_array, const char *token,
                           int64_t *released, struct error *err);

/* The catalog's undrained rows. */
int store_removals_depth(PGconn *pg, int64_t catalog_id, int64_t *depth, struct error *err);

struct store_removals_backlog {
    int64_t queued;
    int64_t oldest_age_s; /* 0 when none */
};
int store_removals_backlog(PGconn *pg, int64_t catalog_id, struct store_removals_backlog *out,
                           struct error *err);

/* Rows queued in one run from which the queue's planner statistics are
 * refreshed at once (store_removals_analyze_after). */
enum { STORE_REMOVALS_ANALYZE_ROWS = 10000 };

/* ANALYZEs hog_file_removal when a run just queued `queued` rows, at
 * least STORE_REMOVALS_ANALYZE_ROWS: a queue grown from a few rows to
 * millions by one expiry (or, before migration 18, retirement) would otherwise be planned as the
 * small table its statistics describe until autovacuum comes by (cleanup's
 * claims and settles sorted or bitmap-scanned the whole queue: 0.7 s and
 * 0.26 s each). Runs outside any transaction; 0 also when skipped. */
int store_removals_analyze_after(PGconn *pg, int64_t queued, struct error *err);

/* ---- the orphan sweep ---- */

/* Why a listed path is kept: a data or deletion-vector row names it (live
 * or ended), an active unexpired upload claim names it, or an undrained
 * queue row (a staging ticket included) already holds it. NONE: an
 * orphan. */
enum store_orphan_class {
    STORE_ORPHAN_NONE,
    STORE_ORPHAN_REFERENCED,
    STORE_ORPHAN_CLAIMED,
    STORE_ORPHAN_QUEUED
};

/* The class of each path of paths_array, in its order, over the result. */
struct store_removals_classes {
    PGresult *r;
};
int store_removals_classify(PGconn *pg, int64_t catalog_id, const char *paths_array,
                            struct store_removals_classes *out, struct error *err);
int store_removals_classes_count(const struct store_removals_classes *v);
enum store_orphan_class store_removals_classes_class(const struct store_removals_classes *v, int i);
void store_removals_classes_free(struct store_removals_classes *v);

/* Queues the paths of paths_array that are still orphans (the classes
 * above, checked again in the same statement) with reason orphan_sweep.
 * The caller holds the catalog's transaction lock, so no commit registers
 * one of them between that check and the insert; once queued, the path
 * guard keeps commits off them. Returns the queued rows (removal id and
 * path) in out, whose view is store_removals_claimed's. */
int store_removals_queue_orphans(PGconn *pg, int64_t catalog_id, const char *paths_array,
                                 struct store_removals_claimed *out, struct error *err);

/* The drained outcome of each row of ids_array (removal id, then the
 * outcome or NULL while undrained), over the result. */
struct store_removals_outcomes {
    PGresult *r;
};
int store_removals_outcomes(PGconn *pg, int64_t catalog_id, const char *ids_array,
                            struct store_removals_outcomes *out, struct error *err);
int store_removals_outcomes_count(const struct store_removals_outcomes *v);
int64_t store_removals_outcomes_id(const struct store_removals_outcomes *v, int i);
/* "deleted", "absent", "registered", "refused", or NULL (undrained). */
const char *store_removals_outcomes_outcome(const struct store_removals_outcomes *v, int i);
void store_removals_outcomes_free(struct store_removals_outcomes *v);

/* Deletes the ledger rows (any catalog) drained more than retention_s
 * seconds ago among the limit oldest rows; *purged how many. */
int store_removals_purge_ledger(PGconn *pg, int64_t retention_s, int64_t limit, int64_t *purged,
                                struct error *err);

#endif

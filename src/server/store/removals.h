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
 * compaction staging, past grace_s. */
int store_removals_claim(PGconn *pg, int64_t catalog_id, const char *token, int64_t limit,
                         int64_t lease_s, int64_t grace_s, struct store_removals_claimed *out,
                         struct error *err);

/* The paths (of paths_array) a file row, a DV row or an active upload
 * still names, over the query's result. */
struct store_removals_paths {
    PGresult *r;
};
int store_removals_referenced(PGconn *pg, int64_t catalog_id, const char *paths_array,
                              struct store_removals_paths *out, struct error *err);
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

/* Deletes the ledger rows (any catalog) drained more than retention_s
 * seconds ago among the limit oldest rows; *purged how many. */
int store_removals_purge_ledger(PGconn *pg, int64_t retention_s, int64_t limit, int64_t *purged,
                                struct error *err);

#endif

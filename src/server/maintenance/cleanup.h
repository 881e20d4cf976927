/* Cleanup: drains a catalog's removal queue (hog_file_removal) by deleting
 * objects nothing references any more.
 *
 * A queue row never authorises a delete by itself. Each sub-batch runs
 *   CLAIM  one autocommitted UPDATE leases rows (claimed_at/claimed_by,
 *          FOR UPDATE SKIP LOCKED), so concurrent passes on any number of
 *          servers never work the same row while its lease holds;
 *   WORK   with no transaction open: one indexed query finds the claimed
 *          paths a data file row, a DV row (live or ended) or an active
 *          upload still names; those are never deleted (counted
 *          still_referenced and logged as cleanup_violation). The rest
 *          are deleted: file:// one unlink each (so a missing object is
 *          told apart), S3 in DeleteObjects requests of up to 1000 keys
 *          (S3 cannot tell a missing key: it counts as removed);
 *   SETTLE one UPDATE fenced on claimed_by and drained_at IS NULL: the
 *          row is drained 'deleted', 'absent' (missing) or 'registered'
 *          (still referenced; the queue was wrong, the file row stays the
 *          owner); a failed delete releases the claim, counts an attempt
 *          and waits out a backoff of 2^attempts seconds (at most an hour)
 *          before the row can be claimed again.
 * While a row is undrained no commit may register its path (server/commit/commit.c's
 * path guard), so nothing can start referencing it between WORK's check
 * and the delete. */
#ifndef HL_SERVER_MAINTENANCE_CLEANUP_H
#define HL_SERVER_MAINTENANCE_CLEANUP_H

#include <jansson.h>
#include <libpq-fe.h>
#include <stdint.h>

#include "server/maintenance/reap.h"

struct server;
struct error;

/* Rows per CLAIM: one S3 DeleteObjects request. */
enum { CLEANUP_SUB_BATCH = 1000 };
/* Default and largest rows per pass (per call of cleanup_pass). */
enum { CLEANUP_DEFAULT_BATCH = 2000, CLEANUP_MAX_BATCH = 100000 };
/* A claim older than this is abandoned (its server died mid-pass) and
 * may be taken over. */
enum { CLEANUP_CLAIM_LEASE_SECONDS = 900 };
/* compaction_staging rows wait this long before they may be claimed. */
enum { CLEANUP_STAGING_GRACE_SECONDS = 3600 };

struct cleanup_result {
    /* By enum reap_outcome: objects deleted (rows drained 'deleted'),
     * already gone ('absent'), paths a file row or upload names (not
     * deleted), paths outside the data path, links, non-files (not
     * deleted), deletes that failed (claim released, retried later). */
    int64_t objects[REAP_OUTCOMES];
    int64_t settled_elsewhere; /* rows another pass took over after our lease ran out */
    int64_t queue_depth;       /* undrained rows of the catalog after the pass */
};

/* One pass over the catalog's queue: claims, works and settles sub-batches
 * of up to CLEANUP_SUB_BATCH rows until `batch` rows were claimed or none
 * is claimable. `pg` must not be inside a transaction; every statement
 * autocommits. Deletes only through a view of srv->objstore confined to
 * the catalog's data path (server/storage_guard.h): a refused path is drained
 * 'refused', audited and never retried. Records the metrics
 * hoglake_files_removed_total{result} and hoglake_removal_queue_depth
 * {catalog}. Returns 0 (out filled; failed deletes are counted, not
 * errors) or -1 with err filled when the database fails; rows claimed
 * before a failure are retaken once their lease ends. Thread-safe:
 * passes may run concurrently on distinct connections. */
struct catalog_row;
int cleanup_pass(struct server *srv, PGconn *pg, const struct catalog_row *cat, int64_t batch,
                 struct cleanup_result *out, struct error *err);

/* The same claim, work and settle, on exactly the n undrained rows of
 * ids_array (a PostgreSQL bigint[] literal) of the catalog: the orphan
 * sweep drains the rows it queued. Rows another pass holds under a live
 * lease are left to it. Returns as cleanup_pass. */
int cleanup_drain_ids(struct server *srv, PGconn *pg, const struct catalog_row *cat,
                      const char *ids_array, int64_t n, struct cleanup_result *out,
                      struct error *err);

/* Drained queue rows are the removal ledger; they are kept this long. */
enum { CLEANUP_LEDGER_RETENTION_SECONDS = 30 * 86400 };

/* Deletes the ledger rows (any catalog) drained more than retention_s
 * seconds ago among the `limit` oldest queue rows (primary-key order, so
 * each call reads at most `limit` rows however large the ledger; rows are
 * queued and drained roughly in id order, so the old ones come first);
 * *purged gets how many went. For the cleanup runs. Returns 0 or -1 with
 * err filled. */
int cleanup_purge_ledger(PGconn *pg, int64_t retention_s, int64_t limit, int64_t *purged,
                         struct error *err);

/* CleanupResult as the API returns it (new reference, NULL without memory). */
json_t *cleanup_result_json(const struct cleanup_result *r);

/* Expired or abandoned upload claims one run queues at most. */
enum { CLEANUP_UPLOAD_SCHEDULE_LIMIT = 1000 };

/* Ledger rows one run purges at most. */
enum { CLEANUP_LEDGER_PURGE_LIMIT = 10000 };

/* Maintenance runs are kept this long (contract 7.2). */
enum { CLEANUP_RUNS_RETENTION_SECONDS = 7 * 86400 };
/* Receipts are kept at least twice the catalog's snapshot retention, up
 * to this cap, whatever the configured receipt retention. */
enum { CLEANUP_RECEIPT_FLOOR_CAP_SECONDS = 30 * 86400 };

/* The cleanup maintenance task (maintenance.h): one pass of `batch` rows
 * over a catalog, after queueing up to CLEANUP_UPLOAD_SCHEDULE_LIMIT expired
 * or abandoned upload claims (`uploads_scheduled`), then bounded purges (at most
 * CLEANUP_LEDGER_PURGE_LIMIT rows each) of old ledger rows (all catalogs), of the catalog's
 * maintenance runs older than 7 days and of its commit receipts older than
 * its effective receipt retention. The result is cleanup_result_json's
 * plus `ledger_purged`, `runs_purged`, `receipts_purged` and
 * `receipts_purge_failures`: a failed receipt purge is counted (also in
 * hoglake_commit_receipt_purge_failures_total), never fails the run. */
struct cleanup_task {
    struct server *srv;
    int64_t batch;
    int64_t receipt_retention_s; /* <= 0: receipts are kept forever */
};
int cleanup_task_pass(void *ctx, PGconn *pg, int64_t catalog_id, json_t **result,
                      struct error *err);
/* {queued_removals, oldest_queued_age_seconds} for /maintenance/status. */
json_t *cleanup_backlog(void *ctx, PGconn *pg, int64_t catalog_id);

#endif

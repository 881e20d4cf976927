/* Snapshot expiry (contract §7.1): moves a catalog's retention floor up and
 * removes what no readable snapshot can see any more.
 *
 * Phase A, one transaction under the catalog's advisory lock: release
 * consumer offsets superseded by a table replacement, compute the new
 * floor, range-delete the snapshots below it (their change rows cascade),
 * move earliest_snapshot_id/_time, and delete versioned metadata rows that
 * ended at or below the floor.
 * Phase B, no lock, paged (one statement per page in its own transaction):
 * delete ended data files (end_snapshot <= floor) with all their deletion
 * vectors, then ended deletion vectors of live files, queueing every path
 * into hog_file_removal with reason snapshot_expiry. */
#ifndef HL_SERVER_MAINTENANCE_EXPIRY_H
#define HL_SERVER_MAINTENANCE_EXPIRY_H

#include <jansson.h>
#include <libpq-fe.h>
#include <stdbool.h>
#include <stdint.h>

struct error;

/* What the floor is computed from; *_present false means "no bound". */
struct expiry_floor_in {
    int64_t earliest; /* current floor */
    int64_t head;
    int64_t batch; /* >= 1 */
    bool retention_enabled;
    /* First snapshot whose time is inside the retention window; absent when
     * every snapshot is older (head then bounds the floor). */
    bool window_present;
    int64_t window_first;
    /* Lowest consumer offset on an existing table; only honoured when
     * consumer_floor is on. */
    bool consumer_floor;
    bool consumer_present;
    int64_t consumer_min;
};

/* The new floor: min(window, head, consumer offset, earliest + batch),
 * never below the current floor. Retention disabled: the current floor.
 * *by_consumer says the consumer offset was the binding bound. */
int64_t expiry_floor(const struct expiry_floor_in *in, bool *by_consumer);

struct expiry_options {
    int64_t batch;           /* snapshots per run, >= 1 */
    int64_t purge_page;      /* file rows per phase-B page, 1..50000 */
    int64_t purge_budget_ms; /* phase B stops starting pages after this */
    int lock_timeout_ms;     /* phase A's wait for the catalog lock; 0 = none */
};

struct expiry_result {
    int64_t snapshots_expired;
    int64_t data_files_queued;
    int64_t delete_files_queued;
    int64_t new_earliest;
    bool floored_by_consumer;
    int64_t offsets_released;
    int64_t purge_pages;
    bool purge_truncated;     /* the budget ran out with rows left */
    int64_t advance_halvings; /* phase A retried with half the batch */
    int64_t purge_failures;   /* phase-B pages that failed */
    int64_t purge_halvings;   /* ... and were retried with half the rows */
    int64_t purge_page;       /* the page size phase B started with */
    int64_t purge_page_end;   /* ... and the one it ended with */
};

/* Runs both phases for one catalog on pg (no transaction open). Returns 0,
 * or -1 with err filled (phase B still ran when phase A failed; out then
 * holds what it did). */
int expiry_run(PGconn *pg, int64_t catalog_id, const struct expiry_options *opt,
               struct expiry_result *out, struct error *err);

/* ExpiryResult (new reference, NULL when out of memory). */
json_t *expiry_result_json(const struct expiry_result *r);

/* The expiry task for the maintenance framework (maintenance.h): ctx is a
 * struct expiry_task. The pass also counts hoglake_snapshots_expired_total
 * and refreshes the catalog's head/earliest/removal-queue gauges.
 *
 * The purge page size a run settles on after failures is remembered for
 * the process's next runs (contract 7.1), in *page_memory (0: none yet),
 * shared by the loop and manual runs: a run with failures leaves the size
 * it ended with; a clean one lets the next start at twice its own, up to
 * opt.purge_page, so a transient failure does not shrink pages for good. */
struct metrics;
struct expiry_task {
    struct expiry_options opt;
    struct metrics *metrics;
    _Atomic int64_t *page_memory;
};
int expiry_pass(void *ctx, PGconn *pg, int64_t catalog_id, json_t **result, struct error *err);
/* {snapshot_retention_seconds, consumer_floor, earliest_snapshot_id,
 * head_snapshot_id}. */
json_t *expiry_backlog(void *ctx, PGconn *pg, int64_t catalog_id);

#endif

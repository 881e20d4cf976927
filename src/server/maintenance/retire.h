/* Retirement (contract 7.5): reclaims the files and rows of dropped and
 * replaced tables once no readable snapshot can see them, that is once a
 * table's dropped_snapshot is at or below the catalog's expiry floor.
 *
 * A run works in batches, each one transaction under the catalog lock
 * (store_retention_lock, so commits and expiry's phase A serialise with
 * it): up to `batch` deletion vectors then data files of the oldest-dropped
 * eligible table are deleted and their paths queued into hog_file_removal
 * with reason table_drop_gc (cleanup then deletes the objects, after its
 * own reference check); a table with no file row left loses its catalog
 * rows. Between batches the run pauses (so commits waiting for the lock get
 * it), stops when its time budget is spent, when the removal queue holds
 * queue_ceiling undrained rows (cleanup must catch up first) or when the
 * server is stopping. */
#ifndef HL_SERVER_MAINTENANCE_RETIRE_H
#define HL_SERVER_MAINTENANCE_RETIRE_H

#include <jansson.h>
#include <libpq-fe.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct error;
struct metrics;

struct retirement_options {
    int64_t batch;         /* file rows per batch, >= 1 */
    int64_t pause_ms;      /* between batches */
    int64_t budget_ms;     /* no batch starts after this */
    int64_t queue_ceiling; /* no batch starts while the queue holds this many */
    int lock_timeout_ms;   /* each batch's wait for the catalog lock; 0 = none */
};

struct retirement_result {
    int64_t tables_retired; /* tables whose rows were purged */
    int64_t data_files_queued;
    int64_t delete_files_queued;
    int64_t batches;
    int64_t tables_pending;     /* eligible tables left after the run */
    bool truncated;             /* budget spent or server stopping with work left */
    bool queue_ceiling_reached; /* stopped for the removal queue's depth */
};

/* One run over a catalog on pg (no transaction open). `stop` (may be
 * NULL) is polled between batches and during pauses. Returns 0, or -1 with
 * err filled (out holds what the batches before the failure did; each
 * batch is committed on its own). */
int retirement_run(PGconn *pg, int64_t catalog_id, const struct retirement_options *opt,
                   const atomic_bool *stop, struct retirement_result *out, struct error *err);

/* RetirementResult (new reference, NULL when out of memory). */
json_t *retirement_result_json(const struct retirement_result *r);

/* The retirement task for the maintenance framework (maintenance.h): ctx is
 * a struct retirement_task. The pass also counts
 * hoglake_tables_retired_total and hoglake_files_retired_total{file_kind}. */
struct retirement_task {
    struct retirement_options opt;
    struct metrics *metrics;
    const atomic_bool *stop; /* set when the server stops; may be NULL */
};
int retirement_pass(void *ctx, PGconn *pg, int64_t catalog_id, json_t **result, struct error *err);
/* {eligible_tables} for /maintenance/status. */
json_t *retirement_backlog(void *ctx, PGconn *pg, int64_t catalog_id);

#endif

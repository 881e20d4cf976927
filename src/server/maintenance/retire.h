/* Retirement (contract 7.5): reclaims the files and rows of dropped and
 * replaced tables once no readable snapshot can see them, that is once a
 * table's dropped_snapshot is at or below the catalog's expiry floor.
 *
 * A run first marks every such table, in one short transaction under the
 * catalog lock (store_retention_lock, so commits and expiry's phase A
 * serialise with it): the only moment retirement holds the lock. Then,
 * without the lock, it reclaims the marked tables page by page, each page
 * one transaction holding the table's row (store/retirement.h: one worker
 * a table, across servers): up to `batch` of the table's files (DVs first)
 * are checked against other tables' file rows and active upload claims,
 * their objects deleted through the catalog's confined store (reap.h),
 * then their rows deleted; a failed delete keeps its row (retried by a
 * later run; the table is left for the rest of this one). A table with no
 * file row left loses its catalog rows. Between pages the run may pause;
 * it starts no page once its time budget is spent or the server is
 * stopping.
 *
 * Why not the removal queue (as the contract has it): the retired table's
 * file rows already list what to delete, nothing can read them, and the
 * commit path refuses their paths while they exist; moving each row into
 * the queue under the lock cost 17.6-20.9 us a row of catalog lock time
 * (docs/benchmarks.md, scale fix 21). */
#ifndef HL_SERVER_MAINTENANCE_RETIRE_H
#define HL_SERVER_MAINTENANCE_RETIRE_H

#include <jansson.h>
#include <libpq-fe.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "server/maintenance/reap.h"

struct catalog_row;
struct error;
struct server;

struct retirement_options {
    int64_t batch;       /* files per page, >= 1 */
    int64_t pause_ms;    /* between pages */
    int64_t budget_ms;   /* no page starts after this */
    int lock_timeout_ms; /* the mark's wait for the catalog lock; 0 = none */
};

struct retirement_result {
    int64_t tables_marked;  /* tables this run took for retirement */
    int64_t tables_retired; /* tables whose catalog rows were purged */
    int64_t data_files_removed;
    int64_t delete_files_removed;
    /* The objects of the files worked, by enum reap_outcome (reap.h). */
    int64_t objects[REAP_OUTCOMES];
    int64_t batches;        /* pages */
    int64_t tables_pending; /* eligible tables left after the run */
    int64_t lock_held_us;   /* time the run held the catalog lock */
    bool truncated;         /* budget spent or server stopping with work left */
};

/* One run over a catalog (loaded in cat) on pg (no transaction open).
 * `stop` (may be NULL) is polled between pages and during pauses. Returns
 * 0, or -1 with err filled (out holds what the pages before the failure
 * did; each page is committed on its own). */
int retirement_run(struct server *srv, PGconn *pg, const struct catalog_row *cat,
                   const struct retirement_options *opt, const atomic_bool *stop,
                   struct retirement_result *out, struct error *err);

/* RetirementResult (new reference, NULL when out of memory). */
json_t *retirement_result_json(const struct retirement_result *r);

/* The retirement task for the maintenance framework (maintenance.h): ctx is
 * a struct retirement_task. The pass also counts
 * hoglake_tables_retired_total and hoglake_files_retired_total{file_kind}. */
struct retirement_task {
    struct retirement_options opt;
    struct server *srv;
    const atomic_bool *stop; /* set when the server stops; may be NULL */
};
int retirement_pass(void *ctx, PGconn *pg, int64_t catalog_id, json_t **result, struct error *err);
/* {eligible_tables} for /maintenance/status. */
json_t *retirement_backlog(void *ctx, PGconn *pg, int64_t catalog_id);

#endif

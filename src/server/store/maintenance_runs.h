/* The store of maintenance runs: owns hog_maintenance_run (the ledger of
 * every pass, looped or manual) and the advisory locks on (task, catalog)
 * that keep replicas from running one task on one catalog at once. Also
 * lists the catalogs a sweep visits.
 *
 * Functions take the bare connection a pass or a handler holds; none
 * opens or ends a transaction. */
#ifndef HL_SERVER_STORE_MAINTENANCE_RUNS_H
#define HL_SERVER_STORE_MAINTENANCE_RUNS_H

#include <libpq-fe.h>
#include <stdbool.h>
#include <stdint.h>

struct error;

/* Takes the (task, catalog) session lock if free: 1 taken, 0 held
 * elsewhere, -1. */
int store_runs_try_lock(PGconn *pg, const char *task, int64_t catalog_id, struct error *err);
/* Waits for the (task, catalog) session lock up to lock_timeout_ms (0:
 * forever), then restores the session's lock_timeout. -1 with err (the
 * SQLSTATE says a lock that did not come) on failure. */
int store_runs_lock(PGconn *pg, const char *task, int64_t catalog_id, int lock_timeout_ms,
                    struct error *err);
/* Releases the (task, catalog) session lock. */
int store_runs_unlock(PGconn *pg, const char *task, int64_t catalog_id, struct error *err);

struct store_run_new {
    const char *task;
    int64_t catalog_id;
    const char *trigger; /* "loop" or "manual" */
    int64_t started_us;
    bool ok;
    const char *error;       /* when not ok; NULL or "": "failed" */
    const char *result_json; /* may be NULL */
};
/* Records a finished run in the ledger. 0 with *catalog_name the catalog's
 * name (malloc'd; NULL when the catalog is gone or memory ran out), or -1. */
int store_runs_record(PGconn *pg, const struct store_run_new *run, char **catalog_name,
                      struct error *err);

/* Ledger rows as the API shows them, over the query's result. */
struct store_runs_rows {
    PGresult *r;
};
int store_runs_rows_count(const struct store_runs_rows *v);
int64_t store_runs_rows_id(const struct store_runs_rows *v, int i);
const char *store_runs_rows_catalog(const struct store_runs_rows *v, int i);
const char *store_runs_rows_task(const struct store_runs_rows *v, int i);
const char *store_runs_rows_trigger(const struct store_runs_rows *v, int i);
int64_t store_runs_rows_started_us(const struct store_runs_rows *v, int i);
int64_t store_runs_rows_finished_us(const struct store_runs_rows *v, int i);
const char *store_runs_rows_status(const struct store_runs_rows *v, int i);
/* NULL when the run did not fail. */
const char *store_runs_rows_error(const struct store_runs_rows *v, int i);
/* The result object as JSON text; NULL when the run recorded none. */
const char *store_runs_rows_result(const struct store_runs_rows *v, int i);
void store_runs_rows_free(struct store_runs_rows *v);

/* The catalog's last run of task (none or one row). 0 or -1. */
int store_runs_last(PGconn *pg, int64_t catalog_id, const char *task, struct store_runs_rows *out,
                    struct error *err);
/* One page of the catalog's runs, newest first: of task (NULL: every
 * task), below run id `before` when has_before, at most limit. 0 or -1. */
int store_runs_page(PGconn *pg, int64_t catalog_id, const char *task, bool has_before,
                    int64_t before, int64_t limit, struct store_runs_rows *out, struct error *err);

/* Deletes up to limit of the catalog's runs that finished more than
 * retention_s seconds ago, oldest first; *purged how many. 0 or -1. */
int store_runs_purge(PGconn *pg, int64_t catalog_id, int64_t retention_s, int64_t limit,
                     int64_t *purged, struct error *err);

#endif

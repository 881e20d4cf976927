/* Server-owned maintenance: one background loop per registered task, each
 * sweeping every catalog serially, one pass per catalog under a
 * PostgreSQL advisory try-lock keyed by (task, catalog), so any number of
 * replicas never run the same task on the same catalog at once. Every
 * pass, looped or manual, is recorded in hog_maintenance_run.
 *
 * Plugging in a task (hydrator, cleanup, ...): declare a maint_task with
 * its ledger name (one of hog_maintenance_run's task names), its interval
 * (0 disables the loop but keeps manual runs and /maintenance/status), a
 * pass function and optionally a backlog function, and add it to the
 * array server/main.c hands to maintenance_start. A manual endpoint calls
 * maintenance_run_manual with the request's connection.
 *
 * Thread-safety: tasks are read-only once started; the loop state read by
 * maintenance_status is guarded by the framework's mutex. */
#ifndef HL_SERVER_MAINTENANCE_MAINTENANCE_H
#define HL_SERVER_MAINTENANCE_MAINTENANCE_H

#include <jansson.h>
#include <libpq-fe.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

struct db_pool;
struct error;
struct metrics;
struct audit;

/* One pass of a task over one catalog, on pg (no transaction open; the
 * pass opens and ends its own). On success returns 0 with *result the run's
 * result object (new reference, may be NULL); on failure -1 with err
 * filled, and *result optionally what was done before failing. */
typedef int (*maint_pass_fn)(void *ctx, PGconn *pg, int64_t catalog_id, json_t **result,
                             struct error *err);
/* The task's backlog object for /maintenance/status (new reference), or
 * NULL when unknown. */
typedef json_t *(*maint_backlog_fn)(void *ctx, PGconn *pg, int64_t catalog_id);

struct maint_task {
    const char *name;    /* static; a hog_maintenance_run task name */
    int64_t interval_ms; /* 0: no loop */
    maint_pass_fn pass;
    maint_backlog_fn backlog; /* may be NULL: {} */
    void *ctx;
};

struct maintenance;

/* Starts one thread per task with a positive interval. `tasks` is copied.
 * Every recorded run, looped or manual, also gets an audit line
 * (maintenance_<task>, outcome ok/error, detail the result) on `audit`
 * (may be NULL).
 * Returns NULL (err filled) when a thread cannot start or memory runs out. */
struct maintenance *maintenance_start(struct db_pool *pool, struct metrics *metrics,
                                      struct audit *audit, const struct maint_task *tasks,
                                      size_t ntasks, struct error *err);
/* Wakes every loop, waits for the pass in progress (if any) to finish and
 * joins the threads. NULL is a no-op. */
void maintenance_stop(struct maintenance *m);

/* The registered task named `name`, or NULL. */
const struct maint_task *maintenance_task(const struct maintenance *m, const char *name);

enum maint_outcome { MAINT_RAN, MAINT_BUSY, MAINT_ERROR };

/* Who asked for a manual run, for its audit line (both borrowed). */
struct audit_actor;
struct maint_origin {
    const struct audit_actor *actor;
    const char *request_id;
};

/* One pass now, under the (task, catalog) advisory lock, recorded in the
 * ledger with trigger "manual" and audited as `origin`'s. Waits for the lock up to lock_timeout_ms
 * (0: forever); MAINT_BUSY when it did not come. MAINT_RAN covers a failed
 * pass too: then *status_ok is false and err holds the pass's error. On
 * MAINT_ERROR, err says what failed around the pass. *result as the pass's
 * (caller decrefs). */
enum maint_outcome maintenance_run_manual(struct maintenance *m, PGconn *pg,
                                          const struct maint_task *task, int64_t catalog_id,
                                          const struct maint_origin *origin, int lock_timeout_ms,
                                          json_t **result, bool *status_ok, struct error *err);

/* After a task's run queued `queued` paths for removal: refreshes the
 * queue's planner statistics when they were many
 * (store_removals_analyze_after). A failure is logged under the task's
 * name; the run's own outcome stands. */
void maintenance_after_queueing(PGconn *pg, const char *task, int64_t catalog_id, int64_t queued);

/* MaintenanceStatus for one catalog: each registered task with its last
 * ledger run, backlog and loop state. NULL with err filled on failure. */
json_t *maintenance_status(struct maintenance *m, PGconn *pg, int64_t catalog_id,
                           const char *catalog_name, struct error *err);

/* The MaintenanceRun object of a ledger row (store/maintenance_runs.h;
 * new reference, NULL when out of memory). */
struct store_runs_rows;
json_t *maintenance_run_json(const struct store_runs_rows *v, int row);

#endif

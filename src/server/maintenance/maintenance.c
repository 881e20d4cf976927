#include "server/maintenance/maintenance.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "server/auth/audit.h"
#include "server/db/db.h"
#include "server/maintenance/summary.h"
#include "server/metrics.h"
#include "server/store/catalogs.h"
#include "server/store/maintenance_runs.h"
#include "server/store/removals.h"
#include "server/store/summary.h"
#include "util/log.h"
#include "util/timefmt.h"

struct loop {
    struct maintenance *m;
    const struct maint_task *task;
    pthread_t thread;
    bool started;
    int64_t next_due_us;   /* wall clock; guarded by m->mu */
    int64_t last_sweep_us; /* 0 = none yet */
};

struct maintenance {
    struct db_pool *pool;
    struct metrics *metrics;
    struct audit *audit;
    pthread_mutex_t mu;
    pthread_cond_t wake; /* CLOCK_MONOTONIC */
    bool stopping;
    size_t ntasks;
    struct maint_task *tasks;
    struct loop *loops; /* one per task, started only with an interval */
};

static void unlock(PGconn *pg, const char *task, int64_t catalog_id)
{
    struct error err;
    if (store_runs_unlock(pg, task, catalog_id, &err) != 0)
        log_warn("maintenance %s: cannot release the lock of catalog %lld: %s", task,
                 (long long)catalog_id, err.msg);
}

/* Records the run in the ledger; returns the catalog's name (malloc'd) for
 * the audit line, NULL when the row could not be written. */
static char *record_run(PGconn *pg, const char *task, int64_t catalog_id, const char *trigger,
                        int64_t started_us, bool ok, const char *error, json_t *result)
{
    char *text = result ? json_dumps(result, JSON_COMPACT) : NULL;
    struct store_run_new run = {.task = task,
                                .catalog_id = catalog_id,
                                .trigger = trigger,
                                .started_us = started_us,
                                .ok = ok,
                                .error = error,
                                .result_json = text};
    struct error err;
    char *name = NULL;
    /* A ledger failure is logged, never turned into the pass's failure:
     * the work is done and committed. */
    if (store_runs_record(pg, &run, &name, &err) != 0)
        log_warn("maintenance %s: cannot record the run on catalog %lld: %s", task,
                 (long long)catalog_id, err.msg);
    free(text);
    return name;
}

/* The run's audit line, after its transactions ended. */
static void audit_run(struct maintenance *m, const struct maint_origin *origin, const char *task,
                      const char *catalog, bool ok, const char *error, json_t *result)
{
    char action[64];
    snprintf(action, sizeof action, "maintenance_%s", task);
    json_t *detail = ok ? json_incref(result)
                        : json_pack("{s:s,s:O?}", "error", error && error[0] ? error : "failed",
                                    "result", result);
    struct audit_event ev = {.action = action,
                             .actor = origin ? origin->actor : NULL,
                             .outcome = ok ? "ok" : "error",
                             .catalog = catalog,
                             .detail = detail,
                             .request_id = origin ? origin->request_id : NULL};
    audit_emit(m->audit, &ev);
    json_decref(detail);
}

/* Runs the pass with the lock held and records it. */
static bool pass_and_record(struct maintenance *m, PGconn *pg, const struct maint_task *task,
                            int64_t catalog_id, const struct maint_origin *origin, json_t **result,
                            struct error *err)
{
    int64_t started = time_now_micros();
    *result = NULL;
    memset(err, 0, sizeof *err);
    bool ok = task->pass(task->ctx, pg, catalog_id, result, err) == 0;
    /* A pass that failed mid-transaction must not leave it open. */
    db_rollback(pg);
    char *name = record_run(pg, task->name, catalog_id, origin ? "manual" : "loop", started, ok,
                            err->msg, *result);
    audit_run(m, origin, task->name, name, ok, err->msg, *result);
    free(name);
    if (!ok) {
        char labels[160], esc[96];
        metrics_label_escape(task->name, esc, sizeof esc);
        snprintf(labels, sizeof labels, "loop=\"%s\"", esc);
        metrics_counter_add(m->metrics, "hoglake_background_loop_failures_total", labels, 1);
        log_warn("maintenance %s on catalog %lld failed: %s", task->name, (long long)catalog_id,
                 err->msg);
    }
    return ok;
}

static bool stopping(struct maintenance *m)
{
    pthread_mutex_lock(&m->mu);
    bool s = m->stopping;
    pthread_mutex_unlock(&m->mu);
    return s;
}

/* One sweep: every catalog, serially, each under the try-lock. */
static void sweep(struct loop *l)
{
    struct maintenance *m = l->m;
    struct db_conn *conn = db_pool_acquire(m->pool, 5000);
    if (!conn) {
        log_warn("maintenance %s: no database connection for this sweep", l->task->name);
        return;
    }
    struct error err;
    /* The connection may come from a reader with a shorter bound. */
    if (db_conn_statement_timeout(conn, DB_STATEMENT_TIMEOUT_MS, &err) != 0) {
        log_warn("maintenance %s: %s", l->task->name, err.msg);
        db_pool_release(conn);
        return;
    }
    struct store_catalog_ids cats;
    if (store_catalog_ids_list(conn->pg, &cats, &err) != 0) {
        log_warn("maintenance %s: cannot list catalogs: %s", l->task->name, err.msg);
        db_pool_release(conn);
        return;
    }
    for (int i = 0; i < store_catalog_ids_count(&cats) && !stopping(m); i++) {
        int64_t id = store_catalog_ids_at(&cats, i);
        int got = store_runs_try_lock(conn->pg, l->task->name, id, &err);
        if (got < 0) {
            log_warn("maintenance %s: lock attempt failed: %s", l->task->name, err.msg);
            break;
        }
        if (!got)
            continue; /* another replica (or a manual run) has it */
        json_t *result;
        pass_and_record(m, conn->pg, l->task, id, NULL, &result, &err);
        json_decref(result);
        unlock(conn->pg, l->task->name, id);
    }
    store_catalog_ids_free(&cats);
    db_pool_release(conn);
}

static void *loop_main(void *arg)
{
    struct loop *l = arg;
    struct maintenance *m = l->m;
    pthread_mutex_lock(&m->mu);
    while (!m->stopping) {
        struct timespec due;
        time_mono_deadline(&due, l->task->interval_ms);
        l->next_due_us = time_now_micros() + l->task->interval_ms * 1000;
        int rc = 0;
        while (!m->stopping && rc != ETIMEDOUT)
            rc = pthread_cond_timedwait(&m->wake, &m->mu, &due);
        if (m->stopping)
            break;
        l->last_sweep_us = time_now_micros();
        pthread_mutex_unlock(&m->mu);
        sweep(l);
        pthread_mutex_lock(&m->mu);
    }
    pthread_mutex_unlock(&m->mu);
    return NULL;
}

struct maintenance *maintenance_start(struct db_pool *pool, struct metrics *metrics,
                                      struct audit *audit, const struct maint_task *tasks,
                                      size_t ntasks, struct error *err)
{
    struct maintenance *m = calloc(1, sizeof *m);
    if (!m || !(m->tasks = calloc(ntasks ? ntasks : 1, sizeof *m->tasks)) ||
        !(m->loops = calloc(ntasks ? ntasks : 1, sizeof *m->loops))) {
        if (m)
            free(m->tasks);
        free(m);
        error_nomem(err);
        return NULL;
    }
    m->pool = pool;
    m->metrics = metrics;
    m->audit = audit;
    m->ntasks = ntasks;
    memcpy(m->tasks, tasks, ntasks * sizeof *tasks);
    pthread_mutex_init(&m->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&m->wake, &ca);
    pthread_condattr_destroy(&ca);
    for (size_t i = 0; i < ntasks; i++) {
        struct loop *l = &m->loops[i];
        l->m = m;
        l->task = &m->tasks[i];
        if (l->task->interval_ms <= 0)
            continue;
        int rc = pthread_create(&l->thread, NULL, loop_main, l);
        if (rc != 0) {
            error_fail(err, ERR_INTERNAL, "cannot start the %s loop: %s", l->task->name,
                       strerror(rc));
            maintenance_stop(m);
            return NULL;
        }
        l->started = true;
        log_info("maintenance: %s loop every %lld ms", l->task->name,
                 (long long)l->task->interval_ms);
    }
    return m;
}

void maintenance_stop(struct maintenance *m)
{
    if (!m)
        return;
    pthread_mutex_lock(&m->mu);
    m->stopping = true;
    pthread_cond_broadcast(&m->wake);
    pthread_mutex_unlock(&m->mu);
    for (size_t i = 0; i < m->ntasks; i++)
        if (m->loops[i].started)
            pthread_join(m->loops[i].thread, NULL);
    pthread_cond_destroy(&m->wake);
    pthread_mutex_destroy(&m->mu);
    free(m->loops);
    free(m->tasks);
    free(m);
}

const struct maint_task *maintenance_task(const struct maintenance *m, const char *name)
{
    for (size_t i = 0; m && i < m->ntasks; i++)
        if (strcmp(m->tasks[i].name, name) == 0)
            return &m->tasks[i];
    return NULL;
}

enum maint_outcome maintenance_run_manual(struct maintenance *m, PGconn *pg,
                                          const struct maint_task *task, int64_t catalog_id,
                                          const struct maint_origin *origin, int lock_timeout_ms,
                                          json_t **result, bool *status_ok, struct error *err)
{
    *result = NULL;
    *status_ok = false;
    if (store_runs_lock(pg, task->name, catalog_id, lock_timeout_ms, err) != 0)
        return db_error_is(err, SQLSTATE_LOCK_NOT_AVAILABLE) ? MAINT_BUSY : MAINT_ERROR;
    *status_ok = pass_and_record(m, pg, task, catalog_id, origin, result, err);
    unlock(pg, task->name, catalog_id);
    return MAINT_RAN;
}

json_t *maintenance_run_json(const struct store_runs_rows *v, int row)
{
    char started[48], finished[48];
    time_format_iso8601(store_runs_rows_started_us(v, row), started, sizeof started);
    time_format_iso8601(store_runs_rows_finished_us(v, row), finished, sizeof finished);
    json_t *o =
        json_pack("{s:I,s:s,s:s,s:s,s:s,s:s,s:s}", "run_id", (json_int_t)store_runs_rows_id(v, row),
                  "catalog", store_runs_rows_catalog(v, row), "task", store_runs_rows_task(v, row),
                  "trigger", store_runs_rows_trigger(v, row), "started_at", started, "finished_at",
                  finished, "status", store_runs_rows_status(v, row));
    if (!o)
        return NULL;
    const char *error = store_runs_rows_error(v, row), *result = store_runs_rows_result(v, row);
    if (error)
        json_object_set_new(o, "error", json_string(error));
    if (result) {
        json_t *res = json_loads(result, 0, NULL);
        if (res)
            json_object_set_new(o, "result", res);
    }
    return o;
}

static json_t *task_status(struct maintenance *m, size_t i, PGconn *pg, int64_t catalog_id,
                           struct error *err)
{
    const struct maint_task *t = &m->tasks[i];
    struct store_runs_rows runs;
    if (store_runs_last(pg, catalog_id, t->name, &runs, err) != 0)
        return NULL;
    json_t *last = store_runs_rows_count(&runs) > 0 ? maintenance_run_json(&runs, 0) : json_null();
    store_runs_rows_free(&runs);
    json_t *backlog = t->backlog ? t->backlog(t->ctx, pg, catalog_id) : NULL;
    json_t *loop = json_null();
    if (t->interval_ms > 0) {
        pthread_mutex_lock(&m->mu);
        int64_t due = m->loops[i].next_due_us, last_sweep = m->loops[i].last_sweep_us;
        pthread_mutex_unlock(&m->mu);
        char due_s[48] = "", last_s[48] = "";
        if (due)
            time_format_iso8601(due, due_s, sizeof due_s);
        if (last_sweep)
            time_format_iso8601(last_sweep, last_s, sizeof last_s);
        loop =
            json_pack("{s:I,s:s?,s:s?}", "interval_ms", (json_int_t)t->interval_ms, "next_due_at",
                      due ? due_s : NULL, "last_sweep_started_at", last_sweep ? last_s : NULL);
    }
    json_t *o =
        json_pack("{s:s,s:o,s:o,s:o}", "task", t->name, "last_run", last ? last : json_null(),
                  "backlog", backlog ? backlog : json_object(), "loop", loop ? loop : json_null());
    if (o && t->interval_ms > 0)
        json_object_set_new(o, "loop_interval_ms", json_integer((json_int_t)t->interval_ms));
    return o;
}

/* The partition summary's freshness (summary.h). */
static int summary_status(json_t *status, PGconn *pg, int64_t catalog_id, struct error *err)
{
    struct store_summary_info info;
    if (store_summary_info(pg, catalog_id, &info, err) != 0)
        return -1;
    summary_freshness(status, &info);
    return 0;
}

json_t *maintenance_status(struct maintenance *m, PGconn *pg, int64_t catalog_id,
                           const char *catalog_name, struct error *err)
{
    json_t *tasks = json_array();
    for (size_t i = 0; tasks && i < m->ntasks; i++) {
        json_t *t = task_status(m, i, pg, catalog_id, err);
        if (!t) {
            json_decref(tasks);
            return NULL;
        }
        json_array_append_new(tasks, t);
    }
    if (!tasks)
        return NULL;
    json_t *status = json_pack("{s:s,s:o}", "catalog", catalog_name, "tasks", tasks);
    if (!status || summary_status(status, pg, catalog_id, err) != 0) {
        json_decref(status);
        return NULL;
    }
    return status;
}

void maintenance_after_queueing(PGconn *pg, const char *task, int64_t catalog_id, int64_t queued)
{
    struct error err;
    if (store_removals_analyze_after(pg, queued, &err) != 0)
        log_warn("%s: catalog %lld: refreshing the removal queue's statistics: %s", task,
                 (long long)catalog_id, err.msg);
}

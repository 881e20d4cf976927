#include "server/maintenance/retire.h"

#include <time.h>

#include "server/db/db.h"
#include "server/maintenance/maintenance.h"
#include "server/metrics.h"
#include "server/store/removals.h"
#include "server/store/catalogs.h"
#include "server/store/retention.h"
#include "server/store/retirement.h"
#include "util/timefmt.h"

static bool stopping(const atomic_bool *stop)
{
    return stop && atomic_load(stop);
}

/* Sleeps ms in short steps so a stopping server is not held up; false when
 * it stopped. */
static bool pause_unless_stopping(int64_t ms, const atomic_bool *stop)
{
    int64_t deadline = time_mono_ns() + ms * 1000000;
    while (!stopping(stop)) {
        int64_t left = deadline - time_mono_ns();
        if (left <= 0)
            return true;
        if (left > 50000000)
            left = 50000000;
        nanosleep(&(struct timespec){0, (long)left}, NULL);
    }
    return false;
}

/* One batch in its own transaction under the catalog lock: 1 done (out
 * filled), 0 no eligible table, -1. */
static int one_batch(PGconn *pg, int64_t catalog_id, const struct retirement_options *opt,
                     struct store_retirement_batch *out, struct error *err)
{
    if (db_begin(pg, err) != 0)
        return -1;
    int64_t table_id = 0;
    int found;
    if (store_retention_lock(pg, store_catalog_lock_key(catalog_id), opt->lock_timeout_ms, err) !=
            0 ||
        (found = store_retirement_next(pg, catalog_id, &table_id, err)) < 0)
        goto fail;
    if (found == 1 && store_retirement_batch(pg, catalog_id, table_id, opt->batch, out, err) != 0)
        goto fail;
    if (db_commit(pg, err) != 0)
        return -1;
    return found;
fail:
    db_rollback(pg);
    return -1;
}

/* Why the next batch must not start: the time or the server ran out (with
 * work left, the run is truncated) or the queue is full. 1 stop, 0 go, -1. */
static int must_stop(PGconn *pg, int64_t catalog_id, const struct retirement_options *opt,
                     const atomic_bool *stop, int64_t deadline, struct retirement_result *out,
                     struct error *err)
{
    if (stopping(stop) || time_mono_ns() > deadline) {
        out->truncated = true;
        return 1;
    }
    int64_t depth;
    if (store_removals_depth(pg, catalog_id, &depth, err) != 0)
        return -1;
    if (depth >= opt->queue_ceiling) {
        out->queue_ceiling_reached = true;
        return 1;
    }
    return 0;
}

/* The batches of retirement_run. */
static int retire_batches(PGconn *pg, int64_t catalog_id, const struct retirement_options *opt,
                          const atomic_bool *stop, struct retirement_result *out, struct error *err)
{
    int64_t deadline = time_mono_ns() + opt->budget_ms * 1000000;
    for (;;) {
        if (store_retirement_eligible(pg, catalog_id, &out->tables_pending, err) != 0)
            return -1;
        if (out->tables_pending == 0)
            return 0;
        if (out->batches > 0 && !pause_unless_stopping(opt->pause_ms, stop)) {
            out->truncated = true;
            return 0;
        }
        int halt = must_stop(pg, catalog_id, opt, stop, deadline, out, err);
        if (halt != 0)
            return halt < 0 ? -1 : 0;
        struct store_retirement_batch b = {0};
        if (one_batch(pg, catalog_id, opt, &b, err) < 0)
            return -1;
        out->batches++;
        out->data_files_queued += b.data_files;
        out->delete_files_queued += b.delete_files;
        out->tables_retired += b.purged;
    }
}

int retirement_run(PGconn *pg, int64_t catalog_id, const struct retirement_options *opt,
                   const atomic_bool *stop, struct retirement_result *out, struct error *err)
{
    *out = (struct retirement_result){0};
    int rc = retire_batches(pg, catalog_id, opt, stop, out, err);
    maintenance_after_queueing(pg, "retirement", catalog_id,
                               out->data_files_queued + out->delete_files_queued);
    return rc;
}

json_t *retirement_result_json(const struct retirement_result *r)
{
    return json_pack("{s:I,s:I,s:I,s:I,s:I,s:b,s:b}", "tables_retired",
                     (json_int_t)r->tables_retired, "data_files_queued",
                     (json_int_t)r->data_files_queued, "delete_files_queued",
                     (json_int_t)r->delete_files_queued, "batches", (json_int_t)r->batches,
                     "tables_pending", (json_int_t)r->tables_pending, "truncated", r->truncated,
                     "queue_ceiling_reached", r->queue_ceiling_reached);
}

int retirement_pass(void *ctx, PGconn *pg, int64_t catalog_id, json_t **result, struct error *err)
{
    const struct retirement_task *t = ctx;
    struct retirement_result res;
    int rc = retirement_run(pg, catalog_id, &t->opt, t->stop, &res, err);
    metrics_counter_add(t->metrics, "hoglake_tables_retired_total", "", (double)res.tables_retired);
    metrics_counter_add(t->metrics, "hoglake_files_retired_total", "file_kind=\"data\"",
                        (double)res.data_files_queued);
    metrics_counter_add(t->metrics, "hoglake_files_retired_total", "file_kind=\"delete\"",
                        (double)res.delete_files_queued);
    *result = retirement_result_json(&res);
    if (rc == 0 && !*result)
        return error_nomem(err);
    return rc;
}

json_t *retirement_backlog(void *ctx, PGconn *pg, int64_t catalog_id)
{
    (void)ctx;
    int64_t tables;
    struct error err;
    if (store_retirement_eligible(pg, catalog_id, &tables, &err) != 0)
        return NULL;
    return json_pack("{s:I}", "eligible_tables", (json_int_t)tables);
}

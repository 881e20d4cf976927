#include "server/maintenance/summary.h"

#include <stdlib.h>

#include "server/db/db.h"
#include "server/metrics.h"
#include "server/store/catalogs.h"
#include "server/store/summary.h"
#include "util/log.h"
#include "util/ticker.h"
#include "util/timefmt.h"

/* Brings the published generation to the head by its changes, when they
 * are few and every row they need is still there: *done then. A refresh
 * that fails or finds the counts and rows disagreeing is undone (back to
 * the savepoint) and left to a walk. */
static int refresh_by_changes(PGconn *pg, int64_t catalog_id, const struct summary_options *opt,
                              const struct store_summary_state *st, int64_t *rows, bool *done,
                              struct error *err)
{
    *done = false;
    if (!st->published || opt->change_limit <= 0 || st->published_snapshot < st->earliest_snapshot)
        return 0;
    int64_t size;
    if (store_summary_changes_size(pg, catalog_id, st, opt->change_limit, &size, err) != 0)
        return -1;
    if (size >= opt->change_limit)
        return 0;
    if (db_savepoint(pg, err) != 0)
        return -1;
    struct error failure = {0};
    bool consistent = false;
    if (store_summary_apply_changes(pg, catalog_id, st, opt->small_bytes, rows, &consistent,
                                    &failure) == 0 &&
        consistent) {
        *done = true;
        return 0;
    }
    log_warn("summary of catalog %lld: applying the changes from snapshot %lld to %lld %s%s; "
             "walking the catalog instead",
             (long long)catalog_id, (long long)st->published_snapshot, (long long)st->head_snapshot,
             failure.msg[0] ? "failed: " : "found the counts stale", failure.msg);
    return db_rollback_to_savepoint(pg, err);
}

/* Within the transaction: refreshes or starts (or restarts) a walk when
 * due, adds a batch, publishes or advances, purges a batch of garbage. */
static int step_in(PGconn *pg, int64_t catalog_id, const struct summary_options *opt,
                   struct store_summary_state *st, enum summary_step_outcome *outcome,
                   int64_t *files, struct error *err)
{
    if (!st->scanning && st->refresh_due) {
        bool done;
        if (refresh_by_changes(pg, catalog_id, opt, st, files, &done, err) != 0)
            return -1;
        if (done) {
            *outcome = SUMMARY_REFRESHED;
            int64_t purged;
            return store_summary_purge(pg, catalog_id, st, opt->batch, &purged, err);
        }
    }
    /* A walk below the floor may have lost files to expiry's purge. */
    bool stale_walk = st->scanning && st->scan_snapshot < st->earliest_snapshot;
    if ((!st->scanning && st->refresh_due) || stale_walk) {
        if (stale_walk)
            log_info("summary of catalog %lld: the walk at snapshot %lld fell below the floor "
                     "(%lld); starting again at %lld",
                     (long long)catalog_id, (long long)st->scan_snapshot,
                     (long long)st->earliest_snapshot, (long long)st->head_snapshot);
        if (store_summary_start(pg, catalog_id, st->head_snapshot, st, err) != 0)
            return -1;
    }
    *outcome = SUMMARY_IDLE;
    if (st->scanning) {
        int64_t last = st->scan_after;
        if (store_summary_add(pg, catalog_id, st, opt->batch, opt->small_bytes, files, &last,
                              err) != 0)
            return -1;
        if (*files < opt->batch) {
            if (store_summary_publish(pg, catalog_id, st, err) != 0)
                return -1;
            *outcome = SUMMARY_PUBLISHED;
        } else {
            if (store_summary_advance(pg, catalog_id, last, err) != 0)
                return -1;
            *outcome = SUMMARY_WALKED;
        }
    }
    int64_t purged;
    return store_summary_purge(pg, catalog_id, st, opt->batch, &purged, err);
}

int summary_step(PGconn *pg, int64_t catalog_id, const struct summary_options *opt,
                 enum summary_step_outcome *outcome, int64_t *files, struct error *err)
{
    *outcome = SUMMARY_BUSY;
    *files = 0;
    if (store_summary_ensure(pg, catalog_id, err) != 0)
        return -1;
    struct store_summary_state st;
    int got;
    if (db_begin(pg, err) != 0 ||
        (got = store_summary_take(pg, catalog_id, opt->refresh_s, &st, err)) < 0 ||
        (got == 1 && step_in(pg, catalog_id, opt, &st, outcome, files, err) != 0) ||
        db_commit(pg, err) != 0) {
        db_rollback(pg);
        *outcome = SUMMARY_BUSY;
        *files = 0;
        return -1;
    }
    return 0;
}

static void set_time(json_t *o, const char *key, int64_t us)
{
    char text[48];
    time_format_iso8601(us, text, sizeof text);
    json_object_set_new(o, key, json_string(text));
}

void summary_freshness(json_t *o, const struct store_summary_info *info)
{
    if (info->published) {
        set_time(o, "sampled_at", info->published_us);
        json_object_set_new(o, "sampled_snapshot_id", json_integer((json_int_t)info->snapshot));
        json_object_set_new(
            o, "sample_walk_ms",
            json_integer((json_int_t)(info->published_us - info->started_us) / 1000));
    }
    if (info->scanning)
        set_time(o, "sample_started_at", info->scan_started_us);
}

struct summary_sampler {
    struct db_pool *pool;
    struct metrics *metrics;
    struct summary_options opt;
    struct ticker *ticker;
};

static void sample_catalogs(struct summary_sampler *s, struct ticker *t, PGconn *pg)
{
    struct error err;
    struct store_catalog_ids cats;
    if (store_catalog_ids_list(pg, &cats, &err) != 0) {
        log_warn("summary sampler: cannot list catalogs: %s", err.msg);
        metrics_counter_add(s->metrics, "hoglake_background_loop_failures_total",
                            "loop=\"summary\"", 1);
        return;
    }
    for (int i = 0; i < store_catalog_ids_count(&cats) && !ticker_stopping(t); i++) {
        int64_t id = store_catalog_ids_at(&cats, i), files;
        enum summary_step_outcome outcome;
        if (summary_step(pg, id, &s->opt, &outcome, &files, &err) != 0) {
            log_warn("summary sampler: catalog %lld: %s", (long long)id, err.msg);
            metrics_counter_add(s->metrics, "hoglake_background_loop_failures_total",
                                "loop=\"summary\"", 1);
            continue;
        }
        if (files > 0)
            metrics_counter_add(s->metrics, "hoglake_summary_files_sampled_total", "",
                                (double)files);
        if (outcome == SUMMARY_PUBLISHED || outcome == SUMMARY_REFRESHED)
            metrics_counter_add(s->metrics, "hoglake_summary_generations_published_total", "", 1);
    }
    store_catalog_ids_free(&cats);
}

static void tick(struct ticker *t, void *arg)
{
    struct summary_sampler *s = arg;
    /* A short wait: a busy pool skips this step rather than queueing
     * behind requests. */
    struct db_conn *conn = db_pool_acquire(s->pool, 1000);
    if (!conn)
        return;
    struct error err;
    /* The connection may come from a reader with a shorter bound. */
    if (db_conn_statement_timeout(conn, DB_STATEMENT_TIMEOUT_MS, &err) != 0)
        log_warn("summary sampler: %s", err.msg);
    else
        sample_catalogs(s, t, conn->pg);
    db_pool_release(conn);
}

struct summary_sampler *summary_sampler_start(struct db_pool *pool, struct metrics *m,
                                              const struct summary_options *opt, struct error *err)
{
    struct summary_sampler *s = calloc(1, sizeof *s);
    if (!s) {
        error_nomem(err);
        return NULL;
    }
    s->pool = pool;
    s->metrics = m;
    s->opt = *opt;
    s->ticker = ticker_start("summary sampler", opt->interval_ms, tick, s, err);
    if (!s->ticker) {
        free(s);
        return NULL;
    }
    log_info("summary sampler every %lld ms, %lld files a step, refreshed after %lld s",
             (long long)opt->interval_ms, (long long)opt->batch, (long long)opt->refresh_s);
    return s;
}

void summary_sampler_stop(struct summary_sampler *s)
{
    if (!s)
        return;
    ticker_stop(s->ticker);
    free(s);
}

#include "server/maintenance/expiry.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "server/catalog/catalog.h"
#include "server/db/db.h"
#include "server/maintenance/maintenance.h"
#include "server/maintenance/pass_ctx.h"
#include "server/metrics.h"
#include "server/store/catalogs.h"
#include "server/store/retention.h"
#include "util/failpoint.h"
#include "util/timefmt.h"

int64_t expiry_floor(const struct expiry_floor_in *in, bool *by_consumer)
{
    *by_consumer = false;
    if (!in->retention_enabled)
        return in->earliest;
    int64_t floor = in->head;
    if (in->window_present && in->window_first < floor)
        floor = in->window_first;
    int64_t batch = in->batch < 1 ? 1 : in->batch;
    int64_t cap = in->earliest > INT64_MAX - batch ? INT64_MAX : in->earliest + batch;
    if (cap < floor)
        floor = cap;
    if (in->consumer_floor && in->consumer_present && in->consumer_min < floor) {
        floor = in->consumer_min;
        *by_consumer = true;
    }
    /* A stale offset below the floor never moves it back. */
    if (floor < in->earliest) {
        floor = in->earliest;
        *by_consumer = false;
    }
    return floor;
}

static int phase_a(PGconn *pg, int64_t catalog_id, const struct expiry_options *opt,
                   struct expiry_result *out, struct error *err)
{
    if (db_begin(pg, err) != 0)
        return -1;
    if (store_retention_lock(pg, store_catalog_lock_key(catalog_id), opt->lock_timeout_ms, err) !=
        0)
        goto fail;
    /* Test hook: a statement timeout on every batch above one snapshot, so
     * the halving below is exercised against a real cancellation. */
    if (opt->batch > 1 && failpoint_on("expiry-advance-timeout") &&
        store_retention_stall(pg, err) != 0)
        goto fail;
    if (store_retention_release_offsets(pg, catalog_id, &out->offsets_released, err) != 0)
        goto fail;
    struct store_retention_floor f;
    int found = store_retention_read_floor(pg, catalog_id, &f, err);
    if (found < 0)
        goto fail;
    if (found == 0) {
        error_fail(err, ERR_UNAVAILABLE, "catalog %lld vanished", (long long)catalog_id);
        goto fail;
    }
    struct expiry_floor_in in = {
        .earliest = f.earliest,
        .head = f.head,
        .batch = opt->batch,
        .retention_enabled = f.retention_enabled,
        .consumer_floor = f.consumer_floor,
        .window_present = f.window_present,
        .window_first = f.window_first,
        .consumer_present = f.consumer_present,
        .consumer_min = f.consumer_min,
    };
    int64_t floor = expiry_floor(&in, &out->floored_by_consumer);
    out->new_earliest = floor;
    if (floor > in.earliest && store_retention_advance(pg, catalog_id, in.earliest, floor,
                                                       &out->snapshots_expired, err) != 0)
        goto fail;
    return db_commit(pg, err);
fail:
    db_rollback(pg);
    return -1;
}

/* One purge page in its own transaction, bounded by a 5 s statement
 * timeout: *data and *dv the rows it took. */
static int purge_page(PGconn *pg, enum store_retention_arm arm, int64_t catalog_id, int64_t floor,
                      int64_t page, int64_t *data, int64_t *dv, struct error *err)
{
    if (db_begin(pg, err) != 0)
        return -1;
    if (store_retention_page_bound(pg, err) != 0)
        goto fail;
    /* Test hook: every page above one row times out. */
    if (page > 1 && failpoint_on("expiry-purge-timeout") && store_retention_stall(pg, err) != 0)
        goto fail;
    if (store_retention_purge_page(pg, arm, catalog_id, floor, page, data, dv, err) != 0)
        goto fail;
    return db_commit(pg, err);
fail:
    db_rollback(pg);
    return -1;
}

static int phase_b(PGconn *pg, int64_t catalog_id, const struct expiry_options *opt,
                   struct expiry_result *out, struct error *err)
{
    int64_t floor;
    if (store_catalog_earliest(pg, catalog_id, &floor, err) != 0)
        return -1;
    if (floor == 0)
        return 0;
    int64_t deadline = time_mono_ns() + opt->purge_budget_ms * 1000000;
    int64_t page = opt->purge_page;
    out->purge_page = out->purge_page_end = page;
    const enum store_retention_arm arms[] = {STORE_RETENTION_ENDED_FILES,
                                             STORE_RETENTION_ENDED_DVS};
    for (int arm = 0; arm < 2; arm++) {
        for (;;) {
            if (time_mono_ns() > deadline) {
                out->purge_truncated = true;
                return 0;
            }
            int64_t data, dv;
            if (purge_page(pg, arms[arm], catalog_id, floor, page, &data, &dv, err) != 0) {
                /* A failing page is halved, down to one row. */
                out->purge_failures++;
                if (page == 1)
                    return -1;
                page /= 2;
                out->purge_page_end = page;
                out->purge_halvings++;
                continue;
            }
            out->purge_pages++;
            out->data_files_queued += data;
            out->delete_files_queued += dv;
            /* A page smaller than asked for was the last one. */
            if ((arm == 0 ? data : dv) < page)
                break;
        }
    }
    return 0;
}

int expiry_run(PGconn *pg, int64_t catalog_id, const struct expiry_options *opt,
               struct expiry_result *out, struct error *err)
{
    *out = (struct expiry_result){0};
    struct expiry_options o = *opt;
    int rc_a;
    /* A phase A that hits the statement timeout is retried with half the
     * batch, down to one snapshot (contract 7.1). */
    while ((rc_a = phase_a(pg, catalog_id, &o, out, err)) != 0 &&
           db_error_is(err, SQLSTATE_QUERY_CANCELED) && o.batch > 1) {
        o.batch /= 2;
        out->advance_halvings++;
    }
    struct error berr;
    int rc_b = phase_b(pg, catalog_id, opt, out, rc_a == 0 ? err : &berr);
    maintenance_after_queueing(pg, "expiry", catalog_id,
                               out->data_files_queued + out->delete_files_queued);
    return rc_a == 0 && rc_b == 0 ? 0 : -1;
}

json_t *expiry_result_json(const struct expiry_result *r)
{
    return json_pack(
        "{s:I,s:I,s:I,s:I,s:b,s:I,s:I,s:b,s:I,s:I,s:I,s:I}", "snapshots_expired",
        (json_int_t)r->snapshots_expired, "data_files_queued", (json_int_t)r->data_files_queued,
        "delete_files_queued", (json_int_t)r->delete_files_queued, "new_earliest_snapshot_id",
        (json_int_t)r->new_earliest, "floored_by_consumer", r->floored_by_consumer,
        "offsets_released", (json_int_t)r->offsets_released, "purge_pages",
        (json_int_t)r->purge_pages, "purge_truncated", r->purge_truncated, "advance_halvings",
        (json_int_t)r->advance_halvings, "purge_failures", (json_int_t)r->purge_failures,
        "purge_halvings", (json_int_t)r->purge_halvings, "purge_page", (json_int_t)r->purge_page);
}

/* Gauges refreshed after each pass (the /metrics route never touches the
 * database). */
static void refresh_gauges(struct metrics *metrics, PGconn *pg, int64_t catalog_id)
{
    struct store_retention_state st;
    struct error err;
    /* Best effort: a failed read leaves the gauges as they were. */
    if (store_retention_state(pg, catalog_id, &st, &err) != 1)
        return;
    char esc[160], labels[200];
    metrics_label_escape(st.catalog, esc, sizeof esc);
    snprintf(labels, sizeof labels, "catalog=\"%s\"", esc);
    metrics_gauge_set(metrics, "hoglake_head_snapshot_id", labels, (double)st.head);
    metrics_gauge_set(metrics, "hoglake_earliest_snapshot_id", labels, (double)st.earliest);
    metrics_gauge_set(metrics, "hoglake_removal_queue_depth", labels, (double)st.queue_depth);
}

int expiry_pass(void *ctx, PGconn *pg, int64_t catalog_id, json_t **result, struct error *err)
{
    const struct expiry_task *t = ctx;
    struct expiry_options opt = t->opt;
    int64_t remembered = t->page_memory ? atomic_load(t->page_memory) : 0;
    if (remembered > 0 && remembered < opt.purge_page)
        opt.purge_page = remembered;
    struct expiry_result res;
    int rc = expiry_run(pg, catalog_id, &opt, &res, err);
    if (t->page_memory && res.purge_page > 0) {
        int64_t next = res.purge_failures > 0 ? res.purge_page_end : res.purge_page * 2;
        atomic_store(t->page_memory, next < t->opt.purge_page ? next : t->opt.purge_page);
    }
    metrics_counter_add(t->metrics, "hoglake_snapshots_expired_total", "",
                        (double)res.snapshots_expired);
    refresh_gauges(t->metrics, pg, catalog_id);
    *result = expiry_result_json(&res);
    if (rc == 0 && !*result)
        return error_nomem(err);
    return rc;
}

json_t *expiry_backlog(void *ctx, PGconn *pg, int64_t catalog_id)
{
    (void)ctx;
    struct store_retention_settings st;
    struct error err;
    if (store_retention_settings(pg, catalog_id, &st, &err) != 1)
        return NULL;
    return json_pack("{s:o,s:b,s:I,s:I}", "snapshot_retention_seconds",
                     st.has_retention ? json_integer(st.retention_s) : json_null(),
                     "consumer_floor", st.consumer_floor, "earliest_snapshot_id",
                     (json_int_t)st.earliest, "head_snapshot_id", (json_int_t)st.head);
}

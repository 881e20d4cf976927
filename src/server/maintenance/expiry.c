#include "server/maintenance/expiry.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "server/catalog/catalog.h"
#include "server/db/db.h"
#include "server/maintenance/maintenance.h"
#include "server/maintenance/pass_ctx.h"
#include "server/metrics.h"
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

static int run(PGconn *pg, const char *sql, const struct db_params *p, struct error *err)
{
    return db_run(pg, sql, p, err);
}

/* One statement returning one bigint row; -1 on failure. */
static int scalar(PGconn *pg, const char *sql, const struct db_params *p, int64_t *out,
                  struct error *err)
{
    PGresult *r = db_exec(pg, sql, p, err);
    if (!r)
        return -1;
    *out = PQntuples(r) > 0 && !db_isnull(r, 0, 0) ? db_i64(r, 0, 0) : 0;
    PQclear(r);
    return 0;
}

/* Offsets on a table incarnation that a newer incarnation replaced, where
 * the same consumer already tracks the newer one: they would pin the floor
 * forever. */
static const char release_offsets_sql[] =
    "DELETE FROM hog_consumer_offset o USING hog_table old, hog_table nw, hog_consumer_offset n"
    " WHERE o.catalog_id = $1 AND old.catalog_id = $1 AND old.table_uuid = o.table_uuid"
    " AND nw.catalog_id = $1 AND nw.replaced_table_id = old.table_id"
    " AND n.catalog_id = $1 AND n.consumer_id = o.consumer_id AND n.table_uuid = nw.table_uuid";

/* Floor inputs read under the lock: earliest, head, retention on?,
 * consumer_floor, first snapshot in the window, lowest live offset. */
static const char floor_inputs_sql[] =
    "SELECT c.earliest_snapshot_id, c.last_snapshot_id,"
    " c.snapshot_retention_seconds IS NOT NULL, c.consumer_floor,"
    " (SELECT s.snapshot_id FROM hog_snapshot s WHERE s.catalog_id = c.catalog_id"
    "   AND s.snapshot_id >= c.earliest_snapshot_id"
    "   AND s.snapshot_time >= now() - make_interval(secs => c.snapshot_retention_seconds)"
    "   ORDER BY s.snapshot_id LIMIT 1),"
    " (SELECT min(o.committed_snapshot) FROM hog_consumer_offset o WHERE o.catalog_id ="
    "   c.catalog_id AND EXISTS (SELECT 1 FROM hog_table t WHERE t.catalog_id = o.catalog_id"
    "   AND t.table_uuid = o.table_uuid))"
    " FROM hog_catalog c WHERE c.catalog_id = $1";

static const char *const ended_metadata_sql[] = {
    "DELETE FROM hog_table_version WHERE catalog_id = $1 AND end_snapshot <= $2",
    "DELETE FROM hog_column WHERE catalog_id = $1 AND end_snapshot <= $2",
    "DELETE FROM hog_partition_spec WHERE catalog_id = $1 AND end_snapshot <= $2",
    "DELETE FROM hog_sort_spec WHERE catalog_id = $1 AND end_snapshot <= $2",
    "DELETE FROM hog_view WHERE catalog_id = $1 AND end_snapshot <= $2",
};

static int phase_a(PGconn *pg, int64_t catalog_id, const struct expiry_options *opt,
                   struct expiry_result *out, struct error *err)
{
    struct db_params p;
    db_params_init(&p);
    char timeout[32];
    snprintf(timeout, sizeof timeout, "%d", opt->lock_timeout_ms);
    db_param_str(&p, timeout);
    if (run(pg, "BEGIN", NULL, err) != 0)
        return -1;
    if (run(pg, "SELECT set_config('lock_timeout', $1, true)", &p, err) != 0)
        goto fail;
    db_params_init(&p);
    db_param_i64(&p, catalog_lock_key(catalog_id));
    if (run(pg, "SELECT pg_advisory_xact_lock($1::bigint)", &p, err) != 0)
        goto fail;
    /* Test hook: a statement timeout on every batch above one snapshot, so
     * the halving below is exercised against a real cancellation. */
    if (opt->batch > 1 && failpoint_on("expiry-advance-timeout") &&
        (run(pg, "SET LOCAL statement_timeout = 10", NULL, err) != 0 ||
         run(pg, "SELECT pg_sleep(1)", NULL, err) != 0))
        goto fail;
    db_params_init(&p);
    db_param_i64(&p, catalog_id);
    PGresult *r = db_exec(pg, release_offsets_sql, &p, err);
    if (!r)
        goto fail;
    out->offsets_released = atoll(PQcmdTuples(r));
    PQclear(r);
    r = db_exec(pg, floor_inputs_sql, &p, err);
    if (!r)
        goto fail;
    if (PQntuples(r) != 1) {
        PQclear(r);
        error_fail(err, ERR_UNAVAILABLE, "catalog %lld vanished", (long long)catalog_id);
        goto fail;
    }
    struct expiry_floor_in in = {
        .earliest = db_i64(r, 0, 0),
        .head = db_i64(r, 0, 1),
        .batch = opt->batch,
        .retention_enabled = db_bool(r, 0, 2),
        .consumer_floor = db_bool(r, 0, 3),
        .window_present = !db_isnull(r, 0, 4),
        .window_first = db_isnull(r, 0, 4) ? 0 : db_i64(r, 0, 4),
        .consumer_present = !db_isnull(r, 0, 5),
        .consumer_min = db_isnull(r, 0, 5) ? 0 : db_i64(r, 0, 5),
    };
    PQclear(r);
    int64_t floor = expiry_floor(&in, &out->floored_by_consumer);
    out->new_earliest = floor;
    if (floor > in.earliest) {
        db_params_init(&p);
        db_param_i64(&p, catalog_id);
        db_param_i64(&p, in.earliest);
        db_param_i64(&p, floor);
        /* Change rows first, by range: cheaper than one cascade probe per
         * snapshot finding them. */
        if (run(pg,
                "DELETE FROM hog_snapshot_change WHERE catalog_id = $1"
                " AND snapshot_id >= $2 AND snapshot_id < $3",
                &p, err) != 0)
            goto fail;
        r = db_exec(pg,
                    "DELETE FROM hog_snapshot WHERE catalog_id = $1"
                    " AND snapshot_id >= $2 AND snapshot_id < $3",
                    &p, err);
        if (!r)
            goto fail;
        out->snapshots_expired = atoll(PQcmdTuples(r));
        PQclear(r);
        db_params_init(&p);
        db_param_i64(&p, catalog_id);
        db_param_i64(&p, floor);
        if (run(pg,
                "UPDATE hog_catalog SET earliest_snapshot_id = $2,"
                " earliest_snapshot_time = coalesce((SELECT snapshot_time FROM hog_snapshot"
                "  WHERE catalog_id = $1 AND snapshot_id = $2), earliest_snapshot_time)"
                " WHERE catalog_id = $1",
                &p, err) != 0)
            goto fail;
        for (size_t i = 0; i < sizeof ended_metadata_sql / sizeof ended_metadata_sql[0]; i++)
            if (run(pg, ended_metadata_sql[i], &p, err) != 0)
                goto fail;
    }
    return run(pg, "COMMIT", NULL, err);
fail:
    run(pg, "ROLLBACK", NULL, NULL);
    return -1;
}

/* One page of ended data files (end_snapshot <= floor) with every one of
 * their deletion vectors; returns the data files taken and the DVs. */
static const char purge_data_page_sql[] =
    "WITH df AS (SELECT data_file_id FROM hog_data_file WHERE catalog_id = $1"
    "   AND end_snapshot IS NOT NULL AND end_snapshot <= $2 ORDER BY end_snapshot LIMIT $3),"
    " dv AS (DELETE FROM hog_delete_file d USING df WHERE d.catalog_id = $1"
    "   AND d.data_file_id = df.data_file_id RETURNING d.path),"
    " gone AS (DELETE FROM hog_data_file f USING df WHERE f.catalog_id = $1"
    "   AND f.data_file_id = df.data_file_id RETURNING f.path),"
    " q1 AS (INSERT INTO hog_file_removal (catalog_id, path, file_kind, reason)"
    "   SELECT $1, path, 'data', 'snapshot_expiry' FROM gone RETURNING 1),"
    " q2 AS (INSERT INTO hog_file_removal (catalog_id, path, file_kind, reason)"
    "   SELECT $1, path, 'delete', 'snapshot_expiry' FROM dv RETURNING 1)"
    " SELECT (SELECT count(*) FROM q1), (SELECT count(*) FROM q2)";

/* The second arm: superseded deletion vectors whose data file lives on. */
static const char purge_dv_page_sql[] =
    "WITH d AS (SELECT delete_file_id FROM hog_delete_file WHERE catalog_id = $1"
    "   AND end_snapshot IS NOT NULL AND end_snapshot <= $2 LIMIT $3),"
    " gone AS (DELETE FROM hog_delete_file f USING d WHERE f.catalog_id = $1"
    "   AND f.delete_file_id = d.delete_file_id RETURNING f.path),"
    " q AS (INSERT INTO hog_file_removal (catalog_id, path, file_kind, reason)"
    "   SELECT $1, path, 'delete', 'snapshot_expiry' FROM gone RETURNING 1)"
    " SELECT 0::bigint, (SELECT count(*) FROM q)";

/* One purge page in its own transaction, bounded by a 5 s statement
 * timeout: *data and *dv the rows it took. */
static int purge_page(PGconn *pg, const char *sql, int64_t catalog_id, int64_t floor, int64_t page,
                      int64_t *data, int64_t *dv, struct error *err)
{
    if (run(pg, "BEGIN", NULL, err) != 0)
        return -1;
    if (run(pg, "SET LOCAL statement_timeout = 5000", NULL, err) != 0)
        goto fail;
    /* Test hook: every page above one row times out. */
    if (page > 1 && failpoint_on("expiry-purge-timeout") &&
        (run(pg, "SET LOCAL statement_timeout = 10", NULL, err) != 0 ||
         run(pg, "SELECT pg_sleep(1)", NULL, err) != 0))
        goto fail;
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, catalog_id);
    db_param_i64(&p, floor);
    db_param_i64(&p, page);
    PGresult *r = db_exec(pg, sql, &p, err);
    if (!r)
        goto fail;
    *data = db_i64(r, 0, 0);
    *dv = db_i64(r, 0, 1);
    PQclear(r);
    return run(pg, "COMMIT", NULL, err);
fail:
    run(pg, "ROLLBACK", NULL, NULL);
    return -1;
}

static int phase_b(PGconn *pg, int64_t catalog_id, const struct expiry_options *opt,
                   struct expiry_result *out, struct error *err)
{
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, catalog_id);
    int64_t floor;
    if (scalar(pg, "SELECT earliest_snapshot_id FROM hog_catalog WHERE catalog_id = $1", &p, &floor,
               err) != 0)
        return -1;
    if (floor == 0)
        return 0;
    int64_t deadline = time_mono_ns() + opt->purge_budget_ms * 1000000;
    int64_t page = opt->purge_page;
    out->purge_page = out->purge_page_end = page;
    const char *const arms[] = {purge_data_page_sql, purge_dv_page_sql};
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
    PGresult *r = maint_read(pg,
                             "SELECT name, last_snapshot_id, earliest_snapshot_id,"
                             " (SELECT count(*) FROM hog_file_removal WHERE catalog_id = $1"
                             "  AND drained_at IS NULL)"
                             " FROM hog_catalog WHERE catalog_id = $1",
                             catalog_id);
    if (!r)
        return;
    if (PQntuples(r) == 1) {
        char esc[160], labels[200];
        metrics_label_escape(db_str(r, 0, 0), esc, sizeof esc);
        snprintf(labels, sizeof labels, "catalog=\"%s\"", esc);
        metrics_gauge_set(metrics, "hoglake_head_snapshot_id", labels, (double)db_i64(r, 0, 1));
        metrics_gauge_set(metrics, "hoglake_earliest_snapshot_id", labels, (double)db_i64(r, 0, 2));
        metrics_gauge_set(metrics, "hoglake_removal_queue_depth", labels, (double)db_i64(r, 0, 3));
    }
    PQclear(r);
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
    PGresult *r = maint_read(pg,
                             "SELECT snapshot_retention_seconds, consumer_floor,"
                             " earliest_snapshot_id, last_snapshot_id"
                             " FROM hog_catalog WHERE catalog_id = $1",
                             catalog_id);
    if (!r)
        return NULL;
    json_t *o = NULL;
    if (PQntuples(r) == 1)
        o = json_pack("{s:o,s:b,s:I,s:I}", "snapshot_retention_seconds",
                      db_isnull(r, 0, 0) ? json_null() : json_integer(db_i64(r, 0, 0)),
                      "consumer_floor", db_bool(r, 0, 1), "earliest_snapshot_id",
                      (json_int_t)db_i64(r, 0, 2), "head_snapshot_id", (json_int_t)db_i64(r, 0, 3));
    PQclear(r);
    return o;
}

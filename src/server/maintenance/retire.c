#include "server/maintenance/retire.h"

#include <stdlib.h>
#include <time.h>

#include "server/db/db.h"
#include "server/db/pgarray.h"
#include "server/maintenance/maintenance.h"
#include "server/maintenance/pass_ctx.h"
#include "server/maintenance/reap.h"
#include "server/metrics.h"
#include "server/server.h"
#include "server/store/catalogs.h"
#include "server/store/removals.h"
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

/* Marks the eligible tables under the catalog lock, timing the lock. */
static int mark(PGconn *pg, int64_t catalog_id, const struct retirement_options *opt,
                struct retirement_result *out, struct error *err)
{
    if (db_begin(pg, err) != 0)
        return -1;
    if (store_retention_lock(pg, store_catalog_lock_key(catalog_id), opt->lock_timeout_ms, err) !=
        0)
        goto fail;
    int64_t t0 = time_mono_ns();
    if (store_retirement_mark(pg, catalog_id, &out->tables_marked, err) != 0)
        goto fail;
    int rc = db_commit(pg, err);
    out->lock_held_us += (time_mono_ns() - t0) / 1000;
    return rc;
fail:
    db_rollback(pg);
    return -1;
}

/* One run's state: the reaper, and the tables it leaves alone because a
 * delete of theirs failed (their rows stay for a later run). */
struct run {
    PGconn *pg;
    int64_t catalog_id;
    const struct retirement_options *opt;
    struct reaper reaper;
    int64_t *skipped; /* table ids */
    size_t nskipped, skipped_cap;
    int64_t walking; /* the table the cursor walks, 0 before the first page */
    struct store_retired_cursor cursor;
    struct retirement_result *res;
    struct error *err;
};

static int skip_table(struct run *r, int64_t table_id)
{
    if (r->nskipped == r->skipped_cap) {
        size_t cap = r->skipped_cap ? 2 * r->skipped_cap : 8;
        int64_t *grown = realloc(r->skipped, cap * sizeof *grown);
        if (!grown)
            return error_nomem(r->err);
        r->skipped = grown;
        r->skipped_cap = cap;
    }
    r->skipped[r->nskipped++] = table_id;
    return 0;
}

/* Deletes the rows of the page's worked items (every outcome but a failed
 * delete); counts them into done. */
static int delete_rows(struct run *r, int64_t table_id, const struct store_retired_page *page,
                       const struct reap_item *items, size_t n, struct retirement_result *done)
{
    struct pg_array dvs, data;
    pg_array_init(&dvs);
    pg_array_init(&data);
    int64_t ndv = 0, ndata = 0;
    for (size_t i = 0; i < n; i++) {
        if (items[i].outcome == REAP_FAILED)
            continue;
        if (store_retired_page_kind(page, (int)i) == STORE_RETIRED_DELETE_FILE) {
            pg_array_i64(&dvs, items[i].id);
            ndv++;
        } else {
            pg_array_i64(&data, items[i].id);
            ndata++;
        }
    }
    const char *dv_lit = pg_array_text(&dvs), *data_lit = pg_array_text(&data);
    int rc = !dv_lit || !data_lit ? error_nomem(r->err)
                                  : store_retirement_delete(r->pg, r->catalog_id, table_id, dv_lit,
                                                            data_lit, r->err);
    pg_array_free(&dvs);
    pg_array_free(&data);
    done->delete_files_removed += ndv;
    done->data_files_removed += ndata;
    return rc;
}

/* The page's files: checked, their objects deleted, their rows deleted;
 * the table purged when the page was its last. Inside the page's
 * transaction, which holds the table's row; what it did goes into done,
 * which counts only once that transaction commits. */
static int work_page(struct run *r, int64_t table_id, struct retirement_result *done)
{
    if (r->walking != table_id) {
        r->walking = table_id;
        store_retired_cursor_start(&r->cursor);
    }
    struct store_retired_page page;
    if (store_retirement_page(r->pg, r->catalog_id, table_id, r->opt->batch, &r->cursor, &page,
                              r->err) != 0)
        return -1;
    /* Rows this page leaves (a failed delete) are for a later run: the
     * table is skipped for the rest of this one. */
    store_retired_page_advance(&page, &r->cursor);
    size_t n = (size_t)store_retired_page_count(&page);
    struct reap_item *items = calloc(n ? n : 1, sizeof *items);
    if (!items) {
        store_retired_page_free(&page);
        return error_nomem(r->err);
    }
    for (size_t i = 0; i < n; i++)
        items[i] = (struct reap_item){.id = store_retired_page_id(&page, (int)i),
                                      .path = store_retired_page_path(&page, (int)i),
                                      .outcome = REAP_FAILED};
    int rc = reap_mark_referenced(&r->reaper, r->pg, table_id, items, n, r->err);
    if (rc == 0)
        rc = reap_objects(&r->reaper, items, n, r->err);
    if (rc == 0) {
        reap_count(&r->reaper, items, n, done->objects);
        rc = delete_rows(r, table_id, &page, items, n, done);
    }
    if (rc == 0 && done->objects[REAP_FAILED] > 0)
        rc = skip_table(r, table_id);
    else if (rc == 0 && (int64_t)n < r->opt->batch) {
        bool purged = false;
        rc = store_retirement_purge(r->pg, r->catalog_id, table_id, &purged, r->err);
        done->tables_retired += purged;
        if (rc == 0 && !purged) /* rows the page skipped, locked by a purge: later */
            rc = skip_table(r, table_id);
    }
    free(items);
    store_retired_page_free(&page);
    return rc;
}

static void add_page(struct retirement_result *to, const struct retirement_result *page)
{
    to->tables_retired += page->tables_retired;
    to->data_files_removed += page->data_files_removed;
    to->delete_files_removed += page->delete_files_removed;
    for (int k = 0; k < REAP_OUTCOMES; k++)
        to->objects[k] += page->objects[k];
    to->batches++;
}

/* One page in its own transaction: 1 worked, 0 no table to work, -1. */
static int one_page(struct run *r)
{
    struct pg_array skip;
    pg_array_init(&skip);
    for (size_t i = 0; i < r->nskipped; i++)
        pg_array_i64(&skip, r->skipped[i]);
    const char *skip_lit = pg_array_text(&skip);
    int found = -1;
    int64_t table_id = 0;
    struct retirement_result done = {0};
    if (!skip_lit)
        error_nomem(r->err);
    else if (db_begin(r->pg, r->err) == 0) {
        found = store_retirement_take(r->pg, r->catalog_id, skip_lit, &table_id, r->err);
        if (found < 0 || (found == 1 && work_page(r, table_id, &done) != 0)) {
            db_rollback(r->pg);
            found = -1;
        } else if (db_commit(r->pg, r->err) != 0) {
            found = -1;
        } else if (found == 1) {
            add_page(r->res, &done);
        }
    }
    pg_array_free(&skip);
    return found;
}

static int reclaim(struct run *r, const atomic_bool *stop)
{
    int64_t deadline = time_mono_ns() + r->opt->budget_ms * 1000000;
    for (;;) {
        if (r->res->batches > 0 && !pause_unless_stopping(r->opt->pause_ms, stop))
            return 1;
        if (stopping(stop) || time_mono_ns() > deadline)
            return 1;
        int worked = one_page(r);
        if (worked <= 0)
            return worked;
    }
}

int retirement_run(struct server *srv, PGconn *pg, const struct catalog_row *cat,
                   const struct retirement_options *opt, const atomic_bool *stop,
                   struct retirement_result *out, struct error *err)
{
    *out = (struct retirement_result){0};
    struct run r = {.pg = pg, .catalog_id = cat->id, .opt = opt, .res = out, .err = err};
    int rc = mark(pg, cat->id, opt, out, err);
    if (rc == 0 && (rc = reaper_open(&r.reaper, srv, cat, "file_id", err)) == 0) {
        int cut = reclaim(&r, stop);
        rc = cut < 0 ? -1 : 0;
        if (rc == 0 && store_retirement_eligible(pg, cat->id, &out->tables_pending, err) != 0)
            rc = -1;
        out->truncated = cut == 1 && out->tables_pending > 0;
        reaper_close(&r.reaper);
    }
    free(r.skipped);
    return rc;
}

json_t *retirement_result_json(const struct retirement_result *r)
{
    json_t *o =
        json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:b}", "tables_marked",
                  (json_int_t)r->tables_marked, "tables_retired", (json_int_t)r->tables_retired,
                  "data_files_removed", (json_int_t)r->data_files_removed, "delete_files_removed",
                  (json_int_t)r->delete_files_removed, "batches", (json_int_t)r->batches,
                  "tables_pending", (json_int_t)r->tables_pending, "lock_held_us",
                  (json_int_t)r->lock_held_us, "truncated", r->truncated);
    if (o && reap_counts_json(o, r->objects) != 0) {
        json_decref(o);
        return NULL;
    }
    return o;
}

int retirement_pass(void *ctx, PGconn *pg, int64_t catalog_id, json_t **result, struct error *err)
{
    const struct retirement_task *t = ctx;
    *result = NULL;
    struct pass_ctx pc;
    int rc = pass_ctx_open(&pc, t->srv, pg, catalog_id, err);
    if (rc == 0 && !(*result = json_object())) /* gone since the sweep listed it */
        rc = error_nomem(err);
    if (rc == 1) {
        struct retirement_result res;
        rc = retirement_run(t->srv, pg, &pc.cat, &t->opt, t->stop, &res, err);
        struct metrics *m = t->srv->metrics;
        metrics_counter_add(m, "hoglake_tables_retired_total", "", (double)res.tables_retired);
        metrics_counter_add(m, "hoglake_files_retired_total", "file_kind=\"data\"",
                            (double)res.data_files_removed);
        metrics_counter_add(m, "hoglake_files_retired_total", "file_kind=\"delete\"",
                            (double)res.delete_files_removed);
        *result = retirement_result_json(&res);
        if (rc == 0 && !*result)
            rc = error_nomem(err);
    }
    pass_ctx_close(&pc);
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
